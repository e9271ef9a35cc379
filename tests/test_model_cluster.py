"""RayClusterSpec (``model/cluster.py``), manifests (``model/manifest.py``) and name rules (``_names.py``)."""

from __future__ import annotations

import copy
import types
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from _reference import crd_schema
from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi_kuberay.model import cluster as cluster_module
from pulumi_kuberay.model._base import KubeModel
from pulumi_kuberay.model._errors import ManifestError, problems_from_validation_error
from pulumi_kuberay.model._k8s import PodTemplateSpec, Toleration
from pulumi_kuberay.model._names import is_dns1035_label, name_problems
from pulumi_kuberay.model.cluster import (
    AuthOptions,
    AutoscalerOptions,
    GcsFaultToleranceOptions,
    HeadGroupSpec,
    RayClusterSpec,
    WorkerGroupSpec,
)
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
from pulumi_kuberay.model.pod import HARDENED_SECURITY_CONTEXT, SecretRef
from pydantic import BaseModel, ValidationError


def gpu_cluster() -> RayClusterSpec:
    """The README / module docstring example: a two-group GPU autoscaling cluster."""
    return RayClusterSpec(
        ray_version="2.52.0",
        image="rayproject/ray:2.52.0",
        enable_in_tree_autoscaling=True,
        autoscaler_options=AutoscalerOptions(version="v2"),
        head_group_spec=HeadGroupSpec(cpu=2, memory="8Gi", ray_start_params={"num-cpus": 0}),
        worker_group_specs=[
            WorkerGroupSpec(group_name="cpu", cpu=4, memory="16Gi", min_replicas=0, max_replicas=10),
            WorkerGroupSpec(
                group_name="gpu",
                image="rayproject/ray:2.52.0-gpu",
                cpu=8,
                memory="64Gi",
                gpu=1,
                min_replicas=0,
                max_replicas=4,
                tolerations=[Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")],
                node_selector={"cloud.google.com/gke-accelerator": "nvidia-l4"},
            ),
        ],
    )


def minimal_doc() -> dict[str, Any]:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "raycluster"},
        "spec": {
            "headGroupSpec": {
                "rayStartParams": {"num-cpus": "0"},
                "template": {
                    "spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.52.0"}]}
                },
            },
            "workerGroupSpecs": [
                {
                    "groupName": f"group-{i}",
                    "replicas": 1,
                    "minReplicas": 0,
                    "maxReplicas": 2,
                    "template": {
                        "spec": {"containers": [{"name": "ray-worker", "image": "rayproject/ray:2.52.0"}]}
                    },
                }
                for i in range(2)
            ],
        },
    }


def load_error(doc: Any) -> ManifestError:
    with pytest.raises(ManifestError) as info:
        load_manifest(doc)
    assert isinstance(info.value, ValueError)
    return info.value


# --------------------------------------------------------------------------------------------------
# The GPU example


def test_gpu_example_renders_the_expected_spec() -> None:
    head_ports = [
        {"containerPort": 6379, "name": "gcs-server"},
        {"containerPort": 8265, "name": "dashboard"},
        {"containerPort": 10001, "name": "client"},
        {"containerPort": 8000, "name": "serve"},
    ]
    assert gpu_cluster().to_dict() == {
        "rayVersion": "2.52.0",
        "enableInTreeAutoscaling": True,
        "autoscalerOptions": {"version": "v2", "securityContext": HARDENED_SECURITY_CONTEXT},
        "headGroupSpec": {
            "rayStartParams": {"num-cpus": "0"},
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "ray-head",
                            "image": "rayproject/ray:2.52.0",
                            "ports": head_ports,
                            "resources": {
                                "requests": {"cpu": 2, "memory": "8Gi"},
                                "limits": {"cpu": 2, "memory": "8Gi"},
                            },
                            "securityContext": HARDENED_SECURITY_CONTEXT,
                        }
                    ]
                }
            },
        },
        "workerGroupSpecs": [
            {
                "groupName": "cpu",
                "minReplicas": 0,
                "maxReplicas": 10,
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-worker",
                                "image": "rayproject/ray:2.52.0",
                                "resources": {
                                    "requests": {"cpu": 4, "memory": "16Gi"},
                                    "limits": {"cpu": 4, "memory": "16Gi"},
                                },
                                "securityContext": HARDENED_SECURITY_CONTEXT,
                            }
                        ]
                    }
                },
            },
            {
                "groupName": "gpu",
                "minReplicas": 0,
                "maxReplicas": 4,
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-worker",
                                "image": "rayproject/ray:2.52.0-gpu",
                                "resources": {
                                    "requests": {"cpu": 8, "memory": "64Gi", "nvidia.com/gpu": 1},
                                    "limits": {"cpu": 8, "memory": "64Gi", "nvidia.com/gpu": 1},
                                },
                                "securityContext": HARDENED_SECURITY_CONTEXT,
                            }
                        ],
                        "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"},
                        "tolerations": [
                            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
                        ],
                    }
                },
            },
        ],
    }


