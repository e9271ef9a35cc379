"""The hand-written status snapshots (tests/fixtures/status/) the diagnose() tests read, and the time they assume."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

FIXTURES = Path(__file__).parent / "fixtures" / "status"
#: "Now" for the durations in the snapshots' summaries.
NOW = datetime(2026, 11, 30, 10, 30, tzinfo=UTC)


def load(name: str) -> dict[str, Any]:
    """The snapshot ``name`` (without ``.yaml``)."""
    data = yaml.safe_load((FIXTURES / f"{name}.yaml").read_text())
    assert isinstance(data, dict)
    return data
