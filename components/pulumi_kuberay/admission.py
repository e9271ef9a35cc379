"""The rule catalogue inside the API server: ValidatingAdmissionPolicies generated from the rules' CEL.

For teams that create Ray objects with kubectl, Argo CD or an SDK (no ``pulumi preview``, no policy pack): every
rule that declares its check in CEL (``declare(..., cel=Cel(...))``, :mod:`pulumi_kuberay.rules._cel`) becomes
validations of an ``admissionregistration.k8s.io/v1`` ValidatingAdmissionPolicy, bound per environment with the
actions of the policy pack's own mapping (:mod:`pulumi_kuberay.rules._enforcement`: a mandatory rule denies, an
advisory one warns; both audit). The rules bound alike share one policy (``kuberay-deny``, ``kuberay-warn``, or per
environment ``kuberay-dev-warn-staging-deny-prod-deny``...): a request evaluates the variables they share (the
cluster spec, its groups and pod templates, the head container) once per policy, not once per rule, and each
message still starts with its rule id. Nothing of ours runs in the cluster.

- ``admission_policies(environment)``: the policies and their bindings for one environment (bound in every
  namespace), or, with ``environment=None``, bindings for each environment matching the namespaces labelled
  ``pulumi-kuberay.io/environment=<env>``.
- ``coverage()``: every rule with why it is not in the API server (None when it is): ``docs/admission.md``.
- ``kuberay-lint --emit-admission-policies [--environment ENV]`` prints them; ``KubeRayOperator(...,
  admission_policies=True)`` installs them.

Each validation mirrors what ``rules.check`` adds around a rule: the suppression annotation
(``suppress.pulumi-kuberay.io/<rule id>`` with a reason) skips it, and a rule mirroring an operator check skips an
object whose ``spec.managedBy`` names another controller. On update a policy only judges a changed spec (the
operator's own metadata updates of an object created before the policy pass). The policies judge KubeRay v1.7.0
with its default feature gates. Plain Python: never imports pulumi.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pulumi_kuberay.kuberay.api import LATEST_VERSION, RAY_GROUP, format_version
from pulumi_kuberay.kuberay.api import PLURALS as API_PLURALS
from pulumi_kuberay.kuberay.kubernetes import MANAGED_BY_LABEL
from pulumi_kuberay.kuberay.names import KUBERAY_CONTROLLER
from pulumi_kuberay.rules import (
    ENVIRONMENTS,
    RULE_VARIABLES,
    RULES,
    SUPPRESS_PREFIX,
    Cel,
    Over,
    Rule,
    enforcement_level,
    ordered_rules,
    render_text,
)

#: Policy names: ``kuberay-<actions>`` (``policy_name``); bindings ``<policy name>-<environment>``.
POLICY_PREFIX = "kuberay-"
#: The namespace label that selects an environment's bindings (``environment=None``).
ENVIRONMENT_LABEL = "pulumi-kuberay.io/environment"
MANAGED_BY = {MANAGED_BY_LABEL: "pulumi-kuberay"}
#: The KubeRay version (and its default feature gates) the policies judge.
TARGET_VERSION = format_version(LATEST_VERSION)
PLURALS = API_PLURALS
_KUBERAY_CONTROLLER = KUBERAY_CONTROLLER

#: How a binding acts: ``enforce`` follows the pack's levels (mandatory: Deny, advisory: Warn), ``warn`` only
#: warns (a first rollout), ``audit`` only writes audit annotations.
Mode = Literal["enforce", "warn", "audit"]
MODES: tuple[Mode, ...] = ("enforce", "warn", "audit")
_ACTIONS = {"mandatory": ["Deny", "Audit"], "advisory": ["Warn", "Audit"]}

# --------------------------------------------------------------------------------------------------
# Why a rule is not in the API server: by what it needs, then rule by rule.

_SERVE_CONFIG = "CEL cannot parse the serveConfigV2 YAML string"
_SCHEMA = "the API server's CRD schema enforces it already (types, required fields, enums, formats; unknown fields are pruned, or refused with fieldValidation=Strict, kubectl's default)"
#: A policy runs after the CRD schema: what the v1.7.0 CRD refuses never reaches it (tests/cluster holds it).
_CRD_FIRST = "the v1.7.0 CRD refuses it before any admission policy runs"
_NEEDS_VERSION = "needs the target's KubeRay version (which fields and values each release's CRDs know)"
#: Rules not in the API server for a reason of their own (tests/test_admission.py holds every rule to a reason or a
#: CEL check, never both).
REASONS: Mapping[str, str] = {
    "manifest-malformed": _SCHEMA,
    "list-map-duplicate-key": _SCHEMA,
    "metadata-syntax-invalid": "the API server validates metadata (label and annotation syntax) itself",
    "metadata-namespace-invalid": "the API server validates the namespace itself",
    "suppression-reason-missing": "about the suppression annotations of the catalogue's other shells; a policy honours a suppression with a reason and ignores one without",
    "suppression-unknown-rule": "needs the list of rule ids (a policy knows only its own rule)",
    "field-newer-than-target": _NEEDS_VERSION,
    "field-required-by-target": _NEEDS_VERSION,
    "feature-gate-disabled": "needs the operator's feature gates",
    "cluster-upgrade-strategy-invalid": _CRD_FIRST + " (an enum of upgradeStrategy.type)",
    "rayjob-deletion-condition-invalid": _CRD_FIRST + " (a CEL rule of the deletion condition)",
    "rayjob-deletion-rule-ttl-negative": _CRD_FIRST + " (minimum 0 on ttlSeconds)",
    "rayjob-deletion-strategy-empty": _CRD_FIRST + " (a CEL rule of deletionStrategy)",
    "rayjob-deletion-strategy-mixed": _CRD_FIRST + " (a CEL rule of deletionStrategy)",
    "rayjob-legacy-deletion-incomplete": _CRD_FIRST + " (a CEL rule of deletionStrategy)",
    "rayjob-pre-running-deadline-not-positive": _CRD_FIRST + " (minimum 1 on preRunningDeadlineSeconds)",
    "rayservice-deletion-delay-negative": _CRD_FIRST + " (minimum 0 on rayClusterDeletionDelaySeconds)",
    "rayjob-deletion-strategy-gate-disabled": "needs the operator's feature gates (RayJobDeletionPolicy)",
    "raycronjob-schedule-invalid": "CEL has no cron parser (robfig/cron's ParseStandard)",
    "raycronjob-schedule-has-timezone": "CEL has no cron parser (robfig/cron's ParseStandard)",
    "raycronjob-timezone-invalid": "needs Go's time zone database",
    "raycronjob-timezone-empty": "the CRD schema (minLength) refuses an empty timeZone already",
    "rayjob-runtime-env-yaml-invalid": "CEL cannot parse the runtimeEnvYAML string",
    "rayservice-initializing-timeout-invalid": "Go's duration and integer parsing (time.ParseDuration, strconv.Atoi) differ from CEL's duration() at the edges",
    "kueue-rayjob-limits": "needs the Kueue version and option of the organisation",
    "kueue-rayjob-unmanaged": "needs the Kueue option of the organisation",
    "kuberay-field-deprecated": "needs the deprecation table of each KubeRay release",
    "serve-replica-infeasible": _SERVE_CONFIG,
    "serve-cluster-no-cpu": _SERVE_CONFIG,
    "rayjob-entrypoint-infeasible": "parses entrypointResources, a JSON string, and Kubernetes' CEL has no JSON decoder (the Ray resources of each group it compares them with come from quantities and rayStartParams)",
    "tpu-hosts-topology-mismatch": "compares numOfHosts with the topology's chips (AxBxC) divided by the google.com/tpu quantity of a Pod, an exact fraction (500m, 1.5): Kubernetes' CEL quantity library compares, adds and subtracts quantities but neither multiplies nor divides them",
}

#: Covered rules whose policy judges less than the Python check, and what it leaves to preview/CI.
PARTIAL: Mapping[str, str] = {
    "head-memory-too-small": "the policy applies the 2G floor; production's 8G advice (medium) depends on the target's environment, which a policy does not see",
}


def _reason_by_need(rule: Rule) -> str | None:
    """Why a rule cannot run in a policy, from what it needs (scope, gate, target settings), or None."""
    if rule.scope == "stack":
        return "needs the other objects of the stack (a policy sees one object)"
    if rule.scope == "setup":
        return "judges the operator's installation, not a Ray object"
    if rule.scope == "change":
        return "judges a change with the change plan (what KubeRay does with old -> new), run by the components' hook and kuberay-lint --diff"
    if rule.scope == "preflight":
        return "judges the object against the cluster it lands in (nodes, quotas, Kueue, the objects it names), read at preview and by kuberay-lint --cluster / --live"
    if rule.gate is not None:
        return f"applies only with the operator's {rule.gate} feature gate on, which a policy cannot see"
    if rule.pulumi_only:
        return "only meaningful for objects Pulumi manages"
    if "operator" in rule.context:
        return "needs the installed operator's setup (its version, watched namespaces, scheduler)"
    if "options" in rule.context:
        return "needs the organisation's options (rules.OrgOptions)"
    if "environment" in rule.context:
        return "its verdict depends on the target's environment"
    if rule.id.startswith("schema-"):
        return _SCHEMA
    if rule.module.startswith("serve_"):
        return _SERVE_CONFIG
    return None


@dataclass(frozen=True)
class Coverage:
    rule: Rule
    #: None: the rule runs in the API server; else why it only runs at preview/CI.
    reason: str | None


def coverage() -> list[Coverage]:
    """Every rule of the catalogue, in declaration order, with why it is not in the API server (None if it is)."""
    out: list[Coverage] = []
    for rule in RULES.values():
        if rule.cel is not None:
            out.append(Coverage(rule, None))
            continue
        reason = REASONS.get(rule.id) or _reason_by_need(rule) or "not expressed in CEL yet"
        out.append(Coverage(rule, reason))
    return out


def covered_rules() -> list[Rule]:
    return [rule for rule in RULES.values() if rule.cel is not None]


# --------------------------------------------------------------------------------------------------
# CEL scaffolding: the subjects a rule's expression is written over.


def cel_string(text: str) -> str:
    """``text`` as a CEL string literal (JSON's escapes are CEL's)."""
    return json.dumps(text)


def _has_chain(path: str) -> str:
    """``object.spec.a`` -> ``has(object.spec) && has(object.spec.a)``."""
    parts = path.split(".")
    return " && ".join(f"has({'.'.join(parts[: i + 1])})" for i in range(1, len(parts)))


def _kind_list(locations: Mapping[str, str]) -> str:
    """A 0/1-element list: the value at the kind's location (``[]`` for other kinds or when absent)."""
    expr = "[]"
    for kind, path in reversed(list(locations.items())):
        expr = f"object.kind == '{kind}' ? ({_has_chain(path)} ? [{path}] : []) : {expr}"
    return expr


