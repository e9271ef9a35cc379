"""The rule catalogue: ``check(manifest, target)`` runs every declared rule over one manifest dict.

Used by the components (at construction), the CrossGuard pack and ``kuberay-lint``, so a rule is written once.
Plain Python: never imports pulumi. The rule modules (``cluster/``, ``job/``, ``service/``, ``cronjob``, ...)
declare their rules when imported; :mod:`._catalogue` finds and imports them all, on first use.

Every rule is a :class:`Rule` with a scope: ``check`` runs the ``document`` rules over one manifest,
``check_stack`` the ``stack`` rules over a set of manifests, ``check_setup`` the ``setup`` rules over the
operator's setup, ``check_change`` the ``change`` rules over one object's old and new manifest (where the old
state is known: the components' resource hook, ``kuberay-lint --diff``), ``check_preflight`` the ``preflight``
rules over one object and the cluster it lands in (where the cluster can be read: the components at preview,
``kuberay-lint --cluster`` and ``--live``). :data:`RULES` holds them all, by id.

>>> from pulumi_kuberay import rules
>>> target = rules.Target("1.6.0", {"RayCronJob": True}, environment="prod")
>>> findings = rules.check({"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "x"}}, target)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pulumi_kuberay.kuberay import KUBERAY_CONTROLLER
from pulumi_kuberay.kuberay import paths as _paths
from pulumi_kuberay.kuberay.api import LATEST_VERSION_TEXT
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL, is_unknown
from pulumi_kuberay.operator.setup import OperatorSetup

from . import _rule_index
from ._cel import RULE_VARIABLES, Cel, Over
from ._duplicates import SCHEMA_RULE_PREFIX, drop_schema_duplicates
from ._enforcement import enforcement_level
from ._engine import (
    DEFAULT_FEATURE_GATES,
    ENVIRONMENTS,
    KINDS,
    RAY_GROUP,
    SEVERITY_ORDER,
    SUPPRESS_PREFIX,
    Audience,
    Category,
    ChangeSubject,
    Context,
    Environment,
    Finding,
    PreflightSubject,
    Rule,
    Scope,
    Severity,
    Violation,
    declare,
    default_feature_gates,
    parse_kuberay_version,
    registered,
    render_text,
)
from ._normalise import _normal, _null_free_normal
from ._normalise import normalise as normalise
from ._options import OrgOptions, kebab
from .target import Target, TargetError

if TYPE_CHECKING:  # only its type: the plan is imported when a change is judged (check_change)
    from pulumi_kuberay.plan import Change
    from pulumi_kuberay.preflight import ClusterSnapshot
    from pulumi_kuberay.rules._severity import SeverityInForce

__all__ = [
    "DEFAULT_FEATURE_GATES",
    "ENVIRONMENTS",
    "INTERNAL_ERROR_RULE_ID",
    "RULES",
    "RULE_VARIABLES",
    "SCHEMA_RULE_PREFIX",
    "SEVERITY_ORDER",
    "SUPPRESS_PREFIX",
    "UNKNOWN_SENTINEL",
    "Audience",
    "Category",
    "Cel",
    "ChangeSubject",
    "Context",
    "Environment",
    "Finding",
    "OperatorSetup",
    "OrgOptions",
    "Over",
    "PreflightSubject",
    "Rule",
    "Scope",
    "Severity",
    "StackFinding",
    "Target",
    "TargetError",
    "Violation",
    "check",
    "check_change",
    "check_preflight",
    "check_setup",
    "check_stack",
    "declare",
    "default_feature_gates",
    "enforced_by",
    "enforcement_level",
    "example_findings",
    "get_rule",
    "is_ray_document",
    "kebab",
    "looks_at",
    "make_context",
    "normalise",
    "ordered_rules",
    "parse_kuberay_version",
    "render_docs",
    "render_text",
    "rules_of",
    "severity_by_environment",
    "severity_in_force",
]


#: rule_id of the finding reported when a rule's own check raises (a bug in the rule, not in the manifest).
INTERNAL_ERROR_RULE_ID = "internal-error"


#: The rule modules were imported (``check`` then skips :func:`_load`).
_catalogue_loaded = False


def _load() -> None:
    global _catalogue_loaded
    from . import _catalogue

    _catalogue.load()  # imports every rule module once; they declare at import
    _catalogue_loaded = True


class _RuleView(Mapping[str, Rule]):
    """Read-only ``{rule_id: Rule}`` view of the registry, every scope (loads the rule modules on first use)."""

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


def rules_of(scope: Scope) -> list[Rule]:
    """The rules of one scope (``document``, ``stack``, ``setup``, ``change`` or ``preflight``), in declaration order."""
    _load()
    return list(registered(scope))


def get_rule(rule_id: str) -> Rule:
    """The registered rule ``rule_id`` (KeyError naming the id if there is none)."""
    try:
        return RULES[rule_id]
    except KeyError:
        raise KeyError(f"no rule with id {rule_id!r}") from None


def ordered_rules() -> list[Rule]:
    """Every rule, most severe first, then by id (the order of the reference and of ``--list-rules``)."""
    return sorted(RULES.values(), key=lambda r: (-SEVERITY_ORDER[r.severity], r.id))


def looks_at(rule: Rule) -> str:
    """The table's 'looks at' cell: the kinds, and across the stack or at the operator where it is not one object."""
    if rule.scope == "setup":
        return "the KubeRay operator"
    kinds = ", ".join(rule.kinds)
    if rule.scope == "change":
        return f"{kinds} (a change: old -> new)"
    if rule.scope == "preflight":
        return f"{kinds} (against the target cluster)"
    return kinds if rule.scope == "document" else f"{kinds} (across the stack)"


