"""(c) RayService with a real Serve application: Ready, each route_prefix answered, a mismatch a real 404;
(d) a NewCluster upgrade under a bounded load: requests failed / total, time to the switch, old cluster removed."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pulumi_kuberay.status import diagnose

from realray._manifests import rayservice
from realray.conftest import RealRay

SERVE_PORT = 8000


def _ready(rr: RealRay, ns: str, name: str) -> dict[str, Any] | None:
    obj = rr.get("rayservice", name, ns)
    conds = {c["type"]: c["status"] for c in (obj or {}).get("status", {}).get("conditions", [])}
    return obj if conds.get("Ready") == "True" and conds.get("UpgradeInProgress") != "True" else None


def _serve_url(rr: RealRay, ns: str, name: str, path: str) -> str:
    return rr.service_url(f"{name}-serve-svc", ns, SERVE_PORT, path)


def _answered(rr: RealRay, ns: str, name: str, path: str) -> tuple[int, str] | None:
    try:
        got = rr.get_url(_serve_url(rr, ns, name, path), timeout=5)
    except AssertionError:
        return None  # no ready endpoint yet
    return got if got[0] == 200 else None


def test_service_serves_each_route_and_404s_a_mismatch(realray: RealRay, rr_namespace: str) -> None:
    ns = rr_namespace
    realray.apply(rayservice("svc", workers=1), ns)
    obj = realray.wait_for(lambda: _ready(realray, ns, "svc"), 420, "RayService svc to be Ready", 2)
    assert diagnose(obj).phase == "healthy", diagnose(obj)
    apps = obj["status"]["activeServiceStatus"]["applicationStatuses"]
    assert {k: v["status"] for k, v in apps.items()} == {"greet": "RUNNING", "echo": "RUNNING"}
    active = obj["status"]["activeServiceStatus"]["rayClusterName"]

    status, body = realray.wait_for(lambda: _answered(realray, ns, "svc", "/greet"), 120, "an answer on /greet")
    assert (status, body) == (200, f"hello from {active}")
    status, body = realray.get_url(_serve_url(realray, ns, "svc", "/echo?say=hi"))
    assert (status, body) == (200, f"echo hi from {active}")
    # a route no application has: Serve's proxy answers 404 (what a route_prefix mismatch gives clients)
    status, _ = realray.get_url(_serve_url(realray, ns, "svc", "/predict"))
    assert status == 404


@dataclass
class Load:
    """GETs at ``rate`` per second to the Service (resolved through the cluster DNS before each request, as a
    client with a short TTL does) until ``stop()`` or ``limit`` seconds / ``max_requests``, whichever first."""

    rr: RealRay
    ns: str
    name: str
    rate: float = 10.0
    limit: float = 600.0
    max_requests: int = 6000
    results: list[tuple[float, int, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self.started = time.monotonic()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        n = 0
        while not self._stop.is_set() and n < self.max_requests and time.monotonic() - self.started < self.limit:
            due = self.started + n / self.rate
            self._stop.wait(max(0.0, due - time.monotonic()))
            try:
                status, body = self.rr.get_url(_serve_url(self.rr, self.ns, self.name, "/greet"), timeout=5)
            except (AssertionError, OSError) as err:
                status, body = 0, str(err)
            self.results.append((time.monotonic() - self.started, status, body))
            n += 1

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=30)

    @property
    def failed(self) -> list[tuple[float, int, str]]:
        return [r for r in self.results if r[1] != 200]


def test_new_cluster_upgrade_under_load(realray: RealRay, rr_namespace: str) -> None:
    ns = rr_namespace
    realray.apply(rayservice("up", workers=1, marker="v1"), ns)
    obj = realray.wait_for(lambda: _ready(realray, ns, "up"), 420, "RayService up to be Ready", 2)
    old = obj["status"]["activeServiceStatus"]["rayClusterName"]
    realray.wait_for(lambda: _answered(realray, ns, "up", "/greet"), 120, "an answer on /greet")

    load = Load(realray, ns, "up")
    try:
        time.sleep(3)
        changed_at = time.monotonic() - load.started
        realray.apply(rayservice("up", workers=1, marker="v2", greeting="hi"), ns)

        def switched() -> dict[str, Any] | None:
            got = _ready(realray, ns, "up")
            return got if got and got["status"]["activeServiceStatus"]["rayClusterName"] != old else None

        obj = realray.wait_for(switched, 480, "the upgrade to a new cluster", 2)
        new = obj["status"]["activeServiceStatus"]["rayClusterName"]
        realray.wait_for(lambda: realray.get("raycluster", old, ns) is None, 180, f"the old cluster {old} removed")
        time.sleep(3)
    finally:
        load.stop()
    total, failed = len(load.results), load.failed
    first_new = next(t for t, status, body in load.results if status == 200 and body.endswith(new))
    last_old = max(t for t, status, body in load.results if status == 200 and body.endswith(old))
    sys.stderr.write(
        f"\n[realray] NewCluster upgrade {old} -> {new}: {len(failed)} failed / {total} requests; traffic switched {first_new - changed_at:.1f}s after the change (last answer from the old cluster at {last_old - changed_at:.1f}s); failures: {failed[:5]}\n"
    )
    assert new != old
    assert {body for _, status, body in load.results if status == 200} <= {f"hello from {old}", f"hi from {new}"}
    assert total >= 100
    assert failed == [], f"{len(failed)} of {total} requests failed during the upgrade: {failed[:5]}"
    realray.wait_for(lambda: not realray.pods(ns, f"ray.io/cluster={old}"), 120, f"the Pods of {old} to end")
