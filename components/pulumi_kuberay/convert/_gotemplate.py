"""Go-template semantics the ray-cluster chart's template relies on (``with``/``if`` truth, ``%v`` of a float64,
``quote``, ``toYaml``), and the error every Helm values step raises. Part of :mod:`pulumi_kuberay.convert.helm`."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import yaml


class HelmValuesError(ValueError):
    """A values key the chart does not know or cannot render; ``key`` is its path (``head.resources``)."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(f"{key}: {message}" if key else message)


# --------------------------------------------------------------------------------------------------
# Go template semantics.


def truthy(value: Any) -> bool:
    """Go template truth (``if``/``with``/``default``): false, 0, "", nil, empty map/list are false."""
    return bool(value) if isinstance(value, (bool, int, float, str, list, dict)) else value is not None


def go_float(number: float) -> str:
    """Go's ``%v`` of a float64 (``strconv.FormatFloat(f, 'g', -1, 64)``): ``1e+06``, ``1.5``, ``100000``."""
    if number != number:
        return "NaN"
    if number in (float("inf"), float("-inf")):
        return "+Inf" if number > 0 else "-Inf"
    if number == 0:
        return "-0" if str(number).startswith("-") else "0"
    sign, digit_tuple, exponent = Decimal(repr(number)).normalize().as_tuple()
    digits = "".join(str(d) for d in digit_tuple)
    point = len(digits) + int(exponent)  # position of the decimal point
    exp = point - 1
    prefix = "-" if sign else ""
    if exp < -4 or exp >= 6:  # shortest %g switches to %e from exponent 6 (Go uses precision 6 for the choice)
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return prefix + digits + "0" * (point - len(digits))
    return f"{prefix}{digits[:point]}.{digits[point:]}"


class GoInt(int):
    """An integer Go holds as an ``int``: a literal of the template (``default 2147483647``) or a ``--set``
    number (Helm's strvals parses it as int64). Printed as digits, where a values-file number (float64) may
    print as ``1e+06``."""


def text(value: Any, key: str) -> str:
    """What ``{{ value }}`` prints (Helm reads every number of a values file as a float64)."""
    if value is None:
        return ""  # Helm replaces "<no value>" by an empty string
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, GoInt):
        return str(int(value))
    if isinstance(value, (int, float)):
        return go_float(float(value))
    if isinstance(value, str):
        return value
    raise HelmValuesError(key, f"expected a scalar, got {type(value).__name__}: the chart would print Go syntax")


def scalar(rendered: str, key: str) -> Any:
    """The value YAML reads back from a line ``field: <rendered>``."""
    try:
        parsed = yaml.safe_load(f"field: {rendered}")
    except yaml.YAMLError as exc:
        raise HelmValuesError(key, f"the chart would render invalid YAML ({rendered!r}): {exc}") from None
    if not isinstance(parsed, dict) or set(parsed) != {"field"} or isinstance(parsed["field"], (dict, list)):
        raise HelmValuesError(key, f"the chart would render {rendered!r}, which is not one YAML scalar")
    return parsed["field"]


def plain(value: Any, key: str) -> Any:
    """``{{ value }}`` on a line of its own, read back by YAML."""
    return scalar(text(value, key), key)


def quote(value: Any, key: str) -> str | None:
    """``{{ value | quote }}``: a string (nothing at all for a missing value)."""
    return None if value is None else text(value, key)


def to_yaml(value: Any) -> Any:
    """``toYaml``: the structure as is, except that Helm's float64 numbers come back as integers when whole."""
    if isinstance(value, Mapping):
        return {str(k): to_yaml(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_yaml(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, GoInt):
        return int(value)
    return value


def _default(value: Any, fallback: Any) -> Any:
    return value if truthy(value) else fallback
