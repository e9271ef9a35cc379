"""Read the status of a live KubeRay object: what state it is in, in one line, and what to check next.

:func:`diagnose` takes an object as returned by ``kubectl get <kind> <name> -o json`` (a plain ``dict``) of
any of the four ``ray.io`` kinds and returns a :class:`Diagnosis`: a coarse *phase*, a one-line summary, the
status fields it relied on (with their paths) and the next thing to check. It is pure (no I/O, no clock unless
``now`` is given), never imports pulumi and never raises: what it cannot interpret comes back as phase
``unknown`` with the reason.

The state machines are those of KubeRay v1.7.0 (RayCluster conditions; RayJob ``jobDeploymentStatus``,
``jobStatus`` and ``reason``; RayService conditions and Serve application statuses; RayCronJob
``lastScheduleTime``). Objects written by older operators (no conditions, only the deprecated ``status.state``
/ ``status.serviceStatus``) are read through those fields. The knowledge lives in tables, one module per kind
(``job``, ``cluster``, ``service``, ``cronjob``; shared pieces in ``_common``); the functions only walk them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pulumi_kuberay.kuberay import KINDS as RAY_KINDS
from pulumi_kuberay.kuberay.paths import as_int, get
from pulumi_kuberay.status._common import (
    _DESCRIBE,
    _EVENTS,
    HEAD_STUCK_REASONS,
    HEAD_WAITING_STUCK_REASONS,
    OK_PHASES,
    PHASES,
    Diagnosis,
    Phase,
    StatusRule,
    _Facts,
    _one_line,
    _Reader,
    _text,
    parse_time,
)
from pulumi_kuberay.status.argocd import ARGOCD_HEALTH, ArgoHealth, argocd_health
from pulumi_kuberay.status.cluster import _diagnose_cluster
from pulumi_kuberay.status.cronjob import _diagnose_cronjob
from pulumi_kuberay.status.job import _diagnose_job
from pulumi_kuberay.status.service import _diagnose_service

__all__ = [
    "ARGOCD_HEALTH",
    "HEAD_STUCK_REASONS",
    "HEAD_WAITING_STUCK_REASONS",
    "OK_PHASES",
    "PHASES",
    "ArgoHealth",
    "Diagnosis",
    "Phase",
    "StatusRule",
    "argocd_health",
    "diagnose",
    "parse_time",
]


def diagnose(obj: Any, *, now: datetime | None = None) -> Diagnosis:
    """Diagnose one live KubeRay object (a dict as from ``kubectl get ... -o json``). Never raises.

    ``now`` (timezone-aware) lets summaries say how long a state has lasted ("for 25m"); without it the result
    depends only on ``obj``.
    """
    if not isinstance(obj, Mapping):
        return Diagnosis("", "", "", "unknown", f"not a Kubernetes object (got {type(obj).__name__})")
    kind, name, namespace = (
        _text(obj.get("kind")),
        _text(get(obj, "metadata", "name")),
        _text(get(obj, "metadata", "namespace")),
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


def _overlay(reader: _Reader, facts: _Facts, phase: Phase, summary: str, next_step: str) -> tuple[Phase, str, str]:
    """Things true of any kind: deletion in progress, a status older than the spec."""
    deleting = reader.text("metadata.deletionTimestamp")
    if deleting:
        finalizers = get(reader.obj, "metadata", "finalizers")
        if isinstance(finalizers, list) and finalizers:
            reader.note("metadata.finalizers", ", ".join(str(item) for item in finalizers))
        return (
            "progressing",
            _one_line(f"being deleted (since {deleting}); before that: {phase}, {summary}", 600),
            "if it stays, the operator has not removed its finalizer: " + _DESCRIBE.format_map(facts),
        )
    generation = as_int(get(reader.obj, "metadata", "generation"))
    observed = as_int(get(reader.obj, "status", "observedGeneration"))
    if generation is not None and observed is not None and observed < generation:
        reader.note("metadata.generation", generation)
        reader.note("status.observedGeneration", observed)
        if reader.obj.get("kind") == "RayCluster":
            # calculateStatus sets observedGeneration, but updateRayClusterStatus writes the status only when
            # InconsistentRayClusterStatus sees another field change: after an edit that changes no status
            # field (image, resources, rayStartParams, pod template) it stays behind for good. The status is
            # still the current one, so the phase stands.
            note = (
                f" (status last written at generation {observed}, the object is at {generation}: KubeRay rewrites a RayCluster status only when a field in it changes, so an image or resources edit leaves observedGeneration behind; with upgradeStrategy None the running pods keep the old spec)"
            )
            return phase, summary + note, next_step
        note = f" (status is from generation {observed}, the object is at {generation}: not reconciled yet)"
        if phase == "healthy":
            return (
                "progressing",
                summary + note,
                next_step
                or ("wait for the operator to reconcile the change; if it does not: " + _EVENTS.format_map(facts)),
            )
        return phase, summary + note, next_step
    return phase, summary, next_step
