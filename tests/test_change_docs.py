"""docs/changes.md is generated from the change table and must match it (run scripts/gen-change-docs)."""

from __future__ import annotations

from pathlib import Path

from pulumi_kuberay.plan._cases import CASES
from pulumi_kuberay.plan._docs import render

DOC = Path(__file__).resolve().parents[1] / "docs" / "changes.md"


def test_change_reference_is_current() -> None:
    assert DOC.read_text() == render(), "docs/changes.md is stale: run scripts/gen-change-docs"


def test_every_row_is_in_the_reference_once() -> None:
    text = render()
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids)), "two rows of the change table share an id"
    for case_id in ids:
        assert text.count(f"`{case_id}`") == 1, case_id


def test_the_issue_rows_are_there() -> None:
    # an image change on a RayCluster under both strategies, and the RayService's two kinds of change
    by_id = {case.id: case for case in CASES}
    assert by_id["rc-image-none"].expected == "none"
    assert any(c.kind == "RayCluster" and c.strategy == "Recreate" and c.expected == "recreate-pods" for c in CASES)
    assert by_id["rs-image-newcluster"].expected == "new-cluster"
    assert any(c.kind == "RayService" and c.expected == "serve-update-in-place" for c in CASES)
