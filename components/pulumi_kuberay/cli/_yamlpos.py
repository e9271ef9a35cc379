"""Locating a finding's field path among the line numbers the reader recorded for a document."""

from __future__ import annotations


def line_for(lines: dict[str, int], path: str, default: int) -> int:
    """The line of ``path``, or of its longest prefix recorded for the document, else ``default``."""
    probe = path
    while probe:
        if probe in lines:
            return lines[probe]
        cut = max(probe.rfind("."), probe.rfind("["))
        probe = probe[:cut] if cut > 0 else ""
    return lines.get("", default)
