"""What the RayService controller does with a changed RayService (its ``Reconcile``, in order).

* ``spec.managedBy`` naming another controller: nothing. ``suspend`` (v1.7): every cluster is deleted; turning it
  off creates a new cluster. A RayService that failed on ``InitializingTimeout`` is never reconciled again.
* ``reconcileRayCluster`` / ``shouldUpdateCluster``: the active cluster is rewritten in place when it was made by
  another operator version (``ray.io/kuberay-version``), or (v1.6) when ``rayClusterConfig.suspend`` differs
  from the cluster's, or when the goal spec differs from the cluster's hash
  (``ray.io/hash-without-replicas-and-workers-to-delete``) only by worker groups added at the end (the
  ``partial`` comparison over the cluster's ``ray.io/num-worker-groups`` first groups). Not during an upgrade.
* ``shouldPrepareNewCluster``: any other difference of the hash prepares a whole new cluster when
  ``isZeroDowntimeUpgradeEnabled`` (``upgradeStrategy.type`` NewCluster, or NewClusterWithIncrementalUpgrade
  with the RayServiceIncrementalUpgrade gate on; no type: the operator's ``ENABLE_ZERO_DOWNTIME``); otherwise
  the cluster change is ignored. With the incremental type the traffic moves in steps (``incremental``).
* ``checkIfNeedSubmitServeApplications``: a ``serveConfigV2`` that differs (as text) from the one the operator
  last submitted is submitted to the cluster that will serve (the new one when one is prepared).

The hash leaves out worker ``replicas``/``minReplicas``/``maxReplicas`` (and in v1.7 ``rayClusterConfig.suspend``):
changing only those neither updates the active cluster nor prepares a new one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_kuberay.model import parse_yaml
from pulumi_kuberay.plan import _fields, hashing
from pulumi_kuberay.plan._change import Action, Change, not_reconciled
from pulumi_kuberay.plan._context import Live, Operator
from pulumi_kuberay.plan._gojson import GoDecodeError
from pulumi_kuberay.plan._resources import footprint

KIND = "RayService"
INCREMENTAL = "NewClusterWithIncrementalUpgrade"
DEFAULT_DELETION_DELAY_SECONDS = 60


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


@dataclass
class _Cluster:
    """What ``isClusterSpecHashEqual`` reads of a RayCluster the RayService owns."""

    name: str
    hash: str
    groups: str  # the ray.io/num-worker-groups annotation (text: Atoi may fail)
    version: str
    suspend: bool = False


def _from_object(obj: Mapping[str, Any]) -> _Cluster:
    meta = _dict(obj.get("metadata"))
    annotations = _dict(meta.get("annotations"))
    return _Cluster(
        name=str(meta.get("name") or ""),
        hash=str(annotations.get(hashing.SERVICE_HASH_ANNOTATION) or ""),
        groups=str(annotations.get(hashing.NUM_WORKER_GROUPS_ANNOTATION) or ""),
        version=str(annotations.get(hashing.KUBERAY_VERSION_ANNOTATION) or ""),
        suspend=_dict(obj.get("spec")).get("suspend") is True,
    )


def _condition(status: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    for item in status.get("conditions") or []:
        if isinstance(item, Mapping) and item.get("type") == kind:
            return item
    return {}


def zero_downtime(spec: Mapping[str, Any], op: Operator) -> bool:
    """``isZeroDowntimeUpgradeEnabled``."""
    kind = _dict(spec.get("upgradeStrategy")).get("type")
    if kind is not None:
        if op.gate("RayServiceIncrementalUpgrade"):
            return kind in ("NewCluster", INCREMENTAL)
        return bool(kind == "NewCluster")
    return op.zero_downtime


def incremental_enabled(spec: Mapping[str, Any], op: Operator) -> bool:
    """``utils.IsIncrementalUpgradeEnabled``."""
    return op.gate("RayServiceIncrementalUpgrade") and _dict(spec.get("upgradeStrategy")).get("type") == INCREMENTAL


class _Decider:
    """The operator's comparisons of a goal RayClusterSpec with the RayClusters it owns."""

    def __init__(self, goal: Mapping[str, Any], op: Operator) -> None:
        self.goal, self.op = goal, op
        self.full = hashing.service_goal_hash(goal, op.version)

    def hash_equal(self, cluster: _Cluster, partial: bool) -> bool:
        """``isClusterSpecHashEqual``."""
        if not partial:
            return cluster.hash == self.full
        try:
            groups = int(cluster.groups)
        except ValueError:
            return True
        goal_groups = len(self.goal.get("workerGroupSpecs") or [])
        expected = hashing.service_goal_hash(self.goal, self.op.version, groups) if goal_groups >= groups else ""
        return cluster.hash == expected

    def should_update(self, cluster: _Cluster | None, active: bool, upgrading: bool) -> bool:
        """``shouldUpdateCluster``."""
        if cluster is None:
            return False
        if active:
            if upgrading:
                return False
            if cluster.version != self.op.version_text:
                return True
        if self.op.version < (1, 7, 0) and (self.goal.get("suspend") is True) != cluster.suspend:
            return True
        if self.hash_equal(cluster, False):
            return False
        return self.hash_equal(cluster, True)

    def should_prepare(
        self, spec: Mapping[str, Any], active: _Cluster | None, pending: _Cluster | None, rollback: bool
    ) -> bool:
        """``shouldPrepareNewCluster`` (the pending cluster is not serving yet)."""
        if rollback:
            return False
        if active is None and pending is None:
            return True
        cluster = pending or active
        assert cluster is not None
        if self.hash_equal(cluster, False) or self.hash_equal(cluster, True):
            return False
        return zero_downtime(spec, self.op)

    def written(self, cluster: _Cluster) -> _Cluster:
        """The cluster after ``modifyRayCluster`` wrote the goal spec and annotations into it."""
        groups = str(len(self.goal.get("workerGroupSpecs") or []))
        return _Cluster(cluster.name, self.full, groups, self.op.version_text, cluster.suspend)


