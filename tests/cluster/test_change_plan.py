"""The change plan against the real operator on the local control plane (kwok Pods: Running, never Ray).

For every row of the change table that kwok can show (``Case.kwok``): the old object is created with kubectl,
the plan is made the way the components make it (the live object, its head Pods or its RayService clusters, read
through ``_change_plan.read_live``), the new object is applied, and what the operator then did is observed:

* RayCluster: every Pod uid replaced (``recreate-pods``), none replaced (``none``), the old ones kept and new
  ones added (``update-in-place``), all deleted (``suspend``);
* RayService (its cluster stays pending under kwok: no Ray dashboard, so it never serves; its head Pod is kept
  unschedulable so that the operator's reconcile reaches ``shouldPrepareNewCluster``): the pending cluster
  replaced by a new one (``new-cluster``), the same one rewritten (``update-in-place``), untouched (``none``);
* RayJob: replaced (as the components do) -> a new RayCluster for the new object (``rerun-job``); edited in
  place -> it keeps its cluster (``none``), or loses it when suspended (``suspend``).

The observed action must be the plan's (made for the operator version that runs here), and, when that version
is the row's, the table's. One stack-level test then drives the components through ``pulumi up``: the plan line,
the wait following it, and ``last_change``.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from pulumi_kuberay import kubeclient
from pulumi_kuberay.plan import Operator, plan_change
from pulumi_kuberay.plan._cases import CASES, Case
from pulumi_kuberay.resources import _change_plan
from pulumi_kuberay.rules._engine import parse_kuberay_version

from ._waits import PROGRAM, SMALL_CLUSTER, config
from .conftest import ClusterStack, LocalCluster

KWOK_CASES = [c for c in CASES if c.kwok]
#: How long the operator gets to act on a change before the observation is taken (it reconciles within a
#: second or two of the watch event; kwok makes new Pods Running at once).
SETTLE_SECONDS = 12.0


def _apply(cluster: LocalCluster, manifest: dict[str, Any]) -> None:
    cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", "-", input=json.dumps(manifest))


def _pods(cluster: LocalCluster, namespace: str, ray_cluster: str) -> dict[str, str]:
    """uid -> group of the live (not terminating) Pods of ``ray_cluster``."""
    items = cluster.get_json("-n", namespace, "pods", "-l", f"ray.io/cluster={ray_cluster}")["items"]
    return {
        p["metadata"]["uid"]: p["metadata"]["labels"].get("ray.io/group", "?")
        for p in items
        if not p["metadata"].get("deletionTimestamp")
    }


def _stable(read: Callable[[], Any], minimum: float = SETTLE_SECONDS, quiet: float = 4.0, limit: float = 90.0) -> Any:
    """``read()`` once it has not changed for ``quiet`` seconds, and not before ``minimum`` seconds."""
    started = time.monotonic()
    last, since = read(), time.monotonic()
    while True:
        time.sleep(1.0)
        now = read()
        if now != last:
            last, since = now, time.monotonic()
        elapsed = time.monotonic() - started
        if elapsed >= minimum and time.monotonic() - since >= quiet:
            return last
        if elapsed > limit:
            return last


def _client(cluster: LocalCluster) -> kubeclient.KubeClient:
    text = cluster.kubeconfig.read_text()
    return kubeclient.load_client(text, cluster.kubeconfig.parent)


def _named(manifest: dict[str, Any], namespace: str) -> dict[str, Any]:
    out = copy.deepcopy(manifest)
    out["metadata"]["namespace"] = namespace
    return out


def _observe_cluster(cluster: LocalCluster, namespace: str, case: Case) -> str:
    old, new = _named(case.old(), namespace), _named(case.new(), namespace)
    name = old["metadata"]["name"]
    _apply(cluster, old)
    before = _stable(lambda: _pods(cluster, namespace, name))
    assert before, "the operator created no Pods for the old RayCluster"
    case.__dict__["_live"] = _change_plan.read_live(_client(cluster), "RayCluster", namespace, name)
    _apply(cluster, new)
    after = _stable(lambda: _pods(cluster, namespace, name))
    if not after:
        return "suspend"
    if not set(before) & set(after):
        return "recreate-pods"
    if set(before) <= set(after) and set(after) - set(before):
        return "update-in-place"
    return "none" if set(after) == set(before) else f"unexplained: {before} -> {after}"


def _service_state(cluster: LocalCluster, namespace: str, name: str) -> tuple[str, int]:
    status = cluster.get_json("-n", namespace, "rayservice", name).get("status") or {}
    pending = (status.get("pendingServiceStatus") or {}).get("rayClusterName") or ""
    groups = 0
    if pending:
        found = cluster.kubectl("-n", namespace, "get", "raycluster", pending, "-o", "json", check=False)
        if found.returncode == 0:
            groups = len(json.loads(found.stdout)["spec"].get("workerGroupSpecs") or [])
    return pending, groups


def _unready_head(manifest: dict[str, Any]) -> dict[str, Any]:
    """The RayService with a head Pod no node takes: kwok leaves it Pending, so HeadPodReady stays False and the
    operator's reconcile gets past ``reconcileServe`` (with a Ready head it fails there on every pass, as no Ray
    dashboard answers under kwok) to ``calculateStatus``, where ``shouldPrepareNewCluster`` runs."""
    spec = manifest["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
    spec["nodeSelector"] = {"pulumi-kuberay.io/no-such-node": "true"}
    return manifest


def _observe_service(cluster: LocalCluster, namespace: str, case: Case) -> str:
    old = _unready_head(_named(case.old(), namespace))
    new = _unready_head(_named(case.new(), namespace))
    name = old["metadata"]["name"]
    _apply(cluster, old)
    cluster.wait_for(lambda: _service_state(cluster, namespace, name)[1] or None, 90, "a pending cluster")
    pending, groups = _stable(lambda: _service_state(cluster, namespace, name))
    case.__dict__["_live"] = _change_plan.read_live(_client(cluster), "RayService", namespace, name)
    _apply(cluster, new)
    after, after_groups = _stable(lambda: _service_state(cluster, namespace, name))
    if after != pending:
        return "new-cluster"
    return "update-in-place" if after_groups != groups else "none"


def _job_cluster(cluster: LocalCluster, namespace: str, name: str) -> str:
    found = cluster.kubectl("-n", namespace, "get", "rayjob", name, "-o", "json", check=False)
    if found.returncode != 0:
        return ""
    status = json.loads(found.stdout).get("status") or {}
    rc = status.get("rayClusterName") or ""
    if rc and cluster.kubectl("-n", namespace, "get", "raycluster", rc, check=False).returncode != 0:
        return f"{rc} (deleted)"
    return str(rc)


def _observe_job(cluster: LocalCluster, namespace: str, case: Case) -> str:
    old, new = _named(case.old(), namespace), _named(case.new(), namespace)
    name = old["metadata"]["name"]
    _apply(cluster, old)
    before = cluster.wait_for(lambda: _job_cluster(cluster, namespace, name) or None, 90, "the RayJob's cluster")
    case.__dict__["_live"] = _change_plan.read_live(_client(cluster), "RayJob", namespace, name)
    if case.mode == "replace":  # what the components do on a spec change (delete first: the name is fixed)
        cluster.kubectl("-n", namespace, "delete", "rayjob", name, "--wait=true")
    _apply(cluster, new)
    after = _stable(lambda: _job_cluster(cluster, namespace, name))
    if after.endswith("(deleted)") or not after:
        return "suspend"
    return "rerun-job" if after != before else "none"


OBSERVE = {"RayCluster": _observe_cluster, "RayService": _observe_service, "RayJob": _observe_job}


@pytest.mark.parametrize("case", KWOK_CASES, ids=lambda c: c.id)
def test_row_on_the_local_control_plane(local_cluster: LocalCluster, namespace: str, case: Case) -> None:
    running = parse_kuberay_version(local_cluster.operator_version)
    observed = OBSERVE[case.kind](local_cluster, namespace, case)
    live = case.__dict__.pop("_live")
    operator = Operator(version=running, feature_gates=dict(case.gates))
    old, new = _named(case.old(), namespace), _named(case.new(), namespace)
    if case.kind == "RayService":
        old, new = _unready_head(old), _unready_head(new)
    plan = plan_change(old, new, operator, live, mode=case.mode)
    print(f"[change plan] {case.id} on KubeRay v{local_cluster.operator_version}: observed {observed}; {plan.line()}")
    assert observed == plan.action, f"{case.kwok}: observed {observed}, planned {plan.line()}"
    if running[:2] == case.version[:2]:
        assert plan.action == case.expected


# ---- through the components ---------------------------------------------------------------------------------


def _objects(spec: dict[str, Any], namespace: str) -> dict[str, Any]:
    return config({"c": {"kind": "RayCluster", "spec": spec, "timeout_seconds": 240}}, namespace)


def _head_pods(cluster: LocalCluster, namespace: str) -> list[dict[str, Any]]:
    items = cluster.get_json("-n", namespace, "pods", "-l", "ray.io/cluster=c,ray.io/node-type=head")["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def test_components_print_follow_and_record_the_plan(
    make_stack: Any, namespace: str, local_cluster: LocalCluster
) -> None:
    spec = copy.deepcopy(SMALL_CLUSTER)
    stack: ClusterStack = make_stack(_objects(spec, namespace), namespace=namespace, program=PROGRAM)
    up = stack.up()
    assert up.returncode == 0, up.describe()
    assert "plan: RayCluster 'c': create:" in up.output, up.output

    # An image change under the default strategy: the plan says nothing reaches the Pods, the wait ends at once.
    pods_before = {p["metadata"]["uid"] for p in _head_pods(local_cluster, namespace)}
    spec["image"] = "rayproject/ray:2.53.0"
    stack.set_config(_objects(spec, namespace))
    up = stack.up()
    assert up.returncode == 0, up.describe()
    assert "plan: RayCluster 'c': none: upgradeStrategy None (default): running Pods keep the old spec" in up.output
    assert "(compared with the live object)" in up.output
    assert "nothing reached the Pods: upgradeStrategy None (default)" in up.output, up.output
    assert {p["metadata"]["uid"] for p in _head_pods(local_cluster, namespace)} == pods_before
    last = stack.outputs()["c"]["last_change"]
    assert last["action"] == "none" and last["result"].startswith("nothing reached the Pods"), last

    # Recreate: every Pod restarts; the up ends once a head Pod made from the new spec is ready.
    spec["upgradeStrategy"] = {"type": "Recreate"}
    spec["image"] = "rayproject/ray:2.53.0-py311"
    stack.set_config(_objects(spec, namespace))
    up = stack.up()
    assert up.returncode == 0, up.describe()
    assert "plan: RayCluster 'c': recreate-pods: upgradeStrategy Recreate" in up.output, up.output
    heads = _head_pods(local_cluster, namespace)
    assert heads and {p["metadata"]["uid"] for p in heads}.isdisjoint(pods_before)
    new_hash = heads[0]["metadata"]["annotations"]["ray.io/upgrade-strategy-recreate-hash"]
    ready = [c for c in heads[0]["status"].get("conditions") or [] if c["type"] == "Ready"]
    assert ready and ready[0]["status"] == "True", heads[0]["status"]
    last = stack.outputs()["c"]["last_change"]
    assert last["action"] == "recreate-pods", last
    assert new_hash and "head pod ready" in last["result"], last

    # No change: no plan line, last_change says so.
    up = stack.up()
    assert up.returncode == 0, up.describe()
    assert "plan: " not in up.output
    assert stack.outputs()["c"]["last_change"]["action"] == "none"
