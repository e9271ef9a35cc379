"""The rule catalogue's machinery: the one way to declare a rule, findings, the context a check sees, registry.

Plain Python: never imports pulumi. The components, the policy pack and ``kuberay-lint`` all call
:func:`pulumi_kuberay.rules.check`, so a rule is written (and fixed) in exactly one place.

A rule is declared once, with :func:`declare` (``job_shutdown.py`` holds this one in full)::

    declare(
        id="rayjob-ttl-negative", title="Negative ttlSecondsAfterFinished", severity="critical",
        category="correctness", kinds=("RayJob", "RayCronJob"), rows=("RJ-04", "RCJ-06"), enforced_by=("operator",),
        rationale="...", fix="...", check=per_job_spec(_check_ttl_negative),
        compliant=example_job(ttlSecondsAfterFinished=0), violating=example_job(ttlSecondsAfterFinished=-1),
        violating_path="spec.ttlSecondsAfterFinished",
    )

One kind of rule, five scopes: a ``document`` rule (the default) checks one Ray object, a ``stack`` rule the
whole set of objects (a Pulumi stack, the files given to ``kuberay-lint``), a ``setup`` rule the KubeRay
operator itself, a ``change`` rule one object going from an old manifest to a new one (:class:`ChangeSubject`:
where the old state is known, the components' resource hook and ``kuberay-lint --diff``; never the policy pack,
which sees only the new inputs), a ``preflight`` rule one object against the cluster it lands in
(:class:`PreflightSubject`: where the cluster can be read, the components at preview, ``kuberay-lint --cluster``
and ``--live``; never the pack). The rule modules (every public module of this package) are found and imported by
:mod:`._catalogue`; ``scripts/new-rule ROOM ID`` writes a new declaration.

Which operator versions and feature gates a rule applies to (``since=``, ``gate=``) are data: the engine
skips the rule outside that scope and the rule reference shows it; the check body only looks at its subject.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from ..kuberay.api import DEFAULT_FEATURE_GATES as DEFAULT_FEATURE_GATES
from ..kuberay.api import KINDS as KINDS
from ..kuberay.api import LATEST_VERSION as LATEST_VERSION
from ..kuberay.api import RAY_GROUP as RAY_GROUP
from ..kuberay.api import Version as Version
from ..kuberay.api import default_feature_gates as default_feature_gates
from ..kuberay.api import format_version as format_version
from ..kuberay.api import parse_kuberay_version as parse_kuberay_version
from ._options import OrgOptions

if TYPE_CHECKING:  # only types: the plan (~60 ms of import) is loaded when a change is judged, never with the rules
    from pulumi_kuberay.operator.setup import OperatorSetup
    from pulumi_kuberay.plan import Change
    from pulumi_kuberay.preflight import ClusterSnapshot

    from ._cel import Cel

Severity = Literal["low", "medium", "high", "critical"]
Category = Literal["correctness", "reliability", "security", "cost", "hygiene"]
Environment = Literal["dev", "staging", "prod"]
#: Who reads a finding: the Python components, ``kuberay-lint`` on plain YAML, or the CrossGuard pack.
Audience = Literal["python", "cli", "pack"]

SEVERITY_ORDER: dict[str, int] = {"low": 0, "medium": 1, "high": 2, "critical": 3}
#: The environments a target may name (stack config ``kuberay:environment``, ``--environment``).
ENVIRONMENTS: tuple[Environment, ...] = get_args(Environment)
AUDIENCES: tuple[Audience, ...] = get_args(Audience)

#: Annotation prefix to silence one rule on one resource: ``suppress.pulumi-kuberay.io/<rule-id>: "<reason>"``.
SUPPRESS_PREFIX = "suppress.pulumi-kuberay.io/"

# --------------------------------------------------------------------------------------------------
# Audience-specific wording: ``{gate:Name}`` in a rule's fix or message says how THIS reader turns a gate on.

_GATE_PLACEHOLDER = re.compile(r"\{gate:([A-Za-z0-9]+)\}")
_GATE_WORDING: dict[str, Callable[[str], str]] = {
    "python": lambda gate: f"feature_gates={{'{gate}': True}}",
    "cli": lambda gate: f"--feature-gates={gate}=true",
    "pack": lambda gate: f"kuberay:featureGates {{{gate}: true}}",
    "docs": lambda gate: f"the {gate} feature gate",
}


#: ``{set}``: what the stack rules look across (a Pulumi stack, or the files given to kuberay-lint).
_SET_WORDING: dict[str, str] = {
    "python": "this stack",
    "cli": "the files given",
    "pack": "this stack",
    "docs": "the stack (kuberay-lint: the files given)",
}


def render_text(text: str, audience: str) -> str:
    """Replace each ``{gate:Name}`` placeholder with how ``audience`` turns that gate on (``"docs"``: prose), and
    ``{set}`` with what a stack rule looks across for that audience."""
    if "{" not in text:
        return text  # most messages and fixes hold no placeholder
    wording = _GATE_WORDING.get(audience, _GATE_WORDING["docs"])
    text = text.replace("{set}", _SET_WORDING.get(audience, _SET_WORDING["docs"]))
    return _GATE_PLACEHOLDER.sub(lambda m: wording(m.group(1)), text)


# --------------------------------------------------------------------------------------------------
# Findings and what a check sees


@dataclass(frozen=True)
class Finding:
    """One rule violation: which rule, how bad, what is wrong, where (field path), how to fix it."""

    rule_id: str
    severity: Severity
    message: str
    path: str
    fix: str
    #: Why the severity differs from the rule's default (one clause, also at the end of the message), or "".
    severity_why: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, str]:
        return {
            "rule_id": self.rule_id,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class Violation:
    """What a rule's check yields: the message and path; the rule supplies id, severity and default fix."""

    message: str
    path: str
    fix: str | None = None
    severity: Severity | None = None  # overrides the rule's severity (e.g. prod vs dev)
    #: Why ``severity`` differs from the rule's, one clause naming the severity ("high in prod"); the finding says it
    #: (at the end of its message) whenever its severity is not the rule's default.
    severity_why: str | None = None
    #: Stack rules: the position, in the set of manifests, of the document the path is in.
    index: int | None = None


