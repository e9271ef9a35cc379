"""(b) RayJob with real Ray, created by ``pulumi up`` of the RayJob component (the cluster tier's waits program
pointed at this cluster): HTTPMode and K8sJobMode through PENDING -> RUNNING -> SUCCEEDED with ``pulumi up``
returning once the job has ended, its ``status``/``last_change`` outputs saying so; a failing entrypoint failing
the ``up`` with the diagnosis; shutdownAfterJobFinishes removing the cluster; a job on an existing cluster.

One stack for the module (``rr_stack``): each test sets the whole of its objects, so an ``up`` also deletes the
previous test's RayJobs (their clusters are already gone)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from cluster._waits import config, timed_up
from cluster.conftest import ClusterStack
from pulumi_kuberay.status import diagnose

from realray._manifests import cluster_spec, rayjob
from realray._watch import StatusWatch, in_order
from realray.conftest import RealRay

JOB_STATES = "{.status.jobDeploymentStatus}/{.status.jobStatus}"
ANSWER = (
    "python -c \"import ray, time; ray.init(); time.sleep(3); print('the answer is', ray.get(ray.remote(lambda: 6 * 7).remote()))\""
)
RUN_STATES = ["RUNNING", "SUCCEEDED"]
FAILING = "python -c \"import sys; print('loading the input shard failed: no such table features_v2'); sys.exit(3)\""
#: Each object's wait in these ``up`` runs (the component's ``timeout_seconds``).
WAIT = 420
#: How long after the job's end ``pulumi up`` may take to return: the component polls every 2 s, then the
#: outputs, the engine's last steps and the language host's exit on 2 busy cores.
RETURN_SLACK = 45


def _entry(kind: str, manifest: dict[str, Any]) -> dict[str, Any]:
    return {"kind": kind, "spec": manifest["spec"], "timeout_seconds": WAIT}


def _up_watching(
    rr: RealRay, stack: ClusterStack, ns: str, jobs: dict[str, dict[str, Any]], case: str,
    others: dict[str, dict[str, Any]] | None = None,
) -> tuple[Any, float, dict[str, list[tuple[float, str]]]]:
    """``pulumi up`` of ``jobs`` (name -> RayJob manifest) and ``others`` (waits entries), every job's states
    watched from before the ``up``: (the run, its seconds, each job's (seconds since the up began, state))."""
    stack.set_config(config({**(others or {}), **{n: _entry("RayJob", m) for n, m in jobs.items()}}, ns))
    watches = {n: StatusWatch(rr, "rayjob", n, ns, JOB_STATES, limit=WAIT + 120) for n in jobs}
    try:
        up, took = timed_up(stack, case)
    finally:
        states = {n: w.stop() for n, w in watches.items()}
    for name, seen in states.items():
        sys.stderr.write(f"\n[realray] RayJob {name} ({case}): pulumi up {took:.0f}s, states {seen}\n")
    return up, took, states


def _gone(rr: RealRay, ns: str, kind: str, name: str) -> bool:
    return rr.get(kind, name, ns) is None


def test_jobs_succeed_and_pulumi_up_returns_when_they_end(
    realray: RealRay, rr_stack: ClusterStack, rr_module_namespace: str
) -> None:
    ns = rr_module_namespace
    # both submission modes in one `up` (their clusters start side by side): it returns when the later one ends
    modes = {"http": "HTTPMode", "k8s": "K8sJobMode"}
    jobs = {n: rayjob(n, ANSWER, mode=mode, workers=0) for n, mode in modes.items()}
    up, took, states = _up_watching(realray, stack=rr_stack, ns=ns, jobs=jobs, case="RayJobs HTTPMode + K8sJobMode")
    assert up.returncode == 0, f"{up.describe()}\n{realray.diagnostics(ns)}"
    # when `up` returns, both jobs are over: the live objects are terminal, and succeeded
    live = {n: realray.get("rayjob", n, ns) for n in modes}
    for name, obj in live.items():
        assert obj is not None and obj["status"]["jobDeploymentStatus"] == "Complete", (name, states[name])
        assert obj["status"]["jobStatus"] == "SUCCEEDED", (name, states[name])
        assert diagnose(obj).phase == "succeeded", diagnose(obj)
    # ... and `up` did not return long after the later job's end (nor before it: the states above)
    ended = max(next(t for t, s in states[n] if s.startswith("Complete/")) for n in modes)
    assert ended <= took <= ended + RETURN_SLACK, (took, states)

    for name in modes:
        job_states = [s.split("/")[1] for _, s in states[name]]
        # The operator writes jobStatus as it reads it on its reconciles (every few seconds while the job runs).
        # PENDING lasts from the submission until the driver starts: in K8sJobMode the submitter's `ray job submit`
        # is there first, and in HTTPMode too it can last less than one requeue (seen in a run of this test:
        # RUNNING first). When it is seen it comes first; RUNNING and SUCCEEDED always are.
        wanted = ["PENDING", *RUN_STATES] if "PENDING" in job_states else RUN_STATES
        assert in_order(job_states, wanted), states[name]
        assert in_order([s.split("/")[0] for _, s in states[name]], ["Initializing", "Running", "Complete"]), states

    # the stack's outputs say what the live objects say: the status the wait ended on, and what this up did
    outputs = rr_stack.outputs()
    for name in modes:
        out = outputs[name]
        assert out["status"]["jobDeploymentStatus"] == "Complete", out
        assert out["status"]["jobStatus"] == "SUCCEEDED", out
        assert out["status"]["jobId"] == live[name]["status"]["jobId"]  # type: ignore[index]
        assert out["last_change"]["action"] == "create", out["last_change"]
        # how the wait ended: the diagnosis line of the terminal status it saw
        assert f"RayJob {ns}/{name}: succeeded" in out["last_change"]["result"], out["last_change"]
        assert "(waited " in out["last_change"]["result"], out["last_change"]
        assert out["diagnosis"] == diagnose(live[name]).summary, out

    # the driver's output: K8sJobMode's submitter Pod ran `ray job submit`, which follows the job's logs
    logs = realray.kubectl("logs", "-n", ns, "job/k8s").stdout
    assert "the answer is 42" in logs, logs
    # shutdownAfterJobFinishes (ttlSecondsAfterFinished 0): the RayClusters they made are deleted, their Pods end
    clusters = [obj["status"]["rayClusterName"] for obj in live.values()]  # type: ignore[index]
    realray.wait_for(lambda: all(_gone(realray, ns, "raycluster", c) for c in clusters), 120, f"{clusters} deleted")
    realray.wait_for(lambda: not any(realray.pods(ns, f"ray.io/cluster={c}") for c in clusters), 120,
                     f"the Pods of {clusters} to end")


def test_failing_entrypoint_fails_the_up_with_the_diagnosis(
    realray: RealRay, rr_stack: ClusterStack, rr_module_namespace: str
) -> None:
    ns = rr_module_namespace
    jobs = {"broken": rayjob("broken", FAILING, shutdown=False, workers=0)}
    up, took, states = _up_watching(realray, rr_stack, ns, jobs, "RayJob with a failing entrypoint")
    # the component's wait sees the job Failed and fails the `up` right then, with the operator's reason and our
    # diagnosis (RayJobFailedError)
    assert up.returncode != 0, up.describe()
    assert "RayJob 'broken' failed: jobDeploymentStatus=Failed, jobStatus=FAILED" in up.output, up.describe()
    assert "exit code 3" in up.output or "features_v2" in up.output, up.describe()
    ended = next(t for t, s in states["broken"] if s.startswith("Failed/"))
    assert ended <= took <= ended + RETURN_SLACK, (took, states)
    obj = realray.get("rayjob", "broken", ns)
    assert obj is not None
    assert obj["status"]["jobStatus"] == "FAILED", states
    assert obj["status"]["jobDeploymentStatus"] == "Failed", states
    diag = diagnose(obj)
    assert diag.phase == "failed", diag
    text = f"{diag.summary} {diag.next_step} {diag.evidence}"
    sys.stderr.write(f"\n[realray] diagnose: {diag.summary}\n")
    assert "exit code 3" in text or "features_v2" in text, diag
    # kuberay-explain on the live object says the same (the `up` error names that command)
    manifest = realray.kubectl("get", "rayjob", "broken", "-n", ns, "-o", "yaml").stdout
    explain = subprocess.run([str(Path(sys.executable).parent / "kuberay-explain"), "-"], input=manifest,
                             capture_output=True, text=True, timeout=60)
    assert "exit code 3" in explain.stdout or "features_v2" in explain.stdout, explain.stdout + explain.stderr
    assert "kubectl get rayjob -n" in up.output and "kuberay-explain -" in up.output, up.describe()


def test_job_on_an_existing_cluster(realray: RealRay, rr_stack: ClusterStack, rr_module_namespace: str) -> None:
    ns = rr_module_namespace
    # the RayCluster component first (its wait: head Pod ready), then the RayJob whose clusterSelector names it:
    # the component links the two (the job is created after the cluster's wait)
    shared = {"shared": {"kind": "RayCluster", "spec": cluster_spec(workers=1), "timeout_seconds": WAIT}}
    jobs = {"shared-job": rayjob("shared-job", ANSWER, selector="shared")}
    up, took, states = _up_watching(realray, rr_stack, ns, jobs, "RayCluster + RayJob on it", others=shared)
    assert up.returncode == 0, f"{up.describe()}\n{realray.diagnostics(ns)}"
    obj = realray.get("rayjob", "shared-job", ns)
    assert obj is not None and obj["status"]["jobStatus"] == "SUCCEEDED", states
    assert obj["status"]["jobDeploymentStatus"] == "Complete", states
    assert obj["status"]["rayClusterName"] == "shared"
    ended = next(t for t, s in states["shared-job"] if s.startswith("Complete/"))
    assert ended <= took <= ended + RETURN_SLACK, (took, states)
    outputs = rr_stack.outputs()
    assert outputs["shared-job"]["status"]["jobStatus"] == "SUCCEEDED", outputs["shared-job"]
    assert outputs["shared-job"]["status"]["rayClusterName"] == "shared"
    assert outputs["shared"]["last_change"]["action"] == "create", outputs["shared"]
    # the cluster was not the job's: it stays, and stays ready
    cluster = realray.get("raycluster", "shared", ns)
    assert cluster is not None and cluster["status"]["state"] == "ready"
