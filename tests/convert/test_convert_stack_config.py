# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""``--to stack-config``: the samples' Ray objects as ``pulumi-kuberay:*`` stack config, run through the stack
program (``settings.py`` + ``__main__.py``) under mocks, register the same manifests as the originals."""

from __future__ import annotations

import json
import runpy
from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
import yaml
from _convert_roundtrip import expected_manifest, registered
from _pulumi_mocks import after_settling, install
from _reference import REPO_ROOT, samples_dir
from pulumi_kuberay.convert import convert_documents, is_ray
from test_convert_samples import _documents, _sample_files


@pytest.fixture(autouse=True)
def _clean_config() -> Iterator[None]:
    yield
    pulumi.runtime.set_all_config({})


def program_config(stack_text: str) -> dict[str, str]:
    """Pulumi.yaml defaults overlaid with the converted config, as the CLI hands them to the program."""
    project = yaml.safe_load((REPO_ROOT / "Pulumi.yaml").read_text())
    config: dict[str, str] = {}
    for key, declaration in project["config"].items():
        full = key if ":" in key else f"pulumi-kuberay:{key}"
        default = declaration.get("default") if isinstance(declaration, dict) else declaration
        config[full] = default if isinstance(default, str) else json.dumps(default)
    for key, value in (yaml.safe_load(stack_text)["config"] or {}).items():
        config[key] = value if isinstance(value, str) else json.dumps(value)
    config["pulumi-kuberay:render_dir"] = "rendered/convert-test"
    return config


def _ray_sample_files() -> list[str]:
    return [name for name in _sample_files() if any(is_ray(doc) for doc, _ in _documents(name))]


@pytest.mark.parametrize("file_name", _ray_sample_files())
@pulumi.runtime.test
def test_sample_round_trips_through_stack_config_and_the_stack_program(file_name: str) -> pulumi.Output[Any]:
    samples_dir()
    documents = _documents(file_name)
    result = convert_documents(documents, to="stack-config", sources=[file_name])
    assert result.errors == []
    env = install(program_config(result.text), stack="convert")
    namespace = runpy.run_path(str(REPO_ROOT / "__main__.py"), run_name="__main__")
    components = [c for by_name in namespace["COMPONENTS"].values() for c in by_name.values()]
    urns = [c.urn for c in components] + [c.resource.urn for c in components]

    def check(*_: Any) -> None:
        got = registered(env)
        expected = [expected_manifest(doc) for doc, _ in documents if is_ray(doc)]
        assert len(got) == len(expected)
        for manifest in expected:
            manifest["metadata"].setdefault("namespace", "default")  # stack config names the namespace
            key = (manifest["kind"], manifest["metadata"]["name"])
            assert got[key] == manifest, key

    return after_settling(check, *urns)


@pulumi.runtime.test
def test_a_job_on_a_converted_cluster_becomes_a_cluster_entry_reference() -> pulumi.Output[Any]:
    from pulumi_kuberay.convert.helm import render_values

    cluster = render_values({}, release_name="ray-cluster", namespace="default")
    (job,) = [doc for doc, _ in _documents("ray-job.use-existing-raycluster.yaml")]
    job = {**job, "metadata": {**job["metadata"], "namespace": "default"}}
    result = convert_documents([(cluster, "cluster.yaml:1"), (job, "job.yaml:1")], to="stack-config")
    assert result.errors == []
    entry = yaml.safe_load(result.text)["config"]["pulumi-kuberay:jobs"]["rayjob-use-existing-raycluster"]
    assert entry["cluster"] == "ray-cluster-kuberay" and "clusterSelector" not in entry["spec"]
    env = install(program_config(result.text), stack="convert")
    namespace = runpy.run_path(str(REPO_ROOT / "__main__.py"), run_name="__main__")
    components = [c for by_name in namespace["COMPONENTS"].values() for c in by_name.values()]

    def check(*_: Any) -> None:
        got = registered(env)
        assert got[("RayJob", "rayjob-use-existing-raycluster")] == expected_manifest(job)
        assert got[("RayCluster", "ray-cluster-kuberay")] == expected_manifest(cluster)

    return after_settling(check, *[c.urn for c in components], *[c.resource.urn for c in components])


def test_stack_config_needs_one_name_per_kind() -> None:
    first = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "batch", "namespace": "a"},
             "spec": {"entrypoint": "python x.py", "clusterSelector": {"ray.io/cluster": "shared"}}}  # fmt: skip
    second = {**first, "metadata": {"name": "batch", "namespace": "b"}}
    result = convert_documents([(first, "a.yaml:1"), (second, "b.yaml:1")], to="stack-config")
    assert result.text == "" and len(result.errors) == 1
    assert "two RayJobs named 'batch'" in result.errors[0] and "object_name=" in result.errors[0]
    assert convert_documents([(first, "a.yaml:1"), (second, "b.yaml:1")]).errors == []  # Python can
