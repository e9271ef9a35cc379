"""A throw-away etcd and kube-apiserver on loopback ports, nothing else: no controllers, no operator, no kubectl.

For the tests and benchmarks that only need the API server itself (admission policies, CRD validation, server-side
dry-run): the binaries of a ``scripts/ensure-kube`` entry (``bin/etcd``, ``bin/kube-apiserver``), certificates made
with openssl as ``scripts/local-cluster`` makes them, state in a directory of the caller's. Talks REST with the
admin's client certificate (``request``, ``create``, ``delete_collection``). Started and stopped by its user
(``with LocalApiServer(bin_dir, work) as server:``); stops exactly the two processes it started.
"""

from __future__ import annotations

import json
import random
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

_OPENSSL = [
    "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=local-apiserver-ca",
    "openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj /CN=kube-apiserver",
    "openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 2 -extfile apiserver.ext",
    "openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj /O=system:masters/CN=local-admin",
    "openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 2 -extfile admin.ext",
    "openssl genrsa -out sa.key 2048",
    "openssl rsa -in sa.key -pubout -out sa.pub",
]


def free_port_pair() -> int:
    """The first of two consecutive free loopback ports below the kernel's ephemeral range."""
    for _ in range(200):
        base = random.randrange(12000, 30000, 10)
        try:
            for port in (base, base + 1, base + 2):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
    raise RuntimeError("no free loopback ports between 12000 and 30000")


