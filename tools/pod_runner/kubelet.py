"""The node's kubelet endpoint, for ``kubectl logs``: the API server proxies
``/containerLogs/<ns>/<pod>/<container>`` to it over HTTPS (a self-signed certificate: the local API server is
started without --kubelet-certificate-authority, so it does not verify it)."""

from __future__ import annotations

import http.server
import ssl
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

#: (namespace, pod, container) -> the container's log file (None: no such container here)
LogLookup = Callable[[str, str, str, bool], Path | None]


def self_signed(directory: Path, address: str) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "kubelet.crt", directory / "kubelet.key"
    if not cert.exists():
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
             "-days", "30", "-subj", "/CN=pod-runner-kubelet", "-addext", f"subjectAltName=IP:{address}"],
            check=True, capture_output=True, timeout=60,
        )
    return cert, key


class KubeletServer:
    def __init__(self, address: str, port: int, certs: tuple[Path, Path], lookup: LogLookup) -> None:
        handler = _handler(lookup)
        self.httpd = http.server.ThreadingHTTPServer((address, port), handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(certs[0]), str(certs[1]))
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="kubelet", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _handler(lookup: LogLookup) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query)
            parts = url.path.strip("/").split("/")
            if url.path == "/healthz":
                self._send(200, b"ok")
                return
            if len(parts) != 4 or parts[0] != "containerLogs":
                self._send(404, b"not found")
                return
            previous = query.get("previous", ["false"])[0] == "true"
            path = lookup(parts[1], parts[2], parts[3], previous)
            if path is None or not path.exists():
                self._send(404, f"container {parts[3]} in pod {parts[1]}/{parts[2]} has no log here".encode())
                return
            data = path.read_bytes()
            tail = query.get("tailLines")
            if tail:
                data = b"".join(data.splitlines(keepends=True)[-int(tail[0]):]) if int(tail[0]) else b""
            if query.get("follow", ["false"])[0] != "true":
                self._send(200, data)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self._follow(path, data)

        def _follow(self, path: Path, first: bytes) -> None:
            """Up to an hour of following (bounded); ends when the client goes away or the file does."""
            self.wfile.write(first)
            pos = path.stat().st_size
            deadline = time.monotonic() + 3600
            try:
                while time.monotonic() < deadline and path.exists():
                    size = path.stat().st_size
                    if size > pos:
                        with path.open("rb") as fh:
                            fh.seek(pos)
                            self.wfile.write(fh.read(size - pos))
                        self.wfile.flush()
                        pos = size
                    time.sleep(0.5)
            except OSError:
                return

        def _send(self, code: int, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler
