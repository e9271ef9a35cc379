//go:build kuberay1.6

package main

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	rayctrl "github.com/ray-project/kuberay/ray-operator/controllers/ray"
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
	var job *rayv1.RayJob
	if !j.call(object, "constructRayJob", func() (err error) { job, err = rayctrl.OracleConstructRayJob(rcj, cronTick); return err }) {
		return
	}
	// The API server sees kind and version in the request; v1.6 names the RayJob "<cron>-" + rand.String(5):
	// cronChildName keeps the verdicts reproducible with a name of the same length.
	job.TypeMeta = metav1.TypeMeta{APIVersion: "ray.io/v1", Kind: "RayJob"}
	job.Name = cronChildName(rcj.Name)
	j.child(job, " (created by "+object+")")
}
