"""What the preflight knows of the target cluster: a typed, immutable snapshot, made from the API's list objects.

:func:`ClusterSnapshot.from_lists` is pure (the reader, the tests and the bench feed it the JSON the API server
returns); nothing here performs I/O. A kind that could not be read is ``None`` (the verdicts that need it say
nothing), a kind read and empty is ``()``: the difference between "we could not look" and "there is none".
Secrets keep their key names only: the values are dropped where the list is parsed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pulumi_kuberay.model import quantity_amount

if TYPE_CHECKING:
    from .dry_run import AdmissionVerdict

__all__ = [
    "ClusterQueue",
    "ClusterSnapshot",
    "LimitRange",
    "LocalQueue",
    "Node",
    "NodeSource",
    "ResourceQuota",
    "Taint",
    "amounts",
    "container_requests",
    "pod_requests",
]

#: name -> amount (CPU in cores, memory in bytes, extended resources in units), exact.
Amounts = Mapping[str, Fraction]
_EMPTY: Amounts = MappingProxyType({})


@lru_cache(maxsize=4096)
def _amount(value: str | int) -> Fraction | None:
    return quantity_amount(value)


def amounts(raw: Any) -> Amounts:
    """``{"cpu": "500m", "memory": "1Gi"}`` as exact amounts; entries that are not quantities are left out."""
    if not isinstance(raw, Mapping):
        return _EMPTY
    out: dict[str, Fraction] = {}
    for key, value in raw.items():
        amount = _amount(value) if type(value) in (str, int) else quantity_amount(value)
        if isinstance(key, str) and amount is not None:
            out[key] = amount
    return MappingProxyType(out)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(body: Any) -> list[dict[str, Any]]:
    items = _dict(body).get("items")
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _str_map(value: Any) -> Mapping[str, str]:
    return MappingProxyType({str(k): str(v) for k, v in _dict(value).items()})


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str  # NoSchedule | PreferNoSchedule | NoExecute


@dataclass(frozen=True)
class Node:
    """One Node as the scheduler sees it: what it can hold, its labels and taints, whether it takes new Pods."""

    name: str
    allocatable: Amounts
    labels: Mapping[str, str]
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    #: What the Pods bound to it (not finished) request, summed: ``allocatable - used`` is free.
    used: Amounts = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True)
class NodeSource:
    """Something that can add nodes: a Karpenter NodePool, a cluster-autoscaler node group, a cloud node pool.

    ``requirements`` are node-affinity style terms the new nodes satisfy (a Karpenter NodePool's); ``labels`` and
    ``taints`` what they carry; ``limits`` what the source may add in total (None: unbounded or not said);
    ``capacity`` the shape of one node where the source says it (None: unknown, the source may add any size).
    """

    kind: str  # "Karpenter NodePool" | "cluster-autoscaler node group" | "cloud node pool"
    name: str
    labels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    requirements: tuple[Mapping[str, Any], ...] = ()
    taints: tuple[Taint, ...] = ()
    limits: Amounts | None = None
    capacity: Amounts | None = None

    def describe(self) -> str:
        return f"{self.kind} {self.name!r}"


@dataclass(frozen=True)
class ResourceQuota:
    namespace: str
    name: str
    hard: Amounts
    used: Amounts
    #: ``spec.scopes`` / ``scopeSelector``: a scoped quota is not judged (it applies to some Pods only).
    scoped: bool = False


@dataclass(frozen=True)
class LimitRange:
    """The Container limits of one LimitRange: what the admission plugin fills into a container that says none."""

    namespace: str
    name: str
    default_request: Amounts
    default_limit: Amounts


@dataclass(frozen=True)
class LocalQueue:
    namespace: str
    name: str
    cluster_queue: str


@dataclass(frozen=True)
class ClusterQueue:
    """A Kueue ClusterQueue: per flavor, the nominal quota of each covered resource (plus what it may borrow)."""

    name: str
    flavors: Mapping[str, Amounts]
    #: the resources its resourceGroups cover (a workload asking for another one is never admitted)
    covered: frozenset[str]


def _taints(raw: Any) -> tuple[Taint, ...]:
    out = []
    for taint in raw if isinstance(raw, list) else []:
        if isinstance(taint, dict) and isinstance(taint.get("key"), str):
            out.append(Taint(taint["key"], str(taint.get("value") or ""), str(taint.get("effect") or "")))
    return tuple(out)


def _key(item: Mapping[str, Any]) -> tuple[str, str]:
    meta = _dict(item.get("metadata"))
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def _name(item: Mapping[str, Any]) -> str:
    return _key(item)[1]


def _keys_of(items: Iterable[dict[str, Any]], *fields: str) -> Mapping[tuple[str, str], frozenset[str]]:
    """(namespace, name) -> the key names of ``fields`` (``data``, ``stringData``...): never the values."""
    out: dict[tuple[str, str], frozenset[str]] = {}
    for item in items:
        names: set[str] = set()
        for part in fields:
            names.update(str(k) for k in _dict(item.get(part)))
        out[_key(item)] = frozenset(names)
    return MappingProxyType(out)


def _names_of(items: Iterable[dict[str, Any]]) -> frozenset[tuple[str, str]]:
    return frozenset(_key(item) for item in items)


def _sum(target: dict[str, Fraction], add: Amounts, times: int = 1) -> None:
    for key, amount in add.items():
        target[key] = target.get(key, Fraction(0)) + amount * times


def pod_requests(pod_spec: Mapping[str, Any]) -> Amounts:
    """A Pod's effective request as the scheduler computes it: the sum over its containers (a resource with a
    limit only requests the limit) or the largest init container, whichever is more, plus its overhead."""
    total: dict[str, Fraction] = {}
    for container in pod_spec.get("containers") or []:
        _sum(total, container_requests(container))
    for container in pod_spec.get("initContainers") or []:
        for key, amount in container_requests(container).items():
            total[key] = max(total.get(key, Fraction(0)), amount)
    _sum(total, amounts(pod_spec.get("overhead")))
    return MappingProxyType(total)


def container_requests(container: Any) -> Amounts:
    resources = _dict(_dict(container).get("resources"))
    return MappingProxyType({**amounts(resources.get("limits")), **amounts(resources.get("requests"))})


def _node(item: dict[str, Any], used: Mapping[str, dict[str, Fraction]]) -> Node:
    meta, spec, status = _dict(item.get("metadata")), _dict(item.get("spec")), _dict(item.get("status"))
    name = str(meta.get("name") or "")
    return Node(
        name=name,
        allocatable=amounts(status.get("allocatable") or status.get("capacity")),
        labels=_str_map(meta.get("labels")),
        taints=_taints(spec.get("taints")),
        unschedulable=spec.get("unschedulable") is True,
        used=MappingProxyType(dict(used.get(name, {}))),
    )


def _karpenter(item: dict[str, Any]) -> NodeSource:
    spec = _dict(item.get("spec"))
    template = _dict(_dict(spec.get("template")).get("spec"))
    meta = _dict(_dict(spec.get("template")).get("metadata"))
    requirements = tuple(r for r in template.get("requirements") or [] if isinstance(r, dict))
    limits = amounts(spec.get("limits")) if isinstance(spec.get("limits"), dict) else None
    return NodeSource(
        kind="Karpenter NodePool",
        name=_name(item),
        labels=_str_map(meta.get("labels")),
        requirements=requirements,
        taints=_taints(template.get("taints")) + _taints(template.get("startupTaints")),
        limits=limits,
    )


#: Labels the cloud providers put on the nodes of a node pool, and who puts them.
CLOUD_POOL_LABELS: tuple[tuple[str, str], ...] = (
    ("cloud.google.com/gke-nodepool", "GKE node pool"),
    ("eks.amazonaws.com/nodegroup", "EKS managed node group"),
    ("kubernetes.azure.com/agentpool", "AKS agent pool"),
    ("alpha.eksctl.io/nodegroup-name", "eksctl node group"),
    ("karpenter.sh/nodepool", "Karpenter NodePool"),
)


def _autoscaler_groups(status_configmap: Any) -> tuple[NodeSource, ...]:
    """cluster-autoscaler's status ConfigMap (``kube-system/cluster-autoscaler-status``): one source per node
    group it names (``Name:`` lines of the text status, or the ``nodeGroups`` of the YAML status of newer releases)."""
    status = _dict(_dict(status_configmap).get("data")).get("status")
    if not isinstance(status, str):
        return ()
    names: list[str] = []
    for line in status.splitlines():
        stripped = line.strip()
        if stripped.startswith("Name:") or stripped.startswith("- name:") or stripped.startswith("name:"):
            value = stripped.split(":", 1)[1].strip().strip('"')
            if value and value not in names:
                names.append(value)
    return tuple(NodeSource(kind="cluster-autoscaler node group", name=name) for name in names)


def _cluster_queue(item: dict[str, Any]) -> ClusterQueue:
    flavors: dict[str, dict[str, Fraction]] = {}
    covered: set[str] = set()
    for group in _dict(item.get("spec")).get("resourceGroups") or []:
        if not isinstance(group, dict):
            continue
        covered.update(str(r) for r in group.get("coveredResources") or [])
        for flavor in group.get("flavors") or []:
            if not isinstance(flavor, dict):
                continue
            quota = flavors.setdefault(str(flavor.get("name") or ""), {})
            for resource in flavor.get("resources") or []:
                if isinstance(resource, dict):
                    nominal = quantity_amount(resource.get("nominalQuota")) or Fraction(0)
                    borrow = quantity_amount(resource.get("borrowingLimit")) or Fraction(0)
                    quota[str(resource.get("name") or "")] = nominal + borrow
    return ClusterQueue(
        name=_name(item),
        flavors=MappingProxyType({k: MappingProxyType(v) for k, v in flavors.items()}),
        covered=frozenset(covered),
    )


@dataclass(frozen=True)
class ClusterSnapshot:
    """The target cluster as the preflight judges it (read once per preview; ``None``: that kind was not read)."""

    #: Where it was read from (``https://...``, context name), for the messages.
    source: str = "the cluster"
    nodes: tuple[Node, ...] | None = None
    node_sources: tuple[NodeSource, ...] = ()
    quotas: tuple[ResourceQuota, ...] | None = None
    limit_ranges: tuple[LimitRange, ...] | None = None
    priority_classes: frozenset[str] | None = None
    #: Kueue: None when it is not installed (its API group absent) or could not be read.
    local_queues: tuple[LocalQueue, ...] | None = None
    cluster_queues: tuple[ClusterQueue, ...] | None = None
    resource_flavors: frozenset[str] | None = None
    #: (namespace, name) -> key names (Secrets: ``data`` and ``stringData``; ConfigMaps: ``data``, ``binaryData``).
    secrets: Mapping[tuple[str, str], frozenset[str]] | None = None
    config_maps: Mapping[tuple[str, str], frozenset[str]] | None = None
    service_accounts: frozenset[tuple[str, str]] | None = None
    pvcs: frozenset[tuple[str, str]] | None = None
    storage_classes: frozenset[str] | None = None
    runtime_classes: frozenset[str] | None = None
    #: cert-manager's API (``cert-manager.io/v1``) is served; None: not asked.
    cert_manager: bool | None = None
    gateway_classes: frozenset[str] | None = None
    #: The cluster's admission on the children of the one object judged (the CR field path a child is built from
    #: -> the verdict of its server-side dry-run create); None: not asked. A child without a verdict was not asked.
    admission: Mapping[str, AdmissionVerdict] | None = None
    #: What could not be read, and why (``secrets: HTTP 403``): said once in the preview's log.
    unread: tuple[str, ...] = ()
    #: The namespaces the namespaced kinds were read in (None: every namespace).
    namespaces: tuple[str, ...] | None = field(default=None)
    #: Verdicts already made on this snapshot, by what they depend on (a thousand objects of a few shapes).
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_lists(cls, lists: Mapping[str, Any], *, source: str = "the cluster", unread: Sequence[str] = (),
                   namespaces: Sequence[str] | None = None) -> ClusterSnapshot:
        """A snapshot of the API server's list objects, keyed by kind's plural (``nodes``, ``pods``,
        ``resourcequotas``, ``limitranges``, ``priorityclasses``, ``nodepools``, ``localqueues``,
        ``clusterqueues``, ``resourceflavors``, ``secrets``, ``configmaps``, ``serviceaccounts``,
        ``persistentvolumeclaims``, ``storageclasses``, ``runtimeclasses``, ``gatewayclasses``), plus
        ``cluster-autoscaler-status`` (the ConfigMap) and ``cert-manager`` (True when its API is served). A key
        that is absent or None was not read."""
        def has(kind: str) -> bool:
            return lists.get(kind) is not None

        used: dict[str, dict[str, Fraction]] = {}
        for pod in _items(lists.get("pods")):
            spec, phase = _dict(pod.get("spec")), _dict(pod.get("status")).get("phase")
            if spec.get("nodeName") and phase not in ("Succeeded", "Failed"):
                _sum(used.setdefault(str(spec["nodeName"]), {}), pod_requests(spec))
                _sum(used[str(spec["nodeName"])], {"pods": Fraction(1)})
        nodes = tuple(_node(item, used) for item in _items(lists.get("nodes"))) if has("nodes") else None
        sources = [_karpenter(item) for item in _items(lists.get("nodepools"))]
        sources += _autoscaler_groups(lists.get("cluster-autoscaler-status"))
        quotas = None
        if has("resourcequotas"):
            quotas = tuple(
                ResourceQuota(
                    namespace=_key(item)[0],
                    name=_name(item),
                    hard=amounts(_dict(item.get("spec")).get("hard")),
                    used=amounts(_dict(item.get("status")).get("used")),
                    scoped=bool(_dict(item.get("spec")).get("scopes") or _dict(item.get("spec")).get("scopeSelector")),
                )
                for item in _items(lists.get("resourcequotas"))
            )
        limit_ranges = None
        if has("limitranges"):
            ranges = []
            for item in _items(lists.get("limitranges")):
                for limit in _dict(item.get("spec")).get("limits") or []:
                    if isinstance(limit, dict) and limit.get("type") == "Container":
                        ranges.append(LimitRange(_key(item)[0], _name(item), amounts(limit.get("defaultRequest")),
                                                 amounts(limit.get("default"))))
            limit_ranges = tuple(ranges)
        return cls(
            source=source,
            nodes=nodes,
            node_sources=tuple(sources),
            quotas=quotas,
            limit_ranges=limit_ranges,
            priority_classes=_cluster_names(lists, "priorityclasses"),
            local_queues=tuple(
                LocalQueue(_key(i)[0], _name(i), str(_dict(i.get("spec")).get("clusterQueue") or ""))
                for i in _items(lists.get("localqueues"))
            ) if has("localqueues") else None,
            cluster_queues=tuple(_cluster_queue(i) for i in _items(lists.get("clusterqueues")))
            if has("clusterqueues") else None,
            resource_flavors=_cluster_names(lists, "resourceflavors"),
            secrets=_keys_of(_items(lists.get("secrets")), "data", "stringData") if has("secrets") else None,
            config_maps=_keys_of(_items(lists.get("configmaps")), "data", "binaryData") if has("configmaps") else None,
            service_accounts=_names_of(_items(lists.get("serviceaccounts"))) if has("serviceaccounts") else None,
            pvcs=_names_of(_items(lists.get("persistentvolumeclaims"))) if has("persistentvolumeclaims") else None,
            storage_classes=_cluster_names(lists, "storageclasses"),
            runtime_classes=_cluster_names(lists, "runtimeclasses"),
            cert_manager=lists.get("cert-manager") if isinstance(lists.get("cert-manager"), bool) else None,
            gateway_classes=_cluster_names(lists, "gatewayclasses"),
            unread=tuple(unread),
            namespaces=tuple(namespaces) if namespaces is not None else None,
        )

    def to_data(self) -> dict[str, Any]:
        """The snapshot as plain YAML-able data (what ``--explain-rule`` shows of a rule's example cluster)."""
        from .placement import show

        def shown(values: Amounts | None) -> dict[str, str] | None:
            return None if values is None else {k: show(k, v) for k, v in sorted(values.items())}

        out: dict[str, Any] = {}
        if self.nodes is not None:
            out["nodes"] = [
                {"name": n.name, "allocatable": shown(n.allocatable), **({"labels": dict(n.labels)} if n.labels else {}),
                 **({"taints": [f"{t.key}={t.value}:{t.effect}" for t in n.taints]} if n.taints else {}),
                 **({"unschedulable": True} if n.unschedulable else {})}
                for n in self.nodes
            ]
        if self.node_sources:
            out["nodeSources"] = [s.describe() for s in self.node_sources]
        if self.quotas:
            out["resourceQuotas"] = [{"namespace": q.namespace, "name": q.name, "hard": shown(q.hard)} for q in self.quotas]
        if self.local_queues is not None:
            out["localQueues"] = [f"{q.namespace}/{q.name} -> {q.cluster_queue}" for q in self.local_queues]
        if self.cluster_queues is not None:
            out["clusterQueues"] = {q.name: {f: shown(a) for f, a in q.flavors.items()} for q in self.cluster_queues}
        for label, table in (("secrets", self.secrets), ("configMaps", self.config_maps)):
            if table is not None:
                out[label] = {f"{ns}/{name}": sorted(keys) for (ns, name), keys in sorted(table.items())}
        for label, names in (("serviceAccounts", self.service_accounts), ("persistentVolumeClaims", self.pvcs)):
            if names is not None:
                out[label] = [f"{ns}/{name}" for ns, name in sorted(names)]
        for label, flat in (("priorityClasses", self.priority_classes), ("runtimeClasses", self.runtime_classes),
                            ("storageClasses", self.storage_classes), ("gatewayClasses", self.gateway_classes)):
            if flat is not None:
                out[label] = sorted(flat)
        if self.cert_manager is not None:
            out["certManager"] = self.cert_manager
        return out

    def cloud_pools(self) -> tuple[NodeSource, ...]:
        """The node pools the nodes' cloud labels name (a GKE node pool, an EKS node group...), one per pool."""
        seen: dict[tuple[str, str], NodeSource] = {}
        for node in self.nodes or ():
            for label, kind in CLOUD_POOL_LABELS:
                pool = node.labels.get(label)
                if pool and (kind, pool) not in seen and kind != "Karpenter NodePool":
                    seen[kind, pool] = NodeSource(kind=f"{kind}", name=pool, labels=node.labels, taints=node.taints,
                                                  capacity=node.allocatable)
        return tuple(seen.values())

    def reads(self, namespace: str) -> bool:
        """The namespaced kinds were read in ``namespace``."""
        return self.namespaces is None or namespace in self.namespaces


def _cluster_names(lists: Mapping[str, Any], kind: str) -> frozenset[str] | None:
    if lists.get(kind) is None:
        return None
    return frozenset(_name(item) for item in _items(lists.get(kind)))
