"""The preflight against the real scheduler: for generated RayClusters, its verdict equals what happens to the Pods.

On the local control plane (real kube-apiserver with its admission plugins, real kube-scheduler, the real KubeRay
operator, kwok nodes): node pools of declared shapes (CPU, memory, ``nvidia.com/gpu``, labels, taints, a cordoned
node), namespaces with ResourceQuotas and LimitRanges, ServiceAccounts, Secrets and a PriorityClass. Each case is one
RayCluster (seeded, deterministic); the preflight reads the cluster with :class:`~pulumi_kuberay.preflight.
SnapshotReader` and its findings give a verdict:

* ``refused``: the over-quota rule, or a missing ServiceAccount or PriorityClass (the admission plugins refuse the
  Pods: the operator's ``FailedToCreate...Pod`` events say so);
* ``never``: a group that no node takes, or a missing PersistentVolumeClaim (``FailedScheduling``: the Pod's
  ``PodScheduled`` condition is False, reason ``Unschedulable``);
* ``secret``: a missing Secret or key (``CreateContainerConfigError`` on a real kubelet);
* ``placed``: every Pod bound by the scheduler.

kwok runs no container: a Pod whose Secret is missing is bound and reported Running, so here the ``secret`` cases
are compared on placement (bound: the verdict also says every Pod is placed) and counted apart. What their
containers do is compared in ``test_preflight_secrets.py``, on pod-runner's node that runs them: every case of this
generator whose Pods read a Secret, ``CreateContainerConfigError`` with the kubelet's message exactly where the
preflight finds the Secret or key missing, the container started everywhere else.

Capacity: the preflight judges "ever" (an empty node), the scheduler "now". Every case's Pods go only to this test's
pools (a nodeSelector or required affinity on the pool label), a batch places at most one node's allocatable per
pool, and each batch's namespaces are deleted (and their Pods gone) before the next's RayClusters are applied: "ever"
then equals "now". (The next batch's namespaces, which take no node capacity, are made while those Pods go.)
"""

from __future__ import annotations

import json
import random
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest
import yaml
from pulumi_kuberay import preflight, rules

from .conftest import LocalCluster

SEED = 33
CASES = 320
POOL_LABEL = "preflight.pulumi-kuberay.io/pool"
PRIORITY_CLASS = "preflight-high"
#: Namespaces of this run (a namespace of an earlier run on the same control plane may still be terminating).
RUN = f"{int(time.time()) % 100000:05d}"

#: pool -> (node count, allocatable, extra labels per node, taints, unschedulable)
POOLS: dict[str, tuple[int, dict[str, str], list[dict[str, str]], list[dict[str, str]], bool]] = {
    "small": (2, {"cpu": "4", "memory": "16Gi"}, [{"zone": "a"}, {"zone": "b"}], [], False),
    "big": (2, {"cpu": "32", "memory": "128Gi"}, [{"zone": "a"}, {"zone": "a"}], [], False),
    "gpu": (2, {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "8"}, [{"accelerator": "a100"}] * 2,
            [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}], False),
    "t4": (1, {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "1"}, [{"accelerator": "t4"}], [], False),
    "dedicated": (2, {"cpu": "16", "memory": "64Gi"}, [{"zone": "a"}, {"zone": "b"}],
                  [{"key": "dedicated", "value": "ray", "effect": "NoExecute"}], False),
    "cordoned": (1, {"cpu": "64", "memory": "256Gi"}, [{"zone": "a"}], [], True),
}
CPUS = [("100m", 45), ("500m", 30), ("2", 14), ("6", 5), ("20", 3), ("40", 3)]
MEMORY = [("128Mi", 45), ("1Gi", 35), ("8Gi", 14), ("100Gi", 3), ("300Gi", 3)]
GPUS = [(0, 80), (1, 10), (2, 4), (8, 3), (16, 3)]
#: Where a group's Pods are sent ("none": a pool no node is in).
TARGETS = [("small", 25), ("big", 30), ("gpu", 15), ("t4", 5), ("dedicated", 10), ("cordoned", 4), ("none", 3)]
#: The toleration a pool's taint needs, given with this probability when the group targets that pool.
NEEDED = {"gpu": 0, "dedicated": 1}
TOLERATIONS = [
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "dedicated", "operator": "Equal", "value": "ray", "effect": "NoExecute"},
    {"key": "dedicated", "operator": "Equal", "value": "other", "effect": "NoExecute"},
    {"operator": "Exists"},
]


