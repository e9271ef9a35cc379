"""Admission-webhook rules (KubeRay ``pkg/webhooks/v1``; active only with operator env ENABLE_WEBHOOKS=true).

The webhooks repeat ``ValidateRayClusterMetadata`` (WH-01, ``names.py``), ``ValidateRayJobMetadata``
(WH-03, ``names.py``) and ``ValidateRayServiceMetadata`` (WH-04, ``names.py``); only WH-02 (unique
worker group names, ``RayClusterWebhook.validateWorkerGroups``) is checked nowhere else, so it lives here.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.api import API_VERSION
from pulumi_kuberay.kuberay.paths import as_str, cluster_specs, worker_groups

from ._cel import Cel
from ._engine import KINDS, Context, Violation, declare
from ._examples import example_cluster_spec
from ._fixed import patch

_ONLY_WEBHOOK = "high: only the webhook, off here, refuses it"

def _check_unique_group_names(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(manifest):
        first_seen: dict[str, int] = {}
        for group in worker_groups(ref):
            name = as_str(group.spec.get("groupName"))
            if name is None or group.index is None:
                continue
            if name in first_seen:
                where = f"workerGroupSpecs[{first_seen[name]}] and workerGroupSpecs[{group.index}]"
                if ctx.webhooks:
                    yield Violation(
                        f"worker group name {name!r} is used by {where}; the RayCluster webhook rejects the object",
                        f"{group.path}.groupName",
                    )
                else:
                    # Only the (default-off) webhook refuses it; the operator accepts the object.
                    yield Violation(
                        f"worker group name {name!r} is used by {where}; the operator accepts this (only its webhook, off here, refuses it) but Pods of both groups share the ray.io/group label and are scaled as one group",
                        f"{group.path}.groupName",
                        severity="high",
                        severity_why=_ONLY_WEBHOOK,
                    )
            else:
                first_seen[name] = group.index


def _cluster_with_groups(*names: str) -> dict[str, Any]:
    spec = example_cluster_spec()
    template = spec["workerGroupSpecs"][0]
    spec["workerGroupSpecs"] = []
    for name in names:
        group = copy.deepcopy(template)
        group["groupName"] = name
        spec["workerGroupSpecs"].append(group)
    return {"apiVersion": API_VERSION, "kind": "RayCluster", "metadata": {"name": "raycluster"}, "spec": spec}


declare(
    id="worker-group-names-unique",
    title="Worker group names are unique",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("WH-02",),
    enforced_by=("RayCluster webhook",),
    rationale="The RayCluster webhook rejects duplicate workerGroupSpecs[].groupName (the only place this is checked; critical when the target says the webhooks run, ``webhooks=True`` / ``kuberay-lint --webhooks``). Without the webhook the operator accepts the object but keys Pods by group name, so two groups with one name are reconciled as one (high). Embedded specs matter too: the child RayCluster is validated when the operator creates it.",
    fix="Give every worker group a distinct groupName.",
    check=_check_unique_group_names,
    compliant=_cluster_with_groups("cpu", "gpu"),
    violating=_cluster_with_groups("cpu", "cpu"),
    violating_path="spec.workerGroupSpecs[1].groupName",
    context={"webhooks": True},
    fixed=patch({"spec.workerGroupSpecs[1].groupName": "gpu"}),
    cel=Cel('!has(g.groupName) || variables.workers.filter(h, has(h.groupName) && h.groupName == g.groupName).size() == 1', over="worker", path="groupName", message="worker group name used by more than one worker group"),
    also=(_ONLY_WEBHOOK,),
)
