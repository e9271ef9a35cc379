"""Pod validation's checks of the in-tree volume plugins (iscsi, fc, rbd, azureDisk... and image), of a downward API
item's fieldRef and resourceFieldRef, of a projected volume's sources, and of the rest of an ephemeral volume's
claim template (storageClassName, selector, dataSource, dataSourceRef): what pod_volume_sources.py's rule reports.
Each generator yields (path suffix under the volume, what is wrong with the Kubernetes function), judging only
values known before apply. The facts are kuberay/volumes.py's. Plain Python, no pulumi.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from pulumi_kuberay.kuberay.paths import as_dict, as_list, is_unknown
from pulumi_kuberay.kuberay.paths import as_str as _text  # the string to judge (not one known only at apply)
from pulumi_kuberay.kuberay.quantity import QuantityError, marshal
from pulumi_kuberay.kuberay.volumes import (
    AZURE_BLOB_DISK_URI_PREFIX,
    AZURE_DISK_CACHING_MODES,
    AZURE_DISK_DEFAULT_KIND,
    AZURE_DISK_KINDS,
    AZURE_MANAGED_DISK_KIND,
    AZURE_MANAGED_DISK_URI_PREFIX,
    DISK_INDEX_MAX,
    DOWNWARD_API_SUBSCRIPTED_PATHS,
    DOWNWARD_API_VERSIONS,
    DOWNWARD_API_VOLUME_FIELD_PATHS,
    FLEX_RESERVED_OPTION_DOMAINS,
    ISCSI_INITIATOR_NAME_MAX,
    ISCSI_NAME_PATTERNS,
    PROJECTED_TOKEN_MAX_SECONDS,
    PROJECTED_TOKEN_MIN_SECONDS,
    QUOBYTE_TENANT_MAX,
    RESOURCE_FIELD_DIVISORS,
    VOLUME_PLUGIN_INDEX_FIELDS,
    VOLUME_PLUGIN_REQUIRED_FIELDS,
    VOLUME_PLUGIN_SECRET_REFS,
)

from ._manifest_readers import is_dns1123_label, is_dns1123_subdomain, label_value_error, qualified_name_error

Doc = dict[str, Any]
Problem = tuple[str, str]

_ISCSI_NAMES = {prefix: re.compile(pattern) for prefix, pattern in ISCSI_NAME_PATTERNS.items()}
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")  # validatePullPolicy
#: validContainerResourceFieldPathExpressions
_RESOURCE_FIELD_PATHS = frozenset(f"{k}.{r}" for k in ("limits", "requests") for r in ("cpu", "memory", "ephemeral-storage"))
_HUGEPAGES = ("requests.hugepages-", "limits.hugepages-")  # validContainerResourceFieldPathPrefixesWithDownwardAPIHugePages
#: The validators of the plugins kuberay.volumes' table of required fields does not name.
_VALIDATORS = {"fc": "validateFCVolumeSource", "flocker": "validateFlockerVolumeSource", "csi": "validateCSIVolumeSource"}
_CLAIM_KIND = "PersistentVolumeClaim"  # validateDataSource: the one kind of the core group a claim may copy
_SELECTOR_OPERATORS = {"In": True, "NotIn": True, "Exists": False, "DoesNotExist": False}  # -> values required


def _later(value: Any) -> bool:
    """A value Pulumi computes at apply (absent is not: is_unknown also says True for None)."""
    return value is not None and is_unknown(value)


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _missing(value: Any) -> bool:
    """Absent or empty ("" or []) and known: what Go reads as the zero value a ``field.Required`` refuses."""
    return value is None or value == "" or (isinstance(value, list) and not value)


def _local_path_error(path: str) -> str | None:
    """ValidateLocalNonReservedPath: relative, no '..' element, not starting with '..'."""
    if path.startswith("/"):
        return "must be a relative path"
    if ".." in path.replace("\\", "/").split("/") or path.startswith(".."):
        return "must not contain or start with '..'"
    return None


# --------------------------------------------------------------------------------------------------
# The in-tree plugins


def _iscsi_name_error(name: str) -> str | None:
    pattern = _ISCSI_NAMES.get(name[:3])
    if pattern is None:
        return "must start with iqn, eui or naa"
    return None if pattern.search(name) else f"is not a valid {name[:3]} name (e.g. iqn.2001-04.com.example:storage)"


def _iscsi(source: Doc, volume: Doc) -> Iterator[Problem]:
    iqn, initiator = _text(source.get("iqn")), _text(source.get("initiatorName"))
    error = _iscsi_name_error(iqn) if iqn else None
    if error:
        yield "iscsi.iqn", f"iscsi iqn {iqn!r} {error} (validateISCSIVolumeSource)"
    chap = source.get("chapAuthDiscovery") is True or source.get("chapAuthSession") is True
    if chap and source.get("secretRef") is None:
        yield "iscsi.secretRef", "iscsi CHAP authentication needs a secretRef (validateISCSIVolumeSource)"
    error = _iscsi_name_error(initiator) if initiator is not None else None
    if error:
        yield "iscsi.initiatorName", f"iscsi initiatorName {initiator!r} {error} (validateISCSIVolumeSource)"
    name, portal = _text(volume.get("name")), _text(source.get("targetPortal"))
    joined = f"{name}:{portal}" if name is not None and portal is not None else ""
    if source.get("initiatorName") is not None and len(joined) > ISCSI_INITIATOR_NAME_MAX:
        yield "name", f"with an iscsi initiatorName, '<volume name>:<targetPortal>' must be at most {ISCSI_INITIATOR_NAME_MAX} characters (validateVolumeSource)"


def _fc(source: Doc, volume: Doc) -> Iterator[Problem]:
    wwns, wwids = source.get("targetWWNs"), source.get("wwids")
    lun, number = source.get("lun"), _number(source.get("lun"))
    if _later(wwns) or _later(wwids):
        return
    if not as_list(wwns) and not as_list(wwids):
        yield "fc.targetWWNs", "an fc volume needs targetWWNs (with a lun) or wwids (validateFCVolumeSource)"
    elif as_list(wwns) and as_list(wwids):
        yield "fc.targetWWNs", "an fc volume names targetWWNs or wwids, not both (validateFCVolumeSource)"
    elif as_list(wwns) and lun is None:
        yield "fc.lun", "an fc volume with targetWWNs needs a lun (validateFCVolumeSource)"
    elif as_list(wwns) and number is not None and not 0 <= number <= DISK_INDEX_MAX:
        yield "fc.lun", f"fc lun {number} is not in 0..{DISK_INDEX_MAX} (validateFCVolumeSource)"


def _quobyte(source: Doc, volume: Doc) -> Iterator[Problem]:
    registry, tenant = _text(source.get("registry")), _text(source.get("tenant"))
    if not registry:
        return
    if tenant is not None and len(tenant) > QUOBYTE_TENANT_MAX:
        yield "quobyte.tenant", f"quobyte tenant must be a UUID of at most {QUOBYTE_TENANT_MAX} characters (validateQuobyteVolumeSource)"
    elif not all(_host_port(pair) for pair in registry.split(",")):
        yield "quobyte.registry", f"quobyte registry {registry!r} must be host:port pairs separated by commas (validateQuobyteVolumeSource)"


def _host_port(address: str) -> bool:
    """Whether Go's ``net.SplitHostPort`` accepts ``address`` (the port may be empty; a host with ':' needs [])."""
    last = address.rfind(":")
    if last < 0:
        return False
    start, end = 0, 0
    if address.startswith("["):
        close = address.find("]")
        if close < 0 or close + 1 != last:
            return False
        start, end = 1, close + 1
    elif ":" in address[:last]:
        return False
    return "[" not in address[start:] and "]" not in address[end:]


