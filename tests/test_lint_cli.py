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


def test_text_output_groups_per_object_with_whole_messages(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # not a terminal, no COLUMNS: not wrapped
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_CLUSTER)
    code, out, _ = _run(capsys, "--color", "never", str(path))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == str(path)
    assert lines[1] == "  RayCluster bad (line 5)"  # the ConfigMap is ignored
    first = next(line for line in lines if " critical " in line)
    assert first == (
        "     18  critical worker-min-exceeds-max  spec.workerGroupSpecs[0].minReplicas: worker group 'cpu': minReplicas (4) > maxReplicas (2)"
    )
    assert "fix:" not in out and "\033[" not in out and "…" not in out
    assert "in 1 Ray document from 1 file" in lines[-1]


def test_compact_is_one_line_per_finding_with_long_messages_cut(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")  # --compact never wraps
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_CLUSTER)
    _, out, _ = _run(capsys, "--color", "never", "--compact", str(path))
    findings = [line for line in out.splitlines() if line[2:7].strip().isdigit()]
    assert len(findings) == len([line for line in out.splitlines() if line.startswith("     ")])  # no continuation
    critical = next(line for line in findings if " critical " in line)
    assert critical.endswith(": worker group 'cpu': minReplicas (4) > maxReplicas (2)")  # short enough: whole
    restricted = next(line for line in findings if "pod-security-restricted" in line and "cpu" in line)
    assert restricted == (
        "     21  low      pod-security-restricted  spec.workerGroupSpecs[0].template.spec: worker group 'cpu' pod template does not meet the Pod Security Standard 'restricted' …"
    )


