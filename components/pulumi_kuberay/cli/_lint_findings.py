"""Findings of ``kuberay-lint`` with their place in the input: file, line, object, a stable fingerprint, and the
collapsing of one rule's findings on several containers of an object into one finding that lists them."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pulumi_kuberay import rules
from pulumi_kuberay.cli import _io
from pulumi_kuberay.cli._yamlpos import line_for
from pulumi_kuberay.kuberay import KINDS
from pulumi_kuberay.kuberay.paths import parse_path
from pulumi_kuberay.rules import Finding
from pulumi_kuberay.rules.target import Target


@dataclass(frozen=True)
class RayDoc:
    """One Ray object read from a file (or rendered from a Helm chart)."""

    file: str
    lines: Mapping[str, int]  # field path -> line, relative to the document (or List item)
    start_line: int | None  # None: the position is not in the file (rendered from a chart template)
    manifest: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.manifest.get("kind", ""))

    @property
    def name(self) -> str:
        meta = self.manifest.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        if not isinstance(name, str) and isinstance(meta, dict) and isinstance(meta.get("generateName"), str):
            return f"{meta['generateName']}*"  # named by the API server at creation
        return name if isinstance(name, str) else ""

    @property
    def namespace(self) -> str:
        meta = self.manifest.get("metadata")
        namespace = meta.get("namespace") if isinstance(meta, dict) else None
        return namespace if isinstance(namespace, str) else ""

    def locate(self, finding: Finding) -> LocatedFinding:
        line = None if self.start_line is None else line_for(dict(self.lines), finding.path, self.start_line)
        return LocatedFinding(
            file=self.file,
            line=line,
            kind=self.kind,
            name=self.name,
            namespace=self.namespace,
            finding=finding,
            stable_path=stable_path(self.manifest, finding.path),
            object_line=self.start_line,
        )


@dataclass(frozen=True)
class LocatedFinding:
    file: str
    line: int | None
    kind: str
    name: str
    namespace: str
    finding: Finding
    #: the field path with list positions replaced by item names where items have one (``containers[ray-head]``)
    stable_path: str
    object_line: int | None = None
    #: containers this finding stands for when several were collapsed into it (``head/ray-head``, ...)
    containers: tuple[str, ...] = ()

    @property
    def object_ref(self) -> str:
        namespace = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {namespace}{self.name}".strip()

    @property
    def fingerprint(self) -> str:
        """Stable across line moves, reformatting and reordering of named list items; changes with the rule, the
        object (kind, namespace, name) or the field."""
        key = "\x1f".join((self.finding.rule_id, self.kind, self.namespace, self.name, self.stable_path))
        return hashlib.sha256(key.encode()).hexdigest()[:32]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.file,
            "line": self.line,
            "kind": self.kind,
            "name": self.name,
            "namespace": self.namespace,
            **self.finding.to_dict(),
            "fingerprint": self.fingerprint,
        }
        if self.containers:
            out["containers"] = list(self.containers)
        return out


def ray_documents(source: _io.Source, *, rendered: bool = False) -> Iterator[RayDoc]:
    for document in source.documents:
        data = document.data
        if (
            isinstance(data, dict)
            and isinstance(data.get("apiVersion"), str)
            and data["apiVersion"].startswith("ray.io/")
            and data.get("kind") in KINDS
        ):
            yield RayDoc(source.name, document.path_lines, None if rendered else document.line, data)


def lint_documents(docs: Sequence[RayDoc], target: Target, *, stack_rules: bool = True) -> list[LocatedFinding]:
    """The catalogue over every document, then the rules across documents (clusterSelector, GPU budget)."""
    target = target.override(audience="cli")  # plain YAML: gate hints as flags, no Pulumi-only rules
    ctx = target.context()
    out: list[LocatedFinding] = []
    for doc in docs:
        for finding in rules.check(doc.manifest, target):
            out.append(doc.locate(finding))
    if stack_rules:
        for item in rules.check_stack([d.manifest for d in docs], ctx):
            out.append(docs[item.index].locate(item.finding))
    return out


_NAME_KEYS = ("name", "groupName")


def stable_path(manifest: Any, path: str) -> str:
    """``spec.workerGroupSpecs[1].template.spec.containers[0].image`` -> ``...workerGroupSpecs[gpu]...
    containers[ray-worker].image``: list positions become the item's name where it has one."""
    try:
        steps = parse_path(path)
    except (ValueError, IndexError):
        return path
    node: Any = manifest
    out = ""
    for step in steps:
        if isinstance(step, int):
            item = node[step] if isinstance(node, list) and -len(node) <= step < len(node) else None
            label = next((item[k] for k in _NAME_KEYS if isinstance(item, dict) and isinstance(item.get(k), str)), None)
            out += f"[{label}]" if label else f"[{step}]"
            node = item
        else:
            out += f".{step}" if out else str(step)
            node = node.get(step) if isinstance(node, dict) else None
    return out


