# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""The cluster's admission in the components (mocks): the children of a component's rendered manifest are sent as
dry runs through the reader (a fake API), and a refusal fails the preview before anything is registered, at the
group's template path, in the server's words."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, mock_env
from pulumi_kuberay import preflight
from pulumi_kuberay.kubeclient import KubeError
from pulumi_kuberay.resources import _preflight, use_cluster_snapshot
from pulumi_kuberay.resources._shared import CriticalFindingsError
from pulumi_kuberay.resources.cluster import RayCluster

LIMIT = "maximum cpu usage per Container is 500m, but limit is 1"


class LimitedNamespace:
    """A fake API: one node, and a LimitRange whose ``max`` cpu (500m) refuses every Pod with a 1-CPU container."""

    def __init__(self) -> None:
        self.posted: list[Mapping[str, Any]] = []

    def get(self, path: str) -> tuple[dict[str, Any] | None, None]:
        if path.startswith("/api/v1/nodes"):
            node = {"metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}
            return {"items": [node]}, None
        if path.startswith("/api/v1/namespaces?") or path == "/api/v1/namespaces":
            return {"items": [{"metadata": {"name": "default"}}]}, None
        return {"items": []}, None

    def dry_run_create(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        self.posted.append(body)
        containers = body.get("spec", {}).get("containers") or []
        if body["kind"] == "Pod" and any(c["resources"]["limits"]["cpu"] in (1, "1") for c in containers):
            detail = f'pods "{body["metadata"]["generateName"]}abcde" is forbidden: {LIMIT}'
            raise KubeError(detail, 403, reason="Forbidden", detail=detail)
        return dict(body)


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[LimitedNamespace]:
    fake = LimitedNamespace()
    reader = preflight.SnapshotReader(fake, source="https://example:6443", deadline=5.0)

    def judged(namespace: str, manifest: Mapping[str, Any]) -> Any:
        snapshot = reader.snapshot([namespace])
        if isinstance(snapshot, preflight.Skipped):
            return snapshot
        return reader.judge_children(snapshot, manifest, namespace)

    use_cluster_snapshot(judged)
    monkeypatch.setattr(_preflight, "_SAID", set())
    yield fake
    use_cluster_snapshot(None)


@pulumi.runtime.test
def test_a_pod_the_namespaces_limit_range_refuses_fails_the_preview(
    mocks: MockEnv, api: LimitedNamespace
) -> pulumi.Output[Any]:
    spec = {
        "rayVersion": "2.52.0",
        "image": "rayproject/ray:2.52.0",
        "headGroupSpec": {"cpu": 1, "memory": "4Gi"},
        "workerGroupSpecs": [{"groupName": "cpu", "cpu": 1, "memory": "2Gi", "replicas": 2, "minReplicas": 2, "maxReplicas": 2}],
    }
    with pytest.raises(CriticalFindingsError) as raised:
        RayCluster("train", spec, namespace="default")
    found = sorted((f.rule_id, f.path) for f in raised.value.findings)
    assert found == [
        ("preflight-admission-refuses-child", "spec.headGroupSpec.template"),
        ("preflight-admission-refuses-child", "spec.workerGroupSpecs[0].template"),
    ]
    assert all(LIMIT in f.message and "https://example:6443 refuses" in f.message for f in raised.value.findings)
    assert [b["kind"] for b in api.posted] == ["Pod", "Pod", "Service"]  # two replicas: one worker Pod asked
    assert mocks.created() == []
    return pulumi.Output.from_input(None)
