"""The Pods a Ray object makes the operator create, as the scheduler and the admission plugins will see them.

Pure: from a manifest dict (a RayCluster, or the cluster a RayJob, RayService or RayCronJob embeds) to one
:class:`PodShape` per group: the effective request of one Pod (the containers' requests, a limit alone requesting
the limit, the largest init container, the autoscaler sidecar KubeRay adds to the head with in-tree autoscaling:
500m / 512Mi unless ``autoscalerOptions.resources`` says otherwise, ``BuildAutoscalerContainer``, and the
``wait-gcs-ready`` init container it adds to each worker, 200m / 256Mi, ``DefaultWorkerPodTemplate``), the LimitRange
defaults of the namespace filled in where a container says nothing, its nodeSelector, required node affinity and
tolerations, and how many such Pods the operator keeps at start (``GetWorkerGroupDesiredReplicas``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from types import MappingProxyType
from typing import Any

from pulumi_kuberay.kuberay import paths
from pulumi_kuberay.kuberay.names import (
    AUTOSCALER_CONTAINER,
    AUTOSCALER_DEFAULT_RESOURCES,
    WAIT_GCS_READY_CONTAINER,
    WAIT_GCS_READY_RESOURCES,
)
from pulumi_kuberay.kuberay.replicas import desired_worker_pods, most_worker_pods

from .snapshot import Amounts, LimitRange, amounts

__all__ = ["AUTOSCALER_DEFAULT", "WAIT_GCS_READY", "ContainerShape", "PodShape", "pod_shapes"]

#: The init container KubeRay adds to every worker Pod: its resources count in the Pod's effective request and quota.
WAIT_GCS_READY: Mapping[str, Any] = WAIT_GCS_READY_RESOURCES
#: ``BuildAutoscalerContainer``'s resources when ``autoscalerOptions.resources`` is not given.
AUTOSCALER_DEFAULT: Mapping[str, Any] = AUTOSCALER_DEFAULT_RESOURCES


@dataclass(frozen=True)
class ContainerShape:
    """One container's requests and limits after the API server's defaulting and the LimitRange admission."""

    name: str
    requests: Amounts
    limits: Amounts
    init: bool = False


@dataclass(frozen=True)
class PodShape:
    """One group's Pod: what it asks of a node, where it may go, and how many the operator creates at start."""

    #: ``head`` or the worker group's name, as the operator names it
    group: str
    #: the group's path in the manifest (``spec.workerGroupSpecs[1]``)
    path: str
    role: str
    containers: tuple[ContainerShape, ...]
    node_selector: Mapping[str, str]
    #: ``requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`` (OR of terms), () when none
    affinity_terms: tuple[Mapping[str, Any], ...]
    tolerations: tuple[Mapping[str, Any], ...]
    #: Pods of this group at start (head: 1; a worker group: desired replicas times numOfHosts)
    count: int
    #: Pods of this group at most (maxReplicas times numOfHosts with autoscaling, else ``count``)
    most: int
    overhead: Amounts = field(default_factory=lambda: MappingProxyType({}))
    #: where it may go is not known yet (a nodeSelector, affinity or toleration value known only after preview)
    unknown: bool = False

    @cached_property
    def requests(self) -> Amounts:
        """The scheduler's effective request of one Pod (containers summed, or the largest init container)."""
        return _effective(self.containers, "requests", self.overhead)

    @cached_property
    def requests_with_slot(self) -> Amounts:
        """:attr:`requests` plus the one ``pods`` slot a Pod takes on its node."""
        return MappingProxyType({**self.requests, "pods": Fraction(1)})

    @cached_property
    def limits(self) -> Amounts:
        return _effective(self.containers, "limits", MappingProxyType({}))

    def label(self) -> str:
        return "the head" if self.role == "head" else f"worker group {self.group!r}"


