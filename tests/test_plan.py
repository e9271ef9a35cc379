"""The change plan on its own (no Go, no cluster): every row of the change table (docs/changes.md) gives the
row's action, and the cases the table does not list (create, delete, managedBy) give theirs. The same rows are
held against the operator's decision functions in tests/oracle/test_plan_differential.py."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from pulumi_kuberay.plan import plan_change
from pulumi_kuberay.plan._cases import CASES, Case, ray_cluster, ray_service


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_row_of_the_change_table(case: Case) -> None:
    plan = plan_change(case.old(), case.new(), case.operator(), case.live(), mode=case.mode)
    assert plan.action == case.expected, plan.line()
    assert plan.version == "v" + ".".join(str(p) for p in case.version)


def test_no_old_object_is_a_create_and_no_new_one_a_delete() -> None:
    assert plan_change(None, ray_cluster()).action == "create"
    assert plan_change(ray_cluster(), None).action == "delete"


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
