"""The CRD schema checker (``openapi.validate``): upstream samples pass, mutants fail at the right path."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
import yaml
from _reference import crd_schema, require_reference, sample_documents
from pulumi_kuberay.rules._engine import KINDS

from .openapi import CEL_RULES, validate

#: Upstream samples the API server accepts only because it prunes a null: (file, doc index) -> exact errors.
NULL_SAMPLES: dict[tuple[str, int], list[str]] = {
    ("ray-service.high-throughput-gemma4.yaml", 0): [
        "spec.rayClusterConfig.workerGroupSpecs[0].template.metadata: "
        "null is not allowed here (the API server would drop it)"
    ],
}


def _version(doc: dict[str, Any]) -> str:
    return str(doc["apiVersion"]).split("/", 1)[1]


def _samples() -> list[tuple[str, int, str, dict[str, Any]]]:
    require_reference()
    return [(name, index, kind, doc) for kind in KINDS for name, index, doc in sample_documents(kind)]


def _sample(file_name: str, index: int = 0) -> dict[str, Any]:
    for name, i, _kind, doc in _samples():
        if (name, i) == (file_name, index):
            return copy.deepcopy(doc)
    raise LookupError(file_name)


# --------------------------------------------------------------------------------------------------
# Upstream samples.


def test_every_sample_conforms_to_its_crd() -> None:
    samples = _samples()
    assert {kind for _, _, kind, _ in samples} == set(KINDS)
    failures: dict[tuple[str, int], list[str]] = {}
    for name, index, kind, doc in samples:
        errors = validate(doc, crd_schema(kind, _version(doc)))
        if errors != NULL_SAMPLES.get((name, index), []):
            failures[(name, index)] = errors
    assert failures == {}


def test_samples_with_a_null_pass_when_nulls_are_pruned_like_the_api_server_does() -> None:
    for (name, index), _errors in NULL_SAMPLES.items():
        doc = _sample(name, index)
        kind = doc["kind"]
        assert validate(doc, crd_schema(kind, _version(doc)), prune_nulls=True) == []


def test_samples_cover_every_version_present() -> None:
    versions = {(kind, _version(doc)) for _, _, kind, doc in _samples()}
    assert ("RayCluster", "v1") in versions
    # v1alpha1 documents, if upstream ever ships one, are checked against v1alpha1 by the test above.
    assert all(v in ("v1", "v1alpha1") for _, v in versions)


# --------------------------------------------------------------------------------------------------
# Mutants of real samples.


@pytest.fixture
def cluster() -> dict[str, Any]:
    doc = _sample("ray-cluster.complete.yaml")
    assert validate(doc, crd_schema("RayCluster")) == []
    return doc


def test_unknown_field_is_an_error(cluster: dict[str, Any]) -> None:
    cluster["spec"]["workerGroupSpecs"][0]["minReplica"] = 1
    cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    assert validate(cluster, crd_schema("RayCluster")) == [
        "spec.headGroupSpec.template.spec.containers[0].imagePullPolicyy: "
        "unknown field 'imagePullPolicyy' (the API server would drop it)",
        "spec.workerGroupSpecs[0].minReplica: unknown field 'minReplica' (the API server would drop it)",
    ]


def test_string_number_is_an_error(cluster: dict[str, Any]) -> None:
    cluster["spec"]["workerGroupSpecs"][0]["minReplicas"] = "1"
    assert validate(cluster, crd_schema("RayCluster")) == [
        'spec.workerGroupSpecs[0].minReplicas: expected integer, got string "1"'
    ]


def test_bool_is_not_an_integer_and_float_is_not_an_integer(cluster: dict[str, Any]) -> None:
    cluster["spec"]["workerGroupSpecs"][0]["replicas"] = True
    cluster["spec"]["workerGroupSpecs"][0]["maxReplicas"] = 2.0
    assert sorted(validate(cluster, crd_schema("RayCluster"))) == [
        "spec.workerGroupSpecs[0].maxReplicas: expected integer, got number 2.0",
        "spec.workerGroupSpecs[0].replicas: expected integer, got boolean True",
    ]


def test_wrong_scalar_type_in_a_pod_template(cluster: dict[str, Any]) -> None:
    container = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    container["ports"] = [{"containerPort": "6379", "name": "gcs"}]
    container["tty"] = "true"
    assert sorted(validate(cluster, crd_schema("RayCluster"))) == [
        "spec.headGroupSpec.template.spec.containers[0].ports[0].containerPort: "
        'expected integer, got string "6379"',
        'spec.headGroupSpec.template.spec.containers[0].tty: expected boolean, got string "true"',
    ]


def test_int_or_string_quantity(cluster: dict[str, Any]) -> None:
    container = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    container["resources"] = {
        "limits": {"cpu": 2, "memory": "4Gi", "nvidia.com/gpu": 1},
        "requests": {"cpu": "500m"},
    }
    assert validate(cluster, crd_schema("RayCluster")) == []
    container["resources"] = {"limits": {"cpu": 0.5, "memory": "lots", "nvidia.com/gpu": True}}
    prefix = "spec.headGroupSpec.template.spec.containers[0].resources.limits"
    errors = validate(cluster, crd_schema("RayCluster"))
    assert errors[0] == f"{prefix}.cpu: expected integer or string, got number 0.5"
    assert errors[1].startswith(f'{prefix}.memory: "lots" does not match pattern')
    assert errors[2] == f"{prefix}['nvidia.com/gpu']: expected integer or string, got boolean True"
    assert len(errors) == 3


def test_bad_enum(cluster: dict[str, Any]) -> None:
    cluster["spec"]["upgradeStrategy"] = {"type": "recreate"}
    assert validate(cluster, crd_schema("RayCluster")) == [
        'spec.upgradeStrategy.type: unsupported value "recreate": supported values: "Recreate", "None"'
    ]


def test_missing_required(cluster: dict[str, Any]) -> None:
    del cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["name"]
    del cluster["spec"]["workerGroupSpecs"][0]["groupName"]
    assert sorted(validate(cluster, crd_schema("RayCluster"))) == [
        "spec.headGroupSpec.template.spec.containers[0].name: required field is missing",
        "spec.workerGroupSpecs[0].groupName: required field is missing",
    ]
    del cluster["spec"]["headGroupSpec"]
    assert "spec.headGroupSpec: required field is missing" in validate(cluster, crd_schema("RayCluster"))


def test_null_is_an_error_unless_pruned(cluster: dict[str, Any]) -> None:
    cluster["spec"]["headGroupSpec"]["template"]["metadata"] = None
    assert validate(cluster, crd_schema("RayCluster")) == [
        "spec.headGroupSpec.template.metadata: null is not allowed here (the API server would drop it)"
    ]
    assert validate(cluster, crd_schema("RayCluster"), prune_nulls=True) == []


def test_top_level_metadata_is_object_meta(cluster: dict[str, Any]) -> None:
    cluster["metadata"] = {"name": "x", "labels": {"a": "b"}, "uid": "whatever"}  # ObjectMeta is not pruned
    assert validate(cluster, crd_schema("RayCluster")) == []
    cluster["metadata"] = {"generateName": "x-"}
    assert validate(cluster, crd_schema("RayCluster")) == []
    cluster["metadata"] = {"labels": {}}
    assert validate(cluster, crd_schema("RayCluster")) == [
        "metadata.name: expected a string name (or generateName), got null None"
    ]


def test_duplicate_keys_in_a_map_list(cluster: dict[str, Any]) -> None:
    container = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    container["ports"] = [{"containerPort": 6379}, {"containerPort": 6379, "protocol": "TCP"}]
    errors = validate(cluster, crd_schema("RayCluster"))
    assert len(errors) == 1
    assert errors[0].startswith("spec.headGroupSpec.template.spec.containers[0].ports[1]: duplicate entry")


def test_path_prefix_for_a_sub_schema(cluster: dict[str, Any]) -> None:
    group_schema = crd_schema("RayCluster")["properties"]["spec"]["properties"]["workerGroupSpecs"]["items"]
    group = cluster["spec"]["workerGroupSpecs"][0] | {"minReplicas": "1"}
    assert validate(group, group_schema, "spec.workerGroupSpecs[3]") == [
        'spec.workerGroupSpecs[3].minReplicas: expected integer, got string "1"'
    ]


# --------------------------------------------------------------------------------------------------
# CEL rules (x-kubernetes-validations).


def _cel_rules_in_crd_files() -> set[str]:
    """Every ``rule:`` in the CRD files (all versions), read like ``grep 'rule:'`` (a full parse is slow)."""
    crds = require_reference() / "kuberay" / "v1.7.0" / "crds"
    found: set[str] = set()
    for path in sorted(crds.glob("*.yaml")):
        for match in re.finditer(r"^\s*(?:- )?rule: (.+)$", path.read_text(), flags=re.MULTILINE):
            found.add(" ".join(str(yaml.safe_load(match.group(1))).split()))
    return found


def test_every_cel_rule_in_the_crds_is_hand_coded_or_a_transition_rule() -> None:
    rules = _cel_rules_in_crd_files()
    assert "self == oldSelf" in rules
    assert {r for r in rules if "oldSelf" not in r} == set(CEL_RULES)


@pytest.fixture
def job() -> dict[str, Any]:
    doc = _sample("ray-job.sample.yaml")
    assert validate(doc, crd_schema("RayJob")) == []
    return doc


def test_cel_managed_by(job: dict[str, Any]) -> None:
    job["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue"
    assert validate(job, crd_schema("RayJob")) == []
    job["spec"]["managedBy"] = "me"
    assert validate(job, crd_schema("RayJob")) == [
        "spec.managedBy: the managedBy field value must be either 'ray.io/kuberay-operator' or "
        "'kueue.x-k8s.io/multikueue'"
    ]


def test_cel_deletion_strategy(job: dict[str, Any]) -> None:
    schema = crd_schema("RayJob")
    job["spec"]["deletionStrategy"] = {"onSuccess": {"policy": "DeleteCluster"}}
    (error,) = validate(job, schema)
    assert error.startswith("spec.deletionStrategy: ")
    job["spec"]["deletionStrategy"] = {
        "onSuccess": {"policy": "DeleteCluster"},
        "onFailure": {"policy": "DeleteNone"},
    }
    assert validate(job, schema) == []
    job["spec"]["deletionStrategy"]["deletionRules"] = [
        {"policy": "DeleteSelf", "condition": {"jobStatus": "FAILED"}}
    ]
    (error,) = validate(job, schema)
    assert error.startswith("spec.deletionStrategy: legacy policies (onSuccess/onFailure) and deletionRules")
    job["spec"]["deletionStrategy"] = {
        "deletionRules": [
            {"policy": "DeleteSelf", "condition": {"jobStatus": "FAILED", "jobDeploymentStatus": "Failed"}}
        ]
    }
    (error,) = validate(job, schema)
    assert error.startswith(
        "spec.deletionStrategy.deletionRules[0].condition: JobStatus and JobDeploymentStatus"
    )
    job["spec"]["deletionStrategy"] = {"deletionRules": []}
    assert validate(job, schema) == [
        "spec.deletionStrategy.deletionRules: has 0 items, fewer than minItems 1",
    ]


def test_unknown_cel_rule_is_reported_not_ignored() -> None:
    schema = {"type": "string", "x-kubernetes-validations": [{"rule": "self.size() > 3", "message": "short"}]}
    assert validate("ab", schema, "x") == [
        "x: cannot evaluate x-kubernetes-validations rule 'self.size() > 3' (not hand-coded)"
    ]
    transition = {
        "type": "string",
        "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "immutable"}],
    }
    assert validate("ab", transition, "x") == []


# --------------------------------------------------------------------------------------------------
# Keywords on small hand-written schemas (no reference material needed).


def test_scalar_types() -> None:
    assert validate(1, {"type": "number"}, "n") == []
    assert validate(1.5, {"type": "number"}, "n") == []
    assert validate(True, {"type": "number"}, "n") == ["n: expected number, got boolean True"]
    assert validate(1, {"type": "boolean"}, "b") == ["b: expected boolean, got integer 1"]
    assert validate(1, {"type": "string"}, "s") == ["s: expected string, got integer 1"]
    assert validate([], {"type": "object"}, "o") == ["o: expected object, got array []"]


def test_nullable() -> None:
    assert validate(None, {"type": "string", "nullable": True}, "t") == []
    assert validate(None, {"type": "string"}, "t") == [
        "t: null is not allowed here (the API server would drop it)"
    ]


def test_bounds() -> None:
    schema = {"type": "integer", "minimum": 1, "maximum": 3}
    assert validate(0, schema, "i") == ["i: 0 is below the minimum 1"]
    assert validate(4, schema, "i") == ["i: 4 is above the maximum 3"]
    assert validate("", {"type": "string", "minLength": 1}, "s") == ['s: "" is shorter than minLength 1']
    assert validate("abc", {"type": "string", "maxLength": 2}, "s") == ['s: "abc" is longer than maxLength 2']
    assert validate([1, 2], {"type": "array", "maxItems": 1}, "a") == ["a: has 2 items, more than maxItems 1"]
    assert validate("a-", {"type": "string", "pattern": "^[a-z]+$"}, "s") == [
        "s: \"a-\" does not match pattern '^[a-z]+$'"
    ]


def test_enum_distinguishes_bool_from_int() -> None:
    assert validate(True, {"enum": [1, 2]}, "e") == ["e: unsupported value True: supported values: 1, 2"]
    assert validate(1, {"enum": [1, 2]}, "e") == []


def test_objects_maps_and_preserved_fields() -> None:
    closed = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert validate({"a": "x", "b": 1}, closed, "o") == [
        "o.b: unknown field 'b' (the API server would drop it)"
    ]
    open_ = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "properties": {"a": {"type": "string"}},
    }
    assert validate({"a": "x", "b": {"c": 1}}, open_, "o") == []
    a_map = {"type": "object", "additionalProperties": {"type": "string"}}
    assert validate({"k": "v", "n": 1}, a_map, "m") == ["m.n: expected string, got integer 1"]
    assert validate({"x": 1}, {"type": "object"}, "o") == [
        "o.x: unknown field 'x' (the API server would drop it)"
    ]


def test_combinators() -> None:
    quantity = {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}
    assert validate(1, quantity, "q") == []
    assert validate("1Gi", quantity, "q") == []
    assert validate(1.5, quantity, "q") == ["q: expected integer or string, got number 1.5"]
    both = {"allOf": [{"minimum": 1}, {"maximum": 2}], "type": "integer"}
    assert validate(3, both, "v") == ["v: 3 is above the maximum 2"]
    one = {"oneOf": [{"type": "integer"}, {"minimum": 0}]}
    assert validate(1, one, "v") == ["v: must match exactly one of oneOf, matches 2"]
    assert validate("x", {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}, "v")[0].startswith(
        "v: matches none of anyOf"
    )


def test_set_lists_reject_duplicates() -> None:
    schema = {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}
    assert validate(["a", "b", "a"], schema, "l") == ['l[2]: duplicate value "a" in a set list']


def test_required_with_a_default_may_be_absent() -> None:
    schema = {
        "type": "object",
        "required": ["a", "b"],
        "properties": {"a": {"type": "string", "default": "x"}},
    }
    assert validate({}, schema, "o") == ["o.b: required field is missing"]
