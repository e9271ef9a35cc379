"""ray-container-memory-unusable: a Ray container's memory limit too small for Ray to start at all (rules/startup.py)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.rules._examples import example_job, ray_cluster

_ID = "ray-container-memory-unusable"
_HEAD = "spec.headGroupSpec.template.spec.containers[0].resources.limits.memory"
_WORKER = "spec.workerGroupSpecs[0].template.spec.containers[0].resources.limits.memory"


def _cluster(head: Any = None, worker: Any = None) -> dict[str, Any]:
    doc = copy.deepcopy(ray_cluster())
    for group, memory in ((doc["spec"]["headGroupSpec"], head), (doc["spec"]["workerGroupSpecs"][0], worker)):
        if memory is not None:
            group["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1", "memory": memory}}
    return doc


def _found(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f.severity, f.path) for f in rules.check(doc) if f.rule_id == _ID]


def test_a_memory_without_unit_is_bytes_and_never_starts() -> None:
    # kubectl ray create cluster --head-memory 4 --worker-memory 8 (meant as GiB)
    doc = _cluster("4", "8")
    assert _found(doc) == [("critical", _HEAD), ("critical", _WORKER)]
    finding = next(f for f in rules.check(doc) if f.rule_id == _ID and f.path == _WORKER)
    assert "memory limit of '8', which is 8 bytes" in finding.message and "OOM-killed" in finding.message
    assert finding.fix == "give the memory a unit: 8Gi (and the request the same), or at least 64Mi"
    # the head's 2G advice (high) leaves it to this rule below the floor
    assert [f.rule_id for f in rules.check(doc) if f.path == _HEAD] == [_ID]


@pytest.mark.parametrize("memory", ["63Mi", 1024, "512k", "0.05Gi"])
def test_below_64mi_is_critical(memory: Any) -> None:
    assert _found(_cluster(worker=memory)) == [("critical", _WORKER)]


@pytest.mark.parametrize("memory", ["64Mi", "512Mi", "8Gi", "2G", 8 * 2**30, "0", "${MEMORY}", "lots"])
def test_enough_zero_or_unreadable_memory_is_not_judged(memory: Any) -> None:
    assert _found(_cluster(worker=memory)) == []


def test_a_request_alone_does_not_limit_the_container() -> None:
    doc = _cluster()
    doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"memory": "8"}}
    assert _found(doc) == []


def test_the_cluster_a_rayjob_embeds() -> None:
    job = example_job()
    container = job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    container["resources"] = {"limits": {"memory": "8"}}
    assert _found(job) == [("critical", "spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.limits.memory")]


@pytest.mark.parametrize(("memory", "hint"), [("16", "16Gi"), ("2048", "2048Mi"), ("512k", "a quantity with a unit, such as 4Gi")])
def test_the_fix_guesses_the_unit_meant(memory: str, hint: str) -> None:
    finding = next(f for f in rules.check(_cluster(worker=memory)) if f.rule_id == _ID)
    assert finding.fix == f"give the memory a unit: {hint} (and the request the same), or at least 64Mi"
