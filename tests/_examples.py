"""Example objects several test modules build on: the README's GPU cluster, a minimal RayCluster manifest."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_kuberay.model._errors import ManifestError
from pulumi_kuberay.model._k8s import Toleration
from pulumi_kuberay.model.cluster import AutoscalerOptions, HeadGroupSpec, RayClusterSpec, WorkerGroupSpec
from pulumi_kuberay.model.manifest import load_manifest


def gpu_cluster() -> RayClusterSpec:
    """The README / module docstring example: a two-group GPU autoscaling cluster."""
    return RayClusterSpec(
        ray_version="2.52.0",
        image="rayproject/ray:2.52.0",
        enable_in_tree_autoscaling=True,
        autoscaler_options=AutoscalerOptions(version="v2"),
        head_group_spec=HeadGroupSpec(cpu=2, memory="8Gi", ray_start_params={"num-cpus": 0}),
        worker_group_specs=[
            WorkerGroupSpec(group_name="cpu", cpu=4, memory="16Gi", min_replicas=0, max_replicas=10),
            WorkerGroupSpec(
                group_name="gpu",
                image="rayproject/ray:2.52.0-gpu",
                cpu=8,
                memory="64Gi",
                gpu=1,
                min_replicas=0,
                max_replicas=4,
                tolerations=[Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")],
                node_selector={"cloud.google.com/gke-accelerator": "nvidia-l4"},
            ),
        ],
    )


def minimal_doc() -> dict[str, Any]:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "raycluster"},
        "spec": {
            "headGroupSpec": {
                "rayStartParams": {"num-cpus": "0"},
                "template": {
                    "spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.52.0"}]}
                },
            },
            "workerGroupSpecs": [
                {
                    "groupName": f"group-{i}",
                    "replicas": 1,
                    "minReplicas": 0,
                    "maxReplicas": 2,
                    "template": {
                        "spec": {"containers": [{"name": "ray-worker", "image": "rayproject/ray:2.52.0"}]}
                    },
                }
                for i in range(2)
            ],
        },
    }


def load_error(doc: Any) -> ManifestError:
    with pytest.raises(ManifestError) as info:
        load_manifest(doc)
    assert isinstance(info.value, ValueError)
    return info.value
