"""The three shells agree: every rule's examples give the same verdicts through the components, the policy pack
and ``kuberay-lint``, for several target versions.

Each shell builds its own Target the way it does in production: the components from the stack config plus
their arguments (``rule_settings``, then ``check_manifest``, the function every component calls), the pack from
its policy config (``target_for`` and the pack's findings cache), lint from its command-line flags (``main``).
A verdict is (rule id, severity, path); messages may differ by audience (how a gate is turned on), and lint
(plain YAML, no Pulumi) skips the rules declared ``pulumi_only``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from pulumi_kuberay import rules
from pulumi_kuberay.cli import lint
from pulumi_kuberay.policy import _pack as pack
from pulumi_kuberay.resources._shared import CriticalFindingsError, check_manifest, rule_settings

VERSIONS = ("1.3.0", "1.5.0", "1.6.0", "1.7.0")
#: The rules on one object (their examples are manifests); the stack and setup rules: test_every_rule_in_every_shell.
ALL_RULES = sorted(rules.rules_of("document"), key=lambda r: r.id)
PULUMI_ONLY = frozenset(rule.id for rule in ALL_RULES if rule.pulumi_only)

Verdict = tuple[str, str, str]
#: (version, settings as JSON) -> [(example key, manifest)]; one lint run per group.
Groups = dict[tuple[str, str], list[tuple[str, dict[str, Any]]]]


def _settings(rule: rules.Rule) -> dict[str, Any]:
    """The rule's example settings, without the version (the test sets it) and the operator (the shells take it
    from the operator component, Deployment or values: tests/test_operator_*.py)."""
    skip = ("kuberay_version", "operator")
    return {key: value for key, value in rule.context.items() if key not in skip and value is not None}


def _examples() -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    for version in VERSIONS:
        for rule in ALL_RULES:
            for which, manifest in (("compliant", rule.compliant), ("violating", rule.violating)):
                yield version, f"{rule.id}.{which}", _settings(rule), manifest


def _verdicts(findings: Any) -> frozenset[Verdict]:
    return frozenset((f.rule_id, f.severity, f.path) for f in findings)


def _components(manifest: dict[str, Any], version: str, settings: Mapping[str, Any]) -> frozenset[Verdict]:
    config = {}
    registries = settings.get("options", {}).get("allowed_registries")
    if registries is not None:
        config["kuberay:allowedRegistries"] = json.dumps(registries)
    pulumi.runtime.set_all_config(config)
    try:
        target = rule_settings(version, settings.get("feature_gates"), settings.get("environment"))
    finally:
        pulumi.runtime.set_all_config({})
    try:
        return _verdicts(check_manifest(manifest, target, subject="example"))
    except CriticalFindingsError as exc:
        # check_manifest raises on critical findings; the others are the ones it would have returned
        rest = [f for f in rules.check(manifest, target) if f.severity != "critical"]
        return _verdicts([*exc.findings, *rest])


def _pack(manifest: dict[str, Any], version: str, settings: Mapping[str, Any]) -> frozenset[Verdict]:
    config: dict[str, Any] = {"kuberayVersion": version}
    if settings.get("feature_gates"):
        config["featureGates"] = dict(settings["feature_gates"])
    if settings.get("environment"):
        config["environment"] = settings["environment"]
    registries = settings.get("options", {}).get("allowed_registries")
    if registries is not None:
        config["allowedRegistries"] = list(registries)
    cache = pack._FindingsCache()
    return _verdicts(cache.findings("urn:example", manifest, pack.target_for(config)))


def _lint_flags(version: str, settings: Mapping[str, Any]) -> list[str]:
    # one finding per container (no collapsing), no config file: verdicts comparable with the other shells
    flags = ["--format", "json", "--no-collapse", "--no-config", "--no-stack-rules", "--fail-on", "critical"]
    flags += ["--kuberay-version", version]
    gates = settings.get("feature_gates") or {}
    if gates:
        flags += ["--feature-gates", ",".join(f"{name}={str(on).lower()}" for name, on in gates.items())]
    if settings.get("environment"):
        flags += ["--environment", settings["environment"]]
    registries = settings.get("options", {}).get("allowed_registries")
    if registries is not None:
        flags += ["--allowed-registries", ",".join(registries)]
    return flags


def _lint_all(tmp: Path, capsys: pytest.CaptureFixture[str]) -> dict[tuple[str, str], frozenset[Verdict]]:
    groups: Groups = defaultdict(list)
    for version, key, settings, manifest in _examples():
        groups[(version, json.dumps(settings, sort_keys=True))].append((key, manifest))
    out: dict[tuple[str, str], frozenset[Verdict]] = {}
    for index, ((version, settings_json), examples) in enumerate(sorted(groups.items())):
        folder = tmp / f"group{index}"
        folder.mkdir()
        for key, manifest in examples:
            (folder / f"{key}.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
        capsys.readouterr()
        lint.main([str(folder), *_lint_flags(version, json.loads(settings_json))])
        found: dict[str, set[Verdict]] = {key: set() for key, _ in examples}
        for item in json.loads(capsys.readouterr().out)["findings"]:
            found[Path(item["file"]).name.removesuffix(".yaml")].add(
                (item["rule_id"], item["severity"], item["path"])
            )
        for key, verdicts in found.items():
            out[(version, key)] = frozenset(verdicts)
    return out


def test_components_pack_and_lint_agree_on_every_rule_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    linted = _lint_all(tmp_path, capsys)
    disagreements: list[str] = []
    compared = 0
    for version, key, settings, manifest in _examples():
        by_components = _components(manifest, version, settings)
        by_pack = _pack(manifest, version, settings)
        by_lint = linted[(version, key)]
        expected_lint = frozenset(v for v in by_components if v[0] not in PULUMI_ONLY)
        compared += 1
        if by_pack != by_components:
            disagreements.append(f"{version} {key}: pack {sorted(by_pack ^ by_components)}")
        if by_lint != expected_lint:
            disagreements.append(f"{version} {key}: lint {sorted(by_lint ^ expected_lint)}")
    assert compared == len(VERSIONS) * len(ALL_RULES) * 2
    assert disagreements == []


def test_the_gate_defaults_follow_the_target_version_in_every_shell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bug this test was written for: deletionStrategy at 1.5.0 (RayJobDeletionPolicy alpha, off)."""
    rule = rules.get_rule("rayjob-deletion-strategy-gate-disabled")
    manifest = rule.violating
    expected = ("rayjob-deletion-strategy-gate-disabled", "critical", "spec.deletionStrategy")
    assert expected in _components(manifest, "1.5.0", {})
    assert expected in _pack(manifest, "1.5.0", {})
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(manifest))
    capsys.readouterr()
    assert lint.main([str(tmp_path / "job.yaml"), *_lint_flags("1.5.0", {})]) == 1
    linted = {(f["rule_id"], f["severity"], f["path"]) for f in json.loads(capsys.readouterr().out)["findings"]}
    assert expected in linted
    assert expected not in _components(manifest, "1.6.0", {})


