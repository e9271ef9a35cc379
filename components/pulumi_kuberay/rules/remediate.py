"""Safe automatic fixes, keyed by rule id (used by the policy pack's remediation and ``kuberay-lint --fix``-like tools).

Only fixes whose result is certain belong here: turning ``rayStartParams`` numbers and booleans into the strings
KubeRay expects changes nothing about what the user meant. Each fixer returns the new manifest, or ``None``
when it changed nothing. Plain Python, no pulumi.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

from pulumi_kuberay.model._base import render_scalar

JsonDict = dict[str, Any]


def _cluster_specs(doc: JsonDict) -> Iterator[JsonDict]:
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        return
    kind = doc.get("kind")
    if kind == "RayCluster":
        yield spec
    elif kind == "RayJob" and isinstance(spec.get("rayClusterSpec"), dict):
        yield spec["rayClusterSpec"]
    elif kind == "RayService" and isinstance(spec.get("rayClusterConfig"), dict):
        yield spec["rayClusterConfig"]
    elif kind == "RayCronJob":
        job = spec.get("jobTemplate")
        if isinstance(job, dict) and isinstance(job.get("rayClusterSpec"), dict):
            yield job["rayClusterSpec"]


def stringify_ray_start_params(manifest: Any) -> JsonDict | None:
    """``rayStartParams: {num-cpus: 0, block: true}`` -> ``{num-cpus: "0", block: "true"}`` in every group."""
    if not isinstance(manifest, dict):
        return None
    fixed = copy.deepcopy(manifest)
    changed = False
    for spec in _cluster_specs(fixed):
        groups = [spec.get("headGroupSpec")]
        workers = spec.get("workerGroupSpecs")
        groups += workers if isinstance(workers, list) else []
        for group in groups:
            params = group.get("rayStartParams") if isinstance(group, dict) else None
            if not isinstance(params, dict):
                continue
            for key, value in params.items():
                if isinstance(value, (bool, int, float)):
                    params[key] = render_scalar(value)
                    changed = True
    return fixed if changed else None


REMEDIATIONS: dict[str, Callable[[Any], JsonDict | None]] = {
    "schema-wrong-type": stringify_ray_start_params,
}
