"""What the rule tests share: every gate on, a rule's paths straight through the rule and through ``rules.check``."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pulumi_kuberay import rules
from pulumi_kuberay.rules._engine import Rule

#: Every operator feature gate on (the samples of gated features need them).
ALL_GATES: dict[str, bool] = {gate: True for gate in rules.DEFAULT_FEATURE_GATES}


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
