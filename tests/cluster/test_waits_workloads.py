"""RayJob and RayService waits against the real operator.

A RayJob driven to Failed (``activeDeadlineSeconds``: kwok runs no Ray, so the job never starts and
``checkActiveDeadlineAndUpdateStatusIfNeeded`` fails it) must fail the ``up`` right then with the operator's
reason. A RayService can never serve here (no Ray dashboard behind kwok's Pods), so its waits must neither end
early nor hang past their time-out: the create, a ``serveConfigV2`` change and a ``rayClusterConfig`` change each
fail at their time-out with the diagnosis; the test records what the operator wrote for each generation.
"""

from __future__ import annotations

import copy
from typing import Any

from ._waits import IMAGE, PROGRAM, SMALL_CLUSTER, TIMEOUT, conditions, config, timed_up
from .conftest import ClusterStack, LocalCluster

DEADLINE = 15
SERVICE_TIMEOUT = 45


def test_rayjob_driven_to_failed_fails_fast(make_stack: Any, namespace: str, local_cluster: LocalCluster) -> None:
    job = {
        "entrypoint": "python -c 'import ray; ray.init()'",
        "activeDeadlineSeconds": DEADLINE,
        "rayClusterSpec": SMALL_CLUSTER,
    }
    stack: ClusterStack = make_stack(
        config({"j": {"kind": "RayJob", "spec": job, "timeout_seconds": TIMEOUT}}, namespace),
        namespace=namespace,
        program=PROGRAM,
    )
    up, took = timed_up(stack, "RayJob driven to Failed (DeadlineExceeded)")
    assert up.returncode != 0, up.describe()
    assert "DeadlineExceeded" in up.output, up.describe()
    assert "RayJobFailedError" in up.output or "failed:" in up.output, up.describe()
    assert took < DEADLINE + 60, up.describe()
    live = local_cluster.get_json("-n", namespace, "rayjob", "j")
    assert live["status"]["jobDeploymentStatus"] == "Failed"


SERVICE: dict[str, Any] = {
    "serveConfigV2": {
        "applications": [
            {
                "name": "text",
                "route_prefix": "/text",
                "import_path": "text_app.main:app",
                "deployments": [{"name": "Summarizer", "num_replicas": 1}],
            }
        ]
    },
    "rayClusterConfig": {
        "rayVersion": "2.52.0",
        "image": IMAGE,
        "headGroupSpec": {"cpu": 1, "memory": "2Gi", "rayStartParams": {"num-cpus": "0"}},
        "workerGroupSpecs": [
            {"groupName": "cpu", "cpu": 1, "memory": "2Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": 1}
        ],
    },
}


def _service(spec: dict[str, Any], namespace: str) -> dict[str, Any]:
    return config({"s": {"kind": "RayService", "spec": spec, "timeout_seconds": SERVICE_TIMEOUT}}, namespace)


def _record(local_cluster: LocalCluster, namespace: str, step: str) -> dict[str, Any]:
    live = local_cluster.get_json("-n", namespace, "rayservice", "s")
    status = live.get("status") or {}
    summary = {t: (c["status"], c.get("reason"), c.get("observedGeneration")) for t, c in conditions(live).items()}
    print(
        f"[waits] RayService after {step}: generation {live['metadata']['generation']}, observedGeneration "
        f"{status.get('observedGeneration')}, conditions {summary}, active "
        f"{(status.get('activeServiceStatus') or {}).get('rayClusterName')}, pending "
        f"{(status.get('pendingServiceStatus') or {}).get('rayClusterName')}"
    )
    return live


def test_rayservice_waits_end_at_their_time_out_with_the_diagnosis(
    make_stack: Any, namespace: str, local_cluster: LocalCluster
) -> None:
    spec = copy.deepcopy(SERVICE)
    stack: ClusterStack = make_stack(_service(spec, namespace), namespace=namespace, program=PROGRAM)
    for step in ("create", "serveConfigV2 change", "rayClusterConfig change"):
        if step == "serveConfigV2 change":
            spec["serveConfigV2"]["applications"][0]["deployments"][0]["num_replicas"] = 2
        elif step == "rayClusterConfig change":
            spec["rayClusterConfig"]["image"] = "rayproject/ray:2.52.0-py311"
        stack.set_config(_service(spec, namespace))
        up, took = timed_up(stack, f"RayService {step} (kwok: never serves)")
        assert up.returncode != 0, up.describe()
        assert f"timed out after {SERVICE_TIMEOUT}s" in up.output, up.describe()
        assert "kuberay-explain" in up.output, up.describe()
        # At least the timeout; no upper bound: the message above names the timeout that fired, and the time the
        # engine then takes to end (90 s at load 50 in the cold run of 2026-12-08) is the machine's, not the wait's.
        assert took >= SERVICE_TIMEOUT, up.describe()
        live = _record(local_cluster, namespace, step)
        assert conditions(live).get("Ready", {}).get("status") != "True"
