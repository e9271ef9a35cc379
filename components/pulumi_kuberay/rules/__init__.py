"""The rule catalogue: ``check(manifest, target)`` runs every declared rule over one manifest dict.

Used by the components (at construction), the CrossGuard pack and ``kuberay-lint``, so a rule is written once.
Plain Python: never imports pulumi. The rule modules (``cluster/``, ``job/``, ``service/``, ``cronjob``, ...)
declare their rules when imported; :mod:`._catalogue` imports them all, on first use.

>>> from pulumi_kuberay import rules
>>> target = rules.Target("1.6.0", {"RayCronJob": True}, environment="prod")
>>> findings = rules.check({"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "x"}}, target)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

from . import _paths
from ._engine import (
    DEFAULT_FEATURE_GATES,
    ENVIRONMENTS,
    KINDS,
    RAY_GROUP,
    SEVERITY_ORDER,
    SUPPRESS_PREFIX,
    Audience,
    Category,
    Context,
    Environment,
    Finding,
    Rule,
    Severity,
    Violation,
    declare,
    default_feature_gates,
    parse_kuberay_version,
    registered,
    render_text,
)
from ._paths import UNKNOWN_SENTINEL, is_unknown
from .target import Target, TargetError

__all__ = [
    "DEFAULT_FEATURE_GATES",
    "ENVIRONMENTS",
    "INTERNAL_ERROR_RULE_ID",
    "RULES",
    "SUPPRESS_PREFIX",
    "UNKNOWN_SENTINEL",
    "Audience",
    "Category",
    "Context",
    "Environment",
    "Finding",
    "Rule",
    "Severity",
    "Target",
    "TargetError",
    "Violation",
    "check",
    "declare",
    "default_feature_gates",
    "get_rule",
    "is_ray_document",
    "make_context",
    "normalise",
    "parse_kuberay_version",
    "render_text",
]

#: Rule ids of the structural (typed model) rules start with this.
SCHEMA_RULE_PREFIX = "schema-"

#: rule_id of the finding reported when a rule's own check raises (a bug in the rule, not in the manifest).
INTERNAL_ERROR_RULE_ID = "internal-error"


def _load() -> None:
    from . import _catalogue  # noqa: F401  (plain imports of every rule module; they declare at import)


class _RuleView(Mapping[str, Rule]):
    """Read-only ``{rule_id: Rule}`` view of the registry (loads the rule modules on first use)."""

    def _rules(self) -> dict[str, Rule]:
        _load()
        return {rule.id: rule for rule in registered()}

    def __getitem__(self, key: str) -> Rule:
        return self._rules()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rules())

    def __len__(self) -> int:
        return len(self._rules())

    def __repr__(self) -> str:
        return f"RULES({sorted(self._rules())})"


RULES: Mapping[str, Rule] = _RuleView()


def get_rule(rule_id: str) -> Rule:
    """The registered rule ``rule_id`` (KeyError naming the id if there is none)."""
    try:
        return RULES[rule_id]
    except KeyError:
        raise KeyError(f"no rule with id {rule_id!r}") from None


def make_context(
    *,
    kuberay_version: str | tuple[int, ...] = "1.7.0",
    feature_gates: Mapping[str, bool] | None = None,
    environment: str | None = None,
    options: Mapping[str, Any] | None = None,
    audience: Audience = "python",
    webhooks: bool = False,
) -> Context:
    """Keyword form of ``Target(...).context()`` (for tests and one-off checks of a single rule)."""
    return Target.of(
        kuberay_version=kuberay_version,
        feature_gates=feature_gates,
        environment=environment,
        options=options,
        audience=audience,
        webhooks=webhooks,
    ).context()


def normalise(value: Any) -> Any:
    """Deep copy with integral floats turned into ints (policies see numbers as floats during preview)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: normalise(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalise(v) for v in value]
    return value


def is_ray_document(manifest: Any) -> bool:
    """A dict whose kind is a Ray kind and whose apiVersion is ``ray.io/...`` (or not known yet)."""
    if not isinstance(manifest, Mapping):
        return False
    kind = manifest.get("kind")
    if kind not in KINDS:
        return False
    api_version = manifest.get("apiVersion")
    if is_unknown(api_version):
        return True
    return isinstance(api_version, str) and api_version.startswith(f"{RAY_GROUP}/")


