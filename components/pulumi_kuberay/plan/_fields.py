"""Which fields of a spec changed, in words a plan line can carry (``worker group gpu: image``).

Lists of named items (containers, env, ports, volumes, worker groups) are matched by name, so reordering is
not a change and an added or removed item is named once. The words are for people; the plan's decisions
come from the operator's own hashes and fields (``hashing``, ``cluster``, ``service``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

Path = tuple[str, ...]

#: The key that names the items of a list, by the list's field name.
_NAME_KEYS: Final = {"workerGroupSpecs": "groupName"}
_MAX_ITEMS: Final = 6


def _name_of(item: Any, list_field: str) -> str | None:
    if not isinstance(item, Mapping):
        return None
    key = _NAME_KEYS.get(list_field, "name")
    value = item.get(key)
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None


def _named(items: Sequence[Any], list_field: str) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for item in items:
        name = _name_of(item, list_field)
        if name is None or name in out:
            return None
        out[name] = item
    return out


def as_stored(spec: Mapping[str, Any], version: tuple[int, int, int]) -> Any:
    """A RayClusterSpec as the operator reads it (the API server's defaults and pruning, Go's canonical
    quantities, empty lists dropped), so that only what the operator can tell apart counts as a change; the
    spec as given when it cannot be read so."""
    from pulumi_kuberay.plan import _gojson, hashing

    try:
        types = hashing.types_for(version)
        return json.loads(_gojson.go_json(types, spec))
    except (LookupError, ValueError):
        return spec


def changed_paths(old: Any, new: Any, path: Path = ()) -> list[Path]:
    """Paths where ``old`` and ``new`` differ (an added, removed or retyped subtree is one path)."""
    if old == new:
        return []
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        out: list[Path] = []
        for key in sorted(set(old) | set(new), key=str):
            if key not in old or key not in new:
                out.append((*path, f"+{key}" if key not in old else f"-{key}"))
            else:
                out.extend(changed_paths(old[key], new[key], (*path, str(key))))
        return out
    if isinstance(old, list) and isinstance(new, list):
        field = path[-1] if path else ""
        old_named, new_named = _named(old, field), _named(new, field)
        if old_named is not None and new_named is not None:
            out = []
            for name in list(old_named) + [n for n in new_named if n not in old_named]:
                if name not in new_named:
                    out.append((*path, f"-[{name}]"))
                elif name not in old_named:
                    out.append((*path, f"+[{name}]"))
                else:
                    out.extend(changed_paths(old_named[name], new_named[name], (*path, f"[{name}]")))
            return out
        if len(old) == len(new):
            out = []
            for index, (a, b) in enumerate(zip(old, new, strict=True)):
                out.extend(changed_paths(a, b, (*path, f"[{index}]")))
            return out
    return [path]


def _clean(part: str) -> str:
    return part.lstrip("+-").strip("[]")


def describe(path: Path) -> str:
    """One changed path of a RayClusterSpec in words: ``worker group gpu: image``, ``head: env``."""
    parts = list(path)
    where = ""
    if parts[:1] == ["headGroupSpec"]:
        where, parts = "head", parts[1:]
    elif parts and _clean(parts[0]) == "workerGroupSpecs" and len(parts) >= 2:
        group = _clean(parts[1])
        if parts[1].startswith(("+", "-")):
            return f"worker group {group} {'added' if parts[1][0] == '+' else 'removed'}"
        where, parts = f"worker group {group}", parts[2:]
    if parts[:2] == ["template", "spec"]:
        parts = parts[2:]
        if parts and _clean(parts[0]) in ("containers", "initContainers") and len(parts) >= 3:
            container, field = _clean(parts[1]), _clean(parts[2])
            label = f"{field} of container {container}"
            parts = [label]
        elif parts and parts[0].startswith(("+", "-")):
            parts = [_clean(parts[0])]
        else:
            parts = [_clean(p) for p in parts[:1]]
    elif parts[:2] == ["template", "metadata"]:
        parts = ["pod " + _clean(parts[2]) if len(parts) > 2 else "pod metadata"]
    else:
        parts = [_clean(p) for p in parts[:1]]
    text = parts[0] if parts else "spec"
    return f"{where}: {text}" if where else text


def describe_all(paths: Sequence[Path]) -> tuple[str, ...]:
    """The distinct descriptions of ``paths``, at most a handful (then ``and N more``)."""
    seen: list[str] = []
    for path in paths:
        text = describe(path)
        if text not in seen:
            seen.append(text)
    if len(seen) > _MAX_ITEMS:
        return (*seen[: _MAX_ITEMS - 1], f"and {len(seen) - _MAX_ITEMS + 1} more")
    return tuple(seen)


#: The worker group fields the autoscaler reads as its bounds (``minReplicas``/``maxReplicas``).
BOUNDS: Final = ("minReplicas", "maxReplicas")
#: The worker group counts outside KubeRay's hashes (``GenerateHashWithoutReplicasAndWorkersToDelete``).
COUNTS: Final = ("replicas", *BOUNDS)


def _shown(value: Any) -> str:
    return "unset" if value is None else str(value)


def count_changes(old: Mapping[str, Any], new: Mapping[str, Any], keys: Sequence[str] = COUNTS) -> list[str]:
    """``worker group cpu: maxReplicas 10 -> 12`` for each of ``keys`` that differs in a group on both sides."""

    def groups(spec: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
        found = spec.get("workerGroupSpecs")
        items = found if isinstance(found, list) else []
        return {str(g["groupName"]): g for g in items if isinstance(g, Mapping) and isinstance(g.get("groupName"), str)}

    before, after = groups(old), groups(new)
    out: list[str] = []
    for name, group in after.items():
        if name not in before:
            continue
        for key in keys:
            was, now = before[name].get(key), group.get(key)
            if was != now:
                out.append(f"worker group {name}: {key} {_shown(was)} -> {_shown(now)}")
    return out


__all__ = ["BOUNDS", "COUNTS", "changed_paths", "count_changes", "describe", "describe_all"]
