"""The rule catalogue: ``check(manifest)`` runs every registered rule over one manifest dict.

Used by the components (at construction), the CrossGuard pack and ``kuberay-lint``, so a rule is written once.
Plain Python: never imports pulumi. Rule modules register their rules when imported; :func:`load_all` imports
every rule module that exists.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Iterator, Mapping
from typing import Any

from . import _paths
from ._engine import (
    DEFAULT_FEATURE_GATES,
    KINDS,
    RAY_GROUP,
    SEVERITY_ORDER,
    SUPPRESS_PREFIX,
    Category,
    Context,
    Environment,
    Finding,
    Rule,
    Severity,
    Violation,
    registered,
)
from ._paths import UNKNOWN_SENTINEL, is_unknown

__all__ = [
    "DEFAULT_FEATURE_GATES",
    "INTERNAL_ERROR_RULE_ID",
    "LOAD_ERRORS",
    "RULES",
    "RULE_MODULES",
    "SUPPRESS_PREFIX",
    "UNKNOWN_SENTINEL",
    "Category",
    "Context",
    "Finding",
    "Rule",
    "Severity",
    "Violation",
    "check",
    "default_feature_gates",
    "get_rule",
    "is_ray_document",
    "load_all",
    "make_context",
    "normalise",
    "parse_kuberay_version",
]

#: Rule modules, in load order. Those not (yet) present are skipped.
RULE_MODULES: tuple[str, ...] = (
    "structure",
    "versions",
    "operator_cluster",
    "operator_job",
    "operator_service",
    "operator_cronjob",
    "webhook",
    "runtime",
    "serve",
    "selection",
    "practice",
    "security",
)

#: Rule ids of the structural (typed model) rules start with this.
SCHEMA_RULE_PREFIX = "schema-"

#: rule_id of the finding reported when a rule's own check raises (a bug in the rule, not in the manifest).
INTERNAL_ERROR_RULE_ID = "internal-error"

_ENVIRONMENTS: tuple[str, ...] = ("dev", "staging", "prod")
_loaded = False


#: Rule modules that exist but failed to import (module -> error); reported by ``check`` as internal errors.
LOAD_ERRORS: dict[str, str] = {}


def load_all() -> tuple[str, ...]:
    """Import every rule module that exists (each registers its rules at import); returns the loaded names.

    A module that fails to import is recorded in :data:`LOAD_ERRORS` (and reported by ``check`` as an
    ``internal-error`` finding) instead of raising: one broken module must not disable the others.
    """
    global _loaded
    loaded: list[str] = []
    for name in RULE_MODULES:
        qualified = f"{__name__}.{name}"
        try:
            if importlib.util.find_spec(qualified) is None:
                continue
            importlib.import_module(qualified)
        except Exception as exc:
            LOAD_ERRORS[name] = f"{type(exc).__name__}: {exc}"
            continue
        LOAD_ERRORS.pop(name, None)
        loaded.append(name)
    _loaded = True
    return tuple(loaded)


def _ensure_loaded() -> None:
    if not _loaded:
        load_all()


class _RuleView(Mapping[str, Rule]):
    """Read-only ``{rule_id: Rule}`` view of the registry (loads the rule modules on first use)."""

    def _rules(self) -> dict[str, Rule]:
        _ensure_loaded()
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


_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?\s*$")


def parse_kuberay_version(version: str | tuple[int, ...]) -> tuple[int, int, int]:
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


def default_feature_gates(version: tuple[int, int, int] = (1, 7, 0)) -> dict[str, bool]:
    """The operator's gate defaults at ``version`` (reference 0.1 and 10: gates reach beta/on over time)."""
    gates = dict(DEFAULT_FEATURE_GATES)
    if version < (1, 7, 0):
        gates["RayServiceIncrementalUpgrade"] = False  # alpha in 1.5-1.6
    if version < (1, 6, 0):
        gates["RayJobDeletionPolicy"] = False  # alpha in 1.3-1.5
        gates["RayMultiHostIndexing"] = False  # alpha in 1.5
    if version < (1, 3, 0):
        gates["RayClusterStatusConditions"] = False  # alpha in 1.2
    return gates


def make_context(
    *,
    kuberay_version: str | tuple[int, ...] = "1.7.0",
    feature_gates: Mapping[str, bool] | None = None,
    environment: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Context:
    """The Context ``check`` uses: version parsed, gates laid over the defaults, environment checked.

    ``options`` are organisation settings some rules read (``allowed_registries``, ``gpu_budget``).
    """
    version = parse_kuberay_version(kuberay_version)
    gates = default_feature_gates(version)
    for name, value in (feature_gates or {}).items():
        if not isinstance(name, str) or not isinstance(value, bool):
            raise ValueError(f"invalid feature gate {name!r}={value!r}: expected a name and a boolean")
        gates[name] = value
    if environment is not None and environment not in _ENVIRONMENTS:
        raise ValueError(f"invalid environment {environment!r}: expected one of {', '.join(_ENVIRONMENTS)}")
    env: Environment | None = environment  # type: ignore[assignment]
    return Context(
        kuberay_version=version,
        feature_gates=gates,
        environment=env,
        options=dict(options or {}),
    )


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
        for violation in rule.check(doc, ctx):
            out.append(
                Finding(
                    rule_id=rule.id,
                    severity=violation.severity or rule.severity,
                    message=violation.message,
                    path=violation.path,
                    fix=violation.fix or rule.fix,
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
    """Drop a ``schema-*`` finding when a specific rule reports the same path.

    The typed model also enforces some operator invariants (e.g. minReplicas <= maxReplicas); the specific
    rule says more (its id is the policy name, its fix is precise), so the generic schema finding is noise.
    """
    specific = {f.path for f in findings if not f.rule_id.startswith(SCHEMA_RULE_PREFIX)}
    return [f for f in findings if not (f.rule_id.startswith(SCHEMA_RULE_PREFIX) and f.path in specific)]


def check(
    manifest: Any,
    *,
    kuberay_version: str | tuple[int, ...] = "1.7.0",
    feature_gates: Mapping[str, bool] | None = None,
    environment: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> list[Finding]:
    """Run the catalogue over one manifest dict; findings sorted by severity (critical first), then path.

    Never raises on the manifest: non-Ray documents (or non-dicts) give ``[]``, malformed Ray documents give
    findings, and a rule that crashes gives an ``internal-error`` finding. Raises ValueError only for bad
    arguments (version, gates, environment). Unknown (computed) values are never judged.
    """
    ctx = make_context(
        kuberay_version=kuberay_version, feature_gates=feature_gates, environment=environment, options=options
    )
    if not is_ray_document(manifest):
        return []
    _ensure_loaded()
    doc: dict[str, Any] = normalise(manifest)
    kind = doc.get("kind")
    silenced = _suppressions(doc)
    findings: list[Finding] = []
    _paths.begin_document(doc)
    try:
        for rule in registered():
            if kind not in rule.kinds:
                continue  # silenced rules still run: their findings cover schema duplicates (_drop_duplicates)
            findings.extend(_run_rule(rule, doc, ctx))
    finally:
        _paths.end_document()
    for module, error in LOAD_ERRORS.items():
        findings.append(
            Finding(
                rule_id=INTERNAL_ERROR_RULE_ID,
                severity="high",
                message=f"rule module {module!r} failed to load, its rules did not run: {error}",
                path="",
                fix="report this as a pulumi-kuberay bug",
            )
        )
    findings = _drop_schema_duplicates(findings)
    findings = [f for f in findings if f.rule_id not in silenced or f.rule_id == INTERNAL_ERROR_RULE_ID]
    return sorted(findings, key=_sort_key)
