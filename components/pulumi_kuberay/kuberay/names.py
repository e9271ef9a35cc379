"""KubeRay's names: the labels and annotations it reads and writes, who manages an object, the head Pod's ports and
Service, the environment variables it reads, the containers and volumes it injects, the length of object names.

A leaf: plain Python, imports nothing of this package (tests/test_public_seams.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
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

#: The label that marks a RayCluster created for a RayJob or RayService (``utils/constant.go``).
ORIGINATED_FROM_CRD_LABEL: Final = "ray.io/originated-from-crd"
#: The storage namespace of GCS fault tolerance (KubeRay passes it as ``RAY_external_storage_namespace``).
EXTERNAL_STORAGE_NS_ANNOTATION: Final = "ray.io/external-storage-namespace"
#: A RayService's wait for its RayCluster to become ready (Go duration; ``RayServiceInitializingTimeoutAnnotation``).
INITIALIZING_TIMEOUT_ANNOTATION: Final = "ray.io/initializing-timeout"
#: The annotation that lets the container's own command start Ray (``RayOverwriteContainerCmdAnnotationKey``).
OVERWRITE_CONTAINER_CMD_ANNOTATION: Final = "ray.io/overwrite-container-cmd"
#: The annotation turning off the serve Service of a RayCluster (``EnableServeServiceKey``).
ENABLE_SERVE_SERVICE_ANNOTATION: Final = "ray.io/enable-serve-service"
#: The label asking a batch scheduler for gang scheduling (``RayGangSchedulingEnabled``).
GANG_SCHEDULING_LABEL: Final = "ray.io/gang-scheduling-enabled"
#: The annotations the operator writes and compares for a change (``utils/constant.go``).
RECREATE_HASH_ANNOTATION: Final = "ray.io/upgrade-strategy-recreate-hash"
SERVICE_HASH_ANNOTATION: Final = "ray.io/hash-without-replicas-and-workers-to-delete"
KUBERAY_VERSION_ANNOTATION: Final = "ray.io/kuberay-version"

#: Environment variables KubeRay reads from, or writes into, the Ray containers.
AUTOSCALER_V2_ENV: Final = "RAY_enable_autoscaler_v2"
REDIS_ADDRESS_ENV: Final = "RAY_REDIS_ADDRESS"
GEN_AUTOSCALER_START_CMD_ENV: Final = "KUBERAY_GEN_AUTOSCALER_START_CMD"
TLS_ENV_VARS: Final = ("RAY_USE_TLS", "RAY_TLS_SERVER_CERT", "RAY_TLS_SERVER_KEY", "RAY_TLS_CA_CERT")
USE_TLS_ENV: Final = TLS_ENV_VARS[0]
#: The GCS storage settings the operator injects into the head with the ``rocksdb`` backend (users may not set them).
ROCKSDB_ENV_VARS: Final = ("RAY_gcs_storage", "RAY_gcs_storage_path")
#: The environment the operator gives the history collector sidecar (users may not set it).
HISTORY_COLLECTOR_ENV_VARS: Final = (
    "POD_IP",
    "FQ_RAY_IP",
    "RAY_CLUSTER_NAME",
    "RAY_CLUSTER_NAMESPACE",
    "RAY_ROLE",
    "OWNER_KIND",
    "OWNER_NAME",
    "EVENTS_PORT",
)

#: The containers KubeRay injects: the in-tree autoscaler sidecar of the head, a RayJob's submitter, the history
#: collector sidecar.
AUTOSCALER_CONTAINER: Final = "autoscaler"
SUBMITTER_CONTAINER: Final = "ray-job-submitter"
HISTORY_COLLECTOR_CONTAINER: Final = "ray-history-collector"
#: ``BuildAutoscalerContainer``'s resources when ``autoscalerOptions.resources`` is not given.
AUTOSCALER_DEFAULT_RESOURCES: Final[Mapping[str, Any]] = MappingProxyType(
    {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"cpu": "500m", "memory": "512Mi"}}
)
#: The init container ``DefaultWorkerPodTemplate`` adds to every worker Pod (unless the operator runs with
#: ``ENABLE_INIT_CONTAINER_INJECTION=false``), and its resources.
WAIT_GCS_READY_CONTAINER: Final = "wait-gcs-ready"
WAIT_GCS_READY_RESOURCES: Final[Mapping[str, Any]] = MappingProxyType(
    {"requests": {"cpu": "200m", "memory": "256Mi"}, "limits": {"cpu": "200m", "memory": "256Mi"}}
)
#: The volumes KubeRay mounts into the Ray containers: TLS certificates, and the shared memory (``addEmptyDir`` in
#: ``BuildPod``: one sized to the memory limit unless a volume is already mounted at its path).
TLS_VOLUME: Final = "ray-tls"
TLS_MOUNT_PATH: Final = "/etc/ray/tls"
SHARED_MEMORY_VOLUME: Final = "shared-mem"
SHARED_MEMORY_PATH: Final = "/dev/shm"
#: The emptyDir of Ray's logs the operator adds to the head Pod for its autoscaler sidecar (``addEmptyDir`` in
#: ``BuildPod``), so ``autoscalerOptions.volumeMounts`` may name it without a volume of the head template.
RAY_LOGS_VOLUME: Final = "ray-logs"
#: The volume of the ``rocksdb`` GCS storage the operator mounts into the head, and its path.
ROCKSDB_VOLUME: Final = "gcs-storage"
ROCKSDB_MOUNT_PATH: Final = "/data/gcs"

#: The longest name the operator accepts per kind (``ValidateRayClusterMetadata`` and its kin): the names KubeRay
#: derives from it (``<name>-head-svc``, ``<name>-<5 characters>`` for a child) must stay DNS labels.
NAME_LIMITS: Final[Mapping[str, int]] = {"RayCluster": 53, "RayJob": 47, "RayService": 47, "RayCronJob": 36}

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

#: The metrics port KubeRay adds to every Ray container and to the head Service unless a port has that name
#: (``utils.MetricsPortName``, ``utils.DefaultMetricsPort``; ``addWellKnownPorts``, ``getServicePorts``).
METRICS_PORT_NAME: Final = "metrics"
METRICS_PORT: Final = 8080

#: KubeRay names a RayCluster's head Service ``<cluster>-head-svc`` unless the spec names it.
HEAD_SERVICE_SUFFIX: Final = "-head-svc"


#: Token authentication (``SetContainerTokenAuthEnvVars``): the mode, the token from its Secret's key, or the
#: Kubernetes-token mode with its projected ServiceAccount token volume.
AUTH_MODE_ENV: Final = "RAY_AUTH_MODE"
AUTH_TOKEN_ENV: Final = "RAY_AUTH_TOKEN"
AUTH_TOKEN_SECRET_KEY: Final = "auth_token"
K8S_TOKEN_AUTH_ENV: Final = "RAY_ENABLE_K8S_TOKEN_AUTH"
TOKEN_VOLUME: Final = "ray-token"
TOKEN_MOUNT_PATH: Final = "/var/run/secrets/ray.io/serviceaccount"
#: GCS fault tolerance (``configureGCSFaultTolerance``): the workers' reconnect timeout (600 s), the external
#: storage namespace of the Redis backend, the PVC of the RocksDB backend (``<cluster>-gcs-pvc`` unless named).
GCS_RECONNECT_TIMEOUT_ENV: Final = "RAY_gcs_rpc_server_reconnect_timeout_s"
EXTERNAL_STORAGE_NS_ENV: Final = "RAY_external_storage_namespace"
GCS_PVC_SUFFIX: Final = "-gcs-pvc"

#: KubeRay names the Serve Service of a RayService (or of a RayCluster annotated ray.io/enable-serve-service) so
#: (``GenerateServeServiceName``).
SERVE_SERVICE_SUFFIX: Final = "-serve-svc"
#: Label of the Serve Service (``<name>-serve``) and of the Pods whose proxy is ready (``"true"``): its selector.
SERVE_LABEL: Final = "ray.io/serve"
#: Label naming the root custom resource of an object the operator creates (``RayOriginatedFromCRNameLabelKey``).
ORIGINATED_FROM_CR_NAME_LABEL: Final = "ray.io/originated-from-cr-name"
#: Label of the headless Service of a cluster with multi-host worker groups (``BuildHeadlessServiceForRayCluster``).
HEADLESS_WORKER_SERVICE_LABEL: Final = "ray.io/headless-worker-svc"
#: KubeRay names that headless Service ``<cluster>-headless``.
HEADLESS_SERVICE_SUFFIX: Final = "-headless"
#: The cluster annotation the dashboard Ingress takes as ``spec.ingressClassName`` (``BuildIngressForHeadService``).
INGRESS_CLASS_ANNOTATION: Final = "kubernetes.io/ingress.class"


def head_service_name(cluster_name: str, spec: Mapping[str, Any] | None = None) -> str:
    """``headGroupSpec.headService.metadata.name`` of ``spec`` if set, else KubeRay's ``<cluster>-head-svc``."""
    head = (spec or {}).get("headGroupSpec") or {}
    custom = ((head.get("headService") or {}).get("metadata") or {}).get("name")
    return str(custom) if custom else f"{cluster_name}{HEAD_SERVICE_SUFFIX}"


