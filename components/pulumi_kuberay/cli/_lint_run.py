"""What ``kuberay-lint`` does once its flags are parsed: read the inputs, run the catalogue, report.

:mod:`pulumi_kuberay.cli.lint` parses the command line with the standard library alone and imports this module
only when there is something to lint, list or explain, so ``--help`` and ``--version`` load no model and no rule.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from pulumi_kuberay import rules
from pulumi_kuberay.cli import _helm, _io, _lint_cluster, _rule_help
from pulumi_kuberay.cli._lint_baseline import BaselineError, read_baseline, subtract_baseline, write_baseline
from pulumi_kuberay.cli._lint_cluster import LIVE_STATUS_RULE_ID
from pulumi_kuberay.cli._lint_config import (
    CONFIG_FILES,
    ConfigError,
    LintConfig,
    expand_selectors,
    is_excluded,
    load_config,
    severity_overrides,
    split_list,
)
from pulumi_kuberay.cli._lint_findings import (
    LocatedFinding,
    RayDoc,
    collapse_containers,
    lint_documents,
    ray_documents,
)
from pulumi_kuberay.cli._lint_report import (
    Summary,
    format_concise,
    format_github,
    format_text,
    text_width,
    to_json,
    to_sarif,
)
from pulumi_kuberay.cli.lint import DEFAULT_BASELINE, TOOL_NAME
from pulumi_kuberay.operator.crds import crd_version_label
from pulumi_kuberay.operator.derive import (
    TargetConflictError,
    is_operator_deployment,
    load_values_file,
    looks_like_operator_values,
    merge_target,
    setup_for_lint,
    setup_from_deployment,
    target_for_operator,
)
from pulumi_kuberay.rules import SEVERITY_ORDER, OrgOptions, Severity, kebab
from pulumi_kuberay.rules.target import Target, TargetError, parse_feature_gates

__all__ = ["LocatedFinding", "RayDoc", "info_command", "lint_documents", "run", "run_or_explain"]
_SUFFIXES = (".yaml", ".yml", ".json")



@dataclass
class _Inputs:
    docs: list[RayDoc] = field(default_factory=list)
    files: int = 0
    problems: list[str] = field(default_factory=list)
    values_docs: list[tuple[str, Any]] = field(default_factory=list)
    """kuberay-operator chart values among the inputs (file name, values)."""
    deployments: list[tuple[str, int, Any]] = field(default_factory=list)
    """KubeRay operator Deployments among the inputs (file name, line, manifest), e.g. a rendered chart."""
    crd_versions: set[str] = field(default_factory=set)
    """The KubeRay versions our CRDs among the inputs are labelled with (``pulumi-kuberay.io/kuberay-version``)."""
    all_documents: list[Any] = field(default_factory=list)
    """Every document of the inputs (``--cluster``: a Secret the files create is not a missing reference)."""


def target_of(args: argparse.Namespace, config: LintConfig) -> Target:
    given = {kebab(dest): value for dest, value in vars(args).items()}  # --gpu-budget ... as the user wrote them
    flags = OrgOptions.parse(given, spell=kebab, where="--", text_lists=True)
    options = flags.over(config.options)
    return (
        Target()
        .override(
            kuberay_version=config.kuberay_version,
            feature_gates=dict(config.feature_gates) if config.feature_gates else None,
            environment=config.environment,
        )
        .override(
            kuberay_version=args.kuberay_version,
            feature_gates=args.feature_gates,
            environment=args.environment,
            options=options,
            webhooks=True if args.webhooks else None,
        )
    )


def not_inputs(args: argparse.Namespace, config: LintConfig) -> set[Path]:
    """Files never read as inputs: the baseline (given, configured or the default name) and lint's own config."""
    named = [args.baseline, config.baseline, DEFAULT_BASELINE, args.config, config.source]
    return {Path(os.path.abspath(p)) for p in named if p}


def _skipped(path: Path, skip: set[Path]) -> bool:
    return Path(os.path.abspath(path)) in skip or path.name in (DEFAULT_BASELINE, *CONFIG_FILES)