_CLUSTER_LOCATIONS = {
    "RayCluster": "object.spec",
    "RayJob": "object.spec.rayClusterSpec",
    "RayService": "object.spec.rayClusterConfig",
    "RayCronJob": "object.spec.jobTemplate.rayClusterSpec",
}
_HEAD_CONTAINER_LIST = "variables.clusters[0].headGroupSpec.template.spec.containers"
_HEAD_CONTAINER_CHAIN = " && ".join(
    f"has(variables.clusters[0].{path})"
    for path in ("headGroupSpec", "headGroupSpec.template", "headGroupSpec.template.spec", "headGroupSpec.template.spec.containers")
)
_JOB_LOCATIONS = {"RayJob": "object.spec", "RayCronJob": "object.spec.jobTemplate"}

#: name -> (expression, the variables it reads), in dependency order.
_VARIABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    # The rule ids suppressed on the object with a reason (``suppress.pulumi-kuberay.io/<rule id>: <reason>``).
    "suppressed": (
        f"has(object.metadata.annotations) ? object.metadata.annotations.filter(k, k.startsWith({cel_string(SUPPRESS_PREFIX)}) && object.metadata.annotations[k].trim() != '').map(k, k.substring({len(SUPPRESS_PREFIX)})) : []",
        (),
    ),
    # spec.managedBy names another controller: KubeRay leaves the object alone, and so do the rules mirroring it.
    "foreignManaged": (
        f"object.kind in ['RayCluster', 'RayJob', 'RayService'] && has(object.spec) && has(object.spec.managedBy) && object.spec.managedBy != '{_KUBERAY_CONTROLLER}'",
        (),
    ),
    "clusters": (_kind_list(_CLUSTER_LOCATIONS), ()),
    "clusterPath": (
        "object.kind == 'RayCluster' ? 'spec' : object.kind == 'RayJob' ? 'spec.rayClusterSpec' : object.kind == 'RayService' ? 'spec.rayClusterConfig' : 'spec.jobTemplate.rayClusterSpec'",
        (),
    ),
    "workers": (
        "variables.clusters.size() > 0 && has(variables.clusters[0].workerGroupSpecs) ? variables.clusters[0].workerGroupSpecs : []",
        ("clusters",),
    ),
    "groups": (
        "(variables.clusters.size() > 0 && has(variables.clusters[0].headGroupSpec) ? [variables.clusters[0].headGroupSpec] : []) + variables.workers",
        ("clusters", "workers"),
    ),
    "jobs": (_kind_list(_JOB_LOCATIONS), ()),
    "jobPath": ("object.kind == 'RayCronJob' ? 'spec.jobTemplate' : 'spec'", ()),
    # The head group's Ray container (rules._cel.HEAD_CONTAINERS, HEAD_ENV, HEAD_PORTS): the c of an expression over
    # clusters is variables.clusters[0], the object's one cluster spec.
    "headContainers": (
        f"variables.clusters.size() > 0 && {_HEAD_CONTAINER_CHAIN} && size({_HEAD_CONTAINER_LIST}) > 0 ? [{_HEAD_CONTAINER_LIST}[0]] : []",
        ("clusters",),
    ),
    "headEnv": (
        "variables.headContainers.size() > 0 && has(variables.headContainers[0].env) ? variables.headContainers[0].env : []",
        ("clusters", "headContainers"),
    ),
    "headPorts": (
        "variables.headContainers.size() > 0 && has(variables.headContainers[0].ports) ? variables.headContainers[0].ports : []",
        ("clusters", "headContainers"),
    ),
    "templates": (
        "variables.groups.filter(g, has(g.template)).map(g, g.template) + variables.jobs.filter(j, has(j.submitterPodTemplate)).map(j, j.submitterPodTemplate)",
        ("clusters", "workers", "groups", "jobs"),
    ),
    # What the rules' shared parts read once per request (rules._cel.RULE_VARIABLES: the cluster's rayVersion as
    # the operator parses it, the job's valid deletion rules).
    **RULE_VARIABLES,
}