def enforced_by(rule: Rule) -> str:
    """Which parts of KubeRay refuse what the rule reports, in words (``the API server, the operator``)."""
    words = {"api-server": "the API server", "operator": "the operator", "run-time": "the running workload"}
    return ", ".join(words.get(e, f"the {e}") for e in rule.enforced_by)


def render_docs() -> str:
    """docs/rules.md, rendered from the catalogue (``scripts/gen-rule-docs`` writes it; a test keeps it current)."""
    from ._docs import render

    return render()


def make_context(**settings: Any) -> Context:
    """``Target.of(**settings).context()``: the Context of a one-off check of a single rule (tests, examples);
    ``settings`` are :meth:`Target.of`'s keywords (a rule's ``context`` fits)."""
    return Target.of(**settings).context()


def is_ray_document(manifest: Any) -> bool:
    """A dict whose kind is a Ray kind and whose apiVersion is ``ray.io/...`` (or not known yet)."""
    if not isinstance(manifest, (dict, Mapping)):  # dict first: no ABC check for the common case
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
    annotations = meta.get("annotations") if isinstance(meta, (dict, Mapping)) else None
    if not isinstance(annotations, (dict, Mapping)):
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


def _internal_error(rule: Rule, exc: Exception) -> Finding:
    """What a rule whose own check raised reports instead of its findings (a bug in the rule)."""
    return Finding(
        rule_id=INTERNAL_ERROR_RULE_ID,
        severity="high",
        message=f"rule {rule.id!r} failed on this {rule.scope}: {type(exc).__name__}: {exc}",
        path="",
        fix=f"report this as a pulumi-kuberay bug; to proceed, suppress the rule with the annotation '{SUPPRESS_PREFIX}{rule.id}'",
    )


def _run_rule(rule: Rule, subject: Any, ctx: Context) -> list[tuple[Violation, Finding]]:
    """The rule's violations on ``subject`` with the findings they become (the caller chose rules that apply)."""
    try:
        return [(v, rule.finding(v, ctx.audience)) for v in rule.check(subject, ctx)]
    except Exception as exc:  # a bug in a rule must never break preview/lint: report it instead
        finding = _internal_error(rule, exc)
        return [(Violation(finding.message, "", index=0), finding)]


def _run_rules(rules: tuple[Rule, ...], doc: dict[str, Any], ctx: Context) -> list[Finding]:
    """Every rule of ``rules`` on ``doc``: :func:`_run_rule` for each, without a list per rule (the loop runs
    ~90 rules per document, most of which find nothing)."""
    findings: list[Finding] = []
    append = findings.append
    audience = ctx.audience
    for rule in rules:
        try:
            for violation in rule.check(doc, ctx):
                append(rule.finding(violation, audience))
        except Exception as exc:  # a bug in a rule must never break preview/lint: report it instead
            # What it found before failing is not reported, as _run_rule does: its findings are the last ones, and
            # only its own carry its id (found here, not marked before each of the ~110 rules).
            while findings and findings[-1].rule_id == rule.id:
                findings.pop()
            append(_internal_error(rule, exc))
    return findings


