"""The cluster tier: ``pulumi up`` against a real Kubernetes control plane with the real KubeRay operator.

Every test here is marked ``cluster``. The control plane is ``scripts/local-cluster`` (etcd, kube-apiserver,
kube-controller-manager, kube-scheduler, kwok with fake nodes, the KubeRay operator built by
``scripts/ensure-kube``), started once per session on free loopback ports with its state in a temporary
directory, and stopped at the end. Real engine, real provider, no render directory.

Skips (with a message) without a ``pulumi`` on PATH or without the binaries; in CI
(``PULUMI_KUBERAY_REQUIRE_CLUSTER=1``, set by ``.ci/run``) that is a failure instead, unless ``scripts/test``
found no way to build them (``PULUMI_KUBERAY_CLUSTER=skipped``; it then printed a SKIPPED line).

Fixtures for other test modules (e.g. the waits' tests):

* ``local_cluster`` (session) -> :class:`LocalCluster`: ``.kubeconfig`` (Path), ``.operator_version`` (the
  KubeRay operator actually running, e.g. ``"1.6.1"``), ``.kubectl(*args)``, ``.get_json(*args)``
  (``kubectl get ... -o json`` parsed), ``.wait_for(predicate, timeout, what)``.
* ``kubeconfig`` (session) -> Path.
* ``namespace`` (function) -> str: a fresh namespace, deleted afterwards.
* ``make_stack`` (function) -> ``make_stack(config, *, namespace, program=None, stack="local")`` returning a
  :class:`ClusterStack` with ``.up(*args, policy=None, timeout=...)``, ``.destroy()``, ``.outputs()``,
  ``.set_config(config)``; ``program`` is a directory with its own Pulumi.yaml (default: this project). The
  provider is pointed at the cluster and ``kuberay:version`` at the running operator; stacks left with
  resources are destroyed at teardown.
* ``extra_apiserver(local_cluster, work_dir, etcd_prefix)`` (context manager) -> :class:`ExtraApiServer`: a
  further kube-apiserver on the same etcd under its own prefix (own objects and CRDs, no controllers), with
  ``.dry_run_create(manifest)``; ``not_returned(sent, got)`` lists what a server pruned or rewrote.
* ``transitions`` (session) -> :class:`TransitionRecorder`: every status change of every Ray object, with the
  time since the object appeared (watches on the API server); printed at the end of the session and written
  to ``$PULUMI_KUBERAY_TRANSITIONS_OUT`` when set (each state's full object into ``<that path>.d/``).

Set ``PULUMI_KUBERAY_CLUSTER_REUSE=<state dir>`` to keep one control plane across sessions while iterating
(``scripts/local-cluster up`` there is idempotent; nothing is stopped at the end).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

CLUSTER_TESTS_DIR = Path(__file__).resolve().parent
TESTS_DIR = CLUSTER_TESTS_DIR.parent
REPO_ROOT = TESTS_DIR.parent
SCRIPTS = REPO_ROOT / "scripts"
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

from engine.conftest import (  # noqa: E402
    REPO_VENV as REPO_VENV,
)
from engine.conftest import (  # noqa: E402
    Run,
    Workspace,
    copy_project,
    make_workspace,
    policy_args,
)
from engine.conftest import pulumi_cli as pulumi_cli  # noqa: E402  (the engine tier's fixture, used here)

#: One ``pulumi up``/``destroy`` in this tier; the waits inside it have their own (shorter) timeouts.
COMMAND_TIMEOUT = 600
#: Ports a control plane takes: see scripts/local-cluster.
PORTS_PER_CLUSTER = 8
RAY_KINDS = ("rayclusters", "rayjobs", "rayservices", "raycronjobs")

T = TypeVar("T")


# ---- skipping -----------------------------------------------------------------------------------------------
def _kube_dir() -> Path | None:
    """The scripts/ensure-kube cache entry: from scripts/test (env), else a complete cached build."""
    env = os.environ.get("PULUMI_KUBERAY_KUBE_DIR")
    if env:
        return Path(env)
    try:
        proc = subprocess.run(
            [str(SCRIPTS / "ensure-kube"), "--no-build", "--print-dir"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(proc.stdout.strip()) if proc.returncode == 0 and proc.stdout.strip() else None


def _skip_reason(needs_pulumi: bool) -> str | None:
    required = os.environ.get("PULUMI_KUBERAY_REQUIRE_CLUSTER") == "1"
    if required and os.environ.get("PULUMI_KUBERAY_CLUSTER", "") != "skipped":
        return None  # the fixtures fail loudly instead
    if needs_pulumi and shutil.which("pulumi") is None:
        return 'cluster tier skipped: no `pulumi` on PATH (eval "$(scripts/ensure-pulumi --print-env)")'
    if _kube_dir() is None:
        return "cluster tier skipped: the control plane is not built (run scripts/ensure-kube, needs Go)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mine = [item for item in items if CLUSTER_TESTS_DIR in Path(str(item.path)).resolve().parents]
    if not mine:
        return
    reasons = {needs: _skip_reason(needs) for needs in (False, True)}
    for item in mine:
        item.add_marker(pytest.mark.cluster)
        reason = reasons["pulumi_cli" in getattr(item, "fixturenames", ())]
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=reason))


# ---- the control plane --------------------------------------------------------------------------------------
def _port_window() -> tuple[int, int]:
    """Where to look for listening ports: below the kernel's ephemeral range, which outgoing connections draw
    from (a port free when probed can be taken by a client's connect before our server binds it: a CI run lost
    kube-controller-manager's port that way when the window was 20000-40000 and the range began at 32768)."""
    try:
        low, high = (int(v) for v in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999  # Linux's default
    if low - 10000 >= 1000:
        return 10000, low - PORTS_PER_CLUSTER
    return high + 1, 65536 - PORTS_PER_CLUSTER


def _pod_bridge(base: int) -> Path:
    """The bridge ``scripts/local-cluster up --run-pods`` makes for a cluster on ``base`` (its run_pods_mode: one
    /24 per cluster, numbered from the port base)."""
    return Path(f"/sys/class/net/prbr{(base // 10) % 200 + 20}")


def _free_port_base() -> int:
    """The first of PORTS_PER_CLUSTER consecutive loopback ports, outside the ephemeral range, all free now, and
    whose Pod network no running ``--run-pods`` cluster has (two would share, and take down, each other's)."""
    start, stop = _port_window()
    for _ in range(200):
        base = random.randrange(start, stop, 10)
        if _pod_bridge(base).exists():
            continue
        sockets: list[socket.socket] = []
        try:
            for port in range(base, base + PORTS_PER_CLUSTER):
                s = socket.socket()
                sockets.append(s)
                # a Go server's listening socket does not always make a plain bind fail: probe it too
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    raise OSError(f"{port} is listened on")
                s.close()
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError(f"no {PORTS_PER_CLUSTER} consecutive free loopback ports found between {start} and {stop}")


@dataclass
class LocalCluster:
    """A running scripts/local-cluster control plane."""

    state_dir: Path
    kube_dir: Path
    operator_version: str
    env: dict[str, str]

    @property
    def operator_dir(self) -> Path:
        """The scripts/ensure-kube operator entry running now (bin/ray-operator, crds/, operator.env)."""
        return Path((self.state_dir / "operator-dir").read_text().strip())

    def script(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        """``scripts/local-cluster <args>`` on this control plane; fails the test when it fails."""
        proc = _run_script(list(args), self.env, timeout=timeout)
        if proc.returncode != 0:
            pytest.fail(f"scripts/local-cluster {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
        return proc

    @property
    def kubeconfig(self) -> Path:
        return self.state_dir / "kubeconfig"

    @property
    def kubectl_path(self) -> Path:
        return self.kube_dir / "bin" / "kubectl"

    @property
    def api_url(self) -> str:
        return f"https://127.0.0.1:{(self.state_dir / 'api-port').read_text().strip()}"

    def kubectl(self, *args: str, check: bool = True, input: str | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [str(self.kubectl_path), f"--kubeconfig={self.kubeconfig}", *args],
            capture_output=True,
            text=True,
            input=input,
            timeout=120,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc

    def get_json(self, *args: str) -> dict[str, Any]:
        """``kubectl get <args> -o json``, parsed (a ``List`` for several objects)."""
        return json.loads(self.kubectl("get", *args, "-o", "json").stdout)  # type: ignore[no-any-return]

    def wait_for(self, predicate: Callable[[], T | None], timeout: float, what: str, interval: float = 1.0) -> T:
        """Poll ``predicate`` until it returns something truthy; fail naming ``what`` after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                pytest.fail(f"timed out after {timeout:.0f}s waiting for {what}", pytrace=False)
            time.sleep(interval)

    def ssl_context(self) -> ssl.SSLContext:
        pki = self.state_dir / "pki"
        ctx = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        ctx.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
        return ctx

    def logs(self, component: str, lines: int = 60) -> str:
        path = self.state_dir / "logs" / f"{component}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""


def _run_script(args: list[str], env: Mapping[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPTS / "local-cluster"), *args], capture_output=True, text=True, env=dict(env), timeout=timeout
    )


def _kube_dir_or_fail() -> Path:
    kube_dir = _kube_dir()
    if kube_dir is None:
        pytest.fail(
            "PULUMI_KUBERAY_REQUIRE_CLUSTER=1 but the control plane binaries are not built: scripts/ensure-kube "
            f"should have built them (PULUMI_KUBERAY_CLUSTER={os.environ.get('PULUMI_KUBERAY_CLUSTER', '<unset>')})",
            pytrace=False,
        )
    return kube_dir


def start_local_cluster(state_dir: Path, *up_args: str, reuse: bool = False, own_ports: bool = False) -> LocalCluster:
    """``scripts/local-cluster up <up_args>`` with its state in ``state_dir``; stop it with
    :func:`stop_local_cluster`. ``up_args`` e.g. ``("--operator-version", "1.6.1")``. Ports: a free range, or
    ``$PULUMI_KUBERAY_CLUSTER_PORT_BASE`` unless ``own_ports`` (a second control plane in the session)."""
    kube_dir = _kube_dir_or_fail()
    env = dict(os.environ)
    env.update(PULUMI_KUBERAY_CLUSTER_DIR=str(state_dir), PULUMI_KUBERAY_KUBE_DIR=str(kube_dir))
    given_ports = True
    if not (reuse and (state_dir / "api-port").exists()):
        given = None if own_ports else env.get("PULUMI_KUBERAY_CLUSTER_PORT_BASE")
        given_ports = given is not None
        env["PULUMI_KUBERAY_CLUSTER_PORT_BASE"] = given or str(_free_port_base())
    else:
        env["PULUMI_KUBERAY_CLUSTER_PORT_BASE"] = (state_dir / "api-port").read_text().strip()
    started = time.monotonic()
    up = _run_script(["up", *up_args], env, timeout=1500)
    if up.returncode != 0 and "address already in use" in up.stderr and not given_ports:
        # another process took one of the probed ports before our server bound it: `up` stopped what it had
        # started, so try once more on another free range
        sys.stderr.write(
            f"[cluster tier] a port was taken while starting; retrying on another range:\n{up.stderr[-800:]}"
        )
        env["PULUMI_KUBERAY_CLUSTER_PORT_BASE"] = str(_free_port_base())
        up = _run_script(["up", *up_args], env, timeout=1500)
    if up.returncode != 0:
        pytest.fail(f"scripts/local-cluster up failed ({up.returncode}):\n{up.stderr[-6000:]}", pytrace=False)
    cluster = LocalCluster(
        state_dir=state_dir,
        kube_dir=kube_dir,
        operator_version=(state_dir / "operator-version").read_text().strip(),
        env=env,
    )
    sys.stderr.write(
        f"\n[cluster tier] control plane up in {time.monotonic() - started:.0f}s at {cluster.api_url}, "
        f"KubeRay operator v{cluster.operator_version}\n"
    )
    return cluster


def stop_local_cluster(cluster: LocalCluster) -> None:
    down = _run_script(["down"], cluster.env, timeout=120)
    if down.returncode != 0:
        sys.stderr.write(f"scripts/local-cluster down failed:\n{down.stderr}\n")


@pytest.fixture(scope="session")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    reuse = os.environ.get("PULUMI_KUBERAY_CLUSTER_REUSE")
    state_dir = Path(reuse) if reuse else tmp_path_factory.mktemp("local-cluster") / "state"
    cluster = start_local_cluster(state_dir, reuse=bool(reuse))
    try:
        yield cluster
    finally:
        if not reuse:
            stop_local_cluster(cluster)


@dataclass
class ExtraApiServer(LocalCluster):
    """A further kube-apiserver on the control plane's etcd under its own ``--etcd-prefix``: its own objects and
    CRDs, isolated from the main API server (and from the operator running against it); no controllers, so
    nothing is reconciled there. ``kubectl``/``get_json``/``wait_for`` as on :class:`LocalCluster`."""

    port: int = 0
    work: Path = field(default_factory=Path)

    @property
    def kubeconfig(self) -> Path:
        return self.work / "kubeconfig"

    @property
    def api_url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def dry_run_create(self, manifest: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """POST a Ray object (into its ``metadata.namespace``) with dryRun=All and strict field validation (an
        unknown field is an error, not silently pruned); (HTTP status, returned object)."""
        path = f"/apis/ray.io/v1/namespaces/{manifest['metadata']['namespace']}/{manifest['kind'].lower()}s"
        request = urllib.request.Request(
            f"{self.api_url}{path}?dryRun=All&fieldValidation=Strict",
            data=json.dumps(manifest).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, context=self.ssl_context(), timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")


@contextmanager
def extra_apiserver(cluster: LocalCluster, work: Path, etcd_prefix: str) -> Iterator[ExtraApiServer]:
    """Start an :class:`ExtraApiServer` (state and log in ``work``), ready when this yields; stopped after."""
    pki = cluster.state_dir / "pki"
    api_port = int((cluster.state_dir / "api-port").read_text())
    port = _free_port_base()
    server = ExtraApiServer(cluster.state_dir, cluster.kube_dir, cluster.operator_version, cluster.env, port, work)
    server.kubeconfig.write_text(cluster.kubeconfig.read_text().replace(f"127.0.0.1:{api_port}", f"127.0.0.1:{port}"))
    with (work / "kube-apiserver.log").open("w") as log:
        proc = subprocess.Popen(
            [
                str(cluster.kube_dir / "bin" / "kube-apiserver"),
                f"--etcd-servers=http://127.0.0.1:{api_port + 1}",
                f"--etcd-prefix={etcd_prefix}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                f"--secure-port={port}",
                f"--tls-cert-file={pki / 'apiserver.crt'}",
                f"--tls-private-key-file={pki / 'apiserver.key'}",
                f"--client-ca-file={pki / 'ca.crt'}",
                "--authorization-mode=RBAC",
                "--endpoint-reconciler-type=none",
                f"--service-account-issuer=https://127.0.0.1:{port}",
                f"--service-account-key-file={pki / 'sa.pub'}",
                f"--service-account-signing-key-file={pki / 'sa.key'}",
                "--service-cluster-ip-range=203.0.113.0/24",
                "--profiling=false",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            server.wait_for(
                lambda: proc.poll() is None and server.kubectl("get", "--raw=/readyz", check=False).returncode == 0,
                180,
                f"the kube-apiserver with --etcd-prefix={etcd_prefix} (log {work / 'kube-apiserver.log'})",
            )
            yield server
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def not_returned(sent: Any, got: Any, path: str = "") -> list[str]:
    """Paths of ``sent`` that do not come back unchanged in ``got`` (pruned or rewritten)."""
    if isinstance(sent, dict):
        if not isinstance(got, dict):
            return [f"{path or '.'}: sent an object, got {type(got).__name__}"]
        out: list[str] = []
        for key, value in sent.items():
            if value is None and key not in got:
                continue  # a null carries nothing: the API server drops it (``metadata:`` with no value)
            if key not in got:
                out.append(f"{path}.{key}: pruned")
            else:
                out += not_returned(value, got[key], f"{path}.{key}")
        return out
    if isinstance(sent, list):
        if not isinstance(got, list) or len(got) != len(sent):
            return [f"{path}: sent {len(sent)} items, got {got!r:.80}"]
        return [p for i, (s, g) in enumerate(zip(sent, got, strict=True)) for p in not_returned(s, g, f"{path}[{i}]")]
    return [] if sent == got else [f"{path}: sent {sent!r}, got {got!r}"]


@pytest.fixture(scope="session")
def kubeconfig(local_cluster: LocalCluster) -> Path:
    return local_cluster.kubeconfig


@pytest.fixture
def namespace(local_cluster: LocalCluster, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh namespace named after the test; deleted (without waiting) afterwards."""
    base = "".join(c if c.isalnum() else "-" for c in request.node.name.lower()).strip("-")[:40].strip("-")
    name = f"{base}-{random.randrange(16**4):04x}"
    local_cluster.kubectl("create", "namespace", name)
    local_cluster.wait_for(
        lambda: local_cluster.kubectl("-n", name, "get", "serviceaccount", "default", check=False).returncode == 0,
        60,
        f"the default ServiceAccount in {name}",
    )
    yield name
    local_cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)


# ---- pulumi stacks against the cluster ----------------------------------------------------------------------
@dataclass
class ClusterStack:
    """One pulumi stack of a project copy, its provider pointed at the local control plane."""

    workspace: Workspace
    stack: str
    config_file: Path
    cluster: LocalCluster
    destroyed: bool = False

    def pulumi(self, *args: str, timeout: float = COMMAND_TIMEOUT) -> Run:
        proc = subprocess.run(
            [self.workspace.cli, *args, "--stack", self.stack, "--non-interactive", "--color", "never"],
            cwd=self.workspace.cwd,
            # A program with a default provider reaches the cluster too (ours sets pulumi-kuberay:kubeconfig).
            env={**self.workspace.env(), "KUBECONFIG": str(self.cluster.kubeconfig)},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Run(args, proc.returncode, proc.stdout, proc.stderr)

    def up(self, *args: str, policy: str | None = None, timeout: float = COMMAND_TIMEOUT) -> Run:
        """``pulumi up --yes --skip-preview`` (``policy``: run the pack with ``stacks/policy.<policy>.json``)."""
        pack = policy_args(self.workspace.cwd, policy) if policy else []
        self.destroyed = False
        return self.pulumi("up", "--yes", "--skip-preview", *pack, *args, timeout=timeout)

    def destroy(self, timeout: float = COMMAND_TIMEOUT) -> Run:
        run = self.pulumi("destroy", "--yes", "--skip-preview", timeout=timeout)
        self.destroyed = run.returncode == 0
        return run

    def outputs(self) -> dict[str, Any]:
        run = self.pulumi("stack", "output", "--json", "--show-secrets")
        assert run.returncode == 0, run.describe()
        return json.loads(run.stdout)  # type: ignore[no-any-return]

    def set_config(self, config: Mapping[str, Any]) -> None:
        """Replace the stack's config (the cluster settings are added back)."""
        full = {
            "pulumi-kuberay:kubeconfig": str(self.cluster.kubeconfig),
            "kuberay:version": self.cluster.operator_version,
            **config,
        }
        self.config_file.write_text(yaml.safe_dump({"config": full}, sort_keys=False))


def new_stack(
    cluster: LocalCluster,
    cli: str,
    root: Path,
    config: Mapping[str, Any],
    *,
    namespace: str,
    program: Path | None = None,
    stack: str = "local",
) -> ClusterStack:
    """A stack of a project copy in ``root`` (a new directory) against ``cluster``, initialised: what
    ``make_stack`` makes, for fixtures bound to another :class:`LocalCluster` (the realray tier's)."""
    copy_project(root)
    cwd = root
    if program is not None:
        cwd = root / "program"
        shutil.copytree(program, cwd, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        if not (cwd / ".venv").exists():
            (cwd / ".venv").symlink_to(REPO_VENV, target_is_directory=True)
    workspace = make_workspace(root, cli, program=cwd)
    config_dir = cwd / "stacks" if (cwd / "stacks").is_dir() or program is None else cwd
    result = ClusterStack(workspace, stack, config_dir / f"Pulumi.{stack}.yaml", cluster)
    result.set_config({"pulumi-kuberay:namespace": namespace, **config})
    workspace.pulumi("stack", "init", stack, check=True)
    return result


def destroy_left(stacks: list[ClusterStack]) -> None:
    """Destroy each stack not destroyed yet (teardown), saying so when a destroy fails."""
    for stack in stacks:
        if not stack.destroyed:
            run = stack.destroy()
            if run.returncode != 0:
                sys.stderr.write(f"teardown: destroy of a test stack failed:\n{run.describe()}\n")


@pytest.fixture
def make_stack(local_cluster: LocalCluster, pulumi_cli: str, tmp_path: Path) -> Iterator[Callable[..., ClusterStack]]:
    """``make_stack(config, *, namespace, program=None, stack="local")``: a stack ready for ``up``.

    ``config`` holds full keys (``pulumi-kuberay:clusters``, ``kuberay:environment``, ...); the kubeconfig
    and ``kuberay:version`` (the running operator's) are added, and ``pulumi-kuberay:namespace`` is set to
    ``namespace``. ``program``: a directory with a Pulumi.yaml whose ``virtualenv`` is ``.venv`` (default:
    this project, copied).
    """
    made: list[ClusterStack] = []

    def factory(
        config: Mapping[str, Any], *, namespace: str, program: Path | None = None, stack: str = "local"
    ) -> ClusterStack:
        root = tmp_path / f"project-{len(made)}"
        made.append(new_stack(local_cluster, pulumi_cli, root, config, namespace=namespace, program=program,
                              stack=stack))
        return made[-1]

    yield factory
    destroy_left(made)


# ---- status transitions -------------------------------------------------------------------------------------
def status_summary(kind: str, obj: Mapping[str, Any]) -> str:
    """The part of a Ray object's status whose changes are worth recording, as one line."""
    status = obj.get("status") or {}
    parts: list[str] = [f"gen={obj.get('metadata', {}).get('generation')}/obs={status.get('observedGeneration')}"]
    if kind == "RayCluster":
        parts.append(f"state={status.get('state')}")
        if status.get("reason"):
            parts.append(f"reason={status['reason']}")
        parts.append(f"readyWorkers={status.get('readyWorkerReplicas')}/{status.get('desiredWorkerReplicas')}")
    elif kind == "RayJob":
        parts.append(f"jobDeploymentStatus={status.get('jobDeploymentStatus')}")
        parts.append(f"jobStatus={status.get('jobStatus')}")
        if status.get("reason"):
            parts.append(f"reason={status['reason']}")
    elif kind == "RayService":
        parts.append(f"serviceStatus={status.get('serviceStatus')}")
    elif kind == "RayCronJob":
        parts.append(f"lastScheduleTime={status.get('lastScheduleTime')}")
    for cond in status.get("conditions") or []:
        parts.append(f"{cond.get('type')}={cond.get('status')}({cond.get('reason')})")
    return " ".join(parts)


@dataclass
class TransitionRecorder:
    """Watches the Ray kinds and keeps, per object, each distinct status summary with its time."""

    cluster: LocalCluster
    history: dict[str, list[tuple[float, str]]] = field(default_factory=dict)
    #: the full object at each recorded transition (same keys and order as ``history``)
    objects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _first: dict[str, float] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        for plural in RAY_KINDS:
            threading.Thread(target=self._watch, args=(plural,), daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def _watch(self, plural: str) -> None:
        url = f"{self.cluster.api_url}/apis/ray.io/v1/{plural}?watch=1&allowWatchBookmarks=false"
        while not self._stop.is_set():
            try:
                with urllib.request.urlopen(url, context=self.cluster.ssl_context(), timeout=3600) as stream:
                    for line in stream:
                        if self._stop.is_set():
                            return
                        self._record(json.loads(line))
            except Exception:  # the API server restarting or going away at the end of the session
                time.sleep(1)

    def _record(self, event: Mapping[str, Any]) -> None:
        obj = event.get("object") or {}
        kind = obj.get("kind")
        meta = obj.get("metadata") or {}
        if not kind or event.get("type") not in ("ADDED", "MODIFIED", "DELETED"):
            return
        key = f"{kind} {meta.get('namespace')}/{meta.get('name')} uid={str(meta.get('uid'))[:8]}"
        now = time.monotonic()
        summary = "DELETED" if event["type"] == "DELETED" else status_summary(kind, obj)
        with self._lock:
            first = self._first.setdefault(key, now)
            seen = self.history.setdefault(key, [])
            if not seen or seen[-1][1] != summary:
                seen.append((now - first, summary))
                self.objects.setdefault(key, []).append(dict(obj))

    def of(self, kind: str, namespace: str, name: str) -> list[tuple[float, str]]:
        """The recorded (seconds since first seen, summary) list of one object (all uids, in order)."""
        with self._lock:
            out: list[tuple[float, str]] = []
            for key, seen in self.history.items():
                if key.startswith(f"{kind} {namespace}/{name} "):
                    out.extend(seen)
            return out

    def write_objects(self, directory: Path) -> None:
        """Every recorded state as YAML (``<kind>-<name>-<n>.yaml``): raw material for status snapshots."""
        directory.mkdir(parents=True, exist_ok=True)
        with self._lock:
            for key, objs in self.objects.items():
                kind, ref = key.split(" ")[:2]
                stem = f"{kind.lower()}-{ref.replace('/', '-')}"
                for n, obj in enumerate(objs):
                    (directory / f"{stem}-{n:02d}.yaml").write_text(yaml.safe_dump(obj, sort_keys=False))

    def report(self) -> str:
        with self._lock:
            lines = []
            for key in sorted(self.history):
                lines.append(key)
                lines.extend(f"  +{t:6.1f}s  {summary}" for t, summary in self.history[key])
            return "\n".join(lines)


_RECORDERS: list[TransitionRecorder] = []


@pytest.fixture(scope="session", autouse=True)
def transitions(local_cluster: LocalCluster) -> Iterator[TransitionRecorder]:
    recorder = TransitionRecorder(local_cluster)
    recorder.start()
    _RECORDERS.append(recorder)
    yield recorder
    recorder.stop()
    out = os.environ.get("PULUMI_KUBERAY_TRANSITIONS_OUT")
    if out:
        Path(out).write_text(recorder.report() + "\n")
        recorder.write_objects(Path(out + ".d"))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for recorder in _RECORDERS:
        if recorder.history:
            terminalreporter.section("KubeRay status transitions observed (cluster tier)")
            terminalreporter.write_line(recorder.report())


def explain(obj: Mapping[str, Any]) -> subprocess.CompletedProcess[str]:
    """``kuberay-explain --format json -`` on one object (as ``kubectl get -o yaml | kuberay-explain`` would)."""
    return subprocess.run(
        [str(REPO_VENV / "bin" / "kuberay-explain"), "--format", "json", "-"],
        input=yaml.safe_dump(dict(obj)),
        capture_output=True,
        text=True,
        timeout=120,
    )
