"""The preflight rules (``scope="preflight"``): one Ray object against the cluster it lands in.

Each check reads a :class:`~._engine.PreflightSubject` (the manifest, the :class:`~pulumi_kuberay.preflight.
ClusterSnapshot` read once per preview or lint run, the namespace, the change plan when the object exists) and
asks the pure verdicts of :mod:`pulumi_kuberay.preflight`. Never cry wolf: a verdict is critical only where the
cluster itself shows it can never happen (no node takes the Pod and nothing visible could add one; the quota's
``hard`` cannot hold it; the LocalQueue or the reference is not there); where a node source (a Karpenter NodePool,
a cluster-autoscaler node group, a cloud's node pools) could add a fitting node, the finding is medium and names it.
The cluster's own admission is asked too: the children the operator creates, sent as server-side dry runs
(``subject.cluster.admission``), refused by the server where the finding says so, in the server's words.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from pulumi_kuberay.kuberay import KINDS, KUEUE_QUEUE_LABEL, paths
from pulumi_kuberay.kuberay.resources import NVIDIA_GPU, NVIDIA_GPU_QUOTA, is_gpu_resource_key
from pulumi_kuberay.preflight import (
    AdmissionVerdict,
    ClusterSnapshot,
    PodShape,
    children,
    describe_amounts,
    free_capacity,
    jointly_short,
    kueue_problem,
    missing_references,
    placement,
    pod_shapes,
    quota_verdicts,
    show,
)

from ._engine import Context, PreflightSubject, Severity, Violation, declare
from ._examples import example, example_service, head_container_of, spec_of, worker_of

ALL_KINDS = KINDS
_LABEL_PATH = f'metadata.labels["{KUEUE_QUEUE_LABEL}"]'


def _shapes(subject: PreflightSubject) -> tuple[PodShape, ...]:
    def build(manifest: Any) -> tuple[PodShape, ...]:
        ranges = [r for r in subject.cluster.limit_ranges or () if r.namespace == subject.namespace]
        return pod_shapes(manifest, ranges)

    shapes: tuple[PodShape, ...] = paths.memo(subject.manifest, f"preflight-shapes:{subject.namespace}", build)
    return shapes


def _reads_namespace(subject: PreflightSubject) -> bool:
    return subject.cluster.reads(subject.namespace)


# --------------------------------------------------------------------------------------------------
# Can each group's Pod ever be placed?


def _sources_text(sources: Any) -> str:
    return ", ".join(source.describe() for source in sources)


#: Why a finding of these rules is not at the rule's severity (one clause: the rule's ``also``, the finding's end).
_NODE_SOURCE_ADDS = "medium, not critical: a node source can add a node that takes them"
_UNSEEN_NODES = "medium, not critical: a node the preflight cannot see may take them"
_QUOTA_REFUSES = "critical: the quota refuses the second cluster's Pods, so the upgrade never completes"
_ROOM_MADE_LATER = "medium: a node source can add the nodes"
_STARTS_WITHOUT = "medium: the Pods are still created without it"
_STACK_MAY_CREATE = "high: unless this stack creates it"


def _check_never_placed(subject: PreflightSubject, ctx: Context) -> Iterator[Violation]:
    cluster = subject.cluster
    if subject.manifest.get("kind") == "RayCronJob" and paths.get(subject.manifest, "spec", "suspend") is True:
        return
    placements = []
    for pod in _shapes(subject):
        verdict = placement(pod, cluster)
        if verdict is None or verdict.fitting:
            if verdict is not None:
                placements.append(verdict)
            continue
        requests = describe_amounts({**pod.requests})
        compared = verdict.nodes_compared()
        where = f"{len(cluster.nodes or ())} node(s) of {cluster.source}"
        if verdict.sources:
            yield Violation(
                f"{pod.label()}: no node of {cluster.source} takes its Pods (requests {requests}; {compared}), but {_sources_text(verdict.sources)} could add one: the Pods wait for that node",
                pod.path,
                severity="medium",
                severity_why=_NODE_SOURCE_ADDS,
            )
            continue
        clouds = cluster.cloud_pools()
        if clouds or not cluster.nodes:
            why = f"the cloud's node pools ({_sources_text(clouds[:3])}) may add a pool or a node the preflight cannot see" if clouds else "the cluster has no nodes: an autoscaler the preflight cannot see may add some"
            yield Violation(
                f"{pod.label()}: no node of {cluster.source} takes its Pods (requests {requests}; {compared}); {why}",
                pod.path,
                severity="medium",
                severity_why=_UNSEEN_NODES,
            )
            continue
        yield Violation(
            f"{pod.label()}: its Pods can never be placed: requests {requests}; compared with the {where}: {compared}; no node source (Karpenter NodePool, cluster-autoscaler node group) could add one",
            pod.path,
        )
    yield from _jointly(placements, cluster)


def _jointly(placements: list[Any], cluster: ClusterSnapshot) -> Iterator[Violation]:
    """Pods that each fit a node but not all together (the nodes that take them are too few, even empty)."""
    for verdict, short, members in jointly_short(placements, cluster):
        numbers = "; ".join(f"{key} {show(key, asked)} asked, {show(key, room)} allocatable" for key, (asked, room) in short.items())
        nodes = ", ".join(sorted(verdict.fitting)[:6])
        text = f"{verdict.pod.label()}: its Pods at start can each go to a node but not all together: with {', '.join(members)} they need more than the nodes that take them ({nodes}) have in all, even empty ({numbers}): some stay Pending"
        sources = cluster.node_sources or cluster.cloud_pools()
        if sources:
            yield Violation(f"{text}; {_sources_text(sources)} could add nodes", verdict.pod.path, severity="medium", severity_why=_NODE_SOURCE_ADDS)
        else:
            yield Violation(text, verdict.pod.path)


def _node_json(name: str, cpu: str, memory: str, *, gpu: int = 0, labels: Mapping[str, str] | None = None,
               taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    allocatable: dict[str, str] = {"cpu": cpu, "memory": memory, "pods": "110"}
    if gpu:
        allocatable[NVIDIA_GPU] = str(gpu)
    return {
        "metadata": {"name": name, "labels": dict(labels or {})},
        "spec": {"taints": taints or []},
        "status": {"allocatable": allocatable},
    }


def _snapshot(*nodes: dict[str, Any], **lists: Any) -> ClusterSnapshot:
    """An example cluster: these nodes, and the other kinds (``secrets``...) as the API lists them (default:
    read and empty), in namespace ``default``."""
    every: dict[str, Any] = {"nodes": {"items": list(nodes)}, "pods": {"items": []}, "nodepools": {"items": []}}
    for kind in ("resourcequotas", "limitranges", "secrets", "configmaps", "serviceaccounts", "persistentvolumeclaims",
                 "priorityclasses", "storageclasses", "runtimeclasses"):
        every[kind] = {"items": []}
    every.update({k: {"items": v} if isinstance(v, list) else v for k, v in lists.items()})
    return ClusterSnapshot.from_lists(every, source="the example cluster", namespaces=("default",))


_CPU_NODES = (_node_json("cpu-0", "16", "64Gi"), _node_json("cpu-1", "16", "64Gi"))


def _gpu_cluster(doc: dict[str, Any]) -> None:
    worker = worker_of(doc)
    worker["template"]["spec"]["containers"][0]["resources"]["limits"][NVIDIA_GPU] = 1
    worker["template"]["spec"]["tolerations"] = [{"key": NVIDIA_GPU, "operator": "Exists", "effect": "NoSchedule"}]


_GPU_NODE = _node_json("gpu-0", "32", "128Gi", gpu=4, taints=[{"key": NVIDIA_GPU, "effect": "NoSchedule"}])

declare(
    id="preflight-group-never-placed",
    title="A group's Pods can never be placed on the target cluster",
    severity="critical",
    category="correctness",
    scope="preflight",
    kinds=ALL_KINDS,
    rationale="The operator creates the Pods and the scheduler leaves them Pending for good when no node has the allocatable for their requests (the autoscaler sidecar included), the labels of their nodeSelector or required node affinity, or tolerations for its taints (GPU nodes are usually tainted); nothing says so until someone reads the FailedScheduling events. Where a node source could add a fitting node the finding is medium and names it.",
    proof="no node the preflight read can ever hold the group's Pods (allocatable, selectors, affinity, taints); where a node source (Karpenter, the cluster autoscaler, a managed node pool) could add a fitting node, or nodes the preflight cannot see may exist: medium",
    fix="Make the group fit a node that exists (smaller requests, a nodeSelector and tolerations matching a node pool's labels and taints), or add a node pool, a Karpenter NodePool or a cluster-autoscaler node group that can provide such a node.",
    check=_check_never_placed,
    also=(_NODE_SOURCE_ADDS, _UNSEEN_NODES),
    compliant=(example(_gpu_cluster), _snapshot(*_CPU_NODES, _GPU_NODE)),
    violating=(example(_gpu_cluster), _snapshot(*_CPU_NODES)),
    fixed=(example(_gpu_cluster), _snapshot(*_CPU_NODES, _GPU_NODE)),
    violating_path="spec.workerGroupSpecs[0]",
)


# --------------------------------------------------------------------------------------------------
# The namespace's ResourceQuota


def _check_quota(subject: PreflightSubject, ctx: Context) -> Iterator[Violation]:
    if not _reads_namespace(subject):
        return  # the namespace is not there yet (created with this object): its quota cannot be known
    shapes = _shapes(subject)
    for verdict in quota_verdicts(shapes, subject.namespace, subject.cluster):
        quota = verdict.quota
        where = f"ResourceQuota {quota.name!r} of namespace {subject.namespace!r}"
        path = "spec"
        for group, container, key in verdict.unspecified[:3]:
            yield Violation(
                f"{group}: container {container!r} says no {key.replace('requests.', '').replace('limits.', '')} {'limit' if key.startswith('limits.') else 'request'}, and {where} tracks {key}: the ResourceQuota admission plugin refuses its Pods at creation (must specify {key})",
                path,
            )
        if verdict.over:
            parts = [
                f"{key} {show(_resource(key), charged)} > {show(_resource(key), remaining)} left (hard {show(_resource(key), quota.hard[key])})"
                for key, (charged, remaining) in sorted(verdict.over.items())
            ]
            starting = ", ".join(f"{pod.label()} x{pod.count}" for pod in shapes if pod.count)
            yield Violation(
                f"the Pods at start ({starting}) exceed {where}: {'; '.join(parts)}: the operator cannot create some of them (exceeded quota)",
                path,
            )


def _resource(key: str) -> str:
    return key.split(".", 1)[1] if key.startswith(("requests.", "limits.")) else key


_QUOTA = {
    "metadata": {"name": "team", "namespace": "default"},
    "spec": {"hard": {"requests.cpu": "4", "requests.memory": "16Gi", "pods": "10"}},
}

declare(
    id="preflight-over-quota",
    title="The head and the starting workers do not fit the namespace's ResourceQuota",
    severity="critical",
    category="correctness",
    scope="preflight",
    kinds=ALL_KINDS,
    rationale="The ResourceQuota admission plugin charges each Pod at creation: when the head and the workers at their starting replicas (minReplicas, replicas) ask more than the quota has left, or a container leaves a tracked resource unsaid, the operator's Pod creations are refused and it retries forever; the cluster never becomes ready.",
    proof="the ResourceQuota read has less left than the Pods ask at their starting replicas; other objects may still free or take quota between the preview and the apply",
    fix="Lower the requests or the starting replicas, give every container the requests (and limits) the quota tracks, or raise the quota.",
    check=_check_quota,
    compliant=(example(), _snapshot(*_CPU_NODES, resourcequotas=[_QUOTA])),
    violating=(
        example(lambda d: worker_of(d).update(replicas=4, minReplicas=4)),
        _snapshot(*_CPU_NODES, resourcequotas=[_QUOTA]),
    ),
    fixed=(example(), _snapshot(*_CPU_NODES, resourcequotas=[_QUOTA])),
    violating_path="spec",
)


# --------------------------------------------------------------------------------------------------
# Kueue


def _check_kueue(subject: PreflightSubject, ctx: Context) -> Iterator[Violation]:
    queue = paths.as_str(paths.labels(subject.manifest).get(KUEUE_QUEUE_LABEL))
    if not queue or paths.is_unknown(queue) or not _reads_namespace(subject):
        return
    problem = kueue_problem(_shapes(subject), subject.namespace, queue, subject.cluster)
    if problem is not None:
        yield Violation(
            f"Kueue never admits it: {problem}; the object stays suspended (queued) for good",
            _LABEL_PATH,
        )


def _queued(doc: dict[str, Any]) -> None:
    doc["metadata"]["labels"] = {KUEUE_QUEUE_LABEL: "team"}


def _queued_gpu(doc: dict[str, Any]) -> None:
    _queued(doc)
    _gpu_cluster(doc)


_QUEUES = {
    "localqueues": [{"metadata": {"name": "team", "namespace": "default"}, "spec": {"clusterQueue": "cq"}}],
    "clusterqueues": [
        {
            "metadata": {"name": "cq"},
            "spec": {
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory"],
                        "flavors": [
                            {
                                "name": "default",
                                "resources": [
                                    {"name": "cpu", "nominalQuota": "32"},
                                    {"name": "memory", "nominalQuota": "128Gi"},
                                ],
                            }
                        ],
                    }
                ]
            },
        }
    ],
    "resourceflavors": [{"metadata": {"name": "default"}}],
}

declare(
    id="preflight-kueue-inadmissible",
    title="Kueue can never admit the object: its LocalQueue or ClusterQueue is missing or too small",
    severity="critical",
    category="correctness",
    scope="preflight",
    kinds=ALL_KINDS,
    rationale="An object labelled kueue.x-k8s.io/queue-name is created suspended and waits for Kueue's admission: when the LocalQueue does not exist, its ClusterQueue does not, the ClusterQueue covers none of a resource the Pods request (nvidia.com/gpu) or no flavor's quota holds their sum, it waits for good.",
    proof="the LocalQueue and ClusterQueue read cannot admit the workload (missing, a resource not covered, no flavor holds it)",
    fix="Name a LocalQueue of the object's namespace whose ClusterQueue covers every resource the Pods request, with a flavor whose quota (nominal plus borrowing limit) holds them.",
    check=_check_kueue,
    compliant=(example(_queued), _snapshot(*_CPU_NODES, **_QUEUES)),
    violating=(example(_queued_gpu), _snapshot(*_CPU_NODES, _GPU_NODE, **_QUEUES)),
    fixed=(example(_queued), _snapshot(*_CPU_NODES, **_QUEUES)),
    violating_path=_LABEL_PATH,
)


# --------------------------------------------------------------------------------------------------
# A NewCluster upgrade's second cluster


def _check_upgrade_fits(subject: PreflightSubject, ctx: Context) -> Iterator[Violation]:
    plan = subject.plan
    if plan is None or plan.action not in ("new-cluster", "incremental") or plan.extra is None:
        return
    extra = plan.extra.start
    need = {"cpu": Fraction(extra.cpu_millis, 1000), "memory": Fraction(extra.memory_bytes)}
    gpus = Fraction(extra.gpus)
    for quota in subject.cluster.quotas or ():
        if quota.namespace != subject.namespace or quota.scoped:
            continue
        for key, amount in (("requests.cpu", need["cpu"]), ("cpu", need["cpu"]), ("requests.memory", need["memory"]),
                            ("memory", need["memory"]), (NVIDIA_GPU_QUOTA, gpus)):
            if key in quota.hard and amount > quota.hard[key] - quota.used.get(key, Fraction(0)):
                left = quota.hard[key] - quota.used.get(key, Fraction(0))
                yield Violation(
                    f"the {plan.action} upgrade's second cluster needs {key} {show(_resource(key), amount)} while the old one runs, and ResourceQuota {quota.name!r} has {show(_resource(key), left)} left: the upgrade never completes (the new cluster's Pods are refused)",
                    "spec",
                    severity="critical",
                    severity_why=_QUOTA_REFUSES,
                )
                return
    if subject.cluster.nodes is None:
        return
    free = free_capacity(subject.cluster)
    short = [(key, amount) for key, amount in need.items() if amount > free.get(key, Fraction(0))]
    if gpus and gpus > sum((v for k, v in free.items() if is_gpu_resource_key(k)), Fraction(0)):
        short.append(("GPUs", gpus))
    if short:
        sources = subject.cluster.node_sources or subject.cluster.cloud_pools()
        tail = f"; {_sources_text(sources)} could add nodes" if sources else "; no node source could add nodes"
        text = ", ".join(f"{key} {show(key if key != 'GPUs' else 'gpu', amount)} (free {show(key, free.get(key, Fraction(0)))})" for key, amount in short)
        yield Violation(
            f"the {plan.action} upgrade's second cluster needs {text} beside the old one, more than the nodes have free{tail}: the upgrade waits until room is made",
            "spec",
            severity="medium" if sources else None,
            severity_why=_ROOM_MADE_LATER if sources else None,
        )


def _bigger_service(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc["spec"]["rayClusterConfig"]
    resources = {"cpu": "12", "memory": "8Gi"}
    container = spec["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    container["resources"] = {"requests": dict(resources), "limits": dict(resources)}
    return doc


def _busy_nodes() -> ClusterSnapshot:
    pods = [{"spec": {"nodeName": name, "containers": [{"resources": {"requests": {"cpu": "14", "memory": "8Gi"}}}]},
             "status": {"phase": "Running"}} for name in ("cpu-0", "cpu-1")]
    return _snapshot(*_CPU_NODES, pods=pods)


declare(
    id="preflight-upgrade-does-not-fit",
    title="A RayService upgrade's second cluster does not fit beside the first",
    severity="high",
    category="reliability",
    scope="preflight",
    kinds=("RayService",),
    rationale="A NewCluster (or incremental) upgrade runs a second RayCluster beside the old one until the new one serves; the change plan says what it needs ('extra while both clusters run'). When the namespace's quota cannot hold it the upgrade never completes (critical); when the nodes have not that much free it waits for room (high, medium where a node source could add nodes).",
    fix="Make room (free nodes or a node pool that scales), raise the quota, or upgrade in place where the change allows it.",
    check=_check_upgrade_fits,
    also=(_QUOTA_REFUSES, _ROOM_MADE_LATER),
    compliant=(example_service(), _snapshot(*_CPU_NODES), example_service()),
    violating=(_bigger_service(example_service()), _busy_nodes(), example_service()),
    fixed=(example_service(), _snapshot(*_CPU_NODES), example_service()),
    violating_path="spec",
)


# --------------------------------------------------------------------------------------------------
# References


def _check_references(subject: PreflightSubject, ctx: Context) -> Iterator[Violation]:
    if not _reads_namespace(subject):
        return
    created = subject.created_here
    for missing in missing_references(subject.manifest, subject.namespace, subject.cluster):
        ref = missing.reference
        cluster_wide = ref.kind in ("PriorityClass", "RuntimeClass", "StorageClass")
        key = (ref.kind.replace("image pull ", ""), "" if cluster_wide else subject.namespace, ref.name)
        if created is not None and key in created:
            continue
        place = "the cluster" if cluster_wide else f"namespace {subject.namespace!r}"
        message = f"{ref.kind} {ref.name!r} {missing.why} in {place}: {missing.effect}"
        severity: Severity | None = None
        why = None
        if not missing.blocking:
            severity, why = "medium", _STARTS_WITHOUT
        elif created is None:
            severity, why = "high", _STACK_MAY_CREATE
        yield Violation(message, ref.path, severity=severity, severity_why=why)


def _with_secret(doc: dict[str, Any]) -> None:
    container = head_container_of(doc)
    container["env"] = [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token"}}}]
    spec_of(doc)["headGroupSpec"]["template"]["spec"]["serviceAccountName"] = "ray"


_SECRET = {"metadata": {"name": "hf-token", "namespace": "default"}, "data": {"token": "c2VjcmV0"}}
_ACCOUNT = {"metadata": {"name": "ray", "namespace": "default"}}

declare(
    id="preflight-reference-missing",
    title="A ServiceAccount, Secret (or key), ConfigMap, PVC, PriorityClass or RuntimeClass the Pods name does not exist",
    severity="critical",
    category="correctness",
    scope="preflight",
    kinds=ALL_KINDS,
    rationale="The Pods name objects of the cluster: a missing ServiceAccount, PriorityClass or RuntimeClass gets them refused at creation, a missing PersistentVolumeClaim keeps them Pending, a missing Secret or ConfigMap (or a key not in it) stops the container (CreateContainerConfigError); the operator's events are the only trace. Where the objects created with this one are not known (the components: the stack may create it), a missing one is high.",
    proof="the object a Pod names is not in the namespace read; where the stack itself may create it: high",
    fix="Create the object (and the key) in the object's namespace before the Ray object, fix the name, or mark an env or volume reference optional where the workload can run without it.",
    check=_check_references,
    also=(_STACK_MAY_CREATE, _STARTS_WITHOUT),
    compliant=(example(_with_secret), _snapshot(*_CPU_NODES, secrets=[_SECRET], serviceaccounts=[_ACCOUNT])),
    violating=(example(_with_secret), _snapshot(*_CPU_NODES, serviceaccounts=[_ACCOUNT])),
    fixed=(example(_with_secret), _snapshot(*_CPU_NODES, secrets=[_SECRET], serviceaccounts=[_ACCOUNT])),
    violating_path="spec.headGroupSpec.template.spec.containers[0].env[0].valueFrom.secretKeyRef",
)


# --------------------------------------------------------------------------------------------------
# What the operator needs installed: cert-manager for TLS, a GatewayClass for incremental upgrades


def _check_cert_manager(subject: PreflightSubject, ctx: Context) -> Iterator[Violation]:
    if subject.cluster.cert_manager is not False:
        return
    for ref in paths.cluster_specs(subject.manifest):
        if paths.get(ref.spec, "tlsOptions", "enabled") is True:
            yield Violation(
                f"TLS is on but cert-manager's API (cert-manager.io/v1) is not served by {subject.cluster.source}: the operator cannot issue the certificates and stops reconciling the cluster",
                ref.path("tlsOptions", "enabled"),
            )


def _tls(doc: dict[str, Any]) -> None:
    spec_of(doc)["tlsOptions"] = {"enabled": True}


declare(
    id="preflight-cert-manager-missing",
    title="TLS is on but cert-manager is not installed in the target cluster",
    severity="critical",
    category="correctness",
    scope="preflight",
    kinds=ALL_KINDS,
    gate="RayClusterMTLS",
    rationale="With tlsOptions.enabled the operator asks cert-manager for the Ray nodes' certificates; without cert-manager it records a Warning event and stops reconciling the cluster.",
    proof="the cluster read has no cert-manager API, so the operator cannot get the nodes' certificates",
    fix="Install cert-manager in the cluster, or turn tlsOptions off.",
    check=_check_cert_manager,
    compliant=(example(_tls), ClusterSnapshot.from_lists({"cert-manager": True}, source="the example cluster")),
    violating=(example(_tls), ClusterSnapshot.from_lists({"cert-manager": False}, source="the example cluster")),
    fixed=(example(_tls), ClusterSnapshot.from_lists({"cert-manager": True}, source="the example cluster")),
    violating_path="spec.tlsOptions.enabled",
)


def _check_gateway_class(subject: PreflightSubject, ctx: Context) -> Iterator[Violation]:
    options = paths.as_dict(paths.get(subject.manifest, "spec", "upgradeStrategy", "clusterUpgradeOptions"))
    name = paths.as_str(options.get("gatewayClassName"))
    strategy = paths.get(subject.manifest, "spec", "upgradeStrategy", "type")
    classes = subject.cluster.gateway_classes
    if strategy != "NewClusterWithIncrementalUpgrade" or not name or paths.is_unknown(name) or classes is None:
        return
    if name not in classes:
        listed = ", ".join(sorted(classes)) or "none"
        yield Violation(
            f"GatewayClass {name!r} does not exist in {subject.cluster.source} (it has: {listed}): the incremental upgrade's Gateway is never programmed and the upgrade never shifts traffic",
            "spec.upgradeStrategy.clusterUpgradeOptions.gatewayClassName",
        )


def _incremental(doc: dict[str, Any]) -> dict[str, Any]:
    doc["spec"]["upgradeStrategy"] = {"type": "NewClusterWithIncrementalUpgrade", "clusterUpgradeOptions": {"gatewayClassName": "istio"}}
    doc["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True
    return doc


declare(
    id="preflight-gateway-class-missing",
    title="The incremental upgrade's GatewayClass does not exist in the target cluster",
    severity="critical",
    category="correctness",
    scope="preflight",
    kinds=("RayService",),
    rationale="NewClusterWithIncrementalUpgrade routes traffic through a Gateway of clusterUpgradeOptions.gatewayClassName; without that GatewayClass (or without the Gateway API) nothing programs the Gateway and the upgrade never moves traffic.",
    proof="the cluster read has no such GatewayClass (or no Gateway API), so nothing programs the upgrade's Gateway",
    fix="Install a Gateway API implementation and name its GatewayClass, or use the NewCluster upgrade strategy.",
    check=_check_gateway_class,
    compliant=(
        _incremental(example_service()),
        ClusterSnapshot.from_lists({"gatewayclasses": {"items": [{"metadata": {"name": "istio"}}]}}, source="the example cluster"),
    ),
    violating=(_incremental(example_service()), ClusterSnapshot.from_lists({"gatewayclasses": {"items": []}}, source="the example cluster")),
    fixed=(
        _incremental(example_service()),
        ClusterSnapshot.from_lists({"gatewayclasses": {"items": [{"metadata": {"name": "istio"}}]}}, source="the example cluster"),
    ),
    violating_path="spec.upgradeStrategy.clusterUpgradeOptions.gatewayClassName",
)


# --------------------------------------------------------------------------------------------------
# The cluster's own admission on the children the operator creates


def _check_admission(subject: PreflightSubject, ctx: Context) -> Iterator[Violation]:
    verdicts = subject.cluster.admission
    if not verdicts:
        return
    for path, verdict in verdicts.items():
        if verdict.refused:
            yield Violation(
                f"{subject.cluster.source} refuses {verdict.label} (a server-side dry run of the {verdict.kind} the operator creates from {path}): {verdict.message}",
                path,
            )


def _refused(doc: dict[str, Any], message: str) -> ClusterSnapshot:
    head = children(doc, "default")[0]
    verdict = AdmissionVerdict(True, message, 403, label=head.label, kind=head.kind)
    return dataclasses.replace(_snapshot(*_CPU_NODES), admission={head.path: verdict})


def _admitted(doc: dict[str, Any]) -> ClusterSnapshot:
    verdicts = {child.path: AdmissionVerdict(False, label=child.label, kind=child.kind) for child in children(doc, "default")}
    return dataclasses.replace(_snapshot(*_CPU_NODES), admission=verdicts)


def _restricted_head(doc: dict[str, Any]) -> None:
    head_container_of(doc)["securityContext"] = {
        "allowPrivilegeEscalation": False, "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


_PSA_REFUSAL = 'pods "raycluster-example-head-x7k2p" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "ray-head" must set securityContext.allowPrivilegeEscalation=false)'

declare(
    id="preflight-admission-refuses-child",
    title="The target cluster's admission refuses a Pod, Service or Job the operator creates from the object",
    severity="critical",
    category="correctness",
    scope="preflight",
    kinds=ALL_KINDS,
    rationale="The operator creates the head and worker Pods, the head Service (a RayJob's or RayService's own too), a RayService's Serve Service, the dashboard Ingress of enableIngress, the headless Service of multi-host workers and a RayJob's submitter Job from the object; the cluster's own admission (Pod Security of the namespace, LimitRanges, ValidatingAdmissionPolicies, webhooks) refuses them at creation, after apply, as a Warning event on the object that stays unready. The preflight builds each child as the operator does and sends it as a server-side dry-run create (dryRun=All: nothing is stored), one request per distinct child; the server's own message is the finding. An identity that may not create says so once and keeps the read-only preflight.",
    proof="the target cluster's own API server refuses a dry-run create of the child the operator builds (dryRun=All), with its message; not certain where the cluster's admission changes between the preview and the apply, or where a child is not built yet (what KubeRay adds to the Pods for mTLS and the history collector, both behind alpha gates, and an OpenShift Route: those parts are not sent)",
    fix="Change the group's template (or the Service, the submitter template) as the server's message asks (for Pod Security restricted: a securityContext with allowPrivilegeEscalation false, runAsNonRoot, capabilities drop ALL, seccompProfile RuntimeDefault, on every container and autoscalerOptions.securityContext), or change the namespace's policy.",
    check=_check_admission,
    compliant=(example(_restricted_head), _admitted(example(_restricted_head))),
    violating=(example(), _refused(example(), _PSA_REFUSAL)),
    fixed=(example(_restricted_head), _admitted(example(_restricted_head))),
    violating_path="spec.headGroupSpec.template",
)
