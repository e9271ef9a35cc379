"""The Ray resources each group of a cluster advertises, as KubeRay derives them for ``ray start``, and whether a
resource request (a Serve replica, a job's entrypoint) fits any group. Never raises; an amount that cannot be
known (Ray detects it from the node) is ``None`` and never judged.

KubeRay's order (``ray-operator/controllers/ray/common/pod.go``):

1. ``updateRayStartParamsResources``: a group's ``resources`` map (v1.5) overwrites ``num-cpus`` (``cpu``),
   ``memory``, ``num-gpus`` (a key ``IsGPUResourceKey`` accepts) and, with the other keys, ``resources``;
2. ``generateRayStartCommand``: ``num-cpus`` from the Ray container's CPU limit, else its CPU request, as
   ``Quantity.Value()`` (rounded up: ``500m`` -> 1); ``memory`` from the memory limit only (bytes, rounded up);
3. ``addWellKnownAcceleratorResources`` (with limits only): ``num-gpus`` from the first limit (sorted by name) that
   ``IsGPUResourceKey`` accepts (a name ending in ``gpu``, or ``nvidia.com/mig-<n>g.<m>gb``), and the first custom
   accelerator of ``customAcceleratorToRayResourceMap`` (``google.com/tpu`` -> ``TPU``,
   ``aws.amazon.com/neuroncore`` -> ``neuron_cores``) added to ``resources`` unless one is there already.

Without ``num-cpus`` (no CPU limit or request) or ``memory`` (no memory limit) Ray counts the node's: unknown
here. Without ``num-gpus`` Ray counts the GPUs it sees; a container granted no GPU sees none (0). Ray adds
``accelerator_type:<X>`` itself on a node with an accelerator (the GPU model, ``TPU-V4``...): unknown here unless
the group declares it in its resources.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pulumi_kuberay.kuberay.names import OVERWRITE_CONTAINER_CMD_ANNOTATION
from pulumi_kuberay.kuberay.paths import (
    ClusterSpecRef,
    GroupRef,
    PodTemplateRef,
    as_dict,
    as_list,
    contains_unknown,
    derived,
    group_template,
    groups,
    is_unknown,
    ray_container,
)
from pulumi_kuberay.kuberay.resources import CUSTOM_ACCELERATORS as CUSTOM_ACCELERATORS
from pulumi_kuberay.kuberay.resources import is_gpu_resource_key as is_gpu_resource_key
from pulumi_kuberay.model import quantity_amount

CPU, GPU, MEMORY = "CPU", "GPU", "memory"
ACCELERATOR_PREFIX = "accelerator_type:"
#: Ray's resource precision (``ray._private.ray_constants.RESOURCE_UNIT_SCALING``: 1/10000).
_EPSILON = 1e-4 / 2

#: The exact amount of a Kubernetes quantity (``resource.ParseQuantity``), None if it is not one.
quantity = quantity_amount

#: The least memory a Ray container can start in: 64Mi, far below what the Python interpreter with Ray imported takes
#: (``ray start`` is OOM-killed under it), and far above the runtimes' own floors. A memory limit below it never runs.
RAY_MIN_MEMORY = 64 * 2**20


def go_value(amount: Fraction) -> int:
    """``Quantity.Value()``: rounded up, away from zero."""
    return math.ceil(amount) if amount >= 0 else -math.ceil(-amount)


@dataclass(frozen=True)
class Offer:
    """What one Ray node of a group advertises: ``None`` = not known (Ray detects it), absent custom = 0."""

    group: GroupRef
    amounts: dict[str, float | None] = field(default_factory=dict)
    custom_known: bool = True  # False: the group's custom resources cannot be read (every custom need may fit)
    may_detect_accelerator: bool = False  # Ray may add accelerator_type:<X> for a detected accelerator
    #: Resources Ray may add on the node beyond what KubeRay passes to ``ray start`` (its accelerator managers, the
    #: container's ``RAY_OVERRIDE_RESOURCES``), each with why; ``ANY_RESOURCE`` stands for every resource.
    detected: Mapping[str, str] = field(default_factory=dict)

    def amount(self, resource: str) -> float | None:
        """The amount of ``resource`` one node offers, None if not known."""
        if resource in self.amounts:
            return self.amounts[resource]
        if resource.startswith(ACCELERATOR_PREFIX) and self.may_detect_accelerator:
            return None
        return 0.0 if self.custom_known or resource in (CPU, GPU, MEMORY) else None


def _number(text: Any) -> float | None:
    if isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        return float(text)
    if not isinstance(text, str) or is_unknown(text):
        return None
    try:
        value = float(text.strip().strip("'\""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _resources_json(text: Any) -> dict[str, float] | None:
    """``getResourcesMap``: the JSON object of ``rayStartParams.resources`` (quotes and spaces trimmed)."""
    if not isinstance(text, str) or is_unknown(text):
        return None
    try:
        parsed = json.loads(text.strip("'\"` "))
    except ValueError:
        return None
    if not isinstance(parsed, dict):
        return None
    out: dict[str, float] = {}
    for key, value in parsed.items():
        amount = _number(value)
        if amount is None:
            return None
        out[str(key)] = amount
    return out


def _apply_group_resources(params: dict[str, Any], group_resources: Mapping[str, Any]) -> bool:
    """``updateRayStartParamsResources`` on ``params``; False when a value is not known yet."""
    custom: dict[str, float] = {}
    for name, text in group_resources.items():
        if is_unknown(text):
            return False
        amount = quantity(text)
        if amount is None:
            continue  # the operator skips a quantity it cannot parse
        lowered = str(name).lower()
        if lowered == "cpu":
            params["num-cpus"] = str(go_value(amount))
        elif lowered == "memory":
            params["memory"] = str(go_value(amount))
        elif is_gpu_resource_key(lowered):
            params["num-gpus"] = str(go_value(amount))
        else:
            custom[str(name)] = float(amount)
    if custom:
        params["resources"] = json.dumps(custom)
    return True


def _user_starts_ray(container: Mapping[str, Any], annotations: Mapping[str, Any]) -> bool:
    """The container runs its own ``ray start`` (KubeRay then keeps its command): its flags are not ours to read."""
    if str(annotations.get(OVERWRITE_CONTAINER_CMD_ANNOTATION, "")).lower() == "true":
        return True
    words = [w for key in ("command", "args") for w in as_list(container.get(key)) if isinstance(w, str)]
    return "ray start" in " ".join(words)


def _derived_cpu_memory(params: dict[str, Any], limits: Mapping[str, Any], requests: Mapping[str, Any]) -> None:
    """``generateRayStartCommand``: ``num-cpus`` from the CPU limit, else the request; ``memory`` from the limit."""
    if "num-cpus" not in params:
        for source in (limits, requests):
            cpu = quantity(source.get("cpu"))
            if cpu is not None and cpu != 0:
                params["num-cpus"] = str(go_value(cpu))
                break
    if "memory" not in params:
        memory = quantity(limits.get("memory"))
        if memory is not None and memory != 0:
            params["memory"] = str(go_value(memory))


def _accelerators(params: dict[str, Any], limits: Mapping[str, Any]) -> dict[str, float] | None:
    """``addWellKnownAcceleratorResources``: ``num-gpus`` set in ``params``; the custom resources returned (None:
    ``rayStartParams.resources`` cannot be read, and the operator then derives nothing from the limits)."""
    custom = _resources_json(params["resources"]) if "resources" in params else {}
    if not limits or custom is None:
        return custom
    accelerator_present = any(name in custom for name in CUSTOM_ACCELERATORS.values())
    for key in sorted(str(k) for k in limits):
        amount = quantity(limits[key])
        if amount is None or amount == 0:
            continue
        if "num-gpus" not in params and is_gpu_resource_key(key):
            params["num-gpus"] = str(go_value(amount))
        if not accelerator_present and key in CUSTOM_ACCELERATORS:
            custom.setdefault(CUSTOM_ACCELERATORS[key], float(amount))
            accelerator_present = True
    return custom


def _gpus_outside_limits(template: PodTemplateRef, container: Mapping[str, Any]) -> bool:
    """The Pod may see GPUs that no limit names: a GPU-sharing annotation (KAI's ``gpu-fraction``...), a
    ``runtimeClassName``, Dynamic Resource Allocation claims, or ``NVIDIA_VISIBLE_DEVICES`` set by hand."""
    metadata = as_dict(template.template.get("metadata"))
    if any("gpu" in str(key).lower() for key in as_dict(metadata.get("annotations"))):
        return True
    pod = template.pod_spec
    if pod.get("runtimeClassName") is not None or pod.get("resourceClaims"):
        return True
    if as_dict(container.get("resources")).get("claims"):
        return True
    return any(as_dict(env).get("name") == "NVIDIA_VISIBLE_DEVICES" for env in as_list(container.get("env")))


def group_offer(group: GroupRef, annotations: Mapping[str, Any]) -> Offer | None:
    """What one node of ``group`` advertises; None when nothing about it can be known."""
    template = group_template(group)
    found = ray_container(template) if template is not None else None
    if template is None or found is None or _user_starts_ray(found[1], annotations):
        return None
    raw_params = group.spec.get("rayStartParams")
    if contains_unknown(raw_params) or contains_unknown(group.spec.get("resources")):
        return None
    params: dict[str, Any] = dict(as_dict(raw_params))
    if not _apply_group_resources(params, as_dict(group.spec.get("resources"))):
        return None
    resources = as_dict(found[1].get("resources"))
    limits, requests = as_dict(resources.get("limits")), as_dict(resources.get("requests"))
    if contains_unknown(limits) or contains_unknown(requests):
        return None
    _derived_cpu_memory(params, limits, requests)
    custom = _accelerators(params, limits)
    if "num-gpus" in params:
        gpus = _number(params["num-gpus"])
    elif _gpus_outside_limits(template, found[1]) or (
        custom is None and any(is_gpu_resource_key(str(k)) for k in limits)
    ):
        gpus = None  # Ray counts what it sees (or no GPU was derived: the resources could not be read)
    else:
        gpus = 0.0  # granted no GPU, Ray sees none
    amounts: dict[str, float | None] = {
        CPU: _number(params.get("num-cpus")),
        GPU: gpus,
        MEMORY: _number(params.get("memory")),
    }
    amounts.update(custom or {})
    accelerators = gpus is None or gpus > 0 or any((custom or {}).get(name) for name in CUSTOM_ACCELERATORS.values())
    detected = _detected(template, found[1], params, amounts)
    return Offer(
        group, amounts, custom_known=custom is not None, may_detect_accelerator=accelerators, detected=detected
    )


#: ``Offer.detected``'s key for "any resource" (a ``RAY_OVERRIDE_RESOURCES`` that cannot be read here).
ANY_RESOURCE = "*"
#: What Ray's accelerator managers (``ray._private.accelerators``: ``get_resource_name``) advertise from what they
#: detect on the node: GPUs of every vendor, TPU, AWS Neuron cores, Gaudi (HPU), Ascend (NPU), Rebellions (RBLN),
#: FuriosaAI (FURIOSA), Mobilint (MBLT), Tenstorrent (TTNPU).
RAY_ACCELERATOR_RESOURCES = ("GPU", "TPU", "neuron_cores", "HPU", "NPU", "RBLN", "FURIOSA", "MBLT", "TTNPU")
#: Pod resources that are no device: what they grant gives Ray nothing to detect.
_PLAIN_RESOURCES = ("cpu", "memory", "ephemeral-storage", "storage", "pods")
#: Ray's environment variable whose JSON object overrides the node's resources (``ResourceAndLabelSpec``
#: ``_load_env_resources``, ``_merge_resources``: the environment's values take precedence over ``ray start``'s).
RAY_OVERRIDE_RESOURCES = "RAY_OVERRIDE_RESOURCES"


def detected_reason(offer: Offer, resource: str) -> str | None:
    """Why Ray may advertise ``resource`` on the node beyond what KubeRay passes it, or None."""
    reason = offer.detected.get(resource) or offer.detected.get(ANY_RESOURCE)
    if reason is None and resource.startswith(ACCELERATOR_PREFIX):
        reason = next((offer.detected[r] for r in RAY_ACCELERATOR_RESOURCES if r in offer.detected), None)
    return reason


def _device_grants(limits: Mapping[str, Any], requests: Mapping[str, Any], params: Mapping[str, Any]) -> list[str]:
    """The device resources the Ray container is granted that KubeRay does not translate for ``ray start``: Ray's
    accelerator managers detect what they expose (``aws.amazon.com/neuron`` devices -> ``neuron_cores``...)."""
    grants = []
    for key in sorted({str(k) for k in (*limits, *requests)}):
        lowered = key.lower()
        if lowered in _PLAIN_RESOURCES or lowered.startswith("hugepages-") or key in CUSTOM_ACCELERATORS:
            continue
        if is_gpu_resource_key(lowered) and "num-gpus" in params:
            continue
        grants.append(key)
    return grants


def _gpu_nodes_tolerated(template: PodTemplateRef) -> str | None:
    """The Pod may land on a GPU node without asking for a GPU: a toleration of a GPU taint (or of every taint), or
    a node selector on a GPU label; the node's GPUs may then be visible to Ray (a CUDA image sets
    ``NVIDIA_VISIBLE_DEVICES=all``)."""
    for toleration in as_list(template.pod_spec.get("tolerations")):
        key = str(as_dict(toleration).get("key") or "")
        if (key and is_gpu_resource_key(key.lower())) or (not key and as_dict(toleration).get("operator") == "Exists"):
            return f"the Pod tolerates {key or 'every taint'} without requesting a GPU"
    for key, value in as_dict(template.pod_spec.get("nodeSelector")).items():
        if "gpu" in f"{key}={value}".lower() or "accelerator" in str(key).lower():
            return f"the Pod selects nodes by {key}={value} without requesting a GPU"
    return None


def _detected(
    template: PodTemplateRef,
    container: Mapping[str, Any],
    params: Mapping[str, Any],
    amounts: Mapping[str, float | None],
) -> dict[str, str]:
    """``Offer.detected`` of one group (see ``detected_reason``). What KubeRay passes to ``ray start`` wins over what
    Ray detects (an accelerator manager counts only a resource not given), ``RAY_OVERRIDE_RESOURCES`` over both."""
    gpus = amounts.get(GPU)
    resources = as_dict(container.get("resources"))
    detected: dict[str, str] = {}
    grants = _device_grants(as_dict(resources.get("limits")), as_dict(resources.get("requests")), params)
    if grants:
        why = f"the Ray container is granted {', '.join(grants)}, which Ray's accelerator managers may detect and advertise"
        detected.update({r: why for r in RAY_ACCELERATOR_RESOURCES if r not in amounts or (r == GPU and gpus == 0.0)})
    tolerated = _gpu_nodes_tolerated(template) if gpus == 0.0 else None
    if tolerated is not None:
        detected.setdefault("GPU", f"{tolerated}, and Ray counts the GPUs it sees")
    for env in as_list(container.get("env")):
        if as_dict(env).get("name") != RAY_OVERRIDE_RESOURCES:
            continue
        why = f"{RAY_OVERRIDE_RESOURCES} in the Ray container's env overrides the node's resources"
        try:
            override = json.loads(str(as_dict(env).get("value")))
        except ValueError:
            override = None
        if isinstance(override, dict):
            detected.update({str(name): why for name in override})
        else:
            detected[ANY_RESOURCE] = why
    return detected


def can_have_nodes(group: GroupRef) -> bool:
    """The head always has its node; a worker group has none ever with ``maxReplicas: 0``."""
    if group.role == "head":
        return True
    high = group.spec.get("maxReplicas")
    return not (isinstance(high, int) and not isinstance(high, bool) and high <= 0)


def cluster_offers(ref: ClusterSpecRef, annotations: Mapping[str, Any]) -> tuple[Offer, ...] | None:
    """The offer of every group that can ever have a node; None when the groups cannot be read (unknown).

    With the cluster spec's own annotations, derived once per ``check`` (the Serve and entrypoint rules share it)."""
    if annotations is ref.annotations:
        return derived(ref, "ray_resources.cluster_offers", _own_cluster_offers)
    return _cluster_offers(ref, annotations)


