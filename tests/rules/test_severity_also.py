"""A rule's other severities (``Rule.also``): what ``kuberay-lint --list-rules``, ``--explain-rule`` and
docs/rules.md print beside a rule's severity is what its findings say when the object or the target gives them
another severity (a critical rule lowered to high, with its reason)."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.cli import _lint_report, _rule_help
from pulumi_kuberay.rules._engine import _REGISTRY, declare

RULES_DIR = Path(rules.__file__).resolve().parent
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def _whys(module: str) -> set[str]:
    """The severity_why of each Violation the module's checks build from a string or a module constant."""
    tree = ast.parse((RULES_DIR / f"{module}.py").read_text())
    loaded = importlib.import_module(f"pulumi_kuberay.rules.{module}")
    found: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Violation"):
            continue
        for keyword in node.keywords:
            if keyword.arg != "severity_why":
                continue
            value = keyword.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found.add(value.value)
            elif isinstance(value, ast.Name) and isinstance(getattr(loaded, value.id, None), str):
                found.add(getattr(loaded, value.id))
    return found


def test_every_reason_a_check_gives_for_another_severity_is_named_by_its_rule() -> None:
    modules = {rule.module for rule in rules.RULES.values()}
    unnamed = []
    for module in sorted(modules):
        named = {why for rule in rules.RULES.values() if rule.module == module for why in rule.also}
        for why in _whys(module):
            # "high in prod, medium elsewhere": the environment decides, which the examples show in each one
            if not re.search(r"\bin prod\b", why) and why not in named:
                unnamed.append(f"{module}: {why}")
    assert unnamed == []
    assert sum(len(rule.also) for rule in rules.RULES.values()) >= 15


def test_a_rule_lowered_to_high_lists_as_critical_with_the_reason_its_finding_gives() -> None:
    rule = rules.get_rule("worker-group-names-unique")
    assert rule.severity == "critical"
    assert rule.also == ("high: only the webhook, off here, refuses it",)
    # the finding without the webhook: high, saying the reason the listing shows
    found = [f for f in rules.check(rule.violating) if f.rule_id == rule.id]
    assert [(f.severity, f.severity_why) for f in found] == [("high", rule.also[0])]
    line = next(line for line in _rule_help.list_rules().splitlines() if line.startswith(f"{rule.id} "))
    assert line.split()[1] == "critical"
    assert line.endswith("Worker group names are unique (high: only the webhook, off here, refuses it)")
    assert "severity critical (high: only the webhook, off here, refuses it) for" in _rule_help.explain_rule(rule.id)
    row = next(line for line in DOCS.read_text().splitlines() if line.startswith(f"| [`{rule.id}`]"))
    assert "| critical (high: only the webhook, off here, refuses it) |" in row
    descriptor = _lint_report._descriptor(rule, rules.Target())
    assert descriptor["properties"]["otherSeverities"] == ["high: only the webhook, off here, refuses it"]
    assert "otherSeverities" not in _lint_report._descriptor(rules.get_rule("cluster-name-invalid"), rules.Target())["properties"]


def test_the_listing_names_no_other_severity_for_a_rule_that_gives_none() -> None:
    line = next(line for line in _rule_help.list_rules().splitlines() if line.startswith("cluster-name-invalid "))
    assert line.split()[1] == "critical"
    assert line.endswith("RayCluster name too long or not a DNS-1035 label")


def test_also_must_name_another_severity() -> None:
    rule = rules.get_rule("cluster-name-invalid")
    with pytest.raises(ValueError, match="another severity"):
        declare(
            id="x-also-same-severity",
            title="t",
            severity="critical",
            category="correctness",
            kinds=("RayCluster",),
            rationale="r",
            fix="f",
            check=rule.check,
            compliant=rule.compliant,
            violating=rule.violating,
            also=("critical: the same",),
        )
    assert "x-also-same-severity" not in _REGISTRY


def test_the_preflight_and_feasibility_rules_list_the_severities_their_findings_take() -> None:
    """The runtime reasons of the preflight's rules are constants named by ``also`` (the listing and the finding
    agree); the feasibility rules' high findings name the group, and the listing says what makes them high."""
    never_placed = rules.get_rule("preflight-group-never-placed")
    assert never_placed.also == (
        "medium, not critical: a node source can add a node that takes them",
        "medium, not critical: a node the preflight cannot see may take them",
    )
    assert "medium" in never_placed.proof and ": high" not in never_placed.proof
    assert rules.get_rule("preflight-upgrade-does-not-fit").also[0].startswith("critical: the quota refuses")
    assert rules.get_rule("preflight-reference-missing").also == (
        "high: unless this stack creates it",
        "medium: the Pods are still created without it",
    )
    for rule_id in ("serve-replica-infeasible", "rayjob-entrypoint-infeasible"):
        assert rules.get_rule(rule_id).also == (
            "high, not certain: a group may offer it if Ray detects on its node what KubeRay does not pass to ray start",
        )
        line = next(line for line in _rule_help.list_rules().splitlines() if line.startswith(f"{rule_id} "))
        assert line.split()[1] == "critical" and "(high, not certain: a group may offer it" in line
