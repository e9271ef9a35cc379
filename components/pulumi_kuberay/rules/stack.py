"""Rules over a whole set of manifests (a Pulumi stack, or every file given to ``kuberay-lint``).

A per-resource rule cannot see that a RayJob's ``clusterSelector`` points at no RayCluster, or that the
clusters together may claim more GPUs than the budget; these rules can. Plain Python, no pulumi.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pulumi_kuberay.kuberay import RAY_CLUSTER_LABEL as _SELECTOR_KEY
from pulumi_kuberay.kuberay.api import API_VERSION
from pulumi_kuberay.kuberay.paths import as_dict, as_int, as_list
from pulumi_kuberay.kuberay.quantity import amount as quantity_amount
from pulumi_kuberay.kuberay.resources import NVIDIA_GPU, is_gpu_resource_key

from ._engine import KINDS, Context, Violation, declare
from ._fixed import patch
from ._manifest_readers import job_specs

JsonDict = dict[str, Any]
#: The one key of a RayJob's clusterSelector KubeRay v1.7.0 reads: the name of the RayCluster to run on.


def _kind(doc: JsonDict) -> str:
    api = doc.get("apiVersion")
    return str(doc.get("kind")) if isinstance(api, str) and api.startswith("ray.io/") else ""


def _namespace(doc: JsonDict) -> str:
    ns = as_dict(doc.get("metadata")).get("namespace")
    return ns if isinstance(ns, str) and ns else "default"


def _name(doc: JsonDict) -> str:
    name = as_dict(doc.get("metadata")).get("name")
    return name if isinstance(name, str) else ""


def _selector_unmatched(docs: Sequence[JsonDict], ctx: Context) -> Iterable[Violation]:
    clusters: list[JsonDict] = [d for d in docs if _kind(d) == "RayCluster"]
    for index, doc in enumerate(docs):
        kind = _kind(doc)
        if kind not in ("RayJob", "RayCronJob"):
            continue
        for spec, path in job_specs(doc):  # a RayJob's spec, a RayCronJob's spec.jobTemplate
            selector = as_dict(spec.get("clusterSelector"))
            # v1.7.0 reads one key of the selector, ray.io/cluster: the name of the RayCluster to use (the RayJob
            # controller's Get by name, ValidateRayJobSpec); other keys are ignored, labels are never matched.
            cluster_name = selector.get(_SELECTOR_KEY)
            if not isinstance(cluster_name, str) or not cluster_name:
                continue  # no name: ValidateRayJobSpec rejects the RayJob (rayjob-cluster-selector-* rules)
            namespace = _namespace(doc)
            here = [c for c in clusters if _namespace(c) == namespace]
            if not here or any(_name(c) == cluster_name for c in here):
                continue  # no RayCluster of that namespace in the set: it may be managed elsewhere, nothing to judge
            others = sorted(str(k) for k in selector if k != _SELECTOR_KEY)
            ignored = f" (its other keys, {', '.join(others)}, are ignored)" if others else ""
            runs, field = ("runs", "clusterSelector")
            if kind == "RayCronJob":
                runs, field = "schedules RayJobs that run", "jobTemplate.clusterSelector"
            yield Violation(
                f"{kind} {namespace}/{_name(doc)} {runs} on the RayCluster named by {field}[{_SELECTOR_KEY!r}] ({cluster_name!r}): KubeRay reads only that key{ignored}, and no RayCluster of that name is in namespace {namespace!r} in {{set}}; the job waits forever for it",
                f"{path}.clusterSelector[{_SELECTOR_KEY!r}]",
                index=index,
            )


def _gpus_per_pod(template: Any) -> int:
    total = 0
    for container in as_list(as_dict(as_dict(template).get("spec")).get("containers")):
        limits = as_dict(as_dict(as_dict(container).get("resources")).get("limits"))
        for resource, amount in limits.items():
            count = quantity_amount(amount) if is_gpu_resource_key(str(resource)) else None
            if count is not None and count.denominator == 1:
                total += int(count)
    return total


def _first_int(*values: Any) -> int:
    """The first value that is an integer (integral floats included); the last argument is the default."""
    for value in values:
        number = as_int(value)
        if number is not None:
            return number
    return 0


def cluster_gpu_ceiling(spec: Any) -> int:
    """GPUs a RayClusterSpec can hold at once: head plus every worker group at maxReplicas x numOfHosts."""
    spec = as_dict(spec)
    total = _gpus_per_pod(as_dict(spec.get("headGroupSpec")).get("template"))
    for group in as_list(spec.get("workerGroupSpecs")):
        group = as_dict(group)
        replicas = _first_int(group.get("maxReplicas"), group.get("replicas"), 0)
        if not spec.get("enableInTreeAutoscaling"):
            replicas = _first_int(group.get("replicas"), group.get("minReplicas"), 0)
        total += replicas * _first_int(group.get("numOfHosts"), 1) * _gpus_per_pod(group.get("template"))
    return total


def _embedded_specs(doc: JsonDict) -> Iterable[tuple[str, Any, int]]:
    """(path, RayClusterSpec, multiplier) for the cluster a document runs; a NewCluster upgrade doubles it."""
    spec = as_dict(doc.get("spec"))
    kind = _kind(doc)
    if kind == "RayCluster":
        yield "spec", spec, 1
    elif kind == "RayJob" and "rayClusterSpec" in spec:
        yield "spec.rayClusterSpec", spec["rayClusterSpec"], 1
    elif kind == "RayService":
        strategy = as_dict(spec.get("upgradeStrategy")).get("type")
        yield "spec.rayClusterConfig", spec.get("rayClusterConfig"), 1 if strategy == "None" else 2
    elif kind == "RayCronJob":
        job = as_dict(spec.get("jobTemplate"))
        if "rayClusterSpec" in job:
            yield "spec.jobTemplate.rayClusterSpec", job["rayClusterSpec"], 1


def _gpu_budget(docs: Sequence[JsonDict], ctx: Context) -> Iterable[Violation]:
    budget = ctx.options.gpu_budget
    if budget is None:
        return
    claims: list[tuple[int, str, int]] = []
    for index, doc in enumerate(docs):
        for path, spec, multiplier in _embedded_specs(doc):
            gpus = cluster_gpu_ceiling(spec) * multiplier
            if gpus:
                claims.append((index, path, gpus))
    total = sum(g for _, _, g in claims)
    if total > budget and claims:
        index, path, _ = max(claims, key=lambda c: c[2])
        detail = ", ".join(f"{_kind(docs[i])} {_name(docs[i])}: {g}" for i, _, g in claims)
        yield Violation(
            f"the clusters in {{set}} can claim {total} GPUs at maxReplicas ({detail}), over the budget of {budget}",
            path,
            index=index,
        )


def _cluster(name: str, *, gpu: int = 0, max_replicas: int = 2, labels: JsonDict | None = None) -> JsonDict:
    container: JsonDict = {"name": "ray-worker", "image": "rayproject/ray:2.52.0"}
    if gpu:
        container["resources"] = {"limits": {NVIDIA_GPU: gpu}, "requests": {NVIDIA_GPU: gpu}}
    return {
        "apiVersion": API_VERSION,
        "kind": "RayCluster",
        "metadata": {"name": name, **({"labels": labels} if labels else {})},
        "spec": {
            "enableInTreeAutoscaling": True,
            "headGroupSpec": {
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.52.0"}]}}
            },
            "workerGroupSpecs": [
                {
                    "groupName": "gpu",
                    "minReplicas": 0,
                    "maxReplicas": max_replicas,
                    "template": {"spec": {"containers": [container]}},
                }
            ],
        },
    }


def _job(selector: JsonDict) -> JsonDict:
    return {
        "apiVersion": API_VERSION,
        "kind": "RayJob",
        "metadata": {"name": "batch"},
        "spec": {"entrypoint": "python train.py", "clusterSelector": selector},
    }


declare(
    id="rayjob-cluster-selector-unmatched",
    scope="stack",
    title="A RayJob's (or RayCronJob jobTemplate's) clusterSelector matches a RayCluster of the same stack",
    severity="high",
    category="correctness",
    kinds=("RayCluster", "RayJob", "RayCronJob"),
    rationale="A RayJob in clusterSelector mode (or each RayJob a RayCronJob creates from such a jobTemplate) never creates a cluster: KubeRay v1.7.0 reads only clusterSelector['ray.io/cluster'] and uses the RayCluster of that name in the RayJob's namespace (other keys are ignored, labels never matched); if there is none, the job stays in Initializing forever. Judged only where the set declares RayClusters in that namespace (one managed elsewhere is not seen).",
    fix="Set clusterSelector: {ray.io/cluster: <name of an existing RayCluster in the same namespace>} or embed rayClusterSpec.",
    check=_selector_unmatched,
    compliant=(_cluster("shared"), _job({_SELECTOR_KEY: "shared"})),
    violating=(_cluster("shared"), _job({_SELECTOR_KEY: "sharde"})),
    violating_path="spec.clusterSelector['ray.io/cluster']",
    fixed=patch({'[1].spec.clusterSelector["ray.io/cluster"]': "shared"}),
)

declare(
    id="gpu-budget-exceeded",
    scope="stack",
    title="GPUs claimable at maxReplicas stay within the configured budget",
    severity="high",
    category="cost",
    kinds=KINDS,
    rationale=(
        "Autoscaling clusters can grow to maxReplicas; the sum over the stack (a RayService counts twice while a NewCluster upgrade runs both clusters) is what the GPU quota must cover."
    ),
    fix="Lower maxReplicas or GPUs per worker, or raise the gpu_budget option of the policy pack / lint command.",
    check=_gpu_budget,
    compliant=(_cluster("a", gpu=1, max_replicas=4),),
    violating=(_cluster("a", gpu=2, max_replicas=4), _cluster("b", gpu=1, max_replicas=4)),
    violating_path="spec",
    fixed=patch({"[0].spec.workerGroupSpecs[0].maxReplicas": 2}),
    context={"options": {"gpu_budget": 8}},
)
