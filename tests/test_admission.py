# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""The ValidatingAdmissionPolicies generated from the catalogue (``pulumi_kuberay.admission``): their shape, the
per-environment actions (the policy pack's own mapping), every rule covered or given a reason, ``kuberay-lint
--emit-admission-policies`` and ``KubeRayOperator(admission_policies=...)`` under mocks.

Whether the API server agrees with the Python checks is the cluster tier's
(``tests/cluster/test_admission_policies.py``).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from _pulumi_mocks import MockEnv, after_settling, mock_env
from pulumi_kuberay import admission, rules
from pulumi_kuberay.cli import lint
from pulumi_kuberay.policy import _pack
from pulumi_kuberay.rules._cel import Cel

VAP = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy"
VAPB = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding"


def test_every_rule_is_covered_or_says_why_not() -> None:
    coverage = admission.coverage()
    assert [c.rule.id for c in coverage] == list(rules.RULES)
    for item in coverage:
        assert (item.rule.cel is None) == (item.reason is not None), item.rule.id
    stray = set(admission.REASONS) - set(rules.RULES)
    assert not stray, f"reasons for rules that do not exist: {sorted(stray)}"
    both = [rid for rid in admission.REASONS if rules.RULES[rid].cel is not None]
    assert not both, f"rules with a CEL check and a reason not to have one: {both}"
    assert len(admission.covered_rules()) >= 40
    assert set(admission.PARTIAL) <= {rule.id for rule in admission.covered_rules()}, "PARTIAL names rules without a CEL check"


def test_covered_rules_are_judged_alike_by_every_target_of_the_policies() -> None:
    """A policy cannot see the target: a covered rule has no gate, no target settings and applies at 1.7.0."""
    for rule in admission.covered_rules():
        assert rule.scope == "document" and rule.gate is None and not rule.pulumi_only, rule.id
        assert not set(rule.context) & {"environment", "options", "operator"}, rule.id
        assert rule.since is None or rule.since <= rules.parse_kuberay_version(admission.TARGET_VERSION), rule.id


def _policies(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == "ValidatingAdmissionPolicy"}


def _policy_of(rule_id: str, docs: list[dict[str, Any]]) -> dict[str, Any]:
    (found,) = [d for d in _policies(docs).values() if rule_id in admission.policy_rules(d)]
    return found


def test_rules_bound_alike_share_one_policy() -> None:
    docs = admission.admission_policies("staging")
    policies = _policies(docs)
    assert list(policies) == ["kuberay-deny", "kuberay-warn"]
    held = [rule_id for policy in policies.values() for rule_id in admission.policy_rules(policy)]
    assert sorted(held) == sorted(rule.id for rule in admission.covered_rules())
    for policy in policies.values():
        validations = policy["spec"]["validations"]
        members = admission.policy_rules(policy)
        cels = [cel for rid in members if (cel := rules.RULES[rid].cel) is not None]
        assert len(cels) == len(members) and len(validations) == sum(len(cel.parts()) for cel in cels)
        for validation in validations:
            rule_id = admission.RULE_IN_MESSAGE.match(validation["message"])
            assert rule_id and rule_id.group(1) in members, validation["message"][:80]
            assert validation["expression"].startswith(f'"{rule_id.group(1)}" in variables.suppressed || ')
    assert {rules.RULES[rid].severity for rid in admission.policy_rules(policies["kuberay-deny"])} == {"critical"}
    assert [c["name"] for c in policies["kuberay-deny"]["spec"]["matchConditions"]] == ["created-or-spec-changed"]


def test_per_environment_policies_are_named_by_their_actions() -> None:
    names = list(_policies(admission.admission_policies()))
    assert names == [
        "kuberay-dev-warn-staging-deny-prod-deny",
        "kuberay-dev-warn-staging-warn-prod-deny",
        "kuberay-dev-warn-staging-warn-prod-warn",
    ]
    assert list(_policies(admission.admission_policies(mode="warn"))) == ["kuberay-dev-warn-staging-warn-prod-warn"]


def test_each_validation_names_its_rule_path_and_fix() -> None:
    rule = rules.RULES["worker-min-exceeds-max"]
    policy = _policy_of(rule.id, admission.admission_policies("prod"))
    spec = policy["spec"]
    assert spec["failurePolicy"] == "Ignore"
    assert spec["matchConstraints"]["resourceRules"][0]["resources"] == [
        "rayclusters",
        "rayjobs",
        "rayservices",
        "raycronjobs",
    ]
    (validation,) = [v for v in spec["validations"] if v["message"].startswith(f"{rule.id} (")]
    assert validation["message"].startswith("worker-min-exceeds-max (critical): ")
    assert "workerGroupSpecs[].minReplicas" in validation["message"] and rule.fix in validation["message"]
    assert "variables.clusterPath" in validation["messageExpression"]
    # An operator rule skips an object another controller manages; this rule applies to every kind: no kind guard.
    guards = '"worker-min-exceeds-max" in variables.suppressed || variables.foreignManaged || ('
    assert validation["expression"].startswith(guards)
    names = [v["name"] for v in spec["variables"]]
    assert names[:4] == ["suppressed", "foreignManaged", "clusters", "clusterPath"]


def test_a_rule_of_fewer_kinds_is_guarded_by_kind() -> None:
    rule = rules.RULES["rayjob-ttl-negative"]
    assert set(rule.kinds) < set(admission.PLURALS)
    (validation,) = admission.policy("p", [rule, rules.RULES["worker-min-exceeds-max"]])["spec"]["validations"][:1]
    kinds = ", ".join(repr(kind) for kind in rule.kinds)
    assert f"!(object.kind in [{kinds}])" in validation["expression"]
    (alone,) = admission.policy("p", [rule])["spec"]["validations"]
    assert "object.kind in" not in alone["expression"].split(" || (", 1)[0]


def test_a_rule_with_further_checks_gets_one_validation_each() -> None:
    policy = admission.policy("p", [rules.RULES["pod-security-baseline"]])
    assert len(policy["spec"]["validations"]) == 2
    assert all("variables.foreignManaged" not in v["expression"] for v in policy["spec"]["validations"])  # not an operator rule


def test_the_head_container_guard_chain_is_written_once() -> None:
    """The rules read the head container through the policy's variables (``rules._cel.HEAD_CONTAINERS`` ...), never
    through their own guard chain."""
    chain = "has(c.headGroupSpec.template.spec.containers)"
    parts = [(rule.id, part) for rule in admission.covered_rules() if rule.cel for part in rule.cel.parts()]
    repeated = [rule_id for rule_id, part in parts if chain in part.expression]
    assert repeated == []


@pytest.mark.parametrize("environment", rules.ENVIRONMENTS)
def test_actions_follow_the_policy_pack_levels(environment: str) -> None:
    config = _pack.policy_config(environment)
    for rule in admission.covered_rules():
        expected = ["Deny", "Audit"] if config[rule.id] == "mandatory" else ["Warn", "Audit"]
        assert admission.actions(rule, environment) == expected, (environment, rule.id)
        assert admission.actions(rule, environment, "warn") == ["Warn", "Audit"]
        assert admission.actions(rule, environment, "audit") == ["Audit"]


def test_a_policy_config_file_overrides_the_levels_as_it_does_for_the_pack() -> None:
    rule = rules.RULES["resources-missing"]  # high: advisory in staging
    assert admission.actions(rule, "staging") == ["Warn", "Audit"]
    assert admission.actions(rule, "staging", levels={rule.id: "mandatory"}) == ["Deny", "Audit"]
    assert admission.actions(rule, "staging", levels={rule.id: {"enforcementLevel": "disabled"}}) == []
    docs = admission.admission_policies("staging", levels={rule.id: "disabled"})
    assert rule.id not in {rule_id for d in docs for rule_id in admission.policy_rules(d)}
    raised = admission.admission_policies("staging", levels={rule.id: "mandatory"})
    assert rule.id in admission.policy_rules(_policies(raised)["kuberay-deny"])


def test_bindings_per_environment_select_labelled_namespaces() -> None:
    docs = admission.admission_policies(rule_ids=["rayjob-ttl-negative"])
    kinds = [d["kind"] for d in docs]
    assert kinds == ["ValidatingAdmissionPolicy"] + ["ValidatingAdmissionPolicyBinding"] * 3
    by_env = {d["metadata"]["name"].rsplit("-", 1)[1]: d["spec"] for d in docs[1:]}
    assert by_env["dev"]["validationActions"] == ["Warn", "Audit"]
    assert by_env["prod"]["validationActions"] == ["Deny", "Audit"]
    assert by_env["prod"]["matchResources"] == {"namespaceSelector": {"matchLabels": {admission.ENVIRONMENT_LABEL: "prod"}}}
    one = admission.admission_policies("prod", rule_ids=["rayjob-ttl-negative"])
    assert "matchResources" not in one[1]["spec"]


def test_cel_strings_are_escaped() -> None:
    assert admission.cel_string('say "hi" \\ now') == '"say \\"hi\\" \\\\ now"'


def test_unknown_over_is_refused() -> None:
    with pytest.raises(ValueError, match="over must be one of"):
        Cel("true", over="pod")  # type: ignore[arg-type]


def _lint(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = lint.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_lint_emits_the_policies_as_yaml() -> None:
    code, out, _ = _lint("--emit-admission-policies", "--environment", "prod")
    assert code == 0
    docs = [d for d in yaml.safe_load_all(out) if d]
    assert docs == admission.admission_policies("prod")
    assert out.startswith(f"# {len(admission.covered_rules())} rules")
    assert len(_policies(docs)) == 2  # prod: Deny (high and critical) and Warn


def test_lint_emits_warn_only_with_a_policy_config(tmp_path: Path) -> None:
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"worker-min-exceeds-max": "disabled"}))
    code, out, _ = _lint("--emit-admission-policies", "--environment", "dev", "--policy-config", str(config))
    assert code == 0
    held = {rule_id for d in yaml.safe_load_all(out) if d for rule_id in admission.policy_rules(d)}
    assert "worker-min-exceeds-max" not in held and "rayjob-ttl-negative" in held
    code, out, _ = _lint("--emit-admission-policies", "--admission-mode", "warn")
    assert code == 0
    actions = {tuple(d["spec"]["validationActions"]) for d in yaml.safe_load_all(out) if d and "policyName" in d["spec"]}
    assert actions == {("Warn", "Audit")}


