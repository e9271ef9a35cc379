"""The component-side await: its verdict on every status snapshot, and the issue's cases played as operator
timelines through the poll loop (simulated clock) next to the provider's rule (``provider_satisfied``, the model
of ``JSONPath.Satisfied`` in ``provider/pkg/await/condition/jsonpath.go`` checked in test_wait_expressions).

Each timeline is a list of ``(seconds after our write, object or None)`` as the operator (v1.6.1/v1.7.0) writes
it, built from the snapshots. The loop polls every 2 s; the provider model is evaluated at every state. The
test asserts how each ends and when (simulated seconds, printed for the note), never a wall-clock time.
"""

from __future__ import annotations

import asyncio
import copy
import functools
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi_kuberay import kubeclient
from pulumi_kuberay.resources import _component_await as component_await
from pulumi_kuberay.resources._verdict import (
    DEFAULT_SETTLE_SECONDS,
    DEFAULT_STUCK_SECONDS,
    deletes_itself,
    job_failed,
    last_spec_write,
    verdict,
)
from test_wait_expressions import annotation_for, provider_satisfied

FIXTURES = Path(__file__).parent / "fixtures" / "status"
NOW = datetime(2026, 11, 30, 10, 30, tzinfo=UTC)
T0 = datetime(2026, 11, 30, 11, 0, tzinfo=UTC)  # our write in the timelines


@functools.cache
def _load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((FIXTURES / f"{name}.yaml").read_text())
    assert isinstance(data, dict)
    return data


