"""What a plan is computed against: the operator that will act, and (when read) the live objects it compares."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_kuberay.kuberay import LATEST_VERSION, Version, default_feature_gates, format_version


@dataclass(frozen=True)
class Operator:
    """The operator that reconciles the object: its version, feature gates, and its ``ENABLE_ZERO_DOWNTIME``
    environment variable (``False`` only when it is set to ``false``: read when a RayService sets no
    ``upgradeStrategy.type``, ``isZeroDowntimeUpgradeEnabled``)."""

    version: Version = LATEST_VERSION
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    zero_downtime: bool = True

    def gate(self, name: str) -> bool:
        gates = {**default_feature_gates(self.version), **dict(self.feature_gates)}
        return bool(gates.get(name, False))

    @property
    def version_text(self) -> str:
        """``KUBERAY_VERSION`` as the operator writes it in the ``ray.io/kuberay-version`` annotation."""
        return "v" + format_version(self.version)


@dataclass(frozen=True)
class Live:
    """The objects the operator compares the new spec with, as read from the cluster just before the change.

    ``obj`` is the live object (its spec is the old one; its status says e.g. which RayService cluster is
    active). ``head_pods``: a RayCluster's head Pods (``ray.io/node-type=head``); ``None`` when they were not
    read. ``clusters``: a RayService's RayClusters by name (the active and pending one)."""

    obj: Mapping[str, Any] | None = None
    head_pods: tuple[Mapping[str, Any], ...] | None = None
    clusters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


__all__ = ["Live", "Operator"]
