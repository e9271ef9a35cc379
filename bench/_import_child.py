"""Import cost in a fresh interpreter: ``python -m bench._import_child CASE`` prints seconds and module count."""

from __future__ import annotations

import json
import os
import sys
import time

CASES = {
    "floor": "import pulumi, pulumi_kubernetes.apiextensions",
    "package": "import pulumi_kuberay",
    "component": "from pulumi_kuberay import RayCluster",
    "lint": "import pulumi_kuberay.cli.lint",
}


def load_from_bytecode() -> None:
    """Import every module from bytecode, as an installed wheel does (pip compiles it) and a checkout does after its
    first run (``__pycache__``). Where ``PYTHONDONTWRITEBYTECODE`` is set, the package's ~35 modules were compiled
    from source in every measurement (~85 ms of CPU) while the floor's site-packages, compiled by pip, were not.
    The bytecode goes under a prefix in the temporary directory, never into a checkout; the first repetition writes
    it (the figures are medians)."""
    if sys.dont_write_bytecode:  # run_child already sees to it; kept for a child run by hand
        sys.dont_write_bytecode = False
        sys.pycache_prefix = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"pulumi-kuberay-bench-pyc-{os.getuid()}")


def main() -> None:
    case = sys.argv[1]
    load_from_bytecode()
    before = len(sys.modules)
    start = time.perf_counter()
    exec(CASES[case])
    elapsed = time.perf_counter() - start
    print(
        json.dumps(
            {
                "case": case,
                "seconds": elapsed,
                "modules": len(sys.modules) - before,
                "pulumi": "pulumi" in sys.modules,
            }
        )
    )


if __name__ == "__main__":
    main()
