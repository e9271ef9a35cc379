"""The newer Pod and container fields ``pod-spec-value-invalid`` judges (``rules/_pod_spec_fields.py``): each side of
what a default v1.36 API server refuses, with the finding's path and message, and what it accepts (never a false
alarm on a valid value)."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules._examples import example, worker_of

JsonDict = dict[str, Any]
WORKER = "spec.workerGroupSpecs[0].template.spec"
RULE = "pod-spec-value-invalid"
_RAY = {"name": "ray-worker", "image": "rayproject/ray:2.52.0"}


def _findings(doc: JsonDict) -> list[tuple[str, str]]:
    return [(f.path.removeprefix(WORKER + "."), f.message) for f in rules.check(doc) if f.rule_id == RULE]


def _worker_pod(container: JsonDict | None = None, **fields: Any) -> JsonDict:
    def edit(doc: JsonDict) -> None:
        spec = worker_of(doc)["template"]["spec"]
        spec.update(fields)
        if container is not None:
            spec["containers"] = [dict(_RAY, **container)]

    return example(edit)


_DATA = [{"name": "data", "emptyDir": {}}]
_DISK = [{"name": "disk", "persistentVolumeClaim": {"claimName": "disk"}}]


@pytest.mark.parametrize(
    ("container", "fields", "path", "says"),
    [
        # validateContainerRestartPolicy: ContainerRestartRules is on by default at 1.36
        ({"restartPolicy": "Never"}, {}, None, None),
        ({"restartPolicy": "never"}, {}, "containers[0].restartPolicy", "is not Always, OnFailure or Never"),
        (
            {
                "restartPolicy": "Never",
                "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}],
            },
            {},
            None,
            None,
        ),
        (
            {"restartPolicy": "Never", "restartPolicyRules": [{"action": "restart", "exitCodes": {"operator": "In"}}]},
            {},
            "containers[0].restartPolicyRules[0].action",
            "is not Restart or RestartAllContainers",
        ),
        (
            {"restartPolicy": "Never", "restartPolicyRules": [{"action": "Restart"}]},
            {},
            "containers[0].restartPolicyRules[0].exitCodes",
            "needs exitCodes",
        ),
        # validateResizePolicy
        (
            {
                "resizePolicy": [
                    {"resourceName": "cpu", "restartPolicy": "NotRequired"},
                    {"resourceName": "memory", "restartPolicy": "RestartContainer"},
                ]
            },
            {},
            None,
            None,
        ),
        (
            {"resizePolicy": [{"resourceName": "cpu", "restartPolicy": "Restart"}]},
            {},
            "containers[0].resizePolicy[0].restartPolicy",
            "is not NotRequired or RestartContainer",
        ),
        (
            {
                "resizePolicy": [
                    {"resourceName": "cpu", "restartPolicy": "NotRequired"},
                    {"resourceName": "cpu", "restartPolicy": "NotRequired"},
                ]
            },
            {},
            "containers[0].resizePolicy[1].resourceName",
            "names cpu twice",
        ),
        (
            {"resizePolicy": [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]},
            {"restartPolicy": "Never"},
            "containers[0].resizePolicy[0].restartPolicy",
            "must be NotRequired when the Pod's restartPolicy is Never",
        ),
        # validateSleepAction (zero allowed), validateHTTPGetAction's header names
        ({"lifecycle": {"preStop": {"sleep": {"seconds": 0}}}}, {}, None, None),
        ({"lifecycle": {"preStop": {"sleep": {"seconds": 60}}}}, {"terminationGracePeriodSeconds": 120}, None, None),
        (
            {"lifecycle": {"preStop": {"sleep": {"seconds": 31}}}},
            {},
            "containers[0].lifecycle.preStop.sleep.seconds",
            "sleep 31s must be in 0..terminationGracePeriodSeconds (30)",
        ),
        (
            {"livenessProbe": {"httpGet": {"port": 8000, "httpHeaders": [{"name": "X-Token", "value": "a b"}]}}},
            {},
            None,
            None,
        ),
        (
            {"livenessProbe": {"httpGet": {"port": 8000, "httpHeaders": [{"name": "X-Token:", "value": "1"}]}}},
            {},
            "containers[0].livenessProbe.httpGet.httpHeaders[0].name",
            "is not a header name",
        ),
        # validateContainerResourceDivisor
        (
            {
                "env": [
                    {"name": "M", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1024Mi"}}}
                ]
            },
            {},
            None,
            None,
        ),
        (
            {
                "env": [
                    {"name": "C", "valueFrom": {"resourceFieldRef": {"resource": "requests.cpu", "divisor": "1000m"}}}
                ]
            },
            {},
            None,
            None,
        ),
        (
            {
                "env": [
                    {"name": "M", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1000Mi"}}}
                ]
            },
            {},
            "containers[0].env[0].valueFrom.resourceFieldRef.divisor",
            "divisor '1000Mi' of limits.memory is not one of 1, 1k",
        ),
        # validateFileKeySelector, validateFileKeyRefVolumes
        (
            {"env": [{"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "data", "path": "a.env", "key": "A"}}}]},
            {"volumes": _DATA},
            None,
            None,
        ),
        (
            {"env": [{"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "cfg", "path": "a.env", "key": "A"}}}]},
            {"volumes": _DATA},
            "containers[0].env[0].valueFrom.fileKeyRef.volumeName",
            "names no volume of the Pod",
        ),
        (
            {
                "env": [
                    {"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "data", "path": "../a.env", "key": "A"}}}
                ]
            },
            {"volumes": _DATA},
            "containers[0].env[0].valueFrom.fileKeyRef.path",
            "is empty or has '..'",
        ),
        # ValidateVolumeMounts, validateMountRecursiveReadOnly, ValidateVolumeDevices
        (
            {
                "volumeMounts": [
                    {"name": "data", "mountPath": "/d", "readOnly": True, "recursiveReadOnly": "IfPossible"}
                ]
            },
            {"volumes": _DATA},
            None,
            None,
        ),
        (
            {"volumeMounts": [{"name": "data", "mountPath": "/d", "readOnly": True, "recursiveReadOnly": "enabled"}]},
            {"volumes": _DATA},
            "containers[0].volumeMounts[0].recursiveReadOnly",
            "is not Disabled, IfPossible or Enabled",
        ),
        ({"volumeDevices": [{"name": "disk", "devicePath": "/dev/xvda"}]}, {"volumes": _DISK}, None, None),
        (
            {
                "volumeDevices": [
                    {"name": "disk", "devicePath": "/dev/xvda"},
                    {"name": "disk", "devicePath": "/dev/xvdb"},
                ]
            },
            {"volumes": _DISK},
            "containers[0].volumeDevices[1].name",
            "names 'disk' twice",
        ),
        (
            {"volumeDevices": [{"name": "disk", "devicePath": "/dev/xvda"}]},
            {"volumes": _DISK, "hostUsers": False},
            "containers[0].volumeDevices",
            "volumeDevices cannot be used when hostUsers is false",
        ),
        # ValidateProcMountType, hugepages
        ({"securityContext": {"procMount": "Unmasked"}}, {"hostUsers": False}, None, None),
        (
            {"securityContext": {"procMount": "Masked"}},
            {},
            "containers[0].securityContext.procMount",
            "procMount 'Masked' is not Default or Unmasked",
        ),
        ({"resources": {"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}}}, {}, None, None),
        (
            {"resources": {"limits": {"hugepages-1Gi": "1536Mi", "memory": "2Gi"}}},
            {},
            "containers[0].resources.limits[hugepages-1Gi]",
            "is not a whole number of 1Gi pages",
        ),
    ],
)
def test_a_container_field(container: JsonDict, fields: JsonDict, path: str | None, says: str | None) -> None:
    found = _findings(_worker_pod(container, **fields))
    if path is None:
        assert found == []
    else:
        assert says is not None and [p for p, _ in found] == [path]
        assert says in found[0][1] and found[0][1].endswith("the workload never starts")


@pytest.mark.parametrize(
    ("fields", "path", "says"),
    [
        # validateLinux, validateWindows, validateWindowsSecurityContextOptions, validateWindowsHostProcessPod
        ({"os": {"name": "linux"}, "securityContext": {"runAsUser": 1000}}, None, None),
        ({"os": {"name": "windows"}}, None, None),
        (
            {"os": {"name": "windows"}, "hostPID": True},
            "hostPID",
            "hostPID cannot be set for a Pod with os.name windows",
        ),
        (
            {"os": {"name": "windows"}, "resources": {"limits": {"cpu": "1"}}},
            "resources",
            "resources cannot be set for a Pod with os.name windows",
        ),
        (
            {"securityContext": {"windowsOptions": {"gmsaCredentialSpecName": "webapp_1"}}},
            "securityContext.windowsOptions.gmsaCredentialSpecName",
            "is not a DNS-1123 subdomain",
        ),
        ({"securityContext": {"windowsOptions": {"runAsUserName": "NT AUTHORITY\\NETWORK SERVICE"}}}, None, None),
        ({"securityContext": {"windowsOptions": {"hostProcess": True}}, "hostNetwork": True}, None, None),
        ({"securityContext": {"windowsOptions": {"hostProcess": True}}}, "hostNetwork", "needs hostNetwork true"),
        # validateHostUsers, validatePodHostName
        ({"hostUsers": False}, None, None),
        # hostNetwork beside hostUsers false: a gate decides (pod-field-needs-feature-gate, high)
        ({"hostUsers": False, "hostNetwork": True}, None, None),
        ({"hostUsers": False, "hostIPC": True}, "hostIPC", "hostIPC cannot be true when hostUsers is false"),
        ({"hostnameOverride": "ray-worker.example"}, None, None),
        (
            {"hostnameOverride": "ray-worker", "setHostnameAsFQDN": True},
            "hostnameOverride",
            "cannot be set with setHostnameAsFQDN true",
        ),
        # validateOverhead, validatePodResources, validatePodResourceConsistency
        ({"overhead": {"cpu": "250m", "memory": "120Mi"}}, None, None),
        (
            {"overhead": {"gpu": "1"}},
            "overhead[gpu]",
            "overhead resource name 'gpu' is not a standard container resource",
        ),
        ({"resources": {"requests": {"cpu": "8"}, "limits": {"cpu": "8", "hugepages-2Mi": "2Mi"}}}, None, None),
        (
            {"resources": {"requests": {"ephemeral-storage": "1Gi"}}},
            "resources.requests[ephemeral-storage]",
            "cannot be set in the Pod's own resources",
        ),
        (
            {"resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}},
            "resources.requests[cpu]",
            "request is above its limit",
        ),
        (
            {
                "resources": {"limits": {"memory": "1Gi"}},
                "containers": [dict(_RAY, resources={"limits": {"memory": "2Gi"}})],
            },
            "containers[0].resources.limits[memory]",
            "above the Pod's own limit",
        ),
        # validatePodResourceClaim, validateResourceClaimNames
        (
            {
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "a100"}],
                "containers": [dict(_RAY, resources={"claims": [{"name": "gpu"}]})],
            },
            None,
            None,
        ),
        (
            {
                "resourceClaims": [
                    {"name": "gpu", "resourceClaimTemplateName": "a100"},
                    {"name": "gpu", "resourceClaimName": "b"},
                ]
            },
            "resourceClaims[1].name",
            "is listed twice",
        ),
        (
            {"resourceClaims": [{"name": "GPU", "resourceClaimName": "a100"}]},
            "resourceClaims[0].name",
            "is not a DNS-1123 label",
        ),
        (
            {
                "resourceClaims": [{"name": "gpu", "resourceClaimName": "a"}],
                "containers": [dict(_RAY, resources={"claims": [{"name": "gpu"}, {"name": "gpu"}]})],
            },
            "containers[0].resources.claims[1]",
            "names 'gpu' twice",
        ),
    ],
)
def test_a_pod_field(fields: JsonDict, path: str | None, says: str | None) -> None:
    found = _findings(_worker_pod(**fields))
    if path is None:
        assert found == []
    else:
        assert says is not None and [p for p, _ in found] == [path]
        assert says in found[0][1]


def test_an_init_container_restarts_only_as_a_sidecar_after_a_resize() -> None:
    policy = [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]
    init = {"name": "init", "image": "busybox", "resizePolicy": policy}
    sidecar = dict(init, restartPolicy="Always")
    assert _findings(_worker_pod(initContainers=[sidecar])) == []
    found = _findings(_worker_pod(initContainers=[init]))
    assert [p for p, _ in found] == ["initContainers[0].resizePolicy[0].restartPolicy"]
    assert "only allowed on a sidecar" in found[0][1]


def test_the_autoscaler_mounts_name_a_head_volume_or_one_kuberay_adds() -> None:
    def cluster(mounts: list[JsonDict], volumes: list[JsonDict] | None = None) -> JsonDict:
        def edit(doc: JsonDict) -> None:
            doc["spec"].update(enableInTreeAutoscaling=True, autoscalerOptions={"volumeMounts": mounts})
            if volumes is not None:
                doc["spec"]["headGroupSpec"]["template"]["spec"]["volumes"] = volumes

        return example(edit)

    logs = [{"name": "ray-logs", "mountPath": "/tmp/ray"}]
    assert [f for f in rules.check(cluster(logs)) if f.rule_id == RULE] == []
    assert [f for f in rules.check(cluster([{"name": "data", "mountPath": "/d"}], _DATA)) if f.rule_id == RULE] == []
    found = [f for f in rules.check(cluster([{"name": "cfg", "mountPath": "/cfg"}])) if f.rule_id == RULE]
    assert [f.path for f in found] == ["spec.autoscalerOptions.volumeMounts[0].name"]
    assert "names 'cfg', no volume of the head Pod" in found[0].message


def test_nothing_is_not_found_among_volumes_not_known_until_apply_or_added_by_kuberay() -> None:
    ref = {"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "data", "path": "a.env", "key": "A"}}}
    device = {"name": "disk", "devicePath": "/dev/xvda"}
    assert _findings(_worker_pod({"env": [ref], "volumeDevices": [device]}, volumes=UNKNOWN_SENTINEL)) == []
    assert _findings(_worker_pod({"env": [ref]}, volumes=[{"name": UNKNOWN_SENTINEL, "emptyDir": {}}])) == []
    shared = {"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "shared-mem", "path": "a.env", "key": "A"}}}
    assert _findings(_worker_pod({"env": [shared]})) == []  # BuildPod adds shared-mem, an emptyDir
    found = _findings(_worker_pod({"env": [ref]}))
    assert [p for p, _ in found] == ["containers[0].env[0].valueFrom.fileKeyRef.volumeName"]
