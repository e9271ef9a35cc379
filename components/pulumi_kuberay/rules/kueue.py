"""Kueue: what a RayJob with the ``kueue.x-k8s.io/queue-name`` label (``local_queue=``) must look like.

Kueue's RayJob integration (its documented limitations, enforced by its RayJob webhook): it admits the job's
own cluster as one workload, so the RayJob cannot select an existing cluster, must delete its cluster when it
finishes, cannot let the in-tree autoscaler resize it (unless Kueue's elastic workloads are on) and holds at
most 8 PodSets (head + 7 worker groups). What it refuses depends on the Kueue release (the ``kueue_version``
option, default the newest, :data:`NEWEST_KUEUE`): from v0.15 a RayJob that only selects an existing cluster is
accepted and left unmanaged (its queue label has no effect), before it was refused. Checks read raw manifest
dicts and never raise.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay import KUEUE_QUEUE_LABEL as QUEUE_LABEL
from pulumi_kuberay.kuberay.paths import as_dict, as_list, metadata

from ._engine import Context, Violation, declare
from ._examples import example_job
from ._fixed import patch
from ._manifest_readers import SELECTOR_UNMANAGED_SINCE, kueue_label, kueue_version

#: A Kueue workload has at most 8 PodSets: the head and 7 worker groups.
MAX_WORKER_GROUPS = 7


def _check_kueue_rayjob(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if as_dict(metadata(doc).get("labels")).get(QUEUE_LABEL) is None:
        return
    spec = as_dict(doc.get("spec"))
    version = kueue_version(ctx)
    kueue = f"Kueue {kueue_label(version)}"
    has_selector, has_spec = bool(spec.get("clusterSelector")), spec.get("rayClusterSpec") is not None
    if has_selector and (has_spec or version < SELECTOR_UNMANAGED_SINCE):
        yield Violation(
            f"a Kueue-managed RayJob cannot run on an existing RayCluster ({kueue}'s webhook rejects clusterSelector{' together with rayClusterSpec' if has_spec else ''})",
            "spec.clusterSelector",
            fix="give the job its own rayClusterSpec, or drop the queue label (local_queue=)",
        )
        return
    if has_selector:
        return  # accepted and left unmanaged: kueue-rayjob-unmanaged
    if not has_spec and version >= SELECTOR_UNMANAGED_SINCE:
        yield Violation(
            f"{kueue}'s webhook requires rayClusterSpec on a Kueue-managed RayJob that selects no cluster",
            "spec.rayClusterSpec",
            fix="give the job its own rayClusterSpec",
        )
        return
    if spec.get("shutdownAfterJobFinishes") is not True:
        yield Violation(
            "a Kueue-managed RayJob must delete its cluster when it finishes (Kueue's webhook rejects it otherwise)",
            "spec.shutdownAfterJobFinishes",
        )
    cluster = as_dict(spec.get("rayClusterSpec"))
    if cluster.get("enableInTreeAutoscaling") is True:
        yield Violation(
            "Kueue reserves the cluster's resources once; the in-tree autoscaler would resize it behind Kueue's back (Kueue rejects it unless its elastic workloads are on)",
            "spec.rayClusterSpec.enableInTreeAutoscaling",
            severity="medium",
            fix="turn enableInTreeAutoscaling off, or turn on Kueue's ElasticJobsViaWorkloadSlices and keep it",
        )
    groups = as_list(cluster.get("workerGroupSpecs"))
    if len(groups) > MAX_WORKER_GROUPS:
        yield Violation(
            f"{len(groups)} worker groups: a Kueue workload holds at most {MAX_WORKER_GROUPS} (plus the head)",
            "spec.rayClusterSpec.workerGroupSpecs",
            fix=f"merge worker groups down to {MAX_WORKER_GROUPS}",
        )


def _queued(doc: dict[str, Any]) -> dict[str, Any]:
    doc["metadata"]["labels"] = {QUEUE_LABEL: "team-a"}
    return doc


declare(
    id="kueue-rayjob-limits",
    title="Kueue-managed RayJob within Kueue's limits",
    severity="critical",
    category="correctness",
    kinds=("RayJob",),
    rationale="Kueue admits a RayJob's own cluster as one workload: its webhook refuses a RayJob that keeps its cluster after finishing, has more PodSets than a workload holds, or selects an existing cluster (before v0.15; from v0.15 a selector-only RayJob is accepted and left unmanaged). Judged by the kueue_version option (default: the newest Kueue release).",
    proof="Kueue's RayJob webhook refuses it, for the kueue_version option (default: the newest release); a cluster running another Kueue release may decide otherwise, so set the option",
    fix="Set shutdownAfterJobFinishes: true on a RayJob with its own rayClusterSpec (no clusterSelector).",
    check=_check_kueue_rayjob,
    compliant=_queued(example_job()),
    violating=_queued(example_job(shutdownAfterJobFinishes=False, ttlSecondsAfterFinished=None)),
    violating_path="spec.shutdownAfterJobFinishes",
    fixed=patch({"spec.shutdownAfterJobFinishes": True, "spec.ttlSecondsAfterFinished": 60}),
)

