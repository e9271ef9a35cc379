# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""The component provider's own code, without an engine: decoding ``Construct`` inputs, calling the components,
and our errors as input errors (tests/engine/test_package_*.py run it for real from YAML and TypeScript).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import pulumi
import pytest
from _pulumi_mocks import MockEnv, mock_env
from google.protobuf import struct_pb2
from pulumi.runtime import rpc
from pulumi_kuberay.provider._inputs import Decoder
from pulumi_kuberay.provider._provider import build_component, input_error
from pulumi_kuberay.provider._schema import components, package_schema

SCHEMA = package_schema()
ENTRIES = {e.kind: e for e in components()}
CLUSTER_INPUTS = SCHEMA["resources"]["kuberay:index:RayCluster"]["inputProperties"]


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(value)
    return struct


def _secret(value: Any) -> dict[str, Any]:
    return {rpc._special_sig_key: rpc._special_secret_sig, "value": value}


def _spec(**worker: Any) -> dict[str, Any]:
    return {
        "rayVersion": "2.52.0",
        "image": "rayproject/ray:2.52.0",
        "headGroupSpec": {"cpu": 1.0, "memory": "4Gi"},
        "workerGroupSpecs": [{"groupName": "cpu", "cpu": 1.0, "minReplicas": 1.0, "maxReplicas": 2.0, **worker}],
    }


async def _value(output: Any) -> tuple[Any, bool, bool]:
    return await output.future(with_unknowns=True), await output.is_known(), await output.is_secret()


@pulumi.runtime.test
def test_whole_numbers_become_integers_where_the_schema_says_integer(mocks: MockEnv) -> None:
    decoded = Decoder(SCHEMA["types"], lambda urn: None).inputs(
        _struct({"spec": _spec(rayStartParams={"num-cpus": "1"}), "timeoutSeconds": 600.0}), {}, CLUSTER_INPUTS
    )
    worker = decoded["spec"]["workerGroupSpecs"][0]
    assert worker["minReplicas"] == 1 and type(worker["minReplicas"]) is int
    assert type(worker["cpu"]) is int  # int | float | str: a whole number is the int a Python program writes
    assert type(decoded["timeoutSeconds"]) is int
    assert decoded["spec"]["rayVersion"] == "2.52.0"


@pulumi.runtime.test
def test_a_nested_secret_stays_where_it_is_and_only_it_is_secret(mocks: MockEnv) -> pulumi.Output[Any]:
    spec = _spec()
    spec["gcsFaultToleranceOptions"] = {"redisAddress": "redis:6379", "redisPassword": {"value": _secret("pw")}}
    decoded = Decoder(SCHEMA["types"], lambda urn: None).inputs(_struct({"spec": spec}), {}, CLUSTER_INPUTS)
    assert isinstance(decoded["spec"], dict)  # not one secret Output for the whole spec
    assert decoded["spec"]["gcsFaultToleranceOptions"]["redisAddress"] == "redis:6379"
    password = decoded["spec"]["gcsFaultToleranceOptions"]["redisPassword"]["value"]
    assert isinstance(password, pulumi.Output)

    def check(got: tuple[Any, bool, bool]) -> None:
        assert got == ("pw", True, True)

    # a coroutine: from_input awaits it
    return pulumi.Output.from_input(cast(Any, _value(password))).apply(check)


@pulumi.runtime.test
def test_a_field_the_schema_marks_secret_is_secret_even_when_plain(mocks: MockEnv) -> pulumi.Output[Any]:
    spec = _spec()
    spec["gcsFaultToleranceOptions"] = {"redisAddress": "redis:6379", "redisUsername": {"value": "default"}}
    decoded = Decoder(SCHEMA["types"], lambda urn: None).inputs(_struct({"spec": spec}), {}, CLUSTER_INPUTS)
    username = decoded["spec"]["gcsFaultToleranceOptions"]["redisUsername"]["value"]
    # a coroutine: from_input awaits it
    return pulumi.Output.from_input(cast(Any, _value(username))).apply(lambda got: _eq(got, ("default", True, True)))


