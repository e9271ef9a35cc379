"""RayCronJob: its only status field is ``lastScheduleTime``."""

from __future__ import annotations

from typing import Final

from pulumi_kuberay.kuberay.paths import get
from pulumi_kuberay.status._common import _EVENTS, Phase, StatusRule, _Facts, _one_line, _Reader, _render

CRON_RULES: Final[dict[str, StatusRule]] = {
    "suspended": StatusRule(
        "suspended",
        "suspended (spec.suspend=true): no new RayJobs are scheduled{last}",
        "set spec.suspend=false to resume scheduling",
    ),
    "scheduled": StatusRule(
        "healthy",
        "scheduling on '{schedule}'{tz}; last run scheduled at {last_time}",
        "its runs are RayJobs: kubectl get rayjobs -n {ns} -l ray.io/cronjob-name={name} -o json | kuberay-explain -",
    ),
    "never": StatusRule(
        "progressing",
        "nothing scheduled yet on '{schedule}'{tz} (no status.lastScheduleTime); if a tick has passed, the RayCronJob controller is off (operator feature gate RayCronJob is alpha, default off) or the spec was rejected (InvalidRayCronJobSpec event)",
        _EVENTS,
    ),
}


def _diagnose_cronjob(reader: _Reader, facts: _Facts) -> tuple[Phase, str, str]:
    schedule = reader.text("spec.schedule")
    tz = reader.text("spec.timeZone")
    last = reader.text("status.lastScheduleTime")
    facts.update(
        schedule=_one_line(schedule) or "?",
        tz=f" ({_one_line(tz)})" if tz else "",
        last_time=last,
        last=f"; last run scheduled at {last}" if last else "",
    )
    if get(reader.obj, "spec", "suspend") is True:
        reader.note("spec.suspend", True)
        return _render(CRON_RULES["suspended"], facts)
    return _render(CRON_RULES["scheduled" if last else "never"], facts)