def test_gpu_example_is_in_the_module_docstring() -> None:
    doc = cluster_module.__doc__ or ""
    for fragment in (
        "enable_in_tree_autoscaling=True",
        'ray_start_params={"num-cpus": 0}',
        "gpu=1",
        'WorkerGroupSpec(group_name="cpu", cpu=4, memory="16Gi", min_replicas=0, max_replicas=10)',
    ):
        assert fragment in doc


def test_python_built_spec_loads_back_as_a_manifest() -> None:
    doc = RayClusterManifest(metadata=ObjectMeta(name="gpu"), spec=gpu_cluster()).to_manifest()
    assert load_manifest(doc).to_manifest() == doc


# --------------------------------------------------------------------------------------------------
# The model covers the CRD (every field, CRD spelling, enums as Literal)


def _model_of(annotation: Any) -> type[BaseModel] | None:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType) or origin is list:
        for arg in get_args(annotation):
            found = _model_of(arg)
            if found is not None:
                return found
        return None
    if get_origin(annotation) is not None and hasattr(annotation, "__origin__"):
        return _model_of(get_args(annotation)[0]) if get_args(annotation) else None
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _literal_values(annotation: Any) -> set[Any] | None:
    if get_origin(annotation) is Literal:
        return set(get_args(annotation))
    for arg in get_args(annotation):
        found = _literal_values(arg)
        if found is not None:
            return found
    return None


def _walk(model: type[BaseModel], schema: dict[str, Any], path: str, out: list[str]) -> None:
    if "items" in schema:
        schema = schema["items"]
    wire = {(info.alias or name): info for name, info in model.model_fields.items() if not info.exclude}
    props: dict[str, Any] = schema.get("properties", {})
    for key in sorted(set(props) - set(wire)):
        out.append(f"{path}.{key}: missing from {model.__name__}")
    for key in sorted(set(wire) - set(props)):
        out.append(f"{path}.{key}: not in the CRD ({model.__name__})")
    for key, info in wire.items():
        if key not in props:
            continue
        sub = props[key]
        enum = sub.get("enum") or sub.get("items", {}).get("enum")
        if enum is not None and _literal_values(info.annotation) != set(enum):
            out.append(f"{path}.{key}: enum {enum} is not Literal in {model.__name__}")
        required = key in schema.get("required", [])
        if not required and not info.is_required() and info.default is not None:
            out.append(f"{path}.{key}: optional field must default to None")
        nested = _model_of(info.annotation)
        if nested is not None and nested.__module__.endswith("cluster"):
            _walk(nested, sub, f"{path}.{key}", out)


def test_every_crd_field_of_the_spec_is_modelled() -> None:
    problems: list[str] = []
    _walk(RayClusterSpec, crd_schema("RayCluster")["properties"]["spec"], "spec", problems)
    assert problems == []


def test_required_fields() -> None:
    assert RayClusterSpec.model_fields["head_group_spec"].is_required()
    assert WorkerGroupSpec.model_fields["group_name"].is_required()


def test_explicit_alias_where_to_camel_differs() -> None:
    assert AuthOptions(enable_k8s_token_auth=True).to_dict() == {"enableK8sTokenAuth": True}
    assert AuthOptions.model_validate({"enableK8sTokenAuth": True}).enable_k8s_token_auth is True


def test_unknown_field_is_rejected_from_python() -> None:
    with pytest.raises(ValidationError, match="minRepicas"):
        WorkerGroupSpec.model_validate(
            {"groupName": "w", "minRepicas": 1, "template": {"spec": {"containers": []}}}
        )


# --------------------------------------------------------------------------------------------------
# rayStartParams (and group resources): stringified from Python, strict on the wire


