"""``mutated(valid)``: one valid input with one mistake applied at a random place (wrong type, negative or huge
number, unicode or over-long text, number as a string and string as a number, a missing field, an unknown
field, or a conflict between fields). The :class:`Mutation` records *where* it was applied (a CRD field path like
``rayClusterSpec.workerGroupSpecs[1].minReplicas``) so a property can check that an error names it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from .strategies import VALID, JsonDict, Path, format_path, get_at, leaf_paths, wrong_values

# --------------------------------------------------------------------------------------------------
# Mutations: one mistake at a recorded place.


@dataclass(frozen=True)
class Mutation:
    """What was changed: ``kind`` (replace/delete/unknown/conflict), where, and the input after the change."""

    kind: str
    path: Path
    data: JsonDict
    note: str = ""

    @property
    def where(self) -> str:
        return format_path(self.path)

    @property
    def parent(self) -> str:
        return format_path(self.path[:-1])


# Known conflicts per model: (name, function applied to a valid input, path the error should name).


def _conflicts(kind: str, data: JsonDict) -> list[tuple[str, JsonDict, Path]]:
    out: list[tuple[str, JsonDict, Path]] = []
    bases: dict[str, Path] = {"RayCluster": (), "RayJob": ("rayClusterSpec",), "RayService": ("rayClusterConfig",),
                              "RayCronJob": ("jobTemplate", "rayClusterSpec")}
    cluster_base = bases.get(kind, ())
    try:
        cluster = get_at(data, cluster_base) if kind in bases else None
    except (KeyError, IndexError, TypeError):
        cluster = None
    if isinstance(cluster, dict):
        groups = cluster.get("workerGroupSpecs") or []
        if groups:
            doc = copy.deepcopy(data)
            g = get_at(doc, (*cluster_base, "workerGroupSpecs", 0))
            g["minReplicas"], g["maxReplicas"] = 5, 2
            out.append(("min>max", doc, (*cluster_base, "workerGroupSpecs", 0, "minReplicas")))
            doc = copy.deepcopy(data)
            groups2 = get_at(doc, (*cluster_base, "workerGroupSpecs"))
            groups2.append(copy.deepcopy(groups2[0]))
            out.append(("duplicate group", doc, (*cluster_base, "workerGroupSpecs", len(groups2) - 1, "groupName")))
        head = cluster.get("headGroupSpec", {})
        if "cpu" in head and "template" not in head:
            doc = copy.deepcopy(data)
            h = get_at(doc, (*cluster_base, "headGroupSpec"))
            h["template"] = {"spec": {"containers": [{"name": "ray-head", "image": "x",
                                                      "resources": {"limits": {"cpu": "999"}}}]}}
            out.append(("shortcut vs template", doc, (*cluster_base, "headGroupSpec", "cpu")))
    job_base: Path | None = {"RayJob": (), "RayCronJob": ("jobTemplate",)}.get(kind)
    if job_base is not None:
        doc = copy.deepcopy(data)
        job = get_at(doc, job_base)
        if "rayClusterSpec" in job:
            job["clusterSelector"] = {"ray.io/cluster": "other"}
            out.append(("two cluster sources", doc, (*job_base, "clusterSelector")))
        else:
            job["clusterSelector"] = {"team": "x"}
            out.append(("selector without name", doc, (*job_base, "clusterSelector")))
    if kind == "RayService" and isinstance(data.get("serveConfigV2"), dict):
        doc = copy.deepcopy(data)
        apps = doc["serveConfigV2"]["applications"]
        apps.append({**copy.deepcopy(apps[0]), "name": "zz-dup-route"})
        apps[-1]["route_prefix"] = apps[0].get("route_prefix", "/")
        out.append(("duplicate route", doc, ("serveConfigV2", "applications", len(apps) - 1, "route_prefix")))
        doc = copy.deepcopy(data)
        doc["serveConfigV2"]["http_options"] = {"port": 8123}
        out.append(("serve port mismatch", doc, ("rayClusterConfig",)))
    return out


# Map-valued fields whose entries are user data (keys are not field names).
_USER_MAPS = {"env", "nodeSelector", "labels", "annotations", "rayStartParams", "headServiceAnnotations",
              "metadata", "clusterSelector", "user_config", "env_vars", "runtime_env", "runtimeEnvYAML",
              "entrypointResources", "resources", "limits", "requests"}


def _is_template_quantity(path: Path) -> bool:
    return "template" in path and len(path) >= 2 and path[-2] in ("limits", "requests")


def _not_text(value: Any) -> bool:
    return not isinstance(value, str)


@st.composite
def mutated(
    draw: st.DrawFn, kind: str, valid: st.SearchStrategy[JsonDict] | None = None, *, allow_none: bool = False
) -> Mutation:
    """A valid input of ``kind`` with one mistake; records where."""
    data = draw(valid if valid is not None else VALID[kind])
    op = draw(st.sampled_from(["replace", "replace", "replace", "delete", "unknown", "conflict"]))
    if op == "conflict":
        conflicts = _conflicts(kind, data)
        if conflicts:
            name, doc, where = draw(st.sampled_from(conflicts))
            return Mutation("conflict", where, doc, name)
        op = "replace"
    paths = leaf_paths(data)
    path = draw(st.sampled_from(paths))
    doc = copy.deepcopy(data)
    parent = get_at(doc, path[:-1])
    key = path[-1]
    if op == "delete":
        if isinstance(parent, list):
            parent.pop(key)  # type: ignore[arg-type]
        else:
            del parent[key]
        return Mutation("delete", path, doc)
    if op == "unknown":
        container = get_at(doc, path) if isinstance(get_at(doc, path), dict) else parent
        cpath = path if isinstance(get_at(doc, path), dict) else path[:-1]
        if not isinstance(container, dict) or (cpath and cpath[-1] in _USER_MAPS):
            return Mutation("noop", path, doc)
        name = draw(st.sampled_from(["replica", "minreplicas", "groupname", "imagePullSecret", "bogus", "Spec"]))
        if name in container:
            return Mutation("noop", path, doc)
        container[name] = draw(st.sampled_from([1, "x", True, {"a": 1}]))
        return Mutation("unknown", (*cpath, name), doc)
    current = get_at(doc, path)
    values = wrong_values(current, allow_none=allow_none)
    if _is_template_quantity(path):
        values = values.filter(_not_text)  # known gap, see regressions/test_found_bugs.py
    parent[key] = draw(values)
    return Mutation("replace", path, doc)


