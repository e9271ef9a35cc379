"""docs/kubernetes-validation.md: every check of Kubernetes' validation of the objects the operator creates (Pods,
Services, the submitter Job, the Ingress), each with the critical rule that catches it or why no Ray object reaches
it. The function list is extracted from Kubernetes' Go source into tools/k8s_validation/functions.json (checked in:
no Go here); the verdicts are tools/k8s_validation/checks.yaml, by hand."""

from __future__ import annotations

import copy
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.kubernetes import (
    LOAD_BALANCER_SOURCE_RANGES_ANNOTATION,
    TOPOLOGY_AWARE_HINTS_ANNOTATION,
    TOPOLOGY_MODE_ANNOTATION,
    VOLUME_SOURCES,
)
from pulumi_kuberay.model import _k8s
from pulumi_kuberay.rules import _examples as ex

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import gen_k8s_validation_table as table

FUNCTIONS = table.load_functions()
CHECKS = table.load_checks()
ROWS = [(key, check) for key, checks in CHECKS.items() for check in checks]
#: The checks reachable from a Ray object that no rule catches yet (docs/kubernetes-validation.md says "reachable, no
#: rule yet"): a rule added for one moves it to its column, and this number down.
GAPS = 1

Doc = dict[str, Any]


def test_every_extracted_function_has_its_checks_and_no_other() -> None:
    keys = [table.function_key(row) for row in FUNCTIONS["functions"]]
    assert len(keys) == len(set(keys)) == 241
    assert [k for k in keys if k not in CHECKS] == []  # a function new in Kubernetes: give it its checks
    assert [k for k in CHECKS if k not in keys] == []  # a function Kubernetes dropped: drop its checks
    assert FUNCTIONS["kubernetes"] == table.KUBERNETES_VERSION


def test_every_check_has_one_verdict() -> None:
    for key, check in ROWS:
        verdicts = [v for v in ("rule", "unreachable", "gap") if check.get(v)]
        assert check.get("check") and len(verdicts) == 1 and set(check) == {"check", verdicts[0]}, (key, check)


def test_every_rule_of_the_table_is_a_critical_rule_of_the_catalogue() -> None:
    named = {check["rule"] for _, check in ROWS if "rule" in check}
    assert len(named) >= 20
    for rule_id in sorted(named):
        assert rule_id in rules.RULES, rule_id
        assert rules.RULES[rule_id].severity == "critical", rule_id


def test_the_gap_is_counted() -> None:
    gaps = [(key, check["check"]) for key, check in ROWS if "gap" in check]
    assert len(gaps) == GAPS
    page = table.OUTPUT.read_text(encoding="utf-8")
    assert f"{GAPS} not yet" in page and page.count("reachable, no rule yet: ") == GAPS


def test_the_page_is_current() -> None:
    assert table.OUTPUT.read_text(encoding="utf-8") == table.render(), "run scripts/gen-k8s-validation-table"


def test_the_roots_are_what_the_api_server_runs_on_the_children() -> None:
    roots = ["core.ValidatePodCreate", "core.ValidateServiceCreate", "batch.ValidateJob", "networking.ValidateIngressCreate"]
    assert FUNCTIONS["roots"] == roots
    by_name = {table.function_key(row): row for row in FUNCTIONS["functions"]}
    assert by_name["ValidatePodSpec"]["roots"] == ["ValidateJob", "ValidatePodCreate"]
    assert "Required(image)" in by_name["validateContainerCommon"]["sites"]
    assert by_name["networking.validateIngressRules"]["roots"] == ["ValidateIngressCreate"]


def test_the_checked_in_list_is_what_the_source_gives() -> None:
    """Where the k8s.io/kubernetes module is in the Go module cache (``go mod download``), the extraction gives the
    checked-in list again; without Go or the module the list is taken as it is (CI needs no Go here)."""
    if shutil.which("go") is None:
        pytest.skip("no Go toolchain: the checked-in tools/k8s_validation/functions.json is taken as it is")
    module = table.module_dir_default()
    if not module.is_dir():
        pytest.skip(f"{module} is not in the Go module cache (go mod download -json k8s.io/kubernetes@{table.KUBERNETES_VERSION})")
    assert table.extract(module) == FUNCTIONS, "run scripts/gen-k8s-validation-table --extract"


