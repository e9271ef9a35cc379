"""KubeRay v1.7.0 operator validation of RayClusterSpec (reference section 8.1, RC-01..RC-85), as rules.

Each rule runs over EVERY embedded RayClusterSpec (RayCluster ``spec``, RayJob ``spec.rayClusterSpec``,
RayService ``spec.rayClusterConfig``, RayCronJob ``spec.jobTemplate.rayClusterSpec``), using the
parent's annotations as the operator does. Rules the operator added in v1.6/v1.7 only apply when
targeting that version or later. The feature-gate rows (RC-27, RC-38, RC-46, RC-67, RC-76) live in
``versions.py`` (``feature-gate-disabled``). Values Pulumi has not computed yet (None / the unknown
sentinel) are never judged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ._engine import KINDS, Context, Rule, Severity, Violation, register
from ._paths import (
    ClusterSpecRef,
    GroupRef,
    as_dict,
    as_int,
    as_list,
    as_str,
    cluster_specs,
    containers,
    env_list,
    env_var,
    get,
    group_template,
    groups,
    head_group,
    head_ray_container,
    head_template,
    is_unknown,
    join,
    metadata,
    parse_generic_version,
    ray_container,
    volume_mounts,
    worker_groups,
)

Check = Callable[[dict[str, Any], Context], Iterator[Violation]]

FT_ENABLED_ANNOTATION = "ray.io/ft-enabled"
EXTERNAL_STORAGE_NS_ANNOTATION = "ray.io/external-storage-namespace"
ORIGINATED_FROM_CRD_LABEL = "ray.io/originated-from-crd"
MAX_RAYCLUSTER_NAME = 53
AUTOSCALER_V2_ENV = "RAY_enable_autoscaler_v2"
HISTORY_COLLECTOR_CONTAINER = "ray-history-collector"
TLS_ENV_VARS = ("RAY_USE_TLS", "RAY_TLS_SERVER_CERT", "RAY_TLS_SERVER_KEY", "RAY_TLS_CA_CERT")
TLS_VOLUME = "ray-tls"
TLS_MOUNT_PATH = "/etc/ray/tls"

_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


# --------------------------------------------------------------------------------------------------
# Small predicates shared by the rules (each mirrors a KubeRay helper)


def annotation_path(key: str) -> str:
    return f'metadata.annotations["{key}"]'


def _is_dns1035(name: str) -> bool:
    return len(name) <= 63 and bool(_DNS1035.match(name))


def _is_dns1123_label(name: str) -> bool:
    return len(name) <= 63 and bool(_DNS1123_LABEL.match(name))


def _qualified_name_error(key: str) -> str | None:
    """Like k8s ``IsQualifiedName``: optional DNS-1123 subdomain prefix + '/' + name of at most 63 chars."""
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > 253 or not _DNS1123_SUBDOMAIN.match(prefix):
            return "prefix part must be a lowercase DNS-1123 subdomain"
    else:
        return "a qualified name may contain at most one '/'"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _QUALIFIED_NAME_PART.match(name):
        return (
            "name part must consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric"
        )
    return None


def _label_value_error(value: str) -> str | None:
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _LABEL_VALUE.match(value):
        return "must be empty or alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric"
    return None


def _set(value: Any) -> bool:
    """Go's ``!= ""`` / ``!= nil`` on a known value (unknown values count as not set: never judged)."""
    if is_unknown(value):
        return False
    return bool(value != "" and value != [] and value != {})


def _flag(obj: Mapping[str, Any], key: str) -> bool | None:
    """A bool field: False when absent, None when unknown/not a bool."""
    if key not in obj:
        return False
    value = obj[key]
    return value if isinstance(value, bool) else None


def autoscaling_enabled(ref: ClusterSpecRef) -> bool | None:
    return _flag(ref.spec, "enableInTreeAutoscaling")


def _head_env(ref: ClusterSpecRef, name: str) -> tuple[str, dict[str, Any]] | None:
    found = head_ray_container(ref)
    if found is None:
        return None
    path, container = found
    return env_var(container, name, path)


def autoscaler_v2_enabled(ref: ClusterSpecRef) -> bool | None:
    """KubeRay ``IsAutoscalingV2Enabled``: explicit ``version: v2``, else the head env var."""
    options = ref.spec.get("autoscalerOptions")
    if isinstance(options, dict) and "version" in options:
        version = options["version"]
        if version is not None:
            return version == "v2" if isinstance(version, str) and not is_unknown(version) else None
    elif options is not None and not isinstance(options, dict):
        return None
    env = _head_env(ref, AUTOSCALER_V2_ENV)
    if env is None:
        return False
    value = env[1].get("value")
    if value is not None and is_unknown(value):
        return None
    return value in ("1", "true")


def gcs_ft_enabled(ref: ClusterSpecRef) -> bool:
    """KubeRay ``IsGCSFaultToleranceEnabled``: options set, or annotation ``ray.io/ft-enabled`` is true."""
    if ref.spec.get("gcsFaultToleranceOptions") is not None:
        return True
    value = as_str(ref.annotations.get(FT_ENABLED_ANNOTATION))
    return value is not None and value.lower() == "true"


def ft_options(ref: ClusterSpecRef) -> dict[str, Any] | None:
    options = ref.spec.get("gcsFaultToleranceOptions")
    return options if isinstance(options, dict) else None


def rocksdb_backend(ref: ClusterSpecRef) -> bool:
    options = ft_options(ref)
    return options is not None and options.get("backend") == "rocksdb"


def _ray_version(ref: ClusterSpecRef) -> tuple[str, tuple[int, ...] | None] | None:
    """(rayVersion text, parsed) ; None when unknown. Empty text when absent."""
    value = ref.spec.get("rayVersion")
    if "rayVersion" in ref.spec and is_unknown(value):
        return None
    if value is None:
        return "", None
    if not isinstance(value, str):
        return None
    return value, parse_generic_version(value) if value else None


def _env_names(entries: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, tuple[str, dict[str, Any]]]:
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for path, entry in entries:
        out.setdefault(entry["name"], (path, entry))
    return out


# --------------------------------------------------------------------------------------------------
# Example manifests (data): a small realistic RayCluster, mutated per rule


def base_cluster() -> dict[str, Any]:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "raycluster-demo"},
        "spec": {
            "rayVersion": "2.52.0",
            "headGroupSpec": {
                "rayStartParams": {},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-head",
                                "image": "rayproject/ray:2.52.0",
                                "resources": {
                                    "limits": {"cpu": "1", "memory": "4Gi"},
                                    "requests": {"cpu": "1", "memory": "4Gi"},
                                },
                                "ports": [
                                    {"containerPort": 6379, "name": "gcs-server"},
                                    {"containerPort": 8265, "name": "dashboard"},
                                    {"containerPort": 10001, "name": "client"},
                                ],
                            }
                        ]
                    }
                },
            },
            "workerGroupSpecs": [
                {
                    "groupName": "workergroup",
                    "replicas": 1,
                    "minReplicas": 1,
                    "maxReplicas": 5,
                    "rayStartParams": {},
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "ray-worker",
                                    "image": "rayproject/ray:2.52.0",
                                    "resources": {
                                        "limits": {"cpu": "1", "memory": "2Gi"},
                                        "requests": {"cpu": "1", "memory": "2Gi"},
                                    },
                                }
                            ]
                        }
                    },
                }
            ],
        },
    }


def example(mutate: Callable[[dict[str, Any]], Any] | None = None) -> dict[str, Any]:
    """A fresh base RayCluster, optionally changed in place by ``mutate(doc)``."""
    doc = base_cluster()
    if mutate is not None:
        mutate(doc)
    return doc


