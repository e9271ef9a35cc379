"""The CrossGuard policies, generated from the pulumi-kuberay rule catalogue (one policy per rule).

Needs the ``policy`` extra (``pulumi-kuberay[policy]``, which adds pulumi-policy; docs/policy-pack.md). :func:`run` is
what the pack's ``__main__.py`` calls; see :mod:`pulumi_kuberay.policy` for how to point the engine at the pack.

Nothing here decides what is wrong: ``pulumi_kuberay.rules.check`` does, once per resource (cached), and each
policy reports the findings that carry its rule id (:class:`ResourceVerdicts`). The pack process answers all the
resource policies from that one run (:mod:`pulumi_kuberay.policy._servicer`). Settings come from the stack config
(``kuberay:*`` keys, visible to the pack through ``PULUMI_CONFIG``), overridable per policy in the policy config
file.
"""

from __future__ import annotations

import gc
import json
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyConfigSchema,
    PolicyPack,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.api import API_VERSION
from pulumi_kuberay.model import lower_camel
from pulumi_kuberay.operator.crds import crd_version_label
from pulumi_kuberay.operator.derive import (
    OPERATOR_OBJECT_RULES,
    OperatorSetup,
    is_operator_deployment,
    setup_from_deployment,
    setup_from_stack_config,
    target_for_operator,
)
from pulumi_kuberay.policy._decode_once import install_request_memo
from pulumi_kuberay.policy._layout import PACK_NAME
from pulumi_kuberay.policy._servicer import OneRunServicer, serve
from pulumi_kuberay.rules import ENVIRONMENTS, Finding, OrgOptions, Rule, enforcement_level
from pulumi_kuberay.rules import remediate as _remediate
from pulumi_kuberay.rules.target import Target, target_from_stack_config

RAY_TYPE_PREFIXES = ("kubernetes:ray.io/v1:", "kubernetes:ray.io/v1alpha1:")
#: Findings whose rule is not in the catalogue (e.g. an internal error) are reported by this policy.
FALLBACK_POLICY = "kuberay-other"

_SEVERITY = {
    "low": Severity.LOW,
    "medium": Severity.MEDIUM,
    "high": Severity.HIGH,
    "critical": Severity.CRITICAL,
}

CONFIG_SCHEMA = PolicyConfigSchema(
    properties={
        "kuberayVersion": {"type": "string", "description": "Target KubeRay operator version, e.g. 1.7.0"},
        "featureGates": {
            "type": "object",
            "additionalProperties": {"type": "boolean"},
            "description": "Operator feature gates over the version's defaults",
        },
        "environment": {"type": "string", "enum": list(ENVIRONMENTS)},
        **OrgOptions.json_schema(lower_camel),
    }
)


def is_ray_resource(resource_type: str) -> bool:
    return resource_type.startswith(RAY_TYPE_PREFIXES)


def plain(value: Any) -> Any:
    """Unwrap pulumi-policy's unknown-checking proxies into plain dicts and lists (unknowns stay sentinels)."""
    if isinstance(value, Mapping):
        target = value.get("__target", value)
        return {str(k): plain(target[k]) for k in target}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "_ListProxy":
        target = value["__target"] if type(value).__name__ == "_ListProxy" else value
        return [plain(v) for v in target]
    return value


@lru_cache(maxsize=8)
def _stack_target(raw: str) -> Target:
    """The stack's settings from the config the engine hands the pack process (``PULUMI_CONFIG``)."""
    try:
        config = json.loads(raw) if raw else {}
    except ValueError:
        config = {}
    config = config if isinstance(config, dict) else {}
    target = target_from_stack_config(config)
    # A stack that declares its operator (pulumi-kuberay:operator) is judged against it, as its components are.
    setup = setup_from_stack_config(config)
    return target_for_operator(target, setup) if setup is not None else target