def test_ray_start_params_are_stringified_from_python() -> None:
    head = HeadGroupSpec(
        image="i",
        ray_start_params={
            "num-cpus": 0,
            "block": True,
            "include-dashboard": False,
            "object-store-memory": 1e9,
            "temp-dir": "/tmp/ray",
            "x": 0.5,
        },
        resources={"CPU": 0, "GPU": 1},
    )
    assert head.ray_start_params == {
        "num-cpus": "0",
        "block": "true",
        "include-dashboard": "false",
        "object-store-memory": "1000000000",
        "temp-dir": "/tmp/ray",
        "x": "0.5",
    }
    assert head.to_dict()["resources"] == {"CPU": "0", "GPU": "1"}


def test_ray_start_params_stringified_via_model_validate_from_python_too() -> None:
    spec = RayClusterSpec.model_validate(
        {
            "headGroupSpec": {
                "rayStartParams": {"num-cpus": 0},
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "i"}]}},
            }
        }
    )
    assert spec.head_group_spec.ray_start_params == {"num-cpus": "0"}


def test_non_string_ray_start_param_in_a_manifest_is_a_wrong_type() -> None:
    doc = minimal_doc()
    doc["spec"]["headGroupSpec"]["rayStartParams"] = {"num-cpus": 0, "block": True}
    doc["spec"]["workerGroupSpecs"][1]["resources"] = {"GPU": 1}
    error = load_error(doc)
    assert [(p.path, p.kind, p.message, p.fix) for p in error.problems] == [
        (
            "spec.headGroupSpec.rayStartParams.num-cpus",
            "wrong_type",
            "expected a string, got int 0",
            'quote the value: "0"',
        ),
        (
            "spec.headGroupSpec.rayStartParams.block",
            "wrong_type",
            "expected a string, got bool True",
            'write "true"',
        ),
        (
            "spec.workerGroupSpecs[1].resources.GPU",
            "wrong_type",
            "expected a string, got int 1",
            'quote the value: "1"',
        ),
    ]


def test_non_scalar_ray_start_param_is_a_wrong_type_from_python() -> None:
    with pytest.raises(ValidationError) as info:
        HeadGroupSpec(image="i", ray_start_params={"resources": {"TPU": 4}})
    (problem,) = problems_from_validation_error(info.value, HeadGroupSpec)
    assert (problem.path, problem.kind) == ("rayStartParams.resources", "wrong_type")


# --------------------------------------------------------------------------------------------------
# Cross-field checks


@pytest.mark.parametrize(
    ("group", "path", "message", "fix"),
    [
        (
            {"minReplicas": 4, "maxReplicas": 2},
            "minReplicas",
            "minReplicas (4) > maxReplicas (2) in worker group 'group-1'",
            "lower minReplicas to at most 2 or raise maxReplicas to at least 4",
        ),
        (
            {"minReplicas": -1},
            "minReplicas",
            "minReplicas (-1) < 0 in worker group 'group-1'",
            "set minReplicas to 0 or more",
        ),
        (
            {"maxReplicas": -3, "minReplicas": 0, "replicas": 0},
            "maxReplicas",
            "maxReplicas (-3) < 0 in worker group 'group-1'",
            "set maxReplicas to 0 or more",
        ),
    ],
)
def test_replica_bounds_in_a_manifest(group: dict[str, Any], path: str, message: str, fix: str) -> None:
    doc = minimal_doc()
    doc["spec"]["workerGroupSpecs"][1].update(group)
    error = load_error(doc)
    assert [(p.path, p.kind, p.message, p.fix) for p in error.problems] == [
        (f"spec.workerGroupSpecs[1].{path}", "invalid_value", message, fix)
    ]
    assert f"spec.workerGroupSpecs[1].{path}: {message}" in str(error)


@pytest.mark.parametrize("group", [{"replicas": 5}, {"minReplicas": 3, "replicas": 1, "maxReplicas": 5}])
def test_replicas_outside_the_bounds_load_kuberay_clamps_them(group: dict[str, Any]) -> None:
    # GetWorkerGroupDesiredReplicas clamps; the operator accepts it (tests/oracle), rule worker-replicas-clamped.
    doc = minimal_doc()
    doc["spec"]["workerGroupSpecs"][1].update(group)
    assert load_manifest(doc).spec.worker_group_specs[1].replicas == group["replicas"]


def test_replica_bounds_use_crd_defaults_when_omitted() -> None:
    WorkerGroupSpec(group_name="w", image="i", replicas=7)  # min 0, max 2147483647
    with pytest.raises(ValidationError, match=r"minReplicas \(3\) > maxReplicas \(2\)"):
        WorkerGroupSpec(group_name="w", image="i", min_replicas=3, max_replicas=2)


