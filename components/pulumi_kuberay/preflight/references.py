"""Every object a Ray manifest names, and whether the snapshot has it (and the key in it). Pure.

What each missing reference does to the Pods (the consequence a finding states):

* ServiceAccount (``serviceAccountName``): the ServiceAccount admission plugin refuses the Pod at creation;
* PriorityClass (``priorityClassName``), RuntimeClass (``runtimeClassName``): refused at creation by the
  Priority and RuntimeClass admission plugins;
* PersistentVolumeClaim: the scheduler keeps the Pod Pending (``persistentvolumeclaim not found``);
* Secret or ConfigMap (env ``valueFrom``, ``envFrom``, volumes), or a key in one: the kubelet cannot start the
  container (``CreateContainerConfigError``, or ``FailedMount`` for a volume), unless the reference is optional;
* an image pull secret: the image pull goes without it (a private image then fails to pull);
* StorageClass of an ephemeral volume claim: the claim stays Pending, and so the Pod.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_kuberay.kuberay import paths

from .snapshot import ClusterSnapshot

__all__ = ["Missing", "Reference", "missing_references", "references"]


@dataclass(frozen=True)
class Reference:
    kind: str  # ServiceAccount | Secret | ConfigMap | PersistentVolumeClaim | PriorityClass | RuntimeClass | ...
    name: str
    path: str
    key: str | None = None
    optional: bool = False


@dataclass(frozen=True)
class Missing:
    reference: Reference
    #: ``does not exist`` or ``has no key 'x' (it has: a, b)``
    why: str
    #: what happens to the Pods
    effect: str
    blocking: bool


_EFFECTS = {
    "ServiceAccount": ("the ServiceAccount admission plugin refuses the Pod at creation", True),
    "PriorityClass": ("the Priority admission plugin refuses the Pod at creation", True),
    "RuntimeClass": ("the RuntimeClass admission plugin refuses the Pod at creation", True),
    "PersistentVolumeClaim": ("the scheduler keeps the Pod Pending (persistentvolumeclaim not found)", True),
    "Secret": ("the kubelet cannot start the container (CreateContainerConfigError, or FailedMount for a volume)", True),
    "ConfigMap": ("the kubelet cannot start the container (CreateContainerConfigError, or FailedMount for a volume)", True),
    "image pull Secret": ("the image is pulled without it: a private image fails to pull (ErrImagePull)", False),
    "StorageClass": ("the ephemeral volume's claim stays Pending, and with it the Pod", True),
}


def _env_refs(container: Mapping[str, Any], path: str) -> Iterator[Reference]:
    for i, env in enumerate(paths.as_list(container.get("env"))):
        source = paths.as_dict(paths.as_dict(env).get("valueFrom"))
        for field, kind in (("secretKeyRef", "Secret"), ("configMapKeyRef", "ConfigMap")):
            ref = paths.as_dict(source.get(field))
            if paths.as_str(ref.get("name")):
                yield Reference(kind, str(ref["name"]), paths.join(path, "env", i, "valueFrom", field),
                                paths.as_str(ref.get("key")), ref.get("optional") is True)
    for i, env_from in enumerate(paths.as_list(container.get("envFrom"))):
        for field, kind in (("secretRef", "Secret"), ("configMapRef", "ConfigMap")):
            ref = paths.as_dict(paths.as_dict(env_from).get(field))
            if paths.as_str(ref.get("name")):
                yield Reference(kind, str(ref["name"]), paths.join(path, "envFrom", i, field), None,
                                ref.get("optional") is True)


def _volume_refs(pod_spec: Mapping[str, Any], path: str) -> Iterator[Reference]:
    for i, volume in enumerate(paths.as_list(pod_spec.get("volumes"))):
        volume = paths.as_dict(volume)
        where = paths.join(path, "volumes", i)
        secret = paths.as_dict(volume.get("secret"))
        if paths.as_str(secret.get("secretName")):
            keys = [paths.as_str(paths.as_dict(i).get("key")) for i in paths.as_list(secret.get("items"))]
            named: list[str | None] = [k for k in keys if k]
            for key in named or [None]:
                yield Reference("Secret", str(secret["secretName"]), paths.join(where, "secret"), key,
                                secret.get("optional") is True)
        config_map = paths.as_dict(volume.get("configMap"))
        if paths.as_str(config_map.get("name")):
            keys = [paths.as_str(paths.as_dict(i).get("key")) for i in paths.as_list(config_map.get("items"))]
            named = [k for k in keys if k]
            for key in named or [None]:
                yield Reference("ConfigMap", str(config_map["name"]), paths.join(where, "configMap"), key,
                                config_map.get("optional") is True)
        claim = paths.as_dict(volume.get("persistentVolumeClaim"))
        if paths.as_str(claim.get("claimName")):
            yield Reference("PersistentVolumeClaim", str(claim["claimName"]), paths.join(where, "persistentVolumeClaim"))
        template = paths.get(volume, "ephemeral", "volumeClaimTemplate", "spec", "storageClassName")
        if paths.as_str(template):
            yield Reference("StorageClass", str(template),
                            paths.join(where, "ephemeral", "volumeClaimTemplate", "spec", "storageClassName"))


def references(manifest: Mapping[str, Any]) -> Iterator[Reference]:
    """Every named object of every pod template the manifest makes the operator create (the submitter too)."""
    for template in paths.pod_templates(manifest):
        spec, where = template.pod_spec, template.spec_path
        for field, kind in (("serviceAccountName", "ServiceAccount"), ("priorityClassName", "PriorityClass"),
                            ("runtimeClassName", "RuntimeClass")):
            name = paths.as_str(spec.get(field))
            if name and not paths.is_unknown(name) and not (kind == "ServiceAccount" and name == "default"):
                yield Reference(kind, name, paths.join(where, field))
        for i, secret in enumerate(paths.as_list(spec.get("imagePullSecrets"))):
            name = paths.as_str(paths.as_dict(secret).get("name"))
            if name:
                yield Reference("image pull Secret", name, paths.join(where, "imagePullSecrets", i, "name"))
        for container_path, container in paths.containers(template):
            yield from _env_refs(container, container_path)
        yield from _volume_refs(spec, where)
    for ref in paths.cluster_specs(manifest):
        ft = paths.as_dict(ref.spec.get("gcsFaultToleranceOptions"))
        for field in ("redisPassword", "redisUsername"):
            secret = paths.as_dict(paths.get(ft, field, "valueFrom", "secretKeyRef"))
            if paths.as_str(secret.get("name")):
                yield Reference("Secret", str(secret["name"]),
                                ref.path("gcsFaultToleranceOptions", field, "valueFrom", "secretKeyRef"),
                                paths.as_str(secret.get("key")), secret.get("optional") is True)


def _lookup(reference: Reference, namespace: str, snapshot: ClusterSnapshot) -> str | None:
    """Why the reference is not satisfied (None: it is, or the snapshot cannot tell)."""
    if reference.kind in ("Secret", "ConfigMap", "image pull Secret"):
        table = snapshot.config_maps if reference.kind == "ConfigMap" else snapshot.secrets
        if table is None or not snapshot.reads(namespace):
            return None
        keys = table.get((namespace, reference.name))
        if keys is None:
            return "does not exist"
        if reference.key is not None and reference.key not in keys:
            return f"has no key {reference.key!r} (it has: {', '.join(sorted(keys)) or 'no keys'})"
        return None
    if reference.kind in ("ServiceAccount", "PersistentVolumeClaim"):
        names = snapshot.service_accounts if reference.kind == "ServiceAccount" else snapshot.pvcs
        if names is None or not snapshot.reads(namespace):
            return None
        return None if (namespace, reference.name) in names else "does not exist"
    cluster_names = {
        "PriorityClass": snapshot.priority_classes,
        "RuntimeClass": snapshot.runtime_classes,
        "StorageClass": snapshot.storage_classes,
    }.get(reference.kind)
    if cluster_names is None:
        return None
    return None if reference.name in cluster_names else "does not exist"


def missing_references(manifest: Mapping[str, Any], namespace: str, snapshot: ClusterSnapshot) -> list[Missing]:
    """The references the snapshot shows unsatisfied (an optional Secret or ConfigMap is never missing)."""
    out: list[Missing] = []
    for reference in references(manifest):
        if reference.optional or paths.contains_unknown(reference.name) or paths.contains_unknown(reference.key):
            continue
        why = _lookup(reference, namespace, snapshot)
        if why is not None:
            effect, blocking = _EFFECTS[reference.kind]
            out.append(Missing(reference, why, effect, blocking))
    return out
