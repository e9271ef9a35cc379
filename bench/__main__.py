"""``python -m bench``: what our validation and components cost, side by side with the raw alternative.

Prints a table, writes ``bench/results/latest.json`` and ``bench/results/scaling.png``. Every comparison runs
both sides in the same run, interleaved, several repetitions, medians and ratios; each measurement runs in a
fresh process so peak RSS belongs to one side only. Options: ``--quick`` (fewer repetitions, N up to 100),
``--only program,rules,pack,imports,engine,devup,admission,preflight``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench._stats import REPO, median, run_child

RESULTS = REPO / "bench" / "results"
TARGETS = {
    "program_ratio_at_1000": 1.10,
    "rules_docs_per_s": 2000.0,
    "pack_p99_ms": 5.0,
    "import_ratio": 1.15,
    "devup_ratio": 2.0,
}


def _program(ns: list[int], reps: int) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for n in ns:
        runs: dict[str, list[dict[str, Any]]] = {"ours": [], "raw": []}
        for _ in range(reps):
            for side in ("raw", "ours"):  # interleaved
                runs[side].append(run_child("_program_child", side, str(n)))
        row: dict[str, Any] = {"n": n}
        for side, items in runs.items():
            row[f"{side}_s"] = median([r["seconds"] for r in items])
            row[f"{side}_rss_mib"] = median([r["peak_rss_mib"] for r in items])
            row[f"{side}_ms_per_resource"] = row[f"{side}_s"] * 1000 / n
        row["time_ratio"] = row["ours_s"] / row["raw_s"]
        row["rss_ratio"] = row["ours_rss_mib"] / row["raw_rss_mib"]
        rows.append(row)
    return {"rows": rows, "repetitions": reps}


def _imports(reps: int) -> dict[str, Any]:
    cases = ("floor", "package", "component", "lint")
    samples: dict[str, list[dict[str, Any]]] = {c: [] for c in cases}
    for _ in range(reps):
        for case in cases:
            samples[case].append(run_child("_import_child", case))
    out: dict[str, Any] = {}
    for case, items in samples.items():
        out[case] = {
            "median_s": median([i["seconds"] for i in items]),
            "modules": items[-1]["modules"],
            "imports_pulumi": items[-1]["pulumi"],
        }
    out["component_over_floor"] = out["component"]["median_s"] / out["floor"]["median_s"]
    out["package_over_floor"] = out["package"]["median_s"] / out["floor"]["median_s"]
    out["repetitions"] = reps
    return out


def _lint_startup(reps: int) -> float:
    import time

    # The script of this interpreter's environment (CI does not put the venv on PATH), else the module.
    script = Path(sys.executable).parent / "kuberay-lint"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "pulumi_kuberay.lint"]
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        subprocess.run([*command, "--help"], capture_output=True, check=True, cwd=REPO)
        times.append(time.perf_counter() - start)
    return median(times)


def _chart(program: dict[str, Any], path: Path) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib not installed (pip install '.[bench]'): no chart"
    rows = program["rows"]
    ns = [r["n"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for side, label in (("ours", "pulumi_kuberay.RayCluster"), ("raw", "hand-written CustomResource")):
        left.plot(ns, [r[f"{side}_s"] for r in rows], marker="o", label=label)
        right.plot(ns, [r[f"{side}_ms_per_resource"] for r in rows], marker="o", label=label)
    for ax, title, unit in ((left, "total time", "s"), (right, "time per cluster", "ms")):
        ax.set_xscale("log")
        ax.set_xlabel("RayClusters in the program (N)")
        ax.set_ylabel(unit)
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return str(path.relative_to(REPO))


def devup_row(devup: dict[str, Any]) -> str:
    """``scripts/dev-up`` twice (create, then no change) with the operator's CRDs vs without: wall and CPU."""

    def side(name: str) -> str:
        return (
            f"{devup[f'{name}_create_wall_s']:.1f} + {devup[f'{name}_unchanged_wall_s']:.1f} s wall, "
            f"{devup[f'{name}_create_cpu_s']:.1f} + {devup[f'{name}_unchanged_cpu_s']:.1f} s CPU"
        )

    sizes = devup["sizes"]["with"]
    checkpoint = sizes["checkpoint_bytes"] / 2**20
    crd_checkpoint = sizes.get("crd_checkpoint_bytes", 0) / 2**20  # the CRD stack's, where the checkout has one
    return (
        f"| scripts/dev-up (create + no change), with the operator's CRDs ({checkpoint:.1f} MiB dev checkpoint, "
        f"{crd_checkpoint:.1f} MiB CRD stack's) | "
        f"{side('with')} | {side('without')} (without) | {devup['wall_ratio']:.2f} (CPU {devup['cpu_ratio']:.2f}) "
        f"| <= 2 | {'yes' if devup['wall_ratio'] <= TARGETS['devup_ratio'] else 'NO'} |"
    )


