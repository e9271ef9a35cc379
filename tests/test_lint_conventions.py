"""Issue 44 items 4 and 6: one severity everywhere (a finding, --list-rules, --explain-rule, SARIF, docs/rules.md),
and the CLI conventions (--version, one line of usage, --format concise/github, --compact, the baseline never an
input, --diff judging the new side by the catalogue), with docs/linting.md held to what the CLI does."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.cli import convert, explain
from pulumi_kuberay.cli._lint_report import _short, github_annotation
from pulumi_kuberay.cli.lint import FORMATS, _parser, main, package_version
from pulumi_kuberay.policy.__main__ import main as policy_pack_main
from pulumi_kuberay.rules import Target

REPO = Path(__file__).resolve().parent.parent
LINTING_MD = REPO / "docs" / "linting.md"

JOB_WITHOUT_DEADLINE = """\
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: nightly}
spec:
  entrypoint: python main.py
  shutdownAfterJobFinishes: true
  rayClusterSpec:
    rayVersion: "2.52.0"
    headGroupSpec:
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.52.0
              resources: {limits: {cpu: "2", memory: 8Gi}}
"""

CLUSTER_WITHOUT_FT = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: prod-cluster}
spec:
  rayVersion: "2.52.0"
  headGroupSpec:
    rayStartParams: {num-cpus: "0"}
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.52.0
            resources: {limits: {cpu: "2", memory: 8Gi}}
  workerGroupSpecs:
    - groupName: cpu
      minReplicas: 1
      maxReplicas: 2
      template:
        spec:
          containers:
            - name: ray-worker
              image: rayproject/ray:2.52.0
              resources: {limits: {cpu: "2", memory: 8Gi}}
"""

AUTOSCALED = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: auto}
spec:
  rayVersion: "2.52.0"
  enableInTreeAutoscaling: true
  headGroupSpec:
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.52.0
            resources: {limits: {cpu: "2", memory: 8Gi}}
  workerGroupSpecs:
    - groupName: cpu-workers-of-the-team
      minReplicas: 0
      template:
        spec:
          containers:
            - name: ray-worker
              image: rayproject/ray:2.52.0
              resources: {limits: {cpu: "2", memory: 8Gi}}
"""


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--no-config", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _json_findings(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    _, out, _ = _run(capsys, "--format", "json", *args)
    findings: list[dict[str, Any]] = json.loads(out)["findings"]
    return findings


def _listed(out: str, rule_id: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(rule_id + " "))


# ---------------------------------------------------------------------------------------------------------------
# 4. One severity everywhere


def test_deadline_finding_says_why_it_is_low_and_the_list_shows_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's first example: --list-rules said medium, the finding low, and neither said why."""
    job = _write(tmp_path, "job.yaml", JOB_WITHOUT_DEADLINE)
    (finding,) = [f for f in _json_findings(capsys, str(job)) if f["rule_id"] == "rayjob-deadline-unbounded"]
    assert finding["severity"] == "low"
    assert finding["message"].endswith("(low: no deadline is a hygiene gap; a deadline of more than 7 days is medium)")
    code, out, _ = _run(capsys, "--list-rules")
    assert code == 0
    assert _listed(out, "rayjob-deadline-unbounded").split()[1] == "medium"


