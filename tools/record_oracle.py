"""Record the older operator versions' oracle answers for tests/oracle (scripts/gen-oracle-recordings).

CI builds only the default judge's oracle; the older versions (``tests/oracle/_recorded.py`` ``RECORDED``) answer
from ``tests/oracle/recorded/<version>.json.gz``. This runs the oracle tier with the live older oracles (the
cache entries of ``scripts/ensure-oracle``, given by ``--entries``), so that exactly the requests the tests send
are recorded (the corpora are deterministic: hypothesis with ``derandomize=True``, the samples and rule examples
in file order), then writes each version's answers, keyed by request, as canonical gzip'd JSON (no timestamp:
the same answers give the same bytes).

    usage: tools/record_oracle.py [--entries ENTRY[:ENTRY...]] [--out DIR] [pytest args...]

Without ``--entries`` it asks ``scripts/ensure-oracle --print-env`` for the ``RECORDED`` versions (building any
not cached: a few minutes of Go per version on 2 cores).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from oracle._recorded import RECORD_TO, comparable, difference  # noqa: E402  (tests/oracle: not a package)


def _settings(entry: Path) -> dict[str, str]:
    lines = (entry / "oracle.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def _ensure_entries() -> str:
    from oracle._recorded import RECORDED

    cmd = [str(REPO / "scripts" / "ensure-oracle"), "--print-env"]
    for version in RECORDED:
        cmd += ["--version", version]
    out = subprocess.run(cmd, capture_output=False, stdout=subprocess.PIPE, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("export KUBERAY_ORACLE_ENTRIES="):
            return shlex.split(line.partition("=")[2])[0]
    raise SystemExit("record_oracle: scripts/ensure-oracle printed no KUBERAY_ORACLE_ENTRIES")


def _merge(files: list[Path]) -> dict[str, Any]:
    """Every key's answer; the same request answered twice differently is a non-deterministic oracle: an error."""
    answers: dict[str, Any] = {}
    conflicts = []
    for file in files:
        for line in file.read_text().splitlines():
            key, answer = json.loads(line)
            if key in answers and comparable(answers[key]) != comparable(answer):
                where, one, other = difference(comparable(answers[key]), comparable(answer))
                conflicts.append(f"{key} at {where}: {json.dumps(one)[:300]} / {json.dumps(other)[:300]}")
            answers.setdefault(key, answer)
    if conflicts:
        listed = "\n  ".join(sorted(set(conflicts))[:20])
        raise SystemExit(
            f"record_oracle: {len(conflicts)} requests answered differently twice ({files[0].name}):\n  {listed}"
        )
    return answers


def write(out: Path, data: dict[str, Any]) -> int:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    blob = gzip.compress(text.encode(), compresslevel=9, mtime=0)
    out.write_bytes(blob)
    return len(blob)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", help="':'-separated ensure-oracle cache entries (default: ensure-oracle's)")
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "oracle" / "recorded")
    args, pytest_args = parser.parse_known_args(argv)
    entries = [Path(e) for e in (args.entries or _ensure_entries()).split(":") if e]
    versions = {_settings(e)["operator_version"]: e for e in entries}
    with tempfile.TemporaryDirectory(prefix="oracle-record-") as tmp:
        env = {
            **os.environ,
            "KUBERAY_ORACLE_ENTRIES": ":".join(map(str, entries)),
            RECORD_TO: tmp,
            "PULUMI_KUBERAY_ORACLE_RECORDED": " ".join(versions),
            "PULUMI_KUBERAY_ORACLE_REPORT": str(Path(tmp) / "report.json"),
        }
        # The tests' ordinary corpus (the deep run's 20,000 cases are the default judge's, never recorded).
        env.pop("PULUMI_KUBERAY_DEEP", None)
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "tests/oracle", *pytest_args]
        print("record_oracle: " + " ".join(cmd), file=sys.stderr)
        rc = subprocess.run(cmd, cwd=REPO, env=env, check=False).returncode
        if rc not in (0, 1):
            raise SystemExit(f"record_oracle: pytest exited {rc}: nothing written")
        if rc == 1:
            print("record_oracle: some oracle tests fail at these versions (recorded as they are)", file=sys.stderr)
        args.out.mkdir(parents=True, exist_ok=True)
        for version, entry in sorted(versions.items()):
            files = sorted(Path(tmp).glob(f"{version}.*.jsonl"))
            answers = _merge(files)
            if not answers:
                raise SystemExit(f"record_oracle: the tests sent no request to the {version} oracle")
            info = json.loads(
                subprocess.run(
                    [str(entry / "bin" / "kuberay-oracle"), "--version"], capture_output=True, text=True, check=True
                ).stdout
            )
            data = {
                "version": version,
                "source": _settings(entry)["source_desc"],
                "featureGates": info["featureGates"],
                "regenerate": "scripts/gen-oracle-recordings",
                "answers": answers,
            }
            out = args.out / f"{version}.json.gz"
            size = write(out, data)
            print(f"record_oracle: {out.relative_to(REPO)}: {len(answers)} answers, {size:,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