_DEFAULT_VERSION = LATEST_VERSION_TEXT
#: What ``check`` tells the rules of a manifest without a null (``_null_free_normal``).
_NULL_FREE = {_paths.NULL_FREE: True}


def _managed_elsewhere(doc: Mapping[str, Any]) -> bool:
    """``spec.managedBy`` names another controller (e.g. MultiKueue): KubeRay's RayCluster/RayJob/RayService
    reconcilers skip the object (``ManagedByExternalController``), so the operator's validation rules do not
    apply and must not block it. (A RayCronJob still validates its template: its controller has no such
    check.)"""
    spec = doc.get("spec")
    if doc.get("kind") not in ("RayCluster", "RayJob", "RayService") or not isinstance(spec, Mapping):
        return False
    manager = spec.get("managedBy")
    return isinstance(manager, str) and not is_unknown(manager) and manager != KUBERAY_CONTROLLER


def _cron_controller_off(doc: Mapping[str, Any], ctx: Context) -> bool:
    """A RayCronJob while the RayCronJob gate is off: the operator never starts its controller, so it accepts
    the object and ignores it (``feature-gate-disabled`` says so, at high)."""
    return doc.get("kind") == "RayCronJob" and ctx.at_least(1, 6) and not ctx.gate("RayCronJob")


def _not_enforced_while_ignored(finding: Finding, why: str) -> Finding:
    """A critical operator-rule finding that nothing enforces today (the promise: critical = rejected), but will
    once the controller acts; said at high, with ``why``."""
    return dataclasses.replace(finding, severity="high", message=f"{finding.message} ({why})")


_GATE_OFF = "not enforced while the RayCronJob gate is off: the operator accepts and ignores this RayCronJob; it fails once the gate is on"
_SUSPENDED = "the RayCronJob is suspended, so no RayJob is created yet: this fails once it is resumed"


def _suspended_cron(doc: Mapping[str, Any]) -> bool:
    """A suspended RayCronJob: ValidateRayCronJobSpec still checks its template, but no RayJob is created, so
    what fails only when a RayJob runs (the OP- rows: submit command, dashboard port) does not fail yet."""
    spec = doc.get("spec")
    return doc.get("kind") == "RayCronJob" and isinstance(spec, Mapping) and spec.get("suspend") is True


@dataclass(frozen=True)
class _Checking:
    """What ``check`` keeps for one target: its Context, and the rules selected for each (kind, handed over)."""

    target: Target
    context: Context
    #: (kind, handed_over) -> (the catalogue index it was made from, the selection): a new index makes new selections.
    selections: dict[tuple[Any, bool], tuple[_rule_index.CatalogueIndex, tuple[Rule, ...]]] = dataclasses.field(
        default_factory=dict
    )

    def rules_for(self, index: _rule_index.CatalogueIndex, kind: Any, handed_over: bool) -> tuple[Rule, ...]:
        kept = self.selections.get((kind, handed_over))
        if kept is not None and kept[0] is index:
            return kept[1]
        selected = _rule_index.document_rules(index, str(kind), self.context, handed_over=handed_over)
        self.selections[kind, handed_over] = (index, selected)
        return selected


#: Targets built from ``check()``'s keywords, and what ``check`` keeps for each Target it saw (by identity, with
#: the gates its Context was built from): the policy pack and the components check every resource against one
#: target, and building it (parsing the version and gates, validating the options) cost as much as a few rules.
#: (A Target built here keeps the copy of the gates ``Target.of`` made: its Context cannot go stale.)
_TARGETS: dict[tuple[Any, ...], _Checking] = {}
_CONTEXTS: dict[int, tuple[tuple[Any, ...], _Checking]] = {}
_MEMO_SIZE = 64


