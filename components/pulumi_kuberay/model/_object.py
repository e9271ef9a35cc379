"""The parts every KubeRay object shares: ``ObjectMeta``, owner references, and :class:`KubeManifest`, the
base class of the manifest class of each kind (``RayClusterManifest`` in :mod:`.manifest`, ``RayJobManifest``
in :mod:`.job`, ...). :mod:`.manifest` imports the kinds and dispatches ``load_manifest`` on them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, Literal, TypeVar, get_args

from pydantic import BaseModel

from pulumi_kuberay.kuberay.api import API_VERSION

from ._base import JsonDict, KubeModel
from ._errors import Problem
from ._names import name_problems

SpecT = TypeVar("SpecT", bound=BaseModel)

Timestamp = str | datetime
"""An RFC 3339 timestamp as written by the API server (YAML loaders may already have parsed it)."""


class OwnerReference(KubeModel):
    """An owner of a live object (``metadata.ownerReferences[]``), set by controllers.

    Example: ``OwnerReference(api_version="ray.io/v1", kind="RayJob", name="j", uid="...", controller=True)``.
    """

    api_version: str
    """API version of the owner, e.g. ``"ray.io/v1"``."""
    kind: str
    """Kind of the owner, e.g. ``"RayJob"``."""
    name: str
    """Name of the owner."""
    uid: str
    """UID of the owner."""
    controller: bool | None = None
    """True for the managing controller."""
    block_owner_deletion: bool | None = None
    """Foreground deletion blocks on this object."""


class ManagedFieldsEntry(KubeModel):
    """One server-side-apply field manager record (``metadata.managedFields[]``) of a live object."""

    api_version: str | None = None
    """API version of the managed fields."""
    fields_type: str | None = None
    """Format of ``fieldsV1`` (``"FieldsV1"``)."""
    fields_v1: dict[str, Any] | None = None
    """The managed field set."""
    manager: str | None = None
    """Name of the manager, e.g. ``"pulumi-kubernetes"``."""
    operation: str | None = None
    """``Apply`` or ``Update``."""
    subresource: str | None = None
    """Subresource the record applies to, e.g. ``"status"``."""
    time: Timestamp | None = None
    """When the manager last changed the fields."""


class ObjectMeta(KubeModel):
    """Top-level ``metadata`` of a KubeRay object: what you write plus what the server sets on live objects.

    Example: ``ObjectMeta(name="raycluster-gpu", namespace="ml", labels={"team": "ml"})``.
    """

    name: str | None = None
    """Object name, e.g. ``"raycluster-gpu"`` (KubeRay limits: RayCluster 53 characters, DNS-1035)."""
    generate_name: str | None = None
    """Prefix for a server-generated name, e.g. ``"rayjob-"``."""
    namespace: str | None = None
    """Namespace, e.g. ``"ml"``."""
    labels: dict[str, str] | None = None
    """Labels, e.g. ``{"ray.io/gang-scheduling-enabled": "true"}``."""
    annotations: dict[str, str] | None = None
    """Annotations, e.g. ``{"ray.io/overwrite-container-cmd": "true"}``."""
    finalizers: list[str] | None = None
    """Finalizers, e.g. ``["ray.io/gcs-ft-redis-cleanup-finalizer"]``."""
    uid: str | None = None
    """Server-set: unique id of the live object."""
    resource_version: str | None = None
    """Server-set: version for optimistic concurrency."""
    generation: int | None = None
    """Server-set: spec generation."""
    creation_timestamp: Timestamp | None = None
    """Server-set: creation time."""
    deletion_timestamp: Timestamp | None = None
    """Server-set: deletion request time."""
    deletion_grace_period_seconds: int | None = None
    """Server-set: grace period of a pending deletion."""
    owner_references: list[OwnerReference] | None = None
    """Owners of the object (e.g. the RayJob owning its RayCluster)."""
    managed_fields: list[ManagedFieldsEntry] | None = None
    """Server-set: server-side-apply field managers."""
    self_link: str | None = None
    """Server-set (deprecated): URL of the object."""


class KubeManifest(KubeModel, Generic[SpecT]):
    """A whole KubeRay object. Subclasses fix ``kind`` (and the ``spec`` type); :mod:`.manifest` lists them
    (or :func:`~pulumi_kuberay.model.manifest.register_kind` adds one).

    ``to_manifest()`` always emits ``apiVersion`` and ``kind`` first, then ``metadata``, ``spec`` and
    ``status`` when present.
    """

    api_version: Literal["ray.io/v1", "ray.io/v1alpha1"] = API_VERSION
    """``ray.io/v1`` (``ray.io/v1alpha1`` is still served, deprecated, for RayCluster/RayJob/RayService)."""
    kind: str
    """Kind of the object; fixed by each subclass."""
    metadata: ObjectMeta | None = None
    """Object metadata, e.g. ``ObjectMeta(name="raycluster-gpu")``."""
    spec: SpecT
    """The typed spec."""
    status: dict[str, Any] | None = None
    """Status of a live object, kept verbatim (see ``pulumi_kuberay.status`` to interpret it)."""

    @classmethod
    def kind_name(cls) -> str:
        """The kind this class models (the default of its ``kind`` field), e.g. ``"RayCluster"``."""
        default = cls.model_fields["kind"].default
        return default if isinstance(default, str) else ""

    @classmethod
    def api_versions(cls) -> tuple[str, ...]:
        """The apiVersions accepted for this kind, preferred first."""
        return tuple(str(a) for a in get_args(cls.model_fields["api_version"].annotation))

    @property
    def name(self) -> str | None:
        """``metadata.name`` (``None`` when unset)."""
        return self.metadata.name if self.metadata is not None else None

    def to_manifest(self) -> JsonDict:
        """The manifest as a dict: ``apiVersion``, ``kind``, then ``metadata``/``spec``/``status`` as set."""
        out: JsonDict = {"apiVersion": self.api_version, "kind": self.kind}
        if "metadata" in self.model_fields_set:
            out["metadata"] = None if self.metadata is None else self.metadata.to_dict()
        out["spec"] = self.spec.model_dump(by_alias=True, exclude_unset=True, mode="python")
        if "status" in self.model_fields_set:
            out["status"] = self.status
        return out

    def name_problems(self) -> list[Problem]:
        """The operator's name rules for this kind (length limit, DNS-1035) as problems; empty when fine.

        ``load_manifest`` does not raise on these (they are operator rules, also in the rule catalogue);
        components raise them with ``ManifestError(m.name_problems())``.
        """
        meta = self.metadata
        kind = self.kind_name() or self.kind
        if meta is not None and meta.name is not None:
            return [Problem("metadata.name", msg, "invalid_value", fix="use a shorter lower-case name")
                    for msg in name_problems(kind, meta.name)]
        if meta is not None and meta.generate_name is not None:
            return [
                Problem("metadata.generateName", msg, "invalid_value", fix="use a shorter lower-case prefix")
                for msg in name_problems(kind, meta.generate_name, generated=True)
            ]
        return []


__all__ = ["KubeManifest", "ManagedFieldsEntry", "ObjectMeta", "OwnerReference", "SpecT", "Timestamp"]
