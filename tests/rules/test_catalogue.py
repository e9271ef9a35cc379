"""Every rule of the catalogue, through the public ``check``: its compliant example passes, its violating one fires.

The examples are data carried by each rule (also used by the docs and the mutation check), so this test covers
rules added later without edits here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from _reference import sample_documents
from pulumi_kuberay import rules
from pulumi_kuberay.rules._engine import Rule

ALL_RULES: list[Rule] = sorted(rules.RULES.values(), key=lambda r: r.id)


def _check(rule: Rule, manifest: dict[str, Any]) -> list[rules.Finding]:
    ctx = dict(rule.context)
    return rules.check(
        manifest,
        kuberay_version=ctx.get("kuberay_version", "1.7.0"),
        feature_gates=ctx.get("feature_gates"),
        environment=ctx.get("environment"),
        options=ctx.get("options"),
    )


def test_catalogue_is_substantial_and_ids_are_policy_names() -> None:
    assert len(ALL_RULES) >= 60
    for rule in ALL_RULES:
        assert rule.id == rule.id.lower() and " " not in rule.id and len(rule.id) <= 63, rule.id
        assert rule.severity in ("low", "medium", "high", "critical")
        assert rule.category in ("correctness", "reliability", "security", "cost", "hygiene")
        assert rule.title and rule.rationale and rule.fix


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_compliant_example_passes(rule: Rule) -> None:
    fired = [f for f in _check(rule, rule.compliant) if f.rule_id == rule.id]
    assert fired == [], f"{rule.id} fires on its own compliant example: {fired}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_violating_example_fires(rule: Rule) -> None:
    fired = [f for f in _check(rule, rule.violating) if f.rule_id == rule.id]
    assert fired, f"{rule.id} does not fire on its own violating example"
    for finding in fired:
        assert finding.path, f"{rule.id} reports no path"
        assert finding.fix, f"{rule.id} reports no fix"


def test_internal_errors_never_happen_on_examples() -> None:
    counts: Counter[str] = Counter()
    for rule in ALL_RULES:
        for doc in (rule.compliant, rule.violating):
            for finding in _check(rule, doc):
                counts[finding.rule_id] += 1
    assert counts[rules.INTERNAL_ERROR_RULE_ID] == 0


def test_no_critical_finding_on_upstream_samples(capsys: pytest.CaptureFixture[str]) -> None:
    """The false-positive check for the whole catalogue: every upstream Ray sample, all operator gates on,
    with no environment and as production: nothing critical, no rule crashes. Per-rule counts are printed so
    noisy rules are visible."""
    gates = {gate: True for gate in rules.DEFAULT_FEATURE_GATES}
    counts: Counter[str] = Counter({rule.id: 0 for rule in ALL_RULES})
    critical: list[str] = []
    documents = 0
    for environment in (None, "prod"):
        for name, index, doc in sample_documents():
            if not rules.is_ray_document(doc):
                continue
            documents += environment is None
            for finding in rules.check(doc, feature_gates=gates, environment=environment):
                if environment is None:
                    counts[finding.rule_id] += 1
                if finding.severity == "critical" or finding.rule_id == rules.INTERNAL_ERROR_RULE_ID:
                    critical.append(
                        f"{name}#{index} [{environment}] {finding.rule_id} {finding.path}: {finding.message}"
                    )
    with capsys.disabled():
        print(f"\n[catalogue] findings per rule over {documents} upstream Ray documents (all gates on):")
        for rule_id, count in sorted(counts.items()):
            print(f"  {count:4d}  {rule_id}")
    assert documents >= 80
    assert critical == []
