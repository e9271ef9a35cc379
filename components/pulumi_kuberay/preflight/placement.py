"""Can a Pod ever be placed? The scheduler's filters that decide it for good, on the snapshot's nodes.

Pure. A node takes a Pod when it is schedulable, its labels satisfy the Pod's nodeSelector and one of its required
node-affinity terms (``NodeAffinity``), the Pod tolerates each of its NoSchedule and NoExecute taints
(``TaintToleration``) and its allocatable holds the Pod's effective request, resource by resource, ``pods``
included (``NodeResourcesFit`` against an empty node: "ever", not "now"). A node source (Karpenter NodePool,
cluster-autoscaler node group) could add a node where its requirements, labels and taints allow the Pod and its
limits hold it; a source whose node shape is unknown is taken to be able to (never cry wolf).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .pods import PodShape
from .snapshot import Amounts, ClusterSnapshot, Node, NodeSource, Taint

__all__ = [
    "Placement",
    "affinity_matches",
    "describe_amounts",
    "free_capacity",
    "jointly_short",
    "node_rejects",
    "placement",
    "show",
    "source_could_add",
    "tolerates",
]

_GIB = 1 << 30
#: The taint ``NodeUnschedulable`` reads a cordoned node as: a Pod tolerating it may still go there.
_UNSCHEDULABLE = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")


def show(resource: str, amount: Fraction) -> str:
    """An amount as a reader writes it: ``1.5`` CPUs, ``16Gi`` of memory, ``2`` GPUs."""
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        if amount % _GIB == 0:
            return f"{amount // _GIB}Gi"
        mib = amount / (1 << 20)
        return f"{int(mib)}Mi" if mib.denominator == 1 else f"{float(amount / _GIB):.2f}Gi"
    if amount.denominator == 1:
        return str(amount.numerator)
    millis = amount * 1000
    return f"{int(millis)}m" if millis.denominator == 1 else f"{float(amount):g}"


def describe_amounts(values: Amounts, keys: Iterable[str] | None = None) -> str:
    """``cpu 2, memory 8Gi, nvidia.com/gpu 1`` (the ``keys`` given, else every non-zero amount)."""
    chosen = sorted(values) if keys is None else list(keys)
    parts = [f"{key} {show(key, values.get(key, Fraction(0)))}" for key in chosen if keys is not None or values[key]]
    return ", ".join(parts) or "nothing"


def tolerates(tolerations: Iterable[Mapping[str, Any]], taint: Taint) -> bool:
    """``ToleratesTaint``: some toleration matches the taint's key, value (Equal) and effect."""
    for toleration in tolerations:
        effect = toleration.get("effect") or ""
        if effect and effect != taint.effect:
            continue
        key = toleration.get("key") or ""
        operator = toleration.get("operator") or "Equal"
        if not key and operator == "Exists":
            return True
        if key != taint.key:
            continue
        if operator == "Exists" or str(toleration.get("value") or "") == taint.value:
            return True
    return False


