"""Every upstream RayCluster sample round-trips: ``load_manifest(doc).to_manifest() == doc``.

KubeRay v1.7.0 ships 46 RayCluster documents in ``samples/``. A sample that does not round-trip is a bug in
the model (a missing field, a wrong type, an invented default), never a skip.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from _reference import reference_dir, require_reference, sample_documents
from pulumi_kuberay.model.manifest import RayClusterManifest, load_manifest

EXPECTED_RAYCLUSTER_SAMPLES = 46


def _params() -> list[Any]:
    if reference_dir() is None:
        return [pytest.param(None, id="no-reference")]
    return [pytest.param(doc, id=f"{name}#{index}") for name, index, doc in sample_documents("RayCluster")]


def _round_trips(doc: dict[str, Any]) -> bool:
    original = copy.deepcopy(doc)
    manifest = load_manifest(doc)
    return isinstance(manifest, RayClusterManifest) and manifest.to_manifest() == original and doc == original


@pytest.mark.parametrize("doc", _params())
def test_raycluster_sample_round_trips(doc: dict[str, Any] | None) -> None:
    if doc is None:
        require_reference()  # skips, naming KUBERAY_REFERENCE_DIR
        return
    original = copy.deepcopy(doc)
    manifest = load_manifest(doc)
    assert isinstance(manifest, RayClusterManifest)
    assert manifest.to_manifest() == original
    assert doc == original, "load_manifest must not mutate its input"
    # Rendering is stable: what we emit loads back to the same document.
    assert load_manifest(manifest.to_manifest()).to_manifest() == original


def test_raycluster_sample_count(record_property: Any, capsys: pytest.CaptureFixture[str]) -> None:
    require_reference()
    docs = [doc for _, _, doc in sample_documents("RayCluster")]
    passed = sum(1 for doc in docs if _round_trips(doc))
    record_property("raycluster_samples_round_tripped", passed)
    with capsys.disabled():
        print(f"\n[conformance] RayCluster samples round-tripped: {passed}/{len(docs)}")
    assert passed == len(docs) == EXPECTED_RAYCLUSTER_SAMPLES