def target_for(config: Mapping[str, Any] | None) -> Target:
    """Stack settings overridden by a policy's config; cached, since every policy asks for every resource."""
    return _target_for(json.dumps(config or {}, sort_keys=True), os.environ.get("PULUMI_CONFIG", ""))


@lru_cache(maxsize=64)
def _target_for(config_json: str, stack_config: str) -> Target:
    config = json.loads(config_json)
    return _stack_target(stack_config).override(
        kuberay_version=config.get("kuberayVersion"),
        feature_gates=config.get("featureGates"),
        environment=config.get("environment"),
        options=OrgOptions.parse(config, spell=lower_camel, where="policy config "),
    )


class _FindingsCache:
    """Runs the catalogue once per (resource, settings) and serves every policy from the result."""

    def __init__(self, size: int = 1024) -> None:
        self._size = size
        self._entries: OrderedDict[str, list[Finding]] = OrderedDict()
        self._last: tuple[Any, Target | None, list[Finding]] = (None, None, [])

    def findings(self, urn: str, props: Any, target: Target, *, is_plain: bool = False) -> list[Finding]:
        """``props``: pulumi-policy's proxy of the properties, or (``is_plain``) plain dicts and lists already."""
        last_props, last_target, last_result = self._last
        if props is last_props and target == last_target:
            return last_result  # the same decoded request, seen by the next policy (install_request_memo)
        manifest = props if is_plain else plain(props)
        key = json.dumps([urn, manifest, repr(target)], sort_keys=True, default=str)
        hit = self._entries.get(key)
        if hit is not None:
            self._entries.move_to_end(key)
            self._last = (props, target, hit)
            return hit
        result = rules.check(manifest, target.override(audience="pack"))
        self._entries[key] = result
        self._last = (props, target, result)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return result


CACHE = _FindingsCache()


def _message(finding: Finding) -> str:
    return f"[{finding.severity}] {finding.path}: {finding.message} (fix: {finding.fix})"


class ResourceVerdicts:
    """Every resource policy's violations from one catalogue run: ``(policy name, message)`` pairs, in the
    catalogue's order. A finding belongs to the policy named by its rule id, else to the fallback policy.

    Each resource policy reports its own pairs (:func:`_resource_validator`); our servicer
    (:mod:`pulumi_kuberay.policy._servicer`) asks once per resource and settings for all of them.
    """

    def __init__(self, known: frozenset[str]) -> None:
        self.known = known
        #: The resource policies whose verdicts these are.
        self.policies = known | {FALLBACK_POLICY}

    def __call__(self, urn: str, manifest: Any, config: Mapping[str, Any] | None) -> list[tuple[str, str]]:
        """The verdicts on ``manifest``: the properties as plain dicts and lists (unknowns as sentinels)."""
        return self._owned(CACHE.findings(urn, manifest, target_for(config), is_plain=True))

    def of_props(self, urn: str, props: Any, config: Mapping[str, Any] | None) -> list[tuple[str, str]]:
        """The verdicts on ``props`` as pulumi-policy hands them to a policy (its unknown-checking proxy)."""
        return self._owned(CACHE.findings(urn, props, target_for(config)))

    def _owned(self, findings: list[Finding]) -> list[tuple[str, str]]:
        known = self.known
        return [(f.rule_id if f.rule_id in known else FALLBACK_POLICY, _message(f)) for f in findings]


def _resource_validator(policy_name: str, verdicts: ResourceVerdicts) -> Callable[..., None]:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        if not is_ray_resource(args.resource_type):
            return
        for owner, message in verdicts.of_props(args.urn, args.props, args.get_config()):
            if owner == policy_name:
                report_violation(message, None)

    return validate


def _remediator(rule: Rule) -> Callable[[ResourceValidationArgs], Mapping[str, Any] | None] | None:
    fixer = _remediate.REMEDIATIONS.get(rule.id)
    if fixer is None:
        return None

    def remediate(args: ResourceValidationArgs) -> Mapping[str, Any] | None:
        if not is_ray_resource(args.resource_type):
            return None
        return fixer(plain(args.props))

    return remediate


