"""The upgrade path users take: a RayCluster created under KubeRay v1.6.1 keeps working after the operator is
replaced by v1.7.0 (the new CRDs applied first, then the new operator: ``scripts/local-cluster switch-operator``).

"Keeps working": the v1.7.0 operator takes the object over without touching its Pods (same head and worker Pod
UIDs, the cluster stays ``ready``) and acts on a change made after the switch (a worker group scaled up gets its
new Pod). The RayCluster is the one the ``local`` stack renders (autoscaling, a CPU and a GPU group).

Its own control plane (the session's runs v1.7.0 from the start), started with ``--operator-version 1.6.1``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import CLUSTER_TESTS_DIR, REPO_VENV, LocalCluster, start_local_cluster, stop_local_cluster

UPGRADE_FROM = "1.6.1"
UPGRADE_TO = "1.7.0"


@pytest.fixture(scope="module")
def old_operator_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    state = tmp_path_factory.mktemp("upgrade-cluster") / "state"
    cluster = start_local_cluster(state, "--operator-version", UPGRADE_FROM, own_ports=True)
    try:
        yield cluster
    finally:
        stop_local_cluster(cluster)


def _local_stack_raycluster() -> dict[str, Any]:
    proc = subprocess.run(
        [str(REPO_VENV / "bin" / "python"), str(CLUSTER_TESTS_DIR / "_render_stacks.py"), "local"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    (manifest,) = [m for m in json.loads(proc.stdout)["local"] if m["kind"] == "RayCluster"]
    manifest["metadata"]["namespace"] = "default"
    return manifest  # type: ignore[no-any-return]


def _pods(cluster: LocalCluster, name: str) -> dict[str, str]:
    """``{pod name: uid}`` of the RayCluster's Pods."""
    items = cluster.get_json("-n", "default", "pods", "-l", f"ray.io/cluster={name}")["items"]
    return {p["metadata"]["name"]: p["metadata"]["uid"] for p in items}


def _ready_with(cluster: LocalCluster, name: str, pods: int) -> dict[str, str] | None:
    obj = cluster.get_json("-n", "default", "raycluster", name)
    found = _pods(cluster, name)
    return found if (obj.get("status") or {}).get("state") == "ready" and len(found) == pods else None


def test_a_raycluster_created_under_1_6_1_keeps_working_under_1_7_0(old_operator_cluster: LocalCluster) -> None:
    cluster = old_operator_cluster
    assert cluster.operator_version == UPGRADE_FROM
    manifest = _local_stack_raycluster()
    name = manifest["metadata"]["name"]
    cluster.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(manifest))
    # head + one Pod per worker group (minReplicas 1 each)
    before = cluster.wait_for(
        lambda: _ready_with(cluster, name, 3), 180, f"RayCluster {name} ready under v{UPGRADE_FROM}\n"
        f"{cluster.logs('ray-operator')}"
    )

    switched = cluster.script("switch-operator", "--operator-version", UPGRADE_TO)
    sys.stderr.write(switched.stderr[-800:])
    status = cluster.script("status").stdout
    assert f"KubeRay operator: v{UPGRADE_TO}, built from " in status, status

    # The new operator acts on a change made after the switch: 2 CPU workers instead of 1.
    cluster.kubectl(
        "-n", "default", "patch", "raycluster", name, "--type=json",
        "-p", json.dumps([{"op": "add", "path": "/spec/workerGroupSpecs/0/replicas", "value": 2}]),
    )  # fmt: skip
    after = cluster.wait_for(
        lambda: _ready_with(cluster, name, 4), 180, f"the v{UPGRADE_TO} operator to add a worker Pod to {name}\n"
        f"{cluster.logs('ray-operator')}"
    )
    # ...and leaves the Pods the old one made alone (same names, same UIDs: nothing was recreated).
    assert {pod: uid for pod, uid in after.items() if pod in before} == before, (before, after)
    log = Path(cluster.state_dir / "logs" / "ray-operator.log").read_text(errors="replace")
    new_part = log.split(f"to v{UPGRADE_TO}", 1)[1]
    assert "panic" not in new_part.lower(), new_part[-3000:]
