"""Head and worker groups: Ray resources and labels, containers, replicas, idle timeout, priority
(``ValidateRayClusterSpec``: the group checks).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay import INT32_MAX
from pulumi_kuberay.kuberay.names import AUTOSCALER_V2_ENV
from pulumi_kuberay.kuberay.paths import (
    GroupRef,
    as_dict,
    as_int,
    cluster_specs,
    groups,
    is_unknown,
    join,
    worker_groups,
)

from ._cel import Cel, first_container_guard, head_env_value_in, ray_version_at_least
from ._engine import KINDS, Context, Severity, Violation, declare
from ._examples import example, set_ray_version, spec_of, with_autoscaling_v2, worker_of
from ._fixed import REMOVE, patch
from ._manifest_readers import (
    autoscaler_v2_enabled,
    built_cluster_specs,
    is_dns1035,
    is_dns1123_subdomain,
    is_set,
    label_value_error,
    qualified_name_error,
    ray_version_of,
    reported_as,
)

# --------------------------------------------------------------------------------------------------
# RC-05..RC-08: group resources and labels

_RESOURCE_PARAMS = ("num-cpus", "num-gpus", "memory", "resources")


def _check_group_resources(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        for group in groups(ref):
            resources = group.spec.get("resources")
            if not (isinstance(resources, dict) and resources):
                continue
            params = as_dict(group.spec.get("rayStartParams"))
            clash = [k for k in _RESOURCE_PARAMS if is_set(params.get(k))]
            if clash:
                yield Violation(
                    f"{group.name} group sets resources both in rayStartParams ({', '.join(clash)}) and in resources{reported_as(ref)}",
                    join(group.path, "resources"),
                    fix=f"Keep only one: remove rayStartParams {', '.join(clash)} or the group's resources map.",
                )


#: Autoscaler v2 as validateWorkerGroupIdleTimeout and validateWorkerGroupPriority see it (autoscaler_v2_enabled).
_V2_CEL = f"(has(c.autoscalerOptions) && has(c.autoscalerOptions.version) && c.autoscalerOptions.version == 'v2') || ({head_env_value_in(AUTOSCALER_V2_ENV, ('1', 'true'))})"

declare(
    id="group-resources-conflict",
    title="Ray resources set both in rayStartParams and in the group resources map",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-05",),
    enforced_by=("operator",),
    rationale="The operator rejects a group that declares num-cpus/num-gpus/memory/resources in rayStartParams and also uses the v1.5 group 'resources' map.",
    fix="Declare Ray logical resources in one place: preferably the group 'resources' map.",
    check=_check_group_resources,
    compliant=example(lambda d: worker_of(d).update(resources={"CPU": "1", "TPU": "4"})),
    violating=example(lambda d: worker_of(d).update(rayStartParams={"num-cpus": "1"}, resources={"TPU": "4"})),
    violating_path="spec.workerGroupSpecs[0].resources",
    fixed=patch(
        {
            "spec.workerGroupSpecs[0].rayStartParams.num-cpus": REMOVE,
            "spec.workerGroupSpecs[0].resources.CPU": "1",
        }
    ),
    cel=Cel("!has(g.resources) || size(g.resources) == 0 || !has(g.rayStartParams) || !['num-cpus', 'num-gpus', 'memory', 'resources'].exists(p, p in g.rayStartParams && g.rayStartParams[p] != '')", over="group", path="resources"),
)


def _check_start_params_labels(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        for group in groups(ref):
            params = group.spec.get("rayStartParams")
            if isinstance(params, dict) and "labels" in params:
                yield Violation(
                    f"rayStartParams['labels'] is not supported for the {group.name} group{reported_as(ref)}",
                    join(group.path, "rayStartParams", "labels"),
                )


declare(
    id="ray-start-params-labels",
    title="rayStartParams.labels is not supported",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-06",),
    enforced_by=("operator",),
    rationale="Since KubeRay 1.5 Ray node labels go in the group's top-level 'labels' field; the operator rejects rayStartParams['labels'].",
    fix="Move the labels to the group's 'labels' map (key: value) and remove rayStartParams.labels.",
    check=_check_start_params_labels,
    compliant=example(lambda d: worker_of(d).update(labels={"ray.io/market-type": "spot"})),
    violating=example(lambda d: worker_of(d)["rayStartParams"].update(labels="ray.io/market-type=spot")),
    violating_path="spec.workerGroupSpecs[0].rayStartParams.labels",
    fixed=patch(
        {
            "spec.workerGroupSpecs[0].rayStartParams.labels": REMOVE,
            "spec.workerGroupSpecs[0].labels": {"ray.io/market-type": "spot"},
        }
    ),
    cel=Cel("!has(g.rayStartParams) || !('labels' in g.rayStartParams)", over="group", path="rayStartParams.labels"),
)


def _check_group_labels(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        for group in groups(ref):
            group_labels = group.spec.get("labels")
            if not isinstance(group_labels, dict):
                continue
            for key, value in group_labels.items():
                path = f'{join(group.path, "labels")}["{key}"]'
                key_error = qualified_name_error(key) if isinstance(key, str) else "must be a string"
                if key_error:
                    yield Violation(
                        f"invalid label key {key!r} for the {group.name} group: {key_error}{reported_as(ref)}",
                        path,
                        fix="Use a Kubernetes label key such as 'ray.io/accelerator-type' or 'zone'.",
                    )
                if isinstance(value, str) and not is_unknown(value):
                    value_error = label_value_error(value)
                    if value_error:
                        yield Violation(
                            f"invalid label value {value!r} for key {key!r} in the {group.name} group: {value_error}{reported_as(ref)}",
                            path,
                            fix="Use a Kubernetes label value: at most 63 alphanumerics, '-', '_' or '.'.",
                        )


declare(
    id="group-labels-invalid",
    title="Group label key or value is not valid Kubernetes label syntax",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-07", "RC-08"),
    enforced_by=("operator",),
    rationale="Group labels become Ray node labels and Pod labels; the operator rejects keys/values that are not valid Kubernetes label syntax.",
    fix="Use valid Kubernetes label keys (optional DNS prefix + '/' + name) and values (<= 63 chars).",
    check=_check_group_labels,
    compliant=example(lambda d: worker_of(d).update(labels={"ray.io/accelerator-type": "A100"})),
    violating=example(lambda d: worker_of(d).update(labels={"accelerator type": "A100/80GB"})),
    violating_path="spec.workerGroupSpecs[0].labels[\"accelerator type\"]",
    fixed=patch(
        {
            'spec.workerGroupSpecs[0].labels["accelerator type"]': REMOVE,
            'spec.workerGroupSpecs[0].labels["ray.io/accelerator-type"]': "A100",
        }
    ),
    cel=Cel("!has(g.labels) || g.labels.all(l, [l.split('/')].all(p, p.size() == 1 ? (size(l) > 0 && size(l) <= 63 && l.matches('^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$')) : (p.size() == 2 && size(p[0]) > 0 && size(p[0]) <= 253 && p[0].matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$') && size(p[1]) > 0 && size(p[1]) <= 63 && p[1].matches('^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$'))) && size(g.labels[l]) <= 63 && g.labels[l].matches('^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$'))", over="group", path="labels"),
)



# --------------------------------------------------------------------------------------------------
# A worker group's name in its Pods' metadata: the label ray.io/group (buildWorkerPod: labelPod) and the
# generateName utils.PodName(<cluster>-<group>, worker): lower-cased, cut to 50, "-worker-" and the API server's
# 5 random characters, which Pod validation (ValidateObjectMeta, ValidatePodName) judges as a DNS-1123 subdomain

#: The characters of the cluster name the operator derives for a RayJob's or RayService's cluster beyond the
#: object's name (GenerateRayClusterName: "-" and 5 random lower-case alphanumerics); a RayCronJob's RayJobs are
#: <name>-<minutes since the epoch> (getRayJobName: 8 digits until 2160).
_DERIVED_CLUSTER_SUFFIX = "-abcde"
_CRON_JOB_SUFFIX = "-29999999"
_POD_NAME_PREFIX_MAX = 50  # utils.PodName's maxPrefixLength


def _cluster_name(doc: dict[str, Any]) -> str | None:
    name = as_dict(doc.get("metadata")).get("name")
    # A name that is no DNS-1035 label is refused before any Pod is built (ValidateRayClusterMetadata,
    # ValidateRayJobMetadata, ValidateRayServiceMetadata, a RayCronJob's RayJobs'): the name rules report it there,
    # and the group, whose name is not at fault, is not judged by it
    if not isinstance(name, str) or is_unknown(name) or not is_dns1035(name):
        return None
    if doc.get("kind") == "RayCluster":
        return name
    if doc.get("kind") == "RayCronJob":
        return name + _CRON_JOB_SUFFIX + _DERIVED_CLUSTER_SUFFIX
    return name + _DERIVED_CLUSTER_SUFFIX if doc.get("kind") in ("RayJob", "RayService") else None


def _check_group_names(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    cluster = _cluster_name(doc)
    for ref in built_cluster_specs(doc):
        for group in worker_groups(ref):
            name = group.spec.get("groupName")
            if not isinstance(name, str) or is_unknown(name) or not name:
                continue
            path = join(group.path, "groupName")
            error = label_value_error(name)
            if error:
                yield Violation(f"worker group name {name!r} is the value of its Pods' label ray.io/group, and {error}: the API server refuses every Pod of the group (ValidateObjectMeta){reported_as(ref)}", path)
                continue
            if cluster is None:
                continue
            pod_name = (f"{cluster}-{name}"[:_POD_NAME_PREFIX_MAX] + "-worker-abcde").lower()
            if not is_dns1123_subdomain(pod_name):
                yield Violation(f"worker group name {name!r} makes its Pods' names ({pod_name[:-5]}<random>) invalid: a Pod name is a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', each '.'-part starting and ending with a letter or digit), so the API server refuses every Pod of the group (ValidatePodName){reported_as(ref)}", path)


declare(
    id="worker-group-name-invalid",
    title="Worker group name its Pods' name or label cannot carry",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-21",),
    enforced_by=("run-time",),
    rationale="The operator names a worker group's Pods <cluster>-<group>-worker-<random> (utils.PodName: lower-cased, cut to 50 characters before '-worker-') and labels them ray.io/group=<group>; the CRD and the operator accept any string as groupName, but Pod validation refuses a name that is not a DNS-1123 subdomain ('_', spaces, '.-') and a label value over 63 characters or outside alphanumerics, '-', '_' and '.', so no Pod of the group is ever created.",
    proof="the API server's Pod validation (ValidateObjectMeta: the generateName and the ray.io/group label) refuses every Pod the operator creates for the group; the Pod name is judged with the cluster's name as the operator derives it (a RayCluster's own; a RayJob's or RayService's name and 6 characters; a RayCronJob's with its RayJobs' 9 more), and not where the name is not known or is itself refused (not a DNS-1035 label: the name rules report it, and the operator builds no Pod)",
    fix="Name the group with lower-case letters, digits and '-' (e.g. 'gpu-workers').",
    check=_check_group_names,
    compliant=example(lambda d: worker_of(d).update(groupName="gpu-workers")),
    violating=example(lambda d: worker_of(d).update(groupName="gpu_workers")),
    violating_path="spec.workerGroupSpecs[0].groupName",
    fixed=patch({"spec.workerGroupSpecs[0].groupName": "gpu-workers"}),
)


# --------------------------------------------------------------------------------------------------
# RC-09, RC-10: containers


def _containers_missing(group: GroupRef) -> bool:
    """True when the group's pod template certainly has no container (absent, null or an empty list: the API
    server drops a null template, spec or containers, so the operator sees none)."""
    cur: Any = group.spec
    for key in ("template", "spec", "containers"):
        if key not in cur or cur[key] is None:
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
                    f"{what} should have at least one container{reported_as(ref)}",
                    join(group.path, "template", "spec", "containers"),
                    fix="Add the Ray container as containers[0] (name, image, resources).",
                )


declare(
    id="pod-template-no-containers",
    title="Head or worker pod template has no container",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-09", "RC-10"),
    enforced_by=("operator",),
    rationale="containers[0] is the Ray container; the operator rejects a head or worker template without containers.",
    fix="Give every group template at least one container; the first one runs Ray.",
    check=_check_no_containers,
    compliant=example(),
    violating=example(lambda d: worker_of(d)["template"]["spec"].update(containers=[])),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers",
    fixed=patch(
        {
            "spec.workerGroupSpecs[0].template.spec.containers": [
                {
                    "name": "ray-worker",
                    "image": "rayproject/ray:2.52.0",
                    "resources": {"limits": {"cpu": "1", "memory": "2Gi"}, "requests": {"cpu": "1", "memory": "2Gi"}},
                }
            ],
        }
    ),
    cel=Cel(f"{first_container_guard('g.template')}", over="group", path="template.spec.containers"),
)


# --------------------------------------------------------------------------------------------------
# RC-12..RC-14: replicas

def _replica_bound(group: GroupRef, key: str, default: int) -> int | None:
    if key not in group.spec:
        return default
    return as_int(group.spec[key])


#: Why a replica-bound finding is high below KubeRay 1.6 (said only when it differs from the rule's critical).
_BEFORE_1_6 = "high: operators before 1.6 accept it"


def _check_replicas_negative(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    severity: Severity | None = None if ctx.at_least(1, 6) else "high"
    for ref in cluster_specs(doc):
        for group in worker_groups(ref):
            for key in ("minReplicas", "maxReplicas"):
                value = _replica_bound(group, key, 0)
                if value is not None and value < 0:
                    yield Violation(
                        f"worker group {group.name!r} has negative {key} ({value}){reported_as(ref)}",
                        join(group.path, key),
                        fix=f"Set {key} to 0 or more.",
                        severity=severity,
                        severity_why=_BEFORE_1_6,
                    )


declare(
    id="worker-replicas-negative",
    title="Worker group minReplicas or maxReplicas is negative",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-12", "RC-13"),
    enforced_by=("operator",),
    rationale="Replica bounds must be non-negative; the operator (v1.6+) rejects negative values.",
    fix="Use minReplicas >= 0 and maxReplicas >= 0.",
    check=_check_replicas_negative,
    compliant=example(),
    violating=example(lambda d: worker_of(d).update(minReplicas=-1)),
    violating_path="spec.workerGroupSpecs[0].minReplicas",
    fixed=patch({"spec.workerGroupSpecs[0].minReplicas": 1}),
    cel=Cel('(!has(g.minReplicas) || g.minReplicas >= 0) && (!has(g.maxReplicas) || g.maxReplicas >= 0)', over="worker", path="minReplicas"),
    also=(_BEFORE_1_6,),
)


def _check_min_exceeds_max(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    severity: Severity | None = None if ctx.at_least(1, 6) else "high"
    for ref in cluster_specs(doc):
        for group in worker_groups(ref):
            low = _replica_bound(group, "minReplicas", 0)
            high = _replica_bound(group, "maxReplicas", INT32_MAX)
            if low is not None and high is not None and low > high:
                yield Violation(
                    f"worker group {group.name!r}: minReplicas ({low}) > maxReplicas ({high}){reported_as(ref)}",
                    join(group.path, "minReplicas"),
                    fix=f"Lower minReplicas to at most {high} or raise maxReplicas to at least {low}.",
                    severity=severity,
                    severity_why=_BEFORE_1_6,
                )


declare(
    id="worker-min-exceeds-max",
    title="Worker group minReplicas greater than maxReplicas",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-14",),
    enforced_by=("operator",),
    rationale="The replica range is empty; the operator (v1.6+) rejects the cluster.",
    fix="Make minReplicas <= maxReplicas.",
    check=_check_min_exceeds_max,
    compliant=example(),
    violating=example(lambda d: worker_of(d).update(minReplicas=4, maxReplicas=2, replicas=2)),
    violating_path="spec.workerGroupSpecs[0].minReplicas",
    fixed=patch(
        {
            "spec.workerGroupSpecs[0].replicas": 1,
            "spec.workerGroupSpecs[0].minReplicas": 1,
            "spec.workerGroupSpecs[0].maxReplicas": 5,
        }
    ),
    cel=Cel('(has(g.minReplicas) ? g.minReplicas : 0) <= (has(g.maxReplicas) ? g.maxReplicas : 2147483647)', over="worker", path="minReplicas"),
    also=(_BEFORE_1_6,),
)


# --------------------------------------------------------------------------------------------------
# RC-15, RC-16: worker idleTimeoutSeconds


def _check_idle_timeout_negative(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        for group in worker_groups(ref):
            value = as_int(group.spec.get("idleTimeoutSeconds"))
            if value is not None and value < 0:
                yield Violation(
                    f"worker group {group.name!r}: idleTimeoutSeconds ({value}) must be non-negative{reported_as(ref)}",
                    join(group.path, "idleTimeoutSeconds"),
                )


declare(
    id="worker-idle-timeout-negative",
    title="Worker group idleTimeoutSeconds is negative",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-15",),
    enforced_by=("operator",),
    since="1.6",
    rationale="The operator rejects a negative per-group idle timeout.",
    fix="Set idleTimeoutSeconds to 0 or more (seconds), or remove it to use autoscalerOptions.idleTimeoutSeconds.",
    check=_check_idle_timeout_negative,
    compliant=example(lambda d: (with_autoscaling_v2(d), worker_of(d).update(idleTimeoutSeconds=120))),
    violating=example(lambda d: (with_autoscaling_v2(d), worker_of(d).update(idleTimeoutSeconds=-5))),
    violating_path="spec.workerGroupSpecs[0].idleTimeoutSeconds",
    fixed=patch({"spec.workerGroupSpecs[0].idleTimeoutSeconds": 120}),
    cel=Cel('!has(g.idleTimeoutSeconds) || g.idleTimeoutSeconds >= 0', over="worker", path="idleTimeoutSeconds"),
)


def _check_idle_timeout_needs_v2(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        v2 = autoscaler_v2_enabled(ref)
        if v2 is not False:
            continue
        for group in worker_groups(ref):
            if group.spec.get("idleTimeoutSeconds") is not None:
                yield Violation(
                    f"worker group {group.name!r} sets idleTimeoutSeconds but autoscaler v2 is not enabled{reported_as(ref)}",
                    join(group.path, "idleTimeoutSeconds"),
                )


declare(
    id="worker-idle-timeout-requires-autoscaler-v2",
    title="Per-group idleTimeoutSeconds without autoscaler v2",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-16",),
    enforced_by=("operator",),
    since="1.6",
    rationale="Per-group idle timeouts are only implemented by autoscaler v2; the operator rejects them otherwise.",
    fix="Set spec.autoscalerOptions.version: v2 (with enableInTreeAutoscaling: true), or remove idleTimeoutSeconds.",
    check=_check_idle_timeout_needs_v2,
    compliant=example(lambda d: (with_autoscaling_v2(d), worker_of(d).update(idleTimeoutSeconds=120))),
    violating=example(
        lambda d: (spec_of(d).update(enableInTreeAutoscaling=True), worker_of(d).update(idleTimeoutSeconds=120))
    ),
    violating_path="spec.workerGroupSpecs[0].idleTimeoutSeconds",
    fixed=patch({"spec.autoscalerOptions": {"version": "v2"}}),
    cel=Cel(_V2_CEL + " || !has(c.workerGroupSpecs) || c.workerGroupSpecs.all(g, !has(g.idleTimeoutSeconds))", over="cluster", path="workerGroupSpecs[].idleTimeoutSeconds"),
)


# --------------------------------------------------------------------------------------------------
# RC-17..RC-20: worker priority

_PRIORITY_MIN_RAY = (2, 56, 0)


def _check_priority(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        prioritised = [g for g in worker_groups(ref) if (as_int(g.spec.get("priority")) or 0) != 0]
        if not prioritised:
            continue
        version = ray_version_of(ref)
        v2 = autoscaler_v2_enabled(ref)
        for group in prioritised:
            path = join(group.path, "priority")
            if version is not None:
                text, parsed = version
                if not text:
                    yield Violation(
                        f"worker group {group.name!r} sets priority but rayVersion is missing; Ray >= 2.56.0 is required{reported_as(ref)}",
                        path,
                        fix="Set spec rayVersion (>= 2.56.0, matching the image) or remove priority.",
                    )
                elif parsed is None:
                    yield Violation(
                        f"worker group {group.name!r} sets priority but rayVersion {text!r} is not a valid version{reported_as(ref)}",
                        ref.path("rayVersion"),
                        fix="Set rayVersion to the image's Ray version, e.g. '2.56.0'.",
                    )
                elif parsed < _PRIORITY_MIN_RAY:
                    yield Violation(
                        f"worker group {group.name!r} sets priority, which needs Ray >= 2.56.0 (rayVersion is {text}){reported_as(ref)}",
                        path,
                        fix="Upgrade to Ray >= 2.56.0 (image and rayVersion) or remove priority.",
                    )
            if v2 is False:
                yield Violation(
                    f"worker group {group.name!r} sets priority, which is only supported with autoscaler v2{reported_as(ref)}",
                    path,
                    fix="Set spec.autoscalerOptions.version: v2 (with enableInTreeAutoscaling: true), or remove priority.",
                )


def _priority_ok(d: dict[str, Any]) -> None:
    with_autoscaling_v2(d)
    set_ray_version(spec_of(d), "2.56.0")
    worker_of(d)["priority"] = 10


declare(
    id="worker-priority-unsupported",
    title="Worker group priority without Ray >= 2.56.0 and autoscaler v2",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-17", "RC-18", "RC-19", "RC-20"),
    enforced_by=("operator",),
    since="1.7",
    rationale="Worker group priority (KubeRay 1.7) is implemented by autoscaler v2 in Ray >= 2.56.0; the operator rejects it when rayVersion is missing, invalid or older, or autoscaler v2 is off.",
    fix="Set rayVersion >= 2.56.0 and autoscalerOptions.version: v2, or remove priority.",
    check=_check_priority,
    cel=Cel(
        f"!has(c.workerGroupSpecs) || c.workerGroupSpecs.all(g, !has(g.priority) || g.priority == 0) || ({ray_version_at_least(_PRIORITY_MIN_RAY)} && ({_V2_CEL}))",
        over="cluster",
        path="workerGroupSpecs[].priority",
        message="a worker group sets priority without rayVersion >= 2.56.0 and autoscaler v2",
    ),
    compliant=example(_priority_ok),
    violating=example(lambda d: worker_of(d).update(priority=10)),
    violating_path="spec.workerGroupSpecs[0].priority",
    fixed=patch(
        {
            "spec.rayVersion": "2.56.0",
            "spec.headGroupSpec.template.spec.containers[0].image": "rayproject/ray:2.56.0",
            "spec.workerGroupSpecs[0].template.spec.containers[0].image": "rayproject/ray:2.56.0",
            "spec.enableInTreeAutoscaling": True,
            "spec.autoscalerOptions": {"version": "v2"},
        }
    ),
)


# --------------------------------------------------------------------------------------------------
