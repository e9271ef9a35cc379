"""The three shells agree: every rule's examples give the same verdicts through the components, the policy pack
and ``kuberay-lint``, for several target versions.

Each shell builds its own Target the way it does in production: the components from the stack config plus
their arguments (``rule_settings``, then ``check_manifest``, the function every component calls), the pack from
its policy config (``target_for`` and the pack's findings cache), lint from its command-line flags (``main``).
A verdict is (rule id, severity, path); messages may differ by audience (how a gate is turned on), and lint
(plain YAML, no Pulumi) skips the rules declared ``pulumi_only``.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from pulumi_kuberay import rules
from pulumi_kuberay.cli import _lint_run, lint
from pulumi_kuberay.cli._lint_config import ConfigError, parse_config
from pulumi_kuberay.model import lower_camel as camel
from pulumi_kuberay.policy import _pack as pack
from pulumi_kuberay.resources._shared import CriticalFindingsError, check_manifest, rule_settings
from pulumi_kuberay.rules._options import OrgOptions, kebab
from pulumi_kuberay.rules.target import target_from_stack_config

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


def _stack_config(options: Mapping[str, Any]) -> dict[str, str]:
    """The organisation options as a stack's ``kuberay:*`` config (camelCase; values as the engine passes them)."""
    return {f"kuberay:{camel(name)}": json.dumps(value) for name, value in options.items()}


def _pack_config(options: Mapping[str, Any]) -> dict[str, Any]:
    """The organisation options as the pack's policy config (camelCase)."""
    return {camel(name): value for name, value in options.items()}


def _option_flags(options: Mapping[str, Any]) -> list[str]:
    """The organisation options as kuberay-lint flags (``--kebab-case``; a list as ``a,b``)."""
    flags: list[str] = []
    for name, value in options.items():
        flags += [f"--{kebab(name)}", ",".join(value) if isinstance(value, list) else str(value)]
    return flags


def _components(manifest: dict[str, Any], version: str, settings: Mapping[str, Any]) -> frozenset[Verdict]:
    pulumi.runtime.set_all_config(_stack_config(settings.get("options", {})))
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
    config.update(_pack_config(settings.get("options", {})))
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
    return flags + _option_flags(settings.get("options", {}))


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
# The organisation options: one spelling per shell, derived from the field name, validated once (OrgOptions).

#: A value of every option, as a user writes it (the test fails when an option is added without one).
OPTION_VALUES: dict[str, Any] = {
    "allowed_registries": ["docker.io/rayproject", "ghcr.io/acme"],
    "gpu_budget": 16,
    "pod_security_profile": "restricted",
    "kueue_version": "0.14",
}
EXPECTED_OPTIONS = OrgOptions(
    allowed_registries=("docker.io/rayproject", "ghcr.io/acme"),
    gpu_budget=16,
    pod_security_profile="restricted",
    kueue_version=(0, 14, 0),
)


def test_every_option_reaches_the_target_in_every_shell(tmp_path: Path) -> None:
    assert set(OPTION_VALUES) == set(OrgOptions.keys())
    pulumi.runtime.set_all_config(_stack_config(OPTION_VALUES))
    try:
        by_components = rule_settings().options
    finally:
        pulumi.runtime.set_all_config({})
    assert by_components == EXPECTED_OPTIONS
    assert pack.target_for(_pack_config(OPTION_VALUES)).options == EXPECTED_OPTIONS
    assert set(pack.CONFIG_SCHEMA.properties) >= set(OrgOptions.keys(camel))
    flags = lint._parser().parse_args(["x.yaml", *_option_flags(OPTION_VALUES)])
    assert _lint_run.target_of(flags, parse_config({}, tmp_path / ".kuberay-lint.yaml")).options == EXPECTED_OPTIONS
    file_config = parse_config({kebab(k): v for k, v in OPTION_VALUES.items()}, tmp_path / ".kuberay-lint.yaml")
    assert file_config.options == EXPECTED_OPTIONS
    no_flags = lint._parser().parse_args(["x.yaml"])
    assert _lint_run.target_of(no_flags, file_config).options == EXPECTED_OPTIONS  # the file, where no flag overrides


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("pod_security_profile", "strict", "must be one of privileged, baseline, restricted"),
        ("kueue_version", "latest", "must be a Kueue release such as 0.15 or v0.15.2"),
        ("gpu_budget", -1, "must be a non-negative integer (GPUs)"),
    ],
)
def test_a_bad_option_is_named_as_each_shell_spells_it(
    name: str, value: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pulumi.runtime.set_all_config({f"kuberay:{camel(name)}": json.dumps(value)})
    try:
        with pytest.raises(ValueError, match=rf"kuberay:{camel(name)} {re.escape(message)}"):
            rule_settings()
    finally:
        pulumi.runtime.set_all_config({})
    with pytest.raises(rules.TargetError, match=rf"policy config {camel(name)} {re.escape(message)}"):
        pack.target_for({camel(name): value})
    with pytest.raises(ConfigError, match=rf"{kebab(name)} {re.escape(message)}"):
        parse_config({kebab(name): value}, tmp_path / ".kuberay-lint.yaml")
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(rules.get_rule("worker-min-exceeds-max").compliant))
    capsys.readouterr()
    with contextlib.suppress(SystemExit):  # argparse refuses a choice or a type itself (exit 2)
        assert lint.main([str(tmp_path / "c.yaml"), "--no-config", f"--{kebab(name)}", str(value)]) == 2
    error = capsys.readouterr().err
    assert f"--{kebab(name)}" in error, error