def test_gcs_ft_in_force_per_environment_and_on_a_raycluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's second example: --explain-rule said high, a prod lint gave medium, neither said why."""
    code, out, _ = _run(capsys, "--explain-rule", "gcs-ft-missing-in-prod")
    assert code == 0
    assert "severity off (default high: reported with environment prod; medium for a RayCluster: high is for a RayService, which drops traffic) for environment not set, KubeRay 1.7.0" in out
    code, out, _ = _run(capsys, "--explain-rule", "gcs-ft-missing-in-prod", "--environment", "prod")
    assert "severity high (medium for a RayCluster: high is for a RayService, which drops traffic) for environment prod, KubeRay 1.7.0" in out
    code, out, _ = _run(capsys, "--list-rules", "--environment", "dev")
    assert _listed(out, "gcs-ft-missing-in-prod").split()[1] == "off"
    assert _listed(out, "gcs-ft-missing-in-prod").endswith("(default high; medium for a RayCluster: high is for a RayService, which drops traffic)")
    cluster = _write(tmp_path, "cluster.yaml", CLUSTER_WITHOUT_FT)
    found = [f for f in _json_findings(capsys, "--environment", "prod", str(cluster)) if f["rule_id"] == "gcs-ft-missing-in-prod"]
    assert [f["severity"] for f in found] == ["medium"]
    assert found[0]["message"].endswith("(medium for a RayCluster: high is for a RayService, which drops traffic)")


def test_environment_dependent_rule_shows_the_severity_in_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _run(capsys, "--list-rules", "--environment", "prod")
    assert _listed(out, "autoscaling-bounds-explicit").split()[1] == "high"
    assert _listed(out, "autoscaling-bounds-explicit").endswith("(default medium)")
    assert _listed(out, "image-tag-not-pinned").split()[1] == "high"
    assert "environment prod, KubeRay 1.7.0" in out.splitlines()[-1]
    _, out, _ = _run(capsys, "--list-rules")
    assert _listed(out, "image-tag-not-pinned").split()[1] == "medium"
    _, out, _ = _run(capsys, "--explain-rule", "image-tag-not-pinned")
    assert "severity medium (default high: high in prod, medium elsewhere)" in out
    cluster = _write(tmp_path, "auto.yaml", AUTOSCALED)
    found = [f for f in _json_findings(capsys, "--environment", "prod", str(cluster)) if f["rule_id"] == "autoscaling-bounds-explicit"]
    assert [(f["severity"], f["message"].endswith("(high in prod, medium elsewhere)")) for f in found] == [("high", True)]
    found = [f for f in _json_findings(capsys, "--environment", "dev", str(cluster)) if f["rule_id"] == "autoscaling-bounds-explicit"]
    assert [(f["severity"], "(high in prod" in f["message"]) for f in found] == [("medium", False)]  # the default: no clause


def test_version_changes_the_severity_in_force(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "--list-rules", "--kuberay-version", "1.5.0")
    assert _listed(out, "worker-min-exceeds-max").split()[1] == "high"
    _, out, _ = _run(capsys, "--explain-rule", "worker-min-exceeds-max", "--kuberay-version", "1.5.0")
    assert "severity high (default critical: high: operators before 1.6 accept it) for environment not set, KubeRay 1.5.0" in out


def test_sarif_rule_levels_are_the_severities_in_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = _write(tmp_path, "job.yaml", JOB_WITHOUT_DEADLINE)
    levels = {}
    for environment in ("dev", "prod"):
        _, out, _ = _run(capsys, "--format", "sarif", "--environment", environment, str(job))
        run = json.loads(out)["runs"][0]
        descriptors = {d["id"]: d for d in run["tool"]["driver"]["rules"]}
        levels[environment] = descriptors["image-tag-not-pinned"]
        result = next(r for r in run["results"] if r["ruleId"] == "rayjob-deadline-unbounded")
        assert result["level"] == "note"
        assert result["properties"]["severityWhy"].startswith("low: no deadline")
    assert levels["dev"]["defaultConfiguration"]["level"] == "warning"
    assert levels["dev"]["properties"]["defaultSeverity"] == "high"
    assert levels["dev"]["properties"]["severity"] == "medium"
    assert levels["prod"]["defaultConfiguration"]["level"] == "error"
    assert "defaultSeverity" not in levels["prod"]["properties"]


