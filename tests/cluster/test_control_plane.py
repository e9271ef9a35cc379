"""The control plane itself (scripts/local-cluster): fake nodes, the operator's CRDs, a RayCluster the real
operator reconciles to ready with kwok's Pods, and garbage collection of its Pods and Services on delete.

No Pulumi here: these are what every other test of the tier stands on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pulumi_kuberay.rules._engine import LATEST_VERSION, format_version

from .conftest import SCRIPTS, LocalCluster, _pod_bridge

MINIMAL_CLUSTER = """
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: smoke
spec:
  rayVersion: "2.52.0"
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers:
        - name: ray-head
          image: rayproject/ray:2.52.0
          resources: {limits: {cpu: "1", memory: 2Gi}, requests: {cpu: "1", memory: 2Gi}}
  workerGroupSpecs:
  - groupName: gpu
    replicas: 1
    minReplicas: 1
    maxReplicas: 1
    rayStartParams: {}
    template:
      spec:
        containers:
        - name: ray-worker
          image: rayproject/ray:2.52.0
          resources:
            limits: {cpu: "1", memory: 2Gi, nvidia.com/gpu: "1"}
            requests: {cpu: "1", memory: 2Gi, nvidia.com/gpu: "1"}
"""


def _conditions(obj: dict[str, Any]) -> dict[str, str]:
    return {c["type"]: c["status"] for c in (obj.get("status") or {}).get("conditions") or []}


def test_fake_nodes_are_ready_and_one_has_gpus(local_cluster: LocalCluster) -> None:
    nodes = {n["metadata"]["name"]: n for n in local_cluster.get_json("nodes", "-l", "type=kwok")["items"]}
    assert set(nodes) == {"kwok-node-0", "kwok-node-1", "kwok-gpu-0"}
    for name, node in nodes.items():
        assert _conditions(node).get("Ready") == "True", name
        assert not node["spec"].get("taints"), (name, node["spec"].get("taints"))
    assert nodes["kwok-gpu-0"]["status"]["allocatable"].get("nvidia.com/gpu") == "4"
    assert "nvidia.com/gpu" not in nodes["kwok-node-0"]["status"]["allocatable"]


def test_operator_runs_with_its_own_crds(local_cluster: LocalCluster) -> None:
    # The version we target runs (not a fallback), from the entry scripts/ensure-kube built for it.
    assert local_cluster.operator_version == format_version(LATEST_VERSION)
    built = dict(
        line.split("=", 1) for line in (local_cluster.operator_dir / "operator.env").read_text().splitlines() if line
    )
    assert built["version"] == local_cluster.operator_version
    assert built["source"] in ("proxy", "reference"), built
    status = local_cluster.script("status").stdout
    assert f"KubeRay operator: v{built['version']}, built from {built['source_desc']}" in status, status
    crds = {c["metadata"]["name"]: c for c in local_cluster.get_json("crds")["items"]}
    assert {"rayclusters.ray.io", "rayjobs.ray.io", "rayservices.ray.io", "raycronjobs.ray.io"} <= set(crds)
    # v1.7.0's own CRDs, not an older operator's: RayCronJob.spec.timeZone and RayCluster.spec.tlsOptions are new.
    cron_spec = crds["raycronjobs.ray.io"]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    cluster_spec = crds["rayclusters.ray.io"]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert "timeZone" in cron_spec["properties"] and "tlsOptions" in cluster_spec["properties"]
    server = local_cluster.kubectl("version", "-o", "json").stdout
    assert '"gitVersion": "v1.36.' in server, server


def test_operator_reconciles_a_raycluster_to_ready_and_gc_removes_its_children(
    local_cluster: LocalCluster, namespace: str
) -> None:
    local_cluster.kubectl("-n", namespace, "apply", "-f", "-", input=MINIMAL_CLUSTER)

    def ready() -> dict[str, Any] | None:
        obj = local_cluster.get_json("-n", namespace, "raycluster", "smoke")
        return obj if (obj.get("status") or {}).get("state") == "ready" else None

    obj = local_cluster.wait_for(ready, 180, f"RayCluster smoke to be ready\n{local_cluster.logs('ray-operator')}")
    assert _conditions(obj).get("HeadPodReady") == "True", obj["status"]
    pods = local_cluster.get_json("-n", namespace, "pods", "-l", "ray.io/cluster=smoke")["items"]
    assert len(pods) == 2
    assert {p["status"]["phase"] for p in pods} == {"Running"}
    gpu_pod = next(p for p in pods if p["metadata"]["labels"].get("ray.io/node-type") == "worker")
    assert gpu_pod["spec"]["nodeName"] == "kwok-gpu-0"  # the only node with nvidia.com/gpu
    services = local_cluster.get_json("-n", namespace, "services", "-l", "ray.io/cluster=smoke")["items"]
    assert services, "the operator created no head Service"

    local_cluster.kubectl("-n", namespace, "delete", "raycluster", "smoke", "--wait=true", "--timeout=120s")
    local_cluster.wait_for(
        lambda: not local_cluster.get_json("-n", namespace, "pods,services", "-l", "ray.io/cluster=smoke")["items"],
        120,
        "the RayCluster's Pods and Services to be garbage-collected",
    )


def test_a_port_base_names_the_pod_bridge_of_local_cluster() -> None:
    # the port bases handed out skip one whose --run-pods bridge exists: numbered as the script numbers it
    assert "NET_N=$(( (BASE / 10) % 200 + 20 ))" in (SCRIPTS / "local-cluster").read_text()
    assert _pod_bridge(16443) == Path("/sys/class/net/prbr64")
    assert _pod_bridge(33520) == Path("/sys/class/net/prbr172")
