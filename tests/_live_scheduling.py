"""The xdist schedule of scripts/test (``--dist loadgroup`` with workers, see ``tests/conftest.py``), and the run's
figures per unit (:class:`UnitClock`).

Each test module is a unit, so its module fixtures are built on one worker (as ``--dist loadfile``), except the
live units (:data:`LIVE_UNITS`) that one worker each runs in order: ``cluster`` and ``cluster-2`` (the modules with
a cluster test, split in two halves of about the same time, :data:`SECOND_CLUSTER`: each half on a local control
plane of its own), ``realray`` (the realray tier: its own control plane with pod-runner, the Ray processes),
``engine`` (every other module with an engine test: one project copy, one pulumi at a time) and ``engine-2`` (the
engine modules of :data:`SECOND_ENGINE`, which make their own project copies). They mostly wait on
the pulumi CLI, the API server, the operator's reconciles and Ray, so they run beside each other and beside the
CPU-bound modules. A worker's collection puts the live units first, longest first (:func:`live_first`), and with
``--no-loadscope-reorder`` xdist hands out the units in that order: each live unit starts at once on a worker of
its own (``.ci/run``: 6 workers, the sixth for the CPU-bound modules, which then go to whichever worker is free).

The controller sees node ids only: a module is live when it is under ``tests/engine/``, ``tests/cluster/`` or
``tests/realray/`` or marks a test ``engine`` or ``cluster`` itself (``pytest.mark.engine``, ``pytestmark =
[pytest.mark.engine]``); a module that marks both is a cluster module (it needs the control plane).
"""

from __future__ import annotations

import re
import resource
import time
from functools import cache
from pathlib import Path

import pytest

# pytest-xdist 3.8 has no py.typed
from xdist.remote import Producer  # type: ignore[import-untyped]
from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

TESTS_DIR = Path(__file__).resolve().parent
_MARK = re.compile(r"\bpytest\.mark\.(engine|cluster)\b")


#: The live units (the cold clean-clone run of 2026-12-06 on 5 workers, before ``engine-2``: realray 13.4 min, the
#: CPU-bound rest 17.6, cluster 19.3, cluster-2 22.0, engine 26.0 at a load under 1 for its last 4 minutes, of which
#: test_operator_engine 9.3 and test_dev_up_lone_clone 3.3).
LIVE_UNITS = ("cluster", "cluster-2", "realray", "engine", "engine-2")
#: The engine modules of ``engine-2``: they make their own project copies (no session ``project`` fixture), so a
#: second worker costs no second setup. test_newest.py (the newest lane: its own copies, a few pulumi runs) joins
#: them, so it overlaps the cluster units instead of taking a worker of its own (the run's summary prints each
#: unit's span: engine-2 must stay under cluster-2's).
SECOND_ENGINE = frozenset({
    "test_dev_up_lone_clone.py", "test_newest.py", "test_operator_engine.py", "test_package_go.py", "test_release.py",
})
#: The cluster modules of the second half (the first: test_preflight_scheduler 425 s, test_operator_crds 366 s,
#: test_waits_raycluster 122 s, test_rayservice 71 s, test_dry_run 25 s, test_control_plane; the second:
#: test_change_plan 386 s, test_waits_workloads 213 s, test_preflight_secrets ~170 s, test_admission_policies 86 s,
#: test_operator_upgrade, test_rayjob 59 s and the short ones; sums of a serial run at load 7-20).
SECOND_CLUSTER = frozenset({
    "test_admission_policies.py", "test_change_plan.py", "test_operator_rules.py", "test_operator_upgrade.py",
    "test_preflight_preview.py", "test_preflight_rbac.py", "test_preflight_secrets.py", "test_raycluster.py",
    "test_rayjob.py", "test_waits_workloads.py",
})


@cache
def live_unit(module: str) -> str | None:
    """A live unit's name (:data:`LIVE_UNITS`) or None (not live) for ``module``, a node id's file part relative
    to the rootdir (``tests/test_wheel.py``)."""
    path = TESTS_DIR.parent / module
    if TESTS_DIR / "realray" in path.parents:
        return "realray"
    if TESTS_DIR / "cluster" in path.parents:
        return "cluster-2" if path.name in SECOND_CLUSTER else "cluster"
    marks = set(_MARK.findall(path.read_text(encoding="utf-8"))) if path.is_file() else set()
    if "cluster" in marks:
        return "cluster"
    if TESTS_DIR / "engine" in path.parents or "engine" in marks:
        return "engine-2" if path.name in SECOND_ENGINE else "engine"
    return None


