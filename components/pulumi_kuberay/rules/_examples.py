"""Small, realistic manifests that rules use as their compliant / violating examples (data, not fixtures).

Each builder returns a fresh dict; rules deep-edit the copy they need. Shared by the practice and security
rule modules so their examples stay consistent with each other.
"""

from __future__ import annotations

import copy
from typing import Any

JsonDict = dict[str, Any]

RAY_IMAGE = "rayproject/ray:2.52.0"

SECURE_CONTEXT: JsonDict = {
    "allowPrivilegeEscalation": False,
    "runAsNonRoot": True,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}


def ray_container(name: str, *, cpu: str = "2", memory: str = "8Gi", gpu: int = 0) -> JsonDict:
    limits: JsonDict = {"cpu": cpu, "memory": memory}
    if gpu:
        limits["nvidia.com/gpu"] = gpu
    return {
        "name": name,
        "image": RAY_IMAGE,
        "resources": {"limits": dict(limits), "requests": dict(limits)},
        "securityContext": copy.deepcopy(SECURE_CONTEXT),
    }


def cluster_spec(*, head_cpus: str | None = "0") -> JsonDict:
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
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": name},
        "spec": cluster_spec(),
    }


def ray_service(name: str = "serve") -> JsonDict:
    serve = (
        "applications:\n"
        "  - name: fruit\n    import_path: fruit.app\n    route_prefix: /fruit\n"
        "  - name: math\n    import_path: math_app:app\n    route_prefix: /math\n"
    )
    spec = cluster_spec()
    head = spec["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"].append({"containerPort": 8000, "name": "serve"})
    return {
        "apiVersion": "ray.io/v1",
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
