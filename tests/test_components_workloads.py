"""Mock tests of the RayJob, RayService and RayCronJob components.

Every test is ``@pulumi.runtime.test`` and RETURNS an Output: assertions run inside it
(an Output that is not returned is never awaited, so its assertions never run).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
import yaml
from _pulumi_mocks import MockEnv, after_settling, mock_env
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.resources._provider_wait_for import (
    RAYJOB_TERMINAL,
    RAYSERVICE_READY,
    TIMEOUT_ANNOTATION,
    WAIT_FOR_ANNOTATION,
)
from pulumi_kuberay.resources._shared import CriticalFindingsError
from pulumi_kuberay.resources.cluster import RayCluster
from pulumi_kuberay.resources.cronjob import RayCronJob
from pulumi_kuberay.resources.job import RayJob, RayJobFailedError
from pulumi_kuberay.resources.service import RayService
from pulumi_kubernetes import Provider


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


JOB = "kubernetes:ray.io/v1:RayJob"
SERVICE = "kubernetes:ray.io/v1:RayService"
CRON = "kubernetes:ray.io/v1:RayCronJob"
CLUSTER = "kubernetes:ray.io/v1:RayCluster"


def cluster_spec() -> dict[str, Any]:
    return {
        "rayVersion": "2.52.0",
        "image": "rayproject/ray:2.52.0",
        "headGroupSpec": {"cpu": 1, "memory": "4Gi"},
        "workerGroupSpecs": [
            {"groupName": "cpu", "cpu": 1, "memory": "4Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": 1}
        ],
    }


def inline_job(**overrides: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "entrypoint": "python -c 'import ray; ray.init()'",
        "shutdownAfterJobFinishes": True,
        "ttlSecondsAfterFinished": 60,
        "activeDeadlineSeconds": 1800,
        "rayClusterSpec": cluster_spec(),
    }
    spec.update(overrides)
    return spec


def service_spec(**overrides: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "upgradeStrategy": {"type": "NewCluster"},
        "serveConfigV2": {
            "applications": [
                {"name": "text", "route_prefix": "/text", "import_path": "text_app.main:app"},
                {"name": "images", "route_prefix": "/images", "import_path": "image_app.main:app"},
            ]
        },
        "rayClusterConfig": cluster_spec(),
    }
    spec.update(overrides)
    return spec


def cron_spec() -> dict[str, Any]:
    return {"schedule": "0 3 * * *", "jobTemplate": inline_job()}


def registered(*resources: pulumi.Resource) -> list[pulumi.Output[Any]]:
    return [r.urn for r in resources]


# --------------------------------------------------------------------------------------------------
# RayJob.


@pulumi.runtime.test
def test_job_with_inline_cluster_is_replaced_on_spec_change(mocks: MockEnv) -> pulumi.Output[Any]:
    job = RayJob("etl", inline_job(), namespace="batch")

    def check(component_urn: str, *_: Any) -> None:
        assert [r.typ for r in mocks.created()] == ["kuberay:index:RayJob", JOB]
        request = mocks.request(JOB, "etl")
        assert request.parent == component_urn
        assert list(request.replaceOnChanges) == ["spec"]
        assert request.deleteBeforeReplace is True
        inputs = mocks.ray("RayJob")[0].inputs
        assert inputs["metadata"]["name"] == "etl" and inputs["metadata"]["namespace"] == "batch"
        assert WAIT_FOR_ANNOTATION not in (inputs["metadata"].get("annotations") or {})
        assert inputs["spec"]["shutdownAfterJobFinishes"] is True
        assert inputs["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"]

    return after_settling(check, *registered(job, job.resource))


@pulumi.runtime.test
def test_job_on_a_cluster_component_selects_it_and_depends_on_it(mocks: MockEnv) -> pulumi.Output[Any]:
    cluster = RayCluster("shared", cluster_spec(), namespace="ml")
    job = RayJob("batch", {"entrypoint": "python batch.py"}, cluster=cluster)

    def check(cluster_cr_urn: str, cluster_urn: str, *_: Any) -> None:
        spec = mocks.ray("RayJob")[0].inputs["spec"]
        assert spec["clusterSelector"] == {"ray.io/cluster": "shared"}
        assert "rayClusterSpec" not in spec
        assert mocks.ray("RayJob")[0].inputs["metadata"]["namespace"] == "ml"
        dependencies = set(mocks.request(JOB, "batch").dependencies)
        assert dependencies & {cluster_cr_urn, cluster_urn}, dependencies

    outputs = pulumi.Output.all(job.cluster_name, job.dashboard_url).apply(
        lambda values: _equal(values, ["shared", "http://shared-head-svc.ml.svc.cluster.local:8265"])
    )
    settled = after_settling(check, cluster.resource.urn, cluster.urn, job.urn, job.resource.urn)
    return pulumi.Output.all(settled, outputs)


@pulumi.runtime.test
def test_job_typed_spec_on_a_cluster_component(mocks: MockEnv) -> pulumi.Output[Any]:
    cluster = RayCluster("shared", cluster_spec())
    typed = RayJobSpec(entrypoint="python batch.py", cluster_selector={"ray.io/cluster": "shared"})
    job = RayJob("batch", typed, cluster=cluster)
    bare = RayJob("bare", RayJobSpec(entrypoint="python batch.py"), cluster=cluster)  # cluster= names it

    def check(*_: Any) -> None:
        for spec in (r.inputs["spec"] for r in mocks.ray("RayJob")):
            submitter = spec.pop("submitterPodTemplate")
            assert spec == {"entrypoint": "python batch.py", "clusterSelector": {"ray.io/cluster": "shared"}}
            (container,) = submitter["spec"]["containers"]
            assert container["image"] == "rayproject/ray:2.52.0"  # the cluster's head image
            assert container["securityContext"]["runAsNonRoot"] is True
            assert submitter["spec"]["restartPolicy"] == "Never"
        assert not [w for w in mocks.log.warnings if "submitter" in w]

    return after_settling(check, *registered(cluster, cluster.resource, job, job.resource, bare.resource))


@pulumi.runtime.test
def test_job_cluster_argument_conflicts_are_errors(mocks: MockEnv) -> pulumi.Output[Any]:
    cluster = RayCluster("shared", cluster_spec(), namespace="ml")
    with pytest.raises(ValueError, match=r"either cluster= .* or spec\.rayClusterSpec"):
        RayJob("both", inline_job(), cluster=cluster)
    with pytest.raises(ValueError, match="differs from the cluster's 'ml'"):
        RayJob("elsewhere", {"entrypoint": "python x.py"}, cluster=cluster, namespace="other")
    with pytest.raises(ValueError, match="clusterSelector"):
        RayJob(
            "mismatch", {"entrypoint": "x", "clusterSelector": {"ray.io/cluster": "other"}}, cluster=cluster
        )
    return after_settling(lambda *_: _equal(len(mocks.ray("RayJob")), 0), cluster.urn, cluster.resource.urn)


@pulumi.runtime.test
def test_job_wait_for_completion_uses_one_terminal_filter_and_timeout(mocks: MockEnv) -> pulumi.Output[Any]:
    job = RayJob("etl", inline_job(), wait_for_completion=True, timeout_seconds=3600)

    def check(*_: Any) -> None:
        annotations = mocks.ray("RayJob")[0].inputs["metadata"]["annotations"]
        assert annotations[WAIT_FOR_ANNOTATION] == RAYJOB_TERMINAL
        for terminal in ("Complete", "Failed", "ValidationFailed"):
            assert f"@.jobDeploymentStatus=='{terminal}'" in annotations[WAIT_FOR_ANNOTATION]
        assert annotations[TIMEOUT_ANNOTATION] == "3600"

    return after_settling(check, *registered(job, job.resource))


@pulumi.runtime.test
def test_job_outputs_from_a_completed_status(mocks: MockEnv) -> pulumi.Output[Any]:
    mocks.set_status(
        "RayJob",
        "etl",
        {
            "jobDeploymentStatus": "Complete",
            "jobStatus": "SUCCEEDED",
            "jobId": "etl-abcde",
            "rayClusterName": "etl-x7k2p",
            "dashboardURL": "etl-head-svc.default.svc.cluster.local:8265",
        },
    )
    job = RayJob("etl", inline_job(), wait_for_completion=True)
    outputs = pulumi.Output.all(
        job.job_id,
        job.cluster_name,
        job.dashboard_url,
        job.job_status,
        job.job_deployment_status,
        job.diagnosis,
    )

    def check(values: list[Any]) -> None:
        assert values[:5] == [
            "etl-abcde",
            "etl-x7k2p",
            "http://etl-head-svc.default.svc.cluster.local:8265",
            "SUCCEEDED",
            "Complete",
        ]
        assert isinstance(values[5], str) and "SUCCEEDED" in values[5].upper(), values[5]

    return outputs.apply(check)


@pulumi.runtime.test
def test_job_outputs_before_any_status(mocks: MockEnv) -> pulumi.Output[Any]:
    job = RayJob("etl", inline_job(jobId="etl-fixed"))
    outputs = pulumi.Output.all(
        job.job_id, job.cluster_name, job.job_deployment_status, job.status, job.diagnosis
    )
    return outputs.apply(lambda values: _equal(values, ["etl-fixed", None, None, None, None]))


def test_job_final_failure_fails_up_with_reason_message_and_diagnosis(mocks: MockEnv) -> None:
    mocks.set_status(
        "RayJob",
        "etl",
        {
            "jobDeploymentStatus": "Failed",
            "jobStatus": "FAILED",
            "reason": "AppFailed",
            "message": "Job entrypoint command failed with exit code 1",
        },
    )

    @pulumi.runtime.test
    def program() -> pulumi.Output[Any]:
        job = RayJob("etl", inline_job(), wait_for_completion=True)
        return job.status

    # The whole run fails (as `pulumi up` would), with the status, reason, message and diagnosis.
    with pytest.raises(RayJobFailedError) as raised:
        program()
    message = str(raised.value)
    assert "RayJob 'etl' failed: jobDeploymentStatus=Failed, jobStatus=FAILED, reason=AppFailed" in message
    assert "message: Job entrypoint command failed with exit code 1" in message
    assert "diagnosis: " in message
    assert "kubectl get rayjob -n default etl -o json | kuberay-explain -" in message


@pulumi.runtime.test
def test_job_failure_can_be_reported_without_failing(mocks: MockEnv) -> pulumi.Output[Any]:
    mocks.set_status(
        "RayJob", "etl", {"jobDeploymentStatus": "ValidationFailed", "reason": "ValidationFailed"}
    )
    job = RayJob("etl", inline_job(), fail_on_job_failure=False)
    return job.job_deployment_status.apply(lambda value: _equal(value, "ValidationFailed"))


@pulumi.runtime.test
def test_job_delete_self_is_warned(mocks: MockEnv) -> pulumi.Output[Any]:
    spec = inline_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy={
            "deletionRules": [
                {"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED", "ttlSeconds": 0}},
                {"policy": "DeleteSelf", "condition": {"jobStatus": "SUCCEEDED", "ttlSeconds": 300}},
            ]
        },
    )
    spec = {k: v for k, v in spec.items() if v is not None}
    job = RayJob("oneshot", spec)

    def check(*_: Any) -> None:
        warned = [w for w in mocks.log.warnings if w.startswith("[rayjob-delete-self-under-pulumi]")]
        assert len(warned) == 1, mocks.log.warnings
        assert " at spec.deletionStrategy.deletionRules[1].policy:" in warned[0]
        assert [r.typ for r in mocks.created()] == ["kuberay:index:RayJob", JOB]

    return after_settling(check, *registered(job, job.resource))


@pulumi.runtime.test
def test_job_critical_finding_raises_before_registration(mocks: MockEnv) -> pulumi.Output[Any]:
    with pytest.raises(CriticalFindingsError) as raised:
        RayJob("j" * 50, inline_job())  # KubeRay limits RayJob names to 47 characters
    assert "rayjob-name-too-long" in str(raised.value)
    assert mocks.created() == []
    return pulumi.Output.from_input(None)


# --------------------------------------------------------------------------------------------------
# RayService.


@pulumi.runtime.test
def test_service_waits_for_ready_and_exposes_urls_per_application(mocks: MockEnv) -> pulumi.Output[Any]:
    provider = Provider("k8s-svc", render_yaml_to_directory="out")
    svc = RayService("serve", service_spec(), pulumi.ResourceOptions(provider=provider), namespace="web")

    def check(provider_urn: str, component_urn: str, *_: Any) -> None:
        request = mocks.request(SERVICE, "serve")
        assert request.parent == component_urn
        assert request.provider.startswith(provider_urn + "::")
        assert request.deleteBeforeReplace is True
        inputs = mocks.ray("RayService")[0].inputs
        assert inputs["metadata"]["annotations"][WAIT_FOR_ANNOTATION] == RAYSERVICE_READY
        # The operator (v1.6.2+) owns spec fields after adding its finalizer with an Update: force the apply.
        assert inputs["metadata"]["annotations"]["pulumi.com/patchForce"] == "true"
        config = yaml.safe_load(inputs["spec"]["serveConfigV2"])
        assert [a["route_prefix"] for a in config["applications"]] == ["/text", "/images"]
        assert inputs["spec"]["upgradeStrategy"] == {"type": "NewCluster"}

    outputs = pulumi.Output.all(svc.serve_service_name, svc.serve_urls, svc.dashboard_url).apply(
        lambda values: _equal(
            values,
            [
                "serve-serve-svc",
                {
                    "text": "http://serve-serve-svc.web.svc.cluster.local:8000/text",
                    "images": "http://serve-serve-svc.web.svc.cluster.local:8000/images",
                },
                "http://serve-head-svc.web.svc.cluster.local:8265",
            ],
        )
    )
    settled = after_settling(check, provider.urn, svc.urn, svc.resource.urn)
    return pulumi.Output.all(settled, outputs)


@pulumi.runtime.test
def test_service_custom_serve_service_and_no_wait(mocks: MockEnv) -> pulumi.Output[Any]:
    svc = RayService(
        "serve", service_spec(serveService={"metadata": {"name": "public-serve"}}), wait_for_ready=False
    )

    def check(*_: Any) -> None:
        meta = mocks.ray("RayService")[0].inputs["metadata"]
        assert WAIT_FOR_ANNOTATION not in (meta.get("annotations") or {})

    urls = svc.serve_urls.apply(
        lambda urls: _equal(urls["text"], "http://public-serve.default.svc.cluster.local:8000/text")
    )
    return pulumi.Output.all(after_settling(check, svc.urn, svc.resource.urn), urls)


@pulumi.runtime.test
def test_service_status_outputs(mocks: MockEnv) -> pulumi.Output[Any]:
    active = {"rayClusterName": "serve-abcde", "applicationStatuses": {"text": {"status": "RUNNING"}}}
    pending = {"rayClusterName": "serve-fghij", "applicationStatuses": {"text": {"status": "DEPLOYING"}}}
    conditions = [
        {"type": "Ready", "status": "True", "reason": "NonZeroServeEndpoints"},
        {"type": "UpgradeInProgress", "status": "True", "reason": "BothActivePendingClustersExist"},
    ]
    mocks.set_status(
        "RayService",
        "serve",
        {"activeServiceStatus": active, "pendingServiceStatus": pending, "conditions": conditions},
    )
    svc = RayService("serve", service_spec())
    outputs = pulumi.Output.all(svc.active_service_status, svc.pending_service_status, svc.conditions)
    checked = outputs.apply(lambda values: _equal(values, [active, pending, conditions]))
    diagnosis = svc.diagnosis.apply(lambda text: _equal("pending cluster serve-fghij" in (text or ""), True))
    return pulumi.Output.all(checked, diagnosis)


@pulumi.runtime.test
def test_service_critical_finding_raises_before_registration(mocks: MockEnv) -> pulumi.Output[Any]:
    spec = service_spec()
    spec["rayClusterConfig"]["headGroupSpec"]["headService"] = {"metadata": {"name": "custom-head"}}
    with pytest.raises(CriticalFindingsError):
        RayService("serve", spec)
    assert mocks.created() == []
    return pulumi.Output.from_input(None)


# --------------------------------------------------------------------------------------------------
# RayCronJob.


@pulumi.runtime.test
def test_cronjob_needs_the_operator_gate(mocks: MockEnv) -> pulumi.Output[Any]:
    with pytest.raises(CriticalFindingsError) as raised:
        RayCronJob("nightly", cron_spec())
    assert "RayCronJob" in str(raised.value)
    assert mocks.created() == []
    assert "feature gate ``RayCronJob`` must be on" in (RayCronJob.__doc__ or "")

    cron = RayCronJob("nightly", cron_spec(), namespace="batch", feature_gates={"RayCronJob": True})

    def check(component_urn: str, *_: Any) -> None:
        request = mocks.request(CRON, "nightly")
        assert request.parent == component_urn
        assert request.deleteBeforeReplace is True
        inputs = mocks.ray("RayCronJob")[0].inputs
        assert inputs["spec"]["schedule"] == "0 3 * * *"
        assert inputs["metadata"] == {"name": "nightly", "namespace": "batch"}

    names = pulumi.Output.all(cron.cronjob_name, cron.namespace, cron.last_schedule_time)
    settled = after_settling(check, cron.urn, cron.resource.urn)
    return pulumi.Output.all(settled, names.apply(lambda v: _equal(v, ["nightly", "batch", None])))


@pulumi.runtime.test
def test_cronjob_last_schedule_time_from_status(mocks: MockEnv) -> pulumi.Output[Any]:
    mocks.set_status("RayCronJob", "nightly", {"lastScheduleTime": "2026-12-02T03:00:00Z"})
    cron = RayCronJob("nightly", cron_spec(), feature_gates={"RayCronJob": True})
    return cron.last_schedule_time.apply(lambda value: _equal(value, "2026-12-02T03:00:00Z"))


def _equal(actual: Any, expected: Any) -> None:
    assert actual == expected, f"{actual!r} != {expected!r}"
