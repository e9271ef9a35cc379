"""The group knobs and the API polish of the model (pure: no pulumi).

Each knob renders exactly what a hand-written template would, round-trips through ``load_manifest`` and is
judged by the catalogue; the secure defaults; ``ray_start_params`` numbers; "did you mean" for typed
keywords; a model built with a value not known yet.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.model._errors import ManifestError
from pulumi_kuberay.model._k8s import PodTemplateSpec
from pulumi_kuberay.model.cluster import HeadGroupSpec, RayClusterSpec, WorkerGroupSpec
from pulumi_kuberay.model.cronjob import RayCronJobSpec
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.model.manifest import load_manifest
from pulumi_kuberay.model.pod import HARDENED_SECURITY_CONTEXT
from pydantic import ValidationError

IMAGE = "rayproject/ray:2.52.0"
RESOURCES = {"requests": {"cpu": 1, "memory": "4Gi"}, "limits": {"cpu": 1, "memory": "4Gi"}}

#: knob -> (value, what a hand-written template holds: pod-level keys, Ray-container keys, template metadata)
KNOBS: dict[str, tuple[Any, dict[str, Any], dict[str, Any], dict[str, Any]]] = {
    "volumes": (
        [{"name": "data", "persistentVolumeClaim": {"claimName": "datasets"}}],
        {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "datasets"}}]},
        {},
        {},
    ),
    "volume_mounts": (
        [{"name": "data", "mountPath": "/data", "readOnly": True}],
        {},
        {"volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": True}]},
        {},
    ),
    "env_from": (
        [{"configMapRef": {"name": "ray-env"}}, {"secretRef": {"name": "ray-secrets"}}],
        {},
        {"envFrom": [{"configMapRef": {"name": "ray-env"}}, {"secretRef": {"name": "ray-secrets"}}]},
        {},
    ),
    "image_pull_secrets": (["registry"], {"imagePullSecrets": [{"name": "registry"}]}, {}, {}),
    "affinity": (
        {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}]}},
        {"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}]}}},
        {},
        {},
    ),
    "pod_labels": ({"team": "ml"}, {}, {}, {"labels": {"team": "ml"}}),
    "pod_annotations": (
        {"sidecar.istio.io/inject": "false"}, {}, {}, {"annotations": {"sidecar.istio.io/inject": "false"}}
    ),
    "priority_class_name": ("high", {"priorityClassName": "high"}, {}, {}),
    "service_account": ("ray-sa", {"serviceAccountName": "ray-sa"}, {}, {}),
    "shm_size": (
        "8Gi",
        {"volumes": [{"name": "shared-mem", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}]},
        {"volumeMounts": [{"name": "shared-mem", "mountPath": "/dev/shm"}]},
        {},
    ),
    "security_context": (
        {"runAsNonRoot": True, "runAsUser": 2000, "allowPrivilegeEscalation": False,
         "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}},
        {},
        {"securityContext": {"runAsNonRoot": True, "runAsUser": 2000, "allowPrivilegeEscalation": False,
                             "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}},
        {},
    ),
}
SIDECAR = {"name": "logs", "image": "fluent/fluent-bit:3.0.0", "resources": RESOURCES,
           "securityContext": HARDENED_SECURITY_CONTEXT}


def hand_written(pod: dict[str, Any], container: dict[str, Any], meta: dict[str, Any],
                 sidecars: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    ray = {"name": "ray-worker", "image": IMAGE, "resources": RESOURCES,
           "securityContext": HARDENED_SECURITY_CONTEXT, **container}
    template: dict[str, Any] = {"spec": {"containers": [ray, *(sidecars or [])], **pod}}
    if meta:
        template["metadata"] = meta
    return template


def group(**knobs: Any) -> WorkerGroupSpec:
    return WorkerGroupSpec(group_name="w", image=IMAGE, cpu=1, memory="4Gi", min_replicas=0, max_replicas=2,
                           **knobs)


def cluster_manifest(worker: WorkerGroupSpec) -> dict[str, Any]:
    spec = RayClusterSpec(ray_version="2.52.0", head_group_spec=HeadGroupSpec(image=IMAGE, cpu=1, memory="4Gi"),
                          worker_group_specs=[worker])
    return {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "c"}, "spec": spec.to_dict()}


@pytest.mark.parametrize("knob", list(KNOBS))
def test_each_knob_renders_what_a_hand_written_template_would_and_round_trips(knob: str) -> None:
    value, pod, container, meta = KNOBS[knob]
    rendered = group(**{knob: value}).to_dict()["template"]
    assert rendered == hand_written(pod, container, meta)
    manifest = cluster_manifest(group(**{knob: value}))
    assert load_manifest(copy.deepcopy(manifest)).to_manifest() == manifest
    # A sound value is not judged; a mount needs its volume (Pod validation refuses a mount that names no volume:
    # pod-volume-invalid), so volume_mounts is judged with the volumes knob beside it.
    beside = {"volumes": KNOBS["volumes"][0]} if knob == "volume_mounts" else {}
    assert rules.check(cluster_manifest(group(**{knob: value}, **beside))) == []


def test_sidecar_containers_follow_the_ray_container() -> None:
    rendered = group(sidecar_containers=[SIDECAR]).to_dict()["template"]
    assert rendered == hand_written({}, {}, {}, sidecars=[SIDECAR])
    manifest = cluster_manifest(group(sidecar_containers=[SIDECAR]))
    assert load_manifest(copy.deepcopy(manifest)).to_manifest() == manifest


def test_object_store_memory_sets_the_ray_parameter_in_bytes_and_the_shm_volume() -> None:
    worker = group(object_store_memory="2Gi").to_dict()
    assert worker["rayStartParams"] == {"object-store-memory": str(2 * 2**30)}
    volumes = worker["template"]["spec"]["volumes"]
    assert volumes == [{"name": "shared-mem", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}}]
    sized = group(object_store_memory="2Gi", shm_size="3Gi").to_dict()["template"]["spec"]["volumes"]
    assert sized[0]["emptyDir"]["sizeLimit"] == "3Gi"
    with pytest.raises(ValidationError, match="conflicts with ray_start_params"):
        group(object_store_memory="2Gi", ray_start_params={"object-store-memory": 5})
    with pytest.raises(ValidationError, match="object_store_memory 'lots' is not a Kubernetes quantity"):
        group(object_store_memory="lots")


def test_the_catalogue_judges_what_the_knobs_render() -> None:
    host = cluster_manifest(group(volumes=[{"name": "h", "hostPath": {"path": "/var"}}]))
    assert "pod-security-baseline" in {f.rule_id for f in rules.check(host)}
    loose = cluster_manifest(group(security_context={"privileged": True}))
    ids = {f.rule_id for f in rules.check(loose)}
    assert {"pod-security-baseline", "pod-security-restricted"} <= ids
    bare_sidecar = {"name": "logs", "image": "fluent/fluent-bit:latest"}
    sidecar = cluster_manifest(group(sidecar_containers=[bare_sidecar]))
    checked = rules.check(sidecar)
    findings = {(f.rule_id, f.path) for f in checked}
    assert ("image-tag-not-pinned", "spec.workerGroupSpecs[0].template.spec.containers[1].image") in findings
    assert any(f.rule_id == "pod-security-restricted" and "container logs:" in f.message for f in checked)


def test_a_knob_that_contradicts_the_template_is_named() -> None:
    template = PodTemplateSpec.model_validate({"spec": {"containers": [{"name": "ray-worker"}],
                                                        "priorityClassName": "low"}})
    with pytest.raises(ValidationError, match=r"priority_class_name \('high'\) conflicts with"):
        WorkerGroupSpec(group_name="w", template=template, image=IMAGE, priority_class_name="high")
    with pytest.raises(ValidationError, match="volumes entry 'shared-mem' conflicts"):
        group(shm_size="1Gi", volumes=[{"name": "shared-mem", "emptyDir": {}}])


# --------------------------------------------------------------------------------------------------
# Secure by default, and how to say otherwise.


def test_user_template_with_its_own_security_context_is_kept() -> None:
    own = {"runAsUser": 3000, "runAsNonRoot": True}
    container = {"name": "ray-worker", "securityContext": own}
    template = PodTemplateSpec.model_validate({"spec": {"containers": [container]}})
    rendered = WorkerGroupSpec(group_name="w", template=template, image=IMAGE).to_dict()
    assert rendered["template"]["spec"]["containers"][0]["securityContext"] == own


def test_an_empty_security_context_turns_the_default_off() -> None:
    rendered = group(security_context={}).to_dict()
    assert rendered["template"]["spec"]["containers"][0]["securityContext"] == {}


def test_autoscaler_and_submitter_are_hardened_unless_given() -> None:
    head = HeadGroupSpec(cpu=1, memory="1Gi")
    spec = RayClusterSpec(image=IMAGE, enable_in_tree_autoscaling=True, head_group_spec=head)
    assert spec.to_dict()["autoscalerOptions"]["securityContext"] == HARDENED_SECURITY_CONTEXT
    own = RayClusterSpec(image=IMAGE, enable_in_tree_autoscaling=True, head_group_spec=head,
                         autoscaler_options={"securityContext": {"runAsUser": 5}})  # type: ignore[arg-type]
    assert own.to_dict()["autoscalerOptions"]["securityContext"] == {"runAsUser": 5}
    job = RayJobSpec(entrypoint="x", ray_cluster_spec=spec)
    submitter = job.to_dict()["submitterPodTemplate"]
    assert submitter == {"spec": {"restartPolicy": "Never", "containers": [{
        "name": "ray-job-submitter", "image": IMAGE, "securityContext": HARDENED_SECURITY_CONTEXT,
        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "200Mi"}},
    }]}}
    for mode in ("HTTPMode", "InteractiveMode", "SidecarMode"):
        assert "submitterPodTemplate" not in RayJobSpec(entrypoint="x", ray_cluster_spec=spec,
                                                        submission_mode=mode).to_dict()


def test_the_python_only_opt_outs_keep_kuberays_own_autoscaler_and_submitter() -> None:
    head = HeadGroupSpec(cpu=1, memory="1Gi")
    spec = RayClusterSpec(image=IMAGE, enable_in_tree_autoscaling=True, head_group_spec=head, harden_autoscaler=False)
    assert "autoscalerOptions" not in spec.to_dict() and "hardenAutoscaler" not in spec.to_dict()
    job = RayJobSpec(entrypoint="x", ray_cluster_spec=spec, harden_submitter=False)
    assert "submitterPodTemplate" not in job.to_dict() and "hardenSubmitter" not in job.to_dict()
    assert job.with_default_submitter(IMAGE) is job
    with pytest.raises(ManifestError, match="hardenSubmitter"):
        load_manifest({"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "j"},
                       "spec": {"entrypoint": "x", "clusterSelector": {"ray.io/cluster": "c"},
                                "hardenSubmitter": False}})


def test_a_manifest_is_taken_as_written() -> None:
    manifest = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "j"},
                "spec": {"entrypoint": "x", "rayClusterSpec": {"enableInTreeAutoscaling": True, "headGroupSpec": {
                    "template": {"spec": {"containers": [{"name": "ray-head", "image": IMAGE}]}}}}}}
    assert load_manifest(copy.deepcopy(manifest)).to_manifest() == manifest  # nothing added


# --------------------------------------------------------------------------------------------------
# API polish.


def test_ray_start_params_accept_numbers_and_booleans_from_python() -> None:
    params = HeadGroupSpec(image=IMAGE, ray_start_params={"num-cpus": 0, "block": True, "memory": 1.5e9})
    assert params.to_dict()["rayStartParams"] == {"num-cpus": "0", "block": "true", "memory": "1500000000"}


@pytest.mark.parametrize(
    ("model", "keywords", "suggestion"),
    [
        (WorkerGroupSpec, {"group_name": "w", "image": IMAGE, "min_replica": 1}, "did you mean 'min_replicas'?"),
        (WorkerGroupSpec, {"groupName": "w", "image": IMAGE, "maxReplica": 1}, "did you mean 'maxReplicas'?"),
        (RayJobSpec, {"entrypoint": "x", "shutdown_after_job_finish": True},
         "did you mean 'shutdown_after_job_finishes'?"),
        (HeadGroupSpec, {"image": IMAGE, "ray_start_param": {}}, "did you mean 'ray_start_params'?"),
    ],
)
def test_a_typo_in_a_typed_keyword_says_did_you_mean(model: Any, keywords: dict[str, Any], suggestion: str) -> None:
    with pytest.raises(ValidationError) as raised:
        model(**keywords)
    assert suggestion in str(raised.value)
    assert raised.value.errors()[0]["type"] == "extra_forbidden"


def test_a_wrong_type_names_the_field_and_the_expected_type() -> None:
    with pytest.raises(ValidationError) as raised:
        WorkerGroupSpec(group_name="w", image=IMAGE, min_replicas="1")  # type: ignore[arg-type]  # the point
    text = str(raised.value)
    assert "min_replicas: expected an integer, got str '1'" in text and "(fix: write the number without quotes)" in text


def test_a_rayjob_spec_may_leave_its_cluster_to_the_component_but_not_a_cronjob() -> None:
    assert RayJobSpec(entrypoint="x").missing_cluster_source()
    # a manifest without one loads (the API server stores it; only the operator refuses it) and the rule reports it
    stored = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "j"}, "spec": {"entrypoint": "x"}}
    assert load_manifest(stored).to_manifest() == stored
    assert [f.severity for f in rules.check(stored) if f.rule_id == "rayjob-cluster-source-missing"] == ["critical"]
    with pytest.raises(ValidationError, match="jobTemplate sets neither rayClusterSpec nor clusterSelector"):
        RayCronJobSpec(schedule="@daily", job_template=RayJobSpec(entrypoint="x"))


def test_a_model_with_a_value_not_known_yet_is_pending_and_cannot_render() -> None:
    loop = asyncio.new_event_loop()
    try:
        later = loop.create_future()
        head = HeadGroupSpec(image=later, cpu=1)
        assert head.pending_input() == {"image": later, "cpu": 1}
        spec = RayClusterSpec(head_group_spec=head)
        assert spec.pending_input() is not None
        with pytest.raises(ValueError, match="not known yet"):
            spec.to_dict()
        with pytest.raises(ValidationError, match="not known yet"):
            RayClusterSpec.model_validate({"headGroupSpec": head})
    finally:
        loop.close()
