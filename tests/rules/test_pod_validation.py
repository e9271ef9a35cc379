"""What the API server's Pod, Service and Job validation refuses in the pod templates the operator builds from
(``rules/pod_validation.py``, ``rules/pod_resources.py``): one test per class of refused child the oracle
showed (tests/oracle: the children built with the operator's own code, judged by Kubernetes' own validation),
plus the templates the operator never builds from and values not known yet."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from _reference import upstream_sample
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules._examples import example, example_cronjob, example_job, example_service

JsonDict = dict[str, Any]
HEAD = "spec.headGroupSpec.template.spec"
HEAD_C = f"{HEAD}.containers[0]"
WORKER_C = "spec.workerGroupSpecs[0].template.spec.containers[0]"


def _found(doc: JsonDict, rule_id: str, **kwargs: Any) -> list[tuple[str, str]]:
    return [(f.path, f.severity) for f in rules.check(doc, **kwargs) if f.rule_id == rule_id]


def _messages(doc: JsonDict, rule_id: str) -> list[str]:
    return [f.message for f in rules.check(doc) if f.rule_id == rule_id]


def _head_spec(doc: JsonDict) -> JsonDict:
    spec: JsonDict = doc["spec"]["headGroupSpec"]["template"]["spec"]
    return spec


def _head_container(doc: JsonDict) -> JsonDict:
    container: JsonDict = _head_spec(doc)["containers"][0]
    return container


def _worker_container(doc: JsonDict) -> JsonDict:
    container: JsonDict = doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    return container


# --------------------------------------------------------------------------------------------------
# One test per class


def test_service_account_name_must_be_a_dns_subdomain() -> None:
    """ValidateServiceAccountName: kubectl-ray's own complete sample puts a GCP service account e-mail there."""
    doc = example()
    _head_spec(doc)["serviceAccountName"] = "my-service-account@my-project.iam.gserviceaccount.com"
    doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["serviceAccountName"] = "ray-sa.v1"
    assert _found(doc, "pod-service-account-name-invalid") == [(f"{HEAD}.serviceAccountName", "critical")]
    (message,) = _messages(doc, "pod-service-account-name-invalid")
    assert "ValidateServiceAccountName" in message and "iam.gke.io/gcp-service-account" in message


def test_service_account_placeholder_is_high_with_the_placeholder_named() -> None:
    """KubeRay's vLLM TPU sample is an envsubst file ('$KSA_NAME'): high, not critical (known_differences)."""
    doc = upstream_sample("vllm__ray-service.vllm-tpu-v6e-singlehost.yaml", "RayService")
    found = _found(doc, "pod-service-account-name-invalid")
    assert found == [
        ("spec.rayClusterConfig.headGroupSpec.template.spec.serviceAccountName", "high"),
        ("spec.rayClusterConfig.workerGroupSpecs[0].template.spec.serviceAccountName", "high"),
    ]
    assert "'$KSA_NAME' is an unrendered template placeholder" in _messages(doc, "pod-service-account-name-invalid")[0]


@pytest.mark.parametrize(
    ("port", "key", "words"),
    [
        ({"name": "Dashboard_", "containerPort": 8266}, "name", "lower-case letters"),
        ({"name": "client-", "containerPort": 9000}, "name", "hyphen"),
        ({"name": "a--b", "containerPort": 9000}, "name", "consecutive hyphens"),
        ({"name": "1234", "containerPort": 9000}, "name", "at least one letter"),
        ({"name": "a-very-long-port-name", "containerPort": 9000}, "name", "15 characters"),
        ({"name": "extra", "containerPort": 65536}, "containerPort", "1-65535"),
        ({"name": "extra", "containerPort": 0}, "containerPort", "1-65535"),
        ({"name": "extra", "containerPort": 9000, "protocol": "tcp"}, "protocol", "upper case"),
    ],
)
def test_container_ports_as_validate_container_ports(port: JsonDict, key: str, words: str) -> None:
    doc = example()
    _head_container(doc)["ports"].append(port)
    index = len(_head_container(doc)["ports"]) - 1
    assert _found(doc, "pod-container-port-invalid") == [(f"{HEAD_C}.ports[{index}].{key}", "critical")]
    assert words in _messages(doc, "pod-container-port-invalid")[0]