def _spec(doc: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = doc["spec"]
    return spec


def _head(doc: dict[str, Any]) -> dict[str, Any]:
    head: dict[str, Any] = doc["spec"]["headGroupSpec"]
    return head


def _worker(doc: dict[str, Any], i: int = 0) -> dict[str, Any]:
    worker: dict[str, Any] = doc["spec"]["workerGroupSpecs"][i]
    return worker


def _head_container(doc: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = _head(doc)["template"]["spec"]["containers"][0]
    return container


def _worker_container(doc: dict[str, Any], i: int = 0) -> dict[str, Any]:
    container: dict[str, Any] = _worker(doc, i)["template"]["spec"]["containers"][0]
    return container


def _add_env(container: dict[str, Any], name: str, value: str) -> dict[str, Any]:
    container.setdefault("env", []).append({"name": name, "value": value})
    return container


def _annotate(doc: dict[str, Any], key: str, value: str) -> dict[str, Any]:
    doc["metadata"].setdefault("annotations", {})[key] = value
    return doc


# --------------------------------------------------------------------------------------------------
# Registration helper


def _rule(
    rule_id: str,
    title: str,
    rows: tuple[str, ...],
    rationale: str,
    fix: str,
    check: Check,
    compliant: dict[str, Any],
    violating: dict[str, Any],
    *,
    severity: Severity = "critical",
    kinds: tuple[str, ...] = KINDS,
    context: Mapping[str, Any] | None = None,
) -> Rule:
    return register(
        Rule(
            id=rule_id,
            title=title,
            severity=severity,
            category="correctness",
            rationale=rationale,
            fix=fix,
            kinds=kinds,
            check=check,
            compliant=compliant,
            violating=violating,
            operator_rules=rows,
            context=dict(context or {}),
        )
    )


def _where(ref: ClusterSpecRef) -> str:
    """How the operator reports an embedded spec (so users recognise the event/status message)."""
    return {
        "RayJob": " (reported as 'The RayJob spec is invalid')",
        "RayService": " (reported as 'The RayService spec is invalid')",
        "RayCronJob": " (reported as 'invalid RayJob template')",
    }.get(ref.kind, "")


# --------------------------------------------------------------------------------------------------
# RC-01, RC-02: RayCluster metadata.name


def _check_cluster_name(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    name = as_str(metadata(doc).get("name"))
    if name is None:
        return
    if len(name) > MAX_RAYCLUSTER_NAME and ctx.at_least(1, 4):
        yield Violation(
            f"RayCluster name {name!r} has {len(name)} characters; KubeRay allows at most "
            f"{MAX_RAYCLUSTER_NAME}",
            "metadata.name",
        )
    elif not _is_dns1035(name):
        yield Violation(
            f"RayCluster name {name!r} is not a valid DNS-1035 label (lower-case letters, digits and '-', "
            "starting with a letter and ending with a letter or digit)",
            "metadata.name",
        )


_rule(
    "cluster-name-invalid",
    "RayCluster name too long or not a DNS-1035 label",
    ("RC-01", "RC-02"),
    "The operator refuses to reconcile a RayCluster whose name is longer than 53 characters or not a "
    "DNS-1035 "
    "label (Pod and Service names are derived from it); only an InvalidRayClusterMetadata event shows it.",
    "Use a lower-case name of at most 53 characters that starts with a letter, e.g. 'raycluster-demo'.",
    _check_cluster_name,
    example(),
    example(lambda d: d["metadata"].update(name="RayCluster_Demo")),
    kinds=("RayCluster",),
)


# --------------------------------------------------------------------------------------------------
# RC-03, RC-04: upgradeStrategy


def _check_upgrade_type(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 6):
        return
    for ref in cluster_specs(doc):
        value = get(ref.spec, "upgradeStrategy", "type")
        if isinstance(value, str) and not is_unknown(value) and value not in ("Recreate", "None"):
            yield Violation(
                f"upgradeStrategy.type {value!r} is invalid; valid options are Recreate or None{_where(ref)}",
                ref.path("upgradeStrategy", "type"),
            )


_rule(
    "cluster-upgrade-strategy-invalid",
    "RayCluster upgradeStrategy.type is not Recreate or None",
    ("RC-03",),
    "The operator only knows the Recreate and None upgrade strategies for a RayCluster and rejects others.",
    "Set upgradeStrategy.type to 'Recreate' (recreate all Pods on spec changes) or 'None'.",
    _check_upgrade_type,
    example(lambda d: _spec(d).update(upgradeStrategy={"type": "Recreate"})),
    example(lambda d: _spec(d).update(upgradeStrategy={"type": "RollingUpdate"})),
)


def _check_upgrade_in_child(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 6):
        return
    for ref in cluster_specs(doc):
        strategy = ref.spec.get("upgradeStrategy")
        if not isinstance(strategy, dict) or strategy.get("type") is None:
            continue
        origin = as_str(ref.labels.get(ORIGINATED_FROM_CRD_LABEL))
        if ref.embedded:
            owner = ref.kind
        elif origin in ("RayJob", "RayService"):
            owner = origin
        else:
            continue
        yield Violation(
            f"upgradeStrategy cannot be set on a RayCluster created by a {owner}: the operator never "
            "reconciles "
            "that cluster, so the parent waits forever",
            ref.path("upgradeStrategy"),
            fix=f"Remove upgradeStrategy from the {owner}'s cluster spec (a {owner} manages upgrades "
            "itself).",
        )


def _rayjob(cluster_spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {"name": "rayjob-demo"},
        "spec": {
            "entrypoint": "python -c 'import ray; ray.init()'",
            "shutdownAfterJobFinishes": True,
            "rayClusterSpec": cluster_spec,
        },
    }


_rule(
    "cluster-upgrade-strategy-in-child",
    "upgradeStrategy set on a cluster created by a RayJob/RayService",
    ("RC-04",),
    "A RayCluster created by a RayJob or RayService must not carry upgradeStrategy: the operator rejects the "
    "child cluster and never reconciles it.",
    "Remove upgradeStrategy from rayClusterSpec / rayClusterConfig.",
    _check_upgrade_in_child,
    _rayjob(base_cluster()["spec"]),
    _rayjob({**base_cluster()["spec"], "upgradeStrategy": {"type": "Recreate"}}),
)


# --------------------------------------------------------------------------------------------------
# RC-05..RC-08: group resources and labels

_RESOURCE_PARAMS = ("num-cpus", "num-gpus", "memory", "resources")


def _check_group_resources(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        for group in groups(ref):
            params = as_dict(group.spec.get("rayStartParams"))
            resources = group.spec.get("resources")
            clash = [k for k in _RESOURCE_PARAMS if _set(params.get(k))]
            if clash and isinstance(resources, dict) and resources:
                yield Violation(
                    f"{group.name} group sets resources both in rayStartParams ({', '.join(clash)}) and in "
                    f"resources{_where(ref)}",
                    join(group.path, "resources"),
                    fix=f"Keep only one: remove rayStartParams {', '.join(clash)} or the group's resources "
                    "map.",
                )


_rule(
    "group-resources-conflict",
    "Ray resources set both in rayStartParams and in the group resources map",
    ("RC-05",),
    "The operator rejects a group that declares num-cpus/num-gpus/memory/resources in rayStartParams and "
    "also "
    "uses the v1.5 group 'resources' map.",
    "Declare Ray logical resources in one place: preferably the group 'resources' map.",
    _check_group_resources,
    example(lambda d: _worker(d).update(resources={"CPU": "1", "TPU": "4"})),
    example(lambda d: _worker(d).update(rayStartParams={"num-cpus": "1"}, resources={"TPU": "4"})),
)


def _check_start_params_labels(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        for group in groups(ref):
            params = group.spec.get("rayStartParams")
            if isinstance(params, dict) and "labels" in params:
                yield Violation(
                    f"rayStartParams['labels'] is not supported for the {group.name} group{_where(ref)}",
                    join(group.path, "rayStartParams", "labels"),
                )


_rule(
    "ray-start-params-labels",
    "rayStartParams.labels is not supported",
    ("RC-06",),
    "Since KubeRay 1.5 Ray node labels go in the group's top-level 'labels' field; the operator rejects "
    "rayStartParams['labels'].",
    "Move the labels to the group's 'labels' map (key: value) and remove rayStartParams.labels.",
    _check_start_params_labels,
    example(lambda d: _worker(d).update(labels={"ray.io/market-type": "spot"})),
    example(lambda d: _worker(d)["rayStartParams"].update(labels="ray.io/market-type=spot")),
)


def _check_group_labels(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        for group in groups(ref):
            group_labels = group.spec.get("labels")
            if not isinstance(group_labels, dict):
                continue
            for key, value in group_labels.items():
                path = f'{join(group.path, "labels")}["{key}"]'
                key_error = _qualified_name_error(key) if isinstance(key, str) else "must be a string"
                if key_error:
                    yield Violation(
                        f"invalid label key {key!r} for the {group.name} group: {key_error}{_where(ref)}",
                        path,
                        fix="Use a Kubernetes label key such as 'ray.io/accelerator-type' or 'zone'.",
                    )
                if isinstance(value, str) and not is_unknown(value):
                    value_error = _label_value_error(value)
                    if value_error:
                        yield Violation(
                            f"invalid label value {value!r} for key {key!r} in the {group.name} group: "
                            f"{value_error}{_where(ref)}",
                            path,
                            fix="Use a Kubernetes label value: at most 63 alphanumerics, '-', '_' or '.'.",
                        )


_rule(
    "group-labels-invalid",
    "Group label key or value is not valid Kubernetes label syntax",
    ("RC-07", "RC-08"),
    "Group labels become Ray node labels and Pod labels; the operator rejects keys/values that are not valid "
    "Kubernetes label syntax.",
    "Use valid Kubernetes label keys (optional DNS prefix + '/' + name) and values (<= 63 chars).",
    _check_group_labels,
    example(lambda d: _worker(d).update(labels={"ray.io/accelerator-type": "A100"})),
    example(lambda d: _worker(d).update(labels={"accelerator type": "A100/80GB"})),
)


# --------------------------------------------------------------------------------------------------
# RC-09, RC-10: containers


def _containers_missing(group: GroupRef) -> bool:
    """True when the group's pod template certainly has no container (absent or empty list)."""
    cur: Any = group.spec
    for key in ("template", "spec", "containers"):
        if key not in cur:
            return True
        cur = cur[key]
        if key == "containers":
            return bool(cur == [])
        if not isinstance(cur, dict):
            return False  # unknown or wrong type: the schema rules report a wrong type
    return False


def _check_no_containers(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        for group in groups(ref):
            if _containers_missing(group):
                what = "headGroupSpec" if group.role == "head" else f"workerGroupSpec {group.name!r}"
                yield Violation(
                    f"{what} should have at least one container{_where(ref)}",
                    join(group.path, "template", "spec", "containers"),
                    fix="Add the Ray container as containers[0] (name, image, resources).",
                )


_rule(
    "pod-template-no-containers",
    "Head or worker pod template has no container",
    ("RC-09", "RC-10"),
    "containers[0] is the Ray container; the operator rejects a head or worker template without containers.",
    "Give every group template at least one container; the first one runs Ray.",
    _check_no_containers,
    example(),
    example(lambda d: _worker(d)["template"]["spec"].update(containers=[])),
)


# --------------------------------------------------------------------------------------------------
# RC-12..RC-14: replicas

_INT32_MAX = 2147483647


def _replica_bound(group: GroupRef, key: str, default: int) -> int | None:
    if key not in group.spec:
        return default
    return as_int(group.spec[key])


def _check_replicas_negative(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    severity: Severity | None = None if ctx.at_least(1, 6) else "high"
    for ref in cluster_specs(doc):
        for group in worker_groups(ref):
            for key in ("minReplicas", "maxReplicas"):
                value = _replica_bound(group, key, 0)
                if value is not None and value < 0:
                    yield Violation(
                        f"worker group {group.name!r} has negative {key} ({value}){_where(ref)}",
                        join(group.path, key),
                        fix=f"Set {key} to 0 or more.",
                        severity=severity,
                    )


_rule(
    "worker-replicas-negative",
    "Worker group minReplicas or maxReplicas is negative",
    ("RC-12", "RC-13"),
    "Replica bounds must be non-negative; the operator (v1.6+) rejects negative values.",
    "Use minReplicas >= 0 and maxReplicas >= 0.",
    _check_replicas_negative,
    example(),
    example(lambda d: _worker(d).update(minReplicas=-1)),
)


def _check_min_exceeds_max(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    severity: Severity | None = None if ctx.at_least(1, 6) else "high"
    for ref in cluster_specs(doc):
        for group in worker_groups(ref):
            low = _replica_bound(group, "minReplicas", 0)
            high = _replica_bound(group, "maxReplicas", _INT32_MAX)
            if low is not None and high is not None and low > high:
                yield Violation(
                    f"worker group {group.name!r}: minReplicas ({low}) > maxReplicas ({high}){_where(ref)}",
                    join(group.path, "minReplicas"),
                    fix=f"Lower minReplicas to at most {high} or raise maxReplicas to at least {low}.",
                    severity=severity,
                )


_rule(
    "worker-min-exceeds-max",
    "Worker group minReplicas greater than maxReplicas",
    ("RC-14",),
    "The replica range is empty; the operator (v1.6+) rejects the cluster.",
    "Make minReplicas <= maxReplicas.",
    _check_min_exceeds_max,
    example(),
    example(lambda d: _worker(d).update(minReplicas=4, maxReplicas=2, replicas=2)),
)


# --------------------------------------------------------------------------------------------------
# RC-15, RC-16: worker idleTimeoutSeconds


def _check_idle_timeout_negative(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 6):
        return
    for ref in cluster_specs(doc):
        for group in worker_groups(ref):
            value = as_int(group.spec.get("idleTimeoutSeconds"))
            if value is not None and value < 0:
                yield Violation(
                    f"worker group {group.name!r}: idleTimeoutSeconds ({value}) must be "
                    f"non-negative{_where(ref)}",
                    join(group.path, "idleTimeoutSeconds"),
                )


_v2 = {"version": "v2"}


def _autoscaling_v2(d: dict[str, Any]) -> dict[str, Any]:
    _spec(d).update(enableInTreeAutoscaling=True, autoscalerOptions=dict(_v2))
    return d


_rule(
    "worker-idle-timeout-negative",
    "Worker group idleTimeoutSeconds is negative",
    ("RC-15",),
    "The operator rejects a negative per-group idle timeout.",
    "Set idleTimeoutSeconds to 0 or more (seconds), or remove it to use "
    "autoscalerOptions.idleTimeoutSeconds.",
    _check_idle_timeout_negative,
    example(lambda d: (_autoscaling_v2(d), _worker(d).update(idleTimeoutSeconds=120))),
    example(lambda d: (_autoscaling_v2(d), _worker(d).update(idleTimeoutSeconds=-5))),
)


def _check_idle_timeout_needs_v2(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 6):
        return
    for ref in cluster_specs(doc):
        v2 = autoscaler_v2_enabled(ref)
        if v2 is not False:
            continue
        for group in worker_groups(ref):
            if group.spec.get("idleTimeoutSeconds") is not None:
                yield Violation(
                    f"worker group {group.name!r} sets idleTimeoutSeconds but autoscaler v2 is not enabled"
                    f"{_where(ref)}",
                    join(group.path, "idleTimeoutSeconds"),
                )


_rule(
    "worker-idle-timeout-requires-autoscaler-v2",
    "Per-group idleTimeoutSeconds without autoscaler v2",
    ("RC-16",),
    "Per-group idle timeouts are only implemented by autoscaler v2; the operator rejects them otherwise.",
    "Set spec.autoscalerOptions.version: v2 (with enableInTreeAutoscaling: true), or remove "
    "idleTimeoutSeconds.",
    _check_idle_timeout_needs_v2,
    example(lambda d: (_autoscaling_v2(d), _worker(d).update(idleTimeoutSeconds=120))),
    example(
        lambda d: (_spec(d).update(enableInTreeAutoscaling=True), _worker(d).update(idleTimeoutSeconds=120))
    ),
)


# --------------------------------------------------------------------------------------------------
# RC-17..RC-20: worker priority

_PRIORITY_MIN_RAY = (2, 56, 0)


def _check_priority(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 7):
        return
    for ref in cluster_specs(doc):
        prioritised = [g for g in worker_groups(ref) if (as_int(g.spec.get("priority")) or 0) != 0]
        if not prioritised:
            continue
        version = _ray_version(ref)
        v2 = autoscaler_v2_enabled(ref)
        for group in prioritised:
            path = join(group.path, "priority")
            if version is not None:
                text, parsed = version
                if not text:
                    yield Violation(
                        f"worker group {group.name!r} sets priority but rayVersion is missing; Ray >= 2.56.0 "
                        f"is required{_where(ref)}",
                        path,
                        fix="Set spec rayVersion (>= 2.56.0, matching the image) or remove priority.",
                    )
                elif parsed is None:
                    yield Violation(
                        f"worker group {group.name!r} sets priority but rayVersion {text!r} is not a valid "
                        f"version{_where(ref)}",
                        ref.path("rayVersion"),
                        fix="Set rayVersion to the image's Ray version, e.g. '2.56.0'.",
                    )
                elif parsed < _PRIORITY_MIN_RAY:
                    yield Violation(
                        f"worker group {group.name!r} sets priority, which needs Ray >= 2.56.0 (rayVersion "
                        "is "
                        f"{text}){_where(ref)}",
                        path,
                        fix="Upgrade to Ray >= 2.56.0 (image and rayVersion) or remove priority.",
                    )
            if v2 is False:
                yield Violation(
                    f"worker group {group.name!r} sets priority, which is only supported with autoscaler v2"
                    f"{_where(ref)}",
                    path,
                    fix="Set spec.autoscalerOptions.version: v2 (with enableInTreeAutoscaling: true), or "
                    "remove "
                    "priority.",
                )


def _priority_ok(d: dict[str, Any]) -> None:
    _autoscaling_v2(d)
    _spec(d)["rayVersion"] = "2.56.0"
    _worker(d)["priority"] = 10


_rule(
    "worker-priority-unsupported",
    "Worker group priority without Ray >= 2.56.0 and autoscaler v2",
    ("RC-17", "RC-18", "RC-19", "RC-20"),
    "Worker group priority (KubeRay 1.7) is implemented by autoscaler v2 in Ray >= 2.56.0; the operator "
    "rejects it when rayVersion is missing, invalid or older, or autoscaler v2 is off.",
    "Set rayVersion >= 2.56.0 and autoscalerOptions.version: v2, or remove priority.",
    _check_priority,
    example(_priority_ok),
    example(lambda d: _worker(d).update(priority=10)),
)


# --------------------------------------------------------------------------------------------------
# RC-21..RC-26, RC-37: GCS fault tolerance (redis)


def _check_ft_annotation_conflict(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if (
            _set(ref.annotations.get(FT_ENABLED_ANNOTATION))
            and ref.spec.get("gcsFaultToleranceOptions") is not None
        ):
            yield Violation(
                f"annotation {FT_ENABLED_ANNOTATION} and gcsFaultToleranceOptions are both set{_where(ref)}",
                annotation_path(FT_ENABLED_ANNOTATION),
                fix=f"Remove the {FT_ENABLED_ANNOTATION} annotation; gcsFaultToleranceOptions alone enables "
                "GCS FT.",
            )


def _redis_ft(d: dict[str, Any]) -> dict[str, Any]:
    _spec(d)["gcsFaultToleranceOptions"] = {
        "redisAddress": "redis:6379",
        "redisPassword": {
            "valueFrom": {"secretKeyRef": {"name": "redis-password-secret", "key": "password"}}
        },
    }
    return d


_rule(
    "gcs-ft-annotation-conflict",
    "Legacy ray.io/ft-enabled annotation together with gcsFaultToleranceOptions",
    ("RC-21",),
    "The legacy annotation and the gcsFaultToleranceOptions field cannot be combined; the operator rejects "
    "it.",
    "Use only gcsFaultToleranceOptions.",
    _check_ft_annotation_conflict,
    example(_redis_ft),
    example(lambda d: (_redis_ft(d), _annotate(d, FT_ENABLED_ANNOTATION, "true"))),
)


def _check_implicit_redis(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if gcs_ft_enabled(ref):
            continue
        env = _head_env(ref, "RAY_REDIS_ADDRESS")
        if env is not None:
            yield Violation(
                "head env RAY_REDIS_ADDRESS implicitly enables GCS fault tolerance, but "
                "gcsFaultToleranceOptions "
                f"is not set{_where(ref)}",
                env[0],
                fix="Remove the env var and set gcsFaultToleranceOptions.redisAddress instead.",
            )


_rule(
    "gcs-ft-implicit-redis-address",
    "RAY_REDIS_ADDRESS env without gcsFaultToleranceOptions",
    ("RC-22",),
    "Setting RAY_REDIS_ADDRESS on the head turns on GCS FT behind KubeRay's back; the operator rejects it.",
    "Configure GCS FT with gcsFaultToleranceOptions.redisAddress.",
    _check_implicit_redis,
    example(_redis_ft),
    example(lambda d: _add_env(_head_container(d), "RAY_REDIS_ADDRESS", "redis:6379")),
)


def _check_ft_legacy_settings(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if ref.spec.get("gcsFaultToleranceOptions") is None:
            continue
        head = head_group(ref)
        params = as_dict(head.spec.get("rayStartParams")) if head else {}
        if _set(params.get("redis-password")) and head is not None:
            yield Violation(
                f"rayStartParams redis-password cannot be set with gcsFaultToleranceOptions{_where(ref)}",
                join(head.path, "rayStartParams", "redis-password"),
                fix="Remove it and use gcsFaultToleranceOptions.redisPassword (valueFrom a Secret).",
            )
        for name, field in (("REDIS_PASSWORD", "redisPassword"), ("RAY_REDIS_ADDRESS", "redisAddress")):
            env = _head_env(ref, name)
            if env is not None:
                yield Violation(
                    f"head env {name} cannot be set with gcsFaultToleranceOptions{_where(ref)}",
                    env[0],
                    fix=f"Remove the env var and use gcsFaultToleranceOptions.{field}.",
                )
        if _set(ref.annotations.get(EXTERNAL_STORAGE_NS_ANNOTATION)):
            yield Violation(
                f"annotation {EXTERNAL_STORAGE_NS_ANNOTATION} cannot be used with gcsFaultToleranceOptions"
                f"{_where(ref)}",
                annotation_path(EXTERNAL_STORAGE_NS_ANNOTATION),
                fix="Remove the annotation and use gcsFaultToleranceOptions.externalStorageNamespace.",
            )


_rule(
    "gcs-ft-legacy-settings-conflict",
    "Legacy Redis settings together with gcsFaultToleranceOptions",
    ("RC-23", "RC-24", "RC-25", "RC-26"),
    "With gcsFaultToleranceOptions the operator manages redis-password, REDIS_PASSWORD, RAY_REDIS_ADDRESS "
    "and the external storage namespace; setting them by hand is rejected.",
    "Move the values into gcsFaultToleranceOptions (redisPassword, redisAddress, externalStorageNamespace).",
    _check_ft_legacy_settings,
    example(_redis_ft),
    example(
        lambda d: (_redis_ft(d), _head(d)["rayStartParams"].update({"redis-password": "5241590000000000"}))
    ),
)


def _check_redis_username(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        head = head_group(ref)
        if head is None:
            continue
        if _set(as_dict(head.spec.get("rayStartParams")).get("redis-username")):
            yield Violation(
                f"redis username cannot be set in rayStartParams{_where(ref)}",
                join(head.path, "rayStartParams", "redis-username"),
            )
        env = _head_env(ref, "REDIS_USERNAME")
        if env is not None:
            yield Violation(f"redis username cannot be set as head env REDIS_USERNAME{_where(ref)}", env[0])


_rule(
    "redis-username-outside-options",
    "Redis username set in rayStartParams or env",
    ("RC-37",),
    "The operator only accepts the Redis username through gcsFaultToleranceOptions.redisUsername.",
    "Remove rayStartParams redis-username / env REDIS_USERNAME and set "
    "gcsFaultToleranceOptions.redisUsername.",
    _check_redis_username,
    example(
        lambda d: (_redis_ft(d), _spec(d)["gcsFaultToleranceOptions"].update(redisUsername={"value": "ray"}))
    ),
    example(lambda d: (_redis_ft(d), _add_env(_head_container(d), "REDIS_USERNAME", "ray"))),
)


# --------------------------------------------------------------------------------------------------
# RC-28..RC-36: GCS fault tolerance (rocksdb backend, v1.7)

_ROCKSDB_CONTEXT = {"feature_gates": {"GCSFaultToleranceEmbeddedStorage": True}}


def _rocksdb(d: dict[str, Any]) -> dict[str, Any]:
    _spec(d)["gcsFaultToleranceOptions"] = {"backend": "rocksdb", "storage": {"size": "1Gi"}}
    return d


def _check_rocksdb_conflicts(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 7):
        return
    for ref in cluster_specs(doc):
        options = ft_options(ref)
        if options is None or options.get("backend") != "rocksdb":
            continue
        for field in ("redisAddress", "redisUsername", "redisPassword", "externalStorageNamespace"):
            if _set(options.get(field)):
                yield Violation(
                    f"gcsFaultToleranceOptions.{field} cannot be set with the rocksdb backend{_where(ref)}",
                    ref.path("gcsFaultToleranceOptions", field),
                    fix=f"Remove {field} (it only applies to the redis backend).",
                )
        storage = as_dict(options.get("storage"))
        if _set(storage.get("claimName")):
            extra = [k for k in ("size", "storageClassName", "accessModes") if _set(storage.get(k))]
            if extra:
                yield Violation(
                    "gcsFaultToleranceOptions.storage.claimName is mutually exclusive with "
                    f"{', '.join(extra)}"
                    f"{_where(ref)}",
                    ref.path("gcsFaultToleranceOptions", "storage", "claimName"),
                    fix="Use an existing PVC (claimName only) or let KubeRay create one "
                    "(size/storageClassName/"
                    "accessModes), not both.",
                )


_rule(
    "gcs-ft-rocksdb-conflicts",
    "Redis settings or conflicting storage with the rocksdb GCS backend",
    ("RC-28", "RC-29", "RC-30", "RC-31", "RC-32"),
    "The embedded rocksdb backend has no Redis; Redis fields are rejected, and storage.claimName excludes "
    "the "
    "fields that describe an operator-managed PVC.",
    "Remove the Redis fields; use either storage.claimName or size/storageClassName/accessModes.",
    _check_rocksdb_conflicts,
    example(_rocksdb),
    example(lambda d: (_rocksdb(d), _spec(d)["gcsFaultToleranceOptions"].update(redisAddress="redis:6379"))),
    context=_ROCKSDB_CONTEXT,
)


def _check_rocksdb_managed(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 7):
        return
    for ref in cluster_specs(doc):
        if not rocksdb_backend(ref):
            continue
        found = head_ray_container(ref)
        if found is not None:
            cpath, container = found
            for name in ("RAY_gcs_storage", "RAY_gcs_storage_path"):
                env = env_var(container, name, cpath)
                if env is not None:
                    yield Violation(
                        f"head env {name} is managed by KubeRay with the rocksdb backend{_where(ref)}",
                        env[0],
                        fix=f"Remove env {name}.",
                    )
            for mpath, mount in volume_mounts(container, cpath):
                if mount.get("name") == "gcs-storage" or mount.get("mountPath") == "/data/gcs":
                    yield Violation(
                        "head volumeMount 'gcs-storage' / '/data/gcs' is managed by KubeRay with the rocksdb "
                        f"backend{_where(ref)}",
                        mpath,
                        fix="Remove the mount; KubeRay mounts the GCS storage at /data/gcs.",
                    )
        tpl = head_template(ref)
        if tpl is not None:
            for i, volume in enumerate(as_list(tpl.pod_spec.get("volumes"))):
                if isinstance(volume, dict) and volume.get("name") == "gcs-storage":
                    yield Violation(
                        "head volume 'gcs-storage' is managed by KubeRay with the rocksdb "
                        f"backend{_where(ref)}",
                        join(tpl.spec_path, "volumes", i),
                        fix="Remove the volume (use gcsFaultToleranceOptions.storage to configure it).",
                    )


_rule(
    "gcs-ft-rocksdb-managed-fields",
    "Head Pod sets env/volume that KubeRay manages for the rocksdb backend",
    ("RC-33", "RC-34", "RC-35"),
    "With backend rocksdb the operator injects RAY_gcs_storage(_path) and the 'gcs-storage' volume at "
    "/data/gcs; "
    "user-defined ones are rejected.",
    "Remove those env vars, mounts and volumes from the head Pod.",
    _check_rocksdb_managed,
    example(_rocksdb),
    example(lambda d: (_rocksdb(d), _add_env(_head_container(d), "RAY_gcs_storage", "rocksdb"))),
    context=_ROCKSDB_CONTEXT,
)


def _check_storage_needs_rocksdb(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 7):
        return
    for ref in cluster_specs(doc):
        options = ft_options(ref)
        if options is None or options.get("storage") is None:
            continue
        if "backend" in options and is_unknown(options["backend"]):
            continue
        backend = options.get("backend")
        if backend is None or backend in ("", "redis"):
            yield Violation(
                f"gcsFaultToleranceOptions.storage only applies to the rocksdb backend (backend is "
                f"{backend or 'redis (default)'}){_where(ref)}",
                ref.path("gcsFaultToleranceOptions", "storage"),
                fix="Remove storage, or set backend: rocksdb (needs the GCSFaultToleranceEmbeddedStorage "
                "gate).",
            )


_rule(
    "gcs-ft-storage-requires-rocksdb",
    "gcsFaultToleranceOptions.storage with the redis backend",
    ("RC-36",),
    "storage configures the embedded rocksdb backend's PVC; with redis (the default) the operator rejects "
    "it.",
    "Remove storage or use backend: rocksdb.",
    _check_storage_needs_rocksdb,
    example(_redis_ft),
    example(lambda d: (_redis_ft(d), _spec(d)["gcsFaultToleranceOptions"].update(storage={"size": "1Gi"}))),
)


# --------------------------------------------------------------------------------------------------
# RC-39..RC-45: autoscaler


def _check_v2_env_without_autoscaling(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if autoscaling_enabled(ref) is not False:
            continue
        env = _head_env(ref, AUTOSCALER_V2_ENV)
        if env is not None and env[1].get("value") in ("1", "true"):
            yield Violation(
                f"head env {AUTOSCALER_V2_ENV}={env[1]['value']} but enableInTreeAutoscaling is "
                f"false{_where(ref)}",
                env[0],
                fix="Set enableInTreeAutoscaling: true with autoscalerOptions.version: v2, or remove the "
                "env var.",
            )


_rule(
    "autoscaler-v2-env-without-autoscaling",
    "RAY_enable_autoscaler_v2 set while autoscaling is disabled",
    ("RC-39",),
    "The env var cannot enable autoscaler v2 when the in-tree autoscaler is off; the operator rejects it.",
    "Enable autoscaling (enableInTreeAutoscaling: true, autoscalerOptions.version: v2) or drop the env var.",
    _check_v2_env_without_autoscaling,
    example(_autoscaling_v2),
    example(lambda d: _add_env(_head_container(d), AUTOSCALER_V2_ENV, "true")),
)


def _check_suspend_with_autoscaling(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if autoscaling_enabled(ref) is not True:
            continue
        for group in worker_groups(ref):
            if group.spec.get("suspend") is True:
                yield Violation(
                    f"worker group {group.name!r} cannot be suspended with the autoscaler "
                    f"enabled{_where(ref)}",
                    join(group.path, "suspend"),
                    fix="Remove workerGroupSpecs[].suspend (it is internal to RayJob DeleteWorkers) or "
                    "disable "
                    "autoscaling.",
                )


_rule(
    "worker-suspend-with-autoscaling",
    "Worker group suspended while autoscaling is enabled",
    ("RC-40",),
    "A suspended worker group conflicts with the autoscaler; the operator rejects it.",
    "Do not set workerGroupSpecs[].suspend when enableInTreeAutoscaling is true.",
    _check_suspend_with_autoscaling,
    example(_autoscaling_v2),
    example(lambda d: (_autoscaling_v2(d), _worker(d).update(suspend=True))),
)


def _check_version_and_env(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if autoscaling_enabled(ref) is not True:
            continue
        if get(ref.spec, "autoscalerOptions", "version") is None:
            continue
        env = _head_env(ref, AUTOSCALER_V2_ENV)
        if env is not None:
            yield Violation(
                f"both spec.autoscalerOptions.version and head env {AUTOSCALER_V2_ENV} are set{_where(ref)}",
                env[0],
                fix=f"Remove env {AUTOSCALER_V2_ENV}; autoscalerOptions.version alone selects the "
                "autoscaler.",
            )


_rule(
    "autoscaler-version-and-env-both-set",
    "autoscalerOptions.version and RAY_enable_autoscaler_v2 both set",
    ("RC-41",),
    "The operator accepts only one way to select the autoscaler version.",
    "Keep autoscalerOptions.version and remove the head env var.",
    _check_version_and_env,
    example(_autoscaling_v2),
    example(lambda d: (_autoscaling_v2(d), _add_env(_head_container(d), AUTOSCALER_V2_ENV, "true"))),
)


def _check_v2_restart_policy(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if autoscaling_enabled(ref) is not True or autoscaler_v2_enabled(ref) is not True:
            continue
        for group in groups(ref):
            tpl = group_template(group)
            if tpl is None:
                continue
            policy = as_str(tpl.pod_spec.get("restartPolicy"))
            if policy and policy != "Never":
                who = "head Pod" if group.role == "head" else f"worker group {group.name!r}"
                yield Violation(
                    f"restartPolicy for {who} is {policy!r}; it must be Never or unset with autoscaler v2"
                    f"{_where(ref)}",
                    join(tpl.spec_path, "restartPolicy"),
                    fix="Remove restartPolicy (the operator sets Never) or set it to Never.",
                )


_rule(
    "autoscaler-v2-restart-policy",
    "restartPolicy other than Never with autoscaler v2",
    ("RC-42", "RC-43"),
    "Autoscaler v2 replaces failed Pods itself; the operator rejects head/worker restartPolicy other than "
    "Never.",
    "Leave restartPolicy unset (or Never) on head and worker templates.",
    _check_v2_restart_policy,
    example(_autoscaling_v2),
    example(lambda d: (_autoscaling_v2(d), _worker(d)["template"]["spec"].update(restartPolicy="Always"))),
)


def _check_autoscaler_idle_negative(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 6):
        return
    for ref in cluster_specs(doc):
        value = as_int(get(ref.spec, "autoscalerOptions", "idleTimeoutSeconds"))
        if value is not None and value < 0:
            yield Violation(
                f"autoscalerOptions.idleTimeoutSeconds ({value}) must be non-negative{_where(ref)}",
                ref.path("autoscalerOptions", "idleTimeoutSeconds"),
            )


_rule(
    "autoscaler-idle-timeout-negative",
    "autoscalerOptions.idleTimeoutSeconds is negative",
    ("RC-44",),
    "The operator (v1.6+) rejects a negative autoscaler idle timeout.",
    "Set autoscalerOptions.idleTimeoutSeconds to 0 or more (default 60).",
    _check_autoscaler_idle_negative,
    example(lambda d: (_autoscaling_v2(d), _spec(d)["autoscalerOptions"].update(idleTimeoutSeconds=60))),
    example(lambda d: (_autoscaling_v2(d), _spec(d)["autoscalerOptions"].update(idleTimeoutSeconds=-1))),
)


def _check_autoscaler_managed_env(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 7):
        return
    for ref in cluster_specs(doc):
        options = ref.spec.get("autoscalerOptions")
        if not isinstance(options, dict):
            continue
        for path, entry in env_list(options, ref.path("autoscalerOptions")):
            if entry["name"] == "KUBERAY_GEN_AUTOSCALER_START_CMD":
                yield Violation(
                    "autoscalerOptions.env must not set KUBERAY_GEN_AUTOSCALER_START_CMD (managed by "
                    "KubeRay)"
                    f"{_where(ref)}",
                    path,
                    fix="Remove it; reference $(KUBERAY_GEN_AUTOSCALER_START_CMD) in autoscalerOptions.args "
                    "instead.",
                )


_rule(
    "autoscaler-managed-env",
    "autoscalerOptions.env sets KUBERAY_GEN_AUTOSCALER_START_CMD",
    ("RC-45",),
    "KubeRay generates KUBERAY_GEN_AUTOSCALER_START_CMD for the autoscaler container and rejects a user "
    "value.",
    "Remove the env entry.",
    _check_autoscaler_managed_env,
    example(
        lambda d: (
            _autoscaling_v2(d),
            _spec(d)["autoscalerOptions"].update(env=[{"name": "LOG", "value": "1"}]),
        )
    ),
    example(
        lambda d: (
            _autoscaling_v2(d),
            _spec(d)["autoscalerOptions"].update(
                env=[{"name": "KUBERAY_GEN_AUTOSCALER_START_CMD", "value": "ray kuberay-autoscaler"}]
            ),
        )
    ),
)


# --------------------------------------------------------------------------------------------------
# RC-47..RC-60: history server (v1.7, gate RayClusterHistoryServer)

_HISTORY_CONTEXT = {"feature_gates": {"RayClusterHistoryServer": True}}
_COLLECTOR_MANAGED_ENV = (
    "POD_IP",
    "FQ_RAY_IP",
    "RAY_CLUSTER_NAME",
    "RAY_CLUSTER_NAMESPACE",
    "RAY_ROLE",
    "OWNER_KIND",
    "OWNER_NAME",
    "EVENTS_PORT",
)


def _history_on(ref: ClusterSpecRef, ctx: Context) -> dict[str, Any] | None:
    """The historyServerOptions the operator validates: v1.7, gate on (else RC-46 fires first)."""
    if not ctx.at_least(1, 7) or not ctx.gate("RayClusterHistoryServer"):
        return None
    options = ref.spec.get("historyServerOptions")
    return options if isinstance(options, dict) else None


def _history(d: dict[str, Any], env: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    _spec(d)["historyServerOptions"] = {
        "collectorOptions": {
            "image": "rayproject/history-collector:v1.7.0",
            "env": env
            if env is not None
            else [
                {"name": "STORAGE_BACKEND", "value": "GCS"},
                {"name": "GCS_BUCKET", "value": "ray-history"},
            ],
        }
    }
    return d


def _check_collector_missing(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        options = _history_on(ref, ctx)
        if options is None:
            continue
        if "collectorOptions" not in options:
            yield Violation(
                f"historyServerOptions.collectorOptions must be set{_where(ref)}",
                ref.path("historyServerOptions", "collectorOptions"),
                fix="Add collectorOptions with image and env (STORAGE_BACKEND and the backend's variables).",
            )
            continue
        collector = options["collectorOptions"]
        if isinstance(collector, dict):
            image = collector.get("image")
            if "image" not in collector or image == "":
                yield Violation(
                    f"historyServerOptions.collectorOptions.image must be set{_where(ref)}",
                    ref.path("historyServerOptions", "collectorOptions", "image"),
                    fix="Set the history collector image.",
                )


_rule(
    "history-collector-options-missing",
    "historyServerOptions without collectorOptions or collector image",
    ("RC-47", "RC-48"),
    "The history server needs a collector sidecar; the operator rejects options without "
    "collectorOptions/image.",
    "Set historyServerOptions.collectorOptions.image (and env).",
    _check_collector_missing,
    example(_history),
    example(lambda d: _spec(d).update(historyServerOptions={"collectorOptions": {"env": []}})),
    context=_HISTORY_CONTEXT,
)


def _collector_env(
    ref: ClusterSpecRef, options: dict[str, Any]
) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    collector_path = ref.path("historyServerOptions", "collectorOptions")
    return collector_path, env_list(as_dict(options.get("collectorOptions")), collector_path)


def _check_collector_managed_env(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        options = _history_on(ref, ctx)
        if options is None:
            continue
        for path, entry in _collector_env(ref, options)[1]:
            if entry["name"] in _COLLECTOR_MANAGED_ENV:
                yield Violation(
                    f"collector env must not contain {entry['name']} (managed by KubeRay){_where(ref)}",
                    path,
                    fix=f"Remove env {entry['name']} from collectorOptions.env.",
                )


_rule(
    "history-collector-managed-env",
    "History collector env sets a variable KubeRay manages",
    ("RC-49",),
    "KubeRay injects POD_IP, FQ_RAY_IP, RAY_CLUSTER_NAME, RAY_CLUSTER_NAMESPACE, RAY_ROLE, OWNER_KIND, "
    "OWNER_NAME "
    "and EVENTS_PORT into the collector; user values are rejected.",
    "Remove those entries from collectorOptions.env.",
    _check_collector_managed_env,
    example(_history),
    example(
        lambda d: _history(
            d,
            [
                {"name": "STORAGE_BACKEND", "value": "GCS"},
                {"name": "GCS_BUCKET", "value": "ray-history"},
                {"name": "RAY_ROLE", "value": "head"},
            ],
        )
    ),
    context=_HISTORY_CONTEXT,
)


def _env_present(entry: tuple[str, dict[str, Any]] | None) -> bool:
    """Env entry with a value or a valueFrom (KubeRay's requirement for backend variables)."""
    if entry is None:
        return False
    body = entry[1]
    return _set(body.get("value")) or body.get("valueFrom") is not None or is_unknown_present(body, "value")


def is_unknown_present(body: Mapping[str, Any], key: str) -> bool:
    """Key present with a not-yet-known value (treated as satisfying a presence requirement)."""
    return key in body and is_unknown(body[key])


_BACKEND_REQUIRED: dict[str, tuple[str, ...]] = {
    "GCS": ("GCS_BUCKET",),
    "S3": ("S3_REGION",),
    "ALIYUNOSS": ("OSS_BUCKET", "OSS_ENDPOINT", "OSS_REGION"),
}


def _check_collector_storage_env(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        options = _history_on(ref, ctx)
        if options is None or not isinstance(options.get("collectorOptions"), dict):
            continue
        collector_path, entries = _collector_env(ref, options)
        if "env" in options["collectorOptions"] and not isinstance(options["collectorOptions"]["env"], list):
            continue  # unknown env list
        env = _env_names(entries)
        env_path = join(collector_path, "env")
        backend_entry = env.get("STORAGE_BACKEND")
        if backend_entry is not None and is_unknown_present(backend_entry[1], "value"):
            continue
        backend = as_str(backend_entry[1].get("value")) if backend_entry else None
        if not backend:
            yield Violation(
                f"collector env must set STORAGE_BACKEND as a literal value{_where(ref)}",
                backend_entry[0] if backend_entry else env_path,
                fix="Add {name: STORAGE_BACKEND, value: GCS|S3|AZUREBLOB|ALIYUNOSS} (not valueFrom).",
            )
            continue
        kind = backend.upper()
        missing: list[str] = []
        if kind in _BACKEND_REQUIRED:
            missing = [name for name in _BACKEND_REQUIRED[kind] if not _env_present(env.get(name))]
        elif kind == "AZUREBLOB":
            mode_entry = env.get("AZURE_STORAGE_AUTH_MODE")
            mode = as_str(mode_entry[1].get("value")) if mode_entry else ""
            has_conn = _env_present(env.get("AZURE_STORAGE_CONNECTION_STRING"))
            has_url = _env_present(env.get("AZURE_STORAGE_ACCOUNT_URL"))
            if mode_entry is not None and is_unknown_present(mode_entry[1], "value"):
                continue
            if mode == "connection_string" and not has_conn:
                missing = ["AZURE_STORAGE_CONNECTION_STRING"]
            elif mode in ("workload_identity", "default") and not has_url:
                missing = ["AZURE_STORAGE_ACCOUNT_URL"]
            elif mode not in ("connection_string", "workload_identity", "default") and not (
                has_conn or has_url
            ):
                missing = ["AZURE_STORAGE_CONNECTION_STRING or AZURE_STORAGE_ACCOUNT_URL"]
        for name in missing:
            yield Violation(
                f"collector env needs {name} for STORAGE_BACKEND={backend}{_where(ref)}",
                env_path,
                fix=f"Add {name} (value or valueFrom) to collectorOptions.env.",
            )


_rule(
    "history-collector-storage-env",
    "History collector env lacks STORAGE_BACKEND or the backend's variables",
    ("RC-50", "RC-51", "RC-52", "RC-53", "RC-54", "RC-55", "RC-56", "RC-57", "RC-58"),
    "The collector uploads to the storage named by a literal STORAGE_BACKEND and needs that backend's "
    "settings "
    "(GCS_BUCKET; S3_REGION; Azure connection string/account URL; OSS bucket/endpoint/region).",
    "Set STORAGE_BACKEND as a literal value and the variables its backend requires.",
    _check_collector_storage_env,
    example(_history),
    example(lambda d: _history(d, [{"name": "STORAGE_BACKEND", "value": "S3"}])),
    context=_HISTORY_CONTEXT,
)


def _check_collector_container(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if _history_on(ref, ctx) is None:
            continue
        for group in groups(ref):
            tpl = group_template(group)
            if tpl is None:
                continue
            for path, container in containers(tpl):
                if container.get("name") == HISTORY_COLLECTOR_CONTAINER:
                    who = "head Pod" if group.role == "head" else f"worker group {group.name!r}"
                    yield Violation(
                        f"{who} must not define a container named {HISTORY_COLLECTOR_CONTAINER} (KubeRay "
                        f"injects it){_where(ref)}",
                        path,
                        fix="Remove the container (configure it via historyServerOptions.collectorOptions) "
                        "or "
                        "rename it.",
                    )


_rule(
    "history-collector-container-conflict",
    "Pod template defines the ray-history-collector container itself",
    ("RC-59", "RC-60"),
    "With the history server on, KubeRay injects the ray-history-collector sidecar and rejects templates "
    "that "
    "already define it.",
    "Remove the container from the templates.",
    _check_collector_container,
    example(_history),
    example(
        lambda d: (
            _history(d),
            _head(d)["template"]["spec"]["containers"].append(
                {"name": HISTORY_COLLECTOR_CONTAINER, "image": "rayproject/history-collector:v1.7.0"}
            ),
        )
    ),
    context=_HISTORY_CONTEXT,
)


# --------------------------------------------------------------------------------------------------
# RC-61..RC-66: auth (v1.6)

_AUTH_MIN_RAY = (2, 52, 0)
_K8S_AUTH_MIN_RAY = (2, 55, 0)


def _check_auth_version(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 6):
        return
    for ref in cluster_specs(doc):
        auth = ref.spec.get("authOptions")
        if not isinstance(auth, dict) or auth.get("mode") != "token":
            continue
        version = _ray_version(ref)
        if version is None:
            continue
        text, parsed = version
        path = ref.path("rayVersion")
        if not text:
            yield Violation(
                "authOptions.mode is 'token' but rayVersion is not set; Ray >= 2.52.0 is "
                f"required{_where(ref)}",
                path,
                fix="Set rayVersion to the image's Ray version (>= 2.52.0).",
            )
        elif parsed is None:
            yield Violation(
                f"authOptions.mode is 'token' but rayVersion {text!r} is not a valid version{_where(ref)}",
                path,
                fix="Set rayVersion to the image's Ray version, e.g. '2.52.0'.",
            )
        elif parsed < _AUTH_MIN_RAY:
            yield Violation(
                f"authOptions.mode is 'token' but the minimum Ray version is 2.52.0, got {text}{_where(ref)}",
                path,
                fix="Upgrade Ray (image and rayVersion) to >= 2.52.0 or remove authOptions.",
            )
        elif auth.get("enableK8sTokenAuth") is True and parsed < _K8S_AUTH_MIN_RAY:
            yield Violation(
                f"authOptions.enableK8sTokenAuth needs Ray >= 2.55.0, got {text}{_where(ref)}",
                path,
                fix="Upgrade Ray (image and rayVersion) to >= 2.55.0 or disable enableK8sTokenAuth.",
            )


_rule(
    "auth-token-ray-version",
    "Token auth without a Ray version that supports it",
    ("RC-61", "RC-62", "RC-63", "RC-64"),
    "Token authentication needs rayVersion >= 2.52.0 (Kubernetes token auth >= 2.55.0); the operator rejects "
    "a missing, invalid or older rayVersion.",
    "Set rayVersion (matching the image) to a version that supports the chosen auth.",
    _check_auth_version,
    example(lambda d: _spec(d).update(authOptions={"mode": "token"})),
    example(lambda d: _spec(d).update(authOptions={"mode": "token"}, rayVersion="2.46.0")),
)


def _check_k8s_token_auth(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if not ctx.at_least(1, 6):
        return
    for ref in cluster_specs(doc):
        auth = ref.spec.get("authOptions")
        if not isinstance(auth, dict) or auth.get("enableK8sTokenAuth") is not True:
            continue
        mode = auth.get("mode")
        if "mode" in auth and is_unknown(mode):
            continue
        if mode == "token":
            if _set(auth.get("secretName")):
                yield Violation(
                    f"authOptions.enableK8sTokenAuth and authOptions.secretName are both set{_where(ref)}",
                    ref.path("authOptions", "secretName"),
                    fix="Remove secretName (Kubernetes token auth needs no shared token) or disable "
                    "enableK8sTokenAuth.",
                )
        else:
            yield Violation(
                "authOptions.enableK8sTokenAuth requires authOptions.mode 'token' (got "
                f"{mode!r}){_where(ref)}",
                ref.path("authOptions", "mode"),
                fix="Set authOptions.mode: token.",
            )


_rule(
    "auth-k8s-token-conflict",
    "Kubernetes token auth misconfigured",
    ("RC-65", "RC-66"),
    "enableK8sTokenAuth requires mode 'token' and excludes secretName; the operator rejects other "
    "combinations.",
    "Use authOptions {mode: token, enableK8sTokenAuth: true} without secretName.",
    _check_k8s_token_auth,
    example(
        lambda d: _spec(d).update(
            rayVersion="2.55.0", authOptions={"mode": "token", "enableK8sTokenAuth": True}
        )
    ),
    example(lambda d: _spec(d).update(rayVersion="2.55.0", authOptions={"enableK8sTokenAuth": True})),
)


# --------------------------------------------------------------------------------------------------
# RC-68..RC-75: network policy (v1.7, gate RayClusterNetworkPolicy)

_NETPOL_CONTEXT = {"feature_gates": {"RayClusterNetworkPolicy": True}}


def _netpol_on(ref: ClusterSpecRef, ctx: Context) -> dict[str, Any] | None:
    if not ctx.at_least(1, 7) or not ctx.gate("RayClusterNetworkPolicy"):
        return None
    policy = ref.spec.get("networkPolicy")
    return policy if isinstance(policy, dict) else None


def _check_netpol_rules(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        policy = _netpol_on(ref, ctx)
        if policy is None:
            continue
        mode = policy.get("mode", "DenyAll")  # CRD default
        if mode == "DenyAllEgress":
            forbidden, reason = "ingressRules", "ingress is not restricted by mode DenyAllEgress"
        elif mode == "DenyAllIngress":
            forbidden, reason = "egressRules", "egress is not restricted by mode DenyAllIngress"
        else:
            continue
        targets: list[tuple[str, Any]] = [
            (ref.path("networkPolicy", "head"), policy.get("head")),
            (ref.path("networkPolicy", "worker"), policy.get("worker")),
        ]
        targets += [
            (ref.path("networkPolicy", "workerGroups", i), item)
            for i, item in enumerate(as_list(policy.get("workerGroups")))
        ]
        for path, target in targets:
            if isinstance(target, dict) and isinstance(target.get(forbidden), list) and target[forbidden]:
                yield Violation(
                    f"{path.split('.')[-1]} {forbidden} are not allowed: {reason}{_where(ref)}",
                    join(path, forbidden),
                    fix=f"Remove {forbidden}, or use mode DenyAll to restrict both directions.",
                )


def _netpol(d: dict[str, Any], **extra: Any) -> dict[str, Any]:
    _spec(d)["networkPolicy"] = {"mode": "DenyAllIngress", **extra}
    return d


_rule(
    "network-policy-rules-mode-mismatch",
    "NetworkPolicy rules for a direction the mode does not restrict",
    ("RC-68", "RC-69", "RC-70", "RC-71", "RC-73", "RC-74"),
    "Ingress rules only make sense when the mode denies ingress (DenyAll/DenyAllIngress), egress rules when "
    "it "
    "denies egress (DenyAll/DenyAllEgress); the operator rejects the others.",
    "Remove the rules or change networkPolicy.mode.",
    _check_netpol_rules,
    example(lambda d: _netpol(d, head={"ingressRules": [{"from": [{"podSelector": {}}]}]})),
    example(lambda d: _netpol(d, head={"egressRules": [{"to": [{"podSelector": {}}]}]})),
    context=_NETPOL_CONTEXT,
)


def _check_netpol_group_names(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if _netpol_on(ref, ctx) is None:
            continue
        for group in worker_groups(ref):
            name = as_str(group.spec.get("groupName"))
            if name is not None and not _is_dns1123_label(name):
                yield Violation(
                    f"worker group name {name!r} must be a DNS-1123 label when networkPolicy is "
                    f"set{_where(ref)}",
                    join(group.path, "groupName"),
                    fix="Rename the group: lower-case letters, digits and '-', at most 63 characters.",
                )


_rule(
    "network-policy-group-name-invalid",
    "Worker group name not a DNS-1123 label with networkPolicy",
    ("RC-72",),
    "NetworkPolicy objects are named after worker groups, so with networkPolicy every groupName must be a "
    "DNS-1123 label.",
    "Use lower-case DNS-1123 group names.",
    _check_netpol_group_names,
    example(lambda d: _netpol(d)),
    example(lambda d: (_netpol(d), _worker(d).update(groupName="GPU_Workers"))),
    context=_NETPOL_CONTEXT,
)


def _check_netpol_unknown_group(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        policy = _netpol_on(ref, ctx)
        if policy is None:
            continue
        names = [g.spec.get("groupName") for g in worker_groups(ref)]
        if any(is_unknown(n) for n in names) or (
            "workerGroupSpecs" in ref.spec and not isinstance(ref.spec["workerGroupSpecs"], list)
        ):
            continue
        for i, item in enumerate(as_list(policy.get("workerGroups"))):
            name = as_str(as_dict(item).get("groupName"))
            if name is not None and name not in names:
                yield Violation(
                    f"networkPolicy.workerGroups[{i}].groupName {name!r} does not match any worker group"
                    f"{_where(ref)}",
                    ref.path("networkPolicy", "workerGroups", i, "groupName"),
                    fix=f"Use one of the worker group names: {', '.join(map(str, names)) or '(none)'}.",
                )


_rule(
    "network-policy-unknown-group",
    "networkPolicy.workerGroups names a group that does not exist",
    ("RC-75",),
    "Per-group network rules must refer to an existing worker group; the operator rejects unknown names.",
    "Fix the groupName to match a workerGroupSpecs[].groupName.",
    _check_netpol_unknown_group,
    example(lambda d: _netpol(d, workerGroups=[{"groupName": "workergroup"}])),
    example(lambda d: _netpol(d, workerGroups=[{"groupName": "gpu-group"}])),
    context=_NETPOL_CONTEXT,
)


# --------------------------------------------------------------------------------------------------
# RC-77..RC-85: TLS (v1.7, gate RayClusterMTLS, tlsOptions.enabled)

_TLS_CONTEXT = {"feature_gates": {"RayClusterMTLS": True}}


def _tls_on(ref: ClusterSpecRef, ctx: Context) -> bool:
    if not ctx.at_least(1, 7) or not ctx.gate("RayClusterMTLS"):
        return False
    return get(ref.spec, "tlsOptions", "enabled") is True


def _tls_targets(ref: ClusterSpecRef) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """(who, path, container-like object) for the head, each worker and the autoscaler options."""
    for group in groups(ref):
        found = ray_container(group_template(group))
        if found is not None:
            who = "head Pod" if group.role == "head" else f"worker group {group.name!r}"
            yield who, found[0], found[1]
    options = ref.spec.get("autoscalerOptions")
    if isinstance(options, dict):
        yield "autoscalerOptions", ref.path("autoscalerOptions"), options


def _check_tls_env(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if not _tls_on(ref, ctx):
            continue
        for who, path, container in _tls_targets(ref):
            for epath, entry in env_list(container, path):
                if entry["name"] in TLS_ENV_VARS:
                    yield Violation(
                        f"cannot set TLS env var {entry['name']} in {who} when TLS is enabled (managed by "
                        "KubeRay)"
                        f"{_where(ref)}",
                        epath,
                        fix=f"Remove env {entry['name']}; KubeRay wires TLS from tlsOptions.",
                    )


def _tls(d: dict[str, Any]) -> dict[str, Any]:
    _spec(d)["tlsOptions"] = {"enabled": True}
    return d


_rule(
    "tls-managed-env",
    "TLS env var set by hand while tlsOptions is enabled",
    ("RC-77", "RC-80", "RC-83"),
    "With tlsOptions.enabled KubeRay injects RAY_USE_TLS and the RAY_TLS_* paths into head, workers and the "
    "autoscaler; user values are rejected.",
    "Remove RAY_USE_TLS / RAY_TLS_SERVER_CERT / RAY_TLS_SERVER_KEY / RAY_TLS_CA_CERT from the containers.",
    _check_tls_env,
    example(_tls),
    example(lambda d: (_tls(d), _add_env(_worker_container(d), "RAY_USE_TLS", "1"))),
    context=_TLS_CONTEXT,
)


def _check_tls_mounts(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if not _tls_on(ref, ctx):
            continue
        for who, path, container in _tls_targets(ref):
            for mpath, mount in volume_mounts(container, path):
                if mount.get("name") == TLS_VOLUME:
                    yield Violation(
                        f"{who} volumeMount name {TLS_VOLUME!r} is reserved when TLS is enabled{_where(ref)}",
                        mpath,
                        fix="Rename the mount or remove it.",
                    )
                elif as_str(mount.get("mountPath")) in (TLS_MOUNT_PATH, TLS_MOUNT_PATH + "/"):
                    yield Violation(
                        f"{who} mountPath {TLS_MOUNT_PATH} is reserved when TLS is enabled{_where(ref)}",
                        mpath,
                        fix="Mount at another path; KubeRay mounts the certificates at /etc/ray/tls.",
                    )


_rule(
    "tls-reserved-mounts",
    "Volume mount uses the TLS name or path KubeRay reserves",
    ("RC-78", "RC-79", "RC-81", "RC-82", "RC-84", "RC-85"),
    "With tlsOptions.enabled KubeRay mounts the certificates as 'ray-tls' at /etc/ray/tls on head, workers "
    "and "
    "the autoscaler; conflicting mounts are rejected.",
    "Remove or rename mounts named ray-tls or at /etc/ray/tls.",
    _check_tls_mounts,
    example(_tls),
    example(
        lambda d: (
            _tls(d),
            _head_container(d).update(volumeMounts=[{"name": "certs", "mountPath": TLS_MOUNT_PATH}]),
        )
    ),
    context=_TLS_CONTEXT,
)
