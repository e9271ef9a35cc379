"""examples/yaml in Python: a Namespace, a RayCluster in it (through the Namespace's name) and a RayJob on it."""

from __future__ import annotations

import pulumi
import pulumi_kuberay as kr
import pulumi_kubernetes as k8s

config = pulumi.Config()
provider = k8s.Provider("k8s", render_yaml_to_directory=config.get("renderDir") or "")
opts = pulumi.ResourceOptions(provider=provider)

namespace = k8s.core.v1.Namespace("ray-namespace", metadata={"name": "ray"}, opts=opts)
cluster = kr.RayCluster(
    "shared",
    kr.RayClusterSpec(
        ray_version="2.52.0",
        image="rayproject/ray:2.52.0",
        head_group_spec=kr.HeadGroupSpec(cpu=1, memory="4Gi"),
        worker_group_specs=[
            kr.WorkerGroupSpec(group_name="cpu", cpu=1, memory="4Gi", replicas=1, min_replicas=1, max_replicas=2)
        ],
    ),
    opts,
    namespace=namespace.metadata.name,
)
job = kr.RayJob("batch", kr.RayJobSpec(entrypoint="python -c 'import ray; ray.init()'"), opts, cluster=cluster)

pulumi.export("dashboard", cluster.dashboard_url)
pulumi.export("clientAddress", cluster.client_address)
pulumi.export("jobCluster", job.cluster_name)
