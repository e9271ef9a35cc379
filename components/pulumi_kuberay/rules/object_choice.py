"""Selection rules: is this the right KubeRay object and lifecycle for the workload?

Medium by default (advice), raised to high in production where the consequence is an outage or a bill:
- autoscaling needs explicit, bounded minReplicas/maxReplicas (the CRD default maxReplicas is 2147483647);
- a RayService should keep zero-downtime upgrades (NewCluster or incremental), not ``None``;
- a RayJob that owns a cluster should free it when it ends and have a deadline; otherwise it behaves like a
  long-running service (use a RayService, or a shared RayCluster with ``clusterSelector``);
- a RayJob that deletes itself (``DeleteSelf``) fights Pulumi, which re-creates it and re-runs the job.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay import INT32_MAX
from pulumi_kuberay.kuberay import KUEUE_QUEUE_LABEL as QUEUE_LABEL
from pulumi_kuberay.kuberay.names import RAY_CLUSTER_LABEL
from pulumi_kuberay.kuberay.paths import as_dict, as_int, as_list, as_str, cluster_specs, get, metadata, worker_groups

from ._cel import DELETION_RULES, Cel
from ._engine import KINDS, Context, Severity, Violation, declare
from ._examples import example_cluster_spec, example_job, example_service
from ._fixed import REMOVE, patch
from ._manifest_readers import SELECTOR_UNMANAGED_SINCE, job_specs, kueue_label, kueue_version

#: A RayJob deadline longer than this looks like a service, not a batch job.
SERVICE_LIKE_DEADLINE_SECONDS = 7 * 24 * 3600
_CLUSTER_FREEING_POLICIES = ("DeleteCluster", "DeleteSelf")


def _prod_high(ctx: Context) -> Severity:
    return "high" if ctx.environment == "prod" else "medium"


#: Why a _prod_high finding's severity is not the rule's default (said only when it differs).
_PROD_WHY = "high in prod, medium elsewhere"


# ----------------------------------------------------------------------------------------------------
# Autoscaling bounds


def _check_autoscaling_bounds(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(manifest):
        if ref.spec.get("enableInTreeAutoscaling") is not True:
            continue
        for group in worker_groups(ref):
            raw_max = group.spec.get("maxReplicas")
            max_replicas = as_int(raw_max)
            # the CRD default of maxReplicas is the int32 bound: no bound at all
            if raw_max is None or (max_replicas is not None and max_replicas >= INT32_MAX):
                state = "is not set" if raw_max is None else f"is {max_replicas}"
                yield Violation(
                    f"autoscaling is on and worker group {group.name!r} maxReplicas {state} (CRD default {INT32_MAX}): the autoscaler may add Pods without bound",
                    f"{group.path}.maxReplicas",
                    fix="Set maxReplicas to the most Pods (and GPUs) you are willing to pay for.",
                    severity=_prod_high(ctx),
                    severity_why=_PROD_WHY,
                )
            if group.spec.get("minReplicas") is None:
                yield Violation(
                    f"autoscaling is on and worker group {group.name!r} minReplicas is not set (CRD default 0): state the floor explicitly",
                    f"{group.path}.minReplicas",
                    fix="Set minReplicas (0 allows scale-to-zero).",
                    severity="medium",
                )


def _autoscaled_job(**group_fields: Any) -> dict[str, Any]:
    cluster = example_cluster_spec(autoscaling=True)
    group = cluster["workerGroupSpecs"][0]
    for key, value in group_fields.items():
        if value is None:
            group.pop(key, None)
        else:
            group[key] = value
    return example_job(rayClusterSpec=cluster)


declare(
    id="autoscaling-bounds-explicit",
    title="Autoscaling with explicit, bounded minReplicas and maxReplicas",
    severity="medium",
    category="cost",
    kinds=KINDS,
    rationale="With enableInTreeAutoscaling the autoscaler scales each worker group between minReplicas and maxReplicas; the CRD default maxReplicas is 2147483647, i.e. no cost ceiling at all.",
    fix="Set minReplicas and a finite maxReplicas on every worker group.",
    check=_check_autoscaling_bounds,
    compliant=_autoscaled_job(minReplicas=0, maxReplicas=10),
    violating=_autoscaled_job(minReplicas=0, maxReplicas=None),
    violating_path="spec.rayClusterSpec.workerGroupSpecs[0].maxReplicas",
    context={"environment": "prod"},
    fixed=patch({"spec.rayClusterSpec.workerGroupSpecs[0].maxReplicas": 10}),
)


# ----------------------------------------------------------------------------------------------------
# RayService upgrades


def _check_upgrade_none(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if manifest.get("kind") != "RayService":
        return
    if get(manifest, "spec", "upgradeStrategy", "type") == "None":
        yield Violation(
            "upgradeStrategy.type is None: changes to rayClusterConfig (image, resources, env) are never rolled out, and without a standby cluster every fix needs a delete and re-create (downtime)",
            "spec.upgradeStrategy.type",
            severity=_prod_high(ctx),
            severity_why=_PROD_WHY,
        )


declare(
    id="rayservice-upgrade-strategy-none",
    title="RayService upgrades disabled (upgradeStrategy.type None)",
    severity="medium",
    category="reliability",
    kinds=("RayService",),
    rationale="NewCluster (the default) and NewClusterWithIncrementalUpgrade prepare a new cluster and switch traffic only when its Serve apps are RUNNING; None applies no cluster change at all. High in prod.",
    fix="Remove upgradeStrategy (NewCluster is the default) or use NewClusterWithIncrementalUpgrade.",
    check=_check_upgrade_none,
    compliant=example_service(upgradeStrategy={"type": "NewCluster"}),
    violating=example_service(upgradeStrategy={"type": "None"}),
    violating_path="spec.upgradeStrategy.type",
    context={"environment": "prod"},
    fixed=patch({"spec.upgradeStrategy.type": "NewCluster"}),
)


# ----------------------------------------------------------------------------------------------------
# RayJob lifecycle


def _frees_cluster(spec: dict[str, Any]) -> bool:
    """Whether the job's own cluster is deleted when the job ends (shutdown, or a deleting policy)."""
    if spec.get("shutdownAfterJobFinishes") is True:
        return True
    strategy = as_dict(spec.get("deletionStrategy"))
    rules = as_list(strategy.get("deletionRules"))
    if rules:
        freeing = {
            as_str(get(rule, "condition", "jobStatus")) or as_str(get(rule, "condition", "jobDeploymentStatus"))
            for rule in rules
            if as_dict(rule).get("policy") in _CLUSTER_FREEING_POLICIES
        }
        return "SUCCEEDED" in freeing and ("FAILED" in freeing or "Failed" in freeing)
    policies = [get(strategy, key, "policy") for key in ("onSuccess", "onFailure")]
    return all(policy in _CLUSTER_FREEING_POLICIES for policy in policies)


