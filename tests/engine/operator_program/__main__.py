"""KubeRayOperator from a local chart + a RayCronJob on it. Config (namespace ``op``): ``chart`` (required),
``version``, ``imageTag``, ``allowCrdDowngrade``, ``renderDir`` (else ``kubeconfig``), ``cronjob`` (bool),
``crds`` (manage / only / leave), ``crdsDir``."""

from __future__ import annotations

import pulumi
import pulumi_kuberay as kr
from pulumi_kubernetes import Provider

config = pulumi.Config("op")
render_dir = config.get("renderDir")
provider = (
    Provider("k8s", render_yaml_to_directory=render_dir)
    if render_dir
    else Provider("k8s", kubeconfig=config.require("kubeconfig"))
)
version = config.get("version") or "1.7.0"
opts = pulumi.ResourceOptions(provider=provider)
operator = kr.KubeRayOperator(
    "kuberay",
    chart=config.require("chart"),
    version=version,
    namespace="kuberay-system",
    feature_gates={"RayCronJob": True},
    watch_namespaces=["ray"],
    values={"image": {"tag": config.get("imageTag") or f"v{version}"}},
    allow_crd_downgrade=config.get_bool("allowCrdDowngrade") or False,
    crds=config.get("crds") or "manage",  # type: ignore[arg-type]  # checked by the component
    crds_dir=config.get("crdsDir"),
    opts=opts,
)
if config.get_bool("cronjob") is not False:
    kr.RayCronJob(
        "hourly",
        {
            "schedule": "0 * * * *",
            "jobTemplate": {
                "entrypoint": "python -c 'import ray; ray.init()'",
                "shutdownAfterJobFinishes": True,
                "ttlSecondsAfterFinished": 60,
                "rayClusterSpec": {
                    "rayVersion": "2.52.0",
                    "image": "rayproject/ray:2.52.0",
                    "headGroupSpec": {"cpu": 1, "memory": "2Gi"},
                    "workerGroupSpecs": [
                        {
                            "groupName": "cpu",
                            "cpu": 1,
                            "memory": "2Gi",
                            "replicas": 1,
                            "minReplicas": 1,
                            "maxReplicas": 1,
                        }
                    ],
                },
            },
        },
        opts,
        namespace="ray",
        operator=operator,
    )
pulumi.export("version", operator.version)
pulumi.export("feature_gates", operator.feature_gates)
pulumi.export("watch_namespaces", operator.watch_namespaces)
