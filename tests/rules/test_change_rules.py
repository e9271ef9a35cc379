"""The change rules (``declare(scope="change")``, ``rules/change.py``) on values: what each reports on a change,
its severity by environment, suppression (a reason is required, as for every rule), and the plan loaded only
when a change is judged."""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.plan import Operator, plan_change
from pulumi_kuberay.rules import SUPPRESS_PREFIX, UNKNOWN_SENTINEL

CHANGE_IDS = {
    "change-not-reaching-pods",
    "rayservice-cluster-change-ignored",
    "rayservice-replicas-change-ignored",
    "rollout-gpu-budget-exceeded",
}


def _pair(rule_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    old, new = rules.get_rule(rule_id).violating
    return copy.deepcopy(old), copy.deepcopy(new)


def _found(old: Any, new: Any, **settings: Any) -> list[tuple[str, str, str, str]]:
    ctx = rules.Target.of(**settings).context()
    return [(f.rule_id, f.severity, f.path, f.message) for f in rules.check_change(old, new, ctx)]


def test_the_change_rules_are_in_the_catalogue() -> None:
    assert {rule.id for rule in rules.rules_of("change")} == CHANGE_IDS
    assert all(rules.RULES[rule_id].scope == "change" for rule_id in CHANGE_IDS)


def test_a_template_change_under_upgrade_strategy_none_does_not_reach_the_pods() -> None:
    old, new = _pair("change-not-reaching-pods")
    ((rule_id, severity, path, message),) = _found(old, new)
    assert (rule_id, severity, path) == ("change-not-reaching-pods", "medium", "spec.upgradeStrategy")
    assert message.startswith("RayCluster 'raycluster-demo': head: env of container ray-head changed but the running Pods keep the old spec (upgradeStrategy None (default)")
    assert [f[1] for f in _found(old, new, environment="prod")] == ["high"]
    assert [f[1] for f in _found(old, new, environment="staging")] == ["medium"]
    new["spec"]["upgradeStrategy"] = {"type": "Recreate"}
    assert _found(old, new) == []


def test_a_rayservice_cluster_change_ignored_by_upgrade_strategy_none() -> None:
    old, new = _pair("rayservice-cluster-change-ignored")
    ((rule_id, severity, path, message),) = _found(old, new)
    assert (rule_id, severity, path) == ("rayservice-cluster-change-ignored", "medium", "spec.upgradeStrategy")
    assert message == "RayService 'rayservice-sample': the cluster change (head: env of container ray-head) is ignored (upgradeStrategy None): the running cluster keeps the old spec"
    assert [f[1] for f in _found(old, new, environment="prod")] == ["high"]


def test_a_rayservice_replicas_change_is_lost_unless_something_hashed_changes() -> None:
    old, new = _pair("rayservice-replicas-change-ignored")
    expected = (
        "rayservice-replicas-change-ignored",
        "medium",
        "spec.rayClusterConfig.workerGroupSpecs",
        "RayService 'rayservice-sample': worker replicas/minReplicas/maxReplicas changed, but KubeRay leaves them out of its hash: the running cluster is not updated and no new cluster is prepared",
    )
    assert _found(old, new) == [expected]
    assert _found(old, new, environment="prod") == [expected]  # medium everywhere
    new["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["maxReplicas"] = 9
    assert _found(old, new) == [expected]
    new["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = "rayproject/ray:2.52.1"
    assert _found(old, new) == []  # a new cluster is rolled out with the new replicas


def test_a_rollout_over_the_gpu_budget() -> None:
    old, new = _pair("rollout-gpu-budget-exceeded")
    ((rule_id, severity, path, message),) = _found(old, new, options={"gpu_budget": 12})
    assert (rule_id, severity, path) == ("rollout-gpu-budget-exceeded", "high", "spec.rayClusterConfig")
    assert message == "RayService 'rayservice-sample': the new-cluster rollout runs both clusters at once: 8 GPU(s) of the running cluster + 8 of the new one = 16, over the budget of 12: the new cluster may never be scheduled and the upgrade never finish"
    assert [f[1] for f in _found(old, new, options={"gpu_budget": 12}, environment="prod")] == ["high"]
    assert _found(old, new, options={"gpu_budget": 16}) == []  # at the budget: fits
    assert _found(old, new) == []  # no budget: the rule is off


def test_a_suppression_needs_a_reason_as_for_every_rule() -> None:
    old, new = _pair("change-not-reaching-pods")
    key = f"{SUPPRESS_PREFIX}change-not-reaching-pods"
    for reason, silenced in (("", False), ("  ", False), ("we recreate the Pods by hand", True), (UNKNOWN_SENTINEL, True)):
        new["metadata"]["annotations"] = {key: reason}
        assert (_found(old, new) == []) is silenced, reason
    # the document rules say why an empty reason is ignored, and know the change rule's id
    new["metadata"]["annotations"] = {key: ""}
    found = {f.rule_id for f in rules.check(new)}
    assert "suppression-reason-missing" in found and "suppression-unknown-rule" not in found


def test_the_callers_plan_is_judged_and_odd_input_gives_nothing() -> None:
    old, new = _pair("change-not-reaching-pods")
    recreate = plan_change(old, {**new, "spec": {**new["spec"], "upgradeStrategy": {"type": "Recreate"}}}, Operator())
    assert rules.check_change(old, new, plan=recreate) == []  # the components' plan (made with the live objects) wins
    assert rules.check_change(None, new) == []  # a create
    assert rules.check_change(old, {"kind": "ConfigMap", "apiVersion": "v1"}) == []
    assert rules.check_change(old, None) == []
    unknown = copy.deepcopy(new)
    unknown["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = UNKNOWN_SENTINEL
    assert rules.check_change(old, unknown) == []  # values known later: the plan is made then


def test_the_rules_never_import_the_plan() -> None:
    """The catalogue loads for every program; the plan only when a change is judged."""
    code = (
        "import sys; from pulumi_kuberay import rules; rules.RULES['change-not-reaching-pods'];"
        "assert not any(m.startswith('pulumi_kuberay.plan') for m in sys.modules), sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("rule_id", sorted(CHANGE_IDS))
def test_every_change_rule_is_listed_and_explained(rule_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    from pulumi_kuberay.cli import lint

    assert lint.main(["--list-rules"]) == 0
    assert any(line.split()[:1] == [rule_id] for line in capsys.readouterr().out.splitlines())
    assert lint.main(["--explain-rule", rule_id]) == 0
    text = capsys.readouterr().out
    assert "change rule on" in text and "kuberay-lint --diff OLD NEW" in text and SUPPRESS_PREFIX + rule_id in text
