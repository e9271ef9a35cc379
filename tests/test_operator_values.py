"""The typed values of the kuberay-operator chart: every key of the v1.7.0 values.yaml is modelled, the
defaults are the chart's, and a misspelled key fails with its path and a suggestion."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest
import yaml
from _reference import require_reference
from pulumi_kuberay.model._errors import ManifestError, _strip_annotated, _union_members
from pulumi_kuberay.operator.derive import chart_defaults, validate_values
from pulumi_kuberay.operator.values import KubeRayOperatorValues
from pydantic import BaseModel


def chart_dir() -> Path:
    return require_reference() / "kuberay" / "v1.7.0" / "helm" / "kuberay-operator"


def values_yaml() -> dict[str, Any]:
    return yaml.safe_load((chart_dir() / "values.yaml").read_text())  # type: ignore[no-any-return]


def _model_of(tp: Any) -> type[BaseModel] | None:
    """The pydantic model a field holds directly, in a list, or as an optional."""
    tp = _strip_annotated(tp)
    members = _union_members(tp)
    if members is not None:
        found = [m for m in (_model_of(m) for m in members) if m is not None]
        return found[0] if found else None
    if get_origin(tp) is list:
        return _model_of(get_args(tp)[0])
    return tp if isinstance(tp, type) and issubclass(tp, BaseModel) else None


def _is_free_map(tp: Any) -> bool:
    tp = _strip_annotated(tp)
    members = _union_members(tp)
    if members is not None:
        return any(_is_free_map(m) for m in members)
    return get_origin(tp) is dict


def missing_keys(model: type[BaseModel], data: Any, path: str = "") -> Iterator[str]:
    """Every key path of ``data`` that ``model`` has no field for (descending into nested models)."""
    items = data if isinstance(data, list) else [data]
    for item in items:
        if not isinstance(item, dict):
            continue
        by_alias = {(info.alias or name): info for name, info in model.model_fields.items()}
        for key, value in item.items():
            where = f"{path}.{key}".lstrip(".")
            info = by_alias.get(key)
            if info is None:
                yield where
                continue
            if _is_free_map(info.annotation):
                continue  # labels, annotations, nodeSelector...: any key is a value
            inner = _model_of(info.annotation)
            if inner is not None:
                yield from missing_keys(inner, value, where)


def test_every_key_of_values_yaml_is_modelled() -> None:
    data = values_yaml()
    assert len(data) > 30  # the walk really walked the chart's values
    assert list(missing_keys(KubeRayOperatorValues, data)) == []


def test_the_walk_can_fail() -> None:
    assert list(missing_keys(KubeRayOperatorValues, {"image": {"tagg": "x"}, "nope": 1})) == ["image.tagg", "nope"]


def test_every_value_the_templates_read_is_modelled() -> None:
    """Keys left commented out in values.yaml (watchNamespace, useKubernetesProxy) but read by the templates."""
    paths: set[str] = set()
    for template in (chart_dir() / "templates").glob("*"):
        paths.update(re.findall(r"\.Values((?:\.[A-Za-z0-9_]+)+)", template.read_text()))
    assert {".watchNamespace", ".useKubernetesProxy", ".image.tag"} <= paths
    for dotted in sorted(paths):
        doc: dict[str, Any] = {}
        cursor = doc
        keys = dotted.strip(".").split(".")
        for key in keys[:-1]:
            cursor = cursor.setdefault(key, {})
        cursor[keys[-1]] = "probe"
        assert list(missing_keys(KubeRayOperatorValues, doc)) == [], dotted


def test_defaults_are_the_charts() -> None:
    expected = {k: v for k, v in values_yaml().items() if v is not None}
    assert chart_defaults() == expected


def test_only_what_was_set_goes_to_helm() -> None:
    values = KubeRayOperatorValues.model_validate({"replicas": 2, "image": {"tag": "v1.7.1"}})
    assert values.chart_values() == {"replicas": 2, "image": {"tag": "v1.7.1"}}
    assert values.image.repository == "quay.io/kuberay/operator"  # chart default still readable
    assert KubeRayOperatorValues().chart_values() == {}


def test_null_survives_validation_as_helms_delete() -> None:
    values = validate_values({"resources": {"limits": None, "requests": {"cpu": "100m"}}})
    assert values.chart_values() == {"resources": {"limits": None, "requests": {"cpu": "100m"}}}


@pytest.mark.parametrize(
    ("values", "path", "fix"),
    [
        ({"imag": {"tag": "x"}}, "imag", "did you mean 'image'?"),
        ({"image": {"tagg": "x"}}, "image.tagg", "did you mean 'tag'?"),
        ({"leaderElection": False}, "leaderElection", "did you mean 'leaderElectionEnabled'?"),
        ({"metrics": {"serviceMonitor": {"intervall": "1m"}}}, "metrics.serviceMonitor.intervall", "did you mean"),
        ({"watchNamespaces": ["a"]}, "watchNamespaces", "did you mean 'watchNamespace'?"),
    ],
)
def test_misspelled_key_names_path_and_suggestion(values: dict[str, Any], path: str, fix: str) -> None:
    with pytest.raises(ManifestError) as info:
        validate_values(values)
    (problem,) = info.value.problems
    assert problem.path == path
    assert problem.fix is not None and fix in problem.fix


@pytest.mark.parametrize(
    ("values", "path"),
    [
        ({"replicas": "2"}, "replicas"),
        ({"reconcileConcurrency": 0}, "reconcileConcurrency"),
        ({"kubeClient": {"burst": -1}}, "kubeClient.burst"),
        ({"batchScheduler": {"name": "volcanoo"}}, "batchScheduler.name"),
        ({"batchScheduler": {"enabled": True, "name": "yunikorn"}}, "batchScheduler.enabled"),
        (
            {"featureGates": [{"name": "RayCronJob", "enabled": True}, {"name": "RayCronJob", "enabled": False}]},
            "featureGates[1].name",
        ),
        ({"resources": {"limits": {"cpu": "lots"}}}, "resources.limits.cpu"),
    ],
)
def test_wrong_values_fail_with_their_path(values: dict[str, Any], path: str) -> None:
    with pytest.raises(ManifestError) as info:
        validate_values(values)
    assert path in info.value.paths
