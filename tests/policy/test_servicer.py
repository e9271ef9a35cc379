# mypy: disallow-untyped-calls=False
"""Our Analyzer servicer (``pulumi_kuberay.policy._servicer.OneRunServicer``) answers ``Analyze`` exactly as
pulumi-policy's servicer does with the same policies (every diagnostic, in order), from one catalogue run per
resource; a non-Ray resource is answered before its properties are decoded. The speed is in bench/README.md."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _pack_process import configure, pack_process
from _reference import sample_documents
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_kuberay import rules
from pulumi_kuberay.policy import _pack as kp
from pulumi_kuberay.policy import _servicer
from pulumi_kuberay.policy._layout import PACK_NAME
from pulumi_kuberay.policy._servicer import OneRunServicer, decode_properties
from pulumi_policy import EnforcementLevel, Policy, ResourceValidationArgs, ResourceValidationPolicy
from pulumi_policy.deserialize import SPECIAL_SECRET_SIG, SPECIAL_SIG_KEY, deserialize_properties
from pulumi_policy.policy import _PolicyAnalyzerServicer
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

STACKS = Path(__file__).resolve().parents[2] / "stacks"
POLICIES = kp.build_policies()
OURS = OneRunServicer.answering(kp.resource_verdicts(), kp.RAY_TYPE_PREFIXES)
LEVEL = analyzer_pb2.EnforcementLevel


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update(value)
    return out


def _request(manifest: dict[str, Any], urn: str = "urn:pulumi:dev::p::t::x") -> analyzer_pb2.AnalyzeRequest:
    kind = f"kubernetes:{manifest.get('apiVersion', 'v1')}:{manifest.get('kind', 'ConfigMap')}"
    return analyzer_pb2.AnalyzeRequest(type=kind, properties=_struct(manifest), urn=urn, name="x")


def _pair(policies: list[Policy] | None = None) -> tuple[Any, OneRunServicer]:
    """pulumi-policy's servicer and ours, built as PolicyPack builds its servicer."""
    args = (PACK_NAME, "0.0.1", policies or POLICIES, EnforcementLevel.ADVISORY, None, kp.PACK_DESCRIPTION)
    return _PolicyAnalyzerServicer(*args), OURS(*args)


def _configure(servicers: tuple[Any, ...], configs: dict[str, analyzer_pb2.PolicyConfig]) -> None:
    request = analyzer_pb2.ConfigureAnalyzerRequest()
    for name, config in configs.items():
        request.policyConfig[name].CopyFrom(config)
    for servicer in servicers:
        servicer.Configure(request, None)


def _levels(environment: str) -> dict[str, analyzer_pb2.PolicyConfig]:
    levels = json.loads((STACKS / f"policy.{environment}.json").read_text())
    return {
        name: analyzer_pb2.PolicyConfig(enforcementLevel=LEVEL.Value(level.upper())) for name, level in levels.items()
    }


def _both(upstream: Any, ours: OneRunServicer, request: analyzer_pb2.AnalyzeRequest) -> tuple[Any, Any]:
    kp.CACHE._entries.clear()  # each servicer runs the catalogue itself
    theirs = upstream.Analyze(request, None)
    kp.CACHE._entries.clear()
    return theirs, ours.Analyze(request, None)


PROD_RULE = rules.RULES["head-runs-workloads-in-prod"]


def _busy_cluster() -> dict[str, Any]:
    """A RayCluster sample that violates several policies, and the prod-only rule in prod only."""
    for _, _, doc in sample_documents("RayCluster"):
        found = {f.rule_id for f in rules.check(doc)}
        if PROD_RULE.id not in found and len(found) >= 2 and PROD_RULE.id in {
            f.rule_id for f in rules.check(doc, environment="prod")
        }:
            return doc
    raise AssertionError("no RayCluster sample violates several policies")


def _ray_samples() -> Iterator[tuple[str, dict[str, Any]]]:
    for name, index, doc in sample_documents():
        if str(doc.get("apiVersion", "")).startswith("ray.io/"):
            yield f"{name}#{index}", doc


