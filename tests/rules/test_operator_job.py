"""RayJob operator rules (``ValidateRayJobMetadata``, ``ValidateRayJobSpec``; rule modules ``MODULES``).

Every rule: its compliant example yields no finding of it and its violating example yields one at the expected
path, both through the rule's own ``check`` and through the public ``rules.check``; the same inside a
RayCronJob's jobTemplate (RCJ-06); mutations of real upstream samples; no critical finding on any upstream
sample (all gates on), with per-rule counts printed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from _reference import upstream_sample
from _rule_checks import ALL_GATES, public_findings, public_paths
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules import _examples
from pulumi_kuberay.rules._engine import Rule

MODULES = ("job_deletion", "job_runtime_env", "job_shutdown", "job_submission", "kueue", "names")


def _own(modules: tuple[str, ...]) -> list[Rule]:
    return sorted(
        (r for r in rules.RULES.values() if r.module in modules and "RayJob" in r.kinds),
        key=lambda r: r.id,
    )


OWN_RULES = _own(MODULES)




def test_every_rj_row_is_mapped() -> None:
    mapped = {row for r in OWN_RULES for row in r.operator_rules if row.startswith("RJ-")}
    # RJ-35 = embedded RayClusterSpec (RC rules on every embedded spec); RJ-40 = status (diagnose)
    assert mapped == {f"RJ-{i:02d}" for i in range(1, 40)} - {"RJ-35"}


@pytest.mark.parametrize("rule", OWN_RULES, ids=lambda r: r.id)
def test_rule_metadata(rule: Rule) -> None:
    # a validation row is critical; without one, high when the operator accepts the job and ignores the setting
    assert rule.severity == "critical" if rule.operator_rules else rule.severity in ("critical", "high")
    assert rule.compliant["kind"] == rule.violating["kind"] == "RayJob"


# --------------------------------------------------------------------------------------------------
# RCJ-06: the same checks on a RayCronJob's jobTemplate


def _as_cronjob(job: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCronJob",
        "metadata": {"name": "nightly"},
        "spec": {"schedule": "0 2 * * *", "jobTemplate": copy.deepcopy(job["spec"])},
    }


SPEC_RULES = [r for r in OWN_RULES if "RayCronJob" in r.kinds]


@pytest.mark.parametrize("rule", SPEC_RULES, ids=lambda r: r.id)
def test_spec_rules_check_cronjob_template(rule: Rule) -> None:
    # a RayJob validation row holds in a RayCronJob's template too (ValidateRayCronJobSpec validates it as one)
    assert "RCJ-06" in rule.operator_rules or not any(row.startswith("RJ-") for row in rule.operator_rules)
    context = {**rule.context, "feature_gates": {**rule.context.get("feature_gates", {}), "RayCronJob": True}}
    assert rule.violating_path is not None  # every rule names it (test_catalogue)
    expected = "spec.jobTemplate" + rule.violating_path[len("spec") :]
    assert public_findings(rule.id, _as_cronjob(rule.compliant), **context) == []
    assert expected in [f.path for f in public_findings(rule.id, _as_cronjob(rule.violating), **context)]


def test_name_rules_do_not_apply_to_cronjobs() -> None:
    for rule_id in ("rayjob-name-too-long", "rayjob-name-not-dns1035"):
        assert "RayCronJob" not in rules.get_rule(rule_id).kinds


# --------------------------------------------------------------------------------------------------
# Branches beyond the violating example


def _job(**fields: Any) -> dict[str, Any]:
    return _examples.example_job(**fields)


NO_SHUTDOWN = {"shutdownAfterJobFinishes": None, "ttlSecondsAfterFinished": None}
SELECTOR = {**NO_SHUTDOWN, "rayClusterSpec": None, "clusterSelector": {"ray.io/cluster": "shared"}}


def test_generate_name_counts_the_random_suffix() -> None:
    job = _job()
    del job["metadata"]["name"]
    job["metadata"]["generateName"] = "a" * 42 + "-"  # 43 + 5 random = 48 > 47
    assert public_paths("rayjob-name-too-long", job) == ["metadata.generateName"]
    job["metadata"]["generateName"] = "a" * 41 + "-"
    assert public_paths("rayjob-name-too-long", job) == []
    assert public_paths("rayjob-name-not-dns1035", job) == []


def test_legacy_policy_unset_and_selector_and_autoscaling_branches() -> None:
    strategy = {"onSuccess": {"policy": "DeleteCluster"}, "onFailure": {}}
    assert public_paths("rayjob-legacy-deletion-policy-missing", _job(**NO_SHUTDOWN, deletionStrategy=strategy)) == [
        "spec.deletionStrategy.onFailure.policy"
    ]
    assert public_paths("rayjob-legacy-deletion-incomplete", _job(**NO_SHUTDOWN, deletionStrategy=strategy)) == []
    legacy = {"onSuccess": {"policy": "DeleteWorkers"}, "onFailure": {"policy": "DeleteSelf"}}
    assert public_paths("rayjob-deletion-policy-with-cluster-selector", _job(**SELECTOR, deletionStrategy=legacy)) == [
        "spec.deletionStrategy.onSuccess.policy"
    ]
    autoscaled = _job(
        **NO_SHUTDOWN,
        rayClusterSpec=_examples.example_cluster_spec(autoscaling=True),
        deletionStrategy=legacy,
    )
    found = public_paths("rayjob-delete-workers-with-autoscaling", autoscaled)
    assert found == ["spec.deletionStrategy.onSuccess.policy"]


def _rules(*items: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"deletionRules": [{"policy": policy, "condition": condition} for policy, condition in items]}


def test_condition_with_neither_status_and_deployment_status_duplicates() -> None:
    neither = _rules(("DeleteCluster", {"ttlSeconds": 10}))
    assert public_paths("rayjob-deletion-condition-invalid", _job(**NO_SHUTDOWN, deletionStrategy=neither)) == [
        "spec.deletionStrategy.deletionRules[0].condition"
    ]
    dup = _rules(
        ("DeleteCluster", {"jobDeploymentStatus": "Failed"}),
        ("DeleteCluster", {"jobStatus": "FAILED"}),
        ("DeleteCluster", {"jobDeploymentStatus": "Failed", "ttlSeconds": 30}),
    )
    assert public_paths("rayjob-deletion-rule-duplicate", _job(**NO_SHUTDOWN, deletionStrategy=dup)) == [
        "spec.deletionStrategy.deletionRules[2]"
    ]


def test_ttl_order_is_per_condition_and_skips_invalid_rules() -> None:
    ok = _rules(
        ("DeleteSelf", {"jobStatus": "SUCCEEDED", "ttlSeconds": 10}),  # alone for SUCCEEDED: fine
        ("DeleteWorkers", {"jobStatus": "FAILED", "ttlSeconds": 30}),
        ("DeleteSelf", {"jobStatus": "FAILED", "ttlSeconds": 90}),
    )
    assert public_paths("rayjob-deletion-ttl-order", _job(**NO_SHUTDOWN, deletionStrategy=ok)) == []
    bad = _rules(
        ("DeleteSelf", {"jobStatus": "FAILED", "ttlSeconds": 20}),
        ("DeleteWorkers", {"jobStatus": "FAILED", "ttlSeconds": 30}),
    )
    assert public_paths("rayjob-deletion-ttl-order", _job(**NO_SHUTDOWN, deletionStrategy=bad)) == [
        "spec.deletionStrategy.deletionRules[0].condition.ttlSeconds"
    ]


def test_interactive_mode_backoff_and_sidecar_submitter_template() -> None:
    interactive = _job(submissionMode="InteractiveMode", backoffLimit=1)
    assert public_paths("rayjob-backoff-limit-incompatible", interactive) == ["spec.backoffLimit"]
    sidecar = _job(submissionMode="SidecarMode", submitterPodTemplate={"spec": {"containers": []}})
    assert public_paths("rayjob-sidecar-submitter-fields", sidecar) == ["spec.submitterPodTemplate"]


def test_runtime_env_yaml_parse_error_and_empty_values() -> None:
    assert public_paths("rayjob-runtime-env-yaml-invalid", _job(runtimeEnvYAML="pip: [a\n")) == ["spec.runtimeEnvYAML"]
    assert public_paths("rayjob-runtime-env-yaml-invalid", _job(runtimeEnvYAML="just a string")) == [
        "spec.runtimeEnvYAML"
    ]
    assert public_paths("rayjob-runtime-env-yaml-invalid", _job(runtimeEnvYAML="")) == []
    assert public_paths("rayjob-runtime-env-yaml-invalid", _job(runtimeEnvYAML="# only a comment\n")) == []


def test_rules_newer_than_the_target_operator_do_not_apply() -> None:
    selector_retry = _job(**SELECTOR, backoffLimit=2)
    assert public_paths("rayjob-backoff-limit-incompatible", selector_retry) == ["spec.backoffLimit"]
    assert public_paths("rayjob-backoff-limit-incompatible", selector_retry, kuberay_version="1.5.0") == []
    pre_running = _job(preRunningDeadlineSeconds=0)
    assert public_paths("rayjob-pre-running-deadline-not-positive", pre_running, kuberay_version="1.5.0") == []


def test_deletion_strategy_gate_is_on_by_default() -> None:
    job = _job(**NO_SHUTDOWN, deletionStrategy=_rules(("DeleteCluster", {"jobStatus": "SUCCEEDED"})))
    assert public_paths("rayjob-deletion-strategy-gate-disabled", job) == []
    gate_off = {"RayJobDeletionPolicy": False}
    assert public_paths("rayjob-deletion-strategy-gate-disabled", job, feature_gates=gate_off) == [
        "spec.deletionStrategy"
    ]


# --------------------------------------------------------------------------------------------------
# Odd shapes and unknown values never raise nor produce findings of these rules out of thin air

_ODD_VALUES: list[Any] = [None, "", "x", 0, -1, 1.5, True, [], {}, [1, "a"], {"a": None}, UNKNOWN_SENTINEL]
_FIELDS = [
    "suspend",
    "shutdownAfterJobFinishes",
    "ttlSecondsAfterFinished",
    "deletionStrategy",
    "clusterSelector",
    "rayClusterSpec",
    "submissionMode",
    "backoffLimit",
    "runtimeEnvYAML",
    "activeDeadlineSeconds",
    "preRunningDeadlineSeconds",
    "submitterConfig",
    "metadata",
]


@pytest.mark.parametrize("field", _FIELDS)
def test_odd_shapes_never_raise(field: str) -> None:
    ctx = rules.make_context(feature_gates=ALL_GATES)
    for value in _ODD_VALUES:
        for doc in (
            _job(**{field: value}),
            {"kind": "RayJob", "spec": value},
            {"kind": "RayJob", "metadata": value},
        ):
            for rule in OWN_RULES:
                list(rule.run(copy.deepcopy(doc), ctx))
        strategy_shapes = [
            {"deletionRules": value},
            {"deletionRules": [value]},
            {"deletionRules": [{"policy": value, "condition": value}]},
            {"onSuccess": value, "onFailure": {"policy": value}},
        ]
        for strategy in strategy_shapes:
            doc = _job(**NO_SHUTDOWN, deletionStrategy=strategy)
            assert [f for f in rules.check(doc) if f.rule_id == rules.INTERNAL_ERROR_RULE_ID] == []


def test_unknown_values_are_not_judged() -> None:
    job = _job(
        submissionMode=UNKNOWN_SENTINEL,
        runtimeEnvYAML=UNKNOWN_SENTINEL,
        rayClusterSpec=_examples.example_cluster_spec(),
    )
    job["metadata"]["name"] = UNKNOWN_SENTINEL
    job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["restartPolicy"] = UNKNOWN_SENTINEL
    job["spec"]["submissionMode"] = UNKNOWN_SENTINEL
    ids = {f.rule_id for f in rules.check(job)}
    assert not ids & {r.id for r in OWN_RULES}


# --------------------------------------------------------------------------------------------------
# Mutations of real upstream samples


def _swap_ttls(doc: dict[str, Any]) -> None:
    rules_list = doc["spec"]["deletionStrategy"]["deletionRules"]
    rules_list[0]["condition"]["ttlSeconds"], rules_list[2]["condition"]["ttlSeconds"] = 90, 30


MUTATIONS: list[tuple[str, str, Callable[[dict[str, Any]], None], str]] = [
    (
        "ray-job.deletion-rules.yaml",
        "rayjob-deletion-ttl-order",
        _swap_ttls,
        "spec.deletionStrategy.deletionRules[2].condition.ttlSeconds",
    ),
    (
        "ray-job.deletion-rules.yaml",
        "rayjob-deletion-rules-with-shutdown",
        lambda d: d["spec"].update(shutdownAfterJobFinishes=True),
        "spec.shutdownAfterJobFinishes",
    ),
    (
        "ray-job.deletion-rules.yaml",
        "rayjob-deletion-strategy-gate-disabled",
        lambda d: None,
        "spec.deletionStrategy",
    ),
    (
        "ray-job.sidecar-mode.yaml",
        "rayjob-sidecar-submitter-fields",
        lambda d: d["spec"].update(submitterConfig={"backoffLimit": 1}),
        "spec.submitterConfig",
    ),
    (
        "ray-job.sidecar-mode.yaml",
        "rayjob-sidecar-with-cluster-selector",
        lambda d: d["spec"].update(clusterSelector={"ray.io/cluster": "c"}),
        "spec.submissionMode",
    ),
    (
        "ray-job.use-existing-raycluster.yaml",
        "rayjob-backoff-limit-incompatible",
        lambda d: d["spec"].update(backoffLimit=1),
        "spec.backoffLimit",
    ),
    (
        "ray-job.use-existing-raycluster.yaml",
        "rayjob-cluster-source-missing",
        lambda d: d["spec"].pop("clusterSelector"),
        "spec",
    ),
    (
        "ray-job.interactive-mode.yaml",
        "rayjob-backoff-limit-incompatible",
        lambda d: d["spec"].update(backoffLimit=3),
        "spec.backoffLimit",
    ),
    (
        "ray-job.shutdown.yaml",
        "rayjob-ttl-requires-shutdown",
        lambda d: d["spec"].update(shutdownAfterJobFinishes=False),
        "spec.ttlSecondsAfterFinished",
    ),
    (
        "ray-job.shutdown.yaml",
        "rayjob-suspend-with-cluster-selector",
        lambda d: d["spec"].update(suspend=True, clusterSelector={"ray.io/cluster": "c"}),
        "spec.suspend",
    ),
    (
        "ray-job.sample.yaml",
        "rayjob-runtime-env-yaml-invalid",
        lambda d: d["spec"].update(runtimeEnvYAML="- requests\n"),
        "spec.runtimeEnvYAML",
    ),
    (
        "ray-job.sample.yaml",
        "rayjob-name-too-long",
        lambda d: d["metadata"].update(name="rayjob-sample-with-a-very-long-descriptive-name-x"),
        "metadata.name",
    ),
    (
        "ray-job.sample.yaml",
        "rayjob-active-deadline-not-positive",
        lambda d: d["spec"].update(activeDeadlineSeconds=0),
        "spec.activeDeadlineSeconds",
    ),
]


@pytest.mark.parametrize(
    ("sample", "rule_id", "mutate", "path"), MUTATIONS, ids=lambda x: x if isinstance(x, str) else ""
)
def test_mutated_upstream_sample_is_caught(
    sample: str, rule_id: str, mutate: Callable[[dict[str, Any]], None], path: str
) -> None:
    doc = upstream_sample(sample, "RayJob")
    gates = {"RayJobDeletionPolicy": False} if rule_id == "rayjob-deletion-strategy-gate-disabled" else ALL_GATES
    assert public_paths(rule_id, doc, feature_gates=ALL_GATES) == []
    mutate(doc)
    assert path in public_paths(rule_id, doc, feature_gates=gates)


# --------------------------------------------------------------------------------------------------
# False positives over every upstream sample
