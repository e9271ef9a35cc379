"""Ray Serve rules: the ``RayService.spec.serveConfigV2`` YAML string, parsed and checked as Ray Serve does.

KubeRay does not look inside serveConfigV2; it PUTs it to the dashboard. Mistakes then show up as a
``FailedToUpdateServeApplications`` event retried forever (HTTP 400), as an application stuck in
``DEPLOY_FAILED``/``DEPLOYING`` (which blocks the whole RayService: no serve Service, no upgrade switch-over),
or as 404s. Reference: ``ray-serve-config.md`` sections 1, 2 and 4. What Ray Serve rejects or fails to deploy
is critical; silently ignored or 404-prone configurations are high/medium.

Paths point into the parsed document: ``spec.serveConfigV2.applications[1].route_prefix``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

import yaml

from pulumi_kuberay.model._yaml import parse_yaml
from pulumi_kuberay.rules._engine import Category, Context, Rule, Severity, Violation, register
from pulumi_kuberay.rules._paths import (
    as_dict,
    as_int,
    as_list,
    as_str,
    cluster_specs,
    group_template,
    groups,
    is_unknown,
    join,
    ray_container,
)
from pulumi_kuberay.rules.operator_service import example_service

BASE = "spec.serveConfigV2"
DEFAULT_HTTP_PORT = 8000
DEFAULT_ROUTE_PREFIX = "/"
DEFAULT_APP_NAME = "default"

_TOP_KEYS = frozenset(
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
_APP_KEYS = frozenset(
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
_DEPLOYMENT_KEYS = frozenset(
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
_AUTOSCALING_KEYS = frozenset(
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
_ACTOR_OPTION_KEYS = frozenset(
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
_HTTP_KEYS = frozenset(
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
_GRPC_KEYS = frozenset({"port", "grpc_servicer_functions", "request_timeout_s", "enable_reflection"})
_PROXY_LOCATIONS = ("EveryNode", "HeadOnly", "Disabled", "NoServer")


# ----------------------------------------------------------------------------------------------------
# Parsing (once per distinct string)


@lru_cache(maxsize=256)
def _parse(text: str) -> tuple[Any, str | None]:
    """(parsed document, None) or (None, error message)."""
    try:
        return parse_yaml(text), None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        return None, f"{getattr(err, 'problem', None) or err}{where}"


def _raw(manifest: dict[str, Any]) -> str | None:
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


def _config(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The parsed serveConfigV2 mapping; None when absent, unparsable or not a mapping."""
    text = _raw(manifest)
    if not text or not text.strip():
        return None
    parsed, error = _parse(text)
    return parsed if error is None and isinstance(parsed, dict) else None


def _apps(manifest: dict[str, Any]) -> list[tuple[int, dict[str, Any], str]]:
    """(index, application, path) for each application mapping."""
    config = _config(manifest)
    if config is None:
        return []
    return [
        (i, app, f"{BASE}.applications[{i}]")
        for i, app in enumerate(as_list(config.get("applications")))
        if isinstance(app, dict)
    ]


def _deployments(manifest: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any], str]]:
    """(application, deployment, path) for every deployment override."""
    for _, app, app_path in _apps(manifest):
        for j, deployment in enumerate(as_list(app.get("deployments"))):
            if isinstance(deployment, dict):
                yield app, deployment, f"{app_path}.deployments[{j}]"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _app_label(index: int, app: dict[str, Any]) -> str:
    name = app.get("name", DEFAULT_APP_NAME)
    return f"applications[{index}] ({name!r})"


# ----------------------------------------------------------------------------------------------------
# Examples (data)


def _service(serve_config: str) -> dict[str, Any]:
    return example_service(serveConfigV2=serve_config)


