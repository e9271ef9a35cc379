"""The manifests and edits of the change table (``plan._cases``): a base object of each kind, and each edit a row
applies to it (one function per field changed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pulumi_kuberay.kuberay.api import API_VERSION

JsonDict = dict[str, Any]
IMAGE = "rayproject/ray:2.52.0"
NEW_IMAGE = "rayproject/ray:2.53.0"
SERVE = "applications:\n- name: text\n  route_prefix: /text\n  import_path: text_app.main:app\n"
SERVE_CHANGED = "applications:\n- name: text\n  route_prefix: /text\n  import_path: text_app.v2:app\n"


def _container(name: str, image: str = IMAGE) -> JsonDict:
    return {
        "name": name,
        "image": image,
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}},
    }


def _group(name: str, replicas: int = 1, image: str = IMAGE) -> JsonDict:
    return {
        "groupName": name,
        "replicas": replicas,
        "minReplicas": 0,
        "maxReplicas": 5,
        "rayStartParams": {},
        "template": {"spec": {"containers": [_container("ray-worker", image)]}},
    }


def cluster_spec() -> JsonDict:
    """The RayClusterSpec every row starts from (one head, worker group ``cpu`` with one Pod)."""
    return {
        "rayVersion": "2.52.0",
        "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [_container("ray-head")]}}},
        "workerGroupSpecs": [_group("cpu")],
    }


def ray_cluster(name: str = "plan-rc", strategy: str | None = None) -> JsonDict:
    spec = cluster_spec()
    if strategy is not None:
        spec["upgradeStrategy"] = {"type": strategy}
    return {"apiVersion": API_VERSION, "kind": "RayCluster", "metadata": {"name": name}, "spec": spec}


def autoscaled_cluster(name: str = "plan-rc") -> JsonDict:
    """:func:`ray_cluster` with in-tree autoscaling: the autoscaler reads each group's min/maxReplicas."""
    manifest = ray_cluster(name)
    manifest["spec"]["enableInTreeAutoscaling"] = True
    return manifest


def ray_service(name: str = "plan-rs", strategy: str | None = "NewCluster") -> JsonDict:
    spec: JsonDict = {"serveConfigV2": SERVE, "rayClusterConfig": cluster_spec()}
    if strategy is not None:
        spec["upgradeStrategy"] = {"type": strategy}
    if strategy == "NewClusterWithIncrementalUpgrade":
        spec["upgradeStrategy"]["clusterUpgradeOptions"] = {
            "maxSurgePercent": 50,
            "stepSizePercent": 25,
            "intervalSeconds": 30,
            "gatewayClassName": "istio",
        }
        spec["rayClusterConfig"]["enableInTreeAutoscaling"] = True
    return {"apiVersion": API_VERSION, "kind": "RayService", "metadata": {"name": name}, "spec": spec}


def ray_job(name: str = "plan-rj") -> JsonDict:
    return {
        "apiVersion": API_VERSION,
        "kind": "RayJob",
        "metadata": {"name": name},
        "spec": {
            "entrypoint": "python -c 'print(1)'",
            "shutdownAfterJobFinishes": True,
            "rayClusterSpec": cluster_spec(),
        },
    }


def ray_cronjob(name: str = "plan-rcj") -> JsonDict:
    return {
        "apiVersion": API_VERSION,
        "kind": "RayCronJob",
        "metadata": {"name": name},
        "spec": {"schedule": "0 * * * *", "jobTemplate": ray_job()["spec"]},
    }


Edit = Callable[[JsonDict], None]


def _cluster(manifest: JsonDict) -> JsonDict:
    """The RayClusterSpec inside a manifest (RayCluster, RayService, RayJob)."""
    spec: JsonDict = manifest["spec"]
    found: JsonDict = spec.get("rayClusterConfig") or spec.get("rayClusterSpec") or spec
    return found


def image(manifest: JsonDict) -> None:
    spec = _cluster(manifest)
    for template in [spec["headGroupSpec"]["template"]] + [g["template"] for g in spec["workerGroupSpecs"]]:
        template["spec"]["containers"][0]["image"] = NEW_IMAGE


def env(manifest: JsonDict) -> None:
    for group in _cluster(manifest)["workerGroupSpecs"]:
        group["template"]["spec"]["containers"][0]["env"] = [{"name": "LOG_LEVEL", "value": "debug"}]


def replicas(manifest: JsonDict) -> None:
    _cluster(manifest)["workerGroupSpecs"][0]["replicas"] = 3


def min_replicas(manifest: JsonDict) -> None:
    _cluster(manifest)["workerGroupSpecs"][0]["minReplicas"] = 2


def max_replicas(manifest: JsonDict) -> None:
    _cluster(manifest)["workerGroupSpecs"][0]["maxReplicas"] = 8


def add_group(manifest: JsonDict) -> None:
    _cluster(manifest)["workerGroupSpecs"].append(_group("extra"))


def prepend_group(manifest: JsonDict) -> None:
    _cluster(manifest)["workerGroupSpecs"].insert(0, _group("extra"))


def remove_group(manifest: JsonDict) -> None:
    _cluster(manifest)["workerGroupSpecs"] = []


def tolerations(manifest: JsonDict) -> None:
    for group in _cluster(manifest)["workerGroupSpecs"]:
        group["template"]["spec"]["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]


def ray_start_params(manifest: JsonDict) -> None:
    _cluster(manifest)["headGroupSpec"]["rayStartParams"] = {"num-cpus": "0"}


def drop_start_params(manifest: JsonDict) -> None:
    spec = _cluster(manifest)
    del spec["headGroupSpec"]["rayStartParams"]
    for group in spec["workerGroupSpecs"]:
        del group["rayStartParams"]


def to_recreate(manifest: JsonDict) -> None:
    manifest["spec"]["upgradeStrategy"] = {"type": "Recreate"}


def suspend(manifest: JsonDict) -> None:
    manifest["spec"]["suspend"] = True


def suspend_false(manifest: JsonDict) -> None:
    manifest["spec"]["suspend"] = False


def cluster_suspend(manifest: JsonDict) -> None:
    _cluster(manifest)["suspend"] = True


def labels(manifest: JsonDict) -> None:
    manifest["metadata"]["labels"] = {"team": "ml"}


def serve(manifest: JsonDict) -> None:
    manifest["spec"]["serveConfigV2"] = SERVE_CHANGED


def entrypoint(manifest: JsonDict) -> None:
    manifest["spec"]["entrypoint"] = "python -c 'print(2)'"


def job_template(manifest: JsonDict) -> None:
    manifest["spec"]["jobTemplate"]["entrypoint"] = "python -c 'print(2)'"


def schedule(manifest: JsonDict) -> None:
    manifest["spec"]["schedule"] = "*/5 * * * *"
