"""What the API server refuses in the Kubernetes types the CRDs embed, on top of their schema: the bases
``tools/gen_k8s_models.py`` gives the generated classes of :mod:`._k8s` (``class Toleration(TolerationChecks)``).

The CRD stores a pod template as it is; the API server refuses each Pod KubeRay then creates from it
(``ValidatePodCreate``), an Event on the RayCluster and no Pod. These checks refuse such a template at once from
Python; a manifest (``load_manifest``, ``load_stored``: lint and convert) is kept as the API server stores it and
the refusals recorded (:func:`pod_refusals`), which the schema rules report.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import replace
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationInfo, field_validator, model_validator

from ._base import KubeModel, Self
from ._errors import Problem, SpecError
from .suggest import did_you_mean

#: Who refuses a mistake in a pod template (the schema of the CRD takes it).
POD_REFUSED = "the API server refuses every Pod KubeRay creates from this template"

#: ``validateTolerations``: the operators and effects a toleration may have ("" is Equal / every effect).
TOLERATION_OPERATORS = ("Equal", "Exists")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _field(model: KubeModel, name: str) -> Any:
    return getattr(model, name, None)


def _choice(value: str, choices: tuple[str, ...]) -> str:
    return did_you_mean(value, list(choices)) or f"use one of {', '.join(choices)}"


def _stored(info: ValidationInfo) -> bool:
    """Loaded as the API server stores it (a manifest, or its rebuild): the object is kept, the refusals recorded."""
    from .pod import is_stored  # (pod.py imports the generated classes, which import this module)

    return is_stored(info)


def _operator_refusal(operator: str | None) -> SpecError | None:
    if operator in (None, "", *TOLERATION_OPERATORS):
        return None
    return SpecError(f"toleration operator {operator!r} is not Equal or Exists: {POD_REFUSED}", field="operator", fix=_choice(str(operator), TOLERATION_OPERATORS))


def _effect_refusal(effect: str | None) -> SpecError | None:
    if effect in (None, "", *TAINT_EFFECTS):
        return None
    return SpecError(f"toleration effect {effect!r} is not NoSchedule, PreferNoSchedule or NoExecute: {POD_REFUSED}", field="effect", fix=_choice(str(effect), TAINT_EFFECTS))


def _fieldless(error: SpecError) -> SpecError:
    """A field validator's error: pydantic locates it at the field already."""
    return SpecError(error.message, fix=error.fix)


class TolerationChecks(KubeModel):
    """A toleration as ``validateTolerations`` (Kubernetes' Pod validation) takes it."""

    model_config = ConfigDict(defer_build=True, use_attribute_docstrings=False)

    _refusals: tuple[Problem, ...] = PrivateAttr(default=())

    # Field validators (each field's mistake is its own error, so one error lists both); the rest needs the others.
    @field_validator("operator", mode="after", check_fields=False)
    @classmethod
    def _known_operator(cls, operator: str | None, info: ValidationInfo) -> str | None:
        error = _operator_refusal(operator)
        if error is not None and not _stored(info):
            raise _fieldless(error)
        return operator

    @field_validator("effect", mode="after", check_fields=False)
    @classmethod
    def _known_effect(cls, effect: str | None, info: ValidationInfo) -> str | None:
        error = _effect_refusal(effect)
        if error is not None and not _stored(info):
            raise _fieldless(error)
        return effect

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> Self:
        # the fields are the generated class's (this base declares none)
        key, value, seconds = _field(self, "key"), _field(self, "value"), _field(self, "toleration_seconds")
        operator, effect = _field(self, "operator") or "", _field(self, "effect") or ""
        errors: list[SpecError] = []
        if not key and operator != "Exists":
            errors.append(SpecError(f"a toleration without a key must have operator Exists (it then tolerates every taint): {POD_REFUSED}", field="operator", fix="set operator='Exists', or give the taint's key"))
        if operator == "Exists" and value:
            errors.append(SpecError(f"a toleration with operator Exists must have no value (got {value!r}): {POD_REFUSED}", field="value", fix="remove value, or use operator='Equal'"))
        if seconds is not None and effect != "NoExecute":
            errors.append(SpecError(
                f"tolerationSeconds needs effect NoExecute (got {effect or 'every effect'!r}): {POD_REFUSED}",
                field="tolerationSeconds",
                fix="set effect='NoExecute', or remove tolerationSeconds",
            ))
        if not _stored(info):
            if errors:
                raise errors[0]
            return self
        enums = [e for e in (_operator_refusal(operator), _effect_refusal(effect)) if e is not None]
        named = {e.field for e in enums}  # an unknown operator is said once, not also as "without a key"
        self._refusals = tuple(
            Problem(e.field or "", e.message, "invalid_value", fix=e.fix)
            for e in [*enums, *(e for e in errors if e.field not in named)]
        )
        if self._refusals:
            with _RECORDING:  # (so the count only grows: a thread's stale write must not take it back)
                _RECORDED[0] += 1
        return self


