"""KubeRay's spec hashes, as the operator computes them (``GenerateHashWithoutReplicasAndWorkersToDelete``).

The RayCluster controller stores this hash on the head Pod (``ray.io/upgrade-strategy-recreate-hash``) and, with
``upgradeStrategy: Recreate``, deletes every Pod when the spec's hash no longer matches it. The RayService
controller stores the hash of its ``rayClusterConfig`` on each RayCluster it creates
(``ray.io/hash-without-replicas-and-workers-to-delete``) and compares the goal spec's hash with it to choose
between nothing, an in-place update and a new cluster. The hash leaves out what other controllers change
(worker ``replicas``/``minReplicas``/``maxReplicas``, ``scaleStrategy.workersToDelete``, ``tolerations`` and
``schedulingGates`` of every pod template), the ``upgradeStrategy``, and for a RayService in v1.7 ``suspend``
(``rayClusterSpecForHashing``).

The values are byte-for-byte the operator's (tests/oracle/test_plan_differential.py), so they can be compared
with the annotations of live objects. The RayCluster controller hashes its object after its ``setDefaults``
(:func:`raycluster_hash`; found on the local control plane, where the head Pods carried a hash the plain spec
did not give); the RayService controller hashes its ``rayClusterConfig`` as stored (:func:`service_goal_hash`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_kuberay.kuberay import NUM_WORKER_GROUPS_ANNOTATION as NUM_WORKER_GROUPS_ANNOTATION
from pulumi_kuberay.kuberay.names import KUBERAY_VERSION_ANNOTATION as KUBERAY_VERSION_ANNOTATION
from pulumi_kuberay.kuberay.names import RECREATE_HASH_ANNOTATION as RECREATE_HASH_ANNOTATION
from pulumi_kuberay.kuberay.names import SERVICE_HASH_ANNOTATION as SERVICE_HASH_ANNOTATION
from pulumi_kuberay.plan import _gojson
from pulumi_kuberay.plan._gojson import Struct

Version = tuple[int, int, int]


class UnmodelledVersion(LookupError):
    """No Go type table for this operator version (the plan says ``unknown``)."""


def types_for(version: Version) -> _gojson.TypeTable:
    """The Go type table of ``version``'s minor; a newer minor than we know is read with the newest table."""
    minor = (version[0], version[1])
    known = sorted(_gojson.TABLES)
    if minor in _gojson.TABLES:
        return _gojson.table(minor)
    if minor > known[-1]:
        return _gojson.table(known[-1])
    raise UnmodelledVersion(f"KubeRay v{version[0]}.{version[1]} is not modelled (known: 1.6, 1.7)")


def _mute_template(template: Any) -> None:
    if isinstance(template, Struct):
        spec = template.get("spec")
        if isinstance(spec, Struct):
            spec.pop("tolerations", None)
            spec.pop("schedulingGates", None)


def _muted(decoded: Struct) -> Struct:
    """``GenerateHashWithoutReplicasAndWorkersToDelete``'s mutes on a decoded (private) copy."""
    head = decoded.get("headGroupSpec")
    if isinstance(head, Struct):
        _mute_template(head.get("template"))
    for group in decoded.get("workerGroupSpecs") or []:
        if not isinstance(group, Struct):
            continue
        for key in ("replicas", "maxReplicas", "minReplicas"):
            group.pop(key, None)
        scale = group.get("scaleStrategy")
        if isinstance(scale, Struct):
            scale.pop("workersToDelete", None)
            if not scale:
                group.pop("scaleStrategy", None)
        _mute_template(group.get("template"))
    decoded.pop("upgradeStrategy", None)
    return decoded


def cluster_spec_hash(spec: Mapping[str, Any], version: Version) -> str:
    """``GenerateHashWithoutReplicasAndWorkersToDelete(spec)`` of a RayClusterSpec as the API server stores it
    (a manifest is pruned and defaulted first, as the API server would). Raises ``GoDecodeError`` on a spec the
    API server would not store, :class:`UnmodelledVersion` before 1.6."""
    types = types_for(version)
    decoded = _gojson.decode(types, types.root, spec)
    return _gojson.json_hash(_gojson.encode(types, types.root, _muted(decoded)))


def with_controller_defaults(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The RayCluster controller's ``setDefaults``, which every reconcile applies in memory before anything else:
    a missing ``rayStartParams`` of the head or of a worker group becomes ``{}`` (the field has no
    ``omitempty``, so ``null`` and ``{}`` hash differently; the RayService controller hashes without it)."""
    out = dict(spec)
    head = out.get("headGroupSpec")
    if isinstance(head, Mapping) and head.get("rayStartParams") is None:
        out["headGroupSpec"] = {**head, "rayStartParams": {}}
    groups = out.get("workerGroupSpecs")
    if isinstance(groups, list):
        out["workerGroupSpecs"] = [
            {**g, "rayStartParams": {}} if isinstance(g, Mapping) and g.get("rayStartParams") is None else g
            for g in groups
        ]
    return out


def raycluster_hash(spec: Mapping[str, Any], version: Version) -> str:
    """The hash the RayCluster controller writes on the head Pod and compares for ``Recreate``:
    :func:`cluster_spec_hash` of the spec after its ``setDefaults``."""
    return cluster_spec_hash(with_controller_defaults(spec), version)


def service_goal_spec(cluster_config: Mapping[str, Any], version: Version) -> dict[str, Any]:
    """``rayClusterSpecForHashing``: the RayService's rayClusterConfig as hashed (v1.7 leaves ``suspend`` out:
    it is passed to the RayCluster at creation only)."""
    spec = dict(cluster_config)
    if version >= (1, 7, 0):
        spec.pop("suspend", None)
    return spec


def service_goal_hash(cluster_config: Mapping[str, Any], version: Version, groups: int | None = None) -> str:
    """The goal hash ``isClusterSpecHashEqual`` compares with a RayCluster's annotation; ``groups`` (the
    cluster's ``ray.io/num-worker-groups``) keeps only that many worker groups (the ``partial`` comparison)."""
    spec = service_goal_spec(cluster_config, version)
    if groups is not None:
        workers = spec.get("workerGroupSpecs")
        spec["workerGroupSpecs"] = list(workers[:groups]) if isinstance(workers, list) else workers
    return cluster_spec_hash(spec, version)


__all__ = [
    "KUBERAY_VERSION_ANNOTATION",
    "NUM_WORKER_GROUPS_ANNOTATION",
    "RECREATE_HASH_ANNOTATION",
    "SERVICE_HASH_ANNOTATION",
    "UnmodelledVersion",
    "cluster_spec_hash",
    "raycluster_hash",
    "service_goal_hash",
    "service_goal_spec",
    "types_for",
    "with_controller_defaults",
]
