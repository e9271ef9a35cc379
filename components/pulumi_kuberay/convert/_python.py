"""Writing the converted objects as a Python module of pulumi-kuberay components (``--to python``).

The module declares one component per Ray object, its typed spec built by :mod:`._typed`/:mod:`._shortcuts`,
with the catalogue's findings and the converter's notes as comments above it. It is formatted with
``ruff format`` when ruff is installed (the text is already laid out close to ruff's style otherwise).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from pulumi_kuberay.rules import Finding

from ._objects import RayObject
from ._tree import PACKAGE_ALIAS, Imports, render

COMMENT_WIDTH = 116


def _comment(text: str, first: str = "# ", rest: str = "#   ", width: int = COMMENT_WIDTH) -> list[str]:
    flat = " ".join(text.split())
    return textwrap.wrap(
        flat, width=width, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
    ) or [first.rstrip()]


def object_comments(obj: RayObject, width: int = COMMENT_WIDTH) -> list[str]:
    """The comment block above an object: where it came from, gates it needs, findings, conversion notes."""
    lines = _comment(f"{obj.subject} (from {obj.where})", width=width)
    for gate in obj.feature_gates:
        lines += _comment(
            f"needs the operator feature gate {gate}: run KubeRay with --feature-gates={gate}=true (Helm: featureGates) -- feature_gates= below only tells the checks",
            width=width,
        )
    if obj.findings:
        lines.append("# Findings of the rule catalogue (kuberay-lint), the to-do list of this migration:")
        for (severity, rule_id, message, fix), paths in _grouped(obj.findings).items():
            where = paths[0] if len(paths) == 1 else "; ".join(paths)
            lines += _comment(f"{severity} [{rule_id}] {message} (fix: {fix}) at {where}", "# - ", width=width)
        if any(f.severity == "critical" for f in obj.findings):
            lines.append("# CRITICAL findings make the component refuse this object at preview until fixed.")
    for note in obj.notes:
        lines += _comment(f"converted: {note}", "# ", width=width)
    return lines


def _grouped(findings: Sequence[Finding]) -> dict[tuple[str, str, str, str], list[str]]:
    """One entry per rule and message, listing every path it was found at (in the catalogue's order)."""
    out: dict[tuple[str, str, str, str], list[str]] = {}
    for f in findings:
        out.setdefault((f.severity, f.rule_id, f.message, f.fix), []).append(f.path or "(the object)")
    return out


def _declaration(obj: RayObject, imports: Imports) -> list[str]:
    args = [repr(obj.resource_name), render(obj.spec_node, imports, 4)]
    if obj.cluster is not None:
        args.append(f"cluster={obj.cluster.variable}")
    if obj.resource_name != obj.name:
        args.append(f"object_name={obj.name!r}")
    for key, value in (("namespace", obj.namespace), ("labels", obj.labels), ("annotations", obj.annotations)):
        if value:
            args.append(f"{key}={_literal(value)}")
    if obj.feature_gates:
        args.append(f"feature_gates={_literal(obj.feature_gates)}")
    body = "".join(f"    {arg},\n" for arg in args)
    return [f"{obj.variable} = {PACKAGE_ALIAS}.{obj.kind}(\n{body})"]


def _literal(value: object) -> str:
    from ._tree import Lit

    return render(Lit(value), None, 4)


def _order(objects: Sequence[RayObject]) -> list[RayObject]:
    """Input order, except that a RayCluster comes before the RayJobs that reference it."""
    out: list[RayObject] = []
    for obj in objects:
        if obj.cluster is not None and obj.cluster not in out:
            out.append(obj.cluster)
        if obj not in out:
            out.append(obj)
    return out


def python_module(objects: Sequence[RayObject], sources: Sequence[str]) -> str:
    """The module text (formatted with ruff when available)."""
    imports = Imports()
    blocks: list[str] = []
    for obj in _order(objects):
        blocks.append("\n".join(object_comments(obj) + _declaration(obj, imports)))
    origin = ", ".join(sources) or "<stdin>"
    # A long path breaks at "/" too: the docstring's lines stay within the line length.
    title = textwrap.wrap(
        f"Ray objects converted by kuberay-convert from {origin}.".replace('"', "'").replace("/", "/ "),
        width=COMMENT_WIDTH,
        break_on_hyphens=False,
    )
    header = [
        '"""' + "\n".join(line.replace("/ ", "/") for line in title),
        "",
        "Each object is a pulumi-kuberay component with typed args; the rule catalogue's findings are listed above",
        "the object they concern. Check with `pulumi preview`: it validates every spec and runs the same rules.",
        '"""',
        "",
        *imports.lines(),
    ]
    text = "\n".join(header) + "\n\n" + "\n\n".join(blocks) + "\n"
    return ruff_format(text)


def _ruff() -> str | None:
    beside = Path(sys.executable).with_name("ruff")
    return str(beside) if beside.exists() else shutil.which("ruff")


def ruff_format(text: str) -> str:
    """``ruff format`` the module (line length 120); the text unchanged when ruff is not installed."""
    ruff = _ruff()
    if ruff is None:
        return text
    steps = (
        ["check", "--isolated", "--select", "I", "--fix-only", "--exit-zero"],  # import order as ruff wants it
        ["format", "--isolated"],
    )
    for step in steps:
        try:
            done = subprocess.run(
                [ruff, *step, "--line-length", "120", "--stdin-filename", "converted.py", "-"],
                input=text,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return text
        if done.returncode != 0 or not done.stdout:
            return text
        text = done.stdout
    return text


__all__ = ["object_comments", "python_module", "ruff_format"]

