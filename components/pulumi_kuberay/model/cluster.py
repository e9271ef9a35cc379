"""Typed model of the whole ``RayClusterSpec`` of ``ray.io/v1`` as of KubeRay v1.7.0.

The CRD (``ray.io_rayclusters.yaml``) is the contract: every field is here, snake_case in Python and under its
CRD name on the wire, enums as ``Literal``; unknown keys are rejected. The same spec is embedded in RayJob
(``rayClusterSpec``), RayService (``rayClusterConfig``) and RayCronJob.

A two-group GPU autoscaling cluster with the convenience fields (see :mod:`pulumi_kuberay.model.pod`)::

    spec = RayClusterSpec(
        ray_version="2.52.0",
        image="rayproject/ray:2.52.0",
        enable_in_tree_autoscaling=True,
        autoscaler_options=AutoscalerOptions(version="v2"),
        head_group_spec=HeadGroupSpec(cpu=2, memory="8Gi", ray_start_params={"num-cpus": 0}),
        worker_group_specs=[
            WorkerGroupSpec(group_name="cpu", cpu=4, memory="16Gi", min_replicas=0, max_replicas=10),
            WorkerGroupSpec(
                group_name="gpu", image="rayproject/ray:2.52.0-gpu", cpu=8, memory="64Gi", gpu=1,
                min_replicas=0, max_replicas=4,
                tolerations=[Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")],
                node_selector={"cloud.google.com/gke-accelerator": "nvidia-l4"},
            ),
        ],
    )
    spec.to_dict()   # the CRD's spec: templates with containers "ray-head"/"ray-worker", requests = limits
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from pydantic import BeforeValidator, Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticKnownError

from ..kuberay import HEAD_DEFAULT_PORTS as HEAD_DEFAULT_PORTS
from ..kuberay import INT32_MAX as INT32_MAX  # the CRD default of workerGroupSpecs[].maxReplicas
from ..kuberay import ManagedBy
from ._base import Int32, KubeModel, wire_noop
from ._deferred import In, known
from ._errors import SpecError
from ._k8s import (
    EnvFromSource,
    EnvVar,
    EnvVarSource,
    IngressTLS,
    NetworkPolicyEgressRule,
    NetworkPolicyIngressRule,
    PodTemplateSpec,
    ResourceRequirements,
    SecurityContext,
    Service,
    Toleration,
    VolumeMount,
)
from ._quantity import ResourceQuantity
from .pod import (
    PodShortcuts,
    ScalarStringMap,
    SecretRef,
    hardened_security_context,
    is_stored,
    is_wire,
    reject_on_wire,
    secret_ref_to_value_from,
)

# HEAD_DEFAULT_PORTS (kuberay.names): ports of a head Ray container generated from convenience fields (KubeRay's
# defaults; ``serve`` included because RayService and the serve Service look the port up by that name).


# Design notes:
#
# - rayStartParams (and group resources) are map[string]string in the CRD. From Python, numbers and
#   booleans are accepted and stringified the way KubeRay reads them (0 -> "0", True -> "true").
#   A *manifest* (load_manifest, validation context :data:`~pulumi_kuberay.model.pod.WIRE_CONTEXT`) is not
#   coerced: a non-string there is reported as a wrong type, as the API server would reject it.
# - template may be omitted in Python when convenience fields (image, cpu, ...; on the group or the
#   cluster-wide image) produce it; in a manifest it is required, as in the CRD.
# - workerGroupSpecs[].minReplicas/maxReplicas are CRD-required but have CRD defaults (0 / 2147483647),
#   so the API server accepts them omitted (several upstream samples do): they are optional here.
# - Only obvious structural invariants are checked here (replica bounds, a template for every group); the
#   operator's full rule set lives in the rule catalogue (pulumi_kuberay.rules). Replica bounds are the
#   operator's, not the CRD's: a manifest with crossed or negative bounds loads (the API server stores it) and
#   the rules report it; from Python it is refused.


def _missing_on_wire(value: Any, info: ValidationInfo) -> Any:
    # `template` is CRD-required; in Python the convenience fields may produce it instead (checked later).
    if value is None and is_wire(info):
        raise PydanticKnownError("missing")
    return value


# --------------------------------------------------------------------------------------------------
# Head and worker groups.


class IngressOptions(KubeModel):
    """Options of the Ingress KubeRay creates for the dashboard when ``enableIngress`` is true (v1.7).

    Example: ``IngressOptions(host="ray.example.com", path="/", path_type="Prefix")``.
    """

    host: str | None = None
    """Host of the Ingress rule, e.g. ``"ray.example.com"``; empty matches any host."""
    path: str | None = None
    """HTTP path, e.g. ``"/ray"`` (operator default ``/``)."""
    path_type: Literal["Exact", "Prefix", "ImplementationSpecific"] | None = None
    """Ingress path type (operator default ``Prefix``)."""
    tls: list[IngressTLS] | None = None
    """TLS blocks, e.g. ``[IngressTLS(hosts=["ray.example.com"], secret_name="ray-tls")]``."""


class HeadGroupSpec(PodShortcuts):
    """The head group: pod template of the head Pod and the ``ray start --head`` parameters.

    Example: ``HeadGroupSpec(cpu=2, memory="8Gi", ray_start_params={"num-cpus": 0})`` (image from the
    cluster) or ``HeadGroupSpec(template=PodTemplateSpec(...))``.
    """

    RAY_CONTAINER_NAME = "ray-head"
    DEFAULT_PORTS = HEAD_DEFAULT_PORTS

    template: PodTemplateSpec | None = Field(default=None, validate_default=True)
    """Head Pod template; ``spec.containers[0]`` is the Ray container. CRD-required; may be omitted in Python
    when convenience fields (``image``, ``cpu``, ``memory``, ...) produce it."""
    ray_start_params: ScalarStringMap | None = None
    """``ray start --head`` flags without dashes, e.g. ``{"num-cpus": 0, "dashboard-host": "0.0.0.0"}``
    (values stringified: ``0`` -> ``"0"``, ``True`` -> ``"true"``)."""
    service_type: str | None = None
    """Type of the head Service, e.g. ``"ClusterIP"``, ``"NodePort"``, ``"LoadBalancer"``."""
    head_service: Service | None = None
    """A custom head Service (its selector is replaced by KubeRay, ports appended)."""
    enable_ingress: bool | None = None
    """Create an Ingress to the dashboard, e.g. ``True``."""
    ingress_options: IngressOptions | None = None
    """Ingress host/path/pathType/tls (v1.7), e.g. ``IngressOptions(host="ray.example.com")``."""
    resources: ScalarStringMap | None = None
    """Ray logical resources of the head (v1.5), e.g. ``{"CPU": 0, "custom": 1}`` (values stringified)."""
    labels: dict[str, In[str]] | None = None
    """Ray node labels of the head (v1.5), e.g. ``{"ray.io/market-type": "on-demand"}``."""

    @field_validator("template", mode="after")
    @classmethod
    def _template_required_on_wire(cls, value: Any, info: ValidationInfo) -> Any:
        return _missing_on_wire(value, info)

    @model_validator(mode="after")
    @wire_noop  # a manifest sets no shortcut: _shortcuts_are_python_only refuses them there
    def _render_shortcuts(self) -> Self:
        return _render_group_shortcuts(self)  # type: ignore[no-any-return]


def _render_group_shortcuts(group: HeadGroupSpec | WorkerGroupSpec) -> Any:
    if group.shortcuts_set():
        group.template = group.render_template(group.template)
        if group.object_store_memory is not None:
            group.ray_start_params = group.object_store_param(group.ray_start_params)
    return group


class ScaleStrategy(KubeModel):
    """Scale-down instructions, written by the autoscaler.

    Example: ``ScaleStrategy(workers_to_delete=["raycluster-cpu-worker-abcde"])``.
    """

    workers_to_delete: list[str] | None = None
    """Names of worker Pods to delete, e.g. ``["raycluster-cpu-worker-abcde"]``."""


class WorkerGroupSpec(PodShortcuts):
    """One worker group: pod template, replica bounds and ``ray start`` parameters.

    Example: ``WorkerGroupSpec(group_name="cpu", cpu=4, memory="16Gi", min_replicas=0, max_replicas=10)``.
    """

    RAY_CONTAINER_NAME = "ray-worker"

    group_name: str
    """Name of the group (unique in the cluster; in Pod names and label ``ray.io/group``), e.g. ``"cpu"``."""
    replicas: Int32 | None = None
    """Desired worker count (CRD default 0; clamped into [minReplicas, maxReplicas]; the autoscaler rewrites
    it when autoscaling is on), e.g. ``2``."""
    min_replicas: Int32 | None = None
    """Lower bound, e.g. ``0`` (CRD-required with default 0)."""
    max_replicas: Int32 | None = None
    """Upper bound, e.g. ``10`` (CRD-required with default 2147483647)."""
    num_of_hosts: Int32 | None = None
    """Pods per replica (multi-host, e.g. TPU slices), e.g. ``4`` (CRD default 1)."""
    idle_timeout_seconds: Int32 | None = None
    """Per-group scale-down idle time (autoscaler v2 only), e.g. ``120``."""
    priority: Int32 | None = None
    """Scheduling priority of the group (v1.7; Ray >= 2.56.0, autoscaler v2), e.g. ``10``."""
    suspend: bool | None = None
    """Suspend the group (internal: used by RayJob ``DeleteWorkers``)."""
    scale_strategy: ScaleStrategy | None = None
    """Pods to delete, written by the autoscaler."""
    ray_start_params: ScalarStringMap | None = None
    """``ray start`` flags without dashes, e.g. ``{"num-cpus": 4}`` (values stringified)."""
    resources: ScalarStringMap | None = None
    """Ray logical resources of the group (v1.5), e.g. ``{"GPU": 1}`` (values stringified)."""
    labels: dict[str, In[str]] | None = None
    """Ray node labels (v1.5), e.g. ``{"ray.io/accelerator-type": "A100"}``."""
    template: PodTemplateSpec | None = Field(default=None, validate_default=True)
    """Worker Pod template; ``spec.containers[0]`` is the Ray container. CRD-required; may be omitted in
    Python when convenience fields produce it."""

    @field_validator("template", mode="after")
    @classmethod
    def _template_required_on_wire(cls, value: Any, info: ValidationInfo) -> Any:
        return _missing_on_wire(value, info)

    @model_validator(mode="after")
    def _check_replicas(self, info: ValidationInfo) -> Self:
        # The CRD has no bounds here: the API server stores negative or crossed bounds and only the operator
        # refuses them (ValidateRayClusterSpec, v1.6+): a manifest loads, and the rules worker-replicas-negative and
        # worker-min-exceeds-max report them with the target's severity. From Python they are refused at once.
        if is_stored(info):
            return self
        where = f" in worker group {self.group_name!r}"
        for name, value in (("minReplicas", self.min_replicas), ("maxReplicas", self.max_replicas)):
            if value is not None and value < 0:
                raise SpecError(f"{name} ({value}) < 0{where}", field=name, fix=f"set {name} to 0 or more")
        low = 0 if self.min_replicas is None else self.min_replicas
        high = INT32_MAX if self.max_replicas is None else self.max_replicas
        if low > high:
            raise SpecError(
                f"minReplicas ({low}) > maxReplicas ({high}){where}",
                field="minReplicas",
                fix=f"lower minReplicas to at most {high} or raise maxReplicas to at least {low}",
            )
        # replicas outside [minReplicas, maxReplicas] is not an error: KubeRay clamps it
        # (GetWorkerGroupDesiredReplicas); the catalogue's rule worker-replicas-clamped says so.
        return self

    @model_validator(mode="after")
    @wire_noop  # a manifest sets no shortcut: _shortcuts_are_python_only refuses them there
    def _render_shortcuts(self) -> Self:
        return _render_group_shortcuts(self)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------------------------------
# Cluster-wide options.


class AutoscalerOptions(KubeModel):
    """Options of the in-tree autoscaler sidecar (used when ``enableInTreeAutoscaling`` is true).

    Example: ``AutoscalerOptions(version="v2", upscaling_mode="Default", idle_timeout_seconds=60)``.
    """

    resources: ResourceRequirements | None = None
    """Autoscaler container resources (operator default 500m CPU / 512Mi, requests = limits)."""
    image: str | None = None
    """Autoscaler image (operator default: the head container image)."""
    image_pull_policy: str | None = None
    """Autoscaler image pull policy, e.g. ``"IfNotPresent"``."""
    security_context: SecurityContext | None = None
    """Security context of the autoscaler container."""
    idle_timeout_seconds: Int32 | None = None
    """Seconds a worker must be idle before scale-down, e.g. ``60``."""
    upscaling_mode: Literal["Default", "Aggressive", "Conservative"] | None = None
    """Upscaling speed of the Ray autoscaler, e.g. ``"Default"``."""
    version: Literal["v1", "v2"] | None = None
    """Autoscaler version, e.g. ``"v2"`` (only an explicit ``v2`` enables KubeRay's v2 behaviour)."""
    env: list[EnvVar] | None = None
    """Extra environment of the autoscaler container, e.g. ``[EnvVar(name="LOG_LEVEL", value="debug")]``."""
    env_from: list[EnvFromSource] | None = None
    """Extra ``envFrom`` sources of the autoscaler container."""
    volume_mounts: list[VolumeMount] | None = None
    """Extra volume mounts of the autoscaler container."""
    command: list[str] | None = None
    """Autoscaler container command (v1.7), replaces the default, e.g. ``["/bin/bash", "-c"]``."""
    args: list[str] | None = None
    """Autoscaler container args (v1.7), e.g. ``["$KUBERAY_GEN_AUTOSCALER_START_CMD --verbose"]``."""


class RedisCredential(KubeModel):
    """A Redis username or password: a literal ``value`` or ``valueFrom`` (prefer a Secret).

    Example: ``RedisCredential(value_from=EnvVarSource(secret_key_ref={"name": "redis", "key": "pw"}))``;
    in :class:`GcsFaultToleranceOptions` a :class:`~pulumi_kuberay.model.pod.SecretRef` is accepted directly.
    """

    value: str | None = Field(default=None, json_schema_extra={"secret": True})
    """Literal value (ends up in the CR: avoid for passwords; the component package marks it secret)."""
    value_from: EnvVarSource | None = None
    """Source of the value, e.g. a ``secretKeyRef``."""


if TYPE_CHECKING:  # from Python a SecretRef is accepted too (the validator turns it into valueFrom)
    RedisCredentialInput = RedisCredential | SecretRef
else:
    RedisCredentialInput = Annotated[RedisCredential, BeforeValidator(secret_ref_to_value_from)]
"""A :class:`RedisCredential`, or from Python a :class:`SecretRef` (rendered ``valueFrom.secretKeyRef``)."""


class GcsStorage(KubeModel):
    """Persistent volume of the embedded (``rocksdb``) GCS storage backend (v1.7).

    Example: ``GcsStorage(size="10Gi", storage_class_name="standard-rwo")``, ``GcsStorage(claim_name="gcs")``.
    """

    claim_name: str | None = None
    """Existing PVC to use (excludes size/storageClassName/accessModes), e.g. ``"gcs-data"``."""
    size: ResourceQuantity | None = None  # the CRD's quantity pattern (the API server rejects "bad")
    """Size of the operator-managed PVC ``<cluster>-gcs-pvc``, e.g. ``"1Gi"`` (operator default ``1Gi``)."""
    storage_class_name: str | None = None
    """Storage class of the managed PVC, e.g. ``"standard-rwo"``."""
    access_modes: list[str] | None = None
    """Access modes of the managed PVC, e.g. ``["ReadWriteOnce"]``."""
    sub_path: str | None = None
    """Sub-directory of the volume to mount, e.g. ``"gcs"``."""
    deletion_policy: Literal["DeleteWithCluster", "Retain"] | None = None
    """What happens to the managed PVC with the cluster (operator default ``DeleteWithCluster``)."""


class GcsFaultToleranceOptions(KubeModel):
    """GCS fault tolerance (its presence enables it): external Redis or embedded RocksDB storage.

    Example: ``GcsFaultToleranceOptions(redis_address="redis:6379",
    redis_password=SecretRef("redis-password-secret", "password"))`` or
    ``GcsFaultToleranceOptions(backend="rocksdb", storage=GcsStorage(size="1Gi"))``.
    """

    backend: Literal["redis", "rocksdb"] | None = None
    """Storage backend (operator default ``redis``; immutable; ``rocksdb`` needs a feature gate)."""
    redis_address: str | None = None
    """Redis address, e.g. ``"redis:6379"`` or ``"redis://redis:6379"``."""
    redis_password: RedisCredentialInput | None = None
    """Redis password, e.g. ``SecretRef("redis-password-secret", "password")``."""
    redis_username: RedisCredentialInput | None = None
    """Redis username (Ray >= 2.41), e.g. ``RedisCredential(value="default")``."""
    external_storage_namespace: str | None = None
    """Redis key namespace (operator default: the RayCluster UID), e.g. ``"my-cluster"``."""
    storage: GcsStorage | None = None
    """Volume of the ``rocksdb`` backend."""


class AuthOptions(KubeModel):
    """Ray token authentication (v1.6).

    Example: ``AuthOptions(mode="token")`` or ``AuthOptions(mode="token", secret_name="ray-token")``.
    """

    mode: Literal["disabled", "token"] | None = None
    """``token`` enables auth (no CRD default; empty is treated as not-token)."""
    secret_name: str | None = None
    """Existing Secret with key ``auth_token`` (otherwise the operator creates one), e.g. ``"ray-token"``."""
    enable_k8s_token_auth: Annotated[bool | None, Field(alias="enableK8sTokenAuth")] = None
    """Delegate auth to the Kubernetes API server (Ray >= 2.55.0, RayCluster only), e.g. ``True``."""


class RayClusterUpgradeStrategy(KubeModel):
    """How a standalone RayCluster rolls out spec changes.

    Example: ``RayClusterUpgradeStrategy(type="Recreate")`` (deletes all Pods when the spec changes).
    """

    type: Literal["Recreate", "None"] | None = None
    """``Recreate`` or ``None``."""


class NetworkPolicyRules(KubeModel):
    """Extra NetworkPolicy rules for the head or the workers.

    Example: ``NetworkPolicyRules(egress_rules=[NetworkPolicyEgressRule(ports=[{"port": 53, "protocol":
    "UDP"}])])``.
    """

    ingress_rules: list[NetworkPolicyIngressRule] | None = None
    """Ingress rules appended to the base policy (only when the mode denies ingress)."""
    egress_rules: list[NetworkPolicyEgressRule] | None = None
    """Egress rules appended to the base policy (only when the mode denies egress)."""


class WorkerGroupNetworkPolicyRules(NetworkPolicyRules):
    """Rules for one worker group; they replace (not merge) ``networkPolicy.worker`` for that group.

    Example: ``WorkerGroupNetworkPolicyRules(group_name="gpu", egress_rules=[...])``.
    """

    group_name: str
    """Worker group the rules apply to (must exist), e.g. ``"gpu"``."""


class NetworkPolicyOptions(KubeModel):
    """NetworkPolicies managed by KubeRay (v1.7, feature gate ``RayClusterNetworkPolicy``).

    Example: ``NetworkPolicyOptions(mode="DenyAllEgress", head=NetworkPolicyRules(egress_rules=[...]))``.
    """

    mode: Literal["DenyAll", "DenyAllIngress", "DenyAllEgress"] | None = None
    """What is denied by default (CRD default ``DenyAll``; intra-cluster traffic is always allowed)."""
    head: NetworkPolicyRules | None = None
    """Extra rules for the head Pod."""
    worker: NetworkPolicyRules | None = None
    """Extra rules for all worker groups."""
    worker_groups: list[WorkerGroupNetworkPolicyRules] | None = None
    """Per-group rules replacing ``worker`` for that group."""


class TlsOptions(KubeModel):
    """Ray mTLS via cert-manager (v1.7, feature gate ``RayClusterMTLS``).

    Example: ``TlsOptions(enabled=True)``.
    """

    enabled: bool | None = None
    """Enable mTLS between Ray components."""


class CollectorOptions(KubeModel):
    """The ``ray-history-collector`` sidecar of the history server.

    Example: ``CollectorOptions(image="kuberay/collector:v1.7.0", env=[EnvVar(name="STORAGE_BACKEND",
    value="GCS"), EnvVar(name="GCS_BUCKET", value="ray-history")])``.
    """

    image: str | None = None
    """Collector image (required by the operator)."""
    image_pull_policy: str | None = None
    """Collector image pull policy, e.g. ``"IfNotPresent"``."""
    resources: ResourceRequirements | None = None
    """Collector resources (operator default requests 50m/64Mi, limits 200m/256Mi)."""
    env: list[EnvVar] | None = None
    """Collector environment: ``STORAGE_BACKEND`` and the backend's variables."""


class HistoryServerOptions(KubeModel):
    """Ray history server event collection (v1.7, feature gate ``RayClusterHistoryServer``).

    Example: ``HistoryServerOptions(collector_options=CollectorOptions(image="...", env=[...]))``.
    """

    collector_options: CollectorOptions | None = None
    """The collector sidecar (required by the operator when this block is present)."""


# --------------------------------------------------------------------------------------------------
# The spec.


class RayClusterSpec(KubeModel):
    """``spec`` of a RayCluster (also embedded in RayJob, RayService and RayCronJob).

    Example (see the module docstring for a GPU autoscaling cluster)::

        RayClusterSpec(ray_version="2.52.0", image="rayproject/ray:2.52.0",
                       head_group_spec=HeadGroupSpec(cpu=1, memory="4Gi"),
                       worker_group_specs=[WorkerGroupSpec(group_name="w", cpu=1, memory="4Gi",
                                                           replicas=1, min_replicas=1, max_replicas=3)])
    """

    image: In[str] | None = Field(default=None, exclude=True)
    """Python-only: image for every group's Ray container that has none, e.g. ``"rayproject/ray:2.52.0"``."""
    head_group_spec: HeadGroupSpec
    """The head group (required)."""
    worker_group_specs: list[WorkerGroupSpec] | None = None
    """Worker groups (unique ``groupName``)."""
    ray_version: str | None = None
    """Ray version of the image, e.g. ``"2.52.0"`` (gates auth, priority, probes)."""
    enable_in_tree_autoscaling: bool | None = None
    """Inject the autoscaler sidecar, e.g. ``True``."""
    autoscaler_options: AutoscalerOptions | None = None
    """Autoscaler options, e.g. ``AutoscalerOptions(version="v2")``."""
    harden_autoscaler: bool = Field(default=True, exclude=True)
    """Python-only: give the autoscaler sidecar the hardened security context when
    ``autoscalerOptions.securityContext`` is not set; ``False`` keeps KubeRay's own (none), as a manifest does."""
    suspend: bool | None = None
    """Delete all Pods (and keep the CR), e.g. ``True``."""
    managed_by: ManagedBy | None = None
    """Controller of the object (immutable), e.g. ``"kueue.x-k8s.io/multikueue"``."""
    head_service_annotations: dict[str, In[str]] | None = None
    """Annotations merged onto the head Service, e.g. ``{"cloud.google.com/neg": '{"ingress": true}'}``."""
    gcs_fault_tolerance_options: GcsFaultToleranceOptions | None = None
    """GCS fault tolerance, e.g. ``GcsFaultToleranceOptions(redis_address="redis:6379")``."""
    auth_options: AuthOptions | None = None
    """Token authentication (v1.6), e.g. ``AuthOptions(mode="token")``."""
    upgrade_strategy: RayClusterUpgradeStrategy | None = None
    """Rollout of spec changes (standalone clusters only), e.g.
    ``RayClusterUpgradeStrategy(type="Recreate")``."""
    network_policy: NetworkPolicyOptions | None = None
    """KubeRay-managed NetworkPolicies (v1.7), e.g. ``NetworkPolicyOptions(mode="DenyAllIngress")``."""
    tls_options: TlsOptions | None = None
    """mTLS (v1.7), e.g. ``TlsOptions(enabled=True)``."""
    history_server_options: HistoryServerOptions | None = None
    """History server collector (v1.7)."""

    @field_validator("image", "harden_autoscaler", mode="before")
    @classmethod
    def _image_is_python_only(cls, value: Any, info: ValidationInfo) -> Any:
        return reject_on_wire(value, info)

    @model_validator(mode="after")
    @wire_noop
    def _harden_autoscaler(self, info: ValidationInfo) -> Self:
        # From Python the autoscaler sidecar gets the hardened security context of the Ray containers unless
        # autoscalerOptions.securityContext is given (a manifest is taken as written).
        if self.enable_in_tree_autoscaling is not True or not self.harden_autoscaler or is_wire(info):
            return self
        options = self.autoscaler_options or AutoscalerOptions()
        if options.security_context is None:
            hardened = SecurityContext.model_validate(hardened_security_context())
            self.autoscaler_options = options.model_copy(update={"security_context": hardened})
        return self

    @model_validator(mode="after")
    def _apply_defaults_and_check_groups(self) -> Self:
        head = self.head_group_spec
        rendered = self._with_cluster_image(head, "headGroupSpec")
        if rendered is not head:
            self.head_group_spec = rendered
        if self.worker_group_specs is not None:
            groups = [self._with_cluster_image(g, f"workerGroupSpecs[{i}]")
                      for i, g in enumerate(self.worker_group_specs)]
            if any(a is not b for a, b in zip(groups, self.worker_group_specs, strict=True)):
                self.worker_group_specs = groups
        # Duplicate groupNames are refused only by KubeRay's (default-off) webhook; the operator accepts them.
        # The catalogue's worker-group-names-unique reports them by target (critical with the webhooks on).
        return self

    def _with_cluster_image(self, group: HeadGroupSpec | WorkerGroupSpec, path: str) -> Any:
        # Returns the group itself when nothing changes; otherwise a copy (a group instance may be shared by
        # several specs, so it is never mutated in place).
        template = group.template
        if template is None:
            if self.image is None:
                raise SpecError(
                    f"{path}.template: set template or image/cpu/memory (on the group, or image on RayClusterSpec)",
                    field=f"{path}.template",
                    fix=f'e.g. {type(group).__name__}(image="rayproject/ray:2.52.0", cpu=2, memory="8Gi")',
                )
            rendered = group.render_template(None, image_default=known(self.image))
            return group.model_copy(update={"template": rendered})
        containers = template.spec.containers if template.spec is not None else []
        if not containers or containers[0].image is not None or group.image is not None:
            return group
        if self.image is not None:
            rendered = group.render_template(template, image_default=known(self.image))
            return group.model_copy(update={"template": rendered})
        if group.shortcuts_set():
            # Built from convenience fields but nobody named an image: the Pod could never start.
            raise SpecError(
                f"{path}.image: the Ray container has no image",
                field=f"{path}.image",
                fix="set image on the group or on RayClusterSpec (e.g. image=\"rayproject/ray:2.52.0\")",
            )
        return group


__all__ = [
    "HEAD_DEFAULT_PORTS",
    "INT32_MAX",
    "AuthOptions",
    "AutoscalerOptions",
    "CollectorOptions",
    "GcsFaultToleranceOptions",
    "GcsStorage",
    "HeadGroupSpec",
    "HistoryServerOptions",
    "IngressOptions",
    "NetworkPolicyOptions",
    "NetworkPolicyRules",
    "RayClusterSpec",
    "RayClusterUpgradeStrategy",
    "RedisCredential",
    "ScaleStrategy",
    "SecretRef",
    "TlsOptions",
    "Toleration",
    "WorkerGroupNetworkPolicyRules",
    "WorkerGroupSpec",
]
