"""``kuberay-lint``: exit codes, locations, formats, and the acceptance checks of the rule-catalogue issue."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _reference import sample_documents, samples_dir
from pulumi_kuberay import rules
from pulumi_kuberay.cli.lint import main
from pulumi_kuberay.rules import DEFAULT_FEATURE_GATES, _examples

ALL_GATES = ",".join(f"{name}=true" for name in DEFAULT_FEATURE_GATES)
REPO = Path(__file__).resolve().parent.parent

BAD_CLUSTER = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: unrelated}
---
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: bad
spec:
  headGroupSpec:
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.52.0
  workerGroupSpecs:
    - groupName: cpu
      minReplicas: 4
      maxReplicas: 2
      template:
        spec:
          containers:
            - name: ray-worker
              image: rayproject/ray:2.52.0
"""


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_upstream_samples_have_no_critical_finding(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--fail-on", "critical", f"--feature-gates={ALL_GATES}", str(samples_dir()))
    assert code == 0, out
    assert "critical" not in out.splitlines()[-1]
    assert "in 89 Ray documents from 94 files" in out.splitlines()[-1]


def test_mutated_sample_is_caught_with_file_and_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = copy.deepcopy(next(d for name, _, d in sample_documents("RayCluster") if name == "ray-cluster.sample.yaml"))
    doc["spec"]["workerGroupSpecs"][0]["minReplicas"] = 9
    path = tmp_path / "mutant.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    code, out, _ = _run(capsys, "--fail-on", "critical", "--format", "json", str(path))
    assert code == 1
    findings = json.loads(out)["findings"]
    hit = [f for f in findings if f["path"] == "spec.workerGroupSpecs[0].minReplicas" and f["severity"] == "critical"]
    assert hit, findings
    line = path.read_text().splitlines()[hit[0]["line"] - 1]
    assert line.strip().startswith("minReplicas:")
    assert hit[0]["file"] == str(path) and hit[0]["kind"] == "RayCluster" and hit[0]["name"] == doc["metadata"]["name"]


def test_text_output_groups_per_object_with_short_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_CLUSTER)
    code, out, _ = _run(capsys, "--color", "never", str(path))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == str(path)
    assert lines[1] == "  RayCluster bad (line 5)"  # the ConfigMap is ignored
    first = next(line for line in lines if " critical " in line)
    assert first.split()[0] == "18" and "spec.workerGroupSpecs[cpu].minReplicas" in first
    assert "fix:" not in out and "\033[" not in out
    assert "in 1 Ray document from 1 file" in lines[-1]


def test_show_fixes_prints_the_fix_under_each_finding(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_CLUSTER)
    _, out, _ = _run(capsys, "--show-fixes", "--color", "always", str(path))
    lines = out.splitlines()
    critical = next(i for i, line in enumerate(lines) if "critical" in line and "minReplicas" in line)
    assert "fix:" in lines[critical + 1]
    assert "\033[" in out  # --color always
    _, out, _ = _run(capsys, "--show-fixes", str(path))
    assert "\033[" not in out  # auto (the default): stdout is not a terminal here


def test_same_rule_on_every_container_is_one_finding_listing_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_CLUSTER)
    _, out, _ = _run(capsys, "--format", "json", "--select", "resources-missing", str(path))
    findings = json.loads(out)["findings"]
    assert len(findings) == 1
    assert findings[0]["containers"] == ["head/ray-head", "cpu/ray-worker"]
    _, out, _ = _run(capsys, "--format", "json", "--select", "resources-missing", "--no-collapse", str(path))
    assert len(json.loads(out)["findings"]) == 2


