"""Wire data (a manifest's spec) -> the typed constructor calls that build it, guided by the model's types.

:func:`typed_node` walks a value together with the model annotation it belongs to: a mapping for a model
class becomes ``Class(field=...)`` with the model's snake_case field names, lists and maps keep their shape,
scalars stay literals. Where the model offers conveniences (Ray groups, the cluster-wide image, a typed
``serveConfigV2``) :mod:`._shortcuts` chooses them, but only after evaluating the expression and finding that
it renders exactly the original.

Nulls: from Python, ``None`` means "not set" (the model drops it), and the API server prunes nulls of
non-nullable CRD fields, so a ``key: null`` of the manifest is left out (recorded in ``Conversion.dropped``).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from pulumi_kuberay.model.pod import WIRE_CONTEXT

from ._tree import Call, DictOf, ListOf, Lit, Node

Hook = Callable[["Typer", type[BaseModel], Mapping[str, Any], str], Node | None]


class ConversionError(ValueError):
    """The input cannot be expressed with the typed model (the message names the field path)."""


def _strip(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _members(tp: Any) -> list[Any]:
    tp = _strip(tp)
    if get_origin(tp) in (Union, types.UnionType):
        return [_strip(a) for a in get_args(tp) if a is not type(None)]
    return [tp]


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def field_for(model: type[BaseModel], key: str) -> tuple[str, Any] | None:
    """(Python field name, annotation) of the field spelled ``key`` on the wire (alias or name)."""
    for name, info in model.model_fields.items():
        if info.exclude:
            continue  # convenience-only fields never appear in a manifest
        if key == (info.alias or name):
            return name, info.annotation
    return None


def null_is_a_value(model: type[BaseModel]) -> bool:
    return bool(getattr(model, "_null_is_a_value", False))


@dataclass
class Typer:
    """Walks wire data into a :class:`~._tree.Node`; ``hooks`` replace the generic walk for some models."""

    hooks: dict[type[BaseModel], Hook] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)  # paths of nulls left out

    def node(self, annotation: Any, value: Any, path: str) -> Node:
        if value is None:
            return Lit(None)
        members = _members(annotation)
        if len(members) > 1:
            return self.node(self._pick(members, value, path), value, path)
        tp = members[0]
        if _is_model(tp):
            if not isinstance(value, Mapping):
                raise ConversionError(f"{path}: expected a mapping for {tp.__name__}, got {type(value).__name__}")
            return self.model(tp, value, path)
        origin = get_origin(tp)
        args = get_args(tp)
        if origin is list and isinstance(value, list):
            item = args[0] if args else Any
            return ListOf(tuple(self.node(item, v, f"{path}[{i}]") for i, v in enumerate(value)))
        if origin is dict and isinstance(value, Mapping) and len(args) == 2 and _contains_model(args[1]):
            return DictOf(tuple((str(k), self.node(args[1], v, f"{path}[{k!r}]")) for k, v in value.items()))
        return Lit(value)

    def _pick(self, members: list[Any], value: Any, path: str) -> Any:
        """The union member that fits ``value`` (models by validation, other types by Python type)."""
        if isinstance(value, Mapping):
            models = [m for m in members if _is_model(m)]
            if len(models) == 1:
                return models[0]
            for model in models:
                try:
                    model.model_validate(value, context=WIRE_CONTEXT)
                except ValidationError:
                    continue
                return model
            return Any
        if isinstance(value, list):
            lists = [m for m in members if get_origin(m) is list]
            return lists[0] if lists else Any
        return Any

    def model(self, model: type[BaseModel], data: Mapping[str, Any], path: str) -> Node:
        hook = self.hooks.get(model)
        if hook is not None:
            result = hook(self, model, data, path)
            if result is not None:
                return result
        return self.generic(model, data, path)

    def generic(self, model: type[BaseModel], data: Mapping[str, Any], path: str) -> Call:
        """``model(field=...)`` for every key of ``data``, in the manifest's order (then any opt-out of a
        default the model would add from Python, see :func:`as_written_opt_outs`)."""
        kwargs = self.kwargs(model, data, path)
        kwargs += [(name, Lit(value)) for name, value in as_written_opt_outs(model, data).items()]
        return Call(model, tuple(kwargs))

    def kwargs(self, model: type[BaseModel], data: Mapping[str, Any], path: str) -> list[tuple[str, Node]]:
        out: list[tuple[str, Node]] = []
        for key, value in data.items():
            where = f"{path}.{key}" if path else str(key)
            found = field_for(model, str(key))
            if found is None:
                raise ConversionError(f"{where}: {model.__name__} has no field {key!r}")
            name, annotation = found
            if value is None and not null_is_a_value(model):
                self.dropped.append(where)
                continue
            out.append((name, _spelled(model.__name__, name, self.node(annotation, value, where))))
        return out


def as_written_opt_outs(model: type[BaseModel], data: Mapping[str, Any]) -> dict[str, bool]:
    """The Python-only opt-outs that keep ``data`` as written where the model would add a secure default
    from Python: the hardened autoscaler security context (``harden_autoscaler``) and the hardened default
    submitter Pod (``harden_submitter``; a component with ``cluster=`` adds it too). A manifest without them
    runs with KubeRay's own defaults, so the converted program must not change that behind the user's back."""
    fields = model.model_fields
    out: dict[str, bool] = {}
    options = data.get("autoscalerOptions")
    if (
        "harden_autoscaler" in fields
        and data.get("enableInTreeAutoscaling") is True
        and (options.get("securityContext") if isinstance(options, Mapping) else None) is None
    ):
        out["harden_autoscaler"] = False
    if (
        "harden_submitter" in fields
        and data.get("submitterPodTemplate") is None
        and data.get("submissionMode") in (None, "K8sJobMode")
    ):
        out["harden_submitter"] = False
    return out


def as_written(model: type[BaseModel], data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with :func:`as_written_opt_outs` added to it and every nested model's mapping (Python input)."""
    out = dict(data)
    for key, value in data.items():
        found = field_for(model, str(key))
        if found is None or not isinstance(value, Mapping):
            continue
        models = [m for m in _members(found[1]) if _is_model(m)]
        if len(models) == 1:
            out[key] = as_written(models[0], value)
    out.update(as_written_opt_outs(model, data))
    return out