def _own_cluster_offers(ref: ClusterSpecRef) -> tuple[Offer, ...] | None:
    return _cluster_offers(ref, ref.annotations)


def _cluster_offers(ref: ClusterSpecRef, annotations: Mapping[str, Any]) -> tuple[Offer, ...] | None:
    if not isinstance(ref.spec.get("headGroupSpec"), dict):
        return None
    workers = ref.spec.get("workerGroupSpecs")
    if workers is not None and (not isinstance(workers, list) or not all(isinstance(w, dict) for w in workers)):
        return None
    offers: list[Offer] = []
    for group in groups(ref):
        if is_unknown(group.spec.get("maxReplicas")) and group.spec.get("maxReplicas") is not None:
            return None
        if not can_have_nodes(group):
            continue
        offer = group_offer(group, annotations)
        if offer is None:
            return None  # a group whose offer cannot be read may host anything
        offers.append(offer)
    return tuple(offers)


def fits(need: Mapping[str, float], offer: Offer, *, with_detected: bool = False) -> bool:
    """One node of the group can host ``need`` (every amount not known counts as enough); ``with_detected``: also
    every resource Ray may detect on the node itself (``Offer.detected``)."""
    for resource, amount in need.items():
        if amount <= 0:
            continue
        if with_detected and detected_reason(offer, resource) is not None:
            continue
        offered = offer.amount(resource)
        if offered is not None and offered + _EPSILON < amount:
            return False
    return True


