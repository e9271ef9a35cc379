"""Hold our ServeConfig against Ray Serve's own schema (``ray.serve.schema.ServeDeploySchema``).

Ray is not a dependency of this project (it is large and pins its own pydantic), so the check runs
``check_serve_schema.py`` with another interpreter that has ``ray[serve]`` installed, named by the env var
``RAY_SERVE_PYTHON``; without it the tests skip. Set it up once with::

    scripts/setup-serve-venv          # .venv-serve with ray[serve]; scripts/test then sets RAY_SERVE_PYTHON
    scripts/test tests/serve_schema

(2.52.0 is the Ray version most KubeRay v1.7.0 samples pin.) What is asserted:

* Ray accepts the ``serveConfigV2`` of every upstream RayService sample, and every config our ServeConfig
renders;
* every config in :data:`BAD` is rejected by Ray **and** by ``ServeConfig.from_yaml``;
* every config in :data:`STRICTER` is accepted by Ray's request schema but rejected by us, each for a
documented
  reason (a failure later at deploy time, a silently ignored key, or a RayService that could never be ready).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _reference import reference_dir, sample_documents
from pulumi_kuberay.model._errors import ManifestError
from pulumi_kuberay.model.serve import (
    AutoscalingConfig,
    GrpcOptions,
    HTTPOptions,
    LoggingConfig,
    RayActorOptions,
    ServeApplication,
    ServeConfig,
    ServeDeployment,
)

ENV_VAR = "RAY_SERVE_PYTHON"
SCRIPT = Path(__file__).resolve().parent / "check_serve_schema.py"


def _app(extra: str = "", *, name: str = "a", route: str | None = "/a") -> str:
    route_line = f"    route_prefix: {route}\n" if route is not None else ""
    return f"  - name: {name}\n    import_path: m:app\n{route_line}{extra}"


def _dep(extra: str) -> str:
    """A whole config: one application with one deployment ``D`` carrying ``extra`` (YAML lines)."""
    lines = "".join(f"        {line}\n" for line in extra.splitlines())
    return "applications:\n" + _app("    deployments:\n      - name: D\n" + lines)


#: Configs Ray Serve rejects (HTTP 400 at PUT /api/serve/applications/, or when it builds the autoscaling
#: config).
BAD: dict[str, str] = {
    "no-applications": "proxy_location: EveryNode\n",
    "applications-not-a-list": "applications: {name: a}\n",
    "duplicate-app-names": "applications:\n" + _app(name="a", route="/a") + _app(name="a", route="/b"),
    "empty-app-name": "applications:\n" + _app(name='""'),
    "unnamed-apps-both-default": "applications:\n  - import_path: m:a\n    route_prefix: /a\n"
    "  - import_path: m:b\n    route_prefix: /b\n",
    "duplicate-route-prefix": "applications:\n" + _app(name="a", route="/x") + _app(name="b", route="/x"),
    "two-apps-default-route": "applications:\n" + _app(name="a", route=None) + _app(name="b", route=None),
    "port-inside-app": "applications:\n" + _app("    port: 9000\n"),
    "host-inside-app": "applications:\n" + _app("    host: 0.0.0.0\n"),
    "import-path-no-separator": "applications:\n  - name: a\n    import_path: fruit\n",
    "import-path-two-colons": "applications:\n  - name: a\n    import_path: a:b:c\n",
    "import-path-leading-colon": "applications:\n  - name: a\n    import_path: ':app'\n",
    "import-path-trailing-dot": "applications:\n  - name: a\n    import_path: mod.\n",
    "local-working-dir": "applications:\n" + _app("    runtime_env:\n      working_dir: ./src\n"),
    "local-py-module": _dep("ray_actor_options:\n  runtime_env:\n    py_modules: [/opt/mod]"),
    "num-replicas-with-autoscaling": _dep("num_replicas: 2\nautoscaling_config: {max_replicas: 3}"),
    "num-replicas-word": _dep("num_replicas: three"),
    "num-replicas-zero": _dep("num_replicas: 0"),
    "max-ongoing-requests-zero": _dep("max_ongoing_requests: 0"),
    "negative-health-check-period": _dep("health_check_period_s: -1"),
    "negative-graceful-shutdown": _dep("graceful_shutdown_timeout_s: -5"),
    "autoscaling-min-above-max": _dep("autoscaling_config: {min_replicas: 4, max_replicas: 2}"),
    "autoscaling-min-above-default-max": _dep("autoscaling_config: {min_replicas: 3}"),
    "autoscaling-initial-below-min": _dep(
        "autoscaling_config: {min_replicas: 2, initial_replicas: 1, max_replicas: 5}"
    ),
    "autoscaling-initial-above-max": _dep("autoscaling_config: {initial_replicas: 6, max_replicas: 5}"),
    "autoscaling-max-zero": _dep("autoscaling_config: {min_replicas: 0, max_replicas: 0}"),
    "autoscaling-target-zero": _dep("autoscaling_config: {target_ongoing_requests: 0}"),
    "max-per-node-with-bundles": _dep("max_replicas_per_node: 1\nplacement_group_bundles: [{CPU: 1}]"),
    "max-queued-zero": _dep("max_queued_requests: 0"),
    "num-cpus-word": _dep("ray_actor_options: {num_cpus: one}"),
    "negative-num-gpus": _dep("ray_actor_options: {num_gpus: -1}"),
    "bad-proxy-location": "proxy_location: Everywhere\napplications:\n" + _app(),
    "target-capacity-over-100": "target_capacity: 150\napplications:\n" + _app(),
    "logging-unknown-key": "logging_config: {level: INFO}\napplications:\n" + _app(),
    "logging-bad-level": "logging_config: {log_level: debug}\napplications:\n" + _app(),
    "logging-bad-encoding": "logging_config: {encoding: XML}\napplications:\n" + _app(),
    "http-port-word": "http_options: {port: eighty}\napplications:\n" + _app(),
}

#: Accepted by Ray's request schema, rejected by us -- deliberately stricter, with the reason.
STRICTER: dict[str, tuple[str, str]] = {
    "route-prefix-without-slash": (
        "applications:\n" + _app(route="fruit"),
        "Ray checks route_prefix only when it builds the app: DEPLOY_FAILED, the RayService never gets ready",
    ),
    "route-prefix-trailing-slash": (
        "applications:\n" + _app(route="/fruit/"),
        "same: DEPLOY_FAILED at build time",
    ),
    "misspelt-key": (
        "applications:\n  - name: a\n    import_path: m:app\n    routePrefix: /a\n",
        "Ray silently ignores unknown keys (the app would be served at '/')",
    ),
    "empty-applications": (
        "applications: []\n",
        "no application is ever RUNNING, so the RayService never gets ready",
    ),
    "max-replicas-per-node-zero": (
        _dep("max_replicas_per_node: 0"),
        "Ray rejects it only when it builds the deployment config",
    ),
    "ssl-key-without-cert": (
        "http_options: {ssl_keyfile: /k.pem}\napplications:\n" + _app(),
        "Ray's schema checks the pair only when ssl_certfile is set; without a certificate there is no HTTPS",
    ),
    "http-port-out-of-range": ("http_options: {port: 70000}\napplications:\n" + _app(), "not a TCP port"),
    # Keys Ray takes and drops (ServeDeploySchema, then AutoscalingConfig): the setting has no effect, nothing
    # fails, so lint says serve-config-unknown-key (at most high), a manifest loads; the typed model refuses it.
    "http-options-location": (
        "http_options: {location: EveryNode}\napplications:\n" + _app(),
        "Ray drops it (proxy_location is the key): the setting has no effect",
    ),
    "autoscaling-max-ongoing-requests": (
        _dep("autoscaling_config: {min_replicas: 1, max_replicas: 3, max_ongoing_requests: 5}"),
        "Ray drops it (a deployment key, not an autoscaling_config one): the setting has no effect",
    ),
}


def _rendered() -> dict[str, str]:
    """Configs built with our model and rendered with ``to_yaml()``."""
    configs = {
        "minimal": ServeConfig(applications=[ServeApplication(import_path="m:app")]),
        "two-apps": ServeConfig(
            applications=[
                ServeApplication(
                    name="fruit_app",
                    import_path="fruit.deployment_graph",
                    route_prefix="/fruit",
                    runtime_env={
                        "working_dir": "https://github.com/ray-project/test_dag/archive/78b4a5d.zip",
                        "pip": ["requests"],
                    },
                    deployments=[
                        ServeDeployment(
                            name="MangoStand",
                            num_replicas=2,
                            max_replicas_per_node=1,
                            user_config={"price": 3},
                            ray_actor_options=RayActorOptions(num_cpus=0.1),
                        )
                    ],
                ),
                ServeApplication(
                    name="math_app", import_path="conditional_dag:serve_dag", route_prefix="/calc"
                ),
            ]
        ),
        "everything": ServeConfig(
            proxy_location="EveryNode",
            http_options=HTTPOptions(
                host="0.0.0.0", port=9000, root_path="", request_timeout_s=30, keep_alive_timeout_s=90
            ),
            grpc_options=GrpcOptions(
                port=9001,
                grpc_servicer_functions=["pkg.svc_pb2_grpc.add_Svc_to_server"],
                request_timeout_s=10,
            ),
            logging_config=LoggingConfig(
                encoding="JSON",
                log_level="DEBUG",
                enable_access_log=False,
                additional_log_standard_attrs=["name"],
            ),
            target_capacity=50,
            applications=[
                ServeApplication(
                    name="llm",
                    import_path="ray.serve.llm:build_openai_app",
                    route_prefix="/",
                    args={"llm_configs": [{"model_loading_config": {"model_id": "qwen"}}]},
                    logging_config=LoggingConfig(log_level=10),
                    deployments=[
                        ServeDeployment(
                            name="LLMServer",
                            num_replicas="auto",
                            max_ongoing_requests=64,
                            max_queued_requests=-1,
                            autoscaling_config=AutoscalingConfig(
                                min_replicas=0,
                                initial_replicas=1,
                                max_replicas=4,
                                target_ongoing_requests=8,
                                upscale_delay_s=10,
                                downscale_delay_s=300,
                                look_back_period_s=20,
                                aggregation_function="max",
                            ),
                            health_check_period_s=5,
                            health_check_timeout_s=20,
                            graceful_shutdown_wait_loop_s=1,
                            graceful_shutdown_timeout_s=10,
                            ray_actor_options=RayActorOptions(
                                num_cpus=1,
                                num_gpus=1,
                                memory=2**30,
                                resources={"accel": 1},
                                accelerator_type="L4",
                            ),
                        ),
                        ServeDeployment(
                            name="Router",
                            placement_group_bundles=[{"CPU": 1}, {"GPU": 1}],
                            placement_group_strategy="STRICT_PACK",
                        ),
                    ],
                ),
                ServeApplication(
                    name="internal",
                    import_path="pkg.internal.app",
                    route_prefix=None,
                    runtime_env={"py_modules": ["s3://bucket/mod.zip"]},
                ),
            ],
        ),
    }
    return {f"rendered:{key}": config.to_yaml() for key, config in configs.items()}


def _samples() -> dict[str, str]:
    if reference_dir() is None:
        return {}
    return {
        f"sample:{name}#{index}": doc["spec"]["serveConfigV2"]
        for name, index, doc in sample_documents("RayService")
    }


@pytest.fixture(scope="module")
def ray_verdicts() -> dict[str, Any]:
    python = os.environ.get(ENV_VAR)
    if not python:
        pytest.skip(f"Ray Serve cross-check: set {ENV_VAR} to a python with ray[serve] installed")
    configs = {
        **_samples(),
        **_rendered(),
        **{f"bad:{k}": v for k, v in BAD.items()},
        **{f"stricter:{k}": v for k, (v, _) in STRICTER.items()},
    }
    proc = subprocess.run(
        [python, str(SCRIPT), "-"],
        input=json.dumps(configs),
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    out: dict[str, Any] = json.loads(proc.stdout)
    print(f"Ray Serve {out['ray_version']} judged {len(out['results'])} configs")
    return out


def test_ray_accepts_every_sample_config(ray_verdicts: dict[str, Any]) -> None:
    samples = {k: v for k, v in ray_verdicts["results"].items() if k.startswith("sample:")}
    if reference_dir() is not None:
        assert len(samples) == 16
    assert {k: v["error"] for k, v in samples.items() if not v["accepted"]} == {}


@pytest.mark.parametrize("key", sorted(_rendered()))
def test_ray_accepts_what_we_render(ray_verdicts: dict[str, Any], key: str) -> None:
    verdict = ray_verdicts["results"][key]
    assert verdict["accepted"], verdict["error"]


@pytest.mark.parametrize("key", sorted(BAD))
def test_configs_ray_rejects_we_reject(ray_verdicts: dict[str, Any], key: str) -> None:
    verdict = ray_verdicts["results"][f"bad:{key}"]
    assert not verdict["accepted"], f"Ray accepted {key!r}: move it to STRICTER or fix the case"
    with pytest.raises(ManifestError):
        ServeConfig.from_yaml(BAD[key])


@pytest.mark.parametrize("key", sorted(STRICTER))
def test_where_we_are_stricter_than_ray(ray_verdicts: dict[str, Any], key: str) -> None:
    text, _reason = STRICTER[key]
    verdict = ray_verdicts["results"][f"stricter:{key}"]
    assert verdict["accepted"], f"Ray now rejects {key!r} too: move it to BAD"
    with pytest.raises(ManifestError):
        ServeConfig.from_yaml(text)


def test_our_model_accepts_every_sample_and_rendered_config() -> None:
    # Independent of Ray: the other direction's premise.
    for text in [*_samples().values(), *_rendered().values()]:
        ServeConfig.from_yaml(text)
