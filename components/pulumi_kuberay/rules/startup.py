"""What a Ray container needs to start at all: a failure the API server, the operator and Pod validation all accept,
and the container then shows at once (it never runs ``ray start`` to the end).

Found in the client corpus (tests/corpus/clients/): ``kubectl ray create cluster --head-memory 4`` takes the
number as a quantity, and a Kubernetes quantity without a unit is bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.paths import as_dict, cluster_specs, group_template, groups, is_unknown, join, ray_container

from ._engine import KINDS, Context, Violation, declare
from ._examples import example, worker_of
from ._fixed import patch
from ._ray_resources import RAY_MIN_MEMORY, group_label, quantity

#: kubectl ray create cluster --worker-cpu 1 --worker-memory 8 (meant as GiB)
_EIGHT_BYTES = {"limits": {"cpu": "1", "memory": "8"}, "requests": {"cpu": "1", "memory": "8"}}


def _unit_hint(limit: str) -> str:
    """What a number without a unit most likely meant: ``4`` -> ``4Gi``, ``2048`` -> ``2048Mi``."""
    number = limit.strip()
    if not number.isdigit():
        return "a quantity with a unit, such as 4Gi"
    return f"{number}Gi" if int(number) <= 1024 else f"{number}Mi"


def _memory_unusable(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    """The Ray container's memory limit (``generateRayStartCommand`` passes it to ``ray start --memory``, and the
    kernel holds the container to it) below the least Ray can start in (``RAY_MIN_MEMORY``)."""
    for ref in cluster_specs(doc):
        for group in groups(ref):
            found = ray_container(group_template(group))
            if found is None:
                continue
            path, container = found
            limit = as_dict(as_dict(container.get("resources")).get("limits")).get("memory")
            if limit is None or is_unknown(limit) or isinstance(limit, bool):
                continue
            amount = quantity(str(limit))
            if amount is None or amount <= 0 or amount >= RAY_MIN_MEMORY:
                continue
            yield Violation(
                f"the Ray container of the {group_label(group)} group has a memory limit of {limit!r}, which is {int(amount)} bytes (a Kubernetes quantity without a unit is bytes): Python with Ray alone needs far more than 64Mi, so the container is OOM-killed before `ray start` is up and restarted forever, and that group never has a Ray node",
                join(path, "resources", "limits", "memory"),
                fix=f"give the memory a unit: {_unit_hint(str(limit))} (and the request the same), or at least 64Mi",
            )


declare(
    id="ray-container-memory-unusable",
    title="The Ray container's memory limit is enough to start Ray at all",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="A memory limit is a Kubernetes quantity, and one without a unit is bytes (`--head-memory 4` of kubectl-ray gives a 4-byte limit); the API server, the operator and Pod validation accept any positive amount, but a Ray container below 64Mi is OOM-killed before `ray start` is up (the Python interpreter with Ray imported alone needs more) and restarted forever, so its group never has a Ray node.",
    proof="a Ray container's memory limit under 64Mi cannot hold ray start, which is OOM-killed and restarted forever",
    fix="Give the Ray container's memory a unit (4Gi, 8G), at least 64Mi; Ray's own floor for a head is 2G (head-memory-too-small).",
    check=_memory_unusable,
    compliant=example(),
    violating=example(lambda d: worker_of(d)["template"]["spec"]["containers"][0].update(resources=_EIGHT_BYTES)),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].resources.limits.memory",
    fixed=patch(
        {
            "spec.workerGroupSpecs[0].template.spec.containers[0].resources.limits.memory": "8Gi",
            "spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.memory": "8Gi",
        }
    ),
)
