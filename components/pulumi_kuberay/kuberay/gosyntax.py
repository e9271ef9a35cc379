"""Go's parsers that KubeRay's validation relies on, reproduced exactly: the one cron parser and the one
duration parser of the code base (the model and the rule catalogue both use these).

* :func:`parse_go_duration_ns` is ``time.ParseDuration``: ``[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+`` with units
  ns, us, µs, μs, ms, s, m, h; ``"0"`` alone needs no unit; no whitespace; overflow past int64 is an error.
* :func:`cron_error` is robfig/cron v3 ``ParseStandard`` (what ``ValidateRayCronJobSpec`` calls): an optional
  ``TZ=``/``CRON_TZ=`` prefix, the ``@`` descriptors (``@every <duration>``), else exactly five
  whitespace-separated fields of comma-separated ranges ``*|?|N[-M][/S]`` with month/day names.
* :func:`go_atoi` is ``strconv.Atoi`` (optional sign, decimal digits, int64 range).
* :func:`semver_parse` is Masterminds semver v3 ``NewVersion`` (coercing: ``v`` prefix, ``2.52`` and leading
  zeros allowed), what the operator's ``getMetadataJSONForSubmitCommand`` (``GetMetadataJson`` before v1.7)
  parses ``rayVersion`` with; its ``>= 2.6.0`` constraint never admits a pre-release.

Differential tests in ``tests/oracle`` hold these against the real Go code.
"""

from __future__ import annotations

import re
import zoneinfo
from functools import cache

_INT64_MAX = (1 << 63) - 1
_UNITS_NS: dict[str, int] = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,  # µ (micro sign)
    "\u03bcs": 1_000,  # μ (Greek mu)
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60 * 1_000_000_000,
    "h": 3600 * 1_000_000_000,
}


def go_atoi(text: str) -> int | None:
    """``strconv.Atoi``: ``"+5"`` -> 5, ``"-0012"`` -> -12; None for anything else or outside int64."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not all("0" <= c <= "9" for c in digits):
        return None
    value = int(digits) * (-1 if text[:1] == "-" else 1)
    return value if -(1 << 63) <= value <= _INT64_MAX else None


# C901, PLR0912: Go's time.ParseDuration, one branch per case of its loop
def parse_go_duration_ns(text: str) -> int | None:  # noqa: C901, PLR0912
    """Nanoseconds of a Go ``time.ParseDuration`` string (``"1h30m"``, ``"-5s"``, ``"0"``), else None."""
    s = text
    neg = False
    if s and s[0] in "+-":
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if not s:
        return None
    total = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            return None
        i = 0
        while i < len(s) and "0" <= s[i] <= "9":
            i += 1
        whole_text, s = s[:i], s[i:]
        whole = int(whole_text) if whole_text else 0
        if whole > 1 << 63:  # leadingInt overflows
            return None
        frac_text = ""
        if s[:1] == ".":
            s = s[1:]
            j = 0
            while j < len(s) and "0" <= s[j] <= "9":
                j += 1
            frac_text, s = s[:j], s[j:]
            post = j > 0
        else:
            post = False
        if not whole_text and not post:
            return None
        k = 0
        while k < len(s) and not (s[k] == "." or "0" <= s[k] <= "9"):
            k += 1
        if k == 0:
            return None  # missing unit
        unit = _UNITS_NS.get(s[:k])
        s = s[k:]
        if unit is None:
            return None
        if whole > (1 << 63) // unit:
            return None
        value = whole * unit
        if frac_text:
            # leadingFraction keeps at most the digits that fit; float arithmetic as in Go.
            f, scale = 0, 1.0
            overflow = False
            for c in frac_text:
                if overflow:
                    continue
                if f > _INT64_MAX // 10:
                    overflow = True
                    continue
                nf = f * 10 + int(c)
                if nf > 1 << 63:
                    overflow = True
                    continue
                f, scale = nf, scale * 10
            value += int(float(f) * (float(unit) / scale))
            if value > 1 << 63:
                return None
        total += value
        if total > 1 << 63:
            return None
    if neg:
        return -total
    return total if total <= _INT64_MAX else None


def parse_go_duration(text: str) -> float | None:
    """Seconds of a Go ``time.ParseDuration`` string, else None (see :func:`parse_go_duration_ns`)."""
    ns = parse_go_duration_ns(text)
    return None if ns is None else ns / 1e9


# --------------------------------------------------------------------------------------------------
# robfig/cron v3 ParseStandard.

_MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
_MONTHS = {m: i + 1 for i, m in enumerate(_MONTH_NAMES)}
_DAYS = {d: i for i, d in enumerate(["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"])}
#: (name, min, max, names) of the five fields, in order.
CRON_FIELDS: tuple[tuple[str, int, int, dict[str, int] | None], ...] = (
    ("minute", 0, 59, None),
    ("hour", 0, 23, None),
    ("day-of-month", 1, 31, None),
    ("month", 1, 12, _MONTHS),
    ("day-of-week", 0, 6, _DAYS),
)
CRON_DESCRIPTORS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
# Go's strings.Fields / strings.TrimSpace split on unicode.IsSpace.
_GO_SPACES = frozenset(  # text-block
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _go_fields(text: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    for c in text:
        if c in _GO_SPACES:
            if current:
                out.append("".join(current))
                current = []
        else:
            current.append(c)
    if current:
        out.append("".join(current))
    return out


def _go_trim_space(text: str) -> str:
    start, end = 0, len(text)
    while start < end and text[start] in _GO_SPACES:
        start += 1
    while end > start and text[end - 1] in _GO_SPACES:
        end -= 1
    return text[start:end]


def _cron_int(text: str, field: str, names: dict[str, int] | None) -> int | str:
    if names is not None and text.upper() in names:
        return names[text.upper()]
    value = go_atoi(text)
    if value is None or value < 0:
        what = f" or a name ({', '.join(names)})" if names else ""
        return f"{field} field: {text!r} is not a number{what}"
    return value


def _cron_range(expr: str, field: str, lo: int, hi: int, names: dict[str, int] | None) -> str | None:
    """robfig's getRange: ``*|?|N[-M][/S]``; ``N/S`` means ``N-max/S``."""
    range_and_step = expr.split("/")
    low_high = range_and_step[0].split("-")
    if len(range_and_step) > 2:
        return f"{field} field: {expr!r} has more than one '/'"
    if low_high[0] in ("*", "?"):
        start, end = lo, hi
    else:
        if len(low_high) > 2:
            return f"{field} field: {expr!r} has more than one '-'"
        first = _cron_int(low_high[0], field, names)
        if isinstance(first, str):
            return first
        start = end = first
        if len(low_high) == 2:
            second = _cron_int(low_high[1], field, names)
            if isinstance(second, str):
                return second
            end = second
    step = 1
    if len(range_and_step) == 2:
        parsed = _cron_int(range_and_step[1], field, None)
        if isinstance(parsed, str):
            return f"{field} field: step {range_and_step[1]!r} must be a positive number"
        step = parsed
        if len(low_high) == 1:
            end = hi
    for value in (start, end):
        if not lo <= value <= hi:
            return f"{field} field: {value} is outside {lo}-{hi}"
    if start > end:
        return f"{field} field: range {range_and_step[0]!r} runs backwards ({start} > {end})"
    if step == 0:
        return f"{field} field: step {range_and_step[1]!r} must be a positive number"
    return None


