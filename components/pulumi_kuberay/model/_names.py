"""Name rules of the KubeRay custom resources (pure predicates shared by components and rule catalogue).

KubeRay v1.7.0 validates ``metadata.name`` at runtime (``ValidateRayClusterMetadata`` and friends;
rules RC-01/02, RJ-01/02, RS-01/02, RCJ-01): a length limit per kind (the operator derives Service/Pod/Job
names from it) and, for RayCluster/RayJob/RayService, a DNS-1035 label. The API server itself accepts
longer names, so these are operator rules: ``load_manifest`` does not raise on them; the components' args
validation and the rule catalogue do.
"""

from __future__ import annotations

import re

from pulumi_kuberay.kuberay.kubernetes import DNS_LABEL_MAX_LENGTH
from pulumi_kuberay.kuberay.kubernetes import GENERATE_NAME_SUFFIX_LENGTH as GENERATE_NAME_SUFFIX
from pulumi_kuberay.kuberay.names import NAME_LIMITS as NAME_LIMITS

DNS1035_KINDS: frozenset[str] = frozenset({"RayCluster", "RayJob", "RayService"})
"""Kinds whose name must be a DNS-1035 label (RayCronJob only has the length limit)."""

_DNS1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")


def is_dns1035_label(name: str) -> bool:
    """True for a DNS-1035 label: lower-case alphanumerics and ``-``, starts with a letter, ends alphanumeric,
    at most 63 characters (e.g. ``"raycluster-gpu"``)."""
    return len(name) <= DNS_LABEL_MAX_LENGTH and _DNS1035.fullmatch(name) is not None


def name_problems(kind: str, name: str, *, generated: bool = False) -> list[str]:
    """Why the operator would reject ``name`` for ``kind`` (empty list: fine).

    ``generated=True`` treats ``name`` as a ``generateName`` prefix: the final name is 5 characters longer and
    the prefix may end with ``-``.
    """
    problems: list[str] = []
    limit = NAME_LIMITS.get(kind)
    length = len(name) + (GENERATE_NAME_SUFFIX if generated else 0)
    if limit is not None and length > limit:
        what = f"{name!r}"
        if generated:
            what = f"generateName {name!r} (+{GENERATE_NAME_SUFFIX} random characters)"
        problems.append(f"{kind} name {what} is {length} characters long; KubeRay allows at most {limit}")
    if kind in DNS1035_KINDS:
        candidate = name + "x" * GENERATE_NAME_SUFFIX if generated else name
        if not _DNS1035.fullmatch(candidate):
            problems.append(
                f"{kind} name {name!r} is not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter and ending with a letter or digit)"
            )
    return problems


def lower_camel(name: str) -> str:
    """``gpu_budget`` -> ``gpuBudget``, each later word capitalised (its other letters lower-cased): the
    organisation options' keys in the stack config and the policy config."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def lower_camel_keep_case(name: str) -> str:
    """``head_service_name`` -> ``headServiceName``, only each later word's first letter upper-cased (the
    others kept as written): the component package schema's input and output names."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


__all__ = [
    "DNS1035_KINDS",
    "GENERATE_NAME_SUFFIX",
    "NAME_LIMITS",
    "is_dns1035_label",
    "lower_camel",
    "lower_camel_keep_case",
    "name_problems",
]
