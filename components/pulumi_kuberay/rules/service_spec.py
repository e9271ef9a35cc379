"""RayService metadata and spec: ``ValidateRayServiceMetadata`` (but the name: ``names.py``) and
``ValidateRayServiceSpec``. The embedded RayClusterSpec is checked by the cluster rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.paths import as_int, as_str, get

from ._cel import Cel
from ._engine import Context, Violation, declare
from ._examples import example_service, set_ray_version
from ._fixed import REMOVE, patch
from ._manifest_readers import (
    INITIALIZING_TIMEOUT_ANNOTATION,
    UPGRADE_TYPES,
    go_atoi,
    parse_go_duration,
    service_cluster,
    service_spec,
    upgrade_type,
)

# ----------------------------------------------------------------------------------------------------
# RS-03 .. RS-05: metadata (RS-01, RS-02, the name: names.py)


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
            yield Violation(f"{INITIALIZING_TIMEOUT_ANNOTATION} is {value!r}; it must be a positive duration", path)
        return
    number = go_atoi(value)  # strconv.Atoi: sign, digits, int64 range
    if number is not None:
        if number <= 0:
            yield Violation(
                f"{INITIALIZING_TIMEOUT_ANNOTATION} is {value!r}; it must be a positive number of seconds",
                path,
            )
        return
    yield Violation(
        f"{INITIALIZING_TIMEOUT_ANNOTATION} is {value!r}: neither a Go duration (e.g. '30m', '1h') nor an integer number of seconds",
        path,
    )


def _with_timeout(value: str) -> dict[str, Any]:
    service = example_service()
    service["metadata"]["annotations"] = {INITIALIZING_TIMEOUT_ANNOTATION: value}
    return service


declare(
    id="rayservice-initializing-timeout-invalid",
    title="Invalid ray.io/initializing-timeout annotation",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-03", "RS-04", "RS-05", "WH-04"),
    enforced_by=("operator", "RayService webhook"),
    rationale="The annotation must be a positive Go duration or a positive integer of seconds; anything else fails RayService validation.",
    fix="Use a Go duration like '30m' or '1h', or a positive number of seconds like '1800'.",
    check=_check_initializing_timeout,
    compliant=_with_timeout("30m"),
    violating=_with_timeout("30 minutes"),
    violating_path="metadata.annotations[\"ray.io/initializing-timeout\"]",
    fixed=patch({'metadata.annotations["ray.io/initializing-timeout"]': "30m"}),
)


# ----------------------------------------------------------------------------------------------------
# RS-06 .. RS-10: spec


def _check_k8s_token_auth(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = service_spec(manifest)
    if spec is None:
        return
    if get(service_cluster(spec), "authOptions", "enableK8sTokenAuth") is True:
        yield Violation(
            "authOptions.enableK8sTokenAuth is not supported for RayService clusters",
            "spec.rayClusterConfig.authOptions.enableK8sTokenAuth",
        )


def _with_auth(auth: dict[str, Any]) -> dict[str, Any]:
    service = example_service()
    set_ray_version(service["spec"]["rayClusterConfig"], "2.55.0")
    service["spec"]["rayClusterConfig"]["authOptions"] = auth
    return service


declare(
    id="rayservice-k8s-token-auth",
    title="Kubernetes token auth in a RayService cluster",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-06",),
    enforced_by=("operator",),
    since="1.6",
    rationale="The operator's Serve health checks and config PUTs cannot present a Kubernetes token; it rejects enableK8sTokenAuth in RayServices.",
    fix="Use authOptions.mode: token without enableK8sTokenAuth.",
    check=_check_k8s_token_auth,
    compliant=_with_auth({"mode": "token"}),
    violating=_with_auth({"mode": "token", "enableK8sTokenAuth": True}),
    violating_path="spec.rayClusterConfig.authOptions.enableK8sTokenAuth",
    fixed=patch({"spec.rayClusterConfig.authOptions.enableK8sTokenAuth": REMOVE}),
    cel=Cel('!has(object.spec) || !has(object.spec.rayClusterConfig) || !has(object.spec.rayClusterConfig.authOptions) || !has(object.spec.rayClusterConfig.authOptions.enableK8sTokenAuth) || !object.spec.rayClusterConfig.authOptions.enableK8sTokenAuth', path="spec.rayClusterConfig.authOptions.enableK8sTokenAuth"),
)


def _check_head_service_name(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = service_spec(manifest)
    if spec is None:
        return
    name = get(service_cluster(spec), "headGroupSpec", "headService", "metadata", "name")
    if isinstance(name, str) and name:
        yield Violation(
            f"headGroupSpec.headService.metadata.name is {name!r}; a RayService names its head Services itself (one per cluster during upgrades)",
            "spec.rayClusterConfig.headGroupSpec.headService.metadata.name",
        )


def _with_head_service(metadata: dict[str, Any]) -> dict[str, Any]:
    service = example_service()
    service["spec"]["rayClusterConfig"]["headGroupSpec"]["headService"] = {"metadata": metadata}
    return service


declare(
    id="rayservice-head-service-name-set",
    title="Custom head Service name in a RayService",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-08",),
    enforced_by=("operator",),
    rationale="Old and new clusters coexist during a zero-downtime upgrade, so a fixed head Service name would collide; the operator rejects it.",
    fix="Remove headService.metadata.name (labels and annotations are fine).",
    check=_check_head_service_name,
    compliant=_with_head_service({"labels": {"team": "ml"}}),
    violating=_with_head_service({"name": "my-head-svc"}),
    violating_path="spec.rayClusterConfig.headGroupSpec.headService.metadata.name",
    fixed=patch(
        {
            "spec.rayClusterConfig.headGroupSpec.headService.metadata.name": REMOVE,
            "spec.rayClusterConfig.headGroupSpec.headService.metadata.labels": {"team": "ml"},
        }
    ),
    cel=Cel("!has(object.spec) || !has(object.spec.rayClusterConfig) || !has(object.spec.rayClusterConfig.headGroupSpec) || !has(object.spec.rayClusterConfig.headGroupSpec.headService) || !has(object.spec.rayClusterConfig.headGroupSpec.headService.metadata) || !has(object.spec.rayClusterConfig.headGroupSpec.headService.metadata.name) || object.spec.rayClusterConfig.headGroupSpec.headService.metadata.name == ''", path="spec.rayClusterConfig.headGroupSpec.headService.metadata.name"),
)


def _check_upgrade_type(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = service_spec(manifest)
    if spec is None:
        return
    kind = upgrade_type(spec)
    if not isinstance(kind, str) or as_str(kind) is None:
        return
    if kind not in UPGRADE_TYPES:
        close = [t for t in UPGRADE_TYPES if t.lower() == kind.lower()]
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        yield Violation(
            f"upgradeStrategy.type {kind!r} is not one of {', '.join(UPGRADE_TYPES)}{hint}",
            "spec.upgradeStrategy.type",
        )


declare(
    id="rayservice-upgrade-type-invalid",
    title="Unknown RayService upgradeStrategy.type",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-09",),
    enforced_by=("operator",),
    rationale="The CRD has no enum for this field, but the operator only accepts NewCluster, NewClusterWithIncrementalUpgrade and None.",
    fix="Use NewCluster (zero-downtime, default) or NewClusterWithIncrementalUpgrade.",
    check=_check_upgrade_type,
    compliant=example_service(upgradeStrategy={"type": "NewCluster"}),
    violating=example_service(upgradeStrategy={"type": "Recreate"}),
    violating_path="spec.upgradeStrategy.type",
    fixed=patch({"spec.upgradeStrategy.type": "NewCluster"}),
    cel=Cel("!has(object.spec) || !has(object.spec.upgradeStrategy) || !has(object.spec.upgradeStrategy.type) || object.spec.upgradeStrategy.type in ['NewClusterWithIncrementalUpgrade', 'NewCluster', 'None']", path="spec.upgradeStrategy.type"),
)


def _check_deletion_delay(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = service_spec(manifest)
    delay = as_int(spec.get("rayClusterDeletionDelaySeconds")) if spec else None
    if delay is not None and delay < 0:
        yield Violation(
            f"rayClusterDeletionDelaySeconds is {delay}; it must be >= 0",
            "spec.rayClusterDeletionDelaySeconds",
        )


declare(
    id="rayservice-deletion-delay-negative",
    title="Negative rayClusterDeletionDelaySeconds",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-10",),
    enforced_by=("operator",),
    rationale="The CRD minimum is 0 and the operator rejects negative delays.",
    fix="Use 0 or a positive number of seconds (default 60).",
    check=_check_deletion_delay,
    compliant=example_service(rayClusterDeletionDelaySeconds=60),
    violating=example_service(rayClusterDeletionDelaySeconds=-1),
    violating_path="spec.rayClusterDeletionDelaySeconds",
    fixed=patch({"spec.rayClusterDeletionDelaySeconds": 60}),
)
