"""One program-cost measurement in its own process: declare N RayClusters under Pulumi mocks and wait for them.

``python -m bench._program_child ours|raw N`` prints ``{"seconds": ..., "peak_rss_mib": ...}``.
``ours`` goes through ``pulumi_kuberay.RayCluster`` (typed model, rule catalogue, waitFor, outputs); ``raw`` is
the hand-written alternative: a ComponentResource wrapping a plain CustomResource with the same manifest.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

import pulumi

from bench._stats import peak_rss_mib


class _Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        return (f"{args.name}-id" if args.custom else None), dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return {}, None


SECURE: dict[str, Any] = {
    "allowPrivilegeEscalation": False,
    "runAsNonRoot": True,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}


def cluster_spec(i: int) -> dict[str, Any]:
    def container(name: str, cpu: str, memory: str) -> dict[str, Any]:
        limits = {"cpu": cpu, "memory": memory}
        return {
            "name": name,
            "image": "rayproject/ray:2.52.0",
            "resources": {"limits": limits, "requests": dict(limits)},
            "securityContext": dict(SECURE),
        }

    # A production-shaped, compliant cluster: both sides pay for the same manifest, ours adds no warnings.
    return {
        "rayVersion": "2.52.0",
        "enableInTreeAutoscaling": True,
        "autoscalerOptions": {"securityContext": dict(SECURE)},
        "headGroupSpec": {
            "rayStartParams": {"num-cpus": "0"},
            "template": {"spec": {"containers": [container("ray-head", "2", "8Gi")]}},
        },
        "workerGroupSpecs": [
            {
                "groupName": "cpu",
                "minReplicas": 0,
                "maxReplicas": 10 + i % 5,
                "template": {"spec": {"containers": [container("ray-worker", "4", "16Gi")]}},
            },
            {
                "groupName": "big",
                "minReplicas": 0,
                "maxReplicas": 4,
                "template": {"spec": {"containers": [container("ray-worker", "16", "64Gi")]}},
            },
        ],
    }


def declare(side: str, n: int, prefix: str = "c") -> list[pulumi.Output[Any]]:
    outputs: list[pulumi.Output[Any]] = []
    if side == "ours":
        import pulumi_kuberay as kr

        for i in range(n):
            outputs.append(kr.RayCluster(f"{prefix}{i}", cluster_spec(i)).cluster_name)
        return outputs
    from pulumi_kubernetes.apiextensions import CustomResource

    class HandWritten(pulumi.ComponentResource):
        def __init__(self, name: str, spec: dict[str, Any]) -> None:
            super().__init__("bench:index:HandWritten", name, None, None)
            self.cr = CustomResource(
                name,
                api_version="ray.io/v1",
                kind="RayCluster",
                metadata={"name": name},
                spec=spec,
                opts=pulumi.ResourceOptions(parent=self),
            )
            self.register_outputs({"name": name})

    for i in range(n):
        outputs.append(HandWritten(f"{prefix}{i}", cluster_spec(i)).cr.id)
    return outputs


def main() -> None:
    side, n = sys.argv[1], int(sys.argv[2])
    asyncio.set_event_loop(asyncio.new_event_loop())
    pulumi.runtime.set_mocks(_Mocks(), project="bench", stack="bench", preview=False)

    @pulumi.runtime.test  # type: ignore[untyped-decorator]  # pulumi.runtime.test is not annotated
    def program() -> pulumi.Output[Any]:
        return pulumi.Output.all(*declare(side, n))

    start = time.perf_counter()
    program()
    elapsed = time.perf_counter() - start
    print(json.dumps({"seconds": elapsed, "peak_rss_mib": peak_rss_mib(), "n": n, "side": side}))


if __name__ == "__main__":
    main()
