"""RayService: conditions, Serve application and deployment statuses, active and pending clusters
(``rayservice_controller.go``), or the deprecated ``serviceStatus``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, NamedTuple

from pulumi_kuberay.kuberay.paths import as_int, get
from pulumi_kuberay.status._common import (
    _DESCRIBE,
    _EVENTS,
    _EXPLAIN_CLUSTER,
    Phase,
    StatusRule,
    _brief_message,
    _Facts,
    _one_line,
    _Reader,
    _render,
    _text,
)

#: Ready=False reasons that decide the phase on their own.
SERVICE_READY_FALSE: Final[dict[str, StatusRule]] = {
    "ValidationFailed": StatusRule(
        "failed",
        "spec rejected by the operator (Ready False, ValidationFailed): {ready_message}",
        "fix the spec; see " + _EVENTS,
    ),
    "InitializingTimeout": StatusRule(
        "failed",
        "did not become ready within the ray.io/initializing-timeout annotation (Ready False, InitializingTimeout); its clusters were deleted and it stays failed{ready_message_part}",
        "delete and recreate the RayService after fixing the cause (earlier events: " + _EVENTS + ")",
    ),
    "SuspendInProgress": StatusRule(
        "suspended",
        "suspending (spec.suspend=true): deleting its clusters and services",
        "set spec.suspend=false to resume",
    ),
    "SuspendComplete": StatusRule(
        "suspended",
        "suspended (spec.suspend=true): no clusters, no traffic",
        "set spec.suspend=false to resume",
    ),
}

#: Ray Serve application statuses: "ok", "busy" (transitional) or "bad".
APP_STATUS: Final[dict[str, str]] = {
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
SERVICE_LEGACY_STATUS: Final[dict[str, StatusRule]] = {
    "Running": StatusRule("healthy", "serviceStatus Running (deprecated field, no conditions: older operator){apps}", ""),
    "": StatusRule("progressing", "not running yet (deprecated serviceStatus empty, no conditions){apps}", _DESCRIBE),
    "WaitForServeDeploymentReady": StatusRule(
        "progressing", "waiting for the Serve deployments to become ready{apps}", _DESCRIBE
    ),
    "WaitForDashboard": StatusRule("progressing", "waiting for the Ray dashboard{apps}", _DESCRIBE),
    "Restarting": StatusRule("degraded", "restarting (older operator serviceStatus Restarting){apps}", _DESCRIBE),
}

SERVICE_NO_STATUS: Final = StatusRule(
    "progressing",
    "no status yet: the operator has not reconciled it (is the KubeRay operator running and watching namespace {ns_or_default}?)",
    _EVENTS,
)


class _AppProblem(NamedTuple):
    severity: str  # "bad" | "busy"
    text: str


def _app_problems(reader: _Reader, base: str, label: str) -> tuple[list[_AppProblem], list[str]]:
    """Problems of the Serve apps under ``base`` (an active/pending service status) and the healthy apps."""
    apps = get(reader.obj, *base.split("."), "applicationStatuses")
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
        health = APP_STATUS.get(app_status, "bad" if app_status else "busy")
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
    a_pct = as_int(reader.get("status.activeServiceStatus.trafficRoutedPercent"))
    p_pct = as_int(reader.get("status.pendingServiceStatus.trafficRoutedPercent"))
    if pending and (a_pct is not None or p_pct is not None):
        return f"traffic: {a_pct if a_pct is not None else '?'}% on active {active or '?'}, " + (
            f"{p_pct if p_pct is not None else '?'}% on pending {pending}"
        )
    if active:
        return f"traffic on active cluster {active}" + (f" (pending {pending} gets none yet)" if pending else "")
    if pending:
        return f"no active cluster yet; pending cluster {pending} is being prepared"
    return "no cluster yet"


# C901, PLR0912, PLR0915: the RayService state machine, one branch per state
def _diagnose_service(reader: _Reader, facts: _Facts) -> tuple[Phase, str, str]:  # noqa: C901, PLR0912, PLR0915
    status = reader.obj.get("status")
    if not status:
        return _render(SERVICE_NO_STATUS, facts)
    active = reader.text("status.activeServiceStatus.rayClusterName")
    pending = reader.text("status.pendingServiceStatus.rayClusterName")
    facts["cluster"] = active or pending or "?"
    explain_cluster = (_EXPLAIN_CLUSTER if active or pending else _DESCRIBE).format_map(facts)
    endpoints = as_int(reader.get("status.numServeEndpoints"))
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
        rule = SERVICE_LEGACY_STATUS.get(legacy)
        if rule is None and legacy.startswith("Failed"):
            rule = StatusRule("degraded", f"serviceStatus {legacy} (older operator){{apps}}", _DESCRIBE)
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

    if ready != "True" and ready_reason in SERVICE_READY_FALSE:
        return _render(SERVICE_READY_FALSE[ready_reason], facts)
    if suspended == "True":
        return _render(SERVICE_READY_FALSE["SuspendComplete"], facts)
    if suspending == "True":
        return _render(SERVICE_READY_FALSE["SuspendInProgress"], facts)

    endpoints_text = f"{endpoints} serve endpoint{'s' if endpoints != 1 else ''}" if endpoints is not None else ""
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
            f"rolling back (RollbackInProgress True, {rb_reason or 'no reason'}): the spec changed during an incremental upgrade; {traffic}" + (f"; {rb_problems}" if rb_problems else "")
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
                "kubectl describe rayservice -n {ns} {name}; the failing Serve app's logs are on the pending cluster: " + explain_pending
            ).format_map(facts)
        else:
            head = f"upgrading ({up_reason or 'UpgradeInProgress'}): "
            pending_share = as_int(get(reader.obj, "status", "pendingServiceStatus", "trafficRoutedPercent"))
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
        busy_active = [p.text for p in active_problems if p.severity == "busy"]
        if busy_active:
            # reconcileServe resubmits a changed serveConfigV2 to the serving cluster: Ready stays True
            # while the apps redeploy, so "ready" alone does not mean the new config is live.
            return (
                "progressing",
                _one_line(
                    f"serving ({endpoints_text or 'ready'}) on cluster {active or '?'} while "
                    + "; ".join(busy_active)
                    + " (a serveConfigV2 change is being applied)",
                    600,
                ),
                "kubectl describe rayservice -n {ns} {name}".format_map(facts),
            )
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
                "kubectl get endpointslices -n {ns} -l kubernetes.io/service-name={name}-serve-svc; " + _EXPLAIN_CLUSTER
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
            f"Ready {ready} with unrecognised reason {ready_reason!r}{facts['ready_message_part']}; {traffic}",
            600,
        ),
        _DESCRIBE.format_map(facts),
    )
