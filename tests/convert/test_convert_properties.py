"""Hypothesis: valid manifests (built from the property tier's strategies) round-trip through the converter.

The generated module is executed with the components replaced by recorders (no Pulumi needed): the typed
spec each declaration builds must render exactly the original manifest's spec.
"""

from __future__ import annotations

from typing import Any

import pulumi_kuberay
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property.strategies import valid_cluster, valid_cronjob, valid_job, valid_service
from pulumi_kuberay.convert import _python, convert_documents
from pulumi_kuberay.convert._shortcuts import semantic, strip_nulls
from pulumi_kuberay.model._base import KubeModel
from pulumi_kuberay.model.cluster import RayClusterSpec
from pulumi_kuberay.model.cronjob import RayCronJobSpec
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.model.service import RayServiceSpec

MODELS: dict[str, type[KubeModel]] = {"RayCluster": RayClusterSpec, "RayJob": RayJobSpec, "RayService": RayServiceSpec,
          "RayCronJob": RayCronJobSpec}  # fmt: skip


class _Recorder:
    """``kr`` for the generated module: the components record their arguments, everything else is real."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any, dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        if name in MODELS:
            return lambda resource_name, spec, **kwargs: self.calls.append((name, resource_name, spec, kwargs))
        return getattr(pulumi_kuberay, name)


def _manifest(kind: str, kwargs: dict[str, Any], name: str) -> dict[str, Any]:
    spec = MODELS[kind].model_validate(kwargs).to_dict()
    return {"apiVersion": "ray.io/v1", "kind": kind, "metadata": {"name": name, "namespace": "ml"}, "spec": spec}


def _round_trip(manifest: dict[str, Any]) -> None:
    result = convert_documents([(manifest, "generated.yaml:1")])
    assert result.errors == [], result.errors
    recorder = _Recorder()
    code = result.text.replace("import pulumi_kuberay as kr\n", "")
    exec(compile(code, "<converted>", "exec"), {"kr": recorder, "__name__": "converted"})
    ((kind, resource_name, spec, kwargs),) = recorder.calls
    assert (kind, resource_name) == (manifest["kind"], manifest["metadata"]["name"])
    assert kwargs.get("namespace") == "ml"
    rendered = spec.model_dump(by_alias=True, exclude_unset=True)
    assert semantic(rendered) == semantic(strip_nulls(manifest["spec"]))


#: ruff runs once per example otherwise (the formatting is tested on the samples); data generation is slow.
BUDGET = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _round_trip_unformatted(manifest: dict[str, Any]) -> None:
    original = _python.ruff_format
    _python.ruff_format = lambda text: text
    try:
        _round_trip(manifest)
    finally:
        _python.ruff_format = original


names = st.from_regex(r"[a-z]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True)


@BUDGET
@given(valid_cluster(), names)
def test_generated_clusters_round_trip(kwargs: dict[str, Any], name: str) -> None:
    _round_trip_unformatted(_manifest("RayCluster", kwargs, name))


@BUDGET
@given(valid_job(), names)
def test_generated_jobs_round_trip(kwargs: dict[str, Any], name: str) -> None:
    _round_trip_unformatted(_manifest("RayJob", kwargs, name))


@BUDGET
@given(valid_service(), names)
def test_generated_services_round_trip(kwargs: dict[str, Any], name: str) -> None:
    _round_trip_unformatted(_manifest("RayService", kwargs, name))


@BUDGET
@given(valid_cronjob(), names)
def test_generated_cronjobs_round_trip(kwargs: dict[str, Any], name: str) -> None:
    _round_trip_unformatted(_manifest("RayCronJob", kwargs, name))
