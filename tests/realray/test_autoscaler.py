"""(g) The in-tree autoscaler, its sidecar running for real: work that needs more CPUs than the cluster has
scales the worker group up, within its bounds."""

from __future__ import annotations

import sys
import time
from typing import Any

from realray._manifests import raycluster
from realray.conftest import RealRay

# 3 tasks of 1 CPU each, on a head with no CPU for Ray and a group of 0..2 one-CPU workers: the autoscaler adds
# workers (at most 2); the tasks finish on them.
WORK = (
    "import ray, time; ray.init(); f = ray.remote(num_cpus=1)(lambda i: (time.sleep(5), i)[1]); print('done', sorted(ray.get([f.remote(i) for i in range(3)])))"
)


def test_autoscaler_scales_a_group_up_within_its_bounds(realray: RealRay, rr_namespace: str) -> None:
    ns = rr_namespace
    manifest: dict[str, Any] = raycluster("auto", workers=1, head_cpus="0")
    manifest["spec"]["enableInTreeAutoscaling"] = True
    group = manifest["spec"]["workerGroupSpecs"][0]
    group.update(replicas=0, minReplicas=0, maxReplicas=2)
    realray.apply(manifest, ns)

    def head() -> str | None:
        pods = realray.pods(ns, "ray.io/cluster=auto,ray.io/node-type=head")
        ready = pods and {c["type"]: c["status"] for c in pods[0]["status"].get("conditions", [])}.get("Ready")
        return pods[0]["metadata"]["name"] if ready == "True" else None

    name = realray.wait_for(head, 240, "the head to be Ready")
    pod = realray.pods(ns, "ray.io/cluster=auto,ray.io/node-type=head")[0]
    assert [c["name"] for c in pod["spec"]["containers"]] == ["ray-head", "autoscaler"]
    started = time.monotonic()
    work = realray.exec_in(ns, name, ["python", "-c", WORK], container="ray-head", timeout=420)
    took = time.monotonic() - started
    assert work.returncode == 0, work.stderr[-3000:]
    assert "done [0, 1, 2]" in work.stdout
    obj = realray.get("raycluster", "auto", ns)
    assert obj is not None
    replicas = obj["spec"]["workerGroupSpecs"][0]["replicas"]
    sys.stderr.write(f"\n[realray] autoscaler: 3 one-CPU tasks done in {took:.0f}s, the group scaled to {replicas}\n")
    assert 1 <= replicas <= 2
    workers = realray.pods(ns, "ray.io/cluster=auto,ray.io/node-type=worker")
    assert 1 <= len(workers) <= 2
    logs = realray.kubectl("logs", "-n", ns, name, "-c", "autoscaler").stdout
    assert "small" in logs
