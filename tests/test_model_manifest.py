"""Manifests (``model/manifest.py``: load_manifest, the kind registry, metadata) and name rules (``_names.py``),
with a fuzz test: any JSON-ish value anywhere gives a ManifestError (or loads), never another exception."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
import warnings
from typing import Any, Literal

import pytest
from _examples import gpu_cluster, load_error, minimal_doc
from _reference import sample_documents
from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi_kuberay import rules
from pulumi_kuberay.model import _base
from pulumi_kuberay.model._base import KubeModel, validate_wire
from pulumi_kuberay.model._errors import ManifestError
from pulumi_kuberay.model._names import is_dns1035_label, name_problems
from pulumi_kuberay.model.cluster import HeadGroupSpec, RayClusterSpec
from pulumi_kuberay.model.manifest import (
    _KINDS,
    KubeManifest,
    ObjectMeta,
    RayClusterManifest,
    known_kinds,
    load_manifest,
    manifest_class,
    register_kind,
)
from pulumi_kuberay.model.pod import LENIENT_CONTEXT, WIRE_CONTEXT
from pydantic import BaseModel, ValidationError

# --------------------------------------------------------------------------------------------------
# Manifests


def test_to_manifest_key_order_and_only_what_was_set() -> None:
    manifest = RayClusterManifest(metadata=ObjectMeta(name="c", labels={"a": "b"}), spec=gpu_cluster())
    out = manifest.to_manifest()
    assert list(out) == ["apiVersion", "kind", "metadata", "spec"]
    assert out["apiVersion"] == "ray.io/v1" and out["kind"] == "RayCluster"
    assert out["metadata"] == {"name": "c", "labels": {"a": "b"}}


def test_loaded_manifest_key_order_and_status_kept() -> None:
    doc = minimal_doc()
    doc = {
        "spec": doc["spec"],
        "status": {"state": "ready", "conditions": []},
        "kind": "RayCluster",
        "metadata": {"name": "c"},
        "apiVersion": "ray.io/v1",
    }
    out = load_manifest(doc).to_manifest()
    assert list(out) == ["apiVersion", "kind", "metadata", "spec", "status"]
    assert out == doc


def test_live_object_metadata() -> None:
    doc = minimal_doc()
    doc["metadata"] = {
        "name": "c",
        "namespace": "ml",
        "uid": "1234",
        "resourceVersion": "42",
        "generation": 3,
        "creationTimestamp": "2026-01-01T00:00:00Z",
        "deletionTimestamp": "2026-01-02T00:00:00Z",
        "deletionGracePeriodSeconds": 0,
        "finalizers": ["ray.io/gcs-ft-redis-cleanup-finalizer"],
        "ownerReferences": [
            {
                "apiVersion": "ray.io/v1",
                "kind": "RayJob",
                "name": "j",
                "uid": "9",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
        "managedFields": [
            {
                "manager": "kubectl",
                "operation": "Apply",
                "apiVersion": "ray.io/v1",
                "time": "2026-01-01T00:00:00Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {}},
            }
        ],
        "selfLink": "/apis/ray.io/v1/namespaces/ml/rayclusters/c",
        "labels": {"a": "b"},
        "annotations": {"c": "d"},
        "generateName": "c-",
    }
    assert load_manifest(doc).to_manifest() == doc


def test_unknown_metadata_key_is_rejected() -> None:
    doc = minimal_doc()
    doc["metadata"]["lables"] = {"a": "b"}
    error = load_error(doc)
    assert [(p.path, p.kind, p.fix) for p in error.problems] == [
        ("metadata.lables", "unknown_field", "did you mean 'labels'?")
    ]


def test_v1alpha1_is_accepted() -> None:
    doc = minimal_doc()
    doc["apiVersion"] = "ray.io/v1alpha1"
    assert load_manifest(doc).to_manifest() == doc


@pytest.mark.parametrize(
    ("doc", "path", "kind", "message"),
    [
        (None, "", "wrong_type", "expected a mapping (a Kubernetes object), got NoneType"),
        ([1], "", "wrong_type", "expected a mapping (a Kubernetes object), got list"),
        ({"apiVersion": "ray.io/v1"}, "kind", "missing", "required field is missing"),
        ({"kind": 7}, "kind", "wrong_type", "expected a string, got int 7"),
        ({"kind": "RayClustr"}, "kind", "invalid_value", "unknown kind 'RayClustr'"),
        ({"kind": "Deployment"}, "kind", "invalid_value", "unknown kind 'Deployment'"),
    ],
)
def test_load_manifest_rejects_non_manifests(doc: Any, path: str, kind: str, message: str) -> None:
    error = load_error(doc)
    assert [(p.path, p.kind, p.message) for p in error.problems] == [(path, kind, message)]


def test_unknown_kind_suggests_a_close_match() -> None:
    assert load_error({"kind": "RayClustr"}).problems[0].fix == "did you mean 'RayCluster'?"


def test_wrong_api_version_is_reported_with_other_problems() -> None:
    doc = minimal_doc()
    doc["apiVersion"] = "v1"
    doc["spec"]["workerGroupSpecs"][0]["minReplicas"] = "1"
    error = load_error(doc)
    assert [(p.path, p.kind) for p in error.problems] == [
        ("apiVersion", "invalid_value"),
        ("spec.workerGroupSpecs[0].minReplicas", "wrong_type"),
    ]
    assert error.problems[0].message == "apiVersion 'v1' does not serve RayCluster"
    assert error.problems[0].fix == "use 'ray.io/v1' or 'ray.io/v1alpha1'"


def test_missing_api_version_spec_and_name() -> None:
    error = load_error({"kind": "RayCluster", "metadata": {}})
    assert [(p.path, p.kind) for p in error.problems] == [
        ("apiVersion", "missing"),
        ("metadata.name", "missing"),
        ("spec", "missing"),
    ]


def test_generate_name_is_enough() -> None:
    doc = minimal_doc()
    doc["metadata"] = {"generateName": "rc-"}
    assert load_manifest(doc).to_manifest() == doc


def test_manifest_error_subject_names_the_object() -> None:
    doc = minimal_doc()
    doc["spec"]["workerGroupSpecs"][0]["replicas"] = "1"
    assert str(load_error(doc)).startswith("RayCluster 'raycluster' is invalid (1 problem):")


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(spec=None),
        lambda d: d.update(spec=[]),
        lambda d: d.update(metadata="x"),
        lambda d: d.update(status="x"),
        lambda d: d["spec"].update(workerGroupSpecs={"a": 1}),
        lambda d: d["spec"].update(workerGroupSpecs=[None]),
        lambda d: d["spec"]["headGroupSpec"].update(template={"spec": {"containers": None}}),
        lambda d: d["spec"]["headGroupSpec"].update(rayStartParams={1: "x"}),
        lambda d: d["spec"].update({1: 2}),
        lambda d: d["spec"]["workerGroupSpecs"][0].update(groupName=None, minReplicas=None),
        lambda d: d["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0].update(env=[{"value": 1}]),
    ],
)
def test_garbage_only_ever_raises_manifest_error(mutate: Any) -> None:
    doc = minimal_doc()
    mutate(doc)
    error = load_error(doc)
    assert error.problems


# --------------------------------------------------------------------------------------------------
# Registry


def test_registry() -> None:
    assert _KINDS["RayCluster"] is RayClusterManifest
    assert manifest_class("RayCluster") is RayClusterManifest
    assert manifest_class("Nope") is None
    assert set(known_kinds()) >= {"RayCluster", "RayJob", "RayService", "RayCronJob"}
    assert RayClusterManifest.api_versions() == ("ray.io/v1", "ray.io/v1alpha1")


def test_the_other_kinds_load_on_first_use_of_their_kind() -> None:
    # a fresh interpreter: a program of RayClusters never imports the RayJob, RayService/Serve, RayCronJob models
    code = (
        "import json, sys; from pulumi_kuberay.model import manifest; "
        "kinds = ('job', 'service', 'serve', 'cronjob'); "
        "loaded = lambda: sorted(k for k in kinds if f'pulumi_kuberay.model.{k}' in sys.modules); "
        "before = loaded(); known = manifest.known_kinds(); job = manifest.manifest_class('RayJob'); "
        "print(json.dumps([before, known, job.__module__, loaded()]))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, known, job_module, after = json.loads(result.stdout)
    assert before == []
    assert known == ["RayCluster", "RayCronJob", "RayJob", "RayService"]
    assert job_module == "pulumi_kuberay.model.job"
    assert after == ["job"]


def test_the_lazy_kinds_are_the_classes_of_their_modules() -> None:
    from pulumi_kuberay.model import manifest
    from pulumi_kuberay.model.cronjob import RayCronJobManifest
    from pulumi_kuberay.model.job import RayJobManifest
    from pulumi_kuberay.model.service import RayServiceManifest

    assert manifest.RayJobManifest is RayJobManifest and manifest_class("RayJob") is RayJobManifest
    assert manifest.RayServiceManifest is RayServiceManifest and manifest_class("RayService") is RayServiceManifest
    assert manifest.RayCronJobManifest is RayCronJobManifest and manifest_class("RayCronJob") is RayCronJobManifest
    with pytest.raises(AttributeError, match="no attribute 'RayNopeManifest'"):
        _ = manifest.RayNopeManifest


def test_register_kind_plugs_a_new_kind_in() -> None:
    class ToySpec(KubeModel):
        size: int

    @register_kind
    class ToyManifest(KubeManifest[ToySpec]):
        kind: Literal["Toy"] = "Toy"
        api_version: Literal["ray.io/v1"] = "ray.io/v1"

    try:
        doc = {"apiVersion": "ray.io/v1", "kind": "Toy", "metadata": {"name": "t"}, "spec": {"size": 1}}
        loaded = load_manifest(doc)
        assert isinstance(loaded, ToyManifest) and loaded.to_manifest() == doc
        error = load_error({**doc, "apiVersion": "ray.io/v1alpha1"})
        assert error.problems[0].fix == "use 'ray.io/v1'"
        error = load_error({**doc, "spec": {"size": "1"}})
        assert error.paths == ["spec.size"]
    finally:
        del _KINDS["Toy"]


def test_register_kind_needs_a_kind_default() -> None:
    class NoKind(KubeManifest[RayClusterSpec]):
        pass

    with pytest.raises(TypeError, match="must give its `kind` field a default"):
        register_kind(NoKind)


# --------------------------------------------------------------------------------------------------
# Names (operator rules RC-01/02 etc.: predicates, not raised by load_manifest)


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("raycluster", True),
        ("a", True),
        ("a-1", True),
        ("1a", False),
        ("a-", False),
        ("A", False),
        ("a_b", False),
        ("a.b", False),
        ("", False),
        ("a" * 63, True),
        ("a" * 64, False),
    ],
)
def test_dns1035(name: str, ok: bool) -> None:
    assert is_dns1035_label(name) is ok


def test_name_limits_per_kind() -> None:
    assert name_problems("RayCluster", "a" * 53) == []
    assert name_problems("RayCluster", "a" * 54) == [
        f"RayCluster name {'a' * 54!r} is 54 characters long; KubeRay allows at most 53"
    ]
    assert name_problems("RayJob", "a" * 48) and not name_problems("RayJob", "a" * 47)
    assert name_problems("RayService", "a" * 48) and not name_problems("RayService", "a" * 47)
    assert name_problems("RayCronJob", "a" * 37) and not name_problems("RayCronJob", "a" * 36)
    assert name_problems("RayCronJob", "Upper_Case") == []  # only the length is checked for RayCronJob
    assert name_problems("RayCluster", "Upper")[0].startswith(
        "RayCluster name 'Upper' is not a DNS-1035 label"
    )


def test_generate_name_counts_the_random_suffix() -> None:
    assert name_problems("RayCluster", "a" * 48 + "-", generated=True) == [
        f"RayCluster name generateName {'a' * 48 + '-'!r} (+5 random characters) is 54 characters long; "
        "KubeRay allows at most 53"
    ]
    assert name_problems("RayJob", "rayjob-", generated=True) == []


def test_load_manifest_does_not_raise_on_operator_name_rules() -> None:
    doc = minimal_doc()
    doc["metadata"]["name"] = "Bad_Name-" + "x" * 60
    manifest = load_manifest(doc)
    problems = manifest.name_problems()
    assert [p.path for p in problems] == ["metadata.name", "metadata.name"]
    assert "KubeRay allows at most 53" in problems[0].message
    assert "DNS-1035" in problems[1].message
    ok = copy.deepcopy(minimal_doc())
    assert load_manifest(ok).name_problems() == []


# --------------------------------------------------------------------------------------------------
# Fuzz: any JSON-ish value anywhere gives a ManifestError (or loads), never another exception type

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, (*prefix, index))
    return out


_DOC_PATHS = _paths(minimal_doc())[1:]


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(_DOC_PATHS), value=_JSON)
def test_fuzzed_manifest_only_raises_manifest_error(path: tuple[Any, ...], value: Any) -> None:
    doc = minimal_doc()
    node: Any = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    try:
        manifest = load_manifest(doc)
    except ManifestError as error:
        assert error.problems
        return
    assert manifest.to_manifest() == doc


# --------------------------------------------------------------------------------------------------
# The wire validator (validate_wire): pydantic's validator without the validators that do nothing on a manifest


def _state(value: Any) -> Any:
    """Everything a validated model holds: each field's value, which fields were set, the private attributes."""
    if isinstance(value, BaseModel):
        fields = {name: _state(getattr(value, name)) for name in type(value).model_fields}
        return (type(value).__name__, sorted(value.model_fields_set), fields, repr(value.__pydantic_private__))
    if isinstance(value, list):
        return [_state(item) for item in value]
    if isinstance(value, dict):
        return {key: _state(item) for key, item in value.items()}
    return (type(value).__name__, repr(value))


