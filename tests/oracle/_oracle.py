"""Running the oracle (``tools/kuberay-oracle``, built by ``scripts/ensure-oracle``) from the tests.

The oracle judges many documents per process: :meth:`Oracle.judge` sends a whole batch on stdin and gets one
JSON verdict per document back, in order. A verdict's ``children`` are the objects the operator creates from an
accepted document (:func:`child_errors` lists what the API server refuses of them).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from . import _recorded

REPO = Path(__file__).resolve().parents[2]
ENV_VARS = ("KUBERAY_ORACLE", "KUBERAY_ORACLE_CRD_DIR", "KUBERAY_ORACLE_SAMPLES_DIR", "KUBERAY_ORACLE_OPERATOR_VERSION")

Verdict = dict[str, Any]


@dataclass(frozen=True)
class Oracle:
    binary: str
    crd_dir: str
    samples_dir: str
    operator_version: str  # "v1.7.0"
    default_gates: Mapping[str, bool]
    #: where the operator's source came from: "proxy:<module>@<version>" or "reference:<dir>@<checksum>"
    source: str = ""
    #: the first oracle of KUBERAY_ORACLE_ENTRIES: the version the catalogue targets by default
    default_judge: bool = True

    @property
    def minor(self) -> tuple[int, int]:
        major, minor, *_ = self.kuberay_version.split(".")
        return int(major), int(minor)

    @property
    def kuberay_version(self) -> str:
        """The operator version as the catalogue's Target spells it (``1.6.1``)."""
        return self.operator_version.lstrip("v")

    def gates(self, which: str) -> dict[str, bool]:
        """``default``: the version's defaults; ``all``: every gate the version knows on; ``none``: all off."""
        if which == "default":
            return dict(self.default_gates)
        if which in ("all", "none"):
            return dict.fromkeys(self.default_gates, which == "all")
        raise ValueError(which)

    @property
    def recorded(self) -> bool:
        """Whether the verdicts come from a recording (:class:`RecordedOracle`) rather than a live binary."""
        return False

    def judge(self, docs: Sequence[Any], gates: Mapping[str, bool]) -> list[Verdict]:
        """One verdict per document (a dict is sent as JSON, a str as YAML text), one oracle process."""
        if not docs:
            return []
        texts, flag = _request(docs, gates)
        proc = subprocess.run(
            [self.binary, "--crd-dir", self.crd_dir, f"--feature-gates={flag}"],
            input="\n---\n".join(texts) + "\n",
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"kuberay-oracle failed ({proc.returncode}): {proc.stderr[-2000:]}")
        # One verdict a line: split on "\n" only (str.splitlines also splits on U+0085 and U+2028, which a verdict
        # may carry inside a string, e.g. a generated name echoed in an error's detail).
        verdicts = [json.loads(line) for line in proc.stdout.split("\n") if line.strip()]
        if len(verdicts) != len(docs):
            raise RuntimeError(f"kuberay-oracle gave {len(verdicts)} verdicts for {len(docs)} documents")
        _recorded.observe(self.operator_version, [_recorded.key("judge", t, flag) for t in texts], verdicts, "judge")
        return verdicts


def _request(docs: Sequence[Any], gates: Mapping[str, bool]) -> tuple[list[str], str]:
    """What :meth:`Oracle.judge` sends: each document's text and the ``--feature-gates`` value."""
    texts = [d if isinstance(d, str) else json.dumps(d) for d in docs]
    return texts, ",".join(f"{name}={'true' if on else 'false'}" for name, on in sorted(gates.items()))


@dataclass(frozen=True)
class RecordedOracle(Oracle):
    """An older operator version judged from its recording (tests/oracle/_recorded.py), with no binary."""

    @property
    def recorded(self) -> bool:
        return True

    def judge(self, docs: Sequence[Any], gates: Mapping[str, bool]) -> list[Verdict]:
        texts, flag = _request(docs, gates)
        what = f"a judge request (gates {flag or 'none'})"
        verdicts = [_recorded.answer(self.operator_version, _recorded.key("judge", t, flag), what) for t in texts]
        return [{"index": i, **v} for i, v in enumerate(verdicts)]


def module_samples(source: str) -> str:
    """The ``config/samples`` of a ``proxy:<module>@<version>`` source in the Go module cache (downloaded by
    scripts/ensure-oracle for the recorded versions; never downloaded from a test), else ''."""
    if not source.startswith("proxy:"):
        return ""
    cache_dir = os.environ.get("GOMODCACHE") or os.path.join(
        os.environ.get("GOPATH") or os.path.expanduser("~/go"), "pkg", "mod"
    )
    folder = Path(cache_dir) / source.removeprefix("proxy:") / "config" / "samples"
    return str(folder) if folder.is_dir() else ""