@dataclass(frozen=True)
class Context:
    """What a check may depend on besides the manifest: made by ``Target.context()`` for a target; a bare
    ``Context()`` (the default of ``check_stack`` / ``check_setup``) is KubeRay v1.7.0 with its default gates, no
    environment, no operator known."""

    kuberay_version: Version = LATEST_VERSION
    feature_gates: Mapping[str, bool] = field(default_factory=lambda: dict(DEFAULT_FEATURE_GATES))
    environment: Environment | None = None
    #: Organisation settings some rules read (``allowed_registries``, ``gpu_budget``); None = that rule off.
    options: OrgOptions = field(default_factory=OrgOptions)
    #: The operator the object runs on (its version, gates, watched namespaces...); None = not known.
    operator: OperatorSetup | None = None
    audience: Audience = "python"
    #: The operator runs its validating webhooks (``ENABLE_WEBHOOKS=true``; off by default): rules only the
    #: webhooks enforce then block.
    webhooks: bool = False

    def gate(self, name: str) -> bool:
        return bool(self.feature_gates.get(name, False))

    def at_least(self, major: int, minor: int, patch: int = 0) -> bool:
        return self.kuberay_version >= (major, minor, patch)


#: Which part of KubeRay refuses what a rule reports (``declare(enforced_by=...)``): ``api-server`` (the CRD's
#: schema or a CEL rule: the create or update is refused, whoever reconciles the object), ``operator`` (the
#: operator's validation when it reconciles the object: unenforced while no controller of KubeRay acts on it),
#: ``run-time`` (only a running workload fails: unenforced while none is created) and ``<Kind> webhook`` (that
#: kind's own validating webhook, on create, when the operator runs its webhooks). The engine reads it, never
#: ``rows`` (documentation only): a critical finding is downgraded to high where nothing that enforces it acts.
Enforcer = Literal["api-server", "operator", "run-time", "RayCluster webhook", "RayJob webhook", "RayService webhook"]
ENFORCERS: tuple[Enforcer, ...] = get_args(Enforcer)