def _stack_validator(rule: Rule) -> Callable[..., None]:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        target = target_for(args.get_config())
        ray = [r for r in args.resources if is_ray_resource(r.resource_type)]
        manifests = [plain(r.props) for r in ray]
        for item in rules.check_stack(manifests, target.override(audience="pack").context()):
            if item.finding.rule_id == rule.id:
                report_violation(_message(item.finding), ray[item.index].urn)

    return validate


# --------------------------------------------------------------------------------------------------
# The operator in the stack (any stack: the Deployment the kuberay-operator chart renders).

#: Stack policy judging the stack's Ray objects against the operator Deployment of the same stack.
OPERATOR_OBJECTS_POLICY = "operator-objects"


def operator_setups(resources: Any) -> list[tuple[str, OperatorSetup]]:
    """(urn, setup) of every KubeRay operator Deployment in the stack; CRD version from our CRD label."""
    crd_versions = {
        str(label)
        for r in resources
        if r.resource_type == "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
        and (label := crd_version_label(r.props)) is not None
    }
    crd_version = crd_versions.pop() if len(crd_versions) == 1 else None
    out: list[tuple[str, OperatorSetup]] = []
    for resource in resources:
        if resource.resource_type.startswith("kubernetes:apps/v1:Deployment"):
            props = plain(resource.props)
            if is_operator_deployment(props):
                out.append((resource.urn, setup_from_deployment(props, crd_version=crd_version)))
    return out


def _setup_validator(rule_id: str) -> Callable[..., None]:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        ctx = target_for(args.get_config()).context()
        for urn, setup in operator_setups(args.resources):
            for finding in rules.check_setup(setup, ctx):
                if finding.rule_id == rule_id:
                    report_violation(_message(finding), urn)

    return validate


