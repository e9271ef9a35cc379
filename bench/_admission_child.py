"""What the catalogue's ValidatingAdmissionPolicies add to a create: server-side dry-run latency, with and without.

``python -m bench._admission_child N`` starts a throw-away control plane (``scripts/local-cluster up`` in a
temporary directory, loopback ports; never builds: the binaries must be in the ``scripts/ensure-kube`` cache), then
sends N server-side dry-run creates of the upstream samples' Ray objects (cycled), sequentially on one keep-alive
connection and then five at a time, first without the policies, then with every policy bound as staging binds them
(Deny for critical rules, Warn for the rest: the samples pass, with warnings), then without again (the drift of a
shared machine shows as a difference between the two baselines). It stops by itself and tears the control plane
down. Prints one JSON object: p50/p99 in milliseconds per phase.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench._rules_child import sample_documents
from bench._stats import median, percentile

REPO = Path(__file__).resolve().parent.parent
PLURALS = {"RayCluster": "rayclusters", "RayJob": "rayjobs", "RayService": "rayservices", "RayCronJob": "raycronjobs"}
NAMESPACE = "bench"
CONCURRENCY = 5
WARM_UP = 20


def _free_base() -> int:
    for base in range(21000, 29000, 10):
        try:
            for port in range(base, base + 8):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
    raise RuntimeError("no 8 free loopback ports between 21000 and 29000")


class Api:
    """A keep-alive HTTPS connection per thread to the local API server (client certificate auth)."""

    def __init__(self, state: Path) -> None:
        self.port = int((state / "api-port").read_text())
        pki = state / "pki"
        self.context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        self.context.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))

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


def _kubectl(kube_dir: Path, state: Path, *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run(
        [str(kube_dir / "bin" / "kubectl"), f"--kubeconfig={state / 'kubeconfig'}", *args],
        input=stdin, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"kubectl {' '.join(args)}: {proc.stderr[-2000:]}")
    return proc.stdout


def _wait_active(api: Api, probe: dict[str, Any]) -> None:
    deadline = time.monotonic() + 120
    conn = api.connection()
    while time.monotonic() < deadline:
        _, code = api.dry_run(conn, probe)
        if code != 201:
            return
        time.sleep(0.5)
    raise RuntimeError("the admission policies never became active")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    from pulumi_kuberay import admission, rules

    found = subprocess.run(
        [str(REPO / "scripts" / "ensure-kube"), "--no-build", "--print-dir"], capture_output=True, text=True, check=False
    )
    if found.returncode != 0 or not found.stdout.strip():
        raise RuntimeError("the control plane is not built (scripts/ensure-kube); this benchmark never builds it")
    kube_dir = Path(found.stdout.strip())
    work = Path(tempfile.mkdtemp(prefix="kuberay-bench-admission-"))
    state = work / "state"
    env = {
        **os.environ,
        "PULUMI_KUBERAY_CLUSTER_DIR": str(state),
        "PULUMI_KUBERAY_KUBE_DIR": str(kube_dir),
        "PULUMI_KUBERAY_CLUSTER_PORT_BASE": str(_free_base()),
        "PULUMI_KUBERAY_NO_BUILD": "1",
    }
    script = str(REPO / "scripts" / "local-cluster")
    up = subprocess.run([script, "up"], env=env, capture_output=True, text=True, timeout=900, check=False)
    try:
        if up.returncode != 0:
            raise RuntimeError(f"scripts/local-cluster up failed:\n{up.stderr[-3000:]}")
        _kubectl(kube_dir, state, "create", "namespace", NAMESPACE)
        api = Api(state)
        docs = [{**d, "metadata": {**(d.get("metadata") or {}), "namespace": NAMESPACE}} for d in sample_documents()]
        out: dict[str, Any] = {"documents": len(docs), "policies": len(admission.covered_rules())}
        out["without"] = {"sequential": _phase(api, docs, n, 1), "concurrent": _phase(api, docs, n, CONCURRENCY)}
        policies = admission.to_yaml(admission.admission_policies("staging"))
        _kubectl(kube_dir, state, "apply", "--server-side", "-f", "-", stdin=policies)
        probe = {**rules.RULES["worker-min-exceeds-max"].violating}
        probe["metadata"] = {**probe["metadata"], "namespace": NAMESPACE}
        _wait_active(api, probe)
        out["with"] = {"sequential": _phase(api, docs, n, 1), "concurrent": _phase(api, docs, n, CONCURRENCY)}
        _kubectl(kube_dir, state, "delete", "validatingadmissionpolicybindings", "--all", "--wait=true")
        time.sleep(3)  # the bindings leave the admission plugin through its informer
        out["without_again"] = {"sequential": _phase(api, docs, n, 1), "concurrent": _phase(api, docs, n, CONCURRENCY)}
    finally:
        subprocess.run([script, "down"], env=env, capture_output=True, text=True, timeout=300, check=False)
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
