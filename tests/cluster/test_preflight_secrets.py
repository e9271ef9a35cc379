"""The preflight against a node that runs the Pods: a missing Secret or key is ``CreateContainerConfigError``.

The other half of ``test_preflight_scheduler.py``: there kwok runs no container, so a Pod whose Secret is missing is
bound and reported Running and its ``secret`` cases are compared on placement only. Here every case of the same
generator (seed and count) whose Pods read a Secret (``env.valueFrom.secretKeyRef``: ``creds``/``token``, which
exists, ``creds``/``nokey`` or ``nosuch``/``token``) runs on pod-runner's node (``scripts/local-cluster up
--run-pods``, tools/pod_runner: the container's env is resolved against the API as the kubelet resolves it, then its
command runs with the image's Ray). Placement is the kwok module's business: each case runs as a variant with its
groups, replicas, images and env as generated, and only what the one node cannot honour or the kwok module judges
left out (pool selectors and affinity, tolerations, the groups' requests: 100m CPU and 256Mi each instead,
ServiceAccount, PriorityClass, volumes, quotas, autoscaling): every Pod fits that node.

The preflight reads this cluster (:class:`~pulumi_kuberay.preflight.SnapshotReader`) and judges each variant; per
group that has Pods, its ``preflight-reference-missing`` finding for a Secret (or key) under the group's path must
hold exactly when the group's Pods wait with ``CreateContainerConfigError`` (the worker Pods' ``wait-gcs-ready``
init container carries the Ray container's env, so theirs is reported there) with the kubelet's message
(``secret "nosuch" not found``, ``couldn't find key nokey in Secret <ns>/creds``); without such a finding the
container must start (``running``: the env was resolved). The cases with no missing reference are the control:
they read the existing Secret and key. A case's RayCluster is deleted once its Pods have settled, so no Ray waits
to come up; each batch's namespace is gone (its Pods' processes ended) before the next.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi_kuberay import preflight, rules
from realray.conftest import RAY_VERSIONS, _ensure_venvs, _missing_venvs, _required, setup_venvs_command

from .conftest import LocalCluster, start_local_cluster, stop_local_cluster
from .test_preflight_scheduler import CASES, RUN, SEED, Case, generate, verdict_of

#: The Secret every batch's namespace holds (as in test_preflight_scheduler): the generator's ``creds``/``token``.
SECRET, KEY = "creds", "token"
BATCH = 12
CONFIG_ERROR = "CreateContainerConfigError"
#: A container state that is no outcome yet (pod-runner's, as the kubelet's, before the container is created).
NOT_YET = ("ContainerCreating", "PodInitializing")


def _can_run_pods() -> bool:
    """pod-runner's needs: root (network namespaces, mounts), ip (iproute2), unshare and nsenter."""
    return os.geteuid() == 0 and all(shutil.which(t) for t in ("ip", "unshare", "nsenter"))


def _skip_reason() -> str | None:
    """As the realray tier's: under PULUMI_KUBERAY_REQUIRE_CLUSTER=1 nothing is skipped (the fixture builds the
    Ray venvs, or fails)."""
    if _required():
        return None
    if not _can_run_pods():
        return "preflight vs pod-runner skipped: needs root, ip (iproute2), unshare and nsenter"
    missing = _missing_venvs()
    if missing:
        return f"preflight vs pod-runner skipped: no Ray venvs for {', '.join(missing)} ({setup_venvs_command(missing)})"
    return None


_REASON = _skip_reason()
pytestmark = [pytest.mark.skip(reason=_REASON)] if _REASON else []
if _REASON:
    sys.stderr.write(f"\n[cluster tier] SKIPPED: {_REASON}\n")


@dataclass
class RunPods:
    cluster: LocalCluster
    #: when the module began (the control plane's start included)
    started: float


@pytest.fixture(scope="module")
def run_pods(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunPods]:
    started = time.monotonic()
    if not _can_run_pods():
        pytest.fail("PULUMI_KUBERAY_REQUIRE_CLUSTER=1 but pod-runner needs root, ip, unshare and nsenter", pytrace=False)
    _ensure_venvs()
    reuse = os.environ.get("PULUMI_KUBERAY_REALRAY_REUSE")
    state_dir = Path(reuse) if reuse else tmp_path_factory.mktemp("preflight-run-pods") / "state"
    cluster = start_local_cluster(state_dir, "--run-pods", reuse=bool(reuse), own_ports=True)
    try:
        yield RunPods(cluster, started)
    finally:
        if not reuse:
            stop_local_cluster(cluster)


# --------------------------------------------------------------------------------------------------
# The cases


