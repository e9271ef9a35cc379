"""Every upstream RayJob, RayService and RayCronJob sample round-trips: ``load_manifest(doc).to_manifest() ==
doc``.

Counts in KubeRay v1.7.0 (``samples/``): 25 RayJob, 16 RayService, 2 RayCronJob documents. ``serveConfigV2``
and
``runtimeEnvYAML`` strings come back byte-for-byte (they are kept as given, only parsed to be checked).
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest
from _reference import reference_dir, sample_documents
from pulumi_kuberay.model.cronjob import RayCronJobManifest
from pulumi_kuberay.model.job import RayJobManifest
from pulumi_kuberay.model.manifest import KubeManifest, load_manifest
from pulumi_kuberay.model.service import RayServiceManifest

WORKLOAD_KINDS: dict[str, type[KubeManifest[Any]]] = {
    "RayJob": RayJobManifest,
    "RayService": RayServiceManifest,
    "RayCronJob": RayCronJobManifest,
}
EXPECTED_COUNTS = {"RayJob": 25, "RayService": 16, "RayCronJob": 2}


def _params() -> list[Any]:
    if reference_dir() is None:
        return [pytest.param(None, None, id="no-reference")]
    return [
        pytest.param(kind, doc, id=f"{name}#{index}")
        for kind in WORKLOAD_KINDS
        for name, index, doc in sample_documents(kind)
    ]


@pytest.mark.parametrize(("kind", "doc"), _params())
def test_sample_round_trips(kind: str | None, doc: dict[str, Any] | None) -> None:
    if kind is None or doc is None:
        sample_documents()  # skips, naming KUBERAY_REFERENCE_DIR
        return
    original = copy.deepcopy(doc)
    manifest = load_manifest(doc)
    assert isinstance(manifest, WORKLOAD_KINDS[kind])
    assert manifest.to_manifest() == original
    assert doc == original, "load_manifest must not mutate its input"


def test_sample_counts(record_property: Any) -> None:
    counts = Counter(kind for kind in WORKLOAD_KINDS for _ in sample_documents(kind))
    for kind, count in counts.items():
        record_property(f"samples_{kind}", count)
    print(f"workload samples round-tripped: {dict(counts)}")
    assert dict(counts) == EXPECTED_COUNTS
