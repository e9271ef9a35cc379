# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""The component-side await's shell: which mechanism a component gets (``plan_await``, ``watch_with``), the
read-only REST client against a local HTTP server, and the components under pulumi mocks with a simulated
cluster (status from the wait, fail fast, ordering with a RayJob on the cluster, a plan that is an Output)."""

from __future__ import annotations

import copy
import json
import stat
import sys
import threading
from collections.abc import Iterator
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, mock_env
from pulumi_kuberay import kubeclient
from pulumi_kuberay.resources import _component_await as component_await
from pulumi_kuberay.resources._provider_wait_for import WAIT_FOR_ANNOTATION
from test_wait_verdict import NOW, T0, _event, snap

# --------------------------------------------------------------------------------------------------
# The plan: which mechanism, which annotations.

KUBECONFIG_TEXT = """apiVersion: v1
kind: Config
current-context: local
contexts: [{name: local, context: {cluster: local, user: local}}]
clusters: [{name: local, cluster: {server: "http://127.0.0.1:%d"}}]
users: [{name: local, user: {token: secret-token}}]
"""


@pytest.fixture
def kubeconfig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config"
    path.write_text(KUBECONFIG_TEXT % 1)
    monkeypatch.setenv("KUBECONFIG", str(path))
    monkeypatch.delenv(component_await.AWAIT_ENV, raising=False)
    return path


def test_plan_component_mode_when_a_kubeconfig_is_found(kubeconfig: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mocked = isinstance(pulumi.runtime.settings.get_monitor(), pulumi.runtime.mocks.MockMonitor)
    assert component_await._mocked() is mocked
    monkeypatch.setattr(component_await, "_mocked", lambda: False)  # earlier mock tests leave their monitor installed
    plan = component_await.plan_await("RayCluster", {}, labels=None, opts=None, timeout_seconds=300)
    assert plan.mode == "component"
    assert plan.annotations == {component_await.SKIP_AWAIT_ANNOTATION: "true"}
    assert plan.timeout_seconds == 300


def test_plan_falls_back_to_the_provider(kubeconfig: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pulumi_kubernetes import Provider

    explicit = pulumi.ResourceOptions(provider=Provider.__new__(Provider))
    object.__setattr__(explicit.provider, "package", "kubernetes")
    plan = component_await.plan_await("RayCluster", {}, labels=None, opts=explicit, timeout_seconds=None)
    assert plan.mode == "provider" and WAIT_FOR_ANNOTATION in plan.annotations
    monkeypatch.setenv(component_await.AWAIT_ENV, "provider")
    assert component_await.plan_await("RayService", {}, labels=None, opts=None, timeout_seconds=None).mode == "provider"
    monkeypatch.setenv(component_await.AWAIT_ENV, "sometimes")
    with pytest.raises(ValueError, match="PULUMI_KUBERAY_AWAIT"):
        component_await.plan_await("RayService", {}, labels=None, opts=None, timeout_seconds=None)


def test_plan_uses_a_watched_explicit_provider(
    kubeconfig: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stack program's explicit provider, registered with watch_with, gets the component's wait on the
    provider's own kubeconfig and context."""
    from pulumi_kubernetes import Provider

    monkeypatch.setattr(component_await, "_mocked", lambda: False)
    other = tmp_path / "other-config"
    other.write_text(KUBECONFIG_TEXT % 7)
    provider = Provider.__new__(Provider)
    object.__setattr__(provider, "package", "kubernetes")
    assert component_await.watch_with(provider, kubeconfig=str(other), context="local") is provider
    plan = component_await.plan_await(
        "RayService", {}, labels=None, opts=pulumi.ResourceOptions(provider=provider), timeout_seconds=None
    )
    assert plan.mode == "component" and plan.context == "local"
    assert plan.kubeconfig is not None and plan.kubeconfig[0] == KUBECONFIG_TEXT % 7


