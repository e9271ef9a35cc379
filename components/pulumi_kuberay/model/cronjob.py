"""Typed ``RayCronJob`` spec (ray.io/v1, KubeRay >= 1.6): a RayJob template created on a cron schedule.

The controller only runs when the operator's alpha feature gate ``RayCronJob`` is on (default off, also off in
the Helm chart); without it the CR is accepted and never acted upon.

``schedule`` is checked like KubeRay's parser (robfig/cron ``ParseStandard``): five fields ``minute hour
day-of-month month day-of-week`` with ``*``, ``?``, lists ``a,b``, ranges ``a-b``, steps ``*/n`` / ``a-b/n`` /
``a/n``, month names ``JAN``-``DEC`` and weekday names ``SUN``-``SAT`` (case-insensitive, weekday 0-6), or a
descriptor ``@yearly``/``@annually``/``@monthly``/``@weekly``/``@daily``/``@midnight``/``@hourly`` or
``@every <duration>``. A ``TZ=``/``CRON_TZ=`` prefix is rejected (KubeRay wants ``timeZone`` instead).
``timeZone`` must be an IANA zone name (checked with :mod:`zoneinfo`).
"""

from __future__ import annotations

import re
import zoneinfo
from typing import Annotated, Literal, NamedTuple

from pydantic import Field, field_validator, model_validator

from ._base import KubeModel, Self, SpecError
from ._object import KubeManifest
from .job import RayJobSpec


class _CronField(NamedTuple):
    name: str
    low: int
    high: int
    names: dict[str, int]


_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    )
}
_WEEKDAYS = {d: i for i, d in enumerate(["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"])}
_FIELDS = (
    _CronField("minute", 0, 59, {}),
    _CronField("hour", 0, 23, {}),
    _CronField("day-of-month", 1, 31, {}),
    _CronField("month", 1, 12, _MONTHS),
    _CronField("day-of-week", 0, 6, _WEEKDAYS),
)
_DESCRIPTORS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
# Go's time.ParseDuration: a sequence of decimal numbers with units, e.g. "1h30m", "90s", "1.5h".
_GO_DURATION = re.compile(
    r"^(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h)(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))*$"
)
_EXAMPLE = "e.g. '0 * * * *' (hourly), '*/15 9-17 * * MON-FRI' or '@daily'"


def _cron_value(text: str, field: _CronField) -> int:
    if text.upper() in field.names:
        return field.names[text.upper()]
    if not text.isdigit():
        raise SpecError(
            f"{field.name} field: {text!r} is not a number"
            + (f" or a name ({', '.join(field.names)})" if field.names else "")
        )
    value = int(text)
    if not field.low <= value <= field.high:
        raise SpecError(f"{field.name} field: {value} is outside {field.low}-{field.high}")
    return value


def _check_cron_field(text: str, field: _CronField) -> None:
    for part in text.split(","):
        if not part:
            raise SpecError(f"{field.name} field {text!r} has an empty list element")
        range_text, slash, step_text = part.partition("/")
        if slash and (not step_text.isdigit() or int(step_text) == 0):
            raise SpecError(f"{field.name} field: step {step_text!r} must be a positive number")
        if range_text in ("*", "?"):
            continue
        low_text, dash, high_text = range_text.partition("-")
        low = _cron_value(low_text, field)
        if dash:
            high = _cron_value(high_text, field)
            if low > high:
                raise SpecError(f"{field.name} field: range {range_text!r} runs backwards ({low} > {high})")


def check_schedule(schedule: str) -> str:
    """Validate a cron schedule as KubeRay's standard parser would; return it unchanged."""
    if "TZ" in schedule:
        raise SpecError(
            f"schedule {schedule!r} must not contain a TZ= / CRON_TZ= prefix",
            fix="remove the prefix and set spec.timeZone instead",
        )
    text = schedule.strip()
    if not text:
        raise SpecError("schedule is empty", fix=_EXAMPLE)
    if text.startswith("@"):
        if text.startswith("@every "):
            duration = text.removeprefix("@every ").strip()
            if not _GO_DURATION.match(duration):
                raise SpecError(
                    f"schedule {schedule!r}: {duration!r} is not a duration", fix="e.g. '@every 1h30m'"
                )
            return schedule
        if text not in _DESCRIPTORS:
            raise SpecError(
                f"schedule {schedule!r} is not a known descriptor",
                fix=f"use one of {', '.join(sorted(_DESCRIPTORS))} or '@every <duration>'",
            )
        return schedule
    parts = text.split()
    if len(parts) != len(_FIELDS):
        raise SpecError(
            f"schedule {schedule!r} has {len(parts)} fields, expected 5 "
            "(minute hour day-of-month month day-of-week)",
            fix=_EXAMPLE,
        )
    for part, field in zip(parts, _FIELDS, strict=True):
        try:
            _check_cron_field(part, field)
        except SpecError as exc:
            raise SpecError(f"schedule {schedule!r}: {exc.message}", fix=_EXAMPLE) from exc
    return schedule


def check_time_zone(name: str) -> str:
    """``name`` must be an IANA time zone (``Europe/Berlin``, ``UTC``, ...)."""
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise SpecError(
            f"timeZone {name!r} is not a known IANA time zone",
            fix="use a name like 'Europe/Berlin', 'America/New_York' or 'UTC' "
            "(or omit it for the operator's zone)",
        ) from exc
    return name


class RayCronJobSpec(KubeModel):
    """``RayCronJob.spec``: create a RayJob from ``job_template`` at every tick of ``schedule``.

    Child RayJobs are named ``<raycronjob>-<scheduled minute>``; there is no concurrency policy or history
    limit.
    """

    job_template: RayJobSpec
    """The RayJob spec copied verbatim into each scheduled RayJob."""
    schedule: str
    """Cron schedule (5 fields or an ``@hourly``-style descriptor), evaluated in ``time_zone``."""
    time_zone: Annotated[str, Field(min_length=1)] | None = None
    """(KubeRay >= 1.7) IANA zone of the schedule; unset means the operator's local zone."""
    suspend: bool | None = None
    """Stop scheduling new RayJobs (existing ones are untouched)."""

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, value: str) -> str:
        return check_schedule(value)

    @field_validator("time_zone")
    @classmethod
    def _time_zone(cls, value: str | None) -> str | None:
        return None if value is None else check_time_zone(value)

    @model_validator(mode="after")
    def _template_names_a_cluster(self) -> Self:
        # A RayJobSpec built in Python may leave its cluster to the RayJob component's cluster=; a RayCronJob
        # has no such argument, so its template must carry one.
        if self.job_template.missing_cluster_source():
            raise SpecError(
                "jobTemplate sets neither rayClusterSpec nor clusterSelector",
                field="jobTemplate",
                fix="set jobTemplate.rayClusterSpec (a cluster per run) or "
                "jobTemplate.clusterSelector: {ray.io/cluster: <existing RayCluster name>}",
            )
        return self


class RayCronJobManifest(KubeManifest[RayCronJobSpec]):
    """A RayCronJob object (``ray.io/v1`` only); ``load_manifest`` returns it for ``kind: RayCronJob``."""

    api_version: Literal["ray.io/v1"] = "ray.io/v1"
    """``ray.io/v1`` (RayCronJob was never served as v1alpha1)."""
    kind: Literal["RayCronJob"] = "RayCronJob"
    """Always ``"RayCronJob"``."""


__all__ = ["RayCronJobManifest", "RayCronJobSpec", "check_schedule", "check_time_zone"]
