"""(c) RayService with a real Serve application, created by ``pulumi up`` of the RayService component: Ready
when the ``up`` returns, each route_prefix answered, a mismatch a real 404; (d) a NewCluster upgrade by a second
``pulumi up`` under a bounded load: the ``up`` returns once traffic has switched; requests failed / total, time
to the switch, old cluster removed.

One RayService for the module (the ``service`` fixture, on the module's stack ``rr_stack``): the route checks read
it, then the upgrade changes it."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from cluster._waits import config, timed_up
from cluster.conftest import ClusterStack
from pulumi_kuberay.status import diagnose

from realray._manifests import rayservice
from realray.conftest import RealRay

SERVE_PORT = 8000
NAME = "svc"
#: The component's wait (``timeout_seconds``) for the create and for the upgrade.
WAIT = 480


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


def _config(ns: str, **kw: Any) -> dict[str, Any]:
    spec = rayservice(NAME, workers=1, **kw)["spec"]
    return config({NAME: {"kind": "RayService", "spec": spec, "timeout_seconds": WAIT}}, ns)


@dataclass
class Created:
    obj: dict[str, Any]
    outputs: dict[str, Any]
    took: float


@pytest.fixture(scope="module")
def service(realray: RealRay, rr_stack: ClusterStack, rr_module_namespace: str) -> Created:
    """The RayService ``svc`` (head + 1 worker, two Serve apps, marker v1) from ``pulumi up``; the live object
    read right when the ``up`` returned."""
    rr_stack.set_config(_config(rr_module_namespace, marker="v1"))
    up, took = timed_up(rr_stack, "RayService create (real Serve)")
    assert up.returncode == 0, f"{up.describe()}\n{realray.diagnostics(rr_module_namespace)}"
    obj = realray.get("rayservice", NAME, rr_module_namespace)
    assert obj is not None
    return Created(obj, rr_stack.outputs()[NAME], took)


def test_service_serves_each_route_and_404s_a_mismatch(
    realray: RealRay, rr_module_namespace: str, service: Created
) -> None:
    ns, obj = rr_module_namespace, service.obj
    # the component's wait covered the whole start: when `up` returned the service was Ready, its apps RUNNING
    assert _ready(realray, ns, NAME) is not None, obj.get("status")
    assert diagnose(obj).phase == "healthy", diagnose(obj)
    apps = obj["status"]["activeServiceStatus"]["applicationStatuses"]
    assert {k: v["status"] for k, v in apps.items()} == {"greet": "RUNNING", "echo": "RUNNING"}
    active = obj["status"]["activeServiceStatus"]["rayClusterName"]
    # the outputs say so too
    assert service.outputs["last_change"]["action"] == "create", service.outputs["last_change"]
    assert service.outputs["last_change"]["result"].startswith("ready: "), service.outputs["last_change"]
    assert service.outputs["status"]["activeServiceStatus"]["rayClusterName"] == active
    ready = [c for c in service.outputs["status"]["conditions"] if c["type"] == "Ready"]
    assert [c["status"] for c in ready] == ["True"], service.outputs["status"]
    sys.stderr.write(f"\n[realray] RayService create: pulumi up {service.took:.0f}s (returned Ready)\n")

    status, body = realray.wait_for(lambda: _answered(realray, ns, NAME, "/greet"), 120, "an answer on /greet",
                                    namespace=ns)
    assert (status, body) == (200, f"hello from {active}")
    status, body = realray.get_url(_serve_url(realray, ns, NAME, "/echo?say=hi"))
    assert (status, body) == (200, f"echo hi from {active}")
    # a route no application has: Serve's proxy answers 404 (what a route_prefix mismatch gives clients)
    status, _ = realray.get_url(_serve_url(realray, ns, NAME, "/predict"))
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


def test_new_cluster_upgrade_under_load(
    realray: RealRay, rr_stack: ClusterStack, rr_module_namespace: str, service: Created
) -> None:
    ns = rr_module_namespace
    obj = realray.wait_for(lambda: _ready(realray, ns, NAME), 60, f"RayService {NAME} to be Ready", 2, namespace=ns)
    old = obj["status"]["activeServiceStatus"]["rayClusterName"]
    realray.wait_for(lambda: _answered(realray, ns, NAME, "/greet"), 120, "an answer on /greet", namespace=ns)

    # the second `up`: a head env var (the cluster's template: NewCluster) and the Serve config's greeting
    rr_stack.set_config(_config(ns, marker="v2", greeting="hi"))
    load = Load(realray, ns, NAME)
    try:
        time.sleep(3)
        changed_at = time.monotonic() - load.started
        up, took = timed_up(rr_stack, "RayService NewCluster upgrade under 10 req/s")
        returned_at = time.monotonic() - load.started
        assert up.returncode == 0, f"{up.describe()}\n{realray.diagnostics(ns)}"
        # the wait covered the switch: when `up` returned, the new cluster was active and Ready, no upgrade running
        obj = _ready(realray, ns, NAME)  # type: ignore[assignment]
        assert obj is not None, realray.get("rayservice", NAME, ns)
        new = obj["status"]["activeServiceStatus"]["rayClusterName"]
        assert new != old
        outputs = rr_stack.outputs()[NAME]
        realray.wait_for(lambda: realray.get("raycluster", old, ns) is None, 180, f"the old cluster {old} removed")
        removed_at = time.monotonic() - load.started
        time.sleep(3)
    finally:
        load.stop()
    total, failed = len(load.results), load.failed
    first_new = next(t for t, status, body in load.results if status == 200 and body.endswith(new))
    last_old = max(t for t, status, body in load.results if status == 200 and body.endswith(old))
    sys.stderr.write(
        f"\n[realray] NewCluster upgrade {old} -> {new}: {len(failed)} failed / {total} requests; traffic switched {first_new - changed_at:.1f}s after the change (last answer from the old cluster at {last_old - changed_at:.1f}s); pulumi up returned after {took:.1f}s; old cluster removed at {removed_at - changed_at:.1f}s; failures: {failed[:5]}\n"
    )
    # the outputs: what this `up` did (a new cluster) and the status it ended on (the new cluster active)
    assert outputs["last_change"]["action"] == "new-cluster", outputs["last_change"]
    assert outputs["last_change"]["result"].startswith("ready: "), outputs["last_change"]
    assert outputs["status"]["activeServiceStatus"]["rayClusterName"] == new, outputs["status"]
    assert not (outputs["status"].get("pendingServiceStatus") or {}).get("rayClusterName"), outputs["status"]
    # `up` returned once the new cluster answered
    assert first_new <= returned_at, (first_new, last_old, returned_at)
    assert {body for _, status, body in load.results if status == 200} <= {f"hello from {old}", f"hi from {new}"}
    assert total >= 100
    assert failed == [], f"{len(failed)} of {total} requests failed during the upgrade: {failed[:5]}"
    realray.wait_for(lambda: not realray.pods(ns, f"ray.io/cluster={old}"), 120, f"the Pods of {old} to end")