def _flocker(source: Doc, volume: Doc) -> Iterator[Problem]:
    name, uuid = source.get("datasetName"), source.get("datasetUUID")
    if _later(name) or _later(uuid):
        return
    if not name and not uuid:
        yield "flocker", "a flocker volume needs one of datasetName and datasetUUID (validateFlockerVolumeSource)"
    elif name and uuid:
        yield "flocker", "a flocker volume names datasetName or datasetUUID, not both (validateFlockerVolumeSource)"
    if isinstance(name, str) and "/" in name:
        yield "flocker.datasetName", f"flocker datasetName {name!r} must not contain '/' (validateFlockerVolumeSource)"


def _flex(source: Doc, volume: Doc) -> Iterator[Problem]:
    for key in as_dict(source.get("options")):
        domain = "." + str(key).split("/", 1)[0].lower() if "/" in str(key) else "." + str(key).lower()
        if domain.endswith(FLEX_RESERVED_OPTION_DOMAINS):
            yield "flexVolume.options", f"flexVolume option {key!r} is in the reserved kubernetes.io or k8s.io namespace (validateFlexVolumeSource)"


def _azure_disk(source: Doc, volume: Doc) -> Iterator[Problem]:
    caching, kind, uri = _text(source.get("cachingMode")), _text(source.get("kind")), _text(source.get("diskURI"))
    if caching is not None and caching not in AZURE_DISK_CACHING_MODES:
        yield "azureDisk.cachingMode", f"azureDisk cachingMode {caching!r} is not one of {', '.join(AZURE_DISK_CACHING_MODES)} (validateAzureDisk)"
    if kind is not None and kind not in AZURE_DISK_KINDS:
        yield "azureDisk.kind", f"azureDisk kind {kind!r} is not one of {', '.join(AZURE_DISK_KINDS)} (validateAzureDisk)"
    if source.get("kind") is None or kind is not None:  # the API server defaults kind to Shared (a blob disk)
        managed = (kind or AZURE_DISK_DEFAULT_KIND) == AZURE_MANAGED_DISK_KIND
        prefix = AZURE_MANAGED_DISK_URI_PREFIX if managed else AZURE_BLOB_DISK_URI_PREFIX
        if uri and not uri.startswith(prefix):
            what = "a managed disk's URI starts with" if managed else f"a disk of kind {kind or AZURE_DISK_DEFAULT_KIND} (the default) is a blob whose URI starts with"
            yield "azureDisk.diskURI", f"azureDisk diskURI {uri!r}: {what} {prefix!r} (validateAzureDisk)"