def _containers(manifest: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(group label value, group, its Ray container) for the head and each worker group."""
    spec = manifest["spec"]
    groups = [("headgroup", spec["headGroupSpec"])] + [(g["groupName"], g) for g in spec["workerGroupSpecs"]]
    return [(name, group, group["template"]["spec"]["containers"][0]) for name, group in groups]


def runnable(case: Case) -> dict[str, Any] | None:
    """The case as pod-runner's one node runs it (None: no Pod of it reads a Secret)."""
    if not any(c.get("env") for _, _, c in _containers(case.manifest)):
        return None

    def template(container: dict[str, Any]) -> dict[str, Any]:
        slim = {"name": container["name"], "image": container["image"],
                "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}}}
        if container.get("env"):
            slim["env"] = container["env"]
        return {"spec": {"containers": [slim]}}

    spec = case.manifest["spec"]
    head = {"rayStartParams": {}, "template": template(spec["headGroupSpec"]["template"]["spec"]["containers"][0])}
    workers = [
        {**{k: g[k] for k in ("groupName", "replicas", "minReplicas", "maxReplicas")}, "rayStartParams": {},
         "template": template(g["template"]["spec"]["containers"][0])}
        for g in spec["workerGroupSpecs"]
    ]
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": f"s{case.index:03d}"},
        "spec": {"rayVersion": spec["rayVersion"], "headGroupSpec": head, "workerGroupSpecs": workers},
    }


def kubelet_message(container: dict[str, Any], namespace: str) -> str | None:
    """What the kubelet's makeEnvironmentVariables says of the container's env in a namespace that holds only
    ``creds`` with ``token`` (None: it resolves): the first reference that fails, in the env's order."""
    for item in container.get("env") or []:
        ref = item["valueFrom"]["secretKeyRef"]
        if ref["name"] != SECRET:
            return f'secret "{ref["name"]}" not found'
        if ref["key"] != KEY:
            return f"couldn't find key {ref['key']} in Secret {namespace}/{SECRET}"
    return None


@dataclass
class SecretCase:
    index: int
    manifest: dict[str, Any]
    namespace: str = ""
    verdict: str = ""
    why: list[str] = field(default_factory=list)
    #: group label value -> (its path, Pods the operator makes, the kubelet's message or None: it starts)
    groups: dict[str, tuple[str, int, str | None]] = field(default_factory=dict)
    #: group label value -> what the preflight says of it: "CreateContainerConfigError" or "started"
    expected: dict[str, str] = field(default_factory=dict)
    #: Pod name -> (group, outcome, message)
    pods: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    settled: bool = False

    @property
    def outcome(self) -> str:
        outcomes = {o for _, o, _ in self.pods.values()}
        return "secret" if CONFIG_ERROR in outcomes else "placed" if outcomes == {"started"} else "/".join(sorted(outcomes))

    def disagreements(self) -> list[str]:
        out = []
        for pod, (group, outcome, message) in sorted(self.pods.items()):
            want = self.expected[group]
            kubelet = self.groups[group][2]
            if outcome != want:
                out.append(f"{pod}: preflight {want} {self.why}, Pod {outcome} {message!r}")
            elif outcome == CONFIG_ERROR and message != kubelet:
                out.append(f"{pod}: {CONFIG_ERROR} {message!r}, the kubelet says {kubelet!r}")
        return out


def pod_outcome(pod: dict[str, Any]) -> tuple[str, str] | None:
    """(outcome, message) of one Pod: its first container, init first, that waits for another reason than not
    being created yet (``CreateContainerConfigError``, ``ErrImagePull``, ...), else ``started`` when one runs or
    ran; None: nothing yet."""
    status = pod.get("status") or {}
    statuses = [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]
    for s in statuses:
        waiting = (s.get("state") or {}).get("waiting") or {}
        if waiting.get("reason") and waiting["reason"] not in NOT_YET:
            return str(waiting["reason"]), str(waiting.get("message", ""))
    if any({"running", "terminated"} & set(s.get("state") or {}) for s in statuses):
        return "started", ""
    return None


# --------------------------------------------------------------------------------------------------
# The run


def _namespace_objects(namespace: str) -> list[dict[str, Any]]:
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": SECRET, "namespace": namespace},
         "stringData": {KEY: "not-a-secret"}},
    ]


