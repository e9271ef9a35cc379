"""RayCronJob operator rules: ValidateRayCronJobSpec.

Rows RCJ-01 .. RCJ-05. RCJ-06 (the jobTemplate fails a RayJob spec rule, ``ValidateRayJobSpec``) is covered by
every RayJob spec rule in ``job/``, which also checks ``spec.jobTemplate``.
The schedule is parsed like robfig/cron ``ParseStandard`` (5 fields or an ``@descriptor``); the time zone is
looked up in the IANA database (Go's embedded tzdata and Python's ``zoneinfo`` carry the same names).
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Iterator
from functools import cache
from typing import Any

from ._engine import Context, Violation, declare
from ._examples import example_cronjob
from ._kuberay import parse_go_duration
from ._paths import as_str, get

MAX_RAYCRONJOB_NAME_LENGTH = 36

_DESCRIPTORS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
_MONTHS = {
    m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))
}
_DAYS = {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
#: (field name, minimum, maximum, names) in ParseStandard order: minute hour day-of-month month day-of-week.
_FIELDS: tuple[tuple[str, int, int, dict[str, int]], ...] = (
    ("minute", 0, 59, {}),
    ("hour", 0, 23, {}),
    ("day of month", 1, 31, {}),
    ("month", 1, 12, _MONTHS),
    ("day of week", 0, 6, _DAYS),
)
_GO_ATOI = re.compile(r"^[+-]?[0-9]+$")


class _CronError(ValueError):
    pass


def _number(text: str, names: dict[str, int]) -> int:
    named = names.get(text.lower())
    if named is not None:
        return named
    if not _GO_ATOI.match(text):
        raise _CronError(f"failed to parse int from {text!r}")
    value = int(text)
    if value < 0:
        raise _CronError(f"negative number ({value}) not allowed: {text!r}")
    return value


def _check_range(expr: str, field: tuple[str, int, int, dict[str, int]]) -> None:
    name, low, high, names = field
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    if low_and_high[0] in ("*", "?"):
        start, end = low, high
    else:
        start = _number(low_and_high[0], names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _number(low_and_high[1], names)
        else:
            raise _CronError(f"too many hyphens in {expr!r}")
    if len(range_and_step) == 2:
        step = _number(range_and_step[1], {})
        if single:
            end = high  # "N/step" means N-max/step
        if step == 0:
            raise _CronError(f"step of range should be a positive number: {expr!r}")
    elif len(range_and_step) > 2:
        raise _CronError(f"too many slashes in {expr!r}")
    if start < low:
        raise _CronError(f"{name}: beginning of range ({start}) below minimum ({low}): {expr!r}")
    if end > high:
        raise _CronError(f"{name}: end of range ({end}) above maximum ({high}): {expr!r}")
    if start > end:
        raise _CronError(f"{name}: beginning of range ({start}) beyond end of range ({end}): {expr!r}")


def cron_error(schedule: str) -> str | None:
    """Why robfig/cron ``ParseStandard`` rejects ``schedule``, or None if it parses."""
    spec = schedule.strip()
    if not spec:
        return "empty spec string"
    if spec.startswith(("TZ=", "CRON_TZ=")):
        zone, _, spec = spec.partition(" ")
        zone_name = zone.split("=", 1)[1]
        if not _zone_exists(zone_name):
            return f"provided bad location {zone_name}"
        spec = spec.strip()
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            return None
        if spec.startswith("@every "):
            if parse_go_duration(spec[len("@every ") :]) is None:
                return f"failed to parse duration {spec!r}"
            return None
        return f"unrecognized descriptor: {spec}"
    fields = spec.split()
    if len(fields) != 5:
        return f"expected exactly 5 fields (minute hour day-of-month month day-of-week), found {len(fields)}"
    try:
        for text, field in zip(fields, _FIELDS, strict=True):
            for expr in text.split(","):
                _check_range(expr, field)
    except _CronError as err:
        return str(err)
    return None


@cache
def _known_zones() -> frozenset[str]:
    try:
        return frozenset(zoneinfo.available_timezones())
    except Exception:  # no tz database on this machine: cannot judge
        return frozenset()


def _zone_exists(name: str) -> bool:
    """Like Go's ``time.LoadLocation`` with embedded tzdata ("", "UTC" and "Local" are special)."""
    if name in ("", "UTC", "Local"):
        return True
    if ".." in name or name.startswith(("/", "\\")):
        return False
    zones = _known_zones()
    if zones:
        return name in zones
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return not _known_zones()  # no database at all: do not judge
    return True


