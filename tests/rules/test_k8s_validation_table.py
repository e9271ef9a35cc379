"""docs/kubernetes-validation.md: every check of Kubernetes' validation of the objects the operator creates (Pods,
Services, the submitter Job, the Ingress), each with the critical rule that catches it or why no Ray object reaches
it. The function list is extracted from Kubernetes' Go source into tools/k8s_validation/functions.json (checked in:
no Go here); the verdicts are tools/k8s_validation/checks.yaml, by hand."""

from __future__ import annotations

import copy
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.kubernetes import (
    VOLUME_SOURCES,
)
from pulumi_kuberay.model import _k8s

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import gen_k8s_validation_table as table

FUNCTIONS = table.load_functions()
CHECKS = table.load_checks()
ROWS = [(key, check) for key, checks in CHECKS.items() for check in checks]
#: The checks reachable from a Ray object that no rule catches yet (docs/kubernetes-validation.md says "reachable, no
#: rule yet"): a rule added for one moves it to its column, and this number down.
GAPS = 0
#: The checks whose verdict a flag or feature gate of the API server decides (the target cluster's dry run hears
#: them): privileged and hostProcess without --allow-privileged; Gt and Lt tolerations (the field and the
#: annotation), MountOption and hostNetwork beside hostUsers false, accepted only under a gate off by default
#: (pod-field-needs-feature-gate warns, high); the fields the API server drops under a gate off by default
#: (schedulingGroup, stopSignal, the ClusterTrustBundle and PodCertificate projections: three checks), validated
#: where a cluster turns it on.
CLUSTER_DECIDED = 11



def test_every_extracted_function_has_its_checks_and_no_other() -> None:
    keys = [table.function_key(row) for row in FUNCTIONS["functions"]]
    assert len(keys) == len(set(keys)) == 241
    assert [k for k in keys if k not in CHECKS] == []  # a function new in Kubernetes: give it its checks
    assert [k for k in CHECKS if k not in keys] == []  # a function Kubernetes dropped: drop its checks
    assert FUNCTIONS["kubernetes"] == table.KUBERNETES_VERSION


def test_every_check_has_one_verdict() -> None:
    for key, check in ROWS:
        verdicts = [v for v in table.VERDICTS if check.get(v)]
        assert check.get("check") and len(verdicts) == 1, (key, check)
        extras = set(check) - {"check", verdicts[0]}
        assert extras <= set(table.VERDICT_EXTRAS.get(verdicts[0], ())), (key, check)
        assert verdicts[0] != "cluster" or check.get("why"), (key, check)  # a cluster-decided row says why


def test_a_cluster_decided_row_names_the_dry_run_and_its_static_rule_is_high() -> None:
    """A check whose verdict the API server's flags or gates decide names the preflight's dry run (critical, where
    the target cluster refuses) and, where the default refuses it, the static rule that warns: high, never critical
    (a cluster that turns the gate on accepts it)."""
    decided = [check for _, check in ROWS if "cluster" in check]
    assert len(decided) == CLUSTER_DECIDED
    for check in decided:
        assert check["cluster"] == "preflight-admission-refuses-child", check
        assert rules.RULES[check["cluster"]].severity == "critical" and rules.RULES[check["cluster"]].scope == "preflight"
        assert "high" not in check or rules.RULES[check["high"]].severity == "high", check
    assert sorted(check["check"] for check in decided if "high" in check) == [
        "Gt and Lt in the annotation only with the TaintTolerationComparisonOperators gate",
        "Gt and Lt only with the TaintTolerationComparisonOperators gate",
        "MountOption only with the SELinuxMount gate",
        "hostNetwork beside hostUsers false only with the UserNamespacesHostNetworkSupport gate",
    ]
    privileged = _row("ValidateSecurityContext", "privileged forbidden")
    host_process = _row("validateWindowsHostProcessPod", "hostProcess containers forbidden")
    for row in (privileged, host_process):
        assert "--allow-privileged=true" in row["why"] and "high" not in row
    page = table.OUTPUT.read_text(encoding="utf-8")
    assert page.count("(the target cluster's dry run decides: ") == CLUSTER_DECIDED
    assert f"{CLUSTER_DECIDED} decided by the target cluster" in page


def test_every_rule_of_the_table_is_a_critical_rule_of_the_catalogue() -> None:
    named = {check["rule"] for _, check in ROWS if "rule" in check}
    assert len(named) >= 20
    for rule_id in sorted(named):
        assert rule_id in rules.RULES, rule_id
        assert rules.RULES[rule_id].severity == "critical", rule_id


