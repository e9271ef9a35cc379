"""Every rule's fix is valid input for the same rule: the rule's fixed example (its violating example with the
``fix`` applied, ``declare(..., fixed=patch({...}))``) no longer fires, and fixing it brings no new critical
finding from any other rule. A rule whose fix is not in the manifest says why (``fixed_elsewhere=``).
"""

from __future__ import annotations

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.rules._engine import Rule
from pulumi_kuberay.rules._fixed import REMOVE, Patch, patch

ALL_RULES: list[Rule] = sorted(rules.RULES.values(), key=lambda r: r.id)
FIXED_RULES = [rule for rule in ALL_RULES if rule.fixed is not None]

#: The rules whose fix cannot be a manifest, each with its reason: kept explicit and short.
MAX_FIXED_ELSEWHERE = 5


def _critical(findings: list[rules.Finding]) -> set[tuple[str, str]]:
    return {(f.rule_id, f.path) for f in findings if f.severity == "critical"}


def test_every_rule_has_a_fixed_example_or_says_why_not() -> None:
    missing = [r.id for r in ALL_RULES if r.fixed is None and not r.fixed_elsewhere]
    assert missing == [], (
        "declare(..., fixed=patch({'field.path': value})) is missing (the violating example with the rule's fix "
        f"applied), or fixed_elsewhere='why the fix is not in the manifest': {', '.join(missing)}"
    )
    elsewhere = [r.id for r in ALL_RULES if r.fixed_elsewhere]
    assert len(elsewhere) <= MAX_FIXED_ELSEWHERE, f"too many rules claim their fix is not a manifest: {elsewhere}"
    both = [r.id for r in ALL_RULES if r.fixed is not None and r.fixed_elsewhere]
    assert both == [], f"a rule has a fixed example or a reason, not both: {both}"


@pytest.mark.parametrize("rule", FIXED_RULES, ids=lambda r: r.id)
def test_the_fix_clears_the_finding_and_adds_no_critical_one(rule: Rule) -> None:
    fixed = rule.fixed_example()
    assert fixed != rule.violating, f"{rule.id}: the fixed example is the violating one"
    after = rules.example_findings(rule, "fixed", every_rule=True)
    still = [f"{f.path}: {f.message}" for f in after if f.rule_id == rule.id]
    assert still == [], f"{rule.id}: its fix {rule.fix!r} leaves: {still}"
    new = _critical(after) - _critical(rules.example_findings(rule, every_rule=True))
    assert new == set(), f"{rule.id}: applying the fix brings new critical findings: {sorted(new)}"


def test_patch_sets_removes_and_creates_fields_on_a_copy() -> None:
    doc = {"spec": {"a": 1, "items": [{"x": 1}, {"x": 2}]}}
    out = patch({"spec.a": REMOVE, "spec.items[1].x": 3, "spec.new.deep": True, "spec.items[0]": REMOVE}).apply(doc)
    assert out == {"spec": {"items": [{"x": 3}], "new": {"deep": True}}}
    assert doc == {"spec": {"a": 1, "items": [{"x": 1}, {"x": 2}]}}
    stack = Patch((("[1].spec.a", 2),)).apply(({"spec": {}}, {"spec": {"a": 1}}))
    assert stack == ({"spec": {}}, {"spec": {"a": 2}})
    with pytest.raises(ValueError, match=r"patch path 'spec.items\[5\].x': no list item \[5\]"):
        patch({"spec.items[5].x": 1}).apply(doc)


def test_a_fix_that_does_not_clear_its_finding_is_caught() -> None:
    """The check can fail: a patch that leaves the violation in place is reported."""
    rule = rules.RULES["rayjob-ttl-negative"]
    assert rules.example_findings(rule, "fixed") == []
    broken = Patch((("spec.ttlSecondsAfterFinished", -5),)).apply(rule.violating)
    assert [f.rule_id for f in rules.check(broken, rules.Target.of(**rule.context)) if f.rule_id == rule.id]
