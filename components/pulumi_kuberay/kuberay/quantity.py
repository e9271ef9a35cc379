"""Kubernetes ``resource.Quantity`` as Go reads and writes it: the one quantity parser of this package.

The model, the rules, the change plan and the preflight all read amounts through :func:`parse` (or
:func:`amount`, its lenient reader of untrusted values); the change plan also writes them back (the spec hash).

A port of ``ParseQuantity``, ``parseQuantityString``, ``Quantity.CanonicalizeBytes`` and ``MarshalJSON`` of
``k8s.io/apimachinery/pkg/api/resource``: ``"1000m"`` is written back as ``"1"``, ``"1024Mi"`` as ``"1Gi"``,
``"0.5"`` as ``"500m"``, while a string already in canonical form is kept as given (``ParseQuantity`` caches it,
so ``"1E3"`` stays ``"1E3"``). Exact arithmetic (``Fraction``) stands in for Go's int64 and ``inf.Dec`` paths,
which give the same numbers. Differentially tested against the Go code (tests/oracle).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final, Literal

Format = Literal["DecimalExponent", "BinarySI", "DecimalSI"]

#: The quantity syntax the CRDs' OpenAPI schemas require of resources, limits and sizes (``int-or-string``).
QUANTITY_PATTERN: Final = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
#: What :func:`amount` reads: the pattern with an integer exponent (``ParseQuantity`` refuses ``1e2.5``).
_READABLE: Final = re.compile(r"^[+-]?([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$")

_DECIMAL_SUFFIXES: Final = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES: Final = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_BY_EXPONENT: Final = {exp: s for s, exp in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXPONENT: Final = {exp: s for s, exp in _BINARY_SUFFIXES.items()}
_SUFFIX_CHARS: Final = frozenset("eEinumkKMGTP")
_DIGITS: Final = frozenset("0123456789")
_MAX_INT64_FACTORS: Final = 18
_NANO: Final = -9
_INT64_MAX: Final = (1 << 63) - 1


class QuantityError(ValueError):
    """Not a quantity Go's ``ParseQuantity`` accepts."""


@dataclass(frozen=True)
class Quantity:
    """A parsed quantity: exact value, Go's format, and the string Go keeps when it is already canonical."""

    value: Fraction
    format: Format
    cached: str | None = None

    @property
    def is_zero(self) -> bool:
        return self.value == 0

    def marshal(self) -> str:
        """The string ``Quantity.MarshalJSON`` writes (without the quotes)."""
        if self.cached:
            return self.cached
        return canonical(self)


# resource.parseQuantityString, step by step (hence its branches)
def _parse_string(text: str) -> tuple[bool, str, str, str, str]:  # noqa: C901, PLR0912
    """``parseQuantityString``: (positive, value, numerator, denominator, suffix)."""
    positive, pos, end = True, 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] != "-"
        pos += 1
    i = pos
    while True:  # strip leading zeros
        if i >= end:
            return positive, "0", "0", "", ""
        if text[i] != "0":
            break
        pos += 1
        i += 1
    i = pos
    while True:  # the numerator
        if i >= end:
            return positive, text[:end], text[pos:end], "", ""
        if text[i] not in _DIGITS:
            num, pos = text[pos:i], i
            break
        i += 1
    num = num or "0"
    denom = ""
    if pos < end and text[pos] == ".":
        pos += 1
        i = pos
        while True:
            if i >= end:
                return positive, text[:end], num, text[pos:end], ""
            if text[i] not in _DIGITS:
                denom, pos = text[pos:i], i
                break
            i += 1
    value = text[:pos]
    suffix_start = pos
    i = pos
    while True:
        if i >= end:
            return positive, value, num, denom, text[suffix_start:end]
        if text[i] not in _SUFFIX_CHARS:
            pos = i
            break
        i += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    for i in range(pos, end):
        if text[i] not in _DIGITS:
            raise QuantityError(f"quantities must match the regular expression: {text!r}")
    return positive, value, num, denom, text[suffix_start:end]


def _interpret(suffix: str) -> tuple[int, int, Format]:
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], "DecimalSI"
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        body = digits[1:] if digits[:1] in ("+", "-") else digits
        if body and all(c in _DIGITS for c in body):
            return 10, int(digits), "DecimalExponent"
    raise QuantityError(f"unable to parse quantity's suffix: {suffix!r}")


def _decimal_value(text: str) -> Fraction:
    """``inf.Dec.SetString`` of the numeric part (sign, digits, optional fraction)."""
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    whole, _, frac = body.partition(".")
    if not (whole + frac) or not all(c in _DIGITS for c in whole + frac):
        raise QuantityError(f"unable to parse quantity's numeric part: {text!r}")
    return sign * Fraction(int(whole + frac or "0"), 10 ** len(frac))


def _round_up(value: Fraction, decimals: int) -> Fraction:
    """``inf.Dec.Round(.., decimals, RoundUp)``: away from zero."""
    scaled = value * 10**decimals
    whole = scaled.numerator // scaled.denominator if scaled >= 0 else -((-scaled.numerator) // scaled.denominator)
    if whole != scaled:
        whole += 1 if scaled > 0 else -1
    return Fraction(whole, 10**decimals)


