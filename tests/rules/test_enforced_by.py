"""A critical finding is downgraded by what the rule declares enforces it (``enforced_by``), never by its ``rows``
(the operator validation rows it mirrors: documentation only)."""

from __future__ import annotations

import dataclasses

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.rules import _rule_index
from pulumi_kuberay.rules._engine import ENFORCERS, KINDS, Rule, declare

CATALOGUE = tuple(rules.RULES.values())


def _prefix_sets(catalogue: tuple[Rule, ...]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The sets as the engine derived them from the rows' prefixes before ``enforced_by`` (kept here only to show
    that the explicit field changed no verdict): (operator rules, operator-only, run-time only)."""
    operator = [rule for rule in catalogue if rule.operator_rules]
    return (
        frozenset(rule.id for rule in operator),
        frozenset(
            rule.id for rule in operator if not any(row.startswith(("CEL-", "SCH-")) for row in rule.operator_rules)
        ),
        frozenset(rule.id for rule in operator if all(row.startswith("OP-") for row in rule.operator_rules)),
    )


#: The webhook rows each kind's own validating webhook checked (how the engine read them before enforced_by).
_OLD_WEBHOOK_ROWS = {"RayCluster": ("WH-01", "WH-02"), "RayJob": ("WH-03",), "RayService": ("WH-04",)}


def test_the_explicit_sets_equal_the_ones_the_row_prefixes_gave() -> None:
    index = _rule_index._build(CATALOGUE)
    assert (index.operator_rule_ids, index.operator_only_ids, index.run_time_ids) == _prefix_sets(CATALOGUE)
    for rule in CATALOGUE:
        for kind in KINDS:
            old = any(row in _OLD_WEBHOOK_ROWS.get(kind, ()) for row in rule.operator_rules)
            assert _rule_index.webhook_rule(rule, kind) == old, (rule.id, kind)


def test_the_sets_are_the_explicit_field_over_the_whole_catalogue() -> None:
    index = _rule_index._build(CATALOGUE)
    assert index.operator_rule_ids == {rule.id for rule in CATALOGUE if rule.enforced_by}
    assert index.operator_only_ids == {
        rule.id for rule in CATALOGUE if rule.enforced_by and "api-server" not in rule.enforced_by
    }
    assert index.run_time_ids == {rule.id for rule in CATALOGUE if rule.enforced_by == ("run-time",)}
    assert index.run_time_ids == {
        "head-serve-port-missing",
        "head-dashboard-port-missing",
        "autoscaler-v1-worker-restart-policy",
        "rayjob-metadata-requires-ray-2-6",
        # the Pods, Service and Job the operator builds: refused only once it creates them
        "pod-service-account-name-invalid",
        "pod-container-port-invalid",
        "pod-env-var-invalid",
        "pod-volume-invalid",
        "pod-probe-invalid",
        "pod-container-name-invalid",
        "pod-policy-invalid",
        "pod-resources-invalid",
        "pod-template-metadata-invalid",
        "pod-container-image-missing",
        "head-service-port-duplicate",
        "pod-spec-value-invalid",
        "pod-field-needs-feature-gate",  # high: refused only where the API server runs without the gate
        "worker-group-name-invalid",
        "head-service-invalid",
        "serve-service-invalid",
        "rayjob-submitter-backoff-limit-negative",
        "head-ingress-invalid",
        "pod-volume-source-invalid",
    }


def test_rows_cannot_change_the_severity_behaviour() -> None:
    """Every rule's rows emptied, or given every prefix: the same sets, the same selections."""
    index = _rule_index._build(CATALOGUE)
    for rows in ((), ("CEL-01", "SCH-minimum", "OP-01", "WH-01", "WH-03", "WH-04", "RC-01")):
        other = tuple(dataclasses.replace(rule, operator_rules=rows) for rule in CATALOGUE)
        changed = _rule_index._build(other)
        assert (changed.operator_rule_ids, changed.operator_only_ids, changed.run_time_ids) == (
            index.operator_rule_ids,
            index.operator_only_ids,
            index.run_time_ids,
        )
        for kind in KINDS:
            for webhooks in (False, True):
                ctx = rules.Target(webhooks=webhooks).context()
                for handed_over in (False, True):
                    assert [r.id for r in _rule_index.document_rules(changed, kind, ctx, handed_over=handed_over)] == [
                        r.id for r in _rule_index.document_rules(index, kind, ctx, handed_over=handed_over)
                    ]


def test_every_rule_that_mirrors_rows_says_what_enforces_it() -> None:
    """The documentation (rows) and the behaviour (enforced_by) are declared together: a rule that mirrors an
    operator row names the part of KubeRay that refuses it, and a rule KubeRay enforces names its rows."""
    assert [rule.id for rule in CATALOGUE if bool(rule.operator_rules) != bool(rule.enforced_by)] == []
    assert all(set(rule.enforced_by) <= set(ENFORCERS) for rule in CATALOGUE)


def test_declare_refuses_an_unknown_enforcer() -> None:
    rule = rules.get_rule("rayjob-ttl-negative")
    with pytest.raises(ValueError, match="enforced_by takes distinct values of api-server, operator"):
        declare(
            id="test-bad-enforcer",
            title=rule.title,
            severity=rule.severity,
            category=rule.category,
            rationale=rule.rationale,
            fix=rule.fix,
            check=rule.check,
            compliant=rule.compliant,
            violating=rule.violating,
            kinds=rule.kinds,
            enforced_by=("kubelet",),  # type: ignore[arg-type]
        )
