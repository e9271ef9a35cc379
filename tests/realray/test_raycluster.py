"""(a) A RayCluster with real Ray: head and worker turn Ready, and Ray itself sees the worker."""

from __future__ import annotations

import subprocess
from typing import Any

from pulumi_kuberay.status import diagnose

from realray._manifests import raycluster
from realray.conftest import RAY_MAIN, RealRay


def _ready(rr: RealRay, ns: str, name: str) -> dict[str, Any] | None:
    obj = rr.get("raycluster", name, ns)
    return obj if obj and obj.get("status", {}).get("state") == "ready" else None


def test_head_and_worker_turn_ready_and_ray_sees_the_worker(realray: RealRay, rr_namespace: str) -> None:
    realray.apply(raycluster("rc", version=RAY_MAIN), rr_namespace)
    obj = realray.wait_for(lambda: _ready(realray, rr_namespace, "rc"), 240, "RayCluster rc to be ready", 2,
                           namespace=rr_namespace)
    assert obj["status"]["readyWorkerReplicas"] == 1
    assert diagnose(obj).phase == "healthy"

    pods = realray.pods(rr_namespace, "ray.io/cluster=rc")
    assert sorted(p["metadata"]["labels"]["ray.io/node-type"] for p in pods) == ["head", "worker"]
    for pod in pods:
        ready = {c["type"]: c["status"] for c in pod["status"]["conditions"]}
        assert ready["Ready"] == "True", pod["metadata"]["name"]
        assert pod["status"]["podIP"].startswith("198.18.")
        assert pod["spec"]["nodeName"] == "ray-node-0"
    head = next(p for p in pods if p["metadata"]["labels"]["ray.io/node-type"] == "head")
    worker = next(p for p in pods if p["metadata"]["labels"]["ray.io/node-type"] == "worker")
    # the worker's init container waited for the GCS through the head Service's DNS name
    init = worker["status"]["initContainerStatuses"][0]
    assert init["name"] == "wait-gcs-ready"
    assert init["state"]["terminated"]["exitCode"] == 0

    # Ray's own view: both nodes, the worker's group by name, the CPUs the two advertise
    # `ray status` can answer before the autoscaler's view has both nodes: wait for them, then judge
    def both_nodes() -> subprocess.CompletedProcess[str] | None:
        proc = realray.exec_in(rr_namespace, head["metadata"]["name"], ["ray", "status"])
        return proc if proc.returncode == 0 and " 1 small" in proc.stdout else None

    status = realray.wait_for(both_nodes, 120, "ray status to list the worker")
    assert " 1 small" in status.stdout and " 1 headgroup" in status.stdout, status.stdout
    assert "0.0/2.0 CPU" in status.stdout, status.stdout

    # kubectl logs goes through the API server to pod-runner's kubelet endpoint
    logs = realray.kubectl("logs", "-n", rr_namespace, head["metadata"]["name"]).stdout
    assert "Ray runtime started" in logs
    # the head Service resolves to the head Pod's IP, for the Pods and the operator alike
    svc = f"{obj['status']['head']['serviceName']}.{rr_namespace}.svc.cluster.local"
    assert realray.resolve(svc) == [head["status"]["podIP"]]
