"""diagnose(): one hand-written status snapshot per state of the four KubeRay state machines.

Each row names a snapshot in tests/fixtures/status/, the phase it must get, the evidence paths it must cite
and words its summary must contain. The last tests check, against the reference (when present), that every
status value, reason and condition KubeRay v1.7.0 defines appears in some snapshot; that diagnose never raises:
``test_status_robustness.py``.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import pytest
import yaml
from _reference import require_reference
from _status_fixtures import FIXTURES, NOW, load
from pulumi_kuberay.status import OK_PHASES, diagnose

JDS = "status.jobDeploymentStatus"
JS = "status.jobStatus"
REASON = "status.reason"
MESSAGE = "status.message"


def cond(ctype: str, field: str = "status", base: str = "status") -> str:
    return f"{base}.conditions[type={ctype}].{field}"


ACTIVE_APP = "status.activeServiceStatus.applicationStatuses.llm"
PENDING_APP = "status.pendingServiceStatus.applicationStatuses.llm"

# (fixture, phase, evidence paths that must be cited, substrings of the summary)
CASES: list[tuple[str, str, list[str], list[str]]] = [
    # --- RayJob: every jobDeploymentStatus, every jobStatus, every reason -----------------------------------
    ("rayjob-no-status", "progressing", [], ["no status yet"]),
    ("rayjob-new", "progressing", [JDS], ["new"]),
    (
        "rayjob-initializing",
        "progressing",
        [JDS, "status.rayClusterName", "status.startTime"],
        ["waiting for cluster", "Initializing", "train-x7k2p", "for 29m55s"],
    ),
    (
        "rayjob-initializing-image-pull",
        "degraded",
        [JDS, cond("HeadPodReady", "reason", "status.rayClusterStatus")],
        ["waiting for cluster", "ImagePullBackOff"],
    ),
    ("rayjob-waiting-interactive", "progressing", [JDS], ["InteractiveMode", "submit"]),
    ("rayjob-waiting-rj40", "failed", [JDS, "spec.submissionMode"], ["RJ-40", "K8sJobMode", "ValidationFailed"]),
    (
        "rayjob-validation-failed-waiting",
        "failed",
        [JDS, REASON, MESSAGE],
        ["ValidationFailed", "cannot be `Waiting`"],
    ),
    ("rayjob-running-submitting", "progressing", [JDS], ["submitting"]),
    ("rayjob-running-pending", "progressing", [JDS, JS], ["PENDING"]),
    ("rayjob-running", "progressing", [JDS, JS], ["RUNNING"]),
    ("rayjob-running-job-succeeded", "progressing", [JDS, JS], ["SUCCEEDED", "submitter"]),
    ("rayjob-running-job-stopped", "progressing", [JDS, JS], ["STOPPED", "submitter"]),
    ("rayjob-running-job-failed", "degraded", [JDS, JS, MESSAGE], ["FAILED", "ValueError"]),
    (
        "rayjob-running-status-check-failing",
        "degraded",
        [JDS, "status.jobStatusCheckFailureStartTime"],
        ["status checks", "JobStatusCheckTimeoutExceeded"],
    ),
    ("rayjob-complete", "succeeded", [JDS, JS, "status.endTime"], ["SUCCEEDED", "after 42m30s"]),
    ("rayjob-complete-stopped", "failed", [JDS, JS], ["STOPPED"]),
    ("rayjob-complete-grace-period", "succeeded", [JDS, JS, REASON], ["SUCCEEDED", "grace period"]),
    (
        "rayjob-failed-app",
        "failed",
        [JDS, JS, REASON, MESSAGE],
        ["job FAILED after 3m", "exit code 1", "ValueError: learning rate must be positive"],
    ),
    (
        "rayjob-failed-submission",
        "failed",
        [JDS, REASON, MESSAGE],
        ["submission failed", "connection refused"],
    ),
    (
        "rayjob-failed-deadline-cluster-never-up",
        "failed",
        [JDS, REASON],
        ["activeDeadlineSeconds (600s)", "never came up"],
    ),
    (
        "rayjob-failed-deadline-running",
        "failed",
        [JDS, REASON, JS],
        ["activeDeadlineSeconds (3600s)", "RUNNING"],
    ),
    (
        "rayjob-failed-deadline-spec-edited",
        "failed",
        [JDS, REASON, MESSAGE, JS],
        ["activeDeadlineSeconds (600s when it fired; the spec no longer sets it) exceeded after 10m", "RUNNING"],
    ),
    (
        "rayjob-failed-prerunning-deadline",
        "failed",
        [JDS, REASON],
        ["preRunningDeadlineSeconds (300s)", "never came up"],
    ),
    ("rayjob-failed-grace-period", "failed", [JDS, JS, REASON], ["FAILED", "submitter never exited"]),
    (
        "rayjob-failed-submitter-finished",
        "failed",
        [JDS, JS, REASON, MESSAGE],
        ["submitter exited", "not finished 30s later", "forced"],
    ),
    (
        "rayjob-failed-status-check-timeout",
        "failed",
        [JDS, REASON, "status.jobStatusCheckFailureStartTime"],
        ["Ray dashboard", "outcome is unknown"],
    ),
    (
        "rayjob-failed-retries-exhausted",
        "failed",
        [JDS, REASON, "status.failed", "spec.backoffLimit"],
        ["attempt 3 of 3", "bad shard"],
    ),
    (
        "rayjob-retrying",
        "degraded",
        [JDS, REASON, "status.failed", "spec.backoffLimit"],
        ["retrying", "AppFailed", "backoffLimit 2"],
    ),
    ("rayjob-suspending", "suspended", [JDS], ["suspending"]),
    ("rayjob-suspended", "suspended", [JDS], ["suspended"]),
    ("rayjob-validation-failed", "failed", [JDS, MESSAGE], ["ValidationFailed", "cannot be suspended"]),
    ("rayjob-unknown-deployment-status", "unknown", [JDS], ["Scheduling"]),
    # --- RayCluster: every condition and reason, suspend states, deprecated state ---------------------------
    ("raycluster-no-status", "progressing", [], ["no status yet", "InvalidRayClusterSpec"]),
    (
        "raycluster-provisioning",
        "progressing",
        [cond("HeadPodReady"), cond("HeadPodReady", "reason")],
        ["head pod not ready yet", "ContainersNotReady"],
    ),
    (
        "raycluster-head-unknown",
        "progressing",
        [cond("HeadPodReady"), cond("HeadPodReady", "reason")],
        ["not scheduled yet", "no Ready condition", "reason Unknown"],
    ),
    (
        "raycluster-updated-replicas",
        "healthy",
        [cond("HeadPodReady"), cond("RayClusterProvisioned")],
        ["head pod ready", "provisioned"],
    ),
    (
        "raycluster-workers-provisioning",
        "progressing",
        [cond("HeadPodReady"), cond("RayClusterProvisioned"), "status.readyWorkerReplicas"],
        ["head pod ready", "RayClusterPodsProvisioning", "1/2"],
    ),
    ("raycluster-ready", "healthy", [cond("HeadPodReady"), cond("RayClusterProvisioned")], ["ready", "2/2"]),
    (
        "raycluster-head-crashloop",
        "degraded",
        [cond("HeadPodReady", "reason"), cond("HeadPodReady", "message")],
        ["CrashLoopBackOff"],
    ),
    (
        "raycluster-head-not-found",
        "degraded",
        [cond("HeadPodReady", "reason"), cond("RayClusterProvisioned")],
        ["HeadPodNotFound", "was ready"],
    ),
    (
        "raycluster-replica-failure",
        "degraded",
        [cond("ReplicaFailure"), cond("ReplicaFailure", "reason")],
        ["FailedCreateWorkerPod", "exceeded quota"],
    ),
    (
        "raycluster-replica-failure-head",
        "degraded",
        [cond("ReplicaFailure", "reason"), cond("HeadPodReady")],
        ["FailedCreateHeadPod", "admission webhook"],
    ),
    ("raycluster-suspending", "suspended", [cond("RayClusterSuspending")], ["suspending"]),
    ("raycluster-suspended", "suspended", [cond("RayClusterSuspended")], ["suspended"]),
    (
        "raycluster-rc86-both-suspend-conditions",
        "failed",
        [cond("RayClusterSuspending"), cond("RayClusterSuspended")],
        ["RC-86"],
    ),
    (
        "raycluster-stale-generation",
        "healthy",
        ["metadata.generation", "status.observedGeneration"],
        ["generation 2", "at 3", "only when a field in it changes"],
    ),
    ("raycluster-legacy-ready", "healthy", ["status.state"], ["deprecated", "ready"]),
    ("raycluster-legacy-suspended", "suspended", ["status.state"], ["suspended"]),
    ("raycluster-legacy-not-ready", "progressing", ["status.desiredWorkerReplicas"], ["not ready yet"]),
    # --- RayService: Ready reasons, upgrade / rollback / suspend, app and deployment health -----------------
    ("rayservice-no-status", "progressing", [], ["no status yet"]),
    (
        "rayservice-initializing",
        "progressing",
        [cond("Ready", "reason"), f"{PENDING_APP}.status"],
        ["initializing", "DEPLOYING"],
    ),
    (
        "rayservice-initializing-no-active",
        "progressing",
        [cond("UpgradeInProgress", "reason")],
        ["initializing"],
    ),
    (
        "rayservice-initializing-app-failed",
        "degraded",
        [
            f"{PENDING_APP}.status",
            f"{PENDING_APP}.serveDeploymentStatuses.LLMServer.status",
            f"{PENDING_APP}.serveDeploymentStatuses.LLMServer.message",
        ],
        ["DEPLOY_FAILED", "LLMServer", "No module named 'vllm'"],
    ),
    (
        "rayservice-ready",
        "healthy",
        [cond("Ready"), "status.numServeEndpoints", f"{ACTIVE_APP}.status"],
        ["3 serve endpoints", "chat-7fz2k", "llm"],
    ),
    (
        "rayservice-serve-config-updating",
        "progressing",
        [cond("Ready"), f"{ACTIVE_APP}.status"],
        ["active app llm DEPLOYING", "serveConfigV2 change"],
    ),
    (
        "rayservice-ready-app-unhealthy",
        "degraded",
        [cond("Ready"), f"{ACTIVE_APP}.status", f"{ACTIVE_APP}.serveDeploymentStatuses.LLMServer.status"],
        ["active app llm UNHEALTHY", "LLMServer UNHEALTHY", "health check"],
    ),
    (
        "rayservice-upgrading",
        "progressing",
        [cond("UpgradeInProgress"), "status.pendingServiceStatus.rayClusterName"],
        ["upgrading", "chat-q9m4t", "traffic on active cluster chat-7fz2k"],
    ),
    (
        "rayservice-upgrade-pending-failing",
        "degraded",
        [
            cond("Ready"),
            cond("UpgradeInProgress"),
            f"{PENDING_APP}.status",
            f"{PENDING_APP}.serveDeploymentStatuses.LLMServer.status",
            f"{PENDING_APP}.serveDeploymentStatuses.LLMServer.message",
            "status.activeServiceStatus.rayClusterName",
        ],
        [
            "upgrade stuck",
            "pending app llm DEPLOY_FAILED",
            "CUDA out of memory",
            "active chat-7fz2k serving",
            "traffic on active cluster chat-7fz2k",
        ],
    ),
    (
        "rayservice-incremental-upgrade",
        "progressing",
        [
            "status.activeServiceStatus.trafficRoutedPercent",
            "status.pendingServiceStatus.trafficRoutedPercent",
        ],
        ["70% on active chat-7fz2k", "30% on pending chat-q9m4t"],
    ),
    (
        "rayservice-rollback",
        "progressing",
        [cond("RollbackInProgress"), cond("RollbackInProgress", "reason")],
        ["rolling back", "DesiredClusterSpecChanged", "80% on active"],
    ),
    (
        "rayservice-zero-endpoints",
        "degraded",
        [cond("Ready", "reason"), "status.numServeEndpoints"],
        ["ZeroServeEndpoints", "All replicas are dead"],
    ),
    (
        "rayservice-validation-failed",
        "failed",
        [cond("Ready", "reason"), cond("Ready", "message")],
        ["ValidationFailed", "Blue-Green"],
    ),
    (
        "rayservice-initializing-timeout",
        "failed",
        [cond("Ready", "reason")],
        ["InitializingTimeout", "stays failed"],
    ),
    (
        "rayservice-suspend-requested",
        "suspended",
        [cond("Suspending"), cond("Suspending", "reason")],
        ["suspending"],
    ),
    ("rayservice-suspending", "suspended", [cond("Ready", "reason"), cond("Suspending")], ["suspending"]),
    ("rayservice-suspended", "suspended", [cond("Suspended"), cond("Suspended", "reason")], ["suspended"]),
    (
        "rayservice-resumed",
        "progressing",
        [cond("Suspended", "reason"), cond("Ready", "reason")],
        ["initializing"],
    ),
    (
        "rayservice-legacy-running",
        "healthy",
        ["status.serviceStatus"],
        ["serviceStatus Running", "deprecated"],
    ),
    ("rayservice-legacy-not-running", "progressing", ["status.serviceStatus"], ["not running"]),
    ("rayservice-legacy-failed", "degraded", ["status.serviceStatus"], ["FailedToGetOrCreateRayCluster"]),
    # --- RayCronJob -----------------------------------------------------------------------------------------
    ("raycronjob-never-scheduled", "progressing", ["spec.schedule"], ["nothing scheduled yet", "RayCronJob"]),
    ("raycronjob-scheduled", "healthy", ["status.lastScheduleTime"], ["2026-11-30T10:00:00Z"]),
    ("raycronjob-suspended", "suspended", ["spec.suspend"], ["suspended"]),
    # --- real statuses written by the KubeRay v1.6.1 operator in the cluster tier (tests/cluster) ----------------
    (
        "rayjob-real-failed-deadline-no-dashboard",
        "failed",
        [JDS, REASON, "status.rayClusterName"],
        ["activeDeadlineSeconds (15s) exceeded", "never started"],
    ),
    (
        "rayjob-real-validation-failed",
        "failed",
        [JDS, REASON, MESSAGE],
        ["ValidationFailed", "TTLSecondsAfterFinished"],
    ),
    (
        "rayservice-real-initializing-no-serve",
        "progressing",
        [cond("Ready"), cond("Ready", "reason"), "status.pendingServiceStatus.rayClusterName"],
        ["initializing", "pending cluster serve-p6jkk"],
    ),
    (
        "raycluster-real-autoscaling-ready",
        "healthy",
        [cond("HeadPodReady"), "status.readyWorkerReplicas", "status.desiredWorkerReplicas"],
        ["head pod ready", "workers ready 1/1"],
    ),
]


def test_every_fixture_has_a_case() -> None:
    on_disk = {path.stem for path in FIXTURES.glob("*.yaml")}
    in_table = {name for name, *_ in CASES}
    assert on_disk == in_table


#: Operator code path named in each snapshot's second comment line ("# operator (...): <Go function> ...").
_CITATION = re.compile(r"^# operator \(KubeRay v1\.7\.0 ray-operator/controllers/ray; same in v1\.6\.1\): (.+)$", re.M)
_GO_FUNCTION = re.compile(r"\b[a-z][A-Za-z]+(?:[A-Z][a-z]+)+\b|\bReconcile\b|\bNOT\b|older operator")


@pytest.mark.parametrize("name", sorted(path.stem for path in FIXTURES.glob("*.yaml")))
def test_snapshot_cites_the_code_that_writes_it_and_fits_the_crd(name: str) -> None:
    """Every snapshot names the operator function that writes that state (or says why it is not one), and is
    valid against the CRD (metav1.Condition's message, for one, is required: the operator always writes it)."""
    from _reference import crd_schema
    from conformance.openapi import validate

    text = (FIXTURES / f"{name}.yaml").read_text()
    if not text.startswith("# Real status from the KubeRay"):  # recorded from the real operator (cluster tier)
        citation = _CITATION.search(text)
        assert citation and _GO_FUNCTION.search(citation.group(1)), f"{name}: no operator code path cited"
    require_reference()
    obj = yaml.safe_load(text)
    assert validate(obj, crd_schema(obj["kind"])) == [], name


@pytest.mark.parametrize(("name", "phase", "paths", "words"), CASES, ids=[case[0] for case in CASES])
def test_snapshot(name: str, phase: str, paths: list[str], words: list[str]) -> None:
    obj = load(name)
    result = diagnose(obj, now=NOW)
    assert result.phase == phase, result.line()
    assert result.kind == obj["kind"]
    assert (result.name, result.namespace) == (obj["metadata"]["name"], obj["metadata"]["namespace"])
    cited = result.evidence_paths()
    for path in paths:
        assert path in cited, f"{path} not in evidence {cited}"
    for word in words:
        assert word in result.summary, f"{word!r} not in {result.summary!r}"
    # One line, JSON-serialisable, evidence values taken from the object.
    assert "\n" not in result.summary and "\n" not in result.next_step and "\n" not in result.line()
    json.dumps(result.to_dict())
    for path, value in result.evidence:
        assert value is None or isinstance(value, str | int | float | bool), path
    if result.phase not in OK_PHASES:
        assert result.next_step, "a diagnosis that is not ok must say what to check next"


def test_waiting_for_cluster_is_searchable() -> None:
    """The design note calls the first RayJob phase "WaitingForCluster"; the real value is Initializing."""
    result = diagnose(load("rayjob-initializing"))
    assert "waiting for cluster" in result.summary.lower()
    assert "Initializing" in result.summary
    assert "kuberay-explain" in result.next_step  # follow up on the cluster itself


def test_job_failed_versus_cluster_never_up() -> None:
    job_failed = diagnose(load("rayjob-failed-app"))
    never_up = diagnose(load("rayjob-failed-deadline-cluster-never-up"))
    assert job_failed.phase == never_up.phase == "failed"
    assert "job FAILED" in job_failed.summary and "never came up" not in job_failed.summary
    assert "never came up" in never_up.summary
    assert job_failed.next_step == "kubectl logs -n ml job/train"
    assert "raycluster" in never_up.next_step


def test_a_deadline_is_named_with_its_value_or_said_to_be_gone() -> None:
    running = diagnose(load("rayjob-failed-deadline-running"))
    assert running.summary == (
        "activeDeadlineSeconds (3600s) exceeded after 1h; the job was still RUNNING (not retried)"
    )
    # In v1.7.0 only checkActiveDeadlineAndUpdateStatusIfNeeded writes DeadlineExceeded, and only with the field set:
    # without it in the spec (edited since) and in the message (older operators wrote none), say so, not "(?s)".
    edited = load("rayjob-failed-deadline-spec-edited")
    edited["status"]["message"] = "The RayJob has passed the activeDeadlineSeconds."
    assert diagnose(edited).summary == (
        "activeDeadlineSeconds (no longer in the spec, its value not in the status message) exceeded after 10m; the job was still RUNNING (not retried)"
    )
    pre = load("rayjob-failed-prerunning-deadline")
    del pre["spec"]["preRunningDeadlineSeconds"]
    pre["status"]["message"] = "The RayJob has passed the preRunningDeadlineSeconds. StartTime: x. PreRunningDeadlineSeconds: 300"
    assert diagnose(pre).summary.startswith(
        "preRunningDeadlineSeconds (300s when it fired; the spec no longer sets it) exceeded: the job never reached Running"
    )
    every = [diagnose(load(path.stem)).summary for path in FIXTURES.glob("rayjob-*.yaml")]
    assert not any("?s" in summary for summary in every)


def test_logs_hint_follows_submission_mode() -> None:
    obj = load("rayjob-failed-app")
    obj["spec"]["submissionMode"] = "HTTPMode"
    assert "ray job logs train-x7k2p-abcde" in diagnose(obj).next_step
    obj["spec"]["submissionMode"] = "SidecarMode"
    assert "-c ray-job-submitter" in diagnose(obj).next_step


def test_durations_need_now_only_for_open_states() -> None:
    assert "for " not in diagnose(load("rayjob-running")).summary  # no clock, no duration
    assert "after 42m30s" in diagnose(load("rayjob-complete")).summary  # start/end from the status


def test_huge_multiline_message_is_one_short_line() -> None:
    obj = load("rayjob-failed-app")
    obj["status"]["message"] = "first line\n" + ("log line\n" * 50_000) + "RuntimeError: the real error\x1b[31m"
    result = diagnose(obj)
    assert "first line" in result.summary and "RuntimeError: the real error" in result.summary
    assert len(result.summary) < 700
    assert "\x1b" not in result.line()


# --- variants built from a snapshot: every reason of a condition --------------------------------------------

REPLICA_FAILURE_REASONS = [
    ("FailedCreateHeadPod", "could not create the head pod"),
    ("FailedDeleteHeadPod", "could not delete the head pod"),
    ("FailedCreateWorkerPod", "could not create worker pods"),
    ("FailedDeleteWorkerPod", "could not delete worker pods"),
    ("FailedDeleteAllPods", "could not delete the pods"),
]


@pytest.mark.parametrize(("reason", "words"), REPLICA_FAILURE_REASONS)
def test_replica_failure_reasons(reason: str, words: str) -> None:
    obj = load("raycluster-replica-failure")
    for item in obj["status"]["conditions"]:
        if item["type"] == "ReplicaFailure":
            item["reason"] = reason
    result = diagnose(obj)
    assert result.phase == "degraded"
    assert (cond("ReplicaFailure", "reason"), reason) in result.evidence
    assert words in result.summary


HEAD_REASONS = [
    ("ImagePullBackOff", "degraded"),
    ("ErrImagePull", "degraded"),
    ("CreateContainerConfigError", "degraded"),
    ("CrashLoopBackOff", "degraded"),
    ("ContainersNotReady", "progressing"),
    ("PodInitializing", "progressing"),
    ("HeadPodNotFound", "progressing"),
    ("Unknown", "progressing"),
]


@pytest.mark.parametrize(("reason", "phase"), HEAD_REASONS)
def test_head_pod_reasons_before_first_provisioning(reason: str, phase: str) -> None:
    obj = load("raycluster-provisioning")
    for item in obj["status"]["conditions"]:
        if item["type"] == "HeadPodReady":
            item["reason"] = reason
    result = diagnose(obj)
    assert result.phase == phase
    assert reason in result.summary


# (application status, deployment status, phase) on the active cluster of a Ready RayService
SERVE_STATUS_VARIANTS = [
    ("RUNNING", "HEALTHY", "healthy"),
    ("RUNNING", "UPSCALING", "healthy"),
    ("RUNNING", "DOWNSCALING", "healthy"),
    ("DEPLOYING", "UPDATING", "progressing"),  # a serveConfigV2 change being applied (reconcileServe)
    ("NOT_STARTED", "UPDATING", "progressing"),
    ("DELETING", "UPDATING", "progressing"),
    ("UNHEALTHY", "UNHEALTHY", "degraded"),
    ("DEPLOY_FAILED", "DEPLOY_FAILED", "degraded"),
]


@pytest.mark.parametrize(("app_status", "deployment_status", "phase"), SERVE_STATUS_VARIANTS)
def test_serve_statuses_on_a_ready_service(app_status: str, deployment_status: str, phase: str) -> None:
    obj = load("rayservice-ready")
    app = obj["status"]["activeServiceStatus"]["applicationStatuses"]["llm"]
    app["status"] = app_status
    app["serveDeploymentStatuses"]["LLMServer"]["status"] = deployment_status
    result = diagnose(obj)
    assert result.phase == phase, result.line()
    assert (f"{ACTIVE_APP}.status", app_status) in result.evidence
    if app_status != "RUNNING":
        assert f"active app llm {app_status}" in result.summary
    if phase == "degraded":
        assert f"LLMServer {deployment_status}" in result.summary


@pytest.mark.parametrize("state", ["Suspending", "Suspended"])
def test_cluster_suspend_requested_before_conditions_move(state: str) -> None:
    obj = load("raycluster-ready")
    obj["spec"]["suspend"] = True
    assert diagnose(obj).phase == "suspended"


def test_deletion_in_progress() -> None:
    obj = load("raycluster-ready")
    obj["metadata"]["deletionTimestamp"] = "2026-11-30T10:20:00Z"
    result = diagnose(obj)
    assert result.phase == "progressing"
    assert "being deleted" in result.summary and "healthy" in result.summary
    assert "metadata.deletionTimestamp" in result.evidence_paths()


def test_v1alpha1_objects_are_read_the_same() -> None:
    obj = load("rayjob-complete")
    obj["apiVersion"] = "ray.io/v1alpha1"
    assert diagnose(obj).phase == "succeeded"


# --- coverage against the reference: every value and condition KubeRay v1.7.0 defines has a snapshot --------


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end > 0 else len(text)]


