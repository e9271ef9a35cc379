"""The realray tier: KubeRay's objects with real Ray behind the local control plane.

``scripts/local-cluster up --run-pods`` (see tools/pod_runner): the Pods the operator makes run as processes in
network namespaces of their own, Ray from the venv of the image's tag (scripts/setup-serve-venvs). Every test is
marked ``realray``. Skips loudly without the control plane's binaries, without root / ip(8) / nsenter, or without
the Ray venvs (:data:`RAY_VERSIONS`); under ``PULUMI_KUBERAY_REQUIRE_CLUSTER=1`` it builds the missing venvs
(PyPI) and fails instead of skipping.

Fixtures:

* ``realray`` (session) -> :class:`RealRay`: the :class:`LocalCluster` (``.cluster``) and helpers: ``exec_in``
  (a command in a Pod's container, as ``kubectl exec`` would), ``resolve`` (our cluster DNS, as a Pod resolves),
  ``get_url`` (an HTTP GET from the host to a Service), ``apply`` / ``ray_object``, ``wait_for``.
* ``rr_namespace`` (function) -> a fresh namespace, deleted afterwards (its Pods' processes end with it).
* ``rr_module_namespace`` (module) -> the same, shared by a module's tests.
* ``rr_stack`` (module) -> a :class:`~cluster.conftest.ClusterStack` of the cluster tier's waits program
  (tests/cluster/waits_program: each ``waits:objects`` entry declared as its pulumi_kuberay component, which waits
  during ``pulumi up``), pointed at this cluster, in ``rr_module_namespace``; one per module (not destroyed: the
  namespace's deletion removes what it made).
  Set its objects with ``set_config(cluster._waits.config(objects, namespace))``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

REALRAY_DIR = Path(__file__).resolve().parent
TESTS_DIR = REALRAY_DIR.parent
REPO_ROOT = TESTS_DIR.parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

from cluster._waits import PROGRAM as WAITS_PROGRAM  # noqa: E402
from cluster._waits import config as waits_config  # noqa: E402
from cluster.conftest import (  # noqa: E402
    ClusterStack,
    LocalCluster,
    _kube_dir,
    new_stack,
    start_local_cluster,
    stop_local_cluster,
)
from cluster.conftest import pulumi_cli as pulumi_cli  # noqa: E402  (the engine tier's fixture, used here)

#: The Ray releases the tier runs: the one the tests use, and an older one (the readiness-probe mismatch).
RAY_MAIN = "2.53.0"
RAY_OLD = "2.52.0"
RAY_VERSIONS = (RAY_MAIN, RAY_OLD)
#: The Serve applications of the test tree: each namespace's ConfigMap ``APPS_CONFIGMAP`` holds them, mounted in the
#: Ray containers at ``APPS_MOUNT``, their PYTHONPATH (there is no image to bake them into).
APPS_DIR = REALRAY_DIR / "apps"
APPS_CONFIGMAP = "rr-apps"
APPS_MOUNT = "/tmp/rr-apps"

T = TypeVar("T")


#: What the venvs get besides ray[serve] (scripts/setup-serve-venvs): Serve of these releases breaks on protobuf 7.
VENV_EXTRA = "protobuf<7"


def serve_cache() -> Path:
    """The tier's Ray venvs (scripts/local-cluster's PULUMI_KUBERAY_RAY_VENVS): apart from the Serve schema
    checks' (~/.cache/pulumi-kuberay/serve), as they pin what running Serve needs."""
    default = Path.home() / ".cache" / "pulumi-kuberay" / "realray"
    return Path(os.environ.get("PULUMI_KUBERAY_RAY_VENVS", default))


def setup_venvs_command(versions: list[str]) -> str:
    env = f'PULUMI_KUBERAY_SERVE_CACHE={serve_cache()} PULUMI_KUBERAY_SERVE_EXTRA="{VENV_EXTRA}"'
    return f"{env} scripts/setup-serve-venvs {' '.join(versions)}"


def _missing_venvs() -> list[str]:
    return [v for v in RAY_VERSIONS if not (serve_cache() / f"ray-{v}" / ".installed").exists()]


def _required() -> bool:
    return os.environ.get("PULUMI_KUBERAY_REQUIRE_CLUSTER") == "1" and os.environ.get("PULUMI_KUBERAY_CLUSTER") != (
        "skipped"
    )


def _skip_reason() -> str | None:
    if os.geteuid() != 0 or not all(shutil.which(t) for t in ("ip", "unshare", "nsenter")):
        return "realray tier skipped: needs root, ip (iproute2), unshare and nsenter (network namespaces, mounts)"
    if _required():
        return None  # the fixture builds the venvs, or fails loudly
    if shutil.which("pulumi") is None:
        return 'realray tier skipped: no `pulumi` on PATH (eval "$(scripts/ensure-pulumi --print-env)")'
    if _kube_dir() is None:
        return "realray tier skipped: the control plane is not built (run scripts/ensure-kube, needs Go)"
    missing = _missing_venvs()
    if missing:
        return f"realray tier skipped: no Ray venvs for {', '.join(missing)} ({setup_venvs_command(missing)})"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mine = [item for item in items if REALRAY_DIR in Path(str(item.path)).resolve().parents]
    if not mine:
        return
    reason = _skip_reason()
    for item in mine:
        item.add_marker(pytest.mark.realray)
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=reason))
    if reason is not None:
        sys.stderr.write(f"\n[realray] SKIPPED: {reason}\n")