def _pick(rng: random.Random, weighted: list[tuple[Any, int]]) -> Any:
    return rng.choices([v for v, _ in weighted], [w for _, w in weighted])[0]


def _nodes() -> list[dict[str, Any]]:
    out = []
    for pool, (count, allocatable, labels, taints, cordoned) in POOLS.items():
        for i in range(count):
            name = f"pf-{pool}-{i}"
            out.append({
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": name,
                    "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
                    "labels": {"kubernetes.io/hostname": name, "type": "kwok", POOL_LABEL: pool, **labels[i]},
                },
                "spec": {"taints": taints, **({"unschedulable": True} if cordoned else {})},
                "status": {"allocatable": {**allocatable, "pods": "110"}, "capacity": {**allocatable, "pods": "110"}},
            })
    return out


# --------------------------------------------------------------------------------------------------
# The cases


@dataclass
class Case:
    index: int
    manifest: dict[str, Any]
    #: the case's own namespace's quota and LimitRange (None: the batch's shared namespace)
    quota: dict[str, Any] | None = None
    limit_range: dict[str, Any] | None = None
    namespace: str = ""
    verdict: str = ""
    why: list[str] = field(default_factory=list)
    outcome: str = ""
    expected_pods: int = 0
    #: the operator's event that says why a Pod was refused
    refusal: str = ""


def _group_pod(rng: random.Random, role: str) -> dict[str, Any]:
    cpu, memory, gpu = _pick(rng, CPUS), _pick(rng, MEMORY), _pick(rng, GPUS)
    requests: dict[str, Any] = {"cpu": cpu, "memory": memory}
    if gpu:
        requests["nvidia.com/gpu"] = gpu
    container: dict[str, Any] = {"name": f"ray-{role}", "image": "rayproject/ray:2.52.0"}
    roll = rng.random()
    if roll < 0.75:
        container["resources"] = {"requests": dict(requests), "limits": dict(requests)}
    elif roll < 0.9:
        container["resources"] = {"limits": dict(requests)}  # requests default to the limits
    else:
        container["resources"] = {"requests": {"nvidia.com/gpu": gpu}, "limits": {"nvidia.com/gpu": gpu}} if gpu else {}
    spec: dict[str, Any] = {"containers": [container]}
    pool = rng.choice(["gpu", "gpu", "t4", "small"]) if gpu and rng.random() < 0.8 else _pick(rng, TARGETS)
    target = rng.random()
    if target < 0.6:
        spec["nodeSelector"] = {POOL_LABEL: pool}
        if rng.random() < 0.2:
            spec["nodeSelector"]["zone"] = rng.choice(["a", "b"])
    else:
        pools = sorted({pool, _pick(rng, TARGETS)})
        term: dict[str, Any] = {"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": pools}]}
        if rng.random() < 0.3:
            term["matchExpressions"].append({"key": "accelerator", "operator": rng.choice(["Exists", "DoesNotExist"])})
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    tolerations = [t for t in TOLERATIONS[:3] if rng.random() < 0.15]
    if pool in NEEDED and rng.random() < 0.85 and TOLERATIONS[NEEDED[pool]] not in tolerations:
        tolerations.append(TOLERATIONS[NEEDED[pool]])
    if rng.random() < 0.04:
        tolerations.append(TOLERATIONS[3])
    if tolerations:
        spec["tolerations"] = tolerations
    reference = rng.random()
    if reference < 0.05:
        spec["serviceAccountName"] = rng.choice(["ray-sa", "missing-sa"])
    elif reference < 0.17:
        secret, key = rng.choice([("creds", "token"), ("creds", "nokey"), ("nosuch", "token")])
        container["env"] = [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": secret, "key": key}}}]
    elif reference < 0.20:
        spec["priorityClassName"] = rng.choice([PRIORITY_CLASS, "nosuch-priority"])
    elif reference < 0.23:
        spec["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "nosuch-claim"}}]
        container["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    return {"spec": spec}


def _quota(rng: random.Random, manifest: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    pods = preflight.pod_shapes(manifest)
    total = preflight.totals(pods)
    count = sum(p.count for p in pods)

    def around(amount: Fraction, unit: int) -> str:
        scaled = amount * Fraction(rng.choice([1, 2, 3, 4]), 2) if rng.random() < 0.7 else amount * 4
        return str(max(int(scaled * unit), 1)) + ("m" if unit == 1000 else "")

    hard = {
        "requests.cpu": around(total.get("cpu", Fraction(1)), 1000),
        "requests.memory": around(total.get("memory", Fraction(1 << 30)), 1),
        "pods": str(max(count + rng.choice([-1, 0, 0, 1, 2]), 1)),
    }
    if total.get("nvidia.com/gpu"):
        hard["requests.nvidia.com/gpu"] = str(int(total["nvidia.com/gpu"]) + rng.choice([-1, 0, 1]))
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "team"}, "spec": {"hard": hard}}
    limit_range = None
    if rng.random() < 0.5:
        limit_range = {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {"name": "defaults"},
            "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "250m", "memory": "256Mi"},
                                 "default": {"cpu": "500m", "memory": "512Mi"}}]},
        }
    return quota, limit_range


