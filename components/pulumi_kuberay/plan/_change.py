"""What a change plan says: the action KubeRay takes on one object, why, and what it costs while it runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

from pulumi_kuberay.kuberay import KUBERAY_CONTROLLER as KUBERAY_CONTROLLER

#: The actions of the plan, from the operator's point of view (see docs/changes.md):
#:
#: * ``create`` -- there is no old object: the operator builds it from scratch; ``delete``: no new one;
#: * ``none`` -- nothing reaches the running Pods / Serve applications (``why`` says why);
#: * ``recreate-pods`` -- RayCluster ``upgradeStrategy: Recreate``: every Pod is deleted at once and recreated;
#: * ``update-in-place`` -- the running cluster changes without a restart (worker Pods added or removed, a
#:   new worker group, the autoscaler's min/maxReplicas bounds, a RayService's active cluster rewritten);
#: * ``serve-update-in-place`` -- RayService: only the Serve applications are redeployed on the running cluster;
#: * ``new-cluster`` -- RayService: a whole second cluster is prepared, traffic switches once it serves, the
#:   old one is deleted (``extra`` is what it needs while both run);
#: * ``incremental`` -- RayService ``NewClusterWithIncrementalUpgrade``: as ``new-cluster`` with traffic moved
#:   in steps (``steps``);
#: * ``rerun-job`` -- RayJob: the job runs again from the start (the old run is stopped);
#: * ``next-runs-only`` -- RayCronJob: runs already started keep the old spec; later runs take the new one;
#: * ``suspend`` / ``resume`` -- every Pod (a RayService: every cluster) is deleted / created again;
#: * ``unknown`` -- the plan cannot be computed (values not known yet, a version it does not model).
Action = Literal[
    "create",
    "delete",
    "none",
    "recreate-pods",
    "update-in-place",
    "serve-update-in-place",
    "new-cluster",
    "incremental",
    "rerun-job",
    "next-runs-only",
    "suspend",
    "resume",
    "unknown",
]
ACTIONS: Final[tuple[Action, ...]] = get_args(Action)

#: What ``pulumi up`` waits for after the update, per action (``_component_await`` follows it).
WaitFor = Literal["nothing", "ready", "new-pods", "switch", "serve", "job", "suspended"]


@dataclass(frozen=True)
class Resources:
    """CPU (millicores), memory (bytes) and GPUs (``*/gpu`` resources) requested by a set of Pods."""

    cpu_millis: int = 0
    memory_bytes: int = 0
    gpus: int = 0

    def __add__(self, other: Resources) -> Resources:
        return Resources(
            self.cpu_millis + other.cpu_millis, self.memory_bytes + other.memory_bytes, self.gpus + other.gpus
        )

    def times(self, count: int) -> Resources:
        return Resources(self.cpu_millis * count, self.memory_bytes * count, self.gpus * count)

    def text(self) -> str:
        """``9 CPU, 36Gi memory, 1 GPU`` (GPUs only when there are some)."""
        parts = [f"{_cpu(self.cpu_millis)} CPU", f"{_memory(self.memory_bytes)} memory"]
        if self.gpus:
            parts.append(f"{self.gpus} GPU")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"cpu": _cpu(self.cpu_millis), "memory": _memory(self.memory_bytes), "gpu": self.gpus}


def _cpu(millis: int) -> str:
    """``16``, ``16.5``, ``500m``."""
    if millis % 1000 == 0:
        return str(millis // 1000)
    return f"{millis / 1000:g}" if millis >= 1000 else f"{millis}m"


def _memory(size: int) -> str:
    """``16Gi``, ``96.5Gi``, ``512Mi``: the largest binary unit, with at most one decimal."""
    for suffix, power in (("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)):
        unit = 1 << power
        if size >= unit:
            return f"{round(size / unit, 1):g}{suffix}"
    return str(size)


@dataclass(frozen=True)
class Footprint:
    """What a cluster needs: at start (head + every worker group at its starting replicas) and at most
    (autoscaled groups at maxReplicas)."""

    start: Resources
    most: Resources

    def text(self) -> str:
        if self.most == self.start:
            return self.start.text()
        return f"{self.start.text()} (up to {self.most.text()} if it scales to maxReplicas)"

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start.to_dict(), "most": self.most.to_dict()}


#: The actions that run a second cluster beside the old one (their ``extra`` is needed on top of it).
_SECOND_CLUSTER: Final = ("new-cluster", "incremental")


@dataclass(frozen=True)
class Change:
    """The plan for one object: ``action`` and ``why`` (one line each), plus what else the user should know."""

    kind: str
    name: str
    action: Action
    why: str
    #: The changed fields the operator reads, in words (``headGroupSpec image``, ``worker group gpu replicas``).
    changed: tuple[str, ...] = ()
    #: Further facts, each a short sentence (what does not reach the Pods, when the old cluster goes, ...).
    notes: tuple[str, ...] = ()
    #: What the cluster this change brings up needs: new-cluster / incremental, the second cluster while both
    #: run; create / resume, the one cluster created.
    extra: Footprint | None = None
    #: incremental: the traffic steps.
    steps: tuple[str, ...] = ()
    #: What ``pulumi up`` waits for.
    wait: WaitFor = "nothing"
    #: The operator version the plan models (``v1.7.0``) and where the old state came from.
    version: str = ""
    source: str = ""
    #: Facts the change rules read (e.g. ``template_not_applied``, ``cluster_change_ignored``, ``extra_gpus``).
    facts: Mapping[str, Any] = field(default_factory=dict)

    @property
    def subject(self) -> str:
        return f"{self.kind} {self.name!r}"

    def line(self) -> str:
        """The one line preview shows: ``plan: RayCluster 'dev': recreate-pods: <why> [<notes>]``."""
        text = f"plan: {self.subject}: {self.action}: {self.why}"
        if self.extra is not None:
            label = "extra while both clusters run" if self.action in _SECOND_CLUSTER else "the cluster needs"
            text += f"; {label}: {self.extra.text()}"
        if self.steps:
            text += f"; steps: {', '.join(self.steps)}"
        for note in self.notes:
            text += f"; {note}"
        if self.source:
            text += f" (compared with {self.source})"
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``last_change`` output, ``kuberay-lint --diff --format json``)."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "action": self.action,
            "why": self.why,
            "changed": list(self.changed),
            "notes": list(self.notes),
        }
        if self.extra is not None:
            out["extra"] = self.extra.to_dict()
        if self.steps:
            out["steps"] = list(self.steps)
        if self.version:
            out["operatorVersion"] = self.version
        if self.source:
            out["comparedWith"] = self.source
        return out




def not_reconciled(
    kind: str, name: str, spec: Mapping[str, Any], version: str, source: str
) -> Change | None:
    """The plan of an object whose ``spec.managedBy`` names another controller: KubeRay leaves it alone
    (``utils.ManagedByExternalController`` in the RayCluster and RayService controllers); None when KubeRay
    reconciles it."""
    manager = spec.get("managedBy")
    if not isinstance(manager, str) or manager == KUBERAY_CONTROLLER:
        return None
    reason = f"spec.managedBy is {manager!r}: KubeRay does not reconcile it"
    return Change(kind, name, "none", reason, version=version, source=source)


__all__ = ["ACTIONS", "KUBERAY_CONTROLLER", "Action", "Change", "Footprint", "Resources", "WaitFor", "not_reconciled"]
