"""The typed RayJob spec (``model/job.py``): fields, renderings and errors with their exact CRD paths."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from pulumi_kuberay.model._errors import ManifestError, validate_as
from pulumi_kuberay.model._k8s import Container, PodSpec, PodTemplateSpec
from pulumi_kuberay.model.cluster import HeadGroupSpec, RayClusterSpec
from pulumi_kuberay.model.job import (
    DeletionCondition,
    DeletionPolicy,
    DeletionRule,
    DeletionStrategy,
    RayJobManifest,
    RayJobSpec,
    SubmitterConfig,
)
from pulumi_kuberay.model.manifest import ObjectMeta, load_manifest, load_stored
from pulumi_kuberay.rules import check
from pydantic import ValidationError

CLUSTER_DOC: dict[str, Any] = {
    "rayVersion": "2.52.0",
    "headGroupSpec": {
        "rayStartParams": {},
        "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.52.0"}]}},
    },
}


def _cluster() -> RayClusterSpec:
    return RayClusterSpec(image="rayproject/ray:2.52.0", head_group_spec=HeadGroupSpec(cpu=1, memory="2Gi"))


def _job_doc(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "job"}, "spec": spec}


def _problems(**spec: Any) -> list[tuple[str, str]]:
    with pytest.raises(ManifestError) as info:
        load_manifest(_job_doc(**spec))
    return [(p.path, p.message) for p in info.value.problems]


def _stored(python_refuses: bool = True, **spec: Any) -> list[tuple[str, str, str]]:
    """What only the operator (or Ray) refuses loads as the API server stores it; the critical findings of the
    rules (rule, path, message) say what; from Python (the components' args) the spec is refused."""
    doc = _job_doc(entrypoint="python x.py", **spec)
    assert load_manifest(doc).to_manifest() == doc
    assert load_stored(doc).stored == doc
    if python_refuses:
        with pytest.raises(ValidationError):
            RayJobSpec.model_validate(doc["spec"])
    return [(f.rule_id, f.path, f.message) for f in check(doc) if f.severity == "critical"]


def test_every_field_renders_under_its_crd_name() -> None:
    spec = RayJobSpec(
        entrypoint="python /home/ray/samples/sample_code.py",
        runtime_env_yaml="pip:\n  - requests==2.26.0\n",
        job_id="my-job-1",
        metadata={"owner": "ml"},
        submission_mode="HTTPMode",
        entrypoint_num_cpus=1,
        entrypoint_num_gpus=0.5,
        entrypoint_resources='{"custom": 1}',
        ray_cluster_spec=_cluster(),
        submitter_config=SubmitterConfig(backoff_limit=3),
        shutdown_after_job_finishes=True,
        ttl_seconds_after_finished=30,
        active_deadline_seconds=3600,
        pre_running_deadline_seconds=600,
        backoff_limit=2,
        deletion_strategy=DeletionStrategy(
            on_success=DeletionPolicy(policy="DeleteCluster"),
            on_failure=DeletionPolicy(policy="DeleteCluster"),
        ),
        suspend=False,
        managed_by="kueue.x-k8s.io/multikueue",
    )
    doc = spec.to_dict()
    assert sorted(doc) == sorted(
        [
            "entrypoint",
            "runtimeEnvYAML",
            "jobId",
            "metadata",
            "submissionMode",
            "entrypointNumCpus",
            "entrypointNumGpus",
            "entrypointResources",
            "rayClusterSpec",
            "submitterConfig",
            "shutdownAfterJobFinishes",
            "ttlSecondsAfterFinished",
            "activeDeadlineSeconds",
            "preRunningDeadlineSeconds",
            "backoffLimit",
            "deletionStrategy",
            "suspend",
            "managedBy",
        ]
    )
    assert doc["runtimeEnvYAML"] == "pip:\n  - requests==2.26.0\n"
    assert doc["deletionStrategy"] == {
        "onSuccess": {"policy": "DeleteCluster"},
        "onFailure": {"policy": "DeleteCluster"},
    }
    assert doc["submitterConfig"] == {"backoffLimit": 3}
    assert RayJobSpec.model_fields["runtime_env_yaml"].alias == "runtimeEnvYAML"


def test_runtime_env_dict_renders_yaml_string() -> None:
    spec = RayJobSpec(
        cluster_selector={"ray.io/cluster": "shared"},
        runtime_env_yaml={"pip": ["requests==2.26.0"], "env_vars": {"counter_name": "test_counter"}},
    )
    assert spec.to_dict()["runtimeEnvYAML"] == ("pip:\n- requests==2.26.0\nenv_vars:\n  counter_name: test_counter\n")
    assert spec.runtime_env == {"pip": ["requests==2.26.0"], "env_vars": {"counter_name": "test_counter"}}


def test_runtime_env_string_kept_verbatim_and_must_be_a_mapping() -> None:
    text = 'working_dir: "https://example.com/x.zip"  # comment kept\n'
    assert RayJobSpec(cluster_selector={"ray.io/cluster": "c"}, runtime_env_yaml=text).runtime_env_yaml == text
    rule = "rayjob-runtime-env-yaml-invalid"
    assert _stored(clusterSelector={"ray.io/cluster": "c"}, runtimeEnvYAML="- pip\n- conda\n") == [
        (
            rule,
            "spec.runtimeEnvYAML",
            "runtimeEnvYAML must be a YAML mapping (pip, env_vars, working_dir, ...), got a list",
        )
    ]
    # as the operator reads it (UnmarshalRuntimeEnvYAML): the first document, and only JSON values
    assert _stored(clusterSelector={"ray.io/cluster": "c"}, runtimeEnvYAML="env_vars: {A: .nan}\n")[0][2] == (
        "runtimeEnvYAML holds .nan or .inf, which JSON cannot carry: the operator cannot turn it into the runtime "
        "env JSON"
    )
    two_docs = "pip: [requests]\n---\n- not read\n"
    assert RayJobSpec(cluster_selector={"ray.io/cluster": "c"}, runtime_env_yaml=two_docs).runtime_env == {
        "pip": ["requests"]
    }
    assert _stored(clusterSelector={"ray.io/cluster": "c"}, runtimeEnvYAML="pip: [")[0][:2] == (
        rule,
        "spec.runtimeEnvYAML",
    )


def test_runtime_env_mapping_is_rejected_in_a_manifest() -> None:
    assert _problems(clusterSelector={"ray.io/cluster": "c"}, runtimeEnvYAML={"pip": ["x"]}) == [
        ("spec.runtimeEnvYAML", "runtimeEnvYAML must be a YAML string in a manifest, got a mapping")
    ]


def test_entrypoint_resources() -> None:
    spec = RayJobSpec(cluster_selector={"ray.io/cluster": "c"}, entrypoint_resources={"custom": 1})
    assert spec.to_dict()["entrypointResources"] == '{"custom": 1}'
    # no rule reads it: the model records what the submitter refuses, and the schema rule reports it
    assert _stored(clusterSelector={"ray.io/cluster": "c"}, entrypointResources="[1]") == [
        ("schema-invalid-value", "spec.entrypointResources", "entrypointResources must be a JSON object, got list")
    ]
    loaded = load_manifest(_job_doc(clusterSelector={"ray.io/cluster": "c"}, entrypointResources="{"))
    assert [(p.path, p.message) for p in loaded.spec.stored_problems] == [
        (
            "entrypointResources",
            "entrypointResources is not valid JSON: Expecting property name enclosed in double quotes",
        )
    ]


@pytest.mark.parametrize("mode", ["K8sJobMode", "HTTPMode", "InteractiveMode", "SidecarMode"])
def test_submission_modes(mode: str) -> None:
    spec = RayJobSpec(ray_cluster_spec=_cluster(), submission_mode=mode)  # type: ignore[arg-type]
    assert spec.submission_mode == mode


def test_unknown_submission_mode_loads_from_a_manifest_but_not_from_python() -> None:
    # The CRD has no enum and KubeRay v1.7.0 accepts the job (then never submits it: a high finding, not a
    # model error; the oracle's ValidateRayJobSpec accepts it).
    doc = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "j"}}
    doc["spec"] = {"clusterSelector": {"ray.io/cluster": "c"}, "submissionMode": "K8sMode"}
    assert load_manifest(doc).spec.submission_mode == "K8sMode"
    with pytest.raises(ValidationError, match="K8sJobMode"):
        RayJobSpec(cluster_selector={"ray.io/cluster": "c"}, submission_mode="K8sMode")  # type: ignore[arg-type]


