"""Shared fixtures for the rule tests: reference samples, the gates they need, the rules of a module."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from _reference import require_reference, sample_documents
from pulumi_kuberay import rules

#: Every operator feature gate on (the samples of gated features need them).
ALL_GATES: dict[str, bool] = {gate: True for gate in rules.DEFAULT_FEATURE_GATES}


@pytest.fixture
def all_gates() -> dict[str, bool]:
    return dict(ALL_GATES)


@pytest.fixture
def cluster_sample() -> dict[str, Any]:
    """A fresh copy of the upstream minimal RayCluster sample (ray-cluster.sample.yaml)."""
    require_reference()
    for name, _index, doc in sample_documents("RayCluster"):
        if name == "ray-cluster.sample.yaml":
            return copy.deepcopy(doc)
    pytest.fail("ray-cluster.sample.yaml has no RayCluster document")


@pytest.fixture
def sample_named() -> Any:
    """``sample_named(file, kind)``: fresh copy of the first ``kind`` document of an upstream sample file."""

    def find(file_name: str, kind: str) -> dict[str, Any]:
        require_reference()
        for name, _index, doc in sample_documents(kind):
            if name == file_name:
                return copy.deepcopy(doc)
        raise LookupError(f"no {kind} in {file_name}")

    return find
