"""RayService operator rules: ValidateRayServiceMetadata/Spec and ValidateClusterUpgradeOptions.

Reference: ``kuberay-v1.7.0.md`` section 8.3 (RS-01 .. RS-17; RS-07, the embedded RayClusterSpec, is checked
by the RayCluster rules on every embedded spec) and 8.5 (WH-04: the webhook repeats RS-01 .. RS-05).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.rules._engine import Category, Context, Rule, Severity, Violation, register
from pulumi_kuberay.rules._paths import as_dict, as_int, as_str, get
from pulumi_kuberay.rules.operator_job import example_cluster_spec

MAX_RAYSERVICE_NAME_LENGTH = 47
INITIALIZING_TIMEOUT_ANNOTATION = "ray.io/initializing-timeout"
UPGRADE_TYPES = ("NewClusterWithIncrementalUpgrade", "NewCluster", "None")
INCREMENTAL = "NewClusterWithIncrementalUpgrade"
_DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_GO_ATOI = re.compile(r"^[+-]?[0-9]+$")
_GO_DURATION_PART = re.compile(r"([0-9]*)(\.[0-9]*)?([^0-9.]+)")
_GO_DURATION_UNITS: dict[str, float] = {
    "ns": 1e-9,
    "us": 1e-6,
    "\u00b5s": 1e-6,  # micro sign
    "\u03bcs": 1e-6,  # Greek mu
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}


def parse_go_duration(text: str) -> float | None:
    """Seconds of a Go ``time.ParseDuration`` string (``"1h30m"``, ``"-5s"``, ``"0"``), else None."""
    rest = text
    sign = 1.0
    if rest[:1] in ("+", "-"):
        sign = -1.0 if rest[0] == "-" else 1.0
        rest = rest[1:]
    if rest == "0":
        return 0.0
    if rest == "":
        return None
    total = 0.0
    while rest:
        match = _GO_DURATION_PART.match(rest)
        if match is None:
            return None
        whole, fraction, unit = match.groups()
        if not whole and (fraction is None or len(fraction) <= 1):
            return None  # Go needs digits before or after the dot
        scale = _GO_DURATION_UNITS.get(unit)
        if scale is None:
            return None
        total += float((whole or "0") + (fraction or "")) * scale
        rest = rest[match.end() :]
    return sign * total


def _spec(manifest: dict[str, Any]) -> dict[str, Any] | None:
    if manifest.get("kind") != "RayService":
        return None
    spec = manifest.get("spec")
    return spec if isinstance(spec, dict) else None


def _cluster(spec: dict[str, Any]) -> dict[str, Any]:
    return as_dict(spec.get("rayClusterConfig"))


def example_service(name: str = "rayservice-sample", **spec_fields: Any) -> dict[str, Any]:
    """A valid RayService; ``spec_fields`` override its spec (None removes a key)."""
    cluster = example_cluster_spec()
    head = cluster["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"].append({"containerPort": 8000, "name": "serve"})
    spec: dict[str, Any] = {
        "serveConfigV2": (
            "applications:\n"
            "  - name: fruit_app\n"
            "    import_path: fruit.deployment_graph\n"
            "    route_prefix: /fruit\n"
            "    runtime_env:\n"
            "      working_dir: https://github.com/ray-project/test_dag/archive/78b4a5da.zip\n"
            "    deployments:\n"
            "      - name: MangoStand\n"
            "        num_replicas: 1\n"
        ),
        "rayClusterConfig": cluster,
    }
    for key, value in spec_fields.items():
        if value is None:
            spec.pop(key, None)
        else:
            spec[key] = value
    return {"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": {"name": name}, "spec": spec}


def _incremental(options: dict[str, Any] | None, *, autoscaling: bool = True) -> dict[str, Any]:
    cluster = example_cluster_spec(autoscaling=autoscaling)
    cluster["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"].append(
        {"containerPort": 8000, "name": "serve"}
    )
    strategy: dict[str, Any] = {"type": INCREMENTAL}
    if options is not None:
        strategy["clusterUpgradeOptions"] = options
    return example_service(upgradeStrategy=strategy, rayClusterConfig=cluster)


_GOOD_OPTIONS = {
    "gatewayClassName": "istio",
    "stepSizePercent": 10,
    "intervalSeconds": 30,
    "maxSurgePercent": 10,
}


def _service_rule(
    *,
    id: str,
    title: str,
    rs: tuple[str, ...],
    check: Any,
    compliant: dict[str, Any],
    violating: dict[str, Any],
    rationale: str,
    fix: str,
    severity: Severity = "critical",
    category: Category = "correctness",
    context: dict[str, Any] | None = None,
) -> Rule:
    return register(
        Rule(
            id=id,
            title=title,
            severity=severity,
            category=category,
            rationale=rationale,
            fix=fix,
            kinds=("RayService",),
            check=check,
            compliant=compliant,
            violating=violating,
            operator_rules=rs,
            context=context or {},
        )
    )


# ----------------------------------------------------------------------------------------------------
# RS-01 .. RS-05 (and WH-04): metadata


def _check_name_length(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    name = as_str(get(manifest, "metadata", "name"))
    if manifest.get("kind") != "RayService" or not name or not ctx.at_least(1, 4):  # limit added in v1.4
        return
    if len(name) > MAX_RAYSERVICE_NAME_LENGTH:
        yield Violation(
            f"RayService name is {len(name)} characters; the operator allows at most "
            f"{MAX_RAYSERVICE_NAME_LENGTH} (it derives cluster and Service names from it)",
            "metadata.name",
        )


def _check_name_dns1035(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    name = as_str(get(manifest, "metadata", "name"))
    if manifest.get("kind") == "RayService" and name and (not _DNS1035_LABEL.match(name) or len(name) > 63):
        yield Violation(
            f"RayService name {name!r} is not a DNS-1035 label (lower-case letters, digits and '-', "
            "starting with a letter and ending with a letter or digit)",
            "metadata.name",
        )


_service_rule(
    id="rayservice-name-too-long",
    title="RayService name longer than 47 characters",
    rs=("RS-01", "WH-04"),
    check=_check_name_length,
    compliant=example_service("text-summarizer"),
    violating=example_service("text-summarizer-" + "x" * 32),
    rationale="ValidateRayServiceMetadata (and the webhook) reject names over 47 characters; the RayService "
    "reports Ready=False/ValidationFailed and never creates a cluster.",
    fix="Shorten metadata.name to at most 47 characters.",
)

_service_rule(
    id="rayservice-name-not-dns1035",
    title="RayService name is not a DNS-1035 label",
    rs=("RS-02", "WH-04"),
    check=_check_name_dns1035,
    compliant=example_service("text-summarizer"),
    violating=example_service("Text_Summarizer"),
    rationale="The name prefixes Services and Pods, so the operator requires a DNS-1035 label.",
    fix="Use lower-case letters, digits and '-', starting with a letter.",
)


def _check_initializing_timeout(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if manifest.get("kind") != "RayService":
        return
    value = as_str(get(manifest, "metadata", "annotations", INITIALIZING_TIMEOUT_ANNOTATION))
    if not value:
        return
    path = f'metadata.annotations["{INITIALIZING_TIMEOUT_ANNOTATION}"]'
    seconds = parse_go_duration(value)
    if seconds is not None:
        if seconds <= 0:
            yield Violation(
                f"{INITIALIZING_TIMEOUT_ANNOTATION} is {value!r}; it must be a positive duration", path
            )
        return
    if _GO_ATOI.match(value):
        if int(value) <= 0:
            yield Violation(
                f"{INITIALIZING_TIMEOUT_ANNOTATION} is {value!r}; it must be a positive number of seconds",
                path,
            )
        return
    yield Violation(
        f"{INITIALIZING_TIMEOUT_ANNOTATION} is {value!r}: neither a Go duration (e.g. '30m', '1h') nor an "
        "integer "
        "number of seconds",
        path,
    )


def _with_timeout(value: str) -> dict[str, Any]:
    service = example_service()
    service["metadata"]["annotations"] = {INITIALIZING_TIMEOUT_ANNOTATION: value}
    return service


_service_rule(
    id="rayservice-initializing-timeout-invalid",
    title="Invalid ray.io/initializing-timeout annotation",
    rs=("RS-03", "RS-04", "RS-05", "WH-04"),
    check=_check_initializing_timeout,
    compliant=_with_timeout("30m"),
    violating=_with_timeout("30 minutes"),
    rationale="The annotation must be a positive Go duration or a positive integer of seconds; anything else "
    "fails RayService validation.",
    fix="Use a Go duration like '30m' or '1h', or a positive number of seconds like '1800'.",
)


# ----------------------------------------------------------------------------------------------------
# RS-06 .. RS-10: spec


def _check_k8s_token_auth(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _spec(manifest)
    if spec is None or not ctx.at_least(1, 6):
        return
    if get(_cluster(spec), "authOptions", "enableK8sTokenAuth") is True:
        yield Violation(
            "authOptions.enableK8sTokenAuth is not supported for RayService clusters",
            "spec.rayClusterConfig.authOptions.enableK8sTokenAuth",
        )


def _with_auth(auth: dict[str, Any]) -> dict[str, Any]:
    service = example_service()
    service["spec"]["rayClusterConfig"]["rayVersion"] = "2.55.0"
    service["spec"]["rayClusterConfig"]["authOptions"] = auth
    return service


_service_rule(
    id="rayservice-k8s-token-auth",
    title="Kubernetes token auth in a RayService cluster",
    rs=("RS-06",),
    check=_check_k8s_token_auth,
    compliant=_with_auth({"mode": "token"}),
    violating=_with_auth({"mode": "token", "enableK8sTokenAuth": True}),
    rationale="The operator's Serve health checks and config PUTs cannot present a Kubernetes token; it "
    "rejects "
    "enableK8sTokenAuth in RayServices.",
    fix="Use authOptions.mode: token without enableK8sTokenAuth.",
)


def _check_head_service_name(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _spec(manifest)
    if spec is None:
        return
    name = get(_cluster(spec), "headGroupSpec", "headService", "metadata", "name")
    if isinstance(name, str) and name:
        yield Violation(
            f"headGroupSpec.headService.metadata.name is {name!r}; a RayService names its head Services "
            "itself "
            "(one per cluster during upgrades)",
            "spec.rayClusterConfig.headGroupSpec.headService.metadata.name",
        )


def _with_head_service(metadata: dict[str, Any]) -> dict[str, Any]:
    service = example_service()
    service["spec"]["rayClusterConfig"]["headGroupSpec"]["headService"] = {"metadata": metadata}
    return service


_service_rule(
    id="rayservice-head-service-name-set",
    title="Custom head Service name in a RayService",
    rs=("RS-08",),
    check=_check_head_service_name,
    compliant=_with_head_service({"labels": {"team": "ml"}}),
    violating=_with_head_service({"name": "my-head-svc"}),
    rationale="Old and new clusters coexist during a zero-downtime upgrade, so a fixed head Service name "
    "would "
    "collide; the operator rejects it.",
    fix="Remove headService.metadata.name (labels and annotations are fine).",
)


def _upgrade_type(spec: dict[str, Any]) -> Any:
    return get(spec, "upgradeStrategy", "type")


def _check_upgrade_type(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _spec(manifest)
    if spec is None:
        return
    kind = _upgrade_type(spec)
    if not isinstance(kind, str) or as_str(kind) is None:
        return
    if kind not in UPGRADE_TYPES:
        close = [t for t in UPGRADE_TYPES if t.lower() == kind.lower()]
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        yield Violation(
            f"upgradeStrategy.type {kind!r} is not one of {', '.join(UPGRADE_TYPES)}{hint}",
            "spec.upgradeStrategy.type",
        )


_service_rule(
    id="rayservice-upgrade-type-invalid",
    title="Unknown RayService upgradeStrategy.type",
    rs=("RS-09",),
    check=_check_upgrade_type,
    compliant=example_service(upgradeStrategy={"type": "NewCluster"}),
    violating=example_service(upgradeStrategy={"type": "Recreate"}),
    rationale="The CRD has no enum for this field, but the operator only accepts NewCluster, "
    "NewClusterWithIncrementalUpgrade and None.",
    fix="Use NewCluster (zero-downtime, default) or NewClusterWithIncrementalUpgrade.",
)


def _check_deletion_delay(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _spec(manifest)
    delay = as_int(spec.get("rayClusterDeletionDelaySeconds")) if spec else None
    if delay is not None and delay < 0:
        yield Violation(
            f"rayClusterDeletionDelaySeconds is {delay}; it must be >= 0",
            "spec.rayClusterDeletionDelaySeconds",
        )


_service_rule(
    id="rayservice-deletion-delay-negative",
    title="Negative rayClusterDeletionDelaySeconds",
    rs=("RS-10",),
    check=_check_deletion_delay,
    compliant=example_service(rayClusterDeletionDelaySeconds=60),
    violating=example_service(rayClusterDeletionDelaySeconds=-1),
    rationale="The CRD minimum is 0 and the operator rejects negative delays.",
    fix="Use 0 or a positive number of seconds (default 60).",
)


# ----------------------------------------------------------------------------------------------------
# RS-11 .. RS-17: incremental upgrade


def _incremental_spec(manifest: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The spec if the operator treats it as incremental (type set and gate on), else None."""
    spec = _spec(manifest)
    if spec is None or _upgrade_type(spec) != INCREMENTAL or not ctx.gate("RayServiceIncrementalUpgrade"):
        return None
    return spec


