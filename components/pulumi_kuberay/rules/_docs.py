"""The rule reference (docs/rules.md), rendered from the catalogue itself: ids, severities, rationale, fixes and
what each rule reports on its own violating example, for every rule of every scope. ``scripts/gen-rule-docs``
writes it; a test keeps it current.
"""

from __future__ import annotations

from collections import Counter

from pulumi_kuberay import rules
from pulumi_kuberay.rules._engine import Rule, render_text


def example_finding(rule: Rule) -> str:
    """What the rule reports on its own violating example, as one table-safe line."""
    found = rules.example_findings(rule)
    if not found:
        return "(no finding on its example)"
    first = next((f for f in found if f.path == rule.violating_path), found[0])
    return f"`{first.path}`: {first.message}".replace("|", "\\|").replace("\n", " ")


def render() -> str:
    ordered = rules.ordered_rules()
    counts = Counter(rule.scope for rule in ordered)
    lines = [
        "# Rule reference",
        "",
        "Generated from the catalogue by `scripts/gen-rule-docs` (do not edit by hand). Every rule runs in the",
        "components (critical findings fail before anything is registered), in the policy pack (one policy per rule,",
        "same id) and in `kuberay-lint` (SARIF ruleId = rule id). Silence a rule on one resource with the annotation",
        '`suppress.pulumi-kuberay.io/<rule-id>: "<reason>"`. The operator rule each one mirrors is in',
        "[operator-rules.md](operator-rules.md). 'Example' is what the rule reports on its own violating example.",
        "",
        f"{len(ordered)} rules: {counts['document']} on each Ray object, {counts['stack']} across the objects of a stack (kuberay-lint: the files given), {counts['setup']} on the KubeRay operator's setup.",
        "",
        "| rule id | severity | category | looks at | operator rules | applies to | title |",
        "|---|---|---|---|---|---|---|",
    ]
    for rule in ordered:
        lines.append(
            f"| [`{rule.id}`](#{rule.id}) | {rule.severity} | {rule.category} | {rules.looks_at(rule)} | {', '.join(rule.operator_rules) or '-'} | {rule.applies_to() or '-'} | {rule.title} |"
        )
    for rule in ordered:
        lines += [
            "",
            f"## {rule.id}",
            "",
            f"**{rule.title}** ({rule.severity}, {rule.category}; {rules.looks_at(rule)}{'; mirrors ' + ', '.join(rule.operator_rules) if rule.operator_rules else ''})",
            "",
            f"- Why: {rule.rationale}",
            f"- Fix: {render_text(rule.fix, 'docs')}",
            *([f"- Applies to: {rule.applies_to()}"] if rule.applies_to() else []),
            f"- Example: {example_finding(rule)}",
        ]
    return "\n".join(lines).rstrip() + "\n"
