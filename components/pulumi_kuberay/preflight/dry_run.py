"""The cluster's own admission asked about the children the operator would create: server-side dry-run creates.

:class:`DryRuns` sends each distinct :class:`~.children.Child` once (``POST ...?dryRun=All``: validation, defaulting,
every admission plugin and webhook run, nothing is stored) and keeps the :class:`AdmissionVerdict`: accepted, or
refused with the server's message. Bounded: at most :data:`MAX_DRY_RUNS` requests per run (a preview, a lint run),
and the time spent in them and the reader's reads at most the reader's deadline (each request's time-out cut to
what is left). What does
not judge the child is a note said once, never a refusal: the credentials may not create (403 from RBAC: the
documented role's ``create`` verbs), the namespace is not there yet (created with the object), a webhook that does
not support dry runs, an object of that name already there, a server error, an unreachable server (then nothing
more is asked). A refusal for quota is left to ``preflight-over-quota``, which counts what already runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pulumi_kuberay.kubeclient import KubeError

from .children import Child

__all__ = ["MAX_DRY_RUNS", "AdmissionVerdict", "Creator", "DryRuns", "classify"]

#: The most dry-run requests of one run (a preview, a lint run): a stack of many objects asks the first ones.
MAX_DRY_RUNS = 48


class Creator(Protocol):
    """What the dry runs need of a client: ``dry_run_create(collection, body)`` (raises ``KubeError``)."""

    def dry_run_create(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]: ...


@dataclass(frozen=True)
class AdmissionVerdict:
    """What the API server answered to one child's dry-run create."""

    refused: bool
    #: the server's message (empty when accepted)
    message: str = ""
    #: the HTTP status (201 when accepted)
    status: int = 201
    #: the child it is about, for messages (``the head Pod``) and its kind (``Pod``), once placed in a snapshot
    label: str = ""
    kind: str = ""


def classify(exc: KubeError, collection: str) -> AdmissionVerdict | str:
    """A refusal of the child, or the note saying why the answer does not judge it."""
    detail = exc.detail or str(exc)
    resource = collection.rsplit("/", 1)[-1]
    namespace = collection.split("/namespaces/", 1)[-1].split("/", 1)[0]
    if exc.status == 403 and " cannot create resource " in detail:
        return f"dry-run {resource} in {namespace}: HTTP 403, the identity may not create them (bind the create verbs of docs/preflight-clusterrole.yaml)"
    if exc.status == 404 or (exc.reason == "NotFound" and "namespaces" in detail):
        return f"dry-run {resource} in {namespace}: the namespace is not there yet"
    if exc.status == 409 or exc.reason == "AlreadyExists":
        return ""  # the operator's object is there already: not a verdict on a new one
    if "error looking up service account" in detail:
        return f"dry-run {resource} in {namespace}: the namespace's ServiceAccount is not there yet"
    if "does not support dry run" in detail:
        return f"dry-run {resource} in {namespace}: a webhook does not support dry runs ({detail[:160]})"
    if "exceeded quota" in detail:
        return ""  # preflight-over-quota judges the quota with what already runs in view
    if exc.status in (400, 403, 422):
        return AdmissionVerdict(True, detail, exc.status)
    return f"dry-run {resource} in {namespace}: HTTP {exc.status} {detail[:160]}"


@dataclass
class DryRuns:
    """The dry runs of one run (a preview, a lint run): each distinct child asked once, within the bounds."""

    client: Any
    source: str = "the cluster"
    deadline: float = 20.0
    max_requests: int = MAX_DRY_RUNS
    #: the seconds of the deadline already spent (the reader's reads): the dry runs have what is left
    spent_before: Callable[[], float] = lambda: 0.0
    #: the dry-run requests made
    requests: int = 0
    spent: float = 0.0
    verdicts: dict[str, AdmissionVerdict] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    _denied: set[str] = field(default_factory=set)
    _off: bool = False

    def _note(self, text: str) -> None:
        if text and text not in self.notes:
            self.notes.append(text)

    def judge(self, children: Iterable[Child]) -> dict[str, AdmissionVerdict]:
        """The verdicts on ``children`` (by :attr:`Child.key`): those asked before, and the new ones asked now
        while the bounds allow; a child left out has no verdict (nothing is said about it)."""
        out: dict[str, AdmissionVerdict] = {}
        for child in children:
            verdict = self.verdicts.get(child.key)
            if verdict is None:
                verdict = self._ask(child)
            if verdict is not None:
                out[child.key] = verdict
        return out

    def _ask(self, child: Child) -> AdmissionVerdict | None:
        if self._off or child.collection in self._denied or not hasattr(self.client, "dry_run_create"):
            return None
        left = self.deadline - self.spent - self.spent_before()
        if self.requests >= self.max_requests or left <= 0:
            self._note(f"dry-run: the bound was reached ({self.requests} requests, {self.spent:.1f}s); later children were not asked")
            return None
        timeout = getattr(self.client, "timeout", None)
        if isinstance(timeout, (int, float)):
            self.client.timeout = min(timeout, left)
        started = time.monotonic()
        self.requests += 1
        try:
            self.client.dry_run_create(child.collection, child.body)
        except KubeError as exc:
            if exc.status == 0:
                self._off = True
                self._note(f"dry-run: {self.source} cannot be reached ({exc})")
                return None
            answer = classify(exc, child.collection)
            if isinstance(answer, str):
                if " may not create " in answer or "namespace is not there" in answer:
                    self._denied.add(child.collection)
                self._note(answer)
                return None
            self.verdicts[child.key] = answer
            return answer
        finally:
            self.spent += time.monotonic() - started
            if isinstance(timeout, (int, float)):
                self.client.timeout = timeout
        accepted = AdmissionVerdict(False)
        self.verdicts[child.key] = accepted
        return accepted