def _run(coroutine: Any) -> Any:
    """Run on a private loop: asyncio.run would unset the session loop the pulumi mocks rely on."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.close()


def snap(name: str) -> dict[str, Any]:
    return copy.deepcopy(_load(name))


# --------------------------------------------------------------------------------------------------
# Every snapshot, long after our write (settled, and stuck states have lasted).

EXPECTED_VERDICT = {
    "done": {
        "raycluster-legacy-ready",
        "raycluster-legacy-suspended",
        "raycluster-ready",
        "raycluster-real-autoscaling-ready",
        "raycluster-replica-failure",  # worker pods refused, head ready: done (the diagnosis is warned)
        "raycluster-stale-generation",  # nothing in the status changed: the operator will never rewrite it
        "raycluster-suspended",
        "raycluster-updated-replicas",
        "raycluster-workers-provisioning",
        "raycronjob-never-scheduled",
        "raycronjob-scheduled",
        "raycronjob-suspended",
        "rayjob-complete",
        "rayjob-complete-grace-period",
        "rayjob-suspended",
        "rayjob-waiting-interactive",
        "rayservice-legacy-running",
        "rayservice-ready",
        "rayservice-ready-app-unhealthy",  # serving; UNHEALTHY may pass: done, with the diagnosis as a warning
        "rayservice-suspended",
    },
    "failed": {
        "raycluster-head-crashloop",
        "raycluster-rc86-both-suspend-conditions",
        "raycluster-replica-failure-head",
        "rayjob-complete-stopped",
        "rayjob-failed-app",
        "rayjob-failed-deadline-cluster-never-up",
        "rayjob-failed-deadline-running",
        "rayjob-failed-deadline-spec-edited",
        "rayjob-failed-grace-period",
        "rayjob-failed-prerunning-deadline",
        "rayjob-failed-retries-exhausted",
        "rayjob-failed-status-check-timeout",
        "rayjob-failed-submission",
        "rayjob-failed-submitter-finished",
        "rayjob-validation-failed",
        "rayjob-validation-failed-waiting",
        "rayjob-real-failed-deadline-no-dashboard",
        "rayjob-real-validation-failed",
        "rayservice-initializing-app-failed",
        "rayservice-initializing-timeout",
        "rayservice-upgrade-pending-failing",
        "rayservice-validation-failed",
    },
}


def _all_snapshots() -> list[str]:
    return sorted(path.stem for path in FIXTURES.glob("*.yaml"))


@pytest.mark.parametrize("name", _all_snapshots())
def test_verdict_on_every_snapshot(name: str) -> None:
    result = verdict(snap(name), now=NOW)
    expected = next((state for state, names in EXPECTED_VERDICT.items() if name in names), "waiting")
    assert result.state == expected, result.reason
    assert "\n" not in result.reason and result.reason


def test_expected_names_exist() -> None:
    names = set(_all_snapshots())
    for state, expected in EXPECTED_VERDICT.items():
        assert expected <= names, (state, expected - names)


def test_failure_reason_is_the_diagnosis() -> None:
    result = verdict(snap("raycluster-head-crashloop"), now=NOW)
    assert "CrashLoopBackOff" in result.reason and "kubectl describe pod" in result.reason


# --------------------------------------------------------------------------------------------------
# Generation, settle time, rejection events.


def written_at(obj: dict[str, Any], when: datetime, *, generation: int | None = None) -> dict[str, Any]:
    """``obj`` as the API server returns it after our write at ``when`` (managedFields time, generation)."""
    out = copy.deepcopy(obj)
    meta = out["metadata"]
    meta.setdefault("uid", "uid-1")
    meta["managedFields"] = [
        {"manager": "pulumi-kubernetes", "operation": "Apply", "time": when.strftime("%Y-%m-%dT%H:%M:%SZ")},
        {"manager": "ray-operator", "operation": "Update", "subresource": "status", "time": "2099-01-01T00:00:00Z"},
    ]
    if generation is not None:
        meta["generation"] = generation
    return out


def test_last_spec_write_ignores_status_writes() -> None:
    obj = written_at(snap("raycluster-ready"), T0)
    assert last_spec_write(obj) == T0


def test_stale_raycluster_is_trusted_only_after_the_settle_time() -> None:
    stale = written_at(snap("raycluster-stale-generation"), T0)
    assert verdict(stale, now=T0 + timedelta(seconds=1)).state == "waiting"
    late = verdict(stale, now=T0 + timedelta(seconds=DEFAULT_SETTLE_SECONDS))
    assert late.state == "done" and "nothing in it changed" in late.reason


def test_fresh_raycluster_needs_no_settle_time() -> None:
    fresh = written_at(snap("raycluster-updated-replicas"), T0)
    assert verdict(fresh, now=T0).state == "done"


def _event(reason: str, *, at: datetime, uid: str = "uid-1", style: str = "v1.7.0") -> dict[str, Any]:
    stamp = at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    event: dict[str, Any] = {
        "reason": reason,
        "message": "ml/shared: The RayCluster spec is invalid: headGroupSpec should have at least one container",
        "involvedObject": {"kind": "RayCluster", "name": "shared", "uid": uid},
        "type": "Warning",
    }
    if style == "v1.7.0":  # events API (Recorder.Eventf with regarding/related): eventTime, series
        event["eventTime"] = stamp
    else:  # v1.6.1's core recorder: first/lastTimestamp
        event["firstTimestamp"] = event["lastTimestamp"] = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    return event


@pytest.mark.parametrize("style", ["v1.7.0", "v1.6.1"])
def test_rejected_update_fails_at_once(style: str) -> None:
    """A spec the operator rejects: ValidateRayClusterSpec emits InvalidRayClusterSpec and writes no status."""
    obj = written_at(snap("raycluster-ready"), T0, generation=2)
    events = [_event("InvalidRayClusterSpec", at=T0 + timedelta(seconds=1), style=style)]
    result = verdict(obj, events, now=T0 + timedelta(seconds=2))
    assert result.state == "failed" and "InvalidRayClusterSpec" in result.reason


def test_old_or_foreign_rejections_are_ignored() -> None:
    obj = written_at(snap("raycluster-ready"), T0)
    earlier = [_event("InvalidRayClusterSpec", at=T0 - timedelta(minutes=5))]
    other_object = [_event("InvalidRayClusterSpec", at=T0 + timedelta(seconds=1), uid="uid-of-a-deleted-one")]
    assert verdict(obj, earlier, now=T0 + timedelta(seconds=30)).state == "done"
    assert verdict(obj, other_object, now=T0 + timedelta(seconds=30)).state == "done"


def test_never_accepted_object_fails_on_an_older_rejection_once_settled() -> None:
    """A no-op up of an object the operator rejected earlier: no status, no new event (no reconcile)."""
    obj = written_at(snap("raycluster-no-status"), T0)
    events = [_event("InvalidRayClusterSpec", at=T0 - timedelta(minutes=5))]
    assert verdict(obj, events, now=T0 + timedelta(seconds=1)).state == "waiting"
    assert verdict(obj, events, now=T0 + timedelta(seconds=DEFAULT_SETTLE_SECONDS)).state == "failed"


def test_rayservice_validation_failed_keeps_the_old_generation() -> None:
    """validateRayService writes Ready False ValidationFailed without advancing observedGeneration; once the
    spec is fixed the reason may linger with observedGeneration advanced, which is not a failure."""
    bad = written_at(snap("rayservice-validation-failed"), T0)
    assert verdict(bad, now=T0 + timedelta(seconds=1)).state == "waiting"
    assert verdict(bad, now=T0 + timedelta(seconds=DEFAULT_SETTLE_SECONDS)).state == "failed"
    fixed = written_at(snap("rayservice-validation-failed"), T0, generation=2)
    fixed["status"]["observedGeneration"] = 2
    assert verdict(fixed, now=T0 + timedelta(minutes=1)).state == "waiting"


def test_rayservice_suspend_on_v161_is_pruned_and_waits_for_ready() -> None:
    """v1.6.1's CRD has no spec.suspend: the API server drops it, the live spec decides."""
    obj = snap("rayservice-ready")
    obj["spec"].pop("suspend", None)
    assert verdict(obj, now=NOW).state == "done"


