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

#: Pod annotations Pod validation still reads (ValidatePodSpecificAnnotations): tolerations as JSON (the alpha
#: spelling of spec.tolerations), the kubelet's mirror-Pod marker (needs spec.nodeName), the cost a ReplicaSet
#: gives deleting the Pod (a 32-bit integer: GetDeletionCostFromPodAnnotations).
TOLERATIONS_ANNOTATION = "scheduler.alpha.kubernetes.io/tolerations"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
POD_DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
#: The deprecated seccomp and AppArmor annotations (ValidateSeccompPodAnnotations, ValidateAppArmorPodAnnotations)
#: and their profile values: RuntimeDefault (seccomp also docker/default), Unconfined, Localhost as the prefix.
SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_CONTAINER_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
ANNOTATION_PROFILE_RUNTIME_DEFAULT = "runtime/default"
ANNOTATION_PROFILE_DOCKER_DEFAULT = "docker/default"
ANNOTATION_PROFILE_UNCONFINED = "unconfined"
ANNOTATION_PROFILE_LOCALHOST_PREFIX = "localhost/"

#: dnsConfig.searches: at most 32 domains, 2048 characters joined by spaces (MaxDNSSearchPaths,
#: MaxDNSSearchListChars).
DNS_SEARCHES_MAX = 32
DNS_SEARCH_LIST_MAX_CHARS = 2048
#: The values of spec.securityContext.supplementalGroupsPolicy (validateSupplementalGroupsPolicy, GA at 1.35), and
#: of seLinuxChangePolicy: MountOption only where the API server runs the SELinuxMount gate (beta, off by default at
#: 1.36: useOnlyRecursiveSELinuxChangePolicy), else Recursive alone.
SUPPLEMENTAL_GROUPS_POLICIES = ("Merge", "Strict")
SELINUX_CHANGE_POLICIES = ("Recursive", "MountOption")
#: A sysctl name (IsValidSysctlName: segments joined by '.' or '/', at most 253 characters), and the ones of the
#: Pod's IPC namespace and network namespace (component-helpers' sysctl namespaceOf, after NormalizeName), which
#: Pod validation refuses beside hostIPC and hostNetwork (ValidateHostSysctl).
SYSCTL_NAME_PATTERN = r"([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
SYSCTL_NAME_MAX_LENGTH = 253
IPC_SYSCTL_PATTERN = r"kernel\.(sem|shm(all|max|mni|_rmid_forced)?|msg(max|mnb|mni)?)|fs\.mqueue\..*"
NET_SYSCTL_PATTERN = r"net\..*"

__all__ = [
    "ANNOTATION_PROFILE_DOCKER_DEFAULT",
    "ANNOTATION_PROFILE_LOCALHOST_PREFIX",
    "ANNOTATION_PROFILE_RUNTIME_DEFAULT",
    "ANNOTATION_PROFILE_UNCONFINED",
    "APPARMOR_CONTAINER_ANNOTATION_PREFIX",
    "APP_VERSION_LABEL",
    "DNS_LABEL_MAX_LENGTH",
    "DNS_SEARCHES_MAX",
    "DNS_SEARCH_LIST_MAX_CHARS",
    "DNS_SUBDOMAIN_MAX_LENGTH",
    "FILE_MODE_MAX",
    "GENERATE_NAME_SUFFIX_LENGTH",
    "HELM_CHART_LABEL",
    "INSTANCE_LABEL",
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "IPC_SYSCTL_PATTERN",
    "KUEUE_API_PATH",
    "MANAGED_BY_LABEL",
    "MIRROR_POD_ANNOTATION",
    "NET_SYSCTL_PATTERN",
    "POD_DELETION_COST_ANNOTATION",
    "POD_SECURITY_PROFILES",
    "SECCOMP_CONTAINER_ANNOTATION_PREFIX",
    "SECCOMP_POD_ANNOTATION",
    "SELINUX_CHANGE_POLICIES",
    "SUPPLEMENTAL_GROUPS_POLICIES",
    "SYSCTL_NAME_MAX_LENGTH",
    "SYSCTL_NAME_PATTERN",
    "TOLERATIONS_ANNOTATION",
    "VOLUME_SOURCES",
    "PodSecurityProfile",
]
