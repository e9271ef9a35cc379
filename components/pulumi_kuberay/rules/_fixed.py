"""A rule's fixed example: its violating example with the rule's ``fix`` applied, as data.

``declare(..., fixed=patch({"spec.x": 1, "spec.y": REMOVE}))`` edits a copy of the violating example at field
paths (the paths findings use; a stack rule's paths start with the document's index, ``[1].spec...``); a rule
may instead give the whole fixed subject (a manifest, a tuple of manifests, an OperatorSetup). A rule whose fix
is not in the manifest (the operator, the cluster) says why with ``fixed_elsewhere="..."``. The catalogue test
runs every rule on its fixed example: the rule's finding is gone and no new critical finding appears.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_kuberay.kuberay.paths import parse_path


class _Remove:
    def __repr__(self) -> str:
        return "REMOVE"

    def __deepcopy__(self, memo: dict[int, Any]) -> _Remove:
        return self  # one sentinel: patches compare values to it by identity


#: A patch value: delete the field (a list item: drop it).
REMOVE: Any = _Remove()


@dataclass(frozen=True)
class Patch:
    """Field path -> new value (or :data:`REMOVE`), applied in order to a deep copy of the violating example."""

    edits: tuple[tuple[str, Any], ...]

    def apply(self, subject: Any) -> Any:
        out = copy.deepcopy(list(subject) if isinstance(subject, tuple) else subject)
        for path, value in self.edits:
            _set(out, parse_path(path), copy.deepcopy(value), path)
        return tuple(out) if isinstance(subject, tuple) else out


def patch(edits: Mapping[str, Any]) -> Patch:
    """A :class:`Patch` from ``{"spec.field": value}`` (``REMOVE`` deletes); insertion order is kept."""
    return Patch(tuple(edits.items()))


def _set(root: Any, keys: list[str | int], value: Any, path: str) -> None:
    if not keys:
        raise ValueError(f"patch path {path!r} is empty")
    cur = root
    for i, key in enumerate(keys[:-1]):
        nxt = keys[i + 1]
        if isinstance(key, int):
            if not isinstance(cur, list) or not -len(cur) <= key < len(cur):
                raise ValueError(f"patch path {path!r}: no list item [{key}]")
            cur = cur[key]
            continue
        if not isinstance(cur, dict):
            raise ValueError(f"patch path {path!r}: {key!r} is not inside a mapping")
        if not isinstance(cur.get(key), (dict, list)):
            cur[key] = [] if isinstance(nxt, int) else {}
        cur = cur[key]
    last = keys[-1]
    if isinstance(last, int):
        if not isinstance(cur, list):
            raise ValueError(f"patch path {path!r}: [{last}] is not a list item")
        if value is REMOVE:
            del cur[last]
        elif last == len(cur):
            cur.append(value)
        else:
            cur[last] = value
    elif not isinstance(cur, dict):
        raise ValueError(f"patch path {path!r}: {last!r} is not inside a mapping")
    elif value is REMOVE:
        cur.pop(last, None)
    else:
        cur[last] = value
