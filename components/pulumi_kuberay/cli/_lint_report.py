"""``kuberay-lint`` output: text grouped per object (colour on a terminal only), JSON, and SARIF 2.1.0 for code
scanning (relative URIs against ``%SRCROOT%``, rule help URIs, ``security-severity`` on security rules)."""

from __future__ import annotations

import os
import shutil
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from pulumi_kuberay.cli import _rule_help
from pulumi_kuberay.cli._lint_findings import LocatedFinding
from pulumi_kuberay.rules import INTERNAL_ERROR_RULE_ID, Rule, Target, render_text, severity_in_force

TOOL_NAME = "kuberay-lint"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
_SARIF_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note"}
_COLOURS = {"critical": "\033[1;31m", "high": "\033[31m", "medium": "\033[33m", "low": "\033[36m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"
#: With --compact, a message longer than this loses what follows its first clause (by default it is shown whole).
SHORT_MESSAGE = 72


@dataclass(frozen=True)
class Summary:
    documents: int
    files: int
    baselined: int = 0
    ignored_by_config: int = 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def first_clause_end(message: str) -> int | None:
    """Where the message's first clause ends: the first ``; `` or ``: `` outside brackets and quotes, after its
    opening words (a ``: `` in the first 24 characters names a thing: ``worker group 'cpu': ...``)."""
    depth, quote = 0, ""
    for i, char in enumerate(message):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`" and (i == 0 or message[i - 1] in " ([{"):  # an opening quote, not an apostrophe
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif depth == 0 and i >= 24 and char in ";:" and message[i + 1 : i + 2] == " ":
            return i
    return None


def _short(message: str) -> str:
    """``--compact``: the message's first clause whole (what is wrong, with the values it names: ``maxReplicas
    is not set (CRD default 2147483647)``), the explanation after it cut; a message of one clause stays whole."""
    if len(message) <= SHORT_MESSAGE:
        return message
    cut = first_clause_end(message)
    return message if cut is None else message[:cut] + " …"


def text_width(out: TextIO) -> int | None:
    """The width the text output wraps to: ``$COLUMNS`` when set, else the terminal's width when ``out`` is a
    terminal (``shutil.get_terminal_size``), else ``None``: no wrapping for a file, a pipe or a CI log, where
    one finding's message stays on one line for grep and an editor wraps it to its own window."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    isatty = getattr(out, "isatty", None)
    if callable(isatty) and isatty():
        return shutil.get_terminal_size().columns
    return None


#: Continuation lines of a wrapped finding (and its ``fix:``) start under the severity.
_INDENT = " " * 9
#: Narrower than this, wrapping helps nobody: a message gets the terminal's width minus the indent, at least this.
_MIN_TEXT = 40


def wrapped(head: str, text: str, width: int | None) -> list[str]:
    """``head + text`` as lines of at most ``width`` columns (continuations indented), words never broken (a
    field path or a rule id stays whole); one line when ``width`` is None."""
    if width is None:
        return [head + text]
    wrapper = textwrap.TextWrapper(
        width=max(width, len(_INDENT) + _MIN_TEXT),
        initial_indent=head,
        subsequent_indent=_INDENT,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return wrapper.wrap(text) or [head]


def format_text(
    findings: Sequence[LocatedFinding],
    summary: Summary,
    out: TextIO,
    *,
    colour: bool,
    show_fixes: bool,
    compact: bool = False,
    width: int | None = None,
) -> None:
    """Findings grouped per file and object. Each finding: line, severity, rule, the CRD field path (as in the
    JSON and SARIF output), the containers it stands for, and the whole message, wrapped to ``width``
    (:func:`text_width`); ``compact``: one line per finding, the message cut at a clause (``--compact``);
    ``show_fixes``: the fix under each finding."""

    def paint(text: str, style: str) -> str:
        return f"{style}{text}{_RESET}" if colour else text

    by_object: dict[tuple[str, str], list[LocatedFinding]] = {}
    for item in findings:
        by_object.setdefault((item.file, item.object_ref + f"@{item.object_line}"), []).append(item)
    current_file = None
    for (file, _), items in by_object.items():
        if file != current_file:
            if current_file is not None:
                out.write("\n")
            out.write(paint(file, _BOLD) + "\n")
            current_file = file
        first = items[0]
        at = f" (line {first.object_line})" if first.object_line else " (rendered from the chart)"
        if first.file == "<cluster>":
            at = " (in the cluster)"
        out.write(f"  {first.object_ref}{paint(at, _DIM)}\n")
        for item in items:
            x = item.finding
            line = f"{item.line:>5}" if item.line else "    -"
            containers = f" [{', '.join(item.containers)}]" if item.containers else ""
            message = _short(x.message) if compact else x.message
            plain_head = f"  {line}  {x.severity:<8} "
            head = f"  {line}  {paint(f'{x.severity:<8}', _COLOURS.get(x.severity, ''))} "
            rows = wrapped(plain_head, f"{x.rule_id}  {x.path}{containers}: {message}", None if compact else width)
            rows[0] = head + rows[0][len(plain_head) :]
            out.write("\n".join(rows) + "\n")
            if show_fixes:
                fix = wrapped(_INDENT + "fix: ", x.fix, width)
                fix[0] = _INDENT + paint("fix:", _BOLD) + fix[0][len(_INDENT) + 4 :]
                out.write("\n".join(fix) + "\n")
    if findings:
        out.write("\n")
    counts = Counter(f.finding.severity for f in findings)
    detail = ", ".join(f"{counts[s]} {s}" for s in ("critical", "high", "medium", "low") if counts[s])
    extra = []
    if summary.baselined:
        extra.append(f"{summary.baselined} in the baseline not shown")
    hint = "" if show_fixes or not findings else "; --show-fixes for the fixes, --explain-rule ID for a rule"
    out.write(
        f"{_plural(len(findings), 'finding')}{f' ({detail})' if detail else ''} in {_plural(summary.documents, 'Ray document')} from {_plural(summary.files, 'file')}{'; ' + '; '.join(extra) if extra else ''}{hint}\n"
    )


def concise_line(item: LocatedFinding) -> str:
    """``path:line:col: severity rule-id field: message``, the whole message on one line (as ruff and kube-linter
    print); a finding without a line in the file (rendered from a chart) is put at 1:1, as ruff puts a file's."""
    x = item.finding
    containers = f" [{', '.join(item.containers)}]" if item.containers else ""
    message = " ".join(x.message.split())
    return f"{item.file}:{item.line or 1}:1: {x.severity} {x.rule_id} {x.path}{containers}: {message}"


def format_concise(findings: Sequence[LocatedFinding], summary: Summary, out: TextIO) -> None:
    """``--format concise``: one line per finding (:func:`concise_line`), then the count."""
    for item in findings:
        out.write(concise_line(item) + "\n")
    hidden = f"; {summary.baselined} in the baseline not shown" if summary.baselined else ""
    out.write(f"{_plural(len(findings), 'finding')} in {_plural(summary.documents, 'Ray document')}{hidden}\n")


#: GitHub's annotation commands: error, warning, notice.
_GITHUB_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "notice"}


def _github_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_property(text: str) -> str:
    return _github_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(item: LocatedFinding) -> str:
    """``::error file=...,line=...,col=...,title=...::message``: a GitHub Actions workflow command that shows the
    finding on the pull request's changed line (critical/high: error, medium: warning, low: notice)."""
    x = item.finding
    where = [f"file={_github_property(item.file)}"]
    if item.line:
        where += [f"line={item.line}", "col=1"]
    where.append(f"title={_github_property(f'{x.severity} {x.rule_id}')}")
    containers = f" [{', '.join(item.containers)}]" if item.containers else ""
    message = f"{item.object_ref}: {x.path}{containers}: {x.message} Fix: {x.fix}"
    return f"::{_GITHUB_LEVEL[x.severity]} {','.join(where)}::{_github_data(message)}"


def format_github(findings: Sequence[LocatedFinding], out: TextIO) -> None:
    """``--format github``: one workflow annotation per finding."""
    for item in findings:
        out.write(github_annotation(item) + "\n")


def to_json(findings: Sequence[LocatedFinding], summary: Summary) -> dict[str, Any]:
    return {
        "findings": [f.to_dict() for f in findings],
        "summary": {"documents": summary.documents, "files": summary.files, "baselined": summary.baselined},
    }


def artifact_location(file: str, base: Path) -> dict[str, str]:
    """A URI relative to ``base`` (with ``uriBaseId``) when the file is under it, else an absolute ``file://`` URI."""
    if file.startswith("<"):
        return {"uri": quote(file.strip("<>"))}
    path = Path(file)
    absolute = path if path.is_absolute() else Path.cwd() / path
    absolute = Path(os.path.normpath(absolute))
    try:
        relative = absolute.relative_to(base)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": SRCROOT}


def _descriptor(rule: Rule, target: Target) -> dict[str, Any]:
    """The rule's SARIF descriptor at its severity in force for ``target`` (the default where it reports
    nothing there), saying the default and why where they differ, and the rule's other severities (``Rule.also``)."""
    in_force = severity_in_force(rule, target)
    severity = in_force.severity or rule.severity
    tags = [rule.category, *rule.operator_rules]
    properties: dict[str, Any] = {"tags": tags, "scope": rule.scope, "severity": severity}
    if in_force.differs:
        properties["defaultSeverity"] = rule.severity
        properties["severityInForce"] = in_force.text()
    if rule.also:  # the other severities its findings take where the object or the target decides, with why
        properties["otherSeverities"] = list(rule.also)
    if rule.category == "security":
        properties["security-severity"] = _rule_help.SECURITY_SEVERITY[severity]
    return {
        "id": rule.id,
        "name": rule.id,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": render_text(rule.fix, "cli")},
        "helpUri": _rule_help.help_uri(rule.id),
        "defaultConfiguration": {"level": _SARIF_LEVEL[severity]},
        "properties": properties,
    }


def _internal_error_descriptor() -> dict[str, Any]:
    return {
        "id": INTERNAL_ERROR_RULE_ID,
        "name": INTERNAL_ERROR_RULE_ID,
        "shortDescription": {"text": "A rule failed on this input (a pulumi-kuberay bug)"},
        "fullDescription": {"text": "A rule's own check raised; the other rules still ran."},
        "help": {"text": "report this as a pulumi-kuberay bug"},
        "helpUri": _rule_help.homepage(),
        "defaultConfiguration": {"level": _SARIF_LEVEL["high"]},
        "properties": {"tags": ["internal"]},
    }


def sarif_rules(*, internal_error: bool = False, target: Target | None = None) -> list[dict[str, Any]]:
    """The driver's rule list: every rule of the catalogue, of every scope, by id (as ruff lists every rule it
    has), at its severity in force for ``target``, then ``internal-error`` when a finding needs it."""
    target = (target or Target()).override(audience="cli")
    ordered = sorted(_rule_help.all_rules(), key=lambda r: r.id)
    descriptors = [_descriptor(rule, target) for rule in ordered]
    return [*descriptors, *([_internal_error_descriptor()] if internal_error else [])]


def to_sarif(
    findings: Sequence[LocatedFinding],
    base: Path,
    *,
    extra_rules: Sequence[dict[str, Any]] = (),
    target: Target | None = None,
) -> dict[str, Any]:
    """SARIF 2.1.0 of the findings; the rule descriptors at their severity in force for ``target`` (the lint's
    settings); ``extra_rules``: descriptors of rules outside the catalogue that findings name (``kuberay-lint
    --diff``: its plan lines)."""
    base = Path(os.path.normpath(base.resolve()))
    internal = any(f.finding.rule_id == INTERNAL_ERROR_RULE_ID for f in findings)
    descriptors = [
        *sarif_rules(internal_error=internal, target=target),
        *extra_rules,
    ]
    index = {descriptor["id"]: i for i, descriptor in enumerate(descriptors)}
    results = []
    for f in findings:
        physical: dict[str, Any] = {"artifactLocation": artifact_location(f.file, base)}
        if f.line:
            physical["region"] = {"startLine": f.line}
        containers = f" (containers: {', '.join(f.containers)})" if len(f.containers) > 1 else ""
        result: dict[str, Any] = {
            "ruleId": f.finding.rule_id,
            "ruleIndex": index[f.finding.rule_id],
            "level": _SARIF_LEVEL[f.finding.severity],
            "message": {
                "text": f"{f.object_ref}: {f.finding.path}{containers}: {f.finding.message} Fix: {f.finding.fix}"
            },
            "locations": [
                {
                    "physicalLocation": physical,
                    "logicalLocations": [{"name": f.name, "fullyQualifiedName": f.object_ref, "kind": "resource"}],
                }
            ],
            "partialFingerprints": {"kuberayLint/v1": f.fingerprint},
            "properties": {"severity": f.finding.severity, "path": f.finding.path},
        }
        if f.containers:
            result["properties"]["containers"] = list(f.containers)
        if f.finding.severity_why:
            result["properties"]["severityWhy"] = f.finding.severity_why
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": _rule_help.version(),
                        "semanticVersion": _rule_help.version(),
                        "informationUri": _rule_help.homepage(),
                        "rules": descriptors,
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri() + "/"}},
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
