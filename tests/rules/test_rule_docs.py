"""docs/rules.md is generated from the catalogue and must match it (run scripts/gen-rule-docs)."""

from __future__ import annotations

from pathlib import Path

from pulumi_kuberay import rules
from pulumi_kuberay.rules._docs import render

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_rule_reference_is_current() -> None:
    assert DOC.read_text() == render(), "docs/rules.md is stale: run scripts/gen-rule-docs"


def test_every_rule_documented_with_its_example_finding() -> None:
    text = render()
    for rule_id in rules.RULES:
        assert f"## {rule_id}\n" in text
    assert "(no finding on its example)" not in text
