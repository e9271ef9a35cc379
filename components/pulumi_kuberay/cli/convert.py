"""``kuberay-convert``: existing KubeRay manifests or ``ray-cluster`` Helm values -> pulumi-kuberay code.

Usage::

    kuberay-convert ray-cluster.autoscaler.yaml > infra.py          # typed Python (default)
    kuberay-convert manifests/ --to stack-config >> stacks/Pulumi.dev.yaml
    kubectl get rayclusters -o yaml | kuberay-convert -
    kuberay-convert --from helm-values my-values.yaml --release-name raycluster > infra.py
    kuberay-convert --from helm-values base.yaml prod.yaml --set image.tag=2.52.0 > infra.py   # Helm's layering

Exit codes: 0 converted (documents that are not Ray objects are listed on stderr as not converted);
1 a Ray document or a Helm value could not be converted, or no Ray document was found (one line per problem
on stderr, nothing written); 2 unreadable or empty input. Never imports pulumi.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pulumi_kuberay.cli import _io
from pulumi_kuberay.cli.lint import package_version
from pulumi_kuberay.convert import Conversion, convert_documents
from pulumi_kuberay.convert.helm import (
    CHART_VERSION,
    HelmValuesError,
    ignored_keys,
    merge_values,
    render_values,
    replace_helm_labels,
    values_key,
)
from pulumi_kuberay.kuberay.paths import placeholder_note
from pulumi_kuberay.model import ManifestError
from pulumi_kuberay.model.manifest import load_stored

TOOL_NAME = "kuberay-convert"
#: The one line printed when no argument is given (and the usage of --help and of a bad flag).
USAGE = "kuberay-convert [options] PATH...  (KubeRay manifests or ray-cluster Helm values; '-' reads stdin; --help lists the options)"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=TOOL_NAME,
        usage=USAGE,
        description="Turn KubeRay manifests (or ray-cluster Helm values) into typed pulumi-kuberay code.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="YAML/JSON files or folders; '-' reads stdin")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    p.add_argument("--to", choices=("python", "stack-config"), default="python", help="output (default python)")
    p.add_argument(
        "--from",
        dest="source",
        choices=("manifests", "helm-values"),
        default="manifests",
        help="what PATH holds: Kubernetes manifests (default) or values for the v1.7.0 ray-cluster chart",
    )
    p.add_argument("--release-name", default="raycluster", help="Helm release name (helm-values; default raycluster)")
    p.add_argument("--set", dest="set_values", action="append", default=[], metavar="K=V",
                   help="helm-values: like helm --set (numbers are integers, true/false booleans, null deletes)")
    p.add_argument("--set-string", action="append", default=[], metavar="K=V", help="helm-values: as helm --set-string")
    p.add_argument("--set-json", action="append", default=[], metavar="K=JSON", help="helm-values: as helm --set-json")
    p.add_argument("--namespace", default="default", help="Helm release namespace (helm-values; default default)")
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="write here instead of stdout")
    return p


def _expand(paths: Sequence[str]) -> list[str]:
    """Folders replaced by their YAML/JSON files, as kuberay-lint does (``_io.expand_paths`` once it exists
    there; until then the same rule here: a folder contributes its .yaml/.yml/.json files, sorted)."""
    shared = getattr(_io, "expand_paths", None)
    if shared is not None:
        return list(shared(paths))
    out: list[str] = []
    for raw in paths:
        path = Path(raw)
        if raw == "-" or not path.is_dir():
            out.append(raw)
            continue
        found = [str(c) for c in sorted(path.rglob("*")) if c.is_file() and c.suffix.lower() in _io_suffixes()]
        if not found:
            raise _io.InputError(raw, "no YAML or JSON files in this folder")
        out += found
    return out


def _io_suffixes() -> tuple[str, ...]:
    return tuple(getattr(_io, "DOCUMENT_SUFFIXES", (".yaml", ".yml", ".json")))


def _read(paths: Sequence[str]) -> tuple[list[tuple[Any, str]], list[str], list[str]]:
    """(document, "file:line") pairs, the sources read, and one line per unreadable source."""
    documents: list[tuple[Any, str]] = []
    sources: list[str] = []
    problems: list[str] = []
    try:
        names = _expand(paths)
    except _io.InputError as exc:
        return [], [], [str(exc)]
    for name in names:
        try:
            source = _io.read_source(name, flatten_lists=True)
        except _io.InputError as exc:
            problems.append(str(exc))
            continue
        sources.append(source.name)
        documents += [(doc.data, doc.where) for doc in source.documents]
    return documents, sources, problems


def _from_helm(
    args: argparse.Namespace, documents: list[tuple[Any, str]]
) -> tuple[list[tuple[Any, str]], dict[str, list[str]]]:
    """The RayCluster the chart renders for the values files (in order) and the --set flags, and the notes for
    its comment; every key the chart ignores is printed as one warning on stderr."""
    for doc, where in documents:
        if not isinstance(doc, dict):
            raise HelmValuesError("", f"{where}: a values file must hold one YAML mapping, got {type(doc).__name__}")
    values = merge_values(
        [doc for doc, _ in documents],
        set_json=args.set_json,
        set_values=args.set_values,
        set_string=args.set_string,
    )
    ignored = ignored_keys(values)
    if ignored:
        listed = "; ".join(str(k) for k in ignored)
        print(f"{TOOL_NAME}: warning: the ray-cluster chart {CHART_VERSION} ignores {len(ignored)} key{'s' if len(ignored) != 1 else ''} (Helm renders the file without them): {listed}", file=sys.stderr)
    manifest = render_values(values, release_name=args.release_name, namespace=args.namespace)
    try:
        load_stored(manifest)
    except ManifestError as exc:  # name the values key behind the first field the chart renders wrongly
        first = exc.problems[0]
        key = values_key(first.path, values) or ""
        raise HelmValuesError(key, f"the chart renders {first}{placeholder_note(first.message)}") from None
    notes = [f"values key ignored by the ray-cluster chart {CHART_VERSION}: {k}" for k in ignored]
    notes += replace_helm_labels(manifest)
    flags = [f"--set-json {v}" for v in args.set_json] + [f"--set {v}" for v in args.set_values]
    flags += [f"--set-string {v}" for v in args.set_string]
    sources = " ".join([where.rsplit(":", 1)[0] for _, where in documents] + flags)
    where = f"{sources} (ray-cluster chart {CHART_VERSION}, release {args.release_name!r})"
    return [(manifest, where)], {where: notes}


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.version:
        print(f"{TOOL_NAME} {package_version()}")
        return 0
    if not args.paths:
        parser.print_usage(sys.stderr)  # one line: USAGE
        return 2
    documents, sources, unreadable = _read(args.paths)
    for line in unreadable:
        print(f"{TOOL_NAME}: {line}", file=sys.stderr)
    if unreadable:
        return 2
    if not documents:
        print(f"{TOOL_NAME}: no documents in {', '.join(args.paths)}", file=sys.stderr)
        return 2
    notes: dict[str, list[str]] = {}
    if args.source == "helm-values":
        try:
            documents, notes = _from_helm(args, documents)
        except HelmValuesError as exc:
            print(f"{TOOL_NAME}: {', '.join(sources)}: {exc}", file=sys.stderr)
            return 1
    elif args.set_values or args.set_string or args.set_json:
        print(f"{TOOL_NAME}: --set, --set-string and --set-json need --from helm-values", file=sys.stderr)
        return 2
    result: Conversion = convert_documents(documents, to=args.to, sources=sources, notes=notes)
    for line in result.skipped:
        print(f"{TOOL_NAME}: {line}", file=sys.stderr)
    for line in result.errors:
        print(f"{TOOL_NAME}: {line}", file=sys.stderr)
    if result.errors:
        return 1
    if not result.objects:
        print(f"{TOOL_NAME}: no RayCluster, RayJob, RayService or RayCronJob: nothing to convert", file=sys.stderr)
        return 1
    if args.output:
        Path(args.output).write_text(result.text, encoding="utf-8")
    else:
        sys.stdout.write(result.text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
