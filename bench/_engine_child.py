"""Real-engine cost: ``pulumi preview`` of N RayClusters through our components vs plain CustomResources.

``python -m bench._engine_child N`` (needs ``pulumi`` on PATH, e.g. ``eval "$(scripts/ensure-pulumi --print-env)"``)
prints the median preview seconds of each side (3 interleaved repetitions) and the ratios. Manifests are rendered
to a directory by an explicit provider, so no cluster is needed. Three sides: ``ours`` (the components), ``raw``
(plain CustomResources) and ``wrapped`` (each CustomResource in a hand-written ComponentResource, no model, no
catalogue, one output): ``wrapped`` over ``raw`` is what any component costs the engine (twice the resources to
register, diff and checkpoint), ``ours`` over ``wrapped`` is what ours adds to that.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._stats import REPO, median, package_tree

PROGRAM = """
import json, os, pulumi, pulumi_kubernetes as k8s
from bench._program_child import cluster_spec

side = pulumi.Config().require("side")
n = int(pulumi.Config().require("n"))
provider = k8s.Provider("render", render_yaml_to_directory=os.path.join(os.getcwd(), "rendered"))
opts = pulumi.ResourceOptions(provider=provider)
if side == "ours":
    import pulumi_kuberay as kr
    for i in range(n):
        kr.RayCluster(f"c{i}", cluster_spec(i), opts, wait_for_ready=False)
elif side == "wrapped":
    from pulumi_kubernetes.apiextensions import CustomResource

    class HandWritten(pulumi.ComponentResource):
        def __init__(self, name, spec):
            super().__init__("bench:index:HandWritten", name, None, opts)
            self.cr = CustomResource(name, api_version="ray.io/v1", kind="RayCluster", metadata={"name": name},
                                     spec=spec, opts=pulumi.ResourceOptions(parent=self))
            self.register_outputs({"name": name})

    for i in range(n):
        HandWritten(f"c{i}", cluster_spec(i))
else:
    # yaml.v2.ConfigGroup would be the natural baseline, but provider 4.25 (the newest we can build here) cannot
    # render a custom resource without a cluster ("failed to determine if the following GVK is namespaced";
    # fixed in 4.32), so the baseline is the same manifests as plain CustomResources.
    from pulumi_kubernetes.apiextensions import CustomResource
    for i in range(n):
        CustomResource(f"c{i}", api_version="ray.io/v1", kind="RayCluster", metadata={"name": f"c{i}"},
                       spec=cluster_spec(i), opts=opts)
"""


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(["pulumi", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"pulumi {' '.join(args)} failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}")
    return time.perf_counter() - start


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "Pulumi.yaml").write_text(
            f"name: bench\nruntime:\n  name: python\n  options:\n    virtualenv: {REPO / '.venv'}\n"
        )
        (work / "__main__.py").write_text(PROGRAM)
        (work / "state").mkdir()
        env = {
            **os.environ,
            "PULUMI_BACKEND_URL": f"file://{work / 'state'}",
            "PULUMI_CONFIG_PASSPHRASE": "bench",
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            "PYTHONPATH": os.pathsep.join([str(REPO), str(package_tree() / "components")]),
        }
        times: dict[str, list[float]] = {"ours": [], "raw": [], "wrapped": []}
        for side in times:
            _run(["stack", "init", side], work, env)
            _run(["config", "set", "--stack", side, "side", side], work, env)
            _run(["config", "set", "--stack", side, "n", str(n)], work, env)
        for _ in range(3):
            for side in ("raw", "wrapped", "ours"):
                times[side].append(_run(["preview", "--stack", side, "--non-interactive"], work, env))
    ours, raw, wrapped = median(times["ours"]), median(times["raw"]), median(times["wrapped"])
    print(json.dumps({
        "n": n, "ours_s": ours, "raw_s": raw, "wrapped_s": wrapped, "ratio": ours / raw,
        "wrapped_ratio": wrapped / raw, "ours_over_wrapped": ours / wrapped, "runs": times,
    }))


if __name__ == "__main__":
    main()
