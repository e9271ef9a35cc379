"""The rule catalogue's machinery: rules as data plus a small check function, findings, context, registry.

Plain Python: never imports pulumi. The components, the policy pack and ``kuberay-lint`` all call
:func:`check`, so a rule is written (and fixed) in exactly one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["low", "medium", "high", "critical"]
Category = Literal["correctness", "reliability", "security", "cost", "hygiene"]
Environment = Literal["dev", "staging", "prod"]

SEVERITY_ORDER: dict[str, int] = {"low": 0, "medium": 1, "high": 2, "critical": 3}
KINDS = ("RayCluster", "RayJob", "RayService", "RayCronJob")
RAY_GROUP = "ray.io"

#: Annotation prefix to silence one rule on one resource: ``suppress.pulumi-kuberay.io/<rule-id>: "<reason>"``.
SUPPRESS_PREFIX = "suppress.pulumi-kuberay.io/"

#: Operator feature gates of KubeRay v1.7.0 and their defaults (reference section 0.1).
DEFAULT_FEATURE_GATES: dict[str, bool] = {
    "RayClusterStatusConditions": True,
    "RayJobDeletionPolicy": True,
    "RayMultiHostIndexing": True,
    "RayServiceIncrementalUpgrade": True,
    "RayCronJob": False,
    "SidecarSubmitterRestart": False,
    "RayClusterNetworkPolicy": False,
    "GCSFaultToleranceEmbeddedStorage": False,
    "RayClusterMTLS": False,
    "RayClusterHistoryServer": False,
    "KubernetesWAS": False,
}


@dataclass(frozen=True)
class Finding:
    """One rule violation: which rule, how bad, what is wrong, where (field path), how to fix it."""

    rule_id: str
    severity: Severity
    message: str
    path: str
    fix: str

    def to_dict(self) -> dict[str, str]:
        return {
            "rule_id": self.rule_id,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class Violation:
    """What a rule's check yields: the message and path; the rule supplies id, severity and default fix."""

    message: str
    path: str
    fix: str | None = None
    severity: Severity | None = None  # overrides the rule's severity (e.g. prod vs dev)


@dataclass(frozen=True)
class Context:
    """What a check may depend on besides the manifest: target operator version, gates, environment."""

    kuberay_version: tuple[int, int, int] = (1, 7, 0)
    feature_gates: Mapping[str, bool] = field(default_factory=lambda: dict(DEFAULT_FEATURE_GATES))
    environment: Environment | None = None
    #: Organisation settings some rules read (e.g. ``allowed_registries``, ``gpu_budget``); absent = rule off.
    options: Mapping[str, Any] = field(default_factory=dict)

    def gate(self, name: str) -> bool:
        return bool(self.feature_gates.get(name, False))

    def at_least(self, major: int, minor: int, patch: int = 0) -> bool:
        return self.kuberay_version >= (major, minor, patch)


CheckFn = Callable[[dict[str, Any], Context], Iterable[Violation]]


@dataclass(frozen=True)
class Rule:
    """A rule is data plus a small check over a manifest dict (apiVersion/kind/metadata/spec)."""

    id: str
    title: str
    severity: Severity
    category: Category
    rationale: str
    fix: str
    kinds: tuple[str, ...]
    check: CheckFn
    compliant: dict[str, Any]
    violating: dict[str, Any]
    operator_rules: tuple[str, ...] = ()
    context: Mapping[str, Any] = field(default_factory=dict)  # check() kwargs its examples need (gates, env)

    @property
    def policy_name(self) -> str:
        return self.id


_REGISTRY: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    if rule.id in _REGISTRY:
        raise ValueError(f"duplicate rule id {rule.id!r}")
    _REGISTRY[rule.id] = rule
    return rule


def registered() -> Iterator[Rule]:
    return iter(_REGISTRY.values())
