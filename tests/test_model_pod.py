"""Convenience pod fields (``model/pod.py``): rendering into the Ray container, conflicts, wire strictness."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_kuberay.model._errors import ManifestError, problems_from_validation_error
from pulumi_kuberay.model._k8s import PodTemplateSpec, Toleration
from pulumi_kuberay.model.cluster import HeadGroupSpec, RayClusterSpec, WorkerGroupSpec
from pulumi_kuberay.model.manifest import load_manifest
from pulumi_kuberay.model.pod import HARDENED_SECURITY_CONTEXT, WIRE_CONTEXT, SecretRef, cpu_quantity
from pydantic import ValidationError


def _ray_container(group: HeadGroupSpec | WorkerGroupSpec) -> dict[str, Any]:
    template = group.to_dict()["template"]
    container: dict[str, Any] = template["spec"]["containers"][0]
    return container


def _template(**container: Any) -> PodTemplateSpec:
    return PodTemplateSpec.model_validate({"spec": {"containers": [{"name": "ray-worker", **container}]}})


# --------------------------------------------------------------------------------------------------
# SecretRef and quantities


def test_secret_ref_positional_and_rendering() -> None:
    ref = SecretRef("redis-secret", "password")
    assert (ref.name, ref.key, ref.optional) == ("redis-secret", "password", None)
    assert ref.value_from() == {"secretKeyRef": {"name": "redis-secret", "key": "password"}}
    assert SecretRef("s", "k", optional=True).value_from() == {
        "secretKeyRef": {"name": "s", "key": "k", "optional": True}
    }


def test_secret_ref_validates_from_dict_and_keywords() -> None:
    assert SecretRef.model_validate({"name": "s", "key": "k"}) == SecretRef("s", "k")
    assert SecretRef(name="s", key="k") == SecretRef("s", "k")
    with pytest.raises(ValidationError, match="key"):
        SecretRef("s")


@pytest.mark.parametrize(
    ("given", "rendered"),
    [(2, 2), (2.0, 2), (0.5, "500m"), (1.25, "1250m"), ("500m", "500m"), ("2", "2")],
)
def test_cpu_quantity(given: Any, rendered: Any) -> None:
    assert cpu_quantity(given) == rendered


def test_cpu_finer_than_a_millicore_is_an_error() -> None:
    with pytest.raises(ValidationError, match=r"cpu \(0\.0005\) is finer than a millicore"):
        WorkerGroupSpec(group_name="w", image="i", cpu=0.0005)


# --------------------------------------------------------------------------------------------------
# Rendering from scratch


def test_worker_template_from_shortcuts() -> None:
    group = WorkerGroupSpec(
        group_name="gpu",
        image="rayproject/ray:2.52.0-gpu",
        image_pull_policy="IfNotPresent",
        cpu=8,
        memory="64Gi",
        gpu=1,
        env={"LOG_LEVEL": "debug", "HF_TOKEN": SecretRef("hf", "token")},
        node_selector={"cloud.google.com/gke-accelerator": "nvidia-l4"},
        tolerations=[Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")],
        service_account="ray-workload",
        min_replicas=0,
        max_replicas=4,
    )
    assert group.to_dict() == {
        "groupName": "gpu",
        "minReplicas": 0,
        "maxReplicas": 4,
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "ray-worker",
                        "image": "rayproject/ray:2.52.0-gpu",
                        "imagePullPolicy": "IfNotPresent",
                        "resources": {
                            "requests": {"cpu": 8, "memory": "64Gi", "nvidia.com/gpu": 1},
                            "limits": {"cpu": 8, "memory": "64Gi", "nvidia.com/gpu": 1},
                        },
                        "env": [
                            {"name": "LOG_LEVEL", "value": "debug"},
                            {
                                "name": "HF_TOKEN",
                                "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}},
                            },
                        ],
                        "securityContext": HARDENED_SECURITY_CONTEXT,
                    }
                ],
                "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"},
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "serviceAccountName": "ray-workload",
            }
        },
    }


def test_convenience_fields_are_never_rendered_themselves() -> None:
    group = WorkerGroupSpec(group_name="w", image="i", cpu=1, memory="1Gi", gpu=1, env={"A": "b"})
    rendered = group.to_dict()
    for key in ("image", "cpu", "memory", "gpu", "gpuResource", "gpu_resource", "env", "nodeSelector"):
        assert key not in rendered


def test_gpu_resource_name() -> None:
    group = WorkerGroupSpec(group_name="w", image="i", gpu=2, gpu_resource="amd.com/gpu")
    assert _ray_container(group)["resources"] == {
        "requests": {"amd.com/gpu": 2},
        "limits": {"amd.com/gpu": 2},
    }


def test_gpu_resource_without_gpu_is_an_error() -> None:
    with pytest.raises(ValidationError, match="gpu_resource is set but gpu is not"):
        WorkerGroupSpec(group_name="w", image="i", gpu_resource="amd.com/gpu")


def test_fractional_cpu_renders_millicores() -> None:
    group = WorkerGroupSpec(group_name="w", image="i", cpu=0.5)
    assert _ray_container(group)["resources"]["limits"] == {"cpu": "500m"}


def test_head_from_scratch_gets_standard_ports() -> None:
    head = HeadGroupSpec(image="rayproject/ray:2.52.0", cpu=1)
    container = _ray_container(head)
    assert container["name"] == "ray-head"
    assert container["ports"] == [
        {"containerPort": 6379, "name": "gcs-server"},
        {"containerPort": 8265, "name": "dashboard"},
        {"containerPort": 10001, "name": "client"},
        {"containerPort": 8000, "name": "serve"},
    ]


def test_extra_ports_are_added_to_the_defaults() -> None:
    head = HeadGroupSpec(image="i", ports={"metrics": 8080})
    assert {"containerPort": 8080, "name": "metrics"} in _ray_container(head)["ports"]
    assert len(_ray_container(head)["ports"]) == 5


def test_worker_from_scratch_declares_no_ports() -> None:
    assert "ports" not in _ray_container(WorkerGroupSpec(group_name="w", image="i"))


# --------------------------------------------------------------------------------------------------
# Merging into a given template


def test_shortcuts_fill_the_ray_container_of_a_template() -> None:
    template = PodTemplateSpec.model_validate(
        {
            "metadata": {"labels": {"team": "ml"}},
            "spec": {
                "containers": [
                    {"name": "ray-worker", "env": [{"name": "A", "value": "1"}]},
                    {"name": "sidecar", "image": "fluent/fluent-bit:1.9.6"},
                ],
                "nodeSelector": {"zone": "a"},
            },
        }
    )
    group = WorkerGroupSpec(
        group_name="w",
        template=template,
        image="rayproject/ray:2.52.0",
        cpu=2,
        env={"B": "2"},
        node_selector={"pool": "cpu"},
    )
    rendered = group.to_dict()["template"]
    assert rendered["metadata"] == {"labels": {"team": "ml"}}
    assert rendered["spec"]["nodeSelector"] == {"zone": "a", "pool": "cpu"}
    ray, sidecar = rendered["spec"]["containers"]
    assert sidecar == {"name": "sidecar", "image": "fluent/fluent-bit:1.9.6"}
    assert ray == {
        "name": "ray-worker",
        "image": "rayproject/ray:2.52.0",
        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        "resources": {"requests": {"cpu": 2}, "limits": {"cpu": 2}},
        "securityContext": HARDENED_SECURITY_CONTEXT,
    }
    assert "ports" not in ray  # a given template keeps its own ports


def test_the_given_template_object_is_not_mutated() -> None:
    template = _template(image="a")
    WorkerGroupSpec(group_name="w", template=template, cpu=2)
    assert template.to_dict() == {"spec": {"containers": [{"name": "ray-worker", "image": "a"}]}}


def test_same_value_in_template_and_shortcut_is_fine() -> None:
    group = WorkerGroupSpec(
        group_name="w",
        template=_template(image="a", resources={"limits": {"cpu": "2"}, "requests": {"cpu": "2"}}),
        image="a",
        cpu=2,
    )
    assert _ray_container(group)["resources"] == {"limits": {"cpu": "2"}, "requests": {"cpu": "2"}}


def test_conflicting_image_names_both_paths() -> None:
    with pytest.raises(ValidationError) as info:
        WorkerGroupSpec(group_name="w", template=_template(image="a"), image="b")
    (problem,) = problems_from_validation_error(info.value, WorkerGroupSpec)
    assert problem.path == "image"
    assert problem.message == "image ('b') conflicts with template.spec.containers[0].image ('a')"
    assert problem.fix == "set it in one place only: drop image or change template.spec.containers[0].image"


def test_conflicting_cpu_limit() -> None:
    with pytest.raises(
        ValidationError,
        match=r"cpu \(4\) conflicts with "
        r"template\.spec\.containers\[0\]\.resources\.requests\['cpu'\] \('2'\)",
    ):
        WorkerGroupSpec(group_name="w", template=_template(resources={"requests": {"cpu": "2"}}), cpu=4)


def test_conflicting_env() -> None:
    with pytest.raises(
        ValidationError, match=r"env\['A'\] conflicts with template\.spec\.containers\[0\]\.env\[0\]"
    ):
        WorkerGroupSpec(group_name="w", template=_template(env=[{"name": "A", "value": "1"}]), env={"A": "2"})


def test_conflicting_service_account_and_node_selector() -> None:
    base = {"spec": {"containers": [{"name": "r"}], "serviceAccountName": "a", "nodeSelector": {"k": "v"}}}
    template = PodTemplateSpec.model_validate(base)
    with pytest.raises(
        ValidationError,
        match=r"service_account \('b'\) conflicts with "
        r"template\.spec\.serviceAccountName \('a'\)",
    ):
        WorkerGroupSpec(group_name="w", template=template, service_account="b")
    with pytest.raises(
        ValidationError,
        match=r"node_selector \('w'\) conflicts with "
        r"template\.spec\.nodeSelector\['k'\] \('v'\)",
    ):
        WorkerGroupSpec(group_name="w", template=template, node_selector={"k": "w"})


def test_conflicting_port() -> None:
    template = _template(ports=[{"name": "serve", "containerPort": 8000}])
    with pytest.raises(
        ValidationError, match=r"ports\['serve'\] \(9000\) conflicts with .*ports\[0\] \(8000\)"
    ):
        WorkerGroupSpec(group_name="w", template=template, ports={"serve": 9000})


def test_template_without_containers_gets_the_ray_container() -> None:
    template = PodTemplateSpec.model_validate({"spec": {"containers": []}})
    group = WorkerGroupSpec(group_name="w", template=template, image="i")
    assert group.to_dict()["template"] == {
        "spec": {"containers": [{"name": "ray-worker", "image": "i", "securityContext": HARDENED_SECURITY_CONTEXT}]}
    }


def test_tolerations_are_not_duplicated() -> None:
    toleration = {"key": "gpu", "operator": "Exists"}
    template = PodTemplateSpec.model_validate(
        {"spec": {"containers": [{"name": "r"}], "tolerations": [toleration]}}
    )
    group = WorkerGroupSpec(
        group_name="w", template=template, tolerations=[Toleration(key="gpu", operator="Exists")]
    )
    assert group.to_dict()["template"]["spec"]["tolerations"] == [toleration]


def test_tolerations_accept_dicts_from_python() -> None:
    group = WorkerGroupSpec(group_name="w", image="i", tolerations=[{"key": "gpu", "operator": "Exists"}])
    assert group.to_dict()["template"]["spec"]["tolerations"] == [{"key": "gpu", "operator": "Exists"}]


# --------------------------------------------------------------------------------------------------
# Python-only: convenience fields are unknown fields in a manifest


@pytest.mark.parametrize("field", ["image", "cpu", "memory", "gpu", "env", "nodeSelector", "serviceAccount"])
def test_convenience_fields_are_unknown_on_the_wire(field: str) -> None:
    value: Any = {
        "image": "x",
        "cpu": 1,
        "memory": "1Gi",
        "gpu": 1,
        "env": {"A": "b"},
        "nodeSelector": {"a": "b"},
        "serviceAccount": "sa",
    }[field]
    with pytest.raises(ValidationError) as info:
        WorkerGroupSpec.model_validate(
            {"groupName": "w", "template": {"spec": {"containers": [{"name": "r"}]}}, field: value},
            context=WIRE_CONTEXT,
        )
    (problem,) = problems_from_validation_error(info.value, WorkerGroupSpec)
    assert problem.kind == "unknown_field"
    assert problem.path == field
    assert problem.message == f"unknown field {field!r} (the API server would silently drop it)"


def test_convenience_field_in_a_manifest_names_the_crd_path() -> None:
    doc = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "c"},
        "spec": {"headGroupSpec": {"image": "x", "template": {"spec": {"containers": [{"name": "r"}]}}}},
    }
    with pytest.raises(ManifestError) as info:
        load_manifest(doc)
    assert info.value.paths == ["spec.headGroupSpec.image"]
    assert info.value.problems[0].kind == "unknown_field"


def test_secret_values_never_enter_the_cr() -> None:
    spec = RayClusterSpec(image="i", head_group_spec=HeadGroupSpec(env={"TOKEN": SecretRef("tok", "token")}))
    env = spec.to_dict()["headGroupSpec"]["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "tok", "key": "token"}}}]


@pytest.mark.parametrize(("bad", "suggested"), [("8GB", "8Gi"), ("512 MiB", "512Mi"), ("1.5tb", "1.5Ti")])
def test_a_size_with_a_byte_unit_gets_the_binary_spelling_which_is_valid(bad: str, suggested: str) -> None:
    from pulumi_kuberay.model._errors import SpecError
    from pulumi_kuberay.model.pod import check_quantity

    with pytest.raises(SpecError) as info:
        check_quantity(bad, "memory")
    assert (info.value.fix or "").startswith(f'write "{suggested}" ('), info.value.fix
    assert check_quantity(suggested, "memory") == suggested


def test_a_cpu_fix_offers_no_size() -> None:
    from pulumi_kuberay.model._errors import SpecError
    from pulumi_kuberay.model.pod import check_quantity

    with pytest.raises(SpecError) as info:
        check_quantity("two", "cpu")
    assert "Gi" not in (info.value.fix or "") and "500m" in (info.value.fix or "")
    assert check_quantity("500m", "cpu") == "500m"


@pytest.mark.parametrize(
    ("key", "value", "fix"),
    [
        ("cpu", True, 'write e.g. "500m" (half a core) or 2'),
        ("memory", True, 'write a size, e.g. "512Mi" or "16Gi"'),
        ("memory", "8GB", 'write "8Gi" (8 x 2^30 bytes; "8G" means 8 x 10^9)'),
        ("cpu", "lots", 'write e.g. "500m" (half a core) or 2'),
        ("nvidia.com/gpu", "one", "write a whole number of units, e.g. 1"),
    ],
)
def test_a_bad_amount_in_raw_resources_gets_the_fix_of_its_kind(key: str, value: object, fix: str) -> None:
    # A boolean is no amount, and "true" no quantity: the fix names what the key counts (cores, bytes, units).
    from pulumi_kuberay.model import _k8s
    from pulumi_kuberay.model._errors import ManifestError, validate_as

    with pytest.raises(ManifestError) as caught:
        validate_as(_k8s.ResourceRequirements, {"limits": {key: value}})
    assert [problem.fix for problem in caught.value.problems] == [fix]
