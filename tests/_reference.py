"""Locating the upstream reference material (CRDs, samples) that some tests read.

The material lives outside the repository (never copied in). ``KUBERAY_REFERENCE_DIR`` points at it, by default
``<repo>/../shared``. Where it is absent (a user's clone) the tests that need it skip, naming the variable;
``.ci/run`` fails instead, so in CI they always run.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

ENV_VAR = "KUBERAY_REFERENCE_DIR"
REPO_ROOT = Path(__file__).resolve().parent.parent
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: the CRDs are megabytes of YAML
CRD_FILES = {
    "RayCluster": "ray.io_rayclusters.yaml",
    "RayJob": "ray.io_rayjobs.yaml",
    "RayService": "ray.io_rayservices.yaml",
    "RayCronJob": "ray.io_raycronjobs.yaml",
}


def reference_dir() -> Path | None:
    path = Path(os.environ.get(ENV_VAR, str(REPO_ROOT.parent / "shared")))
    return path if (path / "kuberay" / "v1.7.0").is_dir() else None


def require_reference() -> Path:
    path = reference_dir()
    if path is None:
        pytest.skip(
            f"KubeRay reference material not found: set {ENV_VAR} to the folder holding kuberay/v1.7.0"
        )
    return path


def samples_dir() -> Path:
    return require_reference() / "kuberay" / "v1.7.0" / "samples"


@cache
def _crd(kind: str) -> dict[str, Any]:
    text = (require_reference() / "kuberay" / "v1.7.0" / "crds" / CRD_FILES[kind]).read_text()
    return yaml.load(text, Loader=_LOADER)  # type: ignore[no-any-return]


def crd_schema(kind: str, version: str = "v1") -> dict[str, Any]:
    """The openAPIV3Schema of ``kind`` at ``version`` from the upstream CRD file."""
    for v in _crd(kind)["spec"]["versions"]:
        if v["name"] == version:
            return v["schema"]["openAPIV3Schema"]  # type: ignore[no-any-return]
    raise KeyError(f"{kind} has no version {version}")


@cache
def _all_sample_docs() -> tuple[tuple[str, int, dict[str, Any]], ...]:
    out: list[tuple[str, int, dict[str, Any]]] = []
    for path in sorted(samples_dir().glob("*.yaml")):
        for index, doc in enumerate(yaml.load_all(path.read_text(), Loader=_LOADER)):
            if isinstance(doc, dict):
                out.append((path.name, index, doc))
    return tuple(out)


def sample_documents(kind: str | None = None) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(file name, document index, document) for every sample document, optionally of one Ray kind."""
    for name, index, doc in _all_sample_docs():
        if kind is None or (doc.get("kind") == kind and str(doc.get("apiVersion", "")).startswith("ray.io/")):
            yield name, index, doc


def upstream_sample(file_name: str, kind: str) -> dict[str, Any]:
    """A fresh copy of the first ``kind`` document of the upstream sample ``file_name`` (skips without the
    reference material)."""
    for name, _index, doc in sample_documents(kind):
        if name == file_name:
            return copy.deepcopy(doc)
    raise LookupError(f"no {kind} in {file_name}")