def test_the_extraction_reads_calls_not_comments_or_strings() -> None:
    code = 'func A() {\n\t// B() in a comment\n\tx := "C()"\n\tD(y)\n\tapivalidation.E(z)\n\tF := other.G()\n}\n'
    stripped = table.strip_go(code)
    assert "B()" not in stripped and "C()" not in stripped and "D(y)" in stripped
    known = {
        (p, n): table.GoFunction(p, n, "f.go", 1, table.strip_go(code) if n == "A" else "", "")
        for p, n in (("batch", "A"), ("batch", "B"), ("batch", "C"), ("batch", "D"), ("core", "E"), ("batch", "G"))
    }
    assert table._references(known[("batch", "A")], known) == {("batch", "D"), ("core", "E")}


def test_the_volume_sources_are_the_crds() -> None:
    """kuberay.kubernetes.VOLUME_SOURCES (validateVolumeSource: exactly one) is every field of the CRDs' Volume but
    its name."""
    fields = {info.alias or name for name, info in _k8s.Volume.model_fields.items()} - {"name"}
    assert set(VOLUME_SOURCES) == fields


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
    ("validateISCSIVolumeSource", "targetPortal, iqn", "RayCluster", {"iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:t", "lun": 256}}),
    ("validateFCVolumeSource", "targetWWNs with lun", "RayJob", {"fc": {"targetWWNs": ["500a0982991b8dc5"]}}),
    ("validateGCEPersistentDiskVolumeSource", "pdName required", "RayService", {"gcePersistentDisk": {"pdName": "d", "partition": -1}}),
    ("validateAWSElasticBlockStoreVolumeSource", "volumeID required", "RayCluster", {"awsElasticBlockStore": {"volumeID": ""}}),
    ("validateQuobyteVolumeSource", "registry or tenant", "RayJob", {"quobyte": {"registry": "registry.local", "volume": "v"}}),
    ("validateGlusterfsVolumeSource", "endpoints and path", "RayService", {"glusterfs": {"endpoints": "gluster", "path": ""}}),
    ("validateFlockerVolumeSource", "exactly one of datasetName", "RayCluster", {"flocker": {"datasetName": "a/b"}}),
    ("validateDownwardAPIVolumeFile", "the fieldRef and resourceFieldRef values", "RayJob", {"downwardAPI": {"items": [{"path": "node", "fieldRef": {"fieldPath": "spec.nodeName"}}]}}),
    ("validateProjectionSources", "one source per projection", "RayService", {"projected": {"sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": 60}}]}}),
    ("validateRBDVolumeSource", "monitors and image", "RayCluster", {"rbd": {"monitors": [], "image": "img"}}),
    ("validateCinderVolumeSource", "volumeID required, secretRef", "RayJob", {"cinder": {"volumeID": "v", "secretRef": {}}}),
    ("validateCephFSVolumeSource", "monitors required", "RayService", {"cephfs": {"monitors": []}}),
    ("validateFlexVolumeSource", "driver required", "RayCluster", {"flexVolume": {"driver": "d", "options": {"kubernetes.io/secret": "x"}}}),
    ("validateAzureFile", "secretName and shareName", "RayJob", {"azureFile": {"secretName": "s", "shareName": ""}}),
    ("validateAzureDisk", "diskName, diskURI", "RayService", {"azureDisk": {"diskName": "d", "diskURI": "/subscriptions/s/disks/d"}}),
    ("validateVsphereVolumeSource", "volumePath required", "RayCluster", {"vsphereVolume": {"volumePath": ""}}),
    ("validatePhotonPersistentDiskVolumeSource", "pdID required", "RayJob", {"photonPersistentDisk": {"pdID": ""}}),
    ("validatePortworxVolumeSource", "volumeID required", "RayService", {"portworxVolume": {"volumeID": ""}}),
    ("validateScaleIOVolumeSource", "gateway, system", "RayCluster", {"scaleIO": {"gateway": "g", "system": "s", "volumeName": "", "secretRef": {"name": "s"}}}),
    ("validateStorageOSVolumeSource", "volumeName required", "RayJob", {"storageos": {"volumeName": "Vol_1"}}),
    ("validateCSIVolumeSource", "driver, nodePublishSecretRef", "RayService", {"csi": {"driver": "csi.example.com", "nodePublishSecretRef": {"name": ""}}}),
    ("validateImageVolumeSource", "image.reference required", "RayCluster", {"image": {"reference": "", "pullPolicy": "IfNotPresent"}}),
    ("ValidatePersistentVolumeClaimSpec", "ReadWriteOncePod alone", "RayJob", {"ephemeral": {"volumeClaimTemplate": {"spec": dict(_CLAIM, storageClassName="Fast_SSD")}}}),
    ("validateDataSource", "dataSource name and kind", "RayService", {"ephemeral": {"volumeClaimTemplate": {"spec": dict(_CLAIM, dataSource=_SNAPSHOT)}}}),
    ("validateDataSourceRef", "dataSourceRef name", "RayCluster", {"ephemeral": {"volumeClaimTemplate": {"spec": dict(_CLAIM, dataSourceRef=dict(_SNAPSHOT, apiGroup="Snapshot"))}}}),
    ("ValidateLocalNonReservedPath", "a path not starting with '..': projected", "RayJob", {"projected": {"sources": [{"configMap": {"name": "c", "items": [{"key": "k", "path": "..k"}]}}]}}),
]  # fmt: skip

