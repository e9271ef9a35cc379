"""Rules on a change (old manifest -> new manifest), judged on the change plan (``pulumi_kuberay.plan``).

A policy pack sees only the new inputs, so these rules run where the old state is known: in the components
(their resource hook, at preview and up) and in ``kuberay-lint --diff OLD NEW``. Each flags a plan that is
likely not what the user wants: a change that will not reach running Pods, a NewCluster rollout whose two
clusters need more GPUs than the budget, a RayService cluster change the upgrade strategy ignores.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._engine import Context, Finding, Severity

if TYPE_CHECKING:  # only its type: the catalogue loads this module for every program, the plan only when used
    from pulumi_kuberay.plan import Change


@dataclass(frozen=True)
class ChangeRule:
    id: str
    title: str
    severity: Severity
    prod_severity: Severity
    fix: str


TEMPLATE_NOT_APPLIED = ChangeRule(
    "change-not-reaching-pods",
    "A pod template change reaches the running Pods",
    "medium",
    "high",
    "set spec.upgradeStrategy.type: Recreate (every Pod is recreated at once on a spec change), or recreate the Pods yourself (kubectl delete pod -l ray.io/cluster=<name>)",
)
CLUSTER_CHANGE_IGNORED = ChangeRule(
    "rayservice-cluster-change-ignored",
    "A RayService's rayClusterConfig change is rolled out",
    "medium",
    "high",
    "set spec.upgradeStrategy.type: NewCluster (or NewClusterWithIncrementalUpgrade with its gate on) to roll the change out through a new cluster",
)
SERVICE_REPLICAS_IGNORED = ChangeRule(
    "rayservice-replicas-change-ignored",
    "A RayService's worker replicas change reaches its cluster",
    "medium",
    "medium",
    "let the Ray autoscaler size the workers (enableInTreeAutoscaling with minReplicas/maxReplicas), or change something KubeRay hashes to roll out a new cluster",
)
ROLLOUT_GPU_BUDGET = ChangeRule(
    "rollout-gpu-budget-exceeded",
    "A NewCluster rollout's two clusters fit the GPU budget",
    "high",
    "high",
    "raise the gpu_budget option, lower the new cluster's GPUs, or use upgradeStrategy NewClusterWithIncrementalUpgrade (the new cluster grows by maxSurgePercent at a time)",
)
CHANGE_RULES = (TEMPLATE_NOT_APPLIED, CLUSTER_CHANGE_IGNORED, SERVICE_REPLICAS_IGNORED, ROLLOUT_GPU_BUDGET)


def _finding(rule: ChangeRule, ctx: Context, message: str, path: str) -> Finding:
    severity = rule.prod_severity if ctx.environment == "prod" else rule.severity
    return Finding(rule.id, severity, message, path, rule.fix)


def _gpu_budget(ctx: Context) -> int | None:
    options: Any = ctx.options
    budget = options.get("gpu_budget") if isinstance(options, Mapping) else getattr(options, "gpu_budget", None)
    return budget if isinstance(budget, int) and not isinstance(budget, bool) else None


def _suppressed(rule: ChangeRule, new: Mapping[str, Any]) -> bool:
    meta = new.get("metadata") if isinstance(new.get("metadata"), Mapping) else {}
    annotations = (meta or {}).get("annotations") if isinstance((meta or {}).get("annotations"), Mapping) else {}
    return f"suppress.pulumi-kuberay.io/{rule.id}" in (annotations or {})


def _findings(change: Change, new: Mapping[str, Any], ctx: Context) -> Iterable[Finding]:
    facts = change.facts
    if change.kind == "RayCluster" and facts.get("template_not_applied") and change.action != "recreate-pods":
        what = ", ".join(change.changed) or "the pod template"
        yield _finding(
            TEMPLATE_NOT_APPLIED,
            ctx,
            f"{change.subject}: {what} changed but the running Pods keep the old spec ({change.why})",
            "spec.upgradeStrategy",
        )
    if change.kind == "RayService" and facts.get("cluster_change_ignored"):
        yield _finding(CLUSTER_CHANGE_IGNORED, ctx, f"{change.subject}: {change.why}", "spec.upgradeStrategy")
    if (
        change.kind == "RayService"
        and change.action == "none"
        and not facts.get("cluster_change_ignored")
        and any("replicas" in item.lower() for item in change.changed)
        and not facts.get("cluster_hash_changed")
    ):
        yield _finding(
            SERVICE_REPLICAS_IGNORED,
            ctx,
            f"{change.subject}: worker replicas/minReplicas/maxReplicas changed, but KubeRay leaves them out of its hash: the running cluster is not updated and no new cluster is prepared",
            "spec.rayClusterConfig.workerGroupSpecs",
        )
    budget = _gpu_budget(ctx)
    if change.action in ("new-cluster", "incremental") and budget is not None:
        old, extra = int(facts.get("old_gpus") or 0), int(facts.get("extra_gpus") or 0)
        if old + extra > budget:
            yield _finding(
                ROLLOUT_GPU_BUDGET,
                ctx,
                f"{change.subject}: the {change.action} rollout runs both clusters at once: {old} GPU(s) of the running cluster + {extra} of the new one = {old + extra}, over the budget of {budget}: the new cluster may never be scheduled and the upgrade never finish",
                "spec.rayClusterConfig",
            )


def check_change(change: Change, old: Mapping[str, Any] | None, new: Mapping[str, Any], ctx: Context) -> list[Finding]:
    """The findings of the change rules on one planned change (suppression annotations honoured)."""
    return [
        f
        for f in _findings(change, new, ctx)
        if not _suppressed(next(r for r in CHANGE_RULES if r.id == f.rule_id), new)
    ]


__all__ = ["CHANGE_RULES", "ChangeRule", "check_change"]
