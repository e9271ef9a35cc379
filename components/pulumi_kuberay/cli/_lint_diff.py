"""``kuberay-lint --diff OLD NEW`` and ``--diff-git REV``: the change plan of every Ray object that changed
between two sets of manifests, with the change rules' findings and the catalogue's findings the change brings in
(those the new side of the object has and its old side had not; ``--change-rules-only``: the change rules alone),
for reviews of GitOps pull requests: a change that adds a high finding fails the gate, as a plain lint would.

The objects are paired by (kind, namespace, name) as :func:`pulumi_kuberay.plan.plan_documents` pairs them; a
RayJob's new spec arrives by ``apply`` (an update in place, as kubectl and Argo CD do, not the components'
replace). Exit codes as lint's: 0 no change-rule finding at or above ``--fail-on``, 1 some, 2 unusable input.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from io import BytesIO
from pathlib import Path
from typing import Any, TextIO, cast

from pulumi_kuberay.cli._lint_config import LintConfig, load_config, severity_overrides, split_list
from pulumi_kuberay.cli._lint_findings import LocatedFinding, RayDoc, lint_documents
from pulumi_kuberay.cli._lint_report import concise_line, github_annotation, text_width, to_sarif, wrapped
from pulumi_kuberay.cli.lint import TOOL_NAME
from pulumi_kuberay.plan import Change, Operator, object_key, plan_change
from pulumi_kuberay.rules import SEVERITY_ORDER, Finding, Severity, Target, check_change

__all__ = ["DiffError", "ObjectChange", "diff_documents", "run_diff"]

#: The pseudo rule of the plan lines in SARIF (a note per changed object, beside the change rules' findings).
PLAN_RULE_ID = "change-plan"


class DiffError(ValueError):
    """An input of ``--diff`` / ``--diff-git`` that cannot be compared (exit 2, one line on stderr)."""


@dataclass(frozen=True)
class ObjectChange:
    """One Ray object that differs between the two sides: where it is, its plan, the change rules' findings."""

    old: RayDoc | None
    new: RayDoc | None
    change: Change
    findings: tuple[LocatedFinding, ...]

    @property
    def doc(self) -> RayDoc:
        """The side the object is reported on: the new one, the old one for a delete."""
        doc = self.new or self.old
        assert doc is not None  # a pair has at least one side
        return doc

    @property
    def ref(self) -> str:
        namespace = f"{self.doc.namespace}/" if self.doc.namespace else ""
        return f"{self.change.kind} {namespace}{self.doc.name}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.doc.file,
            "line": self.doc.start_line,
            "namespace": self.doc.namespace,
            **({"oldFile": self.old.file} if self.old is not None and self.new is not None else {}),
            **self.change.to_dict(),
            "findings": [f.to_dict() for f in self.findings],
        }


def _pair(old: Sequence[RayDoc], new: Sequence[RayDoc]) -> Iterator[tuple[RayDoc | None, RayDoc | None]]:
    """Pairs by (kind, namespace, name), in the new side's order, then the objects only the old side has."""
    before = {object_key(d.manifest): d for d in old}
    after = {object_key(d.manifest): d for d in new}
    for key, doc in after.items():
        yield before.get(key), doc
    for key, doc in before.items():
        if key not in after:
            yield doc, None


def new_catalogue_findings(before: RayDoc | None, after: RayDoc, target: Target) -> list[LocatedFinding]:
    """The catalogue's findings of the new side of one object that its old side did not have (same rule, same
    field by its stable path): what the change brings in, as a plain lint of the new files would report it."""
    def keys(doc: RayDoc) -> set[tuple[str, str]]:
        return {(f.finding.rule_id, f.stable_path) for f in lint_documents([doc], target, stack_rules=False)}

    had = keys(before) if before else set()
    found = lint_documents([after], target, stack_rules=False)
    return [f for f in found if (f.finding.rule_id, f.stable_path) not in had]


