"""(e) The seed's misuse: a RayJob with an embedded cluster used as a service (it serves while the job runs, and
the service is gone when the job ends); (f) readiness: rayVersion >= 2.53 with a Ray 2.52 image never turns
Ready, as the catalogue's probes-need-ray-2-53 says.

The two share a namespace: the mismatched RayCluster is applied when the module starts (``mismatch``), so its
head runs its minute without turning Ready while the first test's job runs, instead of the second test waiting
that minute out."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import datetime
from typing import Any

import pytest
from pulumi_kuberay.rules import check
from pulumi_kuberay.status import diagnose

from realray._manifests import raycluster, rayjob
from realray.conftest import RAY_MAIN, RAY_OLD, RealRay

SERVE_FOR = 40
SERVING_JOB = (
    f"python -c \"import time; from ray import serve; import rr_serve_app; serve.start(http_options={{'host': '0.0.0.0'}}); serve.run(rr_serve_app.echo, route_prefix='/echo'); print('serving'); time.sleep({SERVE_FOR})\""
)


def _job(rr: RealRay, ns: str, name: str) -> dict[str, Any]:
    obj = rr.get("rayjob", name, ns)
    assert obj is not None
    return obj


#: How long the mismatched head must have run without ever turning Ready.
NEVER_READY_FOR = 60


@pytest.fixture(scope="module", autouse=True)
def mismatch(realray: RealRay, rr_module_namespace: str) -> dict[str, Any]:
    """The RayCluster ``mismatch`` (rayVersion 2.53, a Ray 2.52 image, no workers), applied first thing."""
    manifest = raycluster("mismatch", version=RAY_OLD, ray_version=RAY_MAIN, workers=0)
    realray.apply(manifest, rr_module_namespace)
    return manifest


def test_rayjob_used_as_a_service_is_gone_when_the_job_ends(realray: RealRay, rr_module_namespace: str) -> None:
    ns = rr_module_namespace
    realray.apply(rayjob("served", SERVING_JOB, workers=0), ns)

    def head_url() -> str | None:
        cluster = _job(realray, ns, "served").get("status", {}).get("rayClusterName")
        if not cluster:
            return None
        addrs = realray.resolve(f"{cluster}-head-svc.{ns}.svc.cluster.local")
        return f"http://{addrs[0]}:8000/echo?say=hi" if addrs else None

    url = realray.wait_for(head_url, 300, "the job's cluster head", namespace=ns)
    cluster = _job(realray, ns, "served")["status"]["rayClusterName"]
    def answered() -> tuple[int, str] | None:
        got = realray.get_url(url, timeout=5)
        return got if got[0] == 200 else None

    status, body = realray.wait_for(answered, 240, "the job's Serve app to answer", namespace=ns)
    assert body == f"echo hi from {cluster}"
    served_at = time.monotonic()
    # while the job runs, it serves; when the entrypoint returns, the job is Complete and its cluster deleted
    done = realray.wait_for(
        lambda: (o := _job(realray, ns, "served"))["status"].get("jobDeploymentStatus") == "Complete" and o,
        SERVE_FOR + 180, "the job to end",
    )
    assert done["status"]["jobStatus"] == "SUCCEEDED"
    realray.wait_for(lambda: realray.get("raycluster", cluster, ns) is None, 120, f"RayCluster {cluster} deleted")
    realray.wait_for(lambda: not realray.pods(ns, f"ray.io/cluster={cluster}"), 120, f"the Pods of {cluster} to end")
    status, body = realray.get_url(url, timeout=5)
    sys.stderr.write(
        f"\n[realray] RayJob used as a service: served for {time.monotonic() - served_at:.0f}s, then {status} {body!r}\n"
    )
    assert status == 0  # nothing answers any more: the "service" ended with the job
    assert realray.resolve(f"{cluster}-head-svc.{ns}.svc.cluster.local") == []


def _time(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def test_rayversion_2_53_with_a_2_52_image_never_turns_ready(
    realray: RealRay, rr_module_namespace: str, mismatch: dict[str, Any]
) -> None:
    ns = rr_module_namespace
    findings = [f.rule_id for f in check(mismatch)]
    assert "probes-need-ray-2-53" in findings

    def head() -> dict[str, Any] | None:
        pods = realray.pods(ns, "ray.io/cluster=mismatch,ray.io/node-type=head")
        return pods[0] if pods and pods[0]["status"].get("phase") == "Running" else None

    pod = realray.wait_for(head, 180, "the head Pod to run")
    name = pod["metadata"]["name"]
    # Ray itself is up (2.52 from the image's venv) ...
    # `ray status` answers before the autoscaler has seen the head ("no active nodes"): wait for the head in it.
    def ray_status() -> subprocess.CompletedProcess[str] | None:
        proc = realray.exec_in(ns, name, ["ray", "status"], container="ray-head")
        return proc if proc.returncode == 0 and "1 headgroup" in proc.stdout else None

    status = realray.wait_for(ray_status, 180, "ray status on the head to list the head")
    assert "1 headgroup" in status.stdout
    # ... but the HTTP /api/healthz probes KubeRay builds for rayVersion 2.53 get 404 from Ray 2.52: never Ready.
    probe = pod["spec"]["containers"][0]["readinessProbe"]
    assert probe["httpGet"]["path"] == "/api/healthz"

    # Never Ready for a minute of running: Ready False, with no transition since the container started, once it
    # has run NEVER_READY_FOR seconds (by now, after the first test, it usually has: else poll until then).
    def judged() -> dict[str, Any] | None:
        pod = realray.pods(ns, "ray.io/cluster=mismatch,ray.io/node-type=head")[0]
        ready = next(c for c in pod["status"]["conditions"] if c["type"] == "Ready")
        assert ready["status"] == "False", "the head turned Ready"
        started = _time(pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"])
        # the Ready condition last changed before the container ran: it has been False all along
        assert _time(ready["lastTransitionTime"]) <= started, (ready, started)
        ran = (datetime.now(started.tzinfo) - started).total_seconds()
        return pod if ran >= NEVER_READY_FOR else None

    pod = realray.wait_for(judged, NEVER_READY_FOR + 30, f"the head to have run {NEVER_READY_FOR}s", 5)
    assert pod["status"]["containerStatuses"][0]["restartCount"] == 0
    obj = realray.get("raycluster", "mismatch", ns)
    assert obj is not None and obj.get("status", {}).get("state") != "ready"
    assert diagnose(obj).phase != "healthy"