def _outcome(validate: Any, cls: Any, doc: dict[str, Any], context: dict[str, Any]) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "valid", _state(validate(cls, dict(doc), context))
    except ValidationError as error:
        return "invalid", error.title, error.errors(include_url=False, include_context=False)


def _pydantics(cls: Any, data: dict[str, Any], context: dict[str, Any]) -> Any:
    return cls.model_validate(data, context=context)


def _wire_corpus() -> list[dict[str, Any]]:
    docs = [doc for _, _, doc in sample_documents() if manifest_class(str(doc.get("kind"))) is not None]
    for rule in rules.rules_of("document"):
        docs += [rules.normalise(rule.compliant), rules.normalise(rule.violating)]
    return docs


def test_wire_validation_gives_what_pydantics_validator_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_base, "_PENDING_MADE", [False])  # as in a process that never made a pending model
    docs = _wire_corpus()
    assert len(docs) > 300
    invalid = 0
    for doc in docs:
        cls = manifest_class(str(doc.get("kind")))
        if cls is None:
            continue
        for context in (WIRE_CONTEXT, LENIENT_CONTEXT):
            expected = _outcome(_pydantics, cls, doc, context)
            assert _outcome(validate_wire, cls, doc, context) == expected, doc.get("metadata")
            invalid += expected[0] == "invalid"
    assert invalid > 20  # the rules' violating examples: the errors are the same too


