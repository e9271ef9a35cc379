"""The xdist units of scripts/test (tests/_live_scheduling.py): the cluster modules share one worker (one local
control plane), the other engine modules another, every other module is its own unit."""

from __future__ import annotations

import pytest
from _live_scheduling import live_unit


@pytest.mark.parametrize(
    ("module", "unit"),
    [
        ("tests/cluster/test_rayjob.py", "cluster"),
        ("tests/cluster/conftest.py", "cluster"),
        ("tests/realray/test_rayjob.py", "cluster"),
        ("tests/engine/test_up_dev.py", "engine"),
        ("tests/test_wheel.py", "engine"),  # its tests carry the engine mark
        ("tests/convert/test_convert_engine.py", "engine"),
        ("tests/test_plan.py", None),
        ("tests/rules/test_rules_engine.py", None),
        ("tests/no_such_module.py", None),
    ],
)
def test_live_unit(module: str, unit: str | None) -> None:
    assert live_unit(module) == unit
