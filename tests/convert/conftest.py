"""The converter tests: tests/ on sys.path (``_reference``, ``_pulumi_mocks``); helpers in ``_convert_*``."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent.parent
for _path in (TESTS_DIR, Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
