# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""``--from helm-values``: the RayCluster we derive from ray-cluster chart values equals what the real chart
renders (``helm template``, real Helm v3), and the generated Python registers exactly that RayCluster."""

from __future__ import annotations

import copy
from typing import Any

import pulumi
import pytest
import yaml
from _convert_helm import chart_dir, helm_binary, helm_template, require_helm
from _convert_helm_cases import CASES, RELEASES
from _convert_roundtrip import expected_manifest, registered, run_module
from _pulumi_mocks import after_settling
from pulumi_kuberay.convert import convert_documents
from pulumi_kuberay.convert.helm import KNOWN, HelmValuesError, chart_defaults, render_values, values_key

NAMESPACE = "ml"


def _ci_cases() -> dict[str, dict[str, Any]]:
    try:
        folder = chart_dir() / "ci"
    except BaseException:
        return {}
    return {f"ci/{p.name}": yaml.safe_load(p.read_text()) or {} for p in sorted(folder.glob("*.yaml"))}


ALL_CASES = {**CASES, **_ci_cases()}


def _render(name: str) -> dict[str, Any]:
    return render_values(copy.deepcopy(ALL_CASES[name]), release_name=RELEASES.get(name, "raycluster"),
                         namespace=NAMESPACE)  # fmt: skip


def test_chart_defaults_are_the_charts_values_yaml() -> None:
    assert chart_defaults() == yaml.safe_load((chart_dir() / "values.yaml").read_text())


def _paths(values: Any, prefix: str = "") -> set[str]:
    out: set[str] = set()
    if not isinstance(values, dict):
        return out
    for key, value in values.items():
        path = f"{prefix}.{key}" if prefix else key
        if prefix == "additionalWorkerGroups":
            path = "additionalWorkerGroups.*"
        out.add(path)
        if isinstance(KNOWN.get(path.split(".")[0]), (set, frozenset, str)) and path.count(".") < (
            2 if path.startswith("additionalWorkerGroups") else 1
        ):
            out |= _paths(value, path)
    return out


def test_the_cases_set_every_key_the_chart_reads() -> None:
    used = set().union(*(_paths(values) for values in CASES.values()))
    wanted: set[str] = set()
    for key, allowed in KNOWN.items():
        wanted.add(key)
        if allowed == "groups":
            wanted |= {"additionalWorkerGroups.*"} | {f"additionalWorkerGroups.*.{k}" for k in KNOWN["worker"]
                                                     if k != "groupName"}
        elif isinstance(allowed, (set, frozenset)):
            wanted |= {f"{key}.{sub}" for sub in allowed}
    assert wanted - used == set()
    assert len(CASES) >= 16  # the default values.yaml plus at least 15 variations


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_our_raycluster_equals_what_the_chart_renders(name: str) -> None:
    require_helm()
    rendered = helm_template(ALL_CASES[name], release_name=RELEASES.get(name, "raycluster"), namespace=NAMESPACE)
    assert _render(name) == rendered


@pytest.mark.parametrize("name", sorted(ALL_CASES))
@pulumi.runtime.test
def test_helm_values_round_trip_through_the_generated_python(name: str) -> pulumi.Output[Any]:
    manifest = _render(name)
    result = convert_documents([(manifest, f"{name}.yaml")], to="python", sources=[f"{name}.yaml"])
    assert result.errors == [] and len(result.objects) == 1
    env, urns = run_module(result.text)

    def check(*_: Any) -> None:
        expected = expected_manifest(manifest)
        got = registered(env)
        assert got == {("RayCluster", expected["metadata"]["name"]): expected}

    return after_settling(check, *urns)


@pytest.mark.parametrize(
    ("values", "key", "words"),
    [
        ({"head": {"containerEnv": None}}, "head.containerEnv", "expected a list"),
        ({"head": {"labels": {"helm.sh/chart": "mine"}}}, "head.labels.helm.sh/chart", "duplicates a label"),
        ({"head": {"rayStartParams": {"block": "true"}, "initArgs": {"block": "true"}}}, "head.initArgs.block",
         "also set"),
        ({"head": {"rayVersion": {"major": 2}}}, "head.rayVersion", "expected a scalar"),
    ],
)  # fmt: skip
def test_values_the_chart_cannot_render_as_asked_are_errors_naming_the_key(
    values: dict[str, Any], key: str, words: str
) -> None:
    with pytest.raises(HelmValuesError) as caught:
        render_values(values)
    assert caught.value.key == key and words in str(caught.value)


def test_the_real_chart_also_fails_on_a_null_container_env() -> None:
    if helm_binary() is None:
        require_helm()
    with pytest.raises(AssertionError, match="concat"):
        helm_template({"head": {"containerEnv": None}}, release_name="raycluster", namespace=NAMESPACE)


@pytest.mark.parametrize(
    ("values", "key", "words"),
    [
        ({"head": {"resorces": {}}}, "head.resorces", "did you mean 'resources'"),
        ({"wroker": {}}, "wroker", "did you mean 'worker'"),
        ({"additionalWorkerGroups": {"gpu": {"groupName": "x"}}}, "additionalWorkerGroups.gpu.groupName",
         "no ray-cluster chart since 0.3.0 reads it"),
        ({"worker": {"image": {"repository": "r", "tag": "1", "repo": "x"}}}, "worker.image.repo",
         "no ray-cluster chart since 0.3.0 reads it"),
        ({"serviceAccount": {"create": True}}, "serviceAccount", "no effect"),
        ({"worker": {"miniReplicas": 1}}, "worker.miniReplicas", "up to 0.6.1"),
    ],
)  # fmt: skip
def test_keys_the_chart_does_not_read_are_listed_and_ignored_as_helm_does(
    values: dict[str, Any], key: str, words: str
) -> None:
    from pulumi_kuberay.convert.helm import ignored_keys

    ignored = ignored_keys(values)
    assert [k.key for k in ignored] == [key] and words in ignored[0].note
    ours = render_values(values, release_name="raycluster", namespace=NAMESPACE)  # Helm renders it: so do we
    if helm_binary() is not None:
        assert ours == helm_template(values, release_name="raycluster", namespace=NAMESPACE)


def test_a_large_count_renders_as_helm_prints_it_and_the_converter_says_where_it_breaks() -> None:
    """Helm reads values-file numbers as float64 and prints ``1000000`` as ``1e+06`` into the chart's
    ``maxReplicas: {{ ... }}`` line. We render the same text (YAML 1.1 reads it as a string, not a number), and
    the conversion refuses it naming the field instead of guessing."""
    values = {"worker": {"maxReplicas": 1000000}}
    ours = render_values(values, release_name="raycluster", namespace=NAMESPACE)
    assert ours["spec"]["workerGroupSpecs"][0]["maxReplicas"] == "1e+06"
    if helm_binary() is not None:
        assert helm_template(values, release_name="raycluster", namespace=NAMESPACE) == ours
    result = convert_documents([(ours, "values.yaml")])
    assert result.text == "" and len(result.errors) == 1
    assert "spec.workerGroupSpecs[0].maxReplicas" in result.errors[0] and "expected an integer" in result.errors[0]


@pytest.mark.parametrize(
    ("values", "path", "key"),
    [
        ({}, "spec.workerGroupSpecs[0].replicas", "worker.replicas"),
        ({"worker": {"disabled": True}, "additionalWorkerGroups": {"gpu": {}}}, "spec.workerGroupSpecs[0].maxReplicas",
         "additionalWorkerGroups.gpu.maxReplicas"),
        ({}, "spec.headGroupSpec.template.spec.containers[0].resources.limits.cpu", "head.resources"),
        ({}, "spec.headGroupSpec.template.spec.containers[0].env[1].value", "head.containerEnv"),
        ({}, "spec.workerGroupSpecs[0].template.spec.securityContext.runAsUser", "worker.podSecurityContext"),
        ({}, "spec.headGroupSpec.template.metadata.labels", "head.labels"),
        ({}, "spec.gcsFaultToleranceOptions.redisAddress", "gcsFaultTolerance.redisAddress"),
        ({}, "spec.autoscalerOptions.idleTimeoutSeconds", "head.autoscalerOptions.idleTimeoutSeconds"),
        ({}, "spec.rayVersion", "head.rayVersion"),
        ({}, "metadata.name", None),
    ],
)  # fmt: skip
def test_a_rendered_field_is_traced_back_to_its_values_key(values: dict[str, Any], path: str, key: str | None) -> None:
    assert values_key(path, values) == key