#: What each subject needs: (the variables, how the expression ``E`` is applied to every subject, the location
#: shown in the message as a CEL string expression and which subjects failed).
_SUBJECTS: dict[Over, tuple[tuple[str, ...], str, str]] = {
    "object": ((), "{E}", "''"),
    "cluster": (("clusters", "clusterPath"), "variables.clusters.all(c, {E})", "variables.clusterPath + '.'"),
    "worker": (
        ("clusters", "clusterPath", "workers"),
        "variables.workers.all(g, {E})",
        "variables.clusterPath + '.workerGroupSpecs[' + variables.workers.filter(g, !({E})).map(g, has(g.groupName) ? 'groupName=' + g.groupName : '?').join(', ') + '].'",
    ),
    "group": (
        ("clusters", "clusterPath", "workers", "groups"),
        "variables.groups.all(g, {E})",
        "variables.clusterPath + '.' + variables.groups.filter(g, !({E})).map(g, has(g.groupName) ? 'workerGroupSpecs[groupName=' + g.groupName + ']' : 'headGroupSpec').join(', ') + '.'",
    ),
    "job": (("jobs", "jobPath"), "variables.jobs.all(j, {E})", "variables.jobPath + '.'"),
    "template": (
        ("clusters", "clusterPath", "workers", "groups", "jobs", "jobPath", "templates"),
        "variables.templates.all(t, {E})",
        "(variables.groups.filter(g, has(g.template) && ![g.template].all(t, {E})).map(g, variables.clusterPath + (has(g.groupName) ? '.workerGroupSpecs[groupName=' + g.groupName + ']' : '.headGroupSpec') + '.template') + variables.jobs.filter(j, has(j.submitterPodTemplate) && ![j.submitterPodTemplate].all(t, {E})).map(j, variables.jobPath + '.submitterPodTemplate')).join(', ') + '.'",
    ),
    "container": (
        ("clusters", "workers", "groups", "jobs", "templates"),
        "variables.templates.all(t, !has(t.spec) || ((!has(t.spec.initContainers) || t.spec.initContainers.all(k, {E})) && (!has(t.spec.containers) || t.spec.containers.all(k, {E}))))",
        "'containers[name=' + variables.templates.filter(t, has(t.spec)).map(t, ((has(t.spec.initContainers) ? t.spec.initContainers : []) + (has(t.spec.containers) ? t.spec.containers : [])).filter(k, !({E})).map(k, has(k.name) ? k.name : '?').join(', ')).filter(n, n != '').join(', ') + '].'",
    ),
}


