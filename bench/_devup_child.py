"""The main job's cost: ``scripts/dev-up`` (``pulumi up``: preview, then update) of the dev stack with the
operator's four CRDs vs without them, each side twice: the first run creates, the second is a no-change update.

With: dev-up as committed. Where the checkout has the CRD stack (``stacks/Pulumi.dev-crds.yaml``), the CRDs are
that stack's: brought up by the first run, skipped by the second (nothing changed); before it, dev applied them
itself (``crds: manage``) on every run. Without: dev with ``crds: leave`` and no CRD stack.

``python -m bench._devup_child REPS`` (needs ``pulumi`` on PATH and the reference copy, KUBERAY_REFERENCE_DIR)
runs the measured checkout's own ``scripts/dev-up`` (its venv, program and package) on a copy of its
``stacks/Pulumi.dev.yaml`` (and ``Pulumi.dev-crds.yaml``) that renders into a temporary directory, with a
temporary file backend; nothing of the checkout's own state or ``rendered/`` is touched. Prints medians of wall
and CPU seconds (the CPU of every process of the run: engine, provider, program, policy pack; steadier than wall
on a shared machine), the checkpoint sizes (dev's, the CRD stack's) and the rendered bytes per side.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from bench._stats import median, package_tree

SIDES = ("without", "with")
OPERATOR_KEY = "pulumi-kuberay:operator"
#: The environment variable that gives scripts/dev-up its CRD stack's config file (empty: no CRD stack).
CRDS_CONFIG_ENV = "PULUMI_KUBERAY_DEV_CRDS_CONFIG"


def stack_config(tree: Path, side: str, rendered: Path, stack_name: str = "dev") -> dict[str, Any]:
    """A dev stack's config, rendering to ``rendered``; ``without``: the operator's chart without its CRDs."""
    stack = yaml.safe_load((tree / "stacks" / f"Pulumi.{stack_name}.yaml").read_text())
    config = dict(stack["config"])
    config["pulumi-kuberay:render_dir"] = str(rendered)
    operator = dict(config[OPERATOR_KEY])
    if side == "without" and operator.get("crds", "manage") != "leave":
        config[OPERATOR_KEY] = {**operator, "crds": "leave", "installedCrds": str(operator.get("version", "1.7.0"))}
    return {**stack, "config": config}


def has_crd_stack(tree: Path) -> bool:
    return (tree / "stacks" / "Pulumi.dev-crds.yaml").is_file()


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _dev_up(tree: Path, config_file: Path, state: Path, crds_config: str | None) -> dict[str, float]:
    env = {
        **os.environ,
        "PULUMI_BACKEND_URL": f"file://{state}",
        "PULUMI_CONFIG_PASSPHRASE": "dev-only-passphrase",  # the stack file's encryptionsalt is for this one
    }
    if crds_config is not None:
        env[CRDS_CONFIG_ENV] = crds_config
    env.pop("PYTHONPATH", None)  # the checkout's own venv and package, as a user runs it
    cpu, start = _cpu_of_children(), time.perf_counter()
    proc = subprocess.run(
        [str(tree / "scripts" / "dev-up"), "--config-file", str(config_file)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"scripts/dev-up failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}")
    return {"wall_s": wall, "cpu_s": _cpu_of_children() - cpu}


def _size(state: Path, stack: str) -> int:
    checkpoint = next(state.rglob(f"stacks/*/{stack}.json"), None)
    return checkpoint.stat().st_size if checkpoint is not None else 0


def _bytes_under(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    tree = package_tree()
    runs: dict[tuple[str, str], list[dict[str, float]]] = {
        (side, run): [] for side in SIDES for run in ("create", "unchanged")
    }
    sizes: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-devup-") as tmp:
        for rep in range(reps):
            for side in SIDES:  # interleaved, a fresh state each time
                work = Path(tmp) / f"{side}-{rep}"
                (work / "state").mkdir(parents=True)
                config_file = work / "Pulumi.dev.yaml"
                config_file.write_text(yaml.safe_dump(stack_config(tree, side, work / "rendered"), sort_keys=False))
                crds_config: str | None = None
                if has_crd_stack(tree):
                    crds_config = ""  # without: no CRD stack
                    if side == "with":
                        crds_file = work / "Pulumi.dev-crds.yaml"
                        crds = stack_config(tree, side, work / "rendered", "dev-crds")
                        crds_file.write_text(yaml.safe_dump(crds, sort_keys=False))
                        crds_config = str(crds_file)
                for run in ("create", "unchanged"):
                    runs[(side, run)].append(_dev_up(tree, config_file, work / "state", crds_config))
                sizes[side] = {
                    "checkpoint_bytes": _size(work / "state", "dev"),
                    "crd_checkpoint_bytes": _size(work / "state", "dev-crds"),
                    "rendered_bytes": _bytes_under(work / "rendered"),
                }
    out: dict[str, Any] = {"repetitions": reps, "sizes": sizes, "crd_stack": has_crd_stack(tree)}
    for (side, run), items in runs.items():
        out[f"{side}_{run}_wall_s"] = median([i["wall_s"] for i in items])
        out[f"{side}_{run}_cpu_s"] = median([i["cpu_s"] for i in items])
    for measure in ("wall", "cpu"):
        out[f"{measure}_ratio"] = sum(out[f"with_{r}_{measure}_s"] for r in ("create", "unchanged")) / sum(
            out[f"without_{r}_{measure}_s"] for r in ("create", "unchanged")
        )
    out["load_average"] = os.getloadavg()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
