"""The preflight in the components: the target cluster read once per program run, the preflight rules on each object.

Where the component can read the cluster its provider talks to (the kubeconfig the change plan and the wait use,
:func:`~pulumi_kuberay.resources._component_await.cluster_access`), the first component of the program reads a
:class:`~pulumi_kuberay.preflight.ClusterSnapshot` (one list request per kind, a 5 s deadline; later components
reuse it, reading only the namespaced kinds of a namespace not read yet) and every component runs the catalogue's
``preflight`` rules on its manifest: a critical finding fails the preview before the object is registered (the
group, the numbers and the nodes compared are in its message), the others are warnings. When the cluster cannot
be read (no kubeconfig, no access, a timeout) one line, once per program run, says the preflight was skipped and
why. The children the operator would create are sent to the cluster as server-side dry runs
(``SnapshotReader.judge_children``: its admission answers at preview, within the same deadline); what kept them
from being judged (no ``create`` verb, the namespace not there yet) is one line, once per program run. The
resource hook runs the rules again with the change plan (a NewCluster upgrade's second cluster).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from typing import Any, Final

import pulumi

from pulumi_kuberay import preflight, rules
from pulumi_kuberay.resources import _change_plan
from pulumi_kuberay.resources._component_await import _mocked, cluster_access
from pulumi_kuberay.resources._shared import CriticalFindingsError, format_finding
from pulumi_kuberay.rules import Finding, Target

#: The deadline of the whole read at preview (a cluster out of reach must not stall a preview).
READ_DEADLINE_SECONDS: Final = 5.0
#: The skip lines already said in this program run (one per reason).
_SAID: set[str] = set()


#: What :func:`use_cluster_snapshot` gave, else None (the components read their cluster).
_SOURCE: list[Callable[[str, Mapping[str, Any]], preflight.ClusterSnapshot | preflight.Skipped] | None] = [None]


def use_cluster_snapshot(
    source: Callable[[str, Mapping[str, Any]], preflight.ClusterSnapshot | preflight.Skipped] | None,
) -> None:
    """Give the components the cluster to judge against: ``source(namespace, manifest)`` returns a
    :class:`~pulumi_kuberay.preflight.ClusterSnapshot` (or a ``Skipped``), e.g. a snapshot saved for an offline CI
    preview, or a ``SnapshotReader`` of a cluster the program reaches its own way; None: read the cluster the
    components' provider talks to (the default)."""
    _SOURCE[0] = source


def snapshot_for(access: tuple[tuple[str, Any], str | None] | None, namespace: str,
                 manifest: Mapping[str, Any]) -> preflight.ClusterSnapshot | preflight.Skipped:
    """The snapshot of the component's cluster for ``namespace``."""
    if _SOURCE[0] is not None:
        return _SOURCE[0](namespace, manifest)
    if access is None:
        return preflight.Skipped("the component cannot read its cluster (render mode, or an explicit provider not given to kr.watch_with)")
    (text, _base), context = access
    reader = preflight.reader_for(text, context, deadline=READ_DEADLINE_SECONDS)
    if isinstance(reader, preflight.Skipped):
        return reader
    needs = _needs(manifest)
    snapshot = reader.snapshot([namespace], needs=needs)
    if isinstance(snapshot, preflight.Skipped):
        return snapshot
    return reader.judge_children(snapshot, manifest, namespace)  # the cluster's admission on the children


def _needs(manifest: Mapping[str, Any]) -> tuple[str, ...]:
    spec = manifest.get("spec") if isinstance(manifest.get("spec"), Mapping) else {}
    text = repr(spec)
    return tuple(key for key, word in (("cert-manager", "tlsOptions"), ("gatewayclasses", "gatewayClassName"))
                 if word in text)


def _namespace(manifest: Mapping[str, Any]) -> str:
    meta = manifest.get("metadata") if isinstance(manifest.get("metadata"), Mapping) else {}
    return str((meta or {}).get("namespace") or "default")


def preflight_findings(manifest: Mapping[str, Any], target: Target, access: tuple[tuple[str, Any], str | None] | None,
                       component: pulumi.Resource | None = None, *, plan: Any = None) -> list[Finding]:
    """The preflight rules' findings on ``manifest`` (none when the cluster cannot be read: the skip line is logged
    once per program run, on ``component``)."""
    snapshot = snapshot_for(access, _namespace(manifest), manifest)
    if isinstance(snapshot, preflight.Skipped):
        line = snapshot.line()
        if line not in _SAID and not _mocked():
            _SAID.add(line)
            pulumi.log.info(line, resource=component)
        return []
    for note in snapshot.unread:
        if note.startswith("dry-run") and note not in _SAID and not _mocked():
            _SAID.add(note)  # what kept the cluster's admission from judging the children: once per program run
            pulumi.log.info(f"preflight: {note}", resource=component)
    return contextvars.copy_context().run(
        rules.check_preflight, manifest, snapshot, target.context(), namespace=_namespace(manifest), plan=plan
    )


def check(
    manifest: Mapping[str, Any], target: Target, opts: pulumi.ResourceOptions | None, subject: str
) -> list[Finding]:
    """At construction: the preflight findings on the rendered manifest; a critical one raises
    :class:`CriticalFindingsError` (before the object is registered), the others are returned (warnings)."""
    # Rendering to a directory: no cluster behind the provider (a kubeconfig found would be another cluster's).
    rendering = _change_plan.render_dir_of(opts) is not None
    findings = preflight_findings(manifest, target, None if rendering else cluster_access(opts))
    critical = [f for f in findings if f.severity == "critical"]
    if critical:
        raise CriticalFindingsError(subject, critical)
    return findings


def judge_plan(component: pulumi.Resource, change: Any, new: Mapping[str, Any], target: Target, *,
               access: tuple[tuple[str, Any], str | None] | None, redact: Callable[[str], str]) -> None:
    """In the resource hook: what the preflight rules add once the change plan is known (a NewCluster upgrade's
    second cluster against what is free and the quota): warnings on the component; a critical one fails the step."""
    with_plan = preflight_findings(new, target, access, component, plan=change)
    if not with_plan:
        return
    said = set(preflight_findings(new, target, access, component))
    added = [f for f in with_plan if f not in said]
    for finding in added:
        if finding.severity != "critical":
            pulumi.log.warn(redact(format_finding(finding)), resource=component)
    critical = [f for f in added if f.severity == "critical"]
    if critical:
        raise CriticalFindingsError(change.subject, critical)
