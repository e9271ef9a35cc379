//go:build kuberay1.6

// Not KubeRay's (see oracle_children.go): the RayJob a RayCronJob creates, from v1.6 on (the RayCronJob controller).

package ray

import (
	"time"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
)

// OracleConstructRayJob is RayCronJobReconciler.constructRayJob (Reconcile creates what it returns at each
// schedule time), with the reconciler's scheme for the owner reference; the RayCronJob has the uid the API server
// gives it (OracleUID), which the owner reference carries.
func OracleConstructRayJob(cronJob *rayv1.RayCronJob, scheduled time.Time) (*rayv1.RayJob, error) {
	stored := cronJob.DeepCopy()
	if stored.UID == "" {
		stored.UID = OracleUID
	}
	r := &RayCronJobReconciler{Scheme: oracleChildScheme()}
	return r.constructRayJob(stored, scheduled)
}
