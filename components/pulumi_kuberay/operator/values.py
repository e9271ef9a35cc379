"""Typed values of the official ``kuberay-operator`` Helm chart, v1.7.0 (every key of its ``values.yaml``).

The same conventions as the CRD models (:class:`~pulumi_kuberay.model._base.KubeModel`): the chart's camelCase
keys on the wire, snake_case attributes in Python, unknown keys rejected with "did you mean" (Helm would
silently ignore a misspelled key), no type coercion (the chart's own ``validateConfig`` fails on
``reconcileConcurrency: "2"`` at render time; we fail at construction, naming the path).

Two things differ from the CRD models, both because Helm merges user values over the chart's defaults:

* every field's default is the chart's default, so ``values.image.tag`` reads ``"v1.7.0"`` when unset, and
  ``to_dict()`` still sends only what was set (Helm fills in the rest);
* ``None`` is a value here: Helm removes a default when the user value is ``null`` (``resources:
  {limits: null}`` drops the chart's limits), so a ``None`` that was set is rendered.

Keys the chart reads but leaves commented out in ``values.yaml`` (``watchNamespace``, ``useKubernetesProxy``)
are modelled too, defaulting to unset. Example::

    from pulumi_kuberay.operator.values import KubeRayOperatorValues

    values = KubeRayOperatorValues.model_validate({
        "replicas": 2,
        "watchNamespace": ["ray"],
        "featureGates": [{"name": "RayCronJob", "enabled": True}],
    })
    values.to_dict()   # {'replicas': 2, 'watchNamespace': ['ray'], 'featureGates': [...]}
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from pulumi_kuberay.kuberay.api import LATEST_VERSION_TEXT
from pulumi_kuberay.model import (
    Affinity,
    Capabilities,
    Container,
    EnvVar,
    KubeModel,
    LocalObjectReference,
    PodSecurityContext,
    ResourceRequirements,
    SeccompProfile,
    SecurityContext,
    SpecError,
    Toleration,
)

#: The chart version these values describe.
CHART_VERSION = LATEST_VERSION_TEXT

#: ``batchScheduler.name`` values the v1.7.0 operator accepts (``getSchedulerFactory``); "" = none.
BATCH_SCHEDULERS = ("volcano", "yunikorn", "kai-scheduler", "scheduler-plugins")

BatchSchedulerName = Literal["", "volcano", "yunikorn", "kai-scheduler", "scheduler-plugins"]
LogEncoder = Literal["", "json", "console"]


class _Values(KubeModel):
    """Base of the chart-values models: a ``None`` that was set is a value (Helm's "remove this default")."""

    _null_is_a_value: ClassVar[bool] = True


class ImageValues(_Values):
    repository: str = "quay.io/kuberay/operator"
    """Image repository."""
    tag: str = f"v{LATEST_VERSION_TEXT}"
    """Image tag (keep it equal to the chart version: rule ``operator-image-tag-mismatch``)."""
    pull_policy: Literal["Always", "IfNotPresent", "Never", ""] = "IfNotPresent"
    """``imagePullPolicy`` of the operator container (``""``: Kubernetes' default)."""


class ServiceAccountValues(_Values):
    create: bool = True
    """Create the operator's ServiceAccount (false: use an existing one named ``name``)."""
    name: str = "kuberay-operator"
    """Name of the operator's ServiceAccount."""


class LoggingValues(_Values):
    stdout_encoder: LogEncoder = "json"
    """Format of the logs on stdout: ``json`` or ``console``."""
    file_encoder: LogEncoder = "json"
    """Format of the log file (with ``fileName``): ``json`` or ``console``."""
    base_dir: str = ""
    """Directory of the log file (with ``fileName``: the operator also logs to ``baseDir/fileName``)."""
    file_name: str = ""
    """Name of the log file under ``baseDir`` ("": no log file)."""
    size_limit: str = ""
    """EmptyDir size limit of the log volume (a quantity, e.g. ``1Gi``)."""


class BatchSchedulerValues(_Values):
    enabled: bool = False
    """Deprecated by the chart: ``true`` means volcano. Do not set it together with ``name``."""
    name: BatchSchedulerName = ""
    """The batch scheduler integration: volcano, yunikorn, kai-scheduler or scheduler-plugins ("" = none)."""

    @model_validator(mode="after")
    def _not_both(self) -> BatchSchedulerValues:
        if self.enabled and self.name:
            raise SpecError(
                f"batchScheduler.enabled (deprecated, means volcano) and batchScheduler.name ({self.name!r}) are both set; the chart refuses that",
                field="enabled",
                fix="remove enabled and keep name",
            )
        return self


class ConfigurationValues(_Values):
    enabled: bool = False
    """Configure the operator with a ConfigMap (``--config``) instead of command-line flags."""
    default_container_envs: list[EnvVar] = Field(default_factory=list)
    """Environment variables the operator adds to every Ray container."""
    default_pod_annotations: dict[str, str] = Field(default_factory=dict)
    """Annotations the operator adds to every Ray Pod."""
    default_pod_labels: dict[str, str] = Field(default_factory=dict)
    """Labels the operator adds to every Ray Pod."""
    head_sidecar_containers: list[Container] = Field(default_factory=list)
    """Containers the operator adds to every head Pod."""
    worker_sidecar_containers: list[Container] = Field(default_factory=list)
    """Containers the operator adds to every worker Pod."""


class FeatureGateValue(_Values):
    """One item of ``featureGates`` (the chart renders ``--feature-gates=name=enabled,...``)."""

    name: str
    """The gate's name, e.g. ``RayCronJob``."""
    enabled: bool
    """Whether the gate is on."""


def _default_gates() -> list[FeatureGateValue]:
    chart_list = (
        ("RayClusterStatusConditions", True),
        ("RayJobDeletionPolicy", True),
        ("RayMultiHostIndexing", True),
        ("RayServiceIncrementalUpgrade", True),
        ("RayCronJob", False),
        ("RayClusterMTLS", False),
        ("RayClusterNetworkPolicy", False),
        ("RayClusterHistoryServer", False),
    )
    return [FeatureGateValue(name=name, enabled=enabled) for name, enabled in chart_list]


class ServiceMonitorValues(_Values):
    enabled: bool = False
    """Create a Prometheus Operator ServiceMonitor for the operator's metrics."""
    interval: str = "30s"
    """Scrape interval, e.g. ``30s``."""
    honor_labels: bool = True
    """Keep the scraped labels on conflicts (Prometheus' ``honorLabels``)."""
    additional_labels: dict[str, str] = Field(default_factory=dict)
    """Labels added to the ServiceMonitor (so a Prometheus selects it)."""
    namespace: str = ""
    """Namespace of the ServiceMonitor ("": the release's)."""


class MetricsValues(_Values):
    enabled: bool = True
    """``--enable-metrics``: the operator's control-plane metrics."""
    service_monitor: ServiceMonitorValues = Field(default_factory=ServiceMonitorValues)
    """The ServiceMonitor of the metrics (Prometheus Operator)."""


class KubeClientValues(_Values):
    qps: float = Field(default=100.0, ge=0)
    """Requests per second the operator's Kubernetes client may send."""
    burst: int = Field(default=200, ge=0)
    """Burst of requests above ``qps`` the client may send."""


class ProbeValues(_Values):
    initial_delay_seconds: int = Field(default=10, ge=0)
    """Seconds before the first probe."""
    period_seconds: int = Field(default=5, ge=1)
    """Seconds between probes."""
    failure_threshold: int = Field(default=5, ge=1)
    """Failed probes in a row before the container counts as failed."""


class ServiceValues(_Values):
    type: Literal["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"] = "ClusterIP"
    """Type of the operator's Service."""
    port: int = Field(default=8080, ge=1, le=65535)
    """Port of the operator's Service (metrics and health)."""


def _default_resources() -> ResourceRequirements:
    return ResourceRequirements(limits={"cpu": "100m", "memory": "512Mi"})


def _default_security_context() -> SecurityContext:
    return SecurityContext(
        allow_privilege_escalation=False,
        read_only_root_filesystem=True,
        capabilities=Capabilities(drop=["ALL"]),
        run_as_non_root=True,
        seccomp_profile=SeccompProfile(type="RuntimeDefault"),
    )


class KubeRayOperatorValues(_Values):
    """The v1.7.0 ``kuberay-operator`` chart values; defaults are the chart's (see the module docstring).

    Example: ``KubeRayOperatorValues(replicas=2, leader_election_enabled=True, node_selector={"pool": "system"})``.
    """

    name_override: str = "kuberay-operator"
    """Overrides the chart name in the names of its objects."""
    fullname_override: str = "kuberay-operator"
    """The full name of the chart's objects (Deployment, ServiceAccount, ...)."""
    component_override: str = "kuberay-operator"
    """The ``app.kubernetes.io/component`` label value."""
    replicas: int = Field(default=1, ge=0)
    """Replicas of the operator Deployment (more than 1 needs leader election)."""
    image: ImageValues = Field(default_factory=ImageValues)
    """The operator image."""
    image_pull_secrets: list[LocalObjectReference] = Field(default_factory=list)
    """Pull Secrets of the operator Pod."""
    node_selector: dict[str, str] = Field(default_factory=dict)
    """``nodeSelector`` of the operator Pod."""
    priority_class_name: str = ""
    """``priorityClassName`` of the operator Pod."""
    labels: dict[str, str] = Field(default_factory=dict)
    """Labels of the operator Pod."""
    annotations: dict[str, str] = Field(default_factory=dict)
    """Annotations of the operator Pod."""
    affinity: Affinity = Field(default_factory=Affinity)
    """``affinity`` of the operator Pod."""
    tolerations: list[Toleration] = Field(default_factory=list)
    """``tolerations`` of the operator Pod."""
    service_account: ServiceAccountValues = Field(default_factory=ServiceAccountValues)
    """The operator's ServiceAccount."""
    logging: LoggingValues = Field(default_factory=LoggingValues)
    """The operator's logging."""
    batch_scheduler: BatchSchedulerValues = Field(default_factory=BatchSchedulerValues)
    """The batch scheduler integration (``--batch-scheduler``)."""
    configuration: ConfigurationValues = Field(default_factory=ConfigurationValues)
    """Configuration by ConfigMap instead of flags, with defaults for every Ray Pod."""
    feature_gates: list[FeatureGateValue] = Field(default_factory=_default_gates)
    """Rendered as ``--feature-gates``; a gate left out takes the operator's built-in default."""
    metrics: MetricsValues = Field(default_factory=MetricsValues)
    """The operator's metrics and their ServiceMonitor."""
    operator_command: str = "/manager"
    """The command of the operator container."""
    use_kubernetes_proxy: bool | None = None
    """Commented out in values.yaml: unset means the flag is not passed."""
    leader_election_enabled: bool = True
    """``--enable-leader-election`` (needed with more than one replica)."""
    reconcile_concurrency: int = Field(default=1, ge=1)
    """``--reconcile-concurrency``: objects reconciled at once."""
    kube_client: KubeClientValues = Field(default_factory=KubeClientValues)
    """Rate limits of the operator's Kubernetes client."""
    rbac_enable: bool = True
    """Create the operator's ClusterRole and binding."""
    cr_namespaced_rbac_enable: bool = True
    """Create the Roles for the custom resources in each watched namespace."""
    single_namespace_install: bool = False
    """Namespaced RBAC; without ``watchNamespace`` the operator then watches only its own namespace."""
    watch_namespace: list[str] | None = None
    """Commented out in values.yaml: the namespaces the operator watches (unset = all, see
    ``singleNamespaceInstall``)."""
    env: list[EnvVar] | None = None
    """Extra environment variables of the operator container."""
    resources: ResourceRequirements | None = Field(default_factory=_default_resources)
    """Requests and limits of the operator container."""
    liveness_probe: ProbeValues = Field(default_factory=ProbeValues)
    """The operator container's liveness probe."""
    readiness_probe: ProbeValues = Field(default_factory=ProbeValues)
    """The operator container's readiness probe."""
    pod_security_context: PodSecurityContext = Field(default_factory=PodSecurityContext)
    """Security context of the operator Pod."""
    security_context: SecurityContext | None = Field(default_factory=_default_security_context)
    """Security context of the operator container (restricted by default)."""
    service: ServiceValues = Field(default_factory=ServiceValues)
    """The operator's Service."""

    @model_validator(mode="after")
    def _unique_gates(self) -> KubeRayOperatorValues:
        seen: set[str] = set()
        for index, gate in enumerate(self.feature_gates):
            if gate.name in seen:
                raise SpecError(
                    f"feature gate {gate.name!r} is listed twice; the operator keeps the last one",
                    field=f"featureGates[{index}].name",
                    fix="list each gate once",
                )
            seen.add(gate.name)
        return self

    def chart_values(self) -> dict[str, Any]:
        """What is sent to Helm: only the keys that were set (Helm merges them over the chart's defaults)."""
        return self.to_dict()

    def full_values(self) -> dict[str, Any]:
        """Every key with its effective value (the chart's defaults where unset); nested empties kept."""
        return self.model_dump(by_alias=True, exclude_none=False, mode="python")


__all__ = [
    "BATCH_SCHEDULERS",
    "CHART_VERSION",
    "BatchSchedulerValues",
    "ConfigurationValues",
    "FeatureGateValue",
    "ImageValues",
    "KubeClientValues",
    "KubeRayOperatorValues",
    "LoggingValues",
    "MetricsValues",
    "ProbeValues",
    "ServiceAccountValues",
    "ServiceMonitorValues",
    "ServiceValues",
]
