"""Manifests emitted from Python-built RayJob / RayService / RayCronJob specs pass the CRD schema check
(``openapi.validate`` against the v1.7.0 ``openAPIV3Schema``, CEL rules included) and load back unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _reference import crd_schema
from pulumi_kuberay.model._k8s import Container, PodSpec, PodTemplateSpec, Service
from pulumi_kuberay.model.cluster import AutoscalerOptions, HeadGroupSpec, RayClusterSpec, WorkerGroupSpec
from pulumi_kuberay.model.cronjob import RayCronJobManifest, RayCronJobSpec
from pulumi_kuberay.model.job import (
    DeletionCondition,
    DeletionPolicy,
    DeletionRule,
    DeletionStrategy,
    RayJobManifest,
    RayJobSpec,
    SubmitterConfig,
)
from pulumi_kuberay.model.manifest import KubeManifest, ObjectMeta, load_manifest
from pulumi_kuberay.model.serve import (
    AutoscalingConfig,
    GrpcOptions,
    HTTPOptions,
    LoggingConfig,
    RayActorOptions,
    ServeApplication,
    ServeConfig,
    ServeDeployment,
)
from pulumi_kuberay.model.service import (
    ClusterUpgradeOptions,
    RayServiceManifest,
    RayServiceSpec,
    ServiceUpgradeStrategy,
)

from .openapi import validate


def _cluster(*, autoscaling: bool = False) -> RayClusterSpec:
    extra: dict[str, Any] = (
        {"enable_in_tree_autoscaling": True, "autoscaler_options": AutoscalerOptions(version="v2")}
        if autoscaling
        else {}
    )
    return RayClusterSpec(
        **extra,
        ray_version="2.52.0",
        image="rayproject/ray:2.52.0",
        head_group_spec=HeadGroupSpec(cpu=2, memory="8Gi", ray_start_params={"num-cpus": "0"}),
        worker_group_specs=[
            WorkerGroupSpec(
                group_name="cpu", cpu=4, memory="16Gi", replicas=1, min_replicas=1, max_replicas=4
            )
        ],
    )


def _job_inline() -> KubeManifest[Any]:
    return RayJobManifest(
        metadata=ObjectMeta(name="train", namespace="ml"),
        spec=RayJobSpec(
            entrypoint="python /home/ray/samples/train.py",
            runtime_env_yaml={"pip": ["torch==2.4.0"], "env_vars": {"EPOCHS": "3"}},
            metadata={"team": "ml"},
            submission_mode="K8sJobMode",
            entrypoint_num_cpus=1,
            entrypoint_num_gpus=0,
            entrypoint_resources={"custom": 1},
            ray_cluster_spec=_cluster(),
            submitter_pod_template=PodTemplateSpec(
                spec=PodSpec(
                    containers=[Container(name="submitter", image="rayproject/ray:2.52.0")],
                    restart_policy="Never",
                )
            ),
            submitter_config=SubmitterConfig(backoff_limit=1),
            shutdown_after_job_finishes=True,
            ttl_seconds_after_finished=120,
            active_deadline_seconds=7200,
            pre_running_deadline_seconds=900,
            backoff_limit=1,
            suspend=False,
            managed_by="ray.io/kuberay-operator",
        ),
    )


def _job_selector() -> KubeManifest[Any]:
    return RayJobManifest(
        metadata=ObjectMeta(name="batch"),
        spec=RayJobSpec(
            entrypoint="python batch.py",
            cluster_selector={"ray.io/cluster": "shared"},
            submission_mode="HTTPMode",
            deletion_strategy=DeletionStrategy(
                deletion_rules=[
                    DeletionRule(
                        policy="DeleteSelf",
                        condition=DeletionCondition(job_status="SUCCEEDED", ttl_seconds=300),
                    ),
                    DeletionRule(
                        policy="DeleteNone", condition=DeletionCondition(job_deployment_status="Failed")
                    ),
                ]
            ),
        ),
    )


def _job_sidecar_legacy_deletion() -> KubeManifest[Any]:
    return RayJobManifest(
        metadata=ObjectMeta(name="sidecar"),
        spec=RayJobSpec(
            entrypoint="python x.py",
            submission_mode="SidecarMode",
            ray_cluster_spec=_cluster(),
            deletion_strategy=DeletionStrategy(
                on_success=DeletionPolicy(policy="DeleteCluster"),
                on_failure=DeletionPolicy(policy="DeleteNone"),
            ),
        ),
    )


def _job_interactive() -> KubeManifest[Any]:
    return RayJobManifest(
        metadata=ObjectMeta(name="interactive"),
        spec=RayJobSpec(submission_mode="InteractiveMode", ray_cluster_spec=_cluster()),
    )


def _serve_config() -> ServeConfig:
    return ServeConfig(
        proxy_location="EveryNode",
        http_options=HTTPOptions(port=8000, request_timeout_s=30),
        grpc_options=GrpcOptions(
            port=9000, grpc_servicer_functions=["pkg.svc_pb2_grpc.add_SvcServicer_to_server"]
        ),
        logging_config=LoggingConfig(encoding="JSON", log_level="INFO"),
        applications=[
            ServeApplication(
                name="fruit",
                import_path="fruit.deployment_graph",
                route_prefix="/fruit",
                runtime_env={"working_dir": "https://github.com/ray-project/test_dag/archive/78b4a5da.zip"},
                deployments=[
                    ServeDeployment(
                        name="MangoStand",
                        num_replicas=2,
                        user_config={"price": 3},
                        ray_actor_options=RayActorOptions(num_cpus=0.1),
                    )
                ],
            ),
            ServeApplication(
                name="math",
                import_path="conditional_dag:serve_dag",
                route_prefix="/calc",
                deployments=[
                    ServeDeployment(
                        name="Router",
                        max_ongoing_requests=100,
                        autoscaling_config=AutoscalingConfig(min_replicas=1, max_replicas=3),
                    )
                ],
            ),
        ],
    )


def _service_new_cluster() -> KubeManifest[Any]:
    return RayServiceManifest(
        metadata=ObjectMeta(name="serve"),
        spec=RayServiceSpec(
            ray_cluster_config=_cluster(),
            serve_config_v2=_serve_config(),
            upgrade_strategy=ServiceUpgradeStrategy(type="NewCluster"),
            ray_cluster_deletion_delay_seconds=60,
            serve_service=Service.model_validate(
                {
                    "metadata": {"name": "serve-svc"},
                    "spec": {"type": "ClusterIP", "ports": [{"name": "serve", "port": 8000}]},
                }
            ),
            exclude_head_pod_from_serve_svc=True,
            suspend=False,
            managed_by="ray.io/kuberay-operator",
        ),
    )


def _service_incremental() -> KubeManifest[Any]:
    return RayServiceManifest(
        metadata=ObjectMeta(name="serve-inc"),
        spec=RayServiceSpec(
            ray_cluster_config=_cluster(autoscaling=True),
            serve_config_v2="applications:\n  - name: app\n    import_path: m:app\n",
            upgrade_strategy=ServiceUpgradeStrategy(
                type="NewClusterWithIncrementalUpgrade",
                cluster_upgrade_options=ClusterUpgradeOptions(
                    gateway_class_name="istio",
                    step_size_percent=10,
                    interval_seconds=30,
                    max_surge_percent=20,
                ),
            ),
        ),
    )


def _cronjob() -> KubeManifest[Any]:
    return RayCronJobManifest(
        metadata=ObjectMeta(name="nightly"),
        spec=RayCronJobSpec(
            schedule="30 2 * * MON-FRI",
            time_zone="Europe/Berlin",
            suspend=False,
            job_template=_job_inline().spec,
        ),
    )


BUILDERS: dict[str, Callable[[], KubeManifest[Any]]] = {
    "rayjob-inline-all-fields": _job_inline,
    "rayjob-selector-deletion-rules": _job_selector,
    "rayjob-sidecar-legacy-deletion": _job_sidecar_legacy_deletion,
    "rayjob-interactive": _job_interactive,
    "rayservice-new-cluster": _service_new_cluster,
    "rayservice-incremental": _service_incremental,
    "raycronjob": _cronjob,
}


@pytest.mark.parametrize("build", list(BUILDERS.values()), ids=list(BUILDERS))
def test_emitted_manifest_passes_the_crd_schema(build: Callable[[], KubeManifest[Any]]) -> None:
    doc = build().to_manifest()
    assert validate(doc, crd_schema(doc["kind"])) == []
    assert load_manifest(doc).to_manifest() == doc


def test_emitted_serve_config_is_a_string() -> None:
    doc = _service_new_cluster().to_manifest()
    assert isinstance(doc["spec"]["serveConfigV2"], str)
    assert doc["spec"]["serveConfigV2"].startswith("applications:\n- name: fruit\n")
