"""The KubeRay operator as the rules see it: version, effective feature gates, watched namespaces, setup.

Plain Python (no pulumi): the :class:`~pulumi_kuberay.resources.kuberay_operator.KubeRayOperator` component, the
Ray components (``operator=``), the policy pack (from the operator Deployment in the stack) and
``kuberay-lint --operator-values`` all derive one :class:`OperatorSetup` here, so "what does the installed
operator do" is computed in one place:

* :func:`resolve_operator` - typed args (:class:`~pulumi_kuberay.operator.args.KubeRayOperatorArgs`: version,
  chart, CRD handling, conveniences, chart values) -> the values sent to Helm and the :class:`OperatorSetup`;
* :func:`setup_from_values` - a chart values document (``--operator-values FILE``) -> setup;
* :func:`setup_from_deployment` - the rendered operator Deployment (container args) -> setup;
* :func:`merge_target` - the rule target from an operator, refusing a stack config that disagrees.

Example::

    from pulumi_kuberay.operator.args import KubeRayOperatorArgs
    from pulumi_kuberay.operator.derive import resolve_operator

    resolved = resolve_operator(KubeRayOperatorArgs(
        feature_gates={"RayCronJob": True}, watch_namespaces=["ray"], namespace="kuberay-system"))
    resolved.setup.feature_gates["RayCronJob"]   # True
    resolved.setup.watches("team-a")             # False
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from pulumi_kuberay.kuberay import parse_kuberay_version
from pulumi_kuberay.kuberay.kubernetes import APP_VERSION_LABEL, HELM_CHART_LABEL
from pulumi_kuberay.model import ManifestError, Problem, coalesce, problems_from_validation_error
from pulumi_kuberay.model.suggest import did_you_mean
from pulumi_kuberay.operator.args import CHART_NAME, DEFAULT_NAMESPACE, KubeRayOperatorArgs, operator_gate_defaults
from pulumi_kuberay.operator.setup import OperatorSetup
from pulumi_kuberay.operator.values import CHART_VERSION, FeatureGateValue, KubeRayOperatorValues
from pulumi_kuberay.rules.target import Target

Version = tuple[int, int, int]


# --------------------------------------------------------------------------------------------------
# Values -> setup.


def chart_defaults() -> dict[str, Any]:
    """The v1.7.0 chart's values.yaml, as the model's defaults (a test proves they are equal)."""
    return KubeRayOperatorValues().model_dump(by_alias=True, exclude_none=True)


def effective_values(values: KubeRayOperatorValues) -> dict[str, Any]:
    """What the chart templates see: the user's values coalesced over the chart's defaults."""
    return coalesce(defaults=chart_defaults(), values=values.chart_values())


def effective_gates(values_doc: Mapping[str, Any], version: Version, *, where: str = "featureGates") -> dict[str, bool]:
    """The operator's gates: its defaults at ``version`` with the chart's ``featureGates`` list over them.

    Raises :class:`ManifestError` for a gate that version does not know (the operator would not start).
    """
    gates = operator_gate_defaults(version)
    problems: list[Problem] = []
    for index, item in enumerate(values_doc.get("featureGates") or []):
        name = str(item.get("name")) if isinstance(item, Mapping) else ""
        if name not in gates:
            known = ", ".join(gates)
            problems.append(
                Problem(
                    path=f"{where}[{index}].name",
                    message=f"KubeRay {_fmt(version)} has no feature gate {name!r}; the operator would refuse to start",
                    kind="invalid_value",
                    fix=did_you_mean(name, gates) or f"use one of {known}",
                )
            )
            continue
        gates[name] = bool(item.get("enabled"))
    if problems:
        raise ManifestError(problems, subject="operator feature gates")
    return gates


def watched_namespaces(values_doc: Mapping[str, Any], release_namespace: str) -> tuple[str, ...] | None:
    """The chart's rule: ``watchNamespace`` if set, else the release namespace with ``singleNamespaceInstall``,
    else every namespace (None)."""
    listed = [str(n) for n in values_doc.get("watchNamespace") or []]
    if listed:
        return tuple(listed)
    if values_doc.get("singleNamespaceInstall"):
        return (release_namespace,)
    return None


def _image(values_doc: Mapping[str, Any]) -> str:
    image = values_doc.get("image") or {}
    return f"{image.get('repository', '')}:{image.get('tag', '')}"


def setup_from_values(
    values: KubeRayOperatorValues | Mapping[str, Any],
    *,
    version: str = CHART_VERSION,
    namespace: str = DEFAULT_NAMESPACE,
    crd_version: str | None = None,
    source: str = "operator values",
) -> OperatorSetup:
    """The setup of an operator installed from the chart with these values (a mapping is validated first)."""
    if not isinstance(values, KubeRayOperatorValues):
        values = validate_values(values, subject=source)
    doc = effective_values(values)
    parsed = parse_kuberay_version(version)
    if "feature_gates" not in values.model_fields_set and _fmt(parsed, patch=True) != CHART_VERSION:
        doc["featureGates"] = []  # another chart version's default list: its operator's own defaults
    scheduler = doc.get("batchScheduler") or {}
    return OperatorSetup(
        version=_fmt(parsed, patch=True),
        namespace=namespace,
        feature_gates=effective_gates(doc, parsed),
        watch_namespaces=watched_namespaces(doc, namespace),
        batch_scheduler="volcano" if scheduler.get("enabled") else str(scheduler.get("name") or ""),
        replicas=int(doc.get("replicas", 1)),
        leader_election=bool(doc.get("leaderElectionEnabled", True)),
        resource_limits=dict((doc.get("resources") or {}).get("limits") or {}),
        image=_image(doc),
        crd_version=crd_version if crd_version is not None else _fmt(parsed, patch=True),
        source=source,
    )


def validate_values(data: Mapping[str, Any], *, subject: str = "kuberay-operator values") -> KubeRayOperatorValues:
    try:
        # Wire context: a null is Helm's "drop this default" and must survive validation.
        return KubeRayOperatorValues.model_validate(dict(data), context={"pulumi_kuberay.wire": True})
    except ValidationError as exc:
        problems = problems_from_validation_error(exc, KubeRayOperatorValues)
        raise ManifestError([_as_chart_problem(p) for p in problems], subject=subject) from None


def _as_chart_problem(problem: Problem) -> Problem:
    if problem.kind != "unknown_field":
        return problem
    key = problem.path.rpartition(".")[2]
    message = f"unknown chart value {key!r} (Helm would silently ignore it)"
    return Problem(problem.path, message, problem.kind, problem.fix)


def load_values_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A chart values file (YAML mapping; empty file = no overrides)."""
    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ManifestError(
            [Problem("", f"expected a mapping of chart values, got {type(data).__name__}", "wrong_type")],
            subject=f"operator values file {os.fspath(path)}",
        )
    return data


