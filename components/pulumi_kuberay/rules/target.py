"""What the rules are checked against: target KubeRay version, operator feature gates, environment, organisation
options (:class:`OrgOptions`), the operator the objects run on (:class:`OperatorSetup`) and who reads the
findings. :class:`Target` is the only way to build the :class:`Context` a check sees.

One place for these settings: the stack config (keys below, namespace ``kuberay``) is read by the components
and by the policy pack alike; the pack's policy config and the lint command's flags may override them.

Stack config keys (``stacks/Pulumi.<env>.yaml``)::

    kuberay:version: LATEST_VERSION_TEXT                 # target operator version
    kuberay:environment: prod                # dev | staging | prod
    kuberay:featureGates: {RayCronJob: true} # over the version's defaults
    kuberay:allowedRegistries: [docker.io/rayproject]
    kuberay:gpuBudget: 16
    kuberay:podSecurityProfile: restricted   # the Pod Security profile the namespaces enforce (default: none)
    kuberay:kueueVersion: "0.14"             # the Kueue release the cluster runs (default: the newest)
    kuberay:webhooks: true                   # the operator runs its validating webhooks (default false)
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_kuberay.kuberay.api import LATEST_VERSION_TEXT
from pulumi_kuberay.model import lower_camel
from pulumi_kuberay.model.suggest import closest
from pulumi_kuberay.operator.setup import OperatorSetup
from pulumi_kuberay.rules._engine import (
    AUDIENCES,
    DEFAULT_FEATURE_GATES,
    ENVIRONMENTS,
    Audience,
    Context,
    Environment,
    default_feature_gates,
    format_version,
    parse_kuberay_version,
)
from pulumi_kuberay.rules._options import OrgOptions, TargetError

__all__ = [
    "CONFIG_NAMESPACE",
    "ENVIRONMENTS",
    "STACK_CONFIG_KEYS",
    "OrgOptions",
    "Target",
    "TargetError",
    "parse_feature_gates",
    "parse_version",
    "target_from_stack_config",
]

CONFIG_NAMESPACE = "kuberay"
#: The ``kuberay:*`` stack config keys, read by the components and the policy pack alike.
STACK_CONFIG_KEYS: tuple[str, ...] = ("version", "environment", "featureGates", *OrgOptions.keys(lower_camel), "webhooks")


def parse_version(text: str | tuple[int, ...]) -> tuple[int, int, int]:
    """``LATEST_VERSION_TEXT``, ``"v1.6"`` -> ``(1, 7, 0)``, ``(1, 6, 0)`` (the catalogue's parser, as a TargetError)."""
    try:
        return parse_kuberay_version(text)
    except ValueError as exc:
        raise TargetError(str(exc)) from exc


def parse_feature_gates(value: str | Mapping[str, Any] | None) -> dict[str, bool]:
    """``"A=true,B=false"`` or a mapping -> gate map over the defaults. Unknown gate names are errors."""
    if value is None or value == "":
        return {}
    items: list[tuple[str, Any]]
    if isinstance(value, str):
        items = []
        for part in value.split(","):
            name, sep, flag = part.partition("=")
            if not sep:
                raise TargetError(f"feature gate {part!r} must be written Name=true or Name=false")
            items.append((name.strip(), flag.strip()))
    else:
        items = list(value.items())
    gates: dict[str, bool] = {}
    for name, flag in items:
        if name not in DEFAULT_FEATURE_GATES:
            known = ", ".join(sorted(DEFAULT_FEATURE_GATES))
            guess = closest(str(name), DEFAULT_FEATURE_GATES)
            hint = f" (did you mean {guess!r}?)" if guess else ""
            raise TargetError(f"unknown KubeRay feature gate {name!r}{hint}; known gates: {known}")
        if isinstance(flag, bool):
            gates[name] = flag
        elif str(flag).lower() in ("true", "false"):
            gates[name] = str(flag).lower() == "true"
        else:
            raise TargetError(f"feature gate {name} must be true or false, got {flag!r}")
    return gates


def _closest(value: str, choices: tuple[str, ...]) -> str | None:
    """The choice ``value`` most likely meant (:func:`~pulumi_kuberay.model.suggest.closest` of the lower-cased
    text)."""
    return closest(value.strip().lower(), choices)


@dataclass(frozen=True)
class Target:
    """What to check against. ``feature_gates`` are laid over the defaults of the targeted version.

    ``audience`` says who reads the findings (``python`` components, ``cli`` lint on plain YAML, ``pack``):
    it picks the wording of gate hints and skips Pulumi-only rules for ``cli``.

    >>> Target("1.5.0").context().gate("RayJobDeletionPolicy")
    False
    >>> Target("1.5.0", {"RayJobDeletionPolicy": True}).context().gate("RayJobDeletionPolicy")
    True
    """

    kuberay_version: str = LATEST_VERSION_TEXT
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    environment: str | None = None
    #: The organisation's options; a mapping by field name is accepted and validated (:meth:`OrgOptions.strict`).
    options: OrgOptions = field(default_factory=OrgOptions)
    audience: Audience = "python"
    #: The operator runs its validating webhooks (``ENABLE_WEBHOOKS=true``, off by default).
    webhooks: bool = False
    #: The operator the objects run on (``target_for_operator`` sets it with its version and gates).
    operator: OperatorSetup | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.options, OrgOptions):
            object.__setattr__(self, "options", OrgOptions.strict(self.options))
        parse_version(self.kuberay_version)
        parse_feature_gates(self.feature_gates)
        _environment(self.environment)
        if self.audience not in AUDIENCES:
            raise TargetError(f"audience must be one of {', '.join(AUDIENCES)}, got {self.audience!r}")

    @property
    def version(self) -> tuple[int, int, int]:
        return parse_version(self.kuberay_version)

    def context(self) -> Context:
        """The Context every check sees: the targeted version's gate defaults with this target's gates on top."""
        version = self.version
        gates = {**default_feature_gates(version), **parse_feature_gates(self.feature_gates)}
        environment: Environment | None = self.environment  # type: ignore[assignment]  # checked above
        return Context(
            kuberay_version=version,
            feature_gates=gates,
            environment=environment,
            options=self.options,
            operator=self.operator,
            audience=self.audience,
            webhooks=self.webhooks,
        )

    @classmethod
    def of(
        cls,
        *,
        kuberay_version: str | tuple[int, ...] | None = None,
        feature_gates: Mapping[str, bool] | None = None,
        environment: str | None = None,
        options: Mapping[str, Any] | OrgOptions | None = None,
        audience: Audience = "python",
        webhooks: bool = False,
        operator: OperatorSetup | None = None,
    ) -> Target:
        """The keyword form used by ``rules.check(manifest, kuberay_version=..., ...)``."""
        version = LATEST_VERSION_TEXT if kuberay_version is None else kuberay_version
        if isinstance(version, tuple):
            version = format_version(parse_version(version))
        return cls(
            kuberay_version=version,
            feature_gates=dict(feature_gates or {}),
            environment=environment,
            options=OrgOptions.strict(options),
            audience=audience,
            webhooks=webhooks,
            operator=operator,
        )

    def override(self, **changes: Any) -> Target:
        """A copy with the non-None ``changes`` applied (used for policy config / CLI flags)."""
        version, environment, audience, webhooks = self.kuberay_version, self.environment, self.audience, self.webhooks
        gates, options, operator = dict(self.feature_gates), self.options, self.operator
        for key, val in changes.items():
            if val is None:
                continue
            if key == "feature_gates":
                gates.update(parse_feature_gates(val))
            elif key == "options":
                options = OrgOptions.strict(val).over(options)
            elif key == "operator":
                operator = val
            elif key == "kuberay_version":
                version = str(val)
            elif key == "environment":
                environment = str(val)
            elif key == "audience":
                audience = val
            elif key == "webhooks":
                webhooks = bool(val)
            else:
                raise TypeError(f"unknown target setting {key!r}")
        return Target(
            kuberay_version=version,
            feature_gates=gates,
            environment=environment,
            options=options,
            audience=audience,
            webhooks=webhooks,
            operator=operator,
        )


