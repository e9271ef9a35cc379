"""The change table of docs/changes.md, as data: field changed x upgrade strategy x gate/setting -> action.

Every row is checked three ways: by the plan itself (tests/test_plan.py), by the operator's own decision
functions (tests/oracle/test_plan_differential.py: ``shouldRecreatePodsForUpgrade``, ``shouldUpdateCluster``,
``shouldPrepareNewCluster``, ... of the operator version the row names) and, where ``kwok`` says what the
local control plane shows, by the real operator on it (tests/cluster/test_change_plan.py).
``scripts/gen-change-docs`` writes the table into docs/changes.md.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_kuberay.kuberay import NUM_WORKER_GROUPS_ANNOTATION
from pulumi_kuberay.kuberay.api import API_VERSION
from pulumi_kuberay.plan._change import Action
from pulumi_kuberay.plan._context import Live, Operator
from pulumi_kuberay.plan.job import Mode

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


@dataclass(frozen=True)
class Case:
    """One row of the change table."""

    id: str
    kind: str
    change: str  # the field changed, in words
    strategy: str  # the upgrade strategy, in words
    setting: str  # the gate, environment, version or live state the row depends on
    expected: Action
    base: Callable[[], JsonDict]
    edits: tuple[Edit, ...]
    version: tuple[int, int, int] = (1, 7, 0)
    gates: Mapping[str, bool] = field(default_factory=dict)
    zero_downtime_env: str = ""  # the operator's ENABLE_ZERO_DOWNTIME ("false", or "" unset)
    mode: Mode = "replace"
    #: Live state that differs from "made from the old spec by this operator": the head Pod's or the active
    #: cluster's ray.io/kuberay-version.
    live_version: str | None = None
    #: What the local control plane (kwok) shows for this row; None: not shown there.
    kwok: str | None = None

    def old(self) -> JsonDict:
        return self.base()

    def new(self) -> JsonDict:
        manifest = copy.deepcopy(self.base())
        for edit in self.edits:
            edit(manifest)
        return manifest

    def operator(self) -> Operator:
        return Operator(self.version, dict(self.gates), zero_downtime=self.zero_downtime_env != "false")

    def live(self) -> Live | None:
        """The live view the row assumes, when it differs from the old manifest's steady state."""
        if self.live_version is None:
            return None
        from pulumi_kuberay.plan import hashing

        old = self.old()
        annotations = {hashing.KUBERAY_VERSION_ANNOTATION: self.live_version}
        if self.kind == "RayCluster":
            annotations[hashing.RECREATE_HASH_ANNOTATION] = hashing.raycluster_hash(old["spec"], self.version)
            return Live(obj=old, head_pods=({"metadata": {"annotations": annotations}},))
        config = old["spec"]["rayClusterConfig"]
        annotations[hashing.SERVICE_HASH_ANNOTATION] = hashing.service_goal_hash(config, self.version)
        annotations[NUM_WORKER_GROUPS_ANNOTATION] = str(len(config["workerGroupSpecs"]))
        active = "plan-rs-active"
        obj = {**old, "status": {"activeServiceStatus": {"rayClusterName": active}}}
        cluster = {"metadata": {"name": active, "annotations": annotations}, "spec": config}
        return Live(obj=obj, clusters={active: cluster})


V16 = (1, 6, 2)
INC = "RayServiceIncrementalUpgrade"