def shown(amount: float | None, resource: str) -> str:
    if amount is None:
        return "unknown"
    if resource == MEMORY and amount >= 1 << 20:
        return f"{amount / (1 << 30):.3g}Gi" if amount >= 1 << 30 else f"{amount / (1 << 20):.3g}Mi"
    return f"{amount:g}"


def describe_need(need: Mapping[str, float]) -> str:
    return ", ".join(f"{k} {shown(v, k)}" for k, v in need.items() if v > 0) or "nothing"


def largest_offers(need: Mapping[str, float], offers: tuple[Offer, ...]) -> str:
    """``CPU 4 (small-group), GPU 0``: per resource needed, the largest amount a group offers and which group."""
    parts = []
    for resource, amount in need.items():
        if amount <= 0:
            continue
        best: tuple[float, str] | None = None
        for offer in offers:
            offered = offer.amount(resource)
            if offered is not None and (best is None or offered > best[0]):
                best = (offered, group_label(offer.group))
        parts.append(f"{resource} {shown(best[0], resource)} ({best[1]})" if best and best[0] > 0 else f"{resource} 0")
    return ", ".join(parts)


def group_label(group: GroupRef) -> str:
    return "head" if group.role == "head" else repr(group.name)


def group_names(offers: tuple[Offer, ...]) -> str:
    return ", ".join(group_label(offer.group) for offer in offers) or "none"


