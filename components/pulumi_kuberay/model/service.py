"""Typed ``RayService`` spec (ray.io/v1, KubeRay v1.7.0): a RayCluster plus a Ray Serve config.

``serveConfigV2`` accepts a :class:`~pulumi_kuberay.model.serve.ServeConfig` (rendered to YAML) or a YAML
string. A string is parsed and validated like a ServeConfig, but rendered back **exactly as given**, so a
manifest loaded from YAML round-trips byte-for-byte (KubeRay compares the string textually: reformatting it
would re-PUT the config). The parsed config is available as :attr:`RayServiceSpec.serve_config`.

Cross-object check: the container port named ``serve`` of every Ray Pod (head and workers) must equal
``http_options.port`` (default 8000), see :func:`~pulumi_kuberay.model.serve.check_serve_port`.

The deprecated, unused ``serviceUnhealthySecondThreshold`` / ``deploymentUnhealthySecondThreshold`` are
accepted (old manifests keep loading) but emit a :class:`KubeRayDeprecationWarning`.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)

from ..kuberay import INT32_MAX
from ._base import Int32, KubeModel, Self
from ._errors import KubeRayDeprecationWarning, ManifestError, Problem, SpecError
from ._k8s import PodTemplateSpec, Service
from ._object import KubeManifest
from .cluster import RayClusterSpec
from .job import ManagedBy
from .pod import is_stored, is_wire
from .serve import DEFAULT_SERVE_PORT, ContainerPortRef, ServeConfig, check_serve_port

UpgradeType = Literal["NewCluster", "NewClusterWithIncrementalUpgrade", "None"]
"""``NewCluster`` (zero-downtime blue/green), ``NewClusterWithIncrementalUpgrade`` (gradual traffic shift
through
Gateway API; gate ``RayServiceIncrementalUpgrade``), ``None`` (cluster changes are not applied)."""


def _caller_stacklevel() -> int:
    """The ``stacklevel`` pointing ``warnings.warn`` at the first frame outside pydantic and this package."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not (module.startswith("pydantic") or module.startswith("pulumi_kuberay.model")):
            return level
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return 1


def _serve_config_shape(value: Any) -> str:
    """The one shape a ``serveConfigV2`` value is read as: a mapping (or model) is a typed Serve config, anything
    else a YAML string (so a dict with a mistake says that mistake, not also "expected a string")."""
    return "ServeConfig" if isinstance(value, (dict, ServeConfig)) else "str"


#: ``serveConfigV2`` from Python: a :class:`ServeConfig` (or a dict in its shape) or a YAML string.
if TYPE_CHECKING:
    ServeConfigInput = ServeConfig | Mapping[str, Any] | str
else:
    ServeConfigInput = Annotated[
        Annotated[ServeConfig, Tag("ServeConfig")] | Annotated[str, Tag("str")], Discriminator(_serve_config_shape)
    ]


_DEPRECATED_THRESHOLDS = ("service_unhealthy_second_threshold", "deployment_unhealthy_second_threshold")


class ClusterUpgradeOptions(KubeModel):
    """Incremental upgrade (``NewClusterWithIncrementalUpgrade``) tuning; needs Gateway API in the cluster."""

    gateway_class_name: str
    """GatewayClass of the Gateway ``<rayservice>-gateway`` the operator creates (e.g. ``istio``)."""
    step_size_percent: Int32
    """Percentage of traffic moved per interval (0-100, <= max_surge_percent)."""
    interval_seconds: Int32
    """Seconds between traffic steps (> 0)."""
    max_surge_percent: Int32 | None = None
    """Extra capacity the new cluster may scale to ahead of traffic (CRD default 100)."""


class ServiceUpgradeStrategy(KubeModel):
    """``RayService.spec.upgradeStrategy``."""

    type: UpgradeType | None = None
    """Unset means ``NewCluster`` unless the operator runs with ``ENABLE_ZERO_DOWNTIME=false``."""
    cluster_upgrade_options: ClusterUpgradeOptions | None = None
    """Required with ``NewClusterWithIncrementalUpgrade``."""


