# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""Mock tests: a RayJob whose raw ``clusterSelector`` names a RayCluster component of the same program is
``cluster=`` that component (the same hardened submitter Pod, the same dependency and namespace), and one whose
cluster the program does not declare says that its submitter Pod is KubeRay's unhardened default.

Every test is ``@pulumi.runtime.test`` and RETURNS an Output (assertions inside an Output not returned never run).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, after_settling, mock_env
from pulumi_kuberay.model.job import RayJobSpec, default_submitter_template
from pulumi_kuberay.model.pod import hardened_security_context
from pulumi_kuberay.resources.cluster import RayCluster
from pulumi_kuberay.resources.job import RayJob


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


JOB = "kubernetes:ray.io/v1:RayJob"
IMAGE = "rayproject/ray:2.52.0"
NAME = "shared"


def cluster_spec() -> dict[str, Any]:
    return {
        "rayVersion": "2.52.0",
        "image": IMAGE,
        "headGroupSpec": {"cpu": 1, "memory": "4Gi"},
        "workerGroupSpecs": [
            {"groupName": "cpu", "cpu": 1, "memory": "4Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": 1}
        ],
    }


def _specs(mocks: MockEnv) -> dict[str, dict[str, Any]]:
    return {r.name: r.inputs["spec"] for r in mocks.ray("RayJob")}


@pulumi.runtime.test
def test_a_selector_naming_a_cluster_of_the_program_renders_the_cluster_argument_submitter(
    mocks: MockEnv,
) -> pulumi.Output[Any]:
    cluster = RayCluster("shared", cluster_spec(), namespace="ml")
    by_argument = RayJob("by-argument", {"entrypoint": "python batch.py"}, cluster=cluster)
    typed = RayJob("typed", RayJobSpec(entrypoint="python batch.py", cluster_selector={"ray.io/cluster": NAME}), namespace="ml")
    raw = RayJob("raw", {"entrypoint": "python batch.py", "clusterSelector": {"ray.io/cluster": NAME}}, namespace="ml")

    def check(cluster_cr_urn: str, cluster_urn: str, *_: Any) -> None:
        specs = _specs(mocks)
        assert specs["typed"] == specs["raw"] == specs["by-argument"]
        submitter = specs["typed"]["submitterPodTemplate"]
        assert submitter == default_submitter_template(IMAGE)  # the cluster's head image, hardened
        (container,) = submitter["spec"]["containers"]
        assert container["securityContext"] == hardened_security_context()
        assert container["securityContext"]["runAsNonRoot"] is True
        assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
        assert container["resources"] == {
            "limits": {"cpu": "1", "memory": "1Gi"},
            "requests": {"cpu": "500m", "memory": "200Mi"},
        }
        for name in ("typed", "raw"):
            dependencies = set(mocks.request(JOB, name).dependencies)
            assert dependencies & {cluster_cr_urn, cluster_urn}, (name, dependencies)  # after the cluster is ready
        assert not [w for w in mocks.log.warnings if "submitter" in w]

    outputs = pulumi.Output.all(raw.cluster_name, raw.dashboard_url).apply(
        lambda values: _equal(values, ["shared", "http://shared-head-svc.ml.svc.cluster.local:8265"])
    )
    settled = after_settling(
        check, cluster.resource.urn, cluster.urn, by_argument.resource.urn, typed.resource.urn, raw.resource.urn
    )
    return pulumi.Output.all(settled, outputs)


@pulumi.runtime.test
def test_a_selector_in_the_default_namespace_matches_a_cluster_without_one(mocks: MockEnv) -> pulumi.Output[Any]:
    cluster = RayCluster("shared", cluster_spec())
    job = RayJob("job", RayJobSpec(entrypoint="python x.py", cluster_selector={"ray.io/cluster": NAME}))

    def check(*_: Any) -> None:
        assert _specs(mocks)["job"]["submitterPodTemplate"] == default_submitter_template(IMAGE)

    return after_settling(check, cluster.resource.urn, job.resource.urn)


@pulumi.runtime.test
def test_a_selector_the_program_does_not_declare_warns_that_the_submitter_is_not_hardened(
    mocks: MockEnv,
) -> pulumi.Output[Any]:
    RayCluster("shared", cluster_spec(), namespace="ml")
    # Another namespace: the operator looks for the cluster in the RayJob's own namespace, not this one.
    elsewhere = RayJob("elsewhere", {"entrypoint": "python x.py", "clusterSelector": {"ray.io/cluster": NAME}}, namespace="batch")
    external = RayJob("external", RayJobSpec(entrypoint="python x.py", cluster_selector={"ray.io/cluster": "other"}))
    kept = RayJob(
        "kept",
        RayJobSpec(entrypoint="python x.py", cluster_selector={"ray.io/cluster": "other"}, harden_submitter=False),
    )

    def check(*_: Any) -> None:
        specs = _specs(mocks)
        assert all("submitterPodTemplate" not in specs[name] for name in ("elsewhere", "external", "kept"))
        warned = [w for w in mocks.log.warnings if "not hardened" in w]
        assert len(warned) == 2, warned
        assert any("RayJob 'elsewhere'" in w and "RayCluster 'shared'" in w for w in warned)
        assert any("RayJob 'external'" in w and "RayCluster 'other'" in w and "cluster=" in w for w in warned)
        assert not any("'kept'" in w for w in warned)  # harden_submitter=False: KubeRay's default, as asked

    return after_settling(check, elsewhere.resource.urn, external.resource.urn, kept.resource.urn)


def _equal(actual: Any, expected: Any) -> None:
    assert actual == expected, f"{actual!r} != {expected!r}"


@pulumi.runtime.test
def test_a_selector_naming_a_near_miss_suggests_the_closest_cluster_of_the_program(
    mocks: MockEnv,
) -> pulumi.Output[Any]:
    RayCluster("shared", cluster_spec(), namespace="ml")
    RayCluster("gpu-pool", cluster_spec(), namespace="ml")
    typo = RayJob("typo", {"entrypoint": "python x.py", "clusterSelector": {"ray.io/cluster": "shard"}}, namespace="ml")
    moved = RayJob("moved", RayJobSpec(entrypoint="python x.py", cluster_selector={"ray.io/cluster": NAME}))
    unrelated = RayJob(
        "unrelated", RayJobSpec(entrypoint="python x.py", cluster_selector={"ray.io/cluster": "zzz"}), namespace="ml"
    )

    def check(*_: Any) -> None:
        typo_notes = [w for w in mocks.log.warnings if "RayJob 'typo'" in w and "did you mean" in w]
        assert len(typo_notes) == 1, mocks.log.warnings
        assert "did you mean 'shared'?" in typo_notes[0] and "'gpu-pool'" not in typo_notes[0]
        assert "spec.clusterSelector['ray.io/cluster'] is 'shard'" in typo_notes[0] and "(fix: " in typo_notes[0]
        moved_notes = [w for w in mocks.log.warnings if "RayJob 'moved'" in w and "declares in 'ml'" in w]
        assert len(moved_notes) == 1, mocks.log.warnings
        assert "fix: give the RayJob that namespace" in moved_notes[0]
        # a cluster made outside the program is a valid target: no guess for a name close to none
        assert not [w for w in mocks.log.warnings if "RayJob 'unrelated'" in w and ("did you mean" in w or "declares in" in w)]

    return after_settling(check, typo.resource.urn, moved.resource.urn, unrelated.resource.urn)