def _storageos(source: Doc, volume: Doc) -> Iterator[Problem]:
    for key in ("volumeName", "volumeNamespace"):
        value = _text(source.get(key))
        if value and not is_dns1123_label(value):
            yield f"storageos.{key}", f"storageos {key} {value!r} is not a DNS-1123 label (validateStorageOSVolumeSource)"


def _image(source: Doc, volume: Doc) -> Iterator[Problem]:
    policy = _text(source.get("pullPolicy"))
    if policy and policy not in _PULL_POLICIES:
        yield "image.pullPolicy", f"image volume pullPolicy {policy!r} is not one of {', '.join(_PULL_POLICIES)} (case matters) (validatePullPolicy)"


_SPECIAL: dict[str, Callable[[Doc, Doc], Iterator[Problem]]] = {
    "iscsi": _iscsi,
    "fc": _fc,
    "quobyte": _quobyte,
    "flocker": _flocker,
    "flexVolume": _flex,
    "azureDisk": _azure_disk,
    "storageos": _storageos,
    "image": _image,
}
_PLUGINS = frozenset(VOLUME_PLUGIN_REQUIRED_FIELDS) | frozenset(_SPECIAL) | frozenset(VOLUME_PLUGIN_SECRET_REFS)


@cache
def _crd_required(kind: str) -> frozenset[str]:
    """The fields of a volume source the CRDs require themselves (the typed model's required fields): absent, the
    API server refuses the Ray object, which ``schema-missing-field`` reports; only an empty one reaches the Pod."""
    from pulumi_kuberay.model import Volume  # loaded on the first plugin volume, not with the rules

    annotation = next(info.annotation for name, info in Volume.model_fields.items() if (info.alias or name) == kind)
    model: Any = next(a for a in typing.get_args(annotation) if isinstance(a, type))  # the source's pydantic class
    return frozenset(info.alias or name for name, info in model.model_fields.items() if info.is_required())


