# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""Mock tests of the RayCluster component and what the components share (resources/_shared.py).

Every test is ``@pulumi.runtime.test`` and RETURNS an Output: assertions run inside it
(an Output that is not returned is never awaited, so its assertions never run).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, after_settling, install, mock_env
from pulumi_kuberay.kubeclient import KubeError
from pulumi_kuberay.kuberay.replicas import replicas_from_live
from pulumi_kuberay.model._errors import ManifestError
from pulumi_kuberay.model.cluster import HeadGroupSpec, RayClusterSpec, WorkerGroupSpec
from pulumi_kuberay.resources import _change_plan
from pulumi_kuberay.resources import cluster as cluster_module
from pulumi_kuberay.resources._component import FORCE_APPLY_ANNOTATION
from pulumi_kuberay.resources._provider_wait_for import RAYCLUSTER_READY, TIMEOUT_ANNOTATION, WAIT_FOR_ANNOTATION
from pulumi_kuberay.resources._shared import CriticalFindingsError, RayCustomResource, rule_settings
from pulumi_kuberay.resources.cluster import RayCluster
from pulumi_kubernetes import Provider


def known_manifest(component: Any) -> dict[str, Any]:
    """The manifest of a component whose inputs were all known (so it was rendered at construction)."""
    assert component.manifest is not None
    manifest: dict[str, Any] = component.manifest
    return manifest


@pytest.fixture
def mocks() -> Iterator[MockEnv]:
    yield from mock_env()


COMPONENT = "kuberay:index:RayCluster"
CR = "kubernetes:ray.io/v1:RayCluster"


def small_spec(**overrides: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "rayVersion": "2.52.0",
        "image": "rayproject/ray:2.52.0",
        "headGroupSpec": {"cpu": 1, "memory": "4Gi"},
        "workerGroupSpecs": [
            {"groupName": "cpu", "cpu": 1, "memory": "4Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": 2}
        ],
    }
    spec.update(overrides)
    return spec


def unhardened_spec() -> dict[str, Any]:
    """The small spec with the default security context turned off on the head (``securityContext: {}``)."""
    return small_spec(headGroupSpec={"cpu": 1, "memory": "4Gi", "securityContext": {}})


def autoscaling_spec() -> dict[str, Any]:
    return small_spec(
        enableInTreeAutoscaling=True,
        autoscalerOptions={"version": "v2"},
        workerGroupSpecs=[
            {
                "groupName": "cpu",
                "cpu": 2,
                "memory": "8Gi",
                "replicas": 2,
                "minReplicas": 1,
                "maxReplicas": 6,
            },
            {"groupName": "big", "cpu": 8, "memory": "32Gi", "minReplicas": 0, "maxReplicas": 2},
        ],
    )


def settle(check: Any, comp: RayCluster) -> pulumi.Output[Any]:
    """Run ``check(component_urn)`` once the component and its custom resource are registered."""
    return after_settling(
        lambda urn, *_: check(urn), comp.urn, comp.resource.urn, comp.status, comp.dashboard_url
    )


# --------------------------------------------------------------------------------------------------
# Children, naming, metadata.