def test_upstream_samples_text_is_grouped_and_short(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--color", "never", str(samples_dir()))
    assert code == 1
    lines = out.splitlines()
    finding_lines = [line for line in lines if line.startswith("  ") and line[2:7].strip().isdigit()]
    objects = [line for line in lines if line.startswith("  ") and not line.startswith("   ")]
    assert len(objects) >= 80 and len(finding_lines) < 450  # 667 one-per-container findings before collapsing
    median = sorted(len(line) for line in finding_lines)[len(finding_lines) // 2]
    print(f"samples: {len(finding_lines)} finding lines, {len(objects)} objects, median line {median} chars")
    assert median < 200
    assert not any("fix:" in line for line in lines)


def test_sarif_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_CLUSTER)
    code, out, _ = _run(capsys, "--format", "sarif", str(path))
    sarif = json.loads(out)
    assert code == 1 and sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert set(rule_ids) == set(rules.RULES)  # every rule of every scope, whether it fired or not
    assert all(rule_ids[r["ruleIndex"]] == r["ruleId"] for r in run["results"])
    critical = [r for r in run["results"] if r["level"] == "error" and r["properties"]["severity"] == "critical"]
    assert critical and critical[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 18


def test_fail_on_threshold(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = copy.deepcopy(next(d for name, _, d in sample_documents("RayCluster") if name == "ray-cluster.sample.yaml"))
    path = tmp_path / "ok.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert _run(capsys, "--fail-on", "critical", str(path))[0] == 0
    assert _run(capsys, "--fail-on", "low", str(path))[0] == 1


def test_version_and_gates_change_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    sample = str(samples_dir() / "ray-cluster.embedded-gcs-ft.yaml")
    assert _run(capsys, "--fail-on", "critical", sample)[0] == 1  # gate off by default
    assert (
        _run(capsys, "--fail-on", "critical", "--feature-gates=GCSFaultToleranceEmbeddedStorage=true", sample)[0] == 0
    )
    code, out, _ = _run(
        capsys,
        "--fail-on",
        "critical",
        "--format",
        "json",
        "--kuberay-version",
        "1.6.0",
        "--feature-gates=GCSFaultToleranceEmbeddedStorage=true",
        sample,
    )
    assert code == 1 and "field-newer-than-target" in {f["rule_id"] for f in json.loads(out)["findings"]}


def test_webhooks_flag_makes_webhook_only_rules_critical(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = copy.deepcopy(next(d for name, _, d in sample_documents("RayCluster") if name == "ray-cluster.sample.yaml"))
    groups = doc["spec"]["workerGroupSpecs"]
    groups.append(copy.deepcopy(groups[0]))  # duplicate groupName: only KubeRay's (default-off) webhook refuses it
    path = tmp_path / "dup.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert _run(capsys, "--fail-on", "critical", str(path))[0] == 0
    code, out, _ = _run(capsys, "--fail-on", "critical", "--webhooks", "--format", "json", str(path))
    assert code == 1
    assert ("worker-group-names-unique", "critical") in {
        (f["rule_id"], f["severity"]) for f in json.loads(out)["findings"]
    }


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\xff\xfe\x00garbage", "UTF-8"),
        (b"a: [1, 2\n", "not valid YAML"),
    ],
)
def test_unreadable_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "broken.yaml"
    path.write_bytes(content)
    code, _, err = _run(capsys, str(path))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and expected in lines[0] and "Traceback" not in err


def test_bad_flags_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(BAD_CLUSTER)
    code, _, err = _run(capsys, "--feature-gates=NoSuchGate=true", str(path))
    assert code == 2 and "unknown KubeRay feature gate 'NoSuchGate'" in err


def test_stdin_list_and_module_entry_point_without_pulumi() -> None:
    doc = yaml.safe_load(BAD_CLUSTER.split("---\n")[1])
    listing = json.dumps({"apiVersion": "v1", "kind": "List", "items": [doc]})
    probe = (
        "import sys, runpy; sys.argv=['kuberay-lint','--format','json','-'];"
        "import pulumi_kuberay.cli.lint as m; code=m.main(sys.argv[1:]);"
        "print('PULUMI' if 'pulumi' in sys.modules else 'NOPULUMI', file=sys.stderr); sys.exit(code)"
    )
    proc = subprocess.run([sys.executable, "-c", probe], input=listing, capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr
    assert "NOPULUMI" in proc.stderr
    assert any(f["rule_id"] for f in json.loads(proc.stdout)["findings"])
    module = subprocess.run(
        [sys.executable, "-m", "pulumi_kuberay.lint", "--help"], capture_output=True, text=True, check=False, cwd=REPO
    )
    assert module.returncode == 0 and "kuberay-lint" in module.stdout


def test_version_list_rules_and_explain_rule(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    code, out, _ = _run(capsys, "--version")
    assert code == 0 and out.startswith(f"kuberay-lint {version('pulumi-kuberay')} ")
    code, out, _ = _run(capsys, "--list-rules")
    listed = {line.split()[0] for line in out.splitlines()[1:] if line and not line[0].isdigit()}
    assert code == 0 and set(rules.RULES) <= listed and "rayjob-cluster-selector-unmatched" in listed
    code, out, _ = _run(capsys, "--explain-rule", "pod-security-restricted")
    assert code == 0
    assert out.startswith("pod-security-restricted: ") and "Why: " in out and "Fix: " in out
    assert "Violating example:" in out and "Compliant example:" in out
    assert "docs/rules.md#pod-security-restricted" in out
    code, _, err = _run(capsys, "--explain-rule", "no-such-rule")
    assert code == 2 and "--list-rules" in err


@pytest.mark.parametrize("stdin", [b"", b"\n---\n# only a comment\n"])
def test_empty_input_is_an_error(stdin: bytes) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pulumi_kuberay.lint", "-"], input=stdin, capture_output=True, check=False
    )
    assert proc.returncode == 2
    assert b"<stdin>: no documents in the input" in proc.stderr


def test_select_ignore_and_their_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_CLUSTER)
    _, out, _ = _run(capsys, "--format", "json", "--select", "security", str(path))
    selected = {f["rule_id"] for f in json.loads(out)["findings"]}
    assert selected and all(rules.RULES[r].category == "security" for r in selected)
    _, out, _ = _run(capsys, "--format", "json", "--ignore", "security,worker-*", str(path))
    left = {f["rule_id"] for f in json.loads(out)["findings"]}
    assert left and not any(
        rules.RULES[r].category == "security" or r.startswith("worker-") for r in left if r in rules.RULES
    )
    code, _, err = _run(capsys, "--select", "pod-security-restrictd", str(path))
    assert code == 2 and "unknown rule or category 'pod-security-restrictd'" in err and "pod-security-restricted" in err


def test_no_paths_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys)
    assert code == 2 and "give at least one PATH" in err


def test_wording_is_for_the_linter_user(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Gate hints as the CLI flag, stack rules about "the files given", no Pulumi-only rule on plain YAML."""
    gated = samples_dir() / "ray-cluster.mtls.yaml"
    _, out, _ = _run(capsys, "--format", "json", "--select", "feature-gate-disabled", str(gated))
    fixes = {f["fix"] for f in json.loads(out)["findings"]}
    assert fixes and all("--feature-gates=RayClusterMTLS=true" in fix for fix in fixes)
    assert not any("feature_gates=" in fix or "kuberay:featureGates" in fix for fix in fixes)
    job = tmp_path / "job.yaml"
    job.write_text(  # a RayJob naming a RayCluster that is not among the files' clusters of its namespace
        "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: j}\nspec:\n  entrypoint: python x.py\n"
        "  clusterSelector: {ray.io/cluster: nowhere}\n---\n"
        + yaml.safe_dump({**_examples.base_cluster(), "metadata": {"name": "somewhere"}})
    )
    _, out, _ = _run(capsys, "--format", "json", "--select", "rayjob-cluster-selector-unmatched", str(job))
    messages = [f["message"] for f in json.loads(out)["findings"]]
    assert len(messages) == 1 and "in the files given" in messages[0] and "stack" not in messages[0]
    delete_self = rules.get_rule("rayjob-delete-self-under-pulumi")
    job.write_text(yaml.safe_dump(delete_self.violating))
    _, out, _ = _run(capsys, "--format", "json", "--fail-on", "low", str(job))
    assert delete_self.id not in {f["rule_id"] for f in json.loads(out)["findings"]}
