"""RayClusterSpec (``model/cluster.py``): the README example, the CRD fields, rayStartParams, replica bounds,
shortcuts and the option blocks. Manifests and names: ``test_model_manifest.py``."""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from _examples import gpu_cluster, load_error, minimal_doc
from _reference import crd_schema
from pulumi_kuberay import rules
from pulumi_kuberay.model import cluster as cluster_module
from pulumi_kuberay.model._errors import problems_from_validation_error
from pulumi_kuberay.model._k8s import PodTemplateSpec
from pulumi_kuberay.model.cluster import (
    AuthOptions,
    GcsFaultToleranceOptions,
    HeadGroupSpec,
    RayClusterSpec,
    WorkerGroupSpec,
)
from pulumi_kuberay.model.manifest import (
    ObjectMeta,
    RayClusterManifest,
    load_manifest,
)
from pulumi_kuberay.model.pod import HARDENED_SECURITY_CONTEXT, SecretRef
from pydantic import BaseModel, ValidationError

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
        HeadGroupSpec(image="i", ray_start_params={"resources": {"TPU": 4}})  # type: ignore[dict-item]  # the point
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
    # The CRD has no bound: the API server stores it and only the operator refuses it (ValidateRayClusterSpec),
    # so a manifest loads and the rule reports it; from Python (the components' args) it is refused at once.
    doc = minimal_doc()
    doc["spec"]["workerGroupSpecs"][1].update(group)
    assert load_manifest(doc).to_manifest() == doc
    rule = "worker-min-exceeds-max" if "minReplicas (4)" in message else "worker-replicas-negative"
    found = [(f.rule_id, f.path) for f in rules.check(doc) if f.severity == "critical"]
    assert found[0] == (rule, f"spec.workerGroupSpecs[1].{path}")  # (maxReplicas -3 is also below minReplicas 0)
    with pytest.raises(ValidationError) as info:
        RayClusterSpec.model_validate(doc["spec"])
    (problem,) = problems_from_validation_error(info.value, RayClusterSpec)
    assert (problem.path, problem.message, problem.fix) == (f"workerGroupSpecs[1].{path}", message, fix)


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