def test_lint_policy_config_needs_an_environment(tmp_path: Path) -> None:
    code, _, err = _lint("--emit-admission-policies", "--policy-config", str(tmp_path / "x.json"))
    assert code == 2 and "needs --environment" in err


# ---- KubeRayOperator(admission_policies=...) under mocks ------------------------------------------------------


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


def _chart_dir() -> str:
    from _reference import require_reference

    return str(require_reference() / "kuberay" / "v1.7.0" / "helm" / "kuberay-operator")


@pulumi.runtime.test
def test_operator_installs_the_policies_after_the_crds(mocks: MockEnv) -> pulumi.Output[Any]:
    from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator

    op = KubeRayOperator("kuberay", chart=_chart_dir(), environment="prod", admission_policies=True)

    def check(*_: Any) -> None:
        policies = mocks.created(VAP)
        bindings = mocks.created(VAPB)
        expected = _policies(admission.admission_policies("prod"))
        assert len(policies) == len(expected) == len(bindings) == 2
        for policy in policies:
            name = policy.inputs["metadata"]["name"]
            assert policy.inputs["spec"]["validations"] == expected[name]["spec"]["validations"]
            deps = set(mocks.request(VAP, policy.name).dependencies)
            assert len(deps) == 4 and all("CustomResourceDefinition" in d for d in deps)
        actions = {b.inputs["metadata"]["name"]: b.inputs["spec"]["validationActions"] for b in bindings}
        assert actions == {"kuberay-deny-prod": ["Deny", "Audit"], "kuberay-warn-prod": ["Warn", "Audit"]}
        deny = admission.policy_rules(expected["kuberay-deny"])
        assert "worker-min-exceeds-max" in deny and "image-tag-not-pinned" in deny  # high: mandatory in prod

    return after_settling(check, op.urn, *[r.urn for r in op.admission_policies])


