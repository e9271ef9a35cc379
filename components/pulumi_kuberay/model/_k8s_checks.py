"""What the API server refuses in the Kubernetes types the CRDs embed, on top of their schema: the bases
``tools/gen_k8s_models.py`` gives the generated classes of :mod:`._k8s` (``class Toleration(TolerationChecks)``).

The CRD stores a pod template as it is; the API server refuses each Pod KubeRay then creates from it
(``ValidatePodCreate``), an Event on the RayCluster and no Pod. These checks refuse such a template at once.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, field_validator, model_validator

from ._base import KubeModel, Self
from ._errors import SpecError
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


class TolerationChecks(KubeModel):
    """A toleration as ``validateTolerations`` (Kubernetes' Pod validation) takes it."""

    model_config = ConfigDict(defer_build=True, use_attribute_docstrings=False)

    # Field validators (each field's mistake is its own error, so one error lists both); the rest needs the others.
    @field_validator("operator", mode="after", check_fields=False)
    @classmethod
    def _known_operator(cls, operator: str | None) -> str | None:
        if operator not in (None, "", *TOLERATION_OPERATORS):
            raise SpecError(f"toleration operator {operator!r} is not Equal or Exists: {POD_REFUSED}", fix=_choice(operator, TOLERATION_OPERATORS))
        return operator

    @field_validator("effect", mode="after", check_fields=False)
    @classmethod
    def _known_effect(cls, effect: str | None) -> str | None:
        if effect not in (None, "", *TAINT_EFFECTS):
            raise SpecError(f"toleration effect {effect!r} is not NoSchedule, PreferNoSchedule or NoExecute: {POD_REFUSED}", fix=_choice(effect, TAINT_EFFECTS))
        return effect

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        # the fields are the generated class's (this base declares none)
        key, value, seconds = _field(self, "key"), _field(self, "value"), _field(self, "toleration_seconds")
        operator, effect = _field(self, "operator") or "", _field(self, "effect") or ""
        if not key and operator != "Exists":
            raise SpecError(f"a toleration without a key must have operator Exists (it then tolerates every taint): {POD_REFUSED}", field="operator", fix="set operator='Exists', or give the taint's key")
        if operator == "Exists" and value:
            raise SpecError(f"a toleration with operator Exists must have no value (got {value!r}): {POD_REFUSED}", field="value", fix="remove value, or use operator='Equal'")
        if seconds is not None and effect != "NoExecute":
            raise SpecError(f"tolerationSeconds needs effect NoExecute (got {effect or 'every effect'!r}): {POD_REFUSED}", field="tolerationSeconds", fix="set effect='NoExecute', or remove tolerationSeconds")
        return self
