"""What a RayCluster component keeps alive while a program declares resources, against a raw CustomResource.

A Pulumi program keeps every resource's objects until its event loop drains, and Python's cyclic garbage
collector walks them all on every full collection: at a thousand clusters that collector is most of a program's
time (bench/README.md). So the guard is the number of GC-tracked objects per cluster, which is stable where times
are not (pulumi is pinned in constraints.txt; bench/ prints the times). Each side runs in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_PROBE = """
import asyncio, gc, json, sys
side, n = sys.argv[1], int(sys.argv[2])
asyncio.set_event_loop(asyncio.new_event_loop())
import pulumi
from pulumi_kubernetes.apiextensions import CustomResource

class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args):
        return (f"{args.name}-id" if args.custom else None), dict(args.inputs)
    def call(self, args):
        return {}, None

def spec(i):
    secure = {"allowPrivilegeEscalation": False, "runAsNonRoot": True, "capabilities": {"drop": ["ALL"]},
              "seccompProfile": {"type": "RuntimeDefault"}}
    def container(name):
        limits = {"cpu": "2", "memory": "8Gi"}
        return {"name": name, "image": "rayproject/ray:2.52.0", "securityContext": dict(secure),
                "resources": {"limits": limits, "requests": dict(limits)}}
    return {"rayVersion": "2.52.0", "enableInTreeAutoscaling": True, "autoscalerOptions": {"securityContext": secure},
            "headGroupSpec": {"rayStartParams": {"num-cpus": "0"},
                              "template": {"spec": {"containers": [container("ray-head")]}}},
            "workerGroupSpecs": [{"groupName": "cpu", "minReplicas": 0, "maxReplicas": 10 + i % 5,
                                  "template": {"spec": {"containers": [container("ray-worker")]}}}]}

class HandWritten(pulumi.ComponentResource):
    def __init__(self, name, body):
        super().__init__("test:index:HandWritten", name, None, None)
        self.cr = CustomResource(name, api_version="ray.io/v1", kind="RayCluster", metadata={"name": name},
                                 spec=body, opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({"name": name})

def declare(count, prefix):
    if side == "ours":
        from pulumi_kuberay import RayCluster
        return [RayCluster(f"{prefix}{i}", spec(i)).cluster_name for i in range(count)]
    return [HandWritten(f"{prefix}{i}", spec(i)).cr.id for i in range(count)]

pulumi.runtime.set_mocks(Mocks(), project="footprint", stack="footprint", preview=False)
per_cluster = []

@pulumi.runtime.test
def program():
    warm = declare(2, "warm")  # imports, the catalogue's first load, validators built on first use
    gc.collect()
    before = len(gc.get_objects())
    outputs = declare(n, "c")
    gc.collect()
    per_cluster.append((len(gc.get_objects()) - before) / n)
    return pulumi.Output.all(*warm, *outputs)

program()
print(json.dumps({"per_cluster": per_cluster[0]}))
"""

#: Ours minus raw, GC-tracked objects per RayCluster of this probe while the program declares: 301 before
#: resources/_outputs and the unkept spec (issue 25), 141 after. Room for a small feature, not a task per output.
MAX_EXTRA_OBJECTS_PER_CLUSTER = 175


def _objects_per_cluster(side: str) -> float:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, side, "40"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(REPO / "components"), "PATH": "/usr/bin:/bin", "PULUMI_KUBERAY_CRD_CACHE": ""},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return float(json.loads(proc.stdout.strip().splitlines()[-1])["per_cluster"])


def test_a_raycluster_keeps_few_objects_more_than_a_raw_custom_resource() -> None:
    ours, raw = _objects_per_cluster("ours"), _objects_per_cluster("raw")
    assert raw > 100  # the probe measured something (a raw CustomResource alone keeps ~260)
    assert ours - raw <= MAX_EXTRA_OBJECTS_PER_CLUSTER, f"ours {ours:.0f} vs raw {raw:.0f} tracked objects per cluster"