def _suppressions(manifest: Mapping[str, Any]) -> set[str]:
    """Rule ids silenced on this resource by an annotation with a non-empty reason."""
    meta = manifest.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    if not isinstance(annotations, Mapping):
        return set()
    out: set[str] = set()
    for key, reason in annotations.items():
        if not isinstance(key, str) or not key.startswith(SUPPRESS_PREFIX):
            continue
        # An unknown (computed) reason counts as given; an empty one does not (suppression-reason-missing).
        if reason == UNKNOWN_SENTINEL or (isinstance(reason, str) and reason.strip()):
            out.add(key[len(SUPPRESS_PREFIX) :])
    return out


def _sort_key(finding: Finding) -> tuple[int, str, str, str]:
    return (-SEVERITY_ORDER.get(finding.severity, 0), finding.path, finding.rule_id, finding.message)


def _run_rule(rule: Rule, doc: dict[str, Any], ctx: Context) -> list[Finding]:
    try:
        out: list[Finding] = []
        for violation in rule.body(doc, ctx):  # check() chose the rules that apply (Rule.applies)
            out.append(
                Finding(
                    rule_id=rule.id,
                    severity=violation.severity or rule.severity,
                    message=render_text(violation.message, ctx.audience),
                    path=violation.path,
                    fix=render_text(violation.fix or rule.fix, ctx.audience),
                )
            )
        return out
    except Exception as exc:  # a bug in a rule must never break preview/lint: report it instead
        return [
            Finding(
                rule_id=INTERNAL_ERROR_RULE_ID,
                severity="high",
                message=f"rule {rule.id!r} failed on this manifest: {type(exc).__name__}: {exc}",
                path="",
                fix=f"report this as a pulumi-kuberay bug; to proceed, suppress the rule with the annotation "
                f"'{SUPPRESS_PREFIX}{rule.id}'",
            )
        ]


def _drop_schema_duplicates(findings: list[Finding]) -> list[Finding]:
    """Drop a ``schema-*`` finding when a specific rule reports the same path at least as severely.

    The typed model also enforces some operator invariants (e.g. minReplicas <= maxReplicas); the specific
    rule says more (its id is the policy name, its fix is precise), so the generic schema finding is noise.
    A rule mirroring an operator validation row wins at any severity: it knows the operator version (e.g.
    ``worker-min-exceeds-max`` is high before v1.6, where the operator did not check it). Any other less severe
    finding on the same path never hides a schema error: ``resources: true`` on a Ray container is rejected by
    the API server even though ``resources-missing`` (high) reports the same path.
    """
    worst: dict[str, int] = {}
    operator_paths: set[str] = set()
    operator_rules = {r.id for r in registered() if r.operator_rules}
    for f in findings:
        if not f.rule_id.startswith(SCHEMA_RULE_PREFIX):
            worst[f.path] = max(worst.get(f.path, -1), SEVERITY_ORDER[f.severity])
            if f.rule_id in operator_rules:
                operator_paths.add(f.path)
    return [
        f
        for f in findings
        if not (
            f.rule_id.startswith(SCHEMA_RULE_PREFIX)
            and (worst.get(f.path, -1) >= SEVERITY_ORDER[f.severity] or f.path in operator_paths)
        )
    ]



_DEFAULT_VERSION = "1.7.0"
_KUBERAY_CONTROLLER = "ray.io/kuberay-operator"


def _managed_elsewhere(doc: Mapping[str, Any]) -> bool:
    """``spec.managedBy`` names another controller (e.g. MultiKueue): KubeRay's RayCluster/RayJob/RayService
    reconcilers skip the object (``ManagedByExternalController``), so the operator's validation rules do not
    apply and must not block it. (A RayCronJob still validates its template: its controller has no such
    check.)"""
    spec = doc.get("spec")
    if doc.get("kind") not in ("RayCluster", "RayJob", "RayService") or not isinstance(spec, Mapping):
        return False
    manager = spec.get("managedBy")
    return isinstance(manager, str) and not is_unknown(manager) and manager != _KUBERAY_CONTROLLER


