"""Manifests emitted from Python-built RayCluster specs satisfy the CRD's openAPIV3Schema.

Judged by :func:`tests.conformance.openapi.validate` (types, enums, required, unknown fields as errors, as a
real API server would prune them) against ``crd_schema("RayCluster")``; each also loads back unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _examples import gpu_cluster
from _reference import crd_schema, require_reference
from pulumi_kuberay.model._k8s import EnvVar, PodTemplateSpec, Toleration
from pulumi_kuberay.model.cluster import (
    AuthOptions,
    AutoscalerOptions,
    CollectorOptions,
    GcsFaultToleranceOptions,
    GcsStorage,
    HeadGroupSpec,
    HistoryServerOptions,
    IngressOptions,
    NetworkPolicyOptions,
    NetworkPolicyRules,
    RayClusterSpec,
    RayClusterUpgradeStrategy,
    RedisCredential,
    ScaleStrategy,
    TlsOptions,
    WorkerGroupNetworkPolicyRules,
    WorkerGroupSpec,
)
from pulumi_kuberay.model.manifest import ObjectMeta, RayClusterManifest, load_manifest
from pulumi_kuberay.model.pod import SecretRef

from .openapi import validate

GPU_TOLERATION = Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")


def every_convenience_field() -> RayClusterSpec:
    return RayClusterSpec(
        ray_version="2.52.0",
        head_group_spec=HeadGroupSpec(
            image="rayproject/ray:2.52.0",
            image_pull_policy="IfNotPresent",
            cpu=0.5,
            memory=4 * 1024**3,
            env={"LOG_LEVEL": "debug", "API_KEY": SecretRef("api", "key", optional=True)},
            ports={"metrics": 8080},
            node_selector={"pool": "head"},
            tolerations=[GPU_TOLERATION],
            service_account="ray-head",
            ray_start_params={"dashboard-host": "0.0.0.0", "block": True},
        ),
        worker_group_specs=[
            WorkerGroupSpec(
                group_name="amd",
                image="rocm/ray:2.52.0",
                image_pull_policy="Always",
                cpu="1500m",
                memory="8Gi",
                gpu=2,
                gpu_resource="amd.com/gpu",
                env={"HIP_VISIBLE_DEVICES": "0,1"},
                ports={"worker-metrics": 8081},
                node_selector={"pool": "amd"},
                tolerations=[Toleration(key="amd.com/gpu", operator="Exists")],
                service_account="ray-worker",
                replicas=1,
                min_replicas=1,
                max_replicas=3,
                ray_start_params={"num-gpus": 2},
                resources={"GPU": 2},
                labels={"ray.io/accelerator-type": "MI300"},
            )
        ],
    )


def gcs_ft_redis_secret() -> RayClusterSpec:
    return RayClusterSpec(
        ray_version="2.52.0",
        image="rayproject/ray:2.52.0",
        gcs_fault_tolerance_options=GcsFaultToleranceOptions(
            redis_address="redis:6379",
            redis_password=SecretRef("redis-password-secret", "password"),
            redis_username=RedisCredential(value="default"),
            external_storage_namespace="prod",
        ),
        head_group_spec=HeadGroupSpec(cpu=2, memory="8Gi", ray_start_params={"num-cpus": 0}),
        worker_group_specs=[
            WorkerGroupSpec(group_name="w", cpu=2, memory="8Gi", replicas=2, min_replicas=1, max_replicas=5)
        ],
    )


def gcs_ft_rocksdb() -> RayClusterSpec:
    return RayClusterSpec(
        image="rayproject/ray:2.52.0",
        gcs_fault_tolerance_options=GcsFaultToleranceOptions(
            backend="rocksdb",
            storage=GcsStorage(
                size="10Gi",
                storage_class_name="standard-rwo",
                access_modes=["ReadWriteOnce"],
                sub_path="gcs",
                deletion_policy="Retain",
            ),
        ),
        head_group_spec=HeadGroupSpec(cpu=1, memory="4Gi"),
    )


def template_plus_shortcuts() -> RayClusterSpec:
    template = PodTemplateSpec.model_validate(
        {
            "metadata": {"labels": {"team": "ml"}, "annotations": {"a": "b"}},
            "spec": {
                "containers": [
                    {"name": "ray-worker", "volumeMounts": [{"name": "logs", "mountPath": "/tmp/ray"}]},
                    {"name": "fluentbit", "image": "fluent/fluent-bit:1.9.6"},
                ],
                "volumes": [{"name": "logs", "emptyDir": {}}],
            },
        }
    )
    return RayClusterSpec(
        image="rayproject/ray:2.52.0",
        head_group_spec=HeadGroupSpec(cpu=1, memory="4Gi", service_type="ClusterIP"),
        worker_group_specs=[
            WorkerGroupSpec(
                group_name="logs", template=template, cpu=2, memory="4Gi", min_replicas=0, max_replicas=2
            )
        ],
    )


def every_option_block() -> RayClusterSpec:
    dns = {"ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}
    return RayClusterSpec(
        ray_version="2.56.0",
        image="rayproject/ray:2.56.0",
        enable_in_tree_autoscaling=True,
        autoscaler_options=AutoscalerOptions(
            version="v2",
            upscaling_mode="Conservative",
            idle_timeout_seconds=120,
            image="rayproject/ray:2.56.0",
            image_pull_policy="IfNotPresent",
            command=["/bin/bash", "-c"],
            args=["$KUBERAY_GEN_AUTOSCALER_START_CMD --verbose"],
            env=[EnvVar(name="A", value="1")],
            resources={
                "requests": {"cpu": "500m", "memory": "512Mi"},
                "limits": {"cpu": "500m", "memory": "512Mi"},
            },
        ),
        suspend=False,
        managed_by="ray.io/kuberay-operator",
        head_service_annotations={"service.beta.kubernetes.io/aws-load-balancer-internal": "true"},
        auth_options=AuthOptions(mode="token", secret_name="ray-token"),
        upgrade_strategy=RayClusterUpgradeStrategy(type="Recreate"),
        network_policy=NetworkPolicyOptions(
            mode="DenyAll",
            head=NetworkPolicyRules(egress_rules=[dns], ingress_rules=[{"ports": [{"port": 8265}]}]),
            worker=NetworkPolicyRules(egress_rules=[dns]),
            worker_groups=[WorkerGroupNetworkPolicyRules(group_name="gpu", egress_rules=[dns])],
        ),
        tls_options=TlsOptions(enabled=True),
        history_server_options=HistoryServerOptions(
            collector_options=CollectorOptions(
                image="kuberay/history-collector:v1.7.0",
                env=[
                    EnvVar(name="STORAGE_BACKEND", value="GCS"),
                    EnvVar(name="GCS_BUCKET", value="ray-history"),
                ],
            )
        ),
        head_group_spec=HeadGroupSpec(
            cpu=2,
            memory="8Gi",
            enable_ingress=True,
            ingress_options=IngressOptions(
                host="ray.example.com",
                path="/",
                path_type="Prefix",
                tls=[{"hosts": ["ray.example.com"], "secretName": "ray-tls"}],
            ),
            resources={"CPU": 0},
            labels={"ray.io/market-type": "on-demand"},
        ),
        worker_group_specs=[
            WorkerGroupSpec(
                group_name="gpu",
                gpu=1,
                cpu=4,
                memory="32Gi",
                min_replicas=0,
                max_replicas=8,
                num_of_hosts=1,
                idle_timeout_seconds=60,
                priority=10,
                scale_strategy=ScaleStrategy(workers_to_delete=[]),
            )
        ],
    )


SPECS: dict[str, Callable[[], RayClusterSpec]] = {
    "gpu-autoscaling": gpu_cluster,  # the README example
    "every-convenience-field": every_convenience_field,
    "gcs-ft-redis-secret": gcs_ft_redis_secret,
    "gcs-ft-rocksdb": gcs_ft_rocksdb,
    "template-plus-shortcuts": template_plus_shortcuts,
    "every-option-block": every_option_block,
}


def _emit(name: str) -> dict[str, Any]:
    manifest = RayClusterManifest(metadata=ObjectMeta(name=name, namespace="ray"), spec=SPECS[name]())
    return manifest.to_manifest()


@pytest.mark.parametrize("name", list(SPECS))
def test_emitted_manifest_satisfies_the_crd(name: str) -> None:
    require_reference()
    doc = _emit(name)
    assert validate(doc, crd_schema("RayCluster")) == []
    assert load_manifest(doc).to_manifest() == doc


def test_secret_values_stay_out_of_the_emitted_manifest() -> None:
    spec = _emit("gcs-ft-redis-secret")["spec"]
    assert spec["gcsFaultToleranceOptions"]["redisPassword"] == {
        "valueFrom": {"secretKeyRef": {"name": "redis-password-secret", "key": "password"}}
    }


def test_an_invalid_emission_is_caught_by_the_validator() -> None:
    require_reference()
    doc = _emit("gpu-autoscaling")
    doc["spec"]["headGroupSpec"]["rayStartParams"]["num-cpus"] = 0  # what a naive renderer would emit
    assert validate(doc, crd_schema("RayCluster")) != []


def test_emitted_count(record_property: Any, capsys: pytest.CaptureFixture[str]) -> None:
    require_reference()
    passed = sum(1 for name in SPECS if validate(_emit(name), crd_schema("RayCluster")) == [])
    record_property("raycluster_emitted_conformant", passed)
    with capsys.disabled():
        print(f"\n[conformance] emitted RayCluster manifests conforming to the CRD: {passed}/{len(SPECS)}")
    assert passed == len(SPECS)