def _names(names: list[str]) -> str:
    return ", ".join(repr(name) for name in names)


def serve_changes(old_text: Any, new_text: Any) -> tuple[bool, str]:
    """(is the config submitted again, what changed in words): the operator compares the text."""
    if old_text == new_text:
        return False, ""
    try:
        old_apps = _apps(old_text)
        new_apps = _apps(new_text)
    except ValueError:
        return True, "serveConfigV2 changed"
    if old_apps == new_apps and _top(old_text) == _top(new_text):
        return True, "serveConfigV2 text changed but not its content: Serve redeploys nothing"
    parts = []
    added = [n for n in new_apps if n not in old_apps]
    removed = [n for n in old_apps if n not in new_apps]
    changed = [n for n in new_apps if n in old_apps and new_apps[n] != old_apps[n]]
    if changed:
        parts.append(f"Serve application(s) {_names(changed)} redeployed")
    if added:
        parts.append(f"Serve application(s) {_names(added)} added")
    if removed:
        parts.append(f"Serve application(s) {_names(removed)} deleted")
    unchanged = [n for n in new_apps if n in old_apps and new_apps[n] == old_apps[n]]
    if unchanged:
        parts.append(f"{_names(unchanged)} untouched")
    if _top(old_text) != _top(new_text):
        parts.insert(0, "Serve's http/grpc options changed")
    return True, "; ".join(parts) or "serveConfigV2 changed"


def _parsed(text: Any) -> dict[str, Any]:
    if not isinstance(text, str) or not text.strip():
        return {}
    try:
        value = parse_yaml(text)
    except Exception as exc:  # a broken config: the rules report it; the plan only says it changed
        raise ValueError(str(exc)) from None
    return dict(value) if isinstance(value, Mapping) else {}


def _apps(text: Any) -> dict[str, Any]:
    return {
        str(app.get("name") or "default"): app
        for app in _parsed(text).get("applications") or []
        if isinstance(app, Mapping)
    }


def _top(text: Any) -> dict[str, Any]:
    return {k: v for k, v in _parsed(text).items() if k != "applications"}


def _steps(spec: Mapping[str, Any]) -> tuple[str, ...]:
    options = _dict(_dict(spec.get("upgradeStrategy")).get("clusterUpgradeOptions"))
    raw_surge = options.get("maxSurgePercent")
    surge = raw_surge if isinstance(raw_surge, int) else 100
    step = options.get("stepSizePercent")
    interval = options.get("intervalSeconds")
    if not isinstance(step, int) or not isinstance(interval, int) or step <= 0 or surge <= 0:
        return ("traffic moves as clusterUpgradeOptions says (incomplete: the operator rejects it)",)
    moves = math.ceil(100 / step)
    return (
        f"the new cluster's Serve target_capacity grows by {surge}% at a time while the old one's shrinks",
        f"traffic moves {step}% every {interval}s once the new cluster is ready ({moves} moves, at least {moves * interval}s)",
    )


