"""Recorded oracle verdicts: the older operator versions judged from checked-in data instead of a Go build.

CI builds only the default judge's oracle (v1.7.0); the older versions' oracles (``RECORDED``) answer from
``tests/oracle/recorded/<version>.json.gz``, written by ``scripts/gen-oracle-recordings`` (tools/
record_oracle.py), which runs this tier with the live older oracles and keeps every answer they gave. A
recording maps :func:`key` of each request (the exact text sent and the gate flag, or the plan request line) to
the oracle's answer, unchanged but for its place in the batch and the random suffix of generated Pod names
(:func:`canonical`).

Where a live oracle of a recorded version runs (a cached build, ``KUBERAY_ORACLE_ENTRIES``), :func:`observe`
holds each of its answers against the recording: a different or missing answer fails the test, naming the
script. Under ``PULUMI_KUBERAY_ORACLE_RECORD_TO=<dir>`` (the regenerate script) it appends them there instead.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

RECORDED_DIR = Path(__file__).resolve().parent / "recorded"
REGENERATE = "scripts/gen-oracle-recordings"
#: The versions judged from recordings (CI builds only the default judge, .ci/run's ORACLE_VERSIONS line);
#: ``PULUMI_KUBERAY_ORACLE_RECORDED`` names others (a space-separated list, e.g. to try the mechanism out).
RECORDED = tuple(os.environ.get("PULUMI_KUBERAY_ORACLE_RECORDED", "v1.6.2 v1.5.2").split())
RECORD_TO = "PULUMI_KUBERAY_ORACLE_RECORD_TO"


class NotRecorded(AssertionError):
    """A request the recording of that version does not hold (the tests' corpus changed since it was made)."""


def key(command: str, text: str, flag: str = "") -> str:
    """A request's key: ``command`` (``judge`` or ``plan``), the exact text sent and the gate flag."""
    return hashlib.sha256(f"{command}\0{flag}\0{text}".encode()).hexdigest()[:24]


#: A name the API server generates from ``metadata.generateName`` (a Pod the operator creates, or the input
#: itself) ends in 5 random characters (names.SimpleNameGenerator): the one part of an answer that differs
#: between two runs of the same request, with the order of some errors (Go map iteration: see comparable).
_SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]{5}"
_GENERATED_POD = re.compile(rf"^Pod/(\S+-)({_SUFFIX})(?=\s|$)")


def canonical(answer: Any) -> Any:
    """``answer`` without its ``index`` (the document's place in its batch, put back by the recorded oracle) and
    with each generated name's random suffix as ``*****`` (wherever the name appears)."""
    if not isinstance(answer, dict):
        return answer
    answer = {k: v for k, v in answer.items() if k != "index"}
    names = []
    for child in answer.get("children") or []:
        match = _GENERATED_POD.match(str(child.get("object", "")))
        if match:
            names.append((match.group(1) + match.group(2), match.group(1) + "*****"))
    metadata = ((answer.get("apiServer") or {}).get("object") or {}).get("metadata") or {}
    prefix, name = str(metadata.get("generateName") or ""), str(metadata.get("name") or "")
    if prefix and re.fullmatch(re.escape(prefix) + _SUFFIX, name):
        names.append((name, prefix + "*****"))
    if not names:
        return answer
    text = json.dumps(answer)
    for generated, stable in names:
        text = text.replace(generated, stable)
        # A child's name built from a long generated name keeps part of its suffix (the operator truncates).
        prefix, suffix = generated[:-5], generated[-5:]
        for n in range(4, 0, -1):
            text = text.replace(f"{prefix}{suffix[:n]}-", f"{prefix}{'*' * n}-")
    result: dict[str, Any] = json.loads(text)
    return result


#: A Service port's index: the operator builds the head Service's ports from a Go map (getServicePorts), so their
#: order, and the index an error names, changes from run to run.
_PORT_INDEX = re.compile(r"\bports\[\d+\]")


def comparable(answer: Any) -> Any:
    """``answer`` with every ``errors`` and ``ports`` list in a fixed order and no port index in its texts: the API
    server reports some errors in the order of a Go map's iteration (a resources map's keys) and the operator
    orders a Service's ports by one, which changes from run to run; only for comparing."""
    if isinstance(answer, dict):
        return {
            k: sorted((comparable(e) for e in v), key=lambda e: json.dumps(e, sort_keys=True))
            if k in ("errors", "ports") and isinstance(v, list)
            else comparable(v)
            for k, v in answer.items()
        }
    if isinstance(answer, list):
        return [comparable(v) for v in answer]
    if isinstance(answer, str):
        return _PORT_INDEX.sub("ports[*]", answer)
    return answer


def path(version: str) -> Path:
    return RECORDED_DIR / f"{version}.json.gz"


@cache
def load(version: str) -> dict[str, Any] | None:
    """The recording of ``version`` (``{"version", "source", "featureGates", "answers": {key: answer}}``)."""
    file = path(version)
    if not file.exists():
        return None
    data: dict[str, Any] = json.loads(gzip.decompress(file.read_bytes()))
    return data


def recorded_versions() -> tuple[str, ...]:
    return tuple(v for v in RECORDED if path(v).exists())


def answer(version: str, request_key: str, what: str) -> Any:
    data = load(version)
    if data is None or request_key not in data["answers"]:
        raise NotRecorded(
            f"the recorded {version} oracle has no answer for {what} (key {request_key}): the oracle tests' "
            f"requests changed since {path(version).name} was written; run {REGENERATE} (it builds the "
            f"{', '.join(RECORDED)} oracles with scripts/ensure-oracle and records them)"
        )
    return data["answers"][request_key]


def observe(version: str, keys: list[str], answers: list[Any], what: str) -> None:
    """A live oracle's answers: appended to the recording under way, else held against the checked-in one."""
    if version not in RECORDED:
        return
    answers = [canonical(a) for a in answers]
    target = os.environ.get(RECORD_TO)
    if target:
        out = Path(target) / f"{version}.{os.getpid()}.jsonl"
        with out.open("a") as fh:
            for k, a in zip(keys, answers, strict=True):
                fh.write(json.dumps([k, a], sort_keys=True) + "\n")
        return
    if load(version) is None:
        return
    for k, live in zip(keys, answers, strict=True):
        recorded = answer(version, k, what)
        if comparable(recorded) != comparable(live):
            where, now, then = difference(comparable(live), comparable(recorded))
            raise AssertionError(
                f"the live {version} oracle's answer for {what} (key {k}) is not the recorded one in "
                f"{path(version).name}: run {REGENERATE}\n  at {where or '(top)'}: live {json.dumps(now)[:800]}"
                f"\n  {' ' * len(where or '(top)')}  recorded {json.dumps(then)[:800]}"
            )


def difference(a: Any, b: Any, where: str = "") -> tuple[str, Any, Any]:
    """The first place two answers differ: its path and both values there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for name in sorted({*a, *b}):
            if a.get(name, "<absent>") != b.get(name, "<absent>"):
                return difference(a.get(name, "<absent>"), b.get(name, "<absent>"), f"{where}.{name}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return difference(x, y, f"{where}[{i}]")
    return where, a, b
