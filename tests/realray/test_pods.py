"""pod-runner as the kubelet, without Ray: an image it cannot run, restartPolicy OnFailure, a liveness probe's
restart with ``kubectl logs --previous``, graceful deletion. One namespace for the module (Pods of their own names)."""

from __future__ import annotations

import subprocess
import time
from typing import Any

from realray.conftest import RAY_MAIN, RealRay

IMAGE = f"rayproject/ray:{RAY_MAIN}"


def _pod(name: str, script: str, **spec: Any) -> dict[str, Any]:
    container = {"name": "main", "image": IMAGE, "command": ["bash", "-c", script]}
    container.update(spec.pop("container", {}))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [container], "terminationGracePeriodSeconds": 5, **spec}}


def _status(rr: RealRay, ns: str, name: str) -> dict[str, Any]:
    obj = rr.get("pod", name, ns)
    assert obj is not None
    return dict(obj.get("status", {}))


def test_an_image_it_cannot_run_is_never_running(realray: RealRay, rr_module_namespace: str) -> None:
    pod = _pod("nginx", "sleep 100")
    pod["spec"]["containers"][0]["image"] = "nginx:1.27"
    realray.apply(pod, rr_module_namespace)

    def waiting() -> dict[str, Any] | None:
        statuses = _status(realray, rr_module_namespace, "nginx").get("containerStatuses") or []
        return statuses[0]["state"].get("waiting") if statuses else None

    state = realray.wait_for(waiting, 60, "the container's waiting state")
    assert state["reason"] == "ErrImagePull"
    assert "not a Ray image with a release tag" in state["message"]
    time.sleep(6)
    status = _status(realray, rr_module_namespace, "nginx")
    assert status["phase"] == "Pending"
    assert "running" not in status["containerStatuses"][0]["state"]


def test_on_failure_restarts_until_it_succeeds(realray: RealRay, rr_module_namespace: str) -> None:
    script = "if [ -f /tmp/once ]; then echo second; exit 0; fi; touch /tmp/once; echo first; exit 3"
    realray.apply(_pod("retry", script, restartPolicy="OnFailure"), rr_module_namespace)
    ns = rr_module_namespace
    realray.wait_for(lambda: _status(realray, ns, "retry").get("phase") == "Succeeded", 90, "Succeeded")
    ctr = _status(realray, rr_module_namespace, "retry")["containerStatuses"][0]
    assert ctr["restartCount"] == 1
    assert ctr["state"]["terminated"]["reason"] == "Completed"
    assert ctr["lastState"]["terminated"]["exitCode"] == 3


def test_liveness_failure_restarts_the_container(realray: RealRay, rr_module_namespace: str) -> None:
    probe = {"exec": {"command": ["test", "-f", "/tmp/alive"]}, "periodSeconds": 1, "failureThreshold": 2}
    script = "echo run $(date +%s%N); touch /tmp/alive; sleep 3; rm /tmp/alive; sleep 100"
    realray.apply(_pod("live", script, container={"livenessProbe": probe}), rr_module_namespace)

    def restarted() -> dict[str, Any] | None:
        statuses = _status(realray, rr_module_namespace, "live").get("containerStatuses") or []
        return statuses[0] if statuses and statuses[0]["restartCount"] >= 1 and "running" in statuses[0]["state"] else None

    ctr = realray.wait_for(restarted, 90, "a restart by the liveness probe")
    assert ctr["lastState"]["terminated"]["exitCode"] != 0
    previous = realray.kubectl("logs", "-n", rr_module_namespace, "live", "--previous").stdout
    current = realray.kubectl("logs", "-n", rr_module_namespace, "live").stdout
    assert previous.startswith("run ") and current.startswith("run ") and previous != current

    # graceful deletion: the processes end, the namespace goes, then the object
    pid = int(ctr["containerID"].removeprefix("pod-runner://"))
    realray.kubectl("delete", "pod", "live", "-n", rr_module_namespace, "--timeout=60s")
    assert realray.get("pod", "live", rr_module_namespace) is None
    assert subprocess.run(["kill", "-0", str(pid)], capture_output=True).returncode != 0
