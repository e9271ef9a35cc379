"""Fixtures of the rule tests: the gates they need, reference samples. Shared functions: ``tests/_rule_checks.py``."""

from __future__ import annotations

from typing import Any

import pytest
from _reference import upstream_sample
from _rule_checks import ALL_GATES


@pytest.fixture
def all_gates() -> dict[str, bool]:
    return dict(ALL_GATES)


@pytest.fixture
def cluster_sample() -> dict[str, Any]:
    """A fresh copy of the upstream minimal RayCluster sample (ray-cluster.sample.yaml)."""
    return upstream_sample("ray-cluster.sample.yaml", "RayCluster")


@pytest.fixture
def sample_named() -> Any:
    """``sample_named(file, kind)``: fresh copy of the first ``kind`` document of an upstream sample file."""
    return upstream_sample