# ---- DNS, as a Pod resolves --------------------------------------------------------------------------------------
def dns_query(server: str, name: str, timeout: float = 2.0) -> list[str]:
    """The A records ``server`` answers for ``name`` ([] for NXDOMAIN or none)."""
    qid = random.randrange(65536)
    question = b"".join(bytes([len(p)]) + p.encode() for p in name.rstrip(".").split(".")) + b"\x00"
    packet = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + question + struct.pack("!HH", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(timeout)
        sock.sendto(packet, (server, 53))
        data, _ = sock.recvfrom(4096)
    count = struct.unpack("!H", data[6:8])[0]
    pos, out = 12 + len(question) + 4, []
    for _ in range(count):
        pos += 2  # the name: a pointer
        rtype, _cls, _ttl, length = struct.unpack("!HHIH", data[pos : pos + 10])
        pos += 10
        if rtype == 1 and length == 4:
            out.append(socket.inet_ntoa(data[pos : pos + 4]))
        pos += length
    return out


@dataclass
class RealRay:
    cluster: LocalCluster

    def kubectl(self, *args: str, check: bool = True, input: str | None = None) -> subprocess.CompletedProcess[str]:
        return self.cluster.kubectl(*args, check=check, input=input)

    def apply(self, manifest: Mapping[str, Any] | str, namespace: str) -> None:
        text = manifest if isinstance(manifest, str) else yaml.safe_dump(dict(manifest))
        self.kubectl("apply", "-n", namespace, "-f", "-", input=text)

    def get(self, kind: str, name: str, namespace: str) -> dict[str, Any] | None:
        proc = self.kubectl("get", kind, name, "-n", namespace, "-o", "json", check=False)
        if proc.returncode != 0:
            if "NotFound" in proc.stderr:
                return None
            raise AssertionError(f"kubectl get {kind} {name}: {proc.stderr.strip()}")
        return json.loads(proc.stdout)  # type: ignore[no-any-return]

    def pods(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        items = self.cluster.get_json("pods", "-n", namespace, "-l", selector)["items"]
        return list(items)

    def wait_for(self, predicate: Callable[[], T | None], timeout: float, what: str, interval: float = 1.0,
                 namespace: str | None = None) -> T:
        """As :meth:`LocalCluster.wait_for`; with ``namespace``, a timeout's failure carries :meth:`diagnostics`."""
        try:
            return self.cluster.wait_for(predicate, timeout, what, interval)
        except pytest.fail.Exception as failed:
            if namespace is None:
                raise
            pytest.fail(f"{failed}\n{self.diagnostics(namespace)}", pytrace=False)

    def diagnostics(self, namespace: str) -> str:
        """What a person would look at when Ray in ``namespace`` does not come up: the Pods and their containers,
        the last events, and per Ray head ``serve status`` and the tails of its Serve and dashboard logs (read in
        the container's own /tmp). For failure messages: never raises."""
        out = [f"--- diagnostics of namespace {namespace} ---"]
        try:
            out.append(self.kubectl("get", "pods,rayclusters", "-n", namespace, "-o", "wide", check=False).stdout)
            for pod in self.cluster.get_json("pods", "-n", namespace)["items"]:
                for cs in pod["status"].get("containerStatuses") or []:
                    out.append(f"{pod['metadata']['name']}/{cs['name']}: ready={cs.get('ready')} "
                               f"restarts={cs.get('restartCount')} state={json.dumps(cs.get('state'))}")
            events = self.kubectl("get", "events", "-n", namespace, "--sort-by=.lastTimestamp", check=False).stdout
            out.append("events (last 25):\n" + "\n".join(events.splitlines()[-25:]))
            for pod in self.pods(namespace, "ray.io/node-type=head"):
                name = pod["metadata"]["name"]
                if pod["status"].get("phase") != "Running":
                    continue
                out.append(f"[{name}] kubectl logs (last 30):\n" + self.kubectl(
                    "logs", "-n", namespace, name, "-c", pod["spec"]["containers"][0]["name"], "--tail=30",
                    check=False).stdout)
                for argv in (["serve", "status"],
                             ["sh", "-c", "tail -n 40 /tmp/ray/session_latest/logs/serve/controller_*.log "
                                          "/tmp/ray/session_latest/logs/serve/proxy_*.log "
                                          "/tmp/ray/session_latest/logs/dashboard.log 2>&1"]):
                    got = self.exec_in(namespace, name, argv, timeout=60)
                    out.append(f"[{name}] $ {' '.join(argv)} (exit {got.returncode}):\n{got.stdout}{got.stderr}")
        except Exception as err:  # a failure message must not fail itself
            out.append(f"(diagnostics stopped: {err!r})")
        return "\n".join(out)[-20000:]

    @property
    def dns_server(self) -> str:
        """pod-runner's DNS server: the first address of its Pod network (the node's address)."""
        node = self.cluster.get_json("node", "ray-node-0")
        return str(node["status"]["addresses"][0]["address"])

    def resolve(self, name: str) -> list[str]:
        return dns_query(self.dns_server, name)

    def service_url(self, service: str, namespace: str, port: int, path: str = "/") -> str:
        addrs = self.resolve(f"{service}.{namespace}.svc.cluster.local")
        assert addrs, f"{service}.{namespace}.svc.cluster.local has no ready endpoint"
        return f"http://{addrs[0]}:{port}{path}"

    def get_url(self, url: str, timeout: float = 10) -> tuple[int, str]:
        """(HTTP status, body) of a GET from the host (the node) to ``url``; (0, error) when nothing answers."""
        try:
            with urllib.request.urlopen(url, timeout=timeout) as resp:
                return resp.status, resp.read().decode(errors="replace")
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode(errors="replace")
        except OSError as err:
            return 0, str(err)

    def exec_in(self, namespace: str, pod: str, argv: list[str], container: str | None = None,
                timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """``argv`` in the container's namespaces (network, mount, UTS) with its image's Ray on PATH: what
        ``kubectl exec`` does (pod-runner serves no exec stream)."""
        obj = self.cluster.get_json("pod", pod, "-n", namespace)
        statuses = obj["status"]["containerStatuses"]
        status = next(s for s in statuses if container is None or s["name"] == container)
        pid = status["containerID"].removeprefix("pod-runner://")
        venv = status["imageID"].removeprefix("pod-runner://")
        env = {"PATH": f"{venv}/bin:/usr/local/bin:/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8",
               "LC_ALL": "C.UTF-8"}
        return subprocess.run(["nsenter", "-t", pid, "-n", "-m", "-u", "--", *argv], capture_output=True, text=True,
                              env=env, timeout=timeout, cwd="/")


def _ensure_venvs() -> None:
    missing = _missing_venvs()
    if not missing:
        return
    if not _required():
        pytest.fail(f"no Ray venvs for {missing}: {setup_venvs_command(missing)}", pytrace=False)
    started = time.monotonic()
    env = dict(os.environ, PULUMI_KUBERAY_SERVE_CACHE=str(serve_cache()), PULUMI_KUBERAY_SERVE_EXTRA=VENV_EXTRA)
    proc = subprocess.run([str(REPO_ROOT / "scripts" / "setup-serve-venvs"), *missing], capture_output=True,
                          text=True, timeout=1200, env=env)
    if proc.returncode != 0:
        pytest.fail(f"{setup_venvs_command(missing)} failed:\n{proc.stderr[-3000:]}", pytrace=False)
    sys.stderr.write(f"\n[realray] Ray venvs {missing} built in {time.monotonic() - started:.0f}s\n")


@pytest.fixture(scope="session")
def realray(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealRay]:
    _ensure_venvs()
    reuse = os.environ.get("PULUMI_KUBERAY_REALRAY_REUSE")
    state_dir = Path(reuse) if reuse else tmp_path_factory.mktemp("realray-cluster") / "state"
    cluster = start_local_cluster(state_dir, "--run-pods", reuse=bool(reuse), own_ports=True)
    try:
        yield RealRay(cluster)
    finally:
        if not reuse:
            stop_local_cluster(cluster)


@contextmanager
def _namespace(realray: RealRay, base: str) -> Iterator[str]:
    name = f"rr-{base.lower().replace('_', '-')[:40].strip('-')}-{random.randrange(10**4)}"
    realray.kubectl("create", "namespace", name)
    apps = [f"--from-file={path}" for path in sorted(APPS_DIR.glob("*.py"))]
    realray.kubectl("create", "configmap", APPS_CONFIGMAP, "-n", name, *apps)
    try:
        yield name
    finally:
        realray.kubectl("delete", "namespace", name, "--wait=true", "--timeout=120s", check=False)


@pytest.fixture
def rr_namespace(realray: RealRay, request: pytest.FixtureRequest) -> Iterator[str]:
    with _namespace(realray, request.node.name) as name:
        yield name


@pytest.fixture(scope="module")
def rr_module_namespace(realray: RealRay, request: pytest.FixtureRequest) -> Iterator[str]:
    with _namespace(realray, request.module.__name__.rpartition(".")[2].removeprefix("test_")) as name:
        yield name


@pytest.fixture(scope="module")
def rr_stack(
    realray: RealRay, pulumi_cli: str, rr_module_namespace: str, tmp_path_factory: pytest.TempPathFactory
) -> ClusterStack:
    root = tmp_path_factory.mktemp("realray-stack")
    stack = new_stack(realray.cluster, pulumi_cli, root / "project", waits_config({}, rr_module_namespace),
                      namespace=rr_module_namespace, program=WAITS_PROGRAM)
    # no `pulumi destroy` at the end: the module's namespace, deleted next, holds everything the stack made, and
    # the stack's state is a temporary directory
    return stack