def test_plan_respects_the_users_annotations_and_off(kubeconfig: Path) -> None:
    mine = {WAIT_FOR_ANNOTATION: "condition=RayClusterProvisioned"}
    plan = component_await.plan_await("RayCluster", {}, labels=None, opts=None, timeout_seconds=None, annotations=mine)
    assert plan.mode == "provider" and plan.annotations == {}
    off = component_await.plan_await("RayCluster", {}, labels=None, opts=None, timeout_seconds=None, enabled=False)
    assert off.mode == "none" and off.annotations == {}
    with pytest.raises(ValueError, match="timeout_seconds must be positive, got 0"):
        component_await.plan_await("RayCluster", {}, labels=None, opts=None, timeout_seconds=0)


def test_no_kubeconfig_means_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv(component_await.AWAIT_ENV, raising=False)
    assert component_await.plan_await("RayCluster", {}, labels=None, opts=None, timeout_seconds=None).mode == "provider"


# --------------------------------------------------------------------------------------------------
# The REST client against a local HTTP server.


class _Handler(BaseHTTPRequestHandler):
    objects: dict[str, Any] = {}
    seen_headers: list[dict[str, str]] = []

    def do_GET(self) -> None:
        self.seen_headers.append(dict(self.headers))
        body = self.objects.get(self.path.split("?")[0])
        if "events" in self.path:
            body = {"items": [_event("InvalidRayClusterSpec", at=T0)]}
        self.send_response_only(200 if body is not None else 404)  # no automatic Date header
        self.send_header("Content-Type", "application/json")
        self.send_header("Date", format_datetime(T0, usegmt=True))
        self.end_headers()
        self.wfile.write(json.dumps(body or {"kind": "Status", "code": 404}).encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def api_server() -> Iterator[int]:
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_client_reads_object_events_and_server_time(api_server: int) -> None:
    _Handler.objects = {"/apis/ray.io/v1/namespaces/ml/rayclusters/shared": snap("raycluster-ready")}
    client = kubeclient.load_client(KUBECONFIG_TEXT % api_server, None)
    obj, now = client.get_object("RayCluster", "ml", "shared")
    assert obj is not None and obj["kind"] == "RayCluster" and now == T0
    assert _Handler.seen_headers[-1]["Authorization"] == "Bearer secret-token"
    missing, _ = client.get_object("RayCluster", "ml", "gone")
    assert missing is None
    assert client.events_about("RayCluster", "ml", "shared")[0]["reason"] == "InvalidRayClusterSpec"


def test_client_unreachable_is_transient() -> None:
    client = kubeclient.load_client(KUBECONFIG_TEXT % 1, None)
    with pytest.raises(kubeclient.KubeError) as caught:
        client.get_object("RayCluster", "ml", "shared")
    assert not caught.value.permanent


def test_kubeconfig_exec_plugin_and_errors(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    plugin.write_text(f"#!{sys.executable}\nimport json\nprint(json.dumps({{'status': {{'token': 'from-exec'}}}}))\n")
    plugin.chmod(plugin.stat().st_mode | stat.S_IEXEC)
    text = (
        (KUBECONFIG_TEXT % 1)
        .replace('server: "http://', 'server: "https://')
        .replace("user: {token: secret-token}", f"user: {{exec: {{command: '{plugin}'}}}}")
    )
    text = text.replace("cluster: {server:", "cluster: {insecure-skip-tls-verify: true, server:")
    client = kubeclient.load_client(text, None)
    assert client.headers["Authorization"] == "Bearer from-exec"
    with pytest.raises(kubeclient.KubeConfigError):
        kubeclient.load_client("current-context: nope\ncontexts: []\n", None)
    with pytest.raises(kubeclient.KubeConfigError):
        kubeclient.load_client(": : :", None)


def test_find_kubeconfig_prefers_the_stack_config(kubeconfig: Path, tmp_path: Path) -> None:
    inline = KUBECONFIG_TEXT % 5
    found = kubeclient.find_kubeconfig(inline)
    assert found is not None and found[0] == inline
    found = kubeclient.find_kubeconfig(None)
    assert found is not None and found[1] == kubeconfig.parent


# --------------------------------------------------------------------------------------------------
# The components with a component-side await (pulumi mocks, a simulated cluster).


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


def _simulate(monkeypatch: pytest.MonkeyPatch, kubeconfig: Path, obj: dict[str, Any]) -> None:
    monkeypatch.setenv(component_await.AWAIT_ENV, "component")

    def fetcher(plan: component_await.WaitSpec) -> Any:
        return lambda kind, ns, name: (copy.deepcopy(obj), [], NOW)

    monkeypatch.setattr(component_await, "_fetcher", fetcher)


SPEC = {
    "rayVersion": "2.52.0",
    "image": "rayproject/ray:2.52.0",
    "headGroupSpec": {"cpu": 1, "memory": "4Gi"},
    "workerGroupSpecs": [
        {"groupName": "cpu", "cpu": 1, "memory": "4Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": 2}
    ],
}


@pulumi.runtime.test
def test_component_status_is_the_awaited_one(
    mocks: MockEnv, monkeypatch: pytest.MonkeyPatch, kubeconfig: Path
) -> pulumi.Output[Any]:
    from pulumi_kuberay.resources.cluster import RayCluster

    live = snap("raycluster-ready")
    _simulate(monkeypatch, kubeconfig, live)
    cluster = RayCluster("shared", SPEC)

    def check(status: Any) -> None:
        annotations = mocks.ray("RayCluster")[0].inputs["metadata"]["annotations"]
        assert annotations == {component_await.SKIP_AWAIT_ANNOTATION: "true"}
        assert status == live["status"]

    return cluster.status.apply(check)


def test_component_fails_fast_with_the_diagnosis(
    mocks: MockEnv, monkeypatch: pytest.MonkeyPatch, kubeconfig: Path
) -> None:
    from pulumi_kuberay.resources.cluster import RayCluster

    _simulate(monkeypatch, kubeconfig, snap("raycluster-head-crashloop"))

    @pulumi.runtime.test
    def program() -> pulumi.Output[Any]:
        return RayCluster("shared", SPEC).status

    with pytest.raises(component_await.WaitFailedError, match="CrashLoopBackOff"):
        program()


@pulumi.runtime.test
def test_rayjob_on_a_cluster_is_registered_after_the_clusters_wait(
    mocks: MockEnv, monkeypatch: pytest.MonkeyPatch, kubeconfig: Path
) -> pulumi.Output[Any]:
    """With skipAwait the cluster's custom resource is created at once; the RayJob must still wait for the
    cluster component's own wait (it depends on the awaited status, not only on the component)."""
    from pulumi_kuberay.resources.cluster import RayCluster
    from pulumi_kuberay.resources.job import RayJob

    monkeypatch.setenv(component_await.AWAIT_ENV, "component")
    registered_before_wait_ended: list[int] = []

    def fetcher(plan: component_await.WaitSpec) -> Any:
        def fetch(kind: str, ns: str, name: str) -> Any:
            registered_before_wait_ended.append(len(mocks.ray("RayJob")))
            return copy.deepcopy(snap("raycluster-ready")), [], NOW

        return fetch

    monkeypatch.setattr(component_await, "_fetcher", fetcher)
    cluster = RayCluster("shared", SPEC)
    job = RayJob("train", {"entrypoint": "python train.py"}, cluster=cluster)

    def check(_: Any) -> None:
        assert registered_before_wait_ended == [0], registered_before_wait_ended
        assert len(mocks.ray("RayJob")) == 1

    return job.status.apply(check)


@pulumi.runtime.test
def test_awaited_status_takes_a_plan_that_is_an_output(
    mocks: MockEnv, monkeypatch: pytest.MonkeyPatch, kubeconfig: Path
) -> pulumi.Output[Any]:
    """A component whose arguments are Outputs decides its plan once they resolve."""
    from pulumi_kuberay.resources._shared import RayCustomResource

    live = snap("raycluster-ready")
    _simulate(monkeypatch, kubeconfig, live)
    plan = component_await.plan_await("RayCluster", {}, labels=None, opts=None, timeout_seconds=60)
    assert plan.mode == "component"
    component = pulumi.ComponentResource("test:index:Holder", "holder")
    manifest = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "x"}, "spec": {}}
    cr = RayCustomResource("x", manifest, pulumi.ResourceOptions(parent=component))
    later = pulumi.Output.from_input("resolved").apply(lambda _: plan)
    status = component_await.awaited_status(component, cr, "RayCluster", later, subject="RayCluster 'x'")
    return status.apply(lambda s: assert_equal(s, live["status"]))


def assert_equal(actual: Any, expected: Any) -> None:
    assert actual == expected
