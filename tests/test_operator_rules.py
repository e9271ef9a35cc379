"""The operator rules: per Ray object (namespace watched, batch scheduler, CRD age, gates from the operator) and
about the operator itself (HA, limits, image tag). Examples of every rule are also judged by the catalogue
tests; these pin the edges."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.operator.derive import resolve_operator
from pulumi_kuberay.rules._examples import example_cronjob, example_job
from pulumi_kuberay.rules.target import Target


def target_for(setup: dict[str, Any], **target: Any) -> Target:
    """What a component with ``operator=`` checks against: the operator's version, gates and setup."""
    resolved = resolve_operator(setup, subject="KubeRayOperator 'kuberay'").setup
    return Target(
        kuberay_version=resolved.version,
        feature_gates=resolved.rule_gates(),
        operator=resolved,
        **target,
    )


def ids(manifest: dict[str, Any], target: Target) -> list[str]:
    return [f.rule_id for f in rules.check(manifest, target) if f.rule_id.startswith("operator-")]


def in_namespace(doc: dict[str, Any], namespace: str | None) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    if namespace is not None:
        doc["metadata"]["namespace"] = namespace
    return doc


# --------------------------------------------------------------------------------------------------
# Per Ray object.


def test_object_in_an_unwatched_namespace_is_critical() -> None:
    target = target_for({"watchNamespaces": ["ray"]})
    (finding,) = [
        f for f in rules.check(in_namespace(example_job(), "team-a"), target) if f.rule_id.startswith("operator-")
    ]
    assert (finding.rule_id, finding.severity, finding.path) == (
        "operator-namespace-unwatched",
        "critical",
        "metadata.namespace",
    )
    assert "KubeRayOperator 'kuberay' watches only 'ray'" in finding.message
    assert ids(in_namespace(example_job(), "ray"), target) == []


def test_single_namespace_install_watches_the_operator_namespace() -> None:
    target = target_for({"namespace": "ops", "values": {"singleNamespaceInstall": True}})
    assert ids(in_namespace(example_job(), "ray"), target) == ["operator-namespace-unwatched"]
    assert ids(in_namespace(example_job(), "ops"), target) == []


def test_all_namespaces_watched_or_namespace_unknown_is_silent() -> None:
    assert ids(in_namespace(example_job(), "anywhere"), target_for({})) == []
    assert ids(in_namespace(example_job(), None), target_for({"watchNamespaces": ["ray"]})) == []
    assert ids(in_namespace(example_job(), "team-a"), Target()) == []  # no operator known: rule silent


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (
            lambda d: d["metadata"].setdefault("labels", {}).update({"yunikorn.apache.org/queue": "root.a"}),
            "metadata.labels['yunikorn.apache.org/queue']",
        ),
        (
            lambda d: d["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"].update(
                schedulerName="kai-scheduler"
            ),
            "spec.rayClusterSpec.headGroupSpec.template.spec.schedulerName",
        ),
    ],
)
def test_scheduler_named_by_the_object_but_not_on_the_operator(edit: Any, path: str) -> None:
    doc = example_job()
    edit(doc)
    findings = [
        f for f in rules.check(doc, target_for({"batchScheduler": "volcano"})) if f.rule_id.startswith("operator-")
    ]
    assert [(f.rule_id, f.severity, f.path) for f in findings] == [("operator-batch-scheduler-disabled", "high", path)]
    assert "runs 'volcano'" in findings[0].message


def test_scheduler_enabled_on_the_operator_is_fine_and_gang_needs_one() -> None:
    doc = example_job()
    doc["metadata"]["labels"] = {"yunikorn.apache.org/queue": "root.a", "ray.io/gang-scheduling-enabled": "true"}
    assert ids(doc, target_for({"batchScheduler": "yunikorn"})) == []
    gang = example_job()
    gang["metadata"]["labels"] = {"ray.io/gang-scheduling-enabled": "true"}
    assert ids(gang, target_for({})) == ["operator-batch-scheduler-disabled"]
    legacy = target_for({"values": {"batchScheduler": {"enabled": True}}})  # deprecated flag = volcano
    volcano = example_job()
    volcano["metadata"]["labels"] = {"volcano.sh/queue-name": "q"}
    assert ids(volcano, legacy) == []


def test_gate_off_on_the_operator_flags_a_raycronjob_high_and_on_passes() -> None:
    off = [(f.rule_id, f.severity) for f in rules.check(example_cronjob(), target_for({})) if f.severity != "low"]
    assert ("feature-gate-disabled", "high") in off and not [s for _, s in off if s == "critical"]
    on = target_for({"featureGates": {"RayCronJob": True}})
    assert [f for f in rules.check(example_cronjob(), on) if f.severity == "critical"] == []


def test_crds_older_than_the_fields() -> None:
    job = example_job(preRunningDeadlineSeconds=600)  # a 1.6 field
    old = target_for({"crds": "leave", "installedCrds": "1.5.1"})
    (finding,) = [f for f in rules.check(job, old) if f.rule_id == "operator-crds-older-than-fields"]
    assert finding.severity == "critical" and finding.path == "spec.preRunningDeadlineSeconds"
    assert "the installed CRDs are KubeRay 1.5.1 (the operator is 1.7.0)" in finding.message
    assert ids(job, target_for({"crds": "leave", "installedCrds": "1.6.0"})) == []
    assert ids(job, target_for({})) == []  # managed CRDs are the operator's version


# --------------------------------------------------------------------------------------------------
# The operator itself.


@pytest.mark.parametrize("rule", rules.rules_of("setup"), ids=lambda r: r.id)
def test_setup_rule_examples(rule: rules.Rule) -> None:
    assert rules.example_findings(rule, "compliant") == []
    assert rule.violating_path in [f.path for f in rules.example_findings(rule)]


def setup_findings(args: dict[str, Any], environment: str | None = None) -> dict[str, list[str]]:
    setup = resolve_operator(args).setup
    out: dict[str, list[str]] = {}
    for finding in rules.check_setup(setup, Target(environment=environment).context()):
        out.setdefault(finding.rule_id, []).append(f"{finding.severity} {finding.path}")
    return out


def test_chart_defaults_in_prod_lack_a_standby() -> None:
    assert setup_findings({}, "prod") == {"operator-not-highly-available": ["high replicas"]}
    assert setup_findings({}, "dev") == {}


def test_replicas_without_leader_election_is_critical_everywhere() -> None:
    found = setup_findings({"replicas": 2, "leaderElection": False}, "dev")
    assert found == {"operator-not-highly-available": ["critical leaderElectionEnabled"]}


def test_prod_ha_setup_is_clean() -> None:
    assert setup_findings({"replicas": 2}, "prod") == {}


def test_limits_removed_and_image_tag_drift() -> None:
    assert setup_findings({"resources": {"requests": {"cpu": "100m"}}}) == {
        "operator-resource-limits-missing": ["medium resources.limits"]
    }
    assert setup_findings({"values": {"image": {"tag": "v1.6.1"}}}) == {
        "operator-image-tag-mismatch": ["high image.tag"]
    }
    assert setup_findings({"values": {"image": {"tag": "1.7.0"}}}) == {}
