"""Policy-pack latency as the engine sees it: start the pack process, call Analyze over gRPC per sample document.

``python -m bench._pack_child ROUNDS`` prints the per-call latencies' median and p99 in milliseconds, and, with
the reference material (``KUBERAY_REFERENCE_DIR``), the time to analyse the four KubeRay CRDs (1 MB of schema
each) as the engine sends them: one Analyze per CRD (with a provider, as the engine sends it) and one
AnalyzeStack with all four. Those were 0.2 s per policy per CRD before the pack decoded once per call.

A resource that is not a Ray object (a Deployment as large as a sample) is answered before any decode: its
latency is measured against a pack of one policy that returns at once, the two packs called in turn. On Linux,
the pack process's own CPU time per call (all its threads) is measured too, in a pass of its own: the latency
without the waits for a core that a shared machine adds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from bench._rules_child import sample_documents
from bench._stats import median, package_tree, percentile

REPO = Path(__file__).resolve().parent.parent


def _crd_timings(stub: analyzer_pb2_grpc.AnalyzerStub) -> dict[str, float]:
    import yaml

    directory = Path(os.environ.get("KUBERAY_REFERENCE_DIR", REPO.parent / "shared")) / "kuberay" / "v1.7.0" / "crds"
    files = sorted(directory.glob("*.yaml"))
    if not files:
        return {}
    kind = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
    provider_props = struct_pb2.Struct()
    provider_props.update({"renderYamlToDirectory": "rendered"})
    provider = analyzer_pb2.AnalyzerProviderResource(
        type="pulumi:providers:kubernetes", properties=provider_props, urn="urn:provider", name="k8s"
    )
    structs = []
    for path in files:
        props = struct_pb2.Struct()
        props.update(yaml.load(path.read_text(), Loader=yaml.CSafeLoader))
        structs.append(props)
    start = time.perf_counter()
    for i, props in enumerate(structs):
        request = analyzer_pb2.AnalyzeRequest(type=kind, properties=props, urn=f"urn:crd{i}", name=f"crd{i}")
        request.provider.CopyFrom(provider)
        stub.Analyze(request)
    analyze = time.perf_counter() - start
    resources = [
        analyzer_pb2.AnalyzerResource(type=kind, properties=props, urn=f"urn:crd{i}", name=f"crd{i}")
        for i, props in enumerate(structs)
    ]
    start = time.perf_counter()
    stub.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=resources))
    return {"crds_analyze_s": analyze, "crds_analyze_stack_s": time.perf_counter() - start}


#: The floor for a non-Ray resource: a pack of one policy that returns at once.
ONE_POLICY_PACK = """from pulumi_policy import PolicyPack, ResourceValidationPolicy


def nothing(args, report):
    return None


PolicyPack(name="one-policy", policies=[ResourceValidationPolicy(name="nothing", description="none", validate=nothing)])
"""


@contextmanager
def _pack(directory: Path) -> Iterator[tuple[analyzer_pb2_grpc.AnalyzerStub, int]]:
    """The pack in ``directory``, started as the engine starts it, reached over gRPC; (stub, process id)."""
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:0", str(directory)],
        cwd=directory,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().strip()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=60)
        yield analyzer_pb2_grpc.AnalyzerStub(channel), proc.pid
        channel.close()
    finally:
        proc.kill()
        proc.wait(timeout=10)


def _cpu_ms(pid: int) -> float | None:
    """CPU time of process ``pid`` so far, all its threads, in ms (Linux's schedstat, in ns; None elsewhere)."""
    total = 0
    for path in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        try:
            total += int(path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
    return total / 1e6 if total else None


def _cpu_timings(
    stub: analyzer_pb2_grpc.AnalyzerStub, pid: int, requests: list[analyzer_pb2.AnalyzeRequest], rounds: int
) -> dict[str, float]:
    """The pack process's own CPU time per Analyze (median, p99): the latency less the waits for a core, which is
    what a loaded machine adds. Its own pass, since reading the counters delays the client."""
    used: list[float] = []
    for r in range(rounds):
        for i, request in enumerate(requests):
            request.urn = f"urn:cpu:{r}:{i}"
            before = _cpu_ms(pid)
            stub.Analyze(request)
            after = _cpu_ms(pid)
            if before is None or after is None:
                return {}
            used.append(after - before)
    return {"cpu_median_ms": median(used), "cpu_p99_ms": percentile(used, 0.99)}


def _non_ray_timings(stub: analyzer_pb2_grpc.AnalyzerStub, doc: dict[str, Any], calls: int) -> dict[str, float]:
    """Median latency of a non-Ray resource: our pack and the one-policy pack, called in turn."""
    props = struct_pb2.Struct()
    props.update({**doc, "apiVersion": "apps/v1", "kind": "Deployment"})
    request = analyzer_pb2.AnalyzeRequest(type="kubernetes:apps/v1:Deployment", properties=props, urn="urn:d", name="d")
    ours: list[float] = []
    floor: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp)
        (one / "PulumiPolicy.yaml").write_text("runtime: python\n")
        (one / "__main__.py").write_text(ONE_POLICY_PACK)
        with _pack(one) as (one_policy, _):
            for warm in (stub, one_policy):
                warm.Analyze(request)
            for _ in range(calls):
                for stub_, out in ((stub, ours), (one_policy, floor)):
                    start = time.perf_counter()
                    stub_.Analyze(request)
                    out.append((time.perf_counter() - start) * 1000)
    return {"non_ray_median_ms": median(ours), "one_policy_non_ray_median_ms": median(floor)}


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    docs = sample_documents()
    with _pack(package_tree() / "policies") as (stub, pid):
        requests = []
        for i, doc in enumerate(docs):
            props = struct_pb2.Struct()
            props.update(doc)
            kind = f"kubernetes:{doc['apiVersion']}:{doc['kind']}"
            requests.append(analyzer_pb2.AnalyzeRequest(type=kind, properties=props, urn=f"urn:{i}", name=f"r{i}"))
        stub.Analyze(requests[0])  # warm-up
        latencies: list[float] = []
        for r in range(rounds):
            for i, request in enumerate(requests):
                # a distinct URN per round: the pack's per-resource cache must not answer from a previous round
                request.urn = f"urn:{r}:{i}"
                start = time.perf_counter()
                stub.Analyze(request)
                latencies.append((time.perf_counter() - start) * 1000)
        cpu = _cpu_timings(stub, pid, requests, min(rounds, 3))
        largest = max(docs, key=lambda d: len(json.dumps(d)))
        non_ray = _non_ray_timings(stub, largest, 20 * rounds)
        crds = _crd_timings(stub)
    print(
        json.dumps(
            {
                "calls": len(latencies),
                "median_ms": median(latencies),
                "p99_ms": percentile(latencies, 0.99),
                "policies": None,
                **cpu,
                **non_ray,
                **crds,
            }
        )
    )


if __name__ == "__main__":
    main()
