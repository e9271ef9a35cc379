"""A RayCronJob's ``jobTemplate.clusterSelector`` is checked as a RayJob's ``clusterSelector``: every document rule
about a selected cluster fires on the template with its path under ``spec.jobTemplate.``, and the stack rule
``rayjob-cluster-selector-unmatched`` reports a template naming no RayCluster of the set."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from _rule_checks import ALL_GATES, public_paths
from pulumi_kuberay import rules
from pulumi_kuberay.rules import check_stack
from pulumi_kuberay.rules._engine import Rule
from pulumi_kuberay.rules._examples import base_cluster, example_cronjob

#: Document rules whose violating example is a RayJob in clusterSelector mode (the selector's rules).
SELECTOR_RULES = sorted(
    (
        r
        for r in rules.rules_of("document")
        if isinstance(r.violating, dict)
        and r.violating.get("kind") == "RayJob"
        and (r.violating.get("spec") or {}).get("clusterSelector")
        and (r.violating_path or "").startswith("spec.")
        and not r.pulumi_only
    ),
    key=lambda r: r.id,
)


def _as_cronjob(job: dict[str, Any]) -> dict[str, Any]:
    cron = example_cronjob(name=job["metadata"]["name"])
    cron["spec"]["jobTemplate"] = copy.deepcopy(job["spec"])
    return cron


def test_the_selector_rules_are_found() -> None:
    ids = {r.id for r in SELECTOR_RULES}
    assert {"rayjob-cluster-selector-name-empty", "rayjob-shutdown-with-cluster-selector"} <= ids, ids


@pytest.mark.parametrize("rule", SELECTOR_RULES, ids=lambda r: r.id)
def test_a_selector_rule_fires_on_the_cronjob_template_under_spec_job_template(rule: Rule) -> None:
    assert "RayCronJob" in rule.kinds, f"{rule.id} checks a RayJob's clusterSelector but not a RayCronJob's"
    settings = {**rule.context, "feature_gates": {**ALL_GATES, **rule.context.get("feature_gates", {})}}
    assert rule.violating_path is not None
    job_paths = public_paths(rule.id, rule.violating, **settings)
    assert rule.violating_path in job_paths
    cron_paths = public_paths(rule.id, _as_cronjob(rule.violating), **settings)
    expected = "spec.jobTemplate." + rule.violating_path.removeprefix("spec.")
    assert expected in cron_paths, (rule.id, cron_paths)


def _job_cron(selector: dict[str, str], namespace: str | None = None) -> dict[str, Any]:
    cron = example_cronjob(name="nightly")
    template = cron["spec"]["jobTemplate"]
    template.pop("rayClusterSpec", None)
    template.pop("shutdownAfterJobFinishes", None)
    template.pop("ttlSecondsAfterFinished", None)
    template["clusterSelector"] = selector
    if namespace is not None:
        cron["metadata"]["namespace"] = namespace
    return cron


def _cluster() -> dict[str, Any]:
    cluster = base_cluster()
    cluster["metadata"]["name"] = "shared"
    return cluster


def _unmatched(docs: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    return [
        (f.index, f.finding.path, f.finding.message)
        for f in check_stack(docs)
        if f.finding.rule_id == "rayjob-cluster-selector-unmatched"
    ]


def test_a_cronjob_template_naming_no_cluster_of_the_set_is_reported_at_its_template_path() -> None:
    cluster = _cluster()
    ((index, path, message),) = _unmatched([cluster, _job_cron({"ray.io/cluster": "sharde", "team": "ml"})])
    assert index == 1
    assert path == "spec.jobTemplate.clusterSelector['ray.io/cluster']"
    assert message.startswith("RayCronJob default/nightly schedules RayJobs that run on the RayCluster named by ")
    assert "jobTemplate.clusterSelector['ray.io/cluster'] ('sharde')" in message and "team, are ignored" in message


def test_a_cronjob_template_naming_a_cluster_of_the_set_or_of_another_namespace_is_not_judged() -> None:
    cluster = _cluster()
    assert _unmatched([cluster, _job_cron({"ray.io/cluster": "shared"})]) == []
    assert _unmatched([cluster, _job_cron({"ray.io/cluster": "other"}, namespace="batch")]) == []  # no cluster there
    assert "RayCronJob" in rules.get_rule("rayjob-cluster-selector-unmatched").kinds


def test_the_rayjob_finding_is_unchanged() -> None:
    cluster = _cluster()
    job = {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {"name": "batch"},
        "spec": {"entrypoint": "python x.py", "clusterSelector": {"ray.io/cluster": "sharde"}},
    }
    ((index, path, message),) = _unmatched([cluster, job])
    assert (index, path) == (1, "spec.clusterSelector['ray.io/cluster']")
    assert message.startswith("RayJob default/batch runs on the RayCluster named by clusterSelector['ray.io/cluster']")
