"""What this Pulumi program declared, for components that refer to each other by name: the RayCluster components
by namespace and object name, so that a RayJob whose ``clusterSelector`` names one is treated as ``cluster=`` it.

One table per program: the key is the program's resource monitor (each ``pulumi up`` has its own, and so does each
``pulumi.runtime.set_mocks`` of a unit test), so a cluster of an earlier test program is never found.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

if TYPE_CHECKING:
    from pulumi_kuberay.resources.cluster import RayCluster

#: (the monitor of the program the table belongs to, {(namespace or None, object name): component})
_TABLE: list[Any] = [None, {}]


def _clusters() -> dict[tuple[str | None, str], RayCluster]:
    monitor = pulumi.runtime.settings.get_monitor()
    if _TABLE[0] is not monitor:
        _TABLE[0], _TABLE[1] = monitor, {}
    clusters: dict[tuple[str | None, str], RayCluster] = _TABLE[1]
    return clusters


def add_cluster(component: RayCluster, namespace: str | None, name: str) -> None:
    """Record a RayCluster component of this program (the first of a namespace and name is kept: a second one is
    the API server's conflict, not ours to hide)."""
    _clusters().setdefault((namespace, name), component)


def find_cluster(namespace: str | None, name: str) -> RayCluster | None:
    """The RayCluster component this program declared (before now) as ``name`` in ``namespace`` (None: no
    namespace given, the provider's default), or None."""
    return _clusters().get((namespace, name))



def cluster_names(namespace: str | None) -> list[str]:
    """The object names of the RayCluster components this program declared (before now) in ``namespace``."""
    return [name for ns, name in _clusters() if ns == namespace]


def cluster_namespaces(name: str) -> list[str | None]:
    """The namespaces where this program declared (before now) a RayCluster component named ``name``."""
    return [ns for ns, other in _clusters() if other == name]
