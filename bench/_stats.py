"""Small statistics and process helpers shared by the benchmarks (no third-party dependency)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


#: The tree whose package a child measures (``bench.compare`` points it at another checkout).
TREE_ENV = "PULUMI_KUBERAY_BENCH_TREE"


def package_tree() -> Path:
    """The checkout whose ``components/`` and ``policies/`` the children measure (this one by default)."""
    return Path(os.environ.get(TREE_ENV) or REPO)


#: Where the children's bytecode goes (see run_child).
PYCACHE_PREFIX = os.path.join(tempfile.gettempdir(), f"pulumi-kuberay-bench-pyc-{os.getuid()}")
_COMPILED: set[Path] = set()


def run_child(module: str, *args: str, timeout: float = 1800, tree: Path | None = None) -> dict[str, Any]:
    """Run ``python -m bench.<module> args`` in a fresh interpreter; it prints one JSON object as its last line.
    ``tree``: measure that checkout's package (the children stay this checkout's)."""
    tree = tree or REPO
    env = {
        **os.environ,
        TREE_ENV: str(tree),
        "PYTHONPATH": os.pathsep.join([str(REPO), str(tree / "components"), os.environ.get("PYTHONPATH", "")]),
        # Every child loads our modules from bytecode, as an installed wheel (pip compiles it) does: where
        # PYTHONDONTWRITEBYTECODE is set (this sandbox), each measurement compiled ~35 modules (~85 ms of CPU) that
        # the raw side, from site-packages, did not. Under a prefix in the temporary directory: never in a checkout.
        "PYTHONPYCACHEPREFIX": PYCACHE_PREFIX,
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if tree not in _COMPILED:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(tree / "components"), str(REPO / "bench")],
            env=env, capture_output=True, check=False,
        )
        _COMPILED.add(tree)
    proc = subprocess.run(
        [sys.executable, "-m", f"bench.{module}", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"bench.{module} {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def peak_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
