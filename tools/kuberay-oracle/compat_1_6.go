//go:build kuberay1.6

package main

import (
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
)

// validateClusterUpgradeOptions: RayClusterReconciler.rayClusterReconcile calls ValidateRayClusterUpgradeOptions
// from v1.6 on.
func (j *judgement) validateClusterUpgradeOptions(rc *rayv1.RayCluster, object string) bool {
	return j.call(object, "ValidateRayClusterUpgradeOptions", func() error { return utils.ValidateRayClusterUpgradeOptions(rc) })
}

const incrementalUpgradeType = rayv1.RayServiceNewClusterWithIncrementalUpgrade

func desiredReplicas(wg rayv1.WorkerGroupSpec) int32 { return utils.GetWorkerGroupDesiredReplicas(wg) }

func serviceManagedBy(rs *rayv1.RayService) *string { return rs.Spec.ManagedBy }