def test_rule_reference_cells_are_the_severities_in_force_per_environment() -> None:
    cell = rules.severity_by_environment
    assert cell(rules.get_rule("gcs-ft-missing-in-prod")).startswith("high (prod only; medium for a RayCluster")
    assert cell(rules.get_rule("autoscaling-bounds-explicit")) == "medium (prod: high)"
    assert cell(rules.get_rule("image-tag-not-pinned")) == "high (no environment, dev, staging: medium)"
    assert cell(rules.get_rule("rayjob-deadline-unbounded")).startswith("medium (low: no deadline")
    reference = (REPO / "docs" / "rules.md").read_text()
    assert "| [`gcs-ft-missing-in-prod`](#gcs-ft-missing-in-prod) | high (prod only; medium for a RayCluster" in reference


#: Rules whose severities are being reworked elsewhere (issue 44 item 3: the Serve-key severities).
REWORKED_ELSEWHERE = {"serve-config-unknown-key"}


@pytest.mark.parametrize("environment", [None, "dev", "prod"])
def test_every_example_finding_off_its_default_says_why(environment: str | None) -> None:
    """Held on every rule's violating example: a finding whose severity is not its rule's default names why."""
    silent = []
    for rule in rules.ordered_rules():
        if rule.id in REWORKED_ELSEWHERE:
            continue
        settings = {**rule.context, "environment": environment or rule.context.get("environment")}
        for finding in rules.example_findings(rule, target=Target.of(**settings)):
            if finding.rule_id == rule.id and finding.severity != rule.severity and not finding.severity_why:
                silent.append(f"{rule.id}: {finding.severity} (default {rule.severity}): {finding.message[:80]}")
    assert silent == []


# ---------------------------------------------------------------------------------------------------------------
# 6. CLI conventions


def test_every_cli_prints_its_version(capsys: pytest.CaptureFixture[str]) -> None:
    version = package_version()
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"kuberay-lint {version} (KubeRay 1.7.0 catalogue)\n"
    assert convert.main(["--version"]) == 0
    assert capsys.readouterr().out == f"kuberay-convert {version}\n"
    out, err = io.StringIO(), io.StringIO()
    assert explain.run(["--version"], None, out, err) == 0
    assert out.getvalue() == f"kuberay-explain {version}\n"
    assert policy_pack_main(["--version"]) == 0
    assert capsys.readouterr().out == f"kuberay-policy-pack {version}\n"


class _Terminal(io.BytesIO):
    def isatty(self) -> bool:
        return True


def test_no_argument_is_one_line_of_usage_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for program, name in ((main, "kuberay-lint"), (convert.main, "kuberay-convert"), (policy_pack_main, "kuberay-policy-pack")):
        assert program([]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and err.startswith(f"usage: {name} "), (name, err)
    out_text, err_text = io.StringIO(), io.StringIO()
    assert explain.run([], _Terminal(), out_text, err_text) == 2  # nothing piped in: not a wait on the terminal
    assert err_text.getvalue().count("\n") == 1 and err_text.getvalue().startswith("usage: kuberay-explain ")


def test_format_concise_is_one_whole_line_per_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cluster = _write(tmp_path, "auto.yaml", AUTOSCALED)
    findings = _json_findings(capsys, str(cluster))
    _, out, _ = _run(capsys, "--format", "concise", str(cluster))
    lines = out.splitlines()
    assert len(lines) == len(findings) + 1 and lines[-1].startswith(f"{len(findings)} finding")
    pattern = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):1: (?P<severity>low|medium|high|critical) (?P<rule>[a-z0-9-]+) (?P<field>\S+): (?P<message>.+)$")
    parsed = [pattern.match(line) for line in lines[:-1]]
    assert all(parsed), lines
    by_rule = {m["rule"]: m for m in parsed if m}
    bounds = by_rule["autoscaling-bounds-explicit"]
    expected = next(f for f in findings if f["rule_id"] == "autoscaling-bounds-explicit")
    assert (bounds["file"], int(bounds["line"]), bounds["message"]) == (str(cluster), expected["line"], expected["message"])
    assert "CRD default 2147483647): the autoscaler may add Pods without bound" in bounds["message"]  # whole


