"""Ray Serve config, document and applications: ``RayService.spec.serveConfigV2`` checked as Ray Serve's
``ServeDeploySchema`` does.

See ``service/__init__.py`` for how serveConfigV2 mistakes surface; paths point into the parsed document.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.paths import as_dict, as_list

from ._engine import Context, Violation, declare
from ._examples import ON_TWO_APPS, example_service, serve_mutated, serve_service
from ._serve_config import (
    BASE,
    DEFAULT_APP_NAME,
    DEFAULT_ROUTE_PREFIX,
    app_label,
    parse_serve_config,
    raw_serve_config,
    serve_apps,
    serve_config,
    serve_deployments,
)

# ----------------------------------------------------------------------------------------------------
# Document level


def _check_missing(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    text = raw_serve_config(manifest)
    if text is not None and not text.strip():
        yield Violation(
            "serveConfigV2 is not set: the operator deploys no Serve application, and a RayService only becomes ready once its applications are RUNNING",
            BASE,
        )


declare(
    id="serve-config-missing",
    title="RayService without serveConfigV2",
    severity="high",
    category="correctness",
    rationale="Without serveConfigV2 the cluster runs no Serve application (unless deployed by hand), so the serve Service is never created and the RayService never becomes Ready.",
    fix="Set serveConfigV2 to a Serve config with at least one application (import_path, route_prefix).",
    check=_check_missing,
    violating=example_service(serveConfigV2=None),
    violating_path="spec.serveConfigV2",
    **ON_TWO_APPS,
)


def _check_yaml(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    text = raw_serve_config(manifest)
    if not text or not text.strip():
        return
    parsed, error = parse_serve_config(text)
    if error is not None:
        yield Violation(f"serveConfigV2 is not valid YAML: {error}", BASE)
    elif not isinstance(parsed, dict):
        yield Violation(f"serveConfigV2 must be a YAML mapping, got a {type(parsed).__name__}", BASE)


declare(
    id="serve-config-invalid-yaml",
    title="serveConfigV2 is not a YAML mapping",
    severity="critical",
    category="correctness",
    rationale="The operator parses serveConfigV2 as YAML before PUTting it to the dashboard; a parse error is retried forever (FailedToUpdateServeApplications) and no application is deployed.",
    proof="the operator cannot parse serveConfigV2 and retries forever (FailedToUpdateServeApplications)",
    fix="Fix the YAML (indentation, quoting); build it from a dict with a YAML/JSON dumper.",
    check=_check_yaml,
    violating=serve_service("applications:\n  - name: app\n   import_path: app:main\n"),
    violating_path="spec.serveConfigV2",
    **ON_TWO_APPS,
)


def _check_applications(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    config = serve_config(manifest)
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


declare(
    id="serve-applications-missing",
    title="serveConfigV2 without applications",
    severity="critical",
    category="correctness",
    rationale="Ray Serve requires an 'applications' list (HTTP 400 otherwise) and KubeRay waits for at least one RUNNING application.",
    proof="Ray Serve's REST API refuses a config without applications (HTTP 400)",
    fix="Add 'applications:' with at least one {name, import_path, route_prefix} entry.",
    check=_check_applications,
    violating=serve_service("http_options:\n  port: 8000\n"),
    violating_path="spec.serveConfigV2",
    **ON_TWO_APPS,
)


# ----------------------------------------------------------------------------------------------------
# Applications


def _check_app_names(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    seen: dict[str, int] = {}
    for i, app, path in serve_apps(manifest):
        name = app.get("name", DEFAULT_APP_NAME)
        if not isinstance(name, str) or not name:
            yield Violation(f"applications[{i}].name must be a non-empty string, got {name!r}", f"{path}.name")
            continue
        if name in seen:
            implicit = " (both default to 'default')" if "name" not in app else ""
            yield Violation(
                f"applications[{i}] has the same name {name!r} as applications[{seen[name]}]{implicit}; application names must be unique",
                f"{path}.name",
            )
        else:
            seen[name] = i


declare(
    id="serve-app-names-unique",
    title="Serve application names are unique and non-empty",
    severity="critical",
    category="correctness",
    rationale="Ray Serve rejects duplicate or empty application names (HTTP 400), so no application is deployed.",
    proof="Ray Serve's schema refuses duplicate or empty application names (HTTP 400)",
    fix="Give each application a distinct, non-empty name.",
    check=_check_app_names,
    violating=serve_mutated("name: math_app", "name: fruit_app"),
    violating_path="spec.serveConfigV2.applications[1].name",
    **ON_TWO_APPS,
)


def _effective_prefix(app: dict[str, Any]) -> Any:
    return app.get("route_prefix", DEFAULT_ROUTE_PREFIX)


def _check_prefix_unique(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    seen: dict[str, int] = {}
    apps = serve_apps(manifest)
    for i, app, path in apps:
        prefix = _effective_prefix(app)
        if not isinstance(prefix, str):
            continue  # null: no HTTP route; other types: serve-route-prefix-invalid
        if prefix in seen:
            first = seen[prefix]
            first_app = next(a for j, a, _ in apps if j == first)
            implicit = [app_label(j, a) for j, a in ((first, first_app), (i, app)) if "route_prefix" not in a]
            note = f"; {' and '.join(implicit)} omit route_prefix and default to '/'" if implicit else ""
            yield Violation(
                f"{app_label(i, app)} uses route_prefix {prefix!r}, already used by {app_label(first, first_app)}{note}",
                f"{path}.route_prefix",
            )
        else:
            seen[prefix] = i


declare(
    id="serve-route-prefix-duplicate",
    title="Two Serve applications on the same route_prefix",
    severity="critical",
    category="correctness",
    rationale="Ray Serve rejects duplicate route prefixes (HTTP 400), including two applications that both omit route_prefix and so both default to '/'. Only one application may rely on the default.",
    proof="Ray Serve's schema refuses two applications on one route prefix (HTTP 400)",
    fix="Give every application its own route_prefix (e.g. /fruit, /calc); at most one may be '/'.",
    check=_check_prefix_unique,
    violating=serve_mutated("route_prefix: /calc", "route_prefix: /fruit"),
    violating_path="spec.serveConfigV2.applications[1].route_prefix",
    **ON_TWO_APPS,
)


def _check_prefix_format(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for i, app, path in serve_apps(manifest):
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
                f"{app_label(i, app)} route_prefix {prefix!r} {problem}: the application ends DEPLOY_FAILED and blocks the whole RayService",
                f"{path}.route_prefix",
            )


declare(
    id="serve-route-prefix-invalid",
    title="Malformed Serve route_prefix",
    severity="critical",
    category="correctness",
    rationale="Ray Serve validates route_prefix when it builds the application: it must start with '/', not end with '/' (unless it is '/') and contain no braces, otherwise the application is DEPLOY_FAILED.",
    proof="Ray Serve fails the application whose route_prefix it cannot use (DEPLOY_FAILED)",
    fix="Use a prefix like '/calc'.",
    check=_check_prefix_format,
    violating=serve_mutated("route_prefix: /calc", "route_prefix: calc/"),
    violating_path="spec.serveConfigV2.applications[1].route_prefix",
    **ON_TWO_APPS,
)


def _check_prefix_explicit(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    apps = serve_apps(manifest)
    if len(apps) < 2:
        return
    for i, app, path in apps:
        if "route_prefix" not in app:
            yield Violation(
                f"{app_label(i, app)} has no route_prefix and silently serves '/', catching every request no other application matches; in a multi-application config state each prefix explicitly",
                path,
            )


declare(
    id="serve-route-prefix-implicit",
    title="Application relies on the default route_prefix in a multi-application config",
    severity="medium",
    category="reliability",
    rationale="The usual cause of Serve 404s is a route that does not match what clients call: the proxy matches by longest prefix on path-segment boundaries, and an application without route_prefix is mounted at '/'. Being explicit keeps routes and clients in sync.",
    fix="Set route_prefix on every application (e.g. '/fruit'); the application sees the path after it.",
    check=_check_prefix_explicit,
    violating=serve_mutated("    route_prefix: /calc\n", ""),
    violating_path="spec.serveConfigV2.applications[1]",
    **ON_TWO_APPS,
)


def _check_import_path(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for i, app, path in serve_apps(manifest):
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
            yield Violation(f"{app_label(i, app)} import_path {value!r} {problem}", f"{path}.import_path")


declare(
    id="serve-import-path-invalid",
    title="Malformed Serve import_path",
    severity="critical",
    category="correctness",
    rationale="Ray Serve rejects an import_path that is not 'module.attr' or 'module:attr' (HTTP 400).",
    proof="Ray Serve's schema refuses an import_path that is not module.attr or module:attr (HTTP 400)",
    fix="Point import_path at the bound application, e.g. 'fruit:deployment_graph' or 'fruit.deployment_graph'.",
    check=_check_import_path,
    violating=serve_mutated("import_path: conditional_dag.serve_dag", "import_path: serve_dag"),
    violating_path="spec.serveConfigV2.applications[1].import_path",
    **ON_TWO_APPS,
)


def _check_host_port(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for i, app, path in serve_apps(manifest):
        for key in ("host", "port"):
            if key in app:
                yield Violation(
                    f"{app_label(i, app)} sets {key!r}, which a multi-application config rejects",
                    f"{path}.{key}",
                    fix="Remove it; set the HTTP host/port once under top-level http_options.",
                )


declare(
    id="serve-app-host-port",
    title="host/port inside a Serve application",
    severity="critical",
    category="correctness",
    rationale="host and port only exist in the legacy single-application format; in serveConfigV2 they are rejected (HTTP 400).",
    proof="Ray Serve's multi-application schema refuses host and port in an application (HTTP 400)",
    fix="Move the port to top-level http_options.port (and the 'serve' container port).",
    check=_check_host_port,
    violating=serve_mutated("    route_prefix: /calc\n", "    route_prefix: /calc\n    port: 8001\n"),
    violating_path="spec.serveConfigV2.applications[1].port",
    **ON_TWO_APPS,
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
    for _, app, path in serve_apps(manifest):
        found.extend(_runtime_env_locals(app.get("runtime_env"), f"{path}.runtime_env"))
    for _, deployment, path in serve_deployments(manifest):
        options = deployment.get("ray_actor_options")
        found.extend(_runtime_env_locals(as_dict(options).get("runtime_env"), f"{path}.ray_actor_options.runtime_env"))
    for value, path in found:
        yield Violation(
            f"{value!r} is a local path; Serve configs need a remote URI (https://, s3://, gs://, ...) or a local:// path that exists on every node",
            path,
        )


declare(
    id="serve-runtime-env-local-path",
    title="Local working_dir/py_modules in a Serve config",
    severity="critical",
    category="correctness",
    rationale="The Serve REST API rejects plain local paths in runtime_env.working_dir/py_modules (HTTP 400): the config is applied on the cluster, not where it was written.",
    proof="the Serve REST API refuses a local path as working_dir or py_modules (HTTP 400)",
    fix="Zip the code to a reachable URL (https://, s3://, gs://) or bake it into the image and use local://.",
    check=_check_local_paths,
    violating=serve_mutated(
        "      working_dir: https://github.com/ray-project/test_dag/archive/78b4a5da.zip\n    deployments:\n"  # text-block
        "      - name: Adder",
        "      working_dir: ./math_app\n    deployments:\n      - name: Adder",
    ),
    violating_path="spec.serveConfigV2.applications[1].runtime_env.working_dir",
    **ON_TWO_APPS,
)


# ----------------------------------------------------------------------------------------------------