def plugin_problems(volume: Doc) -> Iterator[Problem]:
    """The in-tree plugins' validate<Plugin>VolumeSource: required fields, disk numbers in 0..255, formats, enums."""
    for kind in _PLUGINS.intersection(volume):
        source = volume[kind]
        if not isinstance(source, dict):
            continue
        function, required = VOLUME_PLUGIN_REQUIRED_FIELDS.get(kind, (_VALIDATORS.get(kind, ""), ()))
        for key in required:
            if _missing(source.get(key)) and (key in source or key not in _crd_required(kind)):
                yield f"{kind}.{key}", f"{kind} volume has no {key} ({function})"
        for key in VOLUME_PLUGIN_INDEX_FIELDS.get(kind, ()):
            number = _number(source.get(key))
            if number is not None and not 0 <= number <= DISK_INDEX_MAX:
                yield f"{kind}.{key}", f"{kind} {key} {number} is not in 0..{DISK_INDEX_MAX} ({function})"
        for key in VOLUME_PLUGIN_SECRET_REFS.get(kind, ()):
            ref = source.get(key)
            name = _text(as_dict(ref).get("name"))
            if isinstance(ref, dict) and _missing(ref.get("name")):
                yield f"{kind}.{key}.name", f"{kind} {key} has no name ({function})"
            elif kind == "csi" and name is not None and not is_dns1123_subdomain(name):
                yield f"{kind}.{key}.name", f"{kind} {key} name {name!r} is not a Secret name (a DNS-1123 subdomain) (ValidateSecretName)"
        special = _SPECIAL.get(kind)
        if special is not None:
            yield from special(source, volume)


# --------------------------------------------------------------------------------------------------
# The downward API's items (a downwardAPI volume, a projected source)


def _field_ref_problem(ref: Doc) -> str | None:
    """validateObjectFieldSelector with the paths a volume serves (after the API server defaults apiVersion)."""
    version, path = _text(ref.get("apiVersion")), _text(ref.get("fieldPath"))
    if version and version not in DOWNWARD_API_VERSIONS:
        return f"fieldRef apiVersion {version!r} is not v1 (ConvertDownwardAPIFieldLabel)"
    if path is None:  # absent: the CRD requires it (schema-missing-field)
        return None
    base, subscript = path, None
    if path.endswith("']") and "['" in path[:-2] and not path.startswith("['"):
        base, subscript = path[:-2].split("['", 1)  # fieldpath.SplitMaybeSubscriptedPath
    if subscript is not None:
        key = subscript.lower() if base == DOWNWARD_API_SUBSCRIPTED_PATHS[0] else subscript
        error = qualified_name_error(key) if base in DOWNWARD_API_SUBSCRIPTED_PATHS else "a subscript follows only metadata.labels or metadata.annotations"
        return f"fieldPath {path!r}: {error} (validateObjectFieldSelector)" if error else None
    if path not in DOWNWARD_API_VOLUME_FIELD_PATHS:
        return f"fieldPath {path!r} is not one the downward API serves to a volume ({', '.join(sorted(DOWNWARD_API_VOLUME_FIELD_PATHS))}, metadata.labels['<key>']) (validateObjectFieldSelector)"
    return None


def downward_item_problems(at: str, item: Doc) -> Iterator[Problem]:
    """validateDownwardAPIVolumeFile's fieldRef and resourceFieldRef values (a volume needs a containerName)."""
    ref, resources = item.get("fieldRef"), item.get("resourceFieldRef")
    if isinstance(ref, dict):
        problem = _field_ref_problem(ref)
        if problem:
            yield f"{at}.fieldRef.fieldPath", problem
    elif isinstance(resources, dict):
        resource = _text(resources.get("resource"))
        if _missing(resources.get("containerName")):
            yield f"{at}.resourceFieldRef.containerName", "a downwardAPI volume's resourceFieldRef needs a containerName (validateContainerResourceFieldSelector)"
        elif resources.get("resource") == "":  # absent: the CRD requires it (schema-missing-field)
            yield f"{at}.resourceFieldRef.resource", "resourceFieldRef has no resource (validateContainerResourceFieldSelector)"
        elif resource is not None and resource not in _RESOURCE_FIELD_PATHS and not resource.startswith(_HUGEPAGES):
            yield f"{at}.resourceFieldRef.resource", f"resource {resource!r} is not one of {', '.join(sorted(_RESOURCE_FIELD_PATHS))} or hugepages-<size> (validateContainerResourceFieldSelector)"
        problem = _divisor_problem(resource, resources.get("divisor"))
        if problem:
            yield f"{at}.resourceFieldRef.divisor", problem


