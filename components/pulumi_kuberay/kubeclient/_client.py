"""A minimal read-only Kubernetes REST client (stdlib and PyYAML) for the component-side await, the change plan and
the preflight's cluster read.

It reads a kubeconfig the way the Kubernetes provider does for its default provider (stack config
``kubernetes:kubeconfig`` as a path or as the document itself, else ``$KUBECONFIG`` (first existing file),
else ``~/.kube/config``; context ``kubernetes:context`` else ``current-context``) and supports what local and
cloud clusters use: a CA (file or data) or ``insecure-skip-tls-verify``, client certificates (file or data),
bearer tokens (inline or ``tokenFile``), basic auth, and ``exec`` credential plugins that return a token or a
client certificate. It GETs the object, the events about it, a RayCluster's head Pods, the lists the preflight
reads; its one write is a server-side dry-run create (``dryRun=All``: admission answers, nothing is stored), the
preflight's way of asking the cluster's own admission about the children the operator would create. No pulumi
import.
"""

from __future__ import annotations

import base64
import json
import os
import ssl
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import yaml

from pulumi_kuberay.kuberay.api import API_PATH, PLURALS

__all__ = ["KubeClient", "KubeConfigError", "KubeError", "find_kubeconfig", "load_client"]


class KubeConfigError(Exception):
    """The kubeconfig cannot be found or used (a setup problem: retrying will not help)."""


