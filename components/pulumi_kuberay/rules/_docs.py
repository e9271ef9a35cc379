"""The rule reference (docs/rules.md), rendered from the catalogue itself: ids, severities, rationale, fixes and
what each rule reports on its own violating example. ``scripts/gen-rule-docs`` writes it; a test keeps it current.
"""

from __future__ import annotations

from pulumi_kuberay import rules
from pulumi_kuberay.rules._engine import SEVERITY_ORDER, Rule, render_text
from pulumi_kuberay.rules.stack import STACK_RULES, check_stack
from pulumi_kuberay.rules.target import Target


def _example_finding(rule: Rule) -> str:
    found = [f for f in rules.check(rule.violating, **rule.context) if f.rule_id == rule.id]
    if not found:
        return "(no finding on its example)"
    first = found[0]
    return f"`{first.path}`: {first.message}".replace("|", "\\|").replace("\n", " ")


def render() -> str:
    ordered = sorted(rules.RULES.values(), key=lambda r: (-SEVERITY_ORDER[r.severity], r.id))
    lines = [
        "# Rule reference",
        "",
        "Generated from the catalogue by `scripts/gen-rule-docs` (do not edit by hand). Every rule runs in the",
        "components (critical findings fail before anything is registered), in the policy pack (one policy per rule,",
        "same id) and in `kuberay-lint` (SARIF ruleId = rule id). Silence a rule on one resource with the annotation",
        '`suppress.pulumi-kuberay.io/<rule-id>: "<reason>"`. The operator rule each one mirrors is in',
        "[operator-rules.md](operator-rules.md). 'Example' is what the rule reports on its own violating example.",
        "",
        f"{len(ordered)} resource rules and {len(STACK_RULES)} stack rules.",
        "",
        "| rule id | severity | category | kinds | operator rules | applies to | title |",
        "|---|---|---|---|---|---|---|",
    ]
    for rule in ordered:
        kinds = ", ".join(rule.kinds)
        lines.append(
            f"| [`{rule.id}`](#{rule.id}) | {rule.severity} | {rule.category} | {kinds} "
            f"| {', '.join(rule.operator_rules) or '-'} | {rule.scope() or '-'} | {rule.title} |"
        )
    for rule in ordered:
        lines += [
            "",
            f"## {rule.id}",
            "",
            f"**{rule.title}** ({rule.severity}, {rule.category}; {', '.join(rule.kinds)}"
            f"{'; mirrors ' + ', '.join(rule.operator_rules) if rule.operator_rules else ''})",
            "",
            f"- Why: {rule.rationale}",
            f"- Fix: {render_text(rule.fix, 'docs')}",
            *([f"- Applies to: {rule.scope()}"] if rule.scope() else []),
            f"- Example: {_example_finding(rule)}",
        ]
    lines += ["", "## Stack rules (across resources)", ""]
    for stack_rule in STACK_RULES:
        ctx = Target(options=dict(stack_rule.options or {})).context()
        found = [f.finding for f in check_stack(list(stack_rule.violating), ctx) if f.finding.rule_id == stack_rule.id]
        example = f"`{found[0].path}`: {found[0].message}" if found else "(no finding on its example)"
        lines += [
            f"### {stack_rule.id}",
            "",
            f"**{stack_rule.title}** ({stack_rule.severity}, {stack_rule.category})",
            "",
            f"- Why: {stack_rule.rationale}",
            f"- Fix: {stack_rule.fix}",
            f"- Example: {example}",
            "",
        ]
    lines += _operator_setup_section()
    return "\n".join(lines).rstrip() + "\n"


def _operator_setup_section() -> list[str]:
    """The rules about the operator itself (``rules.operator``): on the KubeRayOperator component, on the operator
    Deployment in the pack's stack policy, and on ``kuberay-lint --operator-values``."""
    from pulumi_kuberay.rules.operator import SETUP_RULES, check_setup

    lines = ["", "## Operator setup rules (the operator itself)", ""]
    for setup_rule in SETUP_RULES:
        ctx = Target(environment=setup_rule.environment).context()
        found = [f for f in check_setup(setup_rule.violating, ctx) if f.rule_id == setup_rule.id]
        example = f"`{found[0].path}`: {found[0].message}" if found else "(no finding on its example)"
        lines += [
            f"### {setup_rule.id}",
            "",
            f"**{setup_rule.title}** ({setup_rule.severity}, {setup_rule.category})",
            "",
            f"- Why: {setup_rule.rationale}",
            f"- Fix: {setup_rule.fix}",
            f"- Example: {example}",
            "",
        ]
    return lines
