"""RayJobs driven to Failed by the real operator: ``pulumi up`` fails fast with ``RayJobFailedError``.

There is no Ray dashboard behind the head Service here (kwok runs no containers), so no job can run: the
operator creates the cluster and the submitter Job and then cannot reach the dashboard. ``activeDeadlineSeconds``
makes it give up (``checkActiveDeadlineAndUpdateStatusIfNeeded``: Failed, reason DeadlineExceeded), and the
component must fail the ``up`` right then (not at the wait's time-out) with the operator's reason and our
diagnosis. ``destroy`` then leaves no Ray object, Pod or Service (the operator's own cluster included).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from pulumi_kuberay import diagnose

from .conftest import ClusterStack, LocalCluster, TransitionRecorder
from .test_raycluster import left_in

IMAGE = "rayproject/ray:2.52.0"
DEADLINE = 15
#: The wait's own time-out: failing anywhere near it would mean the failure was not seen.
WAIT_TIMEOUT = 480

SMALL_CLUSTER: dict[str, Any] = {
    "rayVersion": "2.52.0",
    "image": IMAGE,
    "headGroupSpec": {"cpu": 1, "memory": "2Gi"},
    "workerGroupSpecs": [
        {"groupName": "cpu", "cpu": 1, "memory": "2Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": 1}
    ],
}
JOB_SPEC: dict[str, Any] = {
    "entrypoint": "python -c 'import ray; ray.init()'",
    "activeDeadlineSeconds": DEADLINE,
}

ON_CLUSTER = {
    "pulumi-kuberay:clusters": {"shared": {"spec": SMALL_CLUSTER}},
    "pulumi-kuberay:jobs": {
        "on-shared": {
            "cluster": "shared",
            "spec": JOB_SPEC,
            "wait_for_completion": True,
            "timeout_seconds": WAIT_TIMEOUT,
        },
    },
}
OWN_CLUSTER = {
    "pulumi-kuberay:jobs": {
        "own": {
            "spec": {
                **JOB_SPEC,
                "shutdownAfterJobFinishes": True,
                "ttlSecondsAfterFinished": 0,
                "rayClusterSpec": SMALL_CLUSTER,
            },
            "wait_for_completion": True,
            "timeout_seconds": WAIT_TIMEOUT,
        },
    },
}


@pytest.mark.parametrize(
    ("config", "job"), [(ON_CLUSTER, "on-shared"), (OWN_CLUSTER, "own")], ids=["on-a-cluster", "own-cluster"]
)
def test_rayjob_failed_by_the_operator_fails_up_fast_with_its_reason(
    config: dict[str, Any],
    job: str,
    make_stack: Any,
    namespace: str,
    local_cluster: LocalCluster,
    transitions: TransitionRecorder,
) -> None:
    stack: ClusterStack = make_stack({"kuberay:environment": "dev", **config}, namespace=namespace)
    started = time.monotonic()
    up = stack.up()
    took = time.monotonic() - started
    seen = transitions.of("RayJob", namespace, job)
    assert up.returncode != 0, up.describe()
    assert took < WAIT_TIMEOUT, f"up took {took:.0f}s: the failure was only noticed at the time-out"

    live = local_cluster.get_json("-n", namespace, "rayjob", job)
    status = live["status"]
    assert status["jobDeploymentStatus"] == "Failed", status
    reason = status.get("reason")
    assert reason, status
    # The error: our type, the operator's status and reason, and our diagnosis of the same status.
    # (a pulumi.RunError subclass: the CLI prints its message, without a traceback)
    assert "Traceback" not in up.output, up.describe()
    assert f"RayJob '{job}' failed: jobDeploymentStatus=Failed" in up.output, up.describe()
    assert f"reason={reason}" in up.output, up.describe()
    diagnosis = diagnose(live)
    assert diagnosis.phase == "failed", diagnosis.line()
    assert "diagnosis: " in up.output and diagnosis.summary[:80] in up.output, (diagnosis.summary, up.describe())
    print(f"RayJob {job}: up failed after {took:.1f}s with reason {reason}; transitions: {seen}")

    if job == "own":
        assert status.get("rayClusterName", "").startswith(f"{job}-"), status

    destroy = stack.destroy()
    assert destroy.returncode == 0, destroy.describe()
    local_cluster.wait_for(
        lambda: not left_in(local_cluster, namespace),
        180,
        f"garbage collection in {namespace} (left: {left_in(local_cluster, namespace)})",
    )
