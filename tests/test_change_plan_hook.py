# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""The change plan's hook side (resources/_change_plan.py) without an engine: the inputs the hook is handed, read
back as the manifest they stand for, and the one hook binding every custom resource shares.

Every Pulumi test is ``@pulumi.runtime.test`` and RETURNS an Output (assertions inside it run only if awaited).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
import yaml
from _pulumi_mocks import MockEnv, mock_env
from pulumi_kuberay import kubeclient
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


def test_a_server_out_of_reach_is_asked_once_per_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan's and the replicas' reads of a server that does not answer: the first waits its time-out, the next
    ones (every later component of the preview) fail at once with the first error, without a connection."""
    listener = socket.create_server(("127.0.0.1", 0))  # connections wait in its backlog, never answered
    listener.setblocking(False)
    accepted: list[socket.socket] = []

    def connections() -> int:  # the connections made since the last call (the kernel queued them at connect)
        try:
            while True:
                accepted.append(listener.accept()[0])
        except BlockingIOError:
            pass
        return len(accepted)
    server = f"http://127.0.0.1:{listener.getsockname()[1]}"
    kubeconfig = yaml.safe_dump({
        "clusters": [{"name": "c", "cluster": {"server": server}}], "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}], "current-context": "x",
    })
    monkeypatch.setattr(_change_plan, "READ_TIMEOUT_SECONDS", 0.5)
    monkeypatch.setattr(_change_plan, "_UNREACHABLE", {})
    access = ((kubeconfig, None), None)
    try:
        with pytest.raises(kubeclient.KubeError) as first:
            _change_plan.live_client(access).get_object("RayCluster", "default", "c1")
        with pytest.raises(kubeclient.KubeError) as second:
            _change_plan.live_client(access).get_object("RayCluster", "default", "c2")
        assert first.value.status == 0 and "timed out" in str(first.value)
        assert str(second.value).startswith(str(first.value)) and "not asked again: out of reach" in str(second.value)
        assert connections() == 1  # the second read opened no connection
        # the memo ends: a server back in reach is asked again
        monkeypatch.setattr(_change_plan, "UNREACHABLE_MEMO_SECONDS", 0.0)
        with pytest.raises(kubeclient.KubeError) as third:
            _change_plan.live_client(access).get_object("RayCluster", "default", "c3")
        assert "not asked again" not in str(third.value) and connections() == 2
    finally:
        listener.close()
        for conn in accepted:
            conn.close()
