# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""``pulumi-kuberay:operator``: a stack declares its KubeRay operator, and its Ray objects take their target from it.

* settings.py resolves the entry as the component will (same errors, at the config key), checks it against
  ``kuberay:version`` / ``kuberay:featureGates`` and expands ``${KUBERAY_REFERENCE_DIR}`` in the chart path;
* under mocks, prod declares the operator and every Ray object depends on it (the CRDs and the chart exist
  before the first Ray object); dev renders the chart from the reference copy and leaves its CRDs to the
  dev-crds stack (``crds: leave``; that stack's own test: ``test_stacks_mock``);
* neither stack sets ``kuberay:version``: the operator is the one source (the project has no default for it).
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pytest
import yaml
from _pulumi_mocks import after_settling
from test_stacks_mock import REPO, run_program, stack_config

from settings import StackConfigError, load_settings

OPERATOR_KEY = "pulumi-kuberay:operator"
COMPONENT = "kuberay:index:KubeRayOperator"


def _settings_config(operator: Any, **extra: Any) -> dict[str, Any]:
    return {OPERATOR_KEY: json.dumps(operator), **extra}


def _operator_children(request: Any) -> set[str]:
    """The dependencies of a registration that are children of the operator component (type::name)."""
    prefix = f"{COMPONENT}$"
    return {urn.split(prefix, 1)[1] for urn in request.dependencies if prefix in urn}


def _problems(config: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(StackConfigError) as caught:
        load_settings(config)
    return caught.value.problems


def test_prod_declares_the_operator_and_no_kuberay_version() -> None:
    stack = yaml.safe_load((REPO / "stacks" / "Pulumi.prod.yaml").read_text())["config"]
    project = yaml.safe_load((REPO / "Pulumi.yaml").read_text())["config"]
    assert "kuberay:version" not in stack and "kuberay:version" not in project
    settings = load_settings(stack_config("prod"))
    assert settings.operator is not None
    args = settings.operator.args
    assert (args.version, args.namespace, args.watch_namespaces) == ("1.7.0", "kuberay-system", ["ray-prod"])
    assert args.feature_gates is not None
    assert args.feature_gates.model_dump(by_alias=True, exclude_none=True) == {
        "RayJobDeletionPolicy": True,
        "RayServiceIncrementalUpgrade": False,
    }
    assert (args.replicas, args.leader_election, args.chart) == (2, True, None)


def test_dev_takes_the_chart_from_the_reference_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    from _reference import require_reference

    reference = require_reference()
    monkeypatch.setenv("KUBERAY_REFERENCE_DIR", str(reference))
    settings = load_settings(stack_config("dev"))
    assert settings.operator is not None
    assert settings.operator.args.chart == str(reference / "kuberay" / "v1.7.0" / "helm" / "kuberay-operator")


def test_an_empty_operator_object_means_none() -> None:
    assert load_settings({OPERATOR_KEY: "{}"}).operator is None


def test_a_misspelled_operator_key_names_the_config_key_the_path_and_a_suggestion() -> None:
    problems = _problems(_settings_config({"watchNamespace": ["ray"]}))
    assert [key for key, _ in problems] == [OPERATOR_KEY]
    assert "watchNamespace" in problems[0][1] and "watchNamespaces" in problems[0][1]


def test_a_misspelled_chart_value_names_its_path() -> None:
    problems = _problems(_settings_config({"values": {"image": {"tagg": "v1.7.0"}}}))
    assert problems[0][0] == OPERATOR_KEY
    assert "values.image.tagg" in problems[0][1] and "tag" in problems[0][1]


def test_a_kuberay_version_that_disagrees_with_the_operator_is_an_error_naming_both() -> None:
    problems = _problems(_settings_config({"version": "1.7.0"}, **{"kuberay:version": "1.6.0"}))
    assert problems[0][0] == OPERATOR_KEY
    assert "1.6.0" in problems[0][1] and "1.7.0" in problems[0][1]
    assert load_settings(_settings_config({"version": "1.7.0"}, **{"kuberay:version": "1.7.0"})).operator


def test_a_feature_gate_that_disagrees_with_the_operator_is_an_error() -> None:
    gates = {"kuberay:featureGates": '{"RayCronJob": true}'}
    config = _settings_config({"featureGates": {"RayCronJob": False}}, **gates)
    problems = _problems(config)
    assert problems[0][0] == OPERATOR_KEY and "RayCronJob" in problems[0][1]


def test_a_chart_path_with_an_unset_variable_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERAY_NOT_SET_ANYWHERE", raising=False)
    problems = _problems(_settings_config({"chart": "${KUBERAY_NOT_SET_ANYWHERE}/kuberay-operator"}))
    assert problems[0][0] == OPERATOR_KEY
    assert "not set" in problems[0][1] and "remove chart" in problems[0][1]


def test_create_namespace_must_be_a_boolean() -> None:
    problems = _problems(_settings_config({"createNamespace": "yes"}))
    assert problems == [(OPERATOR_KEY, "createNamespace: expected true or false, got 'yes'")]


@pulumi.runtime.test
def test_prod_ray_objects_depend_on_the_operator() -> pulumi.Output[Any]:
    env, urns = run_program(stack_config("prod"))

    def check(*_: Any) -> None:
        ray = [r for r in env.created() if r.typ.startswith("kuberay:index:Ray")]
        assert {r.name for r in ray} == {"shared", "serve", "nightly-batch"}
        for resource in ray:
            # depends_on=[the component] reaches the engine as the component's children
            assert _operator_children(env.request(resource.typ, resource.name)) == {
                "kubernetes:core/v1:Namespace::kuberay-namespace",
                "kubernetes:helm.sh/v4:Chart::kuberay-chart",
            }, resource.name

    return after_settling(check, *urns)


@pulumi.runtime.test
def test_dev_renders_the_operator_chart_with_typed_values_and_leaves_the_crds(
    monkeypatch: pytest.MonkeyPatch,
) -> pulumi.Output[Any]:
    from _reference import require_reference

    monkeypatch.setenv("KUBERAY_REFERENCE_DIR", str(require_reference()))
    env, urns = run_program(stack_config("dev"))

    def check(*_: Any) -> None:
        assert env.created("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition") == []
        chart = env.created("kubernetes:helm.sh/v4:Chart")
        assert len(chart) == 1
        values = chart[0].inputs["values"]
        assert values["watchNamespace"] == ["ray-dev"]
        assert chart[0].inputs["skipCrds"] is True
        children = _operator_children(env.request("kuberay:index:RayCluster", "dev"))
        assert "kubernetes:helm.sh/v4:Chart::kuberay-chart" in children
        assert not any("CustomResourceDefinition" in child for child in children), children

    return after_settling(check, *urns)
