//go:build kuberay1.7

// Not KubeRay's (see oracle_children.go): the reconcilers' event recorder from v1.7 on (client-go's events API).

package ray

import "k8s.io/client-go/tools/events"

func oracleRecorder() events.EventRecorder { return &events.FakeRecorder{} }
