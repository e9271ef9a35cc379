"""What every kind's reading shares: the :class:`Diagnosis` result, the phases, rule rows, command templates and
small total helpers (every one accepts anything). Pure: no I/O, never imports pulumi."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal, NamedTuple

from pulumi_kuberay.kuberay.paths import get

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


class StatusRule(NamedTuple):
    phase: Phase
    summary: str
    next_step: str = ""


_EXPLAIN_CLUSTER = "kubectl get raycluster -n {ns} {cluster} -o json | kuberay-explain -"
_DESCRIBE = "kubectl describe {kind_lower} -n {ns} {name}"
_EVENTS = "kubectl get events -n {ns} --field-selector involvedObject.name={name} --sort-by=.lastTimestamp"
_HEAD_POD = "kubectl describe pod -n {ns} -l ray.io/cluster={cluster},ray.io/node-type=head"


#: Container waiting reasons of a head Pod (copied into HeadPodReady by FindHeadPodReadyCondition) that will not
#: fix themselves: the component's wait fails on these once they persist.
HEAD_WAITING_STUCK_REASONS: Final[frozenset[str]] = frozenset(
    {
        "CrashLoopBackOff",
        "ImagePullBackOff",
        "ErrImagePull",
        "ErrImageNeverPull",
        "InvalidImageName",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
    }
)

#: Every HeadPodReady reason the diagnosis calls stuck: the waiting ones plus terminated reasons, which on a
#: restarting head are transient on their own (the wait leaves them to turn into CrashLoopBackOff).
HEAD_STUCK_REASONS: Final[frozenset[str]] = HEAD_WAITING_STUCK_REASONS | {
    "PreStartHookError",
    "PostStartHookError",
    "OOMKilled",
    "Error",
    "ContainerCannotRun",
    "DeadlineExceeded",
    "Evicted",
}


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


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return _one_line(repr(value), 200)


def parse_time(value: Any) -> datetime | None:
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
        value = get(self.obj, *path.split("."))
        if record and value is not None:
            self.note(path, value)
        return value

    def text(self, path: str, *, record: bool = True) -> str:
        return _text(self.get(path, record=record))

    def conditions(self, base: str) -> dict[str, Mapping[str, Any]]:
        """``<base>.conditions`` as {type: condition}; malformed entries are skipped."""
        raw = get(self.obj, *base.split("."), "conditions")
        out: dict[str, Mapping[str, Any]] = {}
        if isinstance(raw, Sequence) and not isinstance(raw, str):
            for item in raw:
                if isinstance(item, Mapping) and isinstance(item.get("type"), str):
                    out[item["type"]] = item
        return out

    def condition(self, base: str, conds: Mapping[str, Mapping[str, Any]], ctype: str) -> tuple[str, str, str]:
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


def _render(rule: StatusRule, facts: _Facts) -> tuple[Phase, str, str]:
    return (
        rule.phase,
        _one_line(rule.summary.format_map(facts), limit=600),
        _one_line(rule.next_step.format_map(facts), limit=400),
    )
