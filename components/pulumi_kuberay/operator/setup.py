"""The KubeRay operator as the rules read it: :class:`OperatorSetup`, typed from where it is derived to the checks
(``Target.operator`` -> ``Context.operator``; the ``setup`` rules take it as their subject). Plain Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_kuberay.kuberay import DEFAULT_FEATURE_GATES, LATEST_VERSION, format_version

#: The operator version of the catalogue (the chart version of the v1.7.0 kuberay-operator chart).
LATEST = format_version(LATEST_VERSION)
#: The kuberay-operator chart's release namespace in its docs, and the component's default.
DEFAULT_NAMESPACE = "kuberay-system"


@dataclass(frozen=True)
class OperatorSetup:
    """What an installed operator does, as far as the rules care: the ``setup`` rules judge it, and the rules on
    each Ray object read it from ``Context.operator``. ``watch_namespaces`` None = every namespace.

    Derived in one place, :mod:`pulumi_kuberay.operator.derive` (from the component's args, chart values, the
    rendered Deployment or the stack config).
    """

    version: str = LATEST
    namespace: str = DEFAULT_NAMESPACE
    feature_gates: Mapping[str, bool] = field(default_factory=lambda: dict(DEFAULT_FEATURE_GATES))
    watch_namespaces: tuple[str, ...] | None = None
    batch_scheduler: str = ""
    replicas: int = 1
    leader_election: bool = True
    resource_limits: Mapping[str, Any] = field(default_factory=dict)
    image: str = "quay.io/kuberay/operator:v1.7.0"
    crd_version: str | None = LATEST
    """KubeRay version of the installed CRDs (None: unknown)."""
    source: str = "operator"
    """Where this came from, for messages (``KubeRayOperator 'kuberay'``, ``values file ops.yaml``...)."""

    def watches(self, namespace: str) -> bool:
        return self.watch_namespaces is None or namespace in self.watch_namespaces

    @property
    def image_tag(self) -> str:
        _, sep, tag = self.image.rpartition(":")
        return tag if sep and "/" not in tag else ""

    def rule_gates(self) -> dict[str, bool]:
        """The gates the rule catalogue knows (others do not change any check)."""
        return {k: v for k, v in self.feature_gates.items() if k in DEFAULT_FEATURE_GATES}


__all__ = ["DEFAULT_NAMESPACE", "OperatorSetup"]
