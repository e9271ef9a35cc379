"""How the operator component reads the KubeRay CRDs: the parsed-file cache and the downgrade check's read of
the last checkpoint (no pulumi engine; the engine tier checks the refusal end to end)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from _reference import _LOADER, CRD_FILES, require_reference
from google.protobuf import struct_pb2
from pulumi_kuberay.operator.crds import CRD_CACHE_ENV, CRD_VERSION_LABEL, crd_cache_dir, load_crds
from pulumi_kuberay.resources.kuberay_operator import CRD_TYPE, crd_version_in_checkpoint

SMALL_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.ray.io}
spec:
  group: ray.io
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true, maxProperties: 3}
---
kind: ConfigMap
metadata: {name: not-a-crd}
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    from pulumi_kuberay.operator import crds as operator_crds

    cache = tmp_path / "cache"
    monkeypatch.setenv(CRD_CACHE_ENV, str(cache))
    operator_crds._crds_in_file.cache_clear()  # each load below reads the files again
    yield cache
    operator_crds._crds_in_file.cache_clear()


def _fresh_load(directory: Path) -> list[dict[str, Any]]:
    from pulumi_kuberay.operator import crds as operator_crds

    operator_crds._crds_in_file.cache_clear()  # as a new program run: the process cache is empty
    return load_crds(directory)


def test_the_upstream_crds_load_the_same_from_the_cache_as_from_the_yaml(cache_dir: Path) -> None:
    directory = require_reference() / "kuberay" / "v1.7.0" / "crds"
    parsed = [yaml.load((directory / name).read_text(), Loader=_LOADER) for name in sorted(CRD_FILES.values())]
    first = _fresh_load(directory)
    assert len(list(cache_dir.glob("*.json"))) == 4  # one entry per file
    cached = _fresh_load(directory)
    assert first == parsed
    assert cached == parsed


def test_a_changed_file_gets_a_new_entry_and_a_bad_entry_is_parsed_again(cache_dir: Path, tmp_path: Path) -> None:
    directory = tmp_path / "crds"
    directory.mkdir()
    crd_file = directory / "widgets.yaml"
    crd_file.write_text(SMALL_CRD)
    first = _fresh_load(directory)
    assert [d["metadata"]["name"] for d in first] == ["widgets.ray.io"]
    crd_file.write_text(SMALL_CRD.replace("maxProperties: 3", "maxProperties: 4"))
    changed = _fresh_load(directory)
    spec_schema = changed[0]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec_schema["maxProperties"] == 4
    entries = sorted(cache_dir.glob("*.json"))
    assert len(entries) == 2
    for entry in entries:
        entry.write_text("{not json")
    assert _fresh_load(directory) == changed


def test_an_empty_cache_setting_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CRD_CACHE_ENV, "")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert crd_cache_dir() is None
    directory = tmp_path / "crds"
    directory.mkdir()
    (directory / "widgets.yaml").write_text(SMALL_CRD)
    assert [d["metadata"]["name"] for d in _fresh_load(directory)] == ["widgets.ray.io"]
    assert not (tmp_path / "home").exists()


def test_a_value_json_would_change_is_not_cached(cache_dir: Path, tmp_path: Path) -> None:
    directory = tmp_path / "crds"
    directory.mkdir()
    (directory / "widgets.yaml").write_text(SMALL_CRD.replace("maxProperties: 3", "enum: {1: one}"))
    docs = _fresh_load(directory)
    assert docs[0]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["enum"] == {1: "one"}
    assert not list(cache_dir.glob("*.json"))


def _descriptions(node: Any, path: str = "") -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield f"{path}.description"
            yield from _descriptions(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _descriptions(value, f"{path}[{i}]")


@pytest.mark.parametrize("kind", sorted(CRD_FILES))
def test_the_upstream_crds_carry_no_descriptions_to_strip(kind: str) -> None:
    """KubeRay generates its CRDs with ``controller-gen crd:maxDescLen=0``: a description-stripping option would
    remove nothing (bench/README.md, the dev-up row). Should a version ship descriptions, that option is back."""
    path = require_reference() / "kuberay" / "v1.7.0" / "crds" / CRD_FILES[kind]
    crd = yaml.load(path.read_text(), Loader=_LOADER)
    versions = [v["name"] for v in crd["spec"]["versions"]]
    assert "v1" in versions
    assert list(_descriptions(crd)) == []


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update(value)
    return out


def _crd_state(version: Any) -> dict[str, Any]:
    return {"type": CRD_TYPE, "outputs": {"metadata": {"name": "x", "labels": {CRD_VERSION_LABEL: version}}}}


def test_the_checkpoint_read_finds_the_newest_label_of_this_operators_crds() -> None:
    secret = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": "1.8.0"}
    answer = _struct(
        {
            "outputs": {
                "urn:pulumi:dev::p::pulumi-kuberay:index:KubeRayOperator$kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition::kuberay-rayclusters.ray.io": _crd_state("1.6.1"),
                "urn:pulumi:dev::p::pulumi-kuberay:index:KubeRayOperator$kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition::kuberay-rayjobs.ray.io": _crd_state("1.7.0"),
                "urn:pulumi:dev::p::pulumi-kuberay:index:KubeRayOperator$kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition::kuberay-rayservices.ray.io": _crd_state("not.a.version"),
                "urn:pulumi:dev::p::pulumi-kuberay:index:KubeRayOperator$kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition::other-rayjobs.ray.io": _crd_state("1.9.0"),
                "urn:pulumi:dev::p::kubernetes:core/v1:ConfigMap::kuberay-cm": {
                    "type": "kubernetes:core/v1:ConfigMap",
                    "outputs": {"metadata": {"labels": {CRD_VERSION_LABEL: "2.0.0"}}},
                },
            }
        }
    )
    assert crd_version_in_checkpoint(answer, "kuberay") == "1.7.0"
    assert crd_version_in_checkpoint(answer, "other") == "1.9.0"
    assert crd_version_in_checkpoint(answer, "missing") is None
    wrapped = _struct({"outputs": {"urn:x::kuberay-rayjobs.ray.io": {**_crd_state("1.7.0"), "outputs": {
        "metadata": {"labels": {CRD_VERSION_LABEL: secret}}}}}})
    assert crd_version_in_checkpoint(wrapped, "kuberay") == "1.8.0"
    assert crd_version_in_checkpoint(_struct({}), "kuberay") is None
    unlabelled = _struct({"outputs": {"urn:x::kuberay-rayjobs.ray.io": {"type": CRD_TYPE, "outputs": {}}}})
    assert crd_version_in_checkpoint(unlabelled, "kuberay") is None
