"""Webhook rules (KubeRay ``pkg/webhooks/v1``, ``rules/webhook``) and other operator failures (``rules/runtime``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from _reference import upstream_sample
from _rule_checks import ALL_GATES
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules._engine import Rule
from pulumi_kuberay.rules._examples import example_job, example_service

MODULES = ("webhook", "operator_failures")
OWN_RULES = sorted(
    (r for r in rules.RULES.values() if r.module in MODULES),
    key=lambda r: r.id,
)

_HEAD_C = "headGroupSpec.template.spec.containers[0]"
#: What the operator corrects instead of rejecting: no validation row, never critical (tests/oracle).
CORRECTIONS = {"worker-replicas-clamped"}


def _via_check(rule_id: str, manifest: dict[str, Any], **kwargs: Any) -> list[tuple[str, str]]:
    """Through the public check() when the rule's module is loaded by it, else straight through the engine."""
    if rule_id in rules.RULES:
        return [(f.path, f.severity) for f in rules.check(manifest, **kwargs) if f.rule_id == rule_id]
    rule = next(r for r in OWN_RULES if r.id == rule_id)
    ctx = rules.make_context(**kwargs)
    return [(v.path, v.severity or rule.severity) for v in rule.run(rules.normalise(manifest), ctx)]


def test_wh_and_op_rows_are_mapped_or_documented() -> None:
    everything = list(rules._engine.registered())
    wh = {row for r in everything for row in r.operator_rules if row.startswith("WH-")}
    assert {"WH-02", "WH-03", "WH-04"} <= wh  # WH-01 = the RayCluster name rule (RC-01/02)
    op = {row for r in OWN_RULES for row in r.operator_rules if row.startswith("OP-")}
    # OP-03/05/08 need cluster state; OP-07 is the stack rule rayjob-cluster-selector-unmatched
    assert op == {"OP-01", "OP-02", "OP-04", "OP-06"}


@pytest.mark.parametrize("rule", OWN_RULES, ids=lambda r: r.id)
def test_rule_metadata(rule: Rule) -> None:
    assert rule.operator_rules or (rule.id in CORRECTIONS and rule.severity != "critical")


def test_runtime_rules_are_loaded_by_check() -> None:
    assert "head-serve-port-missing" in rules.RULES


# --------------------------------------------------------------------------------------------------
# Branches


def test_group_names_checked_in_every_embedded_spec() -> None:
    service = example_service()
    groups = service["spec"]["rayClusterConfig"]["workerGroupSpecs"]
    groups.append(copy.deepcopy(groups[0]))
    assert _via_check("worker-group-names-unique", service, webhooks=True) == [
        ("spec.rayClusterConfig.workerGroupSpecs[1].groupName", "critical")
    ]
    # Without the (default-off) webhook the operator accepts the object (tests/oracle): high, not critical.
    assert _via_check("worker-group-names-unique", service) == [
        ("spec.rayClusterConfig.workerGroupSpecs[1].groupName", "high")
    ]


def test_serve_port_rules() -> None:
    rule_id = "head-serve-port-missing"
    violating = next(r for r in OWN_RULES if r.id == rule_id).violating
    with_service = copy.deepcopy(violating)
    with_service["spec"]["serveService"] = {"spec": {"ports": [{"name": "http", "port": 8000}]}}
    assert _via_check(rule_id, with_service) == []  # a custom serveService keeps its ports
    grpc_only = copy.deepcopy(violating)
    head = grpc_only["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"].append({"name": "serve-grpc", "containerPort": 9000})
    assert _via_check(rule_id, grpc_only) == []
    no_ports = copy.deepcopy(violating)
    del no_ports["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]
    assert _via_check(rule_id, no_ports) == []  # KubeRay assumes the defaults
    cluster = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "c"},
        "spec": copy.deepcopy(violating["spec"]["rayClusterConfig"]),
    }
    assert _via_check(rule_id, cluster) == []
    cluster["metadata"]["annotations"] = {"ray.io/enable-serve-service": "true"}
    assert _via_check(rule_id, cluster) == [(f"spec.{_HEAD_C}.ports", "critical")]


def test_dashboard_port_in_service_and_cronjob() -> None:
    rule_id = "head-dashboard-port-missing"
    service = example_service()
    for port in service["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]:
        if port["name"] == "dashboard":
            port["name"] = "dash"
    assert _via_check(rule_id, service) == [(f"spec.rayClusterConfig.{_HEAD_C}.ports", "critical")]
    job = next(r for r in OWN_RULES if r.id == rule_id).violating
    cron = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCronJob",
        "metadata": {"name": "n"},
        "spec": {"schedule": "@daily", "jobTemplate": copy.deepcopy(job["spec"])},
    }
    assert _via_check(rule_id, cron, feature_gates={"RayCronJob": True}) == [
        (f"spec.jobTemplate.rayClusterSpec.{_HEAD_C}.ports", "critical")
    ]


