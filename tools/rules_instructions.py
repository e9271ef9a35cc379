"""Instructions per pass of ``rules.check`` over the upstream samples, counted by callgrind: a figure that, unlike
the bench's documents/s, does not move with the load of a shared machine.

Run from the repository root (valgrind installed)::

    KUBERAY_REFERENCE_DIR=../shared PYTHONPATH=components .venv/bin/python tools/rules_instructions.py [--passes 3]

It runs the bench's rules workload (``bench/_rules_child.py``: the Ray documents of the samples, every feature gate
on, one warm-up pass) under ``valgrind --tool=callgrind`` twice, with no pass and with ``--passes`` passes, and
prints the difference per pass: start-up, imports and the warm-up cancel out. Both runs share a hash seed and a
bytecode cache, so two runs of one tree agree to about 0.1 %. ``--workload N`` is what valgrind runs.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def workload(passes: int) -> None:
    """The warm-up pass, then ``passes`` passes of ``rules.check`` over the sample documents."""
    sys.path.insert(0, str(REPO))  # bench is a directory of the repository, not of the package
    from pulumi_kuberay import rules

    from bench._rules_child import sample_documents

    docs = sample_documents()
    gates = {name: True for name in rules.DEFAULT_FEATURE_GATES}
    for _ in range(passes + 1):
        for doc in docs:
            rules.check(doc, feature_gates=gates)


def _env(cache: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPYCACHEPREFIX": cache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once into the cache: both runs then load the same bytecode
    return env


def _instructions(passes: int, cache: str) -> int:
    """What callgrind counts for a run of ``passes`` passes (the total of the whole process)."""
    env = _env(cache)
    with tempfile.TemporaryDirectory() as out:
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}/callgrind.out",
            sys.executable,
            __file__,
            "--workload",
            str(passes),
        ]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passes", type=int, default=3, help="passes of the measured run (default 3)")
    parser.add_argument("--workload", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.workload is not None:
        workload(args.workload)
        return
    with tempfile.TemporaryDirectory() as cache:
        subprocess.run([sys.executable, __file__, "--workload", "0"], env=_env(cache), check=True)  # fills the cache
        base = _instructions(0, cache)
        measured = _instructions(args.passes, cache)
    per_pass = (measured - base) / args.passes
    print(f"{per_pass:,.0f} instructions per pass ({base:,} without a pass, {measured:,} with {args.passes})")


if __name__ == "__main__":
    main()
