"""Ask one Ray release (run with its venv's python) what its Serve schema does with given keys, and dump its keys.

Usage::

    <ray venv>/bin/python tests/serve_schema/probe_serve_keys.py probes.json

Input: ``[{"section": "deployment", "key": "max_concurrent_queries", "value": 5}, ...]``. Output (stdout): JSON
``{"dump": <tools/serve_schema_dump.py's output>, "probes": ["accepted" | "dropped" | "rejected", ...]}``, where a
probe puts the key into a minimal config at its section and parses it as the dashboard's
``PUT /api/serve/applications/`` does (``ServeDeploySchema``; ``autoscaling_config`` and
``request_router_config`` through ``ray.serve.config``, as Serve does when it builds the deployment):
``accepted`` the key survives parsing, ``dropped`` the config parses without it, ``rejected`` parsing fails.
Imports nothing from pulumi_kuberay.
"""

from __future__ import annotations

import importlib.util
import io
import json
import sys
import warnings
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

_DUMP = Path(__file__).resolve().parents[2] / "tools" / "serve_schema_dump.py"


def _config(section: str, key: str, value: Any) -> tuple[dict[str, Any], list[str]]:
    """A minimal config with ``key: value`` in ``section``, and the path (keys) to the object holding it."""
    deployment: dict[str, Any] = {"name": "D"}
    app: dict[str, Any] = {"name": "a", "import_path": "m:app", "route_prefix": "/a", "deployments": [deployment]}
    config: dict[str, Any] = {"applications": [app]}
    holders: dict[str, tuple[dict[str, Any], list[str]]] = {
        "config": (config, []),
        "application": (app, ["applications", "0"]),
        "deployment": (deployment, ["applications", "0", "deployments", "0"]),
    }
    if section in holders:
        holder, path = holders[section]
    elif section in ("http_options", "grpc_options", "logging_config"):
        holder = config.setdefault(section, {})
        path = [section]
    else:  # autoscaling_config, ray_actor_options, request_router_config: inside the deployment
        holder = deployment.setdefault(section, {})
        path = ["applications", "0", "deployments", "0", section]
    holder[key] = value
    return config, path


def _probe(section: str, key: str, value: Any) -> str:
    from ray.serve.schema import ServeDeploySchema

    config, path = _config(section, key, value)
    try:
        parsed = ServeDeploySchema.parse_obj(config)
        if section in ("autoscaling_config", "request_router_config"):
            from ray.serve import config as serve_config

            name = "AutoscalingConfig" if section == "autoscaling_config" else "RequestRouterConfig"
            model = getattr(serve_config, name, None)
            if model is None:  # a release before the section existed: the deployment drops the whole section
                return "dropped"
            parsed_section = model.parse_obj(config["applications"][0]["deployments"][0][section])
            data = parsed_section.dict(by_alias=True)
            return "accepted" if key in data else "dropped"
    except Exception:
        return "rejected"
    obj: Any = parsed.dict(by_alias=True, exclude_unset=True)
    for part in path:
        obj = obj[int(part)] if isinstance(obj, list) else (obj or {}).get(part)
    return "accepted" if isinstance(obj, dict) and key in obj else "dropped"


def main(argv: list[str]) -> int:
    warnings.simplefilter("ignore")
    probes = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    spec = importlib.util.spec_from_file_location("serve_schema_dump", _DUMP)
    assert spec is not None and spec.loader is not None
    dump_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dump_module)
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        dump_module.main()
    results = [_probe(p["section"], p["key"], p["value"]) for p in probes]
    json.dump({"dump": json.loads(buffer.getvalue()), "probes": results}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