#: What a rule looks at: one Ray document (a resource), the whole set of documents (a Pulumi stack, the files
#: given to kuberay-lint), the KubeRay operator's setup (:class:`~pulumi_kuberay.operator.setup.OperatorSetup`), or
#: one object's change (:class:`ChangeSubject`), or one object against the cluster it lands in
#: (:class:`PreflightSubject`).
Scope = Literal["document", "stack", "setup", "change", "preflight"]
SCOPES: tuple[Scope, ...] = get_args(Scope)


@dataclass(frozen=True)
class ChangeSubject:
    """What a ``change`` rule's check looks at: one Ray object before and after, and the change plan for it (what
    KubeRay will do: ``pulumi_kuberay.plan.Change``, made by the caller, with the live objects where it read them).
    Paths of its violations are on the new manifest."""

    #: The last applied manifest (None: the object is created).
    old: Mapping[str, Any] | None
    new: Mapping[str, Any]
    plan: Change


@dataclass(frozen=True)
class PreflightSubject:
    """What a ``preflight`` rule's check looks at: one Ray object and the cluster it lands in (a
    :class:`~pulumi_kuberay.preflight.ClusterSnapshot` read once per preview or lint run). Paths of its violations
    are on the manifest."""

    manifest: Mapping[str, Any]
    cluster: ClusterSnapshot
    #: the namespace the object lands in (the manifest's, else the caller's default)
    namespace: str
    #: the change plan when the object exists already (its ``extra`` is what a second cluster needs), else None
    plan: Change | None = None
    #: (kind, namespace, name) of the objects created with this one (the files given to ``kuberay-lint``): a
    #: reference to one of them is not missing. None: not known (the components), a missing one is then not
    #: critical, since the stack may create it.
    created_here: frozenset[tuple[str, str, str]] | None = None


#: A rule's check: (subject, context) -> violations. The subject is one manifest dict (``document``), the
#: sequence of manifest dicts (``stack``; each violation names its document with ``index``), the operator setup
#: (``setup``) or a :class:`ChangeSubject` (``change``).
CheckFn = Callable[[Any, Context], Iterable[Violation]]
Remediation = Callable[[Any], "dict[str, Any] | None"]


