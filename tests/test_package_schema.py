# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""The component package's schema, held against the models and the components (not against its generator).

Walks every pydantic model reachable from the five components' specs with its own reading of the Python
annotations, and checks the schema property by property: every field present under its CRD name, the same type
(scalars, enums with the same values, lists, maps, unions, nested types), the field's docstring as the
description, secrets marked secret, nothing untyped. The components' keyword parameters are inputs; every output
the Python component registers is an output of the schema (checked by constructing each one under mocks, so an
output added later, such as a change plan's, must appear). The engine tier checks that ``pulumi package
get-schema`` prints this schema (tests/engine/test_package_yaml.py).
"""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import re
import types
import typing
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pulumi
import pytest
from _pulumi_mocks import MockEnv, mock_env
from pulumi_kuberay.provider._schema import components, markdown, package_schema
from pydantic import BaseModel

SCHEMA = package_schema()
TYPES: dict[str, dict[str, Any]] = SCHEMA["types"]
ANY = "pulumi.json#/Any"


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


def _type_of(ref: str) -> dict[str, Any]:
    assert ref.startswith("#/types/kuberay:index:"), ref
    return TYPES[ref.removeprefix("#/types/")]


def _strip(annotation: Any) -> tuple[Any, bool]:
    """(the annotation without Annotated/None, whether None is allowed)."""
    optional = False
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            options = [a for a in get_args(annotation) if a is not type(None)]
            optional = optional or len(options) < len(get_args(annotation))
            if len(options) != 1:
                return Union[tuple(options)], optional  # noqa: UP007 - rebuilt from a tuple
            annotation = options[0]
        else:
            return annotation, optional


def _check(annotation: Any, spec: dict[str, Any], where: str, seen: set[type]) -> None:
    annotation, _ = _strip(annotation)
    origin = get_origin(annotation)
    if annotation is Any:
        assert spec == {"$ref": ANY} or spec.get("$ref") == ANY, f"{where}: Any -> {spec}"
        return
    if origin is Literal:
        enum = _type_of(spec["$ref"])
        assert [v["value"] for v in enum["enum"]] == list(get_args(annotation)), where
        return
    if origin in (Union, types.UnionType):
        options = [_strip(a)[0] for a in get_args(annotation)]
        if set(options) == {int, float}:
            assert spec.get("type") == "number", f"{where}: int | float -> {spec}"
            return
        members = spec.get("oneOf")
        assert members and len(members) == len(options), f"{where}: {annotation} -> {spec}"
        for option, member in zip(options, members, strict=True):
            _check(option, member, where, seen)
        return
    scalar = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if annotation in scalar:
        assert spec.get("type") == scalar[annotation], f"{where}: {annotation} -> {spec}"
        return
    if origin is list:
        assert spec.get("type") == "array", f"{where}: {annotation} -> {spec}"
        _check(get_args(annotation)[0], spec["items"], f"{where}[]", seen)
        return
    if origin is dict or annotation is dict:
        assert spec.get("type") == "object" and "additionalProperties" in spec, f"{where}: {annotation} -> {spec}"
        args = get_args(annotation)
        _check(args[1] if args else Any, spec["additionalProperties"], f"{where}{{}}", seen)
        return
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        assert spec.get("$ref") == f"#/types/kuberay:index:{annotation.__name__}", f"{where}: {annotation} -> {spec}"
        _check_model(annotation, _type_of(spec["$ref"]), seen)
        return
    raise AssertionError(f"{where}: no rule for the annotation {annotation!r}")


def _check_model(model: type[BaseModel], spec: dict[str, Any], seen: set[type]) -> None:
    if model in seen:
        return
    seen.add(model)
    props: dict[str, Any] = spec["properties"]
    fields = {info.alias or name: info for name, info in model.model_fields.items()}
    assert set(props) == set(fields), f"{model.__name__}: schema {sorted(props)} vs model {sorted(fields)}"
    for alias, info in fields.items():
        where = f"{model.__name__}.{alias}"
        _check(info.annotation, props[alias], where, seen)
        if info.description:
            assert props[alias].get("description") == markdown(info.description), where
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        assert bool(props[alias].get("secret")) == bool(extra.get("secret")), f"{where}: secret"
        if info.is_required():
            assert alias in spec.get("required", []), f"{where}: required"


def test_package_name_and_version_follow_the_wheel() -> None:
    assert SCHEMA["name"] == "kuberay"
    assert SCHEMA["version"] == importlib.metadata.version("pulumi-kuberay")
    assert set(SCHEMA["resources"]) == {
        f"kuberay:index:{k}" for k in ("RayCluster", "RayJob", "RayService", "RayCronJob", "KubeRayOperator")
    }
    assert all(r["isComponent"] for r in SCHEMA["resources"].values())


@pytest.mark.parametrize("entry", components(), ids=lambda e: e.kind)
def test_every_spec_field_present_with_the_model_type_and_docstring(entry: Any) -> None:
    resource = SCHEMA["resources"][f"kuberay:index:{entry.kind}"]
    seen: set[type] = set()
    if entry.spec_input is not None:
        spec = resource["inputProperties"][entry.spec_input]
        assert resource["requiredInputs"] == [entry.spec_input]
        _check(entry.spec_model, spec, entry.kind, seen)
    else:  # the operator: the args model's fields are the inputs themselves
        _check_model(entry.spec_model, {"properties": {
            k: v for k, v in resource["inputProperties"].items()
            if k in {i.alias or n for n, i in entry.spec_model.model_fields.items()}
        }}, seen)
    assert len(seen) > (1 if entry.spec_input is None else 10)


@pytest.mark.parametrize("entry", components(), ids=lambda e: e.kind)
def test_every_keyword_of_the_python_component_is_an_input(entry: Any) -> None:
    inputs = SCHEMA["resources"][f"kuberay:index:{entry.kind}"]["inputProperties"]
    init = inspect.signature(entry.component.__init__)
    names: list[str] = []
    for param in init.parameters.values():
        if param.name in ("self", "name", "args", "opts"):
            continue
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            typed_dict = get_args(typing.get_type_hints(entry.component.__init__, localns={"Output": pulumi.Output,
                                                                                           "T": Any})[param.name])[0]
            names.extend(typed_dict.__annotations__)
        else:
            names.append(param.name)
    for name in names:
        camel = name.split("_")[0] + "".join(p.title() for p in name.split("_")[1:])
        assert camel in inputs, f"{entry.kind}({name}=) is not an input of the schema"
        assert "type" in inputs[camel] or "$ref" in inputs[camel] or "oneOf" in inputs[camel], camel


def _walk_specs(node: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        for key in ("properties", "inputProperties"):
            for name, prop in (node.get(key) or {}).items():
                yield f"{where}.{name}", prop
                yield from _walk_specs(prop, f"{where}.{name}")
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                yield f"{where}{key[0]}", node[key]
                yield from _walk_specs(node[key], f"{where}{key[0]}")
        for i, member in enumerate(node.get("oneOf") or []):
            yield f"{where}|{i}", member
            yield from _walk_specs(member, f"{where}|{i}")


def test_no_property_left_untyped_and_every_reference_resolves() -> None:
    count = 0
    for top, body in [*SCHEMA["resources"].items(), *TYPES.items()]:
        for where, prop in _walk_specs(body, top):
            count += 1
            assert "type" in prop or "$ref" in prop or "oneOf" in prop, f"{where}: untyped {prop}"
            ref = prop.get("$ref", "")
            if ref.startswith("#/types/"):
                assert ref.removeprefix("#/types/") in TYPES, f"{where}: {ref}"
            if ref.startswith("#/resources/"):
                assert ref.removeprefix("#/resources/") in SCHEMA["resources"], f"{where}: {ref}"
    assert count > 1000
    json.dumps(SCHEMA)  # JSON-able


def test_the_redis_password_literal_is_secret() -> None:
    assert TYPES["kuberay:index:RedisCredential"]["properties"]["value"]["secret"] is True


# --------------------------------------------------------------------------------------------------
# Outputs: every output the Python component registers.

SPECS: dict[str, Any] = {
    "RayCluster": {"rayVersion": "2.52.0", "image": "rayproject/ray:2.52.0", "headGroupSpec": {"cpu": 1}},
    "RayJob": {"entrypoint": "python x.py", "clusterSelector": {"ray.io/cluster": "shared"}},
    "RayService": {
        "rayClusterConfig": {"rayVersion": "2.52.0", "image": "rayproject/ray:2.52.0", "headGroupSpec": {"cpu": 1}},
        "serveConfigV2": {"applications": [{"name": "app", "route_prefix": "/", "import_path": "app:app"}]},
    },
    "RayCronJob": {
        "schedule": "0 3 * * *",
        "jobTemplate": {"entrypoint": "python x.py", "clusterSelector": {"ray.io/cluster": "shared"}},
    },
}


@pytest.mark.parametrize("kind", sorted(SPECS))
@pulumi.runtime.test
def test_every_registered_output_is_a_schema_output(
    kind: str, mocks: MockEnv, monkeypatch: pytest.MonkeyPatch
) -> pulumi.Output[Any]:
    registered: list[Mapping[str, Any]] = []
    real = pulumi.ComponentResource.register_outputs
    def record(self: pulumi.ComponentResource, outputs: Mapping[str, Any]) -> None:
        registered.append(outputs)
        real(self, outputs)

    monkeypatch.setattr(pulumi.ComponentResource, "register_outputs", record)
    entry = {e.kind: e for e in components()}[kind]
    keywords = {"feature_gates": {"RayCronJob": True}} if kind == "RayCronJob" else {}
    component = entry.component(f"out-{kind.lower()}", SPECS[kind], **keywords)
    outputs = SCHEMA["resources"][f"kuberay:index:{kind}"]["properties"]

    def check(_: Any) -> None:
        assert registered, "the component registered no outputs"
        for key in registered[-1]:
            camel = key.split("_")[0] + "".join(p.title() for p in key.split("_")[1:])
            assert camel in outputs, f"{kind}.{key} is registered but not an output of the schema"

    result: pulumi.Output[Any] = component.urn.apply(check)
    return result


def test_operator_outputs() -> None:
    outputs = SCHEMA["resources"]["kuberay:index:KubeRayOperator"]["properties"]
    assert set(outputs) == {"version", "featureGates", "watchNamespaces", "namespace"}
    assert outputs["featureGates"] == {"type": "object", "additionalProperties": {"type": "boolean"}}


def _descriptions(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield where, value
            else:
                yield from _descriptions(value, f"{where}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _descriptions(item, f"{where}[{index}]")


def test_every_description_is_markdown() -> None:
    """TypeScript, YAML and Go users read the schema's descriptions: no Sphinx role (``:class:``), no reST double
    backticks; a docstring's ``:class:`~pulumi_kuberay.RayClusterSpec``` reads `RayClusterSpec`."""
    found = list(_descriptions(SCHEMA))
    assert len(found) > 500
    sphinx = [(where, text) for where, text in found if re.search(r":(class|func|meth|data|mod|attr|exc|obj):`", text)]
    assert sphinx == []
    assert [(where, text) for where, text in found if "``" in text] == []
    cluster = SCHEMA["resources"]["kuberay:index:RayCluster"]["description"]
    assert "a `RayClusterSpec` or a dict" in cluster
    assert markdown(":func:`~pulumi_kuberay.diagnose` and :class:`pulumi_kuberay.RayCluster`, ``x``") == (
        "`diagnose()` and `pulumi_kuberay.RayCluster`, `x`"
    )