def _divisor_problem(resource: str | None, divisor: Any) -> str | None:
    """validateContainerResourceDivisor: a divisor the resource's kind allows (an unset or zero one is not judged)."""
    if resource is None or divisor is None or is_unknown(divisor):
        return None
    kind = resource.partition(".")[2]
    allowed = RESOURCE_FIELD_DIVISORS.get("hugepages-" if kind.startswith("hugepages-") else kind)
    try:
        written = marshal(divisor)
    except QuantityError:
        return None  # not a quantity: the CRD's int-or-string pattern refuses it first
    if allowed is None or written == "0" or written in allowed:
        return None
    return f"divisor {divisor!r} of {resource} is not one of {', '.join(allowed)} (validateContainerResourceDivisor)"


# --------------------------------------------------------------------------------------------------
# A projected volume's sources


def projected_problems(
    projected: Doc, items_problems: Callable[[str, str, Doc], Iterator[Problem]]
) -> Iterator[Problem]:
    """validateProjectionSources: one source per projection, a Secret's or ConfigMap's name, the items (through
    ``items_problems``, the plain volumes' checks), a token's lifetime and path, no path twice in the volume. The
    clusterTrustBundle and podCertificate sources are not judged: their gates (ClusterTrustBundleProjection,
    PodCertificateRequest) are off by default at 1.36, so the API server drops them before validation."""
    seen: set[str] = set()
    for i, source in enumerate(as_list(projected.get("sources"))):
        if not isinstance(source, dict):
            continue
        at = f"projected.sources[{i}]"
        kinds = [k for k in ("secret", "configMap", "downwardAPI", "serviceAccountToken") if isinstance(source.get(k), dict)]
        if len(kinds) > 1:
            yield at, f"a projected source names one of secret, configMap, downwardAPI and serviceAccountToken, this one {len(kinds)} (validateProjectionSources)"
        for kind in kinds:
            part = source[kind]
            if kind in ("secret", "configMap") and _missing(part.get("name")):
                yield f"{at}.{kind}.name", f"a projected {kind} has no name (validateProjectionSources)"
            if kind != "serviceAccountToken":
                yield from items_problems(kind, f"{at}.{kind}", part)
                for j, item in enumerate(as_list(part.get("items"))):
                    path = _text(as_dict(item).get("path"))
                    if path and path in seen:
                        yield f"{at}.{kind}.items[{j}].path", f"path {path!r} is projected twice in the volume (validateProjectionSources)"
                    seen.add(path or "")
            else:
                yield from _token_problems(f"{at}.{kind}", part)


def _token_problems(at: str, token: Doc) -> Iterator[Problem]:
    seconds, path = _number(token.get("expirationSeconds")), _text(token.get("path"))
    if seconds is not None and not PROJECTED_TOKEN_MIN_SECONDS <= seconds <= PROJECTED_TOKEN_MAX_SECONDS:
        yield f"{at}.expirationSeconds", f"serviceAccountToken expirationSeconds {seconds} is not between 10 minutes (600) and 2^32 (validateProjectionSources)"
    error = _local_path_error(path) if path else None
    if token.get("path") == "" or error:  # absent: the CRD requires it (schema-missing-field)
        yield f"{at}.path", f"serviceAccountToken path {path or ''!r} must be set, relative, without '..' (ValidateLocalNonReservedPath)"


# --------------------------------------------------------------------------------------------------
# An ephemeral volume's claim template: ValidatePersistentVolumeClaimSpec's other fields