def test_exactly_one_cluster_source() -> None:
    assert [
        (rule, path) for rule, path, _ in _stored(False, submissionMode="HTTPMode")
    ]  # the component's cluster= may give it == [("rayjob-cluster-source-missing", "spec")]
    # A manifest may hold both (ValidateRayJobSpec accepts it; selector mode wins: rayjob-cluster-spec-ignored).
    doc = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "j"}}
    doc["spec"] = {"rayClusterSpec": CLUSTER_DOC, "clusterSelector": {"ray.io/cluster": "c"}}
    assert load_manifest(doc).spec.cluster_selector == {"ray.io/cluster": "c"}
    with pytest.raises(ValidationError, match="mutually exclusive"):
        RayJobSpec(ray_cluster_spec=_cluster(), cluster_selector={"ray.io/cluster": "c"})
    found = _stored(clusterSelector={"app": "x"})
    assert [(rule, path) for rule, path, _ in found] == [("rayjob-cluster-selector-name-empty", "spec.clusterSelector")]
    with pytest.raises(ValidationError, match=r"clusterSelector must name the cluster under 'ray\.io/cluster'"):
        RayJobSpec(cluster_selector={"app": "x"})


def test_cluster_name_property() -> None:
    assert RayJobSpec(cluster_selector={"ray.io/cluster": "shared"}).cluster_name == "shared"
    assert RayJobSpec(ray_cluster_spec=_cluster()).cluster_name is None