def test_a_kueue_release_is_never_read_as_a_number() -> None:
    """``0.10`` is Kueue v0.10, not 0.1: the stack config keeps a fraction as text; YAML's number is refused."""
    target = target_from_stack_config({"kuberay:kueueVersion": "0.10"})
    assert target.options.kueue_version == (0, 10, 0)
    assert target_from_stack_config({"kuberay:version": "1.10"}).kuberay_version == "1.10"
    with pytest.raises(rules.TargetError, match="quote it"):
        OrgOptions.parse({"kueue-version": 0.1}, spell=kebab)


# --------------------------------------------------------------------------------------------------
# Every rule of every scope (each object, the stack, the operator's setup) is known to every shell.


def test_every_rule_in_every_shell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pulumi_kuberay.cli._lint_report import sarif_rules
    from pulumi_kuberay.rules._docs import render

    every = set(rules.RULES)
    assert {rule.scope for rule in rules.RULES.values()} == {"document", "stack", "setup", "change", "preflight"}
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
    # The pack sees only the new inputs: no policy for a change rule (tests: test_change_rules_run_where_...), nor
    # for a preflight rule (it reads the target cluster).
    changes = {rule.id for rule in rules.rules_of("change") + rules.rules_of("preflight")}
    policies = {policy.name for policy in pack.build_policies()}
    assert every - changes <= policies and not changes & policies
    for environment in ("dev", "staging", "prod"):
        assert every - changes <= set(pack.policy_config(environment))
        assert not changes & set(pack.policy_config(environment))


# --------------------------------------------------------------------------------------------------
# The change rules run where the old state is known: the components' resource hook and kuberay-lint --diff.

CHANGE_RULES = sorted(rules.rules_of("change"), key=lambda r: r.id)


def _hook(old: dict[str, Any], new: dict[str, Any], version: str, settings: Mapping[str, Any]) -> frozenset[Verdict]:
    """What the components' resource hook reports: its plan (a replace, as the components apply) and its target."""
    from pulumi_kuberay.plan import Operator, plan_change
    from pulumi_kuberay.resources._component import change_findings

    pulumi.runtime.set_all_config(_stack_config(settings.get("options", {})))
    try:
        target = rule_settings(version, settings.get("feature_gates"), settings.get("environment"))
    finally:
        pulumi.runtime.set_all_config({})
    operator = Operator(version=target.version, feature_gates=dict(target.feature_gates))
    return _verdicts(change_findings(plan_change(old, new, operator, mode="replace"), old, new, target))


def _lint_diff(
    old: dict[str, Any],
    new: dict[str, Any],
    version: str,
    settings: Mapping[str, Any],
    folder: Path,
    capsys: pytest.CaptureFixture[str],
) -> frozenset[Verdict]:
    for side, doc in (("old", old), ("new", new)):
        (folder / side).mkdir(parents=True)
        (folder / side / "object.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    capsys.readouterr()
    lint.main(["--diff", str(folder / "old"), str(folder / "new"), *_lint_flags(version, settings)])
    report = json.loads(capsys.readouterr().out)
    return frozenset((f["rule_id"], f["severity"], f["path"]) for c in report["changes"] for f in c["findings"])


@pytest.mark.parametrize("rule", CHANGE_RULES, ids=lambda r: r.id)
@pytest.mark.parametrize("environment", [None, "prod"])
def test_change_rules_run_where_the_old_state_is_known(
    rule: rules.Rule, environment: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The resource hook and ``kuberay-lint --diff`` agree on every change rule's examples; the pack has no policy
    for it (it never sees the old state)."""
    settings = {**_settings(rule), **({"environment": environment} if environment else {})}
    for version in ("1.6.0", "1.7.0"):
        for which in ("compliant", "violating"):
            old, new = rule.violating if which == "violating" else rule.compliant
            by_hook = _hook(old, new, version, settings)
            by_lint = _lint_diff(old, new, version, settings, tmp_path / version / which, capsys)
            assert by_hook == by_lint, (version, which)
            fired = {(rule_id, path) for rule_id, _, path in by_hook if rule_id == rule.id}
            assert fired == ({(rule.id, rule.violating_path)} if which == "violating" else set()), (version, which)
    assert rule.id not in {policy.name for policy in pack.build_policies()}
    assert rule.id not in {r.id for r in pack.pack_rules()}


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
