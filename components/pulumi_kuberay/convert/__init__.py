"""Converting existing KubeRay manifests and ``ray-cluster`` Helm values into pulumi-kuberay code.

Pure Python (never imports pulumi): ``kuberay-convert`` is a thin shell over these functions.

Example::

    from pulumi_kuberay.convert import convert_documents

    result = convert_documents([(doc, "ray-cluster.yaml:1")], to="python")
    print(result.text)          # a module declaring kr.RayCluster(...) with typed args
    result.skipped              # non-Ray documents, with a hint
    result.errors               # Ray documents that could not be converted (field path and fix)

``to="stack-config"`` gives the ``config:`` block of a ``stacks/Pulumi.<env>.yaml`` instead;
:func:`pulumi_kuberay.convert.helm.render_values` turns ``ray-cluster`` chart values into the RayCluster the
chart renders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pulumi_kuberay.kuberay import KINDS as RAY_KINDS

from ._objects import RayObject, prepare_all
from ._python import python_module
from ._stack import stack_config
from ._typed import ConversionError

#: What ``kuberay-convert`` writes (``--to``): typed Python, or stack config (not ``rules.Target``: what rules judge).
OutputForm = Literal["python", "stack-config"]
NOT_CONVERTED_HINT = (
    "declare it with pulumi_kubernetes (kubernetes.yaml.v2.ConfigGroup(files=[...]) keeps the YAML as is) or convert it with `pulumi convert --from kubernetes`"
)


@dataclass
class Conversion:
    """The result: ``text`` (empty when ``errors``), what was skipped and why, and the converted objects."""

    text: str = ""
    objects: list[RayObject] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def is_ray(doc: Any) -> bool:
    return (
        isinstance(doc, Mapping)
        and isinstance(doc.get("apiVersion"), str)
        and doc["apiVersion"].startswith("ray.io/")
        and doc.get("kind") in RAY_KINDS
    )


def describe(doc: Any) -> str:
    if not isinstance(doc, Mapping):
        return f"a {type(doc).__name__}, not a Kubernetes object"
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    return f"{doc.get('kind', '<no kind>')} {name!r}" if name else str(doc.get("kind", "<no kind>"))


def convert_documents(
    documents: Sequence[tuple[Any, str]],
    *,
    to: OutputForm = "python",
    sources: Sequence[str] = (),
    notes: Mapping[str, Sequence[str]] | None = None,
) -> Conversion:
    """Convert the Ray documents among ``documents`` (``(document, "file:line")`` pairs); ``notes`` adds
    comment lines beside the object from a given ``"file:line"`` (e.g. what a Helm rendering changed)."""
    result = Conversion()
    ray: list[tuple[Mapping[str, Any], str]] = []
    for doc, where in documents:
        if is_ray(doc):
            ray.append((doc, where))
        else:
            result.skipped.append(f"{where}: {describe(doc)} not converted: {NOT_CONVERTED_HINT}")
    result.objects, result.errors = prepare_all(ray)
    for obj in result.objects:
        obj.notes[:0] = list((notes or {}).get(obj.where, ()))
    if result.errors or not result.objects:
        return result
    try:
        writer = python_module if to == "python" else stack_config
        result.text = writer(result.objects, sources)
    except ConversionError as exc:
        result.errors.append(str(exc))
    return result


__all__ = ["NOT_CONVERTED_HINT", "Conversion", "ConversionError", "OutputForm", "convert_documents", "is_ray"]
