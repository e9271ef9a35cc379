"""Suspend and TTL: ``shutdownAfterJobFinishes``, ``ttlSecondsAfterFinished`` (``ValidateRayJobSpec``).

Every spec rule checks ``RayJob.spec`` and, for a RayCronJob, ``spec.jobTemplate`` (the operator runs the same
checks there, RCJ-06). Checks read raw manifest dicts and never raise; anything of an unexpected type is
skipped (the structural rules report wrong types).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.paths import as_int

from ._cel import Cel
from ._engine import Context, Violation, declare
from ._examples import example_job
from ._fixed import patch
from ._manifest_readers import per_job_spec

# ----------------------------------------------------------------------------------------------------
# RJ-03 .. RJ-05: suspend and TTL


def _check_suspend_requires_shutdown(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if spec.get("suspend") is True and spec.get("shutdownAfterJobFinishes") is not True:
        yield Violation(
            "suspend is true but shutdownAfterJobFinishes is not: the operator refuses to suspend such a RayJob",
            f"{path}.suspend",
        )


declare(
    id="rayjob-suspend-requires-shutdown",
    title="Suspended RayJob without shutdownAfterJobFinishes",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-03", "RCJ-06"),
    enforced_by=("operator",),
    rationale="Suspending deletes the RayCluster; KubeRay only allows it for jobs that own a disposable cluster.",
    fix="Set shutdownAfterJobFinishes: true, or do not set suspend.",
    check=per_job_spec(_check_suspend_requires_shutdown),
    compliant=example_job(suspend=True),
    violating=example_job(suspend=True, shutdownAfterJobFinishes=False, ttlSecondsAfterFinished=None),
    violating_path="spec.suspend",
    fixed=patch({"spec.shutdownAfterJobFinishes": True, "spec.ttlSecondsAfterFinished": 60}),
    cel=Cel('!(has(j.suspend) && j.suspend) || (has(j.shutdownAfterJobFinishes) && j.shutdownAfterJobFinishes)', over="job", path="suspend"),
)


def _check_ttl_negative(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    ttl = as_int(spec.get("ttlSecondsAfterFinished"))
    if ttl is not None and ttl < 0:
        yield Violation(f"ttlSecondsAfterFinished is {ttl}; it must be >= 0", f"{path}.ttlSecondsAfterFinished")


declare(
    id="rayjob-ttl-negative",
    title="Negative ttlSecondsAfterFinished",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-04", "RCJ-06"),
    enforced_by=("operator",),
    rationale="The operator rejects a negative TTL (ValidationFailed).",
    fix="Use 0 (delete right away) or a positive number of seconds.",
    check=per_job_spec(_check_ttl_negative),
    compliant=example_job(ttlSecondsAfterFinished=0),
    violating=example_job(ttlSecondsAfterFinished=-1),
    violating_path="spec.ttlSecondsAfterFinished",
    fixed=patch({"spec.ttlSecondsAfterFinished": 0}),
    cel=Cel('!has(j.ttlSecondsAfterFinished) || j.ttlSecondsAfterFinished >= 0', over="job", path="ttlSecondsAfterFinished"),
)


def _check_ttl_requires_shutdown(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    ttl = as_int(spec.get("ttlSecondsAfterFinished"))
    if ttl is not None and ttl > 0 and spec.get("shutdownAfterJobFinishes") is not True:
        yield Violation(
            f"ttlSecondsAfterFinished is {ttl} but shutdownAfterJobFinishes is not true; the operator rejects a TTL without shutdown",
            f"{path}.ttlSecondsAfterFinished",
        )


declare(
    id="rayjob-ttl-requires-shutdown",
    title="ttlSecondsAfterFinished without shutdownAfterJobFinishes",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-05", "RCJ-06"),
    enforced_by=("operator",),
    rationale="The TTL only delays the cluster deletion that shutdownAfterJobFinishes triggers; alone it is an error (validateDeletionConfiguration).",
    fix="Set shutdownAfterJobFinishes: true, or remove ttlSecondsAfterFinished (use deletionRules TTLs instead).",
    check=per_job_spec(_check_ttl_requires_shutdown),
    compliant=example_job(shutdownAfterJobFinishes=True, ttlSecondsAfterFinished=30),
    violating=example_job(shutdownAfterJobFinishes=False, ttlSecondsAfterFinished=30),
    violating_path="spec.ttlSecondsAfterFinished",
    fixed=patch({"spec.shutdownAfterJobFinishes": True}),
    cel=Cel('!has(j.ttlSecondsAfterFinished) || j.ttlSecondsAfterFinished <= 0 || (has(j.shutdownAfterJobFinishes) && j.shutdownAfterJobFinishes)', over="job", path="ttlSecondsAfterFinished"),
)
