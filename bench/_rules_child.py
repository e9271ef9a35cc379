"""Rule-catalogue throughput in one process: ``rules.check`` over every Ray sample document, repeated.

``python -m bench._rules_child SECONDS`` prints documents/s (one process = one core) and the corpus size.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import yaml
from pulumi_kuberay import rules


def sample_documents() -> list[dict[str, Any]]:
    root = Path(os.environ.get("KUBERAY_REFERENCE_DIR", Path(__file__).resolve().parents[2] / "shared"))
    docs: list[dict[str, Any]] = []
    for path in sorted((root / "kuberay" / "v1.7.0" / "samples").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and str(doc.get("apiVersion", "")).startswith("ray.io/"):
                docs.append(doc)
    return docs


def main() -> None:
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    docs = sample_documents()
    gates = {name: True for name in rules.DEFAULT_FEATURE_GATES}
    for doc in docs:  # warm-up: imports, rule registration, pydantic schema build
        rules.check(doc, feature_gates=gates)
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < budget:
        for doc in docs:
            rules.check(doc, feature_gates=gates)
        done += len(docs)
    elapsed = time.perf_counter() - start
    print(json.dumps({"documents": done, "seconds": elapsed, "docs_per_s": done / elapsed, "corpus": len(docs)}))


if __name__ == "__main__":
    main()