def test_pulumi_only_rules_are_skipped_by_lint_and_gate_hints_follow_the_audience() -> None:
    assert "rayjob-delete-self-under-pulumi" in PULUMI_ONLY
    rule = rules.get_rule("rayjob-delete-self-under-pulumi")
    assert rule.id in {f.rule_id for f in rules.check(rule.violating, rules.Target(audience="pack"))}
    assert rule.id not in {f.rule_id for f in rules.check(rule.violating, rules.Target(audience="cli"))}
    text = "turn on {gate:RayClusterMTLS}"
    assert rules.render_text(text, "python") == "turn on feature_gates={'RayClusterMTLS': True}"
    assert rules.render_text(text, "cli") == "turn on --feature-gates=RayClusterMTLS=true"
    assert rules.render_text(text, "pack") == "turn on kuberay:featureGates {RayClusterMTLS: true}"


# --------------------------------------------------------------------------------------------------
# Every rule of every scope (each object, the stack, the operator's setup) is known to every shell.


def test_every_rule_in_every_shell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pulumi_kuberay.cli._lint_report import sarif_rules
    from pulumi_kuberay.rules._docs import render

    every = set(rules.RULES)
    assert {rule.scope for rule in rules.RULES.values()} == {"document", "stack", "setup"}
    assert lint.main(["--list-rules"]) == 0
    listed = {line.split()[0] for line in capsys.readouterr().out.splitlines()[1:] if line.strip()}
    assert every <= listed
    for rule_id in sorted(every):
        assert lint.main(["--explain-rule", rule_id]) == 0, rule_id
        text = capsys.readouterr().out
        assert text.startswith(f"{rule_id}: ") and "Violating example:" in text, rule_id
    reference = render()
    assert all(f"\n## {rule_id}\n" in reference for rule_id in every)
    assert every <= {descriptor["id"] for descriptor in sarif_rules()}
    policies = {policy.name for policy in pack.build_policies()}
    assert every <= policies
    for environment in ("dev", "staging", "prod"):
        assert every <= set(pack.policy_config(environment))


def test_a_setup_finding_has_its_rule_in_sarif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A finding on the operator itself (``--operator-values``) carries a rule entry in SARIF, as any other."""
    values = tmp_path / "operator-values.yaml"
    values.write_text(yaml.safe_dump({"replicas": 1, "leaderElectionEnabled": False}))
    job = tmp_path / "job.yaml"
    job.write_text(yaml.safe_dump(rules.get_rule("rayjob-ttl-negative").compliant))
    lint.main([str(job), "--operator-values", str(values), "--environment", "prod", "--format", "sarif", "--no-config"])
    run = json.loads(capsys.readouterr().out)["runs"][0]
    descriptors = run["tool"]["driver"]["rules"]
    reported = {result["ruleId"]: result["ruleIndex"] for result in run["results"]}
    assert "operator-not-highly-available" in reported
    for rule_id, index in reported.items():
        assert descriptors[index]["id"] == rule_id
        assert descriptors[index]["shortDescription"]["text"] == rules.get_rule(rule_id).title
