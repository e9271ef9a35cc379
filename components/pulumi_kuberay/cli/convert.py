"""``kuberay-convert``: existing KubeRay manifests or ``ray-cluster`` Helm values -> pulumi-kuberay code.

Usage::

    kuberay-convert ray-cluster.autoscaler.yaml > infra.py          # typed Python (default)
    kuberay-convert manifests/ --to stack-config >> stacks/Pulumi.dev.yaml
    kubectl get rayclusters -o yaml | kuberay-convert -
    kuberay-convert --from helm-values my-values.yaml --release-name raycluster > infra.py

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
from pulumi_kuberay.convert import Conversion, convert_documents
from pulumi_kuberay.convert.helm import HelmValuesError, render_values, values_key
from pulumi_kuberay.model._errors import ManifestError
from pulumi_kuberay.model.manifest import load_manifest

TOOL_NAME = "kuberay-convert"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=TOOL_NAME,
        description="Turn KubeRay manifests (or ray-cluster Helm values) into typed pulumi-kuberay code.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="YAML/JSON files or folders; '-' reads stdin")
    p.add_argument("--to", choices=("python", "stack-config"), default="python", help="output (default python)")
    p.add_argument(
        "--from",
        dest="source",
        choices=("manifests", "helm-values"),
        default="manifests",
        help="what PATH holds: Kubernetes manifests (default) or values for the v1.7.0 ray-cluster chart",
    )
    p.add_argument("--release-name", default="raycluster", help="Helm release name (helm-values; default raycluster)")
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


def _from_helm(args: argparse.Namespace, documents: list[tuple[Any, str]]) -> list[tuple[Any, str]]:
    if len(documents) != 1 or not isinstance(documents[0][0], dict):
        raise HelmValuesError("", "give exactly one values file holding one YAML mapping")
    values, where = documents[0]
    manifest = render_values(values, release_name=args.release_name, namespace=args.namespace)
    try:
        load_manifest(manifest)
    except ManifestError as exc:  # name the values key behind the first field the chart renders wrongly
        first = exc.problems[0]
        key = values_key(first.path, values) or ""
        raise HelmValuesError(key, f"the chart renders {first}") from None
    return [(manifest, f"{where} (ray-cluster chart 1.7.0, release {args.release_name!r})")]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    documents, sources, unreadable = _read(args.paths)
    for line in unreadable:
        print(f"{TOOL_NAME}: {line}", file=sys.stderr)
    if unreadable:
        return 2
    if not documents:
        print(f"{TOOL_NAME}: no documents in {', '.join(args.paths)}", file=sys.stderr)
        return 2
    if args.source == "helm-values":
        try:
            documents = _from_helm(args, documents)
        except HelmValuesError as exc:
            print(f"{TOOL_NAME}: {', '.join(sources)}: {exc}", file=sys.stderr)
            return 1
    result: Conversion = convert_documents(documents, to=args.to, sources=sources)
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
