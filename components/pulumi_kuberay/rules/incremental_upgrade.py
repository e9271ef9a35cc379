"""Incremental upgrade of a RayService: ``ValidateClusterUpgradeOptions`` (gate RayServiceIncrementalUpgrade)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.paths import as_int, get

from ._engine import Context, Violation, declare
from ._examples import (
    GOOD_UPGRADE_OPTIONS,
    example_service,
    incremental_service,
)
from ._fixed import patch
from ._manifest_readers import INCREMENTAL, service_cluster, service_spec, upgrade_type

# ----------------------------------------------------------------------------------------------------
# RS-11 .. RS-17: incremental upgrade


def _incremental_spec(manifest: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The spec if the operator treats it as incremental (type set and gate on), else None."""
    spec = service_spec(manifest)
    if spec is None or upgrade_type(spec) != INCREMENTAL:
        return None
    return spec


def _check_incremental_autoscaling(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _incremental_spec(manifest, ctx)
    if spec is not None and service_cluster(spec).get("enableInTreeAutoscaling") is not True:
        yield Violation(
            "NewClusterWithIncrementalUpgrade requires the Ray autoscaler; enableInTreeAutoscaling is not true",
            "spec.rayClusterConfig.enableInTreeAutoscaling",
        )


declare(
    id="rayservice-incremental-requires-autoscaling",
    title="Incremental upgrade without the Ray autoscaler",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-11",),
    enforced_by=("operator",),
    gate="RayServiceIncrementalUpgrade",
    rationale="Incremental upgrades scale clusters through Serve target_capacity, which needs the autoscaler.",
    fix="Set rayClusterConfig.enableInTreeAutoscaling: true, or use type NewCluster.",
    check=_check_incremental_autoscaling,
    compliant=incremental_service(GOOD_UPGRADE_OPTIONS),
    violating=incremental_service(GOOD_UPGRADE_OPTIONS, autoscaling=False),
    violating_path="spec.rayClusterConfig.enableInTreeAutoscaling",
    fixed=patch({"spec.rayClusterConfig.enableInTreeAutoscaling": True}),
)


def _options(spec: dict[str, Any]) -> dict[str, Any] | None:
    options = get(spec, "upgradeStrategy", "clusterUpgradeOptions")
    return options if isinstance(options, dict) else None


def _check_incremental_options(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _incremental_spec(manifest, ctx)
    if spec is not None and get(spec, "upgradeStrategy", "clusterUpgradeOptions") is None:
        yield Violation(
            "NewClusterWithIncrementalUpgrade requires upgradeStrategy.clusterUpgradeOptions (gatewayClassName, stepSizePercent, intervalSeconds)",
            "spec.upgradeStrategy.clusterUpgradeOptions",
        )


declare(
    id="rayservice-incremental-options-missing",
    title="Incremental upgrade without clusterUpgradeOptions",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-12",),
    enforced_by=("operator",),
    gate="RayServiceIncrementalUpgrade",
    rationale="The operator needs the Gateway class and traffic-shift parameters to run an incremental upgrade.",
    fix="Add clusterUpgradeOptions with gatewayClassName, stepSizePercent and intervalSeconds.",
    check=_check_incremental_options,
    compliant=incremental_service(GOOD_UPGRADE_OPTIONS),
    violating=incremental_service(None),
    violating_path="spec.upgradeStrategy.clusterUpgradeOptions",
    fixed=patch(
        {
            "spec.upgradeStrategy.clusterUpgradeOptions": {
                "gatewayClassName": "istio",
                "stepSizePercent": 10,
                "intervalSeconds": 30,
                "maxSurgePercent": 10,
            },
        }
    ),
)


def _check_percentages(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _incremental_spec(manifest, ctx)
    options = _options(spec) if spec is not None else None
    if options is None:
        return
    base = "spec.upgradeStrategy.clusterUpgradeOptions"
    surge_raw = options.get("maxSurgePercent")
    surge = 100 if surge_raw is None else as_int(surge_raw)  # CRD default 100
    if surge is not None and not 0 <= surge <= 100:
        yield Violation(f"maxSurgePercent is {surge}; it must be between 0 and 100", f"{base}.maxSurgePercent")
    step_raw = options.get("stepSizePercent")
    step = as_int(step_raw)
    if step_raw is None:
        yield Violation("stepSizePercent is required (0..100)", f"{base}.stepSizePercent")
    elif step is not None and not 0 <= step <= 100:
        yield Violation(f"stepSizePercent is {step}; it must be between 0 and 100", f"{base}.stepSizePercent")
    elif step is not None and surge is not None and step > surge and ctx.at_least(1, 7):
        yield Violation(
            f"stepSizePercent ({step}) is greater than maxSurgePercent ({surge})", f"{base}.stepSizePercent"
        )


declare(
    id="rayservice-incremental-percent-invalid",
    title="Incremental upgrade percentages out of range",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-13", "RS-14", "RS-15"),
    enforced_by=("operator",),
    gate="RayServiceIncrementalUpgrade",
    rationale="maxSurgePercent and stepSizePercent must be 0..100 and the step may not exceed the surge; the operator rejects the spec otherwise.",
    fix="Use 0 <= stepSizePercent <= maxSurgePercent <= 100.",
    check=_check_percentages,
    compliant=incremental_service(GOOD_UPGRADE_OPTIONS),
    violating=incremental_service({**GOOD_UPGRADE_OPTIONS, "stepSizePercent": 50, "maxSurgePercent": 20}),
    violating_path="spec.upgradeStrategy.clusterUpgradeOptions.stepSizePercent",
    fixed=patch(
        {
            "spec.upgradeStrategy.clusterUpgradeOptions.stepSizePercent": 10,
            "spec.upgradeStrategy.clusterUpgradeOptions.maxSurgePercent": 10,
        }
    ),
)


def _check_interval(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _incremental_spec(manifest, ctx)
    options = _options(spec) if spec is not None else None
    if options is None:
        return
    raw = options.get("intervalSeconds")
    interval = as_int(raw)
    if raw is None or (interval is not None and interval <= 0):
        yield Violation(
            f"intervalSeconds is {raw!r}; it must be set and > 0",
            "spec.upgradeStrategy.clusterUpgradeOptions.intervalSeconds",
        )


declare(
    id="rayservice-incremental-interval-invalid",
    title="Incremental upgrade intervalSeconds missing or not positive",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-16",),
    enforced_by=("operator",),
    gate="RayServiceIncrementalUpgrade",
    rationale="Traffic is shifted every intervalSeconds; the operator requires a positive value.",
    fix="Set clusterUpgradeOptions.intervalSeconds to a positive number (e.g. 30).",
    check=_check_interval,
    compliant=incremental_service(GOOD_UPGRADE_OPTIONS),
    violating=incremental_service({**GOOD_UPGRADE_OPTIONS, "intervalSeconds": 0}),
    violating_path="spec.upgradeStrategy.clusterUpgradeOptions.intervalSeconds",
    fixed=patch({"spec.upgradeStrategy.clusterUpgradeOptions.intervalSeconds": 30}),
)


def _check_gateway_class(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _incremental_spec(manifest, ctx)
    options = _options(spec) if spec is not None else None
    if options is None:
        return
    value = options.get("gatewayClassName")
    if value is None or value == "":
        yield Violation(
            "gatewayClassName is required for NewClusterWithIncrementalUpgrade",
            "spec.upgradeStrategy.clusterUpgradeOptions.gatewayClassName",
        )


_without_gateway = copy.deepcopy(GOOD_UPGRADE_OPTIONS)
del _without_gateway["gatewayClassName"]

declare(
    id="rayservice-incremental-gateway-class-missing",
    title="Incremental upgrade without gatewayClassName",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-17",),
    enforced_by=("operator",),
    gate="RayServiceIncrementalUpgrade",
    rationale="The operator creates a Gateway API Gateway of this class to split traffic between clusters.",
    fix="Set clusterUpgradeOptions.gatewayClassName to an installed GatewayClass (e.g. istio).",
    check=_check_gateway_class,
    compliant=incremental_service(GOOD_UPGRADE_OPTIONS),
    violating=incremental_service(_without_gateway),
    violating_path="spec.upgradeStrategy.clusterUpgradeOptions.gatewayClassName",
    fixed=patch({"spec.upgradeStrategy.clusterUpgradeOptions.gatewayClassName": "istio"}),
)


# ----------------------------------------------------------------------------------------------------
# upgradeStrategy without a type (found by tests/oracle against v1.6.1)


def _check_upgrade_type_missing(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = service_spec(manifest)
    strategy = spec.get("upgradeStrategy") if spec is not None else None
    # v1.7.0's IsIncrementalUpgradeEnabled checks the type for nil first (its oracle accepts it).
    if isinstance(strategy, dict) and strategy.get("type") is None and not ctx.at_least(1, 7):
        yield Violation(
            "upgradeStrategy is set without a type: with the RayServiceIncrementalUpgrade gate on, ValidateRayServiceSpec dereferences the missing type (IsIncrementalUpgradeEnabled) and the reconcile panics on every attempt",
            "spec.upgradeStrategy",
            fix="Set upgradeStrategy.type (NewCluster, NewClusterWithIncrementalUpgrade or None) or remove upgradeStrategy.",
        )


def _service_with_strategy(strategy: dict[str, Any]) -> dict[str, Any]:
    service = example_service()
    service["spec"]["upgradeStrategy"] = strategy
    return service


declare(
    id="rayservice-upgrade-type-missing",
    title="RayService upgradeStrategy without a type",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-09",),
    enforced_by=("operator",),
    gate="RayServiceIncrementalUpgrade",
    rationale="Before v1.7 IsIncrementalUpgradeEnabled reads *spec.upgradeStrategy.type without a nil check once the RayServiceIncrementalUpgrade gate is on, so an upgradeStrategy with no type makes ValidateRayServiceSpec panic (seen in the v1.6.1 code by tests/oracle); the RayService never gets a cluster. v1.7.0 checks for nil.",
    fix="Set upgradeStrategy.type or remove upgradeStrategy.",
    check=_check_upgrade_type_missing,
    compliant=_service_with_strategy({"type": "NewCluster"}),
    violating=_service_with_strategy({}),
    violating_path="spec.upgradeStrategy",
    context={"kuberay_version": "1.6.0"},
    fixed=patch({"spec.upgradeStrategy.type": "NewCluster"}),
)
