"""Every rule of the catalogue, of every scope, through the public runners: its compliant example passes, its
violating one fires at the path the rule names (``violating_path``).

The examples are data carried by each rule (also used by the docs and the mutation check), so this test covers
rules added later without edits here; so does the discovery test (a rule module needs no registration).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest
from _reference import sample_documents
from _rule_checks import direct_paths
from pulumi_kuberay import rules
from pulumi_kuberay.rules import _catalogue
from pulumi_kuberay.rules._engine import Rule

ALL_RULES: list[Rule] = sorted(rules.RULES.values(), key=lambda r: r.id)
RULES_PACKAGE = Path(rules.__file__).parent


def test_catalogue_is_substantial_and_ids_are_policy_names() -> None:
    assert len(ALL_RULES) >= 60
    for rule in ALL_RULES:
        assert rule.id == rule.id.lower() and " " not in rule.id and len(rule.id) <= 63, rule.id
        assert rule.severity in ("low", "medium", "high", "critical")
        assert rule.category in ("correctness", "reliability", "security", "cost", "hygiene")
        assert rule.scope in ("document", "stack", "setup", "change", "preflight")
        assert rule.title and rule.rationale and rule.fix


def test_every_rule_names_where_it_reports_its_violating_example() -> None:
    missing = [f"{rule.module}: {rule.id}" for rule in ALL_RULES if not rule.violating_path]
    assert missing == [], (
        "declare(..., violating_path=...) is missing: give the path the rule reports on its violating example "
        f"(kuberay-lint --explain-rule ID shows the findings): {', '.join(missing)}"
    )


def test_no_rule_is_left_as_scaffolded() -> None:
    """``scripts/new-rule`` writes TODOs where the prose and the logic go; none may stay."""
    unfinished = [
        rule.id
        for rule in ALL_RULES
        if any("TODO" in text for text in (rule.title, rule.rationale, rule.fix, rule.violating_path or ""))
        or any("TODO" in finding.message for finding in rules.example_findings(rule))
    ]
    assert unfinished == [], f"replace the TODOs that scripts/new-rule wrote in: {', '.join(unfinished)}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_compliant_example_passes(rule: Rule) -> None:
    fired = rules.example_findings(rule, "compliant")
    assert fired == [], f"{rule.id} fires on its own compliant example: {fired}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_violating_example_fires_at_its_path(rule: Rule) -> None:
    fired = rules.example_findings(rule)
    assert fired, f"{rule.id} does not fire on its own violating example"
    paths = [finding.path for finding in fired]
    assert rule.violating_path in paths, f"{rule.id}: violating_path={rule.violating_path!r}, reported at {paths}"
    for finding in fired:
        assert finding.path, f"{rule.id} reports no path"
        assert finding.fix, f"{rule.id} reports no fix"


@pytest.mark.parametrize("rule", rules.rules_of("document"), ids=lambda r: r.id)
def test_the_rule_itself_reports_what_check_reports(rule: Rule) -> None:
    """Straight through the rule (``Rule.run``: no suppression, no normalisation), with its example settings."""
    assert direct_paths(rule, rule.compliant) == []
    assert rule.violating_path in direct_paths(rule, rule.violating)


def test_rules_mirroring_a_validation_row_are_critical() -> None:
    """A rule mirroring an operator validation row (RC-, RJ-, RS-, RCJ-) blocks: the operator rejects."""
    rows = ("RC-", "RJ-", "RS-", "RCJ-")
    mirroring = [r for r in ALL_RULES if any(row.startswith(rows) for row in r.operator_rules)]
    lax = [r.id for r in mirroring if r.severity != "critical"]
    assert lax == []


def test_internal_errors_never_happen_on_examples() -> None:
    counts: Counter[str] = Counter()
    for rule in rules.rules_of("document"):
        for doc in (rule.compliant, rule.violating):
            for finding in rules.check(doc, rules.Target.of(**rule.context)):
                counts[finding.rule_id] += 1
    assert counts[rules.INTERNAL_ERROR_RULE_ID] == 0


def _declaring_modules() -> set[str]:
    """Every module of the rules package whose source calls ``declare(``, relative to the package."""
    out: set[str] = set()
    for path in RULES_PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "declare"]
        if calls and path.name != "_engine.py":
            out.add(".".join(path.relative_to(RULES_PACKAGE).with_suffix("").parts))
    return out


def test_every_module_that_declares_rules_is_found_and_its_rules_are_in_the_catalogue() -> None:
    declaring = _declaring_modules()
    assert len(declaring) >= 20
    hidden = sorted(m for m in declaring if any(part.startswith("_") for part in m.split(".")))
    assert hidden == [], f"rule modules must be public (no leading underscore) to be found: {hidden}"
    assert declaring <= set(_catalogue.load())
    assert declaring == {rule.module for rule in ALL_RULES}


def test_a_new_rule_module_is_found_without_registration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discovery walks the package's path: a module dropped beside the others is among the rule modules."""
    extra = tmp_path / "pulumi_kuberay_extra_rules"
    (extra / "room").mkdir(parents=True)
    (extra / "room" / "__init__.py").write_text("")
    (extra / "room" / "newrule.py").write_text("")
    (extra / "_helper.py").write_text("")
    monkeypatch.setattr(rules, "__path__", [*rules.__path__, str(extra)])
    found = _catalogue.rule_modules()
    assert "room.newrule" in found and "_helper" not in found


def test_no_critical_finding_on_upstream_samples(capsys: pytest.CaptureFixture[str]) -> None:
    """The false-positive check for the whole catalogue: every upstream Ray sample, all operator gates on,
    with no environment and as production: nothing critical, no rule crashes. Per-rule counts are printed so
    noisy rules are visible."""
    gates = {gate: True for gate in rules.DEFAULT_FEATURE_GATES}
    counts: Counter[str] = Counter({rule.id: 0 for rule in rules.rules_of("document")})
    critical: list[str] = []
    documents = 0
    for environment in (None, "prod"):
        for name, index, doc in sample_documents():
            if not rules.is_ray_document(doc):
                continue
            documents += environment is None
            for finding in rules.check(doc, feature_gates=gates, environment=environment):
                if environment is None:
                    counts[finding.rule_id] += 1
                if finding.severity == "critical" or finding.rule_id == rules.INTERNAL_ERROR_RULE_ID:
                    critical.append(
                        f"{name}#{index} [{environment}] {finding.rule_id} {finding.path}: {finding.message}"
                    )
    with capsys.disabled():
        print(f"\n[catalogue] findings per rule over {documents} upstream Ray documents (all gates on):")
        for rule_id, count in sorted(counts.items()):
            print(f"  {count:4d}  {rule_id}")
    assert documents >= 80
    assert critical == []
