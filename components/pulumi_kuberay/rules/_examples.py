"""Small, realistic manifests that rules use as their compliant / violating examples (data, not fixtures).

The baseline per kind: :func:`base_cluster` (RayCluster; :func:`example` edits a copy), :func:`example_job`
(RayJob, embedding :func:`example_cluster_spec`), :func:`example_service` (RayService),
:func:`example_cronjob` (RayCronJob); :func:`ray_cluster` / :func:`ray_service` are the hardened variants the
security and practice rules start from. Each builder returns a fresh dict; rules deep-edit the copy they need.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, TypedDict

from pulumi_kuberay.kuberay.api import API_VERSION
from pulumi_kuberay.kuberay.names import RAY_CLUSTER_LABEL
from pulumi_kuberay.kuberay.resources import NVIDIA_GPU

from ._fixed import Patch, patch

JsonDict = dict[str, Any]

RAY_IMAGE = "rayproject/ray:2.52.0"


# --------------------------------------------------------------------------------------------------
# The RayClusterSpec every baseline embeds


def _plain_container(name: str, *, ports: list[dict[str, Any]] | None = None, memory: str = "2Gi") -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": name,
        "image": RAY_IMAGE,
        "resources": {"limits": {"cpu": "1", "memory": memory}, "requests": {"cpu": "1", "memory": memory}},
    }
    if ports is not None:
        container["ports"] = ports
    return container


def example_cluster_spec(
    *, autoscaling: bool = False, head_memory: str = "2Gi", worker_group: str = "small-group"
) -> dict[str, Any]:
    """The RayClusterSpec every baseline embeds: a head and one worker group, 1 CPU each, no hardening."""
    spec: dict[str, Any] = {
        "rayVersion": "2.52.0",
        "headGroupSpec": {
            "rayStartParams": {},
            "template": {
                "spec": {
                    "containers": [
                        _plain_container(
                            "ray-head",
                            memory=head_memory,
                            ports=[
                                {"containerPort": 6379, "name": "gcs-server"},
                                {"containerPort": 8265, "name": "dashboard"},
                                {"containerPort": 10001, "name": "client"},
                            ],
                        )
                    ]
                }
            },
        },
        "workerGroupSpecs": [
            {
                "groupName": worker_group,
                "replicas": 1,
                "minReplicas": 1,
                "maxReplicas": 5,
                "rayStartParams": {},
                "template": {"spec": {"containers": [_plain_container("ray-worker")]}},
            }
        ],
    }
    if autoscaling:
        spec["enableInTreeAutoscaling"] = True
    return spec


# --------------------------------------------------------------------------------------------------
# RayCluster: the baseline, and editors the cluster rules use to derive their examples


def base_cluster() -> dict[str, Any]:
    """The RayCluster baseline: :func:`example_cluster_spec` (a 4Gi head, worker group ``workergroup``)."""
    return {
        "apiVersion": API_VERSION,
        "kind": "RayCluster",
        "metadata": {"name": "raycluster-demo"},
        "spec": example_cluster_spec(head_memory="4Gi", worker_group="workergroup"),
    }


def example(mutate: Callable[[dict[str, Any]], Any] | None = None) -> dict[str, Any]:
    """A fresh base RayCluster, optionally changed in place by ``mutate(doc)``."""
    doc = base_cluster()
    if mutate is not None:
        mutate(doc)
    return doc


def spec_of(doc: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = doc["spec"]
    return spec


def head_of(doc: dict[str, Any]) -> dict[str, Any]:
    head: dict[str, Any] = doc["spec"]["headGroupSpec"]
    return head


def worker_of(doc: dict[str, Any], i: int = 0) -> dict[str, Any]:
    worker: dict[str, Any] = doc["spec"]["workerGroupSpecs"][i]
    return worker


def head_container_of(doc: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = head_of(doc)["template"]["spec"]["containers"][0]
    return container


def worker_container_of(doc: dict[str, Any], i: int = 0) -> dict[str, Any]:
    container: dict[str, Any] = worker_of(doc, i)["template"]["spec"]["containers"][0]
    return container



def set_ray_version(cluster_spec: dict[str, Any], version: str) -> dict[str, Any]:
    """Set a cluster spec's ``rayVersion`` and the tag of every ``rayproject/ray`` image in it to ``version``: an
    example that raises rayVersion alone would pair it with an older Ray image (never Ready from 2.53 on)."""
    cluster_spec["rayVersion"] = version
    groups = [cluster_spec.get("headGroupSpec") or {}, *(cluster_spec.get("workerGroupSpecs") or [])]
    for group in groups:
        for container in ((group.get("template") or {}).get("spec") or {}).get("containers") or []:
            image = container.get("image")
            if isinstance(image, str) and image.startswith("rayproject/ray:"):
                suffix = image.split(":", 1)[1].partition("-")[2]
                container["image"] = f"rayproject/ray:{version}" + (f"-{suffix}" if suffix else "")
    return cluster_spec

def with_autoscaling_v2(doc: dict[str, Any]) -> dict[str, Any]:
    """Turn on the in-tree autoscaler, version v2."""
    spec_of(doc).update(enableInTreeAutoscaling=True, autoscalerOptions={"version": "v2"})
    return doc


def add_env(container: dict[str, Any], name: str, value: str) -> dict[str, Any]:
    container.setdefault("env", []).append({"name": name, "value": value})
    return container


def annotate(doc: dict[str, Any], key: str, value: str) -> dict[str, Any]:
    doc["metadata"].setdefault("annotations", {})[key] = value
    return doc


# --------------------------------------------------------------------------------------------------
# RayJob, RayService, RayCronJob baselines, and variants the job and service rules use


def _ray_object(kind: str, name: str, spec: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """A ``kind`` object named ``name`` whose spec is ``spec`` with ``overrides`` applied (None removes a key)."""
    for key, value in overrides.items():
        if value is None:
            spec.pop(key, None)
        else:
            spec[key] = value
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": {"name": name}, "spec": spec}


def example_job(name: str = "rayjob-sample", **spec_fields: Any) -> dict[str, Any]:
    """A valid RayJob with an embedded cluster; ``spec_fields`` override its spec (None removes a key)."""
    spec: dict[str, Any] = {
        "entrypoint": "python /home/ray/samples/sample_code.py",
        "shutdownAfterJobFinishes": True,
        "ttlSecondsAfterFinished": 60,
        "activeDeadlineSeconds": 3600,
        "rayClusterSpec": example_cluster_spec(),
    }
    return _ray_object("RayJob", name, spec, spec_fields)


def _fruit_app(*, replicas: int) -> str:
    """The ``fruit_app`` Serve application (upstream's sample), as an item of ``applications``."""
    return (  # text-block
        "  - name: fruit_app\n"
        "    import_path: fruit.deployment_graph\n"
        "    route_prefix: /fruit\n"
        "    runtime_env:\n"
        "      working_dir: https://github.com/ray-project/test_dag/archive/78b4a5da.zip\n"
        "    deployments:\n"
        "      - name: MangoStand\n"
        f"        num_replicas: {replicas}\n"
    )


def example_service(name: str = "rayservice-sample", **spec_fields: Any) -> dict[str, Any]:
    """A valid RayService; ``spec_fields`` override its spec (None removes a key)."""
    cluster = example_cluster_spec()
    head = cluster["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"].append({"containerPort": 8000, "name": "serve"})
    spec: dict[str, Any] = {"serveConfigV2": "applications:\n" + _fruit_app(replicas=1), "rayClusterConfig": cluster}
    return _ray_object("RayService", name, spec, spec_fields)


def example_cronjob(name: str = "raycronjob-sample", **spec_fields: Any) -> dict[str, Any]:
    """A valid RayCronJob (hourly, Asia/Taipei); ``spec_fields`` override its spec (None removes a key)."""
    template = example_job()["spec"]
    spec: dict[str, Any] = {"schedule": "0 * * * *", "timeZone": "Asia/Taipei", "jobTemplate": template}
    return _ray_object("RayCronJob", name, spec, spec_fields)


def selector_job(**spec_fields: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "rayClusterSpec": None,
        "shutdownAfterJobFinishes": None,
        "ttlSecondsAfterFinished": None,
        "clusterSelector": {RAY_CLUSTER_LABEL: "shared-cluster"},
    }
    fields.update(spec_fields)
    return example_job(**fields)


def with_deletion_rules(*rules: tuple[str, str, int]) -> dict[str, Any]:
    """deletionStrategy with rules given as (policy, jobStatus, ttlSeconds)."""
    return {
        "deletionRules": [
            {"policy": policy, "condition": {"jobStatus": status, "ttlSeconds": ttl}} for policy, status, ttl in rules
        ]
    }


LEGACY_DELETION_OK = {"onSuccess": {"policy": "DeleteCluster"}, "onFailure": {"policy": "DeleteCluster"}}


def incremental_service(options: dict[str, Any] | None, *, autoscaling: bool = True) -> dict[str, Any]:
    cluster = example_cluster_spec(autoscaling=autoscaling)
    cluster["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"].append(
        {"containerPort": 8000, "name": "serve"}
    )
    strategy: dict[str, Any] = {"type": "NewClusterWithIncrementalUpgrade"}
    if options is not None:
        strategy["clusterUpgradeOptions"] = options
    return example_service(upgradeStrategy=strategy, rayClusterConfig=cluster)


GOOD_UPGRADE_OPTIONS = {
    "gatewayClassName": "istio",
    "stepSizePercent": 10,
    "intervalSeconds": 30,
    "maxSurgePercent": 10,
}


# ----------------------------------------------------------------------------------------------------
# RayService with a two-application Serve config (the serve rules' baseline)


def serve_service(serve_config: str) -> dict[str, Any]:
    return example_service(serveConfigV2=serve_config)


TWO_APPS = (  # text-block
    "applications:\n"
    + _fruit_app(replicas=2)
    + "        user_config:\n"
    "          price: 3\n"
    "  - name: math_app\n"
    "    import_path: conditional_dag.serve_dag\n"
    "    route_prefix: /calc\n"
    "    runtime_env:\n"
    "      working_dir: https://github.com/ray-project/test_dag/archive/78b4a5da.zip\n"
    "    deployments:\n"
    "      - name: Adder\n"
    "        num_replicas: 1\n"
)
SERVE_COMPLIANT = serve_service(TWO_APPS)


class ServeRuleExamples(TypedDict):
    """What most serve rules declare alike: they look at RayServices, the compliant example is
    :data:`SERVE_COMPLIANT` and the fix restores :data:`TWO_APPS` (``declare(..., **ON_TWO_APPS)``)."""

    kinds: tuple[str, ...]
    compliant: dict[str, Any]
    fixed: Patch


ON_TWO_APPS = ServeRuleExamples(
    kinds=("RayService",), compliant=SERVE_COMPLIANT, fixed=patch({"spec.serveConfigV2": TWO_APPS})
)


def serve_mutated(old: str, new: str) -> dict[str, Any]:
    assert old in TWO_APPS, old  # examples are built at import: a typo here fails every test loudly
    return serve_service(TWO_APPS.replace(old, new, 1))


# --------------------------------------------------------------------------------------------------
# Hardened, production-shaped variants (security and practice rules start from these)

SECURE_CONTEXT: JsonDict = {
    "allowPrivilegeEscalation": False,
    "runAsNonRoot": True,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}


def ray_container(name: str, *, cpu: str = "2", memory: str = "8Gi", gpu: int = 0) -> JsonDict:
    limits: JsonDict = {"cpu": cpu, "memory": memory}
    if gpu:
        limits[NVIDIA_GPU] = gpu
    return {
        "name": name,
        "image": RAY_IMAGE,
        "resources": {"limits": dict(limits), "requests": dict(limits)},
        "securityContext": copy.deepcopy(SECURE_CONTEXT),
    }


def hardened_cluster_spec(*, head_cpus: str | None = "0") -> JsonDict:
    head = ray_container("ray-head")
    head["ports"] = [
        {"containerPort": 6379, "name": "gcs-server"},
        {"containerPort": 8265, "name": "dashboard"},
        {"containerPort": 10001, "name": "client"},
    ]
    head_group: JsonDict = {"template": {"spec": {"containers": [head]}}}
    if head_cpus is not None:
        head_group["rayStartParams"] = {"num-cpus": head_cpus}
    return {
        "rayVersion": "2.52.0",
        "enableInTreeAutoscaling": True,
        "autoscalerOptions": {"securityContext": copy.deepcopy(SECURE_CONTEXT)},
        "headGroupSpec": head_group,
        "workerGroupSpecs": [
            {
                "groupName": "cpu",
                "replicas": 1,
                "minReplicas": 1,
                "maxReplicas": 4,
                "template": {"spec": {"containers": [ray_container("ray-worker", cpu="4", memory="16Gi")]}},
            }
        ],
    }


def ray_cluster(name: str = "shared") -> JsonDict:
    return {
        "apiVersion": API_VERSION,
        "kind": "RayCluster",
        "metadata": {"name": name},
        "spec": hardened_cluster_spec(),
    }


def ray_service(name: str = "serve") -> JsonDict:
    serve = (  # text-block
        "applications:\n"
        "  - name: fruit\n    import_path: fruit.app\n    route_prefix: /fruit\n"
        "  - name: math\n    import_path: math_app:app\n    route_prefix: /math\n"
    )
    spec = hardened_cluster_spec()
    head = spec["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"].append({"containerPort": 8000, "name": "serve"})
    return {
        "apiVersion": API_VERSION,
        "kind": "RayService",
        "metadata": {"name": name},
        "spec": {
            "upgradeStrategy": {"type": "NewCluster"},
            "serveConfigV2": serve,
            "rayClusterConfig": {
                **spec,
                "gcsFaultToleranceOptions": {
                    "redisAddress": "redis:6379",
                    "redisPassword": {"valueFrom": {"secretKeyRef": {"name": "redis", "key": "password"}}},
                },
            },
        },
    }


# --------------------------------------------------------------------------------------------------
# Editors


def edit(doc: JsonDict, path: list[str | int], value: Any) -> JsonDict:
    """A deep copy of ``doc`` with ``value`` set at ``path`` (intermediate dicts created as needed)."""
    out = copy.deepcopy(doc)
    cur: Any = out
    for key in path[:-1]:
        cur = cur[key] if isinstance(key, int) else cur.setdefault(key, {})
    cur[path[-1]] = value
    return out


def remove(doc: JsonDict, path: list[str | int]) -> JsonDict:
    out = copy.deepcopy(doc)
    cur: Any = out
    for key in path[:-1]:
        cur = cur[key]
    del cur[path[-1]]
    return out
