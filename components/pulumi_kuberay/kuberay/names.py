"""KubeRay's names: the labels it reads and writes, who manages an object, the head Pod's ports and Service.

A leaf: plain Python, imports nothing of this package (tests/test_public_seams.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, get_args

#: ``spec.managedBy``: the controller of an object (immutable). KubeRay reconciles only its own; any other value
#: hands the object to that controller (``utils.ManagedByExternalController``).
ManagedBy = Literal["ray.io/kuberay-operator", "kueue.x-k8s.io/multikueue"]
MANAGED_BY: Final[tuple[ManagedBy, ...]] = get_args(ManagedBy)
#: ``spec.managedBy`` of an object KubeRay itself reconciles.
KUBERAY_CONTROLLER: Final[ManagedBy] = MANAGED_BY[0]

#: The label naming a Pod's RayCluster, and the ``clusterSelector`` key naming the RayCluster a job runs on.
RAY_CLUSTER_LABEL: Final = "ray.io/cluster"
#: Kueue's label: the LocalQueue that admits a workload.
KUEUE_QUEUE_LABEL: Final = "kueue.x-k8s.io/queue-name"
#: The legacy annotation turning GCS fault tolerance on (``IsGCSFaultToleranceEnabled`` still reads it).
FT_ENABLED_ANNOTATION: Final = "ray.io/ft-enabled"
#: The number of worker groups the operator wrote at the last update (``utils/constant.go``).
NUM_WORKER_GROUPS_ANNOTATION: Final = "ray.io/num-worker-groups"

#: The head Ray container's ports that KubeRay gives a head without any (and looks up by name).
GCS_SERVER_PORT: Final = 6379
DASHBOARD_PORT: Final = 8265
CLIENT_PORT: Final = 10001
SERVE_PORT: Final = 8000
HEAD_DEFAULT_PORTS: Final[tuple[tuple[str, int], ...]] = (
    ("gcs-server", GCS_SERVER_PORT),
    ("dashboard", DASHBOARD_PORT),
    ("client", CLIENT_PORT),
    ("serve", SERVE_PORT),
)

#: KubeRay names a RayCluster's head Service ``<cluster>-head-svc`` unless the spec names it.
HEAD_SERVICE_SUFFIX: Final = "-head-svc"


def head_service_name(cluster_name: str, spec: Mapping[str, Any] | None = None) -> str:
    """``headGroupSpec.headService.metadata.name`` of ``spec`` if set, else KubeRay's ``<cluster>-head-svc``."""
    head = (spec or {}).get("headGroupSpec") or {}
    custom = ((head.get("headService") or {}).get("metadata") or {}).get("name")
    return str(custom) if custom else f"{cluster_name}{HEAD_SERVICE_SUFFIX}"


__all__ = [
    "CLIENT_PORT",
    "DASHBOARD_PORT",
    "FT_ENABLED_ANNOTATION",
    "GCS_SERVER_PORT",
    "HEAD_DEFAULT_PORTS",
    "HEAD_SERVICE_SUFFIX",
    "KUBERAY_CONTROLLER",
    "KUEUE_QUEUE_LABEL",
    "MANAGED_BY",
    "NUM_WORKER_GROUPS_ANNOTATION",
    "RAY_CLUSTER_LABEL",
    "SERVE_PORT",
    "ManagedBy",
    "head_service_name",
]
