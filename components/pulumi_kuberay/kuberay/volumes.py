"""The Kubernetes facts of a Pod's volume sources that Pod validation (``validateVolumeSource`` and its callees in
k8s.io/kubernetes pkg/apis/core/validation) holds a pod template's volumes to: the fields each in-tree plugin
requires, the ranges of its numbers, the formats of iSCSI names, Azure disks' enums, the fields the downward API
serves to a volume, a projected token's lifetime.

A leaf: plain Python, imports nothing of this package (tests/test_public_seams.py).
"""

from __future__ import annotations

from collections.abc import Mapping

#: Each in-tree plugin's validator and the fields it requires (``field.Required`` when the string or list is empty):
#: the CRDs mark some of them required, none of them non-empty. Keyed by the volume source as the CRDs spell it.
VOLUME_PLUGIN_REQUIRED_FIELDS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "iscsi": ("validateISCSIVolumeSource", ("targetPortal", "iqn")),
    "gcePersistentDisk": ("validateGCEPersistentDiskVolumeSource", ("pdName",)),
    "awsElasticBlockStore": ("validateAWSElasticBlockStoreVolumeSource", ("volumeID",)),
    "quobyte": ("validateQuobyteVolumeSource", ("registry", "volume")),
    "glusterfs": ("validateGlusterfsVolumeSource", ("endpoints", "path")),
    "rbd": ("validateRBDVolumeSource", ("monitors", "image")),
    "cinder": ("validateCinderVolumeSource", ("volumeID",)),
    "cephfs": ("validateCephFSVolumeSource", ("monitors",)),
    "flexVolume": ("validateFlexVolumeSource", ("driver",)),
    "azureFile": ("validateAzureFile", ("secretName", "shareName")),
    "azureDisk": ("validateAzureDisk", ("diskName", "diskURI")),
    "vsphereVolume": ("validateVsphereVolumeSource", ("volumePath",)),
    "photonPersistentDisk": ("validatePhotonPersistentDiskVolumeSource", ("pdID",)),
    "portworxVolume": ("validatePortworxVolumeSource", ("volumeID",)),
    "scaleIO": ("validateScaleIOVolumeSource", ("gateway", "system", "volumeName")),
    "storageos": ("validateStorageOSVolumeSource", ("volumeName",)),
    "image": ("validateImageVolumeSource", ("reference",)),
}  # fmt: skip
#: The numbers of a disk the plugins address, in 0..DISK_INDEX_MAX (an iSCSI lun, a GCE or EBS partition; an FC lun
#: too, judged only with targetWWNs).
VOLUME_PLUGIN_INDEX_FIELDS: Mapping[str, tuple[str, ...]] = {
    "iscsi": ("lun",), "gcePersistentDisk": ("partition",), "awsElasticBlockStore": ("partition",),
}  # fmt: skip
DISK_INDEX_MAX = 255
#: The Secret references whose ``name`` is required when the reference is set (validateCinderVolumeSource,
#: validateStorageOSVolumeSource, validateCSIVolumeSource).
VOLUME_PLUGIN_SECRET_REFS: Mapping[str, tuple[str, ...]] = {
    "cinder": ("secretRef",), "storageos": ("secretRef",), "csi": ("nodePublishSecretRef",),
}  # fmt: skip

#: iSCSI qualified names (validateISCSIVolumeSource's iscsiInitiator*Regex, as Go's RE2 reads them: the iqn form is
#: not anchored at its start; ``\s`` is ASCII white space).
ISCSI_NAME_PATTERNS: Mapping[str, str] = {
    "iqn": r"iqn\.[0-9]{4}-[0-9]{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\t\n\f\r ]+)\Z",
    "eui": r"^eui.[A-Za-z0-9]{16}\Z",
    "naa": r"^naa.[A-Za-z0-9]{32}\Z",
}
#: validateVolumeSource: with an initiatorName, ``<volume name>:<targetPortal>`` is at most this long.
ISCSI_INITIATOR_NAME_MAX = 64
#: validateQuobyteVolumeSource: a tenant shorter than this.
QUOBYTE_TENANT_MAX = 64

