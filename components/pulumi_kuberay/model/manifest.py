"""Whole KubeRay objects (apiVersion, kind, metadata, spec, status) and ``load_manifest``.

``load_manifest(doc)`` turns a manifest (a dict, e.g. from ``yaml.safe_load``) into the typed object of its
kind; ``.to_manifest()`` gives the dict back, exactly as loaded (only what was set, CRD field names)::

    m = load_manifest(yaml.safe_load(open("ray-cluster.sample.yaml")))
    assert isinstance(m, RayClusterManifest) and m.to_manifest() == doc

Validation is structural, as the API server would do it (types, enums, required and unknown fields), plus the
model's obvious invariants (replica bounds, unique group names); any problem raises
:class:`~pulumi_kuberay.model._base.ManifestError` whose ``problems``/``paths`` carry CRD paths such as
``spec.workerGroupSpecs[1].minReplicas``. Manifests are validated under
:data:`~pulumi_kuberay.model.pod.WIRE_CONTEXT`: no Python conveniences (a ``rayStartParams`` value ``0`` is a
wrong type, ``image`` under ``headGroupSpec`` an unknown field).

Operator-only rules (name length/DNS-1035: RC-01/02, RJ-01/02, ...) are *not* raised here, so linters can load
a manifest and report them as findings; :meth:`KubeManifest.name_problems` (and :mod:`._names`) expose them.

Kinds are registered in ``_KINDS`` with :func:`register_kind`; RayJob/RayService/RayCronJob manifests are
found lazily in ``job.py``/``service.py``/``cronjob.py`` (``_LAZY_KINDS``), which define e.g.::

    @register_kind
    class RayJobManifest(KubeManifest[RayJobSpec]):
        kind: Literal["RayJob"] = "RayJob"
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, get_args

from pydantic import BaseModel, ValidationError

from ._base import JsonDict, KubeModel, ManifestError, Problem, problems_from_validation_error
from ._names import name_problems
from .cluster import RayClusterSpec
from .pod import WIRE_CONTEXT

if TYPE_CHECKING:
    from .cronjob import RayCronJobManifest as RayCronJobManifest
    from .job import RayJobManifest as RayJobManifest
    from .service import RayServiceManifest as RayServiceManifest

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
    """A whole KubeRay object. Subclasses fix ``kind`` (and the ``spec`` type) and register with
    :func:`register_kind`.

    ``to_manifest()`` always emits ``apiVersion`` and ``kind`` first, then ``metadata``, ``spec`` and
    ``status`` when present.
    """

    api_version: Literal["ray.io/v1", "ray.io/v1alpha1"] = "ray.io/v1"
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


class RayClusterManifest(KubeManifest[RayClusterSpec]):
    """A RayCluster object.

    Example::

        RayClusterManifest(metadata=ObjectMeta(name="raycluster-gpu"), spec=RayClusterSpec(...)).to_manifest()
    """

    kind: Literal["RayCluster"] = "RayCluster"
    """Always ``"RayCluster"``."""


# --------------------------------------------------------------------------------------------------
# Registry of kinds.

_KINDS: dict[str, type[KubeManifest[Any]]] = {}
"""kind -> manifest class, filled by :func:`register_kind`."""

_LAZY_KINDS: dict[str, tuple[str, str]] = {
    "RayJob": ("pulumi_kuberay.model.job", "RayJobManifest"),
    "RayService": ("pulumi_kuberay.model.service", "RayServiceManifest"),
    "RayCronJob": ("pulumi_kuberay.model.cronjob", "RayCronJobManifest"),
}
"""Kinds whose manifest class lives in another module, imported on first use: kind -> (module, class name)."""

M = TypeVar("M", bound=type[KubeManifest[Any]])


def register_kind(cls: M) -> M:
    """Class decorator: make ``load_manifest`` dispatch documents of ``cls``'s kind to ``cls``."""
    kind = cls.kind_name()
    if not kind:
        raise TypeError(f"{cls.__name__} must give its `kind` field a default (the kind name)")
    _KINDS[kind] = cls
    return cls


register_kind(RayClusterManifest)


def known_kinds() -> list[str]:
    """Every kind ``load_manifest`` may accept (registered or lazily importable)."""
    return sorted(set(_KINDS) | set(_LAZY_KINDS))