# --------------------------------------------------------------------------------------------------
# Typed args -> values for Helm + setup.


@dataclass(frozen=True)
class ResolvedOperator:
    args: KubeRayOperatorArgs
    values: KubeRayOperatorValues
    """Chart values with the conveniences written in (``values.chart_values()`` goes to Helm)."""
    setup: OperatorSetup


def _convenience_updates(args: KubeRayOperatorArgs, version: Version) -> tuple[dict[str, Any], list[Problem]]:
    """The values the conveniences set, and a problem for each one the values also set differently."""
    values = args.values
    given = {KubeRayOperatorValues.model_fields[n].alias or n for n in values.model_fields_set}
    updates: dict[str, Any] = {}
    problems: list[Problem] = []

    def put(convenience: str, key: str, new: Any, current: Any) -> None:
        if key in given and current != new:
            problems.append(
                Problem(
                    path=convenience,
                    message=f"{convenience} and values.{key} are both set and disagree ({new!r} vs {current!r})",
                    kind="invalid_value",
                    fix=f"set it in one place: {convenience} or values.{key}",
                )
            )
        updates[key] = new

    if args.feature_gates is not None:
        wanted = args.feature_gates.as_map()
        unknown = [g for g in wanted if g not in operator_gate_defaults(version)]
        for gate in unknown:
            problems.append(
                Problem(
                    f"featureGates.{gate}",
                    f"KubeRay {_fmt(version)} has no feature gate {gate!r}; the operator would refuse to start",
                    "invalid_value",
                    f"remove it or choose a version that has it (known: {', '.join(operator_gate_defaults(version))})",
                )
            )
        base = {g.name: g.enabled for g in values.feature_gates}
        clash = {g: base[g] for g, v in wanted.items() if "featureGates" in given and g in base and base[g] != v}
        if clash:
            put("featureGates", "featureGates", {g: wanted[g] for g in clash}, clash)
        merged = {**operator_gate_defaults(version), **base, **wanted}
        updates["featureGates"] = [{"name": gate, "enabled": merged[gate]} for gate in operator_gate_defaults(version)]
    if args.watch_namespaces is not None:
        put("watchNamespaces", "watchNamespace", list(args.watch_namespaces), values.watch_namespace)
    if args.batch_scheduler is not None:
        current = values.batch_scheduler.name
        if "batchScheduler" in given and current and current != args.batch_scheduler:
            put("batchScheduler", "batchScheduler", args.batch_scheduler, current)
        updates["batchScheduler"] = {**values.batch_scheduler.to_dict(), "name": args.batch_scheduler}
    if args.resources is not None:
        new = args.resources.to_dict()
        old = values.resources.to_dict() if values.resources is not None else None
        put("resources", "resources", new, old)
        # Replace, not merge: the chart's default limits must not survive a resources convenience.
        updates["resources"] = {"limits": None, "requests": None, **new}
    if args.leader_election is not None:
        put("leaderElection", "leaderElectionEnabled", args.leader_election, values.leader_election_enabled)
    if args.metrics is not None:
        if "metrics" in given and values.metrics.enabled != args.metrics:
            put("metrics", "metrics", args.metrics, values.metrics.enabled)
        updates["metrics"] = {**values.metrics.to_dict(), "enabled": args.metrics}
    if args.replicas is not None:
        put("replicas", "replicas", args.replicas, values.replicas)
    return updates, problems


