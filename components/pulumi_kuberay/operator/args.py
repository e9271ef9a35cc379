"""What to install of the KubeRay operator: :class:`KubeRayOperatorArgs` (chart, version, CRD handling, typed chart
values and the conveniences) and the operator's feature gates per version (:func:`operator_gate_defaults`).

Plain Python (no pulumi). :mod:`pulumi_kuberay.operator.derive` turns the args into the chart values and the
:class:`~pulumi_kuberay.operator.setup.OperatorSetup` the rules judge against.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from pulumi_kuberay.kuberay import default_feature_gates, parse_kuberay_version
from pulumi_kuberay.model import KubeModel, ResourceRequirements, SpecError
from pulumi_kuberay.operator.setup import DEFAULT_NAMESPACE
from pulumi_kuberay.operator.values import CHART_VERSION, KubeRayOperatorValues

Version = tuple[int, int, int]

#: The official chart repository (``helm repo add kuberay https://ray-project.github.io/kuberay-helm/``).
OFFICIAL_REPOSITORY = "https://ray-project.github.io/kuberay-helm/"
CHART_NAME = "kuberay-operator"
CrdMode = Literal["manage", "only", "leave"]


#: Operator feature gates by the version that added them (and removed them): ``features.go`` of each tag.
#: Defaults per version come from :func:`pulumi_kuberay.rules.default_feature_gates`.
_GATE_SPANS: dict[str, tuple[Version, Version | None]] = {
    "RayClusterStatusConditions": ((1, 2, 0), None),
    "RayJobDeletionPolicy": ((1, 3, 0), None),
    "RayMultiHostIndexing": ((1, 5, 0), None),
    "RayServiceIncrementalUpgrade": ((1, 5, 0), None),
    "RayCronJob": ((1, 6, 0), None),
    "AsyncJobInfoQuery": ((1, 6, 0), (1, 7, 0)),  # alpha in 1.6.x, gone from the 1.7.0 features.go
    **{
        gate: ((1, 7, 0), None)
        for gate in (
            "SidecarSubmitterRestart",
            "RayClusterNetworkPolicy",
            "GCSFaultToleranceEmbeddedStorage",
            "RayClusterMTLS",
            "RayClusterHistoryServer",
            "KubernetesWAS",
        )
    },
}


def operator_gate_defaults(version: Version) -> dict[str, bool]:
    """The gates the operator at ``version`` knows, with its built-in defaults (what an unlisted gate gets)."""
    defaults = {**default_feature_gates(version), "AsyncJobInfoQuery": False}
    return {
        gate: defaults[gate]
        for gate, (added, removed) in _GATE_SPANS.items()
        if version >= added and (removed is None or version < removed)
    }


class FeatureGates(KubeModel):
    """The operator feature gates, by their exact names (``RayCronJob``) or snake_case (``ray_cron_job``).

    Unset gates keep the operator's default for the chosen version; a gate the version does not know is an
    error (the operator refuses to start on an unknown gate).
    """

    ray_cluster_status_conditions: Annotated[bool | None, Field(alias="RayClusterStatusConditions")] = None
    """``RayClusterStatusConditions``: status conditions on RayClusters."""
    ray_job_deletion_policy: Annotated[bool | None, Field(alias="RayJobDeletionPolicy")] = None
    """``RayJobDeletionPolicy``: a RayJob's ``deletionStrategy``."""
    ray_multi_host_indexing: Annotated[bool | None, Field(alias="RayMultiHostIndexing")] = None
    """``RayMultiHostIndexing``: index labels on the Pods of multi-host groups."""
    ray_service_incremental_upgrade: Annotated[bool | None, Field(alias="RayServiceIncrementalUpgrade")] = None
    """``RayServiceIncrementalUpgrade``: ``NewClusterWithIncrementalUpgrade``."""
    ray_cron_job: Annotated[bool | None, Field(alias="RayCronJob")] = None
    """``RayCronJob``: the RayCronJob controller (alpha, off by default)."""
    async_job_info_query: Annotated[bool | None, Field(alias="AsyncJobInfoQuery")] = None
    """``AsyncJobInfoQuery``: the RayJob controller queries the job info from the dashboard asynchronously (gone in v1.7)."""
    sidecar_submitter_restart: Annotated[bool | None, Field(alias="SidecarSubmitterRestart")] = None
    """``SidecarSubmitterRestart``: a restart policy for the SidecarMode submitter container (Kubernetes >= 1.35, Ray >= 2.54)."""
    ray_cluster_network_policy: Annotated[bool | None, Field(alias="RayClusterNetworkPolicy")] = None
    """``RayClusterNetworkPolicy``: a RayCluster's ``networkPolicy``."""
    gcs_fault_tolerance_embedded_storage: Annotated[bool | None, Field(alias="GCSFaultToleranceEmbeddedStorage")] = None
    """``GCSFaultToleranceEmbeddedStorage``: GCS fault tolerance without Redis."""
    ray_cluster_mtls: Annotated[bool | None, Field(alias="RayClusterMTLS")] = None
    """``RayClusterMTLS``: a RayCluster's ``tlsOptions``."""
    ray_cluster_history_server: Annotated[bool | None, Field(alias="RayClusterHistoryServer")] = None
    """``RayClusterHistoryServer``: a RayCluster's ``historyServerOptions``."""
    kubernetes_was: Annotated[bool | None, Field(alias="KubernetesWAS")] = None
    """``KubernetesWAS``: gang scheduling of RayClusters through Kubernetes' Workload-Aware Scheduling (Workload and PodGroup APIs)."""

    def as_map(self) -> dict[str, bool]:
        """The gates that were set, by their operator names."""
        return {k: v for k, v in self.to_dict().items() if isinstance(v, bool)}


