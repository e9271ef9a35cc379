"""A small DNS server (UDP) for the cluster domain: ``<svc>.<ns>.svc.cluster.local`` -> the Pod IPs of the
Service's endpoints (its selector's Pods that have an IP: Ready ones, all of them with
publishNotReadyAddresses), ``<pod>.<ns>.svc.cluster.local`` -> that Pod's IP. Anything else: NXDOMAIN. A
narrower equivalent of CoreDNS + kube-proxy: Services answer like headless ones (no ClusterIP), so a Service
port must equal its target port (KubeRay's head and serve Services do)."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

DOMAIN = "svc.cluster.local"


@dataclass
class Records:
    """name (lower case, no trailing dot) -> IPv4 addresses; replaced whole by the agent's loop."""

    by_name: Mapping[str, list[str]] = field(default_factory=dict)


def _parse_question(data: bytes) -> tuple[str, int, int] | None:
    """(name, qtype, end offset) of the first question."""
    pos, labels = 12, []
    while pos < len(data):
        n = data[pos]
        if n == 0:
            pos += 1
            break
        if n & 0xC0:
            return None
        labels.append(data[pos + 1 : pos + 1 + n].decode("ascii", "replace"))
        pos += 1 + n
    if pos + 4 > len(data):
        return None
    qtype, _qclass = struct.unpack("!HH", data[pos : pos + 4])
    return ".".join(labels).lower(), qtype, pos + 4


def answer(query: bytes, records: Records) -> bytes | None:
    if len(query) < 12:
        return None
    (qid,) = struct.unpack("!H", query[:2])
    parsed = _parse_question(query)
    if parsed is None:
        return None
    name, qtype, end = parsed
    question = query[12:end]
    addrs = records.by_name.get(name)
    rcode = 0 if addrs is not None else 3  # a Service without endpoints: NOERROR, no answer
    rrs = b""
    count = 0
    if addrs and qtype in (1, 255):  # A or ANY
        for addr in addrs:
            rrs += b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 5, 4) + socket.inet_aton(addr)
            count += 1
    flags = 0x8400 | 0x0080 | (query[2] & 0x01) << 8 | rcode  # response, authoritative, RA, RD copied
    header = struct.pack("!HHHHHH", qid, flags, 1, count, 0, 0)
    return header + question + rrs


class DnsServer:
    def __init__(self, address: str, port: int, records: Records) -> None:
        self.records = records
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((address, port))
        self.sock.settimeout(0.5)
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, name="dns", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=5)
        self.sock.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                data, peer = self.sock.recvfrom(4096)
            except (TimeoutError, OSError):
                continue
            reply = answer(data, self.records)
            if reply is not None:
                with contextlib.suppress(OSError):
                    self.sock.sendto(reply, peer)


def build_records(services: list[dict[str, object]], pods: list[dict[str, object]]) -> dict[str, list[str]]:
    """The names of ``services`` and ``pods`` (API objects) -> addresses, as described above."""
    out: dict[str, list[str]] = {}
    for pod in pods:
        meta, status = _obj(pod, "metadata"), _obj(pod, "status")
        ip = status.get("podIP")
        if isinstance(ip, str) and ip and not meta.get("deletionTimestamp"):
            out[f"{meta.get('name')}.{meta.get('namespace')}.{DOMAIN}"] = [ip]
    for svc in services:
        meta, spec = _obj(svc, "metadata"), _obj(svc, "spec")
        selector = spec.get("selector")
        name = f"{meta.get('name')}.{meta.get('namespace')}.{DOMAIN}"
        out[name] = []
        if not isinstance(selector, dict) or not selector:
            continue
        not_ready_too = bool(spec.get("publishNotReadyAddresses"))
        for pod in pods:
            pmeta, pstatus = _obj(pod, "metadata"), _obj(pod, "status")
            labels = pmeta.get("labels") if isinstance(pmeta.get("labels"), dict) else {}
            assert isinstance(labels, dict)
            if pmeta.get("namespace") != meta.get("namespace") or pmeta.get("deletionTimestamp"):
                continue
            if any(labels.get(k) != v for k, v in selector.items()):
                continue
            ip = pstatus.get("podIP")
            if isinstance(ip, str) and ip and (not_ready_too or _ready(pstatus)):
                out[name].append(ip)
    return out


def _obj(o: Mapping[str, object], key: str) -> dict[str, object]:
    v = o.get(key)
    return v if isinstance(v, dict) else {}


def _ready(status: Mapping[str, object]) -> bool:
    conds = status.get("conditions")
    if not isinstance(conds, list):
        return False
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True" for c in conds)
