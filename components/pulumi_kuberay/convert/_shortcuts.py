"""The concise forms (``image=``, ``cpu=``, ``env={...}``, a typed ``ServeConfig``), chosen only when exact.

Each hook builds the concise expression, *evaluates* it with the real model and compares what the model
renders with the original; on any difference it returns ``None`` and the generic, full typed template is
written instead. So the output stays exact when the models' conveniences change: a convenience that no
longer reproduces the object is simply not used.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from pulumi_kuberay.kuberay.resources import is_gpu_resource_key
from pulumi_kuberay.model import ManifestError, PodTemplateSpec, Toleration, YAMLError, parse_yaml
from pulumi_kuberay.model.cluster import HeadGroupSpec, RayClusterSpec, WorkerGroupSpec
from pulumi_kuberay.model.pod import DEFAULT_GPU_RESOURCE, SecretRef
from pulumi_kuberay.model.serve import ServeConfig
from pulumi_kuberay.model.service import RayServiceSpec

from ._tree import Call, DictOf, ListOf, Lit, Node, evaluate
from ._typed import ConversionError, Typer, as_written

_PULL_POLICIES = ("Always", "IfNotPresent", "Never")


def strip_nulls(value: Any) -> Any:
    """``value`` without ``None`` entries in mappings (what the model keeps when built from Python)."""
    if isinstance(value, Mapping):
        return {k: strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_nulls(v) for v in value]
    return value


def semantic(value: Any) -> Any:
    """``value`` with every ``serveConfigV2`` string parsed: a typed ServeConfig renders the same config as
    differently formatted YAML."""
    if isinstance(value, Mapping):
        return {
            k: parse_yaml(v) if k == "serveConfigV2" and isinstance(v, str) else semantic(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [semantic(v) for v in value]
    return value


def renders(node: Node, expected: Any) -> bool:
    """Does the expression build a model whose rendering equals ``expected`` (serve configs parsed)?"""
    try:
        built = evaluate(node)
    except (ValidationError, ValueError, TypeError):
        return False
    if not isinstance(built, BaseModel):
        return False
    return bool(semantic(built.model_dump(by_alias=True, exclude_unset=True)) == semantic(expected))


def expected_rendering(model: type[BaseModel], data: Mapping[str, Any]) -> Any:
    """What the typed model renders when the manifest's ``data`` is given from Python (nulls left out).

    The Python-only opt-outs of the model's secure defaults are given where the manifest has none of them
    (:func:`~._typed.as_written`), as the generated code does. This is what a generated expression must
    reproduce. It equals the manifest unless the model adds a default from Python (:func:`model_differences`
    lists where; the converter notes them).
    """
    return model.model_validate(as_written(model, strip_nulls(data))).model_dump(by_alias=True, exclude_unset=True)


def model_differences(wire: Any, typed: Any, path: str = "spec") -> list[str]:
    """Paths where the model's Python rendering ``typed`` differs from the manifest's ``wire`` data."""
    if isinstance(wire, Mapping) and isinstance(typed, Mapping):
        out: list[str] = []
        for key in list(wire) + [k for k in typed if k not in wire]:
            out += model_differences(wire.get(key), typed.get(key), f"{path}.{key}")
        return out
    if isinstance(wire, list) and isinstance(typed, list) and len(wire) == len(typed):
        pairs = enumerate(zip(wire, typed, strict=True))
        return [p for i, (a, b) in pairs for p in model_differences(a, b, f"{path}[{i}]")]
    return [] if semantic(wire) == semantic(typed) else [path]


def kwarg(node: Call, name: str) -> Node | None:
    return next((value for key, value in node.kwargs if key == name), None)


def replace_kwarg(node: Call, name: str, value: Node | None) -> Call:
    """``node`` with kwarg ``name`` replaced (or removed when ``value`` is None)."""
    kwargs: list[tuple[str, Node]] = []
    for key, current in node.kwargs:
        if key != name:
            kwargs.append((key, current))
        elif value is not None:
            kwargs.append((key, value))
    return Call(node.cls, tuple(kwargs), node.args, node.spelling)


# --------------------------------------------------------------------------------------------------
# Ray groups: image, pull policy, cpu/memory/gpu, env, node selector, tolerations, service account.


def _resource_shortcuts(resources: Any) -> list[tuple[str, Node]] | None:
    if not isinstance(resources, Mapping) or set(resources) != {"requests", "limits"}:
        return None
    limits = resources["limits"]
    if not isinstance(limits, Mapping) or not limits or resources["requests"] != limits:
        return None
    out: list[tuple[str, Node]] = []
    for resource, amount in limits.items():
        if resource in ("cpu", "memory"):
            out.append((resource, Lit(amount)))
        elif is_gpu_resource_key(str(resource)) and isinstance(amount, int) and not isinstance(amount, bool):
            if any(key == "gpu" for key, _ in out):
                return None
            out.append(("gpu", Lit(amount)))
            if resource != DEFAULT_GPU_RESOURCE:
                out.append(("gpu_resource", Lit(resource)))
        else:
            return None
    return out


def _env_shortcut(env: Any) -> DictOf | None:
    """``{NAME: "value" | SecretRef(...)}`` when every entry is a literal or a Secret key, names unique."""
    if not isinstance(env, list) or not env:
        return None
    items: list[tuple[str, Node]] = []
    for entry in env:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            return None
        keys = set(entry) - {"name"}
        if keys == {"value"} and isinstance(entry["value"], str):
            items.append((entry["name"], Lit(entry["value"])))
            continue
        ref = (entry.get("valueFrom") or {}).get("secretKeyRef") if keys == {"valueFrom"} else None
        if not isinstance(ref, Mapping) or set(ref) - {"name", "key", "optional"} or len(entry["valueFrom"]) != 1:
            return None
        if not isinstance(ref.get("name"), str) or not isinstance(ref.get("key"), str):
            return None
        extra = (("optional", Lit(ref["optional"])),) if "optional" in ref else ()
        items.append((entry["name"], Call(SecretRef, extra, (Lit(ref["name"]), Lit(ref["key"])))))
    if len({name for name, _ in items}) != len(items):
        return None
    return DictOf(tuple(items))


def _default_head_ports() -> list[dict[str, Any]]:
    return [{"containerPort": port, "name": name} for name, port in HeadGroupSpec.DEFAULT_PORTS]


def _group_shortcuts(
    typer: Typer, model: type[HeadGroupSpec | WorkerGroupSpec], data: Mapping[str, Any], path: str
) -> Call | None:
    template = data.get("template")
    spec = template.get("spec") if isinstance(template, Mapping) else None
    containers = spec.get("containers") if isinstance(spec, Mapping) else None
    if not isinstance(containers, list) or not containers or not isinstance(containers[0], Mapping):
        return None
    rest = copy.deepcopy(strip_nulls(dict(template)))  # type: ignore[arg-type]
    pod: dict[str, Any] = rest["spec"]
    ray: dict[str, Any] = pod["containers"][0]
    short: list[tuple[str, Node]] = []
    if isinstance(ray.get("image"), str):
        short.append(("image", Lit(ray.pop("image"))))
    if ray.get("imagePullPolicy") in _PULL_POLICIES:
        short.append(("image_pull_policy", Lit(ray.pop("imagePullPolicy"))))
    amounts = _resource_shortcuts(ray.get("resources"))
    if amounts:
        short += amounts
        del ray["resources"]
    env = _env_shortcut(ray.get("env"))
    if env is not None:
        short.append(("env", env))
        del ray["env"]
    selector = pod.get("nodeSelector")
    if isinstance(selector, Mapping) and selector and all(isinstance(v, str) for v in selector.values()):
        short.append(("node_selector", Lit(dict(pod.pop("nodeSelector")))))
    if isinstance(pod.get("tolerations"), list) and pod["tolerations"]:
        short.append(("tolerations", typer.node(list[Toleration], pod.pop("tolerations"), f"{path}.tolerations")))
    if isinstance(pod.get("serviceAccountName"), str):
        short.append(("service_account", Lit(pod.pop("serviceAccountName"))))
    if not short:
        return None
    # Without a template the model builds one: container named like RAY_CONTAINER_NAME (the head with
    # KubeRay's default ports). Leave it out only when that is exactly what is left.
    bare: dict[str, Any] = {"name": model.RAY_CONTAINER_NAME}
    if model is HeadGroupSpec:
        bare["ports"] = _default_head_ports()
    keep_template = rest != {"spec": {"containers": [bare]}}
    kwargs: list[tuple[str, Node]] = []
    for key, value in data.items():
        if key != "template":
            kwargs += typer.kwargs(model, {key: value}, path)
            continue
        kwargs += short
        if keep_template:
            kwargs.append(("template", typer.node(PodTemplateSpec, rest, f"{path}.template")))
    return Call(model, tuple(kwargs))


def group_hook(typer: Typer, model: type[BaseModel], data: Mapping[str, Any], path: str) -> Node | None:
    if model is not HeadGroupSpec and model is not WorkerGroupSpec:
        return None
    short = _group_shortcuts(typer, model, data, path)
    if short is None:
        return None
    try:
        expected = expected_rendering(model, data)
    except ValidationError:
        return None
    return short if renders(short, expected) else None


# --------------------------------------------------------------------------------------------------
# The cluster: one ``image=`` for all groups when they share it.


def _groups(node: Call) -> list[Call]:
    head = kwarg(node, "head_group_spec")
    workers = kwarg(node, "worker_group_specs")
    out = [head] if isinstance(head, Call) else []
    if isinstance(workers, ListOf):
        out += [w for w in workers.items if isinstance(w, Call)]
    return out


def cluster_hook(typer: Typer, model: type[BaseModel], data: Mapping[str, Any], path: str) -> Node | None:
    if model is not RayClusterSpec:
        return None
    node = typer.generic(model, data, path)
    images = {repr(kwarg(group, "image")) for group in _groups(node)}
    image = kwarg(_groups(node)[0], "image") if _groups(node) else None
    if len(images) != 1 or not isinstance(image, Lit):
        return node
    head = kwarg(node, "head_group_spec")
    workers = kwarg(node, "worker_group_specs")
    hoisted = node
    if isinstance(head, Call):
        hoisted = replace_kwarg(hoisted, "head_group_spec", replace_kwarg(head, "image", None))
    if isinstance(workers, ListOf):
        items = tuple(replace_kwarg(w, "image", None) if isinstance(w, Call) else w for w in workers.items)
        hoisted = replace_kwarg(hoisted, "worker_group_specs", ListOf(items))
    first = [k for k, _ in hoisted.kwargs].index("ray_version") + 1 if kwarg(hoisted, "ray_version") else 0
    kwargs = list(hoisted.kwargs)
    kwargs.insert(first, ("image", image))
    hoisted = Call(hoisted.cls, tuple(kwargs), hoisted.args, hoisted.spelling)
    try:
        expected = expected_rendering(model, data)
    except ValidationError:
        return node
    return hoisted if renders(hoisted, expected) else node


# --------------------------------------------------------------------------------------------------
# RayService: serveConfigV2 as a typed ServeConfig.


def service_hook(typer: Typer, model: type[BaseModel], data: Mapping[str, Any], path: str) -> Node | None:
    text = data.get("serveConfigV2")
    if model is not RayServiceSpec or not isinstance(text, str):
        return None
    where = f"{path}.serveConfigV2" if path else "serveConfigV2"
    try:
        parsed = parse_yaml(text)
        if not isinstance(parsed, Mapping):
            return None
        config = typer.model(ServeConfig, parsed, where)
        built = evaluate(config)
        if not isinstance(built, ServeConfig) or parse_yaml(built.to_yaml()) != parsed:
            return None
    except (YAMLError, ValidationError, ManifestError, ConversionError, ValueError, TypeError):
        return None
    kwargs: list[tuple[str, Node]] = []
    for key, value in data.items():
        if key == "serveConfigV2":
            kwargs.append(("serve_config_v2", config))
        else:
            kwargs += typer.kwargs(model, {key: value}, path)
    return Call(model, tuple(kwargs))


def typer() -> Typer:
    """A :class:`Typer` that uses the conveniences wherever they reproduce the object exactly."""
    return Typer(
        hooks={
            HeadGroupSpec: group_hook,
            WorkerGroupSpec: group_hook,
            RayClusterSpec: cluster_hook,
            RayServiceSpec: service_hook,
        }
    )
