"""Baselines: adopt ``kuberay-lint`` on an existing repository and fail only on new findings.

``--write-baseline`` records every current finding by its fingerprint (rule, object kind/namespace/name and the
field path with named list items, never a line number), with a count, so moving or reformatting YAML keeps
findings matched. ``--baseline FILE`` then hides up to that many findings per fingerprint; the rest are new.
The file is sorted JSON meant to be committed and reviewed.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pulumi_kuberay.cli._lint_findings import LocatedFinding

FORMAT = "kuberay-lint-baseline/v1"


class BaselineError(ValueError):
    """A baseline file that cannot be read; the message names the file."""


def write_baseline(path: Path, findings: Sequence[LocatedFinding]) -> int:
    """Write the baseline of ``findings``; returns how many entries (distinct fingerprints) it holds."""
    counts = Counter(f.fingerprint for f in findings)
    described: dict[str, dict[str, Any]] = {}
    for f in findings:
        described.setdefault(
            f.fingerprint,
            {
                "fingerprint": f.fingerprint,
                "rule": f.finding.rule_id,
                "object": f.object_ref,
                "path": f.stable_path,
                "count": counts[f.fingerprint],
            },
        )
    entries = sorted(described.values(), key=lambda e: (e["object"], e["rule"], e["path"], e["fingerprint"]))
    payload = {"format": FORMAT, "findings": entries}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return len(entries)


def read_baseline(path: Path) -> Counter[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline file not found (create it with --write-baseline)") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a kuberay-lint baseline (expected format {FORMAT!r}); rewrite it")
    counts: Counter[str] = Counter()
    for position, entry in enumerate(data["findings"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise BaselineError(f"{path}: findings[{position}] has no fingerprint")
        count = entry.get("count", 1)
        counts[entry["fingerprint"]] += count if isinstance(count, int) and count > 0 else 1
    return counts


def subtract_baseline(findings: Sequence[LocatedFinding], baseline: Counter[str]) -> tuple[list[LocatedFinding], int]:
    """``(new findings, how many the baseline hid)``; for each fingerprint, findings beyond its count are new."""
    left = Counter(baseline)
    new: list[LocatedFinding] = []
    hidden = 0
    for f in findings:
        if left[f.fingerprint] > 0:
            left[f.fingerprint] -= 1
            hidden += 1
        else:
            new.append(f)
    return new, hidden