def _run_batch(cluster: LocalCluster, batch_no: int, batch: list[SecretCase]) -> None:
    namespace = f"pfs{RUN}-b{batch_no:02d}"
    cluster.kubectl("apply", "-f", "-", input=yaml.safe_dump_all(_namespace_objects(namespace)))
    cluster.wait_for(
        lambda: cluster.kubectl("-n", namespace, "get", "serviceaccount", "default", check=False).returncode == 0,
        60,
        f"the default ServiceAccount in {namespace}",
    )
    reader = preflight.reader_for(str(cluster.kubeconfig), cached=False, deadline=30)
    assert isinstance(reader, preflight.SnapshotReader), reader
    snapshot = reader.snapshot(None)
    assert isinstance(snapshot, preflight.ClusterSnapshot), snapshot
    for case in batch:
        case.namespace = namespace
        case.manifest["metadata"]["namespace"] = namespace
        findings = rules.check_preflight(case.manifest, snapshot, created_here=frozenset())
        shapes = {s.path: s.count for s in preflight.pod_shapes(case.manifest)}
        idle = tuple(path for path, count in shapes.items() if count == 0)
        case.verdict, case.why = verdict_of(findings, idle)
        for i, (group, _, container) in enumerate(_containers(case.manifest)):
            path = "spec.headGroupSpec" if i == 0 else f"spec.workerGroupSpecs[{i - 1}]"
            case.groups[group] = (path, shapes[path], kubelet_message(container, namespace))
            missing = [f for f in findings if f.rule_id == "preflight-reference-missing"
                       and f.message.startswith("Secret") and f.path.startswith(path + ".")]
            case.expected[group] = CONFIG_ERROR if missing else "started"
    cluster.kubectl("apply", "-f", "-", input=yaml.safe_dump_all([c.manifest for c in batch]))

    def settled() -> bool:
        pods = cluster.get_json("pods", "-n", namespace, "-l", "ray.io/cluster")["items"]
        by_case: dict[str, list[dict[str, Any]]] = {}
        for pod in pods:
            by_case.setdefault(pod["metadata"]["labels"]["ray.io/cluster"], []).append(pod)
        for case in batch:
            if case.settled:
                continue
            mine = by_case.get(case.manifest["metadata"]["name"], [])
            outcomes = {p["metadata"]["name"]: (p["metadata"]["labels"]["ray.io/group"], pod_outcome(p)) for p in mine}
            if len(mine) < sum(n for _, n, _ in case.groups.values()) or any(o is None for _, o in outcomes.values()):
                continue
            case.pods = {name: (group, *o) for name, (group, o) in outcomes.items() if o is not None}
            case.settled = True
            # settled: nothing more to see, and a head that started would go on bringing Ray up
            cluster.kubectl("delete", "raycluster", case.manifest["metadata"]["name"], "-n", namespace,
                            "--wait=false")
        return all(c.settled for c in batch)

    cluster.wait_for(settled, 240, f"batch {batch_no}'s containers to start or fail", interval=1)
    cluster.kubectl("delete", "namespace", namespace, "--wait=false")
    cluster.wait_for(lambda: not cluster.get_json("pods", "-n", namespace)["items"], 180,
                     f"batch {batch_no}'s Pods to be gone", interval=2)


def test_runnable_keeps_the_groups_and_their_secret_references() -> None:
    cases = generate(CASES, SEED)
    kept = [(c, runnable(c)) for c in cases]
    reading = [(c, m) for c, m in kept if m is not None]
    assert len(reading) == 67  # of 320: every case with a secretKeyRef in a group
    for case, manifest in reading:
        assert [(g, c["image"], c.get("env")) for g, _, c in _containers(manifest)] == [
            (g, c["image"], c.get("env")) for g, _, c in _containers(case.manifest)]
        assert [(s.path, s.count) for s in preflight.pod_shapes(manifest)] == [
            (s.path, s.count) for s in preflight.pod_shapes(case.manifest)]
        # images pod-runner runs: the realray tier's Ray venvs
        assert {c["image"] for _, _, c in _containers(manifest)} <= {f"rayproject/ray:{v}" for v in RAY_VERSIONS}


def test_preflight_agrees_with_the_kubelet_on_secrets(run_pods: RunPods, capsys: pytest.CaptureFixture[str]) -> None:
    cluster = run_pods.cluster
    cases = [SecretCase(c.index, m) for c in generate(CASES, SEED) if (m := runnable(c)) is not None]
    started = time.monotonic()
    batches = [cases[i : i + BATCH] for i in range(0, len(cases), BATCH)]
    for number, batch in enumerate(batches):
        _run_batch(cluster, number, batch)
    elapsed = time.monotonic() - started
    disagreements = [f"case {c.index} ({c.namespace}) {line}" for c in cases for line in c.disagreements()]
    unexpected = [f"case {c.index}: {c.verdict} {c.why}" for c in cases if c.verdict not in ("secret", "placed")]
    verdicts = Counter(c.verdict for c in cases)
    outcomes = Counter(c.outcome for c in cases)
    pods = Counter(o for c in cases for _, o, _ in c.pods.values())
    with capsys.disabled():
        print(f"\n[preflight vs pod-runner] {len(cases)} cases (of {CASES}: those whose Pods read a Secret) in "
              f"{len(batches)} batches, {elapsed:.0f}s; the module {time.monotonic() - run_pods.started:.0f}s with "
              f"the control plane's start")
        print(f"  preflight verdicts: {dict(sorted(verdicts.items()))}")
        print(f"  what the Pods did:  {dict(sorted(outcomes.items()))} (Pods: {dict(sorted(pods.items()))})")
        print(f"  agreements: {sum(not c.disagreements() for c in cases)} cases, disagreements: "
              f"{len(disagreements)} (per Pod: the container's state and the kubelet's message)")
        for line in (unexpected + disagreements)[:20]:
            print("  " + line)
    assert unexpected == []
    assert verdicts["secret"] >= 20 and verdicts["placed"] >= 10, verdicts
    assert disagreements == []
