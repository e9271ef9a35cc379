"""Operator failures outside its validation functions that a manifest already shows (rows OP-*).

OP-01/OP-02: KubeRay finds the serve and dashboard ports of the head container by name. When the head
declares ``ports`` at all it must include them (with no ports KubeRay assumes the defaults). OP-04: autoscaler
v1 with a worker restartPolicy other than Never. OP-06: RayJob ``metadata`` needs Ray >= 2.6.0. OP-03/05/07/08
depend on cluster state (cert-manager installed, ServiceAccount exists, selected RayCluster exists, live Pod
counts): see ``docs/operator-rules.md`` (OP-07 is the stack rule ``rayjob-cluster-selector-unmatched``).
Also what the operator silently corrects instead of rejecting: worker replicas clamped into their bounds.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

from pulumi_kuberay.kuberay import INT32_MAX, KUBERAY_CONTROLLER
from pulumi_kuberay.kuberay.api import API_VERSION
from pulumi_kuberay.kuberay.names import ENABLE_SERVE_SERVICE_ANNOTATION
from pulumi_kuberay.kuberay.paths import (
    as_dict,
    as_int,
    as_list,
    as_str,
    cluster_specs,
    get,
    group_template,
    head_ray_container,
    join,
    worker_groups,
)

from ._cel import HEAD_PORTS, Cel, semver_release_at_least
from ._engine import (
    KINDS,
    Context,
    Violation,
    declare,
)
from ._examples import example_cluster_spec, example_job, example_service
from ._fixed import patch
from ._manifest_readers import has_cluster_selector, job_specs, semver_parse


def _port_names(container: dict[str, Any]) -> list[str] | None:
    """Names of the declared container ports, or None when the container declares no ports."""
    ports = as_list(container.get("ports"))
    if not ports:
        return None
    return [name for port in ports if (name := as_str(as_dict(port).get("name"))) is not None]


def _heads_missing_port(manifest: dict[str, Any], wanted: Callable[[str], bool]) -> Iterator[str]:
    """``ports`` paths of head Ray containers that declare ports but none whose name is ``wanted``."""
    for ref in cluster_specs(manifest):
        found = head_ray_container(ref)
        if found is None:
            continue
        path, container = found
        names = _port_names(container)
        if names is not None and not any(wanted(name) for name in names):
            yield join(path, "ports")


def _check_serve_port(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    kind = manifest.get("kind")
    if kind == "RayService":
        if get(manifest, "spec", "serveService") is not None:
            return  # the user's serve Service ports are used as given
    elif kind == "RayCluster":
        if get(manifest, "metadata", "annotations", ENABLE_SERVE_SERVICE_ANNOTATION) != "true":
            return
    else:
        return
    for path in _heads_missing_port(manifest, lambda name: name == "serve" or name.startswith("serve-")):
        yield Violation(
            "the head container declares ports but none named 'serve' (or 'serve-*'): the operator cannot build the serve Service, so the RayService never gets endpoints",
            path,
        )


def _service_without_serve_port() -> dict[str, Any]:
    service = example_service()
    ports = service["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]
    ports[:] = [p for p in ports if p["name"] != "serve"]
    return service


declare(
    id="head-serve-port-missing",
    title="Head container ports without a 'serve' port",
    severity="critical",
    category="correctness",
    kinds=("RayService", "RayCluster"),
    rows=("OP-01",),
    enforced_by=("run-time",),
    rationale="KubeRay routes Serve traffic to the head container port named 'serve' (or 'serve-*'). If the head lists ports but none has that name and no serveService is given, the serve Service cannot be built ('Please specify a port named serve') and the RayService never becomes Ready.",
    fix="Add {name: serve, containerPort: 8000} to the head container ports (same port as Serve's http_options.port).",
    check=_check_serve_port,
    compliant=example_service(),
    violating=_service_without_serve_port(),
    violating_path="spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports",
    fixed=patch(
        {
            "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports": [
                {"containerPort": 6379, "name": "gcs-server"},
                {"containerPort": 8265, "name": "dashboard"},
                {"containerPort": 10001, "name": "client"},
                {"containerPort": 8000, "name": "serve"},
            ],
        }
    ),
    cel=Cel(f"!(object.kind == 'RayService' ? !(has(object.spec) && has(object.spec.serveService)) : (object.kind == 'RayCluster' && has(object.metadata.annotations) && 'ray.io/enable-serve-service' in object.metadata.annotations && object.metadata.annotations['ray.io/enable-serve-service'] == 'true')) || size({HEAD_PORTS}) == 0 || {HEAD_PORTS}.exists(p, has(p.name) && (p.name == 'serve' || p.name.startsWith('serve-')))", over="cluster", path="headGroupSpec.template.spec.containers[0].ports"),
)


def _check_dashboard_port(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if manifest.get("kind") not in ("RayJob", "RayService", "RayCronJob"):
        return
    manager = as_str(get(manifest, "spec", "jobTemplate", "managedBy"))
    if manifest.get("kind") == "RayCronJob" and manager and manager != KUBERAY_CONTROLLER:
        return  # its RayJobs go to another controller (ManagedByExternalController): KubeRay never runs them
    job = get(manifest, "spec", "jobTemplate") if manifest.get("kind") == "RayCronJob" else manifest.get("spec")
    if manifest.get("kind") != "RayService" and isinstance(job, dict) and has_cluster_selector(job):
        return  # the job runs on the selected RayCluster; the rayClusterSpec's head is never created
    for path in _heads_missing_port(manifest, lambda name: name == "dashboard"):
        yield Violation(
            "the head container declares ports but none named 'dashboard': the operator cannot find the dashboard URL, so the job is never submitted / the Serve config never applied",
            path,
        )


def _job_without_dashboard_port() -> dict[str, Any]:
    job = example_job()
    ports = job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]
    for port in ports:
        if port["name"] == "dashboard":
            port["name"] = "http-dashboard"
    return job


declare(
    id="head-dashboard-port-missing",
    title="Head container ports without a 'dashboard' port",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayService", "RayCronJob"),
    rows=("OP-02",),
    enforced_by=("run-time",),
    rationale="RayJob and RayService talk to the Ray dashboard through the head port named 'dashboard'. If the head lists ports without that name, the lookup fails ('dashboard port is not found').",
    fix="Name the dashboard port (8265) 'dashboard' in the head container, or declare no ports at all.",
    check=_check_dashboard_port,
    compliant=example_job(),
    violating=_job_without_dashboard_port(),
    violating_path="spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].ports",
    fixed=patch({"spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].ports[1].name": "dashboard"}),
    cel=Cel(f"(object.kind == 'RayCronJob' && has(object.spec.jobTemplate) && has(object.spec.jobTemplate.managedBy) && object.spec.jobTemplate.managedBy != '' && object.spec.jobTemplate.managedBy != 'ray.io/kuberay-operator') || (object.kind != 'RayService' && variables.jobs.exists(j, (has(j.clusterSelector) && size(j.clusterSelector) > 0))) || size({HEAD_PORTS}) == 0 || {HEAD_PORTS}.exists(p, has(p.name) && p.name == 'dashboard')", over="cluster", path="headGroupSpec.template.spec.containers[0].ports"),
)


def _check_v1_restart_policy(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(manifest):
        if ref.spec.get("enableInTreeAutoscaling") is not True:
            continue
        if get(ref.spec, "autoscalerOptions", "version") != "v1":
            continue
        for group in worker_groups(ref):
            template = group_template(group)
            policy = as_str(template.pod_spec.get("restartPolicy")) if template else None
            if template is not None and policy and policy != "Never":
                yield Violation(
                    f"worker group {group.name!r} has restartPolicy {policy!r} with autoscaler v1: restarted containers rejoin as new Ray nodes while the autoscaler tracks the old ones (the operator only emits a Warning event)",
                    join(template.spec_path, "restartPolicy"),
                )


def _v1_cluster(restart_policy: str | None) -> dict[str, Any]:
    spec = example_cluster_spec(autoscaling=True)
    spec["autoscalerOptions"] = {"version": "v1"}
    if restart_policy is not None:
        spec["workerGroupSpecs"][0]["template"]["spec"]["restartPolicy"] = restart_policy
    return {"apiVersion": API_VERSION, "kind": "RayCluster", "metadata": {"name": "autoscaled"}, "spec": spec}


declare(
    id="autoscaler-v1-worker-restart-policy",
    title="Autoscaler v1 with a worker restartPolicy other than Never",
    severity="low",
    category="reliability",
    kinds=KINDS,
    rows=("OP-04",),
    enforced_by=("run-time",),
    rationale="With autoscaler v1 the operator warns (event only) when worker Pods may restart in place; Ray nodes are meant to be replaced, not restarted.",
    fix="Set the worker template restartPolicy to Never (or leave it unset), or move to autoscaler v2.",
    check=_check_v1_restart_policy,
    compliant=_v1_cluster("Never"),
    violating=_v1_cluster("Always"),
    violating_path="spec.workerGroupSpecs[0].template.spec.restartPolicy",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.restartPolicy": "Never"}),
    cel=Cel("!((has(c.enableInTreeAutoscaling) && c.enableInTreeAutoscaling) && has(c.autoscalerOptions) && has(c.autoscalerOptions.version) && c.autoscalerOptions.version == 'v1') || !has(c.workerGroupSpecs) || c.workerGroupSpecs.all(g, !has(g.template) || !has(g.template.spec) || !has(g.template.spec.restartPolicy) || g.template.spec.restartPolicy in ['', 'Never'])", over="cluster", path="workerGroupSpecs[].template.spec.restartPolicy"),
)


def _check_metadata_ray_version(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    # getMetadataJSONForSubmitCommand (GetMetadataJson before v1.7), called by BuildJobSubmitCommand: the
    # submit command of K8sJobMode (default) and SidecarMode; HTTPMode sends the metadata as it is. rayVersion
    # is parsed by Masterminds semver and must satisfy ">= 2.6.0" (a pre-release never does); from v1.7 an
    # empty rayVersion is taken to be recent enough, before it fails to parse.
    for spec, path in job_specs(manifest):
        metadata = spec.get("metadata")
        if not isinstance(metadata, dict) or not metadata:
            continue
        if (as_str(spec.get("submissionMode")) or "K8sJobMode") not in ("K8sJobMode", "SidecarMode"):
            continue
        cluster = spec.get("rayClusterSpec")
        if not isinstance(cluster, dict):
            continue  # clusterSelector: the operator assumes the selected cluster is recent enough
        raw = cluster.get("rayVersion")
        ray_version = as_str(raw) if raw is not None else ""
        if ray_version is None or (not ray_version and ctx.at_least(1, 7)):
            continue
        parsed = semver_parse(ray_version)
        if parsed is None:
            why = "is not a semantic version the operator can parse"
        elif parsed[1]:
            why = "is a pre-release, which never satisfies >= 2.6.0"
        elif parsed[0] < (2, 6, 0):
            why = "is older than 2.6.0"
        else:
            continue
        yield Violation(
            f"spec metadata (--metadata-json) needs Ray >= 2.6.0 but rayClusterSpec.rayVersion {ray_version!r} {why}: the operator cannot build the submit command, so the job is never submitted",
            f"{path}.metadata",
        )


def _job_with_metadata(ray_version: str) -> dict[str, Any]:
    job = example_job(metadata={"team": "ml"})
    cluster = copy.deepcopy(job["spec"]["rayClusterSpec"])
    cluster["rayVersion"] = ray_version
    job["spec"]["rayClusterSpec"] = cluster
    return job


declare(
    id="rayjob-metadata-requires-ray-2-6",
    title="RayJob metadata with Ray older than 2.6.0",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("OP-06",),
    enforced_by=("run-time",),
    rationale="spec.metadata is passed as --metadata-json, which Ray < 2.6.0 does not support: in K8sJobMode and SidecarMode the operator parses rayVersion as a semantic version (Masterminds semver) and refuses to build the submit command unless it is >= 2.6.0 (not a pre-release; from v1.7 an empty rayVersion passes).",
    fix="Upgrade rayVersion (and the image) to >= 2.6.0, or remove spec.metadata.",
    check=_check_metadata_ray_version,
    compliant=_job_with_metadata("2.52.0"),
    violating=_job_with_metadata("2.5.1"),
    violating_path="spec.metadata",
    fixed=patch({"spec.rayClusterSpec.rayVersion": "2.52.0"}),
    cel=Cel(
        f"!has(j.metadata) || size(j.metadata) == 0 || (has(j.submissionMode) && !(j.submissionMode in ['', 'K8sJobMode', 'SidecarMode'])) || !has(j.rayClusterSpec) || !has(j.rayClusterSpec.rayVersion) || j.rayClusterSpec.rayVersion == '' || {semver_release_at_least('j.rayClusterSpec.rayVersion', (2, 6, 0))}",
        over="job",
        path="metadata",
        message="spec metadata (--metadata-json) needs rayClusterSpec.rayVersion >= 2.6.0 (a semantic version, no pre-release)",
    ),
)


# --------------------------------------------------------------------------------------------------
# GetWorkerGroupDesiredReplicas: replicas outside [minReplicas, maxReplicas] are clamped, not rejected.


def _cluster_with_replicas(replicas: int) -> dict[str, Any]:
    spec = example_cluster_spec()
    spec["workerGroupSpecs"][0].update(minReplicas=1, maxReplicas=3, replicas=replicas)
    return {"apiVersion": API_VERSION, "kind": "RayCluster", "metadata": {"name": "raycluster"}, "spec": spec}


def _check_replicas_clamped(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        for group in worker_groups(ref):
            replicas = as_int(group.spec.get("replicas"))
            # CRD defaults: minReplicas 0, maxReplicas 2147483647 (the API server drops a null and defaults it)
            low = as_int(0 if group.spec.get("minReplicas") is None else group.spec["minReplicas"])
            high = as_int(INT32_MAX if group.spec.get("maxReplicas") is None else group.spec["maxReplicas"])
            if replicas is None or low is None or high is None or low > high or group.spec.get("suspend") is True:
                continue
            clamped = min(max(replicas, low), high)
            if clamped != replicas:
                yield Violation(
                    f"worker group {group.name!r}: replicas ({replicas}) is outside [minReplicas ({low}), maxReplicas ({high})]; KubeRay runs {clamped} instead",
                    join(group.path, "replicas"),
                    fix=f"Set replicas between {low} and {high} (or leave it to the autoscaler).",
                )


declare(
    id="worker-replicas-clamped",
    title="Worker replicas outside [minReplicas, maxReplicas] are clamped",
    severity="medium",
    category="correctness",
    kinds=KINDS,
    rationale="The operator does not reject replicas outside the bounds: GetWorkerGroupDesiredReplicas clamps them into [minReplicas, maxReplicas], so the cluster runs a different number of workers than declared.",
    fix="Set replicas between minReplicas and maxReplicas.",
    check=_check_replicas_clamped,
    compliant=_cluster_with_replicas(2),
    violating=_cluster_with_replicas(9),
    violating_path="spec.workerGroupSpecs[0].replicas",
    fixed=patch({"spec.workerGroupSpecs[0].replicas": 2}),
    cel=Cel(
        "!has(g.replicas) || (has(g.suspend) && g.suspend) || (has(g.minReplicas) ? g.minReplicas : 0) > (has(g.maxReplicas) ? g.maxReplicas : 2147483647) || (g.replicas >= (has(g.minReplicas) ? g.minReplicas : 0) && g.replicas <= (has(g.maxReplicas) ? g.maxReplicas : 2147483647))",
        over="worker",
        path="replicas",
        message="replicas is outside [minReplicas, maxReplicas], and KubeRay clamps it",
    ),
)
