"""``deletionStrategy``: legacy onSuccess/onFailure and deletionRules (``validateDeletionStrategy``).

Every spec rule checks ``RayJob.spec`` and, for a RayCronJob, ``spec.jobTemplate`` (the operator runs the same
checks there, RCJ-06). Checks read raw manifest dicts and never raise; anything of an unexpected type is
skipped (the structural rules report wrong types).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.paths import as_dict, as_int

from ._cel import DELETION_RULES, VALID_DELETION_RULES, Cel, same_condition_rules, ttls_in_order
from ._engine import Context, Enforcer, Violation, declare
from ._examples import LEGACY_DELETION_OK, example_cluster_spec, example_job, selector_job, with_deletion_rules
from ._fixed import REMOVE, Patch, patch
from ._manifest_readers import (
    CLUSTER_DELETING_POLICIES,
    DELETION_ORDER,
    JobCheck,
    deletion_rules,
    deletion_strategy,
    has_cluster_selector,
    job_autoscaling_enabled,
    legacy_deletion_configured,
    legacy_deletion_policy,
    per_job_spec,
)

# ----------------------------------------------------------------------------------------------------
# RJ-06 .. RJ-24: deletionStrategy


def _deletion_rule(
    *,
    id: str,
    title: str,
    rows: tuple[str, ...],
    enforced_by: tuple[Enforcer, ...],
    rationale: str,
    fix: str,
    check: JobCheck,
    compliant: dict[str, Any],
    violating: dict[str, Any],
    violating_path: str,
    fixed: Patch,
    context: dict[str, Any] | None = None,
    cel: Cel | None = None,
) -> None:
    """A critical deletionStrategy rule: it checks a RayJob's spec and a RayCronJob's spec.jobTemplate, where the
    operator runs the same validation (RCJ-06)."""
    declare(
        id=id,
        title=title,
        severity="critical",
        category="correctness",
        kinds=("RayJob", "RayCronJob"),
        rows=(*rows, "RCJ-06"),
        enforced_by=enforced_by,
        rationale=rationale,
        fix=fix,
        check=per_job_spec(check),
        compliant=compliant,
        violating=violating,
        violating_path=violating_path,
        context=context,
        fixed=fixed,
        cel=cel,
    )


def _strategy_job(strategy: dict[str, Any], **spec_fields: Any) -> dict[str, Any]:
    """The example RayJob with ``strategy`` as its deletionStrategy and neither shutdownAfterJobFinishes nor
    ttlSecondsAfterFinished (unless ``spec_fields`` set them)."""
    fields: dict[str, Any] = {"shutdownAfterJobFinishes": None, "ttlSecondsAfterFinished": None, **spec_fields}
    return example_job(**fields, deletionStrategy=strategy)


def _rules_job(*rules: tuple[str, str, int], **spec_fields: Any) -> dict[str, Any]:
    """:func:`_strategy_job` with deletionRules given as (policy, jobStatus, ttlSeconds)."""
    return _strategy_job(with_deletion_rules(*rules), **spec_fields)



def _check_deletion_gate(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if deletion_strategy(spec) is not None and not ctx.gate("RayJobDeletionPolicy"):
        yield Violation(
            "deletionStrategy is set but the operator feature gate RayJobDeletionPolicy is off",
            f"{path}.deletionStrategy",
            fix="Enable the RayJobDeletionPolicy gate on the operator (default on since v1.6), or remove deletionStrategy and use shutdownAfterJobFinishes.",
        )


_deletion_rule(
    id="rayjob-deletion-strategy-gate-disabled",
    title="deletionStrategy while the RayJobDeletionPolicy gate is off",
    rows=("RJ-06",),
    enforced_by=("operator",),
    rationale="With the gate off the operator rejects any deletionStrategy.",
    fix="Enable RayJobDeletionPolicy on the operator or remove deletionStrategy.",
    check=_check_deletion_gate,
    compliant=example_job(shutdownAfterJobFinishes=True),
    violating=_rules_job(("DeleteCluster", "SUCCEEDED", 0)),
    violating_path="spec.deletionStrategy",
    context={"feature_gates": {"RayJobDeletionPolicy": False}},
    fixed=patch(
        {
            "spec.deletionStrategy": REMOVE,
            "spec.shutdownAfterJobFinishes": True,
            "spec.ttlSecondsAfterFinished": 60,
        }
    ),
)


def _check_rules_with_shutdown(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if deletion_rules(spec) and spec.get("shutdownAfterJobFinishes") is True:
        yield Violation(
            "shutdownAfterJobFinishes: true and deletionStrategy.deletionRules are mutually exclusive",
            f"{path}.shutdownAfterJobFinishes",
        )


_deletion_rule(
    id="rayjob-deletion-rules-with-shutdown",
    title="deletionRules together with shutdownAfterJobFinishes",
    rows=("RJ-07",),
    enforced_by=("operator",),
    rationale="deletionRules replace shutdownAfterJobFinishes; the operator rejects both together.",
    fix="Remove shutdownAfterJobFinishes (and ttlSecondsAfterFinished) and express the cleanup as deletionRules.",
    check=_check_rules_with_shutdown,
    compliant=_rules_job(("DeleteCluster", "SUCCEEDED", 60)),
    violating=_rules_job(("DeleteCluster", "SUCCEEDED", 60), shutdownAfterJobFinishes=True),
    violating_path="spec.shutdownAfterJobFinishes",
    fixed=patch({"spec.shutdownAfterJobFinishes": REMOVE}),
    cel=Cel(f"!(size({DELETION_RULES}) > 0 && (has(j.shutdownAfterJobFinishes) && j.shutdownAfterJobFinishes))", over="job", path="shutdownAfterJobFinishes"),
)


def _check_mixed_strategy(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    strategy = deletion_strategy(spec)
    if strategy is not None and deletion_rules(spec) and legacy_deletion_configured(strategy):
        yield Violation(
            "deletionStrategy mixes the legacy onSuccess/onFailure fields with deletionRules",
            f"{path}.deletionStrategy",
        )


_deletion_rule(
    id="rayjob-deletion-strategy-mixed",
    title="Legacy onSuccess/onFailure mixed with deletionRules",
    rows=("RJ-08", "CEL-04"),
    enforced_by=("api-server", "operator"),
    rationale="The CRD (CEL) and the operator reject deletionStrategy with both styles.",
    fix="Keep only deletionRules (the legacy onSuccess/onFailure fields are deprecated).",
    check=_check_mixed_strategy,
    compliant=_strategy_job(LEGACY_DELETION_OK),
    violating=_strategy_job({**LEGACY_DELETION_OK, **with_deletion_rules(("DeleteCluster", "SUCCEEDED", 0))}),
    violating_path="spec.deletionStrategy",
    fixed=patch({"spec.deletionStrategy.deletionRules": REMOVE}),
)


def _check_empty_strategy(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    strategy = deletion_strategy(spec)
    if strategy is not None and not deletion_rules(spec) and not legacy_deletion_configured(strategy):
        yield Violation(
            "deletionStrategy has neither deletionRules nor both onSuccess and onFailure",
            f"{path}.deletionStrategy",
        )


_deletion_rule(
    id="rayjob-deletion-strategy-empty",
    title="Empty deletionStrategy",
    rows=("RJ-09", "CEL-05"),
    enforced_by=("api-server", "operator"),
    rationale="An empty deletionStrategy is rejected (CEL and validateDeletionConfiguration).",
    fix="Add deletionRules (at least one), or remove deletionStrategy.",
    check=_check_empty_strategy,
    compliant=_rules_job(("DeleteCluster", "SUCCEEDED", 0)),
    violating=_strategy_job({}),
    violating_path="spec.deletionStrategy",
    fixed=patch(
        {
            "spec.deletionStrategy.deletionRules": [
                {"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED", "ttlSeconds": 0}}
            ],
        }
    ),
)


def _check_legacy_incomplete(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    strategy = deletion_strategy(spec)
    if strategy is None or deletion_rules(spec) or not legacy_deletion_configured(strategy):
        return
    for key in ("onSuccess", "onFailure"):
        if strategy.get(key) is None:
            yield Violation(
                f"legacy deletionStrategy sets only one of onSuccess/onFailure; {key} is missing",
                f"{path}.deletionStrategy.{key}",
            )


_deletion_rule(
    id="rayjob-legacy-deletion-incomplete",
    title="Legacy deletionStrategy with only one of onSuccess and onFailure",
    # the CRD's CEL rule (CEL-05) rejects it too, before the operator sees it
    rows=("RJ-10", "RJ-11", "CEL-05"),
    enforced_by=("api-server", "operator"),
    rationale="The legacy style needs both onSuccess and onFailure; the API server (CEL) and the operator reject a partial one.",
    fix="Migrate to deletionRules, or set both onSuccess.policy and onFailure.policy.",
    check=_check_legacy_incomplete,
    compliant=_strategy_job(LEGACY_DELETION_OK),
    violating=_strategy_job({"onSuccess": {"policy": "DeleteCluster"}}),
    violating_path="spec.deletionStrategy.onFailure",
    fixed=patch({"spec.deletionStrategy.onFailure": {"policy": "DeleteCluster"}}),
)


def _check_legacy_policy_missing(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    strategy = deletion_strategy(spec)
    if strategy is None or deletion_rules(spec) or not legacy_deletion_configured(strategy):
        return
    for key in ("onSuccess", "onFailure"):
        if strategy.get(key) is not None and as_dict(strategy.get(key)).get("policy") is None:
            yield Violation(f"deletionStrategy.{key}.policy is unset", f"{path}.deletionStrategy.{key}.policy")


_deletion_rule(
    id="rayjob-legacy-deletion-policy-missing",
    title="Legacy deletionStrategy onSuccess/onFailure without a policy",
    rows=("RJ-12",),
    enforced_by=("operator",),
    rationale="The CRD accepts onSuccess: {} (policy is optional there), but the operator needs a policy in both and rejects the spec (validateLegacyDeletionPolicies).",
    fix="Set onSuccess.policy and onFailure.policy, or migrate to deletionRules.",
    check=_check_legacy_policy_missing,
    compliant=_strategy_job(LEGACY_DELETION_OK),
    violating=_strategy_job({"onSuccess": {"policy": "DeleteCluster"}, "onFailure": {}}),
    violating_path="spec.deletionStrategy.onFailure.policy",
    fixed=patch({"spec.deletionStrategy.onFailure.policy": "DeleteCluster"}),
    cel=Cel(f"!has(j.deletionStrategy) || size({DELETION_RULES}) > 0 || !(has(j.deletionStrategy.onSuccess) || has(j.deletionStrategy.onFailure)) || ((!has(j.deletionStrategy.onSuccess) || has(j.deletionStrategy.onSuccess.policy)) && (!has(j.deletionStrategy.onFailure) || has(j.deletionStrategy.onFailure.policy)))", over="job", path="deletionStrategy.onSuccess/onFailure.policy"),
)


def _check_policy_with_selector(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if not has_cluster_selector(spec):
        return
    strategy = deletion_strategy(spec) or {}
    rules = deletion_rules(spec)
    if not rules:
        for key in ("onSuccess", "onFailure"):
            policy = legacy_deletion_policy(strategy, key)
            if policy in CLUSTER_DELETING_POLICIES:
                yield Violation(
                    f"deletionStrategy.{key}.policy {policy} is not supported with clusterSelector (the job does not own the cluster)",
                    f"{path}.deletionStrategy.{key}.policy",
                )
    for index, rule in enumerate(rules):
        policy = as_dict(rule).get("policy")
        if policy in CLUSTER_DELETING_POLICIES:
            yield Violation(
                f"deletionRules[{index}].policy {policy} is not supported with clusterSelector (the job does not own the cluster)",
                f"{path}.deletionStrategy.deletionRules[{index}].policy",
            )


_deletion_rule(
    id="rayjob-deletion-policy-with-cluster-selector",
    title="DeleteCluster/DeleteWorkers with clusterSelector",
    rows=("RJ-13", "RJ-14", "RJ-20"),
    enforced_by=("operator",),
    rationale="A RayJob that selects an existing RayCluster must not delete it or its workers; the operator rejects the spec.",
    fix="Use DeleteSelf or DeleteNone with clusterSelector, or give the job its own rayClusterSpec.",
    check=_check_policy_with_selector,
    compliant=selector_job(deletionStrategy=with_deletion_rules(("DeleteSelf", "SUCCEEDED", 300))),
    violating=selector_job(deletionStrategy=with_deletion_rules(("DeleteCluster", "SUCCEEDED", 300))),
    violating_path="spec.deletionStrategy.deletionRules[0].policy",
    fixed=patch({"spec.deletionStrategy.deletionRules[0].policy": "DeleteSelf"}),
    cel=Cel(f"!(has(j.clusterSelector) && size(j.clusterSelector) > 0) || ((size({DELETION_RULES}) > 0 || !has(j.deletionStrategy) || (!((has(j.deletionStrategy.onSuccess) && has(j.deletionStrategy.onSuccess.policy) ? j.deletionStrategy.onSuccess.policy : '') in ['DeleteCluster', 'DeleteWorkers']) && !((has(j.deletionStrategy.onFailure) && has(j.deletionStrategy.onFailure.policy) ? j.deletionStrategy.onFailure.policy : '') in ['DeleteCluster', 'DeleteWorkers']))) && {DELETION_RULES}.all(r, !has(r.policy) || !(r.policy in ['DeleteCluster', 'DeleteWorkers'])))", over="job", path="deletionStrategy"),
)


def _check_delete_workers_autoscaling(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if not job_autoscaling_enabled(spec):
        return
    strategy = deletion_strategy(spec) or {}
    rules = deletion_rules(spec)
    if not rules:
        for key in ("onSuccess", "onFailure"):
            if legacy_deletion_policy(strategy, key) == "DeleteWorkers":
                yield Violation(
                    f"deletionStrategy.{key}.policy DeleteWorkers is not supported with enableInTreeAutoscaling",
                    f"{path}.deletionStrategy.{key}.policy",
                )
    for index, rule in enumerate(rules):
        if as_dict(rule).get("policy") == "DeleteWorkers":
            yield Violation(
                f"deletionRules[{index}].policy DeleteWorkers is not supported with enableInTreeAutoscaling",
                f"{path}.deletionStrategy.deletionRules[{index}].policy",
            )


_deletion_rule(
    id="rayjob-delete-workers-with-autoscaling",
    title="DeleteWorkers with autoscaling",
    rows=("RJ-15", "RJ-21"),
    enforced_by=("operator",),
    rationale="DeleteWorkers suspends worker groups, which KubeRay forbids while the autoscaler owns them.",
    fix="Use DeleteCluster, or disable enableInTreeAutoscaling.",
    check=_check_delete_workers_autoscaling,
    compliant=_rules_job(("DeleteCluster", "SUCCEEDED", 60), rayClusterSpec=example_cluster_spec(autoscaling=True)),
    violating=_rules_job(("DeleteWorkers", "SUCCEEDED", 60), rayClusterSpec=example_cluster_spec(autoscaling=True)),
    violating_path="spec.deletionStrategy.deletionRules[0].policy",
    fixed=patch({"spec.deletionStrategy.deletionRules[0].policy": "DeleteCluster"}),
    cel=Cel(f"!(has(j.rayClusterSpec) && has(j.rayClusterSpec.enableInTreeAutoscaling) && j.rayClusterSpec.enableInTreeAutoscaling) || ((size({DELETION_RULES}) > 0 || !has(j.deletionStrategy) || ((has(j.deletionStrategy.onSuccess) && has(j.deletionStrategy.onSuccess.policy) ? j.deletionStrategy.onSuccess.policy : '') != 'DeleteWorkers' && (has(j.deletionStrategy.onFailure) && has(j.deletionStrategy.onFailure.policy) ? j.deletionStrategy.onFailure.policy : '') != 'DeleteWorkers')) && {DELETION_RULES}.all(r, !has(r.policy) || r.policy != 'DeleteWorkers'))", over="job", path="deletionStrategy"),
)


def _check_shutdown_delete_none(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    strategy = deletion_strategy(spec)
    if strategy is None or deletion_rules(spec) or spec.get("shutdownAfterJobFinishes") is not True:
        return
    for key in ("onSuccess", "onFailure"):
        if legacy_deletion_policy(strategy, key) == "DeleteNone":
            yield Violation(
                f"shutdownAfterJobFinishes: true conflicts with deletionStrategy.{key}.policy DeleteNone",
                f"{path}.deletionStrategy.{key}.policy",
            )


_deletion_rule(
    id="rayjob-shutdown-with-delete-none",
    title="shutdownAfterJobFinishes with a DeleteNone legacy policy",
    rows=("RJ-16",),
    enforced_by=("operator",),
    rationale="Shutdown asks for deletion while DeleteNone asks to keep everything; the operator rejects it.",
    fix="Drop shutdownAfterJobFinishes or use a deleting policy (better: migrate to deletionRules).",
    check=_check_shutdown_delete_none,
    compliant=example_job(ttlSecondsAfterFinished=None, deletionStrategy=LEGACY_DELETION_OK),
    violating=example_job(
        ttlSecondsAfterFinished=None,
        deletionStrategy={"onSuccess": {"policy": "DeleteCluster"}, "onFailure": {"policy": "DeleteNone"}},
    ),
    violating_path="spec.deletionStrategy.onFailure.policy",
    fixed=patch({"spec.deletionStrategy.onFailure.policy": "DeleteCluster"}),
    cel=Cel(f"!has(j.deletionStrategy) || size({DELETION_RULES}) > 0 || !(has(j.shutdownAfterJobFinishes) && j.shutdownAfterJobFinishes) || ((has(j.deletionStrategy.onSuccess) && has(j.deletionStrategy.onSuccess.policy) ? j.deletionStrategy.onSuccess.policy : '') != 'DeleteNone' && (has(j.deletionStrategy.onFailure) && has(j.deletionStrategy.onFailure.policy) ? j.deletionStrategy.onFailure.policy : '') != 'DeleteNone')", over="job", path="deletionStrategy"),
)


def _condition_value(rule: dict[str, Any]) -> tuple[str, str] | None:
    """('jobStatus'|'jobDeploymentStatus', value) of a well-formed rule condition, else None."""
    condition = as_dict(rule.get("condition"))
    job_status = condition.get("jobStatus")
    deployment_status = condition.get("jobDeploymentStatus")
    if job_status and deployment_status:
        return None
    if job_status:
        return "jobStatus", str(job_status)
    if deployment_status:
        return "jobDeploymentStatus", str(deployment_status)
    return None


def _check_condition(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    for index, rule in enumerate(deletion_rules(spec)):
        if not isinstance(rule, dict):
            continue
        condition = as_dict(rule.get("condition"))
        where = f"{path}.deletionStrategy.deletionRules[{index}].condition"
        if condition.get("jobStatus") and condition.get("jobDeploymentStatus"):
            yield Violation(
                f"deletionRules[{index}].condition sets both jobStatus and jobDeploymentStatus; set exactly one",
                where,
            )
        elif not condition.get("jobStatus") and not condition.get("jobDeploymentStatus"):
            yield Violation(
                f"deletionRules[{index}].condition sets neither jobStatus nor jobDeploymentStatus; set exactly one",
                where,
            )


_deletion_rule(
    id="rayjob-deletion-condition-invalid",
    title="deletionRules condition without exactly one of jobStatus/jobDeploymentStatus",
    rows=("RJ-17", "RJ-18", "CEL-06", "CEL-07"),
    enforced_by=("api-server", "operator"),
    rationale="Each deletion rule matches either the Ray job status or the RayJob deployment status, never both or none (CEL and validateDeletionCondition).",
    fix="Keep exactly one of condition.jobStatus (SUCCEEDED|FAILED) or condition.jobDeploymentStatus (Failed).",
    check=_check_condition,
    compliant=_strategy_job(
        {
            "deletionRules": [
                {"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED"}},
                {"policy": "DeleteCluster", "condition": {"jobDeploymentStatus": "Failed"}},
            ]
        }
    ),
    violating=_strategy_job(
        {
            "deletionRules": [
                {"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED"}},
                {"policy": "DeleteCluster", "condition": {"jobStatus": "FAILED", "jobDeploymentStatus": "Failed"}},
            ]
        }
    ),
    violating_path="spec.deletionStrategy.deletionRules[1].condition",
    fixed=patch({"spec.deletionStrategy.deletionRules[1].condition.jobStatus": REMOVE}),
)


def _check_rule_ttl_negative(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    for index, rule in enumerate(deletion_rules(spec)):
        ttl = as_int(as_dict(as_dict(rule).get("condition")).get("ttlSeconds"))
        if ttl is not None and ttl < 0:
            yield Violation(
                f"deletionRules[{index}].condition.ttlSeconds is {ttl}; it must be >= 0",
                f"{path}.deletionStrategy.deletionRules[{index}].condition.ttlSeconds",
            )


_deletion_rule(
    id="rayjob-deletion-rule-ttl-negative",
    title="Negative deletion rule ttlSeconds",
    rows=("RJ-19", "SCH-minimum"),
    enforced_by=("api-server", "operator"),
    rationale="A negative TTL is rejected (CRD minimum 0 and validateDeletionCondition).",
    fix="Use 0 or a positive number of seconds.",
    check=_check_rule_ttl_negative,
    compliant=_rules_job(("DeleteCluster", "FAILED", 0)),
    violating=_rules_job(("DeleteCluster", "FAILED", -5)),
    violating_path="spec.deletionStrategy.deletionRules[0].condition.ttlSeconds",
    fixed=patch({"spec.deletionStrategy.deletionRules[0].condition.ttlSeconds": 0}),
)


def _valid_rules(spec: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any], tuple[str, str], str]]:
    """Rules that pass the per-rule checks, as the operator groups them: (index, rule, condition, policy)."""
    selector = has_cluster_selector(spec)
    autoscaling = job_autoscaling_enabled(spec)
    for index, rule in enumerate(deletion_rules(spec)):
        if not isinstance(rule, dict):
            continue
        condition = _condition_value(rule)
        policy = rule.get("policy")
        ttl = as_int(as_dict(rule.get("condition")).get("ttlSeconds"))
        if condition is None or not isinstance(policy, str) or (ttl is not None and ttl < 0):
            continue
        if (selector and policy in CLUSTER_DELETING_POLICIES) or (autoscaling and policy == "DeleteWorkers"):
            continue
        yield index, rule, condition, policy


def _check_duplicate_rules(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    seen: dict[tuple[str, str, str], int] = {}
    for index, _rule, (field, value), policy in _valid_rules(spec):
        key = (field, value, policy)
        if key in seen:
            yield Violation(
                f"deletionRules[{index}] repeats deletionRules[{seen[key]}] ({field} {value}, policy {policy})",
                f"{path}.deletionStrategy.deletionRules[{index}]",
            )
        else:
            seen[key] = index


_deletion_rule(
    id="rayjob-deletion-rule-duplicate",
    title="Duplicate (condition, policy) deletion rules",
    rows=("RJ-22", "RJ-23"),
    enforced_by=("operator",),
    rationale="Each (condition value, policy) pair may appear once; duplicates are rejected.",
    fix="Remove the duplicate rule or change its condition/policy.",
    check=_check_duplicate_rules,
    compliant=_rules_job(("DeleteCluster", "SUCCEEDED", 0), ("DeleteCluster", "FAILED", 600)),
    violating=_rules_job(("DeleteCluster", "SUCCEEDED", 0), ("DeleteCluster", "SUCCEEDED", 600)),
    violating_path="spec.deletionStrategy.deletionRules[1]",
    fixed=patch({"spec.deletionStrategy.deletionRules[1].condition.jobStatus": "FAILED"}),
    cel=Cel(f"{VALID_DELETION_RULES}.all(r, {same_condition_rules('r.policy')}.size() == 1)", over="job", path="deletionStrategy.deletionRules"),
)


def _check_ttl_order(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    grouped: dict[tuple[str, str], dict[str, tuple[int, int]]] = {}
    for index, rule, condition, policy in _valid_rules(spec):
        ttl = as_int(as_dict(rule.get("condition")).get("ttlSeconds")) or 0
        grouped.setdefault(condition, {}).setdefault(policy, (index, ttl))
    for (field, value), by_policy in grouped.items():
        previous: tuple[str, int] | None = None
        for policy in DELETION_ORDER:
            if policy not in by_policy:
                continue
            index, ttl = by_policy[policy]
            if previous is not None and ttl < previous[1]:
                yield Violation(
                    f"for {field} {value}: {policy} TTL ({ttl}) must be >= {previous[0]} TTL ({previous[1]}) (workers, then cluster, then the RayJob itself)",
                    f"{path}.deletionStrategy.deletionRules[{index}].condition.ttlSeconds",
                )
            previous = (policy, ttl)


_deletion_rule(
    id="rayjob-deletion-ttl-order",
    title="Deletion rule TTLs out of order",
    rows=("RJ-24",),
    enforced_by=("operator",),
    rationale="For one condition, TTLs must satisfy DeleteWorkers <= DeleteCluster <= DeleteSelf; otherwise the operator rejects the spec (validateTTLConsistency).",
    fix="Order the ttlSeconds so that less destructive policies run first.",
    check=_check_ttl_order,
    compliant=_rules_job(("DeleteWorkers", "SUCCEEDED", 30), ("DeleteCluster", "SUCCEEDED", 60)),
    violating=_rules_job(("DeleteWorkers", "SUCCEEDED", 90), ("DeleteCluster", "SUCCEEDED", 60)),
    violating_path="spec.deletionStrategy.deletionRules[1].condition.ttlSeconds",
    fixed=patch({"spec.deletionStrategy.deletionRules[0].condition.ttlSeconds": 30}),
    cel=Cel(f"{VALID_DELETION_RULES}.all(r, {ttls_in_order((('DeleteWorkers', 'DeleteCluster'), ('DeleteCluster', 'DeleteSelf'), ('DeleteWorkers', 'DeleteSelf')))})", over="job", path="deletionStrategy.deletionRules[].condition.ttlSeconds"),
)