def diff_documents(
    old: Sequence[RayDoc],
    new: Sequence[RayDoc],
    operator: Operator,
    context: Any,
    *,
    catalogue: Target | None = None,
) -> tuple[list[ObjectChange], int]:
    """The changed objects (plan + change-rule findings located on the new file, and with ``catalogue`` the
    findings of the whole catalogue for that target that the change brings in) and how many were unchanged."""
    changes: list[ObjectChange] = []
    unchanged = 0
    for before, after in _pair(old, new):
        if before is not None and after is not None and before.manifest == after.manifest:
            unchanged += 1
            continue
        change = plan_change(
            before.manifest if before else None, after.manifest if after else None, operator, mode="apply"
        )
        located: tuple[LocatedFinding, ...] = ()
        if after is not None:
            found = check_change(before.manifest if before else None, after.manifest, context, plan=change)
            located = tuple(after.locate(f) for f in found)
            if catalogue is not None:
                located += tuple(new_catalogue_findings(before, after, catalogue))
        changes.append(ObjectChange(before, after, change, located))
    return changes, unchanged


def _git(root: Path, *argv: str, binary: bool = False) -> Any:
    try:
        done = subprocess.run(["git", "-C", str(root), *argv], capture_output=True, check=False)
    except OSError as exc:
        raise DiffError(f"--diff-git needs git on PATH ({exc.strerror or exc})") from None
    if done.returncode != 0:
        problem = done.stderr.decode(errors="replace").strip().splitlines()
        raise DiffError(f"git {' '.join(argv)}: {problem[-1] if problem else f'exit {done.returncode}'}")
    return done.stdout if binary else done.stdout.decode().strip()


@contextmanager
def _revision_tree(rev: str, paths: Sequence[str]) -> Iterator[tuple[list[str], str]]:
    """The files of ``paths`` at git revision ``rev``, written to a temporary folder: (the paths there, that folder).
    A path the revision does not have is left out (its objects are all creates)."""
    top = Path(_git(Path.cwd(), "rev-parse", "--show-toplevel"))
    commit = _git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    relative = []
    for raw in paths:
        absolute = Path(os.path.normpath(Path.cwd() / raw))
        try:
            relative.append(absolute.relative_to(top).as_posix() or ".")
        except ValueError:
            raise DiffError(f"--diff-git: {raw} is outside the git working tree {top}") from None
    listed = _git(top, "ls-tree", "-r", "--name-only", "-z", commit, "--", *relative)
    folder = tempfile.mkdtemp(prefix="kuberay-lint-diff-")
    try:
        if listed:
            archive = _git(top, "archive", "--format=tar", commit, "--", *(p for p in listed.split("\0") if p), binary=True)
            with tarfile.open(fileobj=BytesIO(archive)) as tar:
                tar.extractall(folder, filter="data")
        present = [str(Path(folder) / rel) for rel in relative if (Path(folder) / rel).exists() or rel == "."]
        Path(folder).mkdir(exist_ok=True)
        yield present, folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _renamed(docs: Sequence[RayDoc], folder: str, label: str) -> list[RayDoc]:
    """Files read from the revision's temporary folder named as ``REV:path`` (relative to the working directory)."""
    out = []
    for doc in docs:
        try:
            rel = Path(doc.file).relative_to(folder)
        except ValueError:
            out.append(doc)
            continue
        out.append(replace(doc, file=f"{label}:{rel.as_posix()}"))
    return out


def _kept(
    findings: Sequence[LocatedFinding], ignored: set[str], overrides: Mapping[str, str]
) -> tuple[LocatedFinding, ...]:
    out = []
    for item in findings:
        if item.finding.rule_id in ignored:
            continue
        level = overrides.get(item.finding.rule_id)
        if level is not None and level != item.finding.severity:
            item = replace(item, finding=replace(item.finding, severity=cast(Severity, level)))
        out.append(item)
    return tuple(out)


