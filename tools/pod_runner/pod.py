"""One Pod's life on our node: network namespace, init containers, containers, probes, restarts, status,
graceful deletion. A thread per Pod; every wait in it is bounded."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import shutil
import threading
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import process
from .images import ImageError, venv_for
from .kube import ApiError, Kube
from .netns import Network
from .spec import Env, expand

BACKOFF_START, BACKOFF_MAX = 10.0, 300.0
BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass
class Node:
    """What every Pod runner shares: the API, the network, where venvs and Pod state live."""

    kube: Kube
    network: Network
    name: str
    venvs: Path
    state: Path
    allocatable: Mapping[str, str]
    search_ns_resolv: str  # resolv.conf with {ns} to fill


@dataclass
class Ctr:
    spec: Mapping[str, Any]
    init: bool
    status: dict[str, Any] = field(default_factory=dict)
    proc: process.Proc | None = None
    env: dict[str, str] = field(default_factory=dict)
    restarts: int = 0
    backoff_until: float = 0.0
    done: bool = False  # terminated and not to be started again
    ready: ProbeStates | None = None

    @property
    def name(self) -> str:
        return str(self.spec["name"])


@dataclass
class ProbeStates:
    readiness: process.ProbeState | None
    liveness: process.ProbeState | None
    startup: process.ProbeState | None
    started: bool = False


class PodRun(threading.Thread):
    def __init__(self, node: Node, pod: Mapping[str, Any]) -> None:
        meta = pod["metadata"]
        super().__init__(name=f"pod-{meta['namespace']}/{meta['name']}", daemon=True)
        self.node, self.pod = node, dict(pod)
        self.ns, self.pod_name, self.uid = meta["namespace"], meta["name"], meta["uid"]
        self.netns = f"{node.network.tag}-{self.uid[:8]}"
        self.dir = node.state / "pods" / self.uid
        self.ip: ipaddress.IPv4Address | None = None
        self.deleting = threading.Event()
        self.vanished = threading.Event()
        self.stopping = threading.Event()  # the agent stops: end the processes, leave the Pod object
        self.phase = "Pending"
        self.start_time = process.now()
        self.sent = ""
        self.last_sent = 0.0
        self.conditions: dict[str, str] = {"PodScheduled": "True"}
        spec = pod["spec"]
        self.policy = spec.get("restartPolicy", "Always")
        self.inits = [Ctr(c, True) for c in spec.get("initContainers") or []]
        self.ctrs = [Ctr(c, False) for c in spec.get("containers") or []]

    # ---- status --------------------------------------------------------------------------------------------
    def _log(self, msg: str) -> None:
        print(f"[pod-runner] {self.ns}/{self.pod_name}: {msg}", flush=True)

    def container_log(self, container: str) -> Path:
        return Path(self.dir / "logs" / f"{container}.log")

    def _ctr_status(self, c: Ctr) -> dict[str, Any]:
        venv = ""
        with contextlib.suppress(ImageError):
            venv = str(venv_for(str(c.spec.get("image", "")), self.node.venvs))
        out: dict[str, Any] = {
            "name": c.name,
            "image": c.spec.get("image", ""),
            "imageID": f"pod-runner://{venv}" if venv else "",
            "restartCount": c.restarts,
            "ready": bool(c.proc is not None and c.ready and c.ready.readiness and c.ready.readiness.result),
            "started": c.proc is not None,
            "state": {k: v for k, v in c.status.items() if k in ("running", "waiting", "terminated")} or {
                "waiting": {"reason": "PodInitializing" if not c.init else "ContainerCreating"}},
        }
        if c.proc:
            out["containerID"] = f"pod-runner://{c.proc.pid}"
        if "lastState" in c.status:
            out["lastState"] = c.status["lastState"]
        if c.init:
            out["ready"] = bool(c.status.get("terminated", {}).get("exitCode") == 0)
        return out

    def push_status(self, force: bool = False) -> None:
        ctr_statuses = [self._ctr_status(c) for c in self.ctrs]
        all_ready = bool(ctr_statuses) and all(s["ready"] for s in ctr_statuses)
        self.conditions["ContainersReady"] = "True" if all_ready and self.phase == "Running" else "False"
        self.conditions["Ready"] = self.conditions["ContainersReady"]
        conds = [{"type": t, "status": s, "lastProbeTime": None} for t, s in self.conditions.items()]
        status: dict[str, Any] = {
            "phase": self.phase,
            "conditions": conds,
            "hostIP": str(self.node.network.gateway),
            "hostIPs": [{"ip": str(self.node.network.gateway)}],
            "startTime": self.start_time,
            "containerStatuses": ctr_statuses,
            "qosClass": self.pod.get("status", {}).get("qosClass", "BestEffort"),
        }
        if self.inits:
            status["initContainerStatuses"] = [self._ctr_status(c) for c in self.inits]
        if self.ip is not None:
            status["podIP"] = str(self.ip)
            status["podIPs"] = [{"ip": str(self.ip)}]
        body = json.dumps(status, sort_keys=True)
        if body == self.sent and not force and time.monotonic() - self.last_sent < 60:
            return
        # transition times: kept from the last object where the status did not change
        old = {c.get("type"): c for c in (self.pod.get("status", {}).get("conditions") or [])}
        stamp = process.now()
        for cond in conds:
            prev = old.get(cond["type"])
            same = prev is not None and prev.get("status") == cond["status"]
            cond["lastTransitionTime"] = prev.get("lastTransitionTime") if same and prev else stamp
        try:
            self.pod = self.node.kube.merge_patch(
                f"/api/v1/namespaces/{self.ns}/pods/{self.pod_name}/status", {"status": status})
            self.sent, self.last_sent = body, time.monotonic()
        except ApiError as err:
            if err.status == 404:
                self.vanished.set()
            else:
                self._log(f"status update failed: {err}")

    # ---- containers ----------------------------------------------------------------------------------------
    def _env_base(self, venv: Path) -> dict[str, str]:
        return {
            "PATH": f"{venv}/bin:{BASE_PATH}",
            "VIRTUAL_ENV": str(venv),
            "HOME": str(self.dir / "home"),
            "HOSTNAME": self.pod_name,
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            # as the kubelet's, but a name (our DNS answers it with the API relay; the API server's certificate
            # names it) where the kubelet gives the kubernetes Service's ClusterIP, which nothing routes here
            "KUBERNETES_SERVICE_HOST": "kubernetes.default",
            "KUBERNETES_SERVICE_PORT": "443",
            "KUBERNETES_SERVICE_PORT_HTTPS": "443",
        }

    def _start(self, c: Ctr) -> bool:
        """Start ``c``; False (and a waiting state saying why) when it cannot be run."""
        try:
            venv = venv_for(str(c.spec.get("image", "")), self.node.venvs)
        except ImageError as err:
            c.status = {"waiting": {"reason": "ErrImagePull", "message": str(err)}}
            return False
        try:
            c.env = Env(self.node.kube, self.pod, self.node.allocatable).resolve(c.spec, self._env_base(venv))
            volumes = Env(self.node.kube, self.pod, self.node.allocatable).volumes(self.dir)
        except (ValueError, ApiError) as err:
            c.status = {"waiting": {"reason": "CreateContainerConfigError", "message": str(err)}}
            return False
        argv = [expand(a, c.env) for a in [*(c.spec.get("command") or []), *(c.spec.get("args") or [])]]
        if not c.spec.get("command"):
            c.status = {"waiting": {"reason": "CreateContainerError",
                                    "message": "no command: pod-runner does not know the image's entrypoint"}}
            return False
        mounts = [(volumes[m["name"]], m["mountPath"], bool(m.get("readOnly")))
                  for m in c.spec.get("volumeMounts") or [] if m["name"] in volumes]
        log = self.container_log(c.name)
        log.parent.mkdir(parents=True, exist_ok=True)
        if log.exists() and log.stat().st_size:
            log.replace(log.with_suffix(".previous"))
        c.proc = process.start(
            self.netns, argv, env=c.env, workdir=str(c.spec.get("workingDir", "")) or str(self.dir / "home"),
            root=self.dir / "containers" / c.name, hostname=self.pod_name, mounts=mounts, keep=[venv], log=log)
        spec = c.spec
        c.ready = ProbeStates(
            readiness=process.ProbeState(spec["readinessProbe"]) if spec.get("readinessProbe") else None,
            liveness=process.ProbeState(spec["livenessProbe"], result=True) if spec.get("livenessProbe") else None,
            startup=process.ProbeState(spec["startupProbe"]) if spec.get("startupProbe") else None,
        )
        if not c.init and c.ready.readiness is None:
            c.ready.readiness = process.ProbeState({"periodSeconds": 1e9}, result=True)
        last = c.status.get("terminated") or c.status.get("lastState", {}).get("terminated")  # after a back-off
        c.status = {"running": {"startedAt": c.proc.started_at}}
        if last:
            c.status["lastState"] = {"terminated": last}
        self._log(f"started {c.name} (pid {c.proc.pid})")
        return True

    def _exited(self, c: Ctr, code: int, reason: str | None = None) -> None:
        assert c.proc is not None
        # the container's other processes end with it (its session: a PID namespace would take them along)
        process.signal_all(process.descendants(c.proc.pid), 9)
        last = c.status.get("lastState")
        c.status = {"terminated": {"exitCode": code, "reason": reason or ("Completed" if code == 0 else "Error"),
                                   "startedAt": c.proc.started_at, "finishedAt": process.now(),
                                   "containerID": f"pod-runner://{c.proc.pid}"}}
        if last:
            c.status["lastState"] = last
        c.proc = None
        if c.ready:
            c.ready.started = False
        again = self.policy == "Always" or (self.policy == "OnFailure" and code != 0)
        if c.init and code == 0:
            again = False
        if not again:
            c.done = True
            return
        delay = min(BACKOFF_MAX, BACKOFF_START * 2 ** min(c.restarts, 5))
        c.backoff_until = time.monotonic() + delay
        c.restarts += 1
        self._log(f"{c.name} exited {code}; restarting in {delay:.0f}s")

    def _tick(self, c: Ctr) -> None:
        """Exit, restart and probes of one started container."""
        now_ = time.monotonic()
        if c.proc is None:
            if c.done:
                return
            if now_ >= c.backoff_until:
                if not self._start(c):
                    c.backoff_until = now_ + 5  # an image it cannot run: retried, never Running
            elif "terminated" in c.status:
                term = c.status["terminated"]
                c.status = {"waiting": {"reason": "CrashLoopBackOff",
                                        "message": f"back-off restarting failed container {c.name}"},
                            "lastState": {"terminated": term}}
            return
        code = c.proc.popen.poll()
        if code is not None:
            self._exited(c, code if code >= 0 else 128 - code)
            return
        probes = c.ready
        if probes is None or c.init:
            return
        since = now_ - c.proc.started
        ip = str(self.ip)
        if probes.startup and not probes.started:
            if probes.startup.due(since, now_):
                ok, _ = process.run_probe(probes.startup.probe, c.spec, ip, c.proc, c.env)
                probes.startup.record(ok, now_)
                if probes.startup.failures >= int(probes.startup.probe.get("failureThreshold", 3)):
                    self._kill(c, "startup probe failed")
                probes.started = probes.startup.result
            return
        probes.started = True
        for kind in ("liveness", "readiness"):
            st = probes.liveness if kind == "liveness" else probes.readiness
            if st is None or st.probe.get("periodSeconds") == 1e9 or not st.due(since, now_):
                continue
            ok, msg = process.run_probe(st.probe, c.spec, ip, c.proc, c.env)
            st.record(ok, now_)
            if kind == "liveness" and st.failures >= int(st.probe.get("failureThreshold", 3)):
                self._kill(c, f"liveness probe failed: {msg}")
                return

    def _kill(self, c: Ctr, why: str) -> None:
        assert c.proc is not None
        self._log(f"killing {c.name}: {why}")
        grace = float(self.pod["spec"].get("terminationGracePeriodSeconds", 30))
        code = c.proc.stop(min(grace, 30))
        self._exited(c, code if code >= 0 else 128 - code, reason="Error")

    # ---- the Pod -------------------------------------------------------------------------------------------
    def run(self) -> None:
        try:
            self._run()
        except Exception:
            self._log("crashed:\n" + traceback.format_exc())
        finally:
            self._teardown()

    def _wait(self, seconds: float) -> bool:
        """Sleep; True when the Pod is to end (deleted, gone, or the agent stops)."""
        self.deleting.wait(seconds)
        return self.deleting.is_set() or self.vanished.is_set() or self.stopping.is_set()

    def _run(self) -> None:
        self.ip = self.node.network.allocate()
        resolv = self.node.search_ns_resolv.format(ns=self.ns)
        self.node.network.create(self.netns, self.ip, resolv, self.pod_name)
        (self.dir / "home").mkdir(parents=True, exist_ok=True)
        self.conditions["PodReadyToStartContainers"] = "True"
        self.conditions["Initialized"] = "False" if self.inits else "True"
        self.push_status(force=True)
        for c in self.inits:
            while not c.done:
                self._tick(c)
                self.push_status()
                if self._wait(0.5):
                    return
            if c.status.get("terminated", {}).get("exitCode") != 0:
                self.phase = "Failed"
                self.push_status(force=True)
                self._wait(1e9)
                return
        self.conditions["Initialized"] = "True"
        while True:
            for c in self.ctrs:
                self._tick(c)
            self.phase = self._phase()
            self.push_status()
            if self._wait(0.5):
                return

    def _phase(self) -> str:
        if any(c.proc is not None for c in self.ctrs) or any(not c.done and c.restarts for c in self.ctrs):
            return "Running"
        if self.ctrs and all(c.done for c in self.ctrs):
            codes = [c.status.get("terminated", {}).get("exitCode", 1) for c in self.ctrs]
            return "Succeeded" if all(code == 0 for code in codes) else "Failed"
        return "Pending"

    def _teardown(self) -> None:
        grace = float(self.pod.get("metadata", {}).get("deletionGracePeriodSeconds")
                      or self.pod["spec"].get("terminationGracePeriodSeconds", 30))
        grace = 3.0 if self.stopping.is_set() else min(grace, 30)
        deadline = time.monotonic() + grace
        for c in [*self.inits, *self.ctrs]:
            if c.proc is not None:
                c.proc.stop(max(0.5, deadline - time.monotonic()))
        for pid in self.node.network.pids(self.netns):
            process.signal_all(process.descendants(pid), 9)
        self.node.network.remove(self.netns)
        if self.ip is not None:
            self.node.network.release(self.ip)
        if self.deleting.is_set() and not self.vanished.is_set():
            try:
                self.node.kube.request(
                    "DELETE", f"/api/v1/namespaces/{self.ns}/pods/{self.pod_name}",
                    {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                     "preconditions": {"uid": self.uid}})
            except ApiError as err:
                if err.status not in (404, 409):
                    self._log(f"final delete failed: {err}")
        if not self.stopping.is_set():
            shutil.rmtree(self.dir, ignore_errors=True)
        self._log("ended")