def resolve_operator(
    args: KubeRayOperatorArgs | Mapping[str, Any], *, subject: str = "KubeRayOperator"
) -> ResolvedOperator:
    """Validate ``args``, write the conveniences into the values, and derive the setup.

    Raises :class:`ManifestError` (paths relative to the args, e.g. ``values.image.tagg``) on any problem.
    """
    if not isinstance(args, KubeRayOperatorArgs):
        try:
            args = KubeRayOperatorArgs.model_validate(dict(args), context={"pulumi_kuberay.wire": True})
        except ValidationError as exc:
            problems = [
                _as_chart_problem(p) if p.path.startswith("values.") else p
                for p in problems_from_validation_error(exc, KubeRayOperatorArgs)
            ]
            raise ManifestError(problems, subject=subject) from None
    version = parse_kuberay_version(args.version)
    updates, problems = _convenience_updates(args, version)
    if problems:
        raise ManifestError(problems, subject=subject)
    values_doc = {**args.values.chart_values(), **updates}
    values = validate_values(values_doc, subject=subject)
    crd_version = args.installed_crds if args.crds == "leave" else _fmt(version, patch=True)
    try:
        setup = setup_from_values(
            values, version=args.version, namespace=args.namespace, crd_version=crd_version, source=subject
        )
    except ManifestError as exc:
        raise ManifestError(
            [Problem(f"values.{p.path}", p.message, p.kind, p.fix) for p in exc.problems], subject=subject
        ) from None
    # setup_from_values assumes CRDs at the chart's version; with crds: leave they are whatever is installed.
    return ResolvedOperator(args=args, values=values, setup=dataclasses.replace(setup, crd_version=crd_version))


# --------------------------------------------------------------------------------------------------
# The rendered operator Deployment -> setup (the policy pack and kuberay-lint see manifests, not values).


