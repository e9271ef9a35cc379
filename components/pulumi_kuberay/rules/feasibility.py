"""Ray feasibility, statically: can any group of the cluster ever host one Serve replica, a placement-group bundle
or a job's entrypoint? Ray leaves an infeasible request pending forever ("No available node types can fulfill
resource request"): the RayService never turns ready, the RayJob never runs. The groups' Ray resources are KubeRay's
(``_ray_resources``: ``generateRayStartCommand``, ``addWellKnownAcceleratorResources``); an amount Ray detects from
the node is not known and never judged.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

from pulumi_kuberay.kuberay.paths import (
    ClusterSpecRef,
    as_dict,
    as_list,
    cluster_specs,
    group_template,
    is_unknown,
    ray_container,
    worker_groups,
)
from pulumi_kuberay.kuberay.resources import GOOGLE_TPU

from ._engine import KINDS, Context, Violation, declare
from ._examples import example, example_job, example_service, worker_of
from ._fixed import patch
from ._manifest_readers import job_specs
from ._ray_resources import (
    CPU,
    Offer,
    bundle_needs,
    cluster_offers,
    describe_need,
    detected_reason,
    fits,
    group_label,
    group_names,
    largest_offers,
    needs_of,
    quantity,
)
from ._serve_config import BASE, DEFAULT_APP_NAME, serve_apps, serve_deployments

#: Ray Serve's default ``num_cpus`` of a replica (``ReplicaConfig._validate_ray_actor_options``).
SERVE_REPLICA_DEFAULT_CPUS = 1.0


def _offers(doc: dict[str, Any], prefix: str) -> tuple[Offer, ...] | None:
    for ref in cluster_specs(doc):
        if ref.prefix == prefix:
            return cluster_offers(ref, ref.annotations)
    return None


def _no_replicas(deployment: dict[str, Any]) -> bool:
    replicas = deployment.get("num_replicas")
    autoscaling = deployment.get("autoscaling_config")
    high = autoscaling.get("max_replicas") if isinstance(autoscaling, dict) else None
    return (replicas == 0 and not isinstance(replicas, bool)) or (high == 0 and not isinstance(high, bool))


def _infeasible(need: dict[str, float], offers: tuple[Offer, ...]) -> bool:
    return any(amount > 0 for amount in need.values()) and not any(fits(need, offer) for offer in offers)


#: What the listing says of the high findings of the rules below (the finding itself names the group and the reason).
_MAY_BE_DETECTED = "high, not certain: a group may offer it if Ray detects on its node what KubeRay does not pass to ray start"


def _uncertainty(need: dict[str, float], offers: Sequence[Offer]) -> str | None:
    """Why an infeasible ``need`` may still be placed: a group that would host it if Ray detected on its node what
    KubeRay does not pass to ``ray start`` (``Offer.detected``); None when nothing can (the failure is certain)."""
    for offer in offers:
        if fits(need, offer, with_detected=True):
            reasons = sorted({r for k in need if need[k] > 0 and (r := detected_reason(offer, k)) is not None})
            return f"high, not certain: group {group_label(offer.group)} may offer it ({'; '.join(reasons)})"
    return None


def _infeasible_violation(message: str, path: str, need: dict[str, float], offers: Sequence[Offer]) -> Violation:
    """Critical when no group can host ``need`` whatever Ray detects; high, saying why, when one might."""
    uncertain = _uncertainty(need, offers)
    if uncertain is None:
        return Violation(message, path)
    return Violation(message, path, severity="high", severity_why=uncertain)


# --------------------------------------------------------------------------------------------------
# Serve deployments


def _check_serve_replicas(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    """Each deployment's ``ray_actor_options`` (and ``placement_group_bundles``) in serveConfigV2 against every
    group that can ever have a node. The config's ``ray_actor_options`` replaces the code's whole
    (``override_deployment_info``), and ``num_cpus`` then defaults to 1."""
    deployments = list(serve_deployments(doc))
    offers = _offers(doc, "spec.rayClusterConfig") if deployments else None
    if offers is None:
        return
    for app, deployment, path in deployments:
        if _no_replicas(deployment):
            continue
        name = deployment.get("name")
        label = f"Serve deployment {name!r} of application {app.get('name', DEFAULT_APP_NAME)!r}"
        options = deployment.get("ray_actor_options")
        need = needs_of(options, default_cpus=SERVE_REPLICA_DEFAULT_CPUS) if isinstance(options, dict) else None
        if need is not None and _infeasible(need, offers):
            yield _infeasible_violation(
                f"{label} needs {describe_need(need)} per replica, which no group can ever host (groups that can have nodes: {group_names(offers)}; the largest offers: {largest_offers(need, offers)}); its replicas stay pending and the RayService never turns ready",
                f"{path}.ray_actor_options",
                need,
                offers,
            )
        for i, bundle in bundle_needs(deployment.get("placement_group_bundles")):
            if _infeasible(bundle, offers):
                yield _infeasible_violation(
                    f"{label}: placement group bundle {i} needs {describe_need(bundle)}, which no group can ever host (groups that can have nodes: {group_names(offers)}; the largest offers: {largest_offers(bundle, offers)}); the placement group stays pending",
                    f"{path}.placement_group_bundles[{i}]",
                    bundle,
                    offers,
                )


def _serve_config(*deployment_lines: str) -> str:
    return (  # text-block
        "applications:\n"
        "  - name: fruit_app\n"
        "    import_path: fruit.deployment_graph\n"
        "    route_prefix: /fruit\n"
        "    deployments:\n"
        "      - name: MangoStand\n"
        "        num_replicas: 1\n" + "".join(f"        {line}\n" for line in deployment_lines)
    )


_SERVE_FITS = _serve_config("ray_actor_options:", "  num_cpus: 1", "  memory: 1073741824")

declare(
    id="serve-replica-infeasible",
    title="No group can ever host a Serve replica",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rationale="Ray places a Serve replica on one node that has every resource of its ray_actor_options (num_cpus, 1 by default; num_gpus; memory in bytes; custom resources; accelerator_type). When no group of the cluster advertises enough (rayStartParams or group resources, else what KubeRay derives from the Ray container's limits), the replica stays pending forever and the RayService never turns ready.",
    proof="no group that can have a node offers one replica's resources, counting what KubeRay passes to ray start (rayStartParams, group resources, the Ray container's limits); not certain, so high with the reason, where Ray may detect more on the node itself (a device KubeRay does not translate, RAY_OVERRIDE_RESOURCES, GPU nodes tolerated without a request); not judged where a container runs its own ray start or a value is known only at apply",
    fix="Lower the deployment's ray_actor_options, or give a worker group (maxReplicas > 0) the resources it needs: container limits (cpu, memory, nvidia.com/gpu) or rayStartParams/resources for custom resources.",
    check=_check_serve_replicas,
    also=(_MAY_BE_DETECTED,),
    compliant=example_service(serveConfigV2=_SERVE_FITS),
    violating=example_service(serveConfigV2=_serve_config("ray_actor_options:", "  num_cpus: 1", "  num_gpus: 1")),
    violating_path=f"{BASE}.applications[0].deployments[0].ray_actor_options",
    fixed=patch({"spec.serveConfigV2": _SERVE_FITS}),
)


def _code_decides(app: dict[str, Any]) -> str | None:
    """Which deployments of ``app`` take their ``ray_actor_options`` from the application's code, said for the
    message; None when the config gives every listed deployment its own. Ray Serve's ``override_deployment_info``
    replaces the code's options only with the config's ``ray_actor_options``; a deployment the config does not list,
    or lists without them, keeps the code's, which the spec does not show (Serve's default is 1 CPU)."""
    listed = [d for d in as_list(app.get("deployments")) if isinstance(d, dict)]
    if not listed:
        return "the config lists none of its deployments"
    names = [str(d.get("name")) for d in listed if not _no_replicas(d) and "ray_actor_options" not in d]
    if not names:
        return None
    return f"the config gives {', '.join(repr(n) for n in names)} no ray_actor_options"


def _check_serve_no_cpu(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    """Every group that can have a node offers 0 CPU (the head at ``num-cpus: "0"``, no worker group or all at
    ``maxReplicas: 0``), while an application's deployments keep Serve's default of 1 CPU per replica."""
    apps = serve_apps(doc)
    offers = _offers(doc, "spec.rayClusterConfig") if apps else None
    if offers is None or any(offer.amount(CPU) != 0 for offer in offers):
        return
    for _, app, path in apps:
        decides = None if is_unknown(app.get("import_path")) else _code_decides(app)
        if decides is None:
            continue  # deployments listed with their ray_actor_options: serve-replica-infeasible judges them (critical)
        yield Violation(
            f"application {app.get('name', DEFAULT_APP_NAME)!r}: no group of the cluster ever offers a CPU (groups that can have nodes: {group_names(offers)}, each at 0 CPU), and a Serve replica reserves 1 CPU unless its code sets num_cpus: 0; its replicas would stay pending (not certain: {decides}, so Ray Serve keeps the options of the application's code, which the spec does not show)",
            path,
        )


def _zero_cpu_head(doc: dict[str, Any]) -> dict[str, Any]:
    doc["spec"]["rayClusterConfig"]["headGroupSpec"]["rayStartParams"] = {"num-cpus": "0"}
    doc["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["maxReplicas"] = 0
    doc["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["minReplicas"] = 0
    doc["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["replicas"] = 0
    return doc


declare(
    id="serve-cluster-no-cpu",
    title="Serve application on a cluster that never offers a CPU",
    severity="high",
    category="correctness",
    kinds=("RayService",),
    rationale="A Serve replica reserves 1 CPU unless its ray_actor_options say otherwise. A head at num-cpus \"0\" with no worker group that can have nodes (none, or all at maxReplicas 0) offers no CPU anywhere: unless the code sets num_cpus: 0, the replicas stay pending and the RayService never turns ready. High, not critical: this rule judges only deployments whose options the spec does not show (not listed in serveConfigV2, or listed without ray_actor_options, so Ray Serve's override_deployment_info keeps the code's); a deployment whose ray_actor_options the config gives is judged by serve-replica-infeasible, critical (the config's options replace the code's whole, num_cpus then defaulting to 1).",
    fix="Add a worker group with maxReplicas > 0 and a CPU limit, or (for a tiny service) let the head run replicas by removing num-cpus: \"0\".",
    check=_check_serve_no_cpu,
    compliant=example_service(),
    violating=_zero_cpu_head(example_service()),
    violating_path=f"{BASE}.applications[0]",
    fixed=patch({"spec.rayClusterConfig.workerGroupSpecs[0].maxReplicas": 2}),
)


# --------------------------------------------------------------------------------------------------
# RayJob entrypoint


def _entrypoint_need(spec: dict[str, Any]) -> dict[str, float] | None:
    """``--entrypoint-num-cpus``, ``--entrypoint-num-gpus``, ``--entrypoint-resources`` (a JSON object string) of
    ``GetK8sJobCommand``; None when a value is not known or not a number."""
    need: dict[str, float] = {}
    for key, resource in (("entrypointNumCpus", "CPU"), ("entrypointNumGpus", "GPU")):
        value = spec.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        need[resource] = float(value)
    text = spec.get("entrypointResources")
    if text is not None:
        try:
            custom = json.loads(text) if isinstance(text, str) and not is_unknown(text) else None
        except ValueError:
            return None
        if not isinstance(custom, dict):
            return None
        for name, value in custom.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return None
            need[str(name)] = float(value)
    return need


def _check_entrypoint(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    """The entrypoint's resources against every group of the RayJob's own cluster (``rayClusterSpec``; a job on a
    selected cluster is not judged: that cluster is another object)."""
    refs: dict[str, ClusterSpecRef] = {ref.prefix: ref for ref in cluster_specs(doc)}
    for spec, path in job_specs(doc):
        ref = refs.get(f"{path}.rayClusterSpec")
        need = _entrypoint_need(spec) if ref is not None and "clusterSelector" not in spec else None
        if ref is None or need is None or not any(amount > 0 for amount in need.values()):
            continue
        offers = cluster_offers(ref, ref.annotations)
        if offers is not None and _infeasible(need, offers):
            yield _infeasible_violation(
                f"the entrypoint needs {describe_need(need)}, which no group of the job's cluster can ever host (groups that can have nodes: {group_names(offers)}; the largest offers: {largest_offers(need, offers)}); the job stays pending and never runs",
                f"{path}.{_blamed_field(need, offers)}",
                need,
                offers,
            )


def _blamed_field(need: dict[str, float], offers: tuple[Offer, ...]) -> str:
    """The entrypoint field no group satisfies alone (CPU, then GPU), else entrypointResources."""
    for field, resource in (("entrypointNumCpus", "CPU"), ("entrypointNumGpus", "GPU")):
        if need.get(resource, 0) > 0 and not any(fits({resource: need[resource]}, offer) for offer in offers):
            return field
    return "entrypointResources"


declare(
    id="rayjob-entrypoint-infeasible",
    title="No group can ever host the job's entrypoint",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rationale="entrypointNumCpus, entrypointNumGpus and entrypointResources reserve resources for the job's driver on one node. When no group of the job's cluster advertises them (rayStartParams or group resources, else what KubeRay derives from the Ray container's limits), the job stays PENDING until Ray gives up, and the RayJob fails.",
    proof="no group of the job's own cluster offers the entrypoint's resources, counting what KubeRay passes to ray start; high with the reason where Ray may detect more on the node (as serve-replica-infeasible); a job on a selected cluster is not judged",
    fix="Lower the entrypoint's resources, or give a group (maxReplicas > 0) what the entrypoint needs: container limits (cpu, nvidia.com/gpu) or rayStartParams/resources for custom resources.",
    check=_check_entrypoint,
    also=(_MAY_BE_DETECTED,),
    compliant=example_job(entrypointNumCpus=1),
    violating=example_job(entrypointNumGpus=1),
    violating_path="spec.entrypointNumGpus",
    fixed=patch({"spec.entrypointNumGpus": 0}),
)


# --------------------------------------------------------------------------------------------------
# Multi-host TPU slices

TPU_RESOURCE = GOOGLE_TPU
TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"


def _topology_chips(text: Any) -> int | None:
    """The chips of a GKE TPU topology (``2x2x2`` -> 8), None if it is not one."""
    if not isinstance(text, str) or is_unknown(text):
        return None
    dims = text.strip().lower().split("x")
    if not all(d.isdigit() and int(d) > 0 for d in dims):
        return None
    chips = 1
    for d in dims:
        chips *= int(d)
    return chips


def _check_tpu_hosts(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    """A worker group on a GKE TPU slice (``google.com/tpu`` and the ``gke-tpu-topology`` node selector) has one Pod
    per host of the slice: ``numOfHosts`` = max(chips of the topology / chips per host, 1). GKE's documentation for
    KubeRay and ai-on-gke's kuberay-tpu-webhook (which rejects it) say so; kubectl-ray's ValidateTPU is not part of
    the operator's module."""
    for ref in cluster_specs(doc):
        for group in worker_groups(ref):
            template = group_template(group)
            found = ray_container(template) if template is not None else None
            if template is None or found is None:
                continue
            resources = as_dict(found[1].get("resources"))
            per_host = quantity(as_dict(resources.get("limits")).get(TPU_RESOURCE))
            if per_host is None:
                per_host = quantity(as_dict(resources.get("requests")).get(TPU_RESOURCE))
            chips = _topology_chips(as_dict(template.pod_spec.get("nodeSelector")).get(TPU_TOPOLOGY_LABEL))
            hosts = group.spec.get("numOfHosts", 1)
            if per_host is None or per_host <= 0 or chips is None:
                continue
            if isinstance(hosts, bool) or not isinstance(hosts, int):
                continue
            expected = max(Fraction(chips) / per_host, Fraction(1))
            if max(hosts, 1) != expected:  # numOfHosts <= 0 is read as 1 (reconcilePods)
                topology = template.pod_spec["nodeSelector"][TPU_TOPOLOGY_LABEL]
                needed = f"{expected} hosts" if expected.denominator == 1 else f"{float(expected):g} hosts, not a whole number"
                yield Violation(
                    f"worker group {group.name!r}: the TPU topology {topology} has {chips} chips and each Pod gets {float(per_host):g} ({TPU_RESOURCE}), so one slice takes {needed}, but numOfHosts is {hosts}; the slice never forms (its Pods wait for hosts that never join, or stay pending)",
                    group.path + ".numOfHosts",
                )


