"""The xdist schedule of scripts/test (``--dist loadgroup`` with workers, see ``tests/conftest.py``).

Each test module is a unit, so its module fixtures are built on one worker (as ``--dist loadfile``), except two
live units: ``cluster`` (every module with a cluster test, then the realray tier's: one worker runs them in order,
so the realray tier's Ray processes never share the 2 cores with the cluster tests' waits) and ``engine`` (every
other module with an engine test: one project copy, one pulumi at a time). Both mostly wait on the pulumi CLI
and the API server, so they run beside each other and beside the CPU-bound modules. With
``--no-loadscope-reorder`` the units go out in collection order, and ``tests/cluster/`` is collected first: the
longest unit starts at once, the engine unit with the second worker.

The controller sees node ids only: a module is live when it is under ``tests/engine/`` or ``tests/cluster/`` or
marks a test ``engine`` or ``cluster`` itself (``pytest.mark.engine``, ``pytestmark = [pytest.mark.engine]``); a
module that marks both is a cluster module (it needs the control plane).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

# pytest-xdist 3.8 has no py.typed
from xdist.remote import Producer  # type: ignore[import-untyped]
from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

TESTS_DIR = Path(__file__).resolve().parent
_MARK = re.compile(r"\bpytest\.mark\.(engine|cluster)\b")


@cache
def live_unit(module: str) -> str | None:
    """``"cluster"``, ``"engine"`` or None (not live) for ``module``, a node id's file part relative to the
    rootdir (``tests/test_wheel.py``)."""
    path = TESTS_DIR.parent / module
    if TESTS_DIR / "cluster" in path.parents or TESTS_DIR / "realray" in path.parents:
        return "cluster"
    marks = set(_MARK.findall(path.read_text(encoding="utf-8"))) if path.is_file() else set()
    if "cluster" in marks:
        return "cluster"
    if TESTS_DIR / "engine" in path.parents or "engine" in marks:
        return "engine"
    return None


class LiveGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        super().__init__(config, log)
        self.log = Producer("livegroupsched") if log is None else log.livegroupsched

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return live_unit(module) or module
