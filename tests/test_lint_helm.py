"""kuberay-lint on Helm charts: the upstream ray-cluster chart rendered by a real helm (scripts/ensure-helm builds
one from the Go module proxy), values files, charts found while walking a folder, and the error without helm."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _reference import require_reference
from pulumi_kuberay.cli import _helm
from pulumi_kuberay.cli.lint import main

REPO = Path(__file__).resolve().parent.parent


def _helm_binary() -> str | None:
    if os.environ.get(_helm.HELM_ENV):
        return os.environ[_helm.HELM_ENV]
    if shutil.which("helm"):
        return shutil.which("helm")
    proc = subprocess.run(
        [str(REPO / "scripts" / "ensure-helm"), "--no-build"], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


HELM = _helm_binary()
needs_helm = pytest.mark.skipif(
    HELM is None,
    reason=f"no helm: set {_helm.HELM_ENV}, put helm on PATH or build one with scripts/ensure-helm (needs Go)",
)


@pytest.fixture
def chart() -> Path:
    path = require_reference() / "kuberay" / "v1.7.0" / "helm" / "ray-cluster"
    if not path.is_dir():
        pytest.skip(f"no ray-cluster chart at {path}")
    return path


def _lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    code = main(["--no-config", "--format", "json", "--helm-binary", str(HELM), *args])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


@needs_helm
def test_upstream_ray_cluster_chart_is_rendered_and_linted(chart: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report, err = _lint(capsys, "--fail-on", "critical", str(chart))
    assert code == 0, err
    findings = report["findings"]
    assert isinstance(findings, list) and findings
    assert {f["file"] for f in findings} == {str(chart / "templates" / "raycluster-cluster.yaml")}
    assert {(f["kind"], f["line"]) for f in findings} == {("RayCluster", None)}
    assert "pod-security-restricted" in {f["rule_id"] for f in findings}
    assert report["summary"] == {"documents": 1, "files": 1, "baselined": 0}


@needs_helm
def test_values_files_change_what_is_linted(chart: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    values = tmp_path / "prod.yaml"
    values.write_text("worker:\n  minReplicas: 9\n  maxReplicas: 2\nimage:\n  tag: nightly\n")
    code, report, _ = _lint(capsys, "--helm-values", str(values), str(chart))
    findings = report["findings"]
    assert isinstance(findings, list)
    by_rule = {f["rule_id"]: f for f in findings}
    assert by_rule["worker-min-exceeds-max"]["severity"] == "critical"
    assert "image-tag-not-pinned" in by_rule
    assert code == 1
    # the chart's own CI values render as well
    code, report, err = _lint(
        capsys, "--fail-on", "critical", "--helm-values", str(chart / "ci" / "ci-values.yaml"), str(chart)
    )
    assert code == 0, err


@needs_helm
def test_chart_inside_a_folder_is_rendered_not_parsed(
    chart: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shutil.copytree(chart, tmp_path / "deploy" / "charts" / "ray")
    (tmp_path / "deploy" / "job.yaml").write_text((chart.parents[1] / "samples" / "ray-job.sample.yaml").read_text())
    code, report, err = _lint(capsys, "--fail-on", "critical", str(tmp_path / "deploy"))
    assert code == 0, err  # the templates' {{ }} never reach the YAML parser
    files = {Path(str(f["file"])).relative_to(tmp_path).as_posix() for f in report["findings"]}
    assert files == {"deploy/job.yaml", "deploy/charts/ray/templates/raycluster-cluster.yaml"}


@needs_helm
def test_failing_render_exits_2_with_helms_message(
    chart: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    values = tmp_path / "bad.yaml"
    values.write_text("head: [not, a, mapping]\n")
    code, _, err = _lint(capsys, "--helm-values", str(values), str(chart))
    assert code == 2 and "helm template failed" in err and str(chart) in err


def test_without_helm_the_error_says_how_to_get_one(
    chart: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(_helm.HELM_ENV, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    code = main(["--no-config", str(chart)])
    err = capsys.readouterr().err
    assert code == 2
    assert "rendering a Helm chart needs `helm`" in err and "--helm-binary" in err and "go install" in err
    code = main(["--no-config", "--helm-binary", str(tmp_path / "nope"), str(chart)])
    assert code == 2 and "not an executable file" in capsys.readouterr().err


def test_helm_values_without_a_chart_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    values = tmp_path / "v.yaml"
    values.write_text("{}\n")
    manifest = tmp_path / "m.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    code = main(["--no-config", "--helm-values", str(values), str(manifest)])
    assert code == 2 and "no Helm chart folder" in capsys.readouterr().err


def test_split_rendered_attributes_documents_to_templates(tmp_path: Path) -> None:
    text = (
        "---\n# Source: c/templates/a.yaml\nkind: A\n---\n# Source: c/templates/b.yaml\nkind: B\n"
        "---\n# Source: c/templates/a.yaml\nkind: A2\n"
    )
    parts = _helm.split_rendered(text, tmp_path / "c")
    assert [(Path(p.template).relative_to(tmp_path).as_posix(), p.text.count("kind:")) for p in parts] == [
        ("c/templates/a.yaml", 2),
        ("c/templates/b.yaml", 1),
    ]


def test_ensure_helm_without_a_build_exits_3(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PULUMI_KUBERAY_HELM_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(
        [str(REPO / "scripts" / "ensure-helm"), "--no-build"], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 3 and proc.stdout == "" and "--no-build" in proc.stderr


@pytest.mark.parametrize("script", ["ensure-helm", "ensure-pulumi", "ensure-kube", "ensure-oracle"])
def test_one_no_build_switch_for_every_ensure_script(tmp_path: Path, script: str) -> None:
    """PULUMI_KUBERAY_NO_BUILD=1: nothing cached, so every ensure script exits 3 (a loud SKIPPED) instead of
    building; the caches point into an empty directory."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PULUMI_KUBERAY_NO_BUILD": "1",
        **{f"PULUMI_KUBERAY_{name}": str(tmp_path / name.lower()) for name in ("HELM_CACHE", "ENGINE_CACHE")},
        "PULUMI_KUBERAY_ORACLE_CACHE": str(tmp_path / "oracle"),
        "PULUMI_KUBERAY_KUBE_DIR": str(tmp_path / "kube"),
    }
    proc = subprocess.run([str(REPO / "scripts" / script)], env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 3, proc.stderr[-2000:]


def test_the_old_misspelt_variables_still_work_for_one_release(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PULUMI_KURAY_HELM_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(
        [str(REPO / "scripts" / "ensure-helm"), "--no-build"], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 3
    assert "PULUMI_KURAY_HELM_CACHE is deprecated" in proc.stderr and "use PULUMI_KUBERAY_HELM_CACHE" in proc.stderr
    assert str(tmp_path / "cache") in proc.stderr  # the old spelling's value is the one used