def test_a_port_name_twice_in_one_container_is_refused() -> None:
    doc = example()
    ports = _head_container(doc)["ports"]
    ports.append({"name": ports[0]["name"], "containerPort": 9999})
    assert _found(doc, "pod-container-port-invalid") == [(f"{HEAD_C}.ports[{len(ports) - 1}].name", "critical")]


@pytest.mark.parametrize(
    ("var", "key"),
    [
        ({"name": "A=B", "value": "x"}, "name"),
        ({"name": "", "value": "x"}, "name"),
        ({"name": "X", "valueFrom": {}}, "valueFrom"),
        ({"name": "X", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}, "valueFrom"),
        ({"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels"}}}, "valueFrom.fieldRef.fieldPath"),
        ({"name": "X", "valueFrom": {"resourceFieldRef": {"resource": "limits.gpu"}}}, "valueFrom.resourceFieldRef.resource"),
        ({"name": "X", "valueFrom": {"secretKeyRef": {"name": "s", "key": "bad/key"}}}, "valueFrom.secretKeyRef.key"),
    ],
)
def test_env_vars_as_validate_env(var: JsonDict, key: str) -> None:
    doc = example()
    _worker_container(doc)["env"] = [var]
    assert _found(doc, "pod-env-var-invalid") == [(f"{WORKER_C}.env[0].{key}", "critical")]


@pytest.mark.parametrize(
    "var",
    [
        {"name": "1BAD-but.relaxed", "value": "x"},  # IsRelaxedEnvVarName (GA from Kubernetes 1.34)
        {"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['ray.io/group']"}}},
        {"name": "X", "valueFrom": {"resourceFieldRef": {"resource": "requests.hugepages-2Mi"}}},
        {"name": "X", "value": "", "valueFrom": {"secretKeyRef": {"name": "s", "key": "token.txt"}}},
    ],
)
def test_env_vars_the_api_server_accepts(var: JsonDict) -> None:
    doc = example()
    _worker_container(doc)["env"] = [var]
    assert _found(doc, "pod-env-var-invalid") == []


def test_volume_mounts_and_names_as_validate_volumes() -> None:
    doc = example()
    _head_spec(doc)["volumes"] = [{"name": name, "emptyDir": {}} for name in ("data", "data", "My_Vol")]
    _head_container(doc)["volumeMounts"] = [{"name": "dataset", "mountPath": "/d"}, {"name": "data", "mountPath": "/d"}]
    assert _found(doc, "pod-volume-invalid") == [
        (f"{HEAD_C}.volumeMounts[0].name", "critical"),
        (f"{HEAD_C}.volumeMounts[1].mountPath", "critical"),
        (f"{HEAD}.volumes[1].name", "critical"),
        (f"{HEAD}.volumes[2].name", "critical"),
    ]
    assert "names no volume of the pod template (volumes: My_Vol, data)" in " ".join(_messages(doc, "pod-volume-invalid"))


@pytest.mark.parametrize(
    ("kind", "probe", "suffix"),
    [
        ("livenessProbe", {"periodSeconds": 5}, ""),
        ("readinessProbe", {"exec": {"command": ["true"]}, "tcpSocket": {"port": 8265}}, ""),
        ("startupProbe", {"exec": {"command": ["true"]}, "successThreshold": 2}, ".successThreshold"),
        ("readinessProbe", {"httpGet": {"path": "/", "port": 0}}, ".httpGet.port"),
        ("livenessProbe", {"httpGet": {"path": "/", "port": "Dash_Board"}}, ".httpGet.port"),
        ("livenessProbe", {"exec": {"command": ["true"]}, "initialDelaySeconds": -1}, ".initialDelaySeconds"),
    ],
)
def test_probes_as_validate_probe(kind: str, probe: JsonDict, suffix: str) -> None:
    doc = example()
    _head_container(doc)[kind] = probe
    assert _found(doc, "pod-probe-invalid") == [(f"{HEAD_C}.{kind}{suffix}", "critical")]


def test_a_readiness_probe_may_need_two_successes() -> None:
    doc = example()
    _head_container(doc)["readinessProbe"] = {"exec": {"command": ["true"]}, "successThreshold": 2}
    assert _found(doc, "pod-probe-invalid") == []


