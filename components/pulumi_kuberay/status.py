"""Read the status of a live KubeRay object: what state it is in, in one line, and what to check next.

:func:`diagnose` takes an object as returned by ``kubectl get <kind> <name> -o json`` (a plain ``dict``) of
any of the four ``ray.io`` kinds and returns a :class:`Diagnosis`: a coarse *phase*, a one-line summary, the
status fields it relied on (with their paths) and the next thing to check. It is pure (no I/O, no clock unless
``now`` is given), never imports pulumi and never raises: what it cannot interpret comes back as phase
``unknown`` with the reason.

The state machines are those of KubeRay v1.7.0 (RayCluster conditions; RayJob ``jobDeploymentStatus``,
``jobStatus`` and ``reason``; RayService conditions and Serve application statuses; RayCronJob
``lastScheduleTime``). Objects written by older operators (no conditions, only the deprecated ``status.state``
/ ``status.serviceStatus``) are read through those fields. The knowledge lives in the tables below
(``_JOB_*``, ``_CLUSTER_*``, ``_SERVICE_*``, ``_CRON_*``); the functions only walk them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal, NamedTuple

__all__ = [
    "OK_PHASES",
    "PHASES",
    "Diagnosis",
    "Phase",
    "diagnose",
]

Phase = Literal["healthy", "succeeded", "progressing", "degraded", "failed", "suspended", "unknown"]

#: Every phase, from best to worst-known; ``healthy``/``succeeded`` are the two "nothing to do" phases.
PHASES: Final[tuple[Phase, ...]] = (
    "healthy",
    "succeeded",
    "progressing",
    "degraded",
    "failed",
    "suspended",
    "unknown",
)
OK_PHASES: Final[frozenset[str]] = frozenset({"healthy", "succeeded"})

RAY_KINDS: Final[tuple[str, ...]] = ("RayCluster", "RayJob", "RayService", "RayCronJob")

_MAX_TEXT = 240  # longest free text (a Ray job message, a condition message) quoted in a one-line summary


@dataclass(frozen=True)
class Diagnosis:
    """What :func:`diagnose` concluded about one object.

    ``evidence`` holds ``(path, value)`` pairs, paths relative to the object: ``status.jobDeploymentStatus``,
    ``status.conditions[type=HeadPodReady].reason``,
    ``status.activeServiceStatus.applicationStatuses.<app>.status``.
    """

    kind: str
    name: str
    namespace: str
    phase: Phase
    summary: str
    evidence: tuple[tuple[str, Any], ...] = field(default=())
    next_step: str = ""

    @property
    def ok(self) -> bool:
        """True when nothing needs doing (phase ``healthy`` or ``succeeded``)."""
        return self.phase in OK_PHASES

    @property
    def ref(self) -> str:
        """``Kind namespace/name`` as people write it."""
        who = f"{self.namespace}/{self.name}" if self.namespace else (self.name or "<unnamed>")
        return f"{self.kind or '<no kind>'} {who}"

    def evidence_paths(self) -> list[str]:
        return [path for path, _ in self.evidence]

    def line(self) -> str:
        """One readable line: ``RayJob default/train: failed — job FAILED after 3m: ...; next: ...``."""
        text = f"{self.ref}: {self.phase} — {self.summary}"
        if self.next_step:
            text += f"; next: {self.next_step}"
        return _one_line(text, limit=None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "namespace": self.namespace,
            "phase": self.phase,
            "ok": self.ok,
            "summary": self.summary,
            "evidence": [{"path": path, "value": value} for path, value in self.evidence],
            "next_step": self.next_step,
        }


# ------------------------------------------------------------------------------------------------------------
# Tables. Templates are ``str.format_map`` templates over the facts gathered for the object (missing keys
# render as "?"); values interpolated into them are already made one-line and short.
# ------------------------------------------------------------------------------------------------------------


class _Rule(NamedTuple):
    phase: Phase
    summary: str
    next_step: str = ""


_EXPLAIN_CLUSTER = "kubectl get raycluster -n {ns} {cluster} -o json | kuberay-explain -"
_DESCRIBE = "kubectl describe {kind_lower} -n {ns} {name}"
_EVENTS = "kubectl get events -n {ns} --field-selector involvedObject.name={name} --sort-by=.lastTimestamp"
_HEAD_POD = "kubectl describe pod -n {ns} -l ray.io/cluster={cluster},ray.io/node-type=head"

# --- RayJob -------------------------------------------------------------------------------------------------

#: status.jobDeploymentStatus -> rule, for every value of the v1.7.0 state machine except Running and Failed
#: (which depend on jobStatus and reason, tables below). "" is New.
_JOB_DEPLOYMENT: Final[dict[str, _Rule]] = {
    "": _Rule(
        "progressing",
        "new: the operator accepted it and is about to create the RayCluster",
        _DESCRIBE,
    ),
    "Initializing": _Rule(
        "progressing",
        "waiting for cluster: jobDeploymentStatus Initializing, RayCluster {cluster} is not ready yet{since}"
        "{cluster_detail}",
        _EXPLAIN_CLUSTER,
    ),
    "Waiting": _Rule(
        "progressing",
        "waiting for you to submit the job (InteractiveMode): RayCluster {cluster} is up{since}",
        "submit with `ray job submit --address http://{dashboard} -- ...`, then set spec.jobId to its"
        " submission id",
    ),
    "Complete": _Rule(
        "succeeded",
        "job {job_status_or_done}{duration}{grace_note}",
        "",
    ),
    "Retrying": _Rule(
        "degraded",
        "retrying: attempt {attempt} failed ({reason_text}){message_part}; a new RayCluster is being created"
        " (backoffLimit {backoff_limit})",
        "{logs}",
    ),
    "Suspending": _Rule(
        "suspended",
        "suspending (spec.suspend=true): deleting RayCluster {cluster} and the submitter",
        "set spec.suspend=false to run it again (it restarts from scratch)",
    ),
    "Suspended": _Rule(
        "suspended",
        "suspended (spec.suspend=true): no RayCluster, nothing runs",
        "set spec.suspend=false to run it again (it restarts from scratch with a new RayCluster)",
    ),
    "ValidationFailed": _Rule(
        "failed",
        "spec rejected by the operator (ValidationFailed): {message}",
        "fix the spec, then delete and recreate the RayJob (the operator never leaves ValidationFailed)",
    ),
}

#: status.jobStatus while jobDeploymentStatus is Running.
_JOB_RUNNING: Final[dict[str, _Rule]] = {
    "": _Rule(
        "progressing",
        "submitting: RayCluster {cluster} is ready, the job has not been seen by the Ray dashboard"
        " yet{since}",
        "{logs}",
    ),
    "PENDING": _Rule(
        "progressing",
        "job PENDING on RayCluster {cluster} (waiting for resources or for the driver to start){since}",
        "{logs}",
    ),
    "RUNNING": _Rule("progressing", "job RUNNING on RayCluster {cluster}{since}", "{logs}"),
    "SUCCEEDED": _Rule(
        "progressing",
        "job SUCCEEDED; waiting for the submitter to exit before marking the RayJob Complete",
        "{logs}",
    ),
    "STOPPED": _Rule(
        "progressing",
        "job STOPPED; waiting for the submitter to exit before marking the RayJob Complete",
        "{logs}",
    ),
    "FAILED": _Rule(
        "degraded",
        "job FAILED{message_part}; the RayJob is not marked Failed yet (waiting for the submitter to exit)",
        "{logs}",
    ),
}

#: status.reason when jobDeploymentStatus is Failed.
_JOB_FAILED: Final[dict[str, _Rule]] = {
    "AppFailed": _Rule("failed", "job FAILED{duration}{attempts}{message_part}", "{logs}"),
    "SubmissionFailed": _Rule(
        "failed",
        "job submission failed{duration}{attempts}: the submitter could not submit the job{message_part}",
        "{logs}",
    ),
    "DeadlineExceeded": _Rule(
        "failed",
        "activeDeadlineSeconds ({active_deadline}s) exceeded{duration}; {deadline_cause} (not retried)",
        "{deadline_next}",
    ),
    "PreRunningDeadlineExceeded": _Rule(
        "failed",
        "preRunningDeadlineSeconds ({pre_running_deadline}s) exceeded{attempts}: the job never reached"
        " Running"
        " — {deadline_cause}",
        "{deadline_next}",
    ),
    "JobDeploymentStatusTransitionGracePeriodExceeded": _Rule(
        "failed",
        "job {job_status_or_unknown} but the submitter never exited; the operator gave up after the"
        " transition"
        " grace period{message_part}",
        "{logs}",
    ),
    "JobStatusCheckTimeoutExceeded": _Rule(
        "failed",
        "lost contact with the Ray dashboard (status checks failed{check_since} for longer than"
        " RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS); the job's own outcome is unknown (not retried)",
        "check the head pod and dashboard: " + _HEAD_POD,
    ),
    "ValidationFailed": _Rule(
        "failed",
        "spec rejected by the operator (ValidationFailed): {message}",
        "fix the spec, then delete and recreate the RayJob",
    ),
}
_JOB_FAILED_OTHER: Final = _Rule(
    "failed", "job failed{duration}{attempts} (reason {reason_text}){message_part}", "{logs}"
)

#: jobStatus values in a Complete RayJob that are not a success.
_JOB_COMPLETE_NOT_SUCCESS: Final[dict[str, _Rule]] = {
    "STOPPED": _Rule(
        "failed",
        "job STOPPED{duration}: it was stopped (ray job stop) before finishing; the RayJob is Complete",
        "{logs}",
    ),
    "FAILED": _Rule("failed", "job FAILED{duration}{message_part}", "{logs}"),
}

#: Waiting is only valid for InteractiveMode (operator rule RJ-40, ValidateRayJobStatus).
_JOB_RJ40: Final = _Rule(
    "failed",
    "invalid status: jobDeploymentStatus Waiting with submissionMode {mode} (Waiting is only valid for"
    " InteractiveMode, operator rule RJ-40); the operator refuses to reconcile it",
    "delete and recreate the RayJob; see the InvalidRayJobStatus event: " + _EVENTS,
)

_JOB_NO_STATUS: Final = _Rule(
    "progressing",
    "no status yet: the operator has not picked it up (is the KubeRay operator running and watching namespace"
    " {ns_or_default}? an invalid metadata.name is reported only as an event)",
    _EVENTS,
)

# --- RayCluster ---------------------------------------------------------------------------------------------

#: HeadPodReady reasons (container waiting/terminated reasons surface here) that will not fix themselves.
_HEAD_STUCK_REASONS: Final[frozenset[str]] = frozenset(
    {
        "CrashLoopBackOff",
        "ImagePullBackOff",
        "ErrImagePull",
        "ErrImageNeverPull",
        "InvalidImageName",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
        "PreStartHookError",
        "PostStartHookError",
        "OOMKilled",
        "Error",
        "ContainerCannotRun",
        "DeadlineExceeded",
        "Evicted",
    }
)

#: ReplicaFailure reasons -> what failed.
_CLUSTER_REPLICA_FAILURE: Final[dict[str, str]] = {
    "FailedCreateHeadPod": "could not create the head pod",
    "FailedDeleteHeadPod": "could not delete the head pod",
    "FailedCreateWorkerPod": "could not create worker pods",
    "FailedDeleteWorkerPod": "could not delete worker pods",
    "FailedDeleteAllPods": "could not delete the pods",
}

_CLUSTER_RC86: Final = _Rule(
    "failed",
    "invalid status: conditions RayClusterSuspending and RayClusterSuspended are both True (operator rule"
    " RC-86);"
    " the operator refuses to reconcile it",
    "see the event: " + _EVENTS + "; recreating the RayCluster clears it",
)

_CLUSTER_NO_STATUS: Final = _Rule(
    "progressing",
    "no status yet: the operator has not reconciled it; if this lasts, the spec or metadata was probably"
    " rejected"
    " (RayCluster validation errors appear only as InvalidRayClusterSpec/InvalidRayClusterMetadata events)",
    _EVENTS,
)

#: Deprecated status.state (older operators, or conditions gate off).
_CLUSTER_LEGACY_STATE: Final[dict[str, _Rule]] = {
    "ready": _Rule(
        "healthy",
        "state ready (deprecated status.state, no conditions: older operator or RayClusterStatusConditions"
        " gate"
        " off){workers}",
        "",
    ),
    "suspended": _Rule(
        "suspended",
        "state suspended (spec.suspend=true): all pods deleted",
        "set spec.suspend=false to resume",
    ),
    "failed": _Rule("failed", "state failed{reason_part}", _EVENTS),
    "unhealthy": _Rule("degraded", "state unhealthy{reason_part}", _HEAD_POD),
    "": _Rule(
        "progressing",
        "not ready yet{reason_part} (deprecated status.state empty, no conditions){workers}",
        "kubectl get pods -n {ns} -l ray.io/cluster={name}",
    ),
}

# --- RayService ---------------------------------------------------------------------------------------------

#: Ready=False reasons that decide the phase on their own.
_SERVICE_READY_FALSE: Final[dict[str, _Rule]] = {
    "ValidationFailed": _Rule(
        "failed",
        "spec rejected by the operator (Ready False, ValidationFailed): {ready_message}",
        "fix the spec; see " + _EVENTS,
    ),
    "InitializingTimeout": _Rule(
        "failed",
        "did not become ready within the ray.io/initializing-timeout annotation (Ready False,"
        " InitializingTimeout);"
        " its clusters were deleted and it stays failed{ready_message_part}",
        "delete and recreate the RayService after fixing the cause (earlier events: " + _EVENTS + ")",
    ),
    "SuspendInProgress": _Rule(
        "suspended",
        "suspending (spec.suspend=true): deleting its clusters and services",
        "set spec.suspend=false to resume",
    ),
    "SuspendComplete": _Rule(
        "suspended",
        "suspended (spec.suspend=true): no clusters, no traffic",
        "set spec.suspend=false to resume",
    ),
}

#: Ray Serve application statuses: "ok", "busy" (transitional) or "bad".
_APP_STATUS: Final[dict[str, str]] = {
    "RUNNING": "ok",
    "NOT_STARTED": "busy",
    "DEPLOYING": "busy",
    "DELETING": "busy",
    "DEPLOY_FAILED": "bad",
    "UNHEALTHY": "bad",
}
#: Serve deployment statuses.
_DEPLOYMENT_STATUS: Final[dict[str, str]] = {
    "HEALTHY": "ok",
    "UPDATING": "busy",
    "UPSCALING": "busy",
    "DOWNSCALING": "busy",
    "UNHEALTHY": "bad",
    "DEPLOY_FAILED": "bad",
}

#: Deprecated status.serviceStatus (no conditions: older operator). v1.7 writes only "Running" or "".
_SERVICE_LEGACY_STATUS: Final[dict[str, _Rule]] = {
    "Running": _Rule(
        "healthy", "serviceStatus Running (deprecated field, no conditions: older operator){apps}", ""
    ),
    "": _Rule(
        "progressing", "not running yet (deprecated serviceStatus empty, no conditions){apps}", _DESCRIBE
    ),
    "WaitForServeDeploymentReady": _Rule(
        "progressing", "waiting for the Serve deployments to become ready{apps}", _DESCRIBE
    ),
    "WaitForDashboard": _Rule("progressing", "waiting for the Ray dashboard{apps}", _DESCRIBE),
    "Restarting": _Rule("degraded", "restarting (older operator serviceStatus Restarting){apps}", _DESCRIBE),
}

_SERVICE_NO_STATUS: Final = _Rule(
    "progressing",
    "no status yet: the operator has not reconciled it (is the KubeRay operator running and watching"
    " namespace"
    " {ns_or_default}?)",
    _EVENTS,
)

# --- RayCronJob ---------------------------------------------------------------------------------------------

_CRON_RULES: Final[dict[str, _Rule]] = {
    "suspended": _Rule(
        "suspended",
        "suspended (spec.suspend=true): no new RayJobs are scheduled{last}",
        "set spec.suspend=false to resume scheduling",
    ),
    "scheduled": _Rule(
        "healthy",
        "scheduling on '{schedule}'{tz}; last run scheduled at {last_time}",
        "its runs are RayJobs: kubectl get rayjobs -n {ns} -l ray.io/cronjob-name={name} -o json |"
        " kuberay-explain -",
    ),
    "never": _Rule(
        "progressing",
        "nothing scheduled yet on '{schedule}'{tz} (no status.lastScheduleTime); if a tick has passed, the"
        " RayCronJob controller is off (operator feature gate RayCronJob is alpha, default off) or the spec"
        " was"
        " rejected (InvalidRayCronJobSpec event)",
        _EVENTS,
    ),
}


# ------------------------------------------------------------------------------------------------------------
# Small, total helpers (every one accepts anything).
# ------------------------------------------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def _one_line(text: str, limit: int | None = _MAX_TEXT) -> str:
    flat = " ".join(_CONTROL.sub(" ", text).split())
    if limit is not None and len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return flat


def _brief_message(message: str) -> str:
    """First line of a (possibly huge, multi-line) message plus its last line (a traceback's error)."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    if len(lines) == 1:
        return _one_line(lines[0])
    first, last = _one_line(lines[0], 160), _one_line(lines[-1], 160)
    return first if first == last else f"{first} … {last}"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def _int(value: Any) -> int | None:
    """An integer field's value; integral floats count: the Pulumi SDK hands every number over as a float
    (a live ``status`` output has ``readyWorkerReplicas: 1.0``), JSON from kubectl has ints."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return _one_line(repr(value), 200)


def _parse_time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _duration(seconds: float) -> str:
    total = int(max(seconds, 0))
    if total < 60:
        return f"{total}s"
    minutes, secs = divmod(total, 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s" if secs else f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}h{minutes:02d}m" if minutes else f"{hours}h"
    return f"{hours // 24}d{hours % 24}h"


class _Facts(dict[str, str]):
    """Template values; a missing key renders as "?" instead of raising."""

    def __missing__(self, key: str) -> str:
        return "?"


class _Reader:
    """Collects evidence while reading fields of one object."""

    def __init__(self, obj: Mapping[str, Any]) -> None:
        self.obj = obj
        self.evidence: list[tuple[str, Any]] = []
        self._seen: set[str] = set()

    def note(self, path: str, value: Any) -> None:
        if path not in self._seen:
            self._seen.add(path)
            self.evidence.append((path, _scalar(value)))

    def get(self, path: str, *, record: bool = True) -> Any:
        """Value at dotted ``path`` (``status.rayClusterStatus.state``); recorded as evidence when present."""
        value = _get(self.obj, *path.split("."))
        if record and value is not None:
            self.note(path, value)
        return value

    def text(self, path: str, *, record: bool = True) -> str:
        return _text(self.get(path, record=record))

    def conditions(self, base: str) -> dict[str, Mapping[str, Any]]:
        """``<base>.conditions`` as {type: condition}; malformed entries are skipped."""
        raw = _get(self.obj, *base.split("."), "conditions")
        out: dict[str, Mapping[str, Any]] = {}
        if isinstance(raw, Sequence) and not isinstance(raw, str):
            for item in raw:
                if isinstance(item, Mapping) and isinstance(item.get("type"), str):
                    out[item["type"]] = item
        return out

    def condition(
        self, base: str, conds: Mapping[str, Mapping[str, Any]], ctype: str
    ) -> tuple[str, str, str]:
        """(status, reason, message) of condition ``ctype``, recorded as evidence; "" when absent."""
        cond = conds.get(ctype)
        if cond is None:
            return "", "", ""
        prefix = f"{base}.conditions[type={ctype}]"
        status, reason, message = (
            _text(cond.get("status")),
            _text(cond.get("reason")),
            _text(cond.get("message")),
        )
        self.note(f"{prefix}.status", status)
        if reason:
            self.note(f"{prefix}.reason", reason)
        if message:
            self.note(f"{prefix}.message", message)
        return status, reason, message


def _render(rule: _Rule, facts: _Facts) -> tuple[Phase, str, str]:
    return (
        rule.phase,
        _one_line(rule.summary.format_map(facts), limit=600),
        _one_line(rule.next_step.format_map(facts), limit=400),
    )


# ------------------------------------------------------------------------------------------------------------
# Entry point
# ------------------------------------------------------------------------------------------------------------


def diagnose(obj: Any, *, now: datetime | None = None) -> Diagnosis:
    """Diagnose one live KubeRay object (a dict as from ``kubectl get ... -o json``). Never raises.

    ``now`` (timezone-aware) lets summaries say how long a state has lasted ("for 25m"); without it the result
    depends only on ``obj``.
    """
    if not isinstance(obj, Mapping):
        return Diagnosis("", "", "", "unknown", f"not a Kubernetes object (got {type(obj).__name__})")
    kind, name, namespace = (
        _text(obj.get("kind")),
        _text(_get(obj, "metadata", "name")),
        _text(_get(obj, "metadata", "namespace")),
    )
    if kind not in RAY_KINDS:
        what = f"kind {kind!r}" if kind else "no kind"
        return Diagnosis(
            kind,
            name,
            namespace,
            "unknown",
            f"not a KubeRay object ({what}; expected one of {', '.join(RAY_KINDS)})",
        )
    if now is not None and now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    reader = _Reader(obj)
    facts = _Facts(
        kind=kind,
        kind_lower=kind.lower(),
        name=name or "<name>",
        ns=namespace or "default",
        ns_or_default=namespace or "default",
    )
    try:
        phase, summary, next_step = _diagnose_kind(kind, reader, facts, now)
        phase, summary, next_step = _overlay(reader, facts, phase, summary, next_step)
    except Exception as exc:  # the contract is "never raises": say why instead
        return Diagnosis(
            kind,
            name,
            namespace,
            "unknown",
            _one_line(f"could not interpret the status ({type(exc).__name__}: {exc})"),
            tuple(reader.evidence),
            _DESCRIBE.format_map(facts),
        )
    return Diagnosis(kind, name, namespace, phase, summary, tuple(reader.evidence), next_step)


def _diagnose_kind(kind: str, reader: _Reader, facts: _Facts, now: datetime | None) -> tuple[Phase, str, str]:
    status = reader.obj.get("status")
    if status is not None and not isinstance(status, Mapping):
        reader.note("status", status)
        return (
            "unknown",
            f"status is not an object (got {type(status).__name__})",
            _DESCRIBE.format_map(facts),
        )
    if kind == "RayJob":
        return _diagnose_job(reader, facts, now)
    if kind == "RayCluster":
        return _diagnose_cluster(reader, facts, "status", now)
    if kind == "RayService":
        return _diagnose_service(reader, facts)
    return _diagnose_cronjob(reader, facts)


def _overlay(
    reader: _Reader, facts: _Facts, phase: Phase, summary: str, next_step: str
) -> tuple[Phase, str, str]:
    """Things true of any kind: deletion in progress, a status older than the spec."""
    deleting = reader.text("metadata.deletionTimestamp")
    if deleting:
        finalizers = _get(reader.obj, "metadata", "finalizers")
        if isinstance(finalizers, list) and finalizers:
            reader.note("metadata.finalizers", ", ".join(str(item) for item in finalizers))
        return (
            "progressing",
            _one_line(f"being deleted (since {deleting}); before that: {phase}, {summary}", 600),
            "if it stays, the operator has not removed its finalizer: " + _DESCRIBE.format_map(facts),
        )
    generation = _int(_get(reader.obj, "metadata", "generation"))
    observed = _int(_get(reader.obj, "status", "observedGeneration"))
    if generation is not None and observed is not None and observed < generation:
        reader.note("metadata.generation", generation)
        reader.note("status.observedGeneration", observed)
        note = f" (status is from generation {observed}, the object is at {generation}: not reconciled yet)"
        if phase == "healthy":
            return (
                "progressing",
                summary + note,
                next_step
                or (
                    "wait for the operator to reconcile the change; if it does not: "
                    + _EVENTS.format_map(facts)
                ),
            )
        return phase, summary + note, next_step
    return phase, summary, next_step


# --- RayJob -------------------------------------------------------------------------------------------------


def _job_logs(reader: _Reader, facts: _Facts) -> str:
    mode = reader.text("spec.submissionMode", record=False) or "K8sJobMode"
    if mode == "K8sJobMode":
        return "kubectl logs -n {ns} job/{name}".format_map(facts)
    if mode == "SidecarMode":
        return (
            "kubectl logs -n {ns} -l ray.io/cluster={cluster},ray.io/node-type=head -c ray-job-submitter"
        ).format_map(facts)
    # HTTPMode / InteractiveMode: no submitter; the driver's logs are kept by the Ray dashboard on the head.
    return "kubectl exec -n {ns} svc/{cluster}-head-svc -- ray job logs {job_id}".format_map(facts)


def _diagnose_job(reader: _Reader, facts: _Facts, now: datetime | None) -> tuple[Phase, str, str]:
    status = reader.obj.get("status")
    if not status:
        return _render(_JOB_NO_STATUS, facts)

    jds_raw = reader.get("status.jobDeploymentStatus")
    jds = _text(jds_raw)
    if jds_raw is None:
        reader.note("status.jobDeploymentStatus", "")
    job_status = reader.text("status.jobStatus")
    reason = reader.text("status.reason")
    message = reader.text("status.message")
    cluster = reader.text("status.rayClusterName")
    mode = reader.text("spec.submissionMode", record=False) or "K8sJobMode"
    start = _parse_time(reader.get("status.startTime"))
    end = _parse_time(reader.get("status.endTime")) if jds in ("Complete", "Failed") else None
    failed = _int(reader.get("status.failed", record=False)) or 0
    backoff = _int(_get(reader.obj, "spec", "backoffLimit")) or 0

    facts.update(
        cluster=cluster or "(not created yet)",
        job_id=reader.text("status.jobId", record=False)
        or _text(_get(reader.obj, "spec", "jobId"))
        or "<job id>",
        dashboard=reader.text("status.dashboardURL", record=False) or "<dashboard>",
        mode=mode,
        message=_brief_message(message) or "(no message)",
        message_part=f": {_brief_message(message)}" if message else "",
        reason_text=reason or "no reason given",
        backoff_limit=str(backoff),
        attempt=str(max(failed, 1)),
        job_status_or_done=job_status or "finished (jobStatus not reported)",
        job_status_or_unknown=job_status or "in an unknown state",
        active_deadline=str(_int(_get(reader.obj, "spec", "activeDeadlineSeconds")) or "?"),
        pre_running_deadline=str(_int(_get(reader.obj, "spec", "preRunningDeadlineSeconds")) or "?"),
        grace_note="",
        since="",
        duration="",
        attempts="",
        cluster_detail="",
        check_since="",
    )
    facts["logs"] = _job_logs(reader, facts)
    if start is not None and end is not None:
        facts["duration"] = f" after {_duration((end - start).total_seconds())}"
    elif start is not None and now is not None:
        facts["since"] = f" (for {_duration((now - start).total_seconds())})"
        facts["duration"] = f" after {_duration((now - start).total_seconds())}"
    if failed > 1 or backoff > 0:
        reader.note("status.failed", failed)
        reader.note("spec.backoffLimit", backoff)
        facts["attempts"] = f" (attempt {failed} of {backoff + 1})"

    # RJ-40: the operator's own status rule.
    if jds == "Waiting" and mode != "InteractiveMode":
        reader.note("spec.submissionMode", mode)
        return _render(_JOB_RJ40, facts)

    check_failing = reader.text("status.jobStatusCheckFailureStartTime")
    if check_failing:
        facts["check_since"] = f" since {check_failing}"

    if jds == "Initializing":
        facts["cluster_detail"], stuck = _job_cluster_detail(reader)
        phase, summary, next_step = _render(_JOB_DEPLOYMENT["Initializing"], facts)
        if stuck:
            phase = "degraded"
        if not cluster:
            next_step = _EVENTS.format_map(facts)
        return phase, summary, next_step
    if jds == "Running":
        if check_failing:
            return (
                "degraded",
                _one_line(
                    f"job {job_status or 'state unknown'}, but the Ray dashboard has not answered status"
                    " checks"
                    f" since {check_failing} (the RayJob fails with JobStatusCheckTimeoutExceeded after"
                    " RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS, default 300s)",
                    600,
                ),
                _HEAD_POD.format_map(facts),
            )
        rule = _JOB_RUNNING.get(job_status)
        if rule is None:
            return (
                "unknown",
                _one_line(f"job running with unrecognised jobStatus {job_status!r}"),
                facts["logs"],
            )
        return _render(rule, facts)
    if jds == "Failed":
        if reason in ("DeadlineExceeded", "PreRunningDeadlineExceeded"):
            _deadline_facts(reader, facts, job_status)
        return _render(_JOB_FAILED.get(reason, _JOB_FAILED_OTHER), facts)
    if jds == "Complete":
        if reason == "JobDeploymentStatusTransitionGracePeriodExceeded":
            facts["grace_note"] = (
                " (the submitter never exited; forced Complete after the transition grace period)"
            )
        not_success = _JOB_COMPLETE_NOT_SUCCESS.get(job_status)
        return _render(not_success or _JOB_DEPLOYMENT["Complete"], facts)
    if jds == "Retrying":
        reader.note("status.failed", failed)
        reader.note("spec.backoffLimit", backoff)
    rule = _JOB_DEPLOYMENT.get(jds)
    if rule is None:
        return (
            "unknown",
            _one_line(f"unrecognised jobDeploymentStatus {jds!r} (newer operator than KubeRay v1.7.0?)"),
            _DESCRIBE.format_map(facts),
        )
    return _render(rule, facts)


def _job_cluster_detail(reader: _Reader) -> tuple[str, bool]:
    """What the RayJob's copy of the cluster status says (if anything), and whether it looks stuck."""
    base = "status.rayClusterStatus"
    conds = reader.conditions(base)
    parts: list[str] = []
    stuck = False
    if conds:
        rstatus, rreason, rmessage = reader.condition(base, conds, "ReplicaFailure")
        if rstatus == "True":
            stuck = True
            detail = f": {_brief_message(rmessage)}" if rmessage else ""
            parts.append(f"ReplicaFailure {rreason or 'no reason'}{detail}")
        hstatus, hreason, _ = reader.condition(base, conds, "HeadPodReady")
        if hstatus and hstatus != "True":
            stuck = stuck or hreason in _HEAD_STUCK_REASONS
            parts.append(f"head pod not ready ({hreason or hstatus})")
    state = reader.text(f"{base}.state")
    if state and state != "ready" and not parts:
        parts.append(f"cluster state {state}")
    return (f"; {'; '.join(parts)}" if parts else ""), stuck


def _deadline_facts(reader: _Reader, facts: _Facts, job_status: str) -> None:
    """Did the cluster never come up, or did the job run too long?"""
    dashboard = reader.text("status.dashboardURL")
    if not dashboard and not job_status:
        facts["deadline_cause"] = "the RayCluster never came up (no dashboard URL, no job status)"
        facts["deadline_next"] = (
            "find out why the cluster did not start: "
            + _EXPLAIN_CLUSTER
            + " (or, if it is gone, "
            + _EVENTS
            + ")"
        ).format_map(facts)
    elif job_status in ("", "PENDING"):
        facts["deadline_cause"] = (
            f"the cluster came up but the job never started (jobStatus {job_status or 'empty'})"
        )
        facts["deadline_next"] = facts["logs"]
    else:
        facts["deadline_cause"] = f"the job was still {job_status}"
        facts["deadline_next"] = facts["logs"] + " (raise activeDeadlineSeconds if the job just needs longer)"


# --- RayCluster ---------------------------------------------------------------------------------------------


def _workers(reader: _Reader, base: str) -> str:
    ready = _int(reader.get(f"{base}.readyWorkerReplicas"))
    desired = _int(reader.get(f"{base}.desiredWorkerReplicas"))
    if desired is None:
        return ""
    return f"; workers ready {ready if ready is not None else '?'}/{desired}"


def _for_how_long(condition: Mapping[str, Any], now: datetime | None) -> str:
    """How long a condition has held, as ``" (for 12m)"``, from its lastTransitionTime (needs ``now``)."""
    since = _parse_time(condition.get("lastTransitionTime"))
    if now is None or since is None:
        return ""
    return f" (for {_duration((now - since).total_seconds())})"


def _diagnose_cluster(
    reader: _Reader, facts: _Facts, base: str, now: datetime | None
) -> tuple[Phase, str, str]:
    status = _get(reader.obj, *base.split("."))
    facts["cluster"] = facts["name"]
    if not status:
        return _render(_CLUSTER_NO_STATUS, facts)
    conds = reader.conditions(base)
    suspend_requested = _get(reader.obj, "spec", "suspend") is True
    if not conds:
        state = reader.text(f"{base}.state")
        reason = reader.text(f"{base}.reason")
        facts["reason_part"] = f": {_brief_message(reason)}" if reason else ""
        facts["workers"] = _workers(reader, base)
        if state == "" and suspend_requested:
            reader.note("spec.suspend", True)
            return "suspended", "suspend requested (spec.suspend=true), pods are being deleted", ""
        rule = _CLUSTER_LEGACY_STATE.get(state)
        if rule is None:
            return (
                "unknown",
                _one_line(f"unrecognised status.state {state!r} and no conditions"),
                _DESCRIBE.format_map(facts),
            )
        return _render(rule, facts)

    suspending = reader.condition(base, conds, "RayClusterSuspending")
    suspended = reader.condition(base, conds, "RayClusterSuspended")
    if suspending[0] == "True" and suspended[0] == "True":
        return _render(_CLUSTER_RC86, facts)
    if suspending[0] == "True":
        return (
            "suspended",
            "suspending (spec.suspend=true): deleting all pods (RayClusterSuspending True)",
            ("wait for RayClusterSuspended; set spec.suspend=false afterwards to resume"),
        )
    if suspended[0] == "True":
        return (
            "suspended",
            "suspended (RayClusterSuspended True): all pods deleted",
            "set spec.suspend=false to resume",
        )

    workers = _workers(reader, base)
    rf_status, rf_reason, rf_message = reader.condition(base, conds, "ReplicaFailure")
    head_status, head_reason, head_message = reader.condition(base, conds, "HeadPodReady")
    prov_status, prov_reason, _ = reader.condition(base, conds, "RayClusterProvisioned")
    if suspend_requested:
        reader.note("spec.suspend", True)
        return "suspended", "suspend requested (spec.suspend=true), not suspending yet", ""

    if rf_status == "True":
        what = _CLUSTER_REPLICA_FAILURE.get(rf_reason, f"pod operation failed ({rf_reason or 'no reason'})")
        detail = f": {_brief_message(rf_message)}" if rf_message else ""
        head_part = (
            ""
            if head_status == "True"
            else f"; head pod not ready ({head_reason or head_status or 'no condition'})"
        )
        return (
            "degraded",
            _one_line(f"ReplicaFailure {rf_reason}: {what}{detail}{head_part}{workers}", 600),
            "quota, admission webhooks or pod spec errors: " + _EVENTS.format_map(facts),
        )
    if head_status and head_status != "True":
        why = head_reason or head_status
        detail = f": {_brief_message(head_message)}" if head_message else ""
        detail += _for_how_long(conds.get("HeadPodReady", {}), now)
        was_up = prov_status == "True"
        if head_reason in _HEAD_STUCK_REASONS:
            return (
                "degraded",
                _one_line(f"head pod not ready: {why}{detail} (HeadPodReady False){workers}", 600),
                _HEAD_POD.format_map(facts),
            )
        if was_up:
            return (
                "degraded",
                _one_line(f"head pod was ready but is not any more: {why}{detail}{workers}", 600),
                _HEAD_POD.format_map(facts),
            )
        return (
            "progressing",
            _one_line(f"head pod not ready yet: {why}{detail}{workers}", 600),
            _HEAD_POD.format_map(facts),
        )
    if prov_status and prov_status != "True":
        head_part = "head pod ready, " if head_status == "True" else ""
        return (
            "progressing",
            _one_line(
                f"{head_part}waiting for all pods to be ready for the first time"
                f" ({prov_reason or prov_status}){workers}"
            ),
            "kubectl get pods -n {ns} -l ray.io/cluster={name}".format_map(facts),
        )
    if head_status == "True" or prov_status == "True":
        pieces = []
        if head_status == "True":
            pieces.append("head pod ready")
        if prov_status == "True":
            pieces.append("provisioned")
        return "healthy", _one_line(", ".join(pieces) + workers), ""
    # Conditions present but none of the known ones (a newer operator?): fall back to the deprecated state.
    state = reader.text(f"{base}.state")
    if state == "ready":
        return (
            "healthy",
            f"state ready (conditions present but none of HeadPodReady/RayClusterProvisioned){workers}",
            "",
        )
    return "unknown", "conditions present but none KubeRay v1.7.0 defines", _DESCRIBE.format_map(facts)


# --- RayService ---------------------------------------------------------------------------------------------


class _AppProblem(NamedTuple):
    severity: str  # "bad" | "busy"
    text: str


def _app_problems(reader: _Reader, base: str, label: str) -> tuple[list[_AppProblem], list[str]]:
    """Problems of the Serve apps under ``base`` (an active/pending service status) and the healthy apps."""
    apps = _get(reader.obj, *base.split("."), "applicationStatuses")
    problems: list[_AppProblem] = []
    running: list[str] = []
    if not isinstance(apps, Mapping):
        return problems, running
    for app_name in sorted(apps, key=str):
        app = apps[app_name]
        if not isinstance(app, Mapping):
            continue
        path = f"{base}.applicationStatuses.{app_name}"
        app_status = _text(app.get("status"))
        reader.note(f"{path}.status", app_status)
        health = _APP_STATUS.get(app_status, "bad" if app_status else "busy")
        if health == "ok":
            running.append(str(app_name))
            continue
        app_message = _text(app.get("message"))
        if app_message:
            reader.note(f"{path}.message", app_message)
        bad_deployments: list[str] = []
        deployments = app.get("serveDeploymentStatuses")
        if isinstance(deployments, Mapping):
            for dep_name in sorted(deployments, key=str):
                dep = deployments[dep_name]
                if not isinstance(dep, Mapping):
                    continue
                dep_status = _text(dep.get("status"))
                if _DEPLOYMENT_STATUS.get(dep_status, "bad") == "ok":
                    continue
                dpath = f"{path}.serveDeploymentStatuses.{dep_name}"
                reader.note(f"{dpath}.status", dep_status)
                dep_message = _text(dep.get("message"))
                if dep_message:
                    reader.note(f"{dpath}.message", dep_message)
                dep_text = f"deployment {dep_name} {dep_status or 'no status'}"
                if dep_message:
                    dep_text += f" ({_brief_message(dep_message)})"
                bad_deployments.append(dep_text)
        text = f"{label} app {app_name} {app_status or 'no status'}"
        if bad_deployments:
            text += ": " + ", ".join(bad_deployments)
        elif app_message:
            text += f": {_brief_message(app_message)}"
        problems.append(_AppProblem(health, text))
    return problems, running


def _traffic(reader: _Reader, active: str, pending: str) -> str:
    a_pct = _int(reader.get("status.activeServiceStatus.trafficRoutedPercent"))
    p_pct = _int(reader.get("status.pendingServiceStatus.trafficRoutedPercent"))
    if pending and (a_pct is not None or p_pct is not None):
        return f"traffic: {a_pct if a_pct is not None else '?'}% on active {active or '?'}, " + (
            f"{p_pct if p_pct is not None else '?'}% on pending {pending}"
        )
    if active:
        return f"traffic on active cluster {active}" + (
            f" (pending {pending} gets none yet)" if pending else ""
        )
    if pending:
        return f"no active cluster yet; pending cluster {pending} is being prepared"
    return "no cluster yet"


def _diagnose_service(reader: _Reader, facts: _Facts) -> tuple[Phase, str, str]:
    status = reader.obj.get("status")
    if not status:
        return _render(_SERVICE_NO_STATUS, facts)
    active = reader.text("status.activeServiceStatus.rayClusterName")
    pending = reader.text("status.pendingServiceStatus.rayClusterName")
    facts["cluster"] = active or pending or "?"
    explain_cluster = (_EXPLAIN_CLUSTER if active or pending else _DESCRIBE).format_map(facts)
    endpoints = _int(reader.get("status.numServeEndpoints"))
    active_problems, active_running = _app_problems(reader, "status.activeServiceStatus", "active")
    pending_problems, _ = _app_problems(reader, "status.pendingServiceStatus", "pending")
    traffic = _traffic(reader, active, pending)
    conds = reader.conditions("status")

    if not conds:
        legacy = reader.text("status.serviceStatus")
        legacy_problems = active_problems + pending_problems
        facts["apps"] = (
            ("; " + "; ".join(p.text for p in legacy_problems))
            if legacy_problems
            else (f"; {traffic}" if active or pending else "")
        )
        rule = _SERVICE_LEGACY_STATUS.get(legacy)
        if rule is None and legacy.startswith("Failed"):
            rule = _Rule("degraded", f"serviceStatus {legacy} (older operator){{apps}}", _DESCRIBE)
        if rule is None:
            return (
                "unknown",
                _one_line(f"unrecognised serviceStatus {legacy!r} and no conditions"),
                _DESCRIBE.format_map(facts),
            )
        legacy_phase, summary, next_step = _render(rule, facts)
        if legacy_phase == "healthy" and any(p.severity == "bad" for p in active_problems):
            legacy_phase = "degraded"
        return legacy_phase, summary, next_step

    ready, ready_reason, ready_message = reader.condition("status", conds, "Ready")
    upgrading, up_reason, _ = reader.condition("status", conds, "UpgradeInProgress")
    rolling_back, rb_reason, _ = reader.condition("status", conds, "RollbackInProgress")
    suspending, _, _ = reader.condition("status", conds, "Suspending")
    suspended, _, _ = reader.condition("status", conds, "Suspended")
    facts["ready_message"] = _brief_message(ready_message) or "(no message)"
    facts["ready_message_part"] = f": {_brief_message(ready_message)}" if ready_message else ""

    if ready != "True" and ready_reason in _SERVICE_READY_FALSE:
        return _render(_SERVICE_READY_FALSE[ready_reason], facts)
    if suspended == "True":
        return _render(_SERVICE_READY_FALSE["SuspendComplete"], facts)
    if suspending == "True":
        return _render(_SERVICE_READY_FALSE["SuspendInProgress"], facts)

    endpoints_text = (
        f"{endpoints} serve endpoint{'s' if endpoints != 1 else ''}" if endpoints is not None else ""
    )
    explain_pending = (
        "kubectl get raycluster -n {ns} " + (pending or "<pending cluster>") + " -o json | kuberay-explain -"
    )
    bad_active = [p.text for p in active_problems if p.severity == "bad"]
    bad_pending = [p.text for p in pending_problems if p.severity == "bad"]
    busy = [p.text for p in active_problems + pending_problems if p.severity == "busy"]

    phase: Phase
    if rolling_back == "True":
        rb_problems = "; ".join(bad_pending + bad_active)
        phase = "progressing" if ready == "True" else "degraded"
        summary = (
            f"rolling back (RollbackInProgress True, {rb_reason or 'no reason'}): the spec changed during an"
            f" incremental upgrade; {traffic}" + (f"; {rb_problems}" if rb_problems else "")
        )
        return phase, _one_line(summary, 600), "kubectl describe rayservice -n {ns} {name}".format_map(facts)

    if upgrading == "True":
        phase = "degraded" if ready != "True" or bad_pending or bad_active else "progressing"
        serving = (
            f"active {active or '?'} serving ({endpoints_text})"
            if ready == "True"
            else (f"NOT serving (Ready {ready or 'missing'}, {ready_reason or 'no reason'})")
        )
        upgrade_problems = bad_pending + bad_active
        if upgrade_problems:
            head = f"upgrade stuck ({up_reason or 'UpgradeInProgress'}): " + "; ".join(upgrade_problems)
            next_step = (
                "kubectl describe rayservice -n {ns} {name}; the failing Serve app's logs are on the pending"
                " cluster: " + explain_pending
            ).format_map(facts)
        else:
            head = f"upgrading ({up_reason or 'UpgradeInProgress'}): "
            pending_share = _int(_get(reader.obj, "status", "pendingServiceStatus", "trafficRoutedPercent"))
            if pending_share:
                head += f"shifting traffic to pending cluster {pending or '?'}"
            else:
                head += f"pending cluster {pending or '?'} is being prepared"
            if busy:
                head += "; " + "; ".join(busy)
            next_step = explain_pending.format_map(facts)
        return phase, _one_line(f"{head}; {serving}; {traffic}", 700), next_step

    if ready == "True":
        if bad_active:
            return (
                "degraded",
                _one_line(f"serving ({endpoints_text}) but " + "; ".join(bad_active) + f"; {traffic}", 700),
                "kubectl describe rayservice -n {ns} {name}".format_map(facts),
            )
        apps = f"; apps RUNNING: {', '.join(active_running)}" if active_running else ""
        extra = f"; {'; '.join(busy)}" if busy else ""
        return (
            "healthy",
            _one_line(f"ready, {endpoints_text or 'serving'} on cluster {active or '?'}{apps}{extra}", 600),
            "",
        )

    # Ready is False/Unknown/absent for a non-terminal reason: Initializing, ZeroServeEndpoints, or unknown.
    problems = bad_active + bad_pending
    if ready_reason == "ZeroServeEndpoints":
        summary = "outage: was ready, now 0 serve endpoints (Ready False, ZeroServeEndpoints)"
        if problems:
            summary += "; " + "; ".join(problems)
        return (
            "degraded",
            _one_line(f"{summary}; {traffic}", 700),
            (
                "kubectl get endpointslices -n {ns} -l kubernetes.io/service-name={name}-serve-svc; "
                + _EXPLAIN_CLUSTER
            ).format_map(facts),
        )
    if ready_reason == "Initializing" or ready in ("", "Unknown"):
        label = (
            f"initializing (Ready {ready}, {ready_reason or 'no reason'})"
            if ready
            else "initializing (no Ready condition yet)"
        )
        if problems:
            return (
                "degraded",
                _one_line(f"{label} but " + "; ".join(problems) + f"; {traffic}", 700),
                "the Serve app's error is in its message; cluster: " + explain_cluster,
            )
        extra = f"; {'; '.join(busy)}" if busy else ""
        return "progressing", _one_line(f"{label}{extra}; {traffic}", 700), explain_cluster
    return (
        "unknown",
        _one_line(
            f"Ready {ready} with unrecognised reason {ready_reason!r}{facts['ready_message_part']};"
            f" {traffic}",
            600,
        ),
        _DESCRIBE.format_map(facts),
    )


# --- RayCronJob ---------------------------------------------------------------------------------------------


def _diagnose_cronjob(reader: _Reader, facts: _Facts) -> tuple[Phase, str, str]:
    schedule = reader.text("spec.schedule")
    tz = reader.text("spec.timeZone")
    last = reader.text("status.lastScheduleTime")
    facts.update(
        schedule=_one_line(schedule) or "?",
        tz=f" ({_one_line(tz)})" if tz else "",
        last_time=last,
        last=f"; last run scheduled at {last}" if last else "",
    )
    if _get(reader.obj, "spec", "suspend") is True:
        reader.note("spec.suspend", True)
        return _render(_CRON_RULES["suspended"], facts)
    return _render(_CRON_RULES["scheduled" if last else "never"], facts)
