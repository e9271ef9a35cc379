"""The near-valid manifests the mutations start from, and where things are in them (shared by the mutation
modules of ``_generate``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

JsonDict = dict[str, Any]
Mutation = Callable[[st.DrawFn, JsonDict], str]

KINDS = ("RayCluster", "RayJob", "RayService", "RayCronJob")
IMAGE = "rayproject/ray:2.52.0"


def _container(name: str) -> JsonDict:
    return {
        "name": name,
        "image": IMAGE,
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}},
    }


def cluster_spec() -> JsonDict:
    return {
        "rayVersion": "2.52.0",
        "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [_container("ray-head")]}}},
        "workerGroupSpecs": [
            {
                "groupName": "cpu",
                "replicas": 1,
                "minReplicas": 1,
                "maxReplicas": 3,
                "rayStartParams": {},
                "template": {"spec": {"containers": [_container("ray-worker")]}},
            }
        ],
    }


def job_spec() -> JsonDict:
    return {
        "entrypoint": "python -c 'print(1)'",
        "shutdownAfterJobFinishes": True,
        "ttlSecondsAfterFinished": 60,
        "rayClusterSpec": cluster_spec(),
    }


def base(kind: str, name: str = "demo") -> JsonDict:
    spec: JsonDict
    if kind == "RayCluster":
        spec = cluster_spec()
    elif kind == "RayJob":
        spec = job_spec()
    elif kind == "RayService":
        spec = {
            "serveConfigV2": "applications:\n- name: app\n  import_path: app:deployment\n",
            "rayClusterConfig": cluster_spec(),
        }
    else:
        spec = {"schedule": "*/5 * * * *", "jobTemplate": job_spec()}
    return {"apiVersion": "ray.io/v1", "kind": kind, "metadata": {"name": name, "namespace": "ray"}, "spec": spec}


# --------------------------------------------------------------------------------------------------
# Where things are.


def cluster_of(doc: JsonDict) -> JsonDict | None:
    spec = doc.get("spec") or {}
    readers: dict[str, Callable[[], Any]] = {
        "RayCluster": lambda: spec,
        "RayJob": lambda: spec.get("rayClusterSpec"),
        "RayService": lambda: spec.get("rayClusterConfig"),
        "RayCronJob": lambda: (spec.get("jobTemplate") or {}).get("rayClusterSpec"),
    }
    found = readers[doc["kind"]]()
    return found if isinstance(found, dict) else None


def job_of(doc: JsonDict) -> JsonDict | None:
    if doc["kind"] == "RayJob":
        return doc["spec"]  # type: ignore[no-any-return]
    if doc["kind"] == "RayCronJob":
        return doc["spec"].get("jobTemplate")  # type: ignore[no-any-return]
    return None


def head(cluster: JsonDict) -> JsonDict:
    return cluster["headGroupSpec"]["template"]["spec"]["containers"][0]  # type: ignore[no-any-return]


def worker(cluster: JsonDict) -> JsonDict | None:
    groups = cluster.get("workerGroupSpecs") or []
    return groups[0] if groups else None


def show(value: Any) -> str:
    return json.dumps(value)


