"""Shared by every tier: what the selected tests need built (``scripts/test PATH...`` asks before it builds)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: ``scripts/test`` sets it to a file: a collection-only run writes there the tiers the selected tests need.
NEEDS_ENV = "PULUMI_KUBERAY_LIST_NEEDS"
#: The tiers with a build behind them (scripts/ensure-*), by the marker their conftest gives each test.
TIER_MARKERS = ("engine", "cluster", "oracle")


@pytest.hookimpl(trylast=True)  # after the tiers' own hooks have marked their tests
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    target = os.environ.get(NEEDS_ENV)
    if not target:
        return
    needs = {marker for item in items for marker in TIER_MARKERS if item.get_closest_marker(marker)}
    if any("helm" in Path(str(item.path)).name for item in items):
        needs.add("helm")  # the modules that render charts with a real helm say so in their name
    Path(target).write_text("".join(f"{need}\n" for need in sorted(needs)))