@pytest.mark.parametrize("environment", [None, "dev", "prod"])
def test_same_diagnostics_as_pulumi_policy_on_every_sample(environment: str | None) -> None:
    upstream, ours = _pair()
    if environment is not None:
        _configure((upstream, ours), _levels(environment))
    reported = 0
    samples = list(_ray_samples())
    assert len(samples) > 50  # the reference material's Ray samples
    for where, doc in samples:
        theirs, mine = _both(upstream, ours, _request(doc, f"urn:pulumi:dev::p::t::{where}"))
        assert mine == theirs, where  # every diagnostic, field by field, in the same order
        reported += len(mine.diagnostics)
    assert reported > 100  # the samples do violate policies: the comparison compared something


def test_enforcement_overrides_and_disabled_policies() -> None:
    rule = PROD_RULE
    prod_config = struct_pb2.Struct()
    prod_config.update({"environment": "prod"})
    upstream, ours = _pair()
    request = _request(_busy_cluster())
    found = {d.policyName for d in _both(upstream, ours, request)[1].diagnostics}
    assert rule.id not in found and len(found) >= 2  # the prod-only rule is silent without the environment
    disabled, remediated = sorted(found)[:2]
    _configure(
        (upstream, ours),
        {
            rule.id: analyzer_pb2.PolicyConfig(enforcementLevel=LEVEL.Value("MANDATORY"), properties=prod_config),
            disabled: analyzer_pb2.PolicyConfig(enforcementLevel=LEVEL.Value("DISABLED")),
            remediated: analyzer_pb2.PolicyConfig(enforcementLevel=LEVEL.Value("REMEDIATE")),
        },
    )
    theirs, mine = _both(upstream, ours, request)
    assert mine == theirs
    levels = {d.policyName: LEVEL.Name(d.enforcementLevel) for d in mine.diagnostics}
    assert levels[rule.id] == "MANDATORY"  # its own config (environment: prod) made it speak
    assert disabled not in levels
    assert levels[remediated] == "MANDATORY"  # a violation left after remediation, as pulumi-policy says
    assert {lvl for name, lvl in levels.items() if name not in (rule.id, remediated)} == {"ADVISORY"}
    _configure((upstream, ours), {})  # a new configuration replaces the old one
    theirs, mine = _both(upstream, ours, request)
    assert mine == theirs and disabled in {d.policyName for d in mine.diagnostics}


def test_unknown_values_and_secrets_as_pulumi_policy() -> None:
    manifest = json.loads(json.dumps(_busy_cluster()))
    manifest["metadata"]["name"] = UNKNOWN_STRING_VALUE
    manifest["metadata"]["labels"] = {"team": {SPECIAL_SIG_KEY: SPECIAL_SECRET_SIG, "value": "ml"}}
    upstream, ours = _pair()
    theirs, mine = _both(upstream, ours, _request(manifest))
    assert mine == theirs and mine.diagnostics


def _values() -> list[Any]:
    return [None, True, False, 0.0, 1.5, -3.0, "", "x", UNKNOWN_STRING_VALUE, [], {}, [1.0, [None, {"a": "b"}]]]


def test_decode_is_pulumi_policys_decode() -> None:
    secret = {SPECIAL_SIG_KEY: SPECIAL_SECRET_SIG, "value": {"inner": [1.0, "s"]}}
    manifest = {"a": _values(), "b": {"c": _values(), "d": {"e": {}}}, "secret": secret}
    for value in (manifest, {k: v for k, v in manifest.items() if k != "secret"}, {}):
        struct = _struct(value)
        assert decode_properties(struct) == deserialize_properties(json_format.MessageToDict(struct))
    assert decode_properties(_struct(manifest))["secret"] == {"inner": [1.0, "s"]}  # unwrapped, as pulumi-policy
    with pytest.raises(ValueError, match="number_value"):  # what json_format.MessageToDict raises
        decode_properties(_struct({"n": math.inf}))
    # integral numbers come as the ints rules.normalise would make (equal to pulumi-policy's floats): the manifest
    # is checked as it is, not copied
    decoded = decode_properties(_struct({"replicas": 2.0, "cpu": 1.5, "zero": -0.0}))
    assert decoded == {"replicas": 2, "cpu": 1.5, "zero": 0}
    assert [type(v) for v in decoded.values()] == [int, float, int]
    assert rules.normalise(decoded) == decoded


