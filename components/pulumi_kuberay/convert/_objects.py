"""One Ray document prepared for conversion: validated, named, checked by the catalogue, spec as a tree.

:func:`prepare` loads a manifest as the API server stores it (``load_stored``: the same model the components
use; fields the API server prunes are dropped and noted beside the object), keeps what a component can declare
(name, namespace, labels, annotations, spec), notes what it cannot (server-set metadata, ``generateName``,
``ray.io/v1alpha1``) and runs the rule catalogue so the findings can travel as
comments. :func:`link_jobs` turns a RayJob's ``clusterSelector`` that names a converted RayCluster into a
reference to that cluster's component.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pulumi_kuberay import rules
from pulumi_kuberay.kuberay import API_VERSION
from pulumi_kuberay.kuberay import RAY_CLUSTER_LABEL as CLUSTER_LABEL
from pulumi_kuberay.model import ManifestError
from pulumi_kuberay.model.manifest import load_stored
from pulumi_kuberay.model.pod import lenient_validation
from pulumi_kuberay.model.service import KubeRayDeprecationWarning
from pulumi_kuberay.rules import DEFAULT_FEATURE_GATES, Finding

from ._shortcuts import expected_rendering, model_differences, renders, strip_nulls, typer
from ._tree import Node
from ._typed import ConversionError, Typer

GATE_RULE = "feature-gate-disabled"
#: metadata the API server sets on live objects (``kubectl get -o yaml``): never part of a declaration.
SERVER_SET = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
)
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


@dataclass
class RayObject:
    """A Ray document ready to be written as a component declaration."""

    kind: str
    name: str
    namespace: str | None
    labels: dict[str, str] | None
    annotations: dict[str, str] | None
    spec: dict[str, Any]  # the normalised wire spec (``load_manifest(...).to_manifest()["spec"]``)
    spec_node: Node
    where: str
    findings: list[Finding]
    feature_gates: dict[str, bool]
    notes: list[str] = field(default_factory=list)
    cluster: RayObject | None = None  # the converted RayCluster a RayJob runs on (``cluster=``)
    resource_name: str = ""
    variable: str = ""

    @property
    def subject(self) -> str:
        return f"{self.kind} {self.name!r}"

    def manifest(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": self.name}
        for key, value in (("namespace", self.namespace), ("labels", self.labels), ("annotations", self.annotations)):
            if value:
                meta[key] = value
        return {"apiVersion": API_VERSION, "kind": self.kind, "metadata": meta, "spec": self.spec}


def _metadata(meta: Mapping[str, Any], notes: list[str]) -> tuple[str, dict[str, Any]]:
    name = meta.get("name")
    if not name:
        prefix = str(meta.get("generateName") or "ray")
        name = prefix.rstrip("-") or "ray"
        notes.append(
            f"metadata.generateName {prefix!r} became the fixed name {name!r} (a Pulumi resource has a stable name; set object_name= to choose another)"
        )
    dropped = [key for key in meta if key in SERVER_SET]
    if dropped:
        notes.append(f"server-set metadata left out: {', '.join(dropped)}")
    unsupported = [
        key for key in meta if key not in SERVER_SET and key not in ("name", "generateName", "namespace", "labels",
                                                                     "annotations")
    ]
    if unsupported:
        notes.append(f"metadata not declared by the component, left out: {', '.join(unsupported)}")
    annotations = dict(meta.get("annotations") or {})
    if annotations.pop(LAST_APPLIED, None) is not None:
        notes.append(f"annotation {LAST_APPLIED} left out (kubectl's bookkeeping)")
    kept = {"namespace": meta.get("namespace"), "labels": meta.get("labels") or None,
            "annotations": annotations or None}
    return str(name), kept


def required_gates(manifest: Mapping[str, Any]) -> dict[str, bool]:
    """The operator feature gates (off by default) this object needs: the smallest set that silences
    ``feature-gate-disabled``."""
    if not any(f.rule_id == GATE_RULE for f in rules.check(manifest)):
        return {}
    candidates = [gate for gate, on in DEFAULT_FEATURE_GATES.items() if not on]

    def still_gated(gates: Sequence[str]) -> bool:
        found = rules.check(manifest, feature_gates=dict.fromkeys(gates, True))
        return any(f.rule_id == GATE_RULE for f in found)

    if still_gated(candidates):
        return {}
    needed = list(candidates)
    for gate in candidates:
        fewer = [g for g in needed if g != gate]
        if not still_gated(fewer):
            needed = fewer
    return dict.fromkeys(needed, True)


def spec_tree(kind_model: Any, spec: Mapping[str, Any], subject: str) -> tuple[Node, list[str]]:
    """The typed expression of ``spec``, checked to render exactly ``spec`` (conveniences where exact)."""
    expected = expected_rendering(kind_model, spec)
    for walker in (typer(), Typer()):
        try:
            node = walker.model(kind_model, spec, "spec")
        except ConversionError as exc:
            raise ConversionError(f"{subject}: {exc}") from None
        if renders(node, expected):
            return node, sorted(set(walker.dropped))
    raise ConversionError(f"{subject}: the typed spec does not reproduce the manifest (a converter bug: please report)")


def _refused_from_python(spec_model: Any, spec: Mapping[str, Any]) -> bool:
    """The typed model refuses ``spec`` built from Python (what a converted program does), though it loaded."""
    try:
        with warnings.catch_warnings():  # deprecations are notes already
            warnings.simplefilter("ignore")
            spec_model.model_validate(spec)
    except ValueError:  # a pydantic ValidationError
        return True
    return False


def prepare(doc: Mapping[str, Any], where: str) -> RayObject:
    """Validate one Ray document and prepare it; raises ManifestError / ConversionError naming the document."""
    stored = load_stored(doc)
    manifest = stored.manifest
    normalised = manifest.to_manifest()
    notes: list[str] = [
        f"dropped {p.path}: not a field of the v1.7.0 CRD, so the API server prunes it (it never reached KubeRay)"
        for p in stored.dropped
    ]
    notes += [f"kept, but deprecated: {line}" for line in stored.deprecations]
    if normalised["apiVersion"] != API_VERSION:
        notes.append(f"apiVersion {normalised['apiVersion']} became ray.io/v1 (the components declare ray.io/v1)")
    if "status" in normalised:
        notes.append("status left out (written by the operator)")
    name, meta = _metadata(normalised.get("metadata") or {}, notes)
    spec_model = type(manifest.spec)
    subject = f"{manifest.kind} {name!r}"
    notes += [
        f"serveConfigV2 kept as it is, with {p}: the API server stores the string unread; the component stops at preview until it is fixed"
        for p in stored.serve_problems
    ]
    refused = sorted({p.path.rsplit(".", 1)[0] for p in stored.pod_refusals})
    if refused:  # the findings above say what and how to fix; the note says why the object was still converted
        notes.append(f"kept as the API server stores it, though it then refuses every Pod made with {', '.join(refused)} (the critical findings above): the typed model refuses it too, so the program stops until it is fixed")
    if not stored.serve_problems and not refused and _refused_from_python(spec_model, normalised["spec"]):
        notes.append("kept as the API server stores it, though the operator refuses it (the critical findings above): the typed model refuses it too, so the program stops until it is fixed")
    # The typed expression rebuilds what the API server stores, as it is (the operator's refusals are findings).
    with lenient_validation():
        spec_node, nulls = spec_tree(spec_model, normalised["spec"], subject)
        spec = strip_nulls(normalised["spec"])
        added = model_differences(spec, expected_rendering(spec_model, spec))
    if nulls:
        notes.append(f"explicit nulls left out (the API server prunes them): {', '.join(nulls)}")
    if added:
        notes.append(f"the typed model renders its own default (review it) at: {', '.join(added)}")
    obj = RayObject(
        kind=manifest.kind,
        name=name,
        namespace=meta["namespace"],
        labels=meta["labels"],
        annotations=meta["annotations"],
        spec=spec,
        spec_node=spec_node,
        where=where,
        findings=[],
        feature_gates={},
        notes=notes,
    )
    current = obj.manifest()
    obj.feature_gates = required_gates(current)
    obj.findings = [
        f for f in rules.check(current, feature_gates=obj.feature_gates or None) if f.rule_id != GATE_RULE
    ]
    return obj


def link_jobs(objects: Sequence[RayObject]) -> None:
    """A RayJob whose ``clusterSelector`` names a converted RayCluster (same namespace) gets ``cluster=``."""
    clusters = {(o.namespace, o.name): o for o in objects if o.kind == "RayCluster"}
    for obj in objects:
        selector = obj.spec.get("clusterSelector") if obj.kind == "RayJob" else None
        if not isinstance(selector, Mapping) or obj.spec.get("rayClusterSpec") is not None:
            continue
        # The typed RayJobSpec keeps its clusterSelector (the model requires one of clusterSelector and
        # rayClusterSpec); the component checks that it names the cluster given as cluster=.
        obj.cluster = clusters.get((obj.namespace, str(selector.get(CLUSTER_LABEL))))


def prepare_all(documents: Sequence[tuple[Mapping[str, Any], str]]) -> tuple[list[RayObject], list[str]]:
    """Prepare every Ray document; returns the objects and one error line per document that failed."""
    objects: list[RayObject] = []
    errors: list[str] = []
    for doc, where in documents:
        try:
            with warnings.catch_warnings():  # deprecated fields are noted beside the object, not printed
                warnings.simplefilter("ignore", KubeRayDeprecationWarning)
                objects.append(prepare(doc, where))
        except (ManifestError, ConversionError) as exc:
            errors.append(f"{where}: {exc}")
    first: dict[tuple[str, str | None, str], RayObject] = {}
    for obj in objects:
        same = first.setdefault((obj.kind, obj.namespace, obj.name), obj)
        if same is not obj:
            where = f"namespace {obj.namespace!r}" if obj.namespace else "the same (default) namespace"
            errors.append(
                f"{obj.where}: {obj.subject} is also declared at {same.where} in {where}: Kubernetes keeps one object per name, so convert one of them (or rename it)"
            )
    if errors:
        return objects, errors
    link_jobs(objects)
    _name_resources(objects)
    return objects, errors


def _name_resources(objects: Sequence[RayObject]) -> None:
    from ._tree import identifier

    taken: set[str] = set()
    seen: dict[tuple[str, str], int] = {}
    for obj in objects:
        key = (obj.kind, obj.name)
        seen[key] = seen.get(key, 0) + 1
    for obj in objects:
        clash = seen[(obj.kind, obj.name)] > 1
        obj.resource_name = f"{obj.namespace or 'default'}-{obj.name}" if clash else obj.name
        obj.variable = identifier(obj.resource_name, taken)
