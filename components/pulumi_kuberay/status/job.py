"""RayJob: ``jobDeploymentStatus``, ``jobStatus`` and ``reason`` of the v1.7.0 state machine
(``rayjob_controller.go``)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Final

from pulumi_kuberay.kuberay.paths import as_int, get
from pulumi_kuberay.status._common import (
    _DESCRIBE,
    _EVENTS,
    _EXPLAIN_CLUSTER,
    _HEAD_POD,
    HEAD_STUCK_REASONS,
    Phase,
    StatusRule,
    _brief_message,
    _duration,
    _Facts,
    _one_line,
    _Reader,
    _render,
    _text,
    parse_time,
)

#: status.jobDeploymentStatus -> rule, for every value of the v1.7.0 state machine except Running and Failed
#: (which depend on jobStatus and reason, tables below). "" is New.
JOB_DEPLOYMENT: Final[dict[str, StatusRule]] = {
    "": StatusRule(
        "progressing",
        "new: the operator accepted it and is about to create the RayCluster",
        _DESCRIBE,
    ),
    "Initializing": StatusRule(
        "progressing",
        "waiting for cluster: jobDeploymentStatus Initializing, RayCluster {cluster} is not ready yet{since}{cluster_detail}",
        _EXPLAIN_CLUSTER,
    ),
    "Waiting": StatusRule(
        "progressing",
        "waiting for you to submit the job (InteractiveMode): RayCluster {cluster} is up{since}",
        "submit with `ray job submit --address http://{dashboard} -- ...`, then set spec.jobId to its submission id",
    ),
    "Complete": StatusRule(
        "succeeded",
        "job {job_status_or_done}{duration}{grace_note}",
        "",
    ),
    "Retrying": StatusRule(
        "degraded",
        "retrying: attempt {attempt} failed ({reason_text}){message_part}; a new RayCluster is being created (backoffLimit {backoff_limit})",
        "{logs}",
    ),
    "Suspending": StatusRule(
        "suspended",
        "suspending (spec.suspend=true): deleting RayCluster {cluster} and the submitter",
        "set spec.suspend=false to run it again (it restarts from scratch)",
    ),
    "Suspended": StatusRule(
        "suspended",
        "suspended (spec.suspend=true): no RayCluster, nothing runs",
        "set spec.suspend=false to run it again (it restarts from scratch with a new RayCluster)",
    ),
    "ValidationFailed": StatusRule(
        "failed",
        "spec rejected by the operator (ValidationFailed): {message}",
        "fix the spec, then delete and recreate the RayJob (the operator never leaves ValidationFailed)",
    ),
}

#: status.jobStatus while jobDeploymentStatus is Running.
JOB_RUNNING: Final[dict[str, StatusRule]] = {
    "": StatusRule(
        "progressing",
        "submitting: RayCluster {cluster} is ready, the job has not been seen by the Ray dashboard yet{since}",
        "{logs}",
    ),
    "PENDING": StatusRule(
        "progressing",
        "job PENDING on RayCluster {cluster} (waiting for resources or for the driver to start){since}",
        "{logs}",
    ),
    "RUNNING": StatusRule("progressing", "job RUNNING on RayCluster {cluster}{since}", "{logs}"),
    "SUCCEEDED": StatusRule(
        "progressing",
        "job SUCCEEDED; waiting for the submitter to exit before marking the RayJob Complete",
        "{logs}",
    ),
    "STOPPED": StatusRule(
        "progressing",
        "job STOPPED; waiting for the submitter to exit before marking the RayJob Complete",
        "{logs}",
    ),
    "FAILED": StatusRule(
        "degraded",
        "job FAILED{message_part}; the RayJob is not marked Failed yet (waiting for the submitter to exit)",
        "{logs}",
    ),
}

#: status.reason when jobDeploymentStatus is Failed.
JOB_FAILED: Final[dict[str, StatusRule]] = {
    "AppFailed": StatusRule("failed", "job FAILED{duration}{attempts}{message_part}", "{logs}"),
    "SubmissionFailed": StatusRule(
        "failed",
        "job submission failed{duration}{attempts}: the submitter could not submit the job{message_part}",
        "{logs}",
    ),
    "DeadlineExceeded": StatusRule(
        "failed",
        "activeDeadlineSeconds {active_deadline}exceeded{duration}; {deadline_cause} (not retried)",
        "{deadline_next}",
    ),
    "PreRunningDeadlineExceeded": StatusRule(
        "failed",
        "preRunningDeadlineSeconds {pre_running_deadline}exceeded{attempts}: the job never reached Running — {deadline_cause}",
        "{deadline_next}",
    ),
    # checkTransitionGracePeriodAndUpdateStatusIfNeeded: the Ray job ended, the submitter did not exit.
    "JobDeploymentStatusTransitionGracePeriodExceeded": StatusRule(
        "failed",
        "job {job_status_or_unknown} but the submitter never exited; the operator gave up after the transition grace period{message_part}",
        "{logs}",
    ),
    "JobStatusCheckTimeoutExceeded": StatusRule(
        "failed",
        "lost contact with the Ray dashboard (status checks failed{check_since} for longer than RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS); the job's own outcome is unknown (not retried)",
        "check the head pod and dashboard: " + _HEAD_POD,
    ),
    "ValidationFailed": StatusRule(
        "failed",
        "spec rejected by the operator (ValidationFailed): {message}",
        "fix the spec, then delete and recreate the RayJob",
    ),
}
#: checkSubmitterFinishedTimeoutAndUpdateStatusIfNeeded writes the same reason the other way round: the
#: submitter exited, the Ray job was not terminal DefaultSubmitterFinishedTimeout (30 s) later; jobStatus is
#: then forced to FAILED although Ray never said so. Told apart by its message.
_JOB_SUBMITTER_FINISHED_PREFIX: Final = "The RayJob submitter finished"
_JOB_SUBMITTER_FINISHED: Final = StatusRule(
    "failed",
    "the submitter exited but the Ray job was not finished 30s later; the operator marked it FAILED (jobStatus forced, the Ray job's own outcome is unknown){message_part}",
    "{logs}; the driver may still run on the cluster: " + _HEAD_POD,
)
JOB_FAILED_OTHER: Final = StatusRule(
    "failed", "job failed{duration}{attempts} (reason {reason_text}){message_part}", "{logs}"
)

#: jobStatus values in a Complete RayJob that are not a success.
JOB_COMPLETE_NOT_SUCCESS: Final[dict[str, StatusRule]] = {
    "STOPPED": StatusRule(
        "failed",
        "job STOPPED{duration}: it was stopped (ray job stop) before finishing; the RayJob is Complete",
        "{logs}",
    ),
    "FAILED": StatusRule("failed", "job FAILED{duration}{message_part}", "{logs}"),
}

#: Waiting is only valid for InteractiveMode (operator rule RJ-40, ValidateRayJobStatus). Only seen between a
#: spec.submissionMode edit and the next reconcile, which rewrites it to ValidationFailed (validateRayJob).
JOB_RJ40: Final = StatusRule(
    "failed",
    "invalid status: jobDeploymentStatus Waiting with submissionMode {mode} (Waiting is only valid for InteractiveMode, operator rule RJ-40); the operator's next reconcile marks it ValidationFailed for good",
    "delete and recreate the RayJob; see the InvalidRayJobStatus event: " + _EVENTS,
)

JOB_NO_STATUS: Final = StatusRule(
    "progressing",
    "no status yet: the operator has not picked it up (is the KubeRay operator running and watching namespace {ns_or_default}? an invalid metadata.name is reported only as an event)",
    _EVENTS,
)


#: The operator's status message of a deadline names the deadline it applied:
#: checkActiveDeadlineAndUpdateStatusIfNeeded writes "... ActiveDeadlineSeconds: 600",
#: checkPreRunningDeadlineAndUpdateStatusIfNeeded "... PreRunningDeadlineSeconds: 300".
_DEADLINE_IN_MESSAGE: Final = {
    field: re.compile(rf"\b{field[0].upper()}{field[1:]}: (\d+)\b")
    for field in ("activeDeadlineSeconds", "preRunningDeadlineSeconds")
}


def _deadline(reader: _Reader, field: str, message: str) -> str:
    """``(600s) `` for the deadline that fired: from the spec, else from the operator's message when the spec no
    longer sets it (edited after the deadline fired), else a note that neither says it.

    In KubeRay v1.7.0 only that check writes each reason, and only when the spec sets the field: nothing else (a
    deletion rule's TTL, the submitter Job's backoffLimit or its own deadline, which give SubmissionFailed) ends a
    RayJob with DeadlineExceeded / PreRunningDeadlineExceeded."""
    value = as_int(get(reader.obj, "spec", field))
    if value is not None:
        return f"({value}s) "
    found = _DEADLINE_IN_MESSAGE[field].search(message)
    if found:
        return f"({found.group(1)}s when it fired; the spec no longer sets it) "
    return "(no longer in the spec, its value not in the status message) "


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


# C901, PLR0912: the RayJob state machine, one branch per jobDeploymentStatus
def _diagnose_job(  # noqa: C901, PLR0912
    reader: _Reader, facts: _Facts, now: datetime | None
) -> tuple[Phase, str, str]:
    status = reader.obj.get("status")
    if not status:
        return _render(JOB_NO_STATUS, facts)

    jds_raw = reader.get("status.jobDeploymentStatus")
    jds = _text(jds_raw)
    if jds_raw is None:
        reader.note("status.jobDeploymentStatus", "")
    job_status = reader.text("status.jobStatus")
    reason = reader.text("status.reason")
    message = reader.text("status.message")
    cluster = reader.text("status.rayClusterName")
    mode = reader.text("spec.submissionMode", record=False) or "K8sJobMode"
    start = parse_time(reader.get("status.startTime"))
    end = parse_time(reader.get("status.endTime")) if jds in ("Complete", "Failed") else None
    failed = as_int(reader.get("status.failed", record=False)) or 0
    backoff = as_int(get(reader.obj, "spec", "backoffLimit")) or 0

    facts.update(
        cluster=cluster or "(not created yet)",
        job_id=reader.text("status.jobId", record=False) or _text(get(reader.obj, "spec", "jobId")) or "<job id>",
        dashboard=reader.text("status.dashboardURL", record=False) or "<dashboard>",
        mode=mode,
        message=_brief_message(message) or "(no message)",
        message_part=f": {_brief_message(message)}" if message else "",
        reason_text=reason or "no reason given",
        backoff_limit=str(backoff),
        attempt=str(max(failed, 1)),
        job_status_or_done=job_status or "finished (jobStatus not reported)",
        job_status_or_unknown=job_status or "in an unknown state",
        active_deadline=_deadline(reader, "activeDeadlineSeconds", message),
        pre_running_deadline=_deadline(reader, "preRunningDeadlineSeconds", message),
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
        return _render(JOB_RJ40, facts)

    check_failing = reader.text("status.jobStatusCheckFailureStartTime")
    if check_failing:
        facts["check_since"] = f" since {check_failing}"

    if jds == "Initializing":
        facts["cluster_detail"], stuck = _job_cluster_detail(reader)
        phase, summary, next_step = _render(JOB_DEPLOYMENT["Initializing"], facts)
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
                    f"job {job_status or 'state unknown'}, but the Ray dashboard has not answered status checks since {check_failing} (the RayJob fails with JobStatusCheckTimeoutExceeded after RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS, default 300s)",
                    600,
                ),
                _HEAD_POD.format_map(facts),
            )
        rule = JOB_RUNNING.get(job_status)
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
        if reason == "JobDeploymentStatusTransitionGracePeriodExceeded" and message.startswith(
            _JOB_SUBMITTER_FINISHED_PREFIX
        ):
            return _render(_JOB_SUBMITTER_FINISHED, facts)
        return _render(JOB_FAILED.get(reason, JOB_FAILED_OTHER), facts)
    if jds == "Complete":
        if reason == "JobDeploymentStatusTransitionGracePeriodExceeded":
            facts["grace_note"] = " (the submitter never exited; forced Complete after the transition grace period)"
        not_success = JOB_COMPLETE_NOT_SUCCESS.get(job_status)
        return _render(not_success or JOB_DEPLOYMENT["Complete"], facts)
    if jds == "Retrying":
        reader.note("status.failed", failed)
        reader.note("spec.backoffLimit", backoff)
    rule = JOB_DEPLOYMENT.get(jds)
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
            stuck = stuck or hreason in HEAD_STUCK_REASONS
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
            "find out why the cluster did not start: " + _EXPLAIN_CLUSTER + " (or, if it is gone, " + _EVENTS + ")"
        ).format_map(facts)
    elif job_status in ("", "PENDING"):
        facts["deadline_cause"] = f"the cluster came up but the job never started (jobStatus {job_status or 'empty'})"
        facts["deadline_next"] = facts["logs"]
    else:
        facts["deadline_cause"] = f"the job was still {job_status}"
        facts["deadline_next"] = facts["logs"] + " (raise activeDeadlineSeconds if the job just needs longer)"
