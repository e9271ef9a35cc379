//go:build kuberay1.6 && !kuberay1.7

package main

import (
	"fmt"
	"time"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
)

// cronTick stands for the schedule time of the RayJob a RayCronJob creates.
var cronTick = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func cronSuspended(rcj *rayv1.RayCronJob) bool { return rcj.Spec.Suspend }

// cronChildName: constructRayJob names the RayJob "<cron>-" + rand.String(5) in v1.6.
func cronChildName(cron string) string { return fmt.Sprintf("%s-%s", cron, childSuffix) }