@pytest.mark.parametrize(
    ("ray_version", "mode", "kuberay", "rejected"),
    [
        # getMetadataJSONForSubmitCommand: Masterminds semver NewVersion, then ">= 2.6.0" (the oracle agrees)
        ("nightly", "K8sJobMode", "1.7.0", True),  # "invalid semantic version"
        ("latest", "SidecarMode", "1.7.0", True),
        ("2.6.0-rc1", "K8sJobMode", "1.7.0", True),  # a pre-release never satisfies >= 2.6.0
        ("2.5", "K8sJobMode", "1.7.0", True),
        ("2.52", "K8sJobMode", "1.7.0", False),  # coerced to 2.52.0
        ("v2.52.0", "K8sJobMode", "1.7.0", False),
        ("nightly", "HTTPMode", "1.7.0", False),  # HTTPMode sends the metadata without the submit command
        ("", "K8sJobMode", "1.7.0", False),  # v1.7: an unset rayVersion is assumed recent enough
        ("", "K8sJobMode", "1.6.0", True),  # before: NewVersion("") fails
    ],
)
def test_metadata_ray_version_as_the_submit_command_parses_it(
    ray_version: str, mode: str, kuberay: str, rejected: bool
) -> None:
    rule_id = "rayjob-metadata-requires-ray-2-6"
    job = example_job(metadata={"team": "ml"}, submissionMode=mode)
    job["spec"]["rayClusterSpec"]["rayVersion"] = ray_version
    found = [(f.path, f.severity) for f in rules.check(job, kuberay_version=kuberay) if f.rule_id == rule_id]
    assert found == ([("spec.metadata", "critical")] if rejected else [])


def test_odd_shapes_and_unknowns() -> None:
    ctx = rules.make_context(feature_gates=ALL_GATES)
    for value in [None, "", "x", 0, True, [], {}, [None], {"name": None}, UNKNOWN_SENTINEL]:
        job = example_job(metadata=value)
        job["spec"]["rayClusterSpec"]["workerGroupSpecs"].append({"groupName": value, "template": value})
        head = job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
        head["ports"].append(value)
        docs = [
            job,
            {"kind": "RayService", "spec": {"rayClusterConfig": value}},
            {"kind": "RayCluster", "spec": value},
        ]
        for doc in docs:
            for rule in OWN_RULES:
                list(rule.run(copy.deepcopy(doc), ctx))
    unknown = example_job(metadata={"a": "b"})
    unknown["spec"]["rayClusterSpec"]["rayVersion"] = UNKNOWN_SENTINEL
    assert _via_check("rayjob-metadata-requires-ray-2-6", unknown) == []


# --------------------------------------------------------------------------------------------------
# Mutations of upstream samples; false positives


def test_mutated_upstream_samples_are_caught() -> None:
    cluster = upstream_sample("ray-cluster.complete.yaml", "RayCluster")
    assert _via_check("worker-group-names-unique", cluster) == []
    cluster["spec"]["workerGroupSpecs"].append(copy.deepcopy(cluster["spec"]["workerGroupSpecs"][0]))
    found = _via_check("worker-group-names-unique", cluster, webhooks=True)
    assert ("spec.workerGroupSpecs[1].groupName", "critical") in found

    service = upstream_sample("ray-service.different-port.yaml", "RayService")
    assert _via_check("head-serve-port-missing", service) == []
    head = service["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    for port in head["ports"]:
        if port.get("name") == "serve":
            port["name"] = "http"
    assert _via_check("head-serve-port-missing", service) == [(f"spec.rayClusterConfig.{_HEAD_C}.ports", "critical")]

    job = upstream_sample("ray-job.sidecar-mode.yaml", "RayJob")
    assert _via_check("head-dashboard-port-missing", job) == []
    for port in job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]:
        if port.get("name") == "dashboard":
            port["name"] = "web"
    assert _via_check("head-dashboard-port-missing", job) == [(f"spec.rayClusterSpec.{_HEAD_C}.ports", "critical")]

    job = upstream_sample("ray-job.sample.yaml", "RayJob")
    job["spec"]["metadata"] = {"owner": "ml"}
    assert _via_check("rayjob-metadata-requires-ray-2-6", job) == []
    job["spec"]["rayClusterSpec"]["rayVersion"] = "2.4.0"
    assert _via_check("rayjob-metadata-requires-ray-2-6", job) == [("spec.metadata", "critical")]
