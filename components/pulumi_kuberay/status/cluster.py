"""RayCluster: conditions (``calculateStatus`` in ``raycluster_controller.go``), or the deprecated ``state``."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from pulumi_kuberay.kuberay.paths import as_int, get
from pulumi_kuberay.status._common import (
    _DESCRIBE,
    _EVENTS,
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
    parse_time,
)

#: ReplicaFailure reasons -> what failed.
_CLUSTER_REPLICA_FAILURE: Final[dict[str, str]] = {
    "FailedCreateHeadPod": "could not create the head pod",
    "FailedDeleteHeadPod": "could not delete the head pod",
    "FailedCreateWorkerPod": "could not create worker pods",
    "FailedDeleteWorkerPod": "could not delete worker pods",
    "FailedDeleteAllPods": "could not delete the pods",
}

CLUSTER_RC86: Final = StatusRule(
    "failed",
    "invalid status: conditions RayClusterSuspending and RayClusterSuspended are both True (operator rule RC-86); the operator refuses to reconcile it",
    "see the event: " + _EVENTS + "; recreating the RayCluster clears it",
)

CLUSTER_NO_STATUS: Final = StatusRule(
    "progressing",
    "no status yet: the operator has not reconciled it; if this lasts, the spec or metadata was probably rejected (RayCluster validation errors appear only as InvalidRayClusterSpec/InvalidRayClusterMetadata events)",
    _EVENTS,
)

#: Deprecated status.state (older operators, or the RayClusterStatusConditions gate off). v1.7.0 writes only
#: "ready" (all desired+1 Pods Running, not just the head) and "suspended" (calculateStatus); "failed" and
#: "unhealthy" were written by operators before v1.2 only.
CLUSTER_LEGACY_STATE: Final[dict[str, StatusRule]] = {
    "ready": StatusRule(
        "healthy",
        "state ready: all pods were running (deprecated status.state, no conditions: older operator or RayClusterStatusConditions gate off; never reset afterwards){workers}",
        "",
    ),
    "suspended": StatusRule(
        "suspended",
        "state suspended (spec.suspend=true): all pods deleted",
        "set spec.suspend=false to resume",
    ),
    "failed": StatusRule("failed", "state failed{reason_part} (written by operators before v1.2 only)", _EVENTS),
    "unhealthy": StatusRule("degraded", "state unhealthy{reason_part} (operators before v1.2 only)", _HEAD_POD),
    "": StatusRule(
        "progressing",
        "not ready yet{reason_part} (deprecated status.state empty, no conditions){workers}",
        "kubectl get pods -n {ns} -l ray.io/cluster={name}",
    ),
}


def _workers(reader: _Reader, base: str) -> str:
    ready = as_int(reader.get(f"{base}.readyWorkerReplicas"))
    desired = as_int(reader.get(f"{base}.desiredWorkerReplicas"))
    if desired is None:
        return ""
    return f"; workers ready {ready if ready is not None else '?'}/{desired}"


def _for_how_long(condition: Mapping[str, Any], now: datetime | None) -> str:
    """How long a condition has held, as ``" (for 12m)"``, from its lastTransitionTime (needs ``now``)."""
    since = parse_time(condition.get("lastTransitionTime"))
    if now is None or since is None:
        return ""
    return f" (for {_duration((now - since).total_seconds())})"


# C901, PLR0912: the RayCluster state machine, one branch per state
def _diagnose_cluster(  # noqa: C901, PLR0912
    reader: _Reader, facts: _Facts, base: str, now: datetime | None
) -> tuple[Phase, str, str]:
    status = get(reader.obj, *base.split("."))
    facts["cluster"] = facts["name"]
    if not status:
        return _render(CLUSTER_NO_STATUS, facts)
    conds = reader.conditions(base)
    suspend_requested = get(reader.obj, "spec", "suspend") is True
    if not conds:
        state = reader.text(f"{base}.state")
        reason = reader.text(f"{base}.reason")
        facts["reason_part"] = f": {_brief_message(reason)}" if reason else ""
        facts["workers"] = _workers(reader, base)
        if state == "" and suspend_requested:
            reader.note("spec.suspend", True)
            return "suspended", "suspend requested (spec.suspend=true), pods are being deleted", ""
        rule = CLUSTER_LEGACY_STATE.get(state)
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
        return _render(CLUSTER_RC86, facts)
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
            "" if head_status == "True" else f"; head pod not ready ({head_reason or head_status or 'no condition'})"
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
        if head_reason in HEAD_STUCK_REASONS:
            return (
                "degraded",
                _one_line(f"head pod not ready: {why}{detail} (HeadPodReady False){workers}", 600),
                _HEAD_POD.format_map(facts),
            )
        if head_reason == "Unknown" and head_status == "False":
            # FindHeadPodReadyCondition: the head Pod exists but has no Ready condition yet, i.e. it is
            # Pending and not scheduled (no node fits, quota, a missing PVC) or not yet seen by a kubelet.
            return (
                "degraded" if was_up else "progressing",
                _one_line(
                    f"head pod not scheduled yet: it has no Ready condition (HeadPodReady False, reason Unknown){detail}; if it lasts, no node fits its requests or a volume is missing{workers}",
                    600,
                ),
                _HEAD_POD.format_map(facts) + " (look at the Events: FailedScheduling)",
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
                f"{head_part}waiting for all pods to be ready for the first time ({prov_reason or prov_status}){workers}"
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