def generate(count: int, seed: int = SEED) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        spec: dict[str, Any] = {
            "rayVersion": "2.52.0",
            "headGroupSpec": {"rayStartParams": {}, "template": _group_pod(rng, "head")},
            "workerGroupSpecs": [],
        }
        for g in range(rng.choice([0, 1, 1, 2])):
            replicas = rng.choice([0, 1, 1, 2])
            spec["workerGroupSpecs"].append({
                "groupName": f"g{g}",
                "replicas": replicas,
                "minReplicas": min(replicas, rng.choice([0, 1])),
                "maxReplicas": 3,
                "rayStartParams": {},
                "template": _group_pod(rng, "worker"),
            })
        if rng.random() < 0.15:
            spec["enableInTreeAutoscaling"] = True
            spec["autoscalerOptions"] = {"version": "v2"}
            spec["headGroupSpec"]["template"]["spec"].pop("serviceAccountName", None)
        manifest = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": f"c{i:03d}"}, "spec": spec}
        case = Case(i, manifest)
        if rng.random() < 0.22:
            case.quota, case.limit_range = _quota(rng, manifest)
        cases.append(case)
    return cases


# --------------------------------------------------------------------------------------------------
# Verdicts and outcomes


def verdict_of(findings: list[rules.Finding], idle: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """The preflight's verdict for one case from its findings (worst first: refused, never, secret, placed); the
    findings about a group that starts with no Pod (``idle``: its path; autoscaling may add them later) are left
    out: no Pod of it exists to compare with."""
    findings = [f for f in findings if not any(f.path == p or f.path.startswith(p + ".") for p in idle)]
    found = {
        "refused": [f for f in findings if f.rule_id == "preflight-over-quota" or (
            f.rule_id == "preflight-reference-missing"
            and f.message.startswith(("ServiceAccount", "PriorityClass", "RuntimeClass")))],
        "never": [f for f in findings if (f.rule_id == "preflight-group-never-placed" and f.severity == "critical") or (
            f.rule_id == "preflight-reference-missing" and f.message.startswith("PersistentVolumeClaim"))],
        "secret": [f for f in findings if f.rule_id == "preflight-reference-missing"
                   and f.message.startswith(("Secret", "ConfigMap"))],
    }
    for verdict in ("refused", "never", "secret"):
        if found[verdict]:
            return verdict, [f.message for f in found[verdict]]
    return "placed", []


def _unschedulable(pod: dict[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") == "Unschedulable"
               for c in conditions)


def _config_error(pod: dict[str, Any]) -> bool:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return any(((s.get("state") or {}).get("waiting") or {}).get("reason") == "CreateContainerConfigError"
               for s in statuses)


def outcome_of(case: Case, pods: list[dict[str, Any]], refused: bool) -> str | None:
    """What happened to the case's Pods (None: not settled yet)."""
    if refused:
        return "refused"
    if len(pods) < case.expected_pods:
        return None
    if any(_unschedulable(p) for p in pods):
        return "never"
    if all((p.get("spec") or {}).get("nodeName") for p in pods):
        return "secret" if any(_config_error(p) for p in pods) else "placed"
    return None


# --------------------------------------------------------------------------------------------------
# The run


def _apply(cluster: LocalCluster, docs: list[dict[str, Any]]) -> None:
    cluster.kubectl("apply", "-f", "-", input=yaml.safe_dump_all(docs))


def _batches(cases: list[Case], snapshot: preflight.ClusterSnapshot) -> Iterator[list[Case]]:
    """Cases in batches that place at most one node's allocatable per pool (judged by the offline snapshot)."""
    one_node = {pool: {**preflight.amounts(POOLS[pool][1]), "pods": Fraction(110)} for pool in POOLS}
    batch: list[Case] = []
    budget = {pool: dict(amounts) for pool, amounts in one_node.items()}
    for case in cases:
        charges: dict[str, dict[str, Fraction]] = {}
        for pod in preflight.pod_shapes(case.manifest):
            verdict = preflight.placement(pod, snapshot)
            if verdict is None or not verdict.fitting:
                continue
            for pool in {n.split("-")[1] for n in verdict.fitting}:
                charge = charges.setdefault(pool, {})
                for key, amount in {**pod.requests, "pods": Fraction(1)}.items():
                    charge[key] = charge.get(key, Fraction(0)) + amount * pod.count
        fits = all(budget[p].get(k, Fraction(0)) >= v for p, c in charges.items() for k, v in c.items())
        if not fits and batch:
            yield batch
            batch, budget = [], {pool: dict(amounts) for pool, amounts in one_node.items()}
        for pool, charge in charges.items():
            for key, amount in charge.items():
                budget[pool][key] = budget[pool].get(key, Fraction(0)) - amount
        batch.append(case)
        if len(batch) >= 45:
            yield batch
            batch, budget = [], {pool: dict(amounts) for pool, amounts in one_node.items()}
    if batch:
        yield batch


def _namespace_objects(namespace: str) -> list[dict[str, Any]]:
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "ray-sa", "namespace": namespace}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds", "namespace": namespace},
         "stringData": {"token": "not-a-secret"}},
    ]


