"""``python -m bench.compare BEFORE``: this checkout's package against another checkout's, side by side, in one run.

Every row of ``python -m bench`` is measured for both packages with this checkout's bench
children, interleaved (raw / before / after in turn, fresh interpreters), medians: the figures of one run on one
machine, so the two columns share its load. ``BEFORE`` is a checkout (its ``components/`` and ``policies/``).
``--quick``: fewer repetitions, N up to 100; ``--only ...,engine`` adds the real engine's row, ``--only
...,devup`` the main job's (both need ``pulumi`` on PATH: ``eval "$(scripts/ensure-pulumi --print-env)"``; devup
runs each checkout's own ``scripts/dev-up``, so ``BEFORE`` needs its venv: a clone, not a worktree in use).
Prints a Markdown table (bench/README.md keeps one).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench._stats import REPO, TREE_ENV, median, run_child

SIDES = ("before", "after")


def _program(trees: dict[str, Path], ns: list[int], reps: int) -> list[str]:
    rows = []
    for n in ns:
        runs: dict[str, list[dict[str, Any]]] = {"raw": [], **{side: [] for side in SIDES}}
        for _ in range(reps):
            runs["raw"].append(run_child("_program_child", "raw", str(n)))
            for side in SIDES:
                runs[side].append(run_child("_program_child", "ours", str(n), tree=trees[side]))
        seconds = {side: median([r["seconds"] for r in items]) for side, items in runs.items()}
        rss = {side: median([r["peak_rss_mib"] for r in items]) for side, items in runs.items()}
        per = {side: seconds[side] * 1000 / n for side in seconds}
        rows.append(
            f"| program N={n}, ours vs raw CustomResource | {per['before']:.1f} ms/cluster "
            f"({seconds['before'] / seconds['raw']:.2f}x) | {per['after']:.1f} ms/cluster "
            f"({seconds['after'] / seconds['raw']:.2f}x) | {per['raw']:.1f} ms/cluster | "
            f"{'<= 1.10x' if n == 1000 else ''} |"
        )
        rows.append(
            f"| peak RSS N={n} | {rss['before']:.0f} MiB ({rss['before'] / rss['raw']:.2f}x) "
            f"| {rss['after']:.0f} MiB ({rss['after'] / rss['raw']:.2f}x) | {rss['raw']:.0f} MiB | "
            f"{'<= 1.20x' if n == 1000 else ''} |"
        )
    return rows


def _rules(trees: dict[str, Path], seconds: str, reps: int) -> list[str]:
    runs: dict[str, list[float]] = {side: [] for side in SIDES}
    fresh: dict[str, list[float]] = {side: [] for side in SIDES}
    for _ in range(reps):
        for side in SIDES:
            got = run_child("_rules_child", seconds, tree=trees[side])
            runs[side].append(got["docs_per_s"])
            fresh[side].append(got.get("docs_per_s_fresh_yaml", float("nan")))
    return [
        f"| rules.check, sample docs | {median(runs['before']):.0f} docs/s/core | {median(runs['after']):.0f} "
        "docs/s/core | | >= 2000 |",
        f"| the same, YAML strings parsed again every round | {median(fresh['before']):.0f} docs/s/core "
        f"| {median(fresh['after']):.0f} docs/s/core | | |",
    ]


def _pack(trees: dict[str, Path], rounds: str) -> list[str]:
    got = {side: run_child("_pack_child", rounds, tree=trees[side]) for side in SIDES}
    return [
        f"| pack Analyze over gRPC | median {got['before']['median_ms']:.1f} ms, p99 {got['before']['p99_ms']:.1f} ms "
        f"| median {got['after']['median_ms']:.1f} ms, p99 {got['after']['p99_ms']:.1f} ms | | p99 <= 5 ms |"
    ]


def _lint_help(tree: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree / "components")}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pulumi_kuberay.cli.lint", "--help"], env=env, capture_output=True, check=True
    )
    return time.perf_counter() - start


def _imports(trees: dict[str, Path], reps: int) -> list[str]:
    cases = ("component", "lint")
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    floor: list[float] = []
    helps: dict[str, list[float]] = {side: [] for side in SIDES}
    for _ in range(reps):
        floor.append(run_child("_import_child", "floor")["seconds"])
        for side in SIDES:
            for case in cases:
                runs.setdefault((side, case), []).append(run_child("_import_child", case, tree=trees[side]))
            helps[side].append(_lint_help(trees[side]))
    base = median(floor)

    def ms(side: str, case: str) -> float:
        return median([r["seconds"] for r in runs[(side, case)]]) * 1000

    def modules(side: str, case: str) -> int:
        return int(runs[(side, case)][-1]["modules"])

    return [
        f"| `from pulumi_kuberay import RayCluster` vs `import pulumi, pulumi_kubernetes.apiextensions` "
        f"| {ms('before', 'component'):.0f} ms ({ms('before', 'component') / 1000 / base:.2f}x) "
        f"| {ms('after', 'component'):.0f} ms ({ms('after', 'component') / 1000 / base:.2f}x) | {base * 1000:.0f} ms "
        "| <= 1.15x |",
        f"| kuberay-lint: import / modules / `--help` start | {ms('before', 'lint'):.0f} ms / "
        f"{modules('before', 'lint')} / {median(helps['before']) * 1000:.0f} ms | {ms('after', 'lint'):.0f} ms / "
        f"{modules('after', 'lint')} / {median(helps['after']) * 1000:.0f} ms | | start <= 150 ms |",
    ]


def _engine(trees: dict[str, Path]) -> list[str]:
    got = {side: run_child("_engine_child", "50", timeout=3600, tree=trees[side]) for side in SIDES}
    return [
        f"| real `pulumi preview`, 50 clusters, ours vs plain CustomResources | {got['before']['ours_s']:.1f} s "
        f"({got['before']['ratio']:.2f}x) | {got['after']['ours_s']:.1f} s ({got['after']['ratio']:.2f}x) "
        f"| {median([got[s]['raw_s'] for s in SIDES]):.1f} s | <= 1.10x |",
        f"| real `pulumi preview`, 50 hand-written components (a CustomResource each, no checks) | "
        f"{got['before'].get('wrapped_s', float('nan')):.1f} s ({got['before'].get('wrapped_ratio', float('nan')):.2f}x) "
        f"| {got['after'].get('wrapped_s', float('nan')):.1f} s ({got['after'].get('wrapped_ratio', float('nan')):.2f}x) "
        "| | the floor of any component |",
    ]


def _devup(trees: dict[str, Path]) -> list[str]:
    got = {side: run_child("_devup_child", "1", timeout=3600, tree=trees[side]) for side in SIDES}

    def cell(side: str) -> str:
        with_s = got[side]["with_create_wall_s"] + got[side]["with_unchanged_wall_s"]
        cpu_s = got[side]["with_create_cpu_s"] + got[side]["with_unchanged_cpu_s"]
        alone = f"no change alone {got[side]['with_unchanged_wall_s']:.0f} s wall, {got[side]['with_unchanged_cpu_s']:.0f} s CPU"
        return (
            f"{with_s:.0f} s wall, {cpu_s:.0f} s CPU ({got[side]['wall_ratio']:.2f}x, CPU {got[side]['cpu_ratio']:.2f}x; "
            f"{alone})"
        )

    without = median([got[s]["without_create_wall_s"] + got[s]["without_unchanged_wall_s"] for s in SIDES])
    return [
        f"| `scripts/dev-up` twice (create, no change) with the operator's 4 CRDs vs without | {cell('before')} "
        f"| {cell('after')} | {without:.0f} s wall without | <= 2x |"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.compare")
    parser.add_argument("before", type=Path, help="the other checkout (its components/ and policies/)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="program,rules,pack,imports")
    args = parser.parse_args()
    only = set(args.only.split(","))
    trees = {"before": args.before.resolve(), "after": REPO}
    os.environ.pop(TREE_ENV, None)
    rows = ["| measure | before | after | raw / floor | target |", "|---|---|---|---|---|"]
    if "program" in only:
        rows += _program(trees, [10, 100] if args.quick else [10, 100, 1000], 3 if args.quick else 5)
    if "rules" in only:
        rows += _rules(trees, "3" if args.quick else "8", 1 if args.quick else 3)
    if "pack" in only:
        rows += _pack(trees, "3" if args.quick else "10")
    if "imports" in only:
        rows += _imports(trees, 5 if args.quick else 11)
    if "engine" in only and shutil.which("pulumi"):
        rows += _engine(trees)
    if "devup" in only and shutil.which("pulumi"):
        rows += _devup(trees)
    load = os.getloadavg()
    print("\n".join(rows))
    print(f"\nload average at the end (1/5/15 min): {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
