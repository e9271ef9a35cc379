"""The operator in the policy pack: a stack that declares it (``pulumi-kuberay:operator``) is judged against it by
the resource policies; any stack with a kuberay-operator Deployment gets the operator stack policies
(the setup rules on the Deployment, its Ray objects against it). Direct calls, the analyzer servicer with
protobuf messages, and the pack process over gRPC; the real ``pulumi preview`` is in the engine tier."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _pack_process import configure, pack_process
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_kuberay.policy import _pack as kp
from pulumi_kuberay.rules._examples import example_cronjob, example_job
from pulumi_policy import EnforcementLevel, ResourceValidationArgs, ResourceValidationPolicy
from pulumi_policy.policy import _PolicyAnalyzerServicer

REPO = Path(__file__).resolve().parents[1]
POLICIES = kp.build_policies()
BY_NAME = {p.name: p for p in POLICIES}


def deployment(
    *args: str, replicas: int = 1, tag: str = "v1.7.0", limits: dict[str, str] | None = None
) -> dict[str, Any]:
    """The Deployment the v1.7.0 chart renders (flags as it writes them)."""
    container = {
        "name": "kuberay-operator",
        "image": f"quay.io/kuberay/operator:{tag}",
        "args": [*args, "--feature-gates=RayClusterStatusConditions=true,RayCronJob=false"],
        "resources": {"limits": limits if limits is not None else {"cpu": "100m", "memory": "512Mi"}},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "kuberay-operator",
            "namespace": "kuberay-system",
            "labels": {"helm.sh/chart": "kuberay-operator-1.7.0"},  # as the chart renders it (no appVersion)
        },
        "spec": {"replicas": replicas, "template": {"spec": {"containers": [container]}}},
    }


def _type(manifest: dict[str, Any]) -> str:
    return f"kubernetes:{manifest['apiVersion']}:{manifest['kind']}"


def in_namespace(doc: dict[str, Any], namespace: str) -> dict[str, Any]:
    doc["metadata"]["namespace"] = namespace
    return doc


@pytest.fixture
def stack_config(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    def set_config(config: dict[str, Any]) -> None:
        monkeypatch.setenv("PULUMI_CONFIG", json.dumps(config))
        kp._stack_target.cache_clear()
        kp._target_for.cache_clear()
        kp.CACHE._entries.clear()

    yield set_config
    kp._stack_target.cache_clear()
    kp._target_for.cache_clear()
    kp.CACHE._entries.clear()


def direct(policy_name: str, manifest: dict[str, Any]) -> list[str]:
    policy = BY_NAME[policy_name]
    assert isinstance(policy, ResourceValidationPolicy) and policy.validate is not None
    validate = policy.validate[0] if isinstance(policy.validate, list) else policy.validate
    reported: list[str] = []
    args = ResourceValidationArgs(
        _type(manifest), manifest, f"urn:x::{manifest['metadata']['name']}", "x", None, None, {}
    )
    validate(args, lambda message, urn=None: reported.append(message))
    return reported


OPERATOR_CONFIG = json.dumps({"featureGates": {"RayCronJob": True}, "watchNamespaces": ["ray"]})


def test_stack_config_operator_is_the_packs_target(stack_config: Any) -> None:
    stack_config({"kuberay:environment": "prod", "pulumi-kuberay:operator": OPERATOR_CONFIG})
    target = kp.target_for({})
    assert target.feature_gates["RayCronJob"] is True
    assert target.operator is not None and target.operator.watch_namespaces == ("ray",)
    cron = in_namespace(example_cronjob(), "ray")
    assert direct("feature-gate-disabled", cron) == []  # the operator has the gate on
    (message,) = direct("operator-namespace-unwatched", in_namespace(example_job(), "team-a"))
    assert message.startswith("[critical] metadata.namespace:") and "watches only 'ray'" in message


def test_without_operator_config_the_kuberay_keys_rule(stack_config: Any) -> None:
    stack_config({"kuberay:environment": "prod"})
    assert direct("feature-gate-disabled", in_namespace(example_cronjob(), "ray"))
    assert direct("operator-namespace-unwatched", in_namespace(example_job(), "team-a")) == []


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(value)
    return s


def stack_request(*manifests: dict[str, Any]) -> analyzer_pb2.AnalyzeStackRequest:
    resources = [
        analyzer_pb2.AnalyzerResource(type=_type(m), properties=_struct(m), urn=f"urn:{i}", name=f"r{i}")
        for i, m in enumerate(manifests)
    ]
    return analyzer_pb2.AnalyzeStackRequest(resources=resources)


def diagnostics(response: Any) -> set[tuple[str, str]]:
    return {(d.policyName, d.urn) for d in response.diagnostics}


def test_servicer_stack_policies_use_the_operator_deployment(stack_config: Any) -> None:
    stack_config({"kuberay:environment": "prod"})
    servicer = _PolicyAnalyzerServicer(kp.PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.ADVISORY)
    operator = deployment("--watch-namespace", "ray", "--enable-leader-election=false", tag="v1.6.1", limits={})
    request = stack_request(
        operator,
        in_namespace(example_job("elsewhere"), "team-a"),
        in_namespace(example_cronjob("hourly"), "ray"),
        in_namespace(example_job("fine"), "ray"),
    )
    found = diagnostics(servicer.AnalyzeStack(request, None))
    assert found == {
        ("operator-not-highly-available", "urn:0"),
        ("operator-image-tag-mismatch", "urn:0"),
        ("operator-resource-limits-missing", "urn:0"),
        ("operator-objects", "urn:1"),  # unwatched namespace
        ("operator-objects", "urn:2"),  # RayCronJob gate off on that operator
    }


def test_servicer_a_good_operator_raises_nothing(stack_config: Any) -> None:
    stack_config({"kuberay:environment": "prod"})
    servicer = _PolicyAnalyzerServicer(kp.PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.ADVISORY)
    request = stack_request(deployment("--watch-namespace", "ray", replicas=2), in_namespace(example_job(), "ray"))
    assert diagnostics(servicer.AnalyzeStack(request, None)) == set()


def test_pack_process_over_grpc_reports_operator_stack_policies() -> None:
    with pack_process({"PULUMI_CONFIG": json.dumps({"kuberay:environment": "prod"})}) as stub:
        configure(stub, REPO / "stacks" / "policy.prod.json")
        response = stub.AnalyzeStack(
            stack_request(deployment("--watch-namespace", "ray", replicas=2), in_namespace(example_job(), "team-a"))
        )
        levels = {
            (d.policyName, d.urn): analyzer_pb2.EnforcementLevel.Name(d.enforcementLevel) for d in response.diagnostics
        }
        assert levels == {("operator-objects", "urn:1"): "MANDATORY"}