class _Api:
    """The control plane's API from this process, over one TLS context. The batch loop polls the Pods and
    events several times a second, creates and deletes a dozen namespaces per batch: a kubectl process per
    request cost more than the request itself (its start-up and discovery, on two busy cores) and set the pace of
    the loop."""

    def __init__(self, cluster: LocalCluster) -> None:
        self.base = cluster.api_url
        self.context = cluster.ssl_context()

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        request = urllib.request.Request(
            self.base + path,
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={"Accept": "application/json", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, context=self.context, timeout=60) as response:
            return json.load(response)  # type: ignore[no-any-return]

    def items(self, path: str) -> list[dict[str, Any]]:
        return self.request("GET", path)["items"]  # type: ignore[no-any-return]

    def create(self, docs: list[dict[str, Any]]) -> None:
        """POST each of ``docs`` (new objects of the kinds this module makes, a Namespace before its objects)."""
        for doc in docs:
            kind, namespace = doc["kind"], doc["metadata"].get("namespace")
            group = "/api/v1" if doc["apiVersion"] == "v1" else f"/apis/{doc['apiVersion']}"
            scope = f"/namespaces/{namespace}" if namespace else ""
            self.request("POST", f"{group}{scope}/{_PLURALS[kind]}", doc)


_PLURALS = {"Namespace": "namespaces", "ServiceAccount": "serviceaccounts", "Secret": "secrets",
            "ResourceQuota": "resourcequotas", "LimitRange": "limitranges", "RayCluster": "rayclusters"}


def _shared_namespace(batch_no: int) -> str:
    return f"pf{RUN}-b{batch_no:02d}"


def _prepare_batch(api: _Api, batch_no: int, batch: list[Case]) -> None:
    """Create the batch's namespaces (the shared one, and one per case with a quota) with their objects. Nothing
    here takes node capacity: it runs while the previous batch's Pods are still being deleted."""
    shared = _shared_namespace(batch_no)
    setup = _namespace_objects(shared)
    for case in batch:
        case.namespace = f"{shared}-q{case.index:03d}" if case.quota else shared
        if case.quota:
            setup += _namespace_objects(case.namespace)
            setup.append({**case.quota, "metadata": {**case.quota["metadata"], "namespace": case.namespace}})
            if case.limit_range:
                setup.append({**case.limit_range, "metadata": {**case.limit_range["metadata"], "namespace": case.namespace}})
    api.create(setup)


def _namespaces(batch_no: int, batch: list[Case]) -> list[str]:
    """Every namespace :func:`_prepare_batch` created (the shared one even when every case has its own)."""
    return sorted({_shared_namespace(batch_no)} | {c.namespace for c in batch})


def _run_batch(cluster: LocalCluster, api: _Api, batch_no: int, batch: list[Case]) -> dict[str, float]:
    """Wait for the prepared namespaces, read the cluster, apply the batch's RayClusters, wait until every case
    is settled, then delete the namespaces and their Pods (not waited for: see :func:`_wait_pods_gone`)."""
    started = time.monotonic()
    quota_namespaces = sorted({c.namespace for c in batch if c.quota})
    namespaces = _namespaces(batch_no, batch)

    def quotas_synced() -> bool:  # the quota admission refuses every Pod until the controller filled the status
        listed = api.items("/api/v1/resourcequotas")
        synced = {q["metadata"]["namespace"] for q in listed if (q.get("status") or {}).get("hard")}
        return set(quota_namespaces) <= synced

    cluster.wait_for(quotas_synced, 60, "the ResourceQuotas' status", interval=0.2)

    def default_service_accounts() -> bool:
        listed = api.items("/api/v1/serviceaccounts?fieldSelector=metadata.name%3Ddefault")
        return set(namespaces) <= {i["metadata"]["namespace"] for i in listed}

    cluster.wait_for(default_service_accounts, 60, "the default ServiceAccounts", interval=0.2)
    read_started = time.monotonic()
    reader = preflight.reader_for(str(cluster.kubeconfig), cached=False, deadline=30)
    assert isinstance(reader, preflight.SnapshotReader), reader
    snapshot = reader.snapshot(None)  # every namespace: one list per kind
    assert isinstance(snapshot, preflight.ClusterSnapshot), snapshot
    read_at = time.monotonic()
    for case in batch:
        manifest = {**case.manifest, "metadata": {**case.manifest["metadata"], "namespace": case.namespace}}
        case.manifest = manifest
        findings = rules.check_preflight(manifest, snapshot, created_here=frozenset())
        shapes = preflight.pod_shapes(manifest)
        case.verdict, case.why = verdict_of(findings, tuple(p.path for p in shapes if p.count == 0))
        case.expected_pods = sum(p.count for p in shapes)
    api.create([c.manifest for c in batch])

    def settled() -> bool:
        pods = api.items("/api/v1/pods?labelSelector=ray.io%2Fcluster")
        events = api.items("/api/v1/events?fieldSelector=involvedObject.kind%3DRayCluster")
        refused = {(e["metadata"]["namespace"], e["involvedObject"]["name"]): e.get("message", "") for e in events
                   if e.get("reason", "").startswith("FailedToCreate") and "forbidden" in e.get("message", "")}
        by_cluster: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for pod in pods:
            key = (pod["metadata"]["namespace"], pod["metadata"]["labels"]["ray.io/cluster"])
            by_cluster.setdefault(key, []).append(pod)
        pending = 0
        for case in batch:
            key = (case.namespace, case.manifest["metadata"]["name"])
            case.outcome = outcome_of(case, by_cluster.get(key, []), key in refused) or ""
            case.refusal = refused.get(key, "")
            pending += not case.outcome
        return pending == 0

    cluster.wait_for(settled, 240, f"batch {batch_no}'s Pods to be bound, unschedulable or refused", interval=0.5)
    done = time.monotonic()
    for ns in namespaces:
        api.request("DELETE", f"/api/v1/namespaces/{ns}")
        # The namespace is Terminating now (nothing can be created in it): delete its RayClusters and Pods at once
        # rather than wait for the namespace controller to reach them and kwok to finish the Pods' graceful
        # deletion (seconds per batch). Until then the operator (one reconcile at a time) kept re-queueing these
        # RayClusters, its Pod creates refused in a Terminating namespace, ahead of the next batch's. What the next
        # batch needs is only that these Pods take no node capacity.
        api.request("DELETE", f"/apis/ray.io/v1/namespaces/{ns}/rayclusters")
        api.request("DELETE", f"/api/v1/namespaces/{ns}/pods",
                    {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
    return {"wait": read_started - started, "read": read_at - read_started, "settle": done - read_at,
            "requests": float(reader.requests)}


def _wait_pods_gone(cluster: LocalCluster, api: _Api, batch_no: int) -> None:
    shared = _shared_namespace(batch_no)
    cluster.wait_for(
        lambda: not [p for p in api.items("/api/v1/pods") if p["metadata"]["namespace"].startswith(shared)],
        180,
        f"batch {batch_no}'s Pods to be gone",
        interval=0.2,
    )


@pytest.fixture
def pools(local_cluster: LocalCluster) -> Iterator[list[dict[str, Any]]]:
    nodes = _nodes()
    _apply(local_cluster, nodes)
    local_cluster.kubectl("apply", "-f", "-", input=yaml.safe_dump(
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": PRIORITY_CLASS},
         "value": 1000}))

    def ready() -> bool:
        listed = local_cluster.get_json("nodes", "-l", POOL_LABEL)["items"]
        ok = [n for n in listed if any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"].get("conditions") or [])
              and not any(t["key"].startswith("node.kubernetes.io/not-ready") for t in n["spec"].get("taints") or [])]
        return len(ok) == len(nodes)

    local_cluster.wait_for(ready, 120, "the preflight's kwok nodes to be Ready")
    yield nodes
    local_cluster.kubectl("delete", "nodes", "-l", POOL_LABEL, "--wait=false", check=False)
    local_cluster.kubectl("delete", "priorityclass", PRIORITY_CLASS, "--wait=false", check=False)


def test_generation_is_deterministic() -> None:
    assert json.dumps([c.manifest for c in generate(40)]) == json.dumps([c.manifest for c in generate(40)])


def test_preflight_agrees_with_the_scheduler(
    local_cluster: LocalCluster, pools: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    cases = generate(CASES)
    offline = preflight.ClusterSnapshot.from_lists({"nodes": {"items": pools}}, source="the pools")
    batches = list(_batches(cases, offline))
    started = time.monotonic()
    api = _Api(local_cluster)
    timings = []
    _prepare_batch(api, 0, batches[0])
    for i, batch in enumerate(batches):
        timings.append(_run_batch(local_cluster, api, i, batch))
        if i + 1 < len(batches):  # its namespaces while this batch's Pods go (they take no node capacity)
            _prepare_batch(api, i + 1, batches[i + 1])
        _wait_pods_gone(local_cluster, api, i)
    elapsed = time.monotonic() - started
    disagreements = []
    kwok_secret = 0
    for case in cases:
        if case.verdict == "secret":
            kwok_secret += 1
            agrees = case.outcome == "placed"  # kwok reports the Pod Running: compared on placement only
        else:
            agrees = case.verdict == case.outcome
        if not agrees:
            disagreements.append(f"case {case.index} ({case.namespace}): preflight {case.verdict} {case.why}, scheduler {case.outcome} {case.refusal}")
    verdicts = Counter(c.verdict for c in cases)
    outcomes = Counter(c.outcome for c in cases)
    with capsys.disabled():
        print(f"\n[preflight vs scheduler] {len(cases)} cases in {len(batches)} batches, {elapsed:.0f}s "
              f"(snapshot read {sum(t['read'] for t in timings):.1f}s, {int(sum(t['requests'] for t in timings))} API requests; "
              f"namespaces ready {sum(t['wait'] for t in timings):.1f}s, settling {sum(t['settle'] for t in timings):.1f}s)")
        print(f"  preflight verdicts: {dict(sorted(verdicts.items()))}")
        print(f"  what the Pods did:  {dict(sorted(outcomes.items()))}")
        print(f"  agreements: {len(cases) - len(disagreements)}, disagreements: {len(disagreements)}; "
              f"{kwok_secret} missing-Secret cases compared on placement (kwok runs no container; their containers: "
              "test_preflight_secrets.py)")
        for line in disagreements[:20]:
            print("  " + line)
    assert len(cases) >= 300
    assert all(verdicts[v] >= 10 for v in ("refused", "never", "secret", "placed")), verdicts
    assert disagreements == []