def test_kueue_suspended_job_keeps_waiting() -> None:
    obj = snap("rayjob-suspended")
    obj["metadata"].setdefault("labels", {})["kueue.x-k8s.io/queue-name"] = "user-queue"
    assert verdict(obj, now=NOW).state == "waiting"


def test_deleted_object() -> None:
    assert verdict(None, now=NOW).state == "failed"
    assert verdict(None, now=NOW, deleted_ok=True).state == "done"
    deleting = snap("raycluster-ready")
    deleting["metadata"]["deletionTimestamp"] = "2026-11-30T10:29:00Z"
    assert verdict(deleting, now=NOW).state == "failed"


def test_job_helpers() -> None:
    assert job_failed(snap("rayjob-complete-stopped"))
    assert job_failed(snap("rayjob-failed-app"))
    assert not job_failed(snap("rayjob-complete"))
    assert not job_failed(snap("rayjob-running-job-failed"))  # not over yet: may still be retried
    assert deletes_itself({"deletionStrategy": {"deletionRules": [{"policy": "DeleteSelf"}]}})
    assert not deletes_itself({"deletionStrategy": {"deletionRules": [{"policy": "DeleteCluster"}]}})


# --------------------------------------------------------------------------------------------------
# The issue's cases as operator timelines.

Timeline = list[tuple[float, dict[str, Any] | None]]


class SimulatedCluster:
    """Serves the timeline: the state whose time has come, the events written so far, the server's time."""

    def __init__(self, timeline: Timeline, events: list[tuple[float, dict[str, Any]]] | None = None) -> None:
        self.timeline = timeline
        self.events = events or []
        self.clock = 0.0

    def state(self, at: float) -> dict[str, Any] | None:
        current = self.timeline[0][1]
        for when, obj in self.timeline:
            if when <= at:
                current = obj
        return current

    def fetch(self, kind: str, namespace: str, name: str) -> tuple[dict[str, Any] | None, list[Any], datetime]:
        now = T0 + timedelta(seconds=self.clock)
        events = [event for when, event in self.events if when <= self.clock]
        return copy.deepcopy(self.state(self.clock)), events, now

    async def sleep(self, seconds: float) -> None:
        self.clock += seconds

    def monotonic(self) -> float:
        return self.clock


