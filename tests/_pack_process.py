"""The policy pack as the engine runs it: its own process (``python -m pulumi.policy``), reached over gRPC."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import grpc
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

REPO = Path(__file__).resolve().parent.parent


@contextmanager
def pack_process(extra_env: Mapping[str, str] | None = None) -> Iterator[analyzer_pb2_grpc.AnalyzerStub]:
    """Start the pack of ``policies/``, yield a stub connected to it, stop it afterwards."""
    env = {**os.environ, **(extra_env or {})}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "components"), os.environ.get("PYTHONPATH", "")])
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:0", str(REPO / "policies")],
        cwd=REPO / "policies",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.isdigit(), f"pack did not print its port: {line!r} / {proc.stderr.read() if proc.stderr else ''}"
        channel = grpc.insecure_channel(f"127.0.0.1:{line}")
        grpc.channel_ready_future(channel).result(timeout=60)
        try:
            yield analyzer_pb2_grpc.AnalyzerStub(channel)
        finally:
            channel.close()
    finally:
        proc.kill()
        proc.wait(timeout=10)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def configure(stub: analyzer_pb2_grpc.AnalyzerStub, policy_config: Path) -> None:
    """Send the enforcement levels of a ``stacks/policy.<env>.json`` file, as ``--policy-pack-config`` does."""
    request = analyzer_pb2.ConfigureAnalyzerRequest()
    for name, level in json.loads(policy_config.read_text()).items():
        enum = analyzer_pb2.EnforcementLevel.Value(level.upper())
        request.policyConfig[name].CopyFrom(analyzer_pb2.PolicyConfig(enforcementLevel=enum))
    stub.Configure(request)
