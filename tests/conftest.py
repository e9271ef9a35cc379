"""Shared by every tier: what the selected tests need built (``scripts/test PATH...`` asks before it builds)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import hypothesis  # noqa: F401  (see below)
import pytest

if TYPE_CHECKING:
    from _wheel import FreshVenv

# hypothesis's pytest plugin imports hypothesis lazily, in the terminal summary, and pytest's assertion rewriting
# then compiles it; on CPython 3.11.7 a compile that late, after the Pulumi mock runtime's event loops have run,
# can die with "SystemError: AST constructor recursion depth mismatch" (a finished run of
# tests/test_inputs_components.py alone exited 1 that way). Imported here, it is compiled before any test runs.

#: ``scripts/test`` sets it to a file: a collection-only run writes there the tiers the selected tests need.
NEEDS_ENV = "PULUMI_KUBERAY_LIST_NEEDS"
#: The tiers with a build behind them (scripts/ensure-*), by the marker their conftest gives each test (``newest``:
#: the newest lane's engine and venv, tests/engine/test_newest.py).
TIER_MARKERS = ("engine", "cluster", "oracle", "argocd", "newest")


@pytest.hookimpl(trylast=True)  # after the tiers' own hooks have marked their tests
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if hasattr(config, "workerinput") and getattr(config.option, "loadgroup", False):
        # On a pytest-xdist worker of `--dist loadgroup` (xdist's setup_config sets option.dist to "no" there and
        # keeps loadgroup): the live units first (tests/_live_scheduling.py), so that each starts at once on a
        # worker of its own. Every worker sorts alike, so the collections still agree.
        from _live_scheduling import live_first

        live_first(items)
    target = os.environ.get(NEEDS_ENV)
    if not target:
        return
    needs = {marker for item in items for marker in TIER_MARKERS if item.get_closest_marker(marker)}
    if any(item.get_closest_marker("realray") for item in items):
        needs.add("cluster")  # the realray tier runs on the local control plane (its Ray venvs: its conftest)
    if any("helm" in Path(str(item.path)).name for item in items):
        needs.add("helm")  # the modules that render charts with a real helm say so in their name
    Path(target).write_text("".join(f"{need}\n" for need in sorted(needs)))


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: on the controller, without xdist never called
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``--dist loadgroup`` (scripts/test with workers): one unit per module, the engine and cluster tests' modules
    in one unit (tests/_live_scheduling.py). xdist's own loadgroup reads ``xdist_group`` marks, which this suite
    does not use (and pytest 9.2 drops the node ids it builds from them: pytest-xdist issue 1386)."""
    if config.getoption("dist", "no") != "loadgroup":
        return None
    from _live_scheduling import LiveGroupScheduling

    return LiveGroupScheduling(config, log)


#: The terminal size a test may read (kuberay-lint wraps to ``$COLUMNS``): a pytest-xdist worker starts with
#: ``COLUMNS=80 LINES=24`` of its own; it gets the controller's instead (unset where the controller has none).
TERMINAL_ENV = ("COLUMNS", "LINES")


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook (the controller, once per worker)
def pytest_configure_node(node: Any) -> None:
    node.workerinput["terminal_env"] = {name: os.environ.get(name) for name in TERMINAL_ENV}


def pytest_configure(config: pytest.Config) -> None:
    from _live_scheduling import CpuMeter, UnitClock

    config.pluginmanager.register(CpuMeter(), "cpu-meter")  # each test process measures its own tests
    if not hasattr(config, "workerinput"):  # the controller, or a serial run: the figures by unit at the end
        config.pluginmanager.register(UnitClock(), "unit-clock")
    terminal_env: dict[str, str | None] = getattr(config, "workerinput", {}).get("terminal_env", {})
    for name, value in terminal_env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> FreshVenv:
    """The built wheel installed in a fresh venv outside the repository (tests/_wheel.py): one per session."""
    from _wheel import build_fresh_venv

    return build_fresh_venv(tmp_path_factory)
