//go:build kuberay1.7

package main

import (
	"fmt"
	"time"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
)

// cronTick stands for the schedule time of the RayJob a RayCronJob creates.
var cronTick = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func cronSuspended(rcj *rayv1.RayCronJob) bool { return rcj.Spec.Suspend != nil && *rcj.Spec.Suspend }

// cronChildName: constructRayJob names the RayJob getRayJobName(cron, tick) = "<cron>-<tick in Unix minutes>"
// in v1.7 (deterministic, so MaxRayCronJobNameLength leaves 11 characters for it).
func cronChildName(cron string) string { return fmt.Sprintf("%s-%d", cron, cronTick.Unix()/60) }