#: validateAzureDisk's enums; the API server defaults kind to AZURE_DISK_DEFAULT_KIND (zz_generated.defaults.go).
AZURE_DISK_CACHING_MODES = ("None", "ReadOnly", "ReadWrite")
AZURE_DISK_KINDS = ("Dedicated", "Managed", "Shared")
AZURE_DISK_DEFAULT_KIND = "Shared"
AZURE_MANAGED_DISK_KIND = "Managed"
#: The start of a managed disk's URI and of a blob disk's URI (validateAzureDisk).
AZURE_MANAGED_DISK_URI_PREFIX = "/subscriptions/"
AZURE_BLOB_DISK_URI_PREFIX = "https://"

#: validateFlexVolumeSource: option keys in these namespaces (or their subdomains) are reserved.
FLEX_RESERVED_OPTION_DOMAINS = (".kubernetes.io", ".k8s.io")

#: The fieldRef paths the downward API serves to a volume (validVolumeDownwardAPIFieldPathExpressions) and the
#: two a subscript may follow (validateObjectFieldSelector); the one
#: apiVersion it converts (ConvertDownwardAPIFieldLabel; the API server defaults an empty one to it).
DOWNWARD_API_VOLUME_FIELD_PATHS = frozenset(
    {"metadata.name", "metadata.namespace", "metadata.labels", "metadata.annotations", "metadata.uid"}
)
DOWNWARD_API_SUBSCRIPTED_PATHS = ("metadata.annotations", "metadata.labels")
DOWNWARD_API_VERSIONS = ("v1",)

#: validateContainerResourceDivisor: the divisors (as the API server writes them back) a resourceFieldRef may give,
#: by the resource's kind (cpu; memory, ephemeral-storage and hugepages-<size> share theirs).
_BYTE_DIVISORS = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")
RESOURCE_FIELD_DIVISORS: Mapping[str, tuple[str, ...]] = {
    "cpu": ("1m", "1"), "memory": _BYTE_DIVISORS, "ephemeral-storage": _BYTE_DIVISORS, "hugepages-": _BYTE_DIVISORS,
}  # fmt: skip

#: validateProjectionSources: a projected serviceAccountToken's expirationSeconds (the API server defaults it to
#: 3600) at least 10 minutes and at most 2^32 seconds.
PROJECTED_TOKEN_MIN_SECONDS = 600
PROJECTED_TOKEN_MAX_SECONDS = 2**32

__all__ = [
    "AZURE_BLOB_DISK_URI_PREFIX",
    "AZURE_DISK_CACHING_MODES",
    "AZURE_DISK_DEFAULT_KIND",
    "AZURE_DISK_KINDS",
    "AZURE_MANAGED_DISK_KIND",
    "AZURE_MANAGED_DISK_URI_PREFIX",
    "DISK_INDEX_MAX",
    "DOWNWARD_API_SUBSCRIPTED_PATHS",
    "DOWNWARD_API_VERSIONS",
    "DOWNWARD_API_VOLUME_FIELD_PATHS",
    "FLEX_RESERVED_OPTION_DOMAINS",
    "ISCSI_INITIATOR_NAME_MAX",
    "ISCSI_NAME_PATTERNS",
    "PROJECTED_TOKEN_MAX_SECONDS",
    "PROJECTED_TOKEN_MIN_SECONDS",
    "QUOBYTE_TENANT_MAX",
    "RESOURCE_FIELD_DIVISORS",
    "VOLUME_PLUGIN_INDEX_FIELDS",
    "VOLUME_PLUGIN_REQUIRED_FIELDS",
    "VOLUME_PLUGIN_SECRET_REFS",
]