class KubeRayOperatorArgs(KubeModel):
    """What to install: chart, version, CRD handling, and the chart values (typed), with conveniences.

    The conveniences (``feature_gates``, ``watch_namespaces``, ``batch_scheduler``, ``resources``,
    ``leader_election``, ``metrics``, ``replicas``) are written into ``values``; setting one both ways with
    different values is an error naming both.

    Example: ``KubeRayOperatorArgs(version="1.7.0", feature_gates={"RayCronJob": True}, watch_namespaces=["ray"])``.
    """

    version: str = CHART_VERSION
    """Chart (and operator) version; the CRDs follow it."""
    chart: str | None = None
    """A local chart directory; unset: ``kuberay-operator`` from ``repository`` at ``version``."""
    repository: str = OFFICIAL_REPOSITORY
    """Helm repository of the chart (default: KubeRay's official one)."""
    namespace: str = DEFAULT_NAMESPACE
    """Namespace of the operator (the Helm release namespace)."""
    release_name: str = CHART_NAME
    """Name of the Helm release (and of the operator's objects)."""
    crds: CrdMode = "manage"
    """``manage``: apply the CRDs (server-side, before the chart and every Ray object) and the chart;
    ``only``: only the CRDs; ``leave``: only the chart, the CRDs are someone else's (set ``installed_crds``)."""
    crds_dir: str | None = None
    """Directory of the CRD YAML for ``version`` (default: the local chart's ``crds/``)."""
    installed_crds: str | None = None
    """With ``crds: leave``: the KubeRay version of the CRDs already installed (for the CRD-age rule)."""
    allow_crd_downgrade: bool = False
    """Apply CRDs older than the ones installed (refused by default: an older CRD prunes the fields of the newer one)."""
    retain_crds: bool = True
    """Keep the CRDs on ``pulumi destroy`` (deleting a CRD deletes every object of its kind, as Helm knows)."""
    values: KubeRayOperatorValues = Field(default_factory=KubeRayOperatorValues)
    """The chart values (typed); the conveniences below are written into them."""
    feature_gates: FeatureGates | None = None
    """Operator feature gates, e.g. ``{"RayCronJob": True}`` (over the version's defaults)."""
    watch_namespaces: list[str] | None = None
    """Namespaces the operator watches (unset: every namespace)."""
    batch_scheduler: Literal["volcano", "yunikorn", "kai-scheduler", "scheduler-plugins"] | None = None
    """Batch scheduler integration of the operator, e.g. ``"volcano"``."""
    resources: ResourceRequirements | None = None
    """Requests and limits of the operator container."""
    leader_election: bool | None = None
    """Run with leader election (needed with more than one replica)."""
    metrics: bool | None = None
    """Expose the operator's control-plane metrics."""
    replicas: int | None = Field(default=None, ge=0)
    """Replicas of the operator Deployment."""

    @model_validator(mode="after")
    def _consistent(self) -> KubeRayOperatorArgs:
        try:
            parse_kuberay_version(self.version)
        except ValueError as exc:
            raise SpecError(str(exc), field="version", fix="write MAJOR.MINOR.PATCH, e.g. 1.7.0") from None
        if self.crds == "leave" and self.crds_dir is not None:
            raise SpecError("crds_dir is set but crds is 'leave'", field="crdsDir", fix="remove one of them")
        if self.crds != "leave" and self.installed_crds is not None:
            raise SpecError(
                f"installedCrds describes CRDs someone else installs; with crds {self.crds!r} the component applies them at {self.version}",
                field="installedCrds",
                fix="remove installedCrds or set crds: leave",
            )
        return self


__all__ = [
    "CHART_NAME",
    "DEFAULT_NAMESPACE",
    "OFFICIAL_REPOSITORY",
    "CrdMode",
    "FeatureGates",
    "KubeRayOperatorArgs",
    "operator_gate_defaults",
]
