"""Judge a list of cases with the oracle (one process per gate setting) and the catalogue, then compare."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._contract import Case, Outcome, judge_cases, summary
from ._oracle import Oracle, child_errors

#: Where the last run's figures go (read by the docs line in docs/operator-rules.md, printed by the tests).
REPORT = Path(os.environ.get("PULUMI_KUBERAY_ORACLE_REPORT", "/tmp/pulumi-kuberay-oracle-report.json"))


def gates_for(oracle: Oracle, gates: str | tuple[tuple[str, bool], ...]) -> dict[str, bool]:
    """A case's gate setting as the oracle's gate map (overrides of gates it does not know are dropped)."""
    if isinstance(gates, str):
        return oracle.gates(gates)
    return {**oracle.gates("default"), **{k: v for k, v in gates if k in oracle.default_gates}}


def run(oracle: Oracle, cases: Sequence[Case]) -> list[Outcome]:
    """One oracle process per distinct gate setting; outcomes in the order of ``cases``."""
    by_gates: dict[str | tuple[tuple[str, bool], ...], list[int]] = {}
    for i, case in enumerate(cases):
        by_gates.setdefault(case.gates, []).append(i)
    verdicts: list[dict[str, Any]] = [{}] * len(cases)
    for gates, indexes in by_gates.items():
        judged = oracle.judge([cases[i].doc for i in indexes], gates_for(oracle, gates))
        for i, verdict in zip(indexes, judged, strict=True):
            verdicts[i] = verdict
    return judge_cases(cases, verdicts, kuberay_version=oracle.kuberay_version)


def record(section: str, outcomes: Sequence[Outcome]) -> str:
    """Add this section's counts to the report file; returns the summary text (printed by the caller)."""
    data = json.loads(REPORT.read_text()) if REPORT.exists() else {}
    bad = [o for o in outcomes if not o.agrees]
    known: dict[str, int] = {}
    for o in bad:
        if o.known_as:
            known[o.known_as] = known.get(o.known_as, 0) + 1
    data[section] = {
        "cases": len(outcomes),
        "agree": len(outcomes) - len(bad),
        "known": known,
        "unexplained": sum(1 for o in bad if o.known_as is None),
        "oracle_rejects": sum(1 for o in outcomes if o.expected_block),
        "corrected": sum(1 for o in outcomes if o.verdict.get("corrected")),
        # stored, but a Pod, Service or Job the operator builds from it is refused (the verdict's children)
        "children_refused": sum(1 for o in outcomes if child_errors(o.verdict)),
    }
    REPORT.write_text(json.dumps(data, indent=2, sort_keys=True))
    text = f"[oracle:{section}] " + summary(outcomes)
    print(text)
    return text


def assert_agree(section: str, outcomes: Sequence[Outcome]) -> None:
    text = record(section, outcomes)
    unexplained = [o for o in outcomes if not o.agrees and o.known_as is None]
    assert not unexplained, text
