"""The change plan: what KubeRay will do with a change to a Ray object, before it is applied.

Plain Python (never imports pulumi): the components print it at preview and follow it at ``up``,
``kuberay-lint --diff OLD NEW`` prints it for two files or folders, and the plan rules judge it
(``rules/change.py``). Computed from the fields and hashes the operator itself compares, per operator version
(v1.6 and v1.7 are modelled; docs/changes.md has the table, agreed with the operator's own decision functions
in tests/oracle and with a real operator in tests/cluster).

Example::

    from pulumi_kuberay.plan import Operator, plan_change

    change = plan_change(old_manifest, new_manifest, Operator(version=(1, 7, 0)))
    change.action   # 'recreate-pods'
    change.line()   # "plan: RayCluster 'dev': recreate-pods: upgradeStrategy Recreate and the spec hash ..."

Without ``live`` the old manifest stands for what runs (the running Pods were made from it by this operator
version); with ``live`` (the live object, a RayCluster's head Pods, a RayService's clusters) the plan compares
what the operator compares: the hash annotations stored on the live objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pulumi_kuberay.kuberay import KINDS
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.plan._change import ACTIONS, Action, Change, Footprint, Resources, WaitFor
from pulumi_kuberay.plan._context import Live, Operator
from pulumi_kuberay.plan.cluster import plan_cluster
from pulumi_kuberay.plan.hashing import cluster_spec_hash, service_goal_hash
from pulumi_kuberay.plan.job import Mode, plan_cronjob, plan_job
from pulumi_kuberay.plan.service import plan_service


def _holds_unknown(value: Any) -> bool:
    if isinstance(value, str):
        return value == UNKNOWN_SENTINEL
    if isinstance(value, Mapping):
        return any(_holds_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_unknown(v) for v in value)
    return False


def _name(manifest: Mapping[str, Any] | None) -> str:
    meta = (manifest or {}).get("metadata")
    return str((meta or {}).get("name") or "?") if isinstance(meta, Mapping) else "?"


def plan_change(
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any] | None,
    operator: Operator | None = None,
    live: Live | None = None,
    *,
    mode: Mode = "replace",
) -> Change:
    """The plan for one object going from ``old`` to ``new`` (manifests: ``apiVersion``/``kind``/``metadata``/
    ``spec``; ``None``: the object does not exist before / after). ``mode`` says how a RayJob's new spec
    arrives: ``replace`` (the components) or ``apply`` (an update in place, as kubectl or GitOps do)."""
    op = operator or Operator()
    either = new if new is not None else old
    kind = str((either or {}).get("kind") or "?")
    if new is None:
        return Change(
            kind,
            _name(old),
            "delete",
            "the object is deleted: its Pods (and clusters) go with it",
            version=op.version_text,
        )
    if _holds_unknown(new.get("spec")):
        return Change(
            kind,
            _name(new),
            "unknown",
            "values not known until the update: the plan is made then",
            version=op.version_text,
        )
    if kind == "RayCluster":
        return plan_cluster(old, new, op, live)
    if kind == "RayService":
        return plan_service(old, new, op, live)
    if kind == "RayJob":
        return plan_job(old, new, op, live, mode=mode)
    if kind == "RayCronJob":
        return plan_cronjob(old, new, op, live)
    return Change(kind, _name(new), "unknown", f"{kind} is not a KubeRay kind", version=op.version_text)


def object_key(manifest: Mapping[str, Any], default_namespace: str = "default") -> tuple[str, str, str]:
    """(kind, namespace, name): how two sets of manifests are paired."""
    meta = manifest.get("metadata") if isinstance(manifest.get("metadata"), Mapping) else {}
    return (
        str(manifest.get("kind") or ""),
        str((meta or {}).get("namespace") or default_namespace),
        str((meta or {}).get("name") or ""),
    )


def plan_documents(
    old_docs: Iterable[Mapping[str, Any]],
    new_docs: Iterable[Mapping[str, Any]],
    operator: Operator | None = None,
    *,
    mode: Mode = "apply",
) -> list[tuple[tuple[str, str, str], Change]]:
    """Pair the Ray objects of two document sets by (kind, namespace, name) and plan each pair (an object on
    one side only is a create or a delete), in the new set's order then the deleted ones."""

    def ray(docs: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str], Mapping[str, Any]]:
        out: dict[tuple[str, str, str], Mapping[str, Any]] = {}
        for doc in docs:
            if (
                isinstance(doc, Mapping)
                and doc.get("kind") in KINDS
                and str(doc.get("apiVersion", "")).startswith("ray.io/")
            ):
                out[object_key(doc)] = doc
        return out

    before, after = ray(old_docs), ray(new_docs)
    plans = [(key, plan_change(before.get(key), doc, operator, mode=mode)) for key, doc in after.items()]
    plans += [(key, plan_change(doc, None, operator, mode=mode)) for key, doc in before.items() if key not in after]
    return plans


def render_docs() -> str:
    """docs/changes.md, rendered from the change table (``scripts/gen-change-docs`` writes it)."""
    from pulumi_kuberay.plan._docs import render

    return render()


__all__ = [
    "ACTIONS",
    "Action",
    "Change",
    "Footprint",
    "Live",
    "Mode",
    "Operator",
    "Resources",
    "WaitFor",
    "cluster_spec_hash",
    "object_key",
    "plan_change",
    "plan_documents",
    "render_docs",
    "service_goal_hash",
]