def _counting_decode(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    decoded: list[str] = []
    original: Callable[[struct_pb2.Struct], dict[str, Any]] = _servicer.decode_properties

    def counting(properties: struct_pb2.Struct) -> dict[str, Any]:
        decoded.append(str(properties))
        return original(properties)

    monkeypatch.setattr(_servicer, "decode_properties", counting)
    return decoded


def test_non_ray_resources_are_answered_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded = _counting_decode(monkeypatch)
    upstream, ours = _pair()
    cluster = _busy_cluster()
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": cluster["spec"]}
    theirs, mine = _both(upstream, ours, _request(deployment))
    assert mine == theirs == analyzer_pb2.AnalyzeResponse()
    assert decoded == []
    broken = _request(deployment)
    broken.properties.update({"n": math.nan})  # pulumi-policy's decoder would fail on it
    assert ours.Analyze(broken, None) == analyzer_pb2.AnalyzeResponse()
    assert decoded == []
    assert ours.Analyze(_request(cluster), None).diagnostics  # a Ray resource is decoded, once
    assert len(decoded) == 1


def test_every_policy_answered_from_one_catalogue_run_per_config(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = 0
    original = rules.check

    def counting(*a: Any, **k: Any) -> Any:
        nonlocal runs
        runs += 1
        return original(*a, **k)

    monkeypatch.setattr(rules, "check", counting)
    kp.CACHE._entries.clear()
    _, ours = _pair()
    rule = PROD_RULE
    ours.Analyze(_request(rule.violating, "urn:a"), None)
    assert runs == 1
    prod = struct_pb2.Struct()
    prod.update({"environment": "prod"})
    _configure((ours,), {rule.id: analyzer_pb2.PolicyConfig(enforcementLevel=LEVEL.Value("ADVISORY"), properties=prod)})
    response = ours.Analyze(_request(rule.violating, "urn:b"), None)
    assert runs == 3  # one run for the policy with its own config, one for all the others
    assert rule.id in {d.policyName for d in response.diagnostics}


def test_a_pack_with_other_resource_policies_is_served_by_pulumi_policy() -> None:
    def not_ours(args: ResourceValidationArgs, report: Any) -> None:
        report(f"seen {args.resource_type}", None)

    policies = [*POLICIES, ResourceValidationPolicy(name="not-ours", description="another policy", validate=not_ours)]
    upstream, ours = _pair(policies)
    assert not ours.answers_all
    for manifest in (_busy_cluster(), {"apiVersion": "v1", "kind": "ConfigMap"}):
        theirs, mine = _both(upstream, ours, _request(manifest))
        assert mine == theirs and "not-ours" in {d.policyName for d in mine.diagnostics}


def test_the_pack_process_serves_the_same_pack_with_our_analyze() -> None:
    upstream, _ = _pair()
    _configure((upstream,), _levels("prod"))
    with pack_process() as stub:
        assert stub.GetAnalyzerInfo(empty_pb2.Empty()) == upstream.GetAnalyzerInfo(None, None)
        configure(stub, STACKS / "policy.prod.json")
        undecodable = _request({"apiVersion": "v1", "kind": "ConfigMap", "n": math.nan})
        with pytest.raises(ValueError, match="NaN"):
            upstream.Analyze(undecodable, None)  # pulumi-policy decodes it for every policy
        assert stub.Analyze(undecodable) == analyzer_pb2.AnalyzeResponse()  # ours: not a Ray object, not decoded
        request = _request(_busy_cluster(), "urn:grpc")
        kp.CACHE._entries.clear()
        expected = upstream.Analyze(request, None)
        assert stub.Analyze(request) == expected and expected.diagnostics