def manifest_class(kind: str) -> type[KubeManifest[Any]] | None:
    """The manifest class for ``kind``, importing its module on first use; ``None`` if unknown/unavailable."""
    if kind in _KINDS:
        return _KINDS[kind]
    lazy = _LAZY_KINDS.get(kind)
    if lazy is None:
        return None
    module_name, class_name = lazy
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    cls = getattr(module, class_name, None)
    if isinstance(cls, type) and issubclass(cls, KubeManifest):
        _KINDS.setdefault(kind, cls)
    return _KINDS.get(kind)


def _subject(kind: str, doc: Mapping[str, Any]) -> str:
    meta = doc.get("metadata")
    name = meta.get("name") or meta.get("generateName") if isinstance(meta, Mapping) else None
    return f"{kind} {name!r}" if isinstance(name, str) and name else kind


def load_manifest(doc: Any) -> KubeManifest[Any]:
    """Validate a manifest dict and return the typed object of its kind (e.g. :class:`RayClusterManifest`).

    Raises :class:`ManifestError` (never another exception type) listing every problem with its CRD path.
    """
    if not isinstance(doc, Mapping):
        raise ManifestError(
            [Problem("", f"expected a mapping (a Kubernetes object), got {type(doc).__name__}", "wrong_type")]
        )
    kinds = known_kinds()
    kind = doc.get("kind")
    if kind is None:
        raise ManifestError(
            [Problem("kind", "required field is missing", "missing", fix=f"one of {', '.join(kinds)}")]
        )
    if not isinstance(kind, str):
        raise ManifestError(
            [Problem("kind", f"expected a string, got {type(kind).__name__} {kind!r}", "wrong_type")]
        )
    cls = manifest_class(kind)
    if cls is None:
        close = difflib.get_close_matches(kind, kinds, n=1)
        message = (
            f"kind {kind!r} is not supported yet by pulumi_kuberay"
            if kind in _LAZY_KINDS
            else f"unknown kind {kind!r}"
        )
        fix = f"did you mean {close[0]!r}?" if close and close[0] != kind else f"one of {', '.join(kinds)}"
        raise ManifestError([Problem("kind", message, "invalid_value", fix=fix)], subject=_subject(kind, doc))

    problems: list[Problem] = []
    data = dict(doc)
    versions = cls.api_versions()
    api_version = data.get("apiVersion")
    if api_version is None:
        problems.append(
            Problem("apiVersion", "required field is missing", "missing", fix=f"set {versions[0]!r}")
        )
        data["apiVersion"] = versions[0]
    elif api_version not in versions:
        problems.append(Problem(
            "apiVersion",
            f"apiVersion {api_version!r} does not serve {kind}",
            "invalid_value" if isinstance(api_version, str) else "wrong_type",
            fix=f"use {' or '.join(repr(v) for v in versions)}",
        ))
        data["apiVersion"] = versions[0]
    meta = data.get("metadata")
    if isinstance(meta, Mapping) and not meta.get("name") and not meta.get("generateName"):
        problems.append(Problem("metadata.name", "required field is missing (or set metadata.generateName)",
                                "missing", fix="set metadata.name"))
    elif meta is None and "metadata" not in data:
        problems.append(Problem("metadata", "required field is missing", "missing", fix="set metadata.name"))

    subject = _subject(kind, doc)
    try:
        manifest = cls.model_validate(data, context=WIRE_CONTEXT)
    except ValidationError as exc:
        problems += problems_from_validation_error(exc, cls)
        raise ManifestError(problems, subject=subject) from exc
    except Exception as exc:  # a model validator bug must still surface as a ManifestError
        problems.append(Problem("", f"could not validate: {type(exc).__name__}: {exc}", "invalid_value"))
        raise ManifestError(problems, subject=subject) from exc
    if problems:
        raise ManifestError(problems, subject=subject)
    return manifest


def __getattr__(name: str) -> Any:
    # PEP 562: ``from pulumi_kuberay.model.manifest import RayJobManifest`` works without importing
    # job/service/cronjob eagerly here (they import this module to subclass KubeManifest).
    for kind, (module_name, class_name) in _LAZY_KINDS.items():
        if name == class_name:
            cls = manifest_class(kind)
            if cls is not None:
                return cls
            return getattr(importlib.import_module(module_name), class_name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "KubeManifest",
    "ManagedFieldsEntry",
    "ObjectMeta",
    "OwnerReference",
    "RayClusterManifest",
    "known_kinds",
    "load_manifest",
    "manifest_class",
    "register_kind",
]
