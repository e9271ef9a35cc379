"""The critical contract: a critical finding stops `pulumi up` and fails CI, so each critical rule says what proves
the failure, and when it is not certain (docs/rules.md, "Certain because")."""

from __future__ import annotations

from pathlib import Path

from pulumi_kuberay import rules
from pulumi_kuberay.rules._docs import proof_of

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def _critical() -> list[rules.Rule]:
    return [rule for rule in rules.RULES.values() if rule.severity == "critical"]


def test_every_critical_rule_says_what_proves_it() -> None:
    """A rule its enforcers (the API server, the operator, a webhook) refuse is proved by them; any other critical
    rule (a failure only Ray, the kubelet or the cluster shows) writes its proof beside its rationale."""
    unproved = [rule.id for rule in _critical() if not rule.enforced_by and not rule.proof]
    assert unproved == []
    assert len(_critical()) > 100


def test_the_rule_reference_shows_each_proof() -> None:
    text = DOCS.read_text()
    for rule in _critical():
        section = text.split(f"\n## {rule.id}\n", 1)[1].split("\n## ", 1)[0]
        assert f"- Certain because: {proof_of(rule)}" in section, rule.id


def test_a_proof_names_its_exception_where_there_is_one() -> None:
    """The uncertain cases the rules downgrade, each held by its own test (tests/rules/test_feasibility.py,
    test_readiness_rules.py, test_serve_rules.py...), are named in the proof the reader sees."""
    proofs = {rule.id: proof_of(rule) for rule in _critical()}
    assert "RAY_OVERRIDE_RESOURCES" in proofs["serve-replica-infeasible"] and "high" in proofs["serve-replica-infeasible"]
    assert "medium" in proofs["probes-need-ray-2-53"]
    assert "high" in proofs["serve-config-key-version"]
    assert "medium" in proofs["preflight-group-never-placed"]  # what its findings say where a node may be added
    assert "spec.managedBy" in proofs["rayjob-ttl-negative"]
