"""Selection rules (module ``rules/selection``): autoscaling bounds, RayService upgrades, RayJob lifecycle."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from _reference import upstream_sample
from _rule_checks import ALL_GATES, public_findings
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules._engine import Rule
from pulumi_kuberay.rules._examples import example_cluster_spec, example_job, example_service

MODULE = "object_choice"
OWN_RULES = sorted(
    (r for r in rules.RULES.values() if r.module == MODULE),
    key=lambda r: r.id,
)


def _found(manifest: dict[str, Any], rule_id: str, **settings: Any) -> list[tuple[str, str]]:
    return [(f.path, f.severity) for f in public_findings(rule_id, manifest, **settings)]


@pytest.mark.parametrize("rule", OWN_RULES, ids=lambda r: r.id)
def test_rule_metadata(rule: Rule) -> None:
    assert rule.severity in ("low", "medium") and not rule.operator_rules  # practice, not validation


# --------------------------------------------------------------------------------------------------
# Environment-aware severities and branches


def test_severity_depends_on_environment() -> None:
    job = rules.get_rule("autoscaling-bounds-explicit").violating
    path = "spec.rayClusterSpec.workerGroupSpecs[0].maxReplicas"
    assert _found(job, "autoscaling-bounds-explicit", environment="prod") == [(path, "high")]
    assert _found(job, "autoscaling-bounds-explicit", environment="dev") == [(path, "medium")]
    assert _found(job, "autoscaling-bounds-explicit") == [(path, "medium")]
    service = example_service(upgradeStrategy={"type": "None"})
    assert _found(service, "rayservice-upgrade-strategy-none", environment="staging") == [
        ("spec.upgradeStrategy.type", "medium")
    ]
    assert _found(example_service(), "rayservice-upgrade-strategy-none", environment="prod") == []  # default


def test_autoscaling_bounds_branches() -> None:
    cluster = example_cluster_spec(autoscaling=True)
    group = cluster["workerGroupSpecs"][0]
    group["maxReplicas"] = 2147483647
    del group["minReplicas"]
    doc = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "c"}, "spec": cluster}
    assert sorted(_found(doc, "autoscaling-bounds-explicit", environment="prod")) == [
        ("spec.workerGroupSpecs[0].maxReplicas", "high"),
        ("spec.workerGroupSpecs[0].minReplicas", "medium"),
    ]
    cluster["enableInTreeAutoscaling"] = False  # fixed-size groups: bounds are not a cost ceiling
    assert _found(doc, "autoscaling-bounds-explicit") == []


def test_cluster_freed_by_deletion_rules_or_legacy_policies() -> None:
    no_shutdown: dict[str, Any] = {"shutdownAfterJobFinishes": None, "ttlSecondsAfterFinished": None}
    both = {
        "deletionRules": [
            {"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED"}},
            {"policy": "DeleteSelf", "condition": {"jobDeploymentStatus": "Failed"}},
        ]
    }
    assert _found(example_job(**no_shutdown, deletionStrategy=both), "rayjob-cluster-not-freed") == []
    success_only = {"deletionRules": [{"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED"}}]}
    assert _found(example_job(**no_shutdown, deletionStrategy=success_only), "rayjob-cluster-not-freed")
    legacy = {"onSuccess": {"policy": "DeleteCluster"}, "onFailure": {"policy": "DeleteNone"}}
    assert _found(example_job(**no_shutdown, deletionStrategy=legacy), "rayjob-cluster-not-freed")
    interactive = example_job(**no_shutdown, submissionMode="InteractiveMode")
    assert _found(interactive, "rayjob-cluster-not-freed") == []
    selector = example_job(**no_shutdown, rayClusterSpec=None, clusterSelector={"ray.io/cluster": "shared"})
    assert _found(selector, "rayjob-cluster-not-freed") == []
    assert _found(selector, "rayjob-deadline-unbounded") == []


def test_deadline_missing_is_low() -> None:
    assert _found(example_job(activeDeadlineSeconds=None), "rayjob-deadline-unbounded") == [
        ("spec.activeDeadlineSeconds", "low")
    ]


def test_cronjob_templates_are_checked_but_delete_self_is_not() -> None:
    job = rules.get_rule("rayjob-delete-self-under-pulumi").violating
    cron: dict[str, Any] = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCronJob",
        "metadata": {"name": "nightly"},
        "spec": {"schedule": "0 2 * * *", "jobTemplate": copy.deepcopy(job["spec"])},
    }
    gates = {"RayCronJob": True}
    assert _found(cron, "rayjob-delete-self-under-pulumi", feature_gates=gates) == []
    cron["spec"]["jobTemplate"]["activeDeadlineSeconds"] = 40 * 24 * 3600
    assert _found(cron, "rayjob-deadline-unbounded", feature_gates=gates) == [
        ("spec.jobTemplate.activeDeadlineSeconds", "medium")
    ]


def test_odd_shapes_never_raise() -> None:
    ctx = rules.make_context(feature_gates=ALL_GATES, environment="prod")
    for value in [None, "", "x", 0, -1, True, [], {}, [None], {"a": None}, UNKNOWN_SENTINEL]:
        docs = [
            example_job(deletionStrategy=value, activeDeadlineSeconds=value, clusterSelector=value),
            example_job(deletionStrategy={"deletionRules": [value, {"policy": value, "condition": value}]}),
            example_job(rayClusterSpec={"enableInTreeAutoscaling": True, "workerGroupSpecs": [value]}),
            example_service(upgradeStrategy=value),
            {"kind": "RayJob", "spec": value},
            {"kind": "RayService", "spec": {"upgradeStrategy": {"type": value}}},
        ]
        for doc in docs:
            for rule in OWN_RULES:
                list(rule.run(copy.deepcopy(doc), ctx))


# --------------------------------------------------------------------------------------------------
# Mutations of upstream samples; false positives


def test_mutated_upstream_samples_are_caught() -> None:
    shutdown = upstream_sample("ray-job.shutdown.yaml", "RayJob")
    assert _found(shutdown, "rayjob-cluster-not-freed") == []
    shutdown["spec"]["shutdownAfterJobFinishes"] = False
    assert _found(shutdown, "rayjob-cluster-not-freed", environment="prod") == [
        ("spec.shutdownAfterJobFinishes", "high")
    ]
    service = upstream_sample("ray-service.sample.yaml", "RayService")
    service["spec"]["upgradeStrategy"] = {"type": "None"}
    assert _found(service, "rayservice-upgrade-strategy-none", environment="prod") == [
        ("spec.upgradeStrategy.type", "high")
    ]
    incremental = upstream_sample("ray-service.incremental-upgrade.yaml", "RayService")
    assert _found(incremental, "autoscaling-bounds-explicit", feature_gates=ALL_GATES) == []
    del incremental["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["maxReplicas"]
    assert _found(incremental, "autoscaling-bounds-explicit", environment="prod") == [
        ("spec.rayClusterConfig.workerGroupSpecs[0].maxReplicas", "high")
    ]
    selector = upstream_sample("ray-job.use-existing-raycluster.yaml", "RayJob")
    selector["spec"]["shutdownAfterJobFinishes"] = True
    assert _found(selector, "rayjob-shutdown-with-cluster-selector") == [("spec.shutdownAfterJobFinishes", "low")]
