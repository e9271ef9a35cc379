"""Manifests as the rules read them: plain dicts and lists with integral numbers as ints (:func:`normalise`), and the
walks ``check`` makes to learn that a manifest is so already (then it is checked as it is, not copied)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_PLAIN = frozenset({str, int, bool, type(None)})


def normalise(value: Any) -> Any:
    """Deep copy with integral floats turned into ints (policies see numbers as floats during preview)."""
    # Exact types first (what YAML, JSON and our rendering give): the ABC check below is the slow path. A plain
    # leaf is kept without a call: most of a manifest's values are strings, numbers and booleans.
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _PLAIN else normalise(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _PLAIN else normalise(v) for v in value]
    if kind in _PLAIN:
        return value
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: normalise(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalise(v) for v in value]
    return value


def _normal(value: Any) -> bool:
    """``normalise(value)`` would be an equal copy: only dicts, lists, strings, ints, bools, None and
    non-integral floats (a manifest read from YAML or JSON, or rendered by the components, mostly is)."""
    # Loops, not all() over a generator: twice as fast here (SIM110).
    kind = type(value)
    if kind is dict:
        for item in value.values():  # noqa: SIM110
            if type(item) not in _PLAIN and not _normal(item):
                return False
        return True
    if kind is list:
        for item in value:  # noqa: SIM110
            if type(item) not in _PLAIN and not _normal(item):
                return False
        return True
    if kind is float:
        return not value.is_integer()
    return kind in _PLAIN


_LEAVES = frozenset({str, int, bool})


def _null_free_normal(value: Any) -> bool:
    """:func:`_normal`, and no None anywhere: one walk finds both for most manifests (the schema rules then
    validate the spec as it is, without copying it to drop its nulls)."""
    kind = type(value)
    if kind is dict:
        for item in value.values():  # noqa: SIM110
            if type(item) not in _LEAVES and not _null_free_normal(item):
                return False
        return True
    if kind is list:
        for item in value:  # noqa: SIM110
            if type(item) not in _LEAVES and not _null_free_normal(item):
                return False
        return True
    if kind is float:
        return not value.is_integer()
    return kind in _LEAVES