@cache
def known_zones() -> frozenset[str]:
    """IANA zone names (Go's embedded tzdata and Python's ``zoneinfo`` carry the same names)."""
    try:
        return frozenset(zoneinfo.available_timezones())
    except Exception:  # no tz database on this machine: cannot judge
        return frozenset()


def go_location_exists(name: str) -> bool:
    """Like Go's ``time.LoadLocation`` with embedded tzdata (``""``, ``UTC`` and ``Local`` are special)."""
    if name in ("", "UTC", "Local"):
        return True
    if ".." in name or name.startswith(("/", "\\")):
        return False
    zones = known_zones()
    if zones:
        return name in zones
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _location_error(name: str) -> str | None:
    return None if go_location_exists(name) else f"time zone {name!r} is not known"


def cron_error(schedule: str) -> str | None:
    """Why robfig/cron ``ParseStandard`` rejects ``schedule``, or None if it parses.

    Go's behaviour at the edges: an empty list element (``1,,2``) is skipped; numbers may carry a ``+`` sign
    and leading zeros; names are case-insensitive; ``@every`` takes any ``time.ParseDuration`` (also 0 or
    negative: the schedule then runs every second); a descriptor must match exactly (``@daily `` is not one);
    a ``TZ=``/``CRON_TZ=`` prefix without a following space makes the Go parser panic (reported as an error).
    """
    spec = schedule
    if not spec:
        return "is empty"
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space, eq = spec.find(" "), spec.find("=")
        if space < 0:
            return "has a time zone prefix but no schedule after it"
        if (err := _location_error(spec[eq + 1 : space])) is not None:
            return err
        spec = _go_trim_space(spec[space:])
    if spec.startswith("@"):
        if spec in CRON_DESCRIPTORS:
            return None
        if spec.startswith("@every "):
            duration = spec[len("@every ") :]
            return None if parse_go_duration_ns(duration) is not None else f"{duration!r} is not a duration"
        return f"{spec!r} is not a known descriptor"
    fields = _go_fields(spec)
    if len(fields) != len(CRON_FIELDS):
        return f"has {len(fields)} fields, expected 5 (minute hour day-of-month month day-of-week)"
    for text, (name, lo, hi, names) in zip(fields, CRON_FIELDS, strict=True):
        for expr in (part for part in text.split(",") if part):
            if (err := _cron_range(expr, name, lo, hi, names)) is not None:
                return err
    return None


# Masterminds semver v3 looseSemVerRegex (NewVersion with CoerceNewVersion, its default).
_SEMVER_LOOSE = re.compile(
    r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
_UINT64 = (1 << 64) - 1


def semver_parse(text: str) -> tuple[tuple[int, int, int], str] | None:
    """Masterminds semver v3 ``NewVersion``: ``((major, minor, patch), prerelease)``, or None when it errors
    (no match of the whole text, a segment past uint64, an empty or zero-prefixed numeric pre-release part)."""
    match = _SEMVER_LOOSE.fullmatch(text)
    if match is None:
        return None
    nums = tuple(int(g.lstrip(".")) if g else 0 for g in (match.group(1), match.group(2), match.group(3)))
    if any(n > _UINT64 for n in nums):
        return None
    pre = match.group(5) or ""
    for part in pre.split(".") if pre else ():
        if part.isdigit() and len(part) > 1 and part[0] == "0":
            return None
    return (nums[0], nums[1], nums[2]), pre
