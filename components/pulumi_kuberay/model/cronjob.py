"""Typed ``RayCronJob`` spec (ray.io/v1, KubeRay >= 1.6): a RayJob template created on a cron schedule.

The controller only runs when the operator's alpha feature gate ``RayCronJob`` is on (default off, also off in
the Helm chart); without it the CR is accepted and never acted upon.

``schedule`` is checked like KubeRay's parser (robfig/cron ``ParseStandard``): five fields ``minute hour
day-of-month month day-of-week`` with ``*``, ``?``, lists ``a,b``, ranges ``a-b``, steps ``*/n`` / ``a-b/n`` /
``a/n``, month names ``JAN``-``DEC`` and weekday names ``SUN``-``SAT`` (case-insensitive, weekday 0-6), or a
descriptor ``@yearly``/``@annually``/``@monthly``/``@weekly``/``@daily``/``@midnight``/``@hourly`` or
``@every <duration>`` (:mod:`pulumi_kuberay.kuberay.gosyntax`). A ``TZ=``/``CRON_TZ=`` prefix is left to the
version-aware rule ``raycronjob-schedule-has-timezone`` (KubeRay >= 1.7 wants ``timeZone`` instead).
``timeZone`` must be an IANA zone name or ``Local`` (as Go's ``time.LoadLocation`` loads it). Both are checked
from Python; a manifest loads whatever they hold (the API server stores it) and the rules report them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from pulumi_kuberay.kuberay.api import API_VERSION
from pulumi_kuberay.kuberay.gosyntax import cron_error, go_location_exists

from ._base import KubeModel, Self
from ._errors import SpecError
from ._object import KubeManifest
from .job import RayJobSpec
from .pod import is_stored

_EXAMPLE = "e.g. '0 * * * *' (hourly), '*/15 9-17 * * MON-FRI' or '@daily'"


def check_schedule(schedule: str) -> str:
    """Validate a cron schedule as robfig/cron ``ParseStandard`` (what ``ValidateRayCronJobSpec`` calls) would;
    return it unchanged. :func:`cron_error` is the code base's one cron parser.

    A ``TZ=``/``CRON_TZ=`` prefix parses; KubeRay >= 1.7 refuses it (it wants ``timeZone``), which depends on
    the target version, so the catalogue's rule ``raycronjob-schedule-has-timezone`` reports it, not the model.
    """
    error = cron_error(schedule)
    if error is not None:
        fix = "e.g. '@every 1h30m'" if schedule.startswith("@every") else _EXAMPLE
        raise SpecError("schedule is empty" if not schedule else f"schedule {schedule!r}: {error}", fix=fix)
    return schedule


def check_time_zone(name: str) -> str:
    """``name`` must be what Go's ``time.LoadLocation`` loads (``ValidateRayCronJobSpec``): an IANA time zone
    (``Europe/Berlin``, ``UTC``, ...) or ``Local`` (the operator's own zone)."""
    if not go_location_exists(name):
        raise SpecError(
            f"timeZone {name!r} is not a known IANA time zone",
            fix="use a name like 'Europe/Berlin', 'America/New_York' or 'UTC' (or omit it for the operator's zone)",
        )
    return name


class RayCronJobSpec(KubeModel):
    """``RayCronJob.spec``: create a RayJob from ``job_template`` at every tick of ``schedule``.

    Child RayJobs are named ``<raycronjob>-<scheduled minute>``; there is no concurrency policy or history
    limit.

    Example: ``RayCronJobSpec(schedule="0 2 * * *", job_template=RayJobSpec(entrypoint="python etl.py", ...))``.
    """

    job_template: RayJobSpec
    """The RayJob spec copied verbatim into each scheduled RayJob."""
    schedule: str
    """Cron schedule (5 fields or an ``@hourly``-style descriptor), evaluated in ``time_zone``."""
    time_zone: Annotated[str, Field(min_length=1)] | None = None
    """(KubeRay >= 1.7) IANA zone of the schedule; unset means the operator's local zone."""
    suspend: bool | None = None
    """Stop scheduling new RayJobs (existing ones are untouched)."""

    # A manifest's schedule, timeZone and jobTemplate are stored by the API server whatever they hold; only the
    # operator refuses them (ValidateRayCronJobSpec): rules raycronjob-schedule-invalid, raycronjob-timezone-invalid
    # and rayjob-cluster-source-missing report them. From Python they are refused at once.
    @field_validator("schedule")
    @classmethod
    def _schedule(cls, value: str, info: ValidationInfo) -> str:
        return value if is_stored(info) else check_schedule(value)

    @field_validator("time_zone")
    @classmethod
    def _time_zone(cls, value: str | None, info: ValidationInfo) -> str | None:
        return value if value is None or is_stored(info) else check_time_zone(value)

    @model_validator(mode="after")
    def _template_names_a_cluster(self, info: ValidationInfo) -> Self:
        # A RayJobSpec built in Python may leave its cluster to the RayJob component's cluster=; a RayCronJob
        # has no such argument, so its template must carry one.
        if self.job_template.missing_cluster_source() and not is_stored(info):
            raise SpecError(
                "jobTemplate sets neither rayClusterSpec nor clusterSelector",
                field="jobTemplate",
                fix="set jobTemplate.rayClusterSpec (a cluster per run) or jobTemplate.clusterSelector: {ray.io/cluster: <existing RayCluster name>}",
            )
        return self


class RayCronJobManifest(KubeManifest[RayCronJobSpec]):
    """A RayCronJob object (``ray.io/v1`` only); ``load_manifest`` returns it for ``kind: RayCronJob``."""

    api_version: Literal["ray.io/v1"] = API_VERSION
    """``ray.io/v1`` (RayCronJob was never served as v1alpha1)."""
    kind: Literal["RayCronJob"] = "RayCronJob"
    """Always ``"RayCronJob"``."""


__all__ = ["RayCronJobManifest", "RayCronJobSpec", "check_schedule", "check_time_zone"]