def _owns_cluster(spec: dict[str, Any]) -> bool:
    return isinstance(spec.get("rayClusterSpec"), dict) and not as_dict(spec.get("clusterSelector"))


def _check_cluster_not_freed(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for spec, path in job_specs(manifest):
        if not _owns_cluster(spec) or as_str(spec.get("submissionMode")) == "InteractiveMode":
            continue
        if not _frees_cluster(spec):
            yield Violation(
                "the RayJob creates its own RayCluster but nothing deletes it when the job ends (no shutdownAfterJobFinishes, no DeleteCluster/DeleteSelf rule for both success and failure): the cluster keeps running, and billing, after the job; a long-lived cluster is a service",
                f"{path}.shutdownAfterJobFinishes",
                severity=_prod_high(ctx),
                severity_why=_PROD_WHY,
            )


declare(
    id="rayjob-cluster-not-freed",
    title="RayJob with its own cluster that is never deleted",
    severity="medium",
    category="cost",
    kinds=("RayJob", "RayCronJob"),
    rationale="A RayJob is a batch job: its embedded cluster should go away when the job finishes. If it stays, the job looks like a service; use a RayService (long-running serving) or a shared RayCluster selected with clusterSelector (many jobs, one cluster).",
    fix="Set shutdownAfterJobFinishes: true (optionally ttlSecondsAfterFinished) or deletionRules with DeleteCluster for SUCCEEDED and FAILED; or use a RayService / a shared RayCluster + clusterSelector.",
    check=_check_cluster_not_freed,
    compliant=example_job(),
    violating=example_job(shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None),
    violating_path="spec.shutdownAfterJobFinishes",
    fixed=patch({"spec.shutdownAfterJobFinishes": True, "spec.ttlSecondsAfterFinished": 60}),
    cel=Cel(f"!(has(j.rayClusterSpec) && !(has(j.clusterSelector) && size(j.clusterSelector) > 0)) || (has(j.submissionMode) && j.submissionMode == 'InteractiveMode') || ((has(j.shutdownAfterJobFinishes) && j.shutdownAfterJobFinishes) || (size({DELETION_RULES}) > 0 ? ({DELETION_RULES}.exists(r, has(r.policy) && r.policy in ['DeleteCluster', 'DeleteSelf'] && ((has(r.condition) && has(r.condition.jobStatus) && r.condition.jobStatus != '') ? r.condition.jobStatus : ((has(r.condition) && has(r.condition.jobDeploymentStatus)) ? r.condition.jobDeploymentStatus : '')) in ['SUCCEEDED']) && {DELETION_RULES}.exists(r, has(r.policy) && r.policy in ['DeleteCluster', 'DeleteSelf'] && ((has(r.condition) && has(r.condition.jobStatus) && r.condition.jobStatus != '') ? r.condition.jobStatus : ((has(r.condition) && has(r.condition.jobDeploymentStatus)) ? r.condition.jobDeploymentStatus : '')) in ['FAILED', 'Failed'])) : ((has(j.deletionStrategy) && has(j.deletionStrategy.onSuccess) && has(j.deletionStrategy.onSuccess.policy) && j.deletionStrategy.onSuccess.policy in ['DeleteCluster', 'DeleteSelf']) && (has(j.deletionStrategy) && has(j.deletionStrategy.onFailure) && has(j.deletionStrategy.onFailure.policy) && j.deletionStrategy.onFailure.policy in ['DeleteCluster', 'DeleteSelf']))))", over="job", path="shutdownAfterJobFinishes"),
)


_NO_DEADLINE = "low: no deadline is a hygiene gap; a deadline of more than 7 days is medium"


def _check_deadline(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for spec, path in job_specs(manifest):
        if not _owns_cluster(spec) or as_str(spec.get("submissionMode")) == "InteractiveMode":
            continue
        raw = spec.get("activeDeadlineSeconds")
        deadline = as_int(raw)
        if raw is None:
            yield Violation(
                "the RayJob has no activeDeadlineSeconds: a hung job keeps its cluster (and GPUs) forever",
                f"{path}.activeDeadlineSeconds",
                fix="Set activeDeadlineSeconds to a generous upper bound of the job's run time.",
                severity="low",
                severity_why=_NO_DEADLINE,
            )
        elif deadline is not None and deadline > SERVICE_LIKE_DEADLINE_SECONDS:
            yield Violation(
                f"activeDeadlineSeconds is {deadline} (> 7 days): a job meant to run this long looks like a service; consider a RayService or a shared RayCluster",
                f"{path}.activeDeadlineSeconds",
            )


declare(
    id="rayjob-deadline-unbounded",
    title="RayJob with its own cluster and no (or a very long) deadline",
    severity="medium",
    category="cost",
    kinds=("RayJob", "RayCronJob"),
    rationale="activeDeadlineSeconds bounds how long a stuck job can hold its cluster. A missing deadline is a hygiene gap (low); a deadline of more than a week means the workload is really a service (medium).",
    fix="Set activeDeadlineSeconds to the job's realistic upper bound; for long-running work use a RayService or a shared RayCluster.",
    check=_check_deadline,
    compliant=example_job(activeDeadlineSeconds=6 * 3600),
    violating=example_job(activeDeadlineSeconds=30 * 24 * 3600),
    violating_path="spec.activeDeadlineSeconds",
    fixed=patch({"spec.activeDeadlineSeconds": 21600}),
    cel=Cel("!(has(j.rayClusterSpec) && !(has(j.clusterSelector) && size(j.clusterSelector) > 0)) || (has(j.submissionMode) && j.submissionMode == 'InteractiveMode') || (has(j.activeDeadlineSeconds) && j.activeDeadlineSeconds <= 604800)", over="job", path="activeDeadlineSeconds"),
    also=(_NO_DEADLINE,),
)


def _check_delete_self(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if manifest.get("kind") != "RayJob":
        return  # RayCronJob children are not Pulumi resources
    strategy = as_dict(get(manifest, "spec", "deletionStrategy"))
    hits: list[str] = []
    for i, rule in enumerate(as_list(strategy.get("deletionRules"))):
        if as_dict(rule).get("policy") == "DeleteSelf":
            hits.append(f"spec.deletionStrategy.deletionRules[{i}].policy")
    for key in ("onSuccess", "onFailure"):
        if get(strategy, key, "policy") == "DeleteSelf":
            hits.append(f"spec.deletionStrategy.{key}.policy")
    for path in hits:
        yield Violation(
            "DeleteSelf deletes the RayJob object itself: the next `pulumi up` sees it missing, re-creates it and the job runs again (and `pulumi refresh` shows drift)",
            path,
            severity=_prod_high(ctx),
            severity_why=_PROD_WHY,
        )


def _job_with_rules(*rules: tuple[str, str, int]) -> dict[str, Any]:
    strategy = {
        "deletionRules": [
            {"policy": policy, "condition": {"jobStatus": status, "ttlSeconds": ttl}} for policy, status, ttl in rules
        ]
    }
    return example_job(
        shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None, deletionStrategy=copy.deepcopy(strategy)
    )


declare(
    id="rayjob-delete-self-under-pulumi",
    title="RayJob DeleteSelf deletion rule in a Pulumi-managed stack",
    severity="medium",
    category="reliability",
    kinds=("RayJob",),
    rationale="Pulumi owns the RayJob object; when the operator deletes it (DeleteSelf), the next update re-creates it and re-runs the job. High in prod, where a re-run costs money or repeats side effects.",
    fix="Use DeleteCluster (keeps the RayJob record, frees the cluster); delete the RayJob through Pulumi.",
    check=_check_delete_self,
    compliant=_job_with_rules(("DeleteCluster", "SUCCEEDED", 60), ("DeleteCluster", "FAILED", 600)),
    violating=_job_with_rules(("DeleteCluster", "SUCCEEDED", 60), ("DeleteSelf", "SUCCEEDED", 300)),
    violating_path="spec.deletionStrategy.deletionRules[1].policy",
    pulumi_only=True,
    fixed=patch(
        {
            "spec.deletionStrategy.deletionRules[1].policy": "DeleteCluster",
            "spec.deletionStrategy.deletionRules[1].condition.jobStatus": "FAILED",
            "spec.deletionStrategy.deletionRules[1].condition.ttlSeconds": 600,
        }
    ),
)


def _check_shutdown_with_selector(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for spec, path in job_specs(manifest):
        if not as_dict(spec.get("clusterSelector")) or spec.get("rayClusterSpec") is not None:
            continue
        if spec.get("shutdownAfterJobFinishes") is True:
            yield Violation(
                "shutdownAfterJobFinishes has no effect with clusterSelector: the operator never deletes a RayCluster it did not create",
                f"{path}.shutdownAfterJobFinishes",
            )


declare(
    id="rayjob-shutdown-with-cluster-selector",
    title="shutdownAfterJobFinishes on a RayJob that uses an existing cluster",
    severity="low",
    category="hygiene",
    kinds=("RayJob", "RayCronJob"),
    rationale="shutdownAfterJobFinishes only deletes a cluster the RayJob created from rayClusterSpec; with clusterSelector it is ignored, which suggests a misunderstanding of who owns the cluster.",
    fix="Remove shutdownAfterJobFinishes (and ttlSecondsAfterFinished), or give the job its own rayClusterSpec.",
    check=_check_shutdown_with_selector,
    compliant=example_job(
        rayClusterSpec=None,
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        clusterSelector={RAY_CLUSTER_LABEL: "shared-cluster"},
    ),
    violating=example_job(
        rayClusterSpec=None,
        ttlSecondsAfterFinished=None,
        clusterSelector={RAY_CLUSTER_LABEL: "shared-cluster"},
    ),
    violating_path="spec.shutdownAfterJobFinishes",
    fixed=patch({"spec.shutdownAfterJobFinishes": REMOVE}),
    cel=Cel('!(has(j.clusterSelector) && size(j.clusterSelector) > 0) || has(j.rayClusterSpec) || !(has(j.shutdownAfterJobFinishes) && j.shutdownAfterJobFinishes)', over="job", path="shutdownAfterJobFinishes"),
)


def _queued_job(doc: dict[str, Any]) -> dict[str, Any]:
    doc["metadata"]["labels"] = {QUEUE_LABEL: "team-a"}
    return doc


def _check_unmanaged(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = as_dict(doc.get("spec"))
    queued = as_dict(metadata(doc).get("labels")).get(QUEUE_LABEL) is not None
    if not queued or not spec.get("clusterSelector") or spec.get("rayClusterSpec") is not None:
        return
    version = kueue_version(ctx)
    if version >= SELECTOR_UNMANAGED_SINCE:
        yield Violation(
            f"Kueue {kueue_label(version)} accepts a RayJob that only selects an existing RayCluster and leaves it unmanaged: the queue label has no effect (no quota is reserved, Kueue never suspends the job)",
            f"metadata.labels['{QUEUE_LABEL}']",
        )


declare(
    id="kueue-rayjob-unmanaged",
    title="Queue label on a RayJob that Kueue leaves unmanaged",
    severity="low",
    category="correctness",
    kinds=("RayJob",),
    rationale="From v0.15 Kueue's RayJob webhook accepts a queued RayJob that only selects an existing cluster and Kueue does not manage it: the label suggests quota and queueing that do not happen (before v0.15 the webhook refused it: kueue-rayjob-limits).",
    fix="Drop the queue label, or give the job its own rayClusterSpec so that Kueue admits it.",
    check=_check_unmanaged,
    compliant=_queued_job(example_job()),
    violating=_queued_job(
        {**example_job(), "spec": {"entrypoint": "python x.py", "clusterSelector": {RAY_CLUSTER_LABEL: "shared"}}}
    ),
    violating_path=f"metadata.labels['{QUEUE_LABEL}']",
    fixed=patch({f'metadata.labels["{QUEUE_LABEL}"]': REMOVE}),
)