def _decode(value: Any) -> Any:
    """A config value as the engine passes it (a string) decoded as JSON; a number with a fraction stays text: no
    key takes one, and a version such as ``0.10`` must not become ``0.1``."""
    if isinstance(value, str):
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
        return value if isinstance(decoded, float) else decoded
    return value


def target_from_stack_config(config: Mapping[str, Any]) -> Target:
    """Read the ``kuberay:*`` keys of a stack config (values as strings, objects as JSON, like PULUMI_CONFIG)."""

    def get(key: str) -> Any:
        for candidate in (f"{CONFIG_NAMESPACE}:{key}", f"{CONFIG_NAMESPACE}:config:{key}"):
            if candidate in config:
                return _decode(config[candidate])
        return None

    bad: list[tuple[str, str]] = []  # (key, why): every value that cannot be used, each explained

    def checked(key: str, read: Callable[[Any], Any], value: Any) -> Any:
        try:
            return read(value)
        except TargetError as exc:
            bad.append((f"{CONFIG_NAMESPACE}:{key}", str(exc)))
            return None

    version = checked("version", _version, get("version"))
    environment = checked("environment", _environment, get("environment"))
    gates = checked("featureGates", _gates, get("featureGates"))
    options: dict[str, Any] = {}
    for name, key in zip(OrgOptions.keys(), OrgOptions.keys(lower_camel), strict=True):
        value = checked(key, functools.partial(_option, key), get(key))
        if value is not None:
            options[name] = getattr(value, name)
    webhooks = checked("webhooks", _webhooks, get("webhooks"))
    if bad:
        raise TargetError("; ".join(f"{key}: {why}" for key, why in bad), bad=tuple(bad))
    return Target(
        kuberay_version=str(version) if version is not None else LATEST_VERSION_TEXT,
        feature_gates=gates or {},
        environment=environment,
        options=OrgOptions(**options),
        webhooks=bool(webhooks),
    )


def _option(key: str, value: Any) -> OrgOptions:
    return OrgOptions.parse({key: value}, spell=lower_camel, where=f"{CONFIG_NAMESPACE}:")


def _version(value: Any) -> str | None:
    if value is None:
        return None
    parse_version(str(value))
    return str(value)


def _environment(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    if text not in ENVIRONMENTS:
        guess = _closest(text, ENVIRONMENTS)
        hint = f"; did you mean {guess!r}?" if guess else ""
        raise TargetError(f"environment must be one of {', '.join(ENVIRONMENTS)}, got {text!r}{hint}")
    return text


def _gates(value: Any) -> dict[str, bool]:
    if value is not None and not isinstance(value, (dict, str)):
        raise TargetError("kuberay:featureGates must be a mapping of gate name to true/false")
    return parse_feature_gates(value)


def _webhooks(value: Any) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise TargetError("kuberay:webhooks must be true or false")
    return None if value is None else bool(value)