def test_format_github_is_workflow_annotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cluster = _write(tmp_path, "auto.yaml", AUTOSCALED)
    code, out, _ = _run(capsys, "--format", "github", "--environment", "prod", str(cluster))
    assert code == 1
    line = next(line for line in out.splitlines() if "autoscaling-bounds-explicit" in line)
    match = re.match(r"^::error file=(?P<file>[^,]+),line=(?P<line>\d+),col=1,title=high autoscaling-bounds-explicit::(?P<message>.+)$", line)
    assert match, line
    assert match["file"] == str(cluster).replace(":", "%3A")
    assert "RayCluster auto: spec.workerGroupSpecs[0].maxReplicas: autoscaling is on" in match["message"]
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in out.splitlines())


def test_github_annotation_escapes_what_would_end_the_command() -> None:
    from pulumi_kuberay.cli._lint_findings import LocatedFinding
    from pulumi_kuberay.rules import Finding

    finding = Finding("image-tag-not-pinned", "medium", "50% of it\nnext", "spec", "a, b: c")
    item = LocatedFinding("dir,x/a:b.yaml", 3, "RayJob", "j", "", finding, "spec")
    assert github_annotation(item) == (
        "::warning file=dir%2Cx/a%3Ab.yaml,line=3,col=1,title=medium image-tag-not-pinned::RayJob j: spec: 50%25 of it%0Anext Fix: a, b: c"
    )


def test_compact_keeps_the_first_clause_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cluster = _write(tmp_path, "auto.yaml", AUTOSCALED)
    _, out, _ = _run(capsys, "--compact", "--color", "never", str(cluster))
    line = next(line for line in out.splitlines() if "autoscaling-bounds-explicit" in line)
    assert line.endswith("maxReplicas is not set (CRD default 2147483647) …"), line
    assert _short("a short message: stays whole") == "a short message: stays whole"
    long_one_clause = "the head's image " + "x" * 80
    assert _short(long_one_clause) == long_one_clause  # one clause: nothing to cut


