"""The xdist units of scripts/test (tests/_live_scheduling.py): the cluster modules in two halves (a local control
plane each), the realray tier, the other engine modules, each on a worker of its own, first; every other module is
its own unit."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace
from typing import Literal

import pytest
from _live_scheduling import (
    CPU_PROPERTY,
    LIVE_UNITS,
    SECOND_CLUSTER,
    SECOND_ENGINE,
    TESTS_DIR,
    CpuMeter,
    UnitClock,
    live_first,
    live_unit,
)


@pytest.mark.parametrize(
    ("module", "unit"),
    [
        ("tests/cluster/test_rayjob.py", "cluster-2"),
        ("tests/cluster/test_preflight_scheduler.py", "cluster"),
        ("tests/cluster/conftest.py", "cluster"),
        ("tests/realray/test_rayjob.py", "realray"),
        ("tests/realray/conftest.py", "realray"),
        ("tests/engine/test_up_dev.py", "engine"),
        ("tests/engine/test_operator_engine.py", "engine-2"),
        ("tests/engine/test_dev_up_lone_clone.py", "engine-2"),
        ("tests/test_wheel.py", "engine"),  # its tests carry the engine mark
        ("tests/convert/test_convert_engine.py", "engine"),
        ("tests/test_plan.py", None),
        ("tests/rules/test_rules_engine.py", None),
        ("tests/no_such_module.py", None),
    ],
)
def test_live_unit(module: str, unit: str | None) -> None:
    assert live_unit(module) == unit


class _Reporter:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write_sep(self, sep: str, title: str) -> None:
        self.lines.append(title)

    def write_line(self, line: str) -> None:
        self.lines.append(line)


def _report(nodeid: str, when: Literal["setup", "call", "teardown"], start: float, stop: float) -> pytest.TestReport:
    return pytest.TestReport(nodeid, ("", 0, ""), {}, "passed", None, when, start=start, stop=stop,
                             duration=stop - start)


def test_unit_clock_gives_each_unit_its_span_and_tests() -> None:
    clock = UnitClock()
    clock.started = 1000.0
    for nodeid, start, stop in [
        ("tests/cluster/test_dry_run.py::test_a", 1000.0, 1060.0),
        ("tests/cluster/test_rayservice.py::test_b", 1060.0, 1300.0),
        ("tests/realray/test_rayjob.py::test_c", 1030.0, 1150.0),
        ("tests/test_plan.py::test_d", 1000.0, 1006.0),
    ]:
        for when in ("setup", "call", "teardown"):
            clock.pytest_runtest_logreport(_report(nodeid, when, start, stop))
    reporter = _Reporter()
    clock.pytest_terminal_summary(reporter)  # type: ignore[arg-type]
    units = [line.split() for line in reporter.lines[1:-1]]
    # by the end of their spans: other (0.1 min), realray (0.5 .. 2.5), cluster (0 .. 5)
    assert [(u[0], u[1], u[3], u[5]) for u in units] == [
        ("other", "1", "0.0", "0.1"), ("realray", "1", "0.5", "2.5"), ("cluster", "2", "0.0", "5.0")]
    slowest = reporter.lines[-1].removeprefix("slowest modules (the sum of their tests' phases): ")
    assert slowest == ("cluster/test_rayservice.py 12.0 min, realray/test_rayjob.py 6.0 min, "
                       "cluster/test_dry_run.py 3.0 min, test_plan.py 0.3 min")


def test_cpu_meter_counts_a_test_and_the_subprocess_it_waited_for() -> None:
    meter, item = CpuMeter(), SimpleNamespace(nodeid="tests/test_x.py::test_a", user_properties=[])
    meter.pytest_runtest_logstart("tests/test_x.py::test_a")
    burn = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass"
    subprocess.run([sys.executable, "-c", burn], check=True)
    for when in ("setup", "call", "teardown"):
        meter.pytest_runtest_makereport(item, SimpleNamespace(when=when))  # type: ignore[arg-type]
    ((name, seconds),) = item.user_properties
    assert name == CPU_PROPERTY and 0.4 <= seconds < 5

    clock = UnitClock()
    for nodeid, cpu in [("tests/test_x.py::test_a", 90.0), ("tests/test_x.py::test_b", 30.0),
                        ("tests/cluster/test_dry_run.py::test_c", 6.0)]:
        report = _report(nodeid, "teardown", 0.0, 1.0)
        report.user_properties = [(CPU_PROPERTY, cpu)]
        clock.pytest_runtest_logreport(report)
    reporter = _Reporter()
    clock.pytest_terminal_summary(reporter)  # type: ignore[arg-type]
    assert reporter.lines[-1] == ("CPU by module (the test process and the subprocesses it waited for; all modules "
                                  "2.1 min): test_x.py 2.0 min, cluster/test_dry_run.py 0.1 min")


def test_every_second_half_module_exists() -> None:
    # a renamed module would silently join the first half
    assert sorted(p.name for p in (TESTS_DIR / "cluster").glob("test_*.py") if p.name in SECOND_CLUSTER) == sorted(
        SECOND_CLUSTER)
    assert sorted(p.name for p in (TESTS_DIR / "engine").glob("test_*.py") if p.name in SECOND_ENGINE) == sorted(
        SECOND_ENGINE)
    for name in SECOND_ENGINE:  # its own project copies: a second worker builds no second session project
        assert "project: Workspace" not in (TESTS_DIR / "engine" / name).read_text()


class _Item:
    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid


def test_live_first_puts_each_live_unit_first_in_order_and_keeps_the_rest() -> None:
    ids = [
        "tests/convert/test_convert_engine.py::test_a",
        "tests/cluster/test_rayjob.py::test_b",
        "tests/test_plan.py::test_c",
        "tests/realray/test_rayjob.py::test_d",
        "tests/cluster/test_dry_run.py::test_e",
        "tests/cluster/test_rayjob.py::test_f",
        "tests/rules/test_rules_engine.py::test_g",
    ]
    items = [_Item(i) for i in ids]
    live_first(items)  # type: ignore[arg-type]
    assert [i.nodeid.rsplit("::", 1)[1] for i in items] == ["test_e", "test_b", "test_f", "test_d", "test_a",
                                                             "test_c", "test_g"]
    assert LIVE_UNITS == ("cluster", "cluster-2", "realray", "engine", "engine-2")
