"""Whole KubeRay objects (apiVersion, kind, metadata, spec, status) and ``load_manifest``.

``load_manifest(doc)`` turns a manifest (a dict, e.g. from ``yaml.safe_load``) into the typed object of its
kind; ``.to_manifest()`` gives the dict back, exactly as loaded (only what was set, CRD field names)::

    m = load_manifest(yaml.safe_load(open("ray-cluster.sample.yaml")))
    assert isinstance(m, RayClusterManifest) and m.to_manifest() == doc

Validation is structural, as the API server would do it (types, enums, required and unknown fields, the CRDs'
CEL rules); any problem raises
:class:`~pulumi_kuberay.model._base.ManifestError` whose ``problems``/``paths`` carry CRD paths such as
``spec.workerGroupSpecs[1].minReplicas``. Manifests are validated under
:data:`~pulumi_kuberay.model.pod.WIRE_CONTEXT`: no Python conveniences (a ``rayStartParams`` value ``0`` is a
wrong type, ``image`` under ``headGroupSpec`` an unknown field).

What only the operator, Ray or the Pods' admission refuses is *not* raised here: the API server stores such an
object, so it loads and the rule catalogue reports it with its severity (name length/DNS-1035: RC-01/02, RJ-01/02;
a worker group's minReplicas > maxReplicas or negative bounds; a RayJob without a cluster source or with a selector
naming none; a runtimeEnvYAML that is not a mapping; a RayCronJob's schedule and timeZone). What no rule reads is
recorded on the loaded object: a pod template's refusals (``model._k8s_checks.pod_refusals``), a RayJob's
``spec.stored_problems``, a RayService's ``spec.serve_problems``. From Python (the components' args) the same
mistakes raise at once.
"""

# Each kind's module defines its manifest class on KubeManifest (job.py: class RayJobManifest(KubeManifest[...])); this
# module dispatches on ``kind`` and imports a kind's module the first time a document of that kind comes (one way:
# the kinds never import this module), so a program of RayClusters never loads the RayJob, RayService/Serve and
# RayCronJob models. register_kind plugs in another kind.

from __future__ import annotations

import copy
import importlib
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import ValidationError

from ._base import validate_wire
from ._errors import KubeRayDeprecationWarning, ManifestError, Problem, problems_from_validation_error
from ._k8s_checks import pod_refusals
from ._object import KubeManifest, ManagedFieldsEntry, ObjectMeta, OwnerReference
from .cluster import RayClusterSpec
from .pod import LENIENT_CONTEXT, WIRE_CONTEXT
from .suggest import did_you_mean

if TYPE_CHECKING:  # loaded on first use (_LAZY_KINDS, __getattr__)
    from .cronjob import RayCronJobManifest
    from .job import RayJobManifest
    from .service import RayServiceManifest


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
"""kind -> manifest class: the kinds loaded so far, and any kind added with :func:`register_kind`."""

_LAZY_KINDS: dict[str, tuple[str, str]] = {
    "RayJob": ("pulumi_kuberay.model.job", "RayJobManifest"),
    "RayService": ("pulumi_kuberay.model.service", "RayServiceManifest"),
    "RayCronJob": ("pulumi_kuberay.model.cronjob", "RayCronJobManifest"),
}
"""kind -> (module, manifest class) of the KubeRay kinds not loaded yet: each is imported and registered on first
use (its models are ~40 ms of import each, which a program of RayClusters need not pay)."""

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
    """Every kind ``load_manifest`` accepts."""
    return sorted({*_KINDS, *_LAZY_KINDS})


def manifest_class(kind: str) -> type[KubeManifest[Any]] | None:
    """The manifest class for ``kind`` (its module imported on first use); ``None`` if unknown."""
    cls = _KINDS.get(kind)
    if cls is None and kind in _LAZY_KINDS:
        module, name = _LAZY_KINDS[kind]
        cls = register_kind(getattr(importlib.import_module(module), name))
    return cls


def __getattr__(name: str) -> Any:
    # ``from pulumi_kuberay.model.manifest import RayJobManifest`` keeps working: the class, imported on first use
    for kind, (_, class_name) in _LAZY_KINDS.items():
        if name == class_name:
            return manifest_class(kind)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _subject(kind: str, doc: Mapping[str, Any]) -> str:
    meta = doc.get("metadata")
    name = meta.get("name") or meta.get("generateName") if isinstance(meta, Mapping) else None
    return f"{kind} {name!r}" if isinstance(name, str) and name else kind