@pulumi.runtime.test
def test_operator_installs_warn_only_bindings(mocks: MockEnv) -> pulumi.Output[Any]:
    from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator

    op = KubeRayOperator("kuberay", chart=_chart_dir(), admission_policies="warn")

    def check(*_: Any) -> None:
        bindings = mocks.created(VAPB)
        assert len(bindings) == 3 * len(mocks.created(VAP)) == 3  # one policy, one binding per environment
        assert {tuple(b.inputs["spec"]["validationActions"]) for b in bindings} == {("Warn", "Audit")}

    return after_settling(check, op.urn, *[r.urn for r in op.admission_policies])


def test_operator_without_the_option_installs_no_policy(mocks: MockEnv) -> None:
    from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator

    op = KubeRayOperator("kuberay", chart=_chart_dir())
    assert op.admission_policies == []


def test_operator_refuses_an_unknown_mode(mocks: MockEnv) -> None:
    from pulumi_kuberay.model._errors import ManifestError
    from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator

    with pytest.raises(ManifestError, match="admissionPolicies"):
        KubeRayOperator("kuberay", chart=_chart_dir(), admission_policies="deny")  # type: ignore[arg-type]


def test_the_coverage_page_is_current() -> None:
    doc = Path(__file__).resolve().parents[1] / "docs" / "admission.md"
    assert doc.read_text() == admission.render_docs(), "docs/admission.md is stale: run scripts/gen-admission-docs"
    for item in admission.coverage():
        assert f"| `{item.rule.id}` |" in doc.read_text()


def test_every_variable_an_expression_reads_is_declared_before() -> None:
    """The API server refuses a policy whose expression reads an undeclared variable: checked here for every
    validation, message expression and variable (which may read only the variables declared above it)."""
    import re

    uses = re.compile(r"variables\.([A-Za-z]+)")
    alone = [admission.policy(rule.id, [rule]) for rule in admission.covered_rules()]
    for policy in [*alone, *_policies(admission.admission_policies()).values()]:
        spec = policy["spec"]
        name = policy["metadata"]["name"]
        declared: list[str] = []
        for variable in spec["variables"]:
            assert set(uses.findall(variable["expression"])) <= set(declared), (name, variable["name"])
            declared.append(variable["name"])
        for validation in spec["validations"]:
            for key in ("expression", "messageExpression"):
                assert set(uses.findall(validation.get(key, ""))) <= set(declared), (name, key)
