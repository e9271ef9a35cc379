"""The operator setup as the rules see it (pure): gates, watched namespaces, conveniences, CRDs, target."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _reference import require_reference
from pulumi_kuberay.model._errors import ManifestError
from pulumi_kuberay.model._helm_values import coalesce
from pulumi_kuberay.operator.args import KubeRayOperatorArgs, operator_gate_defaults
from pulumi_kuberay.operator.crds import CRD_VERSION_LABEL, crd_documents, crd_downgrade, crds_directory, load_crds
from pulumi_kuberay.operator.derive import (
    TargetConflictError,
    merge_target,
    resolve_operator,
    setup_from_deployment,
    setup_from_values,
    target_for_operator,
)
from pulumi_kuberay.rules import DEFAULT_FEATURE_GATES
from pulumi_kuberay.rules.target import Target


def chart_dir() -> Path:
    return require_reference() / "kuberay" / "v1.7.0" / "helm" / "kuberay-operator"


def test_default_setup_is_the_charts() -> None:
    setup = resolve_operator({}).setup
    assert setup.version == "1.7.0"
    assert dict(setup.feature_gates) == DEFAULT_FEATURE_GATES
    assert setup.watch_namespaces is None and setup.watches("anything")
    assert (setup.replicas, setup.leader_election, setup.batch_scheduler) == (1, True, "")
    assert setup.resource_limits == {"cpu": "100m", "memory": "512Mi"}
    assert setup.image == "quay.io/kuberay/operator:v1.7.0" and setup.image_tag == "v1.7.0"


def test_conveniences_reach_values_and_setup() -> None:
    resolved = resolve_operator(
        {
            "featureGates": {"RayCronJob": True},
            "watchNamespaces": ["ray", "batch"],
            "batchScheduler": "volcano",
            "resources": {"requests": {"cpu": "200m"}},
            "leaderElection": False,
            "metrics": False,
            "replicas": 2,
        }
    )
    values = resolved.values.chart_values()
    assert {"name": "RayCronJob", "enabled": True} in values["featureGates"]
    assert values["watchNamespace"] == ["ray", "batch"]
    assert values["batchScheduler"] == {"name": "volcano"}
    assert values["resources"] == {"limits": None, "requests": {"cpu": "200m"}}  # replaces the chart's limits
    assert (values["leaderElectionEnabled"], values["metrics"], values["replicas"]) == (False, {"enabled": False}, 2)
    setup = resolved.setup
    assert setup.feature_gates["RayCronJob"] is True
    assert setup.watch_namespaces == ("ray", "batch") and not setup.watches("default")
    assert (setup.batch_scheduler, setup.replicas, setup.leader_election) == ("volcano", 2, False)
    assert setup.resource_limits == {}


def test_values_gates_keep_the_operator_defaults_for_unlisted_gates() -> None:
    setup = setup_from_values({"featureGates": [{"name": "RayCronJob", "enabled": True}]})
    assert setup.feature_gates["RayCronJob"] is True
    assert setup.feature_gates["RayJobDeletionPolicy"] is True  # not listed: the operator's default
    assert setup.feature_gates["RayClusterMTLS"] is False


def test_gates_known_per_version() -> None:
    assert "RayClusterMTLS" not in operator_gate_defaults((1, 6, 1))
    assert operator_gate_defaults((1, 6, 1))["AsyncJobInfoQuery"] is False
    assert "AsyncJobInfoQuery" not in operator_gate_defaults((1, 7, 0))
    assert operator_gate_defaults((1, 5, 0)) == {
        "RayClusterStatusConditions": True,
        "RayJobDeletionPolicy": False,
        "RayMultiHostIndexing": False,
        "RayServiceIncrementalUpgrade": False,
    }


def test_gate_unknown_to_the_version_is_refused() -> None:
    with pytest.raises(ManifestError) as info:
        resolve_operator({"version": "1.6.1", "featureGates": {"RayClusterMTLS": True}})
    assert info.value.paths == ["featureGates.RayClusterMTLS"]
    with pytest.raises(ManifestError) as info:
        resolve_operator({"values": {"featureGates": [{"name": "RayCronjob", "enabled": True}]}})
    (problem,) = info.value.problems
    assert problem.path == "values.featureGates[0].name" and problem.fix == "did you mean 'RayCronJob'?"


def test_misspelled_args_key_fails_with_suggestion() -> None:
    with pytest.raises(ManifestError) as info:
        resolve_operator({"watchNamespace": ["ray"]})
    assert info.value.problems[0].fix == "did you mean 'watchNamespaces'?"
    with pytest.raises(ManifestError) as info:
        resolve_operator({"values": {"leaderElectionEnable": False}})
    (problem,) = info.value.problems
    assert problem.path == "values.leaderElectionEnable"
    assert "Helm would silently ignore it" in problem.message
    assert problem.fix == "did you mean 'leaderElectionEnabled'?"


@pytest.mark.parametrize(
    ("args", "path"),
    [
        ({"replicas": 2, "values": {"replicas": 3}}, "replicas"),
        ({"watchNamespaces": ["a"], "values": {"watchNamespace": ["b"]}}, "watchNamespaces"),
        ({"leaderElection": False, "values": {"leaderElectionEnabled": True}}, "leaderElection"),
        (
            {
                "featureGates": {"RayCronJob": True},
                "values": {"featureGates": [{"name": "RayCronJob", "enabled": False}]},
            },
            "featureGates",
        ),
    ],
)
def test_convenience_and_value_disagreeing_is_an_error_naming_both(args: dict[str, Any], path: str) -> None:
    with pytest.raises(ManifestError) as info:
        resolve_operator(args)
    (problem,) = info.value.problems
    assert problem.path == path and "values." in problem.message


def test_agreeing_convenience_and_value_is_fine() -> None:
    assert resolve_operator({"replicas": 2, "values": {"replicas": 2}}).setup.replicas == 2


def test_watched_namespaces_follow_the_chart() -> None:
    single = setup_from_values({"singleNamespaceInstall": True}, namespace="ops")
    assert single.watch_namespaces == ("ops",)
    listed = setup_from_values({"singleNamespaceInstall": True, "watchNamespace": ["a"]}, namespace="ops")
    assert listed.watch_namespaces == ("a",)
    assert setup_from_values({}).watch_namespaces is None


def test_coalesce_is_helms_merge() -> None:
    defaults = {"resources": {"limits": {"cpu": "1"}}, "featureGates": [1, 2], "image": {"tag": "a", "repo": "r"}}
    values = {"resources": {"limits": None}, "featureGates": [3], "image": {"tag": "b"}}
    merged = coalesce(defaults=defaults, values=values)
    assert merged == {"resources": {}, "featureGates": [3], "image": {"tag": "b", "repo": "r"}}
    assert defaults["image"] == {"tag": "a", "repo": "r"} and values["resources"] == {"limits": None}  # unchanged


def test_setup_from_rendered_deployment() -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "kuberay-operator", "namespace": "ops", "labels": {"app.kubernetes.io/version": "1.7.0"}},
        "spec": {
            "replicas": 2,
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "kuberay-operator",
                            "image": "quay.io/kuberay/operator:v1.7.0",
                            "args": [
                                "--batch-scheduler=yunikorn",
                                "--watch-namespace",
                                "ray,batch",
                                "--enable-leader-election=false",
                                "--feature-gates=RayCronJob=true,RayJobDeletionPolicy=false",
                            ],
                            "resources": {"limits": {"memory": "1Gi"}},
                        }
                    ]
                }
            },
        },
    }
    setup = setup_from_deployment(deployment)
    assert setup.namespace == "ops" and setup.version == "1.7.0" and setup.replicas == 2
    assert setup.watch_namespaces == ("ray", "batch")
    assert setup.batch_scheduler == "yunikorn" and setup.leader_election is False
    assert setup.feature_gates["RayCronJob"] is True and setup.feature_gates["RayJobDeletionPolicy"] is False
    assert setup.feature_gates["RayMultiHostIndexing"] is True  # default
    assert setup.resource_limits == {"memory": "1Gi"}


def test_the_setup_reaches_the_rules_typed() -> None:
    setup = resolve_operator({"watchNamespaces": ["ray"], "featureGates": {"RayCronJob": True}}).setup
    assert target_for_operator(Target(environment="prod"), setup).context().operator is setup


def test_merge_target_takes_the_operator_and_refuses_disagreement() -> None:
    setup = resolve_operator({"featureGates": {"RayCronJob": True}}, subject="KubeRayOperator 'kuberay'").setup
    version, gates = merge_target(setup, config_version=None, config_gates=None)
    assert version == "1.7.0" and gates["RayCronJob"] is True
    assert merge_target(setup, config_version="v1.7", config_gates={"RayCronJob": True})[0] == "1.7.0"
    with pytest.raises(TargetConflictError) as info:
        merge_target(setup, config_version="1.6.0", config_gates={"RayCronJob": False})
    text = str(info.value)
    assert "kuberay:version is '1.6.0'" in text and "KubeRayOperator 'kuberay' installs KubeRay 1.7.0" in text
    assert "kuberay:featureGates.RayCronJob is false" in text and "RayCronJob=true" in text


def test_crds_from_the_local_chart_are_labelled_with_the_version() -> None:
    args = KubeRayOperatorArgs(chart=str(chart_dir()))
    directory = crds_directory(args)
    assert directory == chart_dir() / "crds"
    docs = crd_documents(load_crds(directory), "1.7.0")
    assert sorted(d["metadata"]["name"] for d in docs) == [
        "rayclusters.ray.io",
        "raycronjobs.ray.io",
        "rayjobs.ray.io",
        "rayservices.ray.io",
    ]
    assert all(d["metadata"]["labels"][CRD_VERSION_LABEL] == "1.7.0" for d in docs)
    assert CRD_VERSION_LABEL not in (load_crds(directory)[0]["metadata"].get("labels") or {})  # cache unchanged


def test_remote_chart_has_no_local_crds_unless_given() -> None:
    assert crds_directory(KubeRayOperatorArgs()) is None
    assert crds_directory(KubeRayOperatorArgs(crds_dir="/x")) == Path("/x")


def test_crd_downgrade() -> None:
    assert crd_downgrade("1.7.0", "1.6.1") is True
    assert crd_downgrade("1.6.1", "1.7.0") is False
    assert crd_downgrade(None, "1.0.0") is False
    assert crd_downgrade("1.7.0", "1.7.0") is False


def test_crd_mode_consistency() -> None:
    with pytest.raises(ManifestError):
        resolve_operator({"crds": "leave", "crdsDir": "/x"})
    with pytest.raises(ManifestError):
        resolve_operator({"installedCrds": "1.6.0"})
    assert resolve_operator({"crds": "leave", "installedCrds": "1.6.0"}).setup.crd_version == "1.6.0"
    assert resolve_operator({"crds": "leave"}).setup.crd_version is None