def _spec(manifest: dict[str, Any]) -> dict[str, Any] | None:
    if manifest.get("kind") != "RayCronJob":
        return None
    spec = manifest.get("spec")
    return spec if isinstance(spec, dict) else None


#: The examples' context: RayCronJob is an alpha gate (default off); the gate itself is checked by the
#: ``feature-gate-disabled`` rule in ``versions``.
_GATE_ON = {"feature_gates": {"RayCronJob": True}}


def _check_name_length(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    name = as_str(get(manifest, "metadata", "name"))
    if _spec(manifest) is None or not name:
        return
    if len(name) > MAX_RAYCRONJOB_NAME_LENGTH:
        yield Violation(
            f"RayCronJob name is {len(name)} characters; the operator allows at most "
            f"{MAX_RAYCRONJOB_NAME_LENGTH} (child RayJobs are named <name>-<minutes timestamp>)",
            "metadata.name",
        )


declare(
    id="raycronjob-name-too-long",
    title="RayCronJob name longer than 36 characters",
    severity="critical",
    category="correctness",
    kinds=("RayCronJob",),
    rows=("RCJ-01",),
    since="1.7",
    rationale="Child RayJob names append a timestamp to the RayCronJob name and must stay within the "
    "RayJob "
    "limit, so the operator rejects RayCronJob names over 36 characters.",
    fix="Shorten metadata.name to at most 36 characters.",
    check=_check_name_length,
    compliant=example_cronjob("nightly-train"),
    violating=example_cronjob("nightly-train-" + "x" * 23),
    context=_GATE_ON,
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
    rationale="Since v1.7 the zone belongs in spec.timeZone; a schedule containing 'TZ' is rejected.",
    fix="Use spec.timeZone: <IANA zone> and a plain 5-field schedule.",
    check=_check_schedule_tz,
    compliant=example_cronjob(schedule="45 21 * * *", timeZone="Asia/Taipei"),
    violating=example_cronjob(schedule="CRON_TZ=Asia/Taipei 45 21 * * *", timeZone=None),
    context=_GATE_ON,
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
    rationale="The operator parses the schedule with the standard cron parser (5 fields: minute hour "
    "day-of-month month day-of-week, or @hourly/@daily/... /@every <duration>) and rejects anything "
    "else.",
    fix="Write 5 cron fields (e.g. '0 2 * * *') or a descriptor like '@daily'; seconds are not supported.",
    check=_check_schedule,
    compliant=example_cronjob(schedule="*/15 9-17 * * MON-FRI"),
    violating=example_cronjob(schedule="0 0 2 * * *"),
    context=_GATE_ON,
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
    rows=("RCJ-04",),
    since="1.7",
    rationale="The CRD (minLength 1) and the operator reject an empty timeZone.",
    fix="Omit timeZone to use the operator's local zone, or set an IANA zone such as 'Europe/Paris'.",
    check=_check_timezone_empty,
    compliant=example_cronjob(timeZone=None),
    violating=example_cronjob(timeZone=""),
    context=_GATE_ON,
)


def _check_timezone(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    spec = _spec(manifest)
    zone = as_str(spec.get("timeZone")) if spec else None
    if not zone:
        return
    if not _zone_exists(zone):
        close = sorted(z for z in _known_zones() if z.lower() == zone.lower())
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        yield Violation(f"timeZone {zone!r} is not an IANA time zone{hint}", "spec.timeZone")


declare(
    id="raycronjob-timezone-invalid",
    title="Unknown timeZone",
    severity="critical",
    category="correctness",
    kinds=("RayCronJob",),
    rows=("RCJ-05",),
    since="1.7",
    rationale="The operator loads the zone from Go's embedded IANA database and rejects unknown names "
    "(abbreviations like 'PST' or offsets like 'UTC+8' are not zone names).",
    fix="Use an IANA zone name such as 'America/Los_Angeles' or 'UTC'.",
    check=_check_timezone,
    compliant=example_cronjob(timeZone="America/Los_Angeles"),
    violating=example_cronjob(timeZone="America/San_Francisco"),
    context=_GATE_ON,
)