def test_deletion_rules() -> None:
    rules = DeletionStrategy(
        deletion_rules=[
            DeletionRule(policy="DeleteWorkers", condition=DeletionCondition(job_status="FAILED", ttl_seconds=30)),
            DeletionRule(policy="DeleteSelf", condition=DeletionCondition(job_deployment_status="Failed")),
        ]
    )
    assert RayJobSpec(ray_cluster_spec=_cluster(), deletion_strategy=rules).to_dict()["deletionStrategy"] == {
        "deletionRules": [
            {"policy": "DeleteWorkers", "condition": {"jobStatus": "FAILED", "ttlSeconds": 30}},
            {"policy": "DeleteSelf", "condition": {"jobDeploymentStatus": "Failed"}},
        ]
    }


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        (
            {
                "onSuccess": {"policy": "DeleteCluster"},
                "onFailure": {"policy": "DeleteCluster"},
                "deletionRules": [{"policy": "DeleteSelf", "condition": {"jobStatus": "FAILED"}}],
            },
            (
                "spec.deletionStrategy.deletionRules",
                "legacy policies (onSuccess/onFailure) and deletionRules cannot be used together",
            ),
        ),
        (
            {"onSuccess": {"policy": "DeleteCluster"}},
            (
                "spec.deletionStrategy.onFailure",
                "deletionStrategy requires either both onSuccess and onFailure, or deletionRules",
            ),
        ),
        (
            {},
            (
                "spec.deletionStrategy",
                "deletionStrategy requires either both onSuccess and onFailure, or deletionRules",
            ),
        ),
        (
            {"deletionRules": []},
            (
                "spec.deletionStrategy.deletionRules",
                "List should have at least 1 item after validation, not 0",
            ),
        ),
        (
            {"deletionRules": [{"policy": "DeleteSelf", "condition": {"ttlSeconds": 5}}]},
            (
                "spec.deletionStrategy.deletionRules[0].condition",
                "a deletion condition requires either jobStatus or jobDeploymentStatus",
            ),
        ),
        (
            {
                "deletionRules": [
                    {
                        "policy": "DeleteSelf",
                        "condition": {"jobStatus": "FAILED", "jobDeploymentStatus": "Failed"},
                    }
                ]
            },
            (
                "spec.deletionStrategy.deletionRules[0].condition.jobDeploymentStatus",
                "jobStatus and jobDeploymentStatus cannot be used together within the same deletion condition",
            ),
        ),
        (
            {"deletionRules": [{"policy": "DeleteSelf", "condition": {"jobStatus": "FAILED", "ttlSeconds": -1}}]},
            (
                "spec.deletionStrategy.deletionRules[0].condition.ttlSeconds",
                "Input should be greater than or equal to 0",
            ),
        ),
    ],
)
def test_deletion_strategy_errors(strategy: dict[str, Any], expected: tuple[str, str]) -> None:
    assert _problems(clusterSelector={"ray.io/cluster": "c"}, deletionStrategy=strategy) == [expected]


