"""The stack's settings: the ``pulumi-kuberay:*`` and ``kuberay:*`` config of a stack, as one pydantic model.

``__main__.py`` reads the raw config (:func:`read_config`) and validates it with :func:`load_settings`; every
problem becomes a :class:`StackConfigError` naming the config key and the path inside its value, e.g.::

    stack config is invalid:
      - pulumi-kuberay:clusters: shared.spec.workerGroupSpecs[0].minReplicas: expected an integer, got str '1'
      - pulumi-kuberay:namspace: unknown config key (did you mean 'pulumi-kuberay:namespace'?)

Keys (the CLI checks the top-level types declared in ``Pulumi.yaml``; this model checks what is inside):

``pulumi-kuberay:namespace`` (string, default ``ray``)
    namespace of every Ray resource unless an entry sets its own.
``pulumi-kuberay:render_dir`` (string)
    when set, the Kubernetes provider renders manifests into this directory instead of applying them
    (no cluster needed; the dev default).
``pulumi-kuberay:kubeconfig`` / ``pulumi-kuberay:kube_context`` (strings)
    the cluster to deploy to when not rendering (kubeconfig path or content; context name).
``pulumi-kuberay:clusters`` / ``jobs`` / ``services`` / ``cronjobs`` (objects)
    ``{name: entry}``: one RayCluster / RayJob / RayService / RayCronJob component per entry; ``spec`` is the
    typed spec (CRD camelCase names or the model's snake_case names; convenience fields such as ``image``,
    ``cpu``, ``memory``, ``gpu`` are accepted). A job entry may set ``cluster: <name of a clusters entry>``
    instead of an inline ``rayClusterSpec``.
``pulumi-kuberay:operator`` (object)
    the KubeRay operator this stack installs: one ``KubeRayOperator`` component named ``kuberay``, with the
    keys of ``pulumi_kuberay.operator.args.KubeRayOperatorArgs`` (``version``, ``chart``, ``namespace``, ``crds``,
    ``featureGates``, ``watchNamespaces``, ``batchScheduler``, ``values``...) plus ``createNamespace``
    (default true). Every Ray object of the stack then takes its rule target (version, feature gates) from
    it and is created after it, so ``kuberay:version`` / ``kuberay:featureGates`` are not needed (set, they
    must agree with it). ``chart`` and ``crdsDir`` may use environment variables (``${KUBERAY_REFERENCE_DIR}``);
    a relative path is relative to the project directory.
``kuberay:version`` (string, default ``1.7.0``), ``kuberay:environment`` (``dev`` | ``staging`` | ``prod``),
``kuberay:featureGates`` (object ``{gate: bool}``), ``kuberay:allowedRegistries``, ``kuberay:gpuBudget``,
``kuberay:podSecurityProfile`` (``privileged`` | ``baseline`` | ``restricted``), ``kuberay:kueueVersion`` (``"0.15"``)
    what the rule catalogue checks against, read by ``pulumi_kuberay.rules.target`` (the components and the policy
    pack read the same keys).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pulumi_kuberay.model import ManifestError, problems_from_validation_error
from pulumi_kuberay.model.cluster import RayClusterSpec
from pulumi_kuberay.model.cronjob import RayCronJobSpec
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.model.service import RayServiceSpec
from pulumi_kuberay.model.suggest import did_you_mean
from pulumi_kuberay.operator.args import KubeRayOperatorArgs
from pulumi_kuberay.operator.derive import TargetConflictError, merge_target, resolve_operator
from pulumi_kuberay.rules.target import STACK_CONFIG_KEYS as CONFIG_KEYS
from pulumi_kuberay.rules.target import Target, TargetError, target_from_stack_config
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

PROJECT = "pulumi-kuberay"
KUBERAY = "kuberay"
#: Namespaces whose every key must be known (other namespaces, e.g. ``kubernetes:``, belong to others).
OWNED_NAMESPACES = (PROJECT, KUBERAY)


class StackConfigError(ValueError):
    """The stack config does not fit :class:`StackSettings`; ``problems`` lists ``(config key, message)``."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        lines = ["stack config is invalid:"] + [f"  - {key}: {message}" for key, message in problems]
        super().__init__("\n".join(lines))


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    namespace: str | None = None
    """Overrides ``pulumi-kuberay:namespace`` for this resource."""
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None


class ClusterEntry(_Entry):
    spec: RayClusterSpec
    wait_for_ready: bool = True


