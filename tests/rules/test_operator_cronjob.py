"""RayCronJob operator rules (``ValidateRayCronJobSpec``, module ``rules/cronjob``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from _reference import require_reference, sample_documents
from _rule_checks import ALL_GATES, public_paths
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.gosyntax import cron_error
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules._engine import Rule
from pulumi_kuberay.rules._examples import example_cronjob

MODULE = "cronjob_spec"
OWN_RULES = sorted(
    (r for r in rules.RULES.values() if r.module == MODULE),
    key=lambda r: r.id,
)
GATE_ON = {"RayCronJob": True}


def _public(rule_id: str, manifest: dict[str, Any], **settings: Any) -> list[str]:
    """The rule's paths through check(), the RayCronJob gate on unless the settings say otherwise."""
    return public_paths(rule_id, manifest, **{"feature_gates": GATE_ON, **settings})


def test_every_rcj_row_is_mapped() -> None:
    mapped = {row for r in rules.RULES.values() for row in r.operator_rules if row.startswith("RCJ-")}
    assert mapped == {f"RCJ-0{i}" for i in range(1, 7)}  # RCJ-06 via the RayJob spec rules


@pytest.mark.parametrize("rule", OWN_RULES, ids=lambda r: r.id)
def test_rule_metadata(rule: Rule) -> None:
    assert rule.kinds == ("RayCronJob",) and rule.severity == "critical"


def test_compliant_examples_are_clean_with_the_gate_on() -> None:
    for rule in OWN_RULES:
        critical = [f for f in rules.check(rule.compliant, **rule.context) if f.severity == "critical"]
        assert critical == [], rule.id


# --------------------------------------------------------------------------------------------------
# The cron parser (robfig/cron ParseStandard semantics)

VALID = [
    "* * * * *",
    "0 2 * * *",
    "*/15 9-17 * * MON-FRI",
    "0 0 1,15 * *",
    "5 4 * * sun",
    "0 0 * JAN,jul *",
    "30 3 ? * 1-5",
    "0 0-23/2 * * *",
    "7/10 * * * *",
    "@hourly",
    "@daily",
    "@midnight",
    "@every 1h30m",
    "CRON_TZ=Asia/Taipei 45 21 * * *",
    "TZ=UTC 0 0 * * *",
]
INVALID = [
    "",
    "0 0 2 * * *",  # 6 fields (seconds) are not standard
    "* * * *",
    "60 * * * *",
    "* 24 * * *",
    "* * 0 * *",
    "* * * 13 *",
    "* * * * 7",  # robfig: day of week 0-6
    "*/0 * * * *",
    "5-1 * * * *",
    "1-2-3 * * * *",
    "*/5/2 * * * *",
    "a * * * *",
    "* * * FOO *",
    "@weekdays",
    "@every 10",
    "@every",
    "TZ=Mars/Olympus 0 0 * * *",
]


@pytest.mark.parametrize("schedule", VALID)
def test_valid_schedules(schedule: str) -> None:
    assert cron_error(schedule) is None


@pytest.mark.parametrize("schedule", INVALID)
def test_invalid_schedules(schedule: str) -> None:
    assert cron_error(schedule) is not None


def test_tz_prefix_is_an_error_since_1_7_only() -> None:
    doc = example_cronjob(schedule="CRON_TZ=Asia/Taipei 45 21 * * *", timeZone=None)
    assert _public("raycronjob-schedule-has-timezone", doc) == ["spec.schedule"]
    assert _public("raycronjob-schedule-invalid", doc) == []  # one finding, not two
    assert _public("raycronjob-schedule-has-timezone", doc, kuberay_version="1.6.0") == []
    assert _public("raycronjob-schedule-invalid", doc, kuberay_version="1.6.0") == []  # v1.6 parser accepts it


@pytest.mark.parametrize(
    ("zone", "ok"),
    [
        ("UTC", True),
        ("Local", True),
        ("Europe/Paris", True),
        ("America/Argentina/Buenos_Aires", True),
        ("US/Pacific", True),
        ("PST", False),
        ("UTC+8", False),
        ("europe/paris", False),
        ("../etc/passwd", False),
    ],
)
def test_time_zones(zone: str, ok: bool) -> None:
    doc = example_cronjob(timeZone=zone)
    assert (_public("raycronjob-timezone-invalid", doc) == []) is ok


def test_timezone_rules_need_1_7() -> None:
    for rule_id in ("raycronjob-timezone-invalid", "raycronjob-timezone-empty", "raycronjob-name-too-long"):
        assert _public(rule_id, rules.get_rule(rule_id).violating, kuberay_version="1.6.0") == []


def test_jobtemplate_is_checked_by_rayjob_rules() -> None:
    doc = example_cronjob()
    doc["spec"]["jobTemplate"]["suspend"] = True
    doc["spec"]["jobTemplate"]["shutdownAfterJobFinishes"] = False
    doc["spec"]["jobTemplate"].pop("ttlSecondsAfterFinished")
    assert _public("rayjob-suspend-requires-shutdown", doc) == ["spec.jobTemplate.suspend"]


def test_odd_shapes_never_raise() -> None:
    ctx = rules.make_context(feature_gates=ALL_GATES)
    value: Any
    for value in [
        None,
        "",
        "x",
        0,
        -1,
        True,
        [],
        {},
        {"a": None},
        UNKNOWN_SENTINEL,
        "* * * * * * *",
        "@",
        "TZ=",
    ]:
        for doc in (
            example_cronjob(schedule=value, timeZone=value),
            {"kind": "RayCronJob", "spec": value, "metadata": value},
        ):
            for rule in OWN_RULES:
                list(rule.run(copy.deepcopy(doc), ctx))


def test_unknown_values_are_not_judged() -> None:
    doc = example_cronjob(schedule=UNKNOWN_SENTINEL, timeZone=UNKNOWN_SENTINEL)
    doc["metadata"]["name"] = UNKNOWN_SENTINEL
    assert not {f.rule_id for f in rules.check(doc, feature_gates=GATE_ON)} & {r.id for r in OWN_RULES}


# --------------------------------------------------------------------------------------------------
# Mutations of real upstream samples and false positives


def _samples() -> list[tuple[str, dict[str, Any]]]:
    require_reference()
    return [(name, copy.deepcopy(doc)) for name, _i, doc in sample_documents("RayCronJob")]


@pytest.mark.parametrize(
    ("rule_id", "field", "value", "path"),
    [
        ("raycronjob-schedule-invalid", "schedule", "*/5 * * *", "spec.schedule"),
        ("raycronjob-schedule-has-timezone", "schedule", "TZ=Asia/Taipei * * * * *", "spec.schedule"),
        ("raycronjob-timezone-invalid", "timeZone", "Asia/Taipai", "spec.timeZone"),
        ("raycronjob-timezone-empty", "timeZone", "", "spec.timeZone"),
    ],
)
def test_mutated_upstream_samples_are_caught(rule_id: str, field: str, value: str, path: str) -> None:
    for name, doc in _samples():
        assert _public(rule_id, doc) == [], name
        doc["spec"][field] = value
        assert _public(rule_id, doc) == [path], name


def test_mutated_sample_name_is_caught() -> None:
    for name, doc in _samples():
        doc["metadata"]["name"] = "raycronjob-sample-with-a-long-name-xy"  # 37 characters
        assert _public("raycronjob-name-too-long", doc) == ["metadata.name"], name