def test_the_baseline_and_the_config_are_never_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kuberay-lint . --baseline .kuberay-lint-baseline.json` counted the baseline as an input."""
    _write(tmp_path, "job.yaml", JOB_WITHOUT_DEADLINE)
    monkeypatch.chdir(tmp_path)
    assert main(["--no-config", ".", "--write-baseline"]) == 0
    capsys.readouterr()
    assert (tmp_path / ".kuberay-lint-baseline.json").is_file()
    code, out, err = _run(capsys, ".", "--baseline", ".kuberay-lint-baseline.json")
    assert code == 0, err
    assert "in 1 Ray document from 1 file;" in out.splitlines()[-1], out
    # also when the baseline has another name, and the config beside it
    (tmp_path / ".kuberay-lint-baseline.json").rename(tmp_path / "accepted.json")
    (tmp_path / ".kuberay-lint.yaml").write_text("environment: dev\nbaseline: accepted.json\n")
    code = main(["."])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "in 1 Ray document from 1 file;" in out.splitlines()[-1], out


NEW_SIDE_ONLY_BAD = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: shared, namespace: ray}
spec:
  rayVersion: "2.52.0"
  headGroupSpec:
    serviceType: LoadBalancer
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.52.0
            resources: {limits: {cpu: "2", memory: 8Gi}}
"""


def test_diff_fails_on_a_new_high_finding_of_the_object_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The pull-request gate: a change that exposes the dashboard (a high finding of the object, not of the
    change) failed a plain lint of the new files, but `--diff` exited 0."""
    old = _write(tmp_path, "old/c.yaml", NEW_SIDE_ONLY_BAD.replace("    serviceType: LoadBalancer\n", "")).parent
    new = _write(tmp_path, "new/c.yaml", NEW_SIDE_ONLY_BAD).parent
    plain, _, _ = _run(capsys, str(new))
    assert plain == 1
    code, out, _ = _run(capsys, "--diff", str(old), str(new), "--format", "json")
    assert code == 1
    (change,) = json.loads(out)["changes"]
    found = {(f["rule_id"], f["severity"]) for f in change["findings"]}
    assert found == {("dashboard-exposed-without-auth", "high"), ("change-not-reaching-pods", "medium")}
    code, out, _ = _run(capsys, "--diff", str(old), str(new), "--change-rules-only", "--format", "json")
    assert code == 0  # the change rule alone is medium
    assert [f["rule_id"] for f in json.loads(out)["changes"][0]["findings"]] == ["change-not-reaching-pods"]
    _, out, _ = _run(capsys, "--diff", str(old), str(new), "--format", "concise")
    assert any(" high dashboard-exposed-without-auth spec.headGroupSpec.serviceType: " in line for line in out.splitlines()), out
    # what the old side already had is not the change's: the same object unchanged elsewhere adds nothing
    code, out, _ = _run(capsys, "--diff", str(new), str(new))
    assert code == 0


# ---------------------------------------------------------------------------------------------------------------
# docs/linting.md says what the CLI does


def test_linting_doc_names_the_json_keys_of_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(LINTING_MD.read_text().split())
    sentence = re.search(r"each finding has the keys (.+?)\), the summary (.+?)\.", text)
    assert sentence, "docs/linting.md no longer lists the JSON keys"
    named = set(re.findall(r"`([a-z_]+)`", sentence[1]))
    summary_named = set(re.findall(r"`([a-z_]+)`", sentence[2]))
    _write(tmp_path, "m/a.yaml", AUTOSCALED.replace("metadata: {name: auto}", "metadata: {name: auto, namespace: ray}"))
    _, out, _ = _run(capsys, "--format", "json", str(tmp_path / "m"))
    report = json.loads(out)
    keys = set().union(*(f.keys() for f in report["findings"]))
    assert named - {"containers"} == keys - {"containers"}, (named, keys)
    assert {"object", "rule"} & keys == set()
    assert summary_named == set(report["summary"])


def test_linting_doc_flags_and_formats_exist() -> None:
    text = LINTING_MD.read_text()
    known = {option for action in _parser()._actions for option in action.option_strings}
    named = set(re.findall(r"kuberay-lint[^\n`]*", text))
    flags = {flag for line in named for flag in re.findall(r"(--[a-z][a-z-]+)", line)}
    assert flags and flags <= known, flags - known
    for fmt in re.findall(r"--format (\w+)", text):
        assert fmt in FORMATS, fmt


@pytest.mark.parametrize("doc", ["linting.md", "policy-pack.md"])
def test_docs_install_lines_name_a_source_that_exists(doc: str) -> None:
    """The package is not on PyPI: every `pip install` of it names the git repository or a wheel file."""
    text = (REPO / "docs" / doc).read_text()
    installs = [
        line
        for line in text.splitlines()
        if re.search(r"pip install[^\n]*pulumi[-_]kuberay", line) and "No matching distribution" not in line
    ]
    assert installs
    for line in installs:
        assert "git+https://github.com/pulumi-kuberay/pulumi-kuberay" in line or ".whl" in line, line


def test_policy_pack_doc_flags_exist() -> None:
    from pulumi_kuberay.policy.__main__ import _parser as pack_parser

    text = (REPO / "docs" / "policy-pack.md").read_text()
    known = {option for action in pack_parser("kuberay-policy-pack")._actions for option in action.option_strings}
    lines = re.findall(r"kuberay-policy-pack[^\n`]*", text) + re.findall(r"`kuberay-policy-pack[^`]*`", " ".join(text.split()))
    flags = {flag for line in lines for flag in re.findall(r"(--[a-z][a-z-]+)", line)}
    assert {"--virtualenv", "--policy-configs", "--force", "--version"} <= flags <= known, flags - known
