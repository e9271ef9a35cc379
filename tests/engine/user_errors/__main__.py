"""One user error, chosen by the stack's ``case`` config: each must fail the preview with the field path and the
fix, without a Python traceback (the components raise ``pulumi.RunError`` subclasses for the user's errors).

- ``bad-value``: a RayCluster spec (a dict) with ``maxReplicas: "many"``.
- ``serve-typo``: a RayService whose ``serveConfigV2`` misspells ``route_prefix``.
- ``job-no-cluster``: a RayJob with neither ``rayClusterSpec`` nor ``clusterSelector`` nor ``cluster=``.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kuberay as kr
import pulumi_kubernetes as k8s

IMAGE = "rayproject/ray:2.52.0"

provider = k8s.Provider("render", render_yaml_to_directory="rendered")
opts = pulumi.ResourceOptions(provider=provider)
case = pulumi.Config().require("case")


def cluster_spec(max_replicas: Any = 1) -> dict[str, Any]:
    return {
        "rayVersion": "2.52.0",
        "image": IMAGE,
        "headGroupSpec": {"cpu": 1, "memory": "4Gi"},
        "workerGroupSpecs": [
            {"groupName": "cpu", "cpu": 1, "memory": "4Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": max_replicas}
        ],
    }


if case == "bad-value":
    kr.RayCluster("bad", cluster_spec(max_replicas="many"), opts)
elif case == "serve-typo":
    serve = "applications:\n- name: app\n  import_path: app:deployment\n  route_prefx: /app\n"
    kr.RayService("typo", {"serveConfigV2": serve, "rayClusterConfig": cluster_spec()}, opts)
elif case == "job-no-cluster":
    kr.RayJob("orphan", {"entrypoint": "python x.py"}, opts)
else:
    raise pulumi.RunError(f"unknown case {case!r}")
