"""What the API server's Pod validation refuses in the resources and the metadata of the pod templates the
operator turns into Pods: ``ValidateResourceRequirements`` (requests over limits, negative amounts, resource
names, extended resources that must be whole and not overcommitted) and ``ValidateObjectMeta``'s labels and
annotations of the template (the CRD keeps a template's metadata without validating it). Plain Python, no pulumi.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache
from typing import Any

from pulumi_kuberay.kuberay.kubernetes import STANDARD_CONTAINER_RESOURCES
from pulumi_kuberay.kuberay.paths import as_dict, is_unknown, join, template_containers

from . import _examples as ex
from ._engine import KINDS, Context, Violation, declare
from ._fixed import patch
from ._manifest_readers import built_cluster_specs, built_pod_templates, label_value_error, qualified_name_error
from ._ray_resources import quantity

Doc = dict[str, Any]

_REFUSED = "the API server refuses every Pod the operator creates from it and the workload never starts"
_STANDARD = STANDARD_CONTAINER_RESOURCES  # IsStandardContainerResourceName


def _is_native(name: str) -> bool:
    """Like k8s ``IsNativeResource``: no domain, or the kubernetes.io domain."""
    domain = name.split("/", 1)[0] if "/" in name else ""
    return not domain or domain == "kubernetes.io" or domain.endswith(".kubernetes.io")


def _is_extended(name: str) -> bool:
    """Like k8s ``IsExtendedResourceName``: a qualified name outside the kubernetes.io domain."""
    return not _is_native(name) and not name.startswith("requests.") and qualified_name_error(name) is None


def _amounts(resources: dict[str, Any], key: str) -> dict[str, Fraction | None]:
    out: dict[str, Fraction | None] = {}
    values = resources.get(key)
    if isinstance(values, dict) and not is_unknown(values):
        for name, value in values.items():
            if not is_unknown(value):
                out[str(name)] = quantity(value)
    return out


def _name_problem(name: str) -> str | None:
    if "/" not in name:
        if name in _STANDARD or name.startswith("hugepages-"):
            return None
        return f"resource name {name!r} is not a standard container resource (cpu, memory, ephemeral-storage, hugepages-<size>) nor a domain-qualified one such as nvidia.com/gpu"
    error = qualified_name_error(name)
    return f"resource name {name!r}: {error}" if error else None


#: A container's requests or limits as an immutable key: their (name, amount) pairs, in order, when every name is a
#: string and every amount a string or an int (not a bool nor a float: ``True == 1 == 1.0`` would share a key);
#: None otherwise.
_AmountsKey = tuple[tuple[str, str | int], ...]


def _amounts_key(values: Any) -> _AmountsKey | None:
    if values is None:
        return ()
    if type(values) is not dict:
        return None
    for name, amount in values.items():
        if type(name) is not str or (type(amount) is not str and type(amount) is not int):
            return None
    return tuple(values.items())


def _resource_problems(resources: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """(path suffix, problem) of one container's resources, in ValidateResourceRequirements' order; judged once per
    distinct requests and limits (the containers of a stack mostly repeat a few), by their names and amounts."""
    limits, requests = _amounts_key(resources.get("limits")), _amounts_key(resources.get("requests"))
    if limits is None or requests is None:
        return tuple(_find_resource_problems(resources))
    return _resource_problems_of(limits, requests)


@lru_cache(maxsize=512)  # keys of strings and ints only: bounded, and nothing a caller can change afterwards
def _resource_problems_of(limits: _AmountsKey, requests: _AmountsKey) -> tuple[tuple[str, str], ...]:
    return tuple(_find_resource_problems({"limits": dict(limits), "requests": dict(requests)}))


def _find_resource_problems(resources: dict[str, Any]) -> Iterator[tuple[str, str]]:
    limits, requests = _amounts(resources, "limits"), _amounts(resources, "requests")
    for key, amounts in (("limits", limits), ("requests", requests)):
        for name, amount in amounts.items():
            problem = _name_problem(name)
            if problem:
                yield f"{key}[{name}]", problem
            elif amount is not None and amount < 0:
                yield f"{key}[{name}]", f"{key} of {name} is negative ({amount})"
            elif amount is not None and _is_extended(name) and amount.denominator != 1:
                yield f"{key}[{name}]", f"{key} of {name} must be a whole number (an extended resource is never split)"
    for name, request in requests.items():
        limit = limits.get(name)
        if _name_problem(name) or request is None or (limit is None and name in limits):
            continue
        if _is_extended(name) or name.startswith("hugepages-"):
            if name not in limits:
                yield "limits", f"requests {name} without a limit: an extended resource cannot be overcommitted, its limit must be set"
            elif limit != request:
                yield "requests", f"requests of {name} ({request}) must equal its limit ({limit})"
        elif limit is not None and request > limit:
            yield "requests", f"requests of {name} ({request}) exceed its limit ({limit})"


def _check_resources(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        for item in template_containers(template):
            resources = item.container.get("resources")
            if item.field == "ephemeralContainers" or not isinstance(resources, dict):
                continue
            for suffix, problem in _resource_problems(resources):
                yield Violation(f"{problem}: {_REFUSED} (ValidateResourceRequirements)", f"{item.path}.resources.{suffix}")
    for ref in built_cluster_specs(manifest):  # the autoscaler sidecar takes autoscalerOptions.resources as they are
        resources = as_dict(ref.spec.get("autoscalerOptions")).get("resources")
        if ref.spec.get("enableInTreeAutoscaling") is True and isinstance(resources, dict):
            for suffix, problem in _resource_problems(resources):
                yield Violation(f"{problem}: the API server refuses the head Pod (ValidateResourceRequirements)", join(ref.prefix, f"autoscalerOptions.resources.{suffix}"))


def _with_worker_resources(resources: dict[str, Any]) -> Doc:
    return ex.example(lambda d: ex.worker_container_of(d).update(resources=resources))


declare(
    id="pod-resources-invalid",
    title="Container requests and limits the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-16",),
    enforced_by=("run-time",),
    rationale="Pod validation (ValidateResourceRequirements) refuses a request above its limit, a negative amount, a resource name that is neither standard (cpu, memory, ephemeral-storage, hugepages-<size>) nor domain-qualified ('gpu' instead of nvidia.com/gpu), and an extended resource such as nvidia.com/gpu that is fractional, requested without a limit or requested unlike its limit. The CRD checks only the quantity syntax.",
    fix="Keep each request at or below its limit, name GPUs by their vendor resource (nvidia.com/gpu, amd.com/gpu) in whole numbers, and set their requests equal to their limits (or only limits).",
    check=_check_resources,
    compliant=_with_worker_resources({"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}}),
    violating=_with_worker_resources({"requests": {"cpu": "2", "memory": "2Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}}),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.cpu": "1"}),
)


# --------------------------------------------------------------------------------------------------
# ValidateObjectMeta of the Pod: the template's labels (ValidateLabels) and annotations' keys


def _check_template_metadata(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        meta = as_dict(template.template.get("metadata"))
        for key, value in as_dict(meta.get("labels")).items():
            if is_unknown(value) or not isinstance(value, str):
                continue
            error = qualified_name_error(str(key))
            problem = f"label key {key!r}: {error}" if error else None
            value_error = label_value_error(value)
            problem = problem or (f"label {key!r} value {value!r} {value_error}" if value_error else None)
            if problem:
                yield Violation(f"{problem}: {_REFUSED} (ValidateLabels on the Pod's metadata)", f"{template.path}.metadata.labels")
        for key in as_dict(meta.get("annotations")):
            error = qualified_name_error(str(key).lower())
            if error:
                yield Violation(f"annotation key {key!r}: {error}: {_REFUSED} (ValidateAnnotations on the Pod's metadata)", f"{template.path}.metadata.annotations")


def _with_head_label(key: str, value: str) -> Doc:
    def edit(doc: Doc) -> None:
        ex.head_of(doc)["template"].setdefault("metadata", {}).setdefault("labels", {})[key] = value

    return ex.example(edit)


declare(
    id="pod-template-metadata-invalid",
    title="Pod template label or annotation the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-17",),
    enforced_by=("run-time",),
    rationale="The operator copies a group's template labels and annotations onto its Pods, whose metadata the API server validates (ValidateLabels: qualified-name keys, values of at most 63 alphanumerics, '-', '_' or '.'; ValidateAnnotations: qualified-name keys); the CRD keeps the template's metadata unvalidated, so the Ray object is stored and its Pods are refused.",
    fix="Use label values of at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, and qualified-name keys ('team', 'example.com/team').",
    check=_check_template_metadata,
    compliant=_with_head_label("app.kubernetes.io/part-of", "ray"),
    violating=_with_head_label("app.kubernetes.io/part-of", "my ray app"),
    violating_path="spec.headGroupSpec.template.metadata.labels",
    fixed=patch({"spec.headGroupSpec.template.metadata.labels": {"app.kubernetes.io/part-of": "my-ray-app"}}),
)
