"""RayCluster upgradeStrategy (``ValidateRayClusterUpgradeOptions``); the name (``ValidateRayClusterMetadata``) is in
``names.py``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.api import API_VERSION
from pulumi_kuberay.kuberay.paths import as_str, cluster_specs, get, is_unknown

from ._cel import Cel
from ._engine import KINDS, Context, Violation, declare
from ._examples import base_cluster, example, spec_of
from ._fixed import REMOVE, patch
from ._manifest_readers import (
    ORIGINATED_FROM_CRD_LABEL,
    reported_as,
)

# --------------------------------------------------------------------------------------------------
# RC-03, RC-04: upgradeStrategy


def _check_upgrade_type(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        value = get(ref.spec, "upgradeStrategy", "type")
        if isinstance(value, str) and not is_unknown(value) and value not in ("Recreate", "None"):
            yield Violation(
                f"upgradeStrategy.type {value!r} is invalid; valid options are Recreate or None{reported_as(ref)}",
                ref.path("upgradeStrategy", "type"),
            )


declare(
    id="cluster-upgrade-strategy-invalid",
    title="RayCluster upgradeStrategy.type is not Recreate or None",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-03",),
    enforced_by=("operator",),
    since="1.6",
    rationale="The operator only knows the Recreate and None upgrade strategies for a RayCluster and rejects others.",
    fix="Set upgradeStrategy.type to 'Recreate' (recreate all Pods on spec changes) or 'None'.",
    check=_check_upgrade_type,
    compliant=example(lambda d: spec_of(d).update(upgradeStrategy={"type": "Recreate"})),
    violating=example(lambda d: spec_of(d).update(upgradeStrategy={"type": "RollingUpdate"})),
    violating_path="spec.upgradeStrategy.type",
    fixed=patch({"spec.upgradeStrategy.type": "Recreate"}),
)


def _check_upgrade_in_child(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        strategy = ref.spec.get("upgradeStrategy")
        if not isinstance(strategy, dict) or strategy.get("type") is None:
            continue
        origin = as_str(ref.labels.get(ORIGINATED_FROM_CRD_LABEL))
        if ref.embedded:
            owner = ref.kind
        elif origin in ("RayJob", "RayService"):
            owner = origin
        else:
            continue
        yield Violation(
            f"upgradeStrategy cannot be set on a RayCluster created by a {owner}: the operator never reconciles that cluster, so the parent waits forever",
            ref.path("upgradeStrategy"),
            fix=f"Remove upgradeStrategy from the {owner}'s cluster spec (a {owner} manages upgrades itself).",
        )


def _rayjob(cluster_spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "RayJob",
        "metadata": {"name": "rayjob-demo"},
        "spec": {
            "entrypoint": "python -c 'import ray; ray.init()'",
            "shutdownAfterJobFinishes": True,
            "rayClusterSpec": cluster_spec,
        },
    }


declare(
    id="cluster-upgrade-strategy-in-child",
    title="upgradeStrategy set on a cluster created by a RayJob/RayService",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-04",),
    enforced_by=("operator",),
    since="1.6",
    rationale="A RayCluster created by a RayJob or RayService must not carry upgradeStrategy: the operator rejects the child cluster and never reconciles it.",
    fix="Remove upgradeStrategy from rayClusterSpec / rayClusterConfig.",
    check=_check_upgrade_in_child,
    compliant=_rayjob(base_cluster()["spec"]),
    violating=_rayjob({**base_cluster()["spec"], "upgradeStrategy": {"type": "Recreate"}}),
    violating_path="spec.rayClusterSpec.upgradeStrategy",
    fixed=patch({"spec.rayClusterSpec.upgradeStrategy": REMOVE}),
    cel=Cel("!has(c.upgradeStrategy) || !has(c.upgradeStrategy.type) || (object.kind == 'RayCluster' && !(has(object.metadata.labels) && 'ray.io/originated-from-crd' in object.metadata.labels && object.metadata.labels['ray.io/originated-from-crd'] in ['RayJob', 'RayService']))", over="cluster", path="upgradeStrategy"),
)
