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

#: The values Pod validation enumerates in the newer container fields (validateContainerRestartPolicy,
#: validateResizePolicy, validateMountRecursiveReadOnly, ValidateProcMountType), as v1.36 spells them.
CONTAINER_RESTART_RULE_ACTIONS = ("Restart", "RestartAllContainers")  # RestartAllContainersOnContainerExits: on
CONTAINER_RESTART_RULE_OPERATORS = ("In", "NotIn")
CONTAINER_RESTART_RULES_MAX, CONTAINER_RESTART_EXIT_CODES_MAX = 20, 255
RESIZE_RESOURCES = ("cpu", "memory")
RESIZE_POLICIES = ("NotRequired", "RestartContainer")
RECURSIVE_READ_ONLY = ("Disabled", "IfPossible", "Enabled")
PROC_MOUNT_TYPES = ("Default", "Unmasked")
#: The Pod-level security fields validateWindows refuses for a Pod with os.name windows: the Pod's
#: securityContext, the Pod spec's host namespaces, each container's securityContext.
WINDOWS_FORBIDDEN_POD_CONTEXT = (
    "appArmorProfile", "seLinuxOptions", "seccompProfile", "fsGroup", "fsGroupChangePolicy", "runAsUser",
    "runAsGroup", "supplementalGroupsPolicy", "seLinuxChangePolicy",
)  # fmt: skip
WINDOWS_FORBIDDEN_CONTAINER_CONTEXT = (
    "appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities", "readOnlyRootFilesystem", "privileged",
    "allowPrivilegeEscalation", "procMount", "runAsUser", "runAsGroup",
)  # fmt: skip
#: The resources a container may name without a domain (IsStandardContainerResourceName), besides hugepages-<size>.
STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")
#: The resources a Pod's own spec.resources may name (IsSupportedPodLevelResource), besides hugepages-<size>.
POD_LEVEL_RESOURCES = ("cpu", "memory")
#: The divisors validateContainerResourceDivisor allows: cpu, and memory, ephemeral-storage, hugepages (by value).
CPU_DIVISORS = ("1m", "1")
BYTE_DIVISORS = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")
HOSTNAME_OVERRIDE_MAX = 64  # validatePodHostName
GMSA_CREDENTIAL_SPEC_MAX = 64 * 1024  # maxGMSACredentialSpecLength
RUN_AS_USER_NAME_DOMAIN_MAX, RUN_AS_USER_NAME_USER_MAX = 256, 104

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
#: The feature gates, off by default at v1.36, under which Pod validation accepts what it refuses without them
#: (GetValidationOptionsFromPodSpecAndMeta): the toleration operators Gt and Lt (ValidateTolerations),
#: seLinuxChangePolicy MountOption (validateSELinuxChangePolicy), hostNetwork beside hostUsers false
#: (validateHostUsers). A cluster may turn one on, so only its own API server decides; each gate with its stage and
#: default at v1.36 (kube_features.go).
POD_VALIDATION_GATES = {
    "TaintTolerationComparisonOperators": "alpha, off by default in Kubernetes 1.36",
    "SELinuxMount": "beta, off by default in Kubernetes 1.36",
    "UserNamespacesHostNetworkSupport": "alpha, off by default in Kubernetes 1.36",
}
#: A sysctl name (IsValidSysctlName: segments joined by '.' or '/', at most 253 characters), and the ones of the
#: Pod's IPC namespace and network namespace (component-helpers' sysctl namespaceOf, after NormalizeName), which
#: Pod validation refuses beside hostIPC and hostNetwork (ValidateHostSysctl).
SYSCTL_NAME_PATTERN = r"([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
SYSCTL_NAME_MAX_LENGTH = 253
IPC_SYSCTL_PATTERN = r"kernel\.(sem|shm(all|max|mni|_rmid_forced)?|msg(max|mnb|mni)?)|fs\.mqueue\..*"
NET_SYSCTL_PATTERN = r"net\..*"

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
    "ANNOTATION_PROFILE_DOCKER_DEFAULT",
    "ANNOTATION_PROFILE_LOCALHOST_PREFIX",
    "ANNOTATION_PROFILE_RUNTIME_DEFAULT",
    "ANNOTATION_PROFILE_UNCONFINED",
    "APPARMOR_CONTAINER_ANNOTATION_PREFIX",
    "APP_VERSION_LABEL",
    "BYTE_DIVISORS",
    "CONTAINER_RESTART_EXIT_CODES_MAX",
    "CONTAINER_RESTART_RULES_MAX",
    "CONTAINER_RESTART_RULE_ACTIONS",
    "CONTAINER_RESTART_RULE_OPERATORS",
    "CPU_DIVISORS",
    "DNS_LABEL_MAX_LENGTH",
    "DNS_SEARCHES_MAX",
    "DNS_SEARCH_LIST_MAX_CHARS",
    "DNS_SUBDOMAIN_MAX_LENGTH",
    "FILE_MODE_MAX",
    "GENERATE_NAME_SUFFIX_LENGTH",
    "GMSA_CREDENTIAL_SPEC_MAX",
    "HELM_CHART_LABEL",
    "HOSTNAME_OVERRIDE_MAX",
    "INSTANCE_LABEL",
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "IPC_SYSCTL_PATTERN",
    "KUEUE_API_PATH",
    "LOAD_BALANCER_SOURCE_RANGES_ANNOTATION",
    "MANAGED_BY_LABEL",
    "MIRROR_POD_ANNOTATION",
    "NET_SYSCTL_PATTERN",
    "POD_DELETION_COST_ANNOTATION",
    "POD_LEVEL_RESOURCES",
    "POD_SECURITY_PROFILES",
    "POD_VALIDATION_GATES",
    "PROC_MOUNT_TYPES",
    "RECURSIVE_READ_ONLY",
    "RESIZE_POLICIES",
    "RESIZE_RESOURCES",
    "RUN_AS_USER_NAME_DOMAIN_MAX",
    "RUN_AS_USER_NAME_USER_MAX",
    "SECCOMP_CONTAINER_ANNOTATION_PREFIX",
    "SECCOMP_POD_ANNOTATION",
    "SELINUX_CHANGE_POLICIES",
    "SERVICE_IP_FAMILIES",
    "SERVICE_IP_FAMILY_POLICIES",
    "SERVICE_TRAFFIC_DISTRIBUTIONS",
    "STANDARD_CONTAINER_RESOURCES",
    "SUPPLEMENTAL_GROUPS_POLICIES",
    "SYSCTL_NAME_MAX_LENGTH",
    "SYSCTL_NAME_PATTERN",
    "TOLERATIONS_ANNOTATION",
    "TOPOLOGY_AWARE_HINTS_ANNOTATION",
    "TOPOLOGY_MODE_ANNOTATION",
    "VOLUME_SOURCES",
    "WINDOWS_FORBIDDEN_CONTAINER_CONTEXT",
    "WINDOWS_FORBIDDEN_POD_CONTEXT",
    "PodSecurityProfile",
]