# A container inside a pod template: group 1 = the template's path, 2 = the container list, 3 = its position.
_CONTAINER = re.compile(r"^(.*?template\.spec)\.(containers|initContainers)\[(\d+)\](.*)$")
_GROUP = re.compile(r"(headGroupSpec|workerGroupSpecs\[(\d+)\])\.template\.spec$")


def _container_label(manifest: Any, template_path: str, list_name: str, index: int) -> str:
    try:
        template = _follow(manifest, parse_path(template_path))
    except (ValueError, IndexError):
        template = None
    items = template.get(list_name) if isinstance(template, dict) else None
    item = items[index] if isinstance(items, list) and 0 <= index < len(items) else None
    name = item.get("name") if isinstance(item, dict) else None
    container = name if isinstance(name, str) and name else f"{list_name}[{index}]"
    if list_name == "initContainers":
        container = f"init:{container}"
    group = _GROUP.search(template_path)
    if group is None:
        owner = template_path.removesuffix(".template.spec").rsplit(".", 1)[-1] or "pod"
    elif group.group(2) is None:
        owner = "head"
    else:
        groups = _follow(manifest, parse_path(template_path.removesuffix(".template.spec").rsplit("[", 1)[0]))
        position = int(group.group(2))
        entry = groups[position] if isinstance(groups, list) and position < len(groups) else None
        group_name = entry.get("groupName") if isinstance(entry, dict) else None
        owner = group_name if isinstance(group_name, str) and group_name else f"worker[{position}]"
    return f"{owner}/{container}"


def _follow(node: Any, steps: Iterable[str | int]) -> Any:
    for step in steps:
        if isinstance(step, int):
            node = node[step] if isinstance(node, list) and 0 <= step < len(node) else None
        else:
            node = node.get(step) if isinstance(node, dict) else None
    return node


def collapse_containers(
    findings: Sequence[LocatedFinding], manifests: Mapping[tuple[str, str, str, str], Any]
) -> list[LocatedFinding]:
    """One finding per (object, rule, field under the container, message) instead of one per container.

    ``manifests`` maps ``(file, kind, namespace, name)`` to the object, to name the containers. The kept finding
    is the first one (its line), with ``containers`` listing ``group/container`` for every collapsed one.
    """
    groups: dict[tuple[Any, ...], list[LocatedFinding]] = {}
    order: list[tuple[Any, ...]] = []
    for item in findings:
        match = _CONTAINER.match(item.finding.path)
        if match is None:
            key: tuple[Any, ...] = ("single", id(item))
        else:
            key = (
                item.file,
                item.kind,
                item.namespace,
                item.name,
                item.finding.rule_id,
                item.finding.severity,
                match.group(4),
                item.finding.message,
            )
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(item)
    out: list[LocatedFinding] = []
    for key in order:
        members = groups[key]
        first = members[0]
        match = _CONTAINER.match(first.finding.path)
        if match is None:
            out.append(first)
            continue
        manifest = manifests.get((first.file, first.kind, first.namespace, first.name))
        labels = []
        for member in members:
            m = _CONTAINER.match(member.finding.path)
            assert m is not None
            labels.append(_container_label(manifest, m.group(1), m.group(2), int(m.group(3))))
        out.append(replace(first, containers=tuple(dict.fromkeys(labels))))
    return out
