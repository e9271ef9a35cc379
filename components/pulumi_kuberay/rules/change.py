"""Rules on a change (old manifest -> new manifest), judged on its change plan (``pulumi_kuberay.plan``).

``declare(scope="change")``: the check takes a :class:`~._engine.ChangeSubject` (the old and new manifest and the
plan the caller made) and reports paths on the new manifest; the examples are (old, new) pairs. A policy pack
sees only the new inputs, so these rules run where the old state is known: in the components (their resource
hook, at preview and up) and in ``kuberay-lint --diff OLD NEW`` / ``--diff-git REV`` (``rules.check_change``).
Each flags a plan that is likely not what the user wants: a change that will not reach running Pods, a
NewCluster rollout whose two clusters need more GPUs than the budget, a RayService cluster change the upgrade
strategy ignores. The plan module is never imported here: the check reads the plan it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pulumi_kuberay.kuberay.resources import NVIDIA_GPU

from ._engine import ChangeSubject, Context, Severity, Violation, declare
from ._examples import add_env, example, example_service, head_container_of
from ._fixed import patch

#: Why a _prod_high finding's severity is not the rule's default (said only when it differs).
_PROD_WHY = "high in prod, medium elsewhere"


def _prod_high(ctx: Context) -> Severity:
    return "high" if ctx.environment == "prod" else "medium"


#: An edit of an example (a manifest or a cluster spec), in place.
Edit = Callable[[dict[str, Any]], None]


def _service(mutate: Edit | None = None, **spec_fields: Any) -> dict[str, Any]:
    doc = example_service(**spec_fields)
    if mutate is not None:
        mutate(doc["spec"]["rayClusterConfig"])
    return doc


def _both(first: Edit, second: Edit) -> Edit:
    """The two edits, one after the other."""

    def edit(doc: dict[str, Any]) -> None:
        first(doc)
        second(doc)

    return edit


def _head_env(cluster_spec: dict[str, Any]) -> None:
    add_env(cluster_spec["headGroupSpec"]["template"]["spec"]["containers"][0], "RAY_LOG_LEVEL", "debug")


def _worker_replicas(replicas: int) -> Edit:
    def mutate(cluster_spec: dict[str, Any]) -> None:
        cluster_spec["workerGroupSpecs"][0]["replicas"] = replicas

    return mutate


# ----------------------------------------------------------------------------------------------------
# A RayCluster's pod template change that the running Pods never get


def _check_template_not_applied(change: ChangeSubject, ctx: Context) -> Iterator[Violation]:
    plan = change.plan
    if plan.kind == "RayCluster" and plan.facts.get("template_not_applied") and plan.action != "recreate-pods":
        what = ", ".join(plan.changed) or "the pod template"
        yield Violation(
            f"{plan.subject}: {what} changed but the running Pods keep the old spec ({plan.why})",
            "spec.upgradeStrategy",
            severity=_prod_high(ctx),
            severity_why=_PROD_WHY,
        )


def _cluster_env(doc: dict[str, Any]) -> None:
    add_env(head_container_of(doc), "RAY_LOG_LEVEL", "debug")


def _recreate(doc: dict[str, Any]) -> None:
    doc["spec"]["upgradeStrategy"] = {"type": "Recreate"}


declare(
    id="change-not-reaching-pods",
    title="A pod template change reaches the running Pods",
    severity="medium",
    category="correctness",
    kinds=("RayCluster",),
    scope="change",
    rationale="Under upgradeStrategy None (the default) KubeRay never updates or recreates running Pods when a RayCluster's pod template changes: only Pods created later (a scale-up, a replaced Pod) get the new spec, so the cluster runs a mix or keeps the old spec. High in prod, medium elsewhere.",
    fix="set spec.upgradeStrategy.type: Recreate (every Pod is recreated at once on a spec change), or recreate the Pods yourself (kubectl delete pod -l ray.io/cluster=<name>)",
    check=_check_template_not_applied,
    compliant=(example(_recreate), example(_both(_recreate, _cluster_env))),
    violating=(example(), example(_cluster_env)),
    violating_path="spec.upgradeStrategy",
    fixed=patch({"[1].spec.upgradeStrategy.type": "Recreate"}),
)


# ----------------------------------------------------------------------------------------------------
# A RayService's cluster change that its upgrade strategy ignores


def _check_cluster_change_ignored(change: ChangeSubject, ctx: Context) -> Iterator[Violation]:
    plan = change.plan
    if plan.kind == "RayService" and plan.facts.get("cluster_change_ignored"):
        yield Violation(f"{plan.subject}: {plan.why}", "spec.upgradeStrategy", severity=_prod_high(ctx), severity_why=_PROD_WHY)


_NO_UPGRADE: dict[str, Any] = {"upgradeStrategy": {"type": "None"}}

declare(
    id="rayservice-cluster-change-ignored",
    title="A RayService's rayClusterConfig change is rolled out",
    severity="medium",
    category="correctness",
    kinds=("RayService",),
    scope="change",
    rationale="With upgradeStrategy None (or ENABLE_ZERO_DOWNTIME=false on the operator) KubeRay ignores a change of rayClusterConfig: the running cluster keeps the old spec and no new cluster is prepared. High in prod, medium elsewhere.",
    fix="set spec.upgradeStrategy.type: NewCluster (or NewClusterWithIncrementalUpgrade with its gate on) to roll the change out through a new cluster",
    check=_check_cluster_change_ignored,
    compliant=(_service(), _service(_head_env)),
    violating=(_service(**_NO_UPGRADE), _service(_head_env, **_NO_UPGRADE)),
    violating_path="spec.upgradeStrategy",
    fixed=patch({"[1].spec.upgradeStrategy.type": "NewCluster"}),
)


# ----------------------------------------------------------------------------------------------------
# A RayService's worker replicas change that never reaches its cluster


def _check_replicas_ignored(change: ChangeSubject, ctx: Context) -> Iterator[Violation]:
    plan = change.plan
    if (
        plan.kind == "RayService"
        and plan.action == "none"
        and not plan.facts.get("cluster_change_ignored")
        and any("replicas" in item.lower() for item in plan.changed)
        and not plan.facts.get("cluster_hash_changed")
    ):
        yield Violation(
            f"{plan.subject}: worker replicas/minReplicas/maxReplicas changed, but KubeRay leaves them out of its hash: the running cluster is not updated and no new cluster is prepared",
            "spec.rayClusterConfig.workerGroupSpecs",
        )


_HEAD_ENV_PATH = "[1].spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].env"

declare(
    id="rayservice-replicas-change-ignored",
    title="A RayService's worker replicas change reaches its cluster",
    severity="medium",
    category="correctness",
    kinds=("RayService",),
    scope="change",
    rationale="KubeRay's RayService cluster hash leaves out worker replicas, minReplicas and maxReplicas: changing only those neither updates the running cluster nor prepares a new one, so the change is silently lost.",
    fix="let the Ray autoscaler size the workers (enableInTreeAutoscaling with minReplicas/maxReplicas), or change something KubeRay hashes to roll out a new cluster",
    check=_check_replicas_ignored,
    compliant=(_service(), _service(_both(_worker_replicas(3), _head_env))),
    violating=(_service(), _service(_worker_replicas(3))),
    violating_path="spec.rayClusterConfig.workerGroupSpecs",
    fixed=patch({_HEAD_ENV_PATH: [{"name": "RAY_LOG_LEVEL", "value": "debug"}]}),
)


# ----------------------------------------------------------------------------------------------------
# A NewCluster rollout whose two clusters need more GPUs than the organisation's budget


def _check_rollout_gpu_budget(change: ChangeSubject, ctx: Context) -> Iterator[Violation]:
    plan, budget = change.plan, ctx.options.gpu_budget
    if plan.action not in ("new-cluster", "incremental") or budget is None:
        return
    old, extra = int(plan.facts.get("old_gpus") or 0), int(plan.facts.get("extra_gpus") or 0)
    if old + extra > budget:
        yield Violation(
            f"{plan.subject}: the {plan.action} rollout runs both clusters at once: {old} GPU(s) of the running cluster + {extra} of the new one = {old + extra}, over the budget of {budget}: the new cluster may never be scheduled and the upgrade never finish",
            "spec.rayClusterConfig",
        )


def _gpu_workers(cluster_spec: dict[str, Any]) -> None:
    group = cluster_spec["workerGroupSpecs"][0]
    group["replicas"] = 2
    resources = {"cpu": "4", "memory": "16Gi", NVIDIA_GPU: 4}
    group["template"]["spec"]["containers"][0]["resources"] = {"limits": resources, "requests": dict(resources)}


_GPU_BUDGET = 12

declare(
    id="rollout-gpu-budget-exceeded",
    title="A NewCluster rollout's two clusters fit the GPU budget",
    severity="high",
    category="cost",
    kinds=("RayService",),
    scope="change",
    rationale="A NewCluster (or incremental) upgrade keeps the running cluster serving while a second one comes up: both clusters' GPUs are needed at once, and over the organisation's GPU budget (option gpu_budget) the new cluster may never be scheduled.",
    fix="raise the gpu_budget option, lower the new cluster's GPUs, or use upgradeStrategy NewClusterWithIncrementalUpgrade (the new cluster grows by maxSurgePercent at a time)",
    check=_check_rollout_gpu_budget,
    compliant=(_service(), _service(_head_env)),
    violating=(_service(_gpu_workers), _service(_both(_gpu_workers, _head_env))),
    violating_path="spec.rayClusterConfig",
    context={"options": {"gpu_budget": _GPU_BUDGET}},
    fixed=patch({"[1].spec.rayClusterConfig.workerGroupSpecs[0].replicas": 1}),
)
