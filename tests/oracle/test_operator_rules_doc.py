"""``docs/operator-rules.md``'s oracle column, held against the oracles.

Every operator-rule row (RC-, RJ-, RS-, RCJ-, WH-, OP-) says in its last column either the KubeRay minors whose own
code judged it (``1.7, 1.6``: the oracle of that minor rejects, or accepts and ignores, the violating example of
every rule the row names) or ``no: <why>`` (a check the code cannot show from a manifest: run time, cluster state,
status). Each oracle checks the rows that name its minor.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from pulumi_kuberay import rules

from ._oracle import Oracle
from ._run import run
from .test_differential import example_cases

DOC = Path(__file__).resolve().parents[2] / "docs" / "operator-rules.md"
ROW_ID = re.compile(r"^\| *\(?(RC|RJ|RS|RCJ|WH|OP)-\d+")
MINORS = re.compile(r"^(1\.\d+)(, 1\.\d+)*( \(.+\))?$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@cache
def doc_rows() -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """``(row, rule ids named in its "Rule id" column, oracle column)`` for every operator-rule row."""
    rows: list[tuple[str, tuple[str, ...], str]] = []
    rule_column = -1
    for line in DOC.read_text().splitlines():
        if not line.startswith("|"):
            rule_column = -1
            continue
        cells = _cells(line)
        if "Rule id" in cells and cells[-1].startswith("Oracle"):
            rule_column = cells.index("Rule id")
            continue
        if rule_column < 0 or not ROW_ID.match(line):
            continue
        ids = tuple(i for i in re.findall(r"`([a-z0-9-]+)`", cells[rule_column]) if i in rules.RULES)
        rows.append((cells[0], ids, cells[-1]))
    return tuple(rows)


def test_every_row_says_what_judged_it() -> None:
    rows = doc_rows()
    assert len(rows) >= 150, f"only {len(rows)} operator-rule rows found in {DOC}"
    bad = []
    for row, ids, oracle in rows:
        if oracle.startswith("no: ") and len(oracle.split()) >= 4:
            continue  # a reason, in words
        if MINORS.match(oracle) and (ids or "(" in oracle):
            continue  # minors, and the rules they judged (or, in brackets, through what)
        bad.append(f"{row}: {oracle!r}")
    assert not bad, "oracle column must be '1.7, 1.6', '1.7 (via ...)' or 'no: <why>':\n" + "\n".join(bad)


_JUDGED: dict[str, frozenset[str]] = {}


def judged_rules(oracle: Oracle) -> frozenset[str]:
    """Rules whose violating example this oracle rejects (or accepts and ignores), agreeing with the catalogue."""
    if oracle.operator_version not in _JUDGED:
        judged = set()
        for outcome in run(oracle, example_cases()):
            _, rule_id, which = outcome.case.origin.split(":")
            if which == "violating" and outcome.agrees and (outcome.expected_block or outcome.expected_ignored):
                judged.add(rule_id)
        _JUDGED[oracle.operator_version] = frozenset(judged)
    return _JUDGED[oracle.operator_version]


def test_the_rows_naming_this_minor_were_judged_by_it(oracle: Oracle) -> None:
    minor = ".".join(map(str, oracle.minor))
    claimed = [(row, ids) for row, ids, column in doc_rows() if re.match(rf"^(1\.\d+, )*{re.escape(minor)}\b", column)]
    if not claimed:
        pytest.skip(f"no row of {DOC.name} names KubeRay {minor}")
    judged = judged_rules(oracle)
    missing = [f"{row}: {rule_id}" for row, ids in claimed for rule_id in ids if rule_id not in judged]
    assert not missing, (
        f"rows say KubeRay {minor}'s code judged them, but its oracle ({oracle.operator_version}) does not reject "
        "(or ignore) the violating example of:\n" + "\n".join(missing)
    )