def _eq(got: Any, want: Any) -> None:
    assert got == want


@pulumi.runtime.test
def test_unknowns_and_dependencies_become_outputs_and_references_the_components(mocks: MockEnv) -> pulumi.Output[Any]:
    cluster = object()
    decoder = Decoder(SCHEMA["types"], {"urn:cluster": cluster}.get)  # type: ignore[arg-type]
    job_inputs = SCHEMA["resources"]["kuberay:index:RayJob"]["inputProperties"]
    ref = {rpc._special_sig_key: rpc._special_resource_sig, "urn": "urn:cluster"}
    decoded = decoder.inputs(
        _struct({"cluster": ref, "namespace": rpc.UNKNOWN, "spec": {"entrypoint": "python x.py"}}),
        {"namespace": {"urn:ns"}, "spec": {"urn:cm"}},
        job_inputs,
    )
    assert decoded["cluster"] is cluster
    assert isinstance(decoded["spec"], pulumi.Output)  # a plain value from a dependency keeps the dependency

    async def check() -> None:
        _, known, _ = await _value(decoded["namespace"])
        assert not known
        deps = await decoded["spec"].resources()
        assert {await d.urn.future() for d in deps} == {"urn:cm"}

    return pulumi.Output.from_input(check())


@pulumi.runtime.test
def test_the_provider_calls_the_python_components_with_their_keywords(mocks: MockEnv) -> pulumi.Output[Any]:
    service = build_component(
        ENTRIES["RayService"],
        "serve",
        {
            "spec": {
                "rayClusterConfig": {
                    "rayVersion": "2.52.0", "image": "rayproject/ray:2.52.0", "headGroupSpec": {"cpu": 1}
                },
                "serveConfigV2": {"applications": [{"name": "app", "route_prefix": "/", "import_path": "app:app"}]},
            },
            "namespace": "ray",
            "waitForReady": False,
        },
        None,
    )
    cron = build_component(
        ENTRIES["RayCronJob"],
        "nightly",
        {
            "spec": {
                "schedule": "0 3 * * *",
                "jobTemplate": {"entrypoint": "x", "clusterSelector": {"ray.io/cluster": "c"}},
            },
            "featureGates": {"RayCronJob": True},
        },
        None,
    )

    def check(_: Any) -> None:
        (svc,) = mocks.ray("RayService")
        assert svc.inputs["metadata"]["namespace"] == "ray"
        assert mocks.ray("RayCronJob")

    return pulumi.Output.all(service.resource.urn, cron.resource.urn).apply(check)


def test_our_errors_become_input_errors_on_the_program_path(mocks: MockEnv) -> None:
    with pytest.raises(Exception, match="is invalid") as raised:
        build_component(ENTRIES["RayCluster"], "shared", {"spec": _spec(minReplicas=3, maxReplicas=2)}, None)
    error = input_error(ENTRIES["RayCluster"], raised.value)
    assert error is not None
    assert str(error).startswith("RayCluster 'shared' is invalid (1 problem):")
    assert [e["property_path"] for e in (error.errors or [])] == ["spec.workerGroupSpecs[0].minReplicas"]
    assert "minReplicas (3) > maxReplicas (2)" in (error.errors or [{"property_path": "", "reason": ""}])[0]["reason"]

    with pytest.raises(Exception, match="critical") as critical:
        build_component(
            ENTRIES["RayJob"], "batch",
            {"spec": {"entrypoint": "x", "clusterSelector": {"ray.io/cluster": "c"}, "activeDeadlineSeconds": 0}}, None,
        )
    error = input_error(ENTRIES["RayJob"], critical.value)
    assert error is not None and "1 critical finding" in str(error)
    assert [e["property_path"] for e in (error.errors or [])] == ["spec.activeDeadlineSeconds"]

    assert input_error(ENTRIES["RayJob"], KeyError("internal")) is None  # not ours: keeps its traceback