def test_min_max_optional_like_the_crd_defaults_allow() -> None:
    doc = minimal_doc()
    for key in ("minReplicas", "maxReplicas", "replicas"):
        del doc["spec"]["workerGroupSpecs"][0][key]
    assert load_manifest(doc).to_manifest() == doc


def test_duplicate_group_names_are_left_to_the_webhook_aware_rule() -> None:
    # Only KubeRay's (default-off) webhook refuses them (tests/oracle): rule worker-group-names-unique decides.
    doc = minimal_doc()
    doc["spec"]["workerGroupSpecs"][1]["groupName"] = "group-0"
    assert load_manifest(doc).spec.worker_group_specs[1].group_name == "group-0"
    spec = RayClusterSpec(
        image="i",
        head_group_spec=HeadGroupSpec(),
        worker_group_specs=[WorkerGroupSpec(group_name="a"), WorkerGroupSpec(group_name="a")],
    )
    assert [g.group_name for g in spec.worker_group_specs or []] == ["a", "a"]


def test_missing_template_and_shortcuts_from_python() -> None:
    with pytest.raises(ValidationError) as info:
        RayClusterSpec(head_group_spec=HeadGroupSpec(ray_start_params={"num-cpus": 0}))
    (problem,) = problems_from_validation_error(info.value, RayClusterSpec)
    assert problem.path == "headGroupSpec.template"
    assert problem.message.startswith("headGroupSpec.template: set template or image/cpu/memory")
    with pytest.raises(ValidationError) as info:
        RayClusterSpec(
            head_group_spec=HeadGroupSpec(image="i"), worker_group_specs=[WorkerGroupSpec(group_name="w")]
        )
    assert (
        problems_from_validation_error(info.value, RayClusterSpec)[0].path == "workerGroupSpecs[0].template"
    )


def test_missing_template_in_a_manifest_is_a_missing_field() -> None:
    doc = minimal_doc()
    del doc["spec"]["workerGroupSpecs"][1]["template"]
    del doc["spec"]["headGroupSpec"]["template"]
    error = load_error(doc)
    assert [(p.path, p.kind) for p in error.problems] == [
        ("spec.headGroupSpec.template", "missing"),
        ("spec.workerGroupSpecs[1].template", "missing"),
    ]


def test_shortcuts_without_any_image_is_an_error() -> None:
    with pytest.raises(ValidationError) as info:
        RayClusterSpec(head_group_spec=HeadGroupSpec(cpu=1))
    (problem,) = problems_from_validation_error(info.value, RayClusterSpec)
    assert (problem.path, problem.message) == (
        "headGroupSpec.image",
        "headGroupSpec.image: the Ray container has no image",
    )


# --------------------------------------------------------------------------------------------------
# Cluster-wide image


def test_cluster_image_is_a_default_only() -> None:
    template = PodTemplateSpec.model_validate({"spec": {"containers": [{"name": "ray-worker"}]}})
    spec = RayClusterSpec(
        image="default:1",
        head_group_spec=HeadGroupSpec(),
        worker_group_specs=[
            WorkerGroupSpec(group_name="own", image="own:1"),
            WorkerGroupSpec(group_name="templated", template=template),
            WorkerGroupSpec(group_name="bare"),
        ],
    )
    rendered = spec.to_dict()
    images = [g["template"]["spec"]["containers"][0]["image"] for g in rendered["workerGroupSpecs"]]
    assert images == ["own:1", "default:1", "default:1"]
    head = rendered["headGroupSpec"]["template"]["spec"]["containers"][0]
    assert (head["name"], head["image"], len(head["ports"])) == ("ray-head", "default:1", 4)
    assert "image" not in rendered