__all__ = [
    "AUTH_MODE_ENV",
    "AUTH_TOKEN_ENV",
    "AUTH_TOKEN_SECRET_KEY",
    "AUTOSCALER_CONTAINER",
    "AUTOSCALER_DEFAULT_RESOURCES",
    "AUTOSCALER_V2_ENV",
    "CLIENT_PORT",
    "DASHBOARD_PORT",
    "ENABLE_SERVE_SERVICE_ANNOTATION",
    "EXTERNAL_STORAGE_NS_ANNOTATION",
    "EXTERNAL_STORAGE_NS_ENV",
    "FT_ENABLED_ANNOTATION",
    "GANG_SCHEDULING_LABEL",
    "GCS_PVC_SUFFIX",
    "GCS_RECONNECT_TIMEOUT_ENV",
    "GCS_SERVER_PORT",
    "GEN_AUTOSCALER_START_CMD_ENV",
    "HEADLESS_SERVICE_SUFFIX",
    "HEADLESS_WORKER_SERVICE_LABEL",
    "HEAD_DEFAULT_PORTS",
    "HEAD_SERVICE_SUFFIX",
    "HISTORY_COLLECTOR_CONTAINER",
    "HISTORY_COLLECTOR_ENV_VARS",
    "INGRESS_CLASS_ANNOTATION",
    "INITIALIZING_TIMEOUT_ANNOTATION",
    "K8S_TOKEN_AUTH_ENV",
    "KUBERAY_CONTROLLER",
    "KUBERAY_VERSION_ANNOTATION",
    "KUEUE_QUEUE_LABEL",
    "MANAGED_BY",
    "METRICS_PORT",
    "METRICS_PORT_NAME",
    "NAME_LIMITS",
    "NUM_WORKER_GROUPS_ANNOTATION",
    "ORIGINATED_FROM_CRD_LABEL",
    "ORIGINATED_FROM_CR_NAME_LABEL",
    "OVERWRITE_CONTAINER_CMD_ANNOTATION",
    "RAY_CLUSTER_LABEL",
    "RAY_LOGS_VOLUME",
    "RECREATE_HASH_ANNOTATION",
    "REDIS_ADDRESS_ENV",
    "ROCKSDB_ENV_VARS",
    "ROCKSDB_MOUNT_PATH",
    "ROCKSDB_VOLUME",
    "SERVE_LABEL",
    "SERVE_PORT",
    "SERVE_SERVICE_SUFFIX",
    "SERVICE_HASH_ANNOTATION",
    "SHARED_MEMORY_PATH",
    "SHARED_MEMORY_VOLUME",
    "SUBMITTER_CONTAINER",
    "TLS_ENV_VARS",
    "TLS_MOUNT_PATH",
    "TLS_VOLUME",
    "TOKEN_MOUNT_PATH",
    "TOKEN_VOLUME",
    "USE_TLS_ENV",
    "WAIT_GCS_READY_CONTAINER",
    "WAIT_GCS_READY_RESOURCES",
    "ManagedBy",
    "head_service_name",
]