def _gates_key(gates: Mapping[str, Any] | None) -> tuple[Any, ...] | None:
    """The gates as a key that tells ``True`` from ``1`` or ``"true"`` (the parser takes some, refuses others)."""
    if gates is None:
        return None
    return (tuple(gates.items()), tuple(map(type, gates.values())))


def _target_of(
    kuberay_version: str | tuple[int, ...],
    *,
    feature_gates: Mapping[str, bool] | None,
    environment: str | None,
    options: Mapping[str, Any] | OrgOptions | None,
    webhooks: bool | None,
    operator: OperatorSetup | None,
) -> _Checking:
    """``Target.of(...)`` of ``check()``'s keywords, with its Context; the same for the same plain settings (a
    version string, gates, an environment, OrgOptions or none, no operator), built anew otherwise."""
    key: tuple[Any, ...] = ()
    if (
        type(kuberay_version) is str
        and (environment is None or type(environment) is str)
        and (options is None or type(options) is OrgOptions)
        and operator is None
    ):
        try:
            key = (kuberay_version, _gates_key(feature_gates), environment, options, bool(webhooks))
            target = _TARGETS.get(key)
        except TypeError:  # an unhashable gate value: built each time (Target.of says what is wrong)
            key = ()
        else:
            if target is not None:
                return target
    made = Target.of(
        kuberay_version=kuberay_version,
        feature_gates=feature_gates,
        environment=environment,
        options=options,
        webhooks=bool(webhooks),
        operator=operator,
    )
    checking = _Checking(made, made.context())
    if key:
        if len(_TARGETS) >= _MEMO_SIZE:
            _TARGETS.clear()
        _TARGETS[key] = checking
    return checking


#: What ``check`` keeps for each target by its settings (a caller making an equal Target for every resource, as
#: the policy pack's ``override`` does, then shares one Context and its rule selections).
_TARGET_SETTINGS: dict[tuple[Any, ...], _Checking] = {}


