//go:build kuberay1.7

package main

import (
	"errors"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
)

// tlsNeedsCertManager: RayClusterReconciler.rayClusterReconcile fails fast when tlsOptions asks for mTLS and the
// operator found no cert-manager at start (--cert-manager=false says so; the default assumes it is installed).
func (j *judgement) tlsNeedsCertManager(rc *rayv1.RayCluster, object string) bool {
	return j.call(object, "IsTLSEnabled && CertManagerAvailable", func() error {
		if utils.IsTLSEnabled(&rc.Spec) && !certManagerAvailable {
			return errors.New("tlsOptions requires cert-manager, but cert-manager is not installed")
		}
		return nil
	})
}
