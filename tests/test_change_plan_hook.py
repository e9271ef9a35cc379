# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""The change plan's hook side (resources/_change_plan.py) without an engine: the inputs the hook is handed, read
back as the manifest they stand for, and the one hook binding every custom resource shares.

Every Pulumi test is ``@pulumi.runtime.test`` and RETURNS an Output (assertions inside it run only if awaited).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, mock_env
from pulumi_kuberay.resources import _change_plan


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


def checked(value: Any) -> pulumi.Output[Any]:
    return pulumi.Output.from_input(asyncio.ensure_future(value))


@pulumi.runtime.test
def test_hook_inputs_become_the_plain_manifest(mocks: MockEnv) -> pulumi.Output[Any]:
    inputs = {
        "metadata": {"name": "c1", "labels": {"a": "b"}},
        "spec": {"workerGroupSpecs": [{"replicas": 2.0, "rayStartParams": {"num-cpus": "1"}}], "ratio": 0.5},
    }

    async def check() -> bool:
        assert await _change_plan._plain(inputs) == {
            "metadata": {"name": "c1", "labels": {"a": "b"}},
            "spec": {"workerGroupSpecs": [{"replicas": 2, "rayStartParams": {"num-cpus": "1"}}], "ratio": 0.5},
        }
        replicas = (await _change_plan._plain(inputs))["spec"]["workerGroupSpecs"][0]["replicas"]
        assert type(replicas) is int  # Pulumi's numbers are floats; the plan compares with the manifest's ints
        return True

    return checked(check())


@pulumi.runtime.test
def test_secret_outputs_deep_in_the_inputs_are_read_back(mocks: MockEnv) -> pulumi.Output[Any]:
    inputs = {
        "metadata": {"name": "c1"},
        "spec": {"env": [{"name": "TOKEN", "value": pulumi.Output.secret("s3cr3t")}, {"name": "N", "value": 3.0}]},
        "top": pulumi.Output.secret({"port": 8265.0}),
    }

    async def check() -> bool:
        assert await _change_plan._plain(inputs) == {
            "metadata": {"name": "c1"},
            "spec": {"env": [{"name": "TOKEN", "value": "s3cr3t"}, {"name": "N", "value": 3}]},
            "top": {"port": 8265},
        }
        return True

    return checked(check())


def test_every_custom_resource_shares_one_hook_binding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_change_plan, "hooks_supported", lambda: True)
    monkeypatch.setattr(_change_plan, "_PENDING", [])
    planner: Any = object()
    first = _change_plan.attach(planner, "kubernetes:ray.io/v1:RayCluster", "a")
    second = _change_plan.attach(planner, "kubernetes:ray.io/v1:RayCluster", "b")
    assert first is not None and first is second
    assert first.before_create == [_change_plan._hook("create")]
    assert first.before_update == [_change_plan._hook("update")]
    assert [name for _, _, name in _change_plan._PENDING] == ["a", "b"]  # each still registered for its URN
