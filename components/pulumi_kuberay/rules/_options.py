"""Organisation options: the settings some rules read that are the organisation's, not KubeRay's (the registries
images may come from, the GPUs all clusters may claim, the Pod Security profile the namespaces enforce, the Kueue
release the cluster runs). One typed object, :class:`OrgOptions`, validated once by
:meth:`OrgOptions.parse` wherever the options come from: the stack config (``kuberay:gpuBudget``), the policy
pack's config (``gpuBudget``), ``.kuberay-lint.yaml`` (``gpu-budget``) and the lint flags (``--gpu-budget``).
Each source spells a key its own way, derived from the field name by ``model.lower_camel`` or :func:`kebab`, so the
spellings cannot drift apart. Plain Python.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from ..kuberay.kubernetes import POD_SECURITY_PROFILES, PodSecurityProfile
from ..model import lower_camel

#: The Pod Security Standards profiles, loosest first (a namespace's ``pod-security.kubernetes.io/enforce`` label).
_KUEUE_RELEASE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?$")


class TargetError(ValueError):
    """A target setting that cannot be used (bad version string, unknown gate, unknown environment...).

    ``bad``: each stack config key whose value cannot be used, with why (every one, not only the first)."""

    def __init__(self, message: str, *, bad: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.bad = bad


def kebab(name: str) -> str:
    """``gpu_budget`` -> ``gpu-budget`` (``.kuberay-lint.yaml`` keys; ``--gpu-budget`` flags)."""
    return name.replace("_", "-")


def _registries(value: Any, key: str, text_lists: bool) -> tuple[str, ...]:
    if isinstance(value, str) and text_lists:
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise TargetError(f"{key} must be a list of registry prefixes (e.g. [docker.io/rayproject]), got {value!r}")


def _budget(value: Any, key: str, text_lists: bool) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # the policy engine sends every number as a float
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TargetError(f"{key} must be a non-negative integer (GPUs), got {value!r}")
    return value


def _profile(value: Any, key: str, text_lists: bool) -> PodSecurityProfile:
    for profile in POD_SECURITY_PROFILES:
        if value == profile:
            return profile
    raise TargetError(f"{key} must be one of {', '.join(POD_SECURITY_PROFILES)} (the Pod Security profile your namespaces enforce), got {value!r}")


def _kueue_release(value: Any, key: str, text_lists: bool) -> tuple[int, int, int]:
    if isinstance(value, float):  # YAML reads an unquoted 0.10 as the number 0.1: the release is lost
        raise TargetError(f"{key} must be a Kueue release written as text, e.g. \"0.15\" or \"v0.15.2\" (quote it: YAML reads 0.10 as the number 0.1), got {value!r}")
    match = _KUEUE_RELEASE.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise TargetError(f"{key} must be a Kueue release such as 0.15 or v0.15.2, got {value!r}")
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


#: How each option is read from a source, by field name.
_PARSERS: dict[str, Callable[[Any, str, bool], Any]] = {
    "allowed_registries": _registries,
    "gpu_budget": _budget,
    "pod_security_profile": _profile,
    "kueue_version": _kueue_release,
}


@dataclass(frozen=True)
class OrgOptions:
    """The organisation's settings. A field left None turns the rule that reads it off (registries, budget) or
    leaves it its default (no Pod Security profile enforced, the newest Kueue release).

    >>> OrgOptions.parse({"gpuBudget": 16}, spell=lower_camel).gpu_budget
    16
    """

    allowed_registries: tuple[str, ...] | None = None
    """Image registry prefixes allowed (``image-registry-not-allowed``)."""
    gpu_budget: int | None = None
    """GPUs all clusters together may claim at maxReplicas (``gpu-budget-exceeded``)."""
    pod_security_profile: PodSecurityProfile | None = None
    """The Pod Security profile the namespaces enforce: ``pod-security-baseline`` / ``pod-security-restricted``
    are critical up to it (Pod Security admission rejects the Pods), advice beyond it. None: nothing enforced
    (Kubernetes enforces nothing on a namespace without the label)."""
    kueue_version: tuple[int, int, int] | None = None
    """The Kueue release the cluster runs (``"0.14"``, ``"v0.15.2"``; ``kueue-rayjob-limits`` follows it). None:
    the newest release."""

    @classmethod
    def parse(
        cls,
        raw: Mapping[str, Any] | OrgOptions | None,
        *,
        spell: Callable[[str], str] = str,
        where: str = "",
        text_lists: bool = False,
    ) -> OrgOptions:
        """The options among ``raw`` (keys spelled by ``spell``; other keys are left to the caller), validated:
        a TargetError names ``where`` and the key as that source spells it. ``text_lists``: a list may also be
        written ``a,b`` (the lint flags and config file)."""
        if raw is None:
            return cls()
        if isinstance(raw, OrgOptions):
            return raw
        values: dict[str, Any] = {}
        for name, parse in _PARSERS.items():
            key = spell(name)
            if raw.get(key) is not None:
                values[name] = parse(raw[key], f"{where}{key}", text_lists)
        return cls(**values)

    @classmethod
    def strict(cls, raw: Mapping[str, Any] | OrgOptions | None, *, where: str = "options") -> OrgOptions:
        """:meth:`parse` of a mapping holding only options, by their field names (``Target(options={...})``)."""
        if isinstance(raw, Mapping):
            unknown = sorted(set(raw) - set(cls.keys()))
            if unknown:
                raise TargetError(f"{where}: unknown option(s) {', '.join(unknown)}; known: {', '.join(cls.keys())}")
        return cls.parse(raw, where=f"{where}.")

    @classmethod
    def keys(cls, spell: Callable[[str], str] = str) -> tuple[str, ...]:
        """The option keys as a source spells them (``OrgOptions.keys(lower_camel)``: the stack config keys)."""
        return tuple(spell(f.name) for f in fields(cls))

    @classmethod
    def json_schema(cls, spell: Callable[[str], str] = lower_camel) -> dict[str, Any]:
        """The options as JSON-schema properties (the policy pack's config schema)."""
        return {
            spell("allowed_registries"): {"type": "array", "items": {"type": "string"}},
            spell("gpu_budget"): {"type": "integer", "minimum": 0},
            spell("pod_security_profile"): {"type": "string", "enum": list(POD_SECURITY_PROFILES)},
            spell("kueue_version"): {"type": "string", "pattern": _KUEUE_RELEASE.pattern},
        }

    def over(self, base: OrgOptions) -> OrgOptions:
        """``base`` with the options set here laid over it."""
        return replace(base, **{f.name: v for f in fields(self) if (v := getattr(self, f.name)) is not None})


__all__ = ["POD_SECURITY_PROFILES", "OrgOptions", "PodSecurityProfile", "TargetError", "kebab"]
