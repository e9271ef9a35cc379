"""The Pods of a worker group as the operator counts them, read from an untrusted manifest dict.

KubeRay's ``GetWorkerGroupDesiredReplicas``: ``replicas`` clamped into [minReplicas, maxReplicas] (unset: the
minimum; an unset maxReplicas is the int32 bound), times ``numOfHosts``, 0 for a suspended group. With in-tree
autoscaling the group can grow to ``maxReplicas`` times ``numOfHosts``. Values that are not integers read as unset
(the schema rules judge them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .kubernetes import INT32_MAX


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


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


__all__ = ["desired_worker_pods", "most_worker_pods"]
