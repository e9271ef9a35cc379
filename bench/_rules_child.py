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
from pulumi_kuberay import model, rules


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
    warm = _throughput(docs, gates, budget / 2, clear=[])
    # The same with the caches of YAML strings (serveConfigV2, runtimeEnvYAML) cleared every round, so a repeated
    # document's strings are parsed again: only the model and the rules reading one string in one check share a
    # parse. (The README said the child did this; it did not: the figures, and ``docs_per_s``, are warm.)
    caches = [getattr(model, name, None) for name in ("parse_yaml", "runtime_env_error")]
    fresh = _throughput(docs, gates, budget / 2, clear=[c for c in caches if hasattr(c, "cache_clear")])
    print(json.dumps({"docs_per_s": warm, "docs_per_s_fresh_yaml": fresh, "corpus": len(docs)}))


def _throughput(docs: list[dict[str, Any]], gates: dict[str, bool], budget: float, clear: list[Any]) -> float:
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < budget:
        for cache in clear:
            cache.cache_clear()
        for doc in docs:
            rules.check(doc, feature_gates=gates)
        done += len(docs)
    return done / (time.perf_counter() - start)


if __name__ == "__main__":
    main()
