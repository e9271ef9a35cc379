"""serveConfigV2 rules (``rules/serve_*``: checked as Ray Serve's ``ServeDeploySchema`` does)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from _reference import require_reference, sample_documents, upstream_sample
from _rule_checks import ALL_GATES, public_findings, public_paths
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules import _serve_config
from pulumi_kuberay.rules._engine import Rule
from pulumi_kuberay.rules._examples import example_service

MODULES = ("serve_apps", "serve_deployments")
OWN_RULES = sorted(
    (r for r in rules.RULES.values() if r.module in MODULES),
    key=lambda r: r.id,
)
APP1 = "spec.serveConfigV2.applications[1]"


@pytest.mark.parametrize("rule", OWN_RULES, ids=lambda r: r.id)
def test_rule_metadata(rule: Rule) -> None:
    assert rule.kinds == ("RayService",)


def test_compliant_examples_have_no_serve_findings_at_all() -> None:
    own = {r.id for r in OWN_RULES}
    for rule in OWN_RULES:
        assert [f.rule_id for f in rules.check(rule.compliant) if f.rule_id in own] == [], rule.id


# --------------------------------------------------------------------------------------------------
# Building configs


def _service(config: dict[str, Any] | str, *, cluster_edit: Any = None) -> dict[str, Any]:
    text = config if isinstance(config, str) else yaml.safe_dump(config, sort_keys=False)
    doc = example_service(serveConfigV2=text)
    if cluster_edit is not None:
        cluster_edit(doc["spec"]["rayClusterConfig"])
    return doc


def _app(name: str, prefix: Any = "__unset__", **extra: Any) -> dict[str, Any]:
    app: dict[str, Any] = {"name": name, "import_path": f"{name}.app:deployment"}
    if prefix != "__unset__":
        app["route_prefix"] = prefix
    app.update(extra)
    return app


def test_two_apps_both_defaulting_to_root_is_rejected() -> None:
    doc = _service({"applications": [_app("a"), _app("b")]})
    found = public_findings("serve-route-prefix-duplicate", doc)
    assert [f.path for f in found] == ["spec.serveConfigV2.applications[1].route_prefix"]
    assert "omit route_prefix" in found[0].message and found[0].severity == "critical"
    assert len(public_paths("serve-route-prefix-implicit", doc)) == 2


def test_exactly_one_app_may_rely_on_root() -> None:
    doc = _service({"applications": [_app("a"), _app("b", "/b")]})
    assert public_paths("serve-route-prefix-duplicate", doc) == []
    assert public_paths("serve-route-prefix-implicit", doc) == ["spec.serveConfigV2.applications[0]"]
    single = _service({"applications": [_app("a")]})
    assert public_paths("serve-route-prefix-implicit", single) == []  # one app on '/' is the normal case


def test_null_route_prefix_is_no_route_and_no_duplicate() -> None:
    doc = _service({"applications": [_app("a", None), _app("b", None), _app("c", "/c")]})
    assert public_paths("serve-route-prefix-duplicate", doc) == []
    assert public_paths("serve-route-prefix-invalid", doc) == []


@pytest.mark.parametrize(
    ("prefix", "bad"),
    [
        ("/", False),
        ("/api", False),
        ("/api/v1", False),
        ("api", True),
        ("/api/", True),
        ("/{id}", True),
        (3, True),
    ],
)
def test_route_prefix_format(prefix: Any, bad: bool) -> None:
    doc = _service({"applications": [_app("a", prefix)]})
    assert bool(public_paths("serve-route-prefix-invalid", doc)) is bad


def test_duplicate_and_empty_app_names() -> None:
    implicit = _service(
        {
            "applications": [
                {"import_path": "a:b", "route_prefix": "/a"},
                {"import_path": "c:d", "route_prefix": "/c"},
            ]
        }
    )
    found = public_findings("serve-app-names-unique", implicit)
    assert [f.path for f in found] == ["spec.serveConfigV2.applications[1].name"]
    assert "default" in found[0].message
    empty = _service({"applications": [_app("", "/a")]})
    assert public_paths("serve-app-names-unique", empty) == ["spec.serveConfigV2.applications[0].name"]


@pytest.mark.parametrize(
    ("import_path", "bad"),
    [
        ("fruit.deployment_graph", False),
        ("fruit:deployment_graph", False),
        ("pkg.mod:attr", False),
        ("ray.serve.llm:build_openai_app", False),
        ("fruit", True),
        (":app", True),
        ("mod:", True),
        ("a:b:c", True),
        (".mod", True),
        ("mod.", True),
        (None, True),
    ],
)
def test_import_path_forms(import_path: Any, bad: bool) -> None:
    app = {"name": "a", "route_prefix": "/a"}
    if import_path is not None:
        app["import_path"] = import_path
    assert bool(public_paths("serve-import-path-invalid", _service({"applications": [app]}))) is bad


def test_autoscaling_bounds() -> None:
    def dep(**options: Any) -> dict[str, Any]:
        return _service({"applications": [_app("a", "/a", deployments=[{"name": "D", **options}])]})

    rule_id = "serve-autoscaling-config-invalid"
    base = "spec.serveConfigV2.applications[0].deployments[0]"
    assert public_paths(rule_id, dep(autoscaling_config={"min_replicas": 1, "max_replicas": 5})) == []
    assert public_paths(rule_id, dep(autoscaling_config={"min_replicas": 3})) == [
        f"{base}.autoscaling_config.max_replicas"  # max defaults to 1
    ]
    initial_above_max = {"min_replicas": 1, "max_replicas": 4, "initial_replicas": 9}
    assert public_paths(rule_id, dep(autoscaling_config=initial_above_max)) == [
        f"{base}.autoscaling_config.initial_replicas"
    ]
    both = dep(num_replicas=2, autoscaling_config={"max_replicas": 4})
    assert public_paths(rule_id, both) == [f"{base}.num_replicas"]
    assert public_paths(rule_id, dep(num_replicas="auto", autoscaling_config={"max_replicas": 4})) == []
    assert set(public_paths(rule_id, dep(autoscaling_config={"min_replicas": -1, "max_replicas": 0}))) == {
        f"{base}.autoscaling_config.min_replicas",
        f"{base}.autoscaling_config.max_replicas",
    }


def test_deployment_options() -> None:
    def dep(**options: Any) -> dict[str, Any]:
        return _service({"applications": [_app("a", "/a", deployments=[{"name": "D", **options}])]})

    rule_id = "serve-deployment-options-invalid"
    assert public_paths(rule_id, dep(num_replicas="auto", max_ongoing_requests=5, max_queued_requests=-1)) == []
    assert len(public_paths(rule_id, dep(num_replicas="two"))) == 1
    assert len(public_paths(rule_id, dep(max_ongoing_requests=0))) == 1
    assert len(public_paths(rule_id, dep(max_queued_requests=0))) == 1
    assert len(public_paths(rule_id, dep(health_check_period_s=0))) == 1
    assert len(public_paths(rule_id, dep(graceful_shutdown_timeout_s=-1))) == 1
    assert len(public_paths(rule_id, dep(max_replicas_per_node=2, placement_group_bundles=[{"CPU": 1}]))) == 1
    below = dep(max_ongoing_requests=1, autoscaling_config={"max_replicas": 2})
    assert public_paths("serve-max-ongoing-below-target", below) == [
        "spec.serveConfigV2.applications[0].deployments[0].max_ongoing_requests"
    ]


def test_duplicate_deployment_override_is_high() -> None:
    doc = _service({"applications": [_app("a", "/a", deployments=[{"name": "D"}, {"name": "D", "num_replicas": 2}])]})
    found = public_findings("serve-deployment-name-invalid", doc)
    assert [(f.path, f.severity) for f in found] == [("spec.serveConfigV2.applications[0].deployments[1].name", "high")]


def test_runtime_env_local_paths() -> None:
    rule_id = "serve-runtime-env-local-path"
    ok = {"working_dir": "s3://bucket/code.zip", "py_modules": ["https://x/y.whl", "local://mods"]}
    assert public_paths(rule_id, _service({"applications": [_app("a", "/a", runtime_env=ok)]})) == []
    bad = {"py_modules": ["./lib"]}
    deployment = {"name": "D", "ray_actor_options": {"runtime_env": {"working_dir": "/home/ray/app"}}}
    doc = _service({"applications": [_app("a", "/a", runtime_env=bad, deployments=[deployment])]})
    assert set(public_paths(rule_id, doc)) == {
        "spec.serveConfigV2.applications[0].runtime_env.py_modules[0]",
        "spec.serveConfigV2.applications[0].deployments[0].ray_actor_options.runtime_env.working_dir",
    }


def test_proxy_location() -> None:
    rule_id = "serve-proxy-location-incompatible"
    head_only = public_findings(rule_id, _service({"applications": [_app("a")], "proxy_location": "HeadOnly"}))
    assert [f.severity for f in head_only] == ["high"]
    assert [
        f.severity
        for f in public_findings(rule_id, _service({"applications": [_app("a")], "proxy_location": "Everywhere"}))
    ] == ["critical"]


def test_http_port_default_and_no_declared_ports() -> None:
    rule_id = "serve-http-port-mismatch"

    def strip_head_ports(cluster: dict[str, Any]) -> None:
        del cluster["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]

    # no ports anywhere: KubeRay assumes 8000, Serve defaults to 8000
    assert public_paths(rule_id, _service({"applications": [_app("a")]}, cluster_edit=strip_head_ports)) == []
    head_port = "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports[3].containerPort"
    doc = _service({"applications": [_app("a")], "http_options": {"port": 8080}})
    assert head_port in public_paths(rule_id, doc)


def test_misspelt_keys() -> None:
    config = {
        "applications": [
            _app(
                "a",
                "/a",
                deployments=[{"name": "D", "num-replicas": 2, "autoscaling_config": {"minReplicas": 1}}],
            )
        ],
        "http_option": {"port": 8000},
    }
    found = {f.path: f.severity for f in public_findings("serve-config-unknown-key", _service(config))}
    assert found == {
        "spec.serveConfigV2.http_option": "high",  # a slip of http_options: the model's did-you-mean too
        "spec.serveConfigV2.applications[0].deployments[0].num-replicas": "high",
        "spec.serveConfigV2.applications[0].deployments[0].autoscaling_config.minReplicas": "high",
    }


def test_yaml_problems() -> None:
    assert public_paths("serve-config-invalid-yaml", _service("applications: [\n")) == ["spec.serveConfigV2"]
    assert public_paths("serve-config-invalid-yaml", _service("- a\n- b\n")) == ["spec.serveConfigV2"]
    empty = _service("applications: []\n")
    assert public_paths("serve-applications-missing", empty) == ["spec.serveConfigV2.applications"]
    assert public_paths("serve-applications-missing", _service("applications: [1]\n")) == [
        "spec.serveConfigV2.applications[0]"
    ]


_ODD: list[Any] = [None, "", "x", 0, True, [], {}, [None], {"a": None}, UNKNOWN_SENTINEL]


def test_odd_shapes_never_raise() -> None:
    ctx = rules.make_context(feature_gates=ALL_GATES)
    configs: list[Any] = []
    for value in _ODD:
        configs += [
            {"applications": value},
            {"applications": [value]},
            {
                "applications": [
                    {
                        "name": value,
                        "route_prefix": value,
                        "import_path": value,
                        "runtime_env": value,
                        "deployments": value,
                    }
                ]
            },
            {
                "applications": [
                    {
                        "name": "a",
                        "deployments": [
                            value,
                            {
                                "name": value,
                                "autoscaling_config": value,
                                "num_replicas": value,
                                "max_ongoing_requests": value,
                                "ray_actor_options": value,
                            },
                        ],
                    }
                ]
            },
            {
                "applications": [_app("a")],
                "http_options": value,
                "proxy_location": value,
                "grpc_options": value,
            },
        ]
    for config in configs:
        doc = _service(yaml.safe_dump(config))
        for rule in OWN_RULES:
            list(rule.run(copy.deepcopy(doc), ctx))
    for spec in _ODD:
        for rule in OWN_RULES:
            list(rule.run({"kind": "RayService", "spec": spec}, ctx))
            list(rule.run({"kind": "RayService", "spec": {"serveConfigV2": spec}}, ctx))


def test_unknown_serve_config_is_not_judged() -> None:
    doc = example_service(serveConfigV2=UNKNOWN_SENTINEL)
    assert not {f.rule_id for f in rules.check(doc)} & {r.id for r in OWN_RULES}


# --------------------------------------------------------------------------------------------------
# Mutations of real upstream samples


def _edit_config(doc: dict[str, Any], edit: Any) -> dict[str, Any]:
    config = yaml.safe_load(doc["spec"]["serveConfigV2"])
    edit(config)
    doc["spec"]["serveConfigV2"] = yaml.safe_dump(config, sort_keys=False)
    return doc


MUTATIONS: list[tuple[str, str, Any, str]] = [
    (
        "ray-service.sample.yaml",
        "serve-route-prefix-duplicate",
        lambda c: c["applications"][1].update(route_prefix="/fruit"),
        "spec.serveConfigV2.applications[1].route_prefix",
    ),
    (
        "ray-service.sample.yaml",
        "serve-route-prefix-duplicate",
        lambda c: [a.pop("route_prefix") for a in c["applications"]],
        "spec.serveConfigV2.applications[1].route_prefix",
    ),
    (
        "ray-service.sample.yaml",
        "serve-route-prefix-invalid",
        lambda c: c["applications"][0].update(route_prefix="fruit"),
        "spec.serveConfigV2.applications[0].route_prefix",
    ),
    (
        "ray-service.sample.yaml",
        "serve-app-names-unique",
        lambda c: c["applications"][1].update(name="fruit_app"),
        "spec.serveConfigV2.applications[1].name",
    ),
    (
        "ray-service.sample.yaml",
        "serve-import-path-invalid",
        lambda c: c["applications"][0].update(import_path="fruit"),
        "spec.serveConfigV2.applications[0].import_path",
    ),
    (
        "ray-service.sample.yaml",
        "serve-config-unknown-key",
        lambda c: c["applications"][0].update(routePrefix=c["applications"][0].pop("route_prefix")),
        "spec.serveConfigV2.applications[0].routePrefix",
    ),
    (
        "ray-service.sample.yaml",
        "serve-deployment-options-invalid",
        lambda c: c["applications"][0]["deployments"][0].update(num_replicas=0),
        "spec.serveConfigV2.applications[0].deployments[0].num_replicas",
    ),
    (
        "ray-service.sample.yaml",
        "serve-runtime-env-local-path",
        lambda c: c["applications"][0]["runtime_env"].update(working_dir="./fruit"),
        "spec.serveConfigV2.applications[0].runtime_env.working_dir",
    ),
    (
        "ray-service.sample.yaml",
        "serve-http-port-mismatch",
        lambda c: c.update(http_options={"port": 9000}),
        "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports",
    ),  # no ports: 8000 assumed
    (
        "ray-service.different-port.yaml",
        "serve-http-port-mismatch",
        lambda c: c.pop("http_options"),
        "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports[3].containerPort",
    ),
    (
        "ray-service.incremental-upgrade.yaml",
        "serve-autoscaling-config-invalid",
        lambda c: c["applications"][0]["deployments"][0]["autoscaling_config"].update(min_replicas=99),
        "spec.serveConfigV2.applications[0].deployments[0].autoscaling_config.max_replicas",
    ),
    (
        "ray-service.sample.yaml",
        "serve-proxy-location-incompatible",
        lambda c: c.update(proxy_location="Disabled"),
        "spec.serveConfigV2.proxy_location",
    ),
]


@pytest.mark.parametrize(
    ("sample", "rule_id", "edit", "path"), MUTATIONS, ids=lambda x: x if isinstance(x, str) else ""
)
def test_mutated_upstream_sample_is_caught(sample: str, rule_id: str, edit: Any, path: str) -> None:
    doc = upstream_sample(sample, "RayService")
    assert public_paths(rule_id, doc, feature_gates=ALL_GATES) == []
    assert path in public_paths(rule_id, _edit_config(doc, edit), feature_gates=ALL_GATES)


def test_serve_config_of_samples_is_parsed() -> None:
    """Guard against a vacuous false-positive test: every sample's config yields applications."""
    require_reference()
    for name, _i, doc in sample_documents("RayService"):
        config = _serve_config.serve_config(doc)
        assert config is not None and config.get("applications"), name