def run_component_await(cluster: SimulatedCluster, kind: str, timeout: float = 600) -> tuple[str, float, str]:
    _obj, result = _run(
        component_await.poll_until_over(
            cluster.fetch,
            kind,
            "ml",
            "x",
            timeout_seconds=timeout,
            sleep=cluster.sleep,
            monotonic=cluster.monotonic,
        )
    )
    return result.state, cluster.clock, result.reason


def run_provider_model(timeline: Timeline, timeout: float = 600) -> tuple[str, float]:
    """The provider's await on the fallback annotation: ends at the first state that satisfies it."""
    for when, obj in timeline:
        if obj is not None and provider_satisfied(annotation_for(obj), obj):
            return "done", when
    return "timed out", timeout


def at(obj: dict[str, Any], *, generation: int, observed: int | None, **status: Any) -> dict[str, Any]:
    out = written_at(obj, T0, generation=generation)
    if observed is None:
        out["status"].pop("observedGeneration", None)
    else:
        out["status"]["observedGeneration"] = observed
        for condition in out["status"].get("conditions") or []:
            if "observedGeneration" in condition:
                condition["observedGeneration"] = observed
    out["status"].update(status)
    return out


def _transitioned(obj: dict[str, Any], ctype: str, when: datetime) -> dict[str, Any]:
    for condition in obj["status"].get("conditions") or []:
        if condition["type"] == ctype:
            condition["lastTransitionTime"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return obj


def _image_pull(reason: str, since: datetime) -> dict[str, Any]:
    obj = at(snap("raycluster-provisioning"), generation=1, observed=1)
    for condition in obj["status"]["conditions"]:
        if condition["type"] == "HeadPodReady":
            condition.update(status="False", reason=reason, message=f"ray-head: Back-off pulling image ({reason})")
    return _transitioned(obj, "HeadPodReady", since)


def _timelines() -> dict[str, tuple[str, Timeline, list[tuple[float, dict[str, Any]]], str, str]]:
    """case -> (kind, timeline, events, component end state, provider end state)."""
    no_status = written_at(snap("raycluster-no-status"), T0)
    ready1 = at(snap("raycluster-ready"), generation=1, observed=1)
    stale2 = at(snap("raycluster-ready"), generation=2, observed=1)  # image edited, nothing rewritten
    replicas = at(snap("raycluster-updated-replicas"), generation=3, observed=3)
    replicas_before = at(snap("raycluster-ready"), generation=3, observed=2)
    suspend_before = at(snap("raycluster-ready"), generation=2, observed=1)
    suspend_before["spec"]["suspend"] = True
    suspending = at(snap("raycluster-suspending"), generation=2, observed=2)
    suspended = at(snap("raycluster-suspended"), generation=2, observed=2)
    svc_before = at(snap("rayservice-ready"), generation=2, observed=1)
    svc_deploying = at(snap("rayservice-serve-config-updating"), generation=2, observed=2)
    svc_ready2 = at(snap("rayservice-ready"), generation=2, observed=2)
    svc_upgrading = at(snap("rayservice-upgrading"), generation=2, observed=2)
    job_init = written_at(snap("rayjob-initializing"), T0)
    job_running = written_at(snap("rayjob-running"), T0)
    job_failed_obj = written_at(snap("rayjob-failed-app"), T0)
    pull_start = T0 + timedelta(seconds=4)
    rejected = _event("InvalidRayClusterSpec", at=T0 + timedelta(seconds=1))
    return {
        "create": (
            "RayCluster",
            [(0, no_status), (3, at(snap("raycluster-provisioning"), generation=1, observed=1)), (9, ready1)],
            [],
            "done",
            "done",
        ),
        "image-only update": ("RayCluster", [(0, stale2)], [], "done", "timed out"),
        "replica-bounds update": ("RayCluster", [(0, replicas_before), (1, replicas)], [], "done", "done"),
        "RayService serveConfig change": (
            "RayService",
            [(0, svc_before), (1, svc_deploying), (15, svc_ready2)],
            [],
            "done",
            "done",
        ),
        "RayService cluster-spec change": (
            "RayService",
            [(0, svc_before), (1, svc_upgrading), (40, svc_ready2)],
            [],
            "done",
            "done",
        ),
        "suspend": ("RayCluster", [(0, suspend_before), (1, suspending), (5, suspended)], [], "done", "done"),
        "invalid spec": ("RayCluster", [(0, no_status)], [(1, rejected)], "failed", "timed out"),
        "head image cannot be pulled": (
            "RayCluster",
            [
                (0, no_status),
                (4, _image_pull("ErrImagePull", pull_start)),
                (20, _image_pull("ImagePullBackOff", pull_start)),
            ],
            [],
            "failed",
            "timed out",
        ),
        "RayJob driven to Failed": (
            "RayJob",
            [(0, job_init), (10, job_running), (70, job_failed_obj)],
            [],
            "failed",
            "done",
        ),
    }


# Where each case must end for the component await (state, latest simulated second it may take).
CASE_DEADLINES = {
    "create": 12,
    "image-only update": DEFAULT_SETTLE_SECONDS + 2,
    "replica-bounds update": 4,
    "RayService serveConfig change": 18,
    "RayService cluster-spec change": 42,
    "suspend": 8,
    "invalid spec": 4,
    "head image cannot be pulled": 4 + DEFAULT_STUCK_SECONDS + 2,
    "RayJob driven to Failed": 72,
}


@pytest.mark.parametrize("case", sorted(CASE_DEADLINES))
def test_issue_case(case: str) -> None:
    kind, timeline, events, component_end, provider_end = _timelines()[case]
    state, took, reason = run_component_await(SimulatedCluster(timeline, events), kind)
    assert state == component_end, reason
    assert took <= CASE_DEADLINES[case], (took, reason)
    provider_state, provider_took = run_provider_model(timeline)
    assert provider_state == provider_end
    print(
        f"\n{case}: component await {state} after {took:.0f}s simulated; provider waitFor {provider_state}"
        f" after {provider_took:.0f}s; {reason[:120]}"
    )


def test_serve_config_change_does_not_end_on_the_old_config() -> None:
    """Before the operator reconciles (observedGeneration 1 of 2) Ready is True on the old config."""
    _, timeline, _, _, _ = _timelines()["RayService serveConfig change"]
    first = timeline[0][1]
    assert first is not None
    assert verdict(first, now=T0 + timedelta(minutes=5)).state == "waiting"


def test_timeout_returns_the_last_diagnosis() -> None:
    cluster = SimulatedCluster([(0, at(snap("raycluster-head-unknown"), generation=1, observed=1))])
    state, took, reason = run_component_await(cluster, "RayCluster", timeout=30)
    assert state == "waiting" and took == 30
    assert "not scheduled yet" in reason


def test_transient_errors_are_retried_and_permanent_ones_raise() -> None:
    calls = {"n": 0}
    cluster = SimulatedCluster([(0, at(snap("raycluster-ready"), generation=1, observed=1))])

    def flaky(kind: str, namespace: str, name: str) -> Any:
        calls["n"] += 1
        if calls["n"] < 3:
            raise kubeclient.KubeError("connection refused")
        return cluster.fetch(kind, namespace, name)

    _obj, result = _run(
        component_await.poll_until_over(
            flaky, "RayCluster", "ml", "x", timeout_seconds=60, sleep=cluster.sleep, monotonic=cluster.monotonic
        )
    )
    assert result.state == "done" and calls["n"] == 3

    def forbidden(kind: str, namespace: str, name: str) -> Any:
        raise kubeclient.KubeError("HTTP 403 forbidden", 403)

    with pytest.raises(kubeclient.KubeError):
        _run(
            component_await.poll_until_over(
                forbidden, "RayCluster", "ml", "x", timeout_seconds=60, sleep=cluster.sleep, monotonic=cluster.monotonic
            )
        )
