"""What ``check`` keeps between calls (the catalogue's index, the rule selections, the targets of its keywords)
and what it derives once per document (groups, templates, containers): none of it may change a finding."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay import paths as _paths
from pulumi_kuberay.rules import _engine, _rule_index
from pulumi_kuberay.rules._engine import Rule, Violation
from pulumi_kuberay.rules._examples import example, example_cronjob


def _ids(findings: list[rules.Finding]) -> list[str]:
    return [f.rule_id for f in findings]


def _cron_job() -> dict[str, Any]:
    return example_cronjob()


def test_a_selection_holds_the_rules_of_the_kind_that_apply_to_the_target() -> None:
    ctx = rules.Target("1.5.0").context()
    expected = [rule for rule in rules.rules_of("document") if "RayJob" in rule.kinds and rule.applies(ctx)]
    index = _rule_index.catalogue_index()  # (of the loaded catalogue: rules_of loads it, as check does)
    selected = _rule_index.document_rules(index, "RayJob", ctx, handed_over=False)
    assert list(selected) == expected
    assert all(rule.since is None or rule.since <= (1, 5, 0) for rule in selected)
    assert _rule_index.document_rules(index, "RayJob", ctx, handed_over=False) is selected  # kept


def test_a_handed_over_object_keeps_only_the_rules_its_own_webhook_enforces() -> None:
    index = _rule_index.catalogue_index()
    for webhooks in (False, True):
        ctx = rules.Target(webhooks=webhooks).context()
        selected = _rule_index.document_rules(index, "RayCluster", ctx, handed_over=True)
        kept_operator_rules = {rule.id for rule in selected if rule.enforced_by}
        webhook_rules = {
            rule.id
            for rule in index.by_kind["RayCluster"]
            if rule.enforced_by and _rule_index.webhook_rule(rule, "RayCluster") and rule.applies(ctx)
        }
        assert kept_operator_rules == (webhook_rules if webhooks else set())


def test_the_index_follows_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = example()
    before = _rule_index.catalogue_index()
    assert "test-late-rule" not in _ids(rules.check(doc))
    late = Rule(
        id="test-late-rule",
        title="t",
        severity="low",
        category="hygiene",
        rationale="r",
        fix="f",
        kinds=("RayCluster",),
        check=lambda doc, ctx: [Violation("late", "spec")],
        compliant={},
        violating={},
    )
    monkeypatch.setitem(_engine._REGISTRY, late.id, late)
    assert "test-late-rule" in _ids(rules.check(doc))
    assert _rule_index.catalogue_index() is not before
    monkeypatch.delitem(_engine._REGISTRY, late.id)
    assert "test-late-rule" not in _ids(rules.check(doc))


def test_the_same_keywords_give_the_same_findings_and_a_bad_gate_value_still_fails() -> None:
    doc = _cron_job()
    on = rules.check(doc, feature_gates={"RayCronJob": True})
    off = rules.check(doc, feature_gates={"RayCronJob": False})
    assert "feature-gate-disabled" in _ids(off) and "feature-gate-disabled" not in _ids(on)
    assert rules.check(doc, feature_gates={"RayCronJob": True}) == on
    text: dict[str, Any] = {"RayCronJob": "true"}  # the parser takes the text (a stack config's value)
    assert rules.check(doc, feature_gates=text) == on
    number: dict[str, Any] = {"RayCronJob": 1}  # equal to True, but not a gate value
    with pytest.raises(ValueError, match="must be true or false"):
        rules.check(doc, feature_gates=number)


def test_a_target_whose_gates_change_is_checked_with_its_new_gates() -> None:
    gates = {"RayCronJob": True}
    target = rules.Target(feature_gates=gates)
    doc = _cron_job()
    assert "feature-gate-disabled" not in _ids(rules.check(doc, target))
    gates["RayCronJob"] = False  # the Target is frozen, the mapping it was given is not
    assert "feature-gate-disabled" in _ids(rules.check(doc, target))


def test_the_derived_parts_of_a_document_are_kept_only_while_it_is_checked() -> None:
    doc = example()
    (ref,) = _paths.cluster_specs(doc)
    assert _paths.worker_groups(ref) is not _paths.worker_groups(ref)  # outside check: built each time
    with _paths.document_views(doc):
        (ref,) = _paths.cluster_specs(doc)
        assert _paths.cluster_specs(doc)[0] is ref
        assert _paths.worker_groups(ref) is _paths.worker_groups(ref)
        template = _paths.pod_templates(doc)[0]
        head = _paths.head_ray_container(ref)
        assert head is not None and _paths.ray_container(template) == head
        first = _paths.template_containers(template)[0]
        assert (first.field, first.index, first.path) == ("containers", 0, head[0])
        env = _paths.env_list(head[1], head[0])
        if env:
            name = env[0][1]["name"]
            assert _paths.env_var(head[1], name, head[0]) == env[0]
        assert _paths.env_var(head[1], "NO_SUCH_VARIABLE", head[0]) is None