def _ticked(text: str) -> set[str]:
    return set(re.findall(r"`([A-Za-z_]+)`", text))


def _row(section: str, first_cell: str) -> str:
    for line in section.splitlines():
        if line.startswith(f"| `{first_cell}`"):
            return line
    raise AssertionError(f"row {first_cell} not found")


@functools.cache
def _all_fixture_strings() -> frozenset[str]:
    seen: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                seen.add(str(key))
                walk(child)
        elif isinstance(value, list):
            for child in value:
                walk(child)
        elif isinstance(value, str):
            seen.add(value)

    for path in FIXTURES.glob("*.yaml"):
        walk(yaml.safe_load(path.read_text()).get("status"))
    seen.update(reason for reason, _ in REPLICA_FAILURE_REASONS)
    seen.update(reason for reason, _ in HEAD_REASONS)
    seen.update(app for app, _, _ in SERVE_STATUS_VARIANTS)
    seen.update(dep for _, dep, _ in SERVE_STATUS_VARIANTS)
    return frozenset(seen)


@functools.cache
def _reference_values() -> dict[str, set[str]]:
    text = (require_reference() / "reference" / "kuberay-v1.7.0.md").read_text()
    cluster = _section(text, "## 2. RayCluster")
    job = _section(text, "## 3. RayJob")
    service = _section(text, "## 4. RayService")
    conditions_22 = cluster[cluster.index("### 2.2") :]
    machine = job[job.index("`jobDeploymentStatus` state machine") :]
    service_status = service[service.index("### 4.2") :]
    values = {
        # "failed" is a deprecated constant calculateStatus never writes: no snapshot may claim it.
        "RayCluster state": {v for v in _ticked(_row(cluster, "state")) if v.islower()} - {"failed"},
        "RayCluster conditions and reasons": _ticked(conditions_22)
        - {"spec", "ValidateRayClusterStatus", "RayClusterStatusConditions"},
        "RayJob jobStatus": {v for v in _ticked(_row(job, "jobStatus")) if v.isupper()},
        "RayJob reason": _ticked(_row(job, "reason")),
        "RayJob jobDeploymentStatus": {m for m in re.findall(r"^\| `([A-Za-z]+)`", machine, flags=re.MULTILINE)},
        "RayService conditions and reasons": _ticked(service_status.split("### 4.3", 1)[1]) - {"spec"},
        "Serve application and deployment statuses": {
            v for v in _ticked(service_status.split("Application status values", 1)[1]) if v.isupper()
        },
    }
    return values


def test_reference_values_parsed() -> None:
    values = _reference_values()
    assert {
        "Initializing",
        "Waiting",
        "Running",
        "Complete",
        "Failed",
        "Retrying",
        "Suspending",
        "Suspended",
        "ValidationFailed",
    } <= values["RayJob jobDeploymentStatus"]
    assert {"PENDING", "RUNNING", "STOPPED", "SUCCEEDED", "FAILED"} == values["RayJob jobStatus"]
    assert "RollbackInProgress" in values["RayService conditions and reasons"]
    assert "HeadPodReady" in values["RayCluster conditions and reasons"]


@pytest.mark.parametrize(
    "group",
    [
        "RayCluster state",
        "RayCluster conditions and reasons",
        "RayJob jobStatus",
        "RayJob reason",
        "RayJob jobDeploymentStatus",
        "RayService conditions and reasons",
        "Serve application and deployment statuses",
    ],
)
def test_every_reference_value_has_a_snapshot(group: str) -> None:
    missing = sorted(_reference_values()[group] - _all_fixture_strings())
    assert not missing, f"{group}: no snapshot covers {missing}"
