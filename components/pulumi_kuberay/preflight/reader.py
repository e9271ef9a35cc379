"""The preflight's one read of the target cluster: read-only, one list request per kind, a deadline, cached.

:class:`SnapshotReader` lists each kind once (the namespaced ones once per namespace asked for, or once across
every namespace) and keeps what it read, so every component of a preview, and every file of a lint run, share one
read. Kinds read only when a spec needs them (cert-manager's API, GatewayClasses) are read on first need. A kind
the credentials may not list (403) or whose API is not served (404: Karpenter, Kueue, Gateway API absent) is left
out; when the cluster cannot be reached at all, or the deadline passes, the read gives a :class:`Skipped` whose
``line()`` is the one line the caller prints. :meth:`SnapshotReader.judge_children` then asks the cluster's own
admission about the children the operator would create from one object (server-side dry-run creates,
:mod:`.dry_run`: each distinct child once per run, bounded in number and by the same deadline). Never raises for
the cluster's sake.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pulumi_kuberay.kubeclient import KubeClient, KubeConfigError, KubeError, find_kubeconfig, load_client
from pulumi_kuberay.kuberay.kubernetes import KUEUE_API_PATH

from .children import children
from .dry_run import AdmissionVerdict, DryRuns
from .snapshot import ClusterSnapshot

__all__ = ["CLUSTER_KINDS", "NAMESPACED_KINDS", "Getter", "Skipped", "SnapshotReader", "reader_for"]


class Getter(Protocol):
    """What the reader needs of a client: ``GET path`` -> (JSON body or None on 404, anything)."""

    def get(self, path: str) -> tuple[dict[str, Any] | None, Any]: ...


#: Kinds listed once for the whole cluster: name -> API path. ``pods`` gives the nodes' usage.
CLUSTER_KINDS: Mapping[str, str] = {
    "nodes": "/api/v1/nodes",
    "namespaces": "/api/v1/namespaces",
    "pods": "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed",
    "priorityclasses": "/apis/scheduling.k8s.io/v1/priorityclasses",
    "storageclasses": "/apis/storage.k8s.io/v1/storageclasses",
    "runtimeclasses": "/apis/node.k8s.io/v1/runtimeclasses",
    "nodepools": "/apis/karpenter.sh/v1/nodepools",
    "clusterqueues": f"{KUEUE_API_PATH}/clusterqueues",
    "resourceflavors": f"{KUEUE_API_PATH}/resourceflavors",
    "cluster-autoscaler-status": "/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status",
}
#: Kinds read only when a spec needs them.
ON_DEMAND: Mapping[str, str] = {
    "cert-manager": "/apis/cert-manager.io/v1",
    "gatewayclasses": "/apis/gateway.networking.k8s.io/v1/gatewayclasses",
}
#: Namespaced kinds: name -> (core API or group/version, plural).
NAMESPACED_KINDS: Mapping[str, str] = {
    "resourcequotas": "/api/v1",
    "limitranges": "/api/v1",
    "secrets": "/api/v1",
    "configmaps": "/api/v1",
    "serviceaccounts": "/api/v1",
    "persistentvolumeclaims": "/api/v1",
    "localqueues": KUEUE_API_PATH,
}
#: Lists whose 404 means "the API is not served here": the kind is then known to be empty (Karpenter) or the
#: feature absent (Kueue, Gateway API: None, the verdicts that need it say nothing).
_ABSENT_IS_EMPTY = frozenset({"nodepools", "cluster-autoscaler-status"})


@dataclass(frozen=True)
class Skipped:
    """The preflight could not read the cluster: why, in one line."""

    reason: str

    def line(self) -> str:
        return f"preflight skipped: {self.reason} (the cluster checks did not run; everything else was checked)"


def _secret_keys(body: dict[str, Any]) -> dict[str, Any]:
    """A Secret list with the values dropped where it is read: only the key names are ever kept."""
    items = []
    for item in body.get("items") or []:
        if isinstance(item, dict):
            items.append(
                {
                    "metadata": {k: v for k, v in (item.get("metadata") or {}).items() if k in ("name", "namespace")},
                    "data": dict.fromkeys(item.get("data") or {}, ""),
                    "stringData": dict.fromkeys(item.get("stringData") or {}, ""),
                }
            )
    return {"items": items}


@dataclass
class SnapshotReader:
    """Reads the cluster through ``client`` once: :meth:`snapshot` for the namespaces a caller needs.

    ``deadline`` (seconds, the whole read) bounds a preview's wait, the dry runs included (what the reads took is
    not theirs to spend); ``requests`` counts the API requests made, ``reading`` the seconds they took.
    """

    client: Getter
    source: str = "the cluster"
    deadline: float = 20.0
    requests: int = 0
    reading: float = 0.0
    _lists: dict[str, Any] = field(default_factory=dict)
    _namespaced: dict[tuple[str, str | None], Any] = field(default_factory=dict)
    _unread: dict[str, str] = field(default_factory=dict)
    _skipped: Skipped | None = None
    _started: float | None = None
    _made: dict[tuple[tuple[str, ...] | None, tuple[str, ...]], ClusterSnapshot] = field(default_factory=dict)
    _base: tuple[tuple[str, ...], ClusterSnapshot] | None = None
    _dry_runs: DryRuns | None = None

    @property
    def dry_runs(self) -> DryRuns:
        """The dry runs of this run (a preview, a lint run): their verdicts, notes and requests."""
        if self._dry_runs is None:
            self._dry_runs = DryRuns(
                self.client, source=self.source, deadline=self.deadline, spent_before=lambda: self.reading
            )
        return self._dry_runs

    def judge_children(self, snapshot: ClusterSnapshot, manifest: Mapping[str, Any], namespace: str) -> ClusterSnapshot:
        """``snapshot`` with the cluster's admission verdicts on the children the operator creates from
        ``manifest`` in ``namespace`` (server-side dry runs, each distinct child once per run, within the bounds),
        and what kept a child from being judged among its ``unread`` notes."""
        runs = self.dry_runs
        made = children(manifest, namespace)
        asked = runs.judge(made)
        verdicts: dict[str, AdmissionVerdict] = {}
        for child in (
            made
        ):  # children of one field path (the head's Services): a refusal is never hidden by another's acceptance
            verdict = asked.get(child.key)
            held = verdicts.get(child.path)
            if verdict is not None and (held is None or (verdict.refused and not held.refused)):
                verdicts[child.path] = dataclasses.replace(verdict, label=child.label, kind=child.kind)
        notes = tuple(note for note in runs.notes if note not in snapshot.unread)
        return dataclasses.replace(snapshot, admission=verdicts, unread=snapshot.unread + notes, memo=snapshot.memo)

    def _get(self, key: str, path: str) -> Any:
        """The list at ``path`` (None: not readable, noted in ``unread``); raises _Unreachable."""
        if self._started is None:
            self._started = time.monotonic()
        if time.monotonic() - self._started > self.deadline:
            raise _Unreachable(f"reading the cluster took more than {self.deadline:g}s")
        self.requests += 1
        asked = time.monotonic()
        try:
            body, _ = self.client.get(path)
        except KubeError as exc:
            if exc.status == 0:
                raise _Unreachable(f"{self.source} cannot be reached ({exc})") from None
            self._unread[key] = f"HTTP {exc.status}"
            return None
        finally:
            self.reading += time.monotonic() - asked
        if body is None:
            return {"items": []} if key in _ABSENT_IS_EMPTY else None
        if key == "cluster-autoscaler-status":
            return body
        return _secret_keys(body) if key == "secrets" else body

    def snapshot(self, namespaces: Iterable[str] | None, *, needs: Iterable[str] = ()) -> ClusterSnapshot | Skipped:
        """The snapshot for ``namespaces`` (None: every namespace), reading only what was not read yet; ``needs``
        adds on-demand kinds (``cert-manager``, ``gatewayclasses``)."""
        if self._skipped is not None:
            return self._skipped
        wanted = None if namespaces is None else tuple(sorted(set(namespaces)))
        made = self._made.get((wanted, tuple(sorted(needs))))
        if made is not None:
            return made  # nothing new to read: the same snapshot (every component of a namespace shares it)
        snapshot = self._read(wanted, needs)
        if isinstance(snapshot, ClusterSnapshot):
            self._made[wanted, tuple(sorted(needs))] = snapshot
        return snapshot

    def _read(self, wanted: tuple[str, ...] | None, needs: Iterable[str]) -> ClusterSnapshot | Skipped:
        try:
            for key, path in CLUSTER_KINDS.items():
                if key not in self._lists:
                    self._lists[key] = self._get(key, path)
            for key in needs:
                if key in ON_DEMAND and key not in self._lists:
                    body = self._get(key, ON_DEMAND[key])
                    self._lists[key] = (body is not None) if key == "cert-manager" else body
            if self._lists.get("nodes") is None and self._lists.get("namespaces") is None:
                raise _Unreachable(
                    f"{self.source} refuses to list nodes and namespaces ({self._unread.get('nodes', 'no access')}); bind the read-only ClusterRole of docs/preflight.md"
                )
            for kind, api in NAMESPACED_KINDS.items():
                for namespace in (None,) if wanted is None else wanted:
                    if (kind, namespace) in self._namespaced:
                        continue
                    path = f"{api}/{kind}" if namespace is None else f"{api}/namespaces/{namespace}/{kind}"
                    self._namespaced[kind, namespace] = self._get(kind, path)
        except _Unreachable as exc:
            self._skipped = Skipped(str(exc))
            return self._skipped
        lists: dict[str, Any] = {}
        for kind in NAMESPACED_KINDS:
            parts = [self._namespaced.get((kind, ns)) for ns in ((None,) if wanted is None else wanted)]
            lists[kind] = (
                None
                if any(p is None for p in parts)
                else {"items": [item for part in parts for item in (part or {}).get("items") or []]}
            )
        existing = None
        if self._lists.get("namespaces") is not None:
            names = {str((i.get("metadata") or {}).get("name")) for i in self._lists["namespaces"].get("items") or []}
            existing = tuple(sorted(names if wanted is None else names & set(wanted)))
        namespaced = ClusterSnapshot.from_lists(lists)
        # The cluster-wide part (nodes, their usage from every Pod, node sources...) is parsed once and shared, with
        # the verdicts made on it; each namespace set adds its own namespaced kinds.
        base_key = tuple(sorted(self._lists))
        if self._base is None or self._base[0] != base_key:
            self._base = (base_key, ClusterSnapshot.from_lists(self._lists, source=self.source))
        base = self._base[1]
        return dataclasses.replace(
            base,
            quotas=namespaced.quotas,
            limit_ranges=namespaced.limit_ranges,
            local_queues=namespaced.local_queues,
            secrets=namespaced.secrets,
            config_maps=namespaced.config_maps,
            service_accounts=namespaced.service_accounts,
            pvcs=namespaced.pvcs,
            unread=tuple(f"{k}: {v}" for k, v in sorted(self._unread.items())),
            namespaces=existing if existing is not None else wanted,
            memo=base.memo,
        )


class _Unreachable(Exception):
    pass


#: One reader per (kubeconfig text, context): the cache of a preview (one program run) or a lint run.
_READERS: dict[tuple[str, str | None], SnapshotReader | Skipped] = {}


def reader_for(
    kubeconfig: str | None = None, context: str | None = None, *, deadline: float = 20.0, cached: bool = True
) -> SnapshotReader | Skipped:
    """The reader of the cluster the kubeconfig names (``kubeconfig``: a path or the document, else
    ``$KUBECONFIG``, else ``~/.kube/config``), shared by every caller of this process, or why there is none."""
    found = find_kubeconfig(kubeconfig)
    if found is None:
        return Skipped("no kubeconfig (give --kubeconfig, set KUBECONFIG, or the provider's kubeconfig)")
    key = (found[0], context)
    if cached and key in _READERS:
        return _READERS[key]
    try:
        client: KubeClient = load_client(found[0], found[1], context)
    except KubeConfigError as exc:
        made: SnapshotReader | Skipped = Skipped(f"the kubeconfig cannot be used: {exc}")
    else:
        client.timeout = min(client.timeout, deadline)
        client.headers["User-Agent"] = "pulumi-kuberay-preflight"
        made = SnapshotReader(
            client, source=client.server + (f" (context {context})" if context else ""), deadline=deadline
        )
    if cached:
        _READERS[key] = made
    return made
