"""The samples of tests/rules/test_k8s_validation_table.py (first part): for rows of docs/kubernetes-validation.md,
an edit of an example Ray object that reaches the row's check, and the critical rule expected to fire on it."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pulumi_kuberay.rules import _examples as ex

Doc = dict[str, Any]

# --------------------------------------------------------------------------------------------------
# Samples: for each rule of the table, rows whose check a Ray object reaches, and the rule firing on it


def _cluster_spec(doc: Doc) -> Doc:
    spec: Doc = doc["spec"]
    embedded = {"RayCluster": spec, "RayJob": spec.get("rayClusterSpec"), "RayService": spec.get("rayClusterConfig")}
    return embedded[doc["kind"]] or {}


def _where(doc: Doc, where: str) -> Doc:
    """The object of ``doc`` an edit sets a key of: the object's spec or metadata, the head or first worker group,
    its pod spec or its first container."""
    cluster = _cluster_spec(doc)
    group = {"head": cluster.get("headGroupSpec"), "worker": (cluster.get("workerGroupSpecs") or [{}])[0]}
    role, _, part = where.partition("-")
    found: Doc
    if role in ("spec", "metadata"):
        found = doc[role]
    elif role == "cluster":
        found = cluster
    elif part == "group":
        found = group[role]
    elif part == "template":
        found = group[role]["template"]
    elif part == "pod":
        found = group[role]["template"]["spec"]
    else:  # container
        found = group[role]["template"]["spec"]["containers"][0]
    return found


def _set(where: str, **fields: Any) -> Callable[[Doc], None]:
    return lambda doc: _where(doc, where).update(copy.deepcopy(fields))


KINDS: dict[str, Callable[[], Doc]] = {
    "RayCluster": ex.example,
    "RayJob": ex.example_job,
    "RayService": ex.example_service,
}
_GPU = "nvidia.com/gpu"
_INGRESS = "kubernetes.io/ingress.class"
_TERMS = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In"}]}]}
_SUBMITTER = {"spec": {"restartPolicy": "Always", "containers": [{"name": "submitter", "image": ex.RAY_IMAGE}]}}
_WORKER = {"name": "w", "image": ex.RAY_IMAGE}
_DAY_AND_A_SECOND = {"clientIP": {"timeoutSeconds": 86401}}
_NO_ACCESS_MODES = {"resources": {"requests": {"storage": "1Gi"}}}
_SPREAD = {"maxSkew": 1, "topologyKey": "zone"}
_HEAD_PORTS = [{"name": "dashboard", "containerPort": 8265}, {"name": "app", "containerPort": 8080}]

_CLAIM = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
_SNAPSHOT = {"name": "snap", "kind": "VolumeSnapshot"}
#: (function, the check's first words, kind, a worker volume but its name) of the in-tree plugins and the rest.
_VOLUME_SAMPLES: list[tuple[str, str, str, Doc]] = [
    (
        "validateISCSIVolumeSource",
        "targetPortal, iqn",
        "RayCluster",
        {"iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:t", "lun": 256}},
    ),
    ("validateFCVolumeSource", "targetWWNs with lun", "RayJob", {"fc": {"targetWWNs": ["500a0982991b8dc5"]}}),
    ("validateGCEPersistentDiskVolumeSource", "pdName required", "RayService", {"gcePersistentDisk": {"pdName": "d", "partition": -1}}),
    ("validateAWSElasticBlockStoreVolumeSource", "volumeID required", "RayCluster", {"awsElasticBlockStore": {"volumeID": ""}}),
    ("validateQuobyteVolumeSource", "registry or tenant", "RayJob", {"quobyte": {"registry": "registry.local", "volume": "v"}}),
    ("validateGlusterfsVolumeSource", "endpoints and path", "RayService", {"glusterfs": {"endpoints": "gluster", "path": ""}}),
    ("validateFlockerVolumeSource", "exactly one of datasetName", "RayCluster", {"flocker": {"datasetName": "a/b"}}),
    (
        "validateDownwardAPIVolumeFile",
        "the fieldRef and resourceFieldRef values",
        "RayJob",
        {"downwardAPI": {"items": [{"path": "node", "fieldRef": {"fieldPath": "spec.nodeName"}}]}},
    ),
    (
        "validateProjectionSources",
        "one source per projection",
        "RayService",
        {"projected": {"sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": 60}}]}},
    ),
    ("validateRBDVolumeSource", "monitors and image", "RayCluster", {"rbd": {"monitors": [], "image": "img"}}),
    ("validateCinderVolumeSource", "volumeID required, secretRef", "RayJob", {"cinder": {"volumeID": "v", "secretRef": {}}}),
    ("validateCephFSVolumeSource", "monitors required", "RayService", {"cephfs": {"monitors": []}}),
    ("validateFlexVolumeSource", "driver required", "RayCluster", {"flexVolume": {"driver": "d", "options": {"kubernetes.io/secret": "x"}}}),
    ("validateAzureFile", "secretName and shareName", "RayJob", {"azureFile": {"secretName": "s", "shareName": ""}}),
    ("validateAzureDisk", "diskName, diskURI", "RayService", {"azureDisk": {"diskName": "d", "diskURI": "/subscriptions/s/disks/d"}}),
    ("validateVsphereVolumeSource", "volumePath required", "RayCluster", {"vsphereVolume": {"volumePath": ""}}),
    ("validatePhotonPersistentDiskVolumeSource", "pdID required", "RayJob", {"photonPersistentDisk": {"pdID": ""}}),
    ("validatePortworxVolumeSource", "volumeID required", "RayService", {"portworxVolume": {"volumeID": ""}}),
    (
        "validateScaleIOVolumeSource",
        "gateway, system",
        "RayCluster",
        {"scaleIO": {"gateway": "g", "system": "s", "volumeName": "", "secretRef": {"name": "s"}}},
    ),
    ("validateStorageOSVolumeSource", "volumeName required", "RayJob", {"storageos": {"volumeName": "Vol_1"}}),
    (
        "validateCSIVolumeSource",
        "driver, nodePublishSecretRef",
        "RayService",
        {"csi": {"driver": "csi.example.com", "nodePublishSecretRef": {"name": ""}}},
    ),
    ("validateImageVolumeSource", "image.reference required", "RayCluster", {"image": {"reference": "", "pullPolicy": "IfNotPresent"}}),
    (
        "ValidatePersistentVolumeClaimSpec",
        "ReadWriteOncePod alone",
        "RayJob",
        {"ephemeral": {"volumeClaimTemplate": {"spec": dict(_CLAIM, storageClassName="Fast_SSD")}}},
    ),
    (
        "validateDataSource",
        "dataSource name and kind",
        "RayService",
        {"ephemeral": {"volumeClaimTemplate": {"spec": dict(_CLAIM, dataSource=_SNAPSHOT)}}},
    ),
    (
        "validateDataSourceRef",
        "dataSourceRef name",
        "RayCluster",
        {"ephemeral": {"volumeClaimTemplate": {"spec": dict(_CLAIM, dataSourceRef=dict(_SNAPSHOT, apiGroup="Snapshot"))}}},
    ),
    (
        "ValidateLocalNonReservedPath",
        "a path not starting with '..': projected",
        "RayJob",
        {"projected": {"sources": [{"configMap": {"name": "c", "items": [{"key": "k", "path": "..k"}]}}]}},
    ),
]  # fmt: skip

#: (function, the check's first words, kind, edit of the baseline of that kind, rule expected).
#: (function, the check's first words, kind, edit of the baseline of that kind, rule expected).
SAMPLES_FIRST: list[tuple[str, str, str, Callable[[Doc], Any], str]] = [
    (
        "ValidateTolerations",
        "operator Exists or Equal",
        "RayService",
        _set("worker-pod", tolerations=[{"key": _GPU, "operator": "exists"}]),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateTolerations",
        "Exists takes no value",
        "RayJob",
        _set("worker-pod", tolerations=[{"key": _GPU, "operator": "Exists", "value": "true"}]),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateTolerations",
        "effect NoSchedule",
        "RayCluster",
        _set("worker-pod", tolerations=[{"operator": "Exists", "effect": "NoSchedule ", "tolerationSeconds": 5}]),
        "pod-spec-value-invalid",
    ),
    ("validateDNSPolicy", "dnsPolicy ClusterFirst", "RayCluster", _set("head-pod", dnsPolicy="clusterFirst"), "pod-spec-value-invalid"),
    (
        "ValidatePodCreate",
        "ephemeralContainers forbidden",
        "RayJob",
        _set("head-pod", ephemeralContainers=[{"name": "debug", "image": "busybox"}]),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateNodeSelectorRequirement",
        "operator In, NotIn",
        "RayService",
        _set("worker-pod", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": _TERMS}}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidatePreferredSchedulingTerms",
        "weight 1..100",
        "RayCluster",
        _set("worker-pod", affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "preference": {}}]}}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateWhenUnsatisfiable",
        "DoNotSchedule or ScheduleAnyway",
        "RayCluster",
        _set("worker-pod", topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Never"}]),
        "pod-spec-value-invalid",
    ),
    (
        "ValidatePodSpec",
        "nodeSelector labels",
        "RayJob",
        _set("worker-pod", nodeSelector={"cloud.google.com/gke-accelerator": "nvidia tesla"}),
        "pod-spec-value-invalid",
    ),
    (
        "validatePodDNSConfig",
        "dnsPolicy None requires",
        "RayJob",
        _set("head-pod", dnsPolicy="None", dnsConfig={"searches": ["svc.cluster.local"]}),
        "pod-spec-value-invalid",
    ),
    (
        "validatePodHostNetworkDeps",
        "hostNetwork: hostPort equals",
        "RayCluster",
        _set("worker-pod", hostNetwork=True, containers=[dict(_WORKER, ports=[{"containerPort": 9000, "hostPort": 9001}])]),
        "pod-spec-value-invalid",
    ),
    (
        "AccumulateUniqueHostPorts",
        "hostPort and protocol unique",
        "RayService",
        _set("worker-pod", containers=[dict(_WORKER, name=n, ports=[{"containerPort": 9000, "hostPort": 9000}]) for n in "ab"]),
        "pod-spec-value-invalid",
    ),
    (
        "validateMinDomains",
        "minDomains > 0",
        "RayService",
        _set("worker-pod", topologySpreadConstraints=[dict(_SPREAD, whenUnsatisfiable="ScheduleAnyway", minDomains=2)]),
        "pod-spec-value-invalid",
    ),
    ("ValidatePodSpec", "priorityClassName", "RayCluster", _set("head-pod", priorityClassName="High_Priority"), "pod-spec-value-invalid"),
    (
        "validatePodSpecSecurityContext",
        "fsGroup, runAsUser",
        "RayCluster",
        _set("head-pod", securityContext={"runAsUser": -1}),
        "pod-spec-value-invalid",
    ),
    (
        "validateSeccompProfileType",
        "RuntimeDefault, Unconfined or Localhost",
        "RayJob",
        _set("worker-container", securityContext={"seccompProfile": {"type": "runtime/default"}}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateTolerationsInPodAnnotations",
        "the tolerations annotation is JSON",
        "RayCluster",
        _set("worker-template", metadata={"annotations": {"scheduler.alpha.kubernetes.io/tolerations": '[{"operator": "exists"}]'}}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidatePodSpecificAnnotations",
        "controller.kubernetes.io/pod-deletion-cost",
        "RayService",
        _set("worker-template", metadata={"annotations": {"controller.kubernetes.io/pod-deletion-cost": "1e3"}}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateSeccompProfile",
        "runtime/default, docker/default",
        "RayJob",
        _set("head-template", metadata={"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "RuntimeDefault"}}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateAppArmorPodAnnotations",
        "container.apparmor.security.beta.kubernetes.io/<name> names a container",
        "RayCluster",
        _set("worker-template", metadata={"annotations": {"container.apparmor.security.beta.kubernetes.io/ray": "runtime/default"}}),
        "pod-spec-value-invalid",
    ),
    (
        "validateAppArmorAnnotationsAndFieldsMatchOnCreate",
        "annotation and appArmorProfile",
        "RayCluster",
        lambda d: (
            _set("worker-template", metadata={"annotations": {"container.apparmor.security.beta.kubernetes.io/ray-worker": "unconfined"}})(d),
            _set("worker-container", securityContext={"appArmorProfile": {"type": "RuntimeDefault"}})(d),
        ),
        "pod-spec-value-invalid",
    ),
    (
        "validateSeccompAnnotationsAndFieldsMatch",
        "annotation and seccompProfile",
        "RayService",
        lambda d: (
            _set("head-template", metadata={"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}})(d),
            _set("head-pod", securityContext={"seccompProfile": {"type": "RuntimeDefault"}})(d),
        ),
        "pod-spec-value-invalid",
    ),
    (
        "validatePodDNSConfig",
        "at most 32 searches",
        "RayCluster",
        _set("worker-pod", dnsConfig={"searches": ["ns1.svc.cluster.local", "Corp.Example.com"]}),
        "pod-spec-value-invalid",
    ),
    (
        "validatePodSpecSecurityContext",
        "shareProcessNamespace with hostPID",
        "RayJob",
        _set("worker-pod", shareProcessNamespace=True, hostPID=True),
        "pod-spec-value-invalid",
    ),
    (
        "validateSupplementalGroupsPolicy",
        "Merge or Strict",
        "RayCluster",
        _set("head-pod", securityContext={"supplementalGroupsPolicy": "strict"}),
        "pod-spec-value-invalid",
    ),
    (
        "validateSELinuxChangePolicy",
        "Recursive or MountOption",
        "RayService",
        _set("worker-pod", securityContext={"seLinuxChangePolicy": "mountOption"}),
        "pod-spec-value-invalid",
    ),
    (
        "validateSysctls",
        "sysctl names valid and unique",
        "RayCluster",
        _set(
            "worker-pod",
            securityContext={
                "sysctls": [{"name": "vm.max_map_count", "value": "1"}, {"name": "vm.max_map_count", "value": "2"}]
            },
        ),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateHostSysctl",
        "net.* sysctls forbidden with hostNetwork",
        "RayJob",
        _set("worker-pod", hostNetwork=True, securityContext={"sysctls": [{"name": "net.core.somaxconn", "value": "4096"}]}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateNodeFieldSelectorRequirement",
        "matchFields: key metadata.name",
        "RayCluster",
        _set(
            "worker-pod",
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}
                        ]
                    }
                }
            },
        ),
        "pod-spec-value-invalid",
    ),
    (
        "ValidatePodAffinityTermSelector",
        "labelSelector and namespaceSelector",
        "RayService",
        _set(
            "worker-pod",
            affinity={
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "topologyKey": "zone",
                            "labelSelector": {
                                "matchExpressions": [{"key": "app", "operator": "in", "values": ["ray"]}]
                            },
                        }
                    ]
                }
            },
        ),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateMatchLabelKeysAndMismatchLabelKeys",
        "matchLabelKeys and mismatchLabelKeys",
        "RayCluster",
        _set(
            "worker-pod",
            affinity={
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "topologyKey": "zone",
                            "labelSelector": {"matchLabels": {"ray.io/cluster": "a"}},
                            "matchLabelKeys": ["ray.io/cluster"],
                        }
                    ]
                }
            },
        ),
        "pod-spec-value-invalid",
    ),
    (
        "validateLabelKeys",
        "keys are label keys",
        "RayJob",
        _set(
            "worker-pod",
            affinity={
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"topologyKey": "zone", "labelSelector": {}, "mismatchLabelKeys": ["team name"]}
                    ]
                }
            },
        ),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateTolerations",
        "Gt and Lt values decimal",
        "RayCluster",
        _set("worker-pod", tolerations=[{"key": "gpu-count", "operator": "Gt", "value": "2.5"}]),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateMatchLabelKeysAndMismatchLabelKeys",
        "matchLabelKeys and mismatchLabelKeys",
        "RayService",
        lambda d: (
            _set("worker-template", metadata={"labels": {"app": "ray"}})(d),
            _set(
                "worker-pod",
                topologySpreadConstraints=[
                    dict(
                        _SPREAD,
                        whenUnsatisfiable="DoNotSchedule",
                        labelSelector={"matchLabels": {"app": "ray"}},
                        matchLabelKeys=["app"],
                    )
                ],
            )(d),
        ),
        "pod-spec-value-invalid",
    ),
    (
        "validateContainerCommon",
        "terminationMessagePolicy File",
        "RayService",
        _set("head-container", terminationMessagePolicy="file"),
        "pod-spec-value-invalid",
    ),
    (
        "validatePodMetadataAndSpec",
        "metadata.name (generateName) a DNS-1123 subdomain: the worker",
        "RayCluster",
        _set("worker-group", groupName="GPU workers"),
        "worker-group-name-invalid",
    ),
    (
        "validatePodMetadataAndSpec",
        "metadata.name (generateName) a DNS-1123 subdomain: the worker",
        "RayJob",
        _set("worker-group", groupName="gpu_workers"),
        "worker-group-name-invalid",
    ),
    (
        "validatePodMetadataAndSpec",
        "metadata.name (generateName) a DNS-1123 subdomain: the head",
        "RayCluster",
        _set("metadata", name="ray.cluster"),
        "cluster-name-invalid",
    ),
    ("ValidateServiceCreate", "metadata (ValidateServiceName", "RayCluster", _set("metadata", name="1-cluster"), "cluster-name-invalid"),
    (
        "validateContainerOnlyForPod",
        "image without leading",
        "RayCluster",
        _set("head-container", image=ex.RAY_IMAGE + " "),
        "image-reference-invalid",
    ),
    ("ValidatePodSpec", "serviceAccountName", "RayService", _set("head-pod", serviceAccountName="Ray_SA"), "pod-service-account-name-invalid"),
    ("validateRestartPolicy", "restartPolicy Always", "RayCluster", _set("worker-pod", restartPolicy="never"), "pod-policy-invalid"),
    ("batch.ValidateJobSpec", "the template's restartPolicy", "RayJob", _set("spec", submitterPodTemplate=_SUBMITTER), "pod-policy-invalid"),
    ("validatePullPolicy", "Always, IfNotPresent", "RayJob", _set("worker-container", imagePullPolicy="ifNotPresent"), "pod-policy-invalid"),
    (
        "validatePullPolicy",
        "Always, IfNotPresent",
        "RayService",
        _set("cluster", enableInTreeAutoscaling=True, autoscalerOptions={"imagePullPolicy": "always"}),
        "pod-policy-invalid",
    ),
    (
        "validateSchedulingGates",
        "names qualified and unique",
        "RayCluster",
        _set("worker-pod", schedulingGates=[{"name": "g"}, {"name": "g"}]),
        "list-map-duplicate-key",
    ),
    ("validateContainers", "containers required", "RayCluster", _set("worker-pod", containers=[]), "pod-template-no-containers"),
    (
        "validateContainers",
        "container names unique across",
        "RayService",
        _set("head-pod", initContainers=[{"name": "ray-head", "image": ex.RAY_IMAGE}]),
        "pod-container-name-invalid",
    ),
    (
        "validateContainers",
        "container names unique: the ones KubeRay adds",
        "RayCluster",
        _set("worker-pod", initContainers=[{"name": "wait-gcs-ready", "image": ex.RAY_IMAGE}]),
        "pod-container-name-invalid",
    ),
    ("validateContainerCommon", "image required", "RayJob", _set("worker-pod", initContainers=[{"name": "init"}]), "pod-container-image-missing"),
    (
        "validateHandler",
        "exactly one handler",
        "RayCluster",
        _set("worker-container", readinessProbe={"exec": {"command": ["true"]}, "tcpSocket": {"port": 8080}}),
        "pod-probe-invalid",
    ),
    (
        "validateContainerPorts",
        "containerPort 1-65535",
        "RayService",
        _set("head-container", ports=[{"name": "dashboard", "containerPort": 8265}, {"name": "serve", "containerPort": 70000}]),
        "pod-container-port-invalid",
    ),
    ("ValidateEnv", "name required, relaxed", "RayJob", _set("head-container", env=[{"name": "A=B", "value": "1"}]), "pod-env-var-invalid"),
    (
        "ValidateEnvFrom",
        "prefix a relaxed env var name",
        "RayService",
        _set("worker-container", envFrom=[{"configMapRef": {"name": "cfg"}, "secretRef": {"name": "creds"}}]),
        "pod-env-var-invalid",
    ),
    (
        "validateSecretEnvSource",
        "secretRef name required",
        "RayCluster",
        _set("worker-container", envFrom=[{"secretRef": {"name": "Creds"}}]),
        "pod-env-var-invalid",
    ),
    (
        "validateInitContainers",
        "lifecycle and probes only on sidecars",
        "RayCluster",
        _set("worker-pod", initContainers=[{"name": "init", "image": ex.RAY_IMAGE, "readinessProbe": {"exec": {"command": ["true"]}}}]),
        "pod-probe-invalid",
    ),
    (
        "validateHTTPGetAction",
        "httpGet.scheme HTTP or HTTPS",
        "RayJob",
        _set("head-container", lifecycle={"preStop": {"httpGet": {"port": 8265, "scheme": "http"}}}),
        "pod-probe-invalid",
    ),
    (
        "validateExecAction",
        "exec.command required",
        "RayService",
        _set("worker-container", livenessProbe={"exec": {}}),
        "pod-probe-invalid",
    ),
]
