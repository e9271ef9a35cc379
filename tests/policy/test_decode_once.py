# mypy: disallow-untyped-calls=False
"""The pack's per-call decode memo (``pulumi_kuberay.policy._decode_once``): pulumi-policy decodes a resource
once per gRPC call instead of once per policy, every policy sees the same proxy, and nothing outlives the call.
The figures (a preview of the four KubeRay CRDs with the pack: 131 s before, 38 s after) are in the note, not
asserted here."""

from __future__ import annotations

from typing import Any

from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_kuberay.policy import _decode_once
from pulumi_kuberay.policy._decode_once import install_request_memo
from pulumi_policy import (
    EnforcementLevel,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.policy import _PolicyAnalyzerServicer

CRD_TYPE = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update(value)
    return out


def _crd(name: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(200)}}
    return {"metadata": {"name": name, "labels": {"x": name}}, "spec": {"versions": [{"schema": schema}]}}


def _recording_policies(seen: list[tuple[str, int]]) -> list[Any]:
    def resource(name: str) -> ResourceValidationPolicy:
        def validate(args: ResourceValidationArgs, report: Any) -> None:
            seen.append((name, id(args.props)))

        return ResourceValidationPolicy(name=name, description=name, validate=validate)

    def stack(name: str) -> StackValidationPolicy:
        def validate(args: StackValidationArgs, report: Any) -> None:
            seen.extend((f"{name}:{r.name}", id(r.props)) for r in args.resources)

        return StackValidationPolicy(name=name, description=name, validate=validate)

    return [resource("a"), resource("b"), stack("s1"), stack("s2")]


def test_install_is_idempotent() -> None:
    assert _decode_once.install_request_memo() is True
    assert install_request_memo() is True


def test_every_policy_of_an_analyze_call_sees_one_decoded_resource_even_with_a_provider_between() -> None:
    assert _decode_once.install_request_memo()
    seen: list[tuple[str, int]] = []
    servicer = _PolicyAnalyzerServicer("p", "0.1.0", _recording_policies(seen), EnforcementLevel.ADVISORY)
    provider = analyzer_pb2.AnalyzerProviderResource(
        type="pulumi:providers:kubernetes",
        properties=_struct({"renderYamlToDirectory": "out"}),
        urn="urn:p",
        name="k8s",
    )
    request = analyzer_pb2.AnalyzeRequest(
        type=CRD_TYPE, properties=_struct(_crd("one")), urn="urn:one", name="one", provider=provider
    )
    servicer.Analyze(request, None)
    assert [name for name, _ in seen] == ["a", "b"]
    assert seen[0][1] == seen[1][1]  # the same proxy object: decoded once
    assert dict(_decode_once._MEMO.by_key) == {}  # nothing outlives the call


def test_every_stack_policy_sees_each_resource_decoded_once_per_call() -> None:
    assert _decode_once.install_request_memo()
    seen: list[tuple[str, int]] = []
    servicer = _PolicyAnalyzerServicer("p", "0.1.0", _recording_policies(seen), EnforcementLevel.ADVISORY)
    resources = [
        analyzer_pb2.AnalyzerResource(type=CRD_TYPE, properties=_struct(_crd(n)), urn=f"urn:{n}", name=n)
        for n in ("one", "two", "three")
    ]
    servicer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=resources), None)
    by_policy: dict[str, dict[str, int]] = {}
    for key, ident in seen:
        policy, name = key.split(":")
        by_policy.setdefault(policy, {})[name] = ident
    assert set(by_policy) == {"s1", "s2"}
    assert by_policy["s1"] == by_policy["s2"]  # the second policy got the very same objects
    assert len(set(by_policy["s1"].values())) == 3  # and three different resources stay apart
    assert dict(_decode_once._MEMO.by_key) == {}


def test_equal_messages_in_new_wrappers_are_decoded_once_within_a_scope() -> None:
    calls: list[int] = []

    def decode(message: Any) -> dict[str, Any]:
        calls.append(1)
        return {"size": message.ByteSize()}

    memo_decode = _decode_once._by_bytes(decode)

    @_decode_once._scoped
    def one_call() -> list[Any]:
        return [memo_decode(_struct({"k": "v"})) for _ in range(3)]

    first = one_call()
    assert len(calls) == 1 and first[0] is first[1] is first[2]
    one_call()
    assert len(calls) == 2  # a new call decodes again