def _walk(directory: Path, excludes: Sequence[str], root: Path, skip: set[Path]) -> Iterator[tuple[str, Path]]:
    """``("chart", dir)`` for chart folders (not entered), ``("file", path)`` for YAML/JSON files, sorted; never
    the files of ``skip`` (the baseline, the config: :func:`not_inputs`)."""
    for current, subdirs, files in os.walk(directory):
        here = Path(current)
        if here != directory and is_excluded(here, excludes, root):
            subdirs[:] = []
            continue
        if _helm.is_chart(here):
            subdirs[:] = []
            yield "chart", here
            continue
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(files):
            path = here / name
            if path.suffix.lower() in _SUFFIXES and not is_excluded(path, excludes, root) and not _skipped(path, skip):
                yield "file", path


# C901: one branch per kind of input: stdin, chart, folder, file
def read_inputs(args: argparse.Namespace, config: LintConfig, helm_values: list[Path]) -> _Inputs:  # noqa: C901
    inputs = _Inputs()
    excludes = [*config.exclude, *args.exclude]
    root = config.root
    charts_seen = 0
    helm_binary: str | None = None
    skip = not_inputs(args, config)

    def add_chart(chart: Path) -> None:
        nonlocal charts_seen, helm_binary
        charts_seen += 1
        if helm_binary is None:
            helm_binary = _helm.find_helm(args.helm_binary)
        for source in _helm.chart_sources(helm_binary, chart, helm_values, args.helm_namespace):
            inputs.files += 1
            inputs.docs.extend(ray_documents(source, rendered=True))
            inputs.all_documents.extend(d.data for d in source.documents)

    def add_file(name: str, explicit: bool) -> None:
        try:
            source = _io.read_source(name, flatten_lists=True, with_path_lines=True)
        except _io.InputError as exc:
            inputs.problems.append(str(exc))
            return
        if explicit and not source.documents:
            where = "<stdin>" if name == "-" else name
            inputs.problems.append(f"{where}: no documents in the input (did the command that produced it fail?)")
            return
        inputs.files += 1
        inputs.docs.extend(ray_documents(source))
        inputs.all_documents.extend(d.data for d in source.documents)
        inputs.values_docs.extend(
            (source.name, d.data) for d in source.documents if looks_like_operator_values(d.data)
        )
        inputs.deployments.extend(
            (source.name, d.line, d.data) for d in source.documents if is_operator_deployment(d.data)
        )
        inputs.crd_versions.update(filter(None, (crd_version_label(d.data) for d in source.documents)))

    for raw in args.paths:
        path = Path(raw)
        try:
            if raw == "-":
                add_file(raw, explicit=True)
            elif _helm.is_chart(path):
                add_chart(path)
            elif path.is_dir():
                found = 0
                for what, child in _walk(path, excludes, root, skip):
                    found += 1
                    if what == "chart":
                        add_chart(child)
                    else:
                        add_file(str(child), explicit=False)
                if not found:
                    inputs.problems.append(f"{raw}: no YAML/JSON files or Helm charts under this folder")
            elif not is_excluded(path, excludes, root) and not _skipped(path, skip):
                add_file(raw, explicit=True)
        except _helm.HelmError as exc:
            inputs.problems.append(str(exc))
    if helm_values and not charts_seen:
        inputs.problems.append("--helm-values given, but no Helm chart folder (with Chart.yaml) among the paths")
    return inputs