#: How many tolerations recorded refusals in this process (any thread): what :func:`pod_refusals` reports is
#: recorded only while a manifest is validated, so a count unchanged across a manifest's validation says the walk
#: would find nothing (another thread's count only makes the caller walk for nothing).
_RECORDED = [0]
_RECORDING = threading.Lock()


def refusals_recorded() -> int:
    """The count of tolerations that recorded refusals so far: read it before and after loading a manifest."""
    return _RECORDED[0]


def pod_refusals(value: Any, path: str = "") -> list[Problem]:
    """What the API server refuses in the Pods made from the templates in ``value`` (a model loaded from a manifest,
    which keeps such an object as the API server does), each with its CRD path under ``path``."""
    found: list[Problem] = []
    if isinstance(value, TolerationChecks):
        found += [replace(p, path=f"{path}.{p.path}".lstrip(".")) for p in value._refusals]
    if isinstance(value, KubeModel):
        # Only the fields whose type may hold a toleration: every check of the rule catalogue asks this of its
        # manifest, and walking every string of a whole pod template was an eighth of the check.
        set_fields = value.model_fields_set
        for name, alias in _holding_fields(type(value)):
            if name in set_fields:
                found += pod_refusals(getattr(value, name), f"{path}.{alias}".lstrip("."))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if type(item) not in _LEAVES:
                found += pod_refusals(item, f"{path}[{index}]")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if type(item) not in _LEAVES:
                found += pod_refusals(item, f"{path}[{str(key)!r}]")
    return found


#: Values that hold nothing :func:`pod_refusals` reports (no call for them).
_LEAVES = frozenset({str, int, float, bool, type(None)})

#: Each model class's fields (name, CRD name) whose type may hold a :class:`TolerationChecks`, in declaration order.
#: Keyed by class: as many entries as model classes.
_HOLDING: dict[type[KubeModel], tuple[tuple[str, str], ...]] = {}


def _holding_fields(cls: type[KubeModel]) -> tuple[tuple[str, str], ...]:
    kept = _HOLDING.get(cls)
    if kept is None:
        kept = _HOLDING[cls] = tuple(
            (name, info.alias or name)
            for name, info in cls.model_fields.items()
            if _may_hold(info.annotation, set())
        )
    return kept


def _may_hold(annotation: Any, seen: set[type[Any]]) -> bool:
    """A value of type ``annotation`` may hold a :class:`TolerationChecks` (at any depth). Unsure (``Any``, a
    forward reference, a class that is no model and no plain value): yes, so it is walked as before."""
    if annotation in _LEAVES or annotation is None:
        return False
    origin = get_origin(annotation)
    if origin is Literal:
        return False
    if origin is Annotated:
        return _may_hold(get_args(annotation)[0], seen)
    args = get_args(annotation)
    if origin is not None and args:  # list[X], dict[K, V], X | None, Union[...]
        return any(_may_hold(arg, seen) for arg in args if arg is not Ellipsis)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if issubclass(annotation, TolerationChecks):
            return True
        if annotation in seen:  # a cycle: what it holds is being asked already
            return False
        seen.add(annotation)
        return any(_may_hold(info.annotation, seen) for info in annotation.model_fields.values())
    return True