def _effective(containers: Sequence[ContainerShape], which: str, overhead: Amounts) -> Amounts:
    total: dict[str, Fraction] = {}
    init: dict[str, Fraction] = {}
    for container in containers:
        values: Amounts = getattr(container, which)
        target = init if container.init else total
        for key, amount in values.items():
            have = target.get(key, Fraction(0))
            target[key] = max(have, amount) if container.init else have + amount
    for key, amount in init.items():
        total[key] = max(total.get(key, Fraction(0)), amount)
    for key, amount in overhead.items():
        total[key] = total.get(key, Fraction(0)) + amount
    return MappingProxyType(total)


def _container(raw: Any, ranges: Sequence[LimitRange], *, init: bool = False) -> ContainerShape:
    """The container as admitted: requests default to limits (API server), then the LimitRange fills what is
    still missing (``default`` as the limit, ``defaultRequest`` or else ``default`` as the request)."""
    container = paths.as_dict(raw)
    resources = paths.as_dict(container.get("resources"))
    limits = dict(amounts(resources.get("limits")))
    requests = {**limits, **amounts(resources.get("requests"))}
    for limit_range in ranges:
        for key, amount in limit_range.default_limit.items():
            limits.setdefault(key, amount)
        for key, amount in {**limit_range.default_limit, **limit_range.default_request}.items():
            if key not in requests:
                requests[key] = limits[key] if key in limits and key not in limit_range.default_request else amount
    return ContainerShape(
        name=str(container.get("name") or ""),
        requests=MappingProxyType(requests),
        limits=MappingProxyType(limits),
        init=init,
    )


def _required_terms(pod_spec: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    required = paths.get(pod_spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms = paths.as_list(paths.as_dict(required).get("nodeSelectorTerms"))
    return tuple(term for term in terms if isinstance(term, dict))


def pod_shapes(manifest: Mapping[str, Any], limit_ranges: Sequence[LimitRange] = ()) -> tuple[PodShape, ...]:
    """One shape per group of every cluster the manifest makes the operator create (head first)."""
    out: list[PodShape] = []
    for ref in paths.cluster_specs(manifest):
        autoscaled = ref.spec.get("enableInTreeAutoscaling") is True
        for group in paths.groups(ref):
            template = paths.group_template(group)
            pod_spec = template.pod_spec if template is not None else {}
            containers = [_container(c, limit_ranges) for c in paths.as_list(pod_spec.get("containers"))]
            containers += [_container(c, limit_ranges, init=True) for c in paths.as_list(pod_spec.get("initContainers"))]
            if group.role == "worker":
                containers.append(_container({"name": WAIT_GCS_READY_CONTAINER, "resources": dict(WAIT_GCS_READY)}, (), init=True))
            if group.role == "head" and autoscaled:
                options = paths.as_dict(ref.spec.get("autoscalerOptions"))
                sidecar = options.get("resources") if isinstance(options.get("resources"), dict) else dict(AUTOSCALER_DEFAULT)
                containers.append(_container({"name": AUTOSCALER_CONTAINER, "resources": sidecar}, limit_ranges))
            if group.role == "head":
                count = most = 1
            else:
                count = desired_worker_pods(group.spec)
                most = most_worker_pods(group.spec, autoscaled=autoscaled)
            out.append(
                PodShape(
                    group=group.name if group.role == "worker" else "head",
                    path=group.path,
                    role=group.role,
                    containers=tuple(containers),
                    node_selector=MappingProxyType(
                        {str(k): str(v) for k, v in paths.as_dict(pod_spec.get("nodeSelector")).items()}
                    ),
                    affinity_terms=_required_terms(pod_spec),
                    tolerations=tuple(t for t in paths.as_list(pod_spec.get("tolerations")) if isinstance(t, dict)),
                    count=count,
                    most=most,
                    overhead=amounts(pod_spec.get("overhead")),
                    unknown=any(
                        paths.contains_unknown(pod_spec.get(key))
                        for key in ("nodeSelector", "affinity", "tolerations", "containers", "initContainers")
                    ),
                )
            )
    return tuple(out)
