"""The preflight in a real ``pulumi preview`` against the local control plane: a GPU group that no node can take
fails the preview with the group, the numbers and the nodes compared; with a node source that could add such a
node (a cluster-autoscaler node group, from its status ConfigMap) the same stack previews, with a warning naming
that source."""

from __future__ import annotations

from typing import Any

import yaml

from ._waits import PROGRAM, config
from .conftest import ClusterStack, LocalCluster

GPU_CLUSTER: dict[str, Any] = {
    "rayVersion": "2.52.0",
    "image": "rayproject/ray:2.52.0",
    "headGroupSpec": {"cpu": 1, "memory": "2Gi"},
    "workerGroupSpecs": [
        {
            "groupName": "gpu",
            "cpu": 4,
            "memory": "16Gi",
            "gpu": 64,  # kwok-gpu-0, the only GPU node, has 4
            "replicas": 1,
            "minReplicas": 1,
            "maxReplicas": 2,
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        }
    ],
}
AUTOSCALER_STATUS = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cluster-autoscaler-status", "namespace": "kube-system"},
    "data": {"status": "Cluster-autoscaler status at 2026-12-05 18:00:00 UTC:\nNodeGroups:\n  Name: a100-pool\n"},
}


def test_a_gpu_group_that_can_never_be_placed_fails_the_preview(
    make_stack: Any, namespace: str, local_cluster: LocalCluster
) -> None:
    objects = {"train": {"kind": "RayCluster", "spec": GPU_CLUSTER, "wait": False}}
    stack: ClusterStack = make_stack(config(objects, namespace), namespace=namespace, program=PROGRAM)
    preview = stack.pulumi("preview", "--non-interactive")
    assert preview.returncode != 0, preview.describe()
    output = " ".join(preview.output.split())
    assert "[preflight-group-never-placed] critical at spec.workerGroupSpecs[0]" in output, preview.describe()
    assert "worker group 'gpu': its Pods can never be placed: requests cpu 4, memory 16Gi, nvidia.com/gpu 64" in output
    assert "kwok-gpu-0: allocatable nvidia.com/gpu 4 < requested nvidia.com/gpu 64" in output, preview.describe()

    local_cluster.kubectl("apply", "-f", "-", input=yaml.safe_dump(AUTOSCALER_STATUS))
    try:
        preview = stack.pulumi("preview", "--non-interactive")
    finally:
        local_cluster.kubectl("-n", "kube-system", "delete", "configmap", "cluster-autoscaler-status", check=False)
    assert preview.returncode == 0, preview.describe()
    output = " ".join(preview.output.split())
    assert "[preflight-group-never-placed] medium at spec.workerGroupSpecs[0]" in output, preview.describe()
    assert "cluster-autoscaler node group 'a100-pool' could add one: the Pods wait for that node (medium, not critical: a node source can add a node that takes them)" in output
