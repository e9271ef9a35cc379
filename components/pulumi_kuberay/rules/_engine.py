"""The rule catalogue's machinery: the one way to declare a rule, findings, the context a check sees, registry.

Plain Python: never imports pulumi. The components, the policy pack and ``kuberay-lint`` all call
:func:`pulumi_kuberay.rules.check`, so a rule is written (and fixed) in exactly one place.

A rule is declared once, with :func:`declare` (``job/shutdown.py`` holds this one in full)::

    declare(
        id="rayjob-ttl-negative", title="Negative ttlSecondsAfterFinished", severity="critical",
        category="correctness", kinds=("RayJob", "RayCronJob"), rows=("RJ-04", "RCJ-06"),
        rationale="...", fix="...", check=per_job_spec(_check_ttl_negative),
        compliant=example_job(ttlSecondsAfterFinished=0), violating=example_job(ttlSecondsAfterFinished=-1),
        violating_path="spec.ttlSecondsAfterFinished",
    )

One kind of rule, three scopes: a ``document`` rule (the default) checks one Ray object, a ``stack`` rule the
whole set of objects (a Pulumi stack, the files given to ``kuberay-lint``), a ``setup`` rule the KubeRay
operator itself. The rule modules (every public module of this package) are found and imported by
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

from ._options import OrgOptions

if TYPE_CHECKING:
    from ._cel import Cel
    from ._operator import OperatorSetup

Severity = Literal["low", "medium", "high", "critical"]
Category = Literal["correctness", "reliability", "security", "cost", "hygiene"]
Environment = Literal["dev", "staging", "prod"]
#: Who reads a finding: the Python components, ``kuberay-lint`` on plain YAML, or the CrossGuard pack.
Audience = Literal["python", "cli", "pack"]
Version = tuple[int, int, int]

SEVERITY_ORDER: dict[str, int] = {"low": 0, "medium": 1, "high": 2, "critical": 3}
KINDS = ("RayCluster", "RayJob", "RayService", "RayCronJob")
RAY_GROUP = "ray.io"
#: The environments a target may name (stack config ``kuberay:environment``, ``--environment``).
ENVIRONMENTS: tuple[Environment, ...] = get_args(Environment)
AUDIENCES: tuple[Audience, ...] = get_args(Audience)
#: The operator version targeted when none is given.
LATEST_VERSION: Version = (1, 7, 0)

#: Annotation prefix to silence one rule on one resource: ``suppress.pulumi-kuberay.io/<rule-id>: "<reason>"``.
SUPPRESS_PREFIX = "suppress.pulumi-kuberay.io/"

#: Operator feature gates of KubeRay v1.7.0 and their defaults (upstream ``features.defaultFeatureGates``).
DEFAULT_FEATURE_GATES: dict[str, bool] = {
    "RayClusterStatusConditions": True,
    "RayJobDeletionPolicy": True,
    "RayMultiHostIndexing": True,
    "RayServiceIncrementalUpgrade": True,
    "RayCronJob": False,
    "SidecarSubmitterRestart": False,
    "RayClusterNetworkPolicy": False,
    "GCSFaultToleranceEmbeddedStorage": False,
    "RayClusterMTLS": False,
    "RayClusterHistoryServer": False,
    "KubernetesWAS": False,
}


def default_feature_gates(version: Version = LATEST_VERSION) -> dict[str, bool]:
    """The operator's gate defaults at ``version`` (gates reach beta, and so default on, over releases)."""
    gates = dict(DEFAULT_FEATURE_GATES)
    if version < (1, 7, 0):
        gates["RayServiceIncrementalUpgrade"] = False  # alpha in 1.5-1.6
    if version < (1, 6, 0):
        gates["RayJobDeletionPolicy"] = False  # alpha in 1.3-1.5
        gates["RayMultiHostIndexing"] = False  # alpha in 1.5
    if version < (1, 3, 0):
        gates["RayClusterStatusConditions"] = False  # alpha in 1.2
    return gates


_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?\s*$")


def parse_kuberay_version(version: str | tuple[int, ...]) -> Version:
    """``"1.6.0"``, ``"v1.6"`` or ``(1, 6)`` -> ``(1, 6, 0)``; anything else is a caller bug (ValueError)."""
    if isinstance(version, tuple):
        if 2 <= len(version) <= 3 and all(isinstance(p, int) and not isinstance(p, bool) for p in version):
            major, minor, *rest = version
            return (major, minor, rest[0] if rest else 0)
        raise ValueError(f"invalid KubeRay version {version!r}: expected (major, minor[, patch])")
    if not isinstance(version, str):
        raise ValueError(f"invalid KubeRay version {version!r}: expected a string like '1.7.0'")
    match = _VERSION.match(version)
    if match is None:
        raise ValueError(f"invalid KubeRay version {version!r}: expected 'MAJOR.MINOR[.PATCH]', e.g. '1.7.0'")
    return (int(match.group(1)), int(match.group(2)), int(match.group(3) or 0))


