"""The API server for the Pods (the in-tree autoscaler): a TCP relay from the node's address, port 443, to the
API server on 127.0.0.1 (which stays bound there). The Pods reach it as ``kubernetes.default`` (our DNS answers
the node's address; the API server's certificate names kubernetes.default), with the ServiceAccount token of
their projected volume."""

from __future__ import annotations

import contextlib
import socket
import threading


class ApiRelay:
    def __init__(self, address: str, port: int, target: tuple[str, int]) -> None:
        self.target = target
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((address, port))
        self.sock.listen(64)
        self.sock.settimeout(0.5)
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, name="api-relay", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=5)
        self.sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                client.close()
                continue
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(src, dst), daemon=True).start()


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    """Copy until either side closes (each connection's life bounds the thread's)."""
    src.settimeout(None)
    with contextlib.suppress(OSError):
        while data := src.recv(65536):
            dst.sendall(data)
    for s in (src, dst):
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
    src.close()
