"""Every component kind wired to other resources through ``pulumi.Input`` values (type-checked with mypy
--strict by ``tests/test_inputs_program.py``, run under mocks there and by the real engine in
``tests/engine/test_wired_inputs.py``).

A Namespace's name, a ConfigMap (``envFrom``), a Secret (``SecretRef`` in ``env``, its value a secret config)
feed a RayCluster, a RayJob on that cluster, a RayService and a RayCronJob. The provider renders to a
directory: nothing is applied.
"""

from __future__ import annotations

import pulumi
import pulumi_kuberay as kr
import pulumi_kubernetes as k8s

IMAGE = "rayproject/ray:2.52.0"

provider = k8s.Provider("render", render_yaml_to_directory="rendered")
opts = pulumi.ResourceOptions(provider=provider)
config = pulumi.Config()

namespace = k8s.core.v1.Namespace("ray", metadata={"name": "ray-wired"}, opts=opts)
ns_name: pulumi.Output[str] = namespace.metadata.name
settings = k8s.core.v1.ConfigMap(
    "ray-env", metadata={"name": "ray-env", "namespace": ns_name}, data={"LOG_LEVEL": "info"}, opts=opts
)
token = k8s.core.v1.Secret(
    "hf-token",
    metadata={"name": "hf-token", "namespace": ns_name},
    string_data={"token": config.require_secret("hfToken")},
    opts=opts,
)


def cluster_spec(image: pulumi.Input[str]) -> kr.RayClusterSpec:
    return kr.RayClusterSpec(
        ray_version="2.52.0",
        image=image,
        head_group_spec=kr.HeadGroupSpec(cpu=1, memory="4Gi"),
        worker_group_specs=[
            kr.WorkerGroupSpec(
                group_name="cpu",
                cpu=1,
                memory="4Gi",
                replicas=1,
                min_replicas=1,
                max_replicas=2,
                env={"HF_TOKEN": kr.SecretRef(token.metadata.name, "token")},
                env_from=[{"configMapRef": {"name": settings.metadata.name}}],
                shm_size="2Gi",
            )
        ],
    )


# The Namespace's id is only known once it exists: at preview this annotation is not known yet.
cluster = kr.RayCluster(
    "shared",
    cluster_spec(IMAGE),
    opts,
    namespace=ns_name,
    labels={"team": ns_name},
    annotations={"example.com/namespace-id": namespace.id},
)
job = kr.RayJob("batch", kr.RayJobSpec(entrypoint="python -c 'import ray; ray.init()'"), opts, cluster=cluster)
service = kr.RayService(
    "serve",
    kr.RayServiceSpec(
        ray_cluster_config=cluster_spec(IMAGE),
        serve_config_v2=kr.ServeConfig(
            applications=[kr.ServeApplication(name="app", route_prefix="/app", import_path="app.main:app")]
        ),
        upgrade_strategy=kr.ServiceUpgradeStrategy(type="NewCluster"),
    ),
    opts,
    namespace=ns_name,
    wait_for_ready=False,
)
cronjob = kr.RayCronJob(
    "nightly",
    kr.RayCronJobSpec(
        schedule="0 3 * * *",
        job_template=kr.RayJobSpec(
            entrypoint="python nightly.py",
            shutdown_after_job_finishes=True,
            active_deadline_seconds=3600,
            ray_cluster_spec=cluster_spec(IMAGE),
        ),
    ),
    opts,
    namespace=ns_name,
    feature_gates={"RayCronJob": True},
)

pulumi.export("dashboard", cluster.dashboard_url)
pulumi.export("job_cluster", job.cluster_name)
pulumi.export("serve_urls", service.serve_urls)
pulumi.export("cronjob", cronjob.cronjob_name)