@pulumi.runtime.test
def test_one_custom_resource_parented_to_the_component(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("train", small_spec(), namespace="ray")

    def check(component_urn: str) -> None:
        assert [r.typ for r in mocks.created()] == [COMPONENT, CR]
        child = mocks.request(CR, "train")
        assert child.parent == component_urn
        assert child.custom is True
        inputs = mocks.ray("RayCluster")[0].inputs
        assert inputs["apiVersion"] == "ray.io/v1" and inputs["kind"] == "RayCluster"
        assert isinstance(comp.resource, RayCustomResource)

    return settle(check, comp)


@pulumi.runtime.test
def test_object_named_after_component_without_suffix_with_namespace_labels_annotations(
    mocks: MockEnv,
) -> pulumi.Output[Any]:
    comp = RayCluster(
        "train",
        small_spec(),
        namespace="ml",
        labels={"team": "research"},
        annotations={"owner": "alice"},
    )

    def check(component_urn: str) -> None:
        meta = mocks.ray("RayCluster")[0].inputs["metadata"]
        assert meta["name"] == "train"
        assert meta["namespace"] == "ml"
        assert meta["labels"] == {"team": "research"}
        assert meta["annotations"]["owner"] == "alice"
        assert known_manifest(comp)["metadata"]["name"] == "train"

    return settle(check, comp)


@pulumi.runtime.test
def test_object_name_override(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("logical", small_spec(), object_name="physical")

    def check(component_urn: str) -> None:
        assert mocks.ray("RayCluster")[0].inputs["metadata"]["name"] == "physical"
        assert mocks.ray("RayCluster")[0].name == "logical"
        assert known_manifest(comp)["metadata"]["name"] == "physical"

    names = pulumi.Output.all(comp.cluster_name, comp.head_service_name)
    return pulumi.Output.all(settle(check, comp), names).apply(
        lambda both: _assert_equal(both[1], ["physical", "physical-head-svc"])
    )


@pulumi.runtime.test
def test_fixed_name_means_delete_before_replace(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("train", small_spec())

    def check(component_urn: str) -> None:
        request = mocks.request(CR, "train")
        assert request.deleteBeforeReplace is True
        assert list(request.ignoreChanges) == []
        assert list(request.replaceOnChanges) == []

    return settle(check, comp)


@pulumi.runtime.test
def test_accepts_a_typed_spec(mocks: MockEnv) -> pulumi.Output[Any]:
    spec = RayClusterSpec(
        ray_version="2.52.0",
        image="rayproject/ray:2.52.0",
        head_group_spec=HeadGroupSpec(cpu=1, memory="4Gi"),
        worker_group_specs=[
            WorkerGroupSpec(group_name="w", cpu=1, memory="4Gi", min_replicas=1, max_replicas=2)
        ],
    )
    comp = RayCluster("typed", spec)

    def check(component_urn: str) -> None:
        sent = mocks.ray("RayCluster")[0].inputs["spec"]
        assert sent["rayVersion"] == "2.52.0"
        assert sent["workerGroupSpecs"][0]["groupName"] == "w"
        ray = sent["headGroupSpec"]["template"]["spec"]["containers"][0]
        assert ray["image"] == "rayproject/ray:2.52.0"
        assert ray["resources"]["limits"] == ray["resources"]["requests"]
        assert comp.spec is spec

    return settle(check, comp)


# --------------------------------------------------------------------------------------------------
# Readiness (waitFor).


@pulumi.runtime.test
def test_waits_for_head_ready_by_default(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("train", small_spec(), timeout_seconds=900)

    def check(component_urn: str) -> None:
        annotations = mocks.ray("RayCluster")[0].inputs["metadata"]["annotations"]
        assert annotations[WAIT_FOR_ANNOTATION] == RAYCLUSTER_READY
        assert "HeadPodReady" in annotations[WAIT_FOR_ANNOTATION]
        assert annotations[TIMEOUT_ANNOTATION] == "900"

    return settle(check, comp)


@pulumi.runtime.test
def test_wait_can_be_turned_off(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("train", small_spec(), wait_for_ready=False)

    def check(component_urn: str) -> None:
        meta = mocks.ray("RayCluster")[0].inputs["metadata"]
        assert WAIT_FOR_ANNOTATION not in (meta.get("annotations") or {})

    return settle(check, comp)


@pulumi.runtime.test
def test_user_annotation_wins_over_the_default_wait(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster(
        "train", small_spec(), annotations={WAIT_FOR_ANNOTATION: "condition=RayClusterProvisioned"}
    )

    def check(component_urn: str) -> None:
        annotations = mocks.ray("RayCluster")[0].inputs["metadata"]["annotations"]
        assert annotations[WAIT_FOR_ANNOTATION] == "condition=RayClusterProvisioned"

    return settle(check, comp)


# --------------------------------------------------------------------------------------------------
# Providers.


@pulumi.runtime.test
def test_provider_given_to_the_component_reaches_the_custom_resource(mocks: MockEnv) -> pulumi.Output[Any]:
    provider = Provider("k8s-test", render_yaml_to_directory="out")
    comp = RayCluster("train", small_spec(), pulumi.ResourceOptions(provider=provider))

    def check(provider_urn: str, *_: Any) -> None:
        child = mocks.request(CR, "train")
        assert child.provider.startswith(provider_urn + "::"), child.provider

    return after_settling(check, provider.urn, comp.urn, comp.resource.urn)


@pulumi.runtime.test
def test_providers_list_given_to_the_component_reaches_the_custom_resource(
    mocks: MockEnv,
) -> pulumi.Output[Any]:
    provider = Provider("k8s-list", render_yaml_to_directory="out")
    comp = RayCluster("train", small_spec(), pulumi.ResourceOptions(providers=[provider]))

    def check(provider_urn: str, *_: Any) -> None:
        assert mocks.request(CR, "train").provider.startswith(provider_urn + "::")

    return after_settling(check, provider.urn, comp.urn, comp.resource.urn)


# --------------------------------------------------------------------------------------------------
# Autoscaling: replicas are not fought over.


@pulumi.runtime.test
def test_autoscaling_omits_worker_replicas_and_warns(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("auto", autoscaling_spec())

    def check(component_urn: str) -> None:
        groups = mocks.ray("RayCluster")[0].inputs["spec"]["workerGroupSpecs"]
        assert all("replicas" not in g for g in groups)
        assert [(g["minReplicas"], g["maxReplicas"]) for g in groups] == [(1, 6), (0, 2)]
        assert list(mocks.request(CR, "auto").ignoreChanges) == []
        dropped = [w for w in mocks.log.warnings if "autoscaler owns them" in w]
        assert len(dropped) == 1 and "cpu" in dropped[0] and "big" not in dropped[0]

    return settle(check, comp)


@pulumi.runtime.test
def test_without_autoscaling_replicas_are_sent(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("fixed", small_spec())

    def check(component_urn: str) -> None:
        assert mocks.ray("RayCluster")[0].inputs["spec"]["workerGroupSpecs"][0]["replicas"] == 1
        assert not [w for w in mocks.log.warnings if "autoscaler owns them" in w]

    return settle(check, comp)


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The cluster the component reads (mocks have none): ``["obj"]`` is the live RayCluster (None: not there),
    ``["error"]`` a KubeError to raise instead; ``["reads"]`` the (kind, namespace, name) read."""
    state: dict[str, Any] = {"obj": None, "error": None, "reads": []}

    class Client:
        def get_object(self, kind: str, namespace: str, name: str) -> tuple[Any, None]:
            state["reads"].append((kind, namespace, name))
            if state["error"] is not None:
                raise state["error"]
            return state["obj"], None

    monkeypatch.setattr(cluster_module, "_mocked", lambda: False)
    monkeypatch.setattr(cluster_module, "cluster_access", lambda opts: (("kubeconfig", None), None))
    monkeypatch.setattr(_change_plan, "live_client", lambda access: Client())
    return state


def _sent_replicas(mocks: MockEnv) -> dict[str, Any]:
    groups = mocks.ray("RayCluster")[0].inputs["spec"]["workerGroupSpecs"]
    return {g["groupName"]: g.get("replicas", "unset") for g in groups}


def _forced(mocks: MockEnv) -> bool:
    annotations = mocks.ray("RayCluster")[0].inputs["metadata"].get("annotations") or {}
    return annotations.get(FORCE_APPLY_ANNOTATION) == "true"


@pulumi.runtime.test
def test_autoscaling_sends_the_live_replicas_forced(mocks: MockEnv, live: dict[str, Any]) -> pulumi.Output[Any]:
    # the autoscaler scaled cpu to 4; big is not in the live object yet (a group added by this change)
    live["obj"] = {"spec": {"workerGroupSpecs": [{"groupName": "cpu", "replicas": 4}]}}
    comp = RayCluster("auto", autoscaling_spec(), namespace="ml")

    def check(component_urn: str) -> None:
        assert live["reads"] == [("RayCluster", "ml", "auto")]
        assert _sent_replicas(mocks) == {"cpu": 4, "big": 0}
        assert _forced(mocks)
        notes = [w for w in mocks.log.warnings if "autoscaler owns them" in w]
        assert len(notes) == 1 and "cpu: 2 -> 4" in notes[0] and "the live object's" in notes[0], notes

    return settle(check, comp)


@pulumi.runtime.test
def test_autoscaling_creates_groups_at_min_replicas_forced(mocks: MockEnv, live: dict[str, Any]) -> pulumi.Output[Any]:
    comp = RayCluster("auto", autoscaling_spec())

    def check(component_urn: str) -> None:
        assert live["reads"] == [("RayCluster", "default", "auto")]
        assert _sent_replicas(mocks) == {"cpu": 1, "big": 0}
        assert _forced(mocks)
        notes = [w for w in mocks.log.warnings if "autoscaler owns them" in w]
        assert len(notes) == 1 and "cpu: 2 -> 1" in notes[0] and "minReplicas (a new cluster)" in notes[0], notes

    return settle(check, comp)


@pulumi.runtime.test
def test_autoscaling_with_an_unreadable_cluster_omits_replicas_unforced(
    mocks: MockEnv, live: dict[str, Any]
) -> pulumi.Output[Any]:
    live["error"] = KubeError("connection refused")
    comp = RayCluster("auto", autoscaling_spec())

    def check(component_urn: str) -> None:
        assert _sent_replicas(mocks) == {"cpu": "unset", "big": "unset"}
        assert not _forced(mocks)
        notes = [w for w in mocks.log.warnings if "autoscaler owns them" in w]
        assert len(notes) == 1 and "could not be read (connection refused)" in notes[0], notes
        assert "conflicts with it on spec.workerGroupSpecs" in notes[0]

    return settle(check, comp)


def test_replicas_from_live_leaves_a_cluster_without_autoscaling_alone() -> None:
    spec = {"workerGroupSpecs": [{"groupName": "cpu", "replicas": 2}]}
    assert replicas_from_live(spec, {"workerGroupSpecs": [{"groupName": "cpu", "replicas": 5}]}) == (spec, [])
    auto: dict[str, Any] = {
        "enableInTreeAutoscaling": True, "workerGroupSpecs": [{"groupName": "cpu", "minReplicas": 2}, "junk"],
    }
    # a live replicas that is not an integer is not trusted: the group starts at its minimum, as KubeRay's clamp
    sent, notes = replicas_from_live(auto, {"workerGroupSpecs": [{"groupName": "cpu", "replicas": "3"}]})
    assert sent["workerGroupSpecs"] == [{"groupName": "cpu", "minReplicas": 2, "replicas": 2}, "junk"]
    assert notes == []
    assert auto["workerGroupSpecs"][0] == {"groupName": "cpu", "minReplicas": 2}  # the input is not mutated


# --------------------------------------------------------------------------------------------------
# Outputs.


@pulumi.runtime.test
def test_outputs_name_namespace_services_and_urls(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("train", small_spec(), namespace="ml")
    outputs = pulumi.Output.all(
        comp.cluster_name, comp.namespace, comp.head_service_name, comp.dashboard_url, comp.client_address
    )

    def check(values: list[Any]) -> None:
        assert values == [
            "train",
            "ml",
            "train-head-svc",
            "http://train-head-svc.ml.svc.cluster.local:8265",
            "ray://train-head-svc.ml.svc.cluster.local:10001",
        ]

    return outputs.apply(check)


@pulumi.runtime.test
def test_outputs_follow_custom_head_service_and_ports(mocks: MockEnv) -> pulumi.Output[Any]:
    spec = small_spec()
    spec["headGroupSpec"] = {
        "headService": {"metadata": {"name": "gateway"}},
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "ray-head",
                        "image": "rayproject/ray:2.52.0",
                        "ports": [
                            {"name": "dashboard", "containerPort": 9265},
                            {"name": "client", "containerPort": 20001},
                            {"name": "gcs-server", "containerPort": 6379},
                        ],
                    }
                ]
            }
        },
    }
    comp = RayCluster("train", spec)  # no namespace: the provider's default
    outputs = pulumi.Output.all(
        comp.namespace, comp.head_service_name, comp.dashboard_url, comp.client_address
    )

    def check(values: list[Any]) -> None:
        assert values == [
            "default",
            "gateway",
            "http://gateway.default.svc.cluster.local:9265",
            "ray://gateway.default.svc.cluster.local:20001",
        ]

    return outputs.apply(check)


@pulumi.runtime.test
def test_status_is_an_output(mocks: MockEnv) -> pulumi.Output[Any]:
    status = {"state": "ready", "conditions": [{"type": "HeadPodReady", "status": "True"}]}
    mocks.set_status("RayCluster", "train", status)
    comp = RayCluster("train", small_spec())
    outputs = pulumi.Output.all(comp.status, comp.diagnosis)
    return outputs.apply(lambda values: _assert_equal(values, [status, "head pod ready"]))


@pulumi.runtime.test
def test_status_is_none_until_reported(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("train", small_spec())
    outputs = pulumi.Output.all(comp.status, comp.diagnosis)
    return outputs.apply(lambda values: _assert_equal(values, [None, None]))


def _assert_equal(actual: Any, expected: Any) -> None:
    assert actual == expected, f"{actual!r} != {expected!r}"


# --------------------------------------------------------------------------------------------------
# The rule catalogue at construction.


@pulumi.runtime.test
def test_critical_finding_raises_before_anything_is_registered(mocks: MockEnv) -> pulumi.Output[Any]:
    long_name = "x" * 60  # KubeRay limits RayCluster names to 53 characters
    with pytest.raises(CriticalFindingsError) as raised:
        RayCluster(long_name, small_spec())
    message = str(raised.value)
    assert "[cluster-name-invalid] critical at metadata.name" in message
    assert "(fix: " in message
    assert [f.rule_id for f in raised.value.findings] == ["cluster-name-invalid"]
    assert mocks.created() == []
    assert not [r for r in mocks.monitor.requests if r.type != "pulumi:pulumi:Stack"]
    return pulumi.Output.from_input(None)


@pulumi.runtime.test
def test_gated_field_with_gate_off_is_critical_and_gate_on_passes(mocks: MockEnv) -> pulumi.Output[Any]:
    spec = small_spec(networkPolicy={"mode": "DenyAllIngress"})
    with pytest.raises(CriticalFindingsError) as raised:
        RayCluster("netpol", spec)
    assert any(f.rule_id == "feature-gate-disabled" for f in raised.value.findings)
    assert mocks.created() == []
    comp = RayCluster("netpol", spec, feature_gates={"RayClusterNetworkPolicy": True})

    def check(component_urn: str) -> None:
        assert [r.typ for r in mocks.created()] == [COMPONENT, CR]

    return settle(check, comp)


@pulumi.runtime.test
def test_lower_findings_become_warnings_on_the_component(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster("train", unhardened_spec())

    def check(component_urn: str) -> None:
        warnings = mocks.log.warnings
        assert any(w.startswith("[pod-security-restricted] low at spec.headGroupSpec") for w in warnings), warnings
        assert all("critical" not in w.split(" at ")[0] for w in warnings)

    return settle(check, comp)


@pulumi.runtime.test
def test_suppression_annotation_silences_a_rule(mocks: MockEnv) -> pulumi.Output[Any]:
    comp = RayCluster(
        "train",
        unhardened_spec(),
        annotations={"suppress.pulumi-kuberay.io/pod-security-restricted": "the namespace admits root Pods"},
    )

    def check(component_urn: str) -> None:
        assert not [w for w in mocks.log.warnings if w.startswith("[pod-security-restricted]")]

    return settle(check, comp)


@pulumi.runtime.test
def test_invalid_spec_raises_manifest_error_with_the_field_path(mocks: MockEnv) -> pulumi.Output[Any]:
    spec = small_spec()
    spec["workerGroupSpecs"][0]["minReplicas"] = 4
    spec["workerGroupSpecs"][0]["maxReplicas"] = 2
    spec["workerGroupSpecs"][0]["replicas"] = 3
    with pytest.raises((ManifestError, CriticalFindingsError)) as raised:
        RayCluster("bad", spec)
    assert "workerGroupSpecs[0]" in str(raised.value)
    with pytest.raises(ManifestError) as typo:
        RayCluster("typo", small_spec(rayVersoin="2.52.0"))
    assert "rayVersoin" in str(typo.value) and "rayVersion" in str(typo.value)
    assert mocks.created() == []
    return pulumi.Output.from_input(None)


# --------------------------------------------------------------------------------------------------
# Rule settings: arguments, else stack config kuberay:*.


@pulumi.runtime.test
def test_rule_settings_come_from_stack_config() -> pulumi.Output[Any]:
    install(
        {
            "kuberay:version": "1.6.0",
            "kuberay:environment": "prod",
            "kuberay:featureGates": json.dumps({"RayCronJob": True}),
        }
    )
    settings = rule_settings()
    assert settings.kuberay_version == "1.6.0"
    assert settings.environment == "prod"
    assert settings.feature_gates == {"RayCronJob": True}
    explicit = rule_settings("1.7.0", {"RayCronJob": False}, "dev")
    assert (explicit.kuberay_version, explicit.environment) == ("1.7.0", "dev")
    assert explicit.feature_gates == {"RayCronJob": False}
    pulumi.runtime.set_all_config({})
    return pulumi.Output.from_input(None)


@pulumi.runtime.test
def test_bad_rule_config_names_the_key() -> pulumi.Output[Any]:
    install({"kuberay:environment": "production"})
    with pytest.raises(ValueError, match="kuberay:environment") as raised:
        rule_settings()
    assert "must be one of dev, staging, prod, got 'production'; did you mean 'prod'?" in str(raised.value)
    assert "(fix: " in str(raised.value)
    # a RunError: the language host prints only the message, no traceback of asyncio frames
    assert isinstance(raised.value, pulumi.RunError)
    install({"kuberay:featureGates": json.dumps({"RayCronJobs": True})})
    with pytest.raises(ValueError, match="unknown KubeRay feature gate 'RayCronJobs'"):
        rule_settings()
    install({"kuberay:featureGates": json.dumps({"RayCronJob": "yes"})})
    with pytest.raises(ValueError, match="kuberay:featureGates"):
        rule_settings()
    pulumi.runtime.set_all_config({})
    return pulumi.Output.from_input(None)


@pulumi.runtime.test
def test_prod_environment_from_config_raises_security_severity() -> pulumi.Output[Any]:
    env = install({"kuberay:environment": "prod"})
    comp = RayCluster("train", unhardened_spec())

    def check(component_urn: str) -> None:
        assert any(w.startswith("[pod-security-restricted] medium") for w in env.log.warnings), env.log.warnings
        pulumi.runtime.set_all_config({})

    return settle(check, comp)
