"""Regenerates the real-world corpus: Ray documents of public repositories, re-extracted from their fetched mirrors.

    scripts/gen-realworld-corpus [--mirrors DIR] [--out DIR]            # re-extract what SOURCES.yaml lists
    scripts/gen-realworld-corpus --discover [--mirrors DIR] [--out DIR]  # scan the mirrors, rewrite SOURCES.yaml

The index, ``tests/corpus/realworld/SOURCES.yaml``, names each document: the repository, the commit, the path of
the file, the document's place in it (``doc``: its number among the file's YAML documents), its kind and name,
whether it is a template (Helm, Jinja, Terraform ``templatefile``, or placeholders such as ``${VAR}`` or ``{{ }}``
left in: kept only where the file parses as YAML as it is), the repository's licence, and the SHA-256 of
the document as extracted, so a re-extraction that differs fails loudly.

The documents themselves are NOT in this repository: the project keeps no copy of others' files (the reference
copy lives outside it too). They are written to ``--out``, by default ``$PULUMI_KUBERAY_REALWORLD_DIR`` or
``~/.cache/pulumi-kuberay/realworld``, one file per document, ``<owner>__<repo>/<path, / as __>[__docN].yaml``.
The mirrors are bare git directories ``<mirrors>/<owner>+<repo>/repo`` (default ``/work/.mirror``, or
``$PULUMI_KUBERAY_MIRRORS``), brought by the search tools' ``fetch``; CI has none, so CI does not run this, and
tests/corpus/test_realworld_corpus.py skips where the documents are absent.

KubeRay's own repository is left out (its samples are the reference copy's).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
INDEX = ROOT / "tests" / "corpus" / "realworld" / "SOURCES.yaml"
DEFAULT_OUT = Path(
    os.environ.get("PULUMI_KUBERAY_REALWORLD_DIR", Path.home() / ".cache" / "pulumi-kuberay" / "realworld")
)
DEFAULT_MIRRORS = Path(os.environ.get("PULUMI_KUBERAY_MIRRORS", "/work/.mirror"))
RAY_KINDS = ("RayCluster", "RayJob", "RayService", "RayCronJob")
EXCLUDED_REPOS = ("ray-project/kuberay",)
# Copies of KubeRay's own tree vendored into another repository (its samples are the reference copy's).
VENDORED_KUBERAY = re.compile(r"(^|/)kuberay/(ray-operator|apiserver|helm-chart)/")
# Archived repositories whose HEAD deleted everything: the last commit that still had the documents.
PINNED_COMMITS = {"ray-project/ray-llm": "fef5eea73dad100fbbd0d4bbc4d039bb7e88a8e1"}
TEMPLATE_SUFFIXES = (".tpl", ".j2", ".tftpl", ".tmpl", ".jinja", ".jinja2")
PLACEHOLDER = re.compile(r"\{\{|\$\{|\{%|\$[A-Z][A-Z0-9_]*|PLACEHOLDER|^<[^<>]+>$")
# Strings a shell or Ray reads (commands, env values, Serve configs): a ``$VAR`` there is not a template's.
NOT_TEMPLATED = frozenset({"command", "args", "entrypoint", "value", "serveConfigV2", "runtimeEnvYAML", "runtimeEnv"})
LICENCES = (
    ("Apache License", "Apache-2.0"),
    ("MIT No Attribution", "MIT-0"),
    ("Permission is hereby granted, free of charge", "MIT"),
    ("Creative Commons Attribution 4.0", "CC-BY-4.0"),
    ("BSD 3-Clause", "BSD-3-Clause"),
)


def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(mirror), *args], check=True, text=True, capture_output=True).stdout


def _mirror(mirrors: Path, repository: str) -> Path:
    return mirrors / repository.replace("/", "+") / "repo"


def _licence(mirror: Path, commit: str) -> str | None:
    names = [n for n in _git(mirror, "ls-tree", "--name-only", commit).splitlines() if n.upper().startswith("LICEN")]
    for name in names:
        text = _git(mirror, "show", f"{commit}:{name}")
        for marker, spdx in LICENCES:
            if marker in text:
                return spdx
    return None


def _is_ray(doc: Any) -> bool:
    return (
        isinstance(doc, dict)
        and doc.get("kind") in RAY_KINDS
        and str(doc.get("apiVersion", "")).startswith("ray.io/v1")
    )


def _split(text: str) -> list[str]:
    """The YAML documents of a file as text, split where YAML splits them (a line that is ``---``)."""
    parts = re.split(r"^---[ \t]*(?:#[^\n]*)?$\n?", text, flags=re.MULTILINE)
    return [p for p in parts if p.strip()]


def _ray_documents(text: str) -> list[tuple[int, str]]:
    """(number, text) of every Ray document of one file, numbered among the file's YAML documents."""
    try:
        parts = _split(text)
        loaded = [yaml.safe_load(p) for p in parts]
    except yaml.YAMLError:
        return []
    return [(number, part) for number, (part, doc) in enumerate(zip(parts, loaded, strict=True)) if _is_ray(doc)]


