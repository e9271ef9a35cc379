"""The change plan on its own (no Go, no cluster): every row of the change table (docs/changes.md) gives the
row's action, and the cases the table does not list (create, delete, managedBy) give theirs. The same rows are
held against the operator's decision functions in tests/oracle/test_plan_differential.py."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from pulumi_kuberay.plan import plan_change
from pulumi_kuberay.plan._cases import CASES, Case, by_id, ray_cluster, ray_service


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_row_of_the_change_table(case: Case) -> None:
    plan = plan_change(case.old(), case.new(), case.operator(), case.live(), mode=case.mode)
    assert plan.action == case.expected, plan.line()
    assert plan.version == "v" + ".".join(str(p) for p in case.version)


def test_no_old_object_is_a_create_and_no_new_one_a_delete() -> None:
    assert plan_change(None, ray_cluster()).action == "create"
    assert plan_change(ray_cluster(), None).action == "delete"


@pytest.mark.parametrize("base", [ray_cluster, ray_service], ids=["RayCluster", "RayService"])
def test_a_create_says_what_the_one_cluster_needs(base: Callable[[], dict[str, Any]]) -> None:
    """Only one cluster exists after a create: no "both clusters" (head 1 CPU/2Gi + one 1 CPU/2Gi worker)."""
    line = plan_change(None, base()).line()
    assert "both clusters" not in line, line
    assert "; the cluster needs: 2 CPU, 4Gi memory" in line, line


def test_a_new_cluster_still_says_what_the_second_one_needs_beside_the_first() -> None:
    case = by_id("rs-image-newcluster")
    line = plan_change(case.old(), case.new()).line()
    assert "; extra while both clusters run: 2 CPU, 4Gi memory;" in line, line


def test_the_autoscaler_s_bounds_are_said_to_change() -> None:
    """min/maxReplicas are what the autoscaler scales within (it reads them from the RayCluster)."""
    case = by_id("rc-max-autoscaled")
    plan = plan_change(case.old(), case.new())
    assert plan.why == (
        "the autoscaler's bounds change (worker group cpu: maxReplicas 5 -> 8): it scales within them from now on, no Pod restarts"
    )
    lower = copy.deepcopy(case.old())
    lower["spec"]["workerGroupSpecs"][0]["minReplicas"] = 2
    plan = plan_change(case.old(), lower)
    assert plan.action == "update-in-place"
    assert plan.why.split("; ") == [
        "worker group cpu: 1 -> 2 Pod(s)",
        "the autoscaler's bounds change (worker group cpu: minReplicas 0 -> 2): it scales within them from now on, no Pod restarts",
    ]
    case = by_id("rc-max-none")
    assert plan_change(case.old(), case.new()).why == (
        "worker group cpu: maxReplicas 5 -> 8: no Pod changes (without enableInTreeAutoscaling the bounds only clamp replicas)"
    )


def test_a_service_s_worker_counts_are_said_not_to_reach_the_running_cluster() -> None:
    """GenerateHashWithoutReplicasAndWorkersToDelete leaves them out: shouldUpdateCluster sees no change."""
    case = by_id("rs-max")
    why = plan_change(case.old(), case.new()).why
    assert why.startswith("worker group cpu: maxReplicas 5 -> 8: not applied to the running cluster: "), why
    assert "the active RayCluster (and its autoscaler) keeps the old values" in why


@pytest.mark.parametrize("base", [ray_cluster, ray_service], ids=["RayCluster", "RayService"])
def test_another_controller_s_object_is_left_alone(base: Callable[[], dict[str, Any]]) -> None:
    old = base()
    new = copy.deepcopy(old)
    new["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue"
    config = new["spec"].get("rayClusterConfig", new["spec"])
    config["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = "rayproject/ray:2.53.0"
    plan = plan_change(old, new)
    assert plan.action == "none"
    assert plan.why == "spec.managedBy is 'kueue.x-k8s.io/multikueue': KubeRay does not reconcile it"
    # KubeRay's own name is KubeRay reconciling: the image change is planned as without managedBy
    new["spec"]["managedBy"] = "ray.io/kuberay-operator"
    own = plan_change(old, new)
    del new["spec"]["managedBy"]
    assert own.action == plan_change(old, new).action
    assert "does not reconcile" not in own.why
