"""Readers of ``RayService.spec.serveConfigV2``: the YAML string parsed once, its applications and deployments,
and the keys Ray Serve knows (the serve rules' path helpers). Never raise; never import pulumi.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import yaml

from pulumi_kuberay.model._yaml import parse_yaml
from pulumi_kuberay.model.serve import DEFAULT_APP_NAME as DEFAULT_APP_NAME  # the readers' name for it

from ._paths import as_list, is_unknown

BASE = "spec.serveConfigV2"
DEFAULT_HTTP_PORT = 8000
DEFAULT_ROUTE_PREFIX = "/"

TOP_KEYS = frozenset(
    {
        "applications",
        "proxy_location",
        "http_options",
        "grpc_options",
        "logging_config",
        "target_capacity",
        "controller_options",
        "tracing_config",
    }
)
APP_KEYS = frozenset(
    {
        "name",
        "import_path",
        "route_prefix",
        "runtime_env",
        "args",
        "deployments",
        "logging_config",
        "autoscaling_policy",
        "external_scaler_enabled",
        "host",  # rejected in a multi-app config: serve-app-host-port
        "port",
    }
)
DEPLOYMENT_KEYS = frozenset(
    {
        "name",
        "num_replicas",
        "autoscaling_config",
        "max_ongoing_requests",
        "max_queued_requests",
        "user_config",
        "ray_actor_options",
        "health_check_period_s",
        "health_check_timeout_s",
        "graceful_shutdown_wait_loop_s",
        "graceful_shutdown_timeout_s",
        "max_replicas_per_node",
        "placement_group_bundles",
        "placement_group_strategy",
        "placement_group_bundle_label_selector",
        "logging_config",
        "request_router_config",
        "gang_scheduling_config",
        "deployment_actors",
        "rolling_update_percentage",
        "max_surge_percent",
        "backpressure_config",
    }
)
AUTOSCALING_KEYS = frozenset(
    {
        "min_replicas",
        "max_replicas",
        "initial_replicas",
        "target_ongoing_requests",
        "upscale_delay_s",
        "downscale_delay_s",
        "downscale_to_zero_delay_s",
        "upscaling_factor",
        "downscaling_factor",
        "look_back_period_s",
        "aggregation_function",
        "policy",
        # deprecated but still accepted
        "metrics_interval_s",
        "smoothing_factor",
        "upscale_smoothing_factor",
        "downscale_smoothing_factor",
        "target_num_ongoing_requests_per_replica",
    }
)
ACTOR_OPTION_KEYS = frozenset(
    {
        "num_cpus",
        "num_gpus",
        "memory",
        "object_store_memory",
        "resources",
        "accelerator_type",
        "runtime_env",
        "label_selector",
        "fallback_strategy",
    }
)
HTTP_KEYS = frozenset(
    {
        "host",
        "port",
        "root_path",
        "request_timeout_s",
        "keep_alive_timeout_s",
        "ssl_keyfile",
        "ssl_certfile",
        "ssl_keyfile_password",
        "ssl_ca_certs",
    }
)
GRPC_KEYS = frozenset({"port", "grpc_servicer_functions", "request_timeout_s", "enable_reflection"})
PROXY_LOCATIONS = ("EveryNode", "HeadOnly", "Disabled", "NoServer")


# ----------------------------------------------------------------------------------------------------
# Parsing (once per distinct string)


@lru_cache(maxsize=256)
def parse_serve_config(text: str) -> tuple[Any, str | None]:
    """(parsed document, None) or (None, error message)."""
    try:
        return parse_yaml(text), None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        return None, f"{getattr(err, 'problem', None) or err}{where}"


def raw_serve_config(manifest: dict[str, Any]) -> str | None:
    """The serveConfigV2 text of a RayService, None if this is not a RayService or the value is unknown."""
    if manifest.get("kind") != "RayService":
        return None
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        return None
    value = spec.get("serveConfigV2")
    if value is None:
        return ""
    if is_unknown(value) or not isinstance(value, str):
        return None  # not known yet, or the wrong type (a structural finding)
    return value


def serve_config(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The parsed serveConfigV2 mapping; None when absent, unparsable or not a mapping."""
    text = raw_serve_config(manifest)
    if not text or not text.strip():
        return None
    parsed, error = parse_serve_config(text)
    return parsed if error is None and isinstance(parsed, dict) else None


def serve_apps(manifest: dict[str, Any]) -> list[tuple[int, dict[str, Any], str]]:
    """(index, application, path) for each application mapping."""
    config = serve_config(manifest)
    if config is None:
        return []
    return [
        (i, app, f"{BASE}.applications[{i}]")
        for i, app in enumerate(as_list(config.get("applications")))
        if isinstance(app, dict)
    ]


def serve_deployments(manifest: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any], str]]:
    """(application, deployment, path) for every deployment override."""
    for _, app, app_path in serve_apps(manifest):
        for j, deployment in enumerate(as_list(app.get("deployments"))):
            if isinstance(deployment, dict):
                yield app, deployment, f"{app_path}.deployments[{j}]"


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def app_label(index: int, app: dict[str, Any]) -> str:
    name = app.get("name", DEFAULT_APP_NAME)
    return f"applications[{index}] ({name!r})"