def test_container_names_as_validate_containers() -> None:
    doc = example()
    spec = doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]
    spec["initContainers"] = [{"name": "ray-worker", "image": "busybox:1.36"}]
    spec["containers"].append({"name": "Side_Car", "image": "busybox:1.36"})
    assert _found(doc, "pod-container-name-invalid") == [
        ("spec.workerGroupSpecs[0].template.spec.containers[0].name", "critical"),
        ("spec.workerGroupSpecs[0].template.spec.containers[1].name", "critical"),
    ]


def test_pull_and_restart_policies_as_validate_pull_policy() -> None:
    doc = example()
    _head_container(doc)["imagePullPolicy"] = "always"
    _head_spec(doc)["restartPolicy"] = "Sometimes"
    assert sorted(_found(doc, "pod-policy-invalid")) == [
        (f"{HEAD_C}.imagePullPolicy", "critical"),
        (f"{HEAD}.restartPolicy", "critical"),
    ]


@pytest.mark.parametrize(("policy", "refused"), [(None, True), ("Always", True), ("Never", False), ("OnFailure", False)])
def test_the_submitter_template_restart_policy_as_validate_job(policy: str | None, refused: bool) -> None:
    doc = example_job()
    template: JsonDict = {"spec": {"containers": [{"name": "submitter", "image": "rayproject/ray:2.52.0"}]}}
    if policy:
        template["spec"]["restartPolicy"] = policy
    doc["spec"]["submitterPodTemplate"] = template
    expected = [("spec.submitterPodTemplate.spec.restartPolicy", "critical")] if refused else []
    assert _found(doc, "pod-policy-invalid") == expected
    # Only K8sJobMode builds the submitter Job from it.
    doc["spec"]["submissionMode"] = "HTTPMode"
    assert _found(doc, "pod-policy-invalid") == []


