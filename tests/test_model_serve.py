"""The typed Ray Serve config (``model/serve.py``): rendering, parsing, and each check with its exact path."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from _reference import sample_documents
from pulumi_kuberay.model._errors import ManifestError, SpecError
from pulumi_kuberay.model.serve import (
    AutoscalingConfig,
    ContainerPortRef,
    HTTPOptions,
    RayActorOptions,
    ServeApplication,
    ServeConfig,
    ServeDeployment,
    check_serve_port,
)
from pydantic import ValidationError


def _fruit_and_math() -> ServeConfig:
    return ServeConfig(
        applications=[
            ServeApplication(
                name="fruit_app",
                import_path="fruit.deployment_graph",
                route_prefix="/fruit",
                runtime_env={"working_dir": "https://github.com/ray-project/test_dag/archive/78b4a5d.zip"},
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
                name="math_app",
                import_path="conditional_dag.serve_dag",
                route_prefix="/calc",
                deployments=[
                    ServeDeployment(
                        name="Router",
                        autoscaling_config=AutoscalingConfig(
                            min_replicas=1, initial_replicas=2, max_replicas=3
                        ),
                        max_ongoing_requests=100,
                    )
                ],
            ),
        ],
        http_options=HTTPOptions(port=9000),
    )


def _problems(text_or_data: str | dict[str, Any]) -> list[tuple[str, str]]:
    load = ServeConfig.from_yaml if isinstance(text_or_data, str) else ServeConfig.from_dict
    with pytest.raises(ManifestError) as info:
        load(text_or_data)  # type: ignore[arg-type]  # the loader fits the value's type
    return [(p.path, p.message) for p in info.value.problems]


def _apps(*apps: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"applications": list(apps), **top}


# --------------------------------------------------------------------------------------------------
# Rendering and parsing


def test_to_yaml_renders_snake_case_only_what_was_set() -> None:
    text = _fruit_and_math().to_yaml()
    assert yaml.safe_load(text) == {
        "applications": [
            {
                "name": "fruit_app",
                "import_path": "fruit.deployment_graph",
                "route_prefix": "/fruit",
                "runtime_env": {"working_dir": "https://github.com/ray-project/test_dag/archive/78b4a5d.zip"},
                "deployments": [
                    {
                        "name": "MangoStand",
                        "num_replicas": 2,
                        "user_config": {"price": 3},
                        "ray_actor_options": {"num_cpus": 0.1},
                        "max_replicas_per_node": 1,
                    }
                ],
            },
            {
                "name": "math_app",
                "import_path": "conditional_dag.serve_dag",
                "route_prefix": "/calc",
                "deployments": [
                    {
                        "name": "Router",
                        "autoscaling_config": {"min_replicas": 1, "initial_replicas": 2, "max_replicas": 3},
                        "max_ongoing_requests": 100,
                    }
                ],
            },
        ],
        "http_options": {"port": 9000},
    }
    assert "routePrefix" not in text and "importPath" not in text
    assert text.startswith("applications:\n- name: fruit_app\n  import_path: fruit.deployment_graph\n")


def test_from_yaml_round_trips_to_an_equal_config() -> None:
    config = _fruit_and_math()
    assert ServeConfig.from_yaml(config.to_yaml()) == config
    assert ServeConfig.from_yaml(config.to_yaml()).to_yaml() == config.to_yaml()


def test_every_sample_serve_config_parses_and_renders_the_same_data() -> None:
    count = 0
    for _name, _index, doc in sample_documents("RayService"):
        text = doc["spec"]["serveConfigV2"]
        config = ServeConfig.from_yaml(text)
        assert yaml.safe_load(config.to_yaml()) == yaml.safe_load(text)
        count += 1
    assert count == 16


def test_explicit_null_route_prefix_is_kept_and_means_no_route() -> None:
    config = ServeConfig(applications=[ServeApplication(name="a", import_path="m:app", route_prefix=None)])
    assert config.to_yaml() == "applications:\n- name: a\n  import_path: m:app\n  route_prefix: null\n"
    assert config.routes() == {}


def test_routes_and_http_port_defaults() -> None:
    config = ServeConfig.from_yaml(
        "applications:\n- import_path: m:app\n- name: b\n  import_path: m:b\n  route_prefix: /b\n"
    )
    assert config.routes() == {"default": "/", "b": "/b"}
    assert config.http_port == 8000
    assert _fruit_and_math().http_port == 9000


def test_keys_are_snake_case_not_camel_case() -> None:
    assert ServeApplication.model_fields["route_prefix"].alias is None
    assert _problems(_apps({"name": "a", "importPath": "m:app"})) == [
        ("applications[0].import_path", "required field is missing"),
        ("applications[0].importPath", "unknown field 'importPath' (Ray Serve would silently ignore it)"),
    ]


def test_misspelt_key_gets_a_did_you_mean() -> None:
    with pytest.raises(ManifestError) as info:
        ServeConfig.from_dict(_apps({"name": "a", "import_path": "m:app", "routePrefix": "/a"}))
    (problem,) = info.value.problems
    assert problem.path == "applications[0].routePrefix"
    assert problem.fix == "did you mean 'route_prefix'?"


def test_not_yaml_and_not_a_mapping() -> None:
    assert _problems("applications: [")[0][1].startswith("not valid YAML at line ")
    assert _problems("- a\n- b\n") == [
        ("", "a Serve config must be a YAML mapping with an 'applications' list, got list")
    ]


# --------------------------------------------------------------------------------------------------
# Application-level checks


def test_applications_required_and_non_empty() -> None:
    assert _problems({}) == [("applications", "required field is missing")]
    assert _problems(_apps())[0][0] == "applications"


def test_duplicate_application_names() -> None:
    assert _problems(
        _apps(
            {"name": "a", "import_path": "m:a", "route_prefix": "/a"},
            {"name": "a", "import_path": "m:b", "route_prefix": "/b"},
        )
    ) == [("applications[1].name", "application name 'a' is already used by applications[0]")]


def test_two_unnamed_applications_are_both_called_default() -> None:
    (problem,) = _problems(
        _apps({"import_path": "m:a", "route_prefix": "/a"}, {"import_path": "m:b", "route_prefix": "/b"})
    )
    assert problem == (
        "applications[1].name",
        "application name 'default' is already used by applications[0] "
        "(an application without name is called 'default')",
    )


def test_empty_application_name() -> None:
    assert _problems(_apps({"name": "", "import_path": "m:a"})) == [
        ("applications[0].name", "String should have at least 1 character")
    ]


def test_only_one_application_may_rely_on_the_default_route() -> None:
    assert _problems(_apps({"name": "a", "import_path": "m:a"}, {"name": "b", "import_path": "m:b"})) == [
        (
            "applications[1].route_prefix",
            "route_prefix '/' is already used by applications[0] ('a') "
            "(an application without route_prefix gets '/'; only one application may rely on that)",
        )
    ]


def test_duplicate_explicit_route_prefix() -> None:
    assert _problems(
        _apps(
            {"name": "a", "import_path": "m:a", "route_prefix": "/x"},
            {"name": "b", "import_path": "m:b", "route_prefix": "/y"},
            {"name": "c", "import_path": "m:c", "route_prefix": "/x"},
        )
    ) == [("applications[2].route_prefix", "route_prefix '/x' is already used by applications[0] ('a')")]


def test_explicit_root_collides_with_a_default_root() -> None:
    assert _problems(
        _apps({"name": "a", "import_path": "m:a"}, {"name": "b", "import_path": "m:b", "route_prefix": "/"})
    )[0][0] == ("applications[1].route_prefix")


def test_several_apps_without_route_are_fine_when_null() -> None:
    config = ServeConfig.from_dict(
        _apps(
            {"name": "a", "import_path": "m:a", "route_prefix": None},
            {"name": "b", "import_path": "m:b", "route_prefix": None},
            {"name": "c", "import_path": "m:c"},
        )
    )
    assert config.routes() == {"c": "/"}


@pytest.mark.parametrize(
    ("route", "message"),
    [
        ("fruit", "route_prefix 'fruit' must start with '/'"),
        ("/fruit/", "route_prefix '/fruit/' must not end with '/' (only the root prefix '/' may)"),
        ("/a/{id}", "route_prefix '/a/{id}' must not contain '{' or '}' (no wildcards)"),
    ],
)
def test_route_prefix_format(route: str, message: str) -> None:
    assert _problems(
        _apps({"name": "x", "import_path": "m:a"}, {"name": "a", "import_path": "m:a", "route_prefix": route})
    ) == [("applications[1].route_prefix", message)]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("fruit", "import_path 'fruit' names no attribute (needs a ':' or '.' between module and attribute)"),
        ("a:b:c", "import_path 'a:b:c' has more than one ':'"),
        (":app", "import_path ':app' starts or ends with ':'"),
        ("mod:", "import_path 'mod:' starts or ends with ':'"),
        (".mod", "import_path '.mod' starts or ends with '.'"),
        ("mod.", "import_path 'mod.' starts or ends with '.'"),
    ],
)
def test_import_path_format(path: str, message: str) -> None:
    assert _problems(_apps({"name": "a", "import_path": path})) == [("applications[0].import_path", message)]


@pytest.mark.parametrize(
    "path",
    [
        "fruit.deployment_graph",
        "mobilenet.mobilenet:app",
        "ray.serve.llm:build_openai_app",
        "ray-operator.config.samples.ray-serve.single_deployment_dag:DagNode",
    ],
)
def test_import_path_accepted_forms(path: str) -> None:
    assert ServeApplication(import_path=path).import_path == path


def test_host_or_port_inside_an_application() -> None:
    with pytest.raises(ManifestError) as info:
        ServeConfig.from_dict(_apps({"name": "a", "import_path": "m:a", "port": 9000}))
    (problem,) = info.value.problems
    assert (problem.path, problem.message) == (
        "applications[0].port",
        "port cannot be set inside an application",
    )
    assert problem.fix == "remove it and set http_options.port at the top level of the Serve config"


def test_local_working_dir_is_rejected() -> None:
    (problem,) = _problems(
        _apps({"name": "a", "import_path": "m:a", "runtime_env": {"working_dir": "./src"}})
    )
    assert problem == (
        "applications[0].runtime_env.working_dir",
        "working_dir './src' is not a remote URI; a Serve config only accepts remote URIs here",
    )
    (problem,) = _problems(
        _apps(
            {
                "name": "a",
                "import_path": "m:a",
                "deployments": [
                    {
                        "name": "D",
                        "ray_actor_options": {"runtime_env": {"py_modules": ["s3://b/m.zip", "/opt/mod"]}},
                    }
                ],
            }
        )
    )
    assert problem[0] == "applications[0].deployments[0].ray_actor_options.runtime_env.py_modules[1]"


# --------------------------------------------------------------------------------------------------
# Deployment-level checks


def test_duplicate_deployment_names_within_an_app() -> None:
    assert _problems(
        _apps(
            {"name": "a", "import_path": "m:a", "deployments": [{"name": "D"}, {"name": "E"}, {"name": "D"}]}
        )
    ) == [
        (
            "applications[0].deployments[2].name",
            "deployment name 'D' appears more than once in application 'a'",
        )
    ]


def test_same_deployment_name_in_two_apps_is_fine() -> None:
    ServeConfig.from_dict(
        _apps(
            {"name": "a", "import_path": "m:a", "route_prefix": "/a", "deployments": [{"name": "D"}]},
            {"name": "b", "import_path": "m:b", "route_prefix": "/b", "deployments": [{"name": "D"}]},
        )
    )


def test_num_replicas_with_autoscaling_config() -> None:
    assert _problems(
        _apps(
            {
                "name": "a",
                "import_path": "m:a",
                "deployments": [{"name": "D", "num_replicas": 2, "autoscaling_config": {"max_replicas": 3}}],
            }
        )
    ) == [
        (
            "applications[0].deployments[0].num_replicas",
            "num_replicas (2) cannot be combined with autoscaling_config",
        )
    ]
    ServeDeployment(name="D", num_replicas="auto", autoscaling_config=AutoscalingConfig(max_replicas=3))


@pytest.mark.parametrize(
    ("autoscaling", "path", "message"),
    [
        ({"min_replicas": 4, "max_replicas": 2}, "max_replicas", "min_replicas (4) > max_replicas (2)"),
        ({"min_replicas": 3}, "min_replicas", "min_replicas (3) > max_replicas (1, the default)"),
        (
            {"min_replicas": 2, "initial_replicas": 1, "max_replicas": 5},
            "initial_replicas",
            "initial_replicas (1) < min_replicas (2)",
        ),
        (
            {"initial_replicas": 6, "max_replicas": 5},
            "initial_replicas",
            "initial_replicas (6) > max_replicas (5)",
        ),
        ({"max_replicas": 0}, "max_replicas", "Input should be greater than or equal to 1"),
        ({"min_replicas": -1}, "min_replicas", "Input should be greater than or equal to 0"),
        ({"target_ongoing_requests": 0}, "target_ongoing_requests", "Input should be greater than 0"),
    ],
)
def test_autoscaling_bounds(autoscaling: dict[str, Any], path: str, message: str) -> None:
    assert _problems(
        _apps(
            {
                "name": "a",
                "import_path": "m:a",
                "deployments": [{"name": "D", "autoscaling_config": autoscaling}],
            }
        )
    ) == [(f"applications[0].deployments[0].autoscaling_config.{path}", message)]


def test_autoscaling_scale_to_zero_is_fine() -> None:
    assert AutoscalingConfig(min_replicas=0, max_replicas=4).to_dict() == {
        "min_replicas": 0,
        "max_replicas": 4,
    }


def test_other_deployment_checks() -> None:
    assert _problems(
        _apps(
            {
                "name": "a",
                "import_path": "m:a",
                "deployments": [
                    {"name": "D", "max_replicas_per_node": 1, "placement_group_bundles": [{"CPU": 1}]}
                ],
            }
        )
    ) == [
        (
            "applications[0].deployments[0].max_replicas_per_node",
            "max_replicas_per_node cannot be combined with placement_group_bundles",
        )
    ]
    assert _problems(
        _apps({"name": "a", "import_path": "m:a", "deployments": [{"name": "D", "max_queued_requests": 0}]})
    ) == [
        (
            "applications[0].deployments[0].max_queued_requests",
            "max_queued_requests (0) must be -1 (no limit) or >= 1",
        )
    ]
    assert _problems(
        _apps({"name": "a", "import_path": "m:a", "deployments": [{"name": "D", "num_replicas": 0}]})
    )[0][0] == ("applications[0].deployments[0].num_replicas")
    assert _problems(
        _apps({"name": "a", "import_path": "m:a", "deployments": [{"name": "D", "num_replicas": "3"}]})
    )[0][0] == ("applications[0].deployments[0].num_replicas")


def test_strict_types() -> None:
    assert _problems(
        _apps(
            {
                "name": "a",
                "import_path": "m:a",
                "deployments": [{"name": "D", "ray_actor_options": {"num_cpus": "1"}}],
            }
        )
    ) == [
        (
            "applications[0].deployments[0].ray_actor_options.num_cpus",
            "expected an integer or a number, got str '1'",
        )
    ]


# --------------------------------------------------------------------------------------------------
# Top-level options


def test_http_options_ssl_pair_and_port_range() -> None:
    assert _problems(_apps({"name": "a", "import_path": "m:a"}, http_options={"ssl_keyfile": "/k"})) == [
        ("http_options.ssl_certfile", "ssl_keyfile and ssl_certfile must be set together to enable HTTPS")
    ]
    assert _problems(_apps({"name": "a", "import_path": "m:a"}, http_options={"port": 70000}))[0][0] == (
        "http_options.port"
    )


def test_proxy_location_and_target_capacity() -> None:
    assert (
        _problems(_apps({"name": "a", "import_path": "m:a"}, proxy_location="Everywhere"))[0][0]
        == "proxy_location"
    )
    assert _problems(_apps({"name": "a", "import_path": "m:a"}, target_capacity=120))[0] == (
        "target_capacity",
        "Input should be less than or equal to 100",
    )
    ServeConfig.from_dict(
        _apps({"name": "a", "import_path": "m:a"}, proxy_location="HeadOnly", target_capacity=50)
    )


def test_logging_config_levels() -> None:
    ServeConfig.from_dict(
        _apps({"name": "a", "import_path": "m:a"}, logging_config={"log_level": "DEBUG", "encoding": "JSON"})
    )
    assert _problems(_apps({"name": "a", "import_path": "m:a"}, logging_config={"log_level": "debug"}))[
        0
    ] == ("logging_config.log_level", "log_level 'debug' is not a logging level name")


def test_direct_construction_raises_a_validation_error_carrying_the_spec_error() -> None:
    with pytest.raises(ValidationError) as info:
        ServeConfig(
            applications=[
                ServeApplication(name="a", import_path="m:a"),
                ServeApplication(name="a", import_path="m:b", route_prefix="/b"),
            ]
        )
    cause = info.value.errors()[0]["ctx"]["error"]
    assert isinstance(cause, SpecError) and cause.field == "applications[1].name"


# --------------------------------------------------------------------------------------------------
# Cross-object: serve port


def test_serve_port_matches_container_port() -> None:
    config = _fruit_and_math()  # http_options.port 9000
    check_serve_port(
        config, [ContainerPortRef("head.ports[0]", "serve", 9000), ContainerPortRef("x", "gcs", 6379)]
    )
    with pytest.raises(SpecError) as info:
        check_serve_port(config, [ContainerPortRef("head.ports[1].containerPort", "serve", 8000)])
    assert info.value.field == "head.ports[1].containerPort"
    assert (
        info.value.message == "container port 'serve' (8000) != Serve's HTTP port (9000, http_options.port)"
    )


def test_serve_port_default_is_8000() -> None:
    config = ServeConfig(applications=[ServeApplication(import_path="m:a")])
    check_serve_port(config, [ContainerPortRef("p", "serve", 8000)])
    check_serve_port(config, [])
    with pytest.raises(SpecError, match=r"\(9000\) != Serve's HTTP port \(8000, the default\)"):
        check_serve_port(config, [ContainerPortRef("p", "serve", 9000)])


@pytest.mark.parametrize("bad", ["v1/", "v1", "v1//", "/v1/"])
def test_the_route_prefix_fix_is_itself_a_valid_prefix(bad: str) -> None:
    from pulumi_kuberay.model.serve import check_route_prefix

    with pytest.raises(SpecError) as info:
        check_route_prefix(bad)
    fix = info.value.fix or ""
    assert fix.startswith("write '") and fix.endswith("'"), fix
    assert check_route_prefix(fix[len("write '") : -1]) == "/v1"