def test_messages_wrap_to_columns_without_losing_a_word(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bad.yaml").write_text(BAD_CLUSTER)
    monkeypatch.chdir(tmp_path)  # a short relative path: the file's header line (a path is never wrapped) fits
    monkeypatch.delenv("COLUMNS", raising=False)
    _, whole, _ = _run(capsys, "--color", "never", "--show-fixes", "bad.yaml")
    monkeypatch.setenv("COLUMNS", "72")
    _, wrapped, _ = _run(capsys, "--color", "never", "--show-fixes", "bad.yaml")
    rows = wrapped.splitlines()
    assert max(len(row) for row in rows[:-1]) <= 72  # the summary line is not wrapped
    assert all(row.startswith(" " * 9) for row in rows[2:-2] if row and not row[2:7].strip().isdigit())
    start = next(i for i, row in enumerate(rows) if "worker-min-exceeds-max" in row)
    assert rows[start : start + 5] == [
        "     18  critical worker-min-exceeds-max",
        "         spec.workerGroupSpecs[0].minReplicas: worker group 'cpu':",
        "         minReplicas (4) > maxReplicas (2)",
        "         fix: Lower minReplicas to at most 2 or raise maxReplicas to at",
        "         least 4.",
    ]
    # The same words as unwrapped, finding by finding (a wrap only ever replaces a space by a new line and indent).
    assert " ".join(wrapped.split()) == " ".join(whole.split())


BAD_SERVICE = """\
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: svc
spec:
  serveConfigV2: |
    applications:
      - name: a
        import_path: a.app
        route_prefix: /v1
      - name: b
        import_path: b.app
        route_prefix: /v1
        deployments:
          - name: D
            autoscaling_config:
              min_replicas: 5
              max_replicas: 2
  rayClusterConfig:
    gcsFaultToleranceOptions:
      redisAddress: redis:6379
    headGroupSpec:
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.52.0
"""


@pytest.mark.parametrize("style", ["|", ">", "|-", "|2"])
def test_serve_findings_point_at_the_line_inside_the_block(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, style: str
) -> None:
    path = tmp_path / "svc.yaml"
    path.write_text(BAD_SERVICE.replace("serveConfigV2: |", f"serveConfigV2: {style}"))
    _, out, _ = _run(capsys, "--format", "json", "--select", "serve-*", str(path))
    lines = {f["path"]: f["line"] for f in json.loads(out)["findings"]}
    assert lines == {
        "spec.serveConfigV2.applications[1].route_prefix": 13,
        "spec.serveConfigV2.applications[1].deployments[0].autoscaling_config.max_replicas": 18,
    }
    text = path.read_text().splitlines()
    assert text[12] == "        route_prefix: /v1" and text[17] == "              max_replicas: 2"


def test_a_folded_block_whose_folding_joins_lines_points_at_the_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Folded, the two top-level keys become one line ("applications: ... proxy_location: ..." is not this YAML):
    # the block's own lines are not the value the rules read, so its findings stay at the key.
    folded = BAD_SERVICE.replace("serveConfigV2: |", "serveConfigV2: >").replace(
        "    applications:\n", "    proxy_location: HeadOnly\n    applications:\n"
    )
    path = tmp_path / "svc.yaml"
    path.write_text(folded)
    _, out, _ = _run(capsys, "--format", "json", "--select", "serve-*", str(path))
    assert {f["line"] for f in json.loads(out)["findings"]} == {6}


def test_text_json_and_sarif_give_one_path_form(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "svc.yaml"
    # In prod a RayService without gcsFaultToleranceOptions is a finding on spec.rayClusterConfig.<that field>.
    service = BAD_SERVICE.replace("    gcsFaultToleranceOptions:\n      redisAddress: redis:6379\n", "")
    path.write_text(service + "---\n" + BAD_CLUSTER.split("---\n", 1)[1])
    flags = ("--select", "ALL", "--environment", "prod")
    _, out, _ = _run(capsys, "--format", "json", *flags, str(path))
    from_json = sorted((f["line"], f["rule_id"], f["path"]) for f in json.loads(out)["findings"])
    _, out, _ = _run(capsys, "--format", "sarif", *flags, str(path))
    results = json.loads(out)["runs"][0]["results"]
    from_sarif = sorted(
        (r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"], r["properties"]["path"])
        for r in results
    )
    _, out, _ = _run(capsys, "--color", "never", "--compact", *flags, str(path))
    from_text = sorted(
        (int(row.split()[0]), row.split()[2], row.split()[3].split(" [")[0].rstrip(":"))
        for row in out.splitlines()
        if row[2:7].strip().isdigit()
    )
    assert from_text == from_json == from_sarif
    paths = {p for _, _, p in from_text}
    assert "spec.workerGroupSpecs[0].minReplicas" in paths  # by position, as in the JSON
    assert "spec.rayClusterConfig.gcsFaultToleranceOptions" in paths  # with its CRD prefix, as in the JSON


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


def test_upstream_samples_compact_text_is_grouped_and_short(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--color", "never", "--compact", str(samples_dir()))
    assert code == 1
    lines = out.splitlines()
    finding_lines = [line for line in lines if line.startswith("  ") and line[2:7].strip().isdigit()]
    objects = [line for line in lines if line.startswith("  ") and not line.startswith("   ")]
    assert len(objects) >= 80 and len(finding_lines) < 450  # 667 one-per-container findings before collapsing
    median = sorted(len(line) for line in finding_lines)[len(finding_lines) // 2]
    print(f"samples: {len(finding_lines)} finding lines, {len(objects)} objects, median line {median} chars")
    assert median < 200
    assert not any("fix:" in line for line in lines)
    assert len(finding_lines) == len([line for line in lines if line.startswith("   ")])  # one line each


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
    assert code == 2 and err.count("\n") == 1 and err.startswith("usage: kuberay-lint [options] PATH...")


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


def test_block_lines_with_crlf_and_inside_a_list_item() -> None:
    from pulumi_kuberay.cli._io import parse_documents

    listed = "apiVersion: v1\nkind: List\nitems:\n- " + BAD_SERVICE.replace("\n", "\n  ").rstrip() + "\n"
    (doc,) = parse_documents(listed.replace("\n", "\r\n"), "list.yaml", with_path_lines=True)
    # The item starts on line 4; its serveConfigV2 block has the same shape as BAD_SERVICE's, 3 lines further down.
    assert doc.line == 4
    assert doc.path_lines["spec.serveConfigV2"] == 9
    assert doc.path_lines["spec.serveConfigV2.applications[1].route_prefix"] == 16
    assert listed.splitlines()[15].strip() == "route_prefix: /v1"
    # A block that is not YAML (a script) or a quoted string adds nothing below its key.
    (script,) = parse_documents('kind: X\nrun: |\n  set -e\n  echo "done"\nq: "a: 1"\n', with_path_lines=True)
    assert sorted(script.path_lines) == ["", "kind", "q", "run"]
