"""Shared by the waits' cluster tests: the program, stack config per object, timed ``up``, measurements."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

PROGRAM = Path(__file__).resolve().parent / "waits_program"
IMAGE = "rayproject/ray:2.52.0"
#: Each wait's own time-out in these tests: "well inside" means a small fraction of it.
TIMEOUT = 300

SMALL_CLUSTER: dict[str, Any] = {
    "rayVersion": "2.52.0",
    "image": IMAGE,
    "headGroupSpec": {"cpu": 1, "memory": "2Gi"},
    "workerGroupSpecs": [
        {"groupName": "cpu", "cpu": 1, "memory": "2Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": 2}
    ],
}


def config(objects: dict[str, dict[str, Any]], namespace: str) -> dict[str, Any]:
    """Full stack config (``set_config`` replaces it all but the cluster's kubeconfig and version)."""
    return {"kuberay:environment": "dev", "pulumi-kuberay:namespace": namespace, "waits:objects": objects}


def timed_up(stack: Any, case: str) -> tuple[Any, float]:
    """``pulumi up`` of the stack; records ``case`` and its wall time (printed, and appended as JSON lines to
    ``$PULUMI_KUBERAY_WAITS_OUT`` when set)."""
    started = time.monotonic()
    run = stack.up()
    took = time.monotonic() - started
    line = {"case": case, "seconds": round(took, 1), "returncode": run.returncode}
    print(f"\n[waits] {case}: pulumi up {'ok' if run.returncode == 0 else 'failed'} after {took:.1f}s")
    out = os.environ.get("PULUMI_KUBERAY_WAITS_OUT")
    if out:
        with open(out, "a") as handle:
            handle.write(json.dumps(line) + "\n")
    return run, took


def conditions(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}
