"""The Pods of a worker group as the operator counts them, read from an untrusted manifest dict; and the
``replicas`` to send of a group the in-tree autoscaler owns.

KubeRay's ``GetWorkerGroupDesiredReplicas``: ``replicas`` clamped into [minReplicas, maxReplicas] (unset: the
minimum; an unset maxReplicas is the int32 bound), times ``numOfHosts``, 0 for a suspended group. With in-tree
autoscaling the group can grow to ``maxReplicas`` times ``numOfHosts``. Values that are not integers read as unset
(the schema rules judge them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .kubernetes import INT32_MAX


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(value: Any, default: int) -> int:
    return value if _is_int(value) else default


def desired_worker_pods(group: Mapping[str, Any]) -> int:
    """The Pods of worker group ``group`` (a ``workerGroupSpecs`` item) the operator keeps.

    >>> desired_worker_pods({"replicas": 5, "minReplicas": 1, "maxReplicas": 3, "numOfHosts": 2})
    6
    """
    if group.get("suspend") is True:
        return 0
    low, high = _int(group.get("minReplicas"), 0), _int(group.get("maxReplicas"), INT32_MAX)
    replicas = group.get("replicas")
    count = low if not isinstance(replicas, int) or replicas < low else min(replicas, high)
    return count * max(_int(group.get("numOfHosts"), 1), 1)


def most_worker_pods(group: Mapping[str, Any], *, autoscaled: bool) -> int:
    """The most Pods the group can have: with in-tree autoscaling (``autoscaled``) what maxReplicas allows,
    never less than :func:`desired_worker_pods`; without, the desired count.

    >>> most_worker_pods({"replicas": 1, "maxReplicas": 4}, autoscaled=True)
    4
    """
    count = desired_worker_pods(group)
    if not autoscaled or group.get("suspend") is True:
        return count
    hosts = max(_int(group.get("numOfHosts"), 1), 1)
    return max(count, _int(group.get("maxReplicas"), INT32_MAX) * hosts)


def drop_autoscaled_replicas(spec: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """With in-tree autoscaling, remove ``workerGroupSpecs[*].replicas`` (the autoscaler owns them).

    Returns the spec to send (a copy when something was dropped) and the groups whose replicas were dropped.
    """
    if not spec.get("enableInTreeAutoscaling"):
        return spec, []
    groups = spec.get("workerGroupSpecs")
    if not isinstance(groups, list) or not any(isinstance(g, dict) and "replicas" in g for g in groups):
        return spec, []
    # A copy of the spec and of the groups it changes (the rest is shared, as the caller never mutates it).
    dropped: list[str] = []
    kept: list[Any] = []
    for group in groups:
        if isinstance(group, dict) and "replicas" in group:
            group = {k: v for k, v in group.items() if k != "replicas"}
            dropped.append(str(group.get("groupName", "?")))
        kept.append(group)
    return {**spec, "workerGroupSpecs": kept}, dropped


def replicas_from_live(spec: dict[str, Any], live_spec: Mapping[str, Any] | None) -> tuple[dict[str, Any], list[str]]:
    """With in-tree autoscaling, every worker group's ``replicas`` as the live object has them (the autoscaler's
    count), a group not live yet (or no live object: a create) at its ``minReplicas``, where the operator starts it.

    ``workerGroupSpecs`` is an atomic list for server-side apply: once the autoscaler has written it, an apply
    that leaves ``replicas`` out conflicts with the autoscaler's field manager, and a forced one would reset every
    group to its minimum. Sending the live counts with a forced apply changes nothing the autoscaler decided.
    Returns the spec to send (a copy when something changed) and, for each group whose ``replicas`` you wrote is
    not what is sent, a note ``"<group>: <yours> -> <sent>"``.

    >>> spec = {"enableInTreeAutoscaling": True, "workerGroupSpecs": [{"groupName": "cpu", "replicas": 1}]}
    >>> replicas_from_live(spec, {"workerGroupSpecs": [{"groupName": "cpu", "replicas": 3}]})[0]["workerGroupSpecs"]
    [{'groupName': 'cpu', 'replicas': 3}]
    """
    groups = spec.get("workerGroupSpecs")
    if not spec.get("enableInTreeAutoscaling") or not isinstance(groups, list):
        return spec, []
    live_groups = (live_spec or {}).get("workerGroupSpecs")
    live_replicas = {
        g.get("groupName"): g["replicas"]
        for g in (live_groups if isinstance(live_groups, list) else [])
        if isinstance(g, Mapping) and _is_int(g.get("replicas"))
    }
    sent: list[Any] = []
    changed: list[str] = []
    for group in groups:
        if isinstance(group, dict):
            count = live_replicas.get(group.get("groupName"), _int(group.get("minReplicas"), 0))
            if "replicas" in group and group["replicas"] != count:
                changed.append(f"{group.get('groupName', '?')}: {group['replicas']} -> {count}")
            group = {**group, "replicas": count}
        sent.append(group)
    return {**spec, "workerGroupSpecs": sent}, changed


__all__ = ["desired_worker_pods", "drop_autoscaled_replicas", "most_worker_pods", "replicas_from_live"]
