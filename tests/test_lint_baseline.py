"""Baselines: written once on the 94 upstream samples, the next run exits 0; a new violation then exits 1.
Fingerprints follow the object and the field, not line numbers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from _reference import samples_dir
from pulumi_kuberay.cli.lint import main


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--no-config", "--color", "never", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    copy = tmp_path / "samples"
    shutil.copytree(samples_dir(), copy)
    return copy


def test_baseline_then_clean_then_new_violation_fails(
    capsys: pytest.CaptureFixture[str], samples: Path, tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    code, out, _ = _run(capsys, "--fail-on", "low", str(samples))
    assert code == 1 and "findings" in out.splitlines()[-1]
    code, _, err = _run(capsys, "--baseline", str(baseline), "--write-baseline", str(samples))
    assert code == 0 and "baseline entries" in err
    entries = json.loads(baseline.read_text())["findings"]
    assert entries and all(set(e) == {"fingerprint", "rule", "object", "path", "count"} for e in entries)
    assert not any("line" in e for e in entries)

    code, out, _ = _run(capsys, "--fail-on", "low", "--baseline", str(baseline), str(samples))
    assert code == 0, out
    assert out.splitlines()[-1].startswith("0 findings in 89 Ray documents from 94 files; ")
    assert "in the baseline not shown" in out.splitlines()[-1]

    # a new violation in one sample: reported alone, exit 1
    path = samples / "ray-cluster.sample.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["spec"]["workerGroupSpecs"][0]["minReplicas"] = 99
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    code, out, _ = _run(capsys, "--format", "json", "--baseline", str(baseline), str(samples))
    findings = json.loads(out)["findings"]
    assert code == 1
    assert [(f["rule_id"], f["path"]) for f in findings] == [
        ("worker-min-exceeds-max", "spec.workerGroupSpecs[0].minReplicas")
    ]
    assert all(f["file"] == str(path) for f in findings)


def test_fingerprints_survive_moved_lines_and_reordered_groups(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = samples_dir() / "ray-cluster.complete.yaml"
    doc = yaml.safe_load(source.read_text())
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    baseline = tmp_path / "b.json"
    assert _run(capsys, "--baseline", str(baseline), "--write-baseline", str(path))[0] == 0
    # every line moves (other key order, a comment on top); the worker groups swap places
    doc["spec"]["workerGroupSpecs"] = list(reversed(doc["spec"]["workerGroupSpecs"] * 1))
    path.write_text("# moved\n\n" + yaml.safe_dump(doc, sort_keys=True))
    code, out, _ = _run(capsys, "--fail-on", "low", "--baseline", str(baseline), str(path))
    assert code == 0, out
    # another object name is another object: its findings are new
    doc["metadata"]["name"] = "renamed"
    path.write_text(yaml.safe_dump(doc))
    code, out, _ = _run(capsys, "--fail-on", "low", "--baseline", str(baseline), str(path))
    assert code == 1 and "RayCluster renamed" in out


def test_baseline_counts_duplicates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = (samples_dir() / "ray-cluster.sample.yaml").read_text()
    (tmp_path / "a.yaml").write_text(doc)
    baseline = tmp_path / "b.json"
    assert _run(capsys, "--baseline", str(baseline), "--write-baseline", str(tmp_path / "a.yaml"))[0] == 0
    (tmp_path / "b.yaml").write_text(doc)  # the same object a second time: its findings are new
    code, out, _ = _run(capsys, "--fail-on", "low", "--baseline", str(baseline), str(tmp_path))
    assert code == 1 and str(tmp_path / "b.yaml") in out and str(tmp_path / "a.yaml") not in out


@pytest.mark.parametrize(
    ("content", "expected"),
    [(None, "baseline file not found"), ("{}", "not a kuberay-lint baseline"), ("[", "cannot read the baseline")],
)
def test_bad_baseline_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | None, expected: str
) -> None:
    baseline = tmp_path / "b.json"
    if content is not None:
        baseline.write_text(content)
    code, _, err = _run(capsys, "--baseline", str(baseline), str(samples_dir() / "ray-cluster.sample.yaml"))
    assert code == 2 and expected in err and str(baseline) in err