class JobEntry(_Entry):
    spec: dict[str, Any]
    """A RayJob spec; validated as :class:`RayJobSpec` (with ``clusterSelector`` set from ``cluster``)."""
    cluster: str | None = None
    """Name of an entry of ``pulumi-kuberay:clusters`` to run on (sets ``clusterSelector``)."""
    wait_for_completion: bool = False
    timeout_seconds: int | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _spec_is_a_rayjob_spec(self) -> JobEntry:
        spec = dict(self.spec)
        if self.cluster is not None:
            if spec.get("rayClusterSpec") is not None or spec.get("ray_cluster_spec") is not None:
                raise ValueError("give either cluster or spec.rayClusterSpec, not both")
            spec["clusterSelector"] = {**(spec.get("clusterSelector") or {}), "ray.io/cluster": self.cluster}
        try:
            typed = RayJobSpec.model_validate(spec)
        except ValidationError as exc:
            problems = problems_from_validation_error(exc, RayJobSpec, prefix="spec")
            raise ValueError("; ".join(str(p) for p in problems)) from None
        if typed.missing_cluster_source():  # from Python the component's cluster= may supply it; not here
            raise ValueError("set cluster: <a clusters entry>, spec.rayClusterSpec or spec.clusterSelector")
        return self


class ServiceEntry(_Entry):
    spec: RayServiceSpec
    wait_for_ready: bool = True
    timeout_seconds: int | None = Field(default=None, gt=0)


class CronJobEntry(_Entry):
    spec: RayCronJobSpec


class OperatorEntry(BaseModel):
    """``pulumi-kuberay:operator``: the operator's args (validated by ``resolve_operator``) and whether the
    stack creates the operator's namespace."""

    model_config = ConfigDict(extra="forbid", strict=True, arbitrary_types_allowed=True)

    args: KubeRayOperatorArgs
    create_namespace: bool = True


class StackSettings(BaseModel):
    """``pulumi-kuberay:*`` plus the ``kuberay:*`` rule target."""

    model_config = ConfigDict(extra="forbid", strict=True, arbitrary_types_allowed=True)

    namespace: str = "ray"
    render_dir: str | None = None
    kubeconfig: str | None = None
    kube_context: str | None = None
    clusters: dict[str, ClusterEntry] = Field(default_factory=dict)
    jobs: dict[str, JobEntry] = Field(default_factory=dict)
    services: dict[str, ServiceEntry] = Field(default_factory=dict)
    cronjobs: dict[str, CronJobEntry] = Field(default_factory=dict)
    operator: OperatorEntry | None = None
    target: Target = Field(default_factory=Target)
    """``kuberay:*``: what the rule catalogue checks against (read by ``pulumi_kuberay.rules.target``, as the
    components and the policy pack read it)."""


_PROJECT_KEYS = [name for name in StackSettings.model_fields if name != "target"]
_OBJECT_KEYS = {"clusters", "jobs", "services", "cronjobs", "operator"}
#: The operator's path-valued args: environment variables expanded, relative to the project directory.
_OPERATOR_PATHS = ("chart", "crdsDir", "crds_dir")


def known_keys() -> list[str]:
    return [f"{PROJECT}:{key}" for key in _PROJECT_KEYS] + [f"{KUBERAY}:{key}" for key in CONFIG_KEYS]


def _parse_value(key: str, value: Any) -> Any:
    """Config values arrive as strings (objects as JSON text); structured values may already be parsed."""
    if key in _OBJECT_KEYS and isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise StackConfigError(
                [(key, f"expected an object, got text that is not JSON ({exc.msg})")]
            ) from None
    return value


# C901, PLR0912: one branch per config key family
def load_settings(config: Mapping[str, Any]) -> StackSettings:  # noqa: C901, PLR0912
    """Validate the stack config (full keys, e.g. ``pulumi-kuberay:clusters``) into :class:`StackSettings`."""
    problems: list[tuple[str, str]] = []
    project: dict[str, Any] = {}
    kuberay: dict[str, Any] = {}
    known = known_keys()
    for full_key, raw in config.items():
        namespace, _, key = full_key.partition(":")
        if namespace not in OWNED_NAMESPACES:
            continue
        if full_key not in known:
            guess = did_you_mean(full_key, known)
            hint = f" ({guess})" if guess else f" (known keys: {', '.join(known)})"
            problems.append((full_key, f"unknown config key{hint}"))
            continue
        try:
            value = _parse_value(key, raw)
        except StackConfigError as exc:
            problems.extend((full_key, message) for _, message in exc.problems)
            continue
        if value in ("", None) or (key == "operator" and value == {}):
            continue  # "" / {} mean "unset" (Pulumi.yaml declares optional keys with such defaults)
        if namespace == KUBERAY:
            kuberay[full_key] = value
        else:
            project[key] = value
    operator: OperatorEntry | None = None
    if "operator" in project:
        operator = _operator_entry(project.pop("operator"), kuberay, problems)
    target = Target()
    try:
        target = target_from_stack_config(kuberay)
    except TargetError as exc:
        # Name the offending key: the target is built from all kuberay:* keys at once.
        culprits: list[tuple[str, str]] = []
        for key, value in kuberay.items():
            try:
                target_from_stack_config({key: value})
            except TargetError as one:
                culprits.append((key, str(one)))
        problems.extend(culprits or [(f"{KUBERAY}:*", str(exc))])
    try:
        settings = StackSettings.model_validate({**project, "operator": operator, "target": target})
    except ValidationError as exc:
        problems.extend(_config_problems(exc))
    else:
        for name, job in settings.jobs.items():
            if job.cluster is not None and job.cluster not in settings.clusters:
                declared = ", ".join(sorted(settings.clusters)) or "none declared"
                fix = did_you_mean(job.cluster, settings.clusters) or (
                    f"name one of the clusters entries ({declared})"
                    if settings.clusters
                    else "declare it under pulumi-kuberay:clusters, or give the job spec.rayClusterSpec"
                )
                problems.append(
                    (
                        f"{PROJECT}:jobs",
                        f"{name}.cluster: no cluster {job.cluster!r} in clusters ({declared}) (fix: {fix})",
                    )
                )
    if problems:
        raise StackConfigError(problems)
    return settings


