"""The Kubernetes facts KubeRay's objects meet: the Pod Security Standards profiles, least to most restrictive;
the lengths of names; the recommended labels Helm writes; Kueue's API path; the bounds of the OpenAPI integer
formats the CRDs use (``int32``, ``int64``), as the API server enforces them.

A leaf: plain Python, imports nothing of this package (tests/test_public_seams.py). Cheap to import, so the
``kuberay-lint`` front may spell its ``--pod-security-profile`` choices from here.
"""

from __future__ import annotations

from typing import Literal, get_args

PodSecurityProfile = Literal["privileged", "baseline", "restricted"]
POD_SECURITY_PROFILES: tuple[PodSecurityProfile, ...] = get_args(PodSecurityProfile)

#: The longest DNS-1123 (and DNS-1035) label, and subdomain (``validation.DNS1123LabelMaxLength``, ...).
DNS_LABEL_MAX_LENGTH = 63
DNS_SUBDOMAIN_MAX_LENGTH = 253
#: Length of the random suffix the API server appends to ``metadata.generateName`` (``names.SimpleNameGenerator``,
#: which keeps at most ``DNS_LABEL_MAX_LENGTH - GENERATE_NAME_SUFFIX_LENGTH`` characters of the prefix).
GENERATE_NAME_SUFFIX_LENGTH = 5

#: Kubernetes' recommended labels that Helm writes (and the operator's chart reads back: its version).
HELM_CHART_LABEL = "helm.sh/chart"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
INSTANCE_LABEL = "app.kubernetes.io/instance"
APP_VERSION_LABEL = "app.kubernetes.io/version"

#: The API path of Kueue's objects (ClusterQueue, LocalQueue, ResourceFlavor) the preflight reads.
KUEUE_API_PATH = "/apis/kueue.x-k8s.io/v1beta1"

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1

#: The sources of a Pod's volume (core.VolumeSource) as the CRDs spell them: Pod validation (validateVolumeSource)
#: wants exactly one per volume.
VOLUME_SOURCES = (
    "awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "configMap", "csi", "downwardAPI",
    "emptyDir", "ephemeral", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", "hostPath",
    "image", "iscsi", "nfs", "persistentVolumeClaim", "photonPersistentDisk", "portworxVolume", "projected",
    "quobyte", "rbd", "scaleIO", "secret", "storageos", "vsphereVolume",
)  # fmt: skip
#: The largest mode of a file a volume projects (defaultMode, items[].mode): 0777 (validateSecretVolumeSource...).
FILE_MODE_MAX = 0o777
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

#: A Service's spec as Service validation (validateService, v1.36) takes it: the traffic distributions
#: (validateServiceTrafficDistribution; PreferSameZone and PreferSameNode with PreferSameTrafficDistribution, GA in
#: 1.35), the IP families and family policies (ValidateServiceClusterIPsRelatedFields), and the annotation that
#: stands for spec.loadBalancerSourceRanges (core.AnnotationLoadBalancerSourceRangesKey).
SERVICE_TRAFFIC_DISTRIBUTIONS = ("PreferClose", "PreferSameZone", "PreferSameNode")
SERVICE_IP_FAMILIES = ("IPv4", "IPv6")
SERVICE_IP_FAMILY_POLICIES = ("SingleStack", "PreferDualStack", "RequireDualStack")
LOAD_BALANCER_SOURCE_RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges"
#: A Service's topology annotation and its deprecated spelling: validateService wants them equal when both are set.
TOPOLOGY_MODE_ANNOTATION = "service.kubernetes.io/topology-mode"
TOPOLOGY_AWARE_HINTS_ANNOTATION = "service.kubernetes.io/topology-aware-hints"

__all__ = [
    "APP_VERSION_LABEL",
    "DNS_LABEL_MAX_LENGTH",
    "DNS_SUBDOMAIN_MAX_LENGTH",
    "FILE_MODE_MAX",
    "GENERATE_NAME_SUFFIX_LENGTH",
    "HELM_CHART_LABEL",
    "INSTANCE_LABEL",
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "KUEUE_API_PATH",
    "LOAD_BALANCER_SOURCE_RANGES_ANNOTATION",
    "MANAGED_BY_LABEL",
    "POD_SECURITY_PROFILES",
    "SERVICE_IP_FAMILIES",
    "SERVICE_IP_FAMILY_POLICIES",
    "SERVICE_TRAFFIC_DISTRIBUTIONS",
    "TOPOLOGY_AWARE_HINTS_ANNOTATION",
    "TOPOLOGY_MODE_ANNOTATION",
    "VOLUME_SOURCES",
    "PodSecurityProfile",
]