def operator_target_of(
    target: Target, args: argparse.Namespace, inputs: _Inputs
) -> tuple[Target, list[LocatedFinding]]:
    """The operator the objects run on, from ``--operator-values FILE``, else a chart values file among the
    inputs, else the one KubeRay operator Deployment among them (a rendered chart, as the policy pack reads it):
    the target from that operator (flags that disagree are an error naming both) and its setup findings,
    located on that file. No operator (or several Deployments: which one runs which object is not known): the
    target from the flags."""
    values_docs = (
        [(args.operator_values, load_values_file(args.operator_values))] if args.operator_values else inputs.values_docs
    )
    if len(values_docs) > 1:
        raise ValueError(f"several operator values files ({', '.join(n for n, _ in values_docs)}): give one")
    if values_docs:
        name, values = values_docs[0]
        line, kind, object_name = 1, "KubeRayOperator", "values"
        setup = setup_for_lint(values, source=f"the operator of {name}", version=args.kuberay_version)
    elif len(inputs.deployments) == 1:
        name, line, manifest = inputs.deployments[0]
        kind, object_name = "Deployment", str((manifest.get("metadata") or {}).get("name", ""))
        crd_version = next(iter(inputs.crd_versions)) if len(inputs.crd_versions) == 1 else None
        setup = setup_from_deployment(manifest, crd_version=crd_version)
    else:
        return target, []
    gates = parse_feature_gates(args.feature_gates) if args.feature_gates else None
    try:
        merge_target(setup, config_version=args.kuberay_version, config_gates=gates)
    except TargetConflictError as exc:
        message = str(exc).replace("kuberay:version", "--kuberay-version")
        raise ValueError(message.replace("kuberay:featureGates", "--feature-gates")) from None
    located = [
        LocatedFinding(name, line, kind, object_name, "", finding, finding.path, object_line=line)
        for finding in rules.check_setup(setup, target.context())
    ]
    return target_for_operator(target, setup), located


def _selected(args: argparse.Namespace, config: LintConfig) -> set[str]:
    select = split_list(args.select) if args.select else config.select
    chosen = expand_selectors(select, "--select" if args.select else "select") if select else None
    ignored = expand_selectors([*config.ignore, *(split_list(args.ignore) if args.ignore else [])], "--ignore")
    universe = chosen if chosen is not None else set(rules.RULES) | {LIVE_STATUS_RULE_ID}
    return (universe | {rules.INTERNAL_ERROR_RULE_ID}) - ignored


def _apply_settings(
    findings: list[LocatedFinding], selected: set[str], overrides: dict[str, str]
) -> list[LocatedFinding]:
    out = []
    for item in findings:
        if item.finding.rule_id not in selected:
            continue
        level = overrides.get(item.finding.rule_id)
        if level is not None and level != item.finding.severity:
            item = replace(item, finding=replace(item.finding, severity=cast(Severity, level)))
        out.append(item)
    return out


def _sort_key(f: LocatedFinding) -> tuple[Any, ...]:
    return (
        f.file,
        f.object_line or 0,
        f.line or 0,
        -SEVERITY_ORDER[f.finding.severity],
        f.finding.rule_id,
        f.finding.path,
    )


def info_command(args: argparse.Namespace) -> int | None:
    """``--list-rules`` / ``--explain-rule``: print and return the exit status (None: neither was asked)."""
    if not (args.list_rules or args.explain_rule):
        return None
    config = LintConfig() if args.no_config else load_config(Path(args.config) if args.config else None)
    target = target_of(args, config)  # the severities in force for the settings a lint would use
    if args.list_rules:
        sys.stdout.write(_rule_help.list_rules(target))
        return 0
    if args.explain_rule:
        try:
            sys.stdout.write(_rule_help.explain_rule(args.explain_rule, target))
        except KeyError:
            print(f"{TOOL_NAME}: no rule {args.explain_rule!r} (see {TOOL_NAME} --list-rules)", file=sys.stderr)
            return 2
        return 0
    return None