def load_manifest(doc: Any) -> KubeManifest[Any]:
    """Validate a manifest dict and return the typed object of its kind (e.g. :class:`RayClusterManifest`).

    Raises :class:`ManifestError` (never another exception type) listing every problem with its CRD path.
    """
    return _load(doc, WIRE_CONTEXT)


#: Each manifest class's ``api_versions()`` (read from its annotation: a check's worth of time to ask each time).
_API_VERSIONS: dict[type[KubeManifest[Any]], tuple[str, ...]] = {}


def _api_versions(cls: type[KubeManifest[Any]]) -> tuple[str, ...]:
    versions = _API_VERSIONS.get(cls)
    if versions is None:
        versions = _API_VERSIONS[cls] = cls.api_versions()
    return versions


def _load(doc: Any, context: dict[str, Any]) -> KubeManifest[Any]:
    if not isinstance(doc, Mapping):
        raise ManifestError(
            [Problem("", f"expected a mapping (a Kubernetes object), got {type(doc).__name__}", "wrong_type")]
        )
    kind = doc.get("kind")
    if kind is None:
        raise ManifestError(
            [Problem("kind", "required field is missing", "missing", fix=f"one of {', '.join(known_kinds())}")]
        )
    if not isinstance(kind, str):
        raise ManifestError(
            [Problem("kind", f"expected a string, got {type(kind).__name__} {kind!r}", "wrong_type")]
        )
    cls = manifest_class(kind)
    if cls is None:
        kinds = known_kinds()
        message = f"unknown kind {kind!r}"
        fix = did_you_mean(kind, kinds) or f"one of {', '.join(kinds)}"
        raise ManifestError([Problem("kind", message, "invalid_value", fix=fix)], subject=_subject(kind, doc))

    problems: list[Problem] = []
    data = dict(doc)
    versions = _api_versions(cls)
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

    try:
        manifest = validate_wire(cls, data, context)
    except ValidationError as exc:
        found = problems_from_validation_error(exc, cls)
        problems += found + _hidden_problems(cls, data, context, found)
        raise ManifestError(problems, subject=_subject(kind, doc)) from exc
    except Exception as exc:  # a model validator bug must still surface as a ManifestError
        problems.append(Problem("", f"could not validate: {type(exc).__name__}: {exc}", "invalid_value"))
        raise ManifestError(problems, subject=_subject(kind, doc)) from exc
    if problems:
        raise ManifestError(problems, subject=_subject(kind, doc))
    return manifest


def _hidden_problems(
    cls: type[KubeManifest[Any]], data: dict[str, Any], context: dict[str, Any], found: list[Problem]
) -> list[Problem]:
    """The mistakes ``found`` hid: pydantic runs no model validator of an object with a field error, and stops at
    the first model validator that raises. Validating again without the values found wrong brings out the next
    ones, until the rest is valid or no value can be taken out: so one error lists every mistake of a document."""
    hidden: list[Problem] = []
    seen = {(p.path, p.message) for p in found}
    work = _copy_tree(data)
    taken: list[str] = []
    latest = found
    for _ in range(16):  # each pass takes out at least one value
        out = [p.path for p in latest if p.kind != "missing" and p.path and _drop(work, p.path)]
        if not out:
            break
        taken += out
        try:
            with warnings.catch_warnings():  # the first validation warned already
                warnings.simplefilter("ignore")
                validate_wire(cls, work, context)
        except ValidationError as again:
            latest = [
                p
                for p in problems_from_validation_error(again, cls)
                if (p.path, p.message) not in seen and not _made_by_taking(p.path, taken)
            ]
            seen |= {(p.path, p.message) for p in latest}
            hidden += latest
        except Exception:  # a model validator bug: the first validation's problems are the answer
            break
        else:
            break
    return hidden


def _under(path: str, parent: str) -> bool:
    return not parent or path == parent or path.startswith((f"{parent}.", f"{parent}["))


def _made_by_taking(path: str, taken: list[str]) -> bool:
    """A problem of the object a value was taken out of (or of an object holding it) may be made by taking it
    out (a toleration without its operator, a job without its cluster selector): said of the document, it may
    be false, so it is left to the next validation of the fixed document."""
    for out in taken:
        holder = _PARENT.sub("", out)
        if _under(path, holder) or _under(holder, path):
            return True
    return False


