# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""Mock tests: a RayCronJob whose ``jobTemplate.clusterSelector`` names a RayCluster component of the same program
is treated as the RayJob component treats that selector (resources.job.cluster_of_selector): the template's
submitter Pod hardened with the cluster's head image, the namespace defaulted to the cluster's, and the RayCronJob
created after the cluster; one naming a cluster the program does not declare warns that its submitter Pod is
KubeRay's unhardened default.

Every test is ``@pulumi.runtime.test`` and RETURNS an Output (assertions inside an Output not returned never run).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, after_settling, mock_env
from pulumi_kuberay.model.cronjob import RayCronJobSpec
from pulumi_kuberay.model.job import RayJobSpec, default_submitter_template
from pulumi_kuberay.resources.cluster import RayCluster
from pulumi_kuberay.resources.cronjob import RayCronJob
from pulumi_kuberay.resources.job import RayJob
from test_components_job_selector import IMAGE, NAME, cluster_spec


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


CRON = "kubernetes:ray.io/v1:RayCronJob"
GATES = {"RayCronJob": True}
SELECTOR: dict[str, Any] = {"ray.io/cluster": NAME}


def _cron(template: Any) -> dict[str, Any]:
    return {"schedule": "0 3 * * *", "jobTemplate": template}


def _templates(mocks: MockEnv) -> dict[str, dict[str, Any]]:
    return {r.name: r.inputs["spec"]["jobTemplate"] for r in mocks.ray("RayCronJob")}


@pulumi.runtime.test
def test_a_template_selector_naming_a_cluster_of_the_program_is_that_cluster(mocks: MockEnv) -> pulumi.Output[Any]:
    cluster = RayCluster("shared", cluster_spec(), namespace="ml")
    job = RayJob("job", {"entrypoint": "python batch.py", "clusterSelector": SELECTOR}, namespace="ml")
    raw = RayCronJob(
        "raw",
        _cron({"entrypoint": "python batch.py", "clusterSelector": SELECTOR}),
        namespace="ml",
        feature_gates=GATES,
    )
    typed = RayCronJob(
        "typed",
        RayCronJobSpec(
            schedule="0 3 * * *",
            job_template=RayJobSpec(entrypoint="python batch.py", cluster_selector=SELECTOR),
        ),
        namespace="ml",
        feature_gates=GATES,
    )
    snake = RayCronJob(
        "snake",
        {"schedule": "0 3 * * *", "job_template": {"entrypoint": "python batch.py", "cluster_selector": SELECTOR}},
        namespace="ml",
        feature_gates=GATES,
    )

    def check(cluster_cr_urn: str, cluster_urn: str, *_: Any) -> None:
        templates = _templates(mocks)
        job_spec = next(r.inputs["spec"] for r in mocks.ray("RayJob") if r.name == "job")
        assert templates["raw"] == templates["typed"] == templates["snake"] == job_spec
        assert templates["raw"]["submitterPodTemplate"] == default_submitter_template(IMAGE)
        assert templates["raw"]["clusterSelector"] == SELECTOR
        for name in ("raw", "typed", "snake"):
            request = mocks.request(CRON, name)
            assert set(request.dependencies) & {cluster_cr_urn, cluster_urn}, (name, request.dependencies)
        assert not [w for w in mocks.log.warnings if "submitter" in w]

    return after_settling(
        check,
        cluster.resource.urn,
        cluster.urn,
        job.resource.urn,
        raw.resource.urn,
        typed.resource.urn,
        snake.resource.urn,
    )


@pulumi.runtime.test
def test_a_template_selector_the_program_does_not_declare_warns_and_waits_for_nothing(
    mocks: MockEnv,
) -> pulumi.Output[Any]:
    cluster = RayCluster("shared", cluster_spec(), namespace="ml")
    elsewhere = RayCronJob(
        "elsewhere",
        _cron({"entrypoint": "python x.py", "clusterSelector": SELECTOR}),
        namespace="batch",
        feature_gates=GATES,
    )
    kept = RayCronJob(
        "kept",
        RayCronJobSpec(
            schedule="@daily",
            job_template=RayJobSpec(
                entrypoint="python x.py", cluster_selector={"ray.io/cluster": "other"}, harden_submitter=False
            ),
        ),
        feature_gates=GATES,
    )

    def check(cluster_cr_urn: str, cluster_urn: str, *_: Any) -> None:
        templates = _templates(mocks)
        assert all("submitterPodTemplate" not in templates[name] for name in ("elsewhere", "kept"))
        warned = [w for w in mocks.log.warnings if "not hardened" in w]
        assert len(warned) == 1, warned
        assert (
            "RayCronJob 'elsewhere'" in warned[0] and "jobTemplate" in warned[0] and "RayCluster 'shared'" in warned[0]
        )
        for name in ("elsewhere", "kept"):
            assert not set(mocks.request(CRON, name).dependencies) & {cluster_cr_urn, cluster_urn}

    return after_settling(check, cluster.resource.urn, cluster.urn, elsewhere.resource.urn, kept.resource.urn)


@pulumi.runtime.test
def test_default_namespace_matches_and_a_template_with_its_own_cluster_is_left_alone(
    mocks: MockEnv,
) -> pulumi.Output[Any]:
    cluster = RayCluster("shared", cluster_spec())
    default = RayCronJob(
        "default", _cron({"entrypoint": "python x.py", "clusterSelector": SELECTOR}), feature_gates=GATES
    )
    own = RayCronJob("own", _cron({"entrypoint": "python x.py", "rayClusterSpec": cluster_spec()}), feature_gates=GATES)

    def check(cluster_cr_urn: str, cluster_urn: str, *_: Any) -> None:
        templates = _templates(mocks)
        assert "clusterSelector" not in templates["own"]
        assert templates["default"]["submitterPodTemplate"] == default_submitter_template(IMAGE)  # both in no namespace
        assert set(mocks.request(CRON, "default").dependencies) & {cluster_cr_urn, cluster_urn}
        assert not set(mocks.request(CRON, "own").dependencies) & {cluster_cr_urn, cluster_urn}

    return after_settling(check, cluster.resource.urn, cluster.urn, own.resource.urn, default.resource.urn)