def _message(rule: Rule, part: Cel, location: str) -> str:
    message = part.message or (rule.cel.message if rule.cel and rule.cel.message else rule.title)
    where = f" at {location}{part.path}" if (location or part.path) else ""
    return f"{rule.id} ({rule.severity}): {message}{where}. Fix: {render_text(rule.fix, 'docs')}"


def _static_location(over: Over) -> str:
    return {
        "object": "",
        "cluster": "<cluster spec>.",
        "worker": "<cluster spec>.workerGroupSpecs[].",
        "group": "<cluster spec>.<group>.",
        "job": "<job spec>.",
        "template": "<pod template>.",
        "container": "<container>.",
    }[over]


def _validation(rule: Rule, part: Cel, guards: list[str]) -> dict[str, Any]:
    """One part of a rule's check, behind the guards that skip it (suppressed, managed elsewhere, another kind)."""
    _, wrap, location = _SUBJECTS[part.over]
    expression = wrap.replace("{E}", part.expression)
    if guards:
        expression = " || ".join([*guards, f"({expression})"])
    message = _message(rule, part, _static_location(part.over))
    head, _, fix = message.partition(f" at {_static_location(part.over)}{part.path}")
    validation: dict[str, Any] = {"expression": expression, "message": message, "reason": "Invalid"}
    if part.over != "object" and head != message:
        located = f"{cel_string(head + ' at ')} + {location.replace('{E}', part.expression)} + {cel_string(part.path + fix)}"
        if guards and "{E}" in location:
            # The API server evaluates every messageExpression on every request, passing or not (the validator's
            # messageFilter runs them all): a located message re-runs the check over each subject, so the guards
            # that make the validation pass (suppressed, managed elsewhere, another kind) skip it here too.
            located = f"({' || '.join(guards)}) ? '' : {located}"
        validation["messageExpression"] = located
    return validation