def claim_spec_problems(at: str, spec: Doc) -> Iterator[Problem]:
    """ReadWriteOncePod alone, storageClassName and volumeAttributesClassName object names, the selector,
    dataSource and dataSourceRef (validateDataSource, validateDataSourceRef) and their agreement."""
    modes = [m for m in as_list(spec.get("accessModes")) if isinstance(m, str)]
    if "ReadWriteOncePod" in modes and any(m in ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany") for m in modes):
        yield f"{at}.accessModes", "ReadWriteOncePod may not be used with other access modes (ValidatePersistentVolumeClaimSpec)"
    for key in ("storageClassName", "volumeAttributesClassName"):
        name = _text(spec.get(key))
        if name and not is_dns1123_subdomain(name):
            yield f"{at}.{key}", f"{key} {name!r} is not an object name (a DNS-1123 subdomain) (ValidateClassName)"
    if isinstance(spec.get("selector"), dict):
        yield from _selector_problems(f"{at}.selector", spec["selector"])
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    for key, value in (("dataSource", source), ("dataSourceRef", ref)):
        if isinstance(value, dict):
            yield from _data_source_problems(f"{at}.{key}", value)
    if not isinstance(source, dict) or not isinstance(ref, dict) or any(map(_later, (*source.values(), *ref.values()))):
        return
    if ref.get("namespace"):
        yield f"{at}.dataSource", "dataSource may not be set with a dataSourceRef that names a namespace (ValidatePersistentVolumeClaimSpec)"
    elif any(source.get(k) != ref.get(k) for k in ("apiGroup", "kind", "name")):
        yield f"{at}.dataSource", "dataSource must match dataSourceRef (apiGroup, kind and name) when both are set (ValidatePersistentVolumeClaimSpec)"


def _data_source_problems(at: str, source: Doc) -> Iterator[Problem]:
    function = "validateDataSourceRef" if at.endswith("Ref") else "validateDataSource"
    for key in ("name", "kind"):  # absent: the CRD requires them (schema-missing-field)
        if source.get(key) == "":
            yield f"{at}.{key}", f"{at.rsplit('.', 1)[-1]} has no {key} ({function})"
    group, kind = source.get("apiGroup"), _text(source.get("kind"))
    if (group is None or group == "") and kind and kind != _CLAIM_KIND:
        yield at, f"{at.rsplit('.', 1)[-1]} of kind {kind!r} needs its apiGroup (only a {_CLAIM_KIND} is of the core group) ({function})"
    if isinstance(group, str) and group and not _later(group) and not is_dns1123_subdomain(group):
        yield f"{at}.apiGroup", f"apiGroup {group!r} is not a DNS-1123 subdomain ({function})"
    namespace = _text(source.get("namespace"))
    if namespace and not is_dns1123_label(namespace):
        yield f"{at}.namespace", f"namespace {namespace!r} is not a namespace name (a DNS-1123 label) ({function})"


def _selector_problems(at: str, selector: Doc) -> Iterator[Problem]:
    """ValidateLabelSelector (invalid label values not allowed)."""
    for key, value in as_dict(selector.get("matchLabels")).items():
        error = qualified_name_error(str(key)) or (label_value_error(value) if _text(value) is not None else None)
        if error:
            yield f"{at}.matchLabels", f"selector label {key}={value!r}: {error} (ValidateLabelSelector)"
    for j, expression in enumerate(as_list(selector.get("matchExpressions"))):
        expression, where = as_dict(expression), f"{at}.matchExpressions[{j}]"
        operator, name, values = _text(expression.get("operator")), _text(expression.get("key")), expression.get("values")
        needs_values = _SELECTOR_OPERATORS.get(operator or "")
        if operator is not None and needs_values is None:
            yield f"{where}.operator", f"selector operator {operator!r} is not In, NotIn, Exists or DoesNotExist (ValidateLabelSelectorRequirement)"
        elif needs_values is not None and not _later(values) and needs_values != bool(as_list(values)):
            yield f"{where}.values", f"selector operator {operator} {'needs' if needs_values else 'takes no'} values (ValidateLabelSelectorRequirement)"
        error = qualified_name_error(name) if name is not None else None
        if error:
            yield f"{where}.key", f"selector key {name!r}: {error} (ValidateLabelSelectorRequirement)"
        bad = [v for v in as_list(values) if _text(v) is not None and label_value_error(v)]
        if bad:
            yield f"{where}.values", f"selector value {bad[0]!r} is not a label value (ValidateLabelSelectorRequirement)"