class RayServiceSpec(KubeModel):
    """``RayService.spec``: the Ray cluster (``ray_cluster_config``) and the Serve applications on it.

    Example: ``RayServiceSpec(ray_cluster_config=RayClusterSpec(...), serve_config_v2=ServeConfig(...))``.
    """

    ray_cluster_config: RayClusterSpec
    """The cluster; KubeRay creates ``<rayservice>-<random>`` clusters from it (new ones on most changes)."""
    serve_config_v2: ServeConfigInput | None = None
    """The Serve config: a :class:`ServeConfig` (or, from Python, a dict) or a YAML string."""
    upgrade_strategy: ServiceUpgradeStrategy | None = None
    """How a change of ``rayClusterConfig`` is rolled out: ``NewCluster`` (blue/green, the default), ``NewClusterWithIncrementalUpgrade`` or ``None``."""
    ray_cluster_deletion_delay_seconds: Annotated[int, Field(ge=0, le=INT32_MAX)] | None = None
    """Delay before the old cluster is deleted after a switch-over (operator default 60)."""
    serve_service: Service | None = None
    """Custom serve Service (name, type, annotations, ports with appProtocol); the selector is replaced."""
    exclude_head_pod_from_serve_svc: bool | None = None
    """Never route Serve traffic to the head Pod."""
    suspend: bool | None = None
    """(KubeRay >= 1.7) delete every cluster and Service of the RayService until unsuspended."""
    managed_by: ManagedBy | None = None
    """The controller that reconciles the object: ``ray.io/kuberay-operator`` (default) or ``kueue.x-k8s.io/multikueue``; immutable."""
    service_unhealthy_second_threshold: Int32 | None = None
    """Deprecated and unused by KubeRay: accepted with a warning."""
    deployment_unhealthy_second_threshold: Int32 | None = None
    """Deprecated and unused by KubeRay: accepted with a warning."""

    _serve_config: ServeConfig | None = PrivateAttr(default=None)
    _serve_problems: tuple[Problem, ...] = PrivateAttr(default=())

    @field_validator("serve_config_v2", mode="before")
    @classmethod
    def _typed_only_from_python(cls, value: Any, info: ValidationInfo) -> Any:
        if is_wire(info) and value is not None and not isinstance(value, str):
            raise SpecError(f"serveConfigV2 must be a YAML string in a manifest, got {type(value).__name__}")
        return value

    @field_serializer("serve_config_v2")
    def _render_serve_config(self, value: ServeConfig | str | None) -> str | None:
        return value.to_yaml() if isinstance(value, ServeConfig) else value

    @model_validator(mode="after")
    def _serve_config_checks(self, info: ValidationInfo) -> Self:
        value = self.serve_config_v2
        # A manifest: the API server stores the string as it is (it never reads it), so loading it never fails on
        # what only Ray Serve reads; lint reports Serve's verdict (serve_problems). From Python, the spec is refused.
        stored = is_stored(info)
        if isinstance(value, str):
            try:
                self._serve_config = ServeConfig.from_yaml(value)
            except ManifestError as exc:
                if stored:
                    self._serve_problems = tuple(
                        replace(p, path=f"spec.serveConfigV2.{p.path}".rstrip(".")) for p in exc.problems
                    )
                    return self
                first, *others = exc.problems
                suffix = ""
                if others:
                    listed = "; ".join(f"serveConfigV2.{p}" for p in others)
                    suffix = f" (and {len(others)} more: {listed})"
                raise SpecError(
                    first.message + suffix,
                    field=f"serveConfigV2.{first.path}".rstrip("."),
                    fix=first.fix,
                ) from exc
        else:  # validated: a ServeConfig (a mapping became one) or None
            self._serve_config = value if isinstance(value, ServeConfig) else None
        if self._serve_config is not None:
            try:
                check_serve_port(self._serve_config, self._container_ports())
                self._check_implicit_head_port(self._serve_config)
            except SpecError as exc:
                if not stored:
                    raise
                path = f"spec.{exc.field}" if exc.field else "spec.serveConfigV2"
                self._serve_problems = (Problem(path, exc.message, "invalid_value", fix=exc.fix),)
        return self

    def _check_implicit_head_port(self, config: ServeConfig) -> None:
        # A head Ray container without any ports gets KubeRay's defaults, serve among them at 8000.
        template = self.ray_cluster_config.head_group_spec.template
        containers = template.spec.containers if template is not None and template.spec is not None else []
        if containers and not containers[0].ports and config.http_port != DEFAULT_SERVE_PORT:
            raise SpecError(
                f"the head Ray container declares no ports, so KubeRay sends Serve traffic to port {DEFAULT_SERVE_PORT}, but Serve listens on {config.http_port} (http_options.port)",
                field="rayClusterConfig.headGroupSpec.template.spec.containers[0].ports",
                fix=f"declare ports: [{{name: serve, containerPort: {config.http_port}}}] (and the other Ray ports you need) on the head and worker Ray containers",
            )

    @model_validator(mode="after")
    def _warn_deprecated(self) -> Self:
        for name in _DEPRECATED_THRESHOLDS:
            if name in self.model_fields_set:
                alias = type(self).model_fields[name].alias or name
                warnings.warn(
                    f"RayService spec.{alias} is deprecated and ignored by KubeRay (unused since v1.1); remove it",
                    KubeRayDeprecationWarning,
                    stacklevel=_caller_stacklevel(),
                )
        return self

    def _container_ports(self) -> Iterator[ContainerPortRef]:
        groups: list[tuple[str, PodTemplateSpec | None]] = [
            ("rayClusterConfig.headGroupSpec.template", self.ray_cluster_config.head_group_spec.template)
        ]
        for index, group in enumerate(self.ray_cluster_config.worker_group_specs or []):
            groups.append((f"rayClusterConfig.workerGroupSpecs[{index}].template", group.template))
        for base, template in groups:
            if template is None or template.spec is None:
                continue
            for c_index, container in enumerate(template.spec.containers or []):
                for p_index, port in enumerate(container.ports or []):
                    yield ContainerPortRef(
                        f"{base}.spec.containers[{c_index}].ports[{p_index}].containerPort",
                        port.name,
                        port.container_port,
                    )

    @property
    def serve_problems(self) -> tuple[Problem, ...]:
        """What Ray Serve would refuse in a ``serveConfigV2`` string loaded leniently (``load_stored``)."""
        return self._serve_problems

    @property
    def serve_config(self) -> ServeConfig | None:
        """The Serve config as a typed object (parsed from the string when one was given)."""
        return self._serve_config


class RayServiceManifest(KubeManifest[RayServiceSpec]):
    """A RayService object; ``load_manifest`` returns it for ``kind: RayService``."""

    kind: Literal["RayService"] = "RayService"
    """Always ``"RayService"``."""


__all__ = [
    "ClusterUpgradeOptions",
    "KubeRayDeprecationWarning",
    "RayServiceManifest",
    "RayServiceSpec",
    "ServiceUpgradeStrategy",
    "UpgradeType",
]
