"""Deliberately non-compliant KubeRay resources, declared as plain ``CustomResource`` objects.

Each one breaks one catalogue rule the policy pack must catch:

- RayCluster ``unbounded``: autoscaling on, worker group without ``maxReplicas`` (CRD default 2147483647)
  -> ``autoscaling-bounds-explicit``; its worker container is ``privileged`` -> ``pod-security-baseline``.
- RayService ``clash``: two Serve applications on the same ``route_prefix`` -> ``serve-route-prefix-duplicate``.

The provider renders to a directory: ``pulumi up`` would write YAML, never touch a cluster.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi_kubernetes import Provider
from pulumi_kubernetes.apiextensions import CustomResource

IMAGE = "rayproject/ray:2.52.0"


def _pod(container: str, security: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": container,
        "image": IMAGE,
        "resources": {
            "requests": {"cpu": "1", "memory": "2Gi"},
            "limits": {"cpu": "1", "memory": "2Gi"},
        },
    }
    if security is not None:
        spec["securityContext"] = security
    return {"spec": {"containers": [spec]}}


def _cluster_spec(*, worker_security: dict[str, Any] | None = None, bounded: bool = True) -> dict[str, Any]:
    worker: dict[str, Any] = {
        "groupName": "cpu",
        "minReplicas": 0,
        "rayStartParams": {},
        "template": _pod("ray-worker", worker_security),
    }
    if bounded:
        worker["maxReplicas"] = 2
    return {
        "rayVersion": "2.52.0",
        "enableInTreeAutoscaling": True,
        "headGroupSpec": {"rayStartParams": {}, "template": _pod("ray-head")},
        "workerGroupSpecs": [worker],
    }


provider = Provider("render", render_yaml_to_directory="rendered")
opts = pulumi.ResourceOptions(provider=provider)

CustomResource(
    "unbounded",
    api_version="ray.io/v1",
    kind="RayCluster",
    metadata={"name": "unbounded", "namespace": "ray"},
    spec=_cluster_spec(worker_security={"privileged": True}, bounded=False),
    opts=opts,
)

CustomResource(
    "clash",
    api_version="ray.io/v1",
    kind="RayService",
    metadata={"name": "clash", "namespace": "ray"},
    spec={
        "serveConfigV2": (
            "applications:\n"
            "  - name: a\n"
            "    route_prefix: /\n"
            "    import_path: a.main:app\n"
            "  - name: b\n"
            "    route_prefix: /\n"
            "    import_path: b.main:app\n"
        ),
        "rayClusterConfig": _cluster_spec(),
    },
    opts=opts,
)