@lru_cache(maxsize=4096)  # a Quantity is immutable; manifests repeat the same few amounts
def parse(text: str) -> Quantity:
    """``resource.ParseQuantity`` (after ``UnmarshalJSON``'s quote stripping and ``TrimSpace``)."""
    if not text:
        raise QuantityError("quantities must match the regular expression: ''")
    if text == "0":
        return Quantity(Fraction(0), "DecimalSI", "0")
    positive, value, num, denom, suffix = _parse_string(text)
    base, exponent, fmt = _interpret(suffix)
    precision, scale, mantissa = 0, 0, 1
    if fmt in ("DecimalExponent", "DecimalSI"):
        scale = exponent
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        precision = -1
    if precision >= 0:
        scale -= len(denom)
        if scale >= _NANO:
            shifted = num + denom
            number = int(shifted)
            result = number * mantissa
            if -_INT64_MAX - 1 <= result <= _INT64_MAX:
                if not positive:
                    result = -result
                amount = Fraction(result) * Fraction(10) ** scale
                cached: str | None = None
                if fmt == "BinarySI":
                    if exponent % 10 == 0 and number & 0x07 != 0:
                        cached = text
                elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                    cached = text
                return Quantity(amount, fmt, cached)
    amount = _decimal_value(value)
    amount = amount * Fraction(10) ** exponent if base == 10 else amount * (1 << exponent)
    negative = amount < 0
    amount = abs(amount)
    if amount != 0:
        amount = _round_up(amount, 9)
    if fmt == "BinarySI" and amount > _INT64_MAX:
        amount = Fraction(_INT64_MAX)
    if fmt == "BinarySI" and 0 < amount < 1:
        fmt = "DecimalSI"
    return Quantity(-amount if negative else amount, fmt)


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    negative, value, times = value < 0, abs(value), 0
    while value >= base and value % base == 0:
        value //= base
        times += 1
    return (-value if negative else value), times


def canonical(quantity: Quantity) -> str:
    """``Quantity.CanonicalizeBytes``: the canonical string of the value in its format."""
    value = quantity.value
    if value == 0:
        return "0"
    fmt = quantity.format
    if fmt == "BinarySI":
        if -1024 < value < 1024:
            fmt = "DecimalSI"
        else:
            rounded = _round_up(value, 0)
            if rounded != value:
                fmt = "DecimalSI"
            else:
                number, times = _remove_factors(int(rounded), 1024)
                return f"{number}{_BINARY_BY_EXPONENT.get(times * 10, '')}"
    nanos = value * 10**9
    if nanos.denominator != 1:  # cannot happen after ParseQuantity's rounding; keep Go's ceiling anyway
        nanos = Fraction(_round_up(value, 9) * 10**9)
    mantissa, times = _remove_factors(int(nanos), 10)
    exponent = times + _NANO
    step = exponent % 3
    mantissa, exponent = mantissa * 10**step, exponent - step
    if fmt == "DecimalExponent":
        return f"{mantissa}" + (f"e{exponent}" if exponent else "")
    return f"{mantissa}{_DECIMAL_BY_EXPONENT.get(exponent, '')}"


def format_json_number(value: int | float) -> str:
    """A JSON number as Go's encoding/json writes it (the API server's text of an int-or-string quantity)."""
    if isinstance(value, bool):
        raise QuantityError(f"a quantity cannot be a boolean: {value!r}")
    if isinstance(value, int):
        return str(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise QuantityError(f"unsupported number {value!r}")
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    magnitude = abs(value)
    if magnitude < 1e-6 or magnitude >= 1e21:
        text = repr(value)
        mantissa, _, exp = text.partition("e")
        sign = "-" if exp.startswith("-") else "+"
        digits = exp.lstrip("+-").lstrip("0") or "0"
        return f"{mantissa}e{sign}{digits}"
    return repr(value)


def marshal(value: object) -> str:
    """The JSON string the operator writes for an API-server value of a quantity field (string or number)."""
    if isinstance(value, str):
        return parse(value.strip()).marshal()
    if isinstance(value, int | float):
        return parse(format_json_number(value)).marshal()
    raise QuantityError(f"a quantity must be a string or a number, got {type(value).__name__}")


def amount(value: Any) -> Fraction | None:
    """The amount of an untrusted value of a quantity field (``"500m"`` -> 1/2, ``"1Gi"`` -> 1073741824, ``2`` ->
    2), as ``ParseQuantity`` reads it (rounded up to nano units); None if it is not a quantity."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(value) if math.isfinite(value) else None
    return _text_amount(value) if isinstance(value, str) else None


@lru_cache(maxsize=4096)  # as parse: manifests repeat the same few amounts, read by several rules
def _text_amount(value: str) -> Fraction | None:
    text = value.strip()
    if _READABLE.match(text) is None:
        return None
    try:
        return parse(text).value
    except QuantityError:
        return None


__all__ = ["QUANTITY_PATTERN", "Quantity", "QuantityError", "amount", "canonical", "format_json_number", "marshal", "parse"]
