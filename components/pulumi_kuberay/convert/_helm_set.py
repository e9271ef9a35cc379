"""Several values files and ``--set`` / ``--set-string`` / ``--set-json``, as Helm merges them (its
``pkg/cli/values`` ``Options.MergeValues`` and ``pkg/strvals``). Part of :mod:`pulumi_kuberay.convert.helm`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_kuberay.model import merge_maps

from ._gotemplate import GoInt, HelmValuesError

# --------------------------------------------------------------------------------------------------
# Several values files and --set: Helm's pkg/cli/values Options.MergeValues and pkg/strvals.


def merge_values(
    files: Sequence[Mapping[str, Any]] = (),
    *,
    set_json: Sequence[str] = (),
    set_values: Sequence[str] = (),
    set_string: Sequence[str] = (),
) -> dict[str, Any]:
    """The values Helm hands the chart for ``-f a -f b --set-json .. --set .. --set-string ..``: the files
    merged in order (a later file wins: maps merged, anything else replaced), then every ``--set-json``, every
    ``--set``, every ``--set-string``, each applied in order (Helm's own precedence, whatever the order on the
    command line). Raises :class:`HelmValuesError` on a ``--set`` it cannot parse."""
    merged: dict[str, Any] = {}
    for values in files:
        merged = merge_maps(merged, values)
    for item in set_json:
        _parse_set(item, merged, as_json=True)
    for item in set_values:
        _parse_set(item, merged)
    for item in set_string:
        _parse_set(item, merged, as_string=True)
    return merged


_INT64 = re.compile(r"-?(0|[1-9][0-9]*)")


def _typed(text_value: str) -> Any:
    """strvals' ``typedVal``: true/false, null, int64 (no leading zero); anything else stays a string."""
    if text_value in ("true", "false"):
        return text_value == "true"
    if text_value == "null":
        return None
    if _INT64.fullmatch(text_value) and -(2**63) <= int(text_value) < 2**63:
        return GoInt(int(text_value))
    return text_value


def _split(text_value: str, separator: str) -> list[str]:
    """Split on ``separator`` outside ``{...}`` lists, honouring ``\\`` escapes (kept for the next step)."""
    parts, current, depth, escaped = [], "", 0, False
    for char in text_value:
        if escaped:
            current += "\\" + char
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
            current += char
        elif char == "}":
            depth -= 1
            current += char
        elif char == separator and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def _unescape(text_value: str) -> str:
    return re.sub(r"\\(.)", r"\1", text_value)


_KEY_PART = re.compile(r"([^\[]+)((?:\[\d+\])*)$")


def _parse_set(item: str, values: dict[str, Any], *, as_string: bool = False, as_json: bool = False) -> None:
    pairs = [item] if as_json else _split(item, ",")
    for pair in pairs:
        if not pair:
            continue
        key_text, sep, raw = pair.partition("=")
        if not sep:
            raise HelmValuesError(key_text, f"--set {pair!r}: key has no value (write key=value)")
        path = [_unescape(p) for p in _split(key_text, ".")]
        if as_json:
            try:
                value: Any = json.loads(raw)
            except ValueError as exc:
                raise HelmValuesError(key_text, f"--set-json {pair!r}: not JSON ({exc})") from None
        elif raw.startswith("{") and raw.endswith("}"):
            items = [_unescape(v) for v in _split(raw[1:-1], ",")] if raw[1:-1] else []
            value = items if as_string else [_typed(v) for v in items]
        else:
            value = _unescape(raw) if as_string else _typed(_unescape(raw))
        _assign(values, path, value, key_text)


def _assign(values: dict[str, Any], path: list[str], value: Any, key_text: str) -> None:
    target: Any = values
    for depth, part in enumerate(path):
        match = _KEY_PART.match(part)
        if match is None:
            raise HelmValuesError(key_text, f"--set key {key_text!r} cannot be parsed")
        name, indexes = match.group(1), [int(i) for i in re.findall(r"\d+", match.group(2))]
        last = depth == len(path) - 1
        steps: list[str | int] = [name, *indexes]
        for step_index, step in enumerate(steps):
            final = last and step_index == len(steps) - 1
            following: Any = value if final else ([] if isinstance(steps[step_index + 1], int) else {}) if (
                step_index + 1 < len(steps)) else {}
            if isinstance(step, int):
                if not isinstance(target, list):
                    raise HelmValuesError(key_text, f"--set {key_text!r}: not a list at [{step}]")
                while len(target) <= step:
                    target.append(None)
                if final or not isinstance(target[step], (dict, list)):
                    target[step] = following
                target = target[step]
            else:
                if not isinstance(target, dict):
                    raise HelmValuesError(key_text, f"--set {key_text!r}: not a mapping at {step!r}")
                if final or not isinstance(target.get(step), (dict, list)):
                    target[step] = following
                target = target[step]
