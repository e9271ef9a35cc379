"""The rule reference (docs/rules.md), rendered from the catalogue itself: ids, severities, rationale, fixes and
what each rule reports on its own violating example, for every rule of every scope. ``scripts/gen-rule-docs``
writes it; a test keeps it current.
"""

from __future__ import annotations

from collections import Counter

from pulumi_kuberay import rules
from pulumi_kuberay.rules._engine import Rule, render_text


def proof_of(rule: Rule) -> str:
    """What proves a critical finding of ``rule`` and when it is not certain (docs/rules.md's "Certain because")."""
    if rule.proof:
        return rule.proof
    return f"{rules.enforced_by(rule)} refuses what it reports; where none of them acts on the object (spec.managedBy another controller, a RayCronJob whose gate is off or that is suspended) the finding is high, saying why"


def example_finding(rule: Rule) -> str:
    """What the rule reports on its own violating example, as one table-safe line."""
    found = rules.example_findings(rule)
    if not found:
        return "(no finding on its example)"
    first = next((f for f in found if f.path == rule.violating_path), found[0])
    return f"`{first.path}`: {first.message}".replace("|", "\\|").replace("\n", " ")


def render() -> str:
    ordered = rules.ordered_rules()
    severity = {rule.id: rules.severity_by_environment(rule) for rule in ordered}
    counts = Counter(rule.scope for rule in ordered)
    lines = [
        "# Rule reference",
        "",
        "Generated from the catalogue by `scripts/gen-rule-docs` (do not edit by hand). Every rule runs in the",
        "components (critical findings fail before anything is registered), in the policy pack (one policy per rule,",
        "same id) and in `kuberay-lint` (SARIF ruleId = rule id); the change rules (old -> new) run where the old",
        "state is known: the components' resource hook (at preview and up) and `kuberay-lint --diff` / `--diff-git`,",
        "not the policy pack. Silence a rule on one resource with the annotation",
        '`suppress.pulumi-kuberay.io/<rule-id>: "<reason>"` (a reason is required, for the change rules too). The',
        "operator rule each one mirrors is in [operator-rules.md](operator-rules.md). 'Example' is what the rule",
        "reports on its own violating example (a change rule: on the change from its old to its new example).",
        "'Enforced by' names the part of KubeRay that refuses what a rule reports: where none of them acts (a",
        "RayCronJob whose gate is off; a suspended RayCronJob, for what fails only when a RayJob runs) a critical",
        "finding is reported at high, saying why; an object `spec.managedBy` another controller gets none of the",
        "enforced rules but those its own webhook enforces (with the operator's webhooks on).",
        "'Severity' is the rule's default, then the environments (`kuberay:environment`, `--environment`) in which it",
        "reports another (`off`: nothing there), as `kuberay-lint --list-rules --environment ENV` shows it, then the",
        "severities its findings take where the object or the target decides, each with the reason such a finding",
        "gives (`critical (high: only the webhook, off here, refuses it)`; `--list-rules` prints them after the",
        "title); a finding whose severity is not the default says why at the end of its message.",
        "",
        f"{len(ordered)} rules: {counts['document']} on each Ray object, {counts['stack']} across the objects of a stack (kuberay-lint: the files given), {counts['setup']} on the KubeRay operator's setup, {counts['change']} on a change of one object (old -> new), {counts['preflight']} on one object against the target cluster (where it can be read: the components at preview, `kuberay-lint --cluster` / `--live`).",
        "",
        "| rule id | severity | category | looks at | operator rules | applies to | title |",
        "|---|---|---|---|---|---|---|",
    ]
    for rule in ordered:
        lines.append(
            f"| [`{rule.id}`](#{rule.id}) | {severity[rule.id]} | {rule.category} | {rules.looks_at(rule)} | {', '.join(rule.operator_rules) or '-'} | {rule.applies_to() or '-'} | {rule.title} |"
        )
    for rule in ordered:
        lines += [
            "",
            f"## {rule.id}",
            "",
            f"**{rule.title}** ({severity[rule.id]}, {rule.category}; {rules.looks_at(rule)}{'; mirrors ' + ', '.join(rule.operator_rules) if rule.operator_rules else ''}{'; enforced by ' + rules.enforced_by(rule) if rule.enforced_by else ''})",
            "",
            f"- Why: {rule.rationale}",
            f"- Fix: {render_text(rule.fix, 'docs')}",
            *([f"- Certain because: {proof_of(rule)}"] if rule.severity == "critical" else []),
            *([f"- What proves it, and why it is not certain: {rule.proof}"] if rule.severity != "critical" and rule.proof else []),
            *([f"- Applies to: {rule.applies_to()}"] if rule.applies_to() else []),
            f"- Example: {example_finding(rule)}",
        ]
    return "\n".join(lines).rstrip() + "\n"