@dataclass(frozen=True)
class Rule:
    """A rule is data plus a small check: its id, severity, prose, scope, examples and the check itself.

    Declare one with :func:`declare`. ``check`` is the function it was declared with; :meth:`run` applies the
    rule's scope (``since``, ``gate``, audience) before calling it.
    """

    id: str
    title: str
    severity: Severity
    category: Category
    rationale: str
    fix: str
    kinds: tuple[str, ...]
    check: CheckFn
    #: The examples: manifests (``document``), tuples of manifests (``stack``), OperatorSetups (``setup``),
    #: (old, new) pairs of manifests (``change``) or (manifest, ClusterSnapshot) pairs (``preflight``).
    compliant: Any
    violating: Any
    #: Where the rule reports its violating example (tests hold the rule to it).
    violating_path: str | None = None
    scope: Scope = "document"
    #: The operator validation rows it mirrors (documentation: ``docs/operator-rules.md``; the engine never reads them).
    operator_rules: tuple[str, ...] = ()
    #: Which parts of KubeRay refuse what it reports (:data:`Enforcer`); empty: KubeRay accepts it (advice).
    enforced_by: tuple[Enforcer, ...] = ()
    #: A critical rule's proof: what in the spec (and the target, and the cluster read) proves the failure, and when
    #: it is not certain (and what the rule then reports); empty for a rule whose enforcers refuse what it reports.
    #: A rule below critical whose failure an input outside the spec decides says so here (which input, and what
    #: decides it with a cluster).
    proof: str = ""
    #: First operator version the rule applies to (older targets skip it).
    since: Version | None = None
    #: Operator feature gate that must be on for the rule to apply.
    gate: str | None = None
    #: A safe automatic fix (the pack's remediation): new manifest, or None when nothing changed.
    remediate: Remediation | None = None
    #: Only meaningful when Pulumi manages the object (skipped for the ``cli`` audience: plain YAML).
    pulumi_only: bool = False
    #: Target settings (as ``check()`` keywords) its examples are judged with, on top of since/gate.
    context: Mapping[str, Any] = field(default_factory=dict)
    #: The rule module that declared it, relative to the catalogue (``gcs_fault_tolerance``, ``cronjob_spec``...).
    module: str = ""
    #: The violating example with ``fix`` applied (a :class:`~._fixed.Patch` or the whole subject), or None.
    fixed: Any = None
    #: Why the fix cannot be shown as a manifest (it is on the operator or the cluster), or None.
    fixed_elsewhere: str | None = None
    #: The check in CEL for the API server's ValidatingAdmissionPolicy (``pulumi_kuberay.admission``), or None.
    cel: Cel | None = None
    #: The other severities its findings take where the object or the target (not the environment: the examples show
    #: that) decides, each as such a finding says why (``high: only the webhook, off here, refuses it``):
    #: ``--list-rules``, ``--explain-rule`` and docs/rules.md show them beside the severity.
    also: tuple[str, ...] = ()

    def applies(self, ctx: Context) -> bool:
        """Whether the rule runs at all for this target (version, gate, audience)."""
        if self.since is not None and ctx.kuberay_version < self.since:
            return False
        if self.gate is not None and not ctx.gate(self.gate):
            return False
        return not (self.pulumi_only and ctx.audience == "cli")

    def run(self, subject: Any, ctx: Context) -> Iterator[Violation]:
        """The rule's violations on ``subject`` for this target (none when the rule does not apply)."""
        if self.applies(ctx):
            yield from self.check(subject, ctx)

    def finding(self, violation: Violation, audience: str) -> Finding:
        """The finding a violation becomes: the rule's id, severity and fix unless the violation overrides them; a
        severity other than the rule's default says why at the end of the message."""
        severity = violation.severity or self.severity
        why = violation.severity_why if severity != self.severity and violation.severity_why else ""
        message = render_text(violation.message, audience)
        return Finding(
            rule_id=self.id,
            severity=severity,
            message=f"{message} ({why})" if why else message,
            path=violation.path,
            fix=render_text(violation.fix or self.fix, audience),
            severity_why=why,
        )

    def examples(self, which: Literal["compliant", "violating"]) -> tuple[Any, ...]:
        """The example as a tuple of subjects (a stack rule's example is already a set, a change rule's the old and
        the new manifest, a preflight rule's the manifest and the cluster snapshot as plain data)."""
        example = self.compliant if which == "compliant" else self.violating
        if self.scope == "preflight":  # the manifest, the cluster as plain data, and the live object if any
            return (example[0], example[1].to_data(), *example[2:])
        return tuple(example) if self.scope in ("stack", "change") else (example,)

    def fixed_example(self) -> Any:
        """The violating example with the rule's fix applied (None when the rule declares none)."""
        from ._fixed import Patch

        return self.fixed.apply(self.violating) if isinstance(self.fixed, Patch) else self.fixed

    def applies_to(self) -> str:
        """The rule's version/gate/audience scope in words (rule reference): ``KubeRay >= 1.7, gate ... on``."""
        parts = []
        if self.since is not None:
            parts.append(f"KubeRay >= {format_version(self.since[:2] if self.since[2] == 0 else self.since)}")
        if self.gate is not None:
            parts.append(f"feature gate {self.gate} on")
        if self.pulumi_only:
            parts.append("Pulumi-managed objects only")
        return ", ".join(parts)


