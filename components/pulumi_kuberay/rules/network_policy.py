"""The operator-managed NetworkPolicy (``RayClusterNetworkPolicy`` gate, v1.7)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.paths import (
    ClusterSpecRef,
    as_dict,
    as_list,
    as_str,
    cluster_specs,
    is_unknown,
    join,
    worker_groups,
)

from ._engine import KINDS, Context, Violation, declare
from ._examples import example, spec_of, worker_of
from ._fixed import REMOVE, patch
from ._manifest_readers import is_dns1123_label, reported_as

# RC-68..RC-75: network policy (v1.7, gate RayClusterNetworkPolicy)

_NETPOL_CONTEXT = {"feature_gates": {"RayClusterNetworkPolicy": True}}


def _netpol_on(ref: ClusterSpecRef, ctx: Context) -> dict[str, Any] | None:
    policy = ref.spec.get("networkPolicy")
    return policy if isinstance(policy, dict) else None


def _check_netpol_rules(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        policy = _netpol_on(ref, ctx)
        if policy is None:
            continue
        mode = policy.get("mode", "DenyAll")  # CRD default
        if mode == "DenyAllEgress":
            forbidden, reason = "ingressRules", "ingress is not restricted by mode DenyAllEgress"
        elif mode == "DenyAllIngress":
            forbidden, reason = "egressRules", "egress is not restricted by mode DenyAllIngress"
        else:
            continue
        targets: list[tuple[str, Any]] = [
            (ref.path("networkPolicy", "head"), policy.get("head")),
            (ref.path("networkPolicy", "worker"), policy.get("worker")),
        ]
        targets += [
            (ref.path("networkPolicy", "workerGroups", i), item)
            for i, item in enumerate(as_list(policy.get("workerGroups")))
        ]
        for path, target in targets:
            if isinstance(target, dict) and isinstance(target.get(forbidden), list) and target[forbidden]:
                yield Violation(
                    f"{path.split('.')[-1]} {forbidden} are not allowed: {reason}{reported_as(ref)}",
                    join(path, forbidden),
                    fix=f"Remove {forbidden}, or use mode DenyAll to restrict both directions.",
                )


def _netpol(d: dict[str, Any], **extra: Any) -> dict[str, Any]:
    spec_of(d)["networkPolicy"] = {"mode": "DenyAllIngress", **extra}
    return d


declare(
    id="network-policy-rules-mode-mismatch",
    title="NetworkPolicy rules for a direction the mode does not restrict",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-68", "RC-69", "RC-70", "RC-71", "RC-73", "RC-74"),
    enforced_by=("operator",),
    since="1.7",
    gate="RayClusterNetworkPolicy",
    rationale="Ingress rules only make sense when the mode denies ingress (DenyAll/DenyAllIngress), egress rules when it denies egress (DenyAll/DenyAllEgress); the operator rejects the others.",
    fix="Remove the rules or change networkPolicy.mode.",
    check=_check_netpol_rules,
    compliant=example(lambda d: _netpol(d, head={"ingressRules": [{"from": [{"podSelector": {}}]}]})),
    violating=example(lambda d: _netpol(d, head={"egressRules": [{"to": [{"podSelector": {}}]}]})),
    violating_path="spec.networkPolicy.head.egressRules",
    context=_NETPOL_CONTEXT,
    fixed=patch(
        {
            "spec.networkPolicy.head.egressRules": REMOVE,
            "spec.networkPolicy.head.ingressRules": [{"from": [{"podSelector": {}}]}],
        }
    ),
)


def _check_netpol_group_names(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if _netpol_on(ref, ctx) is None:
            continue
        for group in worker_groups(ref):
            name = as_str(group.spec.get("groupName"))
            if name is not None and not is_dns1123_label(name):
                yield Violation(
                    f"worker group name {name!r} must be a DNS-1123 label when networkPolicy is set{reported_as(ref)}",
                    join(group.path, "groupName"),
                    fix="Rename the group: lower-case letters, digits and '-', at most 63 characters.",
                )


declare(
    id="network-policy-group-name-invalid",
    title="Worker group name not a DNS-1123 label with networkPolicy",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-72",),
    enforced_by=("operator",),
    since="1.7",
    gate="RayClusterNetworkPolicy",
    rationale="NetworkPolicy objects are named after worker groups, so with networkPolicy every groupName must be a DNS-1123 label.",
    fix="Use lower-case DNS-1123 group names.",
    check=_check_netpol_group_names,
    compliant=example(lambda d: _netpol(d)),
    violating=example(lambda d: (_netpol(d), worker_of(d).update(groupName="GPU_Workers"))),
    violating_path="spec.workerGroupSpecs[0].groupName",
    context=_NETPOL_CONTEXT,
    fixed=patch({"spec.workerGroupSpecs[0].groupName": "workergroup"}),
)


def _check_netpol_unknown_group(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        policy = _netpol_on(ref, ctx)
        if policy is None:
            continue
        names = [g.spec.get("groupName") for g in worker_groups(ref)]
        if any(is_unknown(n) for n in names) or (
            "workerGroupSpecs" in ref.spec and not isinstance(ref.spec["workerGroupSpecs"], list)
        ):
            continue
        for i, item in enumerate(as_list(policy.get("workerGroups"))):
            name = as_str(as_dict(item).get("groupName"))
            if name is not None and name not in names:
                yield Violation(
                    f"networkPolicy.workerGroups[{i}].groupName {name!r} does not match any worker group{reported_as(ref)}",
                    ref.path("networkPolicy", "workerGroups", i, "groupName"),
                    fix=f"Use one of the worker group names: {', '.join(map(str, names)) or '(none)'}.",
                )


declare(
    id="network-policy-unknown-group",
    title="networkPolicy.workerGroups names a group that does not exist",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-75",),
    enforced_by=("operator",),
    since="1.7",
    gate="RayClusterNetworkPolicy",
    rationale="Per-group network rules must refer to an existing worker group; the operator rejects unknown names.",
    fix="Fix the groupName to match a workerGroupSpecs[].groupName.",
    check=_check_netpol_unknown_group,
    compliant=example(lambda d: _netpol(d, workerGroups=[{"groupName": "workergroup"}])),
    violating=example(lambda d: _netpol(d, workerGroups=[{"groupName": "gpu-group"}])),
    violating_path="spec.networkPolicy.workerGroups[0].groupName",
    context=_NETPOL_CONTEXT,
    fixed=patch({"spec.networkPolicy.workerGroups[0].groupName": "workergroup"}),
)


# --------------------------------------------------------------------------------------------------