def is_operator_deployment(manifest: Any) -> bool:
    """A Deployment whose first container runs the KubeRay operator image."""
    if not isinstance(manifest, Mapping) or manifest.get("kind") != "Deployment":
        return False
    containers = (((manifest.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []
    return any(isinstance(c, Mapping) and "kuberay/operator" in str(c.get("image", "")) for c in containers)


def _flags(args: Sequence[Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    items = [str(a) for a in args]
    index = 0
    while index < len(items):
        item = items[index].lstrip("-")
        if "=" in item:
            key, _, value = item.partition("=")
        elif index + 1 < len(items) and not items[index + 1].startswith("-"):
            key, value = item, items[index + 1]
            index += 1
        else:
            key, value = item, "true"
        out[key] = value
        index += 1
    return out


def setup_from_deployment(manifest: Mapping[str, Any], *, crd_version: str | None = None) -> OperatorSetup:
    """The setup of the operator this Deployment runs (flags as rendered by the chart without
    ``configuration.enabled``; the version from the image tag, else the ``app.kubernetes.io/version`` label)."""
    meta = manifest.get("metadata") or {}
    spec = manifest.get("spec") or {}
    pod = (spec.get("template") or {}).get("spec") or {}
    container = next(c for c in pod.get("containers") or [] if "kuberay/operator" in str(c.get("image", "")))
    flags = _flags(container.get("args") or [])
    image = str(container.get("image", ""))
    labels = meta.get("labels") or {}
    # The chart's own version is in helm.sh/chart (kuberay-operator-1.7.0; the v1.7.0 chart sets no appVersion).
    chart_label = str(labels.get(HELM_CHART_LABEL, ""))
    label_version = (
        chart_label.removeprefix(f"{CHART_NAME}-")
        if chart_label.startswith(f"{CHART_NAME}-")
        else str(labels.get(APP_VERSION_LABEL, "")).lstrip("v")
    )
    tag = image.rpartition(":")[2].lstrip("v")
    try:
        version = parse_kuberay_version(label_version or tag)
    except ValueError:
        version = parse_kuberay_version(CHART_VERSION)
    gates = operator_gate_defaults(version)
    for part in filter(None, flags.get("feature-gates", "").split(",")):
        name, _, value = part.partition("=")
        gates[name.strip()] = value.strip().lower() == "true"
    watch = flags.get("watch-namespace")
    scheduler = flags.get("batch-scheduler", "")
    if flags.get("enable-batch-scheduler", "false").lower() == "true":
        scheduler = "volcano"
    replicas = spec.get("replicas")
    return OperatorSetup(
        version=_fmt(version, patch=True),
        namespace=str(meta.get("namespace") or "default"),
        feature_gates=gates,
        watch_namespaces=tuple(n for n in watch.split(",") if n) if watch else None,
        batch_scheduler=scheduler,
        replicas=int(replicas) if isinstance(replicas, (int, float)) else 1,
        leader_election=flags.get("enable-leader-election", "true").lower() == "true",
        resource_limits=dict((container.get("resources") or {}).get("limits") or {}),
        image=image,
        crd_version=crd_version,
        source=f"operator Deployment {meta.get('namespace', 'default')}/{meta.get('name', '?')}",
    )


# --------------------------------------------------------------------------------------------------
# The rule target from an operator.


class TargetConflictError(ValueError):
    """The stack config's ``kuberay:version`` / ``kuberay:featureGates`` disagree with the operator."""


def merge_target(
    setup: OperatorSetup,
    *,
    config_version: str | None,
    config_gates: Mapping[str, bool] | None,
) -> tuple[str, dict[str, bool]]:
    """The target (version, gates) a Ray object is checked against when it runs on ``setup``.

    ``config_*`` are what the stack config says (None: not set). Agreeing values are fine; a disagreement is
    an error naming both, because one of the two is wrong and the rules would judge against a guess.
    """
    problems: list[str] = []
    if config_version is not None:
        try:
            same = parse_kuberay_version(config_version) == parse_kuberay_version(setup.version)
        except ValueError:
            same = False
        if not same:
            problems.append(
                f"kuberay:version is {config_version!r} but {setup.source} installs KubeRay {setup.version}"
            )
    for gate, value in (config_gates or {}).items():
        actual = setup.feature_gates.get(gate)
        if actual is not None and actual != value:
            problems.append(
                f"kuberay:featureGates.{gate} is {str(value).lower()} but {setup.source} runs with {gate}={str(actual).lower()}"
            )
    if problems:
        raise TargetConflictError(
            "; ".join(problems)
            + " (fix: remove kuberay:version / kuberay:featureGates from the stack config, the operator is the one source, or make them agree)"
        )
    return setup.version, setup.rule_gates()


#: Per-object rules whose verdict depends on the operator (its setup, or the gates it runs with).
OPERATOR_OBJECT_RULES = (
    "operator-namespace-unwatched",
    "operator-batch-scheduler-disabled",
    "operator-crds-older-than-fields",
    "feature-gate-disabled",
)
#: Stack config key of the operator a stack of this project declares (read by the pack too).
STACK_CONFIG_KEY = "pulumi-kuberay:operator"


def target_for_operator(base: Target, setup: OperatorSetup) -> Target:
    """``base`` (environment, org options, audience) judged against ``setup``: its version, its gates, and the
    setup itself (``Target.operator``) for the operator rules."""
    return Target(
        kuberay_version=setup.version,
        feature_gates=setup.rule_gates(),
        environment=base.environment,
        options=base.options,
        audience=base.audience,
        webhooks=base.webhooks,
        operator=setup,
    )


def setup_from_stack_config(config: Mapping[str, Any]) -> OperatorSetup | None:
    """The operator a stack of this project declares (``pulumi-kuberay:operator``, JSON text or a mapping);
    None when it declares none or the entry does not resolve (``settings.py`` reports that at preview)."""
    raw = config.get(STACK_CONFIG_KEY)
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw else None
        except ValueError:
            return None
    if not isinstance(raw, Mapping) or not raw:
        return None
    args = {k: v for k, v in raw.items() if k not in ("createNamespace", "create_namespace")}
    try:
        return resolve_operator(args, subject=f"{STACK_CONFIG_KEY} (KubeRayOperator 'kuberay')").setup
    except (ManifestError, ValueError):
        return None


def looks_like_operator_values(doc: Any) -> bool:
    """A kuberay-operator chart values document (not a Kubernetes object): the operator image, or a
    ``featureGates`` list of ``{name, enabled}`` items (the chart's spelling)."""
    if not isinstance(doc, Mapping) or "kind" in doc or "apiVersion" in doc:
        return False
    image = doc.get("image")
    if isinstance(image, Mapping) and "kuberay/operator" in str(image.get("repository", "")):
        return True
    gates = doc.get("featureGates")
    return isinstance(gates, list) and bool(gates) and all(isinstance(g, Mapping) and "name" in g for g in gates)


def setup_for_lint(values: Mapping[str, Any], *, source: str, version: str | None = None) -> OperatorSetup:
    """``kuberay-lint --operator-values``: the operator those chart values install. The version is ``version``
    (``--kuberay-version``), else the image tag the values set, else the chart's (1.7.0)."""
    tag = str((values.get("image") or {}).get("tag") or "") if isinstance(values.get("image"), Mapping) else ""
    chosen = version or (tag.lstrip("v") if tag else CHART_VERSION)
    try:
        parse_kuberay_version(chosen)
    except ValueError:
        chosen = CHART_VERSION
    return setup_from_values(values, version=chosen, source=source)


def _fmt(version: Version, *, patch: bool = False) -> str:
    return f"{version[0]}.{version[1]}.{version[2]}" if patch else f"{version[0]}.{version[1]}"


__all__ = [
    "OPERATOR_OBJECT_RULES",
    "STACK_CONFIG_KEY",
    "FeatureGateValue",
    "OperatorSetup",
    "ResolvedOperator",
    "TargetConflictError",
    "chart_defaults",
    "effective_gates",
    "effective_values",
    "is_operator_deployment",
    "load_values_file",
    "looks_like_operator_values",
    "merge_target",
    "resolve_operator",
    "setup_for_lint",
    "setup_from_deployment",
    "setup_from_stack_config",
    "setup_from_values",
    "target_for_operator",
    "validate_values",
    "watched_namespaces",
]