def live_first(items: list[pytest.Item]) -> None:
    """Sort ``items`` in place: the live units first, in :data:`LIVE_UNITS` order, then the rest as collected."""

    def rank(item: pytest.Item) -> int:
        unit = live_unit(item.nodeid.split("::", 1)[0])
        return LIVE_UNITS.index(unit) if unit in LIVE_UNITS else len(LIVE_UNITS)

    items.sort(key=rank)  # stable: each unit's modules and tests keep their order


class LiveGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        super().__init__(config, log)
        self.log = Producer("livegroupsched") if log is None else log.livegroupsched

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return live_unit(module) or module


#: The name of the user property that carries a test's CPU seconds (:class:`CpuMeter`) to the controller.
CPU_PROPERTY = "cpu-seconds"


def _cpu_now() -> float:
    """CPU seconds of this process and of the children it has waited for (subprocess.run's CLIs, pulumi, Go tools)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class CpuMeter:
    """On each worker (or a serial run): the CPU a test cost from its setup to its teardown (module fixtures count
    in the test that builds or ends them), as the user property :data:`CPU_PROPERTY` of its teardown report. CI's
    2 cores are busy through the run, so CPU, not wall time, says what a module costs the run. Daemons a test
    starts and does not wait for (a control plane, Ray) are not in it."""

    def __init__(self) -> None:
        self.started: dict[str, float] = {}

    @pytest.hookimpl
    def pytest_runtest_logstart(self, nodeid: str) -> None:  # before the test's setup
        self.started[nodeid] = _cpu_now()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> None:
        if call.when == "teardown" and item.nodeid in self.started:  # teardown done, its report not made yet
            item.user_properties.append((CPU_PROPERTY, _cpu_now() - self.started.pop(item.nodeid)))


class UnitClock:
    """The run's figures by unit, after the summary: tests, the wall span from the unit's first test's start to
    its last one's end, and the CPU-bound rest together (``other``), then the slowest modules. On the controller
    (or a serial run), from the reports the workers send."""

    def __init__(self) -> None:
        self.started = time.time()
        self.units: dict[str, list[float]] = {}  # unit -> [first start, last stop, tests]
        self.modules: dict[str, float] = {}  # module -> the sum of its tests' phases
        self.cpu: dict[str, float] = {}  # module -> the CPU seconds of its tests (CpuMeter)

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        module = report.nodeid.split("::", 1)[0]
        span = self.units.setdefault(live_unit(module) or "other", [report.start, report.stop, 0])
        span[0], span[1] = min(span[0], report.start), max(span[1], report.stop)
        span[2] += report.when == "call"
        self.modules[module] = self.modules.get(module, 0.0) + report.duration
        for name, value in report.user_properties:
            if name == CPU_PROPERTY and isinstance(value, (int, float)):
                self.cpu[module] = self.cpu.get(module, 0.0) + value

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.units:
            return
        write = terminalreporter.write_line
        terminalreporter.write_sep("-", "test run by unit (wall span from the run's start, minutes)")
        for unit, (first, last, tests) in sorted(self.units.items(), key=lambda kv: kv[1][1]):
            begin, end = (first - self.started) / 60, (last - self.started) / 60
            write(f"{unit:8} {int(tests):5} tests  {begin:5.1f} .. {end:5.1f}  ({end - begin:.1f} min)")
        write("slowest modules (the sum of their tests' phases): " + _top(self.modules))
        if self.cpu:
            write(f"CPU by module (the test process and the subprocesses it waited for; all modules "
                  f"{sum(self.cpu.values()) / 60:.1f} min): " + _top(self.cpu))


def _top(seconds_by_module: dict[str, float]) -> str:
    """The 20 largest, in minutes: ``cluster/test_x.py 1.5 min, ...``."""
    top = sorted(seconds_by_module.items(), key=lambda kv: -kv[1])[:20]
    return ", ".join(f"{module.removeprefix('tests/')} {seconds / 60:.1f} min" for module, seconds in top)
