//go:build !kuberay1.6

package main

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
)

// Operator versions before 1.6: no RayCronJob (its CRD does not exist, so the API server refuses it first),
// no ValidateRayClusterUpgradeOptions, a RayService
// has no managedBy, GetWorkerGroupDesiredReplicas takes a context, the upgrade types have no RayService prefix.

const incrementalUpgradeType = rayv1.NewClusterWithIncrementalUpgrade

func desiredReplicas(wg rayv1.WorkerGroupSpec) int32 {
	return utils.GetWorkerGroupDesiredReplicas(context.Background(), wg)
}

func serviceManagedBy(*rayv1.RayService) *string { return nil }

func (j *judgement) reconcileCronJob(u *unstructured.Unstructured, object string) {
	j.call(object, "kind", func() error { return errNoController(u.GetKind()) })
}

func (j *judgement) validateClusterUpgradeOptions(*rayv1.RayCluster, string) bool { return true }