def _webhook_rule(rule: Rule) -> bool:
    """The operator's validating webhooks enforce it too (rows WH-*): on create, whoever manages the object."""
    return any(row.startswith("WH-") for row in rule.operator_rules)


def _cron_controller_off(doc: Mapping[str, Any], ctx: Context) -> bool:
    """A RayCronJob while the RayCronJob gate is off: the operator never starts its controller, so it accepts
    the object and ignores it (``feature-gate-disabled`` says so, at high)."""
    return doc.get("kind") == "RayCronJob" and ctx.at_least(1, 6) and not ctx.gate("RayCronJob")


def _not_enforced_while_ignored(finding: Finding) -> Finding:
    """A critical operator-rule finding on an object the operator ignores: nothing rejects it today (the
    promise: critical = rejected), but it will once the controller runs; said at high."""
    return dataclasses.replace(
        finding,
        severity="high",
        message=f"{finding.message} (not enforced while the RayCronJob gate is off: the operator accepts and "
        "ignores this RayCronJob; it fails once the gate is on)",
    )


def check(
    manifest: Any,
    target: Target | None = None,
    *,
    kuberay_version: str | tuple[int, ...] = _DEFAULT_VERSION,
    feature_gates: Mapping[str, bool] | None = None,
    environment: str | None = None,
    options: Mapping[str, Any] | None = None,
    webhooks: bool | None = None,
) -> list[Finding]:
    """Run the catalogue over one manifest dict; findings sorted by severity (critical first), then path.

    Give a :class:`Target`, or its settings as keywords (a thin convenience for ``Target.of(...)``), not both.
    Never raises on the manifest: non-Ray documents (or non-dicts) give ``[]``, malformed Ray documents give
    findings, and a rule that crashes gives an ``internal-error`` finding. Raises ValueError only for bad
    target settings (version, gates, environment). Unknown (computed) values are never judged.
    """
    if target is None:
        if kuberay_version is None:
            raise ValueError("invalid KubeRay version None: expected a string like '1.7.0'")
        target = Target.of(
            kuberay_version=kuberay_version,
            feature_gates=feature_gates,
            environment=environment,
            options=options,
            webhooks=bool(webhooks),
        )
    elif kuberay_version is not _DEFAULT_VERSION or any(
        v is not None for v in (feature_gates, environment, options, webhooks)
    ):
        raise TypeError("check(): give a Target or its settings as keywords, not both")
    ctx = target.context()
    if not is_ray_document(manifest):
        return []
    _load()
    doc: dict[str, Any] = normalise(manifest)
    kind = doc.get("kind")
    silenced = _suppressions(doc)
    findings: list[Finding] = []
    handed_over = _managed_elsewhere(doc)
    _paths.begin_document(doc)
    try:
        for rule in registered():
            # silenced rules still run: their findings cover schema duplicates (_drop_schema_duplicates)
            if handed_over and rule.operator_rules and not (ctx.webhooks and _webhook_rule(rule)):
                continue  # KubeRay's reconciler returns before validating it (ManagedByExternalController)
            if kind in rule.kinds and rule.applies(ctx):
                findings.extend(_run_rule(rule, doc, ctx))
    finally:
        _paths.end_document()
    findings = _drop_schema_duplicates(findings)
    if _cron_controller_off(doc, ctx):
        # Only the operator's own checks go unenforced: what the API server rejects stays critical (the typed
        # model's schema findings, and rules that mirror a CEL or schema rule). A schema finding that only
        # repeated an operator rule went with the duplicates above.
        unenforced = {
            r.id
            for r in registered()
            if r.operator_rules and not any(row.startswith(("CEL-", "SCH-")) for row in r.operator_rules)
        }
        findings = [
            _not_enforced_while_ignored(f) if f.severity == "critical" and f.rule_id in unenforced else f
            for f in findings
        ]
    findings = [f for f in findings if f.rule_id not in silenced or f.rule_id == INTERNAL_ERROR_RULE_ID]
    return sorted(findings, key=_sort_key)