#: (function, the check's first words, kind, edit of the baseline of that kind, rule expected).
SAMPLES: list[tuple[str, str, str, Callable[[Doc], Any], str]] = [
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
        _set("worker-pod", securityContext={"seLinuxChangePolicy": "MountOption"}),
        "pod-spec-value-invalid",
    ),
    (
        "validateSysctls",
        "sysctl names valid and unique",
        "RayCluster",
        _set("worker-pod", securityContext={"sysctls": [{"name": "vm.max_map_count", "value": "1"}, {"name": "vm.max_map_count", "value": "2"}]}),
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
        _set("worker-pod", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]}}}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidatePodAffinityTermSelector",
        "labelSelector and namespaceSelector",
        "RayService",
        _set("worker-pod", affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone", "labelSelector": {"matchExpressions": [{"key": "app", "operator": "in", "values": ["ray"]}]}}]}}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateMatchLabelKeysAndMismatchLabelKeys",
        "matchLabelKeys and mismatchLabelKeys",
        "RayCluster",
        _set("worker-pod", affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone", "labelSelector": {"matchLabels": {"ray.io/cluster": "a"}}, "matchLabelKeys": ["ray.io/cluster"]}]}}),
        "pod-spec-value-invalid",
    ),
    (
        "validateLabelKeys",
        "keys are label keys",
        "RayJob",
        _set("worker-pod", affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone", "labelSelector": {}, "mismatchLabelKeys": ["team name"]}]}}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateTolerations",
        "Gt and Lt only with",
        "RayCluster",
        _set("worker-pod", tolerations=[{"key": "gpu-count", "operator": "Gt", "value": "2"}]),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateMatchLabelKeysAndMismatchLabelKeys",
        "matchLabelKeys and mismatchLabelKeys",
        "RayService",
        lambda d: (
            _set("worker-template", metadata={"labels": {"app": "ray"}})(d),
            _set("worker-pod", topologySpreadConstraints=[dict(_SPREAD, whenUnsatisfiable="DoNotSchedule", labelSelector={"matchLabels": {"app": "ray"}}, matchLabelKeys=["app"])])(d),
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
    (
        "ValidateVolumes",
        "name required, a DNS-1123 label",
        "RayCluster",
        _set("worker-pod", volumes=[{"name": "Data", "emptyDir": {}}]),
        "pod-volume-invalid",
    ),
    ("validateVolumeSource", "exactly one volume source", "RayCluster", _set("worker-pod", volumes=[{"name": "data"}]), "pod-volume-invalid"),
    (
        "ValidateVolumeMounts",
        "subPath and subPathExpr relative",
        "RayJob",
        lambda d: (
            _set("worker-pod", volumes=[{"name": "data", "emptyDir": {}}])(d),
            _set("worker-container", volumeMounts=[{"name": "data", "mountPath": "/cfg", "subPath": "/ray.yaml"}])(d),
        ),
        "pod-volume-invalid",
    ),
    (
        "validateSecretVolumeSource",
        "defaultMode 0..0777",
        "RayService",
        _set("worker-pod", volumes=[{"name": "certs", "secret": {"secretName": "certs", "defaultMode": 644}}]),
        "pod-volume-invalid",
    ),
    (
        "validateHostPathType",
        "hostPath.type",
        "RayService",
        _set("worker-pod", volumes=[{"name": "dev", "hostPath": {"path": "/dev/shm", "type": "directory"}}]),
        "pod-volume-source-invalid",
    ),
    (
        "ValidatePersistentVolumeClaimSpec",
        "accessModes required",
        "RayJob",
        _set("worker-pod", volumes=[{"name": "s", "ephemeral": {"volumeClaimTemplate": {"spec": _NO_ACCESS_MODES}}}]),
        "pod-volume-source-invalid",
    ),
    (
        "validateKeyToPath",
        "items key and path required",
        "RayCluster",
        _set("worker-pod", volumes=[{"name": "cfg", "configMap": {"name": "cfg", "items": [{"key": "a", "path": "/etc/a"}]}}]),
        "pod-volume-source-invalid",
    ),
    *[
        (function, check, kind, _set("worker-pod", volumes=[{"name": "v", **volume}]), "pod-volume-source-invalid")
        for function, check, kind, volume in _VOLUME_SAMPLES
    ],
    (
        "validateResourceRequirements",
        "limits and requests",
        "RayJob",
        _set("worker-container", resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
        "pod-resources-invalid",
    ),
    (
        "ValidateObjectMeta",
        "labels of a Pod: the group's labels",
        "RayCluster",
        _set("worker-group", labels={"accelerator type": "a100"}),
        "group-labels-invalid",
    ),
    (
        "ValidateObjectMeta",
        "labels and annotations of the head Service",
        "RayService",
        _set("cluster", headServiceAnnotations={"prometheus io/scrape": "true"}),
        "head-service-invalid",
    ),
    (
        "ValidateTemplateObjectMeta",
        "the pod template's labels",
        "RayCluster",
        _set("worker-template", metadata={"labels": {"team": "-ml"}}),
        "pod-template-metadata-invalid",
    ),
    ("validateService", "type ClusterIP, NodePort", "RayCluster", _set("head-group", serviceType="Loadbalancer"), "head-service-invalid"),
    (
        "validateService",
        "port and nodePort unique per protocol: the head container's",
        "RayCluster",
        _set("head-container", ports=_HEAD_PORTS),
        "head-service-port-duplicate",
    ),
    (
        "validateService",
        "port and nodePort unique per protocol: the custom headService's",
        "RayJob",
        _set("head-group", headService={"spec": {"ports": [{"name": "ui", "port": 8265}]}}),
        "head-service-invalid",
    ),
    (
        "validateServicePort",
        "name a DNS-1123 label, required",
        "RayService",
        _set("head-group", headService={"spec": {"ports": [{"port": 12345}]}}),
        "head-service-invalid",
    ),
    (
        "validateAffinityTimeout",
        "timeoutSeconds 1..86400",
        "RayService",
        _set("head-group", headService={"spec": {"sessionAffinity": "ClientIP", "sessionAffinityConfig": _DAY_AND_A_SECOND}}),
        "head-service-invalid",
    ),
    (
        "validateServiceExternalTrafficPolicy",
        "externalTrafficPolicy Cluster or Local",
        "RayCluster",
        _set("head-group", headService={"spec": {"externalTrafficPolicy": "Local"}}),
        "head-service-invalid",
    ),
    (
        "validateService",
        "externalName required for ExternalName",
        "RayCluster",
        _set("head-group", serviceType="ExternalName"),
        "head-service-invalid",
    ),
    (
        "validateService",
        "allocateLoadBalancerNodePorts only with LoadBalancer",
        "RayJob",
        _set("head-group", headService={"spec": {"type": "NodePort", "allocateLoadBalancerNodePorts": False}}),
        "head-service-invalid",
    ),
    (
        "validateService",
        "loadBalancerSourceRanges CIDRs, externalIPs",
        "RayService",
        _set("head-group", headService={"spec": {"type": "LoadBalancer", "loadBalancerSourceRanges": ["10.0.0.1/8"]}}),
        "head-service-invalid",
    ),
    (
        "validateService",
        "the service.beta.kubernetes.io/load-balancer-source-ranges annotation",
        "RayCluster",
        _set("cluster", headServiceAnnotations={LOAD_BALANCER_SOURCE_RANGES_ANNOTATION: "10.0.0.0/8"}),  # a ClusterIP Service
        "head-service-invalid",
    ),
    (
        "validateService",
        "the service.kubernetes.io/topology-mode annotation",
        "RayJob",
        _set("head-group", headService={"metadata": {"annotations": {TOPOLOGY_MODE_ANNOTATION: "Auto", TOPOLOGY_AWARE_HINTS_ANNOTATION: "auto"}}}),
        "head-service-invalid",
    ),
    (
        "validateServicePort",
        "targetPort a port number or a port name",
        "RayCluster",
        _set("head-group", headService={"spec": {"ports": [{"name": "app", "port": 9000, "targetPort": "9000"}]}}),
        "head-service-invalid",
    ),
    (
        "validateServiceExternalTrafficPolicy",
        "healthCheckNodePort only for LoadBalancer with Local",
        "RayService",
        _set("head-group", headService={"spec": {"type": "LoadBalancer", "healthCheckNodePort": 30100}}),
        "head-service-invalid",
    ),
    (
        "validateServiceTrafficDistribution",
        "trafficDistribution PreferClose",
        "RayCluster",
        _set("head-group", headService={"spec": {"trafficDistribution": "preferClose"}}),
        "head-service-invalid",
    ),
    (
        "ValidateServiceClusterIPsRelatedFields",
        "clusterIP, clusterIPs, ipFamilies, ipFamilyPolicy consistent",
        "RayJob",
        _set("head-group", headService={"spec": {"clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.11"]}}),
        "head-service-invalid",
    ),
    (
        "ValidateEndpointIP",
        "externalIPs not loopback",
        "RayCluster",
        _set("head-group", headService={"spec": {"externalIPs": ["127.0.0.1"]}}),
        "head-service-invalid",
    ),
    (
        "validateService",
        "type, sessionAffinity, externalTrafficPolicy, metadata of a RayService's serveService",
        "RayService",
        _set("spec", serveService={"spec": {"type": "loadBalancer"}}),
        "serve-service-invalid",
    ),
    (
        "validateServicePort",
        "a RayService serveService's ports",
        "RayService",
        _set("spec", serveService={"spec": {"ports": [{"name": "serve", "port": 8000, "appProtocol": "HTTP/2"}]}}),
        "serve-service-invalid",
    ),
    (
        "validateService",
        "ports required",
        "RayService",
        lambda d: (_set("spec", serveService={"spec": {}})(d), _set("head-container", ports=[{"name": "dashboard", "containerPort": 8265}])(d)),
        "serve-service-invalid",
    ),
    (
        "batch.validateJobSpec",
        "backoffLimit not negative",
        "RayJob",
        _set("spec", submitterConfig={"backoffLimit": -2}),
        "rayjob-submitter-backoff-limit-negative",
    ),
    (
        "networking.validateIngressRules",
        "host a DNS-1123 subdomain",
        "RayCluster",
        _set("head-group", enableIngress=True, ingressOptions={"host": "10.0.0.1"}),
        "head-ingress-invalid",
    ),
    (
        "networking.validateHTTPIngressPath",
        "path absolute",
        "RayService",
        _set("head-group", enableIngress=True, ingressOptions={"path": "/ray//dash"}),
        "head-ingress-invalid",
    ),
    (
        "networking.validateIngressTLS",
        "tls secretName",
        "RayJob",
        _set("head-group", enableIngress=True, ingressOptions={"tls": [{"hosts": ["ray.example.com"], "secretName": "Ray_TLS"}]}),
        "head-ingress-invalid",
    ),
    (
        "networking.ValidateIngressSpec",
        "ingressClassName",
        "RayCluster",
        lambda d: (_set("head-group", enableIngress=True)(d), _set("metadata", annotations={_INGRESS: "NGINX"})(d)),
        "head-ingress-invalid",
    ),
    # the newer Pod and container fields (rules/_pod_spec_fields.py)
    ("validateWindowsHostProcessPod", "hostProcess consistent", "RayCluster", _set("worker-container", securityContext={"windowsOptions": {"hostProcess": True}}), "pod-spec-value-invalid"),
    ("validateHostUsers", "hostUsers false forbids", "RayJob", _set("worker-pod", hostUsers=False, hostPID=True), "pod-spec-value-invalid"),
    ("validatePodHostName", "hostnameOverride a DNS-1123", "RayService", _set("head-pod", hostnameOverride="Ray_Head"), "pod-spec-value-invalid"),
    ("validateOverhead", "overhead resources valid", "RayCluster", _set("worker-pod", overhead={"cpu": "-1"}), "pod-spec-value-invalid"),
    ("validateLinux", "os linux forbids", "RayCluster", _set("head-pod", os={"name": "linux"}, securityContext={"windowsOptions": {"runAsUserName": "ray"}}), "pod-spec-value-invalid"),
    ("validateWindows", "os windows forbids", "RayJob", _set("worker-pod", os={"name": "windows"}, securityContext={"runAsUser": 1000}), "pod-spec-value-invalid"),
    ("validateWindowsSecurityContextOptions", "gmsaCredentialSpecName", "RayService", _set("worker-container", securityContext={"windowsOptions": {"runAsUserName": "a\\b\\c"}}), "pod-spec-value-invalid"),
    ("validateFileKeyRefVolumes", "fileKeyRef env names an emptyDir", "RayCluster", lambda d: (_set("worker-pod", volumes=[{"name": "cfg", "configMap": {"name": "cfg"}}])(d), _set("worker-container", env=[{"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "cfg", "path": "a.env", "key": "A"}}}])(d)), "pod-spec-value-invalid"),
    ("validateFileKeySelector", "fileKeyRef key, volumeName, path", "RayJob", _set("worker-container", env=[{"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "Cfg", "path": "a.env", "key": "A"}}}]), "pod-spec-value-invalid"),
    ("validatePodResources", "pod-level resources: only", "RayCluster", _set("worker-pod", resources={"claims": [{"name": "gpu"}]}), "pod-spec-value-invalid"),
    ("validatePodResourceName", "a pod-level resource name", "RayService", _set("worker-pod", resources={"limits": {_GPU: "1"}}), "pod-spec-value-invalid"),
    ("validatePodResourceConsistency", "pod-level requests and limits", "RayCluster", _set("worker-pod", resources={"requests": {"cpu": "100m"}}, containers=[dict(_WORKER, resources={"requests": {"cpu": "1"}})]), "pod-spec-value-invalid"),
    ("validatePodResourceClaim", "name a DNS-1123 label, unique", "RayJob", _set("worker-pod", resourceClaims=[{"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}]), "pod-spec-value-invalid"),
    ("validateResourceClaimNames", "container resources.claims", "RayCluster", _set("worker-container", resources={"claims": [{"name": "gpu"}]}), "pod-spec-value-invalid"),
    ("validateInitContainers", "resizePolicy only on sidecars", "RayCluster", _set("worker-pod", initContainers=[dict(_WORKER, name="init", resizePolicy=[{"resourceName": "cpu", "restartPolicy": "RestartContainer"}])]), "pod-spec-value-invalid"),
    ("validateContainerRestartPolicy", "restartPolicy and restartPolicyRules", "RayService", _set("worker-container", restartPolicyRules=[{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]), "pod-spec-value-invalid"),
    ("validateSleepAction", "sleep seconds within", "RayCluster", _set("worker-container", lifecycle={"preStop": {"sleep": {"seconds": 60}}}), "pod-spec-value-invalid"),
    ("validateHTTPGetAction", "httpHeaders names", "RayJob", _set("head-container", readinessProbe={"httpGet": {"port": 8265, "httpHeaders": [{"name": "X Token", "value": "1"}]}}), "pod-spec-value-invalid"),
    ("validateContainerResourceDivisor", "divisor 1m/1 for cpu", "RayCluster", _set("worker-container", env=[{"name": "CPUS", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "100m"}}}]), "pod-spec-value-invalid"),
    ("ValidateVolumeMounts", "subPathExpr not with subPath", "RayService", lambda d: (_set("worker-pod", volumes=[{"name": "data", "emptyDir": {}}])(d), _set("worker-container", volumeMounts=[{"name": "data", "mountPath": "/d", "subPath": "a", "subPathExpr": "$(POD)"}])(d)), "pod-spec-value-invalid"),
    ("ValidateVolumeMounts", "a volume mounted as a block device", "RayCluster", lambda d: (_set("worker-pod", volumes=[{"name": "disk", "persistentVolumeClaim": {"claimName": "disk"}}])(d), _set("worker-container", volumeMounts=[{"name": "disk", "mountPath": "/d"}], volumeDevices=[{"name": "disk", "devicePath": "/dev/xvda"}])(d)), "pod-spec-value-invalid"),
    ("ValidateVolumeMounts", "the autoscaler sidecar's mounts", "RayCluster", _set("cluster", enableInTreeAutoscaling=True, autoscalerOptions={"volumeMounts": [{"name": "cfg", "mountPath": "/cfg"}]}), "pod-spec-value-invalid"),
    ("ValidateVolumeDevices", "devicePath required", "RayJob", lambda d: (_set("worker-pod", volumes=[{"name": "scratch", "emptyDir": {}}])(d), _set("worker-container", volumeDevices=[{"name": "scratch", "devicePath": "/dev/xvda"}])(d)), "pod-spec-value-invalid"),
    ("validateMountRecursiveReadOnly", "recursiveReadOnly Disabled", "RayCluster", lambda d: (_set("worker-pod", volumes=[{"name": "data", "emptyDir": {}}])(d), _set("worker-container", volumeMounts=[{"name": "data", "mountPath": "/d", "recursiveReadOnly": "Enabled"}])(d)), "pod-spec-value-invalid"),
    ("validateResourceQuantityHugePageValue", "hugepages amount", "RayService", _set("worker-container", resources={"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}, "requests": {"hugepages-2Mi": "3Mi"}}), "pod-spec-value-invalid"),
    ("validateResizePolicy", "resizePolicy cpu or memory", "RayCluster", _set("worker-container", resizePolicy=[{"resourceName": "gpu", "restartPolicy": "NotRequired"}]), "pod-spec-value-invalid"),
    ("ValidateProcMountType", "procMount Default or Unmasked", "RayJob", _set("head-container", securityContext={"procMount": "unmasked"}), "pod-spec-value-invalid"),
    ("ValidatePositiveQuantityValue", "amount positive", "RayCluster", _set("worker-pod", volumes=[{"name": "s", "ephemeral": {"volumeClaimTemplate": {"spec": dict(_NO_ACCESS_MODES, accessModes=["ReadWriteOnce"], resources={"requests": {"storage": "0"}})}}}]), "pod-volume-source-invalid"),
]


def _row(function: str, check_start: str) -> dict[str, str]:
    matching = [c for c in CHECKS[function] if c["check"].startswith(check_start)]
    assert len(matching) == 1, (function, check_start, CHECKS[function])
    row: dict[str, str] = matching[0]
    return row


@pytest.mark.parametrize(
    ("function", "check_start", "kind", "edit", "rule_id"), SAMPLES, ids=[f"{s[0]}:{s[4]}:{s[2]}" for s in SAMPLES]
)
def test_the_rule_of_a_row_fires_on_a_ray_object_that_reaches_it(
    function: str, check_start: str, kind: str, edit: Callable[[Doc], Any], rule_id: str
) -> None:
    assert _row(function, check_start).get("rule") == rule_id
    baseline = KINDS[kind]()
    assert [f.rule_id for f in rules.check(copy.deepcopy(baseline)) if f.rule_id == rule_id] == []
    edit(baseline)
    found = [f for f in rules.check(baseline) if f.rule_id == rule_id]
    assert found and all(f.severity == "critical" for f in found), (rule_id, [f.message for f in found])


def test_every_rule_of_the_table_has_a_sample() -> None:
    named = {check["rule"] for _, check in ROWS if "rule" in check}
    sampled = {s[4] for s in SAMPLES}
    assert named - sampled == set()