_TWO_APPS = (
    "applications:\n"
    "  - name: fruit_app\n"
    "    import_path: fruit.deployment_graph\n"
    "    route_prefix: /fruit\n"
    "    runtime_env:\n"
    "      working_dir: https://github.com/ray-project/test_dag/archive/78b4a5da.zip\n"
    "    deployments:\n"
    "      - name: MangoStand\n"
    "        num_replicas: 2\n"
    "        user_config:\n"
    "          price: 3\n"
    "  - name: math_app\n"
    "    import_path: conditional_dag.serve_dag\n"
    "    route_prefix: /calc\n"
    "    runtime_env:\n"
    "      working_dir: https://github.com/ray-project/test_dag/archive/78b4a5da.zip\n"
    "    deployments:\n"
    "      - name: Adder\n"
    "        num_replicas: 1\n"
)
_COMPLIANT = _service(_TWO_APPS)


def _mutated(old: str, new: str) -> dict[str, Any]:
    assert old in _TWO_APPS, old  # examples are built at import: a typo here fails every test loudly
    return _service(_TWO_APPS.replace(old, new, 1))


def _serve_rule(
    *,
    id: str,
    title: str,
    check: Callable[[dict[str, Any], Context], Iterator[Violation]],
    violating: dict[str, Any],
    rationale: str,
    fix: str,
    severity: Severity = "critical",
    compliant: dict[str, Any] | None = None,
    category: Category = "correctness",
) -> Rule:
    return register(
        Rule(
            id=id,
            title=title,
            severity=severity,
            category=category,
            rationale=rationale,
            fix=fix,
            kinds=("RayService",),
            check=check,
            compliant=compliant if compliant is not None else _COMPLIANT,
            violating=violating,
        )
    )


# ----------------------------------------------------------------------------------------------------
# Document level


