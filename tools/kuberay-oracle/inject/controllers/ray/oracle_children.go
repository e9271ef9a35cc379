// This file is not KubeRay's: scripts/ensure-oracle copies it into package ray (the controllers) of the
// oracle's build copy of the operator module (tools/kuberay-oracle/inject), so that the oracle can build, with
// the controllers' own unexported builders, the objects the operator creates for a Ray object (the head and
// worker Pods, the submitter Job, the RayCluster of a RayJob). Nothing here decides anything itself: every
// wrapper calls one builder unchanged, with the reconciler's default options (no sidecars, no default labels,
// no batch scheduler), and the caller validates what it returns with the API server's own validation.

package ray

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
)

// OracleUID stands for the uid the API server gives the parent object (the children's owner references name it).
const OracleUID = types.UID("0f0e0d0c-0b0a-4909-8807-060504030201")

func oracleChildScheme() *k8sruntime.Scheme {
	scheme := k8sruntime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = batchv1.AddToScheme(scheme)
	_ = rayv1.AddToScheme(scheme)
	return scheme
}

// OracleChildDefaults is the RayCluster controller's setDefaults (Reconcile applies it before anything is built).
func OracleChildDefaults(cluster *rayv1.RayCluster) { setDefaults(cluster) }

// OracleBuildHeadPod is RayClusterReconciler.buildHeadPod (createHeadPod creates what it returns).
func OracleBuildHeadPod(cluster *rayv1.RayCluster) corev1.Pod {
	r := &RayClusterReconciler{Scheme: oracleChildScheme()}
	return r.buildHeadPod(context.Background(), *cluster)
}

// OracleBuildWorkerPod is RayClusterReconciler.buildWorkerPod for worker group `group` (createWorkerPod's call).
func OracleBuildWorkerPod(cluster *rayv1.RayCluster, group int) corev1.Pod {
	r := &RayClusterReconciler{Scheme: oracleChildScheme()}
	return r.buildWorkerPod(context.Background(), *cluster, cluster.Spec.WorkerGroupSpecs[group], "", 0, 0)
}

// OracleConstructRayClusterForRayJob is RayJobReconciler.constructRayClusterForRayJob (the RayCluster that
// getOrCreateRayClusterInstance creates; in SidecarMode with the submitter container of getSubmitterContainer).
func OracleConstructRayClusterForRayJob(rayJob *rayv1.RayJob, name string) (*rayv1.RayCluster, error) {
	r := &RayJobReconciler{Scheme: oracleChildScheme()}
	return r.constructRayClusterForRayJob(rayJob, name)
}

// OracleSubmitterJob is what createK8sJobIfNeed creates in K8sJobMode: getSubmitterTemplate, then
// createNewK8sJob, run against a fake client; the Job is read back from it.
func OracleSubmitterJob(rayJob *rayv1.RayJob, cluster *rayv1.RayCluster) (*batchv1.Job, error) {
	template, err := getSubmitterTemplate(rayJob, cluster)
	if err != nil {
		return nil, err
	}
	scheme := oracleChildScheme()
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	r := &RayJobReconciler{Client: c, Scheme: scheme, Recorder: oracleRecorder()}
	if err := r.createNewK8sJob(context.Background(), rayJob, template); err != nil {
		return nil, err
	}
	jobs := &batchv1.JobList{}
	if err := c.List(context.Background(), jobs, client.InNamespace(rayJob.Namespace)); err != nil {
		return nil, err
	}
	if len(jobs.Items) != 1 {
		return nil, fmt.Errorf("createNewK8sJob created %d Jobs", len(jobs.Items))
	}
	job := jobs.Items[0]
	job.ResourceVersion = "" // set by the fake client, not by the operator
	return &job, nil
}
