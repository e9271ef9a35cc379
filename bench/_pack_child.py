"""Policy-pack latency as the engine sees it: start the pack process, call Analyze over gRPC per sample document.

``python -m bench._pack_child ROUNDS`` prints the per-call latencies' median and p99 in milliseconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import grpc
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from bench._rules_child import sample_documents
from bench._stats import median, percentile

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    docs = sample_documents()
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:0", str(REPO / "policies")],
        cwd=REPO / "policies",
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().strip()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=60)
        stub = analyzer_pb2_grpc.AnalyzerStub(channel)
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
        channel.close()
    finally:
        proc.kill()
        proc.wait(timeout=10)
    print(
        json.dumps(
            {
                "calls": len(latencies),
                "median_ms": median(latencies),
                "p99_ms": percentile(latencies, 0.99),
                "policies": None,
            }
        )
    )


if __name__ == "__main__":
    main()
