"""What the API server's Pod validation refuses in the fields of a pod template's volume sources (the volume's name,
its one source, file modes and mounts are pod_validation.py's): a hostPath's path and type, a PVC's claim name, a
Secret's or ConfigMap's name and items, an NFS path, a CSI driver, an ephemeral volume's claim template; the
in-tree plugins, the downward API's fields, a projected volume's sources and the rest of a claim template are
_volume_plugins.py's. The CRDs type these but check none of their values, so every Pod the operator creates from
the template is refused. Each check mirrors Kubernetes' ``validate<Source>VolumeSource`` (``validateVolumeSource``'s
callees); docs/kubernetes-validation.md lists them. Plain Python, no pulumi.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import Any

from pulumi_kuberay.kuberay.paths import as_dict, as_list, is_unknown
from pulumi_kuberay.kuberay.paths import as_str as _text  # the string to judge (not one known only at apply)

from . import _examples as ex
from ._engine import KINDS, Context, Violation, declare
from ._fixed import patch
from ._manifest_readers import built_pod_templates, is_dns1123_subdomain
from ._ray_resources import quantity
from ._volume_plugins import claim_spec_problems, downward_item_problems, plugin_problems, projected_problems

Doc = dict[str, Any]
Problem = tuple[str, str]  # (path suffix under the volume, what is wrong, with the Kubernetes function)

_REFUSED = "the API server refuses every Pod the operator creates from it and the workload never starts"
_HOST_PATH_TYPES = ("", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice")
_ACCESS_MODES = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
_VOLUME_MODES = ("Filesystem", "Block")
_CSI_DRIVER_MAX = 63  # ValidateCSIDriverName


def _later(value: Any) -> bool:
    """A value Pulumi computes at apply (absent is not: is_unknown also says True for None)."""
    return value is not None and is_unknown(value)


def _backsteps(path: str) -> bool:
    return ".." in path.replace("\\", "/").split("/")


def _empty(source: dict[str, Any], key: str) -> bool:
    """``key`` is absent or empty (a required string the CRD keeps as ""), and known."""
    value = source.get(key)
    return value is None or value == ""


def _items_problems(kind: str, prefix: str, source: dict[str, Any]) -> Iterator[Problem]:
    """validateKeyToPath (secret, configMap) and validateDownwardAPIVolumeFile: a key or a source, a relative path
    (ValidateLocalNonReservedPath); a downward API item's fieldRef or resourceFieldRef. ``prefix``: the source's
    path under the volume (``secret``, ``projected.sources[0].secret``)."""
    for i, item in enumerate(as_list(source.get("items"))):
        item, at = as_dict(item), f"{prefix}.items[{i}]"
        if kind != "downwardAPI" and _empty(item, "key"):
            yield f"{at}.key", f"{kind} item has no key (validateKeyToPath)"
        if kind == "downwardAPI" and sum(item.get(k) is not None for k in ("fieldRef", "resourceFieldRef")) != 1:
            yield at, "a downwardAPI item names exactly one of fieldRef and resourceFieldRef (validateDownwardAPIVolumeFile)"
        path = _text(item.get("path"))
        if _empty(item, "path") or (path is not None and (path.startswith(("/", "..")) or _backsteps(path))):
            yield f"{at}.path", f"{kind} item path {path or ''!r} must be a relative path without '..' (ValidateLocalNonReservedPath)"
        if kind == "downwardAPI":
            yield from downward_item_problems(at, item)


def _claim_problems(at: str, spec: dict[str, Any]) -> Iterator[Problem]:
    """ValidatePersistentVolumeClaimSpec of an ephemeral volume's claim template."""
    modes = spec.get("accessModes")
    if not _later(modes) and not as_list(modes):
        yield f"{at}.accessModes", "an ephemeral volume's claim template needs accessModes (e.g. ReadWriteOnce) (ValidatePersistentVolumeClaimSpec)"
    for i, mode in enumerate(as_list(modes)):
        if _text(mode) is not None and mode not in _ACCESS_MODES:
            yield f"{at}.accessModes[{i}]", f"access mode {mode!r} is not one of {', '.join(_ACCESS_MODES)} (ValidatePersistentVolumeClaimSpec)"
    requests = as_dict(as_dict(spec.get("resources")).get("requests"))
    storage = requests.get("storage")
    amount = quantity(storage) if storage is not None and not _later(storage) else None
    if storage is None and not _later(spec.get("resources")) and not _later(as_dict(spec.get("resources")).get("requests")):
        yield f"{at}.resources.requests", "an ephemeral volume's claim template needs resources.requests.storage (ValidatePersistentVolumeClaimSpec)"
    elif amount is not None and amount <= 0:
        yield f"{at}.resources.requests.storage", f"storage request {storage!r} must be positive (ValidatePersistentVolumeClaimSpec)"
    mode = _text(spec.get("volumeMode"))
    if mode is not None and mode not in _VOLUME_MODES:
        yield f"{at}.volumeMode", f"volumeMode {mode!r} is not Filesystem or Block (ValidatePersistentVolumeClaimSpec)"


