"""Writing the converted objects as stack config (``--to stack-config``): what ``settings.py`` reads.

The result is the ``config:`` block of a ``stacks/Pulumi.<env>.yaml``: ``pulumi-kuberay:clusters`` /
``jobs`` / ``services`` / ``cronjobs`` entries (name -> namespace, labels, annotations, spec), a job that
runs on a converted cluster as ``cluster: <name>``, and ``kuberay:featureGates`` when an object needs a gate.
Specs use the CRD's camelCase names and the same conveniences as the Python output (``image``, ``cpu``, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml
from pydantic import BaseModel

from pulumi_kuberay.kuberay import RAY_CLUSTER_LABEL as CLUSTER_LABEL

from ._objects import RayObject
from ._python import COMMENT_WIDTH, object_comments
from ._tree import DictOf, ListOf, Lit, Node
from ._typed import ConversionError

SECTIONS = {"RayCluster": "clusters", "RayJob": "jobs", "RayService": "services", "RayCronJob": "cronjobs"}
PROJECT = "pulumi-kuberay"


def to_data(node: Node) -> Any:
    """The tree as plain data with the models' wire names (what the stack file holds)."""
    if isinstance(node, Lit):
        return node.value
    if isinstance(node, ListOf):
        return [to_data(item) for item in node.items]
    if isinstance(node, DictOf):
        return {key: to_data(value) for key, value in node.items}
    out: dict[str, Any] = {}
    if node.args:  # SecretRef("name", "key")
        out.update(zip(("name", "key"), (to_data(a) for a in node.args), strict=False))
    fields = node.cls.model_fields if issubclass(node.cls, BaseModel) else {}
    for key, value in node.kwargs:
        info = fields.get(key)
        out[(info.alias if info is not None and info.alias else key)] = to_data(value)
    return out


class _Dumper(yaml.SafeDumper):
    """Block style; multi-line strings as ``|`` literals (scripts and YAML strings stay readable)."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not value.startswith((" ", "\n")) and " \n" not in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _dump(data: Any, indent: int) -> list[str]:
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=110, allow_unicode=True)
    pad = " " * indent
    return [pad + line if line else line for line in text.rstrip("\n").split("\n")]


def _entry(obj: RayObject) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if obj.cluster is not None:
        entry["cluster"] = obj.cluster.name
    for key, value in (("namespace", obj.namespace), ("labels", obj.labels), ("annotations", obj.annotations)):
        if value:
            entry[key] = value
    spec = to_data(obj.spec_node)
    if obj.cluster is not None:  # `cluster:` sets clusterSelector[ray.io/cluster] (settings.JobEntry)
        selector = {k: v for k, v in spec.pop("clusterSelector", {}).items() if k != CLUSTER_LABEL}
        if selector:
            spec["clusterSelector"] = selector
    entry["spec"] = spec
    return entry


def stack_config(objects: Sequence[RayObject], sources: Sequence[str]) -> str:
    """The ``config:`` YAML text for ``stacks/Pulumi.<env>.yaml``."""
    by_section: dict[str, list[RayObject]] = {}
    for obj in objects:
        section = by_section.setdefault(SECTIONS[obj.kind], [])
        if any(o.name == obj.name for o in section):
            raise ConversionError(
                f"{obj.subject} ({obj.where}): two {obj.kind}s named {obj.name!r}; stack config needs unique names per kind (convert them to Python instead, which sets object_name=)"
            )
        section.append(obj)
    origin = ", ".join(sources) or "<stdin>"
    lines = [
        f"# Converted by kuberay-convert from {origin}.",
        "# Merge into stacks/Pulumi.<env>.yaml; settings.py validates it and __main__.py declares the components.",
        "config:",
    ]
    gates: dict[str, bool] = {}
    for obj in objects:
        gates.update(obj.feature_gates)
    if gates:
        lines.append("  # the operator must run with these gates too (--feature-gates / Helm featureGates)")
        lines += _dump({"kuberay:featureGates": gates}, 2)
    if any(o.namespace is None and o.cluster is None for o in objects):
        lines.append("  # objects without a namespace in the input go to this one (the program's default is 'ray')")
        lines += _dump({f"{PROJECT}:namespace": "default"}, 2)
    for key in ("clusters", "jobs", "services", "cronjobs"):
        if key not in by_section:
            continue
        lines.append(f"  {PROJECT}:{key}:")
        for obj in by_section[key]:
            lines += ["    " + comment for comment in object_comments(obj, width=COMMENT_WIDTH - 4)]
            lines += _dump({obj.name: _entry(obj)}, 4)
    return "\n".join(lines) + "\n"


__all__ = ["stack_config", "to_data"]