def _settings_key(target: Target, gates: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The target's settings as a key (None: not plain settings, e.g. an operator, or unhashable gate values)."""
    if target.operator is not None or type(target.kuberay_version) is not str or type(target.options) is not OrgOptions:
        return None
    key = (target.kuberay_version, gates, target.environment, target.options, target.audience, bool(target.webhooks))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _checking_of(target: Target) -> _Checking:
    """``target.context()`` (and the rule selections under it), kept while ``target`` and its gates are unchanged (a
    Target is frozen, but the mapping of gates it was given may be changed by its owner), and shared by targets of
    equal settings."""
    gates = _gates_key(target.feature_gates) or ()
    kept = _CONTEXTS.get(id(target))
    if kept is not None and kept[1].target is target and kept[0] == gates:
        return kept[1]
    key = _settings_key(target, gates)
    if key is not None:
        same = _TARGET_SETTINGS.get(key)
        if same is not None:
            return same
    checking = _Checking(target, target.context())
    if key is not None:
        if len(_TARGET_SETTINGS) >= _MEMO_SIZE:
            _TARGET_SETTINGS.clear()
        _TARGET_SETTINGS[key] = checking  # its Context was built from a copy of these settings: it cannot go stale
    if len(_CONTEXTS) >= _MEMO_SIZE:
        _CONTEXTS.clear()
    _CONTEXTS[id(target)] = (gates, checking)  # holds the target: its id is not reused while kept
    return checking


def check(
    manifest: Any,
    target: Target | None = None,
    *,
    kuberay_version: str | tuple[int, ...] = _DEFAULT_VERSION,
    feature_gates: Mapping[str, bool] | None = None,
    environment: str | None = None,
    options: Mapping[str, Any] | OrgOptions | None = None,
    webhooks: bool | None = None,
    operator: OperatorSetup | None = None,
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
        checking = _target_of(
            kuberay_version,
            feature_gates=feature_gates,
            environment=environment,
            options=options,
            webhooks=webhooks,
            operator=operator,
        )
    elif kuberay_version is not _DEFAULT_VERSION or any(
        v is not None for v in (feature_gates, environment, options, webhooks, operator)
    ):
        raise TypeError("check(): give a Target or its settings as keywords, not both")
    else:
        checking = _checking_of(target)
    ctx = checking.context
    if not is_ray_document(manifest):
        return []
    if not _catalogue_loaded:
        _load()
    index = _rule_index.catalogue_index()
    # The rules and the model only read the document (tests/rules/test_rules_engine.py holds them to it), so one
    # that normalise would only copy is checked as it is: copying it was ~5 % of a check. _null_free_normal stops at
    # the first null, and only then is the document walked again (_normal): one walk finding both costs every
    # null-free document more (169,082 bytecodes against 124,557 over the 89 samples, one of which holds a null).
    null_free = _null_free_normal(manifest)
    doc: dict[str, Any] = manifest if null_free or _normal(manifest) else normalise(manifest)
    kind = doc.get("kind")
    silenced = _suppressions(doc)
    # silenced rules still run: their findings cover schema duplicates (drop_schema_duplicates)
    selected = checking.rules_for(index, kind, _managed_elsewhere(doc))
    views = _paths.open_views(doc, _NULL_FREE if null_free else None)
    try:
        findings = _run_rules(selected, doc, ctx)
    finally:
        _paths.close_views(views)
    findings = drop_schema_duplicates(findings, index.operator_rule_ids)
    if _cron_controller_off(doc, ctx):
        # Only the operator's own checks go unenforced: what the API server rejects stays critical (the typed
        # model's schema findings, and rules declared enforced_by the api-server). A schema finding that only
        # repeated an operator rule went with the duplicates above.
        unenforced = index.operator_only_ids
        findings = [
            _not_enforced_while_ignored(f, _GATE_OFF) if f.severity == "critical" and f.rule_id in unenforced else f
            for f in findings
        ]
    elif _suspended_cron(doc):
        run_time = index.run_time_ids
        findings = [
            _not_enforced_while_ignored(f, _SUSPENDED) if f.severity == "critical" and f.rule_id in run_time else f
            for f in findings
        ]
    findings = [f for f in findings if f.rule_id not in silenced or f.rule_id == INTERNAL_ERROR_RULE_ID]
    return sorted(findings, key=_sort_key)


@dataclass(frozen=True)
class StackFinding:
    """A finding of a stack rule about one manifest of the set; ``index`` is its position in the input."""

    index: int
    finding: Finding


def check_stack(manifests: Sequence[Any], ctx: Context | None = None) -> list[StackFinding]:
    """Run every ``stack`` rule over ``manifests`` (any JSON-like values; non-Ray documents are ignored)."""
    ctx = ctx or Context()
    _load()
    docs = [normalise(m) if isinstance(m, Mapping) else {} for m in manifests]
    out: list[StackFinding] = []
    for rule in registered("stack"):
        if rule.applies(ctx):
            out.extend(StackFinding(v.index or 0, f) for v, f in _run_rule(rule, docs, ctx))
    return out


def check_setup(setup: OperatorSetup, ctx: Context | None = None) -> list[Finding]:
    """Run every ``setup`` rule over the operator's setup, worst first."""
    ctx = ctx or Context()
    _load()
    out: list[Finding] = []
    for rule in registered("setup"):
        if rule.applies(ctx):
            out.extend(finding for _, finding in _run_rule(rule, setup, ctx))
    return sorted(out, key=_sort_key)


def check_change(
    old: Any, new: Any, ctx: Context | None = None, *, plan: Change | None = None
) -> list[Finding]:
    """Run every ``change`` rule over one Ray object going from ``old`` (None: created) to ``new``, worst first.

    ``plan`` is the change plan the caller made (the components make it with the live objects they read); without
    it the plan is made here as ``kuberay-lint --diff`` makes it (an update in place, by the target's operator
    version and gates). Suppression annotations on ``new`` are honoured as on any rule (a reason is required).
    """
    ctx = ctx or Context()
    if not is_ray_document(new):
        return []
    _load()
    before = normalise(old) if isinstance(old, Mapping) else None
    after: dict[str, Any] = normalise(new)
    if plan is None:
        from pulumi_kuberay.plan import Operator, plan_change  # the plan is loaded when a change is judged

        operator = Operator(version=ctx.kuberay_version, feature_gates=dict(ctx.feature_gates))
        plan = plan_change(before, after, operator, mode="apply")
    subject = ChangeSubject(before, after, plan)
    silenced = _suppressions(after)
    out: list[Finding] = []
    for rule in registered("change"):
        if rule.applies(ctx) and after.get("kind") in rule.kinds:
            out.extend(finding for _, finding in _run_rule(rule, subject, ctx))
    kept = [f for f in out if f.rule_id not in silenced or f.rule_id == INTERNAL_ERROR_RULE_ID]
    return sorted(kept, key=_sort_key)


def check_preflight(
    manifest: Any,
    cluster: ClusterSnapshot,
    ctx: Context | None = None,
    *,
    namespace: str | None = None,
    plan: Change | None = None,
    old: Any = None,
    created_here: frozenset[tuple[str, str, str]] | None = None,
) -> list[Finding]:
    """Run every ``preflight`` rule over one Ray object and the cluster it lands in (``cluster``: a
    :class:`~pulumi_kuberay.preflight.ClusterSnapshot`), worst first.

    ``namespace`` is where the object lands when its manifest names none (default ``default``); ``plan`` the change
    plan when the object exists (a NewCluster upgrade's second cluster is judged against what is free), or ``old``
    the live object's manifest to plan it from as ``kuberay-lint --diff`` does;
    ``created_here`` the (kind, namespace, name) of the objects created with it (a reference to one is not
    missing; None: not known, and a missing reference is then not critical). Suppression annotations are honoured.
    """
    ctx = ctx or Context()
    if not is_ray_document(manifest):
        return []
    _load()
    doc: dict[str, Any] = normalise(manifest)
    declared_ns = _paths.as_str(_paths.metadata(doc).get("namespace"))
    where = declared_ns if declared_ns and not is_unknown(declared_ns) else namespace or "default"
    if plan is None and isinstance(old, Mapping):
        from pulumi_kuberay.plan import Operator, plan_change  # the plan is loaded when a change is judged

        operator = Operator(version=ctx.kuberay_version, feature_gates=dict(ctx.feature_gates))
        plan = plan_change(normalise(old), doc, operator, mode="apply")
    subject = PreflightSubject(doc, cluster, where, plan, created_here)
    silenced = _suppressions(doc)
    out: list[Finding] = []
    views = _paths.open_views(doc)  # the rules share the Pods the manifest makes (pod_shapes, once)
    try:
        for rule in registered("preflight"):
            if rule.applies(ctx) and doc.get("kind") in rule.kinds:
                out.extend(finding for _, finding in _run_rule(rule, subject, ctx))
    finally:
        _paths.close_views(views)
    kept = [f for f in out if f.rule_id not in silenced or f.rule_id == INTERNAL_ERROR_RULE_ID]
    return sorted(kept, key=_sort_key)


def example_findings(
    rule: Rule,
    which: Literal["compliant", "violating", "fixed"] = "violating",
    *,
    every_rule: bool = False,
    target: Target | None = None,
) -> list[Finding]:
    """What ``rule`` reports on its own example, through the public runner of its scope with the example's
    settings (``rule.context``; ``target`` instead: :func:`severity_in_force`): the docs, ``--explain-rule`` and
    the tests all read it here."""
    target = target or Target.of(**rule.context)
    example = rule.fixed_example() if which == "fixed" else rule.compliant if which == "compliant" else rule.violating
    if rule.scope == "stack":
        found = [item.finding for item in check_stack(list(example), target.context())]
    elif rule.scope == "change":
        found = check_change(example[0], example[1], target.context())
    elif rule.scope == "preflight":
        found = check_preflight(example[0], example[1], target.context(), old=example[2] if len(example) > 2 else None)
    elif rule.scope == "setup":
        found = check_setup(example, target.context())
    else:
        found = check(example, target)
    return found if every_rule else [f for f in found if f.rule_id == rule.id]


def severity_in_force(rule: Rule, target: Target) -> SeverityInForce:
    """The severity ``rule`` reports at for ``target`` (its environment, version, gates, options) and why it is not
    the default: what ``--list-rules``, ``--explain-rule``, SARIF and docs/rules.md show."""
    from ._severity import in_force

    return in_force(rule, target)


def severity_by_environment(rule: Rule, target: Target | None = None) -> str:
    """docs/rules.md's severity cell: the default, then the environments that give another (``medium (prod: high)``)."""
    from ._severity import by_environment

    return by_environment(rule, target or Target())
