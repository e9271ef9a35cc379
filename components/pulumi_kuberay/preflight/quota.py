"""Does a cluster's start fit the namespace's ResourceQuotas, and a Kueue-managed object its ClusterQueue? Pure.

The ResourceQuota admission plugin charges each Pod at creation: ``requests.cpu`` (or ``cpu``), ``requests.memory``
(or ``memory``), ``limits.*``, ``requests.<extended>`` and ``pods``; a Pod whose containers leave a tracked
compute resource unsaid is refused (``must specify``), and a Pod that would take the namespace past ``hard`` is
refused (``exceeded quota``). The operator then keeps retrying: the Pods it could not create never exist.
Kueue admits a workload when its LocalQueue exists, its ClusterQueue covers every resource the Pods request and one
flavor's quota (nominal plus borrowing limit) holds their sum.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .pods import PodShape
from .snapshot import Amounts, ClusterSnapshot, ResourceQuota

__all__ = ["QuotaVerdict", "charge", "kueue_problem", "quota_verdicts", "totals"]

_COMPUTE = ("cpu", "memory", "ephemeral-storage")


def totals(pods: Sequence[PodShape], which: str = "requests", *, most: bool = False) -> dict[str, Fraction]:
    """The sum over the groups of (Pods at start, or at most) times one Pod's requests (or limits)."""
    out: dict[str, Fraction] = {}
    for pod in pods:
        count = pod.most if most else pod.count
        values: Amounts = pod.requests if which == "requests" else pod.limits
        for key, amount in values.items():
            out[key] = out.get(key, Fraction(0)) + amount * count
    return out


def _tracked(hard_key: str) -> tuple[str, str] | None:
    """``requests.cpu`` -> (requests, cpu), ``cpu`` -> (requests, cpu), ``limits.memory`` -> (limits, memory),
    ``requests.nvidia.com/gpu`` -> (requests, nvidia.com/gpu); None for what Pods are not charged in resources."""
    if hard_key in _COMPUTE:
        return "requests", hard_key
    for prefix in ("requests.", "limits."):
        if hard_key.startswith(prefix):
            return prefix[:-1], hard_key[len(prefix):]
    return None


def charge(pods: Sequence[PodShape]) -> dict[str, Fraction]:
    """What the Pods at start are charged, in the quota's own keys (``requests.cpu``, ``limits.memory``, ``pods``)."""
    requests, limits = totals(pods), totals(pods, "limits")
    out: dict[str, Fraction] = {"pods": Fraction(sum(pod.count for pod in pods))}
    for key, amount in requests.items():
        out[f"requests.{key}"] = amount
        if key in _COMPUTE:
            out[key] = amount
    for key, amount in limits.items():
        out[f"limits.{key}"] = amount
    return out


@dataclass(frozen=True)
class QuotaVerdict:
    quota: ResourceQuota
    #: quota key -> (charged, remaining) where charged > remaining
    over: Mapping[str, tuple[Fraction, Fraction]]
    #: (group, container, quota key) of containers that leave a tracked resource unsaid
    unspecified: tuple[tuple[str, str, str], ...]


def quota_verdicts(pods: Sequence[PodShape], namespace: str, snapshot: ClusterSnapshot) -> list[QuotaVerdict]:
    """The namespace's unscoped quotas the Pods at start do not fit (nothing when quotas were not read)."""
    out: list[QuotaVerdict] = []
    live = [pod for pod in pods if pod.count > 0]
    charged = charge(live)
    for quota in snapshot.quotas or ():
        if quota.namespace != namespace or quota.scoped:
            continue
        over: dict[str, tuple[Fraction, Fraction]] = {}
        unspecified: list[tuple[str, str, str]] = []
        for key, hard in sorted(quota.hard.items()):
            remaining = hard - quota.used.get(key, Fraction(0))
            tracked = _tracked(key)
            if key == "pods" or tracked is not None:
                amount = charged.get(key, Fraction(0))
                if amount > remaining:
                    over[key] = (amount, remaining)
            if tracked is not None and (tracked[1] in _COMPUTE or key.startswith("limits.")):
                which, resource = tracked
                for pod in live:
                    for container in pod.containers:
                        values = container.requests if which == "requests" else container.limits
                        if resource not in values and resource in ("cpu", "memory"):
                            unspecified.append((pod.label(), container.name, key))
        if over or unspecified:
            out.append(QuotaVerdict(quota, over, tuple(dict.fromkeys(unspecified))))
    return out


def kueue_problem(pods: Sequence[PodShape], namespace: str, queue: str, snapshot: ClusterSnapshot) -> str | None:
    """Why Kueue never admits the object (None: it can, or Kueue was not read)."""
    if snapshot.local_queues is None:
        return None
    local = next((q for q in snapshot.local_queues if q.namespace == namespace and q.name == queue), None)
    if local is None:
        return f"LocalQueue {queue!r} does not exist in namespace {namespace!r}"
    cluster_queue = next((q for q in snapshot.cluster_queues or () if q.name == local.cluster_queue), None)
    if cluster_queue is None:
        if snapshot.cluster_queues is None:
            return None
        return f"LocalQueue {queue!r} points at ClusterQueue {local.cluster_queue!r}, which does not exist"
    needed = {k: v for k, v in totals(pods).items() if v > 0}
    uncovered = sorted(set(needed) - cluster_queue.covered)
    if uncovered:
        return f"ClusterQueue {cluster_queue.name!r} covers no {', '.join(uncovered)} (its resourceGroups cover {', '.join(sorted(cluster_queue.covered)) or 'nothing'})"
    flavors = snapshot.resource_flavors
    usable = {name: quota for name, quota in cluster_queue.flavors.items() if flavors is None or name in flavors}
    for quota in usable.values():
        if all(amount <= quota.get(key, Fraction(0)) for key, amount in needed.items()):
            return None
    from .placement import describe_amounts

    shown = "; ".join(f"{name}: {describe_amounts(quota, sorted(needed))}" for name, quota in sorted(usable.items()))
    return f"no flavor of ClusterQueue {cluster_queue.name!r} holds {describe_amounts(needed)} ({shown or 'no flavor that exists as a ResourceFlavor'})"
