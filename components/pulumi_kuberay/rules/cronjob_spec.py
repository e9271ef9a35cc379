"""RayCronJob operator rules: ValidateRayCronJobSpec.

Reference: ``kuberay-v1.7.0.md`` sections 5 and 8.4 (RCJ-01 .. RCJ-05). RCJ-06 (the jobTemplate fails a RayJob
spec rule) is covered by every RayJob spec rule in ``operator_job``, which also checks ``spec.jobTemplate``.
The schedule is parsed like robfig/cron ``ParseStandard`` and the time zone looked up like Go's
``time.LoadLocation``: the code base's one implementation of each, ``pulumi_kuberay.kuberay.gosyntax``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay import KUBERAY_CONTROLLER
from pulumi_kuberay.kuberay.kubernetes import DNS_LABEL_MAX_LENGTH
from pulumi_kuberay.kuberay.names import NAME_LIMITS
from pulumi_kuberay.kuberay.paths import as_str, get

from ._cel import Cel
from ._engine import Context, Violation, declare
from ._examples import example_cronjob
from ._fixed import REMOVE, patch
from ._manifest_readers import (
    GENERATED_SUFFIX_LENGTH,
    MAX_RAYJOB_NAME_LENGTH,
    cron_error,
    effective_name,
    go_location_exists,
    is_dns1035,
    known_zones,
)

MAX_RAYCRONJOB_NAME_LENGTH = NAME_LIMITS["RayCronJob"]

def _spec(manifest: dict[str, Any]) -> dict[str, Any] | None:
    if manifest.get("kind") != "RayCronJob":
        return None
    spec = manifest.get("spec")
    return spec if isinstance(spec, dict) else None


#: The examples' context: RayCronJob is an alpha gate (default off); the gate itself is checked by the
#: ``feature-gate-disabled`` rule in ``versions``.
_GATE_ON = {"feature_gates": {"RayCronJob": True}}


def _check_name_length(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    # The name the object gets: with generateName, the API server's prefix plus 5 random characters.
    found = effective_name(manifest) if _spec(manifest) is not None else None
    if found is None:
        return
    name, path = found
    if len(name) > MAX_RAYCRONJOB_NAME_LENGTH:
        yield Violation(
            f"RayCronJob name is {len(name)} characters; the operator allows at most {MAX_RAYCRONJOB_NAME_LENGTH} (child RayJobs are named <name>-<minutes timestamp>)",
            path,
        )


declare(
    id="raycronjob-name-too-long",
    title="RayCronJob name longer than 36 characters",
    severity="critical",
    category="correctness",
    kinds=("RayCronJob",),
    rows=("RCJ-01",),
    enforced_by=("operator",),
    since="1.7",
    rationale="Child RayJob names append a timestamp to the RayCronJob name and must stay within the RayJob limit, so the operator rejects RayCronJob names over 36 characters.",
    fix="Shorten metadata.name to at most 36 characters.",
    check=_check_name_length,
    compliant=example_cronjob("nightly-train"),
    violating=example_cronjob("nightly-train-" + "x" * 23),
    violating_path="metadata.name",
    context=_GATE_ON,
    fixed=patch({"metadata.name": "nightly-train"}),
    cel=Cel('!has(object.spec) || !has(object.metadata.name) || size(object.metadata.name) <= 36', path="metadata.name"),
)


def _check_child_job_name(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    """The RayJobs a RayCronJob creates are named ``<name>-<suffix>`` and pass ValidateRayJobMetadata:
    DNS-1035 (so the RayCronJob name must start with a letter) and, before v1.7 (5 random characters),
    at most 47 characters (name at most 41; v1.7 has its own limit, raycronjob-name-too-long)."""
    spec = _spec(manifest)
    found = effective_name(manifest) if spec is not None else None
    if found is None or spec is None or spec.get("suspend") is True:
        return  # suspended: Reconcile returns before constructRayJob, no RayJob is created
    manager = as_str(get(spec, "jobTemplate", "managedBy"))
    if manager and manager != KUBERAY_CONTROLLER:
        return  # the RayJobs go to another controller (ManagedByExternalController): KubeRay never validates them
    name, path = found
    child = f"{name}-{'x' * GENERATED_SUFFIX_LENGTH}"
    if not is_dns1035(child[:DNS_LABEL_MAX_LENGTH]) or not name[:1].isalpha():
        yield Violation(
            f"the RayJobs this RayCronJob creates are named {name!r} plus a suffix, which is not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter): the operator rejects each one",
            path,
        )
    elif not ctx.at_least(1, 7) and len(child) > MAX_RAYJOB_NAME_LENGTH:
        yield Violation(
            f"the RayJobs this RayCronJob creates are named <name>-<5 characters> ({len(child)} characters); the operator allows at most {MAX_RAYJOB_NAME_LENGTH}, so every scheduled RayJob fails validation",
            path,
        )


declare(
    id="raycronjob-child-job-name-invalid",
    title="The RayJobs a RayCronJob creates get invalid names",
    severity="critical",
    category="correctness",
    kinds=("RayCronJob",),
    rows=("RJ-01", "RJ-02"),
    enforced_by=("operator",),
    rationale="constructRayJob names each RayJob <RayCronJob name>-<suffix>; ValidateRayJobMetadata then requires a DNS-1035 label of at most 47 characters, so a RayCronJob name that starts with a digit or (before v1.7) is longer than 41 characters produces only failed RayJobs.",
    fix="Use a RayCronJob name that starts with a letter and has at most 41 characters (36 from v1.7).",
    check=_check_child_job_name,
    compliant=example_cronjob("nightly-train"),
    violating=example_cronjob("1-nightly-train"),
    violating_path="metadata.name",
    context=_GATE_ON,
    fixed=patch({"metadata.name": "nightly-train"}),
    cel=Cel("!has(object.spec) || (has(object.spec.suspend) && object.spec.suspend) || (has(object.spec.jobTemplate) && has(object.spec.jobTemplate.managedBy) && object.spec.jobTemplate.managedBy != '' && object.spec.jobTemplate.managedBy != 'ray.io/kuberay-operator') || !has(object.metadata.name) || (size((object.metadata.name + '-xxxxx')) > 63 ? (object.metadata.name + '-xxxxx').substring(0, 63) : (object.metadata.name + '-xxxxx')).matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')", path="metadata.name"),
)


def _check_schedule_tz(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _spec(manifest)
    schedule = as_str(spec.get("schedule")) if spec else None
    if schedule and "TZ" in schedule and ctx.at_least(1, 7):
        yield Violation(
            f"schedule {schedule!r} embeds a time zone (TZ=/CRON_TZ=); the operator rejects it",
            "spec.schedule",
            fix="Move the zone to spec.timeZone and keep only the 5 cron fields in schedule.",
        )


declare(
    id="raycronjob-schedule-has-timezone",
    title="Time zone inside the cron schedule",
    severity="critical",
    category="correctness",
    kinds=("RayCronJob",),
    rows=("RCJ-02",),
    enforced_by=("operator",),
    rationale="Since v1.7 the zone belongs in spec.timeZone; a schedule containing 'TZ' is rejected.",
    fix="Use spec.timeZone: <IANA zone> and a plain 5-field schedule.",
    check=_check_schedule_tz,
    compliant=example_cronjob(schedule="45 21 * * *", timeZone="Asia/Taipei"),
    violating=example_cronjob(schedule="CRON_TZ=Asia/Taipei 45 21 * * *", timeZone=None),
    violating_path="spec.schedule",
    context=_GATE_ON,
    fixed=patch({"spec.schedule": "45 21 * * *", "spec.timeZone": "Asia/Taipei"}),
)


def _check_schedule(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _spec(manifest)
    schedule = as_str(spec.get("schedule")) if spec else None
    if schedule is None:
        return  # missing/non-string schedule: a structural finding
    if "TZ" in schedule and ctx.at_least(1, 7):
        return  # reported by raycronjob-schedule-has-timezone
    error = cron_error(schedule)
    if error is not None:
        yield Violation(f"schedule {schedule!r} is not a valid cron expression: {error}", "spec.schedule")


declare(
    id="raycronjob-schedule-invalid",
    title="Invalid cron schedule",
    severity="critical",
    category="correctness",
    kinds=("RayCronJob",),
    rows=("RCJ-03",),
    enforced_by=("operator",),
    rationale="The operator parses the schedule with the standard cron parser (5 fields: minute hour day-of-month month day-of-week, or @hourly/@daily/... /@every <duration>) and rejects anything else.",
    fix="Write 5 cron fields (e.g. '0 2 * * *') or a descriptor like '@daily'; seconds are not supported.",
    check=_check_schedule,
    compliant=example_cronjob(schedule="*/15 9-17 * * MON-FRI"),
    violating=example_cronjob(schedule="0 0 2 * * *"),
    violating_path="spec.schedule",
    context=_GATE_ON,
    fixed=patch({"spec.schedule": "*/15 9-17 * * MON-FRI"}),
)


def _check_timezone_empty(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _spec(manifest)
    if spec is not None and spec.get("timeZone") == "":
        yield Violation("timeZone is an empty string", "spec.timeZone")


declare(
    id="raycronjob-timezone-empty",
    title="Empty timeZone",
    severity="critical",
    category="correctness",
    kinds=("RayCronJob",),
    rows=("RCJ-04", "SCH-minLength"),
    enforced_by=("api-server", "operator"),
    since="1.7",
    rationale="The CRD (minLength 1) and the operator reject an empty timeZone.",
    fix="Omit timeZone to use the operator's local zone, or set an IANA zone such as 'Europe/Paris'.",
    check=_check_timezone_empty,
    compliant=example_cronjob(timeZone=None),
    violating=example_cronjob(timeZone=""),
    violating_path="spec.timeZone",
    context=_GATE_ON,
    fixed=patch({"spec.timeZone": REMOVE}),
)


def _check_timezone(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _spec(manifest)
    zone = as_str(spec.get("timeZone")) if spec else None
    if not zone:
        return
    if not go_location_exists(zone):
        close = sorted(z for z in known_zones() if z.lower() == zone.lower())
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        yield Violation(f"timeZone {zone!r} is not an IANA time zone{hint}", "spec.timeZone")


declare(
    id="raycronjob-timezone-invalid",
    title="Unknown timeZone",
    severity="critical",
    category="correctness",
    kinds=("RayCronJob",),
    rows=("RCJ-05",),
    enforced_by=("operator",),
    since="1.7",
    rationale="The operator loads the zone from Go's embedded IANA database and rejects unknown names (abbreviations like 'PST' or offsets like 'UTC+8' are not zone names).",
    fix="Use an IANA zone name such as 'America/Los_Angeles' or 'UTC'.",
    check=_check_timezone,
    compliant=example_cronjob(timeZone="America/Los_Angeles"),
    violating=example_cronjob(timeZone="America/San_Francisco"),
    violating_path="spec.timeZone",
    context=_GATE_ON,
    fixed=patch({"spec.timeZone": "America/Los_Angeles"}),
)
