# mypy: disallow-untyped-calls=False
"""The policy pack at three levels: policies called directly, the analyzer servicer with real protobuf messages
and per-environment config, and the pack process over gRPC as the engine starts it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _pack_process import configure, pack_process, reporter, validation_args
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2, plugin_pb2
from pulumi_kuberay import rules
from pulumi_kuberay.policy import _pack as kp
from pulumi_kuberay.policy._decode_once import install_request_memo
from pulumi_kuberay.policy._layout import PACK_NAME
from pulumi_kuberay.rules._engine import Rule
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy
from pulumi_policy.policy import _PolicyAnalyzerServicer

REPO = Path(__file__).resolve().parents[2]
STACKS = REPO / "stacks"


def _first_rule(kind: str, severity: str) -> Rule:
    for rule in sorted(rules.rules_of("document"), key=lambda r: r.id):
        if rule.severity == severity and kind in rule.kinds and rule.violating.get("kind") == kind and not rule.context:
            return rule
    raise AssertionError(f"no {severity} rule with a {kind} example in the catalogue")


def _type(manifest: dict[str, Any]) -> str:
    return f"kubernetes:{manifest['apiVersion']}:{manifest['kind']}"


def _floats(value: Any) -> Any:
    """What the engine sends: every number a float (protobuf Struct)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return value


POLICIES = kp.build_policies()
BY_NAME = {p.name: p for p in POLICIES}


def _direct(policy_name: str, manifest: dict[str, Any], config: dict[str, Any] | None = None) -> list[str]:
    policy = BY_NAME[policy_name]
    assert isinstance(policy, ResourceValidationPolicy)
    reported: list[str] = []
    args = validation_args(_type(manifest), _floats(manifest), f"urn:pulumi:dev::p::{_type(manifest)}::x", "x", config or {})
    assert policy.validate is not None
    validate = policy.validate[0] if isinstance(policy.validate, list) else policy.validate
    validate(args, reporter(reported))
    return reported


def test_one_policy_per_rule_with_metadata() -> None:
    names = [p.name for p in POLICIES]
    assert len(names) == len(set(names))
    # every rule of every scope but change (the pack never sees the old state: the hook and lint --diff run those)
    # and preflight (the pack never reads the target cluster: the components and lint --cluster run those)
    changes = {rule.id for rule in rules.rules_of("change") + rules.rules_of("preflight")}
    assert changes and set(rules.RULES) - changes <= set(names) and not changes & set(names)
    rule = next(r for r in rules.RULES.values() if r.scope not in ("change", "preflight"))
    policy = BY_NAME[rule.id]
    assert policy.severity is not None and policy.severity.value == rule.severity
    assert policy.remediation_steps == rule.fix


@pytest.mark.parametrize("kind", ["RayCluster", "RayJob", "RayService"])
def test_direct_violation_and_compliance(kind: str) -> None:
    rule = _first_rule(kind, "critical")
    messages = _direct(rule.id, rule.violating)
    assert messages and all(m.startswith("[critical]") for m in messages)
    assert _direct(rule.id, rule.compliant) == []


def test_direct_non_ray_resources_are_ignored() -> None:
    rule = _first_rule("RayCluster", "critical")
    policy = BY_NAME[rule.id]
    assert isinstance(policy, ResourceValidationPolicy)
    reported: list[str] = []
    args = validation_args("kubernetes:apps/v1:Deployment", {"spec": {}}, "urn", "x", {})
    validate = policy.validate[0] if isinstance(policy.validate, list) else policy.validate
    assert validate is not None
    validate(args, reporter(reported))
    assert reported == []


def test_catalogue_runs_once_per_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = _first_rule("RayCluster", "critical")
    calls = 0
    original = rules.check

    def counting(*a: Any, **k: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(*a, **k)

    monkeypatch.setattr(rules, "check", counting)  # the pack calls rules.check through the module
    kp.CACHE._entries.clear()
    for policy in POLICIES[:25]:
        if isinstance(policy, ResourceValidationPolicy):
            _direct(policy.name, rule.violating)
    assert calls == 1


def test_policy_config_overrides_environment() -> None:
    prod = rules.RULES["head-runs-workloads-in-prod"]
    assert _direct(prod.id, prod.violating) == []  # no environment: the prod-only rule is silent
    assert _direct(prod.id, prod.violating, {"environment": "prod"})


def test_stack_config_is_read_from_pulumi_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PULUMI_CONFIG", json.dumps({"kuberay:environment": "prod", "kuberay:version": "1.6.0"}))
    target = kp.target_for({"kuberayVersion": "1.7.0"})
    assert target.environment == "prod" and target.kuberay_version == "1.7.0"


def test_remediation_stringifies_ray_start_params() -> None:
    manifest = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "c"},
        "spec": {"headGroupSpec": {"rayStartParams": {"num-cpus": 0, "block": True}, "template": {}}},
    }
    policy = BY_NAME["schema-wrong-type"]
    assert isinstance(policy, ResourceValidationPolicy) and policy.remediate is not None
    args = validation_args(_type(manifest), manifest, "urn", "c", {})
    fixed = policy.remediate(args)
    assert isinstance(fixed, dict)  # our remediations return the manifest itself, never an awaitable
    assert fixed["spec"]["headGroupSpec"]["rayStartParams"] == {"num-cpus": "0", "block": "true"}


