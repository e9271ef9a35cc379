"""Every finding the catalogue reports on the upstream samples, as canonical JSON lines (one finding a line).

Used to hold "behaviour unchanged" across a speed change: run it on two trees and diff the outputs::

    PYTHONPATH=components .venv/bin/python tools/sample_findings.py > after.jsonl
    (cd ../before && PYTHONPATH=components ../i25/.venv/bin/python ../i25/tools/sample_findings.py) > before.jsonl
    diff before.jsonl after.jsonl

Each document of each sample is checked under several targets (the default; every gate on in prod with the
webhooks and the organisation options; an older operator in dev), through ``rules.check`` and through the
stack rules; ``--summary`` prints the rule-id / severity / path counts instead of the findings.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
from pathlib import Path
from typing import Any

import yaml

TARGETS: dict[str, dict[str, Any]] = {
    "default": {},
    "prod-all-gates": {
        "environment": "prod",
        "feature_gates": "all",
        "webhooks": True,
        "options": {"allowed_registries": ("docker.io/rayproject", "rayproject"), "gpu_budget": 4},
    },
    "dev-1.5": {"kuberay_version": "1.5.0", "environment": "dev"},
}


def _samples() -> list[Path]:
    root = Path(os.environ.get("KUBERAY_REFERENCE_DIR", "../shared")) / "kuberay" / "v1.7.0" / "samples"
    files = sorted(root.glob("*.yaml"))
    if not files:
        sys.exit(f"sample_findings: no samples under {root}: set KUBERAY_REFERENCE_DIR")
    return files


def findings() -> list[dict[str, Any]]:
    from pulumi_kuberay import rules

    out: list[dict[str, Any]] = []
    files = _samples()
    for target_name, settings in TARGETS.items():
        settings = dict(settings)
        if settings.get("feature_gates") == "all":
            settings["feature_gates"] = {name: True for name in rules.DEFAULT_FEATURE_GATES}
        target = rules.Target.of(**settings)
        for path in files:
            docs = [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
            for index, doc in enumerate(docs):
                for f in rules.check(doc, target):
                    out.append({"target": target_name, "file": path.name, "doc": index, **_finding(f)})
            for item in rules.check_stack(docs, target.context()):
                where = {"target": target_name, "file": path.name, "doc": item.index, "stack": True}
                out.append({**where, **_finding(item.finding)})
    return out


def _finding(f: Any) -> dict[str, Any]:
    return {"rule_id": f.rule_id, "severity": f.severity, "path": f.path, "message": f.message, "fix": f.fix}


def main() -> None:
    parser = argparse.ArgumentParser(prog="tools/sample_findings.py")
    parser.add_argument("--summary", action="store_true", help="rule-id / severity / path counts per target")
    args = parser.parse_args()
    found = findings()
    if not args.summary:
        for item in found:
            print(json.dumps(item, sort_keys=True))
        return
    for target_name in TARGETS:
        mine = [f for f in found if f["target"] == target_name]
        by_rule = collections.Counter(f["rule_id"] for f in mine)
        by_severity = collections.Counter(f["severity"] for f in mine)
        paths = {(f["file"], f["doc"], f["rule_id"], f["path"]) for f in mine}
        print(f"{target_name}: {len(mine)} findings, {len(by_rule)} rule ids, {len(paths)} distinct paths")
        print("  severity: " + ", ".join(f"{s} {by_severity[s]}" for s in ("critical", "high", "medium", "low")))


if __name__ == "__main__":
    main()