def plan_service(  # noqa: C901, PLR0912, PLR0915  (the RayService controller's decisions in its order)
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any],
    operator: Operator | None = None,
    live: Live | None = None,
) -> Change:
    """The plan for a RayService going from ``old`` to ``new`` (``live``: the object and its RayClusters)."""
    op = operator or Operator()
    version = op.version_text
    name = str(_dict(new.get("metadata")).get("name") or "?")
    live_obj = live.obj if live is not None and live.obj is not None else None
    base = live_obj or old
    source = "the live object and its clusters" if live_obj is not None else "the last applied manifest"
    spec = _dict(new.get("spec"))
    goal = _dict(spec.get("rayClusterConfig"))
    if base is None:
        return Change(
            KIND,
            name,
            "create",
            "a new cluster is created, then the Serve applications are deployed",
            extra=footprint(goal),
            wait="ready",
            version=version,
        )
    old_spec = _dict(base.get("spec"))
    status = _dict(base.get("status")) if live_obj is not None else {}
    unmanaged = not_reconciled(KIND, name, spec, version, source)
    if unmanaged is not None:
        return unmanaged
    paths = _fields.changed_paths(
        _fields.as_stored(_dict(old_spec.get("rayClusterConfig")), op.version), _fields.as_stored(goal, op.version)
    )
    changed = _fields.describe_all(paths)
    serve_changed, serve_words = serve_changes(old_spec.get("serveConfigV2"), spec.get("serveConfigV2"))
    if serve_changed:
        changed = (*changed, "serveConfigV2")
    others = sorted(
        k
        for k in set(old_spec) | set(spec)
        if k not in ("rayClusterConfig", "serveConfigV2") and old_spec.get(k) != spec.get(k)
    )
    changed = (*changed, *others)

    def make(action: Action, why: str, **extra: Any) -> Change:
        return Change(KIND, name, action, why, changed=changed, version=version, source=source, **extra)

    if op.version >= (1, 7, 0):
        was, now = old_spec.get("suspend") is True, spec.get("suspend") is True
        if now and not was:
            return make(
                "suspend",
                "suspend: every cluster and Serve service is deleted; nothing serves until suspend is false",
                wait="suspended",
            )
        if now:
            return make("none", "the RayService stays suspended: the change applies when it resumes")
        if was:
            return make(
                "resume",
                "resume: a new cluster is created from the new spec and serves",
                extra=footprint(goal),
                wait="ready",
            )
    ready = _condition(status, "Ready")
    if ready.get("status") != "True" and ready.get("reason") == "InitializingTimeout":
        return make(
            "none",
            "the RayService failed on InitializingTimeout: it is never reconciled again (replace it)",
        )
    try:
        decider = _Decider(goal, op)
        active, pending = _clusters(base, live, op, live_obj is not None)
    except hashing.UnmodelledVersion as exc:
        return make("unknown", str(exc))
    except GoDecodeError as exc:
        return make(
            "unknown",
            f"a value the API server would not store ({exc})",
        )
    upgrading = _condition(status, "UpgradeInProgress").get("status") == "True"
    rollback = _condition(status, "RollbackInProgress").get("status") == "True"
    notes: list[str] = []
    facts: dict[str, Any] = {"cluster_hash_changed": active is not None and not decider.hash_equal(active, False)}
    in_place: list[str] = []
    facts["zero_downtime"] = zero_downtime(spec, op)
    facts["incremental"] = incremental_enabled(spec, op)
    facts["update_active"] = decider.should_update(active, True, upgrading)
    if facts["update_active"] and active is not None:
        if active.version != op.version_text:
            in_place.append(
                f"the active cluster was made by KubeRay {active.version or '(unknown)'}: it is rewritten in place with the new rayClusterConfig (no new cluster; running Pods keep their spec)"
            )
        elif op.version < (1, 7, 0) and (goal.get("suspend") is True) != active.suspend:
            in_place.append(
                "rayClusterConfig.suspend differs from the active cluster's: it is updated in place (v1.6 passes suspend on; v1.7 applies it only when a cluster is created)"
            )
        elif not decider.hash_equal(active, False):
            added = len(goal.get("workerGroupSpecs") or []) - int(active.groups or 0)
            in_place.append(f"{added} worker group(s) added at the end: the active cluster is updated in place")
        else:
            in_place.append("the active cluster is updated in place")
        active = decider.written(active)
    if decider.should_update(pending, False, upgrading) and pending is not None:
        in_place.append(f"the cluster being prepared ({pending.name}) is updated in place")
        pending = decider.written(pending)
    prepare = decider.should_prepare(spec, active, pending, rollback)
    facts["prepare_new"] = prepare
    facts["serve_submit"] = serve_changed and not prepare and pending is None
    delay = spec.get("rayClusterDeletionDelaySeconds")
    delay = delay if isinstance(delay, int) else DEFAULT_DELETION_DELAY_SECONDS
    if prepare:
        incremental = incremental_enabled(spec, op)
        extra = footprint(goal, replicas_unset=incremental and active is not None)
        if pending is not None:
            notes.append(f"the cluster being prepared ({pending.name}) is abandoned and deleted")
        if serve_changed:
            notes.append("the new Serve config is deployed on the new cluster")
        notes.append(f"the old cluster is deleted {delay}s after traffic has switched")
        facts["extra_gpus"] = extra.start.gpus
        facts["old_gpus"] = footprint(_dict(old_spec.get("rayClusterConfig"))).start.gpus
        what = ", ".join(_fields.describe_all([p for p in paths if not _muted(p)])) or "rayClusterConfig"
        if incremental:
            return make(
                "incremental",
                f"the cluster spec changed ({what}): a new cluster is prepared and traffic moves to it in steps",
                notes=tuple(notes),
                extra=extra,
                steps=_steps(spec),
                wait="switch",
                facts=facts,
            )
        return make(
            "new-cluster",
            f"the cluster spec changed ({what}): a new cluster is prepared; traffic switches once it serves",
            notes=tuple(notes),
            extra=extra,
            wait="switch",
            facts=facts,
        )
    current = pending or active
    swallowed = (
        current is not None
        and not decider.hash_equal(current, False)
        and not decider.hash_equal(current, True)
        and not rollback
    )
    if swallowed:
        facts["cluster_change_ignored"] = True
        kind = _dict(spec.get("upgradeStrategy")).get("type")
        reason = f"upgradeStrategy {kind}" if kind is not None else "no upgradeStrategy and ENABLE_ZERO_DOWNTIME=false"
        if kind == INCREMENTAL:
            reason += " with the RayServiceIncrementalUpgrade gate off"
        what = ", ".join(_fields.describe_all([p for p in paths if not _muted(p)])) or "rayClusterConfig"
        notes.insert(0, f"the cluster change ({what}) is ignored ({reason}): the running cluster keeps the old spec")
    elif (
        paths and not in_place and all(_muted(p) for p in paths) and any(p[-1].strip("+-") == "suspend" for p in paths)
    ):
        notes.append(
            "rayClusterConfig.suspend is applied only when a cluster is created (v1.7; Kueue owns it afterwards): the active cluster is not changed"
        )
    elif paths and not in_place and all(_muted(p) for p in paths):
        counts = _fields.count_changes(_dict(old_spec.get("rayClusterConfig")), goal)
        what = "; ".join(counts) or ", ".join(_fields.describe_all(paths))
        notes.append(
            f"{what}: not applied to the running cluster: KubeRay's cluster hash leaves out worker replicas, minReplicas, maxReplicas, workersToDelete, tolerations and schedulingGates, so the active RayCluster (and its autoscaler) keeps the old values until a new cluster is prepared or a worker group is added at the end"
        )
    if upgrading and pending is not None and serve_changed:
        notes.append(f"the Serve config goes to the cluster being prepared ({pending.name})")
    if in_place:
        if serve_changed:
            notes.append(serve_words)
        return make("update-in-place", "; ".join(in_place), notes=tuple(notes), wait="serve", facts=facts)
    if serve_changed:
        return make(
            "serve-update-in-place",
            f"on the running cluster: {serve_words}",
            notes=tuple(notes),
            wait="serve",
            facts=facts,
        )
    if old_spec == spec:
        return Change(KIND, name, "none", "no change to the spec", version=version, source=source, facts=facts)
    why = notes.pop(0) if notes else f"{', '.join(changed) or 'the change'}: nothing the operator acts on"
    return make("none", why, notes=tuple(notes), facts=facts)


