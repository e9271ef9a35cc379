# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""Mock tests of the KubeRayOperator component and of ``operator=`` on the Ray components.

Every test is ``@pulumi.runtime.test`` and RETURNS an Output: assertions run inside it (pulumi-notes 2.4).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, after_settling, install, mock_env
from _reference import require_reference
from pulumi_kuberay import rules
from pulumi_kuberay.model._errors import ManifestError
from pulumi_kuberay.operator.crds import CRD_VERSION_LABEL, FIELD_MANAGER
from pulumi_kuberay.resources._shared import CriticalFindingsError
from pulumi_kuberay.resources.cluster import RayCluster
from pulumi_kuberay.resources.cronjob import RayCronJob
from pulumi_kuberay.resources.job import RayJob
from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator
from test_components_workloads import cluster_spec

CRD = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
CHART = "kubernetes:helm.sh/v4:Chart"
NAMESPACE = "kubernetes:core/v1:Namespace"
OPERATOR = "kuberay:index:KubeRayOperator"
CRON = "kubernetes:ray.io/v1:RayCronJob"
CLUSTER = "kubernetes:ray.io/v1:RayCluster"


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


def chart_dir() -> str:
    return str(require_reference() / "kuberay" / "v1.7.0" / "helm" / "kuberay-operator")


def cron_spec() -> dict[str, Any]:
    return {
        "schedule": "0 * * * *",
        "jobTemplate": {
            "entrypoint": "python hourly.py",
            "shutdownAfterJobFinishes": True,
            "ttlSecondsAfterFinished": 60,
            "rayClusterSpec": cluster_spec(),
        },
    }


@pulumi.runtime.test
def test_operator_applies_crds_then_the_chart_without_its_crds(mocks: MockEnv) -> pulumi.Output[Any]:
    op = KubeRayOperator(
        "kuberay",
        chart=chart_dir(),
        namespace="ops",
        feature_gates={"RayCronJob": True},
        watch_namespaces=["ray"],
        values={"image": {"pullPolicy": "Always"}},
    )

    def check(op_urn: str, version: str, gates: dict[str, bool], watched: list[str], *_: Any) -> None:
        crds = mocks.created(CRD)
        assert sorted(c.name for c in crds) == [
            "kuberay-rayclusters.ray.io",
            "kuberay-raycronjobs.ray.io",
            "kuberay-rayjobs.ray.io",
            "kuberay-rayservices.ray.io",
        ]
        for crd in crds:
            meta = crd.inputs["metadata"]
            assert meta["labels"][CRD_VERSION_LABEL] == "1.7.0"
            assert meta["annotations"]["pulumi.com/patchFieldManager"] == FIELD_MANAGER
            assert meta["annotations"]["pulumi.com/patchForce"] == "true"
            assert crd.inputs["spec"]["group"] == "ray.io"
            assert mocks.request(CRD, crd.name).parent == op_urn
            assert mocks.request(CRD, crd.name).retainOnDelete is True  # destroy never deletes every Ray object
        (chart,) = mocks.created(CHART)
        assert chart.inputs["skipCrds"] is True
        assert chart.inputs["chart"] == chart_dir() and chart.inputs["namespace"] == "ops"
        values = chart.inputs["values"]
        assert values["watchNamespace"] == ["ray"] and values["image"] == {"pullPolicy": "Always"}
        assert {"name": "RayCronJob", "enabled": True} in values["featureGates"]
        dependencies = set(mocks.request(CHART, "kuberay-chart").dependencies)
        assert len(dependencies) == 5 and all("CustomResourceDefinition" in d or "Namespace" in d for d in dependencies)
        (namespace,) = mocks.created(NAMESPACE)
        assert namespace.inputs["metadata"]["name"] == "ops"
        assert version == "1.7.0" and gates["RayCronJob"] is True and watched == ["ray"]

    children = [c.urn for c in op.crds] + ([op.chart.urn] if op.chart is not None else [])
    return after_settling(check, op.urn, op.version, op.feature_gates, op.watch_namespaces, *children)


@pulumi.runtime.test
def test_crds_only_and_leave(mocks: MockEnv) -> pulumi.Output[Any]:
    only = KubeRayOperator("crds", chart=chart_dir(), crds="only")
    leave = KubeRayOperator("chart", chart=chart_dir(), crds="leave", installed_crds="1.6.0", namespace="x")

    def check(*_: Any) -> None:
        assert {c.name.split("-")[0] for c in mocks.created(CRD)} == {"crds"}
        assert [c.name for c in mocks.created(CHART)] == ["chart-chart"]
        assert leave.setup.crd_version == "1.6.0" and only.setup.crd_version == "1.7.0"

    children = [c.urn for c in [*only.crds, *leave.crds]] + [leave.chart.urn if leave.chart else leave.urn]
    return after_settling(check, only.urn, leave.urn, *children)


def test_local_chart_of_another_version_is_refused(mocks: MockEnv) -> None:
    with pytest.raises(ManifestError) as info:
        KubeRayOperator("kuberay", chart=chart_dir(), version="1.6.1")
    assert info.value.paths == ["version"] and "the chart at" in str(info.value)


def test_misspelled_value_fails_before_anything_is_registered(mocks: MockEnv) -> None:
    with pytest.raises(ManifestError) as info:
        KubeRayOperator("kuberay", chart=chart_dir(), values={"watchNamespaces": ["ray"]})
    assert info.value.paths == ["values.watchNamespaces"]
    assert "did you mean 'watchNamespace'?" in str(info.value)
    assert mocks.created() == []


