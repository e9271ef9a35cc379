//go:build kuberay1.6

// This file is not KubeRay's: scripts/ensure-oracle copies it into package ray (the controllers) of the
// oracle's build copy of the operator module (tools/kuberay-oracle/inject), so that the oracle's `plan`
// command can call the controllers' unexported decision functions, unchanged, on the cases of
// tests/oracle/test_plan_differential.py. Nothing here decides anything itself.

package ray

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
)

func oracleScheme() *k8sruntime.Scheme {
	scheme := k8sruntime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = rayv1.AddToScheme(scheme)
	return scheme
}

// OracleShouldRecreatePodsForUpgrade runs the RayCluster controller's shouldRecreatePodsForUpgrade with a client
// that holds exactly headPods (labelled as the cluster's head Pods by the caller).
func OracleShouldRecreatePodsForUpgrade(cluster *rayv1.RayCluster, headPods []corev1.Pod) bool {
	scheme := oracleScheme()
	objects := make([]client.Object, 0, len(headPods))
	for i := range headPods {
		objects = append(objects, &headPods[i])
	}
	r := &RayClusterReconciler{Client: fake.NewClientBuilder().WithScheme(scheme).WithObjects(objects...).Build(), Scheme: scheme}
	return r.shouldRecreatePodsForUpgrade(context.Background(), cluster)
}

// OracleSetDefaults is the RayCluster controller's setDefaults (applied in memory on every reconcile, before the
// spec hash is computed).
func OracleSetDefaults(cluster *rayv1.RayCluster) { setDefaults(cluster) }

// OracleConstructRayClusterForRayService is constructRayClusterForRayService (the RayCluster, with its hash,
// worker-group-count and version annotations, that the RayService controller creates or writes).
func OracleConstructRayClusterForRayService(rs *rayv1.RayService, name string) (*rayv1.RayCluster, error) {
	return constructRayClusterForRayService(rs, name, oracleScheme())
}

// OracleModifyRayCluster is modifyRayCluster (the in-place update of reconcileRayCluster).
func OracleModifyRayCluster(current, goal *rayv1.RayCluster) {
	modifyRayCluster(context.Background(), current, goal)
}

// OracleShouldUpdateCluster is shouldUpdateCluster.
func OracleShouldUpdateCluster(rs *rayv1.RayService, cluster *rayv1.RayCluster, isActive bool) bool {
	return shouldUpdateCluster(rs, cluster, isActive)
}

// OracleIsClusterSpecHashEqual is isClusterSpecHashEqual.
func OracleIsClusterSpecHashEqual(rs *rayv1.RayService, cluster *rayv1.RayCluster, partial bool) bool {
	return isClusterSpecHashEqual(rs, cluster, partial)
}

// OracleShouldPrepareNewCluster is shouldPrepareNewCluster.
func OracleShouldPrepareNewCluster(rs *rayv1.RayService, active, pending *rayv1.RayCluster, pendingServing bool) bool {
	return shouldPrepareNewCluster(context.Background(), rs, active, pending, pendingServing)
}

// OracleIsZeroDowntimeUpgradeEnabled is isZeroDowntimeUpgradeEnabled (it reads ENABLE_ZERO_DOWNTIME).
func OracleIsZeroDowntimeUpgradeEnabled(strategy *rayv1.RayServiceUpgradeStrategy) bool {
	return isZeroDowntimeUpgradeEnabled(context.Background(), strategy)
}

// OracleCheckIfNeedSubmitServeApplications is checkIfNeedSubmitServeApplications.
func OracleCheckIfNeedSubmitServeApplications(cached, config string, apps map[string]rayv1.AppStatus) (bool, string) {
	return checkIfNeedSubmitServeApplications(cached, config, apps)
}