def _descriptors() -> list[dict[str, Any]]:
    """The plan lines' pseudo rule (the change rules are in the catalogue: every SARIF run lists them)."""
    from pulumi_kuberay.cli import _rule_help

    return [
        {
            "id": PLAN_RULE_ID,
            "name": PLAN_RULE_ID,
            "shortDescription": {"text": "What KubeRay will do with this change (the change plan)"},
            "fullDescription": {"text": "The action the operator takes on the changed object, and why."},
            "help": {"text": "informational: read the plan before merging"},
            "helpUri": _rule_help.homepage(),
            "defaultConfiguration": {"level": "note"},
            "properties": {"tags": ["change"]},
        }
    ]


def _sarif(changes: Sequence[ObjectChange], base: Path, target: Target) -> dict[str, Any]:
    findings = [f for c in changes for f in c.findings]
    plans = [
        LocatedFinding(
            c.doc.file,
            c.doc.start_line,
            c.change.kind,
            c.doc.name,
            c.doc.namespace,
            Finding(PLAN_RULE_ID, "low", c.change.line(), "spec", ""),
            "spec",
            object_line=c.doc.start_line,
        )
        for c in changes
    ]
    report = to_sarif([*plans, *findings], base, extra_rules=_descriptors(), target=target)
    for result in report["runs"][0]["results"]:
        if result["ruleId"] == PLAN_RULE_ID:
            result["message"]["text"] = result["message"]["text"].split(": spec: ", 1)[-1].removesuffix(" Fix: ")
            result["properties"] = {"path": "spec"}
    return report


def _text(
    changes: Sequence[ObjectChange],
    unchanged: int,
    out: TextIO,
    *,
    show_fixes: bool,
    compact: bool,
    catalogue: bool = True,
) -> None:
    width = None if compact else text_width(out)
    for item in changes:
        at = f"{item.doc.file}:{item.doc.start_line}" if item.doc.start_line else item.doc.file
        out.write(f"{at}: {item.ref}: {item.change.action}\n")
        out.write("\n".join(wrapped("    ", item.change.why, width)) + "\n")
        for label, values in (("changed", item.change.changed), ("note", item.change.notes)):
            for value in values:
                out.write("\n".join(wrapped(f"    {label}: ", value, width)) + "\n")
        if item.change.extra is not None:
            out.write("\n".join(wrapped("    extra while both clusters run: ", item.change.extra.text(), width)) + "\n")
        for step in item.change.steps:
            out.write(f"    step: {step}\n")
        for found in item.findings:
            x = found.finding
            line = f"{found.line}" if found.line else "-"
            head = f"  {x.severity:<8} "
            out.write("\n".join(wrapped(head, f"{x.rule_id}  {x.path} (line {line}): {x.message}", width)) + "\n")
            if show_fixes:
                out.write("\n".join(wrapped("      fix: ", x.fix, width)) + "\n")
        out.write("\n")
    actions: dict[str, int] = {}
    for item in changes:
        actions[item.change.action] = actions.get(item.change.action, 0) + 1
    detail = ", ".join(f"{n} {action}" for action, n in actions.items())
    count = sum(len(c.findings) for c in changes)
    plural = "" if len(changes) == 1 else "s"
    rules = "of the change rules and new by the catalogue" if catalogue else "of the change rules"
    out.write(
        f"{len(changes)} changed Ray object{plural}{f' ({detail})' if detail else ''}, {unchanged} unchanged; {count} finding{'' if count == 1 else 's'} {rules}\n"
    )


