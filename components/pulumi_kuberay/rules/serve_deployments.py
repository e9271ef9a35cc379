"""Ray Serve config, deployments, proxies and ports, misspelt keys (Ray Serve's ``DeploymentSchema``,
``HTTPOptionsSchema``).

See ``service/__init__.py`` for how serveConfigV2 mistakes surface; paths point into the parsed document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay import SERVE_PORT as DEFAULT_HTTP_PORT
from pulumi_kuberay.kuberay.paths import (
    as_dict,
    as_int,
    as_list,
    as_str,
    cluster_specs,
    group_template,
    groups,
    join,
    ray_container,
)
from pulumi_kuberay.model.serve_versions import known_keys
from pulumi_kuberay.model.suggest import closest

from ._engine import Context, Violation, declare
from ._examples import ON_TWO_APPS, TWO_APPS, serve_mutated, serve_service
from ._fixed import patch
from ._serve_config import (
    BASE,
    PROXY_LOCATIONS,
    number,
    serve_apps,
    serve_config,
    serve_deployments,
    serve_keys,
)

# Deployments


_OVERRIDE_LOST = "high: Ray Serve takes the config, one override is lost"


def _check_deployment_names(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for _, app, app_path in serve_apps(manifest):
        seen: dict[str, int] = {}
        for j, deployment in enumerate(as_list(app.get("deployments"))):
            if not isinstance(deployment, dict):
                continue
            path = f"{app_path}.deployments[{j}]"
            name = deployment.get("name")
            if not isinstance(name, str) or not name:
                yield Violation(f"deployments[{j}] has no name (required: the deployment class to override)", path)
            elif name in seen:
                yield Violation(
                    f"deployments[{j}] overrides {name!r} again (already at deployments[{seen[name]}]); one of the two sets of options is silently lost",
                    f"{path}.name",
                    severity="high",
                    severity_why=_OVERRIDE_LOST,
                )
            else:
                seen[name] = j


declare(
    id="serve-deployment-name-invalid",
    title="Serve deployment override without a name, or listed twice",
    severity="critical",
    category="correctness",
    rationale="deployments[].name is required (HTTP 400 without it) and must name a deployment of the application (DEPLOY_FAILED otherwise); listing one twice makes one override win silently.",
    proof="Ray Serve's schema refuses a deployment without a name (HTTP 400); one listed twice is high (one override is silently lost, nothing fails); a name the code does not define is not known here and not judged",
    fix="Give each override the exact deployment (class) name from the code, once per application.",
    check=_check_deployment_names,
    violating=serve_mutated("      - name: Adder\n", "      - num_cpus: 1\n"),
    violating_path="spec.serveConfigV2.applications[1].deployments[0]",
    **ON_TWO_APPS,
    also=(_OVERRIDE_LOST,),
)


def _check_autoscaling(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for _, deployment, path in serve_deployments(manifest):
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
        low = number(config.get("min_replicas", 1))
        high = number(config.get("max_replicas", 1))
        initial = number(config.get("initial_replicas"))
        if low is not None and low < 0:
            yield Violation(f"deployment {name!r} min_replicas {low:g} is negative", f"{where}.min_replicas")
        if high is not None and high < 1:
            yield Violation(f"deployment {name!r} max_replicas {high:g} must be >= 1", f"{where}.max_replicas")
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


_AUTOSCALED_ADDER = TWO_APPS.replace(
    "      - name: Adder\n        num_replicas: 1\n",
    "      - name: Adder\n        autoscaling_config:\n          min_replicas: 1\n          max_replicas: 4\n",
)

declare(
    id="serve-autoscaling-config-invalid",
    title="Invalid Serve autoscaling bounds",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rationale="Ray Serve rejects autoscaling_config with max_replicas < min_replicas (max defaults to 1), initial_replicas outside the bounds, or an integer num_replicas next to autoscaling_config (HTTP 400).",
    proof="Ray Serve's schema refuses the bounds (HTTP 400)",
    fix="Set 0 <= min_replicas <= initial_replicas <= max_replicas, and drop num_replicas.",
    check=_check_autoscaling,
    compliant=serve_service(_AUTOSCALED_ADDER),
    violating=serve_mutated(
        "      - name: Adder\n        num_replicas: 1\n",
        "      - name: Adder\n        autoscaling_config:\n          min_replicas: 4\n          max_replicas: 2\n",
    ),
    violating_path="spec.serveConfigV2.applications[1].deployments[0].autoscaling_config.max_replicas",
    fixed=patch(
        {
            "spec.serveConfigV2": _AUTOSCALED_ADDER,
        }
    ),
)


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _check_deployment_options(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for _, deployment, path in serve_deployments(manifest):
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
            value = number(deployment[key])
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


declare(
    id="serve-deployment-options-invalid",
    title="Invalid Serve deployment options",
    severity="critical",
    category="correctness",
    rationale="Ray Serve rejects non-positive num_replicas/max_ongoing_requests, max_queued_requests of 0 or below -1, negative health-check/shutdown timings, max_replicas_per_node outside 1..100 or combined with placement_group_bundles (HTTP 400: no application is deployed).",
    proof="Ray Serve's schema refuses the option's value (HTTP 400)",
    fix="Use positive replica counts (or 'auto'), positive timeouts, and one placement mechanism.",
    check=_check_deployment_options,
    violating=serve_mutated("        num_replicas: 2\n", "        num_replicas: 0\n"),
    violating_path="spec.serveConfigV2.applications[0].deployments[0].num_replicas",
    **ON_TWO_APPS,
)


def _check_ongoing_vs_target(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for _, deployment, path in serve_deployments(manifest):
        config = deployment.get("autoscaling_config")
        ongoing = number(deployment.get("max_ongoing_requests"))
        if not isinstance(config, dict) or ongoing is None:
            continue
        target = number(config.get("target_ongoing_requests", 2))
        if target is not None and ongoing < target:
            yield Violation(
                f"deployment {deployment.get('name', '?')!r} max_ongoing_requests ({ongoing:g}) is below target_ongoing_requests ({target:g}): replicas never reach the target, so Serve never scales up",
                f"{path}.max_ongoing_requests",
            )


declare(
    id="serve-max-ongoing-below-target",
    title="max_ongoing_requests below the autoscaling target",
    severity="medium",
    category="reliability",
    rationale="A replica never holds more than max_ongoing_requests, so a higher target_ongoing_requests (default 2) is never reached and the deployment never scales up (Serve only logs a warning).",
    fix="Keep max_ongoing_requests >= target_ongoing_requests (e.g. 5 and 2).",
    check=_check_ongoing_vs_target,
    violating=serve_mutated(
        "      - name: Adder\n        num_replicas: 1\n",
        "      - name: Adder\n        max_ongoing_requests: 1\n        autoscaling_config:\n"  # text-block
        "          min_replicas: 1\n          max_replicas: 4\n          target_ongoing_requests: 4\n",
    ),
    violating_path="spec.serveConfigV2.applications[1].deployments[0].max_ongoing_requests",
    **ON_TWO_APPS,
)


# ----------------------------------------------------------------------------------------------------
# Proxies and ports


def _check_proxy_location(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    config = serve_config(manifest)
    if config is None or config.get("proxy_location") is None:
        return
    location = config["proxy_location"]
    path = f"{BASE}.proxy_location"
    if location not in PROXY_LOCATIONS:
        yield Violation(f"proxy_location {location!r} is not one of EveryNode, HeadOnly, Disabled", path)
    elif location in ("Disabled", "NoServer"):
        yield Violation(
            f"proxy_location {location}: no HTTP proxy runs, so the serve Service has no endpoints and the RayService never becomes Ready",
            path,
        )
    elif location == "HeadOnly":
        yield Violation(
            "proxy_location HeadOnly: every worker fails KubeRay's Serve readiness check, so only the head serves traffic",
            path,
            severity="high",
        )


declare(
    id="serve-proxy-location-incompatible",
    title="Serve proxy_location incompatible with KubeRay",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rationale="KubeRay's serve Service selects Pods whose Serve proxy is healthy; only EveryNode (the default) puts proxies where KubeRay expects them.",
    proof="KubeRay's serve Service selects the Pods whose Serve proxy is healthy: without a proxy on every node KubeRay expects, the RayService gets no endpoints",
    fix="Remove proxy_location or set it to EveryNode.",
    check=_check_proxy_location,
    compliant=serve_service(TWO_APPS + "proxy_location: EveryNode\n"),
    violating=serve_service(TWO_APPS + "proxy_location: Disabled\n"),
    violating_path="spec.serveConfigV2.proxy_location",
    fixed=patch(
        {
            "spec.serveConfigV2": TWO_APPS + "proxy_location: EveryNode\n",
        }
    ),
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
    config = serve_config(manifest)
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
                f"Serve listens on http_options.port {http_port} but the {what} serve port is {port}{implicit}: traffic and KubeRay's proxy health checks go to a closed port, so endpoints stay at 0",
                where,
                fix=f"Declare {{name: serve, containerPort: {http_port}}} on the {what} container, or set http_options.port to {port}.",
            )


def _different_port(port_everywhere: bool) -> dict[str, Any]:
    service = serve_service(TWO_APPS + "http_options:\n  port: 9000\n")
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


declare(
    id="serve-http-port-mismatch",
    title="Serve http_options.port differs from the 'serve' container port",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rationale="Every Serve proxy listens on http_options.port (default 8000); KubeRay sends traffic and readiness probes to the container port named 'serve' (8000 when none is declared) on the head and on every worker. If they differ, the RayService never gets ready endpoints.",
    proof="the proxies listen on http_options.port while KubeRay sends traffic and probes to the container port named serve (8000 by default)",
    fix="Use the same port in http_options.port and in a 'serve' port of the head and every worker container.",
    check=_check_http_port,
    compliant=_different_port(port_everywhere=True),
    violating=_different_port(port_everywhere=False),
    violating_path="spec.rayClusterConfig.workerGroupSpecs[0].template.spec.containers[0].ports",
    fixed=patch(
        {
            "spec.rayClusterConfig.workerGroupSpecs[0].template.spec.containers[0].ports": [
                {"containerPort": 9000, "name": "serve"}
            ],
        }
    ),
)


# ----------------------------------------------------------------------------------------------------
# Misspelt keys


def _normalised(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).replace("-", "_").lower()


#: The sections whose keys serve-config-unknown-key judges, and how a message names each.
_JUDGED_SECTIONS = {
    "config": "top-level",
    "http_options": "http_options",
    "grpc_options": "grpc_options",
    "application": "application",
    "deployment": "deployment",
    "autoscaling_config": "autoscaling_config",
    "ray_actor_options": "ray_actor_options",
}


def _unknown_key(key: str, known: frozenset[str], where: str, what: str) -> Violation:
    # the spelling slip first (routePrefix), then the model's own did-you-mean: one guess for both
    guess = _normalised(key)
    if guess not in known:
        guess = closest(key, sorted(known)) or guess
    if guess in known:
        return Violation(
            f"{what} key {key!r} is not a Ray Serve field (did you mean {guess!r}?); Ray Serve silently ignores it, so the default or the code's value applies",
            where,
            fix=f"Rename {key!r} to {guess!r}.",
            severity="high",
        )
    return Violation(f"{what} key {key!r} is not a known Ray Serve field; Ray Serve silently ignores unknown keys", where)


def _check_unknown_keys(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    found = [
        (section, key, path)
        for section, key, path in serve_keys(manifest)  # the walk serve_versions judges releases by (shared)
        if section in _JUDGED_SECTIONS and key not in known_keys(section)
    ]
    # Reported as before the walk was shared: the config's own sections, then every application, then every
    # deployment with its autoscaling_config and ray_actor_options (a stable sort keeps the walk's order within).
    rank = {"config": 0, "http_options": 0, "grpc_options": 0, "application": 1}
    for section, key, path in sorted(found, key=lambda item: rank.get(item[0], 2)):
        yield _unknown_key(key, known_keys(section), path, _JUDGED_SECTIONS[section])


declare(
    id="serve-config-unknown-key",
    title="Unknown (misspelt) key in the Serve config",
    severity="medium",
    category="correctness",
    rationale="Ray Serve's schema ignores unknown keys, so 'routePrefix' or 'num-replicas' are dropped without an error and the defaults apply (e.g. the application lands on '/'). Never critical: Ray Serve takes the config and the applications deploy; high when the key is a slip of a known one (the setting meant has no effect), medium otherwise.",
    fix="Use Ray Serve's snake_case field names (route_prefix, num_replicas, max_ongoing_requests, ...).",
    check=_check_unknown_keys,
    violating=serve_mutated("route_prefix: /calc", "routePrefix: /calc"),
    violating_path="spec.serveConfigV2.applications[1].routePrefix",
    **ON_TWO_APPS,
)