_VARIABLE_USE = re.compile(r"variables\.([A-Za-z]+)")


def _variables(rules: Iterable[Rule]) -> list[dict[str, str]]:
    """The variables the rules' subjects and expressions read, with those they read, in dependency order."""
    wanted: set[str] = set()
    for rule in rules:
        for part in rule.cel.parts() if rule.cel else ():
            wanted.update(_SUBJECTS[part.over][0])
            for name in _VARIABLE_USE.findall(part.expression):
                if name not in _VARIABLES:
                    raise ValueError(f"rule {rule.id!r}: its CEL reads variables.{name}, which is not one of {', '.join(_VARIABLES)}")
                wanted.update((name, *_VARIABLES[name][1]))
        if rule.operator_rules:
            wanted.add("foreignManaged")
        wanted.add("suppressed")
    return [{"name": name, "expression": expr} for name, (expr, _) in _VARIABLES.items() if name in wanted]


def _guards(rule: Rule, kinds: tuple[str, ...]) -> list[str]:
    """What skips a rule in a policy it shares, as ``rules.check`` skips it: its suppression annotation with a
    reason, ``spec.managedBy`` naming another controller (a rule mirroring an operator check), another kind."""
    guards = [f"{cel_string(rule.id)} in variables.suppressed"]
    if rule.operator_rules:
        guards.append("variables.foreignManaged")
    if set(kinds) - set(rule.kinds):
        guards.append(f"!(object.kind in [{', '.join(repr(kind) for kind in rule.kinds)}])")
    return guards