def _placeholders(node: Any) -> bool:
    """Whether a value of the document (outside commands, env values and Serve configs) is a template's."""
    if isinstance(node, dict):
        return any(k not in NOT_TEMPLATED and _placeholders(v) for k, v in node.items())
    if isinstance(node, list):
        return any(_placeholders(v) for v in node)
    return isinstance(node, str) and bool(PLACEHOLDER.search(node))


def _document_id(repository: str, path: str, number: int, several: bool) -> str:
    stem = path.replace("/", "__")
    for suffix in (".yaml", ".yml"):
        stem = stem.removesuffix(suffix)
    suffix = f"__doc{number}" if several else ""
    return f"{repository.replace('/', '__')}/{stem}{suffix}.yaml"


def discover(mirrors: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for mirror in sorted(mirrors.glob("*+*/repo")):
        repository = mirror.parent.name.replace("+", "/", 1)
        if repository in EXCLUDED_REPOS:
            continue
        commit = PINNED_COMMITS.get(repository) or _git(mirror, "rev-parse", "HEAD").strip()
        licence = _licence(mirror, commit)
        grep = subprocess.run(
            ["git", "-C", str(mirror), "grep", "-l", "-E", r"ray\.io/v1", commit],
            text=True, capture_output=True, check=False,
        )  # fmt: skip
        for line in sorted(grep.stdout.splitlines()):
            path = line.split(":", 1)[1]
            if not path.endswith((".yaml", ".yml", *TEMPLATE_SUFFIXES)) or VENDORED_KUBERAY.search(path):
                continue
            text = _git(mirror, "show", f"{commit}:{path}")
            docs = _ray_documents(text)
            for number, doc_text in docs:
                doc = yaml.safe_load(doc_text)
                entries.append({
                    "document": _document_id(repository, path, number, len(docs) > 1),
                    "repository": repository,
                    "commit": commit,
                    "path": path,
                    "doc": number,
                    "kind": doc["kind"],
                    "name": (doc.get("metadata") or {}).get("name") or (doc.get("metadata") or {}).get("generateName"),
                    "template": path.endswith(TEMPLATE_SUFFIXES) or _placeholders(doc),
                    "license": licence,
                    "sha256": hashlib.sha256(doc_text.encode()).hexdigest(),
                })  # fmt: skip
    return entries


def extract(entry: dict[str, Any], mirrors: Path) -> str:
    """The text of one indexed document, re-extracted from its mirror at the indexed commit."""
    mirror = _mirror(mirrors, entry["repository"])
    if not mirror.is_dir():
        raise SystemExit(f"{entry['document']}: no mirror of {entry['repository']} at {mirror}; fetch it first")
    text = _git(mirror, "show", f"{entry['commit']}:{entry['path']}")
    for number, doc_text in _ray_documents(text):
        if number == entry["doc"]:
            if hashlib.sha256(doc_text.encode()).hexdigest() != entry["sha256"]:
                raise SystemExit(f"{entry['document']}: the extracted text differs from the indexed SHA-256")
            return doc_text
    raise SystemExit(f"{entry['document']}: no Ray document {entry['doc']} in {entry['path']}")


def write(entries: list[dict[str, Any]], mirrors: Path, out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    for entry in entries:
        target = out / entry["document"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(extract(entry, mirrors))
    print(f"wrote {len(entries)} documents to {out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--discover", action="store_true", help="scan the mirrors and rewrite SOURCES.yaml")
    args = parser.parse_args(argv)
    if args.discover:
        entries = discover(args.mirrors)
        head = "# Written by tools/gen_realworld_corpus.py --discover: the real-world corpus's documents (the test's index).\n"
        INDEX.write_text(head + yaml.safe_dump(entries, sort_keys=False, width=1000))
        print(f"indexed {len(entries)} documents from {len({e['repository'] for e in entries})} repositories")
    entries = yaml.safe_load(INDEX.read_text())
    write(entries, args.mirrors, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