@pytest.mark.parametrize("environment", ["dev", "staging", "prod"])
def test_policy_config_files_are_current(environment: str) -> None:
    path = STACKS / f"policy.{environment}.json"
    assert json.loads(path.read_text()) == kp.policy_config(environment), (
        f"{path} is stale: run scripts/gen-policy-config"
    )


def test_environment_levels() -> None:
    assert kp.enforcement_for("critical", "dev") is EnforcementLevel.ADVISORY
    assert kp.enforcement_for("critical", "staging") is EnforcementLevel.MANDATORY
    assert kp.enforcement_for("high", "staging") is EnforcementLevel.ADVISORY
    assert kp.enforcement_for("high", "prod") is EnforcementLevel.MANDATORY
    assert kp.enforcement_for("medium", "prod") is EnforcementLevel.ADVISORY


# ---------------------------------------------------------------------------------------------- servicer


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(value)
    return s


def _configure(servicer: Any, environment: str) -> None:
    request = analyzer_pb2.ConfigureAnalyzerRequest()
    for name, level in json.loads((STACKS / f"policy.{environment}.json").read_text()).items():
        config = analyzer_pb2.PolicyConfig(enforcementLevel=servicer._map_enforcement_level(EnforcementLevel(level)))
        request.policyConfig[name].CopyFrom(config)
    servicer.Configure(request, None)


def _analyze(stub_or_servicer: Any, manifest: dict[str, Any], grpc_call: bool = False) -> Any:
    request = analyzer_pb2.AnalyzeRequest(
        type=_type(manifest),
        properties=_struct(manifest),
        urn=f"urn:pulumi:prod::p::{_type(manifest)}::x",
        name="x",
    )
    return stub_or_servicer.Analyze(request) if grpc_call else stub_or_servicer.Analyze(request, None)


@pytest.mark.parametrize(("environment", "expected"), [("prod", "MANDATORY"), ("dev", "ADVISORY")])
def test_servicer_levels_per_environment(environment: str, expected: str) -> None:
    servicer = _PolicyAnalyzerServicer(PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.ADVISORY)
    _configure(servicer, environment)
    rule = _first_rule("RayCluster", "critical")
    response = _analyze(servicer, rule.violating)
    mine = [d for d in response.diagnostics if d.policyName == rule.id]
    assert mine, [d.policyName for d in response.diagnostics]
    assert analyzer_pb2.EnforcementLevel.Name(mine[0].enforcementLevel) == expected
    assert "[critical]" in mine[0].message


def test_servicer_unknown_values_do_not_crash() -> None:
    servicer = _PolicyAnalyzerServicer(PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.ADVISORY)
    rule = _first_rule("RayCluster", "critical")
    manifest = json.loads(json.dumps(rule.compliant))
    manifest["metadata"]["name"] = rules.UNKNOWN_SENTINEL
    response = _analyze(servicer, manifest)
    assert not [d for d in response.diagnostics if d.policyName == kp.FALLBACK_POLICY]


def test_servicer_stack_policy_selector() -> None:
    servicer = _PolicyAnalyzerServicer(PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.MANDATORY)
    stack_rule = rules.get_rule("rayjob-cluster-selector-unmatched")
    resources = [
        analyzer_pb2.AnalyzerResource(type=_type(m), properties=_struct(m), urn=f"urn:{i}", name=f"r{i}")
        for i, m in enumerate(stack_rule.violating)
    ]
    response = servicer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=resources), None)
    assert [d.policyName for d in response.diagnostics] == [stack_rule.id]
    assert response.diagnostics[0].urn == "urn:1"


# ---------------------------------------------------------------------------------------------- gRPC


def test_pack_process_over_grpc() -> None:
    with pack_process() as stub:
        info = stub.GetAnalyzerInfo(
            plugin_pb2.Empty()
            if hasattr(plugin_pb2, "Empty")
            else __import__("google.protobuf.empty_pb2", fromlist=["Empty"]).Empty()
        )
        assert info.name == PACK_NAME
        assert {p.name for p in info.policies} >= {r.id for r in rules.RULES.values() if r.scope not in ("change", "preflight")}
        configure(stub, STACKS / "policy.prod.json")
        for kind in ("RayCluster", "RayJob", "RayService"):
            rule = _first_rule(kind, "critical")
            response = _analyze(stub, rule.violating, grpc_call=True)
            mandatory = [
                d.policyName
                for d in response.diagnostics
                if d.enforcementLevel == analyzer_pb2.EnforcementLevel.Value("MANDATORY")
            ]
            assert rule.id in mandatory, (kind, [d.policyName for d in response.diagnostics])


def test_request_memo_changes_nothing_but_speed() -> None:
    """With the per-request decoding memo, consecutive different resources still get their own verdicts."""
    rule = _first_rule("RayCluster", "critical")
    before = _PolicyAnalyzerServicer(PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.ADVISORY)
    plain_runs = [
        sorted(d.policyName for d in _analyze(before, m).diagnostics) for m in (rule.violating, rule.compliant)
    ]
    assert install_request_memo() is True
    assert install_request_memo() is True  # idempotent
    after = _PolicyAnalyzerServicer(PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.ADVISORY)
    memo_runs = [sorted(d.policyName for d in _analyze(after, m).diagnostics) for m in (rule.violating, rule.compliant)]
    assert memo_runs == plain_runs
    assert rule.id in memo_runs[0] and rule.id not in memo_runs[1]
