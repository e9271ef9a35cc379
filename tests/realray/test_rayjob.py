"""(b) RayJob with real Ray: HTTPMode and K8sJobMode through PENDING -> RUNNING -> SUCCEEDED, a failing
entrypoint diagnosed, shutdownAfterJobFinishes removing the cluster, a job on an existing cluster."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pulumi_kuberay.status import diagnose

from realray._manifests import raycluster, rayjob
from realray._watch import StatusWatch, in_order
from realray.conftest import RealRay

JOB_STATES = "{.status.jobDeploymentStatus}/{.status.jobStatus}"
ANSWER = (
    "python -c \"import ray, time; ray.init(); time.sleep(3); print('the answer is', ray.get(ray.remote(lambda: 6 * 7).remote()))\""
)
K8S_JOB_STATES = ["RUNNING", "SUCCEEDED"]
FAILING = "python -c \"import sys; print('loading the input shard failed: no such table features_v2'); sys.exit(3)\""


def _finished(rr: RealRay, ns: str, name: str) -> dict[str, Any] | None:
    obj = rr.get("rayjob", name, ns)
    status = (obj or {}).get("status", {})
    return obj if status.get("jobDeploymentStatus") in ("Complete", "Failed") else None


def _run(
    rr: RealRay, ns: str, manifest: dict[str, Any], timeout: float = 420
) -> tuple[dict[str, Any], list[str], float]:
    name = manifest["metadata"]["name"]
    started = time.monotonic()
    rr.apply(manifest, ns)  # then the watch: a watch of an object not there yet ends at once
    watch = StatusWatch(rr, "rayjob", name, ns, JOB_STATES, limit=timeout + 60)
    try:
        obj = rr.wait_for(lambda: _finished(rr, ns, name), timeout, f"RayJob {name} to finish", 1)
    finally:
        states = watch.stop()
    took = time.monotonic() - started
    sys.stderr.write(f"\n[realray] RayJob {name}: {took:.0f}s, states {states}\n")
    return obj, [s for _, s in states], took


def _gone(rr: RealRay, ns: str, kind: str, name: str) -> bool:
    return rr.get(kind, name, ns) is None


@pytest.mark.parametrize("mode", ["HTTPMode", "K8sJobMode"])
def test_job_succeeds_and_its_cluster_is_removed(realray: RealRay, rr_namespace: str, mode: str) -> None:
    obj, states, _ = _run(realray, rr_namespace, rayjob("answer", ANSWER, mode=mode, workers=0))
    job_states = [s.split("/")[1] for s in states]
    # HTTPMode: the operator reads PENDING while the driver starts; K8sJobMode: the submitter's `ray job submit`
    # is there first and PENDING (a second or so) can fall between two reconciles: then RUNNING comes first
    wanted = ["PENDING", "RUNNING", "SUCCEEDED"] if mode == "HTTPMode" or "PENDING" in job_states else K8S_JOB_STATES
    assert in_order(job_states, wanted), states
    assert in_order([s.split("/")[0] for s in states], ["Initializing", "Running", "Complete"]), states
    assert obj["status"]["jobStatus"] == "SUCCEEDED"
    diag = diagnose(obj)
    assert diag.phase == "succeeded", diag
    # the driver's output, from Ray's job logs on the head (HTTPMode) or the submitter's Pod (K8sJobMode)
    if mode == "K8sJobMode":
        logs = realray.kubectl("logs", "-n", rr_namespace, "job/answer").stdout
        assert "the answer is 42" in logs, logs
    # shutdownAfterJobFinishes (ttlSecondsAfterFinished 0): the RayCluster it made is deleted, its Pods end
    cluster = obj["status"]["rayClusterName"]
    realray.wait_for(lambda: _gone(realray, rr_namespace, "raycluster", cluster), 120, f"RayCluster {cluster} deleted")
    realray.wait_for(
        lambda: not realray.pods(rr_namespace, f"ray.io/cluster={cluster}"), 120, f"the Pods of {cluster} to end"
    )


def test_failing_entrypoint_fails_and_is_diagnosed(realray: RealRay, rr_namespace: str) -> None:
    obj, states, _ = _run(realray, rr_namespace, rayjob("broken", FAILING, shutdown=False, workers=0))
    assert obj["status"]["jobStatus"] == "FAILED", states
    assert obj["status"]["jobDeploymentStatus"] == "Failed", states
    diag = diagnose(obj)
    assert diag.phase == "failed", diag
    text = f"{diag.summary} {diag.next_step} {diag.evidence}"
    sys.stderr.write(f"\n[realray] diagnose: {diag.summary}\n")
    assert "exit code 3" in text or "features_v2" in text, diag
    # kuberay-explain on the live object says the same
    manifest = realray.kubectl("get", "rayjob", "broken", "-n", rr_namespace, "-o", "yaml").stdout
    explain = subprocess.run([str(Path(sys.executable).parent / "kuberay-explain"), "-"], input=manifest,
                             capture_output=True, text=True, timeout=60)
    assert "exit code 3" in explain.stdout or "features_v2" in explain.stdout, explain.stdout + explain.stderr


def test_job_on_an_existing_cluster(realray: RealRay, rr_namespace: str) -> None:
    realray.apply(raycluster("shared", workers=1), rr_namespace)
    obj, states, _ = _run(realray, rr_namespace, rayjob("on-shared", ANSWER, selector="shared"))
    assert obj["status"]["jobStatus"] == "SUCCEEDED", states
    assert obj["status"]["rayClusterName"] == "shared"
    # the cluster was not the job's: it stays, and stays ready
    shared = realray.get("raycluster", "shared", rr_namespace)
    assert shared is not None and shared["status"]["state"] == "ready"
