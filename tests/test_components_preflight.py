# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""The preflight in the components (mocks): with the target cluster readable, a GPU group that no node takes fails
the preview before anything is registered, naming the group, the numbers and the nodes; a node source that could
add such a node makes it a warning naming that source; an unreadable cluster is one info line, never an error."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, after_settling, mock_env
from pulumi_kuberay import preflight
from pulumi_kuberay.resources import _preflight, use_cluster_snapshot
from pulumi_kuberay.resources._shared import CriticalFindingsError
from pulumi_kuberay.resources.cluster import RayCluster

CPU_NODE = {
    "metadata": {"name": "cpu-0", "labels": {"kubernetes.io/hostname": "cpu-0"}},
    "spec": {},
    "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}},
}
KARPENTER_GPU_POOL = {
    "metadata": {"name": "gpu"},
    "spec": {
        "template": {
            "spec": {
                "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]}],
                "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
            }
        },
        "limits": {"nvidia.com/gpu": "16"},
    },
}


def _snapshot(*, pools: list[dict[str, Any]] | None = None) -> preflight.ClusterSnapshot:
    lists: dict[str, Any] = {"nodes": {"items": [CPU_NODE]}, "pods": {"items": []}, "nodepools": {"items": pools or []}}
    for kind in ("resourcequotas", "limitranges", "secrets", "configmaps", "serviceaccounts", "persistentvolumeclaims"):
        lists[kind] = {"items": []}
    return preflight.ClusterSnapshot.from_lists(lists, source="https://example:6443", namespaces=("default",))


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """What the components judge against (``use_cluster_snapshot``): set ``["snapshot"]`` (a snapshot or a Skipped)."""
    state: dict[str, Any] = {"snapshot": _snapshot(), "namespaces": []}

    def fake(namespace: str, manifest: Mapping[str, Any]) -> Any:
        state["namespaces"].append(namespace)
        return state["snapshot"]

    use_cluster_snapshot(fake)
    monkeypatch.setattr(_preflight, "_SAID", set())
    yield state
    use_cluster_snapshot(None)


def gpu_spec() -> dict[str, Any]:
    return {
        "rayVersion": "2.52.0",
        "image": "rayproject/ray:2.52.0",
        "headGroupSpec": {"cpu": 1, "memory": "4Gi"},
        "workerGroupSpecs": [
            {
                "groupName": "gpu",
                "cpu": 8,
                "memory": "32Gi",
                "gpu": 1,
                "replicas": 1,
                "minReplicas": 1,
                "maxReplicas": 2,
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            }
        ],
    }


@pulumi.runtime.test
def test_a_gpu_group_no_node_takes_fails_the_preview(mocks: MockEnv, cluster: dict[str, Any]) -> pulumi.Output[Any]:
    with pytest.raises(CriticalFindingsError) as raised:
        RayCluster("train", gpu_spec(), namespace="default")
    [finding] = raised.value.findings
    assert finding.rule_id == "preflight-group-never-placed"
    assert finding.path == "spec.workerGroupSpecs[0]"
    assert finding.message == (
        "worker group 'gpu': its Pods can never be placed: requests cpu 8, memory 32Gi, nvidia.com/gpu 1; compared "
        "with the 1 node(s) of https://example:6443: cpu-0: allocatable nvidia.com/gpu 0 < requested "
        "nvidia.com/gpu 1; no node source (Karpenter NodePool, cluster-autoscaler node group) could add one"
    )
    assert cluster["namespaces"] == ["default"]
    assert mocks.created() == []
    return pulumi.Output.from_input(None)


@pulumi.runtime.test
def test_a_node_source_that_could_add_the_node_makes_it_a_warning(
    mocks: MockEnv, cluster: dict[str, Any]
) -> pulumi.Output[Any]:
    cluster["snapshot"] = _snapshot(pools=[KARPENTER_GPU_POOL])
    comp = RayCluster("train", gpu_spec(), namespace="default")

    def check(*_: Any) -> None:
        found = [w for w in mocks.log.warnings if w.startswith("[preflight-group-never-placed]")]
        assert len(found) == 1, mocks.log.warnings
        assert found[0].startswith("[preflight-group-never-placed] medium at spec.workerGroupSpecs[0]: ")
        assert "Karpenter NodePool 'gpu' could add one: the Pods wait for that node (medium, not critical: a node source can add a node that takes them)" in found[0]
        assert [r.typ for r in mocks.created()] == ["kuberay:index:RayCluster", "kubernetes:ray.io/v1:RayCluster"]

    return after_settling(check, comp.urn, comp.resource.urn)


@pulumi.runtime.test
def test_an_unreadable_cluster_skips_the_preflight(mocks: MockEnv, cluster: dict[str, Any]) -> pulumi.Output[Any]:
    cluster["snapshot"] = preflight.Skipped("https://example:6443 cannot be reached (connection refused)")
    comp = RayCluster("train", gpu_spec(), namespace="default")

    def check(*_: Any) -> None:
        assert not [w for w in mocks.log.warnings if w.startswith("[preflight-")]
        assert len(mocks.created()) == 2

    return after_settling(check, comp.urn, comp.resource.urn)


def test_the_hook_adds_what_the_change_plan_shows(monkeypatch: pytest.MonkeyPatch, cluster: dict[str, Any]) -> None:
    """The resource hook: a NewCluster upgrade's second cluster against the free room (a warning) and the quota
    (fails the step); what the construction already said is not said again."""
    from pulumi_kuberay import rules
    from pulumi_kuberay.plan import Operator, plan_change
    from pulumi_kuberay.rules import Target

    rule = rules.RULES["preflight-upgrade-does-not-fit"]
    new, busy, old = rule.violating
    change = plan_change(old, new, Operator(), mode="apply")
    assert change.action == "new-cluster"
    warned: list[str] = []
    monkeypatch.setattr(pulumi.log, "warn", lambda message, resource=None, *a, **k: warned.append(message))
    cluster["snapshot"] = busy
    def judge() -> None:
        component: Any = None  # the hook logs on the component; none here
        _preflight.judge_plan(component, change, new, Target(), access=None, redact=lambda text: text)

    judge()
    assert len(warned) == 1
    assert warned[0].startswith("[preflight-upgrade-does-not-fit] high at spec: the new-cluster upgrade's second cluster needs cpu 13 (free 4)")
    quota = {"metadata": {"name": "team", "namespace": "default"}, "spec": {"hard": {"requests.cpu": "4"}},
             "status": {"used": {"requests.cpu": "2"}}}
    cluster["snapshot"] = preflight.ClusterSnapshot.from_lists(
        {"nodes": {"items": [CPU_NODE]}, "resourcequotas": {"items": [quota]}}, namespaces=("default",)
    )
    with pytest.raises(CriticalFindingsError) as raised:
        judge()
    assert [f.rule_id for f in raised.value.findings] == ["preflight-upgrade-does-not-fit"]
    assert "ResourceQuota 'team' has 2 left" in raised.value.findings[0].message
