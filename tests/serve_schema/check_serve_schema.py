"""Validate Ray Serve config strings with Ray Serve's own schema (run with an interpreter that has
``ray[serve]``).

Usage::

    .venv-serve/bin/python tests/serve_schema/check_serve_schema.py configs.json   # or "-" / stdin

Input: a JSON object ``{"<id>": "<serveConfigV2 YAML string>", ...}``. Output (stdout): a JSON object
``{"ray_version": "...", "results": {"<id>": {"accepted": bool, "stage": str, "error": str|null}}}``.

Two stages, as the dashboard's ``PUT /api/serve/applications/`` would judge a config:

* ``schema``: ``ray.serve.schema.ServeDeploySchema`` (the request body model; an error is an HTTP 400);
* ``autoscaling``: every ``deployments[].autoscaling_config`` through ``ray.serve.config.AutoscalingConfig``
  (``ServeDeploySchema`` keeps it as a plain dict; Serve rejects bad bounds when it builds the deployment).

This script deliberately imports nothing from pulumi_kuberay: it runs in a separate venv holding ray.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import yaml


def _judge(text: str) -> dict[str, Any]:
    from ray.serve.config import AutoscalingConfig
    from ray.serve.schema import ServeDeploySchema

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return {"accepted": False, "stage": "yaml", "error": str(exc)}
    try:
        ServeDeploySchema.parse_obj(data)
    except Exception as exc:  # pydantic (v1 compat) ValidationError or TypeError
        return {"accepted": False, "stage": "schema", "error": str(exc)}
    for app in data.get("applications") or []:
        for dep in app.get("deployments") or []:
            config = dep.get("autoscaling_config")
            if isinstance(config, dict):
                try:
                    AutoscalingConfig.parse_obj(config)
                except Exception as exc:
                    return {"accepted": False, "stage": "autoscaling", "error": str(exc)}
    return {"accepted": True, "stage": "autoscaling", "error": None}


def main(argv: list[str]) -> int:
    import ray

    source = argv[1] if len(argv) > 1 else "-"
    if source == "-":
        raw = sys.stdin.read()
    else:
        with open(source, encoding="utf-8") as handle:
            raw = handle.read()
    configs: dict[str, str] = json.loads(raw)
    results = {key: _judge(text) for key, text in configs.items()}
    json.dump({"ray_version": ray.__version__, "results": results}, sys.stdout, indent=2)
    sys.stdout.write("\n")
    for key, result in results.items():
        verdict = "accept" if result["accepted"] else f"reject ({result['stage']})"
        print(f"{verdict:>20}  {key}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