CASES: tuple[Case, ...] = (
    # RayCluster
    Case(
        "rc-image-none",
        "RayCluster",
        "image (head and workers)",
        "None (default)",
        "-",
        "none",
        ray_cluster,
        (image,),
        kwok="the Pods keep their uid",
    ),
    Case("rc-env-none", "RayCluster", "worker container env", "None (default)", "-", "none", ray_cluster, (env,)),
    Case(
        "rc-image-recreate",
        "RayCluster",
        "image (head and workers)",
        "Recreate",
        "-",
        "recreate-pods",
        lambda: ray_cluster(strategy="Recreate"),
        (image,),
        kwok="every Pod is recreated (new uids)",
    ),
    Case(
        "rc-env-recreate",
        "RayCluster",
        "worker container env",
        "Recreate",
        "-",
        "recreate-pods",
        lambda: ray_cluster(strategy="Recreate"),
        (env,),
    ),
    Case(
        "rc-params-recreate",
        "RayCluster",
        "rayStartParams",
        "Recreate",
        "-",
        "recreate-pods",
        lambda: ray_cluster(strategy="Recreate"),
        (ray_start_params,),
    ),
    Case(
        "rc-replicas-none",
        "RayCluster",
        "worker replicas 1 -> 3",
        "None (default)",
        "-",
        "update-in-place",
        ray_cluster,
        (replicas,),
        kwok="two worker Pods are added, the others keep their uid",
    ),
    Case(
        "rc-replicas-recreate",
        "RayCluster",
        "worker replicas 1 -> 3",
        "Recreate",
        "-",
        "update-in-place",
        lambda: ray_cluster(strategy="Recreate"),
        (replicas,),
        kwok="two worker Pods are added, none recreated",
    ),
    Case(
        "rc-min-none",
        "RayCluster",
        "worker minReplicas 0 -> 2",
        "None (default)",
        "-",
        "update-in-place",
        ray_cluster,
        (min_replicas,),
    ),
    Case(
        "rc-max-autoscaled",
        "RayCluster",
        "worker maxReplicas 5 -> 8 (in-tree autoscaling)",
        "None (default)",
        "-",
        "update-in-place",
        autoscaled_cluster,
        (max_replicas,),
    ),
    Case(
        "rc-max-none",
        "RayCluster",
        "worker maxReplicas 5 -> 8 (no autoscaling)",
        "None (default)",
        "-",
        "none",
        ray_cluster,
        (max_replicas,),
    ),
    Case(
        "rc-add-group-none",
        "RayCluster",
        "worker group added",
        "None (default)",
        "-",
        "update-in-place",
        ray_cluster,
        (add_group,),
        kwok="the new group's Pod is created, the others keep their uid",
    ),
    Case(
        "rc-add-group-recreate",
        "RayCluster",
        "worker group added",
        "Recreate",
        "-",
        "recreate-pods",
        lambda: ray_cluster(strategy="Recreate"),
        (add_group,),
    ),
    Case(
        "rc-remove-group-none",
        "RayCluster",
        "worker group removed",
        "None (default)",
        "-",
        "none",
        ray_cluster,
        (remove_group,),
        kwok="the removed group's Pod keeps running",
    ),
    Case(
        "rc-tolerations-recreate",
        "RayCluster",
        "worker tolerations",
        "Recreate",
        "-",
        "none",
        lambda: ray_cluster(strategy="Recreate"),
        (tolerations,),
    ),
    Case(
        "rc-to-recreate",
        "RayCluster",
        "upgradeStrategy None -> Recreate (nothing else)",
        "Recreate",
        "-",
        "none",
        ray_cluster,
        (to_recreate,),
    ),
    Case(
        "rc-suspend-false-recreate",
        "RayCluster",
        "suspend: false written out (was left out)",
        "Recreate",
        "-",
        "recreate-pods",
        lambda: ray_cluster(strategy="Recreate"),
        (suspend_false,),
    ),
    Case(
        "rc-start-params-dropped-recreate",
        "RayCluster",
        "rayStartParams: {} left out",
        "Recreate",
        "-",
        "none",
        lambda: ray_cluster(strategy="Recreate"),
        (drop_start_params,),
    ),
    Case(
        "rc-labels",
        "RayCluster",
        "metadata labels only",
        "Recreate",
        "-",
        "none",
        lambda: ray_cluster(strategy="Recreate"),
        (labels,),
    ),
    Case(
        "rc-suspend",
        "RayCluster",
        "suspend: true",
        "None (default)",
        "-",
        "suspend",
        ray_cluster,
        (suspend,),
        kwok="every Pod is deleted",
    ),
    Case(
        "rc-image-recreate-operator-upgraded",
        "RayCluster",
        "image (head and workers)",
        "Recreate",
        "head Pod made by KubeRay v1.6.2 (operator upgraded since)",
        "none",
        lambda: ray_cluster(strategy="Recreate"),
        (image,),
        live_version="v1.6.2",
    ),
    Case(
        "rc-image-recreate-v16",
        "RayCluster",
        "image (head and workers)",
        "Recreate",
        "KubeRay v1.6",
        "recreate-pods",
        lambda: ray_cluster(strategy="Recreate"),
        (image,),
        version=V16,
    ),
    # RayService
    Case(
        "rs-image-newcluster",
        "RayService",
        "rayClusterConfig image",
        "NewCluster",
        "-",
        "new-cluster",
        ray_service,
        (image,),
        kwok="a pending RayCluster is created",
    ),
    Case(
        "rs-image-default",
        "RayService",
        "rayClusterConfig image",
        "(not set: ENABLE_ZERO_DOWNTIME decides, default on)",
        "-",
        "new-cluster",
        lambda: ray_service(strategy=None),
        (image,),
    ),
    Case(
        "rs-image-default-env",
        "RayService",
        "rayClusterConfig image",
        "(not set: ENABLE_ZERO_DOWNTIME decides, default on)",
        "ENABLE_ZERO_DOWNTIME=false",
        "none",
        lambda: ray_service(strategy=None),
        (image,),
        zero_downtime_env="false",
    ),
    Case(
        "rs-image-none",
        "RayService",
        "rayClusterConfig image",
        "None",
        "-",
        "none",
        lambda: ray_service(strategy="None"),
        (image,),
        kwok="no pending RayCluster is created",
    ),
    Case(
        "rs-image-incremental",
        "RayService",
        "rayClusterConfig image",
        "NewClusterWithIncrementalUpgrade",
        f"{INC} on (v1.7 default)",
        "incremental",
        lambda: ray_service(strategy="NewClusterWithIncrementalUpgrade"),
        (image,),
    ),
    Case(
        "rs-image-incremental-gate-off",
        "RayService",
        "rayClusterConfig image",
        "NewClusterWithIncrementalUpgrade",
        f"{INC} off",
        "none",
        lambda: ray_service(strategy="NewClusterWithIncrementalUpgrade"),
        (image,),
        gates={INC: False},
    ),
    Case(
        "rs-image-incremental-v16",
        "RayService",
        "rayClusterConfig image",
        "NewClusterWithIncrementalUpgrade",
        f"KubeRay v1.6 ({INC} off by default)",
        "none",
        lambda: ray_service(strategy="NewClusterWithIncrementalUpgrade"),
        (image,),
        version=V16,
    ),
    Case(
        "rs-serve",
        "RayService",
        "serveConfigV2 only",
        "NewCluster",
        "-",
        "serve-update-in-place",
        ray_service,
        (serve,),
    ),
    Case(
        "rs-serve-image",
        "RayService",
        "serveConfigV2 and rayClusterConfig image",
        "NewCluster",
        "-",
        "new-cluster",
        ray_service,
        (serve, image),
    ),
    Case(
        "rs-serve-image-none",
        "RayService",
        "serveConfigV2 and rayClusterConfig image",
        "None",
        "-",
        "serve-update-in-place",
        lambda: ray_service(strategy="None"),
        (serve, image),
    ),
    Case(
        "rs-replicas",
        "RayService",
        "worker replicas 1 -> 3",
        "NewCluster",
        "-",
        "none",
        ray_service,
        (replicas,),
        kwok="the active RayCluster keeps 1 replica, no pending RayCluster",
    ),
    Case(
        "rs-max",
        "RayService",
        "worker maxReplicas 5 -> 8",
        "NewCluster",
        "-",
        "none",
        ray_service,
        (max_replicas,),
    ),
    Case(
        "rs-add-group",
        "RayService",
        "worker group added at the end",
        "NewCluster",
        "-",
        "update-in-place",
        ray_service,
        (add_group,),
        kwok="the active RayCluster gets the group, no pending RayCluster",
    ),
    Case(
        "rs-prepend-group",
        "RayService",
        "worker group added at the start",
        "NewCluster",
        "-",
        "new-cluster",
        ray_service,
        (prepend_group,),
    ),
    Case(
        "rs-cluster-suspend",
        "RayService",
        "rayClusterConfig.suspend: true",
        "NewCluster",
        "-",
        "none",
        ray_service,
        (cluster_suspend,),
    ),
    Case(
        "rs-cluster-suspend-v16",
        "RayService",
        "rayClusterConfig.suspend: true",
        "NewCluster",
        "KubeRay v1.6",
        "update-in-place",
        ray_service,
        (cluster_suspend,),
        version=V16,
    ),
    Case(
        "rs-image-operator-upgraded",
        "RayService",
        "rayClusterConfig image",
        "NewCluster",
        "active cluster made by KubeRay v1.6.2 (operator upgraded since)",
        "update-in-place",
        ray_service,
        (image,),
        live_version="v1.6.2",
    ),
    Case("rs-labels", "RayService", "metadata labels only", "NewCluster", "-", "none", ray_service, (labels,)),
    # RayJob and RayCronJob (no decision function: their controllers read the spec only when a run starts)
    Case(
        "rj-entrypoint",
        "RayJob",
        "entrypoint (through a component: the RayJob is replaced)",
        "-",
        "-",
        "rerun-job",
        ray_job,
        (entrypoint,),
        kwok="a new RayCluster is created for the new RayJob",
    ),
    Case(
        "rj-entrypoint-apply",
        "RayJob",
        "entrypoint",
        "-",
        "-",
        "none",
        ray_job,
        (entrypoint,),
        mode="apply",
        kwok="the RayJob keeps its cluster",
    ),
    Case(
        "rj-suspend-apply",
        "RayJob",
        "suspend: true",
        "-",
        "-",
        "suspend",
        ray_job,
        (suspend,),
        mode="apply",
        kwok="the RayJob's cluster is deleted",
    ),
    Case(
        "rcj-template",
        "RayCronJob",
        "jobTemplate entrypoint",
        "-",
        "RayCronJob on",
        "next-runs-only",
        ray_cronjob,
        (job_template,),
        gates={"RayCronJob": True},
    ),
    Case(
        "rcj-schedule",
        "RayCronJob",
        "schedule",
        "-",
        "RayCronJob on",
        "next-runs-only",
        ray_cronjob,
        (schedule,),
        gates={"RayCronJob": True},
    ),
    Case(
        "rcj-gate-off",
        "RayCronJob",
        "jobTemplate entrypoint",
        "-",
        "RayCronJob off (default)",
        "none",
        ray_cronjob,
        (job_template,),
    ),
)


def by_id(case_id: str) -> Case:
    for case in CASES:
        if case.id == case_id:
            return case
    raise KeyError(case_id)


__all__ = ["CASES", "Case", "by_id", "cluster_spec", "ray_cluster", "ray_cronjob", "ray_job", "ray_service"]
