//go:build !kuberay1.7

// Not KubeRay's (see oracle_children.go): the reconcilers' event recorder before v1.7 (client-go's record API).

package ray

import "k8s.io/client-go/tools/record"

func oracleRecorder() record.EventRecorder { return &record.FakeRecorder{} }