def admission_rows(admission: dict[str, Any]) -> list[str]:
    """Server-side dry-run creates against the local API server, with the catalogue's policies and without."""
    rows = []
    for mode in ("sequential", "concurrent"):
        without, with_, again = (admission[p][mode] for p in ("without", "with", "without_again"))
        rows.append(
            f"| dry-run create, {admission['policies']} admission policies "
            f"({admission.get('rules', admission['policies'])} rules), {with_['requests']} requests, "
            f"{with_['concurrency']} at a time | p50 {with_['p50_ms']:.1f} ms, p99 {with_['p99_ms']:.1f} ms "
            f"| without: p50 {without['p50_ms']:.1f} ms, p99 {without['p99_ms']:.1f} ms (after: "
            f"{again['p50_ms']:.1f} / {again['p99_ms']:.1f}) | {with_['p99_ms'] / without['p99_ms']:.2f} (p99) | | |"
        )
    return rows


def _preflight(n: int, nodes: int, reps: int) -> dict[str, Any]:
    """The preview's added time of the preflight: N RayClusters under mocks, the cluster (NODES nodes, the Pods of N
    Ray objects) read from a fake API, against the same program with the preflight skipped; interleaved, medians."""
    runs: dict[str, list[dict[str, Any]]] = {"off": [], "on": []}
    for _ in range(reps):
        for side in ("off", "on"):
            runs[side].append(run_child("_preflight_child", side, str(n), str(nodes)))
    on, off = (median([r["seconds"] for r in runs[s]]) for s in ("on", "off"))
    return {
        "n": n,
        "nodes": nodes,
        "on_s": on,
        "off_s": off,
        "added_s": on - off,
        "read_s": median([r["read_s"] for r in runs["on"]]),
        "requests": runs["on"][-1]["requests"],
        "repetitions": reps,
    }


def preflight_rows(result: dict[str, Any]) -> list[str]:
    added_ms = result["added_s"] * 1000 / result["n"]
    return [
        f"| preview with the preflight, N={result['n']} Ray objects, {result['nodes']} nodes (fake API) "
        f"| {result['on_s']:.1f} s | {result['off_s']:.1f} s (skipped) | {result['on_s'] / result['off_s']:.2f} | | |",
        f"| the preflight's part: added {result['added_s']:.1f} s ({added_ms:.2f} ms/object), the snapshot reads "
        f"{result['read_s']:.2f} s | {result['requests']} API requests | | | | |",
    ]


