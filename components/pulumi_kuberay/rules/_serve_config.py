"""Readers of ``RayService.spec.serveConfigV2``: the YAML string parsed once, its applications and deployments,
and the keys Ray Serve knows (the serve rules' path helpers). Never raise; never import pulumi.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, cast

import yaml

from pulumi_kuberay.kuberay.paths import as_list, is_unknown, memo
from pulumi_kuberay.model import parse_yaml
from pulumi_kuberay.model.serve_versions import DEFAULT_APP_NAME as DEFAULT_APP_NAME  # the readers' name for it
from pulumi_kuberay.model.serve_versions import iter_serve_keys, known_keys

BASE = "spec.serveConfigV2"
DEFAULT_ROUTE_PREFIX = "/"

# The keys some Ray release from 2.9 on knows, per section: the table generated from Ray's own ray.serve.schema
# (model/_serve_versions.py). Serve's schemas drop a key they do not know without a word (logging_config refuses
# it); which release knows which key is judged by serve-config-key-version, a key no release knows by
# serve-config-unknown-key.
TOP_KEYS = known_keys("config")
APP_KEYS = known_keys("application")  # host/port: rejected in a multi-app config (serve-app-host-port)
DEPLOYMENT_KEYS = known_keys("deployment")
AUTOSCALING_KEYS = known_keys("autoscaling_config")
ACTOR_OPTION_KEYS = known_keys("ray_actor_options")
HTTP_KEYS = known_keys("http_options")
GRPC_KEYS = known_keys("grpc_options")
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


def serve_keys(manifest: dict[str, Any]) -> tuple[tuple[str, str, str], ...]:
    """(section, key, path) of every key of the parsed serveConfigV2 (``iter_serve_keys``), walked once per
    ``check`` (``memo``): serve-config-key-version and serve-config-unknown-key both read every key."""
    return cast("tuple[tuple[str, str, str], ...]", memo(manifest, "serve_config.keys", _serve_keys))


def _serve_keys(manifest: dict[str, Any]) -> tuple[tuple[str, str, str], ...]:
    config = serve_config(manifest)
    return () if config is None else tuple(iter_serve_keys(config, BASE))


#: (index, application, path) of one application mapping of the config.
App = tuple[int, dict[str, Any], str]
#: (application, deployment, path) of one deployment override.
Deployment = tuple[dict[str, Any], dict[str, Any], str]


def serve_apps(manifest: dict[str, Any]) -> tuple[App, ...]:
    """(index, application, path) for each application mapping (found once per ``check``: ``memo``)."""
    return cast("tuple[App, ...]", memo(manifest, "serve_config.apps", _serve_apps))


def _serve_apps(manifest: dict[str, Any]) -> tuple[App, ...]:
    config = serve_config(manifest)
    if config is None:
        return ()
    return tuple(
        (i, app, f"{BASE}.applications[{i}]")
        for i, app in enumerate(as_list(config.get("applications")))
        if isinstance(app, dict)
    )


def serve_deployments(manifest: dict[str, Any]) -> tuple[Deployment, ...]:
    """(application, deployment, path) for every deployment override (found once per ``check``: ``memo``)."""
    return cast("tuple[Deployment, ...]", memo(manifest, "serve_config.deployments", _serve_deployments))


def _serve_deployments(manifest: dict[str, Any]) -> tuple[Deployment, ...]:
    return tuple(
        (app, deployment, f"{app_path}.deployments[{j}]")
        for _, app, app_path in serve_apps(manifest)
        for j, deployment in enumerate(as_list(app.get("deployments")))
        if isinstance(deployment, dict)
    )


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def app_label(index: int, app: dict[str, Any]) -> str:
    name = app.get("name", DEFAULT_APP_NAME)
    return f"applications[{index}] ({name!r})"
