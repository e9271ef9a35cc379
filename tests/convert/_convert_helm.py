"""Locating a real ``helm`` (v3) for the chart comparisons, and rendering the ray-cluster chart with it.

Order: ``$PULUMI_KUBERAY_HELM``, ``$KUBERAY_LINT_HELM`` (what ``scripts/ensure-helm --print-env`` exports),
``scripts/ensure-helm --print-path --no-build`` (cache or PATH, never builds here). Absent: the tests that need
it skip, saying how to get one (``scripts/ensure-helm`` builds it from the Go module proxy).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from _reference import REPO_ROOT, require_reference

HOW_TO_GET_HELM = (
    "no helm binary: run scripts/ensure-helm (builds Helm v3 from the Go module proxy into "
    "~/.cache/pulumi-kuberay/helm) or set PULUMI_KUBERAY_HELM=/path/to/helm"
)


@cache
def helm_binary() -> str | None:
    for variable in ("PULUMI_KUBERAY_HELM", "KUBERAY_LINT_HELM"):
        path = os.environ.get(variable)
        if path and Path(path).is_file():
            return path
    script = REPO_ROOT / "scripts" / "ensure-helm"
    if script.is_file():
        done = subprocess.run(
            [str(script), "--print-path", "--no-build"], capture_output=True, text=True, check=False, timeout=120
        )
        path = done.stdout.strip().splitlines()[-1] if done.returncode == 0 and done.stdout.strip() else ""
        if path and Path(path).is_file():
            return path
    return None


def require_helm() -> str:
    path = helm_binary()
    if path is None:
        print(f"SKIPPED: {HOW_TO_GET_HELM}")
        pytest.skip(HOW_TO_GET_HELM)
    return path


def chart_dir() -> Path:
    return require_reference() / "kuberay" / "v1.7.0" / "helm" / "ray-cluster"


def helm_template(values: dict[str, Any], *, release_name: str, namespace: str) -> dict[str, Any]:
    """The RayCluster ``helm template`` renders for ``values`` (the real chart, the real Helm)."""
    helm = require_helm()
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        yaml.safe_dump(values, handle)
    try:
        done = subprocess.run(
            [helm, "template", release_name, str(chart_dir()), "--namespace", namespace, "-f", handle.name],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
    finally:
        os.unlink(handle.name)
    assert done.returncode == 0, done.stderr
    docs = [d for d in yaml.safe_load_all(done.stdout) if d]
    assert len(docs) == 1 and docs[0]["kind"] == "RayCluster", docs
    return docs[0]  # type: ignore[no-any-return]
