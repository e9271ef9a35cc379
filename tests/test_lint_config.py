"""kuberay-lint's config file: discovered from the working directory (.kuberay-lint.yaml, or [tool.kuberay-lint] in
pyproject.toml), every key honoured, every mistake a one-line error naming the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _reference import samples_dir
from pulumi_kuberay.cli._lint_config import is_excluded, load_config
from pulumi_kuberay.cli.lint import main

SAMPLE = "ray-cluster.sample.yaml"
GCS_SAMPLE = "ray-cluster.embedded-gcs-ft.yaml"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()  # discovery stops at the repository root
    (tmp_path / "manifests").mkdir()
    for name in (SAMPLE, GCS_SAMPLE):
        (tmp_path / "manifests" / name).write_text((samples_dir() / name).read_text())
    monkeypatch.chdir(tmp_path / "manifests")
    return tmp_path


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, object]], str]:
    code = main(["--format", "json", *args])
    out, err = capsys.readouterr()
    return code, (json.loads(out)["findings"] if out.strip() else []), err


def test_yaml_config_is_discovered_from_a_subdirectory(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, findings, _ = _json(capsys, ".")
    assert code == 1 and "feature-gate-disabled" in {f["rule_id"] for f in findings}
    (project / ".kuberay-lint.yaml").write_text(
        "feature-gates: {GCSFaultToleranceEmbeddedStorage: true}\n"
        "select: [security, image-tag-not-pinned]\n"
        "ignore: [pod-security-baseline]\n"
        "severity: {pod-security-restricted: critical}\n"
        "fail-on: critical\n"
    )
    code, findings, _ = _json(capsys, ".")
    rule_ids = {str(f["rule_id"]) for f in findings}
    assert "feature-gate-disabled" not in rule_ids and "pod-security-baseline" not in rule_ids
    assert "pod-security-restricted" in rule_ids
    assert {f["severity"] for f in findings if f["rule_id"] == "pod-security-restricted"} == {"critical"}
    assert code == 1  # fail-on critical, and pod-security-restricted is critical now
    # flags override the file
    code, findings, _ = _json(capsys, ".", "--select", "pod-security-restricted", "--fail-on", "low")
    assert {f["rule_id"] for f in findings} == {"pod-security-restricted"} and code == 1
    code, findings, _ = _json(capsys, "--no-config", "--select", "feature-gate-disabled", ".")
    assert findings and code == 1


def test_pyproject_table_and_excludes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.kuberay-lint]\n'
        f'exclude = ["manifests/{GCS_SAMPLE}"]\nenvironment = "prod"\nkuberay_version = "1.7.0"\n'
    )
    code, findings, _ = _json(capsys, ".")
    assert {f["file"] for f in findings} == {f"./{SAMPLE}"} or {Path(str(f["file"])).name for f in findings} == {SAMPLE}
    assert load_config().environment == "prod"
    # prod makes the Pod Security advice louder (low -> medium): advice, not a failure, unless enforced
    assert {f["severity"] for f in findings if f["rule_id"] == "pod-security-restricted"} == {"medium"}
    assert code == 0
    # a .kuberay-lint.yaml in the same folder wins over pyproject.toml
    (project / ".kuberay-lint.yaml").write_text("environment: dev\n")
    assert load_config().environment == "dev"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fail-on: severe\n", "fail-on: expected one of low, medium, high, critical"),
        ("selct: [security]\n", "unknown setting(s) selct"),
        ("ignore: [pod-security-restrictd]\n", "did you mean 'pod-security-restricted'?"),
        ("feature-gates: [RayCronJob]\n", "feature-gates: expected {GateName: true|false}"),
        ("feature-gates: {NoSuchGate: true}\n", "unknown KubeRay feature gate 'NoSuchGate'"),
        ("gpu-budget: -1\n", "gpu-budget must be a non-negative integer (GPUs), got -1"),
        ("severity: {pod-security-restricted: urgent}\n", "severity.pod-security-restricted: expected one of"),
        ("pod-security-profile: strict\n", "pod-security-profile must be one of privileged, baseline, restricted"),
        ("kueue-version: 0.10\n", "kueue-version must be a Kueue release written as text"),
        ("kueue-version: latest\n", "kueue-version must be a Kueue release such as 0.15 or v0.15.2"),
        ("- a list\n", "expected a mapping of settings"),
        ("a: [1\n", "not valid YAML"),
    ],
)
def test_config_errors_exit_2_naming_file_and_key(
    project: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    (project / ".kuberay-lint.yaml").write_text(text)
    code = main(["."])
    err = capsys.readouterr().err
    assert code == 2 and expected in err
    if "NoSuchGate" not in text:
        assert str(project / ".kuberay-lint.yaml") in err
    assert len(err.strip().splitlines()) == 1


def test_explicit_config_and_baseline_path_relative_to_it(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = project / "ci" / "lint.yaml"
    config.parent.mkdir()
    config.write_text("baseline: baseline.json\n")
    assert main(["--config", str(config), "--write-baseline", "."]) == 0
    assert (project / "ci" / "baseline.json").is_file()
    capsys.readouterr()
    code = main(["--config", str(config), "--fail-on", "low", "."])
    assert code == 0, capsys.readouterr().out
    assert main(["--config", str(project / "missing.yaml"), "."]) == 2


def test_is_excluded_matches_files_and_folders(tmp_path: Path) -> None:
    assert is_excluded(tmp_path / "vendor" / "a" / "x.yaml", ["vendor"], tmp_path)
    assert is_excluded(tmp_path / "charts" / "c" / "tests" / "t.yaml", ["charts/*/tests"], tmp_path)
    assert is_excluded(tmp_path / "a" / "b.yml", ["*.yml"], tmp_path)
    assert not is_excluded(tmp_path / "a" / "b.yaml", ["*.yml", "vendor"], tmp_path)
