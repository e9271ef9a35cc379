"""Shared by every tier: what the selected tests need built (``scripts/test PATH...`` asks before it builds)."""

from __future__ import annotations

import os
from pathlib import Path

import hypothesis  # noqa: F401  (see below)
import pytest

# hypothesis's pytest plugin imports hypothesis lazily, in the terminal summary, and pytest's assertion rewriting
# then compiles it; on CPython 3.11.7 a compile that late, after the Pulumi mock runtime's event loops have run,
# can die with "SystemError: AST constructor recursion depth mismatch" (a finished run of
# tests/test_inputs_components.py alone exited 1 that way). Imported here, it is compiled before any test runs.

#: ``scripts/test`` sets it to a file: a collection-only run writes there the tiers the selected tests need.
NEEDS_ENV = "PULUMI_KUBERAY_LIST_NEEDS"
#: The tiers with a build behind them (scripts/ensure-*), by the marker their conftest gives each test.
TIER_MARKERS = ("engine", "cluster", "oracle", "argocd")


@pytest.hookimpl(trylast=True)  # after the tiers' own hooks have marked their tests
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    target = os.environ.get(NEEDS_ENV)
    if not target:
        return
    needs = {marker for item in items for marker in TIER_MARKERS if item.get_closest_marker(marker)}
    if any("helm" in Path(str(item.path)).name for item in items):
        needs.add("helm")  # the modules that render charts with a real helm say so in their name
    Path(target).write_text("".join(f"{need}\n" for need in sorted(needs)))
