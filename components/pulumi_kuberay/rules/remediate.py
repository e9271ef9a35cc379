"""Safe automatic fixes, keyed by rule id (used by the policy pack's remediation and ``kuberay-lint --fix``-like tools).

Only fixes whose result is certain belong here: turning ``rayStartParams`` numbers and booleans into the strings
KubeRay expects changes nothing about what the user meant. Each fixer returns the new manifest, or ``None``
when it changed nothing. Plain Python, no pulumi.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pulumi_kuberay.model._base import render_scalar
from pulumi_kuberay.rules._paths import cluster_specs

JsonDict = dict[str, Any]


def stringify_ray_start_params(manifest: Any) -> JsonDict | None:
    """``rayStartParams: {num-cpus: 0, block: true}`` -> ``{num-cpus: "0", block: "true"}`` in every group."""
    if not isinstance(manifest, dict):
        return None
    fixed = copy.deepcopy(manifest)
    changed = False
    for ref in cluster_specs(fixed):
        spec = ref.spec
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