class KubeError(Exception):
    """A request failed. ``status`` is the HTTP status (0 when the server could not be reached); ``reason`` and
    ``detail`` are the server's ``Status`` reason and message when it sent one."""

    def __init__(self, message: str, status: int = 0, *, reason: str = "", detail: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.detail = detail

    @property
    def permanent(self) -> bool:
        return self.status in (400, 401, 403)


def find_kubeconfig(config_value: str | None = None) -> tuple[str, Path | None] | None:
    """(kubeconfig text, its directory for relative paths) from the provider's sources, or None."""
    if config_value:
        candidate = Path(config_value).expanduser()
        try:
            if "\n" not in config_value and candidate.is_file():
                return candidate.read_text(), candidate.parent
        except OSError:
            pass
        return config_value, None
    for raw in (os.environ.get("KUBECONFIG") or "").split(os.pathsep):
        if raw and Path(raw).expanduser().is_file():
            path = Path(raw).expanduser()
            return path.read_text(), path.parent
    default = Path.home() / ".kube" / "config"
    if default.is_file():
        return default.read_text(), default.parent
    return None


def _named(items: Any, name: str, what: str) -> Mapping[str, Any]:
    for item in items or []:
        if isinstance(item, Mapping) and item.get("name") == name and isinstance(item.get(what), Mapping):
            return item[what]  # type: ignore[no-any-return]
    raise KubeConfigError(f"kubeconfig has no {what} named {name!r}")


@dataclass
class KubeClient:
    server: str
    context: ssl.SSLContext | None
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 15.0

    def get(self, path: str) -> tuple[dict[str, Any] | None, datetime]:
        """GET ``path``: (the JSON body, or None on 404; the server's Date)."""
        request = urllib.request.Request(self.server.rstrip("/") + path, headers=self.headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=self.context) as response:
                body = json.loads(response.read())
                return body, _server_time(response.headers.get("Date"))
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None, _server_time(exc.headers.get("Date") if exc.headers else None)
            detail = exc.read()[:300].decode("utf-8", "replace") if exc.fp else ""
            raise KubeError(f"GET {path}: HTTP {exc.code} {detail}", exc.code) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise KubeError(f"GET {path}: {exc}") from None

    def dry_run_create(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST ``body`` to the collection ``path`` as a server-side dry run (``dryRun=All``): the API server
        validates, defaults and runs every admission plugin and webhook, and stores nothing. The object as it
        would be created; raises :class:`KubeError` with the server's ``Status`` reason and message otherwise."""
        url = self.server.rstrip("/") + path + ("&" if "?" in path else "?") + "dryRun=All"
        headers = {**self.headers, "Content-Type": "application/json"}
        request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=self.context) as response:
                created = json.loads(response.read())
                return created if isinstance(created, dict) else {}
        except urllib.error.HTTPError as exc:
            raw = exc.read()[:20000] if exc.fp else b""
            try:
                status = json.loads(raw)
            except ValueError:
                status = {}
            status = status if isinstance(status, dict) else {}
            detail = str(status.get("message") or raw[:300].decode("utf-8", "replace"))
            raise KubeError(f"POST {path} (dry run): HTTP {exc.code} {detail}", exc.code,
                            reason=str(status.get("reason") or ""), detail=detail) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise KubeError(f"POST {path} (dry run): {exc}") from None

    def get_object(self, kind: str, namespace: str, name: str) -> tuple[dict[str, Any] | None, datetime]:
        path = f"{API_PATH}/namespaces/{_q(namespace)}/{PLURALS[kind]}/{_q(name)}"
        return self.get(path)

    def head_pods(self, namespace: str, cluster: str) -> list[dict[str, Any]]:
        """The head Pods of RayCluster ``cluster`` (labels ``ray.io/cluster``, ``ray.io/node-type=head``)."""
        selector = f"ray.io/cluster={cluster},ray.io/node-type=head"
        body, _ = self.get(f"/api/v1/namespaces/{_q(namespace)}/pods?labelSelector={_q(selector)}")
        items = (body or {}).get("items") or []
        return [item for item in items if isinstance(item, dict)]

    def events_about(self, kind: str, namespace: str, name: str) -> list[dict[str, Any]]:
        selector = f"involvedObject.kind={kind},involvedObject.name={name}"
        body, _ = self.get(f"/api/v1/namespaces/{_q(namespace)}/events?fieldSelector={_q(selector)}")
        items = (body or {}).get("items") or []
        return [item for item in items if isinstance(item, dict)]


def _q(text: str) -> str:
    return urllib.parse.quote(text, safe="")


def _server_time(header: str | None) -> datetime:
    if header:
        try:
            parsed = parsedate_to_datetime(header)
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
        except (TypeError, ValueError):
            pass
    return datetime.now(UTC)


def _material(entry: Mapping[str, Any], key: str, base: Path | None, scratch: Path) -> Path | None:
    """A PEM file for ``<key>`` or ``<key>-data`` (written to ``scratch``, mode 0600)."""
    data = entry.get(f"{key}-data")
    if data:
        target = scratch / key
        target.write_bytes(base64.b64decode(data))
        target.chmod(0o600)
        return target
    path = entry.get(key)
    if path:
        resolved = Path(path).expanduser()
        return resolved if resolved.is_absolute() or base is None else base / resolved
    return None


def _exec_credential(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    command = [str(spec.get("command"))] + [str(arg) for arg in spec.get("args") or []]
    env = dict(os.environ)
    for item in spec.get("env") or []:
        if isinstance(item, Mapping) and item.get("name"):
            env[str(item["name"])] = str(item.get("value") or "")
    try:
        done = subprocess.run(command, capture_output=True, env=env, timeout=60, check=True)
        status = json.loads(done.stdout).get("status") or {}
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        raise KubeConfigError(f"kubeconfig exec plugin {command[0]!r} failed: {exc}") from None
    if not isinstance(status, Mapping):
        raise KubeConfigError(f"kubeconfig exec plugin {command[0]!r} returned no status")
    return status


# C901, PLR0912: one branch per kubeconfig credential kind
def load_client(text: str, base: Path | None, context_name: str | None = None) -> KubeClient:  # noqa: C901, PLR0912
    """A client for ``context_name`` (default: current-context) of the kubeconfig ``text``."""
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise KubeConfigError(f"kubeconfig is not YAML: {exc}") from None
    if not isinstance(config, Mapping):
        raise KubeConfigError("kubeconfig is not a mapping")
    name = context_name or config.get("current-context")
    if not name:
        raise KubeConfigError("kubeconfig has no current-context (set kubernetes:context)")
    context = _named(config.get("contexts"), str(name), "context")
    cluster = _named(config.get("clusters"), str(context.get("cluster")), "cluster")
    user = _named(config.get("users"), str(context.get("user")), "user") if context.get("user") else {}
    server = cluster.get("server")
    if not server:
        raise KubeConfigError(f"kubeconfig cluster {context.get('cluster')!r} has no server")
    headers = {"Accept": "application/json", "User-Agent": "pulumi-kuberay-await"}
    scratch = Path(tempfile.mkdtemp(prefix="kuberay-await-"))
    try:
        ssl_context: ssl.SSLContext | None = None
        if str(server).startswith("https"):
            if cluster.get("insecure-skip-tls-verify"):
                ssl_context = ssl._create_unverified_context()  # the kubeconfig asks for it
            else:
                ca = _material(cluster, "certificate-authority", base, scratch)
                ssl_context = ssl.create_default_context(cafile=str(ca) if ca else None)
            user = dict(user)
            if isinstance(user.get("exec"), Mapping):
                credential = _exec_credential(user["exec"])
                if credential.get("token"):
                    user["token"] = credential["token"]
                if credential.get("clientCertificateData") and credential.get("clientKeyData"):
                    user["client-certificate-data"] = base64.b64encode(
                        str(credential["clientCertificateData"]).encode()
                    ).decode()
                    user["client-key-data"] = base64.b64encode(str(credential["clientKeyData"]).encode()).decode()
            cert = _material(user, "client-certificate", base, scratch)
            key = _material(user, "client-key", base, scratch)
            if cert and key:
                ssl_context.load_cert_chain(str(cert), str(key))
        token = user.get("token")
        if not token and user.get("tokenFile"):
            token = Path(str(user["tokenFile"])).expanduser().read_text().strip()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        elif user.get("username"):
            pair = f"{user.get('username')}:{user.get('password') or ''}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise KubeConfigError(f"kubeconfig credentials cannot be used: {exc}") from None
    finally:
        for item in scratch.iterdir():
            item.unlink()
        scratch.rmdir()
    return KubeClient(server=str(server), context=ssl_context, headers=headers)