@pytest.mark.parametrize(
    ("resources", "path", "words"),
    [
        ({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}, "requests", "exceed its limit"),
        ({"requests": {"memory": "4Gi"}, "limits": {"memory": "2Gi"}}, "requests", "exceed its limit"),
        ({"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}}, "requests", "must equal its limit"),
        ({"requests": {"nvidia.com/gpu": "1"}}, "limits", "its limit must be set"),
        ({"limits": {"nvidia.com/gpu": "500m"}}, "limits[nvidia.com/gpu]", "whole number"),
        ({"limits": {"gpu": "1"}}, "limits[gpu]", "not a standard container resource"),
        ({"limits": {"cpu": "-1"}}, "limits[cpu]", "negative"),
    ],
)
def test_resources_as_validate_resource_requirements(resources: JsonDict, path: str, words: str) -> None:
    doc = example()
    _worker_container(doc)["resources"] = resources
    assert _found(doc, "pod-resources-invalid") == [(f"{WORKER_C}.resources.{path}", "critical")]
    assert words in _messages(doc, "pod-resources-invalid")[0]


@pytest.mark.parametrize(
    "resources",
    [
        {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}},
        {"limits": {"nvidia.com/gpu": "1"}},
        {"requests": {"nvidia.com/gpu": 2}, "limits": {"nvidia.com/gpu": "2"}},
        {"requests": {"memory": "1Gi", "hugepages-2Mi": "1Gi"}, "limits": {"memory": "1Gi", "hugepages-2Mi": "1Gi"}},
    ],
)
def test_resources_the_api_server_accepts(resources: JsonDict) -> None:
    doc = example()
    _worker_container(doc)["resources"] = resources
    assert _found(doc, "pod-resources-invalid") == []


def test_template_labels_as_validate_labels() -> None:
    doc = example()
    doc["spec"]["headGroupSpec"]["template"]["metadata"] = {"labels": {"app": "bad value!", "ok": "v" * 63}}
    doc["spec"]["workerGroupSpecs"][0]["template"]["metadata"] = {"labels": {"bad key!": "x"}, "annotations": {"a b": "x"}}
    assert _found(doc, "pod-template-metadata-invalid") == [
        ("spec.headGroupSpec.template.metadata.labels", "critical"),
        ("spec.workerGroupSpecs[0].template.metadata.annotations", "critical"),
        ("spec.workerGroupSpecs[0].template.metadata.labels", "critical"),
    ]


def test_a_container_without_an_image_as_validate_container_common() -> None:
    doc = example()
    del _worker_container(doc)["image"]
    assert _found(doc, "pod-container-image-missing") == [(f"{WORKER_C}.image", "critical")]


@pytest.mark.parametrize(
    ("extra", "refused"),
    [
        ({"containerPort": 8080}, True),  # "8080-port" and KubeRay's "metrics" 8080
        ({"name": "app", "containerPort": 8080}, True),
        ({"name": "metrics", "containerPort": 8080}, False),  # replaces the default
        ({"name": "app", "containerPort": 9090}, False),
    ],
)
def test_the_head_service_ports_as_validate_service(extra: JsonDict, refused: bool) -> None:
    """BuildServiceForHeadPod: the head's ports by name, plus metrics 8080 unless named; ValidateService refuses a
    port number twice (the deep run found a head port on 8080 under another name)."""
    doc = example()
    ports = _head_container(doc)["ports"]
    ports.append(extra)
    expected = [(f"{HEAD_C}.ports[{len(ports) - 1}].containerPort", "critical")] if refused else []
    assert _found(doc, "head-service-port-duplicate") == expected
    if refused:
        assert "gets port 8080 twice" in _messages(doc, "head-service-port-duplicate")[0]


# --------------------------------------------------------------------------------------------------
# Where the operator builds nothing, and what is not known yet


def _bad_service_account(doc: JsonDict, cluster_key: str) -> JsonDict:
    doc["spec"][cluster_key]["headGroupSpec"]["template"]["spec"]["serviceAccountName"] = "Bad_SA"
    return doc


def test_every_kind_is_judged_at_its_own_path() -> None:
    job = _bad_service_account(example_job(), "rayClusterSpec")
    service = _bad_service_account(example_service(), "rayClusterConfig")
    cron = example_cronjob()
    cron["spec"]["jobTemplate"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["serviceAccountName"] = "Bad_SA"
    assert _found(job, "pod-service-account-name-invalid") == [("spec.rayClusterSpec.headGroupSpec.template.spec.serviceAccountName", "critical")]
    assert _found(service, "pod-service-account-name-invalid") == [("spec.rayClusterConfig.headGroupSpec.template.spec.serviceAccountName", "critical")]
    gates = {"RayCronJob": True}
    path = "spec.jobTemplate.rayClusterSpec.headGroupSpec.template.spec.serviceAccountName"
    assert _found(cron, "pod-service-account-name-invalid", feature_gates=gates) == [(path, "critical")]
    # A suspended RayCronJob creates nothing yet: high, not critical (enforced_by run-time).
    suspended = copy.deepcopy(cron)
    suspended["spec"]["suspend"] = True
    assert _found(suspended, "pod-service-account-name-invalid", feature_gates=gates) == [(path, "high")]


def test_templates_the_operator_never_builds_from_are_not_judged() -> None:
    job = _bad_service_account(example_job(), "rayClusterSpec")
    job["spec"]["clusterSelector"] = {"ray.io/cluster": "shared"}
    assert _found(job, "pod-service-account-name-invalid") == []
    service = _bad_service_account(example_service(), "rayClusterConfig")
    service["spec"]["rayClusterConfig"]["managedBy"] = "kueue.x-k8s.io/multikueue"
    assert _found(service, "pod-service-account-name-invalid") == []


def test_values_not_known_yet_are_not_judged() -> None:
    doc = example()
    _head_spec(doc)["serviceAccountName"] = UNKNOWN_SENTINEL
    _head_spec(doc)["volumes"] = UNKNOWN_SENTINEL
    _head_container(doc)["volumeMounts"] = [{"name": "data", "mountPath": "/d"}]
    _head_container(doc)["env"] = [{"name": UNKNOWN_SENTINEL, "valueFrom": UNKNOWN_SENTINEL}]
    _worker_container(doc)["resources"] = {"requests": {"cpu": UNKNOWN_SENTINEL}, "limits": {"cpu": "1"}}
    found = {f.rule_id for f in rules.check(doc) if f.rule_id.startswith("pod-") and f.rule_id != "pod-security-restricted"}
    assert found == set()