def _operator_entry(
    raw: Any, kuberay: Mapping[str, Any], problems: list[tuple[str, str]]
) -> OperatorEntry | None:
    """``pulumi-kuberay:operator`` resolved as the component will resolve it (same errors, at the config key),
    and checked against ``kuberay:version`` / ``kuberay:featureGates`` when those are set too."""
    key = f"{PROJECT}:operator"
    if not isinstance(raw, Mapping):
        problems.append((key, f"expected an object (the operator's args), got {type(raw).__name__}"))
        return None
    args = dict(raw)
    create_namespace = args.pop("createNamespace", args.pop("create_namespace", True))
    if not isinstance(create_namespace, bool):
        problems.append((key, f"createNamespace: expected true or false, got {create_namespace!r}"))
        return None
    for name in _OPERATOR_PATHS:
        if isinstance(args.get(name), str):
            args[name] = _project_path(args[name])
    chart = args.get("chart")
    if isinstance(chart, str) and "/" in chart and not Path(chart).is_dir():
        unset = " (an environment variable in it is not set)" if "$" in chart else ""
        problems.append(
            (
                key,
                f"chart: no chart directory at {chart}{unset} (point chart at a kuberay-operator chart directory, e.g. ${{KUBERAY_REFERENCE_DIR}}/kuberay/v1.7.0/helm/kuberay-operator with KUBERAY_REFERENCE_DIR set, or remove chart to install the official chart from its repository)",
            )
        )
        return None
    try:
        resolved = resolve_operator(args, subject=key)
    except ManifestError as exc:
        problems.extend((key, str(problem)) for problem in exc.problems)
        return None
    gates = kuberay.get(f"{KUBERAY}:featureGates")
    if isinstance(gates, str):
        try:
            gates = json.loads(gates)
        except json.JSONDecodeError:
            gates = None  # reported by the target
    version = kuberay.get(f"{KUBERAY}:version")
    config_gates = {k: v for k, v in gates.items() if isinstance(v, bool)} if isinstance(gates, Mapping) else None
    try:
        merge_target(
            resolved.setup,
            config_version=str(version) if version is not None else None,
            config_gates=config_gates,
        )
    except TargetConflictError as exc:
        problems.append((key, f"{exc} (fix: remove kuberay:version / kuberay:featureGates, or make them agree)"))
        return None
    return OperatorEntry(args=resolved.args, create_namespace=create_namespace)


def _project_path(value: str) -> str:
    """``value`` with environment variables expanded; a relative path is taken from the project directory."""
    expanded = os.path.expandvars(value)
    if "$" in expanded or "/" not in expanded or os.path.isabs(expanded):
        return expanded
    return str((Path(__file__).resolve().parent / expanded).resolve())


def _config_problems(exc: ValidationError) -> list[tuple[str, str]]:
    """One ``(config key, "path: message (fix)")`` per problem; paths inside specs use the CRD's names."""
    out: list[tuple[str, str]] = []
    for problem in problems_from_validation_error(exc, StackSettings):
        top, _, rest = problem.path.partition(".")
        key = f"{PROJECT}:{top}" if top else PROJECT
        text = f"{rest}: {problem.message}" if rest else problem.message
        out.append((key, text + (f" (fix: {problem.fix})" if problem.fix else "")))
    return out


def read_config() -> dict[str, Any]:
    """Every config value the program sees (full keys), from the Pulumi runtime."""
    from pulumi.runtime import config as runtime_config

    merged: dict[str, Any] = dict(runtime_config.get_config_env())
    merged.update(runtime_config.CONFIG.get())
    return merged


__all__ = [
    "ClusterEntry",
    "CronJobEntry",
    "JobEntry",
    "ManifestError",
    "OperatorEntry",
    "ServiceEntry",
    "StackConfigError",
    "StackSettings",
    "known_keys",
    "load_settings",
    "read_config",
]
