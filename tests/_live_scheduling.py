"""The xdist schedule of scripts/test (``--dist loadgroup`` with workers, see ``tests/conftest.py``).

Each test module is a unit, so its module fixtures are built on one worker (as ``--dist loadfile``), except that
every module with an engine or cluster test is in one unit, ``live``: one worker runs those in order (one local
control plane, one project copy; they mostly wait on the pulumi CLI and the API server) while the others run the
CPU-bound modules. With ``--no-loadscope-reorder`` the units go out in collection order, and ``tests/cluster/``
is collected first: the long live unit starts at once.

The controller sees node ids only: a module is live when it is under ``tests/engine/`` or ``tests/cluster/`` or
marks a test ``engine`` or ``cluster`` itself (``pytest.mark.engine``, ``pytestmark = [pytest.mark.engine]``).
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
LIVE_DIRS = ("engine", "cluster")
_LIVE_MARK = re.compile(r"\bpytest\.mark\.(engine|cluster)\b")


@cache
def live_module(module: str) -> bool:
    """``module``: a node id's file part, relative to the rootdir (``tests/test_wheel.py``)."""
    path = TESTS_DIR.parent / module
    if any(TESTS_DIR / name in path.parents for name in LIVE_DIRS):
        return True
    return path.is_file() and _LIVE_MARK.search(path.read_text(encoding="utf-8")) is not None


class LiveGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        super().__init__(config, log)
        self.log = Producer("livegroupsched") if log is None else log.livegroupsched

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return "live" if live_module(module) else module