def _functions(schema: Any) -> set[str]:
    """The qualified names of the function validators in a core schema."""
    if isinstance(schema, list):
        return set().union(*(_functions(item) for item in schema))
    if not isinstance(schema, dict):
        return set()
    found = set()
    if str(schema.get("type", "")).startswith("function-"):
        function = schema["function"]["function"]
        found.add(getattr(function, "__qualname__", repr(function)))  # (constraints are functools.partials)
    return found.union(*(_functions(v) for k, v in schema.items() if k not in _base._NOT_SCHEMAS))


def test_the_wire_validator_leaves_out_the_wire_no_ops_only() -> None:
    noops = {"KubeModel._none_means_unset", "HeadGroupSpec._render_shortcuts", "WorkerGroupSpec._render_shortcuts",
             "RayClusterSpec._harden_autoscaler", "RayJobSpec._harden_submitter", "_stringify_scalars"}  # fmt: skip
    for kind in ("RayCluster", "RayJob", "RayService", "RayCronJob"):
        cls = manifest_class(kind)
        assert cls is not None
        cls.model_rebuild()
        schema = cls.__pydantic_core_schema__
        stripped = _base._without_wire_noops(schema)
        assert _functions(stripped) == _functions(schema) - noops
        assert "KubeModel._none_means_unset" in _functions(schema)
        assert "RayClusterSpec._apply_defaults_and_check_groups" in _functions(stripped)