def _muted(path: tuple[str, ...]) -> bool:
    leaves = {p.strip("+-[]") for p in path}
    return bool(
        leaves
        & {"replicas", "minReplicas", "maxReplicas", "workersToDelete", "tolerations", "schedulingGates", "suspend"}
    )


def _clusters(
    base: Mapping[str, Any], live: Live | None, op: Operator, read: bool
) -> tuple[_Cluster | None, _Cluster | None]:
    """The active and pending cluster as the operator sees them: read (live), or the old spec's steady state."""
    if read and live is not None:
        status = _dict(base.get("status"))
        names = [
            _dict(status.get(side)).get("rayClusterName") for side in ("activeServiceStatus", "pendingServiceStatus")
        ]
        found = [live.clusters.get(n) if isinstance(n, str) and n else None for n in names]
        return tuple(_from_object(obj) if obj is not None else None for obj in found)  # type: ignore[return-value]
    config = _dict(_dict(base.get("spec")).get("rayClusterConfig"))
    return (
        _Cluster(
            name="(active)",
            hash=hashing.service_goal_hash(config, op.version),
            groups=str(len(config.get("workerGroupSpecs") or [])),
            version=op.version_text,
            suspend=config.get("suspend") is True,
        ),
        None,
    )


__all__ = ["incremental_enabled", "plan_service", "serve_changes", "zero_downtime"]