def _table(results: dict[str, Any]) -> str:
    lines = ["| measure | ours | raw / floor | ratio | target | met |", "|---|---|---|---|---|---|"]
    program = results.get("program")
    if program:
        for row in program["rows"]:
            target = TARGETS["program_ratio_at_1000"] if row["n"] == 1000 else None
            met = "" if target is None else ("yes" if row["time_ratio"] <= target else "NO")
            lines.append(
                f"| program N={row['n']} time | {row['ours_s']:.2f} s ({row['ours_ms_per_resource']:.2f} ms/cluster) "
                f"| {row['raw_s']:.2f} s ({row['raw_ms_per_resource']:.2f} ms/cluster) | {row['time_ratio']:.2f} "
                f"| {'<= 1.10' if target else ''} | {met} |"
            )
            lines.append(
                f"| program N={row['n']} peak RSS | {row['ours_rss_mib']:.0f} MiB | {row['raw_rss_mib']:.0f} MiB "
                f"| {row['rss_ratio']:.2f} | | |"
            )
    rules_result = results.get("rules")
    if rules_result:
        ok = rules_result["docs_per_s"] >= TARGETS["rules_docs_per_s"]
        lines.append(
            f"| rules.check throughput ({rules_result['corpus']} sample docs) "
            f"| {rules_result['docs_per_s']:.0f} docs/s/core "
            f"| | | >= 2000 | {'yes' if ok else 'NO'} |"
        )
        if "docs_per_s_fresh_yaml" in rules_result:
            lines.append(
                f"| the same, YAML strings parsed again every round | {rules_result['docs_per_s_fresh_yaml']:.0f} "
                "docs/s/core | | | | |"
            )
    pack = results.get("pack")
    if pack:
        ok = pack["p99_ms"] <= TARGETS["pack_p99_ms"]
        lines.append(
            f"| policy pack Analyze over gRPC ({pack['calls']} calls) | median {pack['median_ms']:.2f} ms, "
            f"p99 {pack['p99_ms']:.2f} ms | | | p99 <= 5 ms | {'yes' if ok else 'NO'} |"
        )
        if "crds_analyze_s" in pack:
            lines.append(
                f"| policy pack on the four KubeRay CRDs (4 MB) | Analyze x4 {pack['crds_analyze_s']:.2f} s, "
                f"AnalyzeStack {pack['crds_analyze_stack_s']:.2f} s | | | | |"
            )
    imports = results.get("imports")
    if imports:
        ok = imports["component_over_floor"] <= TARGETS["import_ratio"]
        lines.append(
            f"| import pulumi_kuberay (lazy) | {imports['package']['median_s'] * 1000:.0f} ms | "
            f"{imports['floor']['median_s'] * 1000:.0f} ms | {imports['package_over_floor']:.2f} | | |"
        )
        lines.append(
            f"| from pulumi_kuberay import RayCluster | {imports['component']['median_s'] * 1000:.0f} ms | "
            f"{imports['floor']['median_s'] * 1000:.0f} ms | {imports['component_over_floor']:.2f} | <= 1.15 "
            f"| {'yes' if ok else 'NO'} |"
        )
        lines.append(
            f"| kuberay-lint: imports pulumi? | {imports['lint']['imports_pulumi']} | | | False "
            f"| {'yes' if not imports['lint']['imports_pulumi'] else 'NO'} |"
        )
        if "lint_startup_s" in results:
            lines.append(f"| kuberay-lint --help start-up | {results['lint_startup_s'] * 1000:.0f} ms | | | | |")
    devup = results.get("devup")
    if devup:
        lines.append(devup_row(devup))
    admission = results.get("admission")
    if admission:
        lines += admission_rows(admission)
    preflight = results.get("preflight")
    if preflight:
        lines += preflight_rows(preflight)
    engine = results.get("engine")
    if engine:
        lines.append(
            f"| pulumi preview, N={engine['n']} (real engine) | {engine['ours_s']:.1f} s | {engine['raw_s']:.1f} s "
            f"(plain CustomResource) | {engine['ratio']:.2f} | <= 1.10 | {'yes' if engine['ratio'] <= 1.10 else 'NO'} |"
        )
        if "wrapped_s" in engine:
            lines.append(
                f"| pulumi preview, N={engine['n']}: a hand-written component around each | {engine['wrapped_s']:.1f} s "
                f"| {engine['raw_s']:.1f} s | {engine['wrapped_ratio']:.2f} (ours over it: "
                f"{engine['ours_over_wrapped']:.2f}) | | |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="program,rules,pack,imports,engine,devup,admission,preflight")
    args = parser.parse_args()
    only = set(args.only.split(","))
    reps = 3 if args.quick else 5
    results: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
    }
    if "program" in only:
        results["program"] = _program([10, 100] if args.quick else [10, 100, 1000], reps)
    if "rules" in only:
        results["rules"] = run_child("_rules_child", "3" if args.quick else "10")
    if "pack" in only:
        results["pack"] = run_child("_pack_child", "3" if args.quick else "10")
    if "imports" in only:
        results["imports"] = _imports(7 if args.quick else 15)
        results["lint_startup_s"] = _lint_startup(5)
    if "engine" in only and shutil.which("pulumi"):
        try:
            results["engine"] = run_child("_engine_child", "50", timeout=3600)
        except (RuntimeError, ModuleNotFoundError) as exc:
            results["engine_error"] = str(exc)[-500:]
    if "devup" in only and shutil.which("pulumi"):
        try:
            results["devup"] = run_child("_devup_child", "1", timeout=3600)
        except (RuntimeError, ModuleNotFoundError) as exc:
            results["devup_error"] = str(exc)[-500:]
    if "admission" in only:
        try:
            results["admission"] = run_child("_admission_child", "100" if args.quick else "200", timeout=1800)
        except (RuntimeError, ModuleNotFoundError) as exc:
            results["admission_error"] = str(exc)[-500:]
    if "preflight" in only:
        results["preflight"] = _preflight(100 if args.quick else 1000, 100, 1 if args.quick else 3)
    if "program" in results:
        results["chart"] = _chart(results["program"], RESULTS / "scaling.png")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(results, indent=2) + "\n")
    print(_table(results))
    print(f"\nJSON: {(RESULTS / 'latest.json').relative_to(REPO)}; chart: {results.get('chart', 'none')}")


if __name__ == "__main__":
    main()