_REGISTRY: dict[str, Rule] = {}
_CATALOGUE_PACKAGE = __name__.rsplit(".", 1)[0] + "."
#: The keywords of ``check()`` / ``Target.of()`` a rule's ``context`` may hold.
_CONTEXT_KEYS = frozenset({"kuberay_version", "feature_gates", "environment", "options", "operator", "webhooks"})


def _declaring_module() -> str:
    """The module calling :func:`declare` (two frames up), relative to the catalogue package."""
    name = str(sys._getframe(2).f_globals.get("__name__", ""))
    return name.removeprefix(_CATALOGUE_PACKAGE)


def _check_examples(id: str, scope: Scope, compliant: Any, violating: Any) -> None:
    from pulumi_kuberay.operator.setup import OperatorSetup

    for which, example in (("compliant", compliant), ("violating", violating)):
        if scope == "stack":
            ok = isinstance(example, tuple) and all(isinstance(doc, dict) for doc in example)
            shape = "a tuple of manifest dicts"
        elif scope == "change":
            ok = (
                isinstance(example, tuple)
                and len(example) == 2
                and (example[0] is None or isinstance(example[0], dict))
                and isinstance(example[1], dict)
            )
            shape = "an (old, new) pair of manifest dicts (old may be None: a create)"
        elif scope == "preflight":
            from pulumi_kuberay.preflight import ClusterSnapshot

            ok = (
                isinstance(example, tuple)
                and len(example) in (2, 3)
                and isinstance(example[0], dict)
                and isinstance(example[1], ClusterSnapshot)
                and (len(example) == 2 or isinstance(example[2], dict))
            )
            shape = "a (manifest dict, ClusterSnapshot) pair, or (manifest, ClusterSnapshot, the live object's manifest)"
        elif scope == "setup":
            ok = isinstance(example, OperatorSetup)
            shape = "an OperatorSetup"
        else:
            ok = isinstance(example, Mapping)
            shape = "a manifest dict"
        if not ok:
            raise ValueError(f"rule {id!r}: {which} must be {shape} for a {scope} rule, got {type(example).__name__}")


