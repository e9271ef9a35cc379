"""pod-runner's agent: ``python3 -m pod_runner --state DIR --pki DIR --server URL ...`` (run by
``scripts/local-cluster up --run-pods``; stops on SIGTERM, ending every Pod's processes and namespace)."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .apiproxy import ApiRelay
from .dns import DnsServer, Records, build_records
from .kube import ApiError, Kube
from .kubelet import KubeletServer, self_signed
from .netns import Network
from .pod import Node, PodRun
from .process import SECRETS, now

LEASE_SECONDS = 40
LOOP_SECONDS = 1.0


def node_object(name: str, alloc: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            # no kwok.x-k8s.io/node annotation: kwok (--manage-nodes-with-annotation-selector) leaves it alone
            "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                       "type": "pod-runner"},
        },
        "spec": {},
    }


def node_status(alloc: dict[str, str], gateway: str, port: int) -> dict[str, Any]:
    stamp = now()
    conds = [
        {"type": t, "status": "False", "reason": f"Kubelet Has No {t}", "message": "pod-runner"}
        for t in ("MemoryPressure", "DiskPressure", "PIDPressure")
    ] + [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "pod-runner is posting ready status"}]
    for c in conds:
        c["lastHeartbeatTime"] = stamp
    return {
        "status": {
            "capacity": alloc,
            "allocatable": alloc,
            "conditions": conds,
            "addresses": [{"type": "InternalIP", "address": gateway}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": port}},
            "nodeInfo": {"kubeletVersion": "v1.36.3-pod-runner", "operatingSystem": "linux", "architecture": "amd64",
                         "containerRuntimeVersion": "pod-runner://0.1", "kubeProxyVersion": "", "machineID": "",
                         "systemUUID": "", "bootID": "", "kernelVersion": "", "osImage": "pod-runner"},
        }
    }


class Agent:
    def __init__(self, args: argparse.Namespace) -> None:
        pki = Path(args.pki)
        self.kube = Kube(args.server, str(pki / "ca.crt"), str(pki / "admin.crt"), str(pki / "admin.key"))
        self.network = Network(args.bridge, ipaddress.IPv4Network(args.subnet), args.tag)
        self.alloc = {"cpu": args.cpu, "memory": args.memory, "pods": "110", "ephemeral-storage": "100Gi"}
        gw = str(self.network.gateway)
        resolv = f"nameserver {gw}\nsearch {{ns}}.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n"
        self.node = Node(self.kube, self.network, args.node, Path(args.venvs), Path(args.state), self.alloc, resolv)
        self.port = args.kubelet_port
        self.dns_port = args.dns_port
        self.pods: dict[str, PodRun] = {}
        self.records = Records()
        self.stop = threading.Event()

    def log_of(self, ns: str, pod: str, container: str, previous: bool) -> Path | None:
        for run in list(self.pods.values()):
            if run.ns == ns and run.pod_name == pod:
                path = run.container_log(container)
                return path.with_suffix(".previous") if previous else path
        return None

    def register(self) -> None:
        name = self.node.name
        if self.kube.get_or_none(f"/api/v1/nodes/{name}") is None:
            self.kube.request("POST", "/api/v1/nodes", node_object(name, self.alloc))
        self.heartbeat()

    def heartbeat(self) -> None:
        name = self.node.name
        self.kube.merge_patch(f"/api/v1/nodes/{name}/status",
                              node_status(self.alloc, str(self.network.gateway), self.port))
        lease_path = f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{name}"
        micro = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
        spec = {"holderIdentity": name, "leaseDurationSeconds": LEASE_SECONDS, "renewTime": micro}
        if self.kube.get_or_none(lease_path) is None:
            self.kube.request("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
                              {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                               "metadata": {"name": name, "namespace": "kube-node-lease"}, "spec": spec})
        else:
            self.kube.merge_patch(lease_path, {"spec": spec})

    def sync(self) -> None:
        pods = self.kube.get("/api/v1/pods", fieldSelector=f"spec.nodeName={self.node.name}")["items"]
        seen = set()
        for pod in pods:
            uid = pod["metadata"]["uid"]
            seen.add(uid)
            run = self.pods.get(uid)
            if run is None and not pod["metadata"].get("deletionTimestamp"):
                if pod.get("status", {}).get("phase") in ("Succeeded", "Failed"):
                    continue  # finished before (e.g. an agent restart): not run again
                run = self.pods[uid] = PodRun(self.node, pod)
                run.start()
            elif run is None:
                # deleted before it ran here: nothing to end, let it go
                self.kube.request("DELETE", f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods/{pod['metadata']['name']}", {"gracePeriodSeconds": 0,
                                                                  "preconditions": {"uid": uid}})
            elif pod["metadata"].get("deletionTimestamp"):
                run.pod["metadata"]["deletionGracePeriodSeconds"] = pod["metadata"].get("deletionGracePeriodSeconds")
                run.deleting.set()
        for uid, run in list(self.pods.items()):
            if uid not in seen:
                run.vanished.set()
                run.deleting.set()
            if not run.is_alive():
                del self.pods[uid]
        services = self.kube.get("/api/v1/services")["items"]
        records = build_records(services, pods)
        records["kubernetes.default.svc.cluster.local"] = [str(self.network.gateway)]  # the API relay
        self.records.by_name = records

    def run(self) -> int:
        self.network.up()
        gw = str(self.network.gateway)
        dns = DnsServer(gw, self.dns_port, self.records)
        kubelet = KubeletServer(gw, self.port, self_signed(self.node.state / "pki", gw), self.log_of)
        api_host, api_port = self.kube.server.removeprefix("https://").rsplit(":", 1)
        relay = ApiRelay(gw, 443, (api_host, int(api_port)))
        made_secrets = not Path(SECRETS).exists()
        Path(SECRETS).mkdir(exist_ok=True)
        dns.start()
        kubelet.start()
        relay.start()
        self.register()
        print(f"[pod-runner] node {self.node.name} ready: Pods on {self.network.subnet} via {self.network.bridge}, DNS {gw}:{self.dns_port}, kubelet https://{gw}:{self.port}", flush=True)
        last_beat = time.monotonic()
        try:
            while not self.stop.is_set():
                try:
                    self.sync()
                    if time.monotonic() - last_beat >= 10:
                        self.heartbeat()
                        last_beat = time.monotonic()
                except (ApiError, OSError) as err:
                    print(f"[pod-runner] sync failed: {err}", flush=True)
                self.stop.wait(LOOP_SECONDS)
        finally:
            for run in self.pods.values():
                run.stopping.set()
                run.deleting.set()
            for run in self.pods.values():
                run.join(timeout=40)
            kubelet.stop()
            dns.stop()
            relay.stop()
            if made_secrets:
                with contextlib.suppress(OSError):
                    Path(SECRETS).rmdir()
            self.network.down()
            print("[pod-runner] stopped", flush=True)
        return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="pod-runner", description=__doc__)
    p.add_argument("--server", required=True, help="the API server, https://127.0.0.1:PORT")
    p.add_argument("--pki", required=True, help="directory with ca.crt, admin.crt, admin.key")
    p.add_argument("--state", required=True, help="where Pods' logs, /tmp and volumes live")
    p.add_argument("--venvs", required=True, help="directory of ray-<version> venvs (scripts/setup-serve-venvs)")
    p.add_argument("--node", default="ray-node-0")
    p.add_argument("--bridge", default="prbr0")
    p.add_argument("--subnet", default="198.18.0.0/24", help="Pod IPs (inside our own namespaces only)")
    p.add_argument("--tag", default="pr0", help="prefix of the network namespaces' names")
    p.add_argument("--kubelet-port", type=int, default=10250)
    p.add_argument("--dns-port", type=int, default=53)
    p.add_argument("--cpu", default="16")
    p.add_argument("--memory", default="64Gi")
    agent = Agent(p.parse_args(argv))
    signal.signal(signal.SIGTERM, lambda *_: agent.stop.set())
    signal.signal(signal.SIGINT, lambda *_: agent.stop.set())
    return agent.run()


if __name__ == "__main__":
    sys.exit(main())
