"""pod-field-needs-feature-gate: what Pod validation accepts only where the API server runs a feature gate off by
default at Kubernetes 1.36 is high, never critical (a cluster that turns the gate on accepts it: a static critical
would cry wolf); with a cluster the preflight's dry run decides (tests/cluster/test_preflight_admission.py). One test
per exception pod-spec-value-invalid makes, with the finding's message and path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.rules._docs import proof_of
from pulumi_kuberay.rules._examples import example, worker_of

RULE = "pod-field-needs-feature-gate"
WORKER = "spec.workerGroupSpecs[0].template"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
JsonDict = dict[str, Any]


def _worker(template: JsonDict | None = None, **spec: Any) -> JsonDict:
    def edit(doc: JsonDict) -> None:
        worker_of(doc)["template"]["spec"].update(spec)
        worker_of(doc)["template"].update(template or {})

    return example(edit)


def _findings(doc: JsonDict) -> list[tuple[str, str, str, str]]:
    """(rule, severity, path, message) of the two rules that split Pod validation's pod spec checks."""
    return [
        (f.rule_id, f.severity, f.path, f.message)
        for f in rules.check(doc)
        if f.rule_id in (RULE, "pod-spec-value-invalid")
    ]


def _the_one_high(doc: JsonDict, path: str, starts: str, gate: str) -> None:
    ((rule_id, severity, at, message),) = _findings(doc)
    assert (rule_id, severity, at) == (RULE, "high", path)
    assert message.startswith(starts), message
    assert f"needs the {gate} feature gate (" in message and "off by default in Kubernetes 1.36)" in message
    assert (
        "the API server refuses every Pod the operator creates from this template unless it runs that gate" in message
    )
    assert message.endswith(
        "(kuberay-lint --cluster, the components' preview), whose dry run decides (preflight-admission-refuses-child)"
    )


@pytest.mark.parametrize("operator", ["Gt", "Lt"])
def test_a_comparison_toleration_is_high_not_critical(operator: str) -> None:
    doc = _worker(tolerations=[{"key": "example.com/tier", "operator": operator, "value": "3", "effect": "NoSchedule"}])
    _the_one_high(
        doc,
        f"{WORKER}.spec.tolerations[0].operator",
        f"toleration operator {operator} needs the TaintTolerationComparisonOperators feature gate (alpha, off by default in Kubernetes 1.36)",
        "TaintTolerationComparisonOperators",
    )


def test_a_comparison_toleration_refused_with_the_gate_on_too_stays_critical() -> None:
    """A Gt value that is no integer is refused gate or not (ValidateTolerations): critical, beside the gate's high."""
    doc = _worker(tolerations=[{"key": "example.com/tier", "operator": "Gt", "value": "three"}])
    found = {(rule_id, severity, path) for rule_id, severity, path, _ in _findings(doc)}
    assert found == {
        (RULE, "high", f"{WORKER}.spec.tolerations[0].operator"),
        ("pod-spec-value-invalid", "critical", f"{WORKER}.spec.tolerations[0].value"),
    }


def test_a_comparison_toleration_in_the_annotation_is_high_not_critical() -> None:
    annotation = "scheduler.alpha.kubernetes.io/tolerations"
    tolerations = [{"key": "a", "operator": "Exists"}, {"key": "example.com/tier", "operator": "Lt", "value": "5"}]
    doc = _worker({"metadata": {"annotations": {annotation: json.dumps(tolerations)}}})
    _the_one_high(
        doc,
        f'{WORKER}.metadata.annotations["{annotation}"]',
        "the tolerations annotation item 1: toleration operator Lt needs the TaintTolerationComparisonOperators feature gate",
        "TaintTolerationComparisonOperators",
    )
    broken = _worker({"metadata": {"annotations": {annotation: '[{"operator": "Lt"}, "x"]'}}})
    assert {(r, s) for r, s, _, _ in _findings(broken)} == {
        ("pod-spec-value-invalid", "critical")
    }  # no toleration read


def test_selinux_mount_option_is_high_not_critical() -> None:
    doc = _worker(securityContext={"seLinuxChangePolicy": "MountOption"})
    _the_one_high(
        doc,
        f"{WORKER}.spec.securityContext.seLinuxChangePolicy",
        "seLinuxChangePolicy MountOption needs the SELinuxMount feature gate (beta, off by default in Kubernetes 1.36)",
        "SELinuxMount",
    )
    assert _findings(_worker(securityContext={"seLinuxChangePolicy": "Recursive"})) == []


def test_host_network_in_a_user_namespace_is_high_not_critical() -> None:
    doc = _worker(hostUsers=False, hostNetwork=True)
    _the_one_high(
        doc,
        f"{WORKER}.spec.hostNetwork",
        "hostNetwork true beside hostUsers false needs the UserNamespacesHostNetworkSupport feature gate (alpha, off by default in Kubernetes 1.36)",
        "UserNamespacesHostNetworkSupport",
    )
    assert _findings(_worker(hostUsers=False)) == [] and _findings(_worker(hostNetwork=True)) == []


def test_the_rule_reference_says_what_proves_it_and_when_it_is_not_certain() -> None:
    rule = rules.RULES[RULE]
    assert rule.severity == "high" and "preflight-admission-refuses-child, critical" in rule.proof
    assert "a cluster may run the gate on" in rule.proof
    section = DOCS.read_text().split(f"\n## {RULE}\n", 1)[1].split("\n## ", 1)[0]
    assert f"- What proves it, and why it is not certain: {rule.proof}" in section
    # and the critical rule it came from no longer claims these values
    critical = rules.RULES["pod-spec-value-invalid"]
    assert "MountOption (a gate off by default)" not in critical.rationale and RULE in critical.rationale
    assert "- Certain because: " + proof_of(critical) in DOCS.read_text()
