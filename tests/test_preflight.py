"""The preflight package on values: the reader (one request per kind, 403/404, unreachable, Secret values dropped),
the snapshot, the Pods a manifest makes, placement (selectors, affinity, taints, cordon, node sources), quotas,
LimitRanges, Kueue and references."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest
from pulumi_kuberay import preflight, rules
from pulumi_kuberay.kubeclient import KubeError
from pulumi_kuberay.preflight import ClusterSnapshot, SnapshotReader

NODE: dict[str, Any] = {
    "metadata": {"name": "n0", "labels": {"pool": "a", "zone": "z1"}},
    "spec": {"taints": [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]},
    "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "2"}},
}


class FakeApi:
    """A GET-only API: path -> body (None: 404), or an exception to raise."""

    def __init__(self, bodies: dict[str, Any]) -> None:
        self.bodies = bodies
        self.paths: list[str] = []

    def get(self, path: str) -> tuple[dict[str, Any] | None, None]:
        self.paths.append(path)
        body = self.bodies.get(path.split("?", 1)[0], self.bodies.get("*"))
        if isinstance(body, Exception):
            raise body
        return body, None


def _cluster(**bodies: Any) -> FakeApi:
    return FakeApi({"/api/v1/nodes": {"items": [NODE]}, "/api/v1/namespaces": {"items": [{"metadata": {"name": "ns"}}]},
                    **bodies})


def test_the_reader_lists_each_kind_once_and_caches() -> None:
    api = _cluster()
    reader = SnapshotReader(api)
    first = reader.snapshot(["ns"])
    assert isinstance(first, ClusterSnapshot)
    count = reader.requests
    assert count == len(preflight.CLUSTER_KINDS) + len(preflight.NAMESPACED_KINDS) == len(api.paths)
    second = reader.snapshot(["ns"])
    assert isinstance(second, ClusterSnapshot) and reader.requests == count  # nothing read again
    reader.snapshot(["ns", "other"])
    assert reader.requests == count + len(preflight.NAMESPACED_KINDS)  # only the new namespace's kinds
    assert [n.name for n in first.nodes or ()] == ["n0"]
    assert first.local_queues is None  # Kueue's API is not served: 404
    assert first.node_sources == ()  # no Karpenter: read, none


def test_secret_values_are_dropped_where_the_list_is_read() -> None:
    secrets = {"items": [{"metadata": {"name": "s", "namespace": "ns", "uid": "x"}, "data": {"token": "c2VjcmV0"}}]}
    api = _cluster(**{"/api/v1/namespaces/ns/secrets": secrets})
    snapshot = SnapshotReader(api).snapshot(["ns"])
    assert isinstance(snapshot, ClusterSnapshot)
    assert snapshot.secrets == {("ns", "s"): frozenset({"token"})}
    assert "c2VjcmV0" not in repr(snapshot) and "c2VjcmV0" not in repr(snapshot.to_data())


def test_forbidden_kinds_are_unread_and_an_unreachable_cluster_is_skipped() -> None:
    api = _cluster(**{"/api/v1/namespaces/ns/secrets": KubeError("GET: HTTP 403 forbidden", 403)})
    snapshot = SnapshotReader(api).snapshot(["ns"])
    assert isinstance(snapshot, ClusterSnapshot)
    assert snapshot.secrets is None and snapshot.unread == ("secrets: HTTP 403",)
    down = SnapshotReader(FakeApi({"*": KubeError("GET /api/v1/nodes: connection refused")}), source="https://x")
    skipped = down.snapshot(["ns"])
    assert skipped == preflight.Skipped("https://x cannot be reached (GET /api/v1/nodes: connection refused)")
    assert skipped.line().startswith("preflight skipped: https://x cannot be reached")
    assert down.snapshot(["ns"]) is skipped and down.requests == 1  # said once, never retried


def test_no_kubeconfig_is_a_skip(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "none"))
    monkeypatch.setenv("HOME", str(tmp_path))
    skipped = preflight.reader_for(None, cached=False)
    assert isinstance(skipped, preflight.Skipped) and "no kubeconfig" in skipped.reason


def _pod(**spec: Any) -> preflight.PodShape:
    template = {"spec": {"containers": [{"name": "ray", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}], **spec}}
    manifest = {"kind": "RayCluster", "apiVersion": "ray.io/v1", "metadata": {"name": "c"},
                "spec": {"headGroupSpec": {"template": template}}}
    [pod] = preflight.pod_shapes(manifest)
    return pod


def _node(**changes: Any) -> preflight.Node:
    node = copy.deepcopy(NODE)
    node["spec"].update(changes.pop("spec", {}))
    node["metadata"]["labels"].update(changes.pop("labels", {}))
    snapshot = ClusterSnapshot.from_lists({"nodes": {"items": [node]}})
    return (snapshot.nodes or ())[0]


TOLERATE = [{"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"}]


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ({"tolerations": TOLERATE}, None),
        ({}, "taint gpu=yes:NoSchedule not tolerated"),
        ({"tolerations": [{"key": "gpu", "operator": "Equal", "value": "no"}]}, "taint gpu=yes:NoSchedule not tolerated"),
        ({"tolerations": [{"operator": "Exists"}]}, None),
        ({"tolerations": TOLERATE, "nodeSelector": {"pool": "b"}}, "nodeSelector pool=b not among its labels"),
        ({"tolerations": TOLERATE, "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["z1"]}]},
                                  {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]}]}}}}, None),
        ({"tolerations": TOLERATE, "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "DoesNotExist"}]}]}}}},
         "no required node-affinity term matches its labels"),
    ],
)
def test_node_rejects(spec: dict[str, Any], why: str | None) -> None:
    assert preflight.node_rejects(_pod(**spec), _node()) == why


def test_requests_against_allocatable_name_the_numbers() -> None:
    pod = _pod(tolerations=TOLERATE, containers=[{"name": "ray", "resources": {"limits": {"cpu": "12", "nvidia.com/gpu": 4}}}])
    assert pod.requests == {"cpu": 12, "nvidia.com/gpu": 4}  # a limit alone requests the limit
    assert preflight.node_rejects(pod, _node()) == "allocatable cpu 8, nvidia.com/gpu 2 < requested cpu 12, nvidia.com/gpu 4"


def test_a_cordoned_node_takes_only_pods_tolerating_it() -> None:
    cordoned = _node(spec={"unschedulable": True})
    assert preflight.node_rejects(_pod(tolerations=TOLERATE), cordoned) == "unschedulable (cordoned)"
    assert preflight.node_rejects(_pod(tolerations=[{"operator": "Exists"}]), cordoned) is None


def test_the_operator_adds_the_autoscaler_and_the_wait_init_container() -> None:
    manifest = rules.RULES["preflight-group-never-placed"].violating[0]
    autoscaled = copy.deepcopy(manifest)
    autoscaled["spec"]["enableInTreeAutoscaling"] = True
    head, worker = preflight.pod_shapes(autoscaled)
    assert head.requests == {"cpu": Fraction(3, 2), "memory": 4 * 2**30 + 512 * 2**20}
    assert [c.name for c in worker.containers] == ["ray-worker", "wait-gcs-ready"]
    assert (worker.count, worker.most) == (1, 5)


def test_quota_must_specify_and_limit_range_defaults() -> None:
    manifest = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "c", "namespace": "ns"},
                "spec": {"headGroupSpec": {"template": {"spec": {"containers": [{"name": "ray"}]}}}}}
    quota = {"metadata": {"name": "q", "namespace": "ns"}, "spec": {"hard": {"requests.cpu": "1", "pods": "5"}}}
    snapshot = ClusterSnapshot.from_lists({"resourcequotas": {"items": [quota]}, "limitranges": {"items": []}})
    [verdict] = preflight.quota_verdicts(preflight.pod_shapes(manifest), "ns", snapshot)
    assert verdict.unspecified == (("the head", "ray", "requests.cpu"),) and verdict.over == {}
    limit_range = {"metadata": {"name": "d", "namespace": "ns"},
                   "spec": {"limits": [{"type": "Container", "default": {"cpu": "2"}}]}}
    with_defaults = ClusterSnapshot.from_lists({"resourcequotas": {"items": [quota]}, "limitranges": {"items": [limit_range]}})
    pods = preflight.pod_shapes(manifest, with_defaults.limit_ranges or ())
    assert pods[0].requests == {"cpu": 2}  # default (the limit) is the request when defaultRequest is absent
    [over] = preflight.quota_verdicts(pods, "ns", with_defaults)
    assert over.over == {"requests.cpu": (Fraction(2), Fraction(1))} and over.unspecified == ()


def test_kueue_needs_the_queue_a_covering_cluster_queue_and_a_flavor_that_holds_it() -> None:
    pods = preflight.pod_shapes(rules.RULES["preflight-group-never-placed"].compliant[0])
    lists: dict[str, Any] = {
        "localqueues": {"items": [{"metadata": {"name": "q", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}}]},
        "clusterqueues": {"items": [{"metadata": {"name": "cq"}, "spec": {"resourceGroups": [{
            "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
            "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": "2"},
                                                     {"name": "memory", "nominalQuota": "5Gi"},
                                                     {"name": "nvidia.com/gpu", "nominalQuota": 4}]}]}]}}]},
        "resourceflavors": {"items": [{"metadata": {"name": "f"}}]},
    }
    snapshot = ClusterSnapshot.from_lists(lists)
    assert preflight.kueue_problem(pods, "ns", "missing", snapshot) == "LocalQueue 'missing' does not exist in namespace 'ns'"
    problem = preflight.kueue_problem(pods, "ns", "q", snapshot)
    assert problem is not None and problem.startswith("no flavor of ClusterQueue 'cq' holds cpu 2, memory 6Gi, nvidia.com/gpu 1 (f: cpu 2,")
    assert preflight.kueue_problem(pods, "ns", "q", ClusterSnapshot()) is None  # Kueue not read: no verdict


def test_references_and_keys() -> None:
    rule = rules.RULES["preflight-reference-missing"]
    manifest, snapshot = rule.compliant
    assert preflight.missing_references(manifest, "default", snapshot) == []
    wrong_key = ClusterSnapshot.from_lists({
        "secrets": {"items": [{"metadata": {"name": "hf-token", "namespace": "default"}, "data": {"other": ""}}]},
        "serviceaccounts": {"items": []},
    }, namespaces=("default",))
    found = [(m.reference.kind, m.why) for m in preflight.missing_references(manifest, "default", wrong_key)]
    assert found == [("ServiceAccount", "does not exist"), ("Secret", "has no key 'token' (it has: other)")]
    # created with it (kuberay-lint --cluster on files that create the Secret): not missing, and critical otherwise
    created = frozenset({("Secret", "default", "hf-token"), ("ServiceAccount", "default", "ray")})
    assert rules.check_preflight(manifest, wrong_key, created_here=created) == [
        f for f in rules.check_preflight(manifest, wrong_key, created_here=created) if "key 'token'" in f.message
    ]
    found_now = rules.check_preflight(manifest, wrong_key, created_here=frozenset())
    severities = {f.message.split(" ")[0]: f.severity for f in found_now}
    assert severities == {"ServiceAccount": "critical", "Secret": "critical"}


def test_a_namespace_not_there_yet_is_not_judged() -> None:
    rule = rules.RULES["preflight-reference-missing"]
    manifest, _ = rule.violating
    later = ClusterSnapshot.from_lists({"secrets": {"items": []}, "serviceaccounts": {"items": []}}, namespaces=())
    assert rules.check_preflight(manifest, later) == []


def test_unknown_values_are_never_judged() -> None:
    manifest = copy.deepcopy(rules.RULES["preflight-group-never-placed"].violating[0])
    manifest["spec"]["workerGroupSpecs"][0]["template"]["spec"]["nodeSelector"] = {"pool": rules.UNKNOWN_SENTINEL}
    assert rules.check_preflight(manifest, rules.RULES["preflight-group-never-placed"].violating[1]) == []


def test_a_node_source_that_could_add_a_fitting_node_is_named_and_not_critical() -> None:
    rule = rules.RULES["preflight-group-never-placed"]
    manifest, snapshot = rule.violating
    autoscaler = {"data": {"status": "Cluster-autoscaler status at 2026-12-05\nNodeGroups:\n  Name: gpu-pool\n"}}
    nodes = [{"metadata": {"name": n.name}, "status": {"allocatable": {k: str(v) for k, v in n.allocatable.items()}}}
             for n in snapshot.nodes or ()]
    lists = {"nodes": {"items": nodes}, "cluster-autoscaler-status": autoscaler}
    with_source = ClusterSnapshot.from_lists(lists)
    [finding] = rules.check_preflight(manifest, with_source)
    assert finding.severity == "medium" and "cluster-autoscaler node group 'gpu-pool' could add one" in finding.message
    karpenter = {"metadata": {"name": "cpu-only"}, "spec": {"template": {"spec": {"requirements": [
        {"key": "accelerator", "operator": "In", "values": ["none"]}]}}, "limits": {"nvidia.com/gpu": 0}}}
    without = ClusterSnapshot.from_lists({**lists, "cluster-autoscaler-status": None, "nodepools": {"items": [karpenter]}})
    assert [f.severity for f in rules.check_preflight(manifest, without)] == ["critical"]  # its limits hold no GPU
