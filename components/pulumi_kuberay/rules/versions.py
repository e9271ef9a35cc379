"""Version and feature-gate rules: what the targeted operator release's CRDs and feature gates accept.

* ``field-newer-than-target``: a field (or enum value) the target KubeRay version's CRD/operator does
  not know. An older CRD prunes unknown fields silently, so the setting would just vanish: critical.
* ``field-required-by-target``: a field that was still required by the target version's CRD.
* ``feature-gate-disabled``: a gated field with its operator gate off (RC-27, RC-38, RC-46, RC-67, RC-76), a
  RayCronJob without the RayCronJob gate (never reconciled), an incremental RayService upgrade without
  its gate.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from pulumi_kuberay.kuberay.paths import cluster_specs, get, iter_present, worker_groups

from ._engine import KINDS, Context, Violation, declare
from ._examples import example
from ._fixed import REMOVE, patch

Version = tuple[int, int, int]

#: Fields of RayClusterSpec (relative paths, ``[]`` = each list item) and the KubeRay version that added them.
CLUSTER_FIELDS: tuple[tuple[str, Version], ...] = (
    ("suspend", (1, 1, 0)),
    ("workerGroupSpecs[].numOfHosts", (1, 1, 0)),
    ("gcsFaultToleranceOptions", (1, 3, 0)),
    ("managedBy", (1, 3, 0)),
    ("workerGroupSpecs[].idleTimeoutSeconds", (1, 3, 0)),
    ("workerGroupSpecs[].suspend", (1, 3, 0)),
    ("autoscalerOptions.version", (1, 4, 0)),
    ("headGroupSpec.resources", (1, 5, 0)),
    ("headGroupSpec.labels", (1, 5, 0)),
    ("workerGroupSpecs[].resources", (1, 5, 0)),
    ("workerGroupSpecs[].labels", (1, 5, 0)),
    ("authOptions", (1, 5, 1)),  # in the v1.5.1 CRD already (not in v1.5.0's)
    ("authOptions.secretName", (1, 6, 0)),
    ("authOptions.enableK8sTokenAuth", (1, 6, 0)),
    ("upgradeStrategy", (1, 6, 0)),
    ("autoscalerOptions.command", (1, 7, 0)),
    ("autoscalerOptions.args", (1, 7, 0)),
    ("gcsFaultToleranceOptions.backend", (1, 7, 0)),
    ("gcsFaultToleranceOptions.storage", (1, 7, 0)),
    ("headGroupSpec.ingressOptions", (1, 7, 0)),
    ("networkPolicy", (1, 7, 0)),
    ("tlsOptions", (1, 7, 0)),
    ("historyServerOptions", (1, 7, 0)),
    ("workerGroupSpecs[].priority", (1, 7, 0)),
)

#: Kind-specific top-level spec fields (paths relative to ``spec``).
KIND_FIELDS: dict[str, tuple[tuple[str, Version], ...]] = {
    "RayJob": (
        ("activeDeadlineSeconds", (1, 1, 0)),
        ("submissionMode", (1, 1, 0)),
        ("backoffLimit", (1, 2, 0)),
        ("submitterConfig", (1, 2, 0)),
        ("managedBy", (1, 3, 0)),
        ("deletionStrategy", (1, 5, 0)),
        ("preRunningDeadlineSeconds", (1, 6, 0)),
        ("deletionStrategy.deletionRules[].condition.jobDeploymentStatus", (1, 6, 0)),
    ),
    "RayService": (
        ("excludeHeadPodFromServeSvc", (1, 3, 0)),
        ("upgradeStrategy", (1, 3, 0)),
        ("rayClusterDeletionDelaySeconds", (1, 5, 0)),
        ("upgradeStrategy.clusterUpgradeOptions", (1, 5, 0)),
        ("managedBy", (1, 6, 0)),
        ("suspend", (1, 7, 0)),
    ),
    "RayCronJob": (("timeZone", (1, 7, 0)),),
}

#: Enum-like values newer than the field: (kind, path relative to spec, value, version).
NEW_VALUES: tuple[tuple[str, str, str, Version], ...] = (
    ("RayJob", "submissionMode", "InteractiveMode", (1, 3, 0)),
    ("RayJob", "submissionMode", "SidecarMode", (1, 5, 0)),
    ("RayService", "upgradeStrategy.type", "NewClusterWithIncrementalUpgrade", (1, 5, 0)),
)

#: Kinds and the version that introduced them.
KIND_VERSIONS: dict[str, Version] = {"RayCronJob": (1, 6, 0)}


#: Why a gated feature the operator accepts and ignores while its gate is off is high.
_IGNORED = "high: the operator accepts the object and ignores it (critical means refused)"

def _fmt(version: Version | tuple[int, ...]) -> str:
    return f"{version[0]}.{version[1]}"


@lru_cache(maxsize=64)
def _newer_than(
    version: Version, kind: str
) -> tuple[tuple[tuple[str, Version], ...], tuple[tuple[str, Version], ...], tuple[tuple[str, str, Version], ...]]:
    """The cluster fields, ``kind``'s own fields and its enum values that ``version`` does not have yet (none for
    the newest target): the tables filtered once per target, not on every document."""
    return (
        tuple((pattern, added) for pattern, added in CLUSTER_FIELDS if version < added),
        tuple((pattern, added) for pattern, added in KIND_FIELDS.get(kind, ()) if version < added),
        tuple((pattern, value, added) for k, pattern, value, added in NEW_VALUES if k == kind and version < added),
    )


def _check_newer(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    target = _fmt(ctx.kuberay_version)
    kind = str(doc.get("kind"))
    since = KIND_VERSIONS.get(kind)
    if since is not None and ctx.kuberay_version < since:
        yield Violation(
            f"{kind} does not exist before KubeRay {_fmt(since)} (target is {target}): the CRD is not installed",
            "kind",
            fix=f"Target KubeRay >= {_fmt(since)} or use a RayJob instead.",
        )
        return
    cluster_fields, kind_fields, new_values = _newer_than(ctx.kuberay_version, kind)
    for ref in cluster_specs(doc) if cluster_fields else ():
        for pattern, added in cluster_fields:
            for path, _value in iter_present(ref.spec, pattern, ref.prefix):
                yield Violation(
                    f"{path} needs KubeRay >= {_fmt(added)}; the {target} CRD prunes it silently, so the setting has no effect",
                    path,
                    fix=f"Remove the field or upgrade the operator and CRDs to KubeRay >= {_fmt(added)}.",
                )
    spec = doc.get("spec")
    for pattern, added in kind_fields:
        for path, _value in iter_present(spec, pattern, "spec"):
            yield Violation(
                f"{path} needs KubeRay >= {_fmt(added)}; the {target} CRD prunes it silently, so the setting has no effect",
                path,
                fix=f"Remove the field or upgrade the operator and CRDs to KubeRay >= {_fmt(added)}.",
            )
    for pattern, value, added in new_values:
        for path, present in iter_present(spec, pattern, "spec"):
            if present == value:
                yield Violation(
                    f"{path}: {value} needs KubeRay >= {_fmt(added)}; the {target} operator does not know it",
                    path,
                    fix=f"Use another value or upgrade to KubeRay >= {_fmt(added)}.",
                )


declare(
    id="field-newer-than-target",
    title="Field newer than the target KubeRay version",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="An older CRD prunes fields it does not know without an error, so the setting silently disappears (or the operator does not understand the value).",
    proof="the target KubeRay version's CRD (kuberay:version, default the newest) does not know the field and prunes it",
    fix="Remove the field or raise the target KubeRay version (and upgrade operator and CRDs).",
    check=_check_newer,
    compliant=example(),
    violating=example(lambda d: d["spec"].update(authOptions={"mode": "token"})),
    violating_path="spec.authOptions",
    context={"kuberay_version": "1.5.0"},
    fixed=patch({"spec.authOptions": REMOVE}),
)


def _check_required(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    target = _fmt(ctx.kuberay_version)
    for ref in cluster_specs(doc):
        if ctx.kuberay_version < (1, 4, 0):
            head = ref.spec.get("headGroupSpec")
            if isinstance(head, dict) and "rayStartParams" not in head:
                yield Violation(
                    f"{ref.prefix}.headGroupSpec.rayStartParams is required by the KubeRay {target} CRD",
                    ref.path("headGroupSpec", "rayStartParams"),
                    fix="Add rayStartParams: {} (optional only from KubeRay 1.4).",
                )
            for group in worker_groups(ref):
                if "rayStartParams" not in group.spec:
                    yield Violation(
                        f"{group.path}.rayStartParams is required by the KubeRay {target} CRD",
                        f"{group.path}.rayStartParams",
                        fix="Add rayStartParams: {} (optional only from KubeRay 1.4).",
                    )
        options = ref.spec.get("gcsFaultToleranceOptions")
        if (1, 3, 0) <= ctx.kuberay_version < (1, 7, 0) and isinstance(options, dict) and "redisAddress" not in options:
            yield Violation(
                f"gcsFaultToleranceOptions.redisAddress is required by the KubeRay {target} CRD",
                ref.path("gcsFaultToleranceOptions", "redisAddress"),
                fix="Set redisAddress (optional only from KubeRay 1.7, with the rocksdb backend).",
            )
    if doc.get("kind") == "RayJob" and ctx.kuberay_version < (1, 3, 0):
        spec = doc.get("spec")
        if isinstance(spec, dict) and "entrypoint" not in spec:
            yield Violation(
                f"spec.entrypoint is required by the KubeRay {target} CRD",
                "spec.entrypoint",
                fix="Set the entrypoint (optional only from KubeRay 1.3).",
            )


def _no_start_params(d: dict[str, Any]) -> None:
    del d["spec"]["headGroupSpec"]["rayStartParams"]


declare(
    id="field-required-by-target",
    title="Field required by the target KubeRay version's CRD is missing",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="Some fields were required in older CRDs (rayStartParams before 1.4, redisAddress before 1.7, RayJob entrypoint before 1.3); the API server of that version rejects the object without them.",
    proof="the target KubeRay version's CRD refuses the create without the field",
    fix="Add the field for the target version.",
    check=_check_required,
    compliant=example(),
    violating=example(_no_start_params),
    violating_path="spec.headGroupSpec.rayStartParams",
    context={"kuberay_version": "1.3.0"},
    fixed=patch({"spec.headGroupSpec.rayStartParams": {}}),
)


# --------------------------------------------------------------------------------------------------
# Feature gates


def _gate_violation(
    ctx: Context, gate: str, path: str, what: str, effect: str, *, ignored: bool = False
) -> Violation | None:
    """``ignored``: the operator accepts the object and ignores it (or the setting) while the gate is off, which
    is high, not critical (critical = rejected)."""
    if ctx.gate(gate):
        return None
    return Violation(
        f"{what} needs the operator feature gate {gate}, which is off: {effect}",
        path,
        fix=f"Enable the gate on the operator (--feature-gates={gate}=true, Helm featureGates) and tell these checks ({{gate:{gate}}}), or remove {what}.",
        severity="high" if ignored else None,
        severity_why=_IGNORED,
    )


def _check_gates(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    kind = doc.get("kind")
    found: list[Violation | None] = []
    if kind == "RayCronJob" and ctx.at_least(1, 6):
        found.append(
            _gate_violation(
                ctx,
                "RayCronJob",
                "kind",
                "a RayCronJob",
                "the operator accepts it and ignores it (its RayCronJob controller is not started): no RayJob is ever created",
                ignored=True,
            )
        )
    if kind == "RayService" and ctx.at_least(1, 5):
        upgrade_type = get(doc, "spec", "upgradeStrategy", "type")
        if upgrade_type == "NewClusterWithIncrementalUpgrade":
            found.append(
                _gate_violation(
                    ctx,
                    "RayServiceIncrementalUpgrade",
                    "spec.upgradeStrategy.type",
                    "upgradeStrategy.type NewClusterWithIncrementalUpgrade",
                    "the operator accepts it and ignores the upgrade strategy (isZeroDowntimeUpgradeEnabled is false): a change of rayClusterConfig is never rolled out",
                    ignored=True,
                )
            )
    rejected = "the operator rejects the spec"
    for ref in cluster_specs(doc):
        if ctx.at_least(1, 3):
            for group in worker_groups(ref):
                if group.spec.get("suspend") is True:
                    found.append(
                        _gate_violation(
                            ctx,
                            "RayJobDeletionPolicy",
                            f"{group.path}.suspend",
                            "workerGroupSpecs[].suspend",
                            rejected,
                        )
                    )
        if not ctx.at_least(1, 7):
            continue  # the v1.7 gated fields are pruned by older CRDs (field-newer-than-target)
        if get(ref.spec, "gcsFaultToleranceOptions", "backend") == "rocksdb":
            found.append(
                _gate_violation(
                    ctx,
                    "GCSFaultToleranceEmbeddedStorage",
                    ref.path("gcsFaultToleranceOptions", "backend"),
                    "gcsFaultToleranceOptions.backend rocksdb",
                    rejected,
                )
            )
        for field, gate in (
            ("historyServerOptions", "RayClusterHistoryServer"),
            ("networkPolicy", "RayClusterNetworkPolicy"),
            ("tlsOptions", "RayClusterMTLS"),
        ):
            if ref.spec.get(field) is not None:
                found.append(_gate_violation(ctx, gate, ref.path(field), field, rejected))
    yield from (v for v in found if v is not None)


declare(
    id="feature-gate-disabled",
    title="Gated feature used while its operator feature gate is off",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-27", "RC-38", "RC-46", "RC-67", "RC-76"),
    enforced_by=("operator",),
    rationale="KubeRay rejects alpha/beta features whose feature gate is off: networkPolicy, tlsOptions, historyServerOptions, the rocksdb GCS backend, worker group suspend (critical). It accepts and ignores a RayCronJob (its controller is not started) and a NewClusterWithIncrementalUpgrade RayService (upgrades are never rolled out) while their gates are off (high).",
    fix="Enable the gate on the operator and in the checks' feature_gates, or remove the feature.",
    check=_check_gates,
    compliant=example(),
    violating=example(lambda d: d["spec"].update(tlsOptions={"enabled": True})),
    violating_path="spec.tlsOptions",
    fixed=patch({"spec.tlsOptions": REMOVE}),
    also=(_IGNORED,),
)