def _tpu_group(hosts: int | None) -> dict[str, Any]:
    def mutate(doc: dict[str, Any]) -> None:
        worker = worker_of(doc)
        limits = {"cpu": "8", "memory": "32Gi", TPU_RESOURCE: "4"}
        worker["template"]["spec"]["containers"][0]["resources"] = {"limits": limits, "requests": dict(limits)}
        worker["template"]["spec"]["nodeSelector"] = {
            "cloud.google.com/gke-tpu-accelerator": "tpu-v4-podslice",
            TPU_TOPOLOGY_LABEL: "2x2x2",
        }
        if hosts is not None:
            worker["numOfHosts"] = hosts

    return example(mutate)


declare(
    id="tpu-hosts-topology-mismatch",
    title="numOfHosts does not match the TPU slice's topology",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="A multi-host TPU slice runs one Pod per host: numOfHosts must be the topology's chips divided by the chips each Pod requests (google.com/tpu), at least 1 (2x2x2 with 4 per host: 2). Fewer Pods leave the slice incomplete and JAX waits for hosts that never join; more stay pending; GKE's kuberay-tpu-webhook rejects the object.",
    proof="the topology's chips and google.com/tpu per Pod fix the number of hosts a slice needs; not judged where either is missing or known only at apply",
    fix="Set numOfHosts to the topology's chips / google.com/tpu (e.g. 2x2x2 with google.com/tpu: 4 -> numOfHosts: 2), or pick the topology of the slice you want.",
    check=_check_tpu_hosts,
    compliant=_tpu_group(2),
    violating=_tpu_group(None),
    violating_path="spec.workerGroupSpecs[0].numOfHosts",
    fixed=patch({"spec.workerGroupSpecs[0].numOfHosts": 2}),
)
