"""Habits of the source (tools/source_style.py): user-facing texts whole on one line in the product's code, and
no line over 120 characters unless one such text makes it long. ``python tools/source_style.py --fix PATH``
joins split texts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))  # the checker is a tool of the repository, not of the package
import source_style  # noqa: E402

#: The product's code: what a user's messages come from.
PRODUCT = [REPO / "components", REPO / "settings.py", REPO / "__main__.py", REPO / "policies", REPO / "tools"]
#: Every Python file: the line length holds everywhere.
EVERYTHING = [*PRODUCT, REPO / "tests", REPO / "bench"]


def test_user_facing_texts_are_one_line_each() -> None:
    split = [str(found) for path in source_style.python_files(PRODUCT) for found in source_style.fragments(path)]
    assert split == [], "join them: .venv/bin/python tools/source_style.py --fix PATH (or mark data # text-block)"


def test_no_line_is_long_except_for_a_text() -> None:
    long = [line for path in source_style.python_files(EVERYTHING) for line in source_style.long_lines(path)]
    assert long == []


@pytest.mark.parametrize(
    ("pieces", "joined"),
    [
        (('"a "', '"b"'), '"a b"'),
        (('f"{x} is "', '"{literal}"'), 'f"{x} is {{literal}}"'),
        (("f'{d[\"a\"]} '", '"x"'), None),  # a double quote inside an expression: left to a human
        (("'say \"hi\"'", '" now"'), '"say \\"hi\\" now"'),
        (('r"\\d"', '"x"'), None),
    ],
)
def test_join_keeps_the_value(pieces: tuple[str, ...], joined: str | None) -> None:
    assert source_style.join(pieces) == joined