def declare(
    *,
    id: str,
    title: str,
    severity: Severity,
    category: Category,
    rationale: str,
    fix: str,
    check: CheckFn,
    compliant: Any,
    violating: Any,
    kinds: tuple[str, ...] = (),
    violating_path: str | None = None,
    scope: Scope = "document",
    rows: tuple[str, ...] = (),
    enforced_by: tuple[Enforcer, ...] = (),
    proof: str = "",
    since: str | None = None,
    gate: str | None = None,
    remediate: Remediation | None = None,
    pulumi_only: bool = False,
    context: Mapping[str, Any] | None = None,
    fixed: Any = None,
    fixed_elsewhere: str | None = None,
    cel: Cel | None = None,
    also: tuple[str, ...] = (),
) -> Rule:
    """Declare (and register) one rule; the only way a rule enters the catalogue.

    ``scope`` is what the check looks at: ``"document"`` (default; ``check(manifest, ctx)``), ``"stack"``
    (``check(manifests, ctx)``, examples are tuples of manifests), ``"setup"`` (``check(setup, ctx)``, the
    operator's ``OperatorSetup``) or ``"change"`` (``check(change, ctx)``, a :class:`ChangeSubject`; examples are
    (old, new) pairs of manifests) or ``"preflight"`` (``check(subject, ctx)``, a :class:`PreflightSubject`;
    examples are (manifest, ClusterSnapshot) pairs, or triples with the live object last: a change is then
    planned). ``kinds`` are the Ray kinds it runs on (document) or looks at (stack); a setup
    rule has none. ``violating_path`` is where the rule reports its violating example. ``rows`` are the operator
    validation rows it mirrors (``RC-01``..., documentation only); ``enforced_by`` which parts of KubeRay refuse
    what it reports (:data:`Enforcer`: why a critical finding is downgraded where they do not act); ``proof``, for a
    critical rule, what proves the failure and when it is not certain (docs/rules.md shows it; a rule below
    critical because an input outside the spec decides names that input there too);
    ``since="1.6"`` and ``gate="Name"`` scope it; ``context`` holds the ``check()`` keywords its examples need
    (``environment``, ``options``...). ``fix`` and messages may say ``{gate:Name}``: each audience reads how it
    turns that gate on. ``fixed`` is the violating example with ``fix`` applied (``patch({"spec.x": 1})`` or the
    whole subject); ``fixed_elsewhere`` says why a fix cannot be a manifest. ``cel`` is the check in CEL for the API
    server (:mod:`._cel`). ``also`` names the other severities its findings take, each as the finding says why
    (the check's own constant: ``also=(_ONLY_WEBHOOK,)``). ``scripts/new-rule`` writes one.
    """
    if scope not in SCOPES:
        raise ValueError(f"rule {id!r}: scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    if gate is not None and gate not in DEFAULT_FEATURE_GATES:
        raise ValueError(f"rule {id!r}: unknown feature gate {gate!r}")
    unknown = set(kinds) - set(KINDS)
    if unknown or (not kinds) != (scope == "setup"):
        wanted = "none (it looks at the operator)" if scope == "setup" else f"some of {', '.join(KINDS)}"
        raise ValueError(f"rule {id!r}: kinds of a {scope} rule must be {wanted}, got {kinds!r}")
    _check_examples(id, scope, compliant, violating)
    stray_enforcers = ", ".join(e for e in enforced_by if e not in ENFORCERS)
    if stray_enforcers or len(set(enforced_by)) != len(enforced_by):
        raise ValueError(f"rule {id!r}: enforced_by takes distinct values of {', '.join(ENFORCERS)}, got {enforced_by!r}")
    for why in also:
        if why.split(":")[0].split(",")[0].split(" ")[0] not in set(SEVERITY_ORDER) - {severity}:
            raise ValueError(f"rule {id!r}: each of also starts with another severity than {severity!r}, got {why!r}")
    example_context = dict(context or {})
    stray = ", ".join(sorted(set(example_context) - _CONTEXT_KEYS))
    if stray:
        raise ValueError(f"rule {id!r}: context takes {', '.join(sorted(_CONTEXT_KEYS))}, not {stray}")
    if gate is not None:
        gates = dict(example_context.get("feature_gates") or {})
        gates.setdefault(gate, True)
        example_context["feature_gates"] = gates
    rule = Rule(
        id=id,
        title=title,
        severity=severity,
        category=category,
        rationale=rationale,
        fix=fix,
        kinds=tuple(kinds),
        check=check,
        compliant=compliant,
        violating=violating,
        violating_path=violating_path,
        scope=scope,
        operator_rules=tuple(rows),
        enforced_by=tuple(enforced_by),
        proof=proof,
        since=parse_kuberay_version(since) if since is not None else None,
        gate=gate,
        remediate=remediate,
        pulumi_only=pulumi_only,
        context=example_context,
        module=_declaring_module(),
        fixed=fixed,
        fixed_elsewhere=fixed_elsewhere,
        cel=cel,
        also=tuple(also),
    )
    if rule.id in _REGISTRY:
        raise ValueError(f"duplicate rule id {rule.id!r}")
    _REGISTRY[rule.id] = rule
    return rule


def registry_snapshot() -> tuple[Rule, ...]:
    """Every declared rule now, in declaration order (the catalogue index compares it to rebuild)."""
    return tuple(_REGISTRY.values())


def registered(scope: Scope | None = None) -> Iterator[Rule]:
    """The declared rules (of one scope), in declaration order. Use ``rules.RULES``: it loads the catalogue."""
    return (rule for rule in list(_REGISTRY.values()) if scope is None or rule.scope == scope)