def _report(
    args: argparse.Namespace, config: LintConfig, target: Target, shown: list[LocatedFinding], summary: Summary
) -> None:
    """The findings on stdout in the ``--format`` asked for."""
    if args.format == "json":
        json.dump(to_json(shown, summary), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.format == "concise":
        format_concise(shown, summary, sys.stdout)
    elif args.format == "github":
        format_github(shown, sys.stdout)
    elif args.format == "sarif":
        sarif_root = Path(args.sarif_root) if args.sarif_root else config.root
        extra = _lint_cluster.descriptors() if args.live else ()
        json.dump(to_sarif(shown, sarif_root, extra_rules=extra, target=target), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        colour = args.color == "always" or (
            args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        )
        format_text(
            shown,
            summary,
            sys.stdout,
            colour=colour,
            show_fixes=args.show_fixes,
            compact=args.compact,
            width=text_width(sys.stdout),
        )


def run(args: argparse.Namespace) -> int:
    config = LintConfig() if args.no_config else load_config(Path(args.config) if args.config else None)
    target = target_of(args, config)
    selected = _selected(args, config)
    overrides = severity_overrides(config.severity)
    helm_values = [Path(v) for v in args.helm_values] or list(config.helm_values)
    cluster_findings: list[LocatedFinding] = []
    if args.live:  # the Ray objects of the cluster instead of files (--live)
        inputs = _Inputs()
        inputs.docs, cluster_findings, unreadable = _lint_cluster.live_documents(args)
        inputs.files = 1 if unreadable is None else 0
        if unreadable is not None:
            inputs.problems.append(f"--live: the cluster cannot be read: {unreadable}")
    else:
        inputs = read_inputs(args, config, helm_values)
    for problem in inputs.problems:
        print(f"{TOOL_NAME}: {problem}", file=sys.stderr)
    try:
        target, setup_findings = operator_target_of(target, args, inputs)
    except (ValueError, OSError) as exc:
        print(f"{TOOL_NAME}: {exc}", file=sys.stderr)
        return 2
    if (args.cluster or args.live) and inputs.docs:  # the preflight against the cluster
        found, line = _lint_cluster.preflight_findings(
            args, inputs.docs, inputs.all_documents, target, created=not args.live
        )
        cluster_findings += found
        if line:
            print(f"{TOOL_NAME}: {line}", file=sys.stderr)
    findings = _apply_settings(
        [
            *setup_findings,
            *lint_documents(inputs.docs, target, stack_rules=not args.no_stack_rules),
            *cluster_findings,
        ],
        selected,
        overrides,
    )
    baseline_path = Path(args.baseline) if args.baseline else config.baseline
    if args.write_baseline:
        if inputs.problems:
            print(f"{TOOL_NAME}: baseline not written: fix the input problems above first", file=sys.stderr)
            return 2
        path = baseline_path or Path(DEFAULT_BASELINE)
        entries = write_baseline(path, findings)
        print(f"{TOOL_NAME}: wrote {entries} baseline entries ({len(findings)} findings) to {path}", file=sys.stderr)
        return 0
    hidden = 0
    if baseline_path is not None:
        findings, hidden = subtract_baseline(findings, read_baseline(baseline_path))
    shown = findings if args.no_collapse else collapse_containers(findings, _manifests(inputs.docs))
    shown = sorted(shown, key=_sort_key)
    summary = Summary(documents=len(inputs.docs), files=inputs.files, baselined=hidden)
    _report(args, config, target, shown, summary)
    if inputs.problems:
        return 2
    threshold = SEVERITY_ORDER[args.fail_on or config.fail_on or "high"]
    return 1 if any(SEVERITY_ORDER[f.finding.severity] >= threshold for f in findings) else 0


def _manifests(docs: Sequence[RayDoc]) -> dict[tuple[str, str, str, str], Any]:
    return {(d.file, d.kind, d.namespace, d.name): d.manifest for d in docs}


def run_or_explain(args: argparse.Namespace) -> int:
    """The exit status of a parsed command line that asks for more than ``--help`` / ``--version``."""
    problem = _lint_cluster.check_options(args)
    if problem is not None and not (args.list_rules or args.explain_rule):
        print(f"{TOOL_NAME}: error: {problem}", file=sys.stderr)
        return 2
    try:
        info = info_command(args)
        if info is not None:
            return info
        if args.diff or args.diff_git:
            from pulumi_kuberay.cli._lint_diff import run_diff

            return run_diff(args)
        return run(args)
    except (ConfigError, TargetError, BaselineError) as exc:
        print(f"{TOOL_NAME}: {exc}", file=sys.stderr)
        return 2
