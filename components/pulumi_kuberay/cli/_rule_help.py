"""The rule reference from the installed package: ``kuberay-lint --list-rules`` / ``--explain-rule ID``, the
reference's URL per rule (SARIF ``helpUri``) and the docs shipped as package data."""

from __future__ import annotations

import importlib.metadata
import importlib.resources
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from pulumi_kuberay import rules
from pulumi_kuberay.rules._engine import SEVERITY_ORDER, Rule
from pulumi_kuberay.rules.stack import STACK_RULES, StackRule

DISTRIBUTION = "pulumi-kuberay"
#: Used when the package metadata is not available (running from a source tree without an install).
FALLBACK_HOMEPAGE = "https://github.com/pulumi-kuberay/pulumi-kuberay"
FALLBACK_REFERENCE = f"{FALLBACK_HOMEPAGE}/blob/main/docs/rules.md"

#: GitHub code scanning's scale (0.1-10): critical >= 9.0, high 7.0-8.9, medium 4.0-6.9, low 0.1-3.9.
#: What the stack rules look at (a RayJob's clusterSelector, clusters' GPUs).
STACK_KINDS: tuple[str, ...] = ("RayCluster", "RayJob")
SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0"}


@dataclass(frozen=True)
class RuleInfo:
    """What the reference says about a rule, for a resource rule and a stack rule alike."""

    id: str
    title: str
    severity: str
    category: str
    rationale: str
    fix: str
    kinds: tuple[str, ...]
    operator_rules: tuple[str, ...]
    compliant: tuple[dict[str, Any], ...]
    violating: tuple[dict[str, Any], ...]
    scope: str  # "resource" or "stack"


def version() -> str:
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


@lru_cache(maxsize=1)
def _project_urls() -> dict[str, str]:
    try:
        entries = importlib.metadata.metadata(DISTRIBUTION).get_all("Project-URL") or []
    except importlib.metadata.PackageNotFoundError:
        entries = []
    out: dict[str, str] = {}
    for entry in entries:
        label, _, url = str(entry).partition(",")
        out[label.strip()] = url.strip()
    return out


def homepage() -> str:
    return _project_urls().get("Homepage", FALLBACK_HOMEPAGE)


def reference_url() -> str:
    return _project_urls().get("Rule reference", FALLBACK_REFERENCE)


def help_uri(rule_id: str) -> str:
    """The rule's section of the reference (headings are the rule ids, so the anchor is the id)."""
    return f"{reference_url()}#{rule_id}"


def installed_docs() -> Path | None:
    """The docs directory shipped in the package (docs/rules.md, operator-rules.md, troubleshooting.md)."""
    docs = importlib.resources.files("pulumi_kuberay") / "docs"
    path = Path(str(docs))
    return path if (path / "rules.md").is_file() else None


def _info(rule: Rule | StackRule) -> RuleInfo:
    if isinstance(rule, StackRule):  # over a set of objects: its examples are sets, it mirrors no operator rule
        mirrors: tuple[str, ...] = ()
        kinds, compliant, violating, scope = STACK_KINDS, rule.compliant, rule.violating, "stack"
    else:
        kinds, mirrors, scope = rule.kinds, rule.operator_rules, "resource"
        compliant, violating = (rule.compliant,), (rule.violating,)
    return RuleInfo(
        rule.id,
        rule.title,
        rule.severity,
        rule.category,
        rule.rationale,
        rule.fix,
        kinds,
        mirrors,
        compliant,
        violating,
        scope,
    )


def all_rules() -> list[RuleInfo]:
    """Every resource rule and stack rule, most severe first."""
    catalogue: list[Rule | StackRule] = [*rules.RULES.values(), *STACK_RULES]
    infos = [_info(r) for r in catalogue]
    return sorted(infos, key=lambda r: (-SEVERITY_ORDER[r.severity], r.id))


def rule_info(rule_id: str) -> RuleInfo | None:
    return next((r for r in all_rules() if r.id == rule_id), None)


def list_rules() -> str:
    infos = all_rules()
    width = max(len(r.id) for r in infos)
    lines = [f"{'rule id':<{width}}  {'severity':<8}  {'category':<11}  title"]
    lines += [f"{r.id:<{width}}  {r.severity:<8}  {r.category:<11}  {r.title}" for r in infos]
    docs = installed_docs()
    lines += [
        "",
        f"{len(infos)} rules. Details: kuberay-lint --explain-rule ID; reference: {reference_url()}"
        + (f" (installed copy: {docs / 'rules.md'})" if docs else ""),
    ]
    return "\n".join(lines) + "\n"


def explain_rule(rule_id: str) -> str:
    info = rule_info(rule_id)
    if info is None:
        raise KeyError(rule_id)
    mirrors = f"; mirrors operator rule(s) {', '.join(info.operator_rules)}" if info.operator_rules else ""
    parts = [
        f"{info.id}: {info.title}",
        f"severity {info.severity}, category {info.category}, {info.scope} rule on {', '.join(info.kinds)}{mirrors}",
        "",
        f"Why: {info.rationale}",
        f"Fix: {info.fix}",
        "",
        f'Silence on one object: metadata.annotations: {{suppress.pulumi-kuberay.io/{info.id}: "<reason>"}}',
        f"Reference: {help_uri(info.id)}",
    ]
    for title, docs in (("Violating example", info.violating), ("Compliant example", info.compliant)):
        if docs:
            body = yaml.safe_dump_all(list(docs), sort_keys=False, default_flow_style=False).rstrip()
            parts += ["", f"{title}:", *("  " + line for line in body.splitlines())]
    return "\n".join(parts) + "\n"