#: The last step of a field path (``.name``, ``[0]``, ``['x.y']``): what is left is the object holding the field.
_PARENT = re.compile(r"(\.[^.\[\]]+|\[\d+\]|\['[^']*'\])$")


def _copy_tree(value: Any) -> Any:
    """``value`` with its dicts and lists copied (what :func:`_drop` changes); the leaves are shared."""
    if isinstance(value, dict):
        return {k: _copy_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_tree(v) for v in value]
    return value


@dataclass(frozen=True)
class StoredManifest:
    """What the API server stores of a document, loaded: see :func:`load_stored`."""

    manifest: KubeManifest[Any]
    stored: dict[str, Any]
    """The document without the fields the API server prunes."""
    dropped: tuple[Problem, ...] = ()
    """The pruned fields (path and why), in document order."""
    deprecations: tuple[str, ...] = ()
    """Deprecated fields the object uses (KubeRay ignores them), one line each."""
    serve_problems: tuple[Problem, ...] = ()
    """What Ray Serve would refuse in ``serveConfigV2`` (a string the API server stores as it is)."""
    pod_refusals: tuple[Problem, ...] = ()
    """What the API server refuses in every Pod KubeRay creates from a pod template of the object (a toleration
    with ``operator: Exist``): the CRD's schema does not check it, so the object itself is stored."""


def load_stored(doc: Any) -> StoredManifest:
    """The lenient load of lint and convert: the object as the API server stores it.

    Fields the CRD does not know are pruned by the API server, so they are dropped here and listed (never an
    exception); deprecated fields load and are listed, without a Python warning; ``serveConfigV2`` is kept as
    the string it is even where Ray Serve would refuse it (the API server does not read it); a pod template whose
    Pods the API server refuses (a toleration's operator ``Exist``) is kept and listed, as the API server stores
    the object; what only the operator refuses (minReplicas > maxReplicas) loads, as in :func:`load_manifest`.
    What the API server itself rejects in the object (a wrong type, a missing required field, a bad enum value or
    a CEL rule of the CRD) still raises :class:`ManifestError`.
    Components stay strict: they use :func:`load_manifest`'s rules through the typed args.
    """
    if not isinstance(doc, Mapping):
        return StoredManifest(load_manifest(doc), {})  # raises the usual "expected a mapping"
    data: dict[str, Any] = copy.deepcopy(dict(doc))
    dropped: list[Problem] = []
    for _ in range(64):  # each pass drops at least one field; a document has far fewer unknown fields
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", KubeRayDeprecationWarning)
            try:
                manifest = _load(data, LENIENT_CONTEXT)
            except ManifestError as exc:
                unknown = [p for p in exc.problems if p.kind == "unknown_field" and _drop(data, p.path)]
                if not unknown:
                    raise
                dropped += unknown
                continue
        deprecations = tuple(str(w.message) for w in caught if issubclass(w.category, KubeRayDeprecationWarning))
        serve = getattr(manifest.spec, "serve_problems", ())
        refused = tuple(pod_refusals(manifest.spec, "spec"))
        return StoredManifest(manifest, data, tuple(dropped), deprecations, tuple(serve), refused)
    subject = _subject(str(doc.get("kind")), doc)
    raise ManifestError([Problem("", "too many unknown fields", "unknown_field")], subject=subject)


_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]|\['([^']*)'\]")


def _drop(data: dict[str, Any], path: str) -> bool:
    """Remove the field at ``path`` (``spec.a[0].b``, ``metadata.labels['x.y']``); False if it is not there."""
    keys: list[str | int] = []
    for name, index, quoted in _PATH_TOKEN.findall(path):
        keys.append(int(index) if index else quoted if quoted else name)
    if not keys:
        return False
    parent: Any = data
    for key in keys[:-1]:
        in_dict = isinstance(parent, dict) and isinstance(key, str) and key in parent
        in_list = isinstance(parent, list) and isinstance(key, int) and 0 <= key < len(parent)
        if in_dict or in_list:
            parent = parent[key]
        else:
            return False
    last = keys[-1]
    if isinstance(parent, dict) and last in parent:
        del parent[last]
        return True
    return False


__all__ = [
    "KubeManifest",
    "ManagedFieldsEntry",
    "ObjectMeta",
    "OwnerReference",
    "RayClusterManifest",
    "RayCronJobManifest",
    "RayJobManifest",
    "RayServiceManifest",
    "StoredManifest",
    "known_kinds",
    "load_manifest",
    "load_stored",
    "manifest_class",
    "register_kind",
]