def recorded_oracle(version: str) -> RecordedOracle | None:
    data = _recorded.load(version)
    if data is None:
        return None
    source = str(data.get("source", ""))
    if source.startswith("reference:"):  # reference:<dir>/kuberay/<V>/ray-operator@<sum>: its samples beside it
        samples = Path(source.removeprefix("reference:").rpartition("@")[0]).parent / "samples"
        samples_dir = str(samples) if samples.is_dir() else ""
    else:
        samples_dir = module_samples(source)
    return RecordedOracle(
        binary="",
        crd_dir="",
        samples_dir=samples_dir,
        operator_version=version,
        default_gates=data["featureGates"],
        source=source,
        default_judge=False,
    )


def child_errors(verdict: Verdict) -> list[dict[str, str]]:
    """Every error of the children the API server refuses (``children``: the head and worker Pods, the head
    Service and the submitter Job the operator builds, judged by the API server's own validation), each with
    ``field`` (the path in the input document), ``childField``, ``type``, ``detail`` and ``object`` (the child)."""
    out: list[dict[str, str]] = []
    for child in verdict.get("children") or []:
        if not child.get("accepted", True):
            out += [{**e, "object": child["object"]} for e in child.get("errors") or []]
    return out


def _env_from_ensure() -> dict[str, str]:
    """Ask ``scripts/ensure-oracle --no-build --print-env`` for cached builds (never builds from a test)."""
    proc = subprocess.run(
        [str(REPO / "scripts" / "ensure-oracle"), "--no-build", "--print-env"],
        capture_output=True,
        text=True,
        check=False,
    )
    env: dict[str, str] = {}
    if proc.returncode == 0:
        for line in proc.stdout.splitlines():
            if line.startswith("export ") and "=" in line:
                name, _, value = line[len("export ") :].partition("=")
                env[name] = shlex.split(value)[0] if value else ""
    return env


def _entry_settings(entry: Path) -> dict[str, str]:
    lines = (entry / "oracle.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def _load(binary: str, crd_dir: str, samples_dir: str, source: str, default_judge: bool) -> Oracle:
    proc = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    info = json.loads(proc.stdout)
    return Oracle(
        binary=binary,
        crd_dir=crd_dir,
        samples_dir=samples_dir,
        operator_version=info["operatorVersion"],
        default_gates=info["featureGates"],
        source=source or info.get("operatorSource", ""),
        default_judge=default_judge,
    )


@cache
def find_oracles() -> tuple[Oracle, ...]:
    """Every oracle of ``KUBERAY_ORACLE_ENTRIES`` (scripts/ensure-oracle's cache entries, the default judge
    first), else the one named by the other KUBERAY_ORACLE* variables, else the cached builds; then a
    :class:`RecordedOracle` for each recorded version none of them is; () when no live oracle."""
    env = {name: os.environ.get(name, "") for name in (*ENV_VARS, "KUBERAY_ORACLE_ENTRIES")}
    if not env["KUBERAY_ORACLE"] and not env["KUBERAY_ORACLE_ENTRIES"]:
        env = {**env, **_env_from_ensure()}
    oracles: list[Oracle] = []
    if env.get("KUBERAY_ORACLE_ENTRIES"):
        for i, entry in enumerate(Path(e) for e in env["KUBERAY_ORACLE_ENTRIES"].split(":") if e):
            settings = _entry_settings(entry)
            binary = str(entry / "bin" / "kuberay-oracle")
            oracles.append(
                _load(binary, settings["crd_dir"], settings.get("samples_dir", ""), settings["source_desc"], i == 0)
            )
    elif env.get("KUBERAY_ORACLE") and os.access(env["KUBERAY_ORACLE"], os.X_OK):
        samples = env.get("KUBERAY_ORACLE_SAMPLES_DIR", "")
        oracles.append(_load(env["KUBERAY_ORACLE"], env["KUBERAY_ORACLE_CRD_DIR"], samples, "", True))
    # The older versions CI does not build: from their recordings, after the live ones (a live oracle of a
    # recorded version wins, and holds its answers against the recording).
    if oracles and not os.environ.get(_recorded.RECORD_TO):
        live = {o.operator_version for o in oracles}
        for version in _recorded.recorded_versions():
            found = recorded_oracle(version)
            if version not in live and found is not None:
                oracles.append(found)
    return tuple(oracles)


def find_oracle() -> Oracle | None:
    """The default judge (the first of :func:`find_oracles`), or None."""
    found = find_oracles()
    return found[0] if found else None