#: The one match condition of every policy: on update a policy only judges a changed spec.
_SPEC_CHANGED = {
    "name": "created-or-spec-changed",
    "expression": "request.operation != 'UPDATE' || !has(oldObject.spec) || !has(object.spec) || object.spec != oldObject.spec",
}
#: A policy's annotation listing its rules (comma-separated), in declaration order.
RULES_ANNOTATION = "pulumi-kuberay.io/rules"


def policy(name: str, rules: Iterable[Rule], *, failure_policy: str = "Ignore") -> dict[str, Any]:
    """One ValidatingAdmissionPolicy holding the checks of ``rules`` (each must declare ``cel``): the variables
    they share are evaluated once per request, each rule's parts are its validations, each message names the rule."""
    members = list(rules)
    for rule in members:
        if rule.cel is None:
            raise ValueError(f"rule {rule.id!r} declares no CEL check")
    kinds = tuple(kind for kind in PLURALS if any(kind in rule.kinds for rule in members))
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {
            "name": name,
            "labels": dict(MANAGED_BY),
            "annotations": {
                "pulumi-kuberay.io/kuberay-version": TARGET_VERSION,
                RULES_ANNOTATION: ",".join(rule.id for rule in members),
            },
        },
        "spec": {
            "failurePolicy": failure_policy,
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": [RAY_GROUP],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": [PLURALS[kind] for kind in kinds],
                    }
                ]
            },
            "matchConditions": [dict(_SPEC_CHANGED)],
            "variables": _variables(members),
            "validations": [
                _validation(rule, part, _guards(rule, kinds))
                for rule in members
                for part in (rule.cel.parts() if rule.cel else ())
            ],
        },
    }


def actions(rule: Rule, environment: str, mode: Mode = "enforce", levels: Mapping[str, Any] | None = None) -> list[str]:
    """The binding's validationActions for ``rule`` in ``environment`` ([] = not bound: the level is disabled).

    ``levels``: a policy pack config (``stacks/policy.<env>.json``: rule id -> level, or ``{"enforcementLevel":
    ...}``) overriding the pack's default level of a rule, as the pack itself reads it."""
    level: Any = enforcement_level(rule.severity, environment)
    if levels is not None and rule.id in levels:
        given = levels[rule.id]
        level = given.get("enforcementLevel", level) if isinstance(given, Mapping) else given
    if level == "disabled":
        return []
    if mode == "audit":
        return ["Audit"]
    if mode == "warn":
        return ["Warn", "Audit"]
    return list(_ACTIONS["mandatory" if level in ("mandatory", "remediate") else "advisory"])


def binding(policy_name: str, environment: str, validation_actions: list[str], *, selector: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {"policyName": policy_name, "validationActions": validation_actions}
    if selector:
        spec["matchResources"] = {"namespaceSelector": {"matchLabels": {ENVIRONMENT_LABEL: environment}}}
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {
            "name": f"{policy_name}-{environment}",
            "labels": {**MANAGED_BY, ENVIRONMENT_LABEL: environment},
        },
        "spec": spec,
    }


#: A binding's actions in one word (a policy's name says how each environment binds it).
_ACTION_WORDS = {("Deny", "Audit"): "deny", ("Warn", "Audit"): "warn", ("Audit",): "audit", (): "off"}