def format_version(version: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in version)


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


#: What a rule looks at: one Ray document (a resource), the whole set of documents (a Pulumi stack, the files
#: given to kuberay-lint), or the KubeRay operator's setup (:class:`~._operator.OperatorSetup`).
Scope = Literal["document", "stack", "setup"]
SCOPES: tuple[Scope, ...] = get_args(Scope)

#: A rule's check: (subject, context) -> violations. The subject is one manifest dict (``document``), the
#: sequence of manifest dicts (``stack``; each violation names its document with ``index``) or the operator setup
#: (``setup``).
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
    #: The examples: manifests (``document``), tuples of manifests (``stack``) or OperatorSetups (``setup``).
    compliant: Any
    violating: Any
    #: Where the rule reports its violating example (tests hold the rule to it).
    violating_path: str | None = None
    scope: Scope = "document"
    operator_rules: tuple[str, ...] = ()
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
    #: The rule module that declared it, relative to the catalogue (``cluster.gcs_ft``, ``cronjob``...).
    module: str = ""
    #: The violating example with ``fix`` applied (a :class:`~._fixed.Patch` or the whole subject), or None.
    fixed: Any = None
    #: Why the fix cannot be shown as a manifest (it is on the operator or the cluster), or None.
    fixed_elsewhere: str | None = None
    #: The check in CEL for the API server's ValidatingAdmissionPolicy (``pulumi_kuberay.admission``), or None.
    cel: Cel | None = None

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
        """The finding a violation becomes: the rule's id, severity and fix unless the violation overrides them."""
        return Finding(
            rule_id=self.id,
            severity=violation.severity or self.severity,
            message=render_text(violation.message, audience),
            path=violation.path,
            fix=render_text(violation.fix or self.fix, audience),
        )

    def examples(self, which: Literal["compliant", "violating"]) -> tuple[Any, ...]:
        """The example as a tuple of subjects (a stack rule's example is already a set)."""
        example = self.compliant if which == "compliant" else self.violating
        return tuple(example) if self.scope == "stack" else (example,)

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
    from ._operator import OperatorSetup  # it reads the engine's gates: imported once both exist

    for which, example in (("compliant", compliant), ("violating", violating)):
        if scope == "stack":
            ok = isinstance(example, tuple) and all(isinstance(doc, dict) for doc in example)
            shape = "a tuple of manifest dicts"
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
    since: str | None = None,
    gate: str | None = None,
    remediate: Remediation | None = None,
    pulumi_only: bool = False,
    context: Mapping[str, Any] | None = None,
    fixed: Any = None,
    fixed_elsewhere: str | None = None,
    cel: Cel | None = None,
) -> Rule:
    """Declare (and register) one rule; the only way a rule enters the catalogue.

    ``scope`` is what the check looks at: ``"document"`` (default; ``check(manifest, ctx)``), ``"stack"``
    (``check(manifests, ctx)``, examples are tuples of manifests) or ``"setup"`` (``check(setup, ctx)``, the
    operator's ``OperatorSetup``). ``kinds`` are the Ray kinds it runs on (document) or looks at (stack); a setup
    rule has none. ``violating_path`` is where the rule reports its violating example. ``rows`` are the operator
    validation rows it mirrors (``RC-01``...); ``since="1.6"`` and ``gate="Name"`` scope it; ``context`` holds
    the ``check()`` keywords its examples need (``environment``, ``options``...). ``fix`` and messages may say
    ``{gate:Name}``: each audience reads how it turns that gate on. ``fixed`` is the violating example with
    ``fix`` applied (``patch({"spec.x": 1})`` or the whole subject); ``fixed_elsewhere`` says why a fix cannot be
    a manifest. ``cel`` is the check in CEL for the API server (:mod:`._cel`). ``scripts/new-rule`` writes one.
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
        since=parse_kuberay_version(since) if since is not None else None,
        gate=gate,
        remediate=remediate,
        pulumi_only=pulumi_only,
        context=example_context,
        module=_declaring_module(),
        fixed=fixed,
        fixed_elsewhere=fixed_elsewhere,
        cel=cel,
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