def _sides(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    if args.paths:
        raise DiffError(f"--diff compares its own two paths: drop the other PATH arguments ({' '.join(args.paths)})")
    old, new = args.diff
    for side in (old, new):
        if side == "-":
            raise DiffError("--diff reads files or folders, not stdin: write the manifests to a file first")
        if not Path(side).exists():
            raise DiffError(f"--diff: {side}: no such file or folder")
    return [old], [new]


def run_diff(args: argparse.Namespace) -> int:
    """``--diff OLD NEW`` / ``--diff-git REV [PATH...]``: print the plans; the exit status as lint's."""
    from pulumi_kuberay.cli import _lint_run

    if args.write_baseline or args.baseline:
        print(f"{TOOL_NAME}: --diff does not take a baseline (it reports only what the change does)", file=sys.stderr)
        return 2
    config = LintConfig() if args.no_config else load_config(Path(args.config) if args.config else None)
    target = _lint_run.target_of(args, config)
    helm_values = [Path(v) for v in args.helm_values] or list(config.helm_values)
    try:
        with _old_and_new(args) as (old_paths, new_paths, folder, label):
            old_inputs = _lint_run.read_inputs(
                argparse.Namespace(**{**vars(args), "paths": old_paths}), config, helm_values
            )
            new_inputs = _lint_run.read_inputs(
                argparse.Namespace(**{**vars(args), "paths": new_paths}), config, helm_values
            )
            old_docs = _renamed(old_inputs.docs, folder, label) if folder else old_inputs.docs
    except DiffError as exc:
        print(f"{TOOL_NAME}: {exc}", file=sys.stderr)
        return 2
    # A folder the revision does not have yet reads as empty there: its objects are all creates, not a problem.
    old_problems = [p for p in old_inputs.problems if not (folder and "no YAML/JSON files" in p)]
    problems = [*old_problems, *new_inputs.problems]
    for problem in problems:
        print(f"{TOOL_NAME}: {problem}", file=sys.stderr)
    try:
        target, _setup = _lint_run.operator_target_of(target, args, new_inputs)
    except (ValueError, OSError) as exc:
        print(f"{TOOL_NAME}: {exc}", file=sys.stderr)
        return 2
    operator = Operator(version=target.version, feature_gates=dict(target.feature_gates))
    catalogue = None if args.change_rules_only else target
    changes, unchanged = diff_documents(old_docs, new_inputs.docs, operator, target.context(), catalogue=catalogue)
    ignored = set(config.ignore) | set(split_list(args.ignore) if args.ignore else [])
    overrides = severity_overrides(config.severity)
    changes = [replace(c, findings=_kept(c.findings, ignored, overrides)) for c in changes]
    if args.format == "json":
        report = {
            "changes": [c.to_dict() for c in changes],
            "summary": {"changed": len(changes), "unchanged": unchanged},
        }
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.format == "concise":
        for change in changes:
            where = f"{change.doc.file}:{change.doc.start_line or 1}:1"
            sys.stdout.write(f"{where}: plan {change.ref}: {change.change.line()}\n")
            sys.stdout.writelines(concise_line(f) + "\n" for f in change.findings)
    elif args.format == "github":
        sys.stdout.writelines(github_annotation(f) + "\n" for c in changes for f in c.findings)
    elif args.format == "sarif":
        base = Path(args.sarif_root) if args.sarif_root else config.root
        json.dump(_sarif(changes, base, target), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        catalogue_too = not args.change_rules_only
        _text(changes, unchanged, sys.stdout, show_fixes=args.show_fixes, compact=args.compact, catalogue=catalogue_too)
    if problems:
        return 2
    threshold = SEVERITY_ORDER[args.fail_on or config.fail_on or "high"]
    return 1 if any(SEVERITY_ORDER[f.finding.severity] >= threshold for c in changes for f in c.findings) else 0


@contextmanager
def _old_and_new(args: argparse.Namespace) -> Iterator[tuple[list[str], list[str], str, str]]:
    """(old paths, new paths, the temporary folder of a git revision or '', the label of its files)."""
    if args.diff:
        old, new = _sides(args)
        yield old, new, "", ""
        return
    paths = list(args.paths) or ["."]
    if "-" in paths:
        raise DiffError("--diff-git compares files of the working tree: stdin ('-') has no revision")
    with _revision_tree(args.diff_git, paths) as (present, folder):
        yield present, paths, folder, args.diff_git
