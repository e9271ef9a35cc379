"""What the preflight adds to a preview: N RayClusters under Pulumi mocks, with the cluster read from a fake API.

``python -m bench._preflight_child on|off N NODES`` prints ``{"seconds": ..., "requests": ..., "read_s": ...}``.
A fake Kubernetes API (plain HTTP on loopback, in this process, a thread) serves NODES nodes, the Pods of N Ray
objects (three each, bound), ten namespaces with a ResourceQuota, ServiceAccounts and Secrets; 404 for the APIs a
small cluster lacks (Karpenter, Kueue). ``on``: the components read it through the preflight's reader (the
kubeconfig points at it; under mocks the component cannot know its cluster, so the reader is handed to them with
``use_cluster_snapshot``); ``off``: the preflight is skipped. Both sides declare the same N clusters across the ten
namespaces.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pulumi

from bench._program_child import _Mocks, cluster_spec

NAMESPACES = [f"team-{i}" for i in range(10)]


def _lists(objects: int, nodes: int) -> dict[str, Any]:
    node_items = [
        {
            "metadata": {"name": f"node-{i}", "labels": {"cloud.google.com/gke-nodepool": f"pool-{i % 4}"}},
            "spec": {},
            "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}},
        }
        for i in range(nodes)
    ]
    pods = [
        {
            "metadata": {"name": f"c{i}-{j}", "namespace": NAMESPACES[i % 10]},
            "spec": {"nodeName": f"node-{(i * 3 + j) % nodes}",
                     "containers": [{"resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}]},
            "status": {"phase": "Running"},
        }
        for i in range(objects)
        for j in range(3)
    ]
    out: dict[str, Any] = {
        "/api/v1/nodes": {"items": node_items},
        "/api/v1/pods": {"items": pods},
        "/api/v1/namespaces": {"items": [{"metadata": {"name": ns}} for ns in NAMESPACES]},
        "/apis/scheduling.k8s.io/v1/priorityclasses": {"items": []},
        "/apis/storage.k8s.io/v1/storageclasses": {"items": [{"metadata": {"name": "standard"}}]},
        "/apis/node.k8s.io/v1/runtimeclasses": {"items": []},
    }
    for ns in NAMESPACES:
        base = f"/api/v1/namespaces/{ns}"
        out[f"{base}/resourcequotas"] = {"items": [{"metadata": {"name": "q", "namespace": ns},
                                                   "spec": {"hard": {"requests.cpu": "100000"}},
                                                   "status": {"used": {"requests.cpu": "100"}}}]}
        out[f"{base}/serviceaccounts"] = {"items": [{"metadata": {"name": "default", "namespace": ns}}]}
        out[f"{base}/secrets"] = {"items": [{"metadata": {"name": f"s{k}", "namespace": ns}, "data": {"k": "dg=="}}
                                            for k in range(20)]}
        for kind in ("limitranges", "configmaps", "persistentvolumeclaims"):
            out[f"{base}/{kind}"] = {"items": []}
    return out


def _serve(bodies: dict[str, Any]) -> tuple[ThreadingHTTPServer, list[str]]:
    encoded = {path: json.dumps(body).encode() for path, body in bodies.items()}
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            body = encoded.get(self.path.split("?", 1)[0])
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            payload = body if body is not None else b'{"kind":"Status","code":404}'
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, seen


def main() -> None:
    side, n, nodes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    server, seen = _serve(_lists(n, nodes))
    kubeconfig = Path(tempfile.mkdtemp()) / "config"
    kubeconfig.write_text(json.dumps({
        "clusters": [{"name": "fake", "cluster": {"server": f"http://127.0.0.1:{server.server_address[1]}"}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "u"}}],
        "current-context": "fake",
    }))
    import pulumi_kuberay as kr
    from pulumi_kuberay import preflight
    from pulumi_kuberay.resources import use_cluster_snapshot

    read_s = [0.0]
    reader = preflight.reader_for(str(kubeconfig), deadline=30)

    def on(namespace: str, manifest: Any) -> Any:
        start = time.perf_counter()
        try:
            return reader.snapshot([namespace]) if isinstance(reader, preflight.SnapshotReader) else reader
        finally:
            read_s[0] += time.perf_counter() - start

    def off(namespace: str, manifest: Any) -> Any:
        return preflight.Skipped("off")

    use_cluster_snapshot(on if side == "on" else off)
    asyncio.set_event_loop(asyncio.new_event_loop())
    pulumi.runtime.set_mocks(_Mocks(), project="bench", stack="bench", preview=True)

    @pulumi.runtime.test  # type: ignore[untyped-decorator]  # pulumi.runtime.test is not annotated
    def program() -> pulumi.Output[Any]:
        outputs = [kr.RayCluster(f"c{i}", cluster_spec(i), namespace=NAMESPACES[i % 10]).cluster_name for i in range(n)]
        return pulumi.Output.all(*outputs)

    start = time.perf_counter()
    program()
    elapsed = time.perf_counter() - start
    server.shutdown()
    server.server_close()
    print(json.dumps({"side": side, "n": n, "nodes": nodes, "seconds": elapsed, "requests": len(seen),
                      "read_s": read_s[0]}))


if __name__ == "__main__":
    main()