def _check_incremental_autoscaling(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _incremental_spec(manifest, ctx)
    if spec is not None and _cluster(spec).get("enableInTreeAutoscaling") is not True:
        yield Violation(
            "NewClusterWithIncrementalUpgrade requires the Ray autoscaler; enableInTreeAutoscaling is not "
            "true",
            "spec.rayClusterConfig.enableInTreeAutoscaling",
        )


_service_rule(
    id="rayservice-incremental-requires-autoscaling",
    title="Incremental upgrade without the Ray autoscaler",
    rs=("RS-11",),
    check=_check_incremental_autoscaling,
    compliant=_incremental(_GOOD_OPTIONS),
    violating=_incremental(_GOOD_OPTIONS, autoscaling=False),
    rationale="Incremental upgrades scale clusters through Serve target_capacity, which needs the "
    "autoscaler.",
    fix="Set rayClusterConfig.enableInTreeAutoscaling: true, or use type NewCluster.",
)


def _options(spec: dict[str, Any]) -> dict[str, Any] | None:
    options = get(spec, "upgradeStrategy", "clusterUpgradeOptions")
    return options if isinstance(options, dict) else None


def _check_incremental_options(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _incremental_spec(manifest, ctx)
    if spec is not None and get(spec, "upgradeStrategy", "clusterUpgradeOptions") is None:
        yield Violation(
            "NewClusterWithIncrementalUpgrade requires upgradeStrategy.clusterUpgradeOptions "
            "(gatewayClassName, stepSizePercent, intervalSeconds)",
            "spec.upgradeStrategy.clusterUpgradeOptions",
        )


_service_rule(
    id="rayservice-incremental-options-missing",
    title="Incremental upgrade without clusterUpgradeOptions",
    rs=("RS-12",),
    check=_check_incremental_options,
    compliant=_incremental(_GOOD_OPTIONS),
    violating=_incremental(None),
    rationale="The operator needs the Gateway class and traffic-shift parameters to run an incremental "
    "upgrade.",
    fix="Add clusterUpgradeOptions with gatewayClassName, stepSizePercent and intervalSeconds.",
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
        yield Violation(
            f"maxSurgePercent is {surge}; it must be between 0 and 100", f"{base}.maxSurgePercent"
        )
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


_service_rule(
    id="rayservice-incremental-percent-invalid",
    title="Incremental upgrade percentages out of range",
    rs=("RS-13", "RS-14", "RS-15"),
    check=_check_percentages,
    compliant=_incremental(_GOOD_OPTIONS),
    violating=_incremental({**_GOOD_OPTIONS, "stepSizePercent": 50, "maxSurgePercent": 20}),
    rationale="maxSurgePercent and stepSizePercent must be 0..100 and the step may not exceed the surge; the "
    "operator rejects the spec otherwise.",
    fix="Use 0 <= stepSizePercent <= maxSurgePercent <= 100.",
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


_service_rule(
    id="rayservice-incremental-interval-invalid",
    title="Incremental upgrade intervalSeconds missing or not positive",
    rs=("RS-16",),
    check=_check_interval,
    compliant=_incremental(_GOOD_OPTIONS),
    violating=_incremental({**_GOOD_OPTIONS, "intervalSeconds": 0}),
    rationale="Traffic is shifted every intervalSeconds; the operator requires a positive value.",
    fix="Set clusterUpgradeOptions.intervalSeconds to a positive number (e.g. 30).",
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


_without_gateway = copy.deepcopy(_GOOD_OPTIONS)
del _without_gateway["gatewayClassName"]

_service_rule(
    id="rayservice-incremental-gateway-class-missing",
    title="Incremental upgrade without gatewayClassName",
    rs=("RS-17",),
    check=_check_gateway_class,
    compliant=_incremental(_GOOD_OPTIONS),
    violating=_incremental(_without_gateway),
    rationale="The operator creates a Gateway API Gateway of this class to split traffic between clusters.",
    fix="Set clusterUpgradeOptions.gatewayClassName to an installed GatewayClass (e.g. istio).",
)