def test_once_a_pending_model_exists_a_manifest_holding_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_base, "_PENDING_MADE", [False])
    doc = minimal_doc()
    loop = asyncio.new_event_loop()
    try:
        head = HeadGroupSpec(image=loop.create_future(), cpu=1)  # pending: _none_means_unset must look again
        assert _base._PENDING_MADE == [True]
        doc["spec"]["headGroupSpec"] = head
        with pytest.raises(ManifestError, match="not known yet"):
            load_manifest(doc)
    finally:
        loop.close()


def test_the_pinned_pydantic_gets_the_wire_validator_and_another_shape_falls_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_base, "_PENDING_MADE", [False])
    monkeypatch.setattr(_base, "_WIRE_VALIDATORS", {})
    cls = manifest_class("RayCluster")
    assert cls is not None
    validate_wire(cls, minimal_doc(), WIRE_CONTEXT)
    assert _base._WIRE_VALIDATORS[cls][1] is not None  # the internals it reads are there in the pinned pydantic

    def changed_shape(_cls: Any) -> Any:
        raise IndexError("another pydantic release")

    monkeypatch.setattr(_base, "_WIRE_VALIDATORS", {})
    monkeypatch.setattr(_base, "_wire_validator", changed_shape)
    model = validate_wire(cls, minimal_doc(), WIRE_CONTEXT)
    assert _base._WIRE_VALIDATORS[cls][1] is None
    assert model.to_manifest() == cls.model_validate(minimal_doc(), context=WIRE_CONTEXT).to_manifest()
