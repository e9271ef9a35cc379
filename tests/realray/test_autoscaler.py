"""(g) The in-tree autoscaler, its sidecar running for real, on a RayCluster from ``pulumi up`` of the RayCluster
component: work that needs more CPUs than the cluster has scales the worker group up, within its bounds; the next
``pulumi preview --refresh`` of the unchanged program has nothing to change, and ``pulumi up`` of it, unchanged or
changed, leaves the autoscaler's replicas alone: under ``enableInTreeAutoscaling`` the component reads the live
RayCluster and sends each group's live ``replicas`` with a forced server-side apply (``replicas_from_live``), so
an update neither conflicts with the autoscaler's field manager on the atomic ``workerGroupSpecs`` list nor resets
what it scaled."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from cluster._waits import config, timed_up
from cluster.conftest import ClusterStack

from realray._manifests import cluster_spec
from realray.conftest import RealRay

# 3 tasks of 1 CPU each, on a head with no CPU for Ray and a group of 0..2 one-CPU workers: the autoscaler adds
# workers (at most 2); the tasks finish on them.
WORK = (
    "import ray, time; ray.init(); f = ray.remote(num_cpus=1)(lambda i: (time.sleep(5), i)[1]); print('done', sorted(ray.get([f.remote(i) for i in range(3)])))"
)
NAME = "auto"


def _replicas(rr: RealRay, ns: str) -> int:
    obj = rr.get("raycluster", NAME, ns)
    assert obj is not None
    return int(obj["spec"]["workerGroupSpecs"][0].get("replicas", 0))


def _list_owners(rr: RealRay, ns: str) -> list[str]:
    """The field managers that own ``spec.workerGroupSpecs`` (an atomic list: one owner of the whole list, its
    ``replicas`` included, the last that changed it: the autoscaler's patch makes it ``python-requests``)."""
    entries = json.loads(_managed(rr, ns))
    return [e["manager"] for e in entries if "f:workerGroupSpecs" in (e.get("fieldsV1") or {}).get("f:spec", {})]


def _managed(rr: RealRay, ns: str) -> str:
    """The RayCluster's managedFields, as JSON (kubectl hides them unless asked)."""
    got = rr.kubectl("get", "raycluster", NAME, "-n", ns, "-o", "jsonpath={.metadata.managedFields}",
                     "--show-managed-fields")
    return got.stdout or "[]"


def test_autoscaler_scales_a_group_up_and_the_next_up_leaves_it(
    realray: RealRay, rr_stack: ClusterStack, rr_module_namespace: str
) -> None:
    ns = rr_module_namespace
    spec: dict[str, Any] = cluster_spec(workers=1, head_cpus="0")
    spec["enableInTreeAutoscaling"] = True
    # the workers stay while the program runs again (Ray's default idle time-out, 60 s, could remove them first)
    spec["autoscalerOptions"] = {"idleTimeoutSeconds": 600}
    # the program says replicas 0 (= minReplicas): what a new cluster starts with, so no note
    spec["workerGroupSpecs"][0].update(replicas=0, minReplicas=0, maxReplicas=2)
    stack_config = config({NAME: {"kind": "RayCluster", "spec": spec, "timeout_seconds": 300}}, ns)
    rr_stack.set_config(stack_config)
    up, took = timed_up(rr_stack, "RayCluster with the in-tree autoscaler")
    assert up.returncode == 0, f"{up.describe()}\n{realray.diagnostics(ns)}"
    assert "worker group(s) small" not in up.output, up.describe()
    assert _replicas(realray, ns) == 0  # KubeRay's start: minReplicas
    created = realray.get("raycluster", NAME, ns)
    assert created is not None and created["metadata"]["annotations"].get("pulumi.com/patchForce") == "true"

    # the component's wait: the head Pod was Ready when `up` returned
    pods = realray.pods(ns, f"ray.io/cluster={NAME},ray.io/node-type=head")
    assert len(pods) == 1
    pod = pods[0]
    assert {c["type"]: c["status"] for c in pod["status"]["conditions"]}["Ready"] == "True"
    assert [c["name"] for c in pod["spec"]["containers"]] == ["ray-head", "autoscaler"]
    name = pod["metadata"]["name"]
    started = time.monotonic()
    work = realray.exec_in(ns, name, ["python", "-c", WORK], container="ray-head", timeout=420)
    work_took = time.monotonic() - started
    assert work.returncode == 0, work.stderr[-3000:]
    assert "done [0, 1, 2]" in work.stdout
    scaled = _replicas(realray, ns)
    assert 1 <= scaled <= 2
    workers = realray.pods(ns, f"ray.io/cluster={NAME},ray.io/node-type=worker")
    assert 1 <= len(workers) <= 2
    logs = realray.kubectl("logs", "-n", ns, name, "-c", "autoscaler").stdout
    assert "small" in logs
    assert _list_owners(realray, ns) == ["python-requests"], _managed(realray, ns)  # the autoscaler's patch took it

    # the unchanged program again: once Pulumi's state is refreshed the preview has nothing to change (the replicas
    # the component reads from the live object are the autoscaler's) ...
    preview = rr_stack.pulumi("preview", "--refresh", "--diff", "--expect-no-changes")
    assert preview.returncode == 0, preview.describe()
    summary = preview.stdout[preview.stdout.rindex("Resources:"):].split()
    assert summary[2:] == ["unchanged"], preview.describe()  # "Resources: N unchanged", nothing else
    # ... the `up` of it leaves the autoscaler's choice in place (without a refresh Pulumi's state still says the
    # replicas sent at create: the update sends the live count, which changes nothing) ...
    again, again_took = timed_up(rr_stack, "RayCluster with the in-tree autoscaler, unchanged")
    assert again.returncode == 0, f"{again.describe()}\n{realray.diagnostics(ns)}"
    assert _replicas(realray, ns) == scaled
    # ... and so does a changed program (an annotation: an update of the object). workerGroupSpecs is an atomic list
    # in KubeRay's CRD, so the autoscaler's JSON patch of one replicas (field manager python-requests: Ray's KubeRay
    # node provider) made it the owner of the whole list: an apply without the live replicas conflicted with it,
    # a forced one without them would reset every group to its minimum.
    stack_config["waits:objects"][NAME]["annotations"] = {"example.com/owner": "ml-platform"}
    rr_stack.set_config(stack_config)
    changed, changed_took = timed_up(rr_stack, "RayCluster with the in-tree autoscaler, annotation changed")
    assert changed.returncode == 0, f"{changed.describe()}\n{realray.diagnostics(ns)}"
    live = realray.get("raycluster", NAME, ns)
    assert live is not None and live["metadata"]["annotations"].get("example.com/owner") == "ml-platform"
    assert _replicas(realray, ns) == scaled
    owners = _list_owners(realray, ns)  # the forced apply took the list back, with the live counts
    assert len(owners) == 1 and "pulumi" in owners[0], owners
    assert len(realray.pods(ns, f"ray.io/cluster={NAME},ray.io/node-type=worker")) == len(workers)
    assert rr_stack.outputs()[NAME]["last_change"]["action"] in ("none", "update-in-place"), rr_stack.outputs()[NAME]
    sys.stderr.write(
        f"\n[realray] autoscaler: create {took:.0f}s; 3 one-CPU tasks done in {work_took:.0f}s, the group scaled "
        f"0 -> {scaled}; preview --refresh: {' '.join(summary)}; the unchanged up ({again_took:.0f}s) and an "
        f"annotation change's up ({changed_took:.0f}s) left replicas at {scaled}\n"
    )
