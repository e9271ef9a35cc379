"""A RayService whose Serve applications can never start (kwok runs no Ray): the wait ends in a clear time-out.

The operator creates the RayService's cluster (it becomes ready: kwok makes its Pods Running) but cannot
reach the dashboard to deploy Serve, so the ``Ready`` condition never turns True. ``pulumi up`` must end at
the short ``timeout_seconds`` with an error that names the object and says its wait timed out; the
live object diagnosed by ``diagnose``/``kuberay-explain`` (what the component docs tell a user to run) says
what is missing. ``destroy`` then removes it all.
"""

from __future__ import annotations

import json
import time
from typing import Any

from pulumi_kuberay import diagnose

from .conftest import ClusterStack, LocalCluster, TransitionRecorder, explain
from .test_raycluster import left_in

TIMEOUT = 60

SERVICE: dict[str, Any] = {
    "timeout_seconds": TIMEOUT,
    "spec": {
        "serveConfigV2": {
            "applications": [
                {
                    "name": "text",
                    "route_prefix": "/text",
                    "import_path": "text_app.main:app",
                    "deployments": [{"name": "Summarizer", "num_replicas": 1}],
                },
            ],
        },
        "rayClusterConfig": {
            "rayVersion": "2.52.0",
            "image": "rayproject/ray:2.52.0",
            "headGroupSpec": {"cpu": 1, "memory": "2Gi", "rayStartParams": {"num-cpus": "0"}},
            "workerGroupSpecs": [
                {"groupName": "cpu", "cpu": 1, "memory": "2Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": 1}
            ],
        },
    },
}


def test_rayservice_wait_times_out_clearly_and_the_stack_still_destroys(
    make_stack: Any, namespace: str, local_cluster: LocalCluster, transitions: TransitionRecorder
) -> None:
    stack: ClusterStack = make_stack(
        {"kuberay:environment": "dev", "pulumi-kuberay:services": {"serve": SERVICE}}, namespace=namespace
    )
    started = time.monotonic()
    up = stack.up()
    took = time.monotonic() - started
    assert up.returncode != 0, up.describe()
    assert took >= TIMEOUT, f"up failed after {took:.0f}s, before the {TIMEOUT}s wait: {up.describe()}"
    print(
        f"RayService up: failed after {took:.1f}s (timeout {TIMEOUT}s); transitions: "
        f"{transitions.of('RayService', namespace, 'serve')}"
    )
    print("---- the error a user sees ----\n" + up.output[-3000:])

    # The component's own wait (skipAwait + polling) ends with an error that names the object, says the wait timed
    # out, carries diagnose()'s line for the live object and the kuberay-explain hint.
    assert "RayService 'serve': timed out after" in up.output, up.describe()
    assert "progressing" in up.output and "Initializing" in up.output, up.describe()
    assert f"kubectl get rayservice -n {namespace} serve -o json | kuberay-explain -" in up.output, up.describe()
    assert "Traceback" not in up.output, up.describe()

    # What diagnose / kuberay-explain say about the live object: not ready, and why.
    live = local_cluster.get_json("-n", namespace, "rayservice", "serve")
    diagnosis = diagnose(live)
    assert diagnosis.phase in ("progressing", "degraded", "failed"), diagnosis.line()
    explained = explain(live)
    assert explained.returncode == 1, explained.stdout + explained.stderr
    (entry,) = json.loads(explained.stdout)
    assert entry["phase"] == diagnosis.phase and entry["summary"] == diagnosis.summary
    print(f"diagnosis of the timed-out RayService: {diagnosis.line()}")

    destroy = stack.destroy()
    assert destroy.returncode == 0, destroy.describe()
    local_cluster.wait_for(
        lambda: not left_in(local_cluster, namespace),
        180,
        f"garbage collection in {namespace} (left: {left_in(local_cluster, namespace)})",
    )
