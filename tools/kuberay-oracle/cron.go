//go:build kuberay1.6

package main

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
	"github.com/ray-project/kuberay/ray-operator/pkg/features"
)

func (j *judgement) reconcileCronJob(u *unstructured.Unstructured, object string) {
	rcj := &rayv1.RayCronJob{}
	if j.call(object, "decode", func() error { return decode(u, rcj) }) {
		j.rayCronJob(rcj, object)
	}
}

// rayCronJob follows RayCronJobReconciler.Reconcile (its controller only runs with the RayCronJob gate on):
// ValidateRayCronJobSpec, then unless suspended the RayJob of constructRayJob.
func (j *judgement) rayCronJob(rcj *rayv1.RayCronJob, object string) {
	if !features.Enabled(features.RayCronJob) {
		j.ignore("the RayCronJob feature gate is off: the operator does not start the RayCronJob controller")
		return
	}
	if !j.call(object, "ValidateRayCronJobSpec", func() error { return utils.ValidateRayCronJobSpec(rcj) }) || cronSuspended(rcj) {
		return
	}
	j.child(&rayv1.RayJob{
		TypeMeta: metav1.TypeMeta{APIVersion: "ray.io/v1", Kind: "RayJob"},
		ObjectMeta: metav1.ObjectMeta{
			Name: cronChildName(rcj.Name), Namespace: rcj.Namespace,
			Labels:      map[string]string{utils.RayCronJobNameLabelKey: rcj.Name},
			Annotations: map[string]string{utils.RayCronJobTimestampAnnotationKey: cronTick.UTC().Format("2006-01-02T15:04:05Z07:00")},
		},
		Spec: *rcj.Spec.JobTemplate.DeepCopy(),
	}, " (created by "+object+")")
}