def _check_missing(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    text = _raw(manifest)
    if text is not None and not text.strip():
        yield Violation(
            "serveConfigV2 is not set: the operator deploys no Serve application, and a RayService only "
            "becomes "
            "ready once its applications are RUNNING",
            BASE,
        )


_serve_rule(
    id="serve-config-missing",
    title="RayService without serveConfigV2",
    check=_check_missing,
    violating=example_service(serveConfigV2=None),
    severity="high",
    rationale="Without serveConfigV2 the cluster runs no Serve application (unless deployed by hand), so the "
    "serve Service is never created and the RayService never becomes Ready.",
    fix="Set serveConfigV2 to a Serve config with at least one application (import_path, route_prefix).",
)


def _check_yaml(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    text = _raw(manifest)
    if not text or not text.strip():
        return
    parsed, error = _parse(text)
    if error is not None:
        yield Violation(f"serveConfigV2 is not valid YAML: {error}", BASE)
    elif not isinstance(parsed, dict):
        yield Violation(f"serveConfigV2 must be a YAML mapping, got a {type(parsed).__name__}", BASE)


_serve_rule(
    id="serve-config-invalid-yaml",
    title="serveConfigV2 is not a YAML mapping",
    check=_check_yaml,
    violating=_service("applications:\n  - name: app\n   import_path: app:main\n"),
    rationale="The operator parses serveConfigV2 as YAML before PUTting it to the dashboard; a parse error "
    "is "
    "retried forever (FailedToUpdateServeApplications) and no application is deployed.",
    fix="Fix the YAML (indentation, quoting); build it from a dict with a YAML/JSON dumper.",
)


def _check_applications(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    config = _config(manifest)
    if config is None:
        return
    apps = config.get("applications")
    if apps is None:
        yield Violation("serveConfigV2 has no 'applications' list (required by Ray Serve)", BASE)
    elif not isinstance(apps, list):
        yield Violation(f"applications must be a list, got a {type(apps).__name__}", f"{BASE}.applications")
    elif not apps:
        yield Violation(
            "applications is empty: the RayService never becomes ready (it waits for RUNNING applications)",
            f"{BASE}.applications",
        )
    else:
        for i, app in enumerate(apps):
            if not isinstance(app, dict):
                yield Violation(f"applications[{i}] must be a mapping", f"{BASE}.applications[{i}]")


_serve_rule(
    id="serve-applications-missing",
    title="serveConfigV2 without applications",
    check=_check_applications,
    violating=_service("http_options:\n  port: 8000\n"),
    rationale="Ray Serve requires an 'applications' list (HTTP 400 otherwise) and KubeRay waits for at least "
    "one RUNNING application.",
    fix="Add 'applications:' with at least one {name, import_path, route_prefix} entry.",
)


# ----------------------------------------------------------------------------------------------------
# Applications


def _check_app_names(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    seen: dict[str, int] = {}
    for i, app, path in _apps(manifest):
        name = app.get("name", DEFAULT_APP_NAME)
        if not isinstance(name, str) or not name:
            yield Violation(
                f"applications[{i}].name must be a non-empty string, got {name!r}", f"{path}.name"
            )
            continue
        if name in seen:
            implicit = " (both default to 'default')" if "name" not in app else ""
            yield Violation(
                f"applications[{i}] has the same name {name!r} as applications[{seen[name]}]{implicit}; "
                "application names must be unique",
                f"{path}.name",
            )
        else:
            seen[name] = i


_serve_rule(
    id="serve-app-names-unique",
    title="Serve application names are unique and non-empty",
    check=_check_app_names,
    violating=_mutated("name: math_app", "name: fruit_app"),
    rationale="Ray Serve rejects duplicate or empty application names (HTTP 400), so no application is "
    "deployed.",
    fix="Give each application a distinct, non-empty name.",
)


def _effective_prefix(app: dict[str, Any]) -> Any:
    return app.get("route_prefix", DEFAULT_ROUTE_PREFIX)


def _check_prefix_unique(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    seen: dict[str, int] = {}
    apps = _apps(manifest)
    for i, app, path in apps:
        prefix = _effective_prefix(app)
        if not isinstance(prefix, str):
            continue  # null: no HTTP route; other types: serve-route-prefix-invalid
        if prefix in seen:
            first = seen[prefix]
            first_app = next(a for j, a, _ in apps if j == first)
            implicit = [
                _app_label(j, a) for j, a in ((first, first_app), (i, app)) if "route_prefix" not in a
            ]
            note = f"; {' and '.join(implicit)} omit route_prefix and default to '/'" if implicit else ""
            yield Violation(
                f"{_app_label(i, app)} uses route_prefix {prefix!r}, already used by "
                f"{_app_label(first, first_app)}{note}",
                f"{path}.route_prefix",
            )
        else:
            seen[prefix] = i


_serve_rule(
    id="serve-route-prefix-duplicate",
    title="Two Serve applications on the same route_prefix",
    check=_check_prefix_unique,
    violating=_mutated("route_prefix: /calc", "route_prefix: /fruit"),
    rationale="Ray Serve rejects duplicate route prefixes (HTTP 400), including two applications that both "
    "omit route_prefix and so both default to '/'. Only one application may rely on the default.",
    fix="Give every application its own route_prefix (e.g. /fruit, /calc); at most one may be '/'.",
)


def _check_prefix_format(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for i, app, path in _apps(manifest):
        if "route_prefix" not in app or app["route_prefix"] is None:
            continue
        prefix = app["route_prefix"]
        problem = None
        if not isinstance(prefix, str):
            problem = f"must be a string, got {prefix!r}"
        elif not prefix.startswith("/"):
            problem = "must start with '/'"
        elif prefix != "/" and prefix.endswith("/"):
            problem = "must not end with '/' (except the root '/')"
        elif "{" in prefix or "}" in prefix:
            problem = "must not contain '{' or '}'"
        if problem is not None:
            yield Violation(
                f"{_app_label(i, app)} route_prefix {prefix!r} {problem}: the application ends DEPLOY_FAILED "
                "and blocks the whole RayService",
                f"{path}.route_prefix",
            )


_serve_rule(
    id="serve-route-prefix-invalid",
    title="Malformed Serve route_prefix",
    check=_check_prefix_format,
    violating=_mutated("route_prefix: /calc", "route_prefix: calc/"),
    rationale="Ray Serve validates route_prefix when it builds the application: it must start with '/', not "
    "end with '/' (unless it is '/') and contain no braces, otherwise the application is DEPLOY_FAILED.",
    fix="Use a prefix like '/calc'.",
)


def _check_prefix_explicit(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    apps = _apps(manifest)
    if len(apps) < 2:
        return
    for i, app, path in apps:
        if "route_prefix" not in app:
            yield Violation(
                f"{_app_label(i, app)} has no route_prefix and silently serves '/', catching every request "
                "no "
                "other application matches; in a multi-application config state each prefix explicitly",
                path,
            )


_serve_rule(
    id="serve-route-prefix-implicit",
    title="Application relies on the default route_prefix in a multi-application config",
    check=_check_prefix_explicit,
    violating=_mutated("    route_prefix: /calc\n", ""),
    severity="medium",
    category="reliability",
    rationale="The usual cause of Serve 404s is a route that does not match what clients call: the proxy "
    "matches by longest prefix on path-segment boundaries, and an application without route_prefix is "
    "mounted at '/'. Being explicit keeps routes and clients in sync.",
    fix="Set route_prefix on every application (e.g. '/fruit'); the application sees the path after it.",
)


def _check_import_path(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for i, app, path in _apps(manifest):
        value = app.get("import_path")
        problem = None
        if value is None:
            problem = "is missing (required)"
        elif not isinstance(value, str):
            problem = f"must be a string, got {value!r}"
        elif ":" in value:
            module, _, attr = value.partition(":")
            if ":" in attr or not module or not attr:
                problem = "must look like 'module.sub:attr' (exactly one ':' with text on both sides)"
        elif "." not in value.strip(".") or value.startswith(".") or value.endswith("."):
            problem = "must look like 'module.attr' or 'module:attr'"
        if problem is not None:
            yield Violation(f"{_app_label(i, app)} import_path {value!r} {problem}", f"{path}.import_path")


_serve_rule(
    id="serve-import-path-invalid",
    title="Malformed Serve import_path",
    check=_check_import_path,
    violating=_mutated("import_path: conditional_dag.serve_dag", "import_path: serve_dag"),
    rationale="Ray Serve rejects an import_path that is not 'module.attr' or 'module:attr' (HTTP 400).",
    fix="Point import_path at the bound application, e.g. 'fruit:deployment_graph' or "
    "'fruit.deployment_graph'.",
)


def _check_host_port(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for i, app, path in _apps(manifest):
        for key in ("host", "port"):
            if key in app:
                yield Violation(
                    f"{_app_label(i, app)} sets {key!r}, which a multi-application config rejects",
                    f"{path}.{key}",
                    fix="Remove it; set the HTTP host/port once under top-level http_options.",
                )


_serve_rule(
    id="serve-app-host-port",
    title="host/port inside a Serve application",
    check=_check_host_port,
    violating=_mutated("    route_prefix: /calc\n", "    route_prefix: /calc\n    port: 8001\n"),
    rationale="host and port only exist in the legacy single-application format; in serveConfigV2 they are "
    "rejected (HTTP 400).",
    fix="Move the port to top-level http_options.port (and the 'serve' container port).",
)


def _runtime_env_locals(runtime_env: Any, path: str) -> Iterator[tuple[str, str]]:
    env = as_dict(runtime_env)
    working_dir = env.get("working_dir")
    if isinstance(working_dir, str) and "://" not in working_dir:
        yield working_dir, f"{path}.working_dir"
    for k, module in enumerate(as_list(env.get("py_modules"))):
        if isinstance(module, str) and "://" not in module:
            yield module, f"{path}.py_modules[{k}]"


def _check_local_paths(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    found: list[tuple[str, str]] = []
    for _, app, path in _apps(manifest):
        found.extend(_runtime_env_locals(app.get("runtime_env"), f"{path}.runtime_env"))
    for _, deployment, path in _deployments(manifest):
        options = deployment.get("ray_actor_options")
        found.extend(
            _runtime_env_locals(as_dict(options).get("runtime_env"), f"{path}.ray_actor_options.runtime_env")
        )
    for value, path in found:
        yield Violation(
            f"{value!r} is a local path; Serve configs need a remote URI (https://, s3://, gs://, ...) or a "
            "local:// path that exists on every node",
            path,
        )


_serve_rule(
    id="serve-runtime-env-local-path",
    title="Local working_dir/py_modules in a Serve config",
    check=_check_local_paths,
    violating=_mutated(
        "      working_dir: https://github.com/ray-project/test_dag/archive/78b4a5da.zip\n    deployments:\n"
        "      - name: Adder",
        "      working_dir: ./math_app\n    deployments:\n      - name: Adder",
    ),
    rationale="The Serve REST API rejects plain local paths in runtime_env.working_dir/py_modules (HTTP "
    "400): "
    "the config is applied on the cluster, not where it was written.",
    fix="Zip the code to a reachable URL (https://, s3://, gs://) or bake it into the image and use "
    "local://.",
)


# ----------------------------------------------------------------------------------------------------
# Deployments


def _check_deployment_names(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for _, app, app_path in _apps(manifest):
        seen: dict[str, int] = {}
        for j, deployment in enumerate(as_list(app.get("deployments"))):
            if not isinstance(deployment, dict):
                continue
            path = f"{app_path}.deployments[{j}]"
            name = deployment.get("name")
            if not isinstance(name, str) or not name:
                yield Violation(
                    f"deployments[{j}] has no name (required: the deployment class to override)", path
                )
            elif name in seen:
                yield Violation(
                    f"deployments[{j}] overrides {name!r} again (already at deployments[{seen[name]}]); one "
                    "of the "
                    "two sets of options is silently lost",
                    f"{path}.name",
                    severity="high",
                )
            else:
                seen[name] = j


_serve_rule(
    id="serve-deployment-name-invalid",
    title="Serve deployment override without a name, or listed twice",
    check=_check_deployment_names,
    violating=_mutated("      - name: Adder\n", "      - num_cpus: 1\n"),
    rationale="deployments[].name is required (HTTP 400 without it) and must name a deployment of the "
    "application (DEPLOY_FAILED otherwise); listing one twice makes one override win silently.",
    fix="Give each override the exact deployment (class) name from the code, once per application.",
)


def _check_autoscaling(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for _, deployment, path in _deployments(manifest):
        config = deployment.get("autoscaling_config")
        if not isinstance(config, dict):
            continue
        name = deployment.get("name", "?")
        where = f"{path}.autoscaling_config"
        replicas = deployment.get("num_replicas")
        if isinstance(replicas, int) and not isinstance(replicas, bool):
            yield Violation(
                f"deployment {name!r} sets num_replicas: {replicas} together with autoscaling_config",
                f"{path}.num_replicas",
                fix="Remove num_replicas (or use num_replicas: auto) when autoscaling_config is set.",
            )
        low = _number(config.get("min_replicas", 1))
        high = _number(config.get("max_replicas", 1))
        initial = _number(config.get("initial_replicas"))
        if low is not None and low < 0:
            yield Violation(f"deployment {name!r} min_replicas {low:g} is negative", f"{where}.min_replicas")
        if high is not None and high < 1:
            yield Violation(
                f"deployment {name!r} max_replicas {high:g} must be >= 1", f"{where}.max_replicas"
            )
        if low is not None and high is not None and high < low:
            implicit = " (max_replicas defaults to 1)" if "max_replicas" not in config else ""
            yield Violation(
                f"deployment {name!r} max_replicas ({high:g}) is below min_replicas ({low:g}){implicit}",
                f"{where}.max_replicas",
            )
        elif initial is not None and low is not None and high is not None and not low <= initial <= high:
            yield Violation(
                f"deployment {name!r} initial_replicas ({initial:g}) is outside [{low:g}, {high:g}]",
                f"{where}.initial_replicas",
            )


_serve_rule(
    id="serve-autoscaling-config-invalid",
    title="Invalid Serve autoscaling bounds",
    check=_check_autoscaling,
    violating=_mutated(
        "      - name: Adder\n        num_replicas: 1\n",
        "      - name: Adder\n        autoscaling_config:\n          min_replicas: 4\n          "
        "max_replicas: 2\n",
    ),
    compliant=_mutated(
        "      - name: Adder\n        num_replicas: 1\n",
        "      - name: Adder\n        autoscaling_config:\n          min_replicas: 1\n          "
        "max_replicas: 4\n",
    ),
    rationale="Ray Serve rejects autoscaling_config with max_replicas < min_replicas (max defaults to 1), "
    "initial_replicas outside the bounds, or an integer num_replicas next to autoscaling_config (HTTP 400).",
    fix="Set 0 <= min_replicas <= initial_replicas <= max_replicas, and drop num_replicas.",
)


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _check_deployment_options(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for _, deployment, path in _deployments(manifest):
        name = deployment.get("name", "?")
        replicas = deployment.get("num_replicas")
        if replicas is not None and replicas != "auto" and not _positive_int(replicas):
            yield Violation(
                f"deployment {name!r} num_replicas {replicas!r} must be a positive integer or 'auto'",
                f"{path}.num_replicas",
            )
        ongoing = deployment.get("max_ongoing_requests")
        if ongoing is not None and not _positive_int(ongoing):
            yield Violation(
                f"deployment {name!r} max_ongoing_requests {ongoing!r} must be a positive integer",
                f"{path}.max_ongoing_requests",
            )
        queued = deployment.get("max_queued_requests")
        if queued is not None and (as_int(queued) is None or queued == 0 or queued < -1):
            yield Violation(
                f"deployment {name!r} max_queued_requests {queued!r} must be -1 (no limit) or >= 1",
                f"{path}.max_queued_requests",
            )
        for key, minimum_exclusive in (
            ("health_check_period_s", True),
            ("health_check_timeout_s", True),
            ("graceful_shutdown_wait_loop_s", False),
            ("graceful_shutdown_timeout_s", False),
        ):
            if key not in deployment or deployment[key] is None:
                continue
            value = _number(deployment[key])
            if value is None or value < 0 or (minimum_exclusive and value == 0):
                bound = "> 0" if minimum_exclusive else ">= 0"
                yield Violation(
                    f"deployment {name!r} {key} {deployment[key]!r} must be a number {bound}", f"{path}.{key}"
                )
        per_node = deployment.get("max_replicas_per_node")
        if per_node is not None:
            if not _positive_int(per_node) or per_node > 100:
                yield Violation(
                    f"deployment {name!r} max_replicas_per_node {per_node!r} must be between 1 and 100",
                    f"{path}.max_replicas_per_node",
                )
            elif deployment.get("placement_group_bundles") is not None:
                yield Violation(
                    f"deployment {name!r} sets both max_replicas_per_node and placement_group_bundles",
                    f"{path}.max_replicas_per_node",
                )


_serve_rule(
    id="serve-deployment-options-invalid",
    title="Invalid Serve deployment options",
    check=_check_deployment_options,
    violating=_mutated("        num_replicas: 2\n", "        num_replicas: 0\n"),
    rationale="Ray Serve rejects non-positive num_replicas/max_ongoing_requests, max_queued_requests of 0 or "
    "below -1, negative health-check/shutdown timings, max_replicas_per_node outside 1..100 or combined with "
    "placement_group_bundles (HTTP 400: no application is deployed).",
    fix="Use positive replica counts (or 'auto'), positive timeouts, and one placement mechanism.",
)


def _check_ongoing_vs_target(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for _, deployment, path in _deployments(manifest):
        config = deployment.get("autoscaling_config")
        ongoing = _number(deployment.get("max_ongoing_requests"))
        if not isinstance(config, dict) or ongoing is None:
            continue
        target = _number(config.get("target_ongoing_requests", 2))
        if target is not None and ongoing < target:
            yield Violation(
                f"deployment {deployment.get('name', '?')!r} max_ongoing_requests ({ongoing:g}) is below "
                f"target_ongoing_requests ({target:g}): replicas never reach the target, so Serve never "
                "scales up",
                f"{path}.max_ongoing_requests",
            )


_serve_rule(
    id="serve-max-ongoing-below-target",
    title="max_ongoing_requests below the autoscaling target",
    check=_check_ongoing_vs_target,
    violating=_mutated(
        "      - name: Adder\n        num_replicas: 1\n",
        "      - name: Adder\n        max_ongoing_requests: 1\n        autoscaling_config:\n"
        "          min_replicas: 1\n          max_replicas: 4\n          target_ongoing_requests: 4\n",
    ),
    severity="medium",
    category="reliability",
    rationale="A replica never holds more than max_ongoing_requests, so a higher target_ongoing_requests "
    "(default 2) is never reached and the deployment never scales up (Serve only logs a warning).",
    fix="Keep max_ongoing_requests >= target_ongoing_requests (e.g. 5 and 2).",
)


# ----------------------------------------------------------------------------------------------------
# Proxies and ports


def _check_proxy_location(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    config = _config(manifest)
    if config is None or config.get("proxy_location") is None:
        return
    location = config["proxy_location"]
    path = f"{BASE}.proxy_location"
    if location not in _PROXY_LOCATIONS:
        yield Violation(f"proxy_location {location!r} is not one of EveryNode, HeadOnly, Disabled", path)
    elif location in ("Disabled", "NoServer"):
        yield Violation(
            f"proxy_location {location}: no HTTP proxy runs, so the serve Service has no endpoints and the "
            "RayService never becomes Ready",
            path,
        )
    elif location == "HeadOnly":
        yield Violation(
            "proxy_location HeadOnly: every worker fails KubeRay's Serve readiness check, so only the head "
            "serves traffic",
            path,
            severity="high",
        )


_serve_rule(
    id="serve-proxy-location-incompatible",
    title="Serve proxy_location incompatible with KubeRay",
    check=_check_proxy_location,
    violating=_service(_TWO_APPS + "proxy_location: Disabled\n"),
    compliant=_service(_TWO_APPS + "proxy_location: EveryNode\n"),
    rationale="KubeRay's serve Service selects Pods whose Serve proxy is healthy; only EveryNode (the "
    "default) "
    "puts proxies where KubeRay expects them.",
    fix="Remove proxy_location or set it to EveryNode.",
)


def _serve_port(container: dict[str, Any]) -> tuple[int, int | None] | None:
    """(port, index in ports) of the port named 'serve'; None when ports are declared without one."""
    ports = as_list(container.get("ports"))
    for i, port in enumerate(ports):
        if as_str(as_dict(port).get("name")) == "serve":
            number = as_int(as_dict(port).get("containerPort"))
            return (number, i) if number is not None else None
    return (DEFAULT_HTTP_PORT, None)


def _check_http_port(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    config = _config(manifest)
    if config is None:
        return
    raw = as_dict(config.get("http_options")).get("port", DEFAULT_HTTP_PORT)
    http_port = as_int(raw)
    if http_port is None:
        return
    for ref in cluster_specs(manifest):
        for group in groups(ref):
            found = ray_container(group_template(group))
            if found is None:
                continue
            container_path, container = found
            declared = as_list(container.get("ports"))
            if (
                group.role == "head"
                and declared
                and not any((as_str(as_dict(p).get("name")) or "").startswith("serve") for p in declared)
            ):
                continue  # head-serve-port-missing reports this
            serve = _serve_port(container)
            if serve is None or serve[0] == http_port:
                continue
            port, index = serve
            where = (
                join(container_path, "ports", index, "containerPort")
                if index is not None
                else join(container_path, "ports")
            )
            what = "head" if group.role == "head" else f"worker group {group.name!r}"
            implicit = "" if index is not None else " (no port named 'serve', so KubeRay assumes 8000)"
            yield Violation(
                f"Serve listens on http_options.port {http_port} but the {what} serve port is "
                f"{port}{implicit}: "
                "traffic and KubeRay's proxy health checks go to a closed port, so endpoints stay at 0",
                where,
                fix=f"Declare {{name: serve, containerPort: {http_port}}} on the {what} container, or set "
                f"http_options.port to {port}.",
            )


def _different_port(port_everywhere: bool) -> dict[str, Any]:
    service = _service(_TWO_APPS + "http_options:\n  port: 9000\n")
    cluster = service["spec"]["rayClusterConfig"]
    head_ports = cluster["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]
    for port in head_ports:
        if port["name"] == "serve":
            port["containerPort"] = 9000
    if port_everywhere:
        cluster["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["ports"] = [
            {"containerPort": 9000, "name": "serve"}
        ]
    return service


_serve_rule(
    id="serve-http-port-mismatch",
    title="Serve http_options.port differs from the 'serve' container port",
    check=_check_http_port,
    violating=_different_port(port_everywhere=False),
    compliant=_different_port(port_everywhere=True),
    rationale="Every Serve proxy listens on http_options.port (default 8000); KubeRay sends traffic and "
    "readiness probes to the container port named 'serve' (8000 when none is declared) on the head and on "
    "every worker. If they differ, the RayService never gets ready endpoints.",
    fix="Use the same port in http_options.port and in a 'serve' port of the head and every worker "
    "container.",
)


# ----------------------------------------------------------------------------------------------------
# Misspelt keys


def _normalised(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).replace("-", "_").lower()


def _unknown_keys(obj: Any, known: frozenset[str], path: str, what: str) -> Iterator[Violation]:
    for key in as_dict(obj):
        if not isinstance(key, str) or key in known:
            continue
        guess = _normalised(key)
        if guess in known:
            yield Violation(
                f"{what} key {key!r} is not a Ray Serve field (did you mean {guess!r}?); Ray Serve silently "
                "ignores it, so the default or the code's value applies",
                f"{path}.{key}",
                fix=f"Rename {key!r} to {guess!r}.",
                severity="high",
            )
        else:
            yield Violation(
                f"{what} key {key!r} is not a known Ray Serve field; Ray Serve silently ignores unknown keys",
                f"{path}.{key}",
            )


def _check_unknown_keys(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    config = _config(manifest)
    if config is None:
        return
    yield from _unknown_keys(config, _TOP_KEYS, BASE, "top-level")
    yield from _unknown_keys(config.get("http_options"), _HTTP_KEYS, f"{BASE}.http_options", "http_options")
    yield from _unknown_keys(config.get("grpc_options"), _GRPC_KEYS, f"{BASE}.grpc_options", "grpc_options")
    for _, app, path in _apps(manifest):
        yield from _unknown_keys(app, _APP_KEYS, path, "application")
    for _, deployment, path in _deployments(manifest):
        yield from _unknown_keys(deployment, _DEPLOYMENT_KEYS, path, "deployment")
        yield from _unknown_keys(
            deployment.get("autoscaling_config"),
            _AUTOSCALING_KEYS,
            f"{path}.autoscaling_config",
            "autoscaling_config",
        )
        yield from _unknown_keys(
            deployment.get("ray_actor_options"),
            _ACTOR_OPTION_KEYS,
            f"{path}.ray_actor_options",
            "ray_actor_options",
        )


_serve_rule(
    id="serve-config-unknown-key",
    title="Unknown (misspelt) key in the Serve config",
    check=_check_unknown_keys,
    violating=_mutated("route_prefix: /calc", "routePrefix: /calc"),
    severity="medium",
    rationale="Ray Serve's schema ignores unknown keys, so 'routePrefix' or 'num-replicas' are dropped "
    "without "
    "an error and the defaults apply (e.g. the application lands on '/').",
    fix="Use Ray Serve's snake_case field names (route_prefix, num_replicas, max_ongoing_requests, ...).",
)
