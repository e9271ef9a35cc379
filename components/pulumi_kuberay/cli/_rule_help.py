"""The rule reference from the installed package: ``kuberay-lint --list-rules`` / ``--explain-rule ID``, the
reference's URL per rule (SARIF ``helpUri``) and the docs shipped as package data."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.resources
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from pulumi_kuberay import rules
from pulumi_kuberay.cli.lint import DISTRIBUTION, package_version
from pulumi_kuberay.rules import Rule, Target, enforced_by, looks_at, ordered_rules, severity_in_force

#: Used when the package metadata is not available (running from a source tree without an install).
FALLBACK_HOMEPAGE = "https://github.com/pulumi-kuberay/pulumi-kuberay"
FALLBACK_REFERENCE = f"{FALLBACK_HOMEPAGE}/blob/main/docs/rules.md"

#: GitHub code scanning's scale (0.1-10): critical >= 9.0, high 7.0-8.9, medium 4.0-6.9, low 0.1-3.9.
SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0"}


def version() -> str:
    """The installed distribution's version (one place: :func:`pulumi_kuberay.cli.lint.package_version`)."""
    return package_version()


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


def all_rules() -> list[Rule]:
    """Every rule of every scope (each object, the stack, the operator's setup, a change), most severe first."""
    return ordered_rules()


def target_words(target: Target) -> str:
    """The settings a severity in force is for, in words: ``environment prod, KubeRay 1.7.0``."""
    return f"environment {target.environment or 'not set'}, KubeRay {target.kuberay_version}"


def _with_also(text: str, rule: Rule) -> str:
    """``text`` (a severity, maybe with its bracket) and the rule's other severities in one bracket, each reason once."""
    also = [clause for clause in rule.also if clause not in text]
    if not also:
        return text
    if text.endswith(")"):
        return f"{text[:-1]}; {'; '.join(also)})"
    return f"{text} ({'; '.join(also)})"


def list_rules(target: Target | None = None) -> str:
    """Every rule with the severity in force for ``target`` (what a lint with the same settings reports; the
    default in brackets where it differs: ``rules.severity_in_force``), and the other severities its findings take
    where the object or the target decides, as they say why (``critical ... (high: only the webhook, off here,
    refuses it)``: ``Rule.also``: :func:`_with_also`)."""
    target = (target or Target()).override(audience="cli")
    infos = all_rules()
    width = max(len(r.id) for r in infos)
    shown = {r.id: severity_in_force(r, target) for r in infos}
    lines = [f"{'rule id':<{width}}  {'severity':<8}  {'category':<11}  title"]
    for r in infos:
        in_force = shown[r.id]
        default = _with_also(f"(default {r.severity})" if in_force.differs else "", r).strip()
        lines.append(f"{r.id:<{width}}  {in_force.severity or 'off':<8}  {r.category:<11}  {r.title} {default}".rstrip())
    docs = installed_docs()
    lines += [
        "",
        f"{len(infos)} rules; severities for {target_words(target)} (--environment, --kuberay-version, --feature-gates). Details: kuberay-lint --explain-rule ID; reference: {reference_url()}"
        + (f" (installed copy: {docs / 'rules.md'})" if docs else ""),
    ]
    return "\n".join(lines) + "\n"


def _as_data(example: Any) -> Any:
    """An example as plain YAML-able data (a setup rule's example is an OperatorSetup)."""
    if dataclasses.is_dataclass(example) and not isinstance(example, type):
        example = dataclasses.asdict(example)
    if isinstance(example, Mapping):
        return {str(k): _as_data(v) for k, v in example.items()}
    if isinstance(example, (list, tuple)):
        return [_as_data(v) for v in example]
    return example


def explain_rule(rule_id: str, target: Target | None = None) -> str:
    rule = rules.get_rule(rule_id)  # KeyError: no such rule
    target = (target or Target()).override(audience="cli")
    in_force = severity_in_force(rule, target)
    mirrors = f"; mirrors operator rule(s) {', '.join(rule.operator_rules)}" if rule.operator_rules else ""
    mirrors += f"; enforced by {enforced_by(rule)}" if rule.enforced_by else ""
    applies = f"; applies to {rule.applies_to()}" if rule.applies_to() else ""
    silence = (
        f"Silence: --ignore {rule.id} (kuberay-lint), or the policy's enforcement level in the pack's config"
        if rule.scope not in ("document", "change", "preflight")
        else f'Silence on one object: metadata.annotations: {{suppress.pulumi-kuberay.io/{rule.id}: "<reason>"}}'
    )
    parts = [
        f"{rule.id}: {rule.title}",
        f"severity {_with_also(in_force.text(), rule)} for {target_words(target)}; category {rule.category}, {rule.scope} rule on {looks_at(rule)}{mirrors}{applies}",
        "",
        f"Why: {rule.rationale}",
        f"Fix: {rules.render_text(rule.fix, 'cli')}",
        "",
        silence,
        f"Reference: {help_uri(rule.id)}",
    ]
    examples = (("Violating example", rule.examples("violating")), ("Compliant example", rule.examples("compliant")))
    if rule.scope == "change":
        where = "Runs where the old state is known: the components' resource hook and kuberay-lint --diff OLD NEW / --diff-git REV (not the policy pack). Each example is the old manifest, then the new one."
        parts += ["", where]
    if rule.scope == "preflight":
        where = "Runs where the target cluster can be read: the components at preview, kuberay-lint --cluster PATH... and --live (not the policy pack). Each example is the manifest, then the cluster it is judged against."
        parts += ["", where]
    for title, docs in examples:
        body = yaml.safe_dump_all([_as_data(d) for d in docs], sort_keys=False, default_flow_style=False).rstrip()
        parts += ["", f"{title}:", *("  " + line for line in body.splitlines())]
    if rule.violating_path:
        parts += ["", f"On the violating example it reports {rule.violating_path}."]
    return "\n".join(parts) + "\n"