def needs_of(options: Mapping[str, Any], *, default_cpus: float) -> dict[str, float] | None:
    """The resources of Ray ``options`` (``resources_from_ray_options``: num_cpus, num_gpus, memory in bytes,
    resources, ``accelerator_type:<X>`` 0.001); None when a value is not known or not a number."""
    need: dict[str, float] = {}
    for key, resource, default in (("num_cpus", CPU, default_cpus), ("num_gpus", GPU, 0.0), ("memory", MEMORY, 0.0)):
        value = options.get(key)
        amount = default if value is None else _number(value) if not isinstance(value, str) else None
        if amount is None:
            return None
        need[resource] = amount
    custom = options.get("resources")
    if custom is not None:
        if not isinstance(custom, dict):
            return None
        for name, value in custom.items():
            amount = _number(value) if not isinstance(value, str) else None
            if amount is None or is_unknown(name):
                return None
            need[str(name)] = amount
    accelerator = options.get("accelerator_type")
    if isinstance(accelerator, str) and accelerator and not is_unknown(accelerator):
        need[ACCELERATOR_PREFIX + accelerator] = 0.001
    elif accelerator is not None:
        return None
    return need


def bundle_needs(bundles: Any) -> Iterator[tuple[int, dict[str, float]]]:
    """(index, resources) of each placement-group bundle (``{"CPU": 1, "GPU": 1}``) whose amounts are numbers."""
    for i, bundle in enumerate(as_list(bundles)):
        if not isinstance(bundle, dict):
            continue
        need = {str(k): _number(v) for k, v in bundle.items() if not isinstance(v, str)}
        if need and all(v is not None for v in need.values()) and len(need) == len(bundle):
            yield i, {k: v for k, v in need.items() if v is not None}
