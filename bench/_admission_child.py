"""What the catalogue's ValidatingAdmissionPolicies add to a create: server-side dry-run latency, with and without.

``python -m bench._admission_child N`` starts a throw-away etcd and kube-apiserver (``tools/local_apiserver.py``:
loopback ports, no controllers; never builds: the binaries come from ``$PULUMI_KUBERAY_KUBE_DIR`` or the
``scripts/ensure-kube`` cache) with the v1.7.0 CRDs, then sends N server-side dry-run creates of the upstream samples'
Ray objects (cycled), sequentially on one keep-alive connection and then five at a time, first without the policies,
then with every policy bound as staging binds them (Deny for critical rules, Warn for the rest: the samples pass,
with warnings), then without again (the drift of a shared machine shows as a difference between the two
baselines). It stops by itself and stops the API server. Prints one JSON object: p50/p99 in milliseconds per phase.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

from bench._rules_child import sample_documents
from bench._stats import median, percentile

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
from local_apiserver import LocalApiServer  # noqa: E402  (a tool of the repository)

PLURALS = {"RayCluster": "rayclusters", "RayJob": "rayjobs", "RayService": "rayservices", "RayCronJob": "raycronjobs"}
NAMESPACE = "bench"
CONCURRENCY = 5
WARM_UP = 20


class Api:
    """A keep-alive HTTPS connection per thread to the local API server (client certificate auth)."""

    def __init__(self, server: LocalApiServer) -> None:
        self.port = server.port
        self.context: ssl.SSLContext = server.ssl_context()

    def connection(self) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=60)

    @staticmethod
    def dry_run(conn: http.client.HTTPSConnection, doc: dict[str, Any]) -> tuple[float, int]:
        path = f"/apis/ray.io/v1/namespaces/{NAMESPACE}/{PLURALS[doc['kind']]}?dryRun=All&fieldValidation=Strict"
        body = json.dumps(doc).encode()
        started = time.perf_counter()
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return (time.perf_counter() - started) * 1000, response.status


def _phase(api: Api, docs: list[dict[str, Any]], n: int, workers: int) -> dict[str, Any]:
    """``n`` dry-run creates cycling through ``docs`` on ``workers`` connections; latencies after a warm-up."""

    def run(worker: int) -> list[tuple[float, int]]:
        conn = api.connection()
        try:
            mine = [docs[i % len(docs)] for i in range(worker, n + WARM_UP * workers, workers)]
            return [api.dry_run(conn, doc) for doc in mine]
        finally:
            conn.close()

    with ThreadPoolExecutor(workers) as pool:
        results = [r for rs in pool.map(run, range(workers)) for r in rs[WARM_UP:]]
    times = [t for t, _ in results]
    return {
        "requests": len(times),
        "concurrency": workers,
        "p50_ms": median(times),
        "p99_ms": percentile(times, 0.99),
        "refused": sum(1 for _, code in results if code != 201),
    }


def _wait_active(api: Api, probe: dict[str, Any]) -> None:
    deadline = time.monotonic() + 120
    conn = api.connection()
    while time.monotonic() < deadline:
        _, code = api.dry_run(conn, probe)
        if code != 201:
            return
        time.sleep(0.5)
    raise RuntimeError("the admission policies never became active")


def _kube_bin() -> Path:
    kube_dir = os.environ.get("PULUMI_KUBERAY_KUBE_DIR")
    if not kube_dir:
        found = subprocess.run(
            [str(REPO / "scripts" / "ensure-kube"), "--no-build", "--print-dir"], capture_output=True, text=True, check=False
        )
        kube_dir = found.stdout.strip() if found.returncode == 0 else ""
    if not kube_dir or not (Path(kube_dir) / "bin" / "kube-apiserver").exists():
        raise RuntimeError("the control plane is not built (scripts/ensure-kube); this benchmark never builds it")
    return Path(kube_dir) / "bin"


def _phases(api: Api, docs: list[dict[str, Any]], n: int) -> dict[str, Any]:
    return {"sequential": _phase(api, docs, n, 1), "concurrent": _phase(api, docs, n, CONCURRENCY)}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    from pulumi_kuberay import admission, rules

    reference = Path(os.environ.get("KUBERAY_REFERENCE_DIR", REPO.parent / "shared"))
    crds = [yaml.safe_load(p.read_text()) for p in sorted((reference / "kuberay" / "v1.7.0" / "crds").glob("*.yaml"))]
    work = Path(tempfile.mkdtemp(prefix="kuberay-bench-admission-"))
    try:
        with LocalApiServer(_kube_bin(), work) as server:
            server.install_crds(crds)
            server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
            api = Api(server)
            docs = [{**d, "metadata": {**(d.get("metadata") or {}), "namespace": NAMESPACE}} for d in sample_documents()]
            policies = admission.admission_policies("staging")
            out: dict[str, Any] = {
                "documents": len(docs),
                "policies": sum(1 for doc in policies if doc["kind"] == "ValidatingAdmissionPolicy"),
                "rules": sum(len(admission.policy_rules(doc)) for doc in policies),
            }
            out["without"] = _phases(api, docs, n)
            for doc in policies:
                server.create(doc)
            probe = {**rules.RULES["worker-min-exceeds-max"].violating}
            probe["metadata"] = {**probe["metadata"], "namespace": NAMESPACE}
            _wait_active(api, probe)
            out["with"] = _phases(api, docs, n)
            bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
            server.delete_collection(bindings, "app.kubernetes.io/managed-by=pulumi-kuberay")
            time.sleep(3)  # the bindings leave the admission plugin through its informer
            out["without_again"] = _phases(api, docs, n)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