def _path_problems(volume: dict[str, Any]) -> Iterator[Problem]:
    """The sources that name a path or a size: hostPath, nfs, gitRepo, emptyDir."""
    host = volume.get("hostPath")
    if isinstance(host, dict):
        path, kind = _text(host.get("path")), _text(host.get("type"))
        if _empty(host, "path") or (path is not None and _backsteps(path)):
            yield "hostPath.path", f"hostPath path {path or ''!r} must be set, without '..' (validateHostPathVolumeSource)"
        elif kind is not None and kind not in _HOST_PATH_TYPES:
            yield "hostPath.type", f"hostPath type {kind!r} is not one of {', '.join(_HOST_PATH_TYPES[1:])} (case matters) (validateHostPathType)"
    nfs = volume.get("nfs")
    path = _text(as_dict(nfs).get("path"))
    if isinstance(nfs, dict) and path is not None and not path.startswith("/"):
        yield "nfs.path", f"nfs path {path!r} must be an absolute path (validateNFSVolumeSource)"
    if isinstance(nfs, dict) and _empty(nfs, "server"):
        yield "nfs.server", "nfs volume has no server (validateNFSVolumeSource)"
    git = volume.get("gitRepo")
    directory = _text(as_dict(git).get("directory"))
    outside = bool(directory) and (str(directory).startswith("/") or _backsteps(str(directory)))
    if isinstance(git, dict) and (_empty(git, "repository") or outside):
        yield "gitRepo", "gitRepo needs a repository, and a directory relative without '..' (validateGitRepoVolumeSource)"
    limit = as_dict(volume.get("emptyDir")).get("sizeLimit")
    amount = quantity(limit) if limit is not None and not _later(limit) else None
    if amount is not None and amount < 0:
        yield "emptyDir.sizeLimit", f"emptyDir sizeLimit {limit!r} is negative (validateVolumeSource)"