#: (model, field) -> the Kubernetes name of the field's type where the generated models collapsed
#: structurally identical types into one class (``_k8s.py`` keeps the Kubernetes names as aliases).
K8S_SPELLINGS: dict[tuple[str, str], str] = {
    ("EnvVarSource", "secret_key_ref"): "SecretKeySelector",
    ("EnvFromSource", "secret_ref"): "SecretEnvSource",
    ("VolumeProjection", "secret"): "SecretProjection",
    ("Affinity", "pod_anti_affinity"): "PodAntiAffinity",
    ("SecurityContext", "seccomp_profile"): "SeccompProfile",
    ("PodSecurityContext", "seccomp_profile"): "SeccompProfile",
    ("PodSpec", "scheduling_gates"): "PodSchedulingGate",
    ("PodSecurityContext", "sysctls"): "Sysctl",
    ("LabelSelector", "match_expressions"): "LabelSelectorRequirement",
}


def _spelled(model: str, field: str, node: Node) -> Node:
    spelling = K8S_SPELLINGS.get((model, field))
    if spelling is None:
        return node
    if isinstance(node, Call):
        return Call(node.cls, node.kwargs, node.args, spelling)
    if isinstance(node, ListOf):
        return ListOf(tuple(Call(i.cls, i.kwargs, i.args, spelling) if isinstance(i, Call) else i for i in node.items))
    return node


def _contains_model(tp: Any) -> bool:
    return any(_is_model(m) or get_origin(m) in (list, dict) for m in _members(tp))
