"""Shared helpers of the rule tests: reference samples, the gates they need, a rule's paths directly and through
the public ``check``."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest
from _reference import upstream_sample
from pulumi_kuberay import rules
from pulumi_kuberay.rules._engine import Rule

#: Every operator feature gate on (the samples of gated features need them).
ALL_GATES: dict[str, bool] = {gate: True for gate in rules.DEFAULT_FEATURE_GATES}


@pytest.fixture
def all_gates() -> dict[str, bool]:
    return dict(ALL_GATES)


def direct_paths(rule: Rule, manifest: dict[str, Any], context: Mapping[str, Any] | None = None) -> list[str]:
    """Paths the rule itself reports on ``manifest`` (``Rule.run``: no suppression, no normalisation), with the
    rule's example settings unless ``context`` is given."""
    ctx = rules.make_context(**(rule.context if context is None else context))
    return [v.path for v in rule.run(copy.deepcopy(manifest), ctx)]


def public_findings(rule_id: str, manifest: dict[str, Any], **settings: Any) -> list[rules.Finding]:
    """The findings of ``rule_id`` on ``manifest`` through the public ``rules.check``."""
    return [f for f in rules.check(manifest, **settings) if f.rule_id == rule_id]


def public_paths(rule_id: str, manifest: dict[str, Any], **settings: Any) -> list[str]:
    return [f.path for f in public_findings(rule_id, manifest, **settings)]


@pytest.fixture
def cluster_sample() -> dict[str, Any]:
    """A fresh copy of the upstream minimal RayCluster sample (ray-cluster.sample.yaml)."""
    return upstream_sample("ray-cluster.sample.yaml", "RayCluster")


@pytest.fixture
def sample_named() -> Any:
    """``sample_named(file, kind)``: fresh copy of the first ``kind`` document of an upstream sample file."""
    return upstream_sample
