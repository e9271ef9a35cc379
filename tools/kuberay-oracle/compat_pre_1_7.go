//go:build !kuberay1.7

package main

import rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"

// tlsNeedsCertManager: no tlsOptions before v1.7.
func (j *judgement) tlsNeedsCertManager(*rayv1.RayCluster, string) bool { return true }
