"""Mutations of the RayService and RayCronJob specs (``_generate`` draws them for those kinds)."""

from __future__ import annotations

from hypothesis import strategies as st

from ._generate_base import JsonDict
from ._generate_base import show as _show

# --------------------------------------------------------------------------------------------------
# RayService.

DURATIONS = [
    "5m",
    "0s",
    "-1m",
    "30",
    "0",
    "-5",
    " 5m",
    "5 m",
    "1h30m",
    "1.5h",
    "abc",
    "5M",
    "+5m",
    "9999999999999999999s",
    "1e3s",
    "300s ",
    "",
    "1us",
    "1µs",
    "0x10",
    "+30",
]


def m_service(draw: st.DrawFn, doc: JsonDict) -> str:
    if doc["kind"] != "RayService":
        return "noop"
    spec = doc["spec"]
    what = draw(st.sampled_from(["upgrade", "upgrade", "delay", "timeout", "headService"]))
    if what == "upgrade":
        strategy: JsonDict = {}
        kind = draw(st.sampled_from(["NewCluster", "None", "NewClusterWithIncrementalUpgrade", "Bad", None]))
        if kind:
            strategy["type"] = kind
        if draw(st.booleans()):
            opts: JsonDict = {}
            for key, values in (
                ("maxSurgePercent", [None, -1, 0, 50, 100, 101]),
                ("stepSizePercent", [None, -1, 0, 50, 100, 101]),
                ("intervalSeconds", [None, 0, 1, 30]),
                ("gatewayClassName", [None, "", "istio"]),
            ):
                v = draw(st.sampled_from(values))
                if v is not None:
                    opts[key] = v
            strategy["clusterUpgradeOptions"] = opts
        spec["upgradeStrategy"] = strategy
        if draw(st.booleans()):
            spec["rayClusterConfig"]["enableInTreeAutoscaling"] = True
        return f"upgradeStrategy={_show(strategy)}"
    if what == "delay":
        v = draw(st.sampled_from([-1, 0, 60]))
        spec["rayClusterDeletionDelaySeconds"] = v
        return f"rayClusterDeletionDelaySeconds={v}"
    if what == "timeout":
        v = draw(st.sampled_from(DURATIONS))
        doc["metadata"].setdefault("annotations", {})["ray.io/initializing-timeout"] = v
        return f"initializing-timeout={_show(v)}"
    spec["rayClusterConfig"]["headGroupSpec"]["headService"] = {"metadata": {"name": draw(st.sampled_from(["", "h"]))}}
    return "headService.metadata.name"


# --------------------------------------------------------------------------------------------------
# RayCronJob.

SCHEDULES = [
    "*/5 * * * *",
    "@hourly",
    "@every 1h",
    "@every 0s",
    "@every -1h",
    "0 0 * * *",
    "60 * * * *",
    "* * * *",
    "* * * * * *",
    "CRON_TZ=UTC 0 * * * *",
    "TZ=Local 0 * * * *",
    "TZ=Mars/Base 0 * * * *",
    "  0 * * * * ",
    "0 0 31 2 *",
    "*/0 * * * *",
    "0-5/2 * * * *",
    "0 0 * * MON",
    "0 0 * JAN *",
    "0 0 * * 7",
    "@daily ",
    "",
    "0 0 ? * *",
    "0 0 L * *",
    "5-1 * * * *",
    "0\t0 * * *",
    "@reboot",
    "@yearly",
    "0 0 1,15 * *",
]


def m_cron(draw: st.DrawFn, doc: JsonDict) -> str:
    if doc["kind"] != "RayCronJob":
        return "noop"
    if draw(st.booleans()):
        schedule = draw(st.sampled_from(SCHEDULES))
        doc["spec"]["schedule"] = schedule
        return f"schedule={_show(schedule)}"
    v = draw(st.booleans())
    doc["spec"]["suspend"] = v
    return f"cron-suspend={v}"