def _object_problems(volume: dict[str, Any]) -> Iterator[Problem]:
    """The sources that name an object: a PVC, a Secret, a ConfigMap, the downward API, a CSI driver, a claim."""
    claim = volume.get("persistentVolumeClaim")
    name = _text(as_dict(claim).get("claimName"))
    if isinstance(claim, dict) and (_empty(claim, "claimName") or (name is not None and not is_dns1123_subdomain(name))):
        yield "persistentVolumeClaim.claimName", f"claimName {name or ''!r} is not a PersistentVolumeClaim name (a DNS-1123 subdomain) (ValidateVolumes)"
    for kind, key in (("secret", "secretName"), ("configMap", "name")):
        source = volume.get(kind)
        if isinstance(source, dict):
            if _empty(source, key):
                yield f"{kind}.{key}", f"{kind} volume has no {key} (validate{kind[0].upper()}{kind[1:]}VolumeSource)"
            yield from _items_problems(kind, kind, source)
    if isinstance(volume.get("downwardAPI"), dict):
        yield from _items_problems("downwardAPI", "downwardAPI", as_dict(volume.get("downwardAPI")))
    if isinstance(volume.get("projected"), dict):
        yield from projected_problems(volume["projected"], _items_problems)
    driver = _text(as_dict(volume.get("csi")).get("driver"))
    if driver is not None and (len(driver) > _CSI_DRIVER_MAX or not is_dns1123_subdomain(driver.lower())):
        yield "csi.driver", f"csi driver {driver!r} is not a driver name (at most 63 characters, a DNS-1123 subdomain) (ValidateCSIDriverName)"
    ephemeral = volume.get("ephemeral")
    if isinstance(ephemeral, dict):
        template = ephemeral.get("volumeClaimTemplate")
        if template is None:
            yield "ephemeral.volumeClaimTemplate", "an ephemeral volume needs a volumeClaimTemplate (validateEphemeralVolumeSource)"
        elif isinstance(template, dict) and isinstance(template.get("spec"), dict):
            yield from _claim_problems("ephemeral.volumeClaimTemplate.spec", template["spec"])
            yield from claim_spec_problems("ephemeral.volumeClaimTemplate.spec", template["spec"])


def _check_volume_sources(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        volumes = template.pod_spec.get("volumes")
        for i, volume in enumerate(as_list(volumes)):
            if isinstance(volume, dict):
                for suffix, problem in chain(_path_problems(volume), _object_problems(volume), plugin_problems(volume)):
                    yield Violation(f"{problem}: {_REFUSED}", f"{template.spec_path}.volumes[{i}].{suffix}")


def _with_worker_volume(volume: dict[str, Any]) -> Doc:
    def edit(doc: Doc) -> None:
        ex.worker_of(doc)["template"]["spec"]["volumes"] = [volume]
        ex.worker_container_of(doc)["volumeMounts"] = [{"name": volume["name"], "mountPath": "/data"}]

    return ex.example(edit)


_SCRATCH = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "100Gi"}}}

declare(
    id="pod-volume-source-invalid",
    title="Volume source field the API server refuses (hostPath, PVC, Secret, ConfigMap, projected, CSI, in-tree plugins, ephemeral)",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-25",),
    enforced_by=("run-time",),
    rationale="The CRDs type a pod template's volume sources but check none of their values; Pod validation (validateVolumeSource and each validate<Source>VolumeSource) refuses a hostPath type spelt otherwise ('directory') or a path with '..', a PVC claimName that is no object name, a Secret or ConfigMap volume without its name, items without a key or with an absolute path, an NFS path that is not absolute, a CSI driver that is no DNS name, an in-tree plugin without its required fields (an iscsi iqn or targetPortal, an rbd image, an azureFile shareName...) or with a lun or partition outside 0..255, an azureDisk URI of the wrong form for its kind, a downwardAPI item whose fieldPath the downward API does not serve to a volume (spec.nodeName), a projected source naming two kinds or a path twice, a projected token shorter than 10 minutes, an image volume without its reference, and an ephemeral volume whose claim template has no accessModes or storage request, an invalid storageClassName or selector, or a dataSource of another API group without its apiGroup, so every Pod of the group is refused while the Ray object looks accepted.",
    proof="the API server's Pod validation (ValidatePodCreate) refuses the volume on every Pod the operator creates from the template; values not known until apply are not judged",
    fix="Spell the hostPath type as Kubernetes does (DirectoryOrCreate, Directory, File...), name the PVC, Secret or ConfigMap, keep item paths relative and unique, give each in-tree plugin the fields it requires, one kind per projected source, and give an ephemeral volume's claim template accessModes, resources.requests.storage and object names Kubernetes accepts.",
    check=_check_volume_sources,
    compliant=_with_worker_volume({"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": _SCRATCH}}}),
    violating=_with_worker_volume({"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}}),
    violating_path="spec.workerGroupSpecs[0].template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec": _SCRATCH}),
)
