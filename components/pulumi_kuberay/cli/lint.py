"""``kuberay-lint``: the rule catalogue over YAML files, as text, JSON or SARIF. Never imports pulumi.

Usage::

    kuberay-lint manifests/ rendered/ --fail-on high --environment prod
    kuberay-lint job.yaml --format sarif > kuberay.sarif
    kubectl get rayjobs -o yaml | kuberay-lint -

Exit codes: 0 no finding at or above ``--fail-on``; 1 some; 2 unreadable input (one line per problem on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pulumi_kuberay import rules
from pulumi_kuberay.cli import _io
from pulumi_kuberay.cli._yamlpos import line_for
from pulumi_kuberay.rules._engine import KINDS, SEVERITY_ORDER, Finding
from pulumi_kuberay.rules.stack import check_stack
from pulumi_kuberay.target import Target, TargetError

TOOL_NAME = "kuberay-lint"
_SARIF_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note"}


@dataclass(frozen=True)
class LocatedFinding:
    file: str
    line: int
    kind: str
    name: str
    finding: Finding

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "kind": self.kind,
            "name": self.name,
            **self.finding.to_dict(),
        }


@dataclass(frozen=True)
class _RayDoc:
    file: str
    lines: dict[str, int]  # field path -> line, relative to the document (or List item)
    start_line: int
    manifest: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.manifest.get("kind", ""))

    @property
    def name(self) -> str:
        meta = self.manifest.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        return name if isinstance(name, str) else ""

    def locate(self, finding: Finding) -> LocatedFinding:
        line = line_for(self.lines, finding.path, self.start_line)
        return LocatedFinding(self.file, line, self.kind, self.name, finding)


def _ray_documents(source: _io.Source) -> Iterator[_RayDoc]:
    for document in source.documents:
        data = document.data
        if (
            isinstance(data, dict)
            and isinstance(data.get("apiVersion"), str)
            and data["apiVersion"].startswith("ray.io/")
            and data.get("kind") in KINDS
        ):
            yield _RayDoc(source.name, document.path_lines, document.line, data)


def lint_documents(
    docs: Sequence[_RayDoc], target: Target, *, stack_rules: bool = True
) -> list[LocatedFinding]:
    target = target.override(audience="cli")  # plain YAML: gate hints as flags, no Pulumi-only rules
    ctx = target.context()
    out: list[LocatedFinding] = []
    for doc in docs:
        for finding in rules.check(doc.manifest, target):
            out.append(doc.locate(finding))
    if stack_rules:
        for item in check_stack([d.manifest for d in docs], ctx):
            out.append(docs[item.index].locate(item.finding))
    return out


def _format_text(findings: Sequence[LocatedFinding], documents: int, files: int, out: TextIO) -> None:
    for f in findings:
        x = f.finding
        where = f"{f.kind} {f.name}".strip()
        out.write(
            f"{f.file}:{f.line}: {x.severity} [{x.rule_id}] {where}: {x.path}: {x.message} (fix: {x.fix})\n"
        )
    counts = Counter(f.finding.severity for f in findings)
    detail = ", ".join(f"{counts[s]} {s}" for s in ("critical", "high", "medium", "low") if counts[s])
    out.write(
        f"{len(findings)} finding{'s' if len(findings) != 1 else ''}"
        f"{f' ({detail})' if detail else ''} in {documents} Ray document{'s' if documents != 1 else ''}"
        f" from {files} file{'s' if files != 1 else ''}\n"
    )


def _sarif(findings: Sequence[LocatedFinding]) -> dict[str, Any]:
    used = sorted({f.finding.rule_id for f in findings})
    by_id = rules.RULES
    descriptors = []
    for rule_id in used:
        rule = by_id.get(rule_id)
        descriptors.append(
            {
                "id": rule_id,
                "name": rule_id,
                "shortDescription": {"text": rule.title if rule else rule_id},
                "fullDescription": {"text": rule.rationale if rule else rule_id},
                "help": {"text": rule.fix if rule else ""},
                "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity] if rule else "warning"},
                "properties": {"tags": [rule.category, *rule.operator_rules] if rule else []},
            }
        )
    results = [
        {
            "ruleId": f.finding.rule_id,
            "level": _SARIF_LEVEL[f.finding.severity],
            "message": {"text": f"{f.finding.path}: {f.finding.message} (fix: {f.finding.fix})"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.file},
                        "region": {"startLine": f.line},
                    },
                    "logicalLocations": [{"name": f"{f.kind}/{f.name}", "kind": "resource"}],
                }
            ],
            "properties": {"severity": f.finding.severity, "path": f.finding.path},
        }
        for f in findings
    ]
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": TOOL_NAME, "rules": descriptors}}, "results": results}],
    }


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=TOOL_NAME, description="Check KubeRay manifests against the pulumi-kuberay rules."
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="YAML/JSON files or folders; '-' reads stdin")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument(
        "--fail-on", choices=tuple(SEVERITY_ORDER), default="high", help="exit 1 at or above (default high)"
    )
    p.add_argument("--kuberay-version", default=None, help="target operator version (default 1.7.0)")
    p.add_argument(
        "--feature-gates", default=None, metavar="A=true,B=false", help="operator gates over the defaults"
    )
    p.add_argument("--environment", choices=("dev", "staging", "prod"), default=None)
    p.add_argument(
        "--allowed-registries", default=None, metavar="R1,R2", help="image registry prefixes allowed"
    )
    p.add_argument(
        "--gpu-budget", type=int, default=None, help="GPUs all given clusters may claim at maxReplicas"
    )
    p.add_argument(
        "--no-stack-rules",
        action="store_true",
        help="skip rules across documents (clusterSelector, GPU budget)",
    )
    return p


def _expand(paths: Sequence[str]) -> Iterator[str]:
    for raw in paths:
        path = Path(raw)
        if raw != "-" and path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and child.suffix.lower() in (".yaml", ".yml", ".json"):
                    yield str(child)
        else:
            yield raw


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        options: dict[str, Any] = {}
        if args.allowed_registries:
            options["allowed_registries"] = [
                r.strip() for r in args.allowed_registries.split(",") if r.strip()
            ]
        if args.gpu_budget is not None:
            options["gpu_budget"] = args.gpu_budget
        target = Target().override(
            kuberay_version=args.kuberay_version,
            feature_gates=args.feature_gates,
            environment=args.environment,
            options=options or None,
        )
    except TargetError as exc:
        print(f"{TOOL_NAME}: {exc}", file=sys.stderr)
        return 2
    unreadable = 0
    docs: list[_RayDoc] = []
    files = 0
    for name in _expand(args.paths):
        try:
            source = _io.read_source(name, flatten_lists=True, with_path_lines=True)
        except _io.InputError as exc:
            print(f"{TOOL_NAME}: {exc}", file=sys.stderr)
            unreadable += 1
            continue
        files += 1
        docs.extend(_ray_documents(source))
    findings = sorted(
        lint_documents(docs, target, stack_rules=not args.no_stack_rules),
        key=lambda f: (f.file, f.line, -SEVERITY_ORDER[f.finding.severity], f.finding.rule_id),
    )
    if args.format == "json":
        json.dump({"findings": [f.to_dict() for f in findings]}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.format == "sarif":
        json.dump(_sarif(findings), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _format_text(findings, len(docs), files, sys.stdout)
    if unreadable:
        return 2
    threshold = SEVERITY_ORDER[args.fail_on]
    return 1 if any(SEVERITY_ORDER[f.finding.severity] >= threshold for f in findings) else 0


if __name__ == "__main__":
    raise SystemExit(main())
