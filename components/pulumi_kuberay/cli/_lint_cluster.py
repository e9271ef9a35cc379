"""``kuberay-lint --cluster`` and ``--live``: the preflight against a cluster, and an audit of its Ray objects.

``--cluster [--kubeconfig FILE] [--context NAME] PATH...`` reads the cluster once (:mod:`pulumi_kuberay.preflight`,
read-only, one list request per kind) and runs the catalogue's ``preflight`` rules on every Ray object of the files;
an object the files create too (a Secret, a ServiceAccount, a PVC of the same namespace) is not a missing reference.
``--live [--namespace NS | --all-namespaces]`` lists the Ray objects in the cluster and runs the catalogue, the
preflight and the status diagnosis (:func:`pulumi_kuberay.status.diagnose`, as ``live-status`` findings) on each.
A cluster that cannot be read is one line on stderr: ``--cluster`` still reports the catalogue's findings,
``--live`` has nothing to lint (exit 2). The RBAC both need is the read-only ClusterRole of ``docs/preflight.md``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pulumi_kuberay import kubeclient, preflight, rules
from pulumi_kuberay.cli._lint_findings import LocatedFinding, RayDoc
from pulumi_kuberay.kuberay import KINDS
from pulumi_kuberay.kuberay.api import API_PATH, API_VERSION, PLURALS
from pulumi_kuberay.rules import Finding
from pulumi_kuberay.rules.target import Target

__all__ = ["LIVE_STATUS_RULE_ID", "check_options", "descriptors", "live_documents", "preflight_findings"]

#: The rule id of a live object's status diagnosis (not a rule of the catalogue: what the object's status says).
LIVE_STATUS_RULE_ID = "live-status"
#: How bad each phase of the diagnosis is, as a finding (the healthy phases give none).
_PHASE_SEVERITY: dict[str, rules.Severity] = {
    "failed": "high",
    "degraded": "medium",
    "unknown": "low",
    "progressing": "low",
    "suspended": "low",
}
#: What a live object keeps to be linted as a manifest (status and server-set metadata dropped).
_METADATA = ("name", "namespace", "labels", "annotations")


def check_options(args: argparse.Namespace) -> str | None:
    """What is wrong with the cluster flags together (None: nothing)."""
    if args.live and args.cluster:
        return "--live and --cluster: give one (--live audits the cluster's objects, --cluster checks files against it)"
    if args.live and args.paths:
        return "--live reads the Ray objects from the cluster: give no PATH (or use --cluster PATH...)"
    if (args.namespace or args.all_namespaces) and not args.live:
        return "--namespace and --all-namespaces go with --live"
    if args.namespace and args.all_namespaces:
        return "--namespace and --all-namespaces: give one"
    if (args.kubeconfig or args.context) and not (args.live or args.cluster):
        return "--kubeconfig and --context go with --cluster or --live"
    return None


def _reader(args: argparse.Namespace) -> preflight.SnapshotReader | preflight.Skipped:
    if args.kubeconfig and not Path(args.kubeconfig).expanduser().is_file():
        return preflight.Skipped(f"--kubeconfig {args.kubeconfig}: no such file")
    return preflight.reader_for(args.kubeconfig, args.context, deadline=args.cluster_timeout)


def _declared(docs: Iterable[Any]) -> frozenset[tuple[str, str, str]]:
    out = set()
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("kind"), str) and isinstance(doc.get("metadata"), dict):
            meta = doc["metadata"]
            if isinstance(meta.get("name"), str):
                out.add((doc["kind"], str(meta.get("namespace") or "default"), meta["name"]))
                out.add((doc["kind"], "", meta["name"]))  # cluster-scoped kinds (PriorityClass...)
    return frozenset(out)


def preflight_findings(
    args: argparse.Namespace, docs: Sequence[RayDoc], all_documents: Iterable[Any], target: Target,
    *, created: bool = True,
) -> tuple[list[LocatedFinding], str | None]:
    """The preflight rules on each Ray document against the cluster (``created``: the objects among
    ``all_documents`` are created with them), and the line to print when the cluster could not be read."""
    reader = _reader(args)
    if isinstance(reader, preflight.Skipped):
        return [], reader.line()
    namespaces = sorted({d.namespace or _default_namespace(args) for d in docs})
    snapshot = reader.snapshot(None if args.all_namespaces else namespaces, needs=("cert-manager", "gatewayclasses"))
    if isinstance(snapshot, preflight.Skipped):
        return [], snapshot.line()
    ctx = target.override(audience="cli").context()
    declared = _declared(all_documents) if created else frozenset()
    out = []
    for doc in docs:
        namespace = doc.namespace or _default_namespace(args)
        judged = reader.judge_children(snapshot, doc.manifest, namespace)  # the cluster's admission, dry runs
        for finding in rules.check_preflight(doc.manifest, judged, ctx, namespace=namespace, created_here=declared):
            out.append(doc.locate(finding))
    said = snapshot.unread + tuple(reader.dry_runs.notes)
    unread = f"preflight: could not read {', '.join(said)} (those checks did not run)" if said else None
    return out, unread


def _default_namespace(args: argparse.Namespace) -> str:
    return str(args.namespace or "default")


def _as_manifest(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return {
        "apiVersion": obj.get("apiVersion", API_VERSION),
        "kind": obj.get("kind"),
        "metadata": {k: v for k, v in (meta or {}).items() if k in _METADATA},
        "spec": obj.get("spec") or {},
    }


def live_documents(args: argparse.Namespace) -> tuple[list[RayDoc], list[LocatedFinding], str | None]:
    """The Ray objects of the cluster (as documents of the file ``<cluster>``), their status diagnoses as findings,
    and why the cluster could not be read (None: it was)."""
    from pulumi_kuberay.status import diagnose

    reader = _reader(args)
    if isinstance(reader, preflight.Skipped):
        return [], [], reader.reason
    where = "" if args.all_namespaces else f"/namespaces/{_default_namespace(args)}"
    docs: list[RayDoc] = []
    diagnoses: list[LocatedFinding] = []
    for kind in KINDS:
        try:
            body, _ = reader.client.get(f"{API_PATH}{where}/{PLURALS[kind]}")
        except kubeclient.KubeError as exc:
            return [], [], f"the Ray objects cannot be listed ({exc})"
        for item in (body or {}).get("items") or []:
            if not isinstance(item, dict):
                continue
            item.setdefault("kind", kind)
            item.setdefault("apiVersion", API_VERSION)
            doc = RayDoc("<cluster>", {}, None, _as_manifest(item))
            docs.append(doc)
            diagnosis = diagnose(item)
            severity = _PHASE_SEVERITY.get(diagnosis.phase)
            if severity is not None:
                message = diagnosis.summary + (f"; next: {diagnosis.next_step}" if diagnosis.next_step else "")
                finding = Finding(LIVE_STATUS_RULE_ID, severity, f"{diagnosis.phase}: {message}", "status", diagnosis.next_step or "kuberay-explain")
                diagnoses.append(doc.locate(finding))
    return docs, diagnoses, None


def descriptors() -> list[dict[str, Any]]:
    """SARIF descriptor of ``live-status``."""
    return [
        {
            "id": LIVE_STATUS_RULE_ID,
            "name": LIVE_STATUS_RULE_ID,
            "shortDescription": {"text": "What the live object's status says (kuberay-explain's diagnosis)"},
            "fullDescription": {"text": "The state of the object in the cluster, from its status, and what to do next."},
            "help": {"text": "kuberay-explain KIND/NAME shows the evidence"},
            "helpUri": "https://github.com/pulumi-kuberay/pulumi-kuberay/blob/main/docs/troubleshooting.md",
            "defaultConfiguration": {"level": "warning"},
            "properties": {"tags": ["status"]},
        }
    ]
