"""What the RayCluster controller does with a changed RayCluster (``reconcilePods`` in the RayCluster controller).

In order, as ``reconcilePods`` decides:

1. ``spec.managedBy`` naming another controller: the operator does nothing.
2. ``suspend`` (with the RayClusterStatusConditions gate: through Suspending/Suspended): every Pod is deleted;
   turning it off again creates the Pods from the current spec.
3. ``shouldRecreatePodsForUpgrade``: only with ``upgradeStrategy.type: Recreate``, when the head Pod's
   ``ray.io/upgrade-strategy-recreate-hash`` differs from the new spec's hash (``hashing.cluster_spec_hash``)
   and the head Pod was made by this operator version (``ray.io/kuberay-version``; after an operator upgrade
   the annotations are rewritten instead, once): every Pod is deleted at once and recreated.
4. Otherwise nothing is restarted: each worker group is scaled to ``GetWorkerGroupDesiredReplicas`` (new
   groups get their Pods, a suspended group loses its Pods, ``workersToDelete`` are deleted), and every other
   change stays in the RayCluster object only: running Pods keep the old spec until they are replaced.
   Pods of a removed worker group keep running: only the groups in the spec are reconciled.

Without the live head Pod the plan assumes it was created from the old spec by the same operator version.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_kuberay.kuberay.replicas import desired_worker_pods
from pulumi_kuberay.plan import _fields, hashing
from pulumi_kuberay.plan._change import Change, not_reconciled
from pulumi_kuberay.plan._context import Live, Operator
from pulumi_kuberay.plan._gojson import GoDecodeError
from pulumi_kuberay.plan._resources import footprint

KIND = "RayCluster"
#: Fields outside the hash: other controllers (the autoscaler, Kueue) write them.
_MUTED_LEAVES = frozenset(
    {"replicas", "minReplicas", "maxReplicas", "workersToDelete", "tolerations", "schedulingGates"}
)


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _groups(spec: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for group in spec.get("workerGroupSpecs") or []:
        if isinstance(group, Mapping) and isinstance(group.get("groupName"), str):
            out[group["groupName"]] = dict(group)
    return out


def keep_unowned_replicas(old_spec: Mapping[str, Any], new_spec: Mapping[str, Any]) -> dict[str, Any]:
    """``new_spec`` with each worker group's ``replicas`` carried over from ``old_spec`` when the new manifest
    leaves it out (an apply does not remove a field it does not own: with autoscaling the component never sends
    ``replicas`` and the autoscaler's value stays)."""
    old_groups = _groups(old_spec)
    groups = []
    for group in new_spec.get("workerGroupSpecs") or []:
        if isinstance(group, Mapping) and "replicas" not in group:
            before = old_groups.get(str(group.get("groupName")), {})
            if "replicas" in before:
                group = {**group, "replicas": before["replicas"]}
        groups.append(group)
    return {**new_spec, "workerGroupSpecs": groups} if "workerGroupSpecs" in new_spec else dict(new_spec)


def _is_muted(path: tuple[str, ...]) -> bool:
    leaves = {part.lstrip("+-").strip("[]") for part in path}
    return bool(leaves & _MUTED_LEAVES) or path[:1] in (
        ("upgradeStrategy",),
        ("+upgradeStrategy",),
        ("-upgradeStrategy",),
    )


def _scaling(old_spec: Mapping[str, Any], new_spec: Mapping[str, Any], recreate: bool) -> tuple[list[str], list[str]]:
    """(what changes in place, what is left running) for the worker groups."""
    in_place: list[str] = []
    left: list[str] = []
    old_groups, new_groups = _groups(old_spec), _groups(new_spec)
    for name, group in new_groups.items():
        after = desired_worker_pods(group)
        if name not in old_groups:
            in_place.append(f"worker group {name} added: {after} Pod(s) created")
            continue
        before_group = old_groups[name]
        before = desired_worker_pods(before_group)
        if after != before and not recreate:
            what = "suspended" if group.get("suspend") is True else f"{before} -> {after} Pod(s)"
            in_place.append(f"worker group {name}: {what}")
        deleted = sorted(
            set(_dict(group.get("scaleStrategy")).get("workersToDelete") or [])
            - set(_dict(before_group.get("scaleStrategy")).get("workersToDelete") or [])
        )
        if deleted and not recreate:
            in_place.append(f"worker group {name}: Pods {', '.join(map(str, deleted))} deleted (workersToDelete)")
    for name in old_groups:
        if name not in new_groups and not recreate:
            left.append(
                f"the Pods of removed worker group {name} keep running (the operator reconciles only the groups in the spec)"
            )
    return in_place, left


def _group_added_or_removed(path: tuple[str, ...]) -> bool:
    return len(path) >= 2 and path[0] == "workerGroupSpecs" and path[1].startswith(("+", "-"))


def _existing_groups_hash_changed(old_spec: Mapping[str, Any], new_spec: Mapping[str, Any], op: Operator) -> bool:
    """Whether the hash changes for the Pods that run on: the spec hashes over the groups on both sides."""
    old_names, new_names = set(_groups(old_spec)), set(_groups(new_spec))

    def keep(spec: Mapping[str, Any], names: set[str]) -> dict[str, Any]:
        groups = [
            g for g in spec.get("workerGroupSpecs") or [] if not isinstance(g, Mapping) or g.get("groupName") in names
        ]
        return {**spec, "workerGroupSpecs": groups}

    both = old_names & new_names
    return hashing.raycluster_hash(keep(old_spec, both), op.version) != hashing.raycluster_hash(
        keep(new_spec, both), op.version
    )


def _recreate_decision(
    new_spec: Mapping[str, Any], old_hash: str, new_hash: str, op: Operator, live: Live | None
) -> tuple[bool, str | None]:
    """``shouldRecreatePodsForUpgrade``: (recreate?, a note when the live head Pod decided otherwise)."""
    strategy = _dict(new_spec.get("upgradeStrategy")).get("type")
    if strategy != "Recreate":
        return False, None
    if live is not None and live.head_pods is not None:
        if not live.head_pods:
            return False, None
        annotations = _dict(_dict(live.head_pods[0].get("metadata")).get("annotations"))
        pod_version = str(annotations.get(hashing.KUBERAY_VERSION_ANNOTATION) or "")
        if pod_version and pod_version != op.version_text:
            return False, (
                f"the head Pod was created by KubeRay {pod_version}: {op.version_text} only records the new hash on it, so running Pods keep the old spec"
            )
        actual = str(annotations.get(hashing.RECREATE_HASH_ANNOTATION) or "")
        return bool(actual) and actual != new_hash, None
    return old_hash != new_hash, None


_STORED_THE_SAME = "no change to the spec as the API server stores it (only defaults or empty fields differ)"


def _say_bounds(
    old_spec: Mapping[str, Any], new_spec: Mapping[str, Any], in_place: list[str], notes: list[str]
) -> None:
    """min/maxReplicas changes: the autoscaler's bounds (it reads them from the RayCluster, Ray's KubeRay node
    provider); without it they only clamp ``replicas`` (``GetWorkerGroupDesiredReplicas``, counted already)."""
    bounds = "; ".join(_fields.count_changes(old_spec, new_spec, _fields.BOUNDS))
    if not bounds:
        return
    if new_spec.get("enableInTreeAutoscaling") is True:
        in_place.append(
            f"the autoscaler's bounds change ({bounds}): it scales within them from now on, no Pod restarts"
        )
    elif not in_place:
        notes.insert(0, f"{bounds}: no Pod changes (without enableInTreeAutoscaling the bounds only clamp replicas)")


def plan_cluster(  # noqa: C901, PLR0912  (the RayCluster controller's decisions in its order)
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any],
    operator: Operator | None = None,
    live: Live | None = None,
) -> Change:
    """The plan for a RayCluster going from ``old`` to ``new`` (manifests; ``live``: the cluster's view)."""
    op = operator or Operator()
    name = str(_dict(new.get("metadata")).get("name") or "?")
    version = op.version_text
    base = _dict((live.obj if live is not None and live.obj is not None else old) or {}).get("spec")
    source = "the live object" if live is not None and live.obj is not None else "the last applied manifest"
    if base is None:
        return Change(
            KIND,
            name,
            "create",
            "a new cluster: every Pod is created",
            extra=footprint(_dict(new.get("spec"))),
            wait="ready",
            version=version,
        )
    old_spec, new_spec = _dict(base), keep_unowned_replicas(_dict(base), _dict(new.get("spec")))
    unmanaged = not_reconciled(KIND, name, new_spec, version, source)
    if unmanaged is not None:
        return unmanaged
    paths = _fields.changed_paths(
        _fields.as_stored(hashing.with_controller_defaults(old_spec), op.version),
        _fields.as_stored(hashing.with_controller_defaults(new_spec), op.version),
    )
    changed = _fields.describe_all(paths)
    try:
        old_hash = hashing.raycluster_hash(old_spec, op.version)
        new_hash = hashing.raycluster_hash(new_spec, op.version)
    except hashing.UnmodelledVersion as exc:
        return Change(KIND, name, "unknown", str(exc), changed=changed, version=version, source=source)
    except GoDecodeError as exc:
        return Change(
            KIND,
            name,
            "unknown",
            f"a value the API server would not store ({exc})",
            changed=changed,
            version=version,
            source=source,
        )
    facts: dict[str, Any] = {"hash_changed": old_hash != new_hash, "old_hash": old_hash, "new_hash": new_hash}
    was_suspended, suspended = old_spec.get("suspend") is True, new_spec.get("suspend") is True
    if suspended and not was_suspended:
        return Change(
            KIND,
            name,
            "suspend",
            "suspend: every Pod is deleted; nothing runs until suspend is false",
            changed=changed,
            wait="suspended",
            version=version,
            source=source,
            facts=facts,
        )
    if suspended:
        return Change(
            KIND,
            name,
            "none",
            "the cluster stays suspended: the change applies when it resumes",
            changed=changed,
            version=version,
            source=source,
            facts=facts,
        )
    if was_suspended:
        return Change(
            KIND,
            name,
            "resume",
            "resume: every Pod is created from the new spec",
            changed=changed,
            wait="ready",
            version=version,
            source=source,
            facts=facts,
        )
    recreate, recreate_note = _recreate_decision(new_spec, old_hash, new_hash, op, live)
    facts["recreate"] = recreate
    in_place, left = _scaling(old_spec, new_spec, recreate)
    template_paths = [p for p in paths if not _is_muted(p) and not _group_added_or_removed(p)]
    existing_changed = old_hash != new_hash and _existing_groups_hash_changed(old_spec, new_spec, op)
    notes: list[str] = []
    if recreate_note:
        notes.append(recreate_note)
    strategy = _dict(new_spec.get("upgradeStrategy")).get("type")
    if recreate:
        facts["pods_restart"] = True
        return Change(
            KIND,
            name,
            "recreate-pods",
            "upgradeStrategy Recreate and the spec hash changed: every Pod is deleted at once and recreated from the new spec (a brief outage)",
            changed=changed,
            notes=tuple(notes),
            wait="new-pods",
            version=version,
            source=source,
            facts=facts,
        )
    scheduling = [p for p in paths if {q.strip("+-[]") for q in p} & {"tolerations", "schedulingGates"}]
    facts["template_not_applied"] = existing_changed
    if existing_changed:
        where = (
            "upgradeStrategy Recreate but the head Pod keeps its hash"
            if strategy == "Recreate"
            else (f"upgradeStrategy {strategy or 'None (default)'}")
        )
        what = ", ".join(_fields.describe_all(template_paths)) or "spec"
        if recreate_note:
            notes.append(f"changed: {what}; only Pods created later (scale-up, a replaced Pod) get the new spec")
        else:
            notes.append(
                f"{where}: running Pods keep the old spec ({what}); only Pods created later (scale-up, a replaced Pod) get the new one"
            )
    if scheduling:
        notes.append("tolerations and schedulingGates are outside KubeRay's hash: running Pods keep the old ones")
    notes.extend(left)
    old_strategy = _dict(old_spec.get("upgradeStrategy")).get("type")
    if strategy == "Recreate" and old_strategy != "Recreate":
        notes.append("upgradeStrategy is now Recreate: a later change of the spec hash recreates every Pod")
        if live is None or live.head_pods is None:
            notes.append(
                "if the running Pods predate an earlier change made without Recreate, they are all recreated now"
            )
    _say_bounds(old_spec, new_spec, in_place, notes)
    if in_place:
        return Change(
            KIND,
            name,
            "update-in-place",
            "; ".join(in_place),
            changed=changed,
            notes=tuple(notes),
            wait="ready",
            version=version,
            source=source,
            facts=facts,
        )
    if not paths:
        why = "no change to the spec" if old_spec == new_spec else _STORED_THE_SAME
        return Change(KIND, name, "none", why, version=version, source=source, facts=facts)
    why = notes.pop(0) if notes else f"{', '.join(changed) or 'the change'}: nothing the operator acts on"
    return Change(
        KIND, name, "none", why, changed=changed, notes=tuple(notes), version=version, source=source, facts=facts
    )


__all__ = ["plan_cluster"]
