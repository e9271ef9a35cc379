"""What a cluster's Pods ask the scheduler for: CPU, memory and GPUs of the head and the worker groups.

Per Pod: the sum over its containers of ``requests`` (a resource with only a limit requests the limit, as the
API server defaults it), or the largest init container when that is more (the scheduler's effective request);
the head gets the autoscaler sidecar KubeRay adds with in-tree autoscaling (500m / 512Mi unless
``autoscalerOptions.resources`` says otherwise, ``BuildAutoscalerContainer``). Worker groups count
``GetWorkerGroupDesiredReplicas`` Pods (replicas clamped into [minReplicas, maxReplicas], 0 when suspended,
times ``numOfHosts``) at start, and ``maxReplicas`` of them at most when the cluster autoscales.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_kuberay.kuberay import quantity
from pulumi_kuberay.kuberay.names import AUTOSCALER_DEFAULT_RESOURCES
from pulumi_kuberay.kuberay.replicas import desired_worker_pods, most_worker_pods
from pulumi_kuberay.kuberay.resources import is_gpu_resource_key
from pulumi_kuberay.plan._change import Footprint, Resources


def _amount(value: Any) -> float:
    try:
        return float(quantity.parse(str(value).strip()).value) if value is not None else 0.0
    except (quantity.QuantityError, ValueError):
        return 0.0


def _container(resources: Any) -> Resources:
    if not isinstance(resources, Mapping):
        return Resources()
    limits, requests = resources.get("limits"), resources.get("requests")
    merged = {
        **(dict(limits) if isinstance(limits, Mapping) else {}),
        **(dict(requests) if isinstance(requests, Mapping) else {}),
    }
    gpus = sum(_amount(v) for k, v in merged.items() if is_gpu_resource_key(str(k)))
    return Resources(
        cpu_millis=round(_amount(merged.get("cpu")) * 1000),
        memory_bytes=round(_amount(merged.get("memory"))),
        gpus=round(gpus),
    )


def _max(a: Resources, b: Resources) -> Resources:
    return Resources(max(a.cpu_millis, b.cpu_millis), max(a.memory_bytes, b.memory_bytes), max(a.gpus, b.gpus))


def pod_resources(template: Any, *, sidecars: tuple[Any, ...] = ()) -> Resources:
    """The effective request of one Pod of ``template`` (plus ``sidecars``: extra containers' resources)."""
    spec = template.get("spec") if isinstance(template, Mapping) else None
    if not isinstance(spec, Mapping):
        return Resources()
    total = Resources()
    for container in spec.get("containers") or []:
        if isinstance(container, Mapping):
            total = total + _container(container.get("resources"))
    for extra in sidecars:
        total = total + _container(extra)
    init = Resources()
    for container in spec.get("initContainers") or []:
        if isinstance(container, Mapping):
            init = _max(init, _container(container.get("resources")))
    return _max(total, init)


def footprint(spec: Mapping[str, Any], *, replicas_unset: bool = False) -> Footprint:
    """The cluster's requests at start and at most (``replicas_unset``: the operator creates the cluster with no
    worker replicas, so each group starts at minReplicas, as for an incremental upgrade's pending cluster)."""
    head_spec = spec.get("headGroupSpec")
    head: Mapping[str, Any] = head_spec if isinstance(head_spec, Mapping) else {}
    sidecars: tuple[Any, ...] = ()
    if spec.get("enableInTreeAutoscaling") is True:
        raw_options = spec.get("autoscalerOptions")
        options: Mapping[str, Any] = raw_options if isinstance(raw_options, Mapping) else {}
        sidecars = (options.get("resources") or AUTOSCALER_DEFAULT_RESOURCES,)
    start = pod_resources(head.get("template"), sidecars=sidecars)
    most = start
    autoscaled = spec.get("enableInTreeAutoscaling") is True
    for group in spec.get("workerGroupSpecs") or []:
        if not isinstance(group, Mapping):
            continue
        pod = pod_resources(group.get("template"))
        effective = {**group, "replicas": None} if replicas_unset else group
        count = desired_worker_pods(effective)
        start = start + pod.times(count)
        most = most + pod.times(max(count, min(most_worker_pods(group, autoscaled=autoscaled), 100_000)))
    return Footprint(start=start, most=most)


__all__ = ["footprint", "pod_resources"]
