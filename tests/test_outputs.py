# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""Outputs without a task each (resources/_outputs.py): the same values, flags and dependencies as Pulumi's own
``Output(...)``/``apply``, on the shortcut and on the public-API fallback; and a component's ``spec``, which is no
longer kept but validated from the manifest when first read.

Every test is ``@pulumi.runtime.test`` and RETURNS an Output (assertions inside it run only if it is awaited).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, mock_env
from pulumi_kuberay.model.cluster import RayClusterSpec
from pulumi_kuberay.resources import _outputs
from pulumi_kuberay.resources._outputs import derived, known_output
from pulumi_kuberay.resources.cluster import RayCluster


@pytest.fixture(params=["shortcut", "public-api"])
def path(request: pytest.FixtureRequest) -> Iterator[str]:
    """Both ways the helpers build an Output: the task-free shortcut and the fallback for a pulumi without it."""
    _outputs._FORCE_PUBLIC_API = request.param == "public-api"
    try:
        yield str(request.param)
    finally:
        _outputs._FORCE_PUBLIC_API = False


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


async def facts(output: pulumi.Output[Any]) -> tuple[Any, bool, bool, set[pulumi.Resource]]:
    """(value, known, secret, resources) of an Output, through the members generated SDKs rely on."""
    value = await output.future(with_unknowns=True)
    return value, await output.is_known(), await output._is_secret, await output.resources()


def checked(check: Callable[[], Awaitable[None]]) -> pulumi.Output[Any]:
    async def run() -> bool:
        await check()
        return True

    return pulumi.Output.from_input(asyncio.ensure_future(run()))


@pulumi.runtime.test
def test_known_output_carries_value_and_flags(path: str) -> pulumi.Output[Any]:
    async def check() -> None:
        assert await facts(known_output({"a": [1]})) == ({"a": [1]}, True, False, set())
        value, known, secret, _ = await facts(known_output("x", secret=True))
        assert (value, known, secret) == ("x", True, True)
        assert (await facts(known_output(None, known=False)))[1:3] == (False, False)
        # A value built from plain values is not walked for unknowns: the same facts.
        assert await facts(known_output({"a": [1]}, plain=True)) == ({"a": [1]}, True, False, set())
        assert (await facts(known_output("x", secret=True, plain=True)))[:3] == ("x", True, True)

    return checked(check)


@pulumi.runtime.test
def test_derived_maps_like_apply(path: str) -> pulumi.Output[Any]:
    source = pulumi.Output.from_input({"name": "c1", "namespace": "ml"})

    async def check() -> None:
        ours = derived(source, lambda m: f"{m['name']}.{m['namespace']}")
        theirs = source.apply(lambda m: f"{m['name']}.{m['namespace']}")
        assert await facts(ours) == await facts(theirs) == ("c1.ml", True, False, set())

    return checked(check)


@pulumi.runtime.test
def test_derived_keeps_secret_and_does_not_run_on_unknowns(path: str) -> pulumi.Output[Any]:
    calls: list[Any] = []

    def upper(value: str) -> str:
        calls.append(value)
        return value.upper()

    async def check() -> None:
        secret = derived(pulumi.Output.secret("token"), upper)
        assert await facts(secret) == ("TOKEN", True, True, set())
        unknown = derived(known_output("later", known=False), upper)
        value, known, is_secret, _ = await facts(unknown)
        assert (value, known, is_secret) == (None, False, False)
        assert calls == ["token"]  # never called with the unknown value

    return checked(check)


@pulumi.runtime.test
def test_derived_passes_its_arguments_after_the_value(path: str) -> pulumi.Output[Any]:
    def url(namespace: str, scheme: str, port: int) -> str:
        return f"{scheme}://svc.{namespace}:{port}"

    async def check() -> None:
        assert await facts(derived(pulumi.Output.from_input("ml"), url, "http", 8265)) == (
            "http://svc.ml:8265",
            True,
            False,
            set(),
        )

    return checked(check)


def test_the_program_waits_for_a_pending_derived_output(path: str) -> None:
    """Pulumi keeps every pending Output in its runtime set until it settles, so a program waits for it and
    fails with its error even when nothing else awaits it; the derived Outputs are kept the same way."""
    from pulumi.runtime.settings import SETTINGS

    source: asyncio.Future[Any] = asyncio.get_event_loop().create_future()

    def boom(_: Any) -> str:
        raise ValueError("late failure")

    @pulumi.runtime.test
    def program() -> pulumi.Output[Any]:
        asyncio.get_event_loop().call_soon(source.set_result, 1)  # first: the program waits for ``source``
        out = derived(pulumi.Output.from_input(source), boom)
        assert out._data in SETTINGS.outputs or path == "public-api"  # tracked (the public path tracks its task)
        return known_output("not the failing one")

    with pytest.raises(ValueError, match="late failure"):
        program()


def test_a_known_output_is_not_left_in_the_runtime_set() -> None:
    """An Output of a value already there has nothing to wait for: it is not added to the runtime's set (Pulumi
    would add it and take it out on the loop's next turn)."""
    from pulumi.runtime.settings import SETTINGS

    @pulumi.runtime.test
    def program() -> pulumi.Output[Any]:
        out = known_output("x")
        assert out._data not in SETTINGS.outputs
        return out

    program()


def test_derived_hands_an_error_to_the_program(path: str) -> None:
    """As with apply, a function that raises fails the Output, and so the program (not silently)."""

    def boom(_: Any) -> str:
        raise ValueError("bad value")

    @pulumi.runtime.test
    def program() -> pulumi.Output[Any]:
        return derived(known_output(1), boom)

    with pytest.raises(ValueError, match="bad value"):
        program()


def test_derived_refuses_a_function_that_returns_an_output() -> None:
    @pulumi.runtime.test
    def program() -> pulumi.Output[Any]:
        return derived(known_output(1), lambda v: pulumi.Output.from_input(v))

    with pytest.raises(TypeError, match=r"use Output\.apply"):
        program()


def small_spec() -> dict[str, Any]:
    return {
        "rayVersion": "2.52.0",
        "image": "rayproject/ray:2.52.0",
        "headGroupSpec": {"cpu": 1, "memory": "4Gi"},
        "workerGroupSpecs": [{"groupName": "cpu", "cpu": 1, "memory": "4Gi", "minReplicas": 1, "maxReplicas": 2}],
    }


@pulumi.runtime.test
def test_cluster_outputs_are_the_same_on_both_paths(mocks: MockEnv, path: str) -> pulumi.Output[Any]:
    comp = RayCluster("c1", small_spec(), namespace="ml")

    def check(values: list[Any]) -> None:
        assert values == [
            "c1",
            "ml",
            "c1-head-svc",
            "http://c1-head-svc.ml.svc.cluster.local:8265",
            "ray://c1-head-svc.ml.svc.cluster.local:10001",
        ]

    outputs = [comp.cluster_name, comp.namespace, comp.head_service_name, comp.dashboard_url, comp.client_address]
    return pulumi.Output.all(*outputs).apply(check)


@pulumi.runtime.test
def test_spec_is_validated_from_the_manifest_when_first_read(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("c1", small_spec())
    assert comp._spec is None  # not kept after construction
    spec = comp.spec
    assert isinstance(spec, RayClusterSpec)
    assert comp.spec is spec  # validated once
    assert comp.manifest is not None
    assert spec.to_dict() == comp.manifest["spec"]
    assert spec.worker_group_specs is not None
    assert spec.worker_group_specs[0].group_name == "cpu"
    return comp.cluster_name
