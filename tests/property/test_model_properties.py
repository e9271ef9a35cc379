"""Properties of the typed model over generated valid and mutated args of every kind.

1. Construction either succeeds or raises pydantic's ``ValidationError`` whose problems name the mutated
   field (or its parent); no other exception type escapes.
2. Every accepted input renders a manifest that conforms to the CRD schema and has no ``schema-*`` /
   ``manifest-malformed`` / ``internal-error`` finding; a *valid* input (one the operator accepts) has no
   critical finding at all (with the feature gates it needs turned on): the model and the rules agree.
3. ``load_manifest(m.to_manifest())`` round-trips for every accepted input.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _reference import crd_schema, require_reference
from conformance.openapi import validate
from hypothesis import given
from hypothesis import strategies as st
from pulumi_kuberay import rules
from pulumi_kuberay.model._errors import ManifestError, problems_from_validation_error
from pulumi_kuberay.model.cluster import RayClusterSpec
from pulumi_kuberay.model.cronjob import RayCronJobManifest, RayCronJobSpec
from pulumi_kuberay.model.job import RayJobManifest, RayJobSpec
from pulumi_kuberay.model.manifest import ObjectMeta, RayClusterManifest, load_manifest
from pulumi_kuberay.model.serve import ServeConfig
from pulumi_kuberay.model.service import RayServiceManifest, RayServiceSpec
from pydantic import BaseModel, ValidationError

from .conftest import budget
from .mutations import Mutation, mutated
from .strategies import RESOURCE_NAMES, VALID, valid_serve_config, wire

SPECS: dict[str, type[BaseModel]] = {
    "RayCluster": RayClusterSpec,
    "RayJob": RayJobSpec,
    "RayService": RayServiceSpec,
    "RayCronJob": RayCronJobSpec,
}
MANIFESTS: dict[str, Any] = {
    "RayCluster": RayClusterManifest,
    "RayJob": RayJobManifest,
    "RayService": RayServiceManifest,
    "RayCronJob": RayCronJobManifest,
}
#: Gates an input of each kind needs (RayCronJob's controller is alpha, off by default).
GATES: dict[str, dict[str, bool]] = {"RayCronJob": {"RayCronJob": True}}
#: Findings meaning "the manifest does not fit the CRD" or "a rule crashed": never on a model-accepted input.
STRUCTURAL = {"schema-unknown-field", "schema-wrong-type", "schema-missing-field", "schema-invalid-value",
              "manifest-malformed", rules.INTERNAL_ERROR_RULE_ID}
KINDS = tuple(SPECS)


@pytest.fixture(scope="module", autouse=True)
def _reference_material() -> None:
    require_reference()


def construct(kind: str, data: dict[str, Any]) -> BaseModel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SPECS[kind](**data)


def render(kind: str, spec: BaseModel, name: str) -> dict[str, Any]:
    manifest = MANIFESTS[kind](metadata=ObjectMeta(name=name), spec=spec)
    assert manifest.name_problems() == []
    doc: dict[str, Any] = manifest.to_manifest()
    return doc


def check_accepted(kind: str, spec: BaseModel, name: str) -> list[rules.Finding]:
    """The properties every accepted input must have; returns the rule findings for further checks."""
    doc = render(kind, spec, name)
    errors = validate(doc, crd_schema(kind))
    assert errors == [], f"accepted input renders a manifest the CRD rejects: {errors}\n{doc}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = load_manifest(doc)
    assert type(loaded) is MANIFESTS[kind]
    assert loaded.to_manifest() == doc, "load_manifest(m.to_manifest()) does not round-trip"
    findings = rules.check(doc, feature_gates=GATES.get(kind))
    structural = [f for f in findings if f.rule_id in STRUCTURAL]
    assert structural == [], f"the rules call a model-accepted manifest malformed: {structural}\n{doc}"
    return findings


def related(problem_path: str, mutation: Mutation) -> bool:
    """The error is reported at the mutated field, inside it, or on the object holding it."""
    parent = mutation.parent
    return problem_path.startswith(parent) if parent else True


def assert_names_field(exc: ValidationError, model: type[BaseModel], mutation: Mutation) -> None:
    problems = problems_from_validation_error(exc, model)
    assert problems, f"ValidationError without problems: {exc}"
    paths = [p.path for p in problems]
    assert any(related(p, mutation) for p in paths), (
        f"{mutation.kind} at {mutation.where!r} ({mutation.note}) reported at {paths}: {exc}"
    )
    for problem in problems:
        assert problem.message, problem


#: Examples per kind (a RayService case costs about four RayCluster cases: serve config YAML both ways).
VALID_BUDGET = {"RayCluster": 100, "RayJob": 100, "RayService": 40, "RayCronJob": 60}
MUTATED_BUDGET = {"RayCluster": 150, "RayJob": 150, "RayService": 60, "RayCronJob": 80}


@pytest.mark.parametrize("kind", KINDS)
def test_valid_input_is_accepted_and_agrees_with_rules(kind: str) -> None:
    budget(VALID_BUDGET[kind])(given(data=st.data())(_valid_case))(kind=kind)


def _valid_case(kind: str, data: st.DataObject) -> None:
    args = data.draw(VALID[kind], label="args")
    name = data.draw(RESOURCE_NAMES, label="name")
    spec = construct(kind, args)  # any exception here: the model rejects what the operator accepts
    findings = check_accepted(kind, spec, name)
    critical = [f"{f.rule_id} at {f.path}: {f.message}" for f in findings if f.severity == "critical"]
    assert critical == [], f"valid {kind} has critical findings: {critical}"


@pytest.mark.parametrize("kind", KINDS)
def test_mutated_input_is_rejected_with_its_path_or_renders_conformant(kind: str) -> None:
    budget(MUTATED_BUDGET[kind])(given(data=st.data())(_mutated_case))(kind=kind)


def _mutated_case(kind: str, data: st.DataObject) -> None:
    mutation = data.draw(mutated(kind), label="mutation")
    try:
        spec = construct(kind, mutation.data)
    except ValidationError as exc:
        assert_names_field(exc, SPECS[kind], mutation)
        return
    if kind == "RayJob" and spec.missing_cluster_source():
        # From Python a RayJobSpec may leave its cluster to the RayJob component's cluster=, which sets this.
        spec = spec.model_copy(update={"cluster_selector": {"ray.io/cluster": "shared"}})
    check_accepted(kind, spec, data.draw(RESOURCE_NAMES, label="name"))


@budget(200)
@given(mutation=mutated("ServeConfig", valid_serve_config()))
def test_serve_config_construction_and_yaml_round_trip(mutation: Mutation) -> None:
    try:
        config = ServeConfig(**mutation.data)
    except ValidationError as exc:
        assert_names_field(exc, ServeConfig, mutation)
        return
    text = config.to_yaml()
    again = ServeConfig.from_yaml(text)
    assert again.to_dict() == config.to_dict()
    assert again.to_yaml() == text


@budget(150)
@given(doc=mutated("RayCluster").map(lambda m: wire(m.data)))
def test_load_manifest_raises_only_manifest_error(doc: dict[str, Any]) -> None:
    """On wire documents (convenience fields are unknown there) only ManifestError escapes, with paths."""
    manifest = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "c"}, "spec": doc}
    try:
        loaded = load_manifest(manifest)
    except ManifestError as exc:
        assert exc.problems and all(p.path for p in exc.problems), str(exc)
        assert all(p.path.startswith("spec") for p in exc.problems), str(exc)
        return
    assert loaded.to_manifest() == manifest
