"""The typed RayCronJob spec (``model/cronjob.py``): cron schedule and time zone checks, job template
reuse.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from pulumi_kuberay.model._errors import ManifestError, SpecError
from pulumi_kuberay.model.cronjob import RayCronJobManifest, RayCronJobSpec, check_schedule, check_time_zone
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.model.manifest import ObjectMeta, load_manifest, load_stored
from pulumi_kuberay.rules import check
from pydantic import ValidationError

TEMPLATE = RayJobSpec(entrypoint="python job.py", cluster_selector={"ray.io/cluster": "shared"})


def _doc(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "schedule": "0 * * * *",
        "jobTemplate": {"clusterSelector": {"ray.io/cluster": "c"}},
    }
    base.update(spec)
    return {"apiVersion": "ray.io/v1", "kind": "RayCronJob", "metadata": {"name": "cron"}, "spec": base}


def _problems(**spec: Any) -> list[tuple[str, str]]:
    with pytest.raises(ManifestError) as info:
        load_manifest(_doc(**spec))
    return [(p.path, p.message) for p in info.value.problems]


def _stored_findings(**spec: Any) -> list[tuple[str, str, str, str]]:
    """What only the operator refuses loads (the API server stores it) and the rule catalogue reports it; from
    Python (the components' args) the spec is refused."""
    doc = _doc(**spec)
    doc["spec"]["jobTemplate"].setdefault("entrypoint", "python job.py")
    assert load_manifest(doc).to_manifest() == doc
    assert load_stored(doc).manifest.to_manifest() == doc
    with pytest.raises(ValidationError):
        RayCronJobSpec.model_validate(doc["spec"])
    found = check(doc, feature_gates={"RayCronJob": True})  # the gate on: the operator acts on RayCronJobs
    return [(f.rule_id, f.severity, f.path, f.message) for f in found if f.severity == "critical"]


@pytest.mark.parametrize(
    "schedule",
    [
        "* * * * *",
        "45 21 * * *",
        "*/15 9-17 * * MON-FRI",
        "0 0 1,15 * *",
        "0 12 * JAN-MAR,dec sun",
        "5/10 * ? * *",
        "0-30/5 0 1 1 0",
        "59 23 31 12 6",
        "@hourly",
        "@daily",
        "@midnight",
        "@weekly",
        "@monthly",
        "@yearly",
        "@annually",
        "@every 1h30m",
        "@every 90s",
        "1,,2 * * * *",  # robfig's getField skips empty list elements
        "+5 * * * *",  # strconv.Atoi takes a sign
        "@every 0s",  # Every() rounds up to one second
        "CRON_TZ=UTC 0 * * * *",  # parses; v1.7 refuses it: rule raycronjob-schedule-has-timezone (versioned)
    ],
)
def test_valid_schedules(schedule: str) -> None:
    assert RayCronJobSpec(schedule=schedule, job_template=TEMPLATE).schedule == schedule


@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        (
            "* * * *",
            "schedule '* * * *': has 4 fields, expected 5 (minute hour day-of-month month day-of-week)",
        ),
        (
            "0 0 * * * *",
            "schedule '0 0 * * * *': has 6 fields, expected 5 (minute hour day-of-month month day-of-week)",
        ),
        ("60 * * * *", "schedule '60 * * * *': minute field: 60 is outside 0-59"),
        ("0 24 * * *", "schedule '0 24 * * *': hour field: 24 is outside 0-23"),
        ("0 0 0 * *", "schedule '0 0 0 * *': day-of-month field: 0 is outside 1-31"),
        ("0 0 * 13 *", "schedule '0 0 * 13 *': month field: 13 is outside 1-12"),
        ("0 0 * * 7", "schedule '0 0 * * 7': day-of-week field: 7 is outside 0-6"),
        (
            "0 0 * * FOO",
            "schedule '0 0 * * FOO': day-of-week field: 'FOO' is not a number or a name "
            "(SUN, MON, TUE, WED, THU, FRI, SAT)",
        ),
        ("*/0 * * * *", "schedule '*/0 * * * *': minute field: step '0' must be a positive number"),
        ("30-10 * * * *", "schedule '30-10 * * * *': minute field: range '30-10' runs backwards (30 > 10)"),
        ("@fortnightly", "schedule '@fortnightly': '@fortnightly' is not a known descriptor"),
        ("@every soon", "schedule '@every soon': 'soon' is not a duration"),
        ("", "schedule is empty"),
    ],
)
def test_invalid_schedules(schedule: str, message: str) -> None:
    with pytest.raises(SpecError) as info:
        check_schedule(schedule)
    assert info.value.message == message
    ((rule, severity, path, said),) = _stored_findings(schedule=schedule)
    assert (rule, severity, path) == ("raycronjob-schedule-invalid", "critical", "spec.schedule")
    assert said.endswith(message.split(": ", 1)[-1] if schedule else "is empty") or not schedule


def test_time_zone() -> None:
    assert check_time_zone("Asia/Taipei") == "Asia/Taipei"
    assert check_time_zone("UTC") == "UTC"
    for zone in ("Mars/Olympus", "../etc/passwd"):
        ((rule, severity, path, _),) = _stored_findings(timeZone=zone)
        assert (rule, severity, path) == ("raycronjob-timezone-invalid", "critical", "spec.timeZone")
        with pytest.raises(SpecError, match=f"timeZone '{re.escape(zone)}' is not a known IANA time zone"):
            check_time_zone(zone)
    assert _problems(timeZone="") == [("spec.timeZone", "String should have at least 1 character")]


def test_required_fields() -> None:
    doc = _doc()
    del doc["spec"]["schedule"], doc["spec"]["jobTemplate"]
    with pytest.raises(ManifestError) as info:
        load_manifest(doc)
    assert info.value.paths == ["spec.jobTemplate", "spec.schedule"]


def test_job_template_is_validated_as_a_rayjob_spec() -> None:
    ((rule, severity, path, _),) = _stored_findings(jobTemplate={"entrypoint": "python x.py"})
    assert (rule, severity, path) == ("rayjob-cluster-source-missing", "critical", "spec.jobTemplate")
    # any submissionMode string loads from a manifest (the CRD and the operator accept it, then ignore it)
    loaded = load_manifest(_doc(jobTemplate={"clusterSelector": {"ray.io/cluster": "c"}, "submissionMode": "Cron"}))
    assert loaded.spec.job_template.submission_mode == "Cron"


def test_manifest_renders_and_round_trips() -> None:
    manifest = RayCronJobManifest(
        metadata=ObjectMeta(name="nightly"),
        spec=RayCronJobSpec(
            schedule="0 2 * * *", time_zone="Europe/Berlin", suspend=False, job_template=TEMPLATE
        ),
    )
    doc = manifest.to_manifest()
    assert doc == {
        "apiVersion": "ray.io/v1",
        "kind": "RayCronJob",
        "metadata": {"name": "nightly"},
        "spec": {
            "jobTemplate": {"entrypoint": "python job.py", "clusterSelector": {"ray.io/cluster": "shared"}},
            "schedule": "0 2 * * *",
            "timeZone": "Europe/Berlin",
            "suspend": False,
        },
    }
    assert load_manifest(doc).to_manifest() == doc


def test_only_v1() -> None:
    doc = _doc()
    doc["apiVersion"] = "ray.io/v1alpha1"
    with pytest.raises(ManifestError) as info:
        load_manifest(doc)
    assert info.value.paths == ["apiVersion"]
