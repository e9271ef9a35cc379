"""Print, as JSON, the keys that one Ray release's Serve config schema accepts (run with a Ray venv's python).

Usage::

    <ray venv>/bin/python tools/serve_schema_dump.py > ray-2.10.0.json

For every section of a ``serveConfigV2`` document it reads Ray's own pydantic models (``ray.serve.schema`` and,
for ``autoscaling_config`` and ``request_router_config``, ``ray.serve.config``): each field's name, alias and
description, and whether the model forbids extra keys. This script deliberately imports nothing from
pulumi_kuberay: it runs in a separate venv holding ray (see ``tools/gen_serve_versions.py``).
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from typing import Any

#: section -> (module, class); a class a release does not have is left out of that release's dump.
SECTIONS: dict[str, tuple[str, str]] = {
    "config": ("ray.serve.schema", "ServeDeploySchema"),
    "http_options": ("ray.serve.schema", "HTTPOptionsSchema"),
    "grpc_options": ("ray.serve.schema", "gRPCOptionsSchema"),
    "logging_config": ("ray.serve.schema", "LoggingConfig"),
    "application": ("ray.serve.schema", "ServeApplicationSchema"),
    "deployment": ("ray.serve.schema", "DeploymentSchema"),
    "ray_actor_options": ("ray.serve.schema", "RayActorOptionsSchema"),
    "autoscaling_config": ("ray.serve.config", "AutoscalingConfig"),
    "request_router_config": ("ray.serve.config", "RequestRouterConfig"),
}


def _fields(model: Any) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if hasattr(model, "__fields__") and not hasattr(model, "model_fields"):  # pydantic v1 (or ray's v1 compat)
        for name, field in model.__fields__.items():
            info = field.field_info
            out[name] = {"alias": field.alias, "description": info.description or ""}
    else:  # pydantic v2 models
        for name, field in model.model_fields.items():
            out[name] = {"alias": field.alias or name, "description": field.description or ""}
    return out


def _extra(model: Any) -> str:
    config = getattr(model, "__config__", None)
    if config is not None and hasattr(config, "extra"):
        return str(getattr(config.extra, "value", config.extra))
    model_config = getattr(model, "model_config", {}) or {}
    return str(model_config.get("extra", "ignore"))


def main() -> int:
    warnings.simplefilter("ignore")
    import ray  # type: ignore[import-not-found]  # only in the Ray venvs

    dump: dict[str, Any] = {"ray_version": ray.__version__, "sections": {}}
    for section, (module_name, class_name) in SECTIONS.items():
        module = importlib.import_module(module_name)
        model = getattr(module, class_name, None)
        if model is None:
            continue
        fields = _fields(model)
        # pydantic keeps private attributes (``_policy``) out of the fields; keys the wire never carries
        fields = {name: info for name, info in fields.items() if not name.startswith("_")}
        dump["sections"][section] = {"class": f"{module_name}.{class_name}", "extra": _extra(model), "fields": fields}
    json.dump(dump, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
