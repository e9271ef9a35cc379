"""``kuberay-explain``: say what state live KubeRay objects are in, one line each, and what to check next.

Reads objects as JSON or YAML from files or stdin (``-``, the default), for example::

    kubectl get rayjobs -A -o json | kuberay-explain
    kubectl get rayservice my-svc -n serving -o yaml | kuberay-explain -
    kuberay-explain --format json snapshot.yaml
    kuberay-explain snapshots/            # every .yaml/.yml/.json file under the folder

``kind: List`` (what ``kubectl get ... -o json`` prints for several objects) and multi-document YAML are
expanded into their objects. Exit status: 0 when every object is healthy or succeeded, 1 when any is not
(progressing, degraded, failed, suspended, unknown, or without status yet), 2 when the input cannot be read
(one-line message on stderr, no traceback). Never imports pulumi.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import IO, Any

from pulumi_kuberay.cli._io import Document, InputError, expand_lists, expand_paths, read_documents
from pulumi_kuberay.status import Diagnosis, diagnose

PROG = "kuberay-explain"
#: The one line printed when there is nothing to read (no FILE, stdin a terminal), and the usage of --help.
USAGE = "kuberay-explain [--format text|json] [FILE...]  (live objects as JSON/YAML: kubectl get rayjobs -o json | kuberay-explain; --help for more)"

EXIT_OK = 0
EXIT_NOT_OK = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        usage=USAGE,
        description=(
            "Explain the status of KubeRay objects (RayCluster, RayJob, RayService, RayCronJob): one line per object with its phase, what is wrong and what to check next."
        ),
        epilog=(
            "exit status: 0 every object healthy or succeeded; 1 any object progressing, degraded, failed, suspended, unknown or without status; 2 unreadable input. Example: kubectl get rayjobs -A -o json | kuberay-explain"
        ),
    )
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="JSON or YAML files or folders of them (multi-document, kind: List); '-' or nothing reads stdin",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: one line per object (default); json: a JSON array of diagnoses",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument(
        "--now",
        metavar="TIME",
        help="RFC 3339 time to measure durations against (default: now); for reproducible output",
    )
    return parser


def _is_terminal(stdin: IO[bytes] | None) -> bool:
    stream: Any = stdin if stdin is not None else sys.stdin
    isatty = getattr(stream, "isatty", None)
    return bool(callable(isatty) and isatty())


def _parse_now(value: str | None) -> datetime:
    if value is None:
        return datetime.now(UTC)
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InputError("--now", f"not an RFC 3339 time: {value!r}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _objects(documents: Sequence[Document]) -> list[Document]:
    """Objects to diagnose; a document that is not a mapping is unreadable input."""
    for doc in documents:
        if not isinstance(doc.data, dict):
            raise InputError(
                doc.source,
                f"document {doc.index + 1} is a {type(doc.data).__name__}, not a Kubernetes object",
                doc.line,
            )
    objects = expand_lists(documents)
    for obj in objects:
        if not isinstance(obj.data, dict):
            raise InputError(
                obj.source,
                f"List item {(obj.item or 0) + 1} is a {type(obj.data).__name__}, not a Kubernetes object",
                obj.line,
            )
    return objects


def _render_json(results: Sequence[tuple[Document, Diagnosis]]) -> str:
    payload: list[dict[str, Any]] = []
    for doc, diagnosis in results:
        entry = diagnosis.to_dict()
        entry["source"] = doc.where
        payload.append(entry)
    return json.dumps(payload, indent=2, ensure_ascii=False, default=str)


def run(argv: Sequence[str] | None, stdin: IO[bytes] | None, stdout: IO[str], stderr: IO[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.version:
        from pulumi_kuberay.cli.lint import package_version

        print(f"{PROG} {package_version()}", file=stdout)
        return EXIT_OK
    if not args.files and _is_terminal(stdin):  # nothing piped in: say how to use it rather than wait
        print(f"usage: {USAGE}", file=stderr)
        return EXIT_BAD_INPUT
    try:
        now = _parse_now(args.now)
        documents = read_documents(expand_paths(args.files or ["-"]), stdin=stdin, flatten_lists=False)
        if not documents:
            raise InputError(
                "<stdin>" if not args.files or args.files == ["-"] else ", ".join(args.files),
                "no documents in the input (did the command that produced it fail?)",
            )
        objects = _objects(documents)
    except InputError as exc:
        print(f"{PROG}: error: {exc}", file=stderr)
        return EXIT_BAD_INPUT

    results = [(doc, diagnose(doc.data, now=now)) for doc in objects]
    if args.format == "json":
        print(_render_json(results), file=stdout)
    else:
        if not results:
            print(f"{PROG}: no objects (the List is empty)", file=stderr)
        for _, diagnosis in results:
            print(diagnosis.line(), file=stdout)
    return EXIT_OK if all(diagnosis.ok for _, diagnosis in results) else EXIT_NOT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry point (``kuberay-explain``)."""
    try:
        return run(argv, None, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Reader went away (| head): stop quietly, without a second error when Python flushes stdout at exit.
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives until exit
        return EXIT_NOT_OK
    except Exception as exc:  # never a traceback: one line, distinct exit status
        print(f"{PROG}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