def _operator_objects_validator(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Ray objects against the operator Deployment of the stack (unless the stack config declares the operator:
    then the resource policies already judge against it)."""
    target = target_for(args.get_config())
    if target.operator is not None:
        return
    setups = operator_setups(args.resources)
    if len(setups) != 1:
        return  # none (nothing to compare with) or several (which one runs which object is not known)
    operator_target = target_for_operator(target.override(audience="pack"), setups[0][1])
    for resource in args.resources:
        if not is_ray_resource(resource.resource_type):
            continue
        for finding in rules.check(plain(resource.props), operator_target):
            if finding.rule_id in OPERATOR_OBJECT_RULES:
                report_violation(_message(finding), resource.urn)


def _stack_policy(rule: Rule) -> StackValidationPolicy:
    """A stack rule judges the stack's Ray objects together; a setup rule the operator Deployments of the stack."""
    return StackValidationPolicy(
        name=rule.id,
        description=f"{rule.title}. {rule.rationale}",
        validate=_stack_validator(rule) if rule.scope == "stack" else _setup_validator(rule.id),
        config_schema=CONFIG_SCHEMA,
        severity=_SEVERITY[rule.severity],
        remediation_steps=rule.fix,
        tags=[rule.category],
    )


def _resource_policy(rule: Rule, verdicts: ResourceVerdicts) -> ResourceValidationPolicy:
    return ResourceValidationPolicy(
        name=rule.id,
        description=f"{rule.title}. {rule.rationale}",
        validate=_resource_validator(rule.id, verdicts),
        remediate=_remediator(rule),  # type: ignore[arg-type]  # a plain return value is allowed
        config_schema=CONFIG_SCHEMA,
        severity=_SEVERITY[rule.severity],
        remediation_steps=rule.fix,
        tags=[rule.category, *rule.operator_rules],
    )


def pack_rules() -> list[Rule]:
    """The rules the pack has a policy for: every scope but ``change`` (the components' resource hook and
    ``kuberay-lint --diff`` run those, where the old state is known) and ``preflight`` (they read the target
    cluster: the components at preview and ``kuberay-lint --cluster`` run those)."""
    return [rule for rule in rules.RULES.values() if rule.scope not in ("change", "preflight")]


def resource_verdicts() -> ResourceVerdicts:
    """The verdicts of the resource policies :func:`build_policies` makes (the catalogue's document rules)."""
    return ResourceVerdicts(frozenset(rule.id for rule in rules.RULES.values() if rule.scope == "document"))


def build_policies() -> list[Policy]:
    """One policy per catalogue rule (resource policies for the rules on each object, stack policies for the
    rules across the stack and on the operator), the fallback policy and the operator-objects policy. The change
    rules are not the pack's: it sees only the new inputs, never the old state a change rule compares with."""
    catalogue = pack_rules()
    verdicts = resource_verdicts()
    policies: list[Policy] = [
        _resource_policy(rule, verdicts) if rule.scope == "document" else _stack_policy(rule) for rule in catalogue
    ]
    policies.append(
        ResourceValidationPolicy(
            name=FALLBACK_POLICY,
            description="Findings of the pulumi-kuberay catalogue that no other policy owns (internal errors).",
            validate=_resource_validator(FALLBACK_POLICY, verdicts),
            config_schema=CONFIG_SCHEMA,
            severity=Severity.HIGH,
        )
    )
    policies.append(
        StackValidationPolicy(
            name=OPERATOR_OBJECTS_POLICY,
            description="Ray objects judged against the KubeRay operator Deployment of the same stack (watched namespaces, batch scheduler, feature gates, CRD version).",
            validate=_operator_objects_validator,
            config_schema=CONFIG_SCHEMA,
            severity=Severity.CRITICAL,
        )
    )
    return policies


def enforcement_for(severity: str, environment: str) -> EnforcementLevel:
    """Per-environment levels (``rules._enforcement``, shared with the admission policies): dev advisory; staging
    mandatory for critical; prod mandatory for high and critical."""
    return EnforcementLevel(enforcement_level(severity, environment))


def policy_config(environment: str) -> dict[str, Any]:
    """The policy config file for ``environment`` (written to stacks/policy.<env>.json by scripts/gen-policy-config)."""
    levels: dict[str, Any] = {}
    for rule in pack_rules():  # one policy per rule of the pack's scopes
        levels[rule.id] = enforcement_for(rule.severity, environment).value
    levels[FALLBACK_POLICY] = enforcement_for("high", environment).value
    levels[OPERATOR_OBJECTS_POLICY] = enforcement_for("critical", environment).value
    return dict(sorted(levels.items()))


PACK_DESCRIPTION = (
    "KubeRay (ray.io/v1) rules from the pulumi-kuberay catalogue; per-environment levels in a policy config file (stacks/policy.<env>.json in the repository)"
)


def run() -> None:
    """Assemble the PolicyPack and serve it to the engine (the pack directory's ``__main__.py`` calls this).

    The servicer is pulumi-policy's with our ``Analyze`` (:class:`OneRunServicer`): one catalogue run per resource
    for every policy; ``AnalyzeStack`` and ``Remediate`` stay pulumi-policy's, with the decoding memo."""
    install_request_memo()
    policies = build_policies()
    verdicts = resource_verdicts()
    rules.check({"apiVersion": API_VERSION, "kind": "RayCluster", "metadata": {"name": "warm-up"}, "spec": {}})
    # This process is the pack's alone: what is loaded by now (modules, the catalogue, the models' validators) lives
    # until it exits, so the garbage collector need not walk it again on every full collection (a 120-160 ms pause
    # about once per 900 calls before).
    gc.freeze()
    serve(
        lambda: PolicyPack(
            name=PACK_NAME,
            policies=policies,
            enforcement_level=EnforcementLevel.ADVISORY,
            description=PACK_DESCRIPTION,
        ),
        OneRunServicer.answering(verdicts, RAY_TYPE_PREFIXES),
    )