def test_bad_policy_and_status_enums() -> None:
    problems = _problems(
        clusterSelector={"ray.io/cluster": "c"},
        deletionStrategy={"deletionRules": [{"policy": "DeleteAll", "condition": {"jobStatus": "SUCCESS"}}]},
    )
    assert [p for p, _ in problems] == [
        "spec.deletionStrategy.deletionRules[0].policy",
        "spec.deletionStrategy.deletionRules[0].condition.jobStatus",
    ]


def test_crd_minimums_and_managed_by() -> None:
    assert _problems(clusterSelector={"ray.io/cluster": "c"}, preRunningDeadlineSeconds=0) == [
        ("spec.preRunningDeadlineSeconds", "Input should be greater than or equal to 1")
    ]
    assert _problems(clusterSelector={"ray.io/cluster": "c"}, managedBy="me")[0][0] == "spec.managedBy"


def test_submitter_pod_template_is_a_full_pod_template() -> None:
    template = PodTemplateSpec(
        spec=PodSpec(containers=[Container(name="submitter", image="rayproject/ray:2.52.0")], restart_policy="Never")
    )
    spec = RayJobSpec(ray_cluster_spec=_cluster(), submitter_pod_template=template)
    assert spec.to_dict()["submitterPodTemplate"] == {
        "spec": {
            "containers": [{"name": "submitter", "image": "rayproject/ray:2.52.0"}],
            "restartPolicy": "Never",
        }
    }


def test_manifest_round_trip_and_kind() -> None:
    manifest = RayJobManifest(
        metadata=ObjectMeta(name="job"),
        spec=RayJobSpec(entrypoint="python x.py", cluster_selector={"ray.io/cluster": "c"}),
    )
    doc = manifest.to_manifest()
    assert doc == {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {"name": "job"},
        "spec": {"entrypoint": "python x.py", "clusterSelector": {"ray.io/cluster": "c"}},
    }
    loaded = load_manifest(doc)
    assert isinstance(loaded, RayJobManifest) and loaded.to_manifest() == doc


def test_validate_as_paths_relative_to_the_spec() -> None:
    with pytest.raises(ManifestError) as info:
        validate_as(RayJobSpec, {"clusterSelector": {"ray.io/cluster": "c"}, "runtimeEnvYaml": "pip: []"})
    (problem,) = info.value.problems
    assert (problem.path, problem.fix) == ("runtimeEnvYaml", "did you mean 'runtimeEnvYAML'?")


def test_runtime_env_yaml_dict_renders_stably() -> None:
    env = {"working_dir": "https://example.com/a.zip", "pip": ["a", "b"]}
    text = RayJobSpec(cluster_selector={"ray.io/cluster": "c"}, runtime_env_yaml=env).to_dict()["runtimeEnvYAML"]
    assert yaml.safe_load(text) == env
