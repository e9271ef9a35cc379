"""The code base's one duration parser and one cron parser, held against Go's own test tables
(``time.TestParseDuration`` / ``TestParseDurationErrors``, robfig/cron ``TestParseSchedule*``); the oracle tier
(``tests/oracle``) holds them against the compiled Go code too."""

from __future__ import annotations

import pytest
from pulumi_kuberay.kuberay.gosyntax import cron_error, go_atoi, parse_go_duration_ns

S, MS, US, M, H = 1_000_000_000, 1_000_000, 1_000, 60 * 1_000_000_000, 3600 * 1_000_000_000


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("0", 0),
        ("5s", 5 * S),
        ("30s", 30 * S),
        ("1478s", 1478 * S),
        ("-5s", -5 * S),
        ("+5s", 5 * S),
        ("-0", 0),
        ("+0", 0),
        ("5.0s", 5 * S),
        ("5.6s", 5 * S + 600 * MS),
        ("5.s", 5 * S),
        (".5s", 500 * MS),
        ("1.004s", 1 * S + 4 * MS),
        ("100.00100s", 100 * S + 1 * MS),
        ("10ns", 10),
        ("11us", 11 * US),
        ("12\u00b5s", 12 * US),
        ("12\u03bcs", 12 * US),
        ("13ms", 13 * MS),
        ("15m", 15 * M),
        ("16h", 16 * H),
        ("3h30m", 3 * H + 30 * M),
        ("10.5s4m", 4 * M + 10 * S + 500 * MS),
        ("-2m3.4s", -(2 * M + 3 * S + 400 * MS)),
        ("1h2m3s4ms5us6ns", H + 2 * M + 3 * S + 4 * MS + 5 * US + 6),
        ("39h9m14.425s", 39 * H + 9 * M + 14 * S + 425 * MS),
        ("52763797000ns", 52763797000),
        ("0.3333333333333333333h", 20 * M),
        ("9007199254740993ns", (1 << 53) + 1),
        ("9223372036854775807ns", (1 << 63) - 1),
        ("9223372036854775.807us", (1 << 63) - 1),
        ("9223372036s854ms775us807ns", (1 << 63) - 1),
        ("-9223372036854775808ns", -(1 << 63)),
        ("-9223372036854775.808us", -(1 << 63)),
        ("-2562047h47m16.854775808s", -(1 << 63)),
        ("0.100000000000000000000h", 6 * M),
        ("0.830103483285477580700h", 49 * M + 48 * S + 372539827),
    ],
)
def test_parse_duration_like_go(text: str, ns: int) -> None:
    assert parse_go_duration_ns(text) == ns


@pytest.mark.parametrize(
    "text",
    [
        "",
        "3",
        "-",
        "s",
        ".",
        "-.",
        ".s",
        "+.s",
        "1d",
        "\x85\x85",
        "5 m",
        " 5m",
        "5m ",
        "1e3s",
        "0x10s",
        "5M",
        "9223372036854775808ns",
        "9223372036854775.808us",
        "9223372036854ms775us808ns",
        "-9223372036854775809ns",
    ],
)
def test_parse_duration_errors_like_go(text: str) -> None:
    assert parse_go_duration_ns(text) is None


@pytest.mark.parametrize(("text", "value"), [("5", 5), ("+5", 5), ("-05", -5), ("9223372036854775807", (1 << 63) - 1)])
def test_atoi(text: str, value: int) -> None:
    assert go_atoi(text) == value


@pytest.mark.parametrize("text", ["", "+", " 5", "5 ", "1_000", "9223372036854775808", "0x10", "5.0"])
def test_atoi_errors(text: str) -> None:
    assert go_atoi(text) is None


@pytest.mark.parametrize(
    "schedule",
    [
        "* * * * *",
        "*/5 * * * *",
        "0 0 * * MON",
        "0 0 * jan *",
        "1,,2 * * * *",
        ",  * * * *",
        "+5 * * * *",
        "05 * * * *",
        "*-3 * * * *",
        "5/10 * * * *",
        "@every 0s",
        "@every -1h",
        "@hourly",
        "CRON_TZ=UTC 0 * * * *",
        "TZ=Local 0 * * * *",
        "TZ=Europe/Berlin  @daily",
        "0\t0 * *\u3000*",
        "? ? ? ? ?",
    ],
)
def test_schedules_robfig_accepts(schedule: str) -> None:
    assert cron_error(schedule) is None


@pytest.mark.parametrize(
    "schedule",
    [
        "",
        " ",
        "@daily ",
        " @daily",
        "@every",
        "@every 1h ",
        "@reboot",
        "60 * * * *",
        "* * * *",
        "* * * * * *",
        "0 0 * * 7",
        "*/0 * * * *",
        "5-1 * * * *",
        "-1 * * * *",
        "1-2-3 * * * *",
        "1/2/3 * * * *",
        "TZ=Mars/Base 0 * * * *",
        "TZ=UTC",
        "0 0 L * *",
        "99999999999999999999 * * * *",
    ],
)
def test_schedules_robfig_refuses(schedule: str) -> None:
    assert cron_error(schedule) is not None