def policy_name(environments: tuple[str, ...], bound: tuple[tuple[str, ...], ...], *, selector: bool) -> str:
    """``kuberay-deny`` (one environment), or ``kuberay-dev-warn-staging-deny-prod-deny`` (one binding per
    environment): the rules bound alike share a policy."""
    words = [_ACTION_WORDS[acts] for acts in bound]
    if not selector:
        return POLICY_PREFIX + words[0]
    return POLICY_PREFIX + "-".join(f"{env}-{word}" for env, word in zip(environments, words, strict=True))


def admission_policies(
    environment: str | None = None,
    *,
    mode: Mode = "enforce",
    levels: Mapping[str, Any] | None = None,
    failure_policy: str = "Ignore",
    rule_ids: Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """The policies and bindings: for ``environment`` in every namespace, or (None) for each environment on the
    namespaces labelled ``pulumi-kuberay.io/environment=<env>``. The rules bound alike (the same actions in each
    environment) share one policy, so a request evaluates each shared variable (the cluster specs, groups, pod
    templates) once per policy, not once per rule. ``failure_policy``: ``Ignore`` (default: an evaluation error, a
    bug of ours, never blocks a workload) or ``Fail``."""
    if environment is not None and environment not in ENVIRONMENTS:
        raise ValueError(f"environment must be one of {', '.join(ENVIRONMENTS)}, got {environment!r}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    wanted = set(rule_ids) if rule_ids is not None else None
    environments = (environment,) if environment is not None else ENVIRONMENTS
    groups: dict[tuple[tuple[str, ...], ...], list[Rule]] = {}
    for rule in covered_rules():
        if wanted is not None and rule.id not in wanted:
            continue
        bound = tuple(tuple(actions(rule, env, mode, levels)) for env in environments)
        if any(bound):
            groups.setdefault(bound, []).append(rule)
    docs: list[dict[str, Any]] = []
    for bound, members in sorted(groups.items(), key=lambda item: [_ORDER[acts] for acts in item[0]]):
        name = policy_name(environments, bound, selector=environment is None)
        docs.append(policy(name, members, failure_policy=failure_policy))
        docs.extend(
            binding(name, env, list(acts), selector=environment is None)
            for env, acts in zip(environments, bound, strict=True)
            if acts
        )
    return docs


#: Policies in the order of their strictness (Deny first).
_ORDER = {acts: i for i, acts in enumerate(_ACTION_WORDS)}


def policy_rules(doc: Mapping[str, Any]) -> list[str]:
    """The rule ids a generated policy holds (its ``pulumi-kuberay.io/rules`` annotation), [] for other documents."""
    if doc.get("kind") != "ValidatingAdmissionPolicy":
        return []
    listed = str(doc.get("metadata", {}).get("annotations", {}).get(RULES_ANNOTATION, ""))
    return [rule_id for rule_id in listed.split(",") if rule_id]


#: Where a refusal or warning names its rule: every message starts ``<rule id> (<severity>): ``.
RULE_IN_MESSAGE = re.compile(r"\b([a-z0-9]+(?:-[a-z0-9]+)+) \((?:low|medium|high|critical)\): ")


def to_yaml(docs: Iterable[Mapping[str, Any]]) -> str:
    """A multi-document YAML stream (what ``kubectl apply -f -`` reads)."""
    import yaml

    return "".join(
        "---\n" + yaml.safe_dump(dict(doc), sort_keys=False, width=1_000_000, allow_unicode=True) for doc in docs
    )


# --------------------------------------------------------------------------------------------------
# docs/admission.md


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_docs() -> str:
    """docs/admission.md: how to install the policies, and which rules run in the API server and which only at
    preview/CI, and why (``scripts/gen-admission-docs`` writes it; a test keeps it current)."""
    reasons = {item.rule.id: item.reason for item in coverage()}
    covered = [rule for rule in ordered_rules() if reasons[rule.id] is None]
    others = [rule for rule in ordered_rules() if reasons[rule.id] is not None]
    lines = [
        "# The catalogue in the API server: ValidatingAdmissionPolicies",
        "",
        "<!-- Generated by scripts/gen-admission-docs from the rule catalogue; do not edit. -->",
        "",
        "Ray objects created with kubectl, Argo CD or an SDK never meet `pulumi preview` or the policy pack. For them,",
        f"{len(covered)} of the catalogue's {len(reasons)} rules also run inside the Kubernetes API server as",
        "ValidatingAdmissionPolicies (`admissionregistration.k8s.io/v1`, Kubernetes 1.30 and later), generated from",
        "the CEL each rule declares next to its Python check: no webhook, no server of ours. The rules bound alike",
        "share one policy (`kuberay-deny` and `kuberay-warn` for one environment; per environment",
        "`kuberay-dev-warn-staging-deny-prod-deny` and its kin), so that a request evaluates what they read in common",
        "(the cluster spec, its groups and pod templates, the head container) once per policy; each refusal or",
        "warning starts with the rule id, and names the field path and the fix. The expressions use CEL's",
        "standard library, the strings extension and Kubernetes' regex (`find`) and quantity (`quantity()`, 1.28+)",
        "libraries, all in 1.30; not the semver library (1.33+): rayVersion is read as the operator reads it",
        "(ParseGeneric, Masterminds semver) with regular expressions.",
        "",
        "<!-- docs-test:admission -->",
        "```bash",
        "kuberay-lint --emit-admission-policies --environment prod | kubectl apply -f -   # every namespace, prod's actions",
        "kuberay-lint --emit-admission-policies | kubectl apply -f -   # per namespace label pulumi-kuberay.io/environment",
        "kuberay-lint --emit-admission-policies --admission-mode warn   # a first rollout: warn only",
        "```",
        "",
        "or `KubeRayOperator(..., admission_policies=True)` (`\"warn\"`, `\"audit\"`), which installs them after the",
        "CRDs, with the component's `environment`.",
        "",
        "**Actions** come from the policy pack's own mapping (one place: `rules/_enforcement.py`): a rule the pack",
        "makes mandatory in an environment is bound with `Deny` there, an advisory one with `Warn` (both with",
        "`Audit`): dev warns about everything, staging denies critical rules, prod denies high and critical ones.",
        "`--policy-config stacks/policy.<env>.json` takes the levels of a pack config file instead (`disabled`: no",
        "binding). Without `--environment`, each rule gets one binding per environment selecting the namespaces",
        "labelled `pulumi-kuberay.io/environment=<env>`.",
        "",
        "**As the other shells**: the annotation `suppress.pulumi-kuberay.io/<rule id>: <reason>` skips a rule on an",
        "object; a rule mirroring an operator check skips an object whose `spec.managedBy` names another controller;",
        "on update a policy only judges a changed spec.",
        f"The policies judge KubeRay {TARGET_VERSION} with its default feature gates; `failurePolicy: Ignore`, so an",
        "evaluation error never blocks a workload (the API server's CEL cost budget is per policy: an object so large",
        "that a policy's rules exhaust it is let through, not refused). `tests/cluster/test_admission_policies.py` holds the policies to",
        "the Python checks in a",
        "real kube-apiserver: every rule example, every upstream sample and generated cases.",
        "",
        f"## In the API server ({len(covered)} rules)",
        "",
        "| rule | severity | kinds | dev | staging | prod |",
        "|---|---|---|---|---|---|",
    ]
    for rule in covered:
        acts = ["/".join(actions(rule, env)) for env in ENVIRONMENTS]
        lines.append(f"| `{rule.id}` | {rule.severity} | {', '.join(rule.kinds)} | {' | '.join(acts)} |")
    if PARTIAL:
        lines += ["", "Partly: what these policies leave to preview/CI:", ""]
        lines += [f"- `{rule_id}`: {text}" for rule_id, text in PARTIAL.items()]
    lines += [
        "",
        f"## Only at preview, in the pack and in kuberay-lint ({len(others)} rules)",
        "",
        "| rule | severity | why not in the API server |",
        "|---|---|---|",
    ]
    lines += [f"| `{rule.id}` | {rule.severity} | {_cell(str(reasons[rule.id]))} |" for rule in others]
    return "\n".join(lines) + "\n"