class LocalApiServer:
    """etcd on ``port + 1`` (peer ``port + 2``) and kube-apiserver on ``port``, state under ``work``."""

    def __init__(self, bin_dir: Path, work: Path, port: int | None = None) -> None:
        self.bin_dir = bin_dir
        self.work = work
        self.port = port or free_port_pair()
        self.pki = work / "pki"
        self._procs: list[subprocess.Popen[bytes]] = []

    @property
    def api_url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def ssl_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=str(self.pki / "ca.crt"))
        ctx.load_cert_chain(str(self.pki / "admin.crt"), str(self.pki / "admin.key"))
        return ctx

    # ---- life cycle -------------------------------------------------------------------------------------
    def __enter__(self) -> LocalApiServer:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def start(self, timeout: float = 180) -> None:
        self.pki.mkdir(parents=True, exist_ok=True)
        san = "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
        (self.pki / "apiserver.ext").write_text(san)
        (self.pki / "admin.ext").write_text("extendedKeyUsage=clientAuth\n")
        for command in _OPENSSL:
            subprocess.run(command.split(), cwd=self.pki, check=True, capture_output=True, timeout=60)
        etcd, peer = self.port + 1, self.port + 2
        self._start(
            "etcd",
            "--name=local",
            f"--data-dir={self.work / 'etcd'}",
            f"--listen-client-urls=http://127.0.0.1:{etcd}",
            f"--advertise-client-urls=http://127.0.0.1:{etcd}",
            f"--listen-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-cluster=local=http://127.0.0.1:{peer}",
            "--listen-metrics-urls=",
            "--unsafe-no-fsync",
            "--log-level=warn",
        )
        p = self.pki
        # No --allow-privileged: the flag's own default (false), under which Pod validation refuses privileged and
        # hostProcess containers; tests/cluster/test_preflight_admission.py relies on it (scripts/local-cluster, like
        # kubeadm, kind and the managed clusters, passes --allow-privileged=true).
        self._start(
            "kube-apiserver",
            f"--etcd-servers=http://127.0.0.1:{etcd}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--secure-port={self.port}",
            f"--tls-cert-file={p / 'apiserver.crt'}",
            f"--tls-private-key-file={p / 'apiserver.key'}",
            f"--client-ca-file={p / 'ca.crt'}",
            "--authorization-mode=RBAC",
            "--endpoint-reconciler-type=none",
            f"--service-account-issuer=https://127.0.0.1:{self.port}",
            f"--service-account-key-file={p / 'sa.pub'}",
            f"--service-account-signing-key-file={p / 'sa.key'}",
            "--service-cluster-ip-range=203.0.113.0/24",
            "--profiling=false",
        )
        deadline = time.monotonic() + timeout
        while True:
            dead = [proc.args for proc in self._procs if proc.poll() is not None]
            if dead:
                raise RuntimeError(f"{dead} exited; logs in {self.work}")
            try:
                if self.request("GET", "/readyz")[0] == 200:
                    return
            except (OSError, ssl.SSLError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"kube-apiserver not ready after {timeout:.0f} s; logs in {self.work}")
            time.sleep(0.5)

    def _start(self, binary: str, *args: str) -> None:
        with (self.work / f"{binary}.log").open("wb") as log:
            self._procs.append(
                subprocess.Popen(
                    [str(self.bin_dir / binary), *args], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
                )
            )

    def stop(self) -> None:
        for proc in reversed(self._procs):
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)
        self._procs.clear()

    # ---- REST -------------------------------------------------------------------------------------------
    def request(
        self, method: str, path: str, body: Any = None, query: dict[str, str] | None = None
    ) -> tuple[int, dict[str, Any], list[str]]:
        """(HTTP status, the JSON answer, the Warning headers)."""
        url = f"{self.api_url}{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method=method)
        try:
            with urllib.request.urlopen(request, context=self.ssl_context(), timeout=60) as response:
                raw = response.read()
                warnings = response.headers.get_all("Warning") or []
                status = response.status
        except urllib.error.HTTPError as err:
            raw, warnings, status = err.read(), err.headers.get_all("Warning") or [], err.code
        try:
            answer = json.loads(raw) if raw else {}
        except ValueError:
            answer = {"message": raw.decode(errors="replace")}
        return status, answer if isinstance(answer, dict) else {"items": answer}, warnings

    @staticmethod
    def collection_path(obj: dict[str, Any]) -> str:
        """The REST collection of a cluster-scoped or namespaced object of the kinds these tools create."""
        group_version = obj["apiVersion"]
        kind = obj["kind"]
        plural = {
            "CustomResourceDefinition": "customresourcedefinitions",
            "Namespace": "namespaces",
            "ValidatingAdmissionPolicy": "validatingadmissionpolicies",
            "ValidatingAdmissionPolicyBinding": "validatingadmissionpolicybindings",
        }.get(kind) or kind.lower() + "s"
        prefix = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
        namespace = (obj.get("metadata") or {}).get("namespace")
        return f"{prefix}/namespaces/{namespace}/{plural}" if namespace else f"{prefix}/{plural}"

    def create(self, obj: dict[str, Any]) -> None:
        """Create ``obj`` (replace it when it exists); raises on any other failure."""
        path = self.collection_path(obj)
        status, answer, _ = self.request("POST", path, obj)
        if status == 409:
            name = obj["metadata"]["name"]
            status, current, _ = self.request("GET", f"{path}/{name}")
            replaced = {**obj, "metadata": {**obj["metadata"], "resourceVersion": current["metadata"]["resourceVersion"]}}
            status, answer, _ = self.request("PUT", f"{path}/{name}", replaced)
        if status not in (200, 201):
            raise RuntimeError(f"creating {obj['kind']} {obj['metadata']['name']}: HTTP {status}: {answer.get('message')}")

    def delete_collection(self, group_version_plural: str, label_selector: str) -> None:
        status, answer, _ = self.request("DELETE", group_version_plural, query={"labelSelector": label_selector})
        if status != 200:
            raise RuntimeError(f"deleting {group_version_plural}: HTTP {status}: {answer.get('message')}")

    def install_crds(self, crds: list[dict[str, Any]], timeout: float = 120) -> None:
        """Create the CRDs and wait until each is Established and served."""
        for crd in crds:
            self.create(crd)
        deadline = time.monotonic() + timeout
        for crd in crds:
            name = crd["metadata"]["name"]
            while True:
                _, got, _ = self.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
                conditions = (got.get("status") or {}).get("conditions") or []
                if any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"CRD {name} not Established after {timeout:.0f} s")
                time.sleep(0.5)
        time.sleep(2)  # a CRD is served a moment after Established
