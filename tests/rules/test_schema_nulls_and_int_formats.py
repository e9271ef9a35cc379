"""What the API server and KubeRay make of two inputs the schema rules once let through.

- ``null``: the API server drops a null property that is not ``nullable`` (``PruneNonNullableNullsWithoutDefaults``,
  then defaulting), so a null required field is the finding of a missing one, and a null optional one is nothing.
- ``format: int32`` / ``int64``: kube-openapi's ``typeValidator`` checks the JSON type only, so the API server
  stores 3000000000 in an int32 field; KubeRay then fails to decode the object into its Go types ("cannot unmarshal
  number ... of type int32") and never reconciles it: the catalogue refuses it (schema-invalid-value).
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Annotated, Any, Union, get_args, get_origin

import pytest
from _reference import crd_schema
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from pulumi_kuberay.model.cluster import RayClusterSpec
from pulumi_kuberay.model.cronjob import RayCronJobSpec
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.model.service import RayServiceSpec
from pulumi_kuberay.rules._examples import base_cluster, example_cronjob, example_job, example_service
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel


def _critical(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    gates = {"RayCronJob": True}  # its controller decodes the objects (and judges them) only with the gate on
    return [(f.rule_id, f.path, f.message) for f in rules.check(doc, feature_gates=gates) if f.severity == "critical"]


def _ids(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(rule, path) for rule, path, _ in _critical(doc)]


def _drop(doc: dict[str, Any], *path: str) -> dict[str, Any]:
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    return doc


def _null(doc: dict[str, Any], *path: str) -> dict[str, Any]:
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = None
    return doc


# --------------------------------------------------------------------------------------------------
# null: the same finding as the missing key


def _id(kind: str, path: tuple[Any, ...]) -> str:
    return ".".join(map(str, path)) + f"@{kind}"


NULL_REQUIRED = [
    ("RayCluster", base_cluster, ("spec", "headGroupSpec"), [("schema-missing-field", "spec.headGroupSpec")]),
    (
        "RayCluster",
        base_cluster,
        ("spec", "workerGroupSpecs", 0, "groupName"),
        [("schema-missing-field", "spec.workerGroupSpecs[0].groupName")],
    ),
    ("RayCluster", base_cluster, ("spec",), [("manifest-malformed", "spec")]),
    ("RayJob", example_job, ("spec", "rayClusterSpec"), [("rayjob-cluster-source-missing", "spec")]),
    (
        "RayJob",
        example_job,
        ("spec", "rayClusterSpec", "headGroupSpec"),
        [("schema-missing-field", "spec.rayClusterSpec.headGroupSpec")],
    ),
    ("RayService", example_service, ("spec", "rayClusterConfig"), [("schema-missing-field", "spec.rayClusterConfig")]),
    ("RayCronJob", example_cronjob, ("spec", "jobTemplate"), [("schema-missing-field", "spec.jobTemplate")]),
    ("RayCronJob", example_cronjob, ("spec", "schedule"), [("schema-missing-field", "spec.schedule")]),
]


@pytest.mark.parametrize(("kind", "make", "path", "expected"), NULL_REQUIRED, ids=[_id(k, p) for k, _, p, _ in NULL_REQUIRED])
def test_a_null_required_field_is_the_finding_of_a_missing_one(
    kind: str, make: Any, path: tuple[Any, ...], expected: list[tuple[str, str]]
) -> None:
    missing, null = _drop(make(), *path), _null(make(), *path)
    assert missing["kind"] == kind
    assert _ids(missing) == expected
    assert _ids(null) == expected


def test_the_message_of_a_null_required_field_says_it_was_dropped() -> None:
    [(rule, path, message)] = _critical(_null(example_service(), "spec", "rayClusterConfig"))
    assert (rule, path) == ("schema-missing-field", "spec.rayClusterConfig")
    assert message == "required field is missing (it is null: the API server drops a null field, as if it were not there)"
    [(_, _, message)] = _critical(_drop(example_service(), "spec", "rayClusterConfig"))
    assert message == "required field is missing"


NULL_OPTIONAL = [
    ("RayCluster", base_cluster, ("spec", "rayVersion")),
    ("RayCluster", base_cluster, ("spec", "workerGroupSpecs", 0, "minReplicas")),
    ("RayCluster", base_cluster, ("spec", "headGroupSpec", "rayStartParams")),
    ("RayJob", example_job, ("spec", "shutdownAfterJobFinishes")),
    ("RayJob", example_job, ("spec", "rayClusterSpec", "workerGroupSpecs")),
    ("RayService", example_service, ("spec", "serveConfigV2")),
    ("RayService", example_service, ("spec", "rayClusterConfig", "rayVersion")),
    ("RayCronJob", example_cronjob, ("spec", "suspend")),
]


@pytest.mark.parametrize(("kind", "make", "path"), NULL_OPTIONAL, ids=[_id(k, p) for k, _, p in NULL_OPTIONAL])
def test_a_null_optional_field_is_dropped_like_a_missing_one(kind: str, make: Any, path: tuple[Any, ...]) -> None:
    missing = make()
    parent = _at(missing, path[:-1])
    parent.pop(path[-1], None)
    null = _null(make(), *path)
    assert null["kind"] == kind
    assert _ids(null) == _ids(missing)
    assert [f.rule_id for f in rules.check(null) if f.rule_id.startswith("schema-")] == []


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def test_a_null_map_value_is_dropped_but_a_null_list_item_is_rejected() -> None:
    doc = base_cluster()
    doc["spec"]["headGroupSpec"]["rayStartParams"] = {"num-cpus": None, "dashboard-host": "0.0.0.0"}
    assert _ids(doc) == []
    doc["spec"]["workerGroupSpecs"] = [None]
    assert ("schema-wrong-type", "spec.workerGroupSpecs[0]") in _ids(doc)


# --------------------------------------------------------------------------------------------------
# format: int32 / int64


INT_CASES = [
    ("RayCluster", base_cluster, ("spec", "workerGroupSpecs", 0, "replicas")),
    ("RayCluster", base_cluster, ("spec", "headGroupSpec", "template", "spec", "containers", 0, "ports", 0, "containerPort")),
    ("RayJob", example_job, ("spec", "activeDeadlineSeconds")),
    ("RayJob", example_job, ("spec", "backoffLimit")),
    ("RayService", example_service, ("spec", "serviceUnhealthySecondThreshold")),
    ("RayCronJob", example_cronjob, ("spec", "jobTemplate", "ttlSecondsAfterFinished")),
]


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    _at(doc, path[:-1])[path[-1]] = value
    return doc


@pytest.mark.parametrize(("kind", "make", "path"), INT_CASES, ids=[f"{p[-1]}@{k}" for k, _, p in INT_CASES])
def test_an_int32_field_refuses_what_kuberay_cannot_decode(kind: str, make: Any, path: tuple[Any, ...]) -> None:
    shown = ".".join(str(p) for p in path).replace(".0.", "[0].").replace(".0", "[0]")
    doc = _set(make(), path, INT32_MAX + 1)
    assert doc["kind"] == kind
    assert [c for c in _critical(doc) if c[1] == shown] == [
        (
            "schema-invalid-value",
            shown,
            "2147483648 is outside the int32 range the CRD declares (format: int32); the API server stores it, but KubeRay cannot decode the object (cannot unmarshal number into Go value of type int32), so it is never reconciled",
        )
    ]
    # below the range: the field's own rule (e.g. rayjob-backoff-limit-negative) may say it instead, as critical
    assert [p for _, p, _ in _critical(_set(make(), path, INT32_MIN - 1))] == [shown]
    # within int32 the object decodes; what the Pod validation then refuses of its Pods (a containerPort over 65535:
    # pod-container-port-invalid) is another rule's
    assert [p for r, p, _ in _critical(_set(make(), path, INT32_MAX)) if not r.startswith("pod-")] == []


def test_an_int64_field_takes_more_than_int32() -> None:
    doc = base_cluster()
    security = doc["spec"]["headGroupSpec"]["template"]["spec"].setdefault("securityContext", {})
    security["runAsUser"] = INT32_MAX + 1  # format: int64
    assert [r for r in _ids(doc) if r[0].startswith("schema-")] == []
    security["runAsUser"] = INT64_MAX + 1
    assert ("schema-invalid-value", "spec.headGroupSpec.template.spec.securityContext.runAsUser") in _ids(doc)


def test_a_bounded_int32_keeps_its_crd_minimum() -> None:
    doc = example_service(rayClusterDeletionDelaySeconds=-1)  # minimum: 0 (the field's own rule says so)
    assert _ids(doc) == [("rayservice-deletion-delay-negative", "spec.rayClusterDeletionDelaySeconds")]
    doc = example_service(rayClusterDeletionDelaySeconds=INT32_MAX + 1)
    assert ("schema-invalid-value", "spec.rayClusterDeletionDelaySeconds") in _ids(doc)
    assert _ids(example_service(rayClusterDeletionDelaySeconds=INT32_MAX)) == []


# Every integer field the CRDs declare with a format, against the model field it is read into.

_FORMAT_RANGE = {"int32": (INT32_MIN, INT32_MAX), "int64": (INT64_MIN, INT64_MAX)}


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    if get_origin(annotation) in (Union, types.UnionType, list, dict, Annotated):
        for arg in get_args(annotation):
            yield from _models_in(arg)


def _field(models: list[type[BaseModel]], prop: str) -> tuple[Any, list[type[BaseModel]]] | None:
    """The type (with its constraints) of the model field read from the CRD property ``prop``, and its models."""
    for model in models:
        for name, info in model.model_fields.items():
            if not info.exclude and prop == (info.alias or to_camel(name)):
                annotation = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
                return annotation, list(_models_in(info.annotation))
    return None


def _integer_fields(schema: dict[str, Any], models: list[type[BaseModel]], path: str) -> Iterator[tuple[str, str, Any]]:
    """(CRD path, format, the model's type) of each formatted integer under ``schema``."""
    for prop, sub in (schema.get("properties") or {}).items():
        found = _field(models, prop)
        if found is None:
            continue  # not modelled (test_every_crd_field_of_the_spec_is_modelled says which may be)
        annotation, nested = found
        while sub.get("type") == "array" and isinstance(sub.get("items"), dict):
            sub, prop = sub["items"], prop + "[]"
        if sub.get("type") == "integer" and sub.get("format") in _FORMAT_RANGE:
            yield f"{path}.{prop}", sub["format"], annotation
        elif nested:
            yield from _integer_fields(sub, nested, f"{path}.{prop}")


def _formatted_integers(schema: dict[str, Any], path: str) -> Iterator[str]:
    """The CRD path of every integer with a format under ``schema``, whatever the model."""
    for prop, sub in (schema.get("properties") or {}).items():
        while sub.get("type") == "array" and isinstance(sub.get("items"), dict):
            sub, prop = sub["items"], prop + "[]"
        if sub.get("type") == "integer" and sub.get("format") in _FORMAT_RANGE:
            yield f"{path}.{prop}"
        else:
            yield from _formatted_integers(sub, f"{path}.{prop}")


@pytest.mark.parametrize(
    ("kind", "spec_model"),
    [("RayCluster", RayClusterSpec), ("RayJob", RayJobSpec), ("RayService", RayServiceSpec), ("RayCronJob", RayCronJobSpec)],
)
def test_every_formatted_crd_integer_is_bounded_in_the_model(kind: str, spec_model: type[BaseModel]) -> None:
    schema = crd_schema(kind)["properties"]["spec"]
    fields = list(_integer_fields(schema, [spec_model], "spec"))
    assert {path for path, _, _ in fields} == set(_formatted_integers(schema, "spec"))  # every one is reached
    assert len(fields) > 200  # the pod templates alone hold hundreds
    unbounded = []
    for path, fmt, annotation in fields:
        low, high = _FORMAT_RANGE[fmt]
        adapter: TypeAdapter[Any] = TypeAdapter(annotation)
        inner = adapter.validate_python([high] if path.endswith("[]") else high)
        assert inner is not None
        for outside in (high + 1, low - 1):
            try:
                adapter.validate_python([outside] if path.endswith("[]") else outside)
            except ValidationError:
                continue
            unbounded.append((path, fmt, outside))
    assert unbounded == []
