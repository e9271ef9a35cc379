//go:build !kuberay1.6

package main

import (
	"fmt"
	"os"
)

// Operator versions before 1.6: the controllers' decision functions that plan.go calls (for instance
// shouldRecreatePodsForUpgrade) do not exist there, and the change plan models KubeRay 1.6 and later only.
func planMain([]string) int {
	fmt.Fprintf(os.Stderr, "kuberay-oracle plan: this oracle is built at %s; the change plan models KubeRay >= 1.6\n", operatorVersion())
	return 2
}
