"""The severity a rule is in force at for a target: what its own violating example draws from the catalogue under
that target's environment, version, gates and options. ``kuberay-lint --list-rules`` / ``--explain-rule``, the
rule reference (docs/rules.md) and SARIF's rule descriptors all read it here, so what they show is what a lint
with the same settings reports.

A finding whose severity is not its rule's default says why at the end of its message (``Violation.severity_why``,
turned into the finding by ``Rule.finding``); this module shows the same clause for the rule: where the environment
decides, from what the example draws in each; where the object or the target decides, from ``Rule.also``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ._engine import ENVIRONMENTS, SEVERITY_ORDER, Finding, Rule, Severity
from ._options import OrgOptions
from .target import Target


@dataclass(frozen=True)
class SeverityInForce:
    """A rule's severity for one target: ``severity`` None when the rule reports nothing there (``why`` says why)."""

    default: Severity
    severity: Severity | None
    why: str = ""

    @property
    def differs(self) -> bool:
        return self.severity != self.default

    def text(self) -> str:
        """``medium``; ``high (default medium: high in prod, medium elsewhere)``; ``off (default high: ...)``."""
        shown = self.severity or "off"
        if not self.differs:
            return shown
        return f"{shown} (default {self.default}{': ' + self.why if self.why else ''})"


def _example_target(rule: Rule, target: Target) -> Target:
    """The rule's example settings (the options or gates its example needs) under ``target``'s environment,
    version, gates, options, webhooks and audience."""
    example: dict[str, Any] = dict(rule.context)
    gates = {**dict(example.get("feature_gates") or {}), **dict(target.feature_gates)}
    options = target.options.over(OrgOptions.strict(example.get("options")))
    return Target(
        kuberay_version=target.kuberay_version,
        feature_gates=gates,
        environment=target.environment,
        options=options,
        audience=target.audience,
        webhooks=bool(example.get("webhooks")) or target.webhooks,
        operator=example.get("operator") or target.operator,
    )


def _worst(rule: Rule, found: Sequence[Finding]) -> Finding | None:
    on_path = [f for f in found if f.path == rule.violating_path] or list(found)
    return max(on_path, key=lambda f: SEVERITY_ORDER[f.severity], default=None)


FindingsOf = Callable[[Rule, Target], list[Finding]]


def _sweep(rule: Rule, target: Target, findings_of: FindingsOf) -> dict[str | None, Finding | None]:
    """The finding the example draws under ``target`` in each environment (and with none)."""
    return {env: _worst(rule, findings_of(rule, _with_env(target, env))) for env in (None, *ENVIRONMENTS)}


def severity_in_force(rule: Rule, target: Target, findings_of: FindingsOf) -> SeverityInForce:
    """``rule``'s severity for ``target``, from what its violating example draws (the same check a lint runs):

    - off (None) where the rule does not apply (version, gate, audience) or draws nothing in this environment
      but does in another (``gcs-ft-missing-in-prod`` outside prod);
    - the example's severity, with the finding's why, where it depends on the environment (it differs between
      environments) or on the version, gates and options (it differs from what the example draws under its own
      settings in the same environment);
    - else the default: what differs on one object (a RayCluster, not a RayService) the finding says itself."""
    settings = _example_target(rule, target)
    if not rule.applies(settings.context()):
        scope = rule.applies_to()
        return SeverityInForce(rule.severity, None, f"applies to {scope}" if scope else "not for this target")
    sweep = _sweep(rule, settings, findings_of)
    here = sweep[target.environment]
    if here is None:
        elsewhere = [env for env, found in sweep.items() if found is not None and env is not None]
        if not elsewhere:  # the example is bound to its own settings (a field newer than its version)
            return SeverityInForce(rule.severity, rule.severity)
        return SeverityInForce(rule.severity, None, f"reported with environment {' or '.join(elsewhere)}")
    by_environment = {found.severity for found in sweep.values() if found is not None}
    if len(by_environment) == 1 and None not in (f.severity if f else None for f in sweep.values()):
        own = _worst(rule, findings_of(rule, _with_env(Target.of(**rule.context), target.environment)))
        if own is not None and own.severity == here.severity:
            return SeverityInForce(rule.severity, rule.severity)
    why = here.severity_why if here.severity != rule.severity else ""
    return SeverityInForce(rule.severity, here.severity, why)


def _with_env(target: Target, environment: str | None) -> Target:
    return replace(target, environment=environment)


def severity_by_environment(rule: Rule, target: Target, findings_of: FindingsOf) -> str:
    """The reference's severity cell: the default, then where an environment (or none) gives another, e.g.
    ``medium (prod: high)`` or ``high (prod only)``."""
    cells: dict[str, list[str]] = {}
    for env in (None, *ENVIRONMENTS):
        in_force = severity_in_force(rule, _with_env(target, env), findings_of)
        cells.setdefault(in_force.severity or "off", []).append(env or "no environment")
    notes: list[str] = []
    only = cells.get(rule.severity)
    if list(cells) == [rule.severity]:
        pass
    elif only is not None and len(cells) == 2 and "off" in cells:
        notes.append(f"{', '.join(only)} only")
    else:
        notes += [f"{', '.join(envs)}: {severity}" for severity, envs in cells.items() if severity != rule.severity]
    notes += rule.also
    return f"{rule.severity} ({'; '.join(notes)})" if notes else rule.severity



def _violating_findings(rule: Rule, target: Target) -> list[Finding]:
    """What ``rule`` alone reports on its violating example for ``target`` (a rule on each object runs alone: ~100
    times faster than the whole catalogue, which ``--list-rules`` and SARIF would run once per rule)."""
    if rule.scope != "document":
        from . import example_findings

        return example_findings(rule, target=target)
    ctx = target.context()
    return [rule.finding(v, ctx.audience) for v in rule.run(rule.violating, ctx)]


def in_force(rule: Rule, target: Target) -> SeverityInForce:
    """``rules.severity_in_force``: :func:`severity_in_force` over the rule's violating example."""
    return severity_in_force(rule, target, _violating_findings)


def by_environment(rule: Rule, target: Target) -> str:
    """``rules.severity_by_environment``: :func:`severity_by_environment` over the rule's violating example."""
    return severity_by_environment(rule, target, _violating_findings)
