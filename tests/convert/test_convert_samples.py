# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""Every Ray document of the upstream samples: convert, run the generated program under Pulumi mocks, and the
manifest registered for each object equals the original (deliberate differences: ``_convert_roundtrip``)."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
import yaml
from _convert_roundtrip import expected_manifest, registered, run_module
from _pulumi_mocks import after_settling
from _reference import samples_dir
from pulumi_kuberay.convert import convert_documents, is_ray

#: 89 Ray documents in 94 files (some files hold only ConfigMaps/Secrets for other samples).
MIN_RAY_DOCUMENTS = 89


def _sample_files() -> list[str]:
    try:
        return sorted(p.name for p in samples_dir().glob("*.yaml"))
    except BaseException:
        return []


def _documents(file_name: str) -> list[tuple[Any, str]]:
    path = samples_dir() / file_name
    return [(doc, f"{file_name}#{i}") for i, doc in enumerate(yaml.safe_load_all(path.read_text())) if doc]


#: Paths (relative to ``spec``, ``*`` for any index or key) where the typed model, given a manifest's spec from
#: Python, deliberately renders something else than the manifest (a secure default, say). Empty: today the
#: typed model reproduces every sample exactly. Each entry needs its reason (and the README list).
MODEL_DEFAULTS: dict[str, str] = {}


def test_the_typed_model_reproduces_every_sample_spec_from_python() -> None:
    import fnmatch

    from pulumi_kuberay.convert._shortcuts import expected_rendering, model_differences, strip_nulls
    from pulumi_kuberay.model.manifest import load_manifest

    unexpected: list[str] = []
    for name in _sample_files():
        for doc, where in _documents(name):
            if is_ray(doc):
                spec = strip_nulls(load_manifest(doc).to_manifest()["spec"])
                paths = model_differences(spec, expected_rendering(type(load_manifest(doc).spec), spec))
                unexpected += [
                    f"{where}: {p}" for p in paths if not any(fnmatch.fnmatch(p, f"spec.{m}") for m in MODEL_DEFAULTS)
                ]
    assert unexpected == [], "the typed model adds defaults; list them in MODEL_DEFAULTS with the reason"


def test_the_samples_hold_every_ray_document() -> None:
    count = sum(1 for name in _sample_files() for doc, _ in _documents(name) if is_ray(doc))
    if not _sample_files():
        samples_dir()  # skips naming KUBERAY_REFERENCE_DIR
    assert count >= MIN_RAY_DOCUMENTS


@pytest.mark.parametrize("file_name", _sample_files())
@pulumi.runtime.test
def test_sample_round_trips_through_the_generated_python(file_name: str) -> pulumi.Output[Any]:
    documents = _documents(file_name)
    ray_docs = [doc for doc, _ in documents if is_ray(doc)]
    result = convert_documents(documents, to="python", sources=[file_name])
    assert result.errors == []
    assert len(result.skipped) == len(documents) - len(ray_docs)
    if not ray_docs:
        assert result.text == "" and result.objects == []
        return pulumi.Output.from_input(None)
    env, urns = run_module(result.text)

    def check(*_: Any) -> None:
        got = registered(env)
        expected = [expected_manifest(doc) for doc in ray_docs]
        assert len(got) == len(expected)
        for manifest in expected:
            key = (manifest["kind"], manifest["metadata"]["name"])
            assert got[key] == manifest, key

    return after_settling(check, *urns)


@pulumi.runtime.test
def test_a_sample_rayjob_selecting_a_converted_cluster_runs_on_that_component() -> pulumi.Output[Any]:
    """ray-job.use-existing-raycluster.yaml selects ``ray-cluster-kuberay``: the chart's RayCluster for a release
    named ``ray-cluster``. Converted together, the job gets ``cluster=`` and registers the same selector."""
    from pulumi_kuberay.convert.helm import render_values

    cluster = render_values({}, release_name="ray-cluster", namespace="default")
    assert cluster["metadata"]["name"] == "ray-cluster-kuberay"
    cluster["metadata"].pop("namespace")  # as a user's manifest without namespace, like the sample job
    (job,) = [doc for doc, _ in _documents("ray-job.use-existing-raycluster.yaml")]
    result = convert_documents([(job, "job.yaml:1"), (cluster, "cluster.yaml:1")])
    assert result.errors == []
    assert "cluster=ray_cluster_kuberay," in result.text
    env, urns = run_module(result.text)

    def check(*_: Any) -> None:
        got = registered(env)
        assert got[("RayJob", "rayjob-use-existing-raycluster")] == expected_manifest(job)
        assert got[("RayCluster", "ray-cluster-kuberay")] == expected_manifest(cluster)
        assert got[("RayJob", "rayjob-use-existing-raycluster")]["spec"]["clusterSelector"] == {
            "ray.io/cluster": "ray-cluster-kuberay"
        }

    return after_settling(check, *urns)
