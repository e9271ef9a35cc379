"""A container as a process tree in the Pod's network namespace, with a private mount and UTS namespace
(its own /tmp, the Pod's hostname, the volumes bind-mounted), and the kubelet's probes against it."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: An empty directory pod-runner makes on the host (and removes): each container mounts its own tmpfs there.
SECRETS = "/run/secrets"
# /etc/profile is replaced in the container (a login shell must not reset PATH: `bash -l` runs it)
PROFILE = "# pod-runner: PATH and the rest come from the container's env\n"
_ENTER = r"""
set -e
tmp=$1 profile=$2 host=$3 wd=$4 binds=$5; shift 5
mount --bind "$profile" /etc/profile
hostname "$host"
eval "$binds"
mount --rbind "$tmp" /tmp
cd "$wd"
exec "$@"
"""


def descendants(root: int) -> list[int]:
    """``root`` and every process below it, or in its session (snapshot of /proc)."""
    parent: dict[int, int] = {}
    session: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        parent[int(entry)] = int(fields[1])
        session[int(entry)] = int(fields[3])
    out = {root} | {p for p, s in session.items() if s == root}
    changed = True
    while changed:
        changed = False
        for p, pp in parent.items():
            if pp in out and p not in out:
                out.add(p)
                changed = True
    return sorted(p for p in out if p in parent)


def signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


@dataclass
class Proc:
    popen: subprocess.Popen[bytes]
    started: float
    started_at: str

    @property
    def pid(self) -> int:
        return self.popen.pid

    def stop(self, grace: float) -> int:
        """SIGTERM the tree, SIGKILL what is left after ``grace`` seconds; the exit code."""
        signal_all(descendants(self.pid), signal.SIGTERM)
        deadline = time.monotonic() + grace
        while self.popen.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        signal_all(descendants(self.pid), signal.SIGKILL)
        try:
            return self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return -9


def bind_commands(mounts: list[tuple[Path, str, bool]], tmp: Path, keep: list[Path]) -> list[str]:
    """The shell lines that bind ``mounts`` ((source, target, read_only)) into a container whose own /tmp is
    ``tmp`` on the host, run before that /tmp is bound over the host's. ``keep``: host paths the container must
    see as they are (the image's venv): one under /tmp would be hidden by the container's own /tmp, so it is bound
    (read-only) to the same place inside it.

    >>> bind_commands([], Path("/s/tmp"), [Path("/tmp/h/ray-2.53.0")])[1]
    'mount --bind /tmp/h/ray-2.53.0 /s/tmp/h/ray-2.53.0'
    """
    binds = []
    for path in keep:
        if str(path) == "/tmp" or str(path).startswith("/tmp/"):
            mounts = [*mounts, (path, str(path), True)]
    for src, target, read_only in mounts:
        if target == "/tmp" or target.startswith("/tmp/"):
            target = str(tmp) + target[len("/tmp"):]  # under the container's /tmp, bound over /tmp last
            binds.append(f"mkdir -p {shlex.quote(target)}")
        elif target.startswith(("/var/run/secrets/", "/run/secrets/")) and os.path.isdir(SECRETS):
            # the ServiceAccount token's place: a tmpfs of the container's own over the empty /run/secrets
            if "tmpfs" not in " ".join(binds):
                binds.append(f"mount -t tmpfs tmpfs {SECRETS}")
            target = SECRETS + target.split("/secrets", 1)[1]
            binds.append(f"mkdir -p {shlex.quote(target)}")
        elif not os.path.exists(target):
            continue  # not made on the host: pod-runner has no root filesystem of its own
        binds.append(f"mount --bind {shlex.quote(str(src))} {shlex.quote(target)}")
        if read_only:
            binds.append(f"mount -o remount,bind,ro {shlex.quote(target)}")
    return binds


def start(
    netns: str,
    argv: list[str],
    *,
    env: Mapping[str, str],
    workdir: str,
    root: Path,
    hostname: str,
    mounts: list[tuple[Path, str, bool]],
    keep: list[Path],
    log: Path,
) -> Proc:
    """``argv`` in ``netns`` with ``env``; ``root`` holds the container's /tmp and profile; ``mounts`` are
    (source, target, read_only); ``keep`` the host paths it must see as they are (:func:`bind_commands`)."""
    tmp = root / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    tmp.chmod(0o1777)
    profile = root / "profile"
    profile.write_text(PROFILE)
    binds = bind_commands(mounts, tmp, keep)
    wd = workdir if workdir and os.path.isdir(workdir) else str(root / "home")
    Path(wd).mkdir(parents=True, exist_ok=True)
    cmd = ["ip", "netns", "exec", netns, "unshare", "--mount", "--uts", "--propagation", "private", "--"]
    cmd += ["/bin/sh", "-c", _ENTER, "enter", str(tmp), str(profile), hostname, wd, "\n".join(binds), *argv]
    with log.open("ab") as out:
        popen = subprocess.Popen(cmd, env=dict(env), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
    return Proc(popen, time.monotonic(), now())


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# ---- probes ---------------------------------------------------------------------------------------------------
def _port(value: Any, container: Mapping[str, Any]) -> int:
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        return int(value)
    for port in container.get("ports") or []:
        if port.get("name") == value:
            return int(port["containerPort"])
    raise ValueError(f"no container port named {value!r}")


def run_probe(probe: Mapping[str, Any], container: Mapping[str, Any], pod_ip: str, proc: Proc,
              env: Mapping[str, str]) -> tuple[bool, str]:
    """One probe as the kubelet runs it: (success, message)."""
    timeout = float(probe.get("timeoutSeconds", 1))
    try:
        if "exec" in probe:
            argv = ["nsenter", "-t", str(proc.pid), "-n", "-m", "-u", "--", *probe["exec"]["command"]]
            done = subprocess.run(argv, env=dict(env), capture_output=True, timeout=timeout, cwd="/")
            return done.returncode == 0, (done.stdout + done.stderr).decode(errors="replace")[-300:]
        if "httpGet" in probe:
            get = probe["httpGet"]
            scheme = str(get.get("scheme", "HTTP")).lower()
            url = f"{scheme}://{get.get('host') or pod_ip}:{_port(get['port'], container)}{get.get('path', '/')}"
            req = urllib.request.Request(url, headers={h["name"]: h["value"] for h in get.get("httpHeaders") or []})
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return 200 <= resp.status < 400, f"HTTP {resp.status}"
        if "tcpSocket" in probe:
            port = _port(probe["tcpSocket"]["port"], container)
            with socket.create_connection((probe["tcpSocket"].get("host") or pod_ip, port), timeout=timeout):
                return True, "connected"
        if "grpc" in probe:
            return False, "grpc probes are not supported by pod-runner"
    except subprocess.TimeoutExpired:
        return False, f"probe timed out after {timeout:g}s"
    except urllib.error.HTTPError as err:
        return False, f"HTTP probe failed with statuscode: {err.code}"
    except (OSError, ValueError) as err:
        return False, str(err)
    return False, "probe has no handler"


@dataclass
class ProbeState:
    probe: Mapping[str, Any]
    last: float = 0.0
    successes: int = 0
    failures: int = 0
    result: bool = False

    def due(self, since_start: float, now_: float) -> bool:
        if since_start < float(self.probe.get("initialDelaySeconds", 0)):
            return False
        return now_ - self.last >= float(self.probe.get("periodSeconds", 10))

    def record(self, ok: bool, now_: float) -> None:
        self.last = now_
        if ok:
            self.successes, self.failures = self.successes + 1, 0
            if self.successes >= int(self.probe.get("successThreshold", 1)):
                self.result = True
        else:
            self.successes, self.failures = 0, self.failures + 1
            if self.failures >= int(self.probe.get("failureThreshold", 3)):
                self.result = False