def test_shared_group_instance_is_not_mutated_by_a_cluster_image() -> None:
    shared = WorkerGroupSpec(group_name="w", cpu=1)
    a = RayClusterSpec(image="a:1", head_group_spec=HeadGroupSpec(), worker_group_specs=[shared])
    b = RayClusterSpec(image="b:1", head_group_spec=HeadGroupSpec(), worker_group_specs=[shared])
    assert shared.to_dict()["template"]["spec"]["containers"][0].get("image") is None
    assert a.to_dict()["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["image"] == "a:1"
    assert b.to_dict()["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["image"] == "b:1"


def test_cluster_image_in_a_manifest_is_unknown() -> None:
    doc = minimal_doc()
    doc["spec"]["image"] = "x"
    error = load_error(doc)
    assert [(p.path, p.kind) for p in error.problems] == [("spec.image", "unknown_field")]


# --------------------------------------------------------------------------------------------------
# Options


def test_gcs_fault_tolerance_with_secret_ref_password() -> None:
    options = GcsFaultToleranceOptions(
        redis_address="redis:6379", redis_password=SecretRef("redis-password-secret", "password")
    )
    assert options.to_dict() == {
        "redisAddress": "redis:6379",
        "redisPassword": {
            "valueFrom": {"secretKeyRef": {"name": "redis-password-secret", "key": "password"}}
        },
    }


def test_enums_are_checked() -> None:
    doc = minimal_doc()
    doc["spec"]["autoscalerOptions"] = {"version": "v3", "upscalingMode": "Fast"}
    doc["spec"]["managedBy"] = "someone-else"
    error = load_error(doc)
    assert sorted(error.paths) == [
        "spec.autoscalerOptions.upscalingMode",
        "spec.autoscalerOptions.version",
        "spec.managedBy",
    ]
    assert {p.kind for p in error.problems} == {"invalid_value"}


def test_every_option_block_round_trips() -> None:
    doc = minimal_doc()
    doc["spec"].update(
        {
            "enableInTreeAutoscaling": True,
            "autoscalerOptions": {
                "version": "v2",
                "upscalingMode": "Default",
                "idleTimeoutSeconds": 60,
                "image": "a",
                "imagePullPolicy": "Always",
                "command": ["/bin/bash", "-c"],
                "args": ["$KUBERAY_GEN_AUTOSCALER_START_CMD"],
                "resources": {"limits": {"cpu": "500m"}},
                "env": [{"name": "A", "value": "1"}],
                "envFrom": [{"configMapRef": {"name": "cm"}}],
                "volumeMounts": [{"name": "v", "mountPath": "/v"}],
                "securityContext": {"runAsNonRoot": True},
            },
            "suspend": False,
            "managedBy": "ray.io/kuberay-operator",
            "headServiceAnnotations": {"a": "b"},
            "gcsFaultToleranceOptions": {
                "backend": "rocksdb",
                "storage": {
                    "size": "1Gi",
                    "storageClassName": "s",
                    "accessModes": ["ReadWriteOnce"],
                    "subPath": "gcs",
                    "deletionPolicy": "Retain",
                },
            },
            "authOptions": {"mode": "token", "secretName": "tok", "enableK8sTokenAuth": False},
            "upgradeStrategy": {"type": "Recreate"},
            "networkPolicy": {
                "mode": "DenyAllEgress",
                "head": {"egressRules": [{"ports": [{"port": 53, "protocol": "UDP"}]}]},
                "worker": {"ingressRules": [{"from": [{"podSelector": {"matchLabels": {"a": "b"}}}]}]},
                "workerGroups": [
                    {
                        "groupName": "group-0",
                        "egressRules": [
                            {"to": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}}]}
                        ],
                    }
                ],
            },
            "tlsOptions": {"enabled": True},
            "historyServerOptions": {
                "collectorOptions": {
                    "image": "c",
                    "imagePullPolicy": "IfNotPresent",
                    "resources": {"requests": {"cpu": "50m"}},
                    "env": [{"name": "STORAGE_BACKEND", "value": "GCS"}],
                }
            },
        }
    )
    doc["spec"]["headGroupSpec"].update(
        {
            "serviceType": "ClusterIP",
            "enableIngress": True,
            "ingressOptions": {
                "host": "h",
                "path": "/",
                "pathType": "Prefix",
                "tls": [{"hosts": ["h"], "secretName": "t"}],
            },
            "headService": {"metadata": {"name": "svc"}, "spec": {"ports": [{"name": "x", "port": 1}]}},
            "labels": {"ray.io/market-type": "on-demand"},
        }
    )
    doc["spec"]["workerGroupSpecs"][0].update(
        {
            "numOfHosts": 2,
            "idleTimeoutSeconds": 30,
            "priority": 1,
            "suspend": False,
            "scaleStrategy": {"workersToDelete": ["p"]},
            "resources": {"GPU": "1"},
            "labels": {"a": "b"},
        }
    )
    manifest = load_manifest(doc)
    assert manifest.to_manifest() == doc
    assert manifest.spec.gcs_fault_tolerance_options.storage.deletion_policy == "Retain"
    assert manifest.spec.network_policy.worker_groups[0].group_name == "group-0"


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
