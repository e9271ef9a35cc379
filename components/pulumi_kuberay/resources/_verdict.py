"""When a ``pulumi up`` wait on a KubeRay object is over: done, failed (with our diagnosis), or still waiting.

Pure (no I/O, no pulumi, no clock: every time comes in as an argument and is the API server's clock). The
component-side await (``_component_await``) polls the object and its events and asks :func:`verdict` after every poll.

Why the component waits itself instead of the provider's ``pulumi.com/waitFor``: the provider treats a
``jsonpath=`` or ``condition=`` wait as unmet while ``status.observedGeneration < metadata.generation``
(``JSONPath.Satisfied`` in pulumi-kubernetes ``provider/pkg/await/condition/jsonpath.go``), ignores every
other signal and cannot fail early. KubeRay writes a RayCluster status only when ``InconsistentRayClusterStatus``
(``utils/consistency.go``) sees a change other than ``observedGeneration``, so after an image-only edit the
generation stays behind forever; RayService writes the new generation on its first pass while ``Ready`` is
still True on the old cluster; spec errors of a RayCluster are only events. The rules read the object as the
operator (v1.6.1 and v1.7.0 alike) writes it (done and failed: the comment above :func:`verdict`):

* **this generation** -- RayCluster and RayService write ``status.observedGeneration`` (RayJob never does; the
  component replaces a RayJob on any spec change, so its status is always about the current spec). A status
  that is behind is trusted only once the operator has had ``settle_seconds`` since our last write of the
  object (``metadata.managedFields[].time``) to react: a RayCluster that it did not rewrite by then has
  nothing to change in its status.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Literal

from pulumi_kuberay.kuberay import KUEUE_QUEUE_LABEL as _KUEUE_QUEUE_LABEL
from pulumi_kuberay.kuberay import RAYJOB_TERMINAL_DEPLOYMENT_STATUSES
from pulumi_kuberay.kuberay.paths import as_int, get
from pulumi_kuberay.status import HEAD_WAITING_STUCK_REASONS, diagnose, parse_time

__all__ = [
    "DEFAULT_SETTLE_SECONDS",
    "DEFAULT_STUCK_SECONDS",
    "Verdict",
    "deletes_itself",
    "job_failed",
    "last_spec_write",
    "verdict",
]

#: How long after our last write a status that is behind the generation is taken as the operator's answer.
#: The operator reconciles on the watch event of the edit, normally within a second.
DEFAULT_SETTLE_SECONDS: Final = 10.0
#: How long a head Pod may sit in a reason that does not fix itself before the wait fails.
DEFAULT_STUCK_SECONDS: Final = 45.0

#: Container reasons of a head Pod that need a fix (the diagnosis's table, waiting reasons only).
HEAD_STUCK_REASONS: Final = HEAD_WAITING_STUCK_REASONS
#: Events the operator emits instead of a status when it rejects an object (rayClusterReconcile and friends).
REJECTION_EVENTS: Final = frozenset(
    {
        "InvalidRayClusterSpec",
        "InvalidRayClusterMetadata",
        "InvalidRayClusterStatus",
        "InvalidRayServiceSpec",
        "InvalidRayServiceMetadata",
        "InvalidRayJobSpec",
        "InvalidRayJobMetadata",
        "InvalidRayJobStatus",
    }
)
_BUSY_APPS: Final = frozenset({"NOT_STARTED", "DEPLOYING", "DELETING", ""})

State = Literal["done", "failed", "waiting"]


@dataclass(frozen=True)
class Verdict:
    """``state`` and one line saying why (the diagnosis for ``failed``, the awaited thing for ``waiting``)."""

    state: State
    reason: str

    @property
    def over(self) -> bool:
        return self.state != "waiting"


# --------------------------------------------------------------------------------------------------
# Small readers (total: they accept anything), shared with diagnose().


def _time(value: Any) -> datetime | None:
    return parse_time(value) if isinstance(value, str) else None


def _conditions(status: Any) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for item in get(status, "conditions") or []:
        if isinstance(item, Mapping) and isinstance(item.get("type"), str):
            out[item["type"]] = item
    return out


def _is(conds: Mapping[str, Mapping[str, Any]], ctype: str, value: str = "True") -> bool:
    return bool(get(conds, ctype, "status") == value)


def last_spec_write(obj: Mapping[str, Any]) -> datetime | None:
    """When the object (not its status) was last written, from ``metadata.managedFields`` (second resolution)."""
    times = [
        parsed
        for entry in get(obj, "metadata", "managedFields") or []
        if isinstance(entry, Mapping) and entry.get("subresource") != "status"
        if (parsed := _time(entry.get("time"))) is not None
    ]
    created = _time(get(obj, "metadata", "creationTimestamp"))
    if created is not None:
        times.append(created)
    return max(times) if times else None


def _event_time(event: Mapping[str, Any]) -> datetime | None:
    """core/v1 view of an event: v1.6.1's recorder sets lastTimestamp, v1.7.0's events API eventTime/series."""
    candidates = [
        _time(event.get("lastTimestamp")),
        _time(event.get("eventTime")),
        _time(get(event, "series", "lastObservedTime")),
        _time(event.get("firstTimestamp")),
    ]
    known = [t for t in candidates if t is not None]
    return max(known) if known else None


def _rejection(events: Sequence[Mapping[str, Any]], since: datetime | None) -> str | None:
    """The newest operator rejection event at or after ``since`` (None: any time), as ``Reason: message``."""
    newest: tuple[datetime, str] | None = None
    for event in events:
        reason = event.get("reason")
        if reason not in REJECTION_EVENTS:
            continue
        when = _event_time(event) or datetime.min.replace(tzinfo=UTC)
        if since is not None and when < since:
            continue
        text = f"{reason}: {event.get('message') or event.get('note') or ''}".strip()
        if newest is None or when >= newest[0]:
            newest = (when, text)
    return newest[1] if newest else None


def _line(obj: Mapping[str, Any]) -> str:
    return diagnose(obj).line()


# --------------------------------------------------------------------------------------------------
# The verdict.


@dataclass(frozen=True)
class _Clock:
    now: datetime
    settled: bool  # the operator has had settle_seconds since our last write
    stuck_seconds: float
    last_write: datetime | None

    def stuck(self, condition: Mapping[str, Any]) -> bool:
        since = _time(condition.get("lastTransitionTime"))
        return since is not None and (self.now - since).total_seconds() >= self.stuck_seconds


# What verdict() calls done and failed, as the operator writes the object:
# * done -- RayCluster: head Pod ready (HeadPodReady True; state: ready without conditions), or
#   Suspended when spec.suspend is true. RayService: Ready True on this generation with no upgrade or
#   rollback in progress and every active Serve app RUNNING (the new cluster serves, the new config is live),
#   or Suspended. RayJob: a terminal jobDeploymentStatus (Complete, Failed, ValidationFailed), Waiting
#   in InteractiveMode (the user submits), or Suspended when the user (not Kueue) suspended it.
# * failed -- a state the operator will not leave by itself: a rejected spec (InvalidRayClusterSpec event,
#   ValidationFailed), InitializingTimeout, a head Pod stuck (image pull, crash loop, ...) or Pod creation
#   refused (ReplicaFailure) for stuck_seconds, a Serve app DEPLOY_FAILED, a RayJob that failed. The
#   message is pulumi_kuberay.diagnose's line.
def verdict(
    obj: Mapping[str, Any] | None,
    events: Sequence[Mapping[str, Any]] = (),
    *,
    now: datetime,
    settle_seconds: float = DEFAULT_SETTLE_SECONDS,
    stuck_seconds: float = DEFAULT_STUCK_SECONDS,
    deleted_ok: bool = False,
) -> Verdict:
    """Is the wait on ``obj`` (the live object, None when it is gone) over? ``events`` are the core/v1 events
    whose involvedObject is ``obj``; ``now`` is the API server's time (its ``Date`` header). ``deleted_ok``: an
    object that disappears counts as done (a RayJob its operator deletes: ``DeleteSelf``)."""
    if obj is None:
        if deleted_ok:
            return Verdict("done", "the object was deleted (a DeleteSelf deletion rule) before its status was read")
        return Verdict("failed", "the object was deleted while pulumi waited for it")
    if get(obj, "metadata", "deletionTimestamp"):
        return Verdict("failed", "the object is being deleted: " + _line(obj))
    last_write = last_spec_write(obj)
    settled = last_write is None or (now - last_write).total_seconds() >= settle_seconds
    clock = _Clock(now=now, settled=settled, stuck_seconds=stuck_seconds, last_write=last_write)
    if rejected := _rejected(obj, events, clock):
        return rejected
    kind = obj.get("kind")
    if kind == "RayCluster":
        return _cluster(obj, events, clock)
    if kind == "RayService":
        return _service(obj, events, clock)
    if kind == "RayJob":
        return _job(obj, events, clock)
    return Verdict("done", f"nothing to wait for on a {kind}")


def _fresh(obj: Mapping[str, Any]) -> bool:
    generation = as_int(get(obj, "metadata", "generation"))
    observed = as_int(get(obj, "status", "observedGeneration"))
    return generation is None or (observed is not None and observed >= generation)


def _rejected(obj: Mapping[str, Any], events: Sequence[Mapping[str, Any]], clock: _Clock) -> Verdict | None:
    """A rejection event about the current spec: one emitted since our last write (the operator validates on
    every reconcile, and it reconciles on every edit); or, once settled, any rejection of an object that still
    has no status at all (the operator never accepted it, and nothing since said otherwise). Events of an
    earlier object of the same name (another uid) are ignored."""
    uid = get(obj, "metadata", "uid")
    mine = [e for e in events if not uid or get(e, "involvedObject", "uid") in (None, "", uid)]
    rejection = _rejection(mine, clock.last_write)
    if rejection is None and not obj.get("status") and clock.settled:
        rejection = _rejection(mine, None)
    if rejection is None:
        return None
    return Verdict("failed", f"the operator rejected the spec ({rejection})")


def _head_stuck(status: Any, clock: _Clock) -> str | None:
    conds = _conditions(status)
    head = conds.get("HeadPodReady")
    if head and head.get("status") != "True" and head.get("reason") in HEAD_STUCK_REASONS and clock.stuck(head):
        return f"head pod {head.get('reason')}"
    failure = conds.get("ReplicaFailure")
    if (
        failure
        and failure.get("status") == "True"
        and failure.get("reason") in ("FailedCreateHeadPod", "FailedDeleteAllPods")
        and clock.stuck(failure)
    ):
        return f"ReplicaFailure {failure.get('reason')}"
    return None


def _cluster(obj: Mapping[str, Any], events: Sequence[Mapping[str, Any]], clock: _Clock) -> Verdict:
    status = obj.get("status")
    fresh = _fresh(obj)
    if not status:
        return Verdict("waiting", "no status yet: " + _line(obj))
    conds = _conditions(status)
    current = fresh or clock.settled
    if _is(conds, "RayClusterSuspending") and _is(conds, "RayClusterSuspended"):
        # ValidateRayClusterStatus: the operator refuses to reconcile it (only an external writer sets both).
        return Verdict("failed", _line(obj))
    if get(obj, "spec", "suspend") is True:
        suspended = _is(conds, "RayClusterSuspended") if conds else get(status, "state") == "suspended"
        if suspended and current:
            return Verdict("done", "suspended (spec.suspend=true): all pods deleted")
        return Verdict("waiting", "suspending: " + _line(obj))
    if conds:
        if _is(conds, "RayClusterSuspended") or _is(conds, "RayClusterSuspending"):
            return Verdict("waiting", "resuming: " + _line(obj))
        ready = _is(conds, "HeadPodReady")
    else:  # RayClusterStatusConditions gate off (or an operator before v1.2): the deprecated state
        ready = get(status, "state") == "ready"
    if ready and current:
        behind = as_int(get(status, "observedGeneration")) is not None and not fresh
        note = " (status not rewritten for this generation: nothing in it changed)" if behind else ""
        return Verdict("done", "head pod ready" + note)
    if current and (stuck := _head_stuck(status, clock)):
        return Verdict("failed", f"{stuck} for over {clock.stuck_seconds:.0f}s: " + _line(obj))
    return Verdict("waiting", _line(obj))


def _apps(status: Any, side: str) -> dict[str, str]:
    apps = get(status, side, "applicationStatuses")
    if not isinstance(apps, Mapping):
        return {}
    return {str(name): str(get(app, "status") or "") for name, app in apps.items()}


def _service(obj: Mapping[str, Any], events: Sequence[Mapping[str, Any]], clock: _Clock) -> Verdict:
    status = obj.get("status")
    fresh = _fresh(obj)
    if not status:
        return Verdict("waiting", "no status yet: " + _line(obj))
    conds = _conditions(status)
    ready = conds.get("Ready") or {}
    reason = ready.get("reason")
    if ready.get("status") != "True" and reason == "InitializingTimeout":
        # isInitializingTimeout short-circuits every later reconcile, whatever the generation: only a new
        # object (delete and recreate) starts over.
        return Verdict("failed", _line(obj) + " (replace the RayService: a spec change does not clear it)")
    if ready.get("status") != "True" and reason == "ValidationFailed" and not fresh and clock.settled:
        # validateRayService writes this condition without advancing observedGeneration.
        return Verdict("failed", _line(obj))
    # v1.6.1 has no spec.suspend: the API server prunes it, so the live spec says what the operator sees.
    if get(obj, "spec", "suspend") is True:
        if _is(conds, "Suspended") and fresh:
            return Verdict("done", "suspended (spec.suspend=true): no clusters, no traffic")
        return Verdict("waiting", "suspending: " + _line(obj))
    if not conds:  # an operator without conditions: the deprecated serviceStatus
        if get(status, "serviceStatus") == "Running" and (fresh or clock.settled):
            return Verdict("done", "serviceStatus Running")
        return Verdict("waiting", _line(obj))
    if not fresh:
        return Verdict("waiting", "the operator has not reconciled this generation yet: " + _line(obj))
    active, pending = _apps(status, "activeServiceStatus"), _apps(status, "pendingServiceStatus")
    failed_apps = [f"active app {n}" for n, s in active.items() if s == "DEPLOY_FAILED"]
    failed_apps += [f"pending app {n}" for n, s in pending.items() if s == "DEPLOY_FAILED"]
    if failed_apps and clock.settled:
        return Verdict("failed", f"{', '.join(failed_apps)} DEPLOY_FAILED: " + _line(obj))
    for side in ("pendingServiceStatus", "activeServiceStatus"):
        if stuck := _head_stuck(get(status, side, "rayClusterStatus"), clock):
            cluster = get(status, side, "rayClusterName") or "?"
            return Verdict("failed", f"{stuck} on cluster {cluster} for over {clock.stuck_seconds:.0f}s: " + _line(obj))
    serving = ready.get("status") == "True"
    upgrading = _is(conds, "UpgradeInProgress") or _is(conds, "RollbackInProgress")
    busy = sorted(n for n, s in active.items() if s in _BUSY_APPS)
    if serving and not upgrading and not busy:
        return Verdict("done", "ready: " + _line(obj))
    return Verdict("waiting", _line(obj))


_JOB_TERMINAL: Final = frozenset(RAYJOB_TERMINAL_DEPLOYMENT_STATUSES)


def job_failed(obj: Mapping[str, Any]) -> bool:
    """A RayJob that is over and did not succeed: Failed, ValidationFailed, and Complete with jobStatus STOPPED
    or FAILED (the operator calls any terminal Ray job Complete; :func:`diagnose` does not)."""
    if get(obj, "status", "jobDeploymentStatus") not in _JOB_TERMINAL:
        return False
    return diagnose(obj).phase == "failed"


def deletes_itself(spec: Mapping[str, Any]) -> bool:
    """Does a deletion rule delete the RayJob object itself (``DeleteSelf``) once it has run?"""
    rules = get(spec, "deletionStrategy", "deletionRules") or []
    return any(isinstance(rule, Mapping) and rule.get("policy") == "DeleteSelf" for rule in rules)


def _job(obj: Mapping[str, Any], events: Sequence[Mapping[str, Any]], clock: _Clock) -> Verdict:
    status = obj.get("status")
    if not status:
        return Verdict("waiting", "no status yet: " + _line(obj))
    deployment = get(status, "jobDeploymentStatus") or ""
    if deployment in _JOB_TERMINAL:
        return Verdict("failed" if job_failed(obj) else "done", diagnose(obj).line())
    if deployment == "Waiting" and get(obj, "spec", "submissionMode") == "InteractiveMode":
        return Verdict("done", "waiting for you to submit the job (InteractiveMode): " + _line(obj))
    labels = get(obj, "metadata", "labels") or {}
    by_user = get(obj, "spec", "suspend") is True and _KUEUE_QUEUE_LABEL not in labels
    if deployment == "Suspended" and by_user:
        return Verdict("done", "suspended (spec.suspend=true): nothing runs until it is set to false")
    return Verdict("waiting", _line(obj))