def test_the_gap_is_counted() -> None:
    gaps = [(key, check["check"]) for key, check in ROWS if "gap" in check]
    assert len(gaps) == GAPS
    page = table.OUTPUT.read_text(encoding="utf-8")
    assert f"{GAPS} without a rule)" in page and page.count("reachable, no rule yet: ") == GAPS


def test_the_page_is_current() -> None:
    assert table.OUTPUT.read_text(encoding="utf-8") == table.render(), "run scripts/gen-k8s-validation-table"


def test_the_roots_are_what_the_api_server_runs_on_the_children() -> None:
    roots = ["core.ValidatePodCreate", "core.ValidateServiceCreate", "batch.ValidateJob", "networking.ValidateIngressCreate"]
    assert FUNCTIONS["roots"] == roots
    by_name = {table.function_key(row): row for row in FUNCTIONS["functions"]}
    assert by_name["ValidatePodSpec"]["roots"] == ["ValidateJob", "ValidatePodCreate"]
    assert "Required(image)" in by_name["validateContainerCommon"]["sites"]
    assert by_name["networking.validateIngressRules"]["roots"] == ["ValidateIngressCreate"]


def test_the_checked_in_list_is_what_the_source_gives() -> None:
    """Where the k8s.io/kubernetes module is in the Go module cache (``go mod download``), the extraction gives the
    checked-in list again; without Go or the module the list is taken as it is (CI needs no Go here)."""
    if shutil.which("go") is None:
        pytest.skip("no Go toolchain: the checked-in tools/k8s_validation/functions.json is taken as it is")
    module = table.module_dir_default()
    if not module.is_dir():
        pytest.skip(f"{module} is not in the Go module cache (go mod download -json k8s.io/kubernetes@{table.KUBERNETES_VERSION})")
    assert table.extract(module) == FUNCTIONS, "run scripts/gen-k8s-validation-table --extract"


def test_the_extraction_reads_calls_not_comments_or_strings() -> None:
    code = 'func A() {\n\t// B() in a comment\n\tx := "C()"\n\tD(y)\n\tapivalidation.E(z)\n\tF := other.G()\n}\n'
    stripped = table.strip_go(code)
    assert "B()" not in stripped and "C()" not in stripped and "D(y)" in stripped
    known = {
        (p, n): table.GoFunction(p, n, "f.go", 1, table.strip_go(code) if n == "A" else "", "")
        for p, n in (("batch", "A"), ("batch", "B"), ("batch", "C"), ("batch", "D"), ("core", "E"), ("batch", "G"))
    }
    assert table._references(known[("batch", "A")], known) == {("batch", "D"), ("core", "E")}


def test_the_volume_sources_are_the_crds() -> None:
    """kuberay.kubernetes.VOLUME_SOURCES (validateVolumeSource: exactly one) is every field of the CRDs' Volume but
    its name."""
    fields = {info.alias or name for name, info in _k8s.Volume.model_fields.items()} - {"name"}
    assert set(VOLUME_SOURCES) == fields



from rules.k8s_validation_samples import KINDS, Doc  # noqa: E402
from rules.k8s_validation_samples_more import SAMPLES  # noqa: E402


def _row(function: str, check_start: str) -> dict[str, str]:
    matching = [c for c in CHECKS[function] if c["check"].startswith(check_start)]
    assert len(matching) == 1, (function, check_start, CHECKS[function])
    row: dict[str, str] = matching[0]
    return row


@pytest.mark.parametrize(
    ("function", "check_start", "kind", "edit", "rule_id"), SAMPLES, ids=[f"{s[0]}:{s[4]}:{s[2]}" for s in SAMPLES]
)
def test_the_rule_of_a_row_fires_on_a_ray_object_that_reaches_it(
    function: str, check_start: str, kind: str, edit: Callable[[Doc], Any], rule_id: str
) -> None:
    assert _row(function, check_start).get("rule") == rule_id
    baseline = KINDS[kind]()
    assert [f.rule_id for f in rules.check(copy.deepcopy(baseline)) if f.rule_id == rule_id] == []
    edit(baseline)
    found = [f for f in rules.check(baseline) if f.rule_id == rule_id]
    assert found and all(f.severity == "critical" for f in found), (rule_id, [f.message for f in found])


def test_every_rule_of_the_table_has_a_sample() -> None:
    named = {check["rule"] for _, check in ROWS if "rule" in check}
    sampled = {s[4] for s in SAMPLES}
    assert named - sampled == set()
