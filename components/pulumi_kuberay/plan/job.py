"""What happens to a changed RayJob and RayCronJob.

RayJob: the RayJob controller reads ``spec`` when a run starts and never submits the job again, so an edit in
place does nothing to a started job except ``suspend`` (true: the job's cluster and submitter are deleted;
false again: the job starts over, ``JobDeploymentStatusSuspended`` -> ``New``). The components replace the
RayJob on any spec change (``replace_on_changes``): the old object is deleted (its running job stopped, its
own cluster deleted) and the job runs again from the start.

RayCronJob: the controller creates each run's RayJob from ``jobTemplate`` at the scheduled time; runs already
created keep their spec. The next run is ``schedule.Next(lastScheduleTime)`` of the new schedule (v1.7), so a
schedule whose next tick after the last run has already passed starts a run at once. ``suspend`` stops new
runs only. With the RayCronJob gate off nothing is reconciled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pulumi_kuberay.kuberay import RAYJOB_TERMINAL_DEPLOYMENT_STATUSES
from pulumi_kuberay.plan import _fields
from pulumi_kuberay.plan._change import Change
from pulumi_kuberay.plan._context import Live, Operator

#: How the new spec reaches the object: ``replace`` (the components: delete and create) or ``apply`` (an
#: update in place, as ``kubectl apply`` or a GitOps tool does).
Mode = Literal["replace", "apply"]
_FINISHED = frozenset(RAYJOB_TERMINAL_DEPLOYMENT_STATUSES)


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _name(manifest: Mapping[str, Any]) -> str:
    return str(_dict(manifest.get("metadata")).get("name") or "?")


def plan_job(
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any],
    operator: Operator | None = None,
    live: Live | None = None,
    *,
    mode: Mode = "replace",
) -> Change:
    """The plan for a RayJob going from ``old`` to ``new``."""
    op = operator or Operator()
    version, name = op.version_text, _name(new)
    live_obj = live.obj if live is not None and live.obj is not None else None
    base = live_obj or old
    source = "the live object" if live_obj is not None else "the last applied manifest"
    spec = _dict(new.get("spec"))
    if base is None:
        if spec.get("suspend") is True:
            return Change(
                "RayJob",
                name,
                "create",
                "a new RayJob, suspended: nothing runs until suspend is false",
                version=version,
            )
        return Change("RayJob", name, "create", "a new RayJob: the job runs", wait="job", version=version)
    old_spec = _dict(base.get("spec"))
    changed = _fields.describe_all(_fields.changed_paths(old_spec, spec))
    status = _dict(base.get("status")) if live_obj is not None else {}
    deployment = status.get("jobDeploymentStatus")
    running = deployment not in _FINISHED and deployment not in (None, "", "New", "Suspended")
    notes: list[str] = []
    if deployment:
        notes.append(f"the current run is {deployment}")
    if old_spec == spec:
        return Change("RayJob", name, "none", "no change to the spec", version=version, source=source)
    if mode == "replace":
        stop = "a running job is stopped and " if running or not deployment else ""
        owned = "its own cluster deleted; " if "rayClusterSpec" in old_spec else ""
        if spec.get("suspend") is True:
            return Change(
                "RayJob",
                name,
                "suspend",
                f"spec changed, so the RayJob is replaced by a suspended one: {stop}{owned}nothing runs until suspend is false",
                changed=changed,
                notes=tuple(notes),
                version=version,
                source=source,
            )
        return Change(
            "RayJob",
            name,
            "rerun-job",
            f"spec changed, so the RayJob is replaced: the old one is deleted ({stop}{owned}its record goes) and the job runs again from the start",
            changed=changed,
            notes=tuple(notes),
            wait="job",
            version=version,
            source=source,
        )
    was, now = old_spec.get("suspend") is True, spec.get("suspend") is True
    if now and not was:
        return Change(
            "RayJob",
            name,
            "suspend",
            "suspend: the job's cluster and submitter are deleted; the job stops (a finished job is left)",
            changed=changed,
            notes=tuple(notes),
            wait="suspended",
            version=version,
            source=source,
        )
    if was and not now:
        return Change(
            "RayJob",
            name,
            "rerun-job",
            "resume: the job starts from the beginning (a new cluster and a new submission)",
            changed=changed,
            notes=tuple(notes),
            wait="job",
            version=version,
            source=source,
        )
    notes.append("a RayJob that has not started yet (New) runs with the new spec")
    return Change(
        "RayJob",
        name,
        "none",
        "the operator does not act on spec edits of a RayJob that has started: the job is not submitted again (delete and re-create the RayJob to run it again)",
        changed=changed,
        notes=tuple(notes),
        version=version,
        source=source,
        facts={"edit_ignored": True},
    )


def plan_cronjob(
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any],
    operator: Operator | None = None,
    live: Live | None = None,
) -> Change:
    """The plan for a RayCronJob going from ``old`` to ``new``."""
    op = operator or Operator()
    version, name = op.version_text, _name(new)
    live_obj = live.obj if live is not None and live.obj is not None else None
    base = live_obj or old
    source = "the live object" if live_obj is not None else "the last applied manifest"
    spec = _dict(new.get("spec"))
    if not op.gate("RayCronJob"):
        return Change(
            "RayCronJob",
            name,
            "none",
            "the operator's RayCronJob feature gate is off: the object is never reconciled, no job runs",
            version=version,
            source=source if base is not None else "",
        )
    if base is None:
        return Change(
            "RayCronJob", name, "create", "a new schedule: the first run starts at its first tick", version=version
        )
    old_spec = _dict(base.get("spec"))
    changed = _fields.describe_all(_fields.changed_paths(old_spec, spec))
    last = _dict(base.get("status")).get("lastScheduleTime") if live_obj is not None else None
    after = f"after the last scheduled run ({last})" if last else "after the last scheduled run"
    if old_spec == spec:
        return Change("RayCronJob", name, "none", "no change to the spec", version=version, source=source)
    was, now = old_spec.get("suspend") is True, spec.get("suspend") is True
    if now and not was:
        return Change(
            "RayCronJob",
            name,
            "suspend",
            "suspend: no new runs; runs already started go on",
            changed=changed,
            version=version,
            source=source,
        )
    if now:
        return Change(
            "RayCronJob",
            name,
            "none",
            "stays suspended: no run starts",
            changed=changed,
            version=version,
            source=source,
        )
    notes = ["runs already started keep the old spec"]
    if was:
        notes.append(f"resumed: the next run is the first tick {after}; if it has passed, one run starts at once")
    schedule_changed = any(old_spec.get(k) != spec.get(k) for k in ("schedule", "timeZone"))
    if schedule_changed and op.version >= (1, 7, 0):
        notes.append(
            f"new schedule: the next run is its first tick {after}; if that has passed, one run starts at once"
        )
    elif schedule_changed:
        notes.append("new schedule: the next run is its first tick after the last run")
    why = (
        "later runs take the new spec"
        if old_spec.get("jobTemplate") != spec.get("jobTemplate")
        else ("the schedule changes for later runs")
    )
    return Change(
        "RayCronJob", name, "next-runs-only", why, changed=changed, notes=tuple(notes), version=version, source=source
    )


__all__ = ["Mode", "plan_cronjob", "plan_job"]
