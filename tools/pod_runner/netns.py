"""The node's bridge and one network namespace per Pod (a veth pair, the Pod IP, resolv.conf)."""

from __future__ import annotations

import ipaddress
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and proc.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {proc.stderr.strip()}")
    return proc


@dataclass
class Network:
    """``bridge`` carries ``subnet``; the host (the node, our DNS server, the kubelet endpoint) is its first
    address, Pods get the others. ``tag`` prefixes every namespace and veth name (several clusters at once)."""

    bridge: str
    subnet: ipaddress.IPv4Network
    tag: str
    _used: set[ipaddress.IPv4Address] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def gateway(self) -> ipaddress.IPv4Address:
        return self.subnet.network_address + 1

    def up(self) -> None:
        if ip("link", "show", self.bridge, check=False).returncode != 0:
            ip("link", "add", self.bridge, "type", "bridge")
        ip("addr", "replace", f"{self.gateway}/{self.subnet.prefixlen}", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")

    def down(self) -> None:
        for line in ip("netns", "list", check=False).stdout.splitlines():
            name = line.split()[0] if line.split() else ""
            if name.startswith(self.tag + "-"):
                self.remove(name)
        ip("link", "del", self.bridge, check=False)

    def allocate(self) -> ipaddress.IPv4Address:
        with self._lock:
            for host in list(self.subnet.hosts())[9:]:
                if host not in self._used:
                    self._used.add(host)
                    return host
        raise RuntimeError(f"no free Pod IP left in {self.subnet}")

    def release(self, addr: ipaddress.IPv4Address) -> None:
        with self._lock:
            self._used.discard(addr)

    def create(self, name: str, addr: ipaddress.IPv4Address, resolv_conf: str, hostname: str) -> None:
        """Namespace ``name`` with ``addr`` on eth0 (a veth to the bridge), lo up, the default route via the
        bridge, ``/etc/netns/<name>/resolv.conf`` and ``hosts`` (``ip netns exec`` bind-mounts them)."""
        self.remove(name)
        etc = Path("/etc/netns") / name
        etc.mkdir(parents=True, exist_ok=True)
        (etc / "resolv.conf").write_text(resolv_conf)
        (etc / "hosts").write_text(f"127.0.0.1 localhost\n::1 localhost\n{addr} {hostname}\n")
        host_end = f"v{name[-12:]}"[:15]
        ip("netns", "add", name)
        ip("link", "add", host_end, "type", "veth", "peer", "name", "eth0", "netns", name)
        ip("link", "set", host_end, "master", self.bridge, "up")
        ip("-n", name, "addr", "add", f"{addr}/{self.subnet.prefixlen}", "dev", "eth0")
        ip("-n", name, "link", "set", "eth0", "up")
        ip("-n", name, "link", "set", "lo", "up")
        ip("-n", name, "route", "add", "default", "via", str(self.gateway))

    def pids(self, name: str) -> list[int]:
        out = ip("netns", "pids", name, check=False).stdout
        return [int(p) for p in out.split() if p.isdigit()]

    def remove(self, name: str) -> None:
        ip("netns", "del", name, check=False)  # the veth pair goes with it
        shutil.rmtree(Path("/etc/netns") / name, ignore_errors=True)
