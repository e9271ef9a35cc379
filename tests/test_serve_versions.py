"""The generated Serve key table asked for one release (``model/serve_versions.py``), and the typed Serve models
accepting every key some release knows. No Ray needed: tests/serve_schema holds the table against Ray itself."""

from __future__ import annotations

import pytest
from pulumi_kuberay.model import serve
from pulumi_kuberay.model._serve_versions import KEYS, RAY_VERSIONS
from pulumi_kuberay.model.serve_versions import judge_key, parse_ray_version, release_of_service, serve_release
from pydantic import BaseModel

MODELS: dict[str, type[BaseModel]] = {
    "config": serve.ServeConfig,
    "application": serve.ServeApplication,
    "deployment": serve.ServeDeployment,
    "autoscaling_config": serve.AutoscalingConfig,
    "ray_actor_options": serve.RayActorOptions,
    "http_options": serve.HTTPOptions,
    "grpc_options": serve.GrpcOptions,
    "logging_config": serve.LoggingConfig,
}


@pytest.mark.parametrize("section", sorted(MODELS))
def test_the_typed_models_accept_every_key_some_release_knows(section: str) -> None:
    # an application's host/port: ServeApplicationSchema has them, but ServeDeploySchema refuses them in a
    # multi-application config (the model rejects them too: serve-app-host-port)
    refused = {"host", "port"} if section == "application" else set()
    missing = set(KEYS[section]) - set(MODELS[section].model_fields) - refused
    assert missing == set(), f"{section}: add {sorted(missing)} to the model (tools/gen_serve_versions.py found them)"


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("2.9", (2, 9, 0)), ("2.9.3", (2, 9, 3)), ("v2.46.0", (2, 46, 0)), ("2.46.0-py311-gpu", (2, 46, 0)),
     ("2.41.0.post1", (2, 41, 0)), ("latest", None), ("nightly-py310", None), ("${RAY_VERSION}", None), (2.9, None)],
)  # fmt: skip
def test_ray_versions_and_image_tags_are_read(text: object, parsed: tuple[int, int, int] | None) -> None:
    assert parse_ray_version(text) == parsed


def test_the_release_is_the_image_tag_else_ray_version_else_the_newest() -> None:
    assert serve_release(ray_version="2.9.0", image="rayproject/ray:2.46.0-py311").version == "2.46.0"
    assert serve_release(ray_version="2.9.0", image="registry:5000/ray:latest").source == "rayVersion"
    assert serve_release(ray_version="2.9.0", image="ecr.example/dogbooth:0.0.1-gpu").version == "2.9.0"  # not Ray's
    assert serve_release(image="registry:5000/ray").version == RAY_VERSIONS[-1]
    assert serve_release(ray_version="2.31.0").index == RAY_VERSIONS.index("2.30.0")  # the schema of 2.30
    assert serve_release(ray_version="2.5.0").index == 0  # older than the table: the oldest
    manifest = {"kind": "RayService", "spec": {"rayClusterConfig": {"rayVersion": "2.20.0", "headGroupSpec": {
        "template": {"spec": {"containers": [{"image": "rayproject/ray:2.20.0"}]}}}}}}  # fmt: skip
    assert release_of_service(manifest).label == "Ray 2.20.0 (the head image tag)"


@pytest.mark.parametrize(
    ("section", "key", "version", "status"),
    [
        ("deployment", "max_concurrent_queries", "2.9.3", "accepted"),
        ("deployment", "max_concurrent_queries", "2.10.0", "deprecated"),
        ("deployment", "max_concurrent_queries", "2.32.0", "deprecated"),
        ("deployment", "max_concurrent_queries", "2.33.0", "dropped"),
        ("deployment", "max_ongoing_requests", "2.9.3", "dropped"),
        ("deployment", "max_queued_requests", "2.20.0", "accepted"),  # Ray's docs called it deprecated by mistake
        ("autoscaling_config", "target_num_ongoing_requests_per_replica", "2.24.0", "deprecated"),
        ("deployment", "request_router_config", "2.46.0", "dropped"),
        ("deployment", "request_router_config", "2.48.0", "accepted"),
        ("logging_config", "additional_log_standard_attrs", "2.40.0", "rejected"),  # logging_config forbids extras
        ("deployment", "routePrefix", "2.52.0", "unknown"),
    ],
)
def test_judge_key(section: str, key: str, version: str, status: str) -> None:
    verdict = judge_key(section, key, serve_release(ray_version=version))
    assert verdict.status == status
    if key == "max_concurrent_queries" and status == "deprecated":
        assert verdict.replacement == "max_ongoing_requests" and verdict.removed_in == "2.33.0"
