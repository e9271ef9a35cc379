"""Import cost in a fresh interpreter: ``python -m bench._import_child CASE`` prints seconds and module count."""

from __future__ import annotations

import json
import sys
import time

CASES = {
    "floor": "import pulumi, pulumi_kubernetes.apiextensions",
    "package": "import pulumi_kuberay",
    "component": "from pulumi_kuberay import RayCluster",
    "lint": "import pulumi_kuberay.cli.lint",
}


def main() -> None:
    case = sys.argv[1]
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