def _expression(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key = str(expression.get("key") or "")
    operator = expression.get("operator")
    values = [str(v) for v in expression.get("values") or []]
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(values) == 1:
        try:
            have, bound = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False


def affinity_matches(terms: Iterable[Mapping[str, Any]], labels: Mapping[str, str], name: str) -> bool:
    """``nodeSelectorTerms`` (ORed; each term's expressions ANDed; an empty term matches nothing)."""
    listed = list(terms)
    if not listed:
        return True
    for term in listed:
        expressions = [e for e in term.get("matchExpressions") or [] if isinstance(e, Mapping)]
        fields = [e for e in term.get("matchFields") or [] if isinstance(e, Mapping)]
        if not expressions and not fields:
            continue
        if all(_expression(e, labels) for e in expressions) and all(
            _expression(e, {"metadata.name": name}) for e in fields
        ):
            return True
    return False


def _short(requests: Amounts, capacity: Amounts) -> list[str]:
    return [key for key, amount in sorted(requests.items()) if amount > capacity.get(key, Fraction(0))]


def node_rejects(pod: PodShape, node: Node) -> str | None:
    """Why ``node`` can never take the Pod (None: it can, once it has room)."""
    if node.unschedulable and not tolerates(pod.tolerations, _UNSCHEDULABLE):
        return "unschedulable (cordoned)"
    wrong = [f"{k}={v}" for k, v in sorted(pod.node_selector.items()) if node.labels.get(k) != v]
    if wrong:
        return f"nodeSelector {', '.join(wrong)} not among its labels"
    if not affinity_matches(pod.affinity_terms, node.labels, node.name):
        return "no required node-affinity term matches its labels"
    untolerated = [t for t in node.taints if t.effect in ("NoSchedule", "NoExecute") and not tolerates(pod.tolerations, t)]
    if untolerated:
        taint = untolerated[0]
        return f"taint {taint.key}{'=' + taint.value if taint.value else ''}:{taint.effect} not tolerated"
    requests = pod.requests_with_slot
    short = _short(requests, node.allocatable)
    if short:
        return f"allocatable {describe_amounts(node.allocatable, short)} < requested {describe_amounts(requests, short)}"
    return None


def _requirement_allows(requirements: Iterable[Mapping[str, Any]], key: str, value: str) -> bool | None:
    """What a source's requirements say of label ``key`` = ``value`` (None: they do not name the key)."""
    verdict: bool | None = None
    for requirement in requirements:
        if requirement.get("key") != key:
            continue
        allowed = _expression(requirement, {key: value})
        verdict = allowed if verdict is None else verdict and allowed
    return verdict


def source_could_add(pod: PodShape, source: NodeSource) -> bool:
    """Whether ``source`` could add a node that takes the Pod (an unknown shape is taken to be able to)."""
    if any(t.effect in ("NoSchedule", "NoExecute") and not tolerates(pod.tolerations, t) for t in source.taints):
        return False
    for key, value in pod.node_selector.items():
        named = _requirement_allows(source.requirements, key, value)
        if named is False or (named is None and source.kind == "Karpenter NodePool" and
                              source.labels.get(key) != value and not _well_known(key)):
            return False
    limits = source.limits
    if limits is not None and _short({k: v for k, v in pod.requests.items() if k in limits}, limits):
        return False
    return not (source.capacity is not None and _short(pod.requests, source.capacity))


def _well_known(key: str) -> bool:
    """Labels the provisioner sets from the instance it picks (zone, instance type, architecture, GPU facts)."""
    return key.startswith(("topology.kubernetes.io/", "node.kubernetes.io/", "kubernetes.io/", "karpenter.",
                           "nvidia.com/", "cloud.google.com/", "eks.amazonaws.com/"))


@dataclass(frozen=True)
class Placement:
    """The verdict for one group's Pod."""

    pod: PodShape
    #: the nodes that can take it (once they have room)
    fitting: tuple[str, ...]
    #: node name -> why it cannot (every node when ``fitting`` is empty)
    rejected: Mapping[str, str]
    #: the node sources that could add a node for it
    sources: tuple[NodeSource, ...]

    @property
    def never(self) -> bool:
        """No node takes it and nothing could add one: the Pods stay Pending for good."""
        return not self.fitting and not self.sources

    def nodes_compared(self, limit: int = 4) -> str:
        items = sorted(self.rejected.items())
        shown = "; ".join(f"{name}: {why}" for name, why in items[:limit])
        more = f"; and {len(items) - limit} more" if len(items) > limit else ""
        return shown + more if items else "no nodes"


def placement(pod: PodShape, snapshot: ClusterSnapshot) -> Placement | None:
    """Where ``pod`` could go (None: the nodes were not read, the group creates no Pod, or where it may go is not
    known yet)."""
    if snapshot.nodes is None or pod.most == 0 or pod.unknown:
        return None
    key = ("placement", tuple(sorted(pod.requests.items())), tuple(sorted(pod.node_selector.items())),
           repr(pod.affinity_terms), repr(pod.tolerations))
    kept = snapshot.memo.get(key)
    if kept is not None:
        return Placement(pod, *kept)
    fitting: list[str] = []
    rejected: dict[str, str] = {}
    for node in snapshot.nodes:
        why = node_rejects(pod, node)
        if why is None:
            fitting.append(node.name)
        else:
            rejected[node.name] = why
    sources: tuple[NodeSource, ...] = ()
    if not fitting:
        sources = tuple(s for s in snapshot.node_sources if source_could_add(pod, s))
    snapshot.memo[key] = (tuple(fitting), rejected, sources)
    return Placement(pod, tuple(fitting), rejected, sources)


def free_capacity(snapshot: ClusterSnapshot) -> dict[str, Fraction]:
    """Allocatable minus what bound Pods request, summed over the schedulable nodes."""
    free: dict[str, Fraction] = {}
    for node in snapshot.nodes or ():
        if node.unschedulable:
            continue
        for key, amount in node.allocatable.items():
            free[key] = free.get(key, Fraction(0)) + max(amount - node.used.get(key, Fraction(0)), Fraction(0))
    return free


#: A group short together with others: its placement, resource -> (asked, allocatable), the groups counted.
Shortfall = tuple[Placement, dict[str, tuple[Fraction, Fraction]], tuple[str, ...]]


def jointly_short(placements: Sequence[Placement], snapshot: ClusterSnapshot) -> list[Shortfall]:
    """Groups whose Pods at start can each go somewhere but not all together, even on empty nodes: for a group's
    fitting nodes S, the Pods of every group that can only go within S ask more than S's allocatable in all (a
    necessary condition of any placement, so never a false alarm). (placement, resource -> (asked, allocatable), the
    groups counted)."""
    nodes = {node.name: node for node in snapshot.nodes or ()}
    out: list[Shortfall] = []
    judged: set[frozenset[str]] = set()
    for mine in placements:
        if not mine.fitting or mine.pod.count == 0 or frozenset(mine.fitting) in judged:
            continue
        judged.add(frozenset(mine.fitting))
        within = set(mine.fitting)
        members = [p for p in placements if p.fitting and p.pod.count and set(p.fitting) <= within]
        asked: dict[str, Fraction] = {}
        for member in members:
            for key, amount in {**member.pod.requests, "pods": Fraction(1)}.items():
                asked[key] = asked.get(key, Fraction(0)) + amount * member.pod.count
        room: dict[str, Fraction] = snapshot.memo.get(("room", frozenset(within))) or {}
        if not room:
            for name in within:
                for key, amount in nodes[name].allocatable.items():
                    room[key] = room.get(key, Fraction(0)) + amount
            snapshot.memo["room", frozenset(within)] = room
        short = {k: (v, room.get(k, Fraction(0))) for k, v in sorted(asked.items()) if v > room.get(k, Fraction(0))}
        if short:
            out.append((mine, short, tuple(m.pod.label() for m in members)))
    return out