@pulumi.runtime.test
def test_ray_objects_take_target_from_the_operator_and_depend_on_it(mocks: MockEnv) -> pulumi.Output[Any]:
    op = KubeRayOperator("kuberay", chart=chart_dir(), feature_gates={"RayCronJob": True})
    cron = RayCronJob("hourly", cron_spec(), namespace="ray", operator=op)  # the gate is off by default
    cluster = RayCluster("shared", cluster_spec(), namespace="ray", operator=op)
    job = RayJob("batch", {"entrypoint": "python b.py"}, cluster=cluster, operator=op)

    def check(chart_urn: str, *_: Any) -> None:
        # depends_on a component = on its children: the CRDs and the chart exist first
        for typ, name in (
            (CRON, "hourly"),
            ("kuberay:index:RayCronJob", "hourly"),
            (CLUSTER, "shared"),
            ("kuberay:index:RayCluster", "shared"),
            ("kubernetes:ray.io/v1:RayJob", "batch"),
        ):
            dependencies = set(mocks.request(typ, name).dependencies)
            assert chart_urn in dependencies and sum("CustomResourceDefinition" in d for d in dependencies) == 4

    assert op.chart is not None
    return after_settling(check, op.chart.urn, cron.urn, cluster.urn, job.urn, cron.resource.urn, job.resource.urn)


def test_gate_off_on_the_operator_is_high_for_a_raycronjob(mocks: MockEnv) -> None:
    # the operator accepts the RayCronJob and ignores it: high (a warning), never a critical failure
    op = KubeRayOperator("kuberay", chart=chart_dir())
    manifest = RayCronJob("hourly", cron_spec(), namespace="ray", operator=op).manifest
    assert manifest is not None
    found = rules.check(manifest, kuberay_version="1.7.0")
    assert [(f.rule_id, f.severity) for f in found if f.rule_id == "feature-gate-disabled"] == [
        ("feature-gate-disabled", "high")
    ]
    assert "accepts it and ignores it" in next(f.message for f in found if f.rule_id == "feature-gate-disabled")


def test_stack_config_disagreeing_with_the_operator_names_both() -> None:
    install({"kuberay:version": "1.6.0", "kuberay:featureGates": json.dumps({"RayCronJob": False})})
    try:
        op = KubeRayOperator("kuberay", chart=chart_dir(), feature_gates={"RayCronJob": True})
        with pytest.raises(ValueError, match=r"kuberay:version is '1\.6\.0'") as info:
            RayCronJob("hourly", cron_spec(), namespace="ray", operator=op)
        text = str(info.value)
        assert "kuberay:version is '1.6.0'" in text and "KubeRayOperator 'kuberay' installs KubeRay 1.7.0" in text
        assert "kuberay:featureGates.RayCronJob is false" in text
    finally:
        pulumi.runtime.set_all_config({})


def test_stack_config_agreeing_with_the_operator_is_fine() -> None:
    install({"kuberay:version": "1.7.0", "kuberay:featureGates": json.dumps({"RayCronJob": True})})
    try:
        op = KubeRayOperator("kuberay", chart=chart_dir(), feature_gates={"RayCronJob": True})
        assert (RayCronJob("hourly", cron_spec(), namespace="ray", operator=op).manifest or {})["kind"] == "RayCronJob"
    finally:
        pulumi.runtime.set_all_config({})


def test_without_an_operator_the_stack_config_still_rules(mocks: MockEnv) -> None:
    # kuberay:featureGates unset: the gate is off, so the operator would ignore the RayCronJob: its own checks
    # (here the v1.7 name limit) are high, not enforced yet; with the gate on in the stack config they block.
    long_name = "hourly-" + "x" * 33  # 40 characters: RayCronJob names are limited to 36 from v1.7
    assert RayCronJob("off", cron_spec(), namespace="ray", object_name=long_name).manifest is not None
    install({"kuberay:featureGates": json.dumps({"RayCronJob": True})})
    try:
        with pytest.raises(CriticalFindingsError) as info:
            RayCronJob("on", cron_spec(), namespace="ray", object_name=long_name)
        assert [f.rule_id for f in info.value.findings] == ["raycronjob-name-too-long"]
    finally:
        pulumi.runtime.set_all_config({})


def test_crds_dir_of_another_version(tmp_path: Path, mocks: MockEnv) -> None:
    empty = tmp_path / "crds"
    empty.mkdir()
    with pytest.raises(ManifestError) as info:
        KubeRayOperator("kuberay", chart=chart_dir(), crds_dir=str(empty))
    assert info.value.paths == ["crdsDir"]


def test_operator_setup_rules_run_on_the_component(mocks: MockEnv) -> None:
    with pytest.raises(CriticalFindingsError) as info:
        KubeRayOperator("kuberay", chart=chart_dir(), replicas=2, leader_election=False)
    assert [f.rule_id for f in info.value.findings] == ["operator-not-highly-available"]
    assert mocks.created() == []


def test_unwatched_namespace_fails_the_ray_object(mocks: MockEnv) -> None:
    op = KubeRayOperator("kuberay", chart=chart_dir(), watch_namespaces=["ray"])
    with pytest.raises(CriticalFindingsError) as info:
        RayCluster("shared", cluster_spec(), namespace="team-a", operator=op)
    assert [f.rule_id for f in info.value.findings] == ["operator-namespace-unwatched"]
