"""Safe walking of manifest dicts: typed accessors, unknown values, embedded cluster specs and pod templates.

Every accessor returns an empty/neutral value when the data has an unexpected shape, so a rule never
crashes on a malformed manifest (the ``schema-*`` rules report the shape problem) and never judges a value
that Pulumi preview has not computed yet (``None`` or the unknown sentinel string).
"""

# No ``from __future__ import annotations``: this module defines a function named ``annotations``.

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol, TypeVar

_Part = TypeVar("_Part")
_View = TypeVar("_View")
_Found = TypeVar("_Found")
_Doc = TypeVar("_Doc", bound=Mapping[str, Any])

#: What the Pulumi engine puts in place of a value that is only known after apply.
UNKNOWN_SENTINEL = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

RAY_CONTAINER_INDEX = 0


def is_unknown(value: Any) -> bool:
    """True for a value a check must not judge: absent/``None`` or Pulumi's computed-value sentinel."""
    return value is None or (isinstance(value, str) and value == UNKNOWN_SENTINEL)


def contains_unknown(value: Any) -> bool:
    """True if ``value`` is unknown or holds an unknown anywhere inside (lists, maps)."""
    if isinstance(value, str):
        return value == UNKNOWN_SENTINEL
    if isinstance(value, (dict, Mapping)):  # dict first: no ABC check for the common case
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_unknown(v) for v in value)
    return False


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    """The string, or None for anything else (including the unknown sentinel)."""
    return value if isinstance(value, str) and value != UNKNOWN_SENTINEL else None


def as_int(value: Any) -> int | None:
    """The integer (integral floats accepted), or None for anything else; bools are not integers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def is_true(value: Any) -> bool:
    return value is True


def get(obj: Any, *keys: str | int) -> Any:
    """``obj[k1][k2]...`` where every step tolerates a wrong shape (returns None). Read by the rules and by
    ``diagnose`` (a live object's status: any mapping)."""
    cur = obj
    for key in keys:
        if type(cur) is dict and type(key) is str:  # the common step, without the slower Mapping ABC check
            cur = cur.get(key)
        elif cur is None:
            return None  # an absent step (the next common case): neither a list nor a Mapping
        elif isinstance(key, int):
            if not isinstance(cur, list) or not -len(cur) <= key < len(cur):
                return None
            cur = cur[key]
        else:
            if not isinstance(cur, Mapping):
                return None
            cur = cur.get(key)
    return cur


def join(prefix: str, *parts: str | int) -> str:
    """Build a field path: ``join("spec", "workerGroupSpecs", 1, "x")`` -> ``spec.workerGroupSpecs[1].x``."""
    out = prefix
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out = f"{out}.{part}" if out else part
    return out


_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]|\[([^\]]*)\]")


def parse_path(path: str) -> list[str | int]:
    """Inverse of :func:`join` (``a.b[2].c`` -> ``["a", "b", 2, "c"]``); ``["key"]`` segments are map keys."""
    out: list[str | int] = []
    for name, index, key in _PATH_TOKEN.findall(path):
        if name:
            out.append(name)
        elif index:
            out.append(int(index))
        else:
            out.append(key.strip("'\""))
    return out


def path_touches_unknown(manifest: Any, path: str) -> bool:
    """True if the value at ``path`` or one of its ancestors is Pulumi's unknown sentinel (or holds one)."""
    cur = manifest
    for key in parse_path(path):
        if isinstance(cur, str) and cur == UNKNOWN_SENTINEL:
            return True
        nxt = get(cur, key)
        if nxt is None:
            return False
        cur = nxt
    return contains_unknown(cur)


# --------------------------------------------------------------------------------------------------
# Manifest anatomy


def metadata(manifest: Mapping[str, Any]) -> dict[str, Any]:
    return as_dict(manifest.get("metadata"))


def annotations(manifest: Mapping[str, Any]) -> dict[str, Any]:
    return as_dict(metadata(manifest).get("annotations"))


def labels(manifest: Mapping[str, Any]) -> dict[str, Any]:
    return as_dict(metadata(manifest).get("labels"))


@dataclass(frozen=True)
class ClusterSpecRef:
    """One RayClusterSpec inside a manifest, with what its validation depends on."""

    spec: dict[str, Any]
    prefix: str  # e.g. "spec" or "spec.rayClusterSpec"
    kind: str  # kind of the enclosing document
    annotations: dict[str, Any]  # the enclosing document's annotations (the operator uses the parent's)
    labels: dict[str, Any]
    #: What :func:`part_view` derived from this ref while ``check`` runs (its groups, its head's Ray container...).
    views: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def embedded(self) -> bool:
        return self.kind != "RayCluster"

    def path(self, *parts: str | int) -> str:
        return join(self.prefix, *parts)


_CLUSTER_SPEC_LOCATIONS: dict[str, tuple[str, ...]] = {
    "RayCluster": ("spec",),
    "RayJob": ("spec", "rayClusterSpec"),
    "RayService": ("spec", "rayClusterConfig"),
    "RayCronJob": ("spec", "jobTemplate", "rayClusterSpec"),
}


#: The document ``check`` is running on and the views derived from it so far. ``check`` hands every rule the same
#: dict, so ~80 rules asking for its cluster specs, pod templates or model load walk it once instead of 80 times.
#: A context variable, so threads (the policy pack may run several) and tasks each see their own document.
_DOCUMENT: ContextVar[tuple[object, dict[Any, Any]] | None] = ContextVar("pulumi_kuberay_document", default=None)


@contextmanager
def document_views(manifest: object) -> Iterator[None]:
    """While ``check`` runs its rules on ``manifest`` (which nobody mutates meanwhile), :func:`memo` and
    :func:`derived` cache."""
    token = open_views(manifest)
    try:
        yield
    finally:
        close_views(token)


def open_views(
    manifest: object, known: Mapping[str, Any] | None = None
) -> Token[tuple[object, dict[Any, Any]] | None]:
    """:func:`document_views` without the context manager (``check``, once per document): from here until
    :func:`close_views` of what this returns, :func:`memo` and :func:`derived` cache for ``manifest``. ``known``:
    views the caller found already (what :func:`memo` then answers for their keys)."""
    return _DOCUMENT.set((manifest, dict(known) if known else {}))


#: The key of the view "the document holds no null anywhere" (True), which ``check`` finds while it makes sure the
#: document needs no normalising (one walk): the schema rules then validate the spec as it is.
NULL_FREE = "document.null_free"


def close_views(token: Token[tuple[object, dict[Any, Any]] | None]) -> None:
    current = _DOCUMENT.get()
    _DOCUMENT.reset(token)
    if current is not None:
        for ref in current[1].get(_VIEWED_REFS, ()):
            ref.views.clear()  # what part_view kept on a ref is this check's only, as derived()'s views are


def memo(manifest: object, key: str, build: Callable[[Any], Any]) -> Any:
    """``build(manifest)``, computed once per ``key`` while ``check`` runs on ``manifest`` (else every time)."""
    current = _DOCUMENT.get()
    if current is None or current[0] is not manifest:
        return build(manifest)  # not the document check() is running on: no caching
    views = current[1]
    value = views.get(key, views)  # (the views dict itself: the marker of a view not built yet)
    if value is views:
        value = views[key] = build(manifest)
    return value


def derived(part: _Part, key: str, build: Callable[[_Part], _View]) -> _View:
    """``build(part)`` for a part of the document ``check`` is running on (a cluster spec, a group, a pod
    template, a container), computed once per part and ``key`` while ``check`` runs (else every time).

    The parts are found by identity: the rules walk the same dicts and refs (:func:`cluster_specs` and the
    helpers below hand out the same ones during a check), so the head group, the worker groups, the pod
    templates, their containers and env lists are derived once per document, whichever of ~80 rules asks first.
    The view keeps the part alive, so its id is not reused while the document is checked.
    """
    current = _DOCUMENT.get()
    if current is None:
        return build(part)
    views = current[1]
    slot = (key, id(part))
    kept = views.get(slot)
    if kept is not None and kept[0] is part:
        return kept[1]  # type: ignore[no-any-return]  # the slot's key says what build() returned
    value = build(part)
    views[slot] = (part, value)
    return value


class _Viewed(Protocol):
    """A ref of this module (cluster spec, group, pod template): the ``views`` it keeps."""

    @property
    def views(self) -> dict[str, Any]: ...


_Ref = TypeVar("_Ref", bound=_Viewed)
_NOT_BUILT = object()
#: The document views' key of the refs part_view kept views on during the check (close_views clears them).
_VIEWED_REFS = "paths.viewed_refs"


def part_view(part: _Ref, key: str, build: Callable[[_Ref], _View]) -> _View:
    """:func:`derived` for a ref of this module: kept on the ref itself (its ``views``), so asking again is an
    attribute and a dict lookup. While ``check`` runs only (else built every time), and forgotten when it ends
    (:func:`close_views`): a ref's owner may change the dicts it points to between two reads."""
    views = part.views
    value = views.get(key, _NOT_BUILT)
    if value is not _NOT_BUILT:
        # Kept by the check running now: a ref holds views only from its first view in a check to that check's end
        # (~80 asks per document, most of them answered here, without looking for the check).
        return value  # type: ignore[no-any-return]  # the key says what build() returned
    current = _DOCUMENT.get()
    if current is None:
        return build(part)
    if not views:  # the ref's first view of this check: close_views forgets them
        current[1].setdefault(_VIEWED_REFS, []).append(part)
    built = views[key] = build(part)
    return built


def _ref_view(key: str, build: Callable[[_Ref], _View]) -> Callable[[_Ref], _View]:
    """A reader of a ref that is :func:`part_view` of ``build`` under ``key``, its lookup inlined in its own body:
    the rules ask for the groups, templates and containers ~80 times per document, nearly all of them answered by
    the ref's views, and a call of ``part_view`` more on each was ~2 % of a check."""

    def view(part: _Ref) -> _View:
        value = part.views.get(key, _NOT_BUILT)
        if value is not _NOT_BUILT:
            return value  # type: ignore[no-any-return]  # the key says what build() returned
        return part_view(part, key, build)

    view.__name__ = view.__qualname__ = key
    return view


def document_view(key: str, build: Callable[[_Doc], _Found]) -> Callable[[_Doc], _Found]:
    """A reader of the document that is :func:`memo` of ``build`` under ``key``, inlined in its own body: the
    rules ask for the cluster specs ~60 times per document, for the built pod templates ~13 times, and a call of
    ``memo`` more on each was ~2 % of a check. ``build`` never returns None."""

    def view(manifest: _Doc) -> _Found:
        current = _DOCUMENT.get()
        if current is None or current[0] is not manifest:
            return build(manifest)  # not the document check() is running on: no caching
        views = current[1]
        found: _Found | None = views.get(key)
        if found is None:
            found = views[key] = build(manifest)
        return found

    return view


def _cluster_specs(manifest: Mapping[str, Any]) -> tuple[ClusterSpecRef, ...]:
    kind = manifest.get("kind")
    if not isinstance(kind, str) or kind not in _CLUSTER_SPEC_LOCATIONS:
        return ()
    keys = _CLUSTER_SPEC_LOCATIONS[kind]
    spec = get(manifest, *keys)
    if not isinstance(spec, dict):
        return ()
    if kind == "RayCronJob":
        # ValidateRayCronJobSpec validates the template as a RayJob without metadata, and constructRayJob gives
        # the RayJobs it creates none of the RayCronJob's annotations or labels: they never reach the cluster.
        return (ClusterSpecRef(spec, ".".join(keys), kind, {}, {}),)
    return (ClusterSpecRef(spec, ".".join(keys), kind, annotations(manifest), labels(manifest)),)


#: Every embedded RayClusterSpec (zero or one per document today) with its path prefix.
cluster_specs = document_view("cluster_specs", _cluster_specs)


@dataclass(frozen=True)
class GroupRef:
    """The head group or one worker group of a cluster spec."""

    spec: dict[str, Any]
    path: str  # e.g. spec.headGroupSpec or spec.workerGroupSpecs[1]
    role: str  # "head" | "worker"
    index: int | None  # worker group index
    name: str  # "Head" or the groupName (as the operator names it in messages)
    #: What :func:`part_view` derived from this ref while ``check`` runs (its pod template).
    views: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)


def _head_group(ref: ClusterSpecRef) -> GroupRef | None:
    head = ref.spec.get("headGroupSpec")
    if not isinstance(head, dict):
        return None
    # (paths as join() makes them, without its call: the groups and templates are found on every document)
    return GroupRef(head, f"{ref.prefix}.headGroupSpec" if ref.prefix else "headGroupSpec", "head", None, "Head")


head_group = _ref_view("head_group", _head_group)


def _worker_groups(ref: ClusterSpecRef) -> tuple[GroupRef, ...]:
    out: list[GroupRef] = []
    for i, group in enumerate(as_list(ref.spec.get("workerGroupSpecs"))):
        if isinstance(group, dict):
            name = as_str(group.get("groupName")) or f"#{i}"
            path = f"{ref.prefix}.workerGroupSpecs[{i}]" if ref.prefix else f"workerGroupSpecs[{i}]"
            out.append(GroupRef(group, path, "worker", i, name))
    return tuple(out)


worker_groups = _ref_view("worker_groups", _worker_groups)


def _groups(ref: ClusterSpecRef) -> tuple[GroupRef, ...]:
    head = head_group(ref)
    return ((head,) if head else ()) + worker_groups(ref)


groups = _ref_view("groups", _groups)


@dataclass(frozen=True)
class PodTemplateRef:
    """One pod template inside a manifest: head, worker group i or the RayJob submitter."""

    template: dict[str, Any]
    path: str  # path of the template itself, e.g. spec.workerGroupSpecs[0].template
    role: str  # "head" | "worker" | "submitter"
    group_index: int | None = None
    group_name: str | None = None

    #: The pod spec (``{}`` when it is not an object) and its path: read by most rules, so computed with the ref (a
    #: ref is made from a template nobody changes while it is read: a check, a remediation's one pass).
    pod_spec: dict[str, Any] = field(init=False, repr=False, compare=False)
    spec_path: str = field(init=False, repr=False, compare=False)
    #: What :func:`part_view` derived from this ref while ``check`` runs (its containers, its Ray container...).
    views: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pod_spec", as_dict(self.template.get("spec")))
        object.__setattr__(self, "spec_path", f"{self.path}.spec" if self.path else "spec")  # join(path, "spec")


def _group_template(group: GroupRef) -> PodTemplateRef | None:
    template = group.spec.get("template")
    if not isinstance(template, dict):
        return None
    path = f"{group.path}.template" if group.path else "template"
    return PodTemplateRef(template, path, group.role, group.index, group.name)


group_template = _ref_view("group_template", _group_template)


def _pod_templates(manifest: Mapping[str, Any]) -> tuple[PodTemplateRef, ...]:
    out: list[PodTemplateRef] = []
    for ref in cluster_specs(manifest):
        for group in groups(ref):
            tpl = group_template(group)
            if tpl is not None:
                out.append(tpl)
    kind = manifest.get("kind")
    submitter_keys: tuple[str, ...] | None = None
    if kind == "RayJob":
        submitter_keys = ("spec", "submitterPodTemplate")
    elif kind == "RayCronJob":
        submitter_keys = ("spec", "jobTemplate", "submitterPodTemplate")
    if submitter_keys is not None:
        submitter = get(manifest, *submitter_keys)
        if isinstance(submitter, dict):
            out.append(PodTemplateRef(submitter, ".".join(submitter_keys), "submitter"))
    return tuple(out)


#: Every pod template of the document: head and worker templates of each cluster spec, then submitter.
pod_templates = document_view("pod_templates", _pod_templates)


def _containers(template: PodTemplateRef) -> tuple[tuple[str, dict[str, Any]], ...]:
    out: list[tuple[str, dict[str, Any]]] = []
    for i, c in enumerate(as_list(template.pod_spec.get("containers"))):
        if isinstance(c, dict):
            out.append((join(template.spec_path, "containers", i), c))
    return tuple(out)


#: (path, container) for each container of the pod template.
containers = _ref_view("containers", _containers)


#: The container lists of a pod spec, in the order the rules walk them.
CONTAINER_FIELDS = ("initContainers", "containers", "ephemeralContainers")


@dataclass(frozen=True)
class ContainerRef:
    """One container of a pod template: which list it is in, its index there, its path and the container."""

    field: str  # initContainers | containers | ephemeralContainers
    index: int
    path: str  # e.g. spec.headGroupSpec.template.spec.containers[0]
    container: dict[str, Any]


def _template_containers(template: PodTemplateRef) -> tuple[ContainerRef, ...]:
    pod, spec_path = template.pod_spec, template.spec_path
    out: list[ContainerRef] = []
    for name in CONTAINER_FIELDS:
        listed = pod.get(name)
        if isinstance(listed, list):  # (most pods have no init or ephemeral containers: no generator for them)
            for i, container in enumerate(listed):
                if isinstance(container, dict):
                    out.append(ContainerRef(name, i, f"{spec_path}.{name}[{i}]", container))
    return tuple(out)


#: Every container of the pod template (init, app, ephemeral, each in list order), walked once per check:
#: the security, reference and practice rules all read them.
template_containers = _ref_view("template_containers", _template_containers)


def _app_containers(template: PodTemplateRef) -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple(
        (item.path, item.container) for item in template_containers(template) if item.field != "ephemeralContainers"
    )


#: (path, container) of the init and app containers, in :func:`template_containers`' order: what the Pod is
#: created with (ephemeral containers are added later, for debugging). A dozen Pod validation and security rules
#: walk them on every document: a tuple kept per check, not a generator per rule.
app_containers = _ref_view("app_containers", _app_containers)


def ray_container(template: PodTemplateRef | None) -> tuple[str, dict[str, Any]] | None:
    """(path, container) of the Ray container: ``containers[0]`` by KubeRay convention."""
    if template is None:
        return None
    found = template.views.get("ray_container", _NOT_BUILT)  # (_ref_view's lookup: here a template may be None)
    return found if found is not _NOT_BUILT else part_view(template, "ray_container", _ray_container)


def _ray_container(template: PodTemplateRef) -> tuple[str, dict[str, Any]] | None:
    first = get(template.pod_spec, "containers", RAY_CONTAINER_INDEX)
    if not isinstance(first, dict):
        return None
    return join(template.spec_path, "containers", RAY_CONTAINER_INDEX), first


def head_template(ref: ClusterSpecRef) -> PodTemplateRef | None:
    head = head_group(ref)
    return group_template(head) if head else None


def _head_ray_container(ref: ClusterSpecRef) -> tuple[str, dict[str, Any]] | None:
    return ray_container(head_template(ref))


head_ray_container = _ref_view("head_ray_container", _head_ray_container)


def env_list(
    container: Mapping[str, Any] | None, container_path: str = "", key: str = "env"
) -> list[tuple[str, dict[str, Any]]]:
    """(path, entry) for each named env entry of a container (or any object with an ``env`` list)."""
    if container is None:
        return []
    out: list[tuple[str, dict[str, Any]]] = []
    for i, entry in enumerate(as_list(container.get(key))):
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            out.append((join(container_path, key, i), entry))
    return out


def env_var(
    container: Mapping[str, Any] | None, name: str, container_path: str = ""
) -> tuple[str, dict[str, Any]] | None:
    """(path, entry) of the first env entry called ``name`` (KubeRay's ``EnvVarExists``/``EnvVarByName``)."""
    if container is None:
        return None
    found = derived(container, "env_var", _first_env_by_name).get(name)
    return None if found is None else (join(container_path, "env", found[0]), found[1])


def _first_env_by_name(container: Mapping[str, Any]) -> dict[str, tuple[int, dict[str, Any]]]:
    """name -> (index, entry) of the first named env entry with that name."""
    out: dict[str, tuple[int, dict[str, Any]]] = {}
    for i, entry in enumerate(as_list(container.get("env"))):
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            out.setdefault(entry["name"], (i, entry))
    return out


def volume_mounts(container: Mapping[str, Any] | None, container_path: str = "") -> list[tuple[str, dict[str, Any]]]:
    if container is None:
        return []
    return [
        (join(container_path, "volumeMounts", i), m)
        for i, m in enumerate(as_list(container.get("volumeMounts")))
        if isinstance(m, dict)
    ]


def iter_present(obj: Any, pattern: str, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Concrete (path, value) for every match of ``pattern`` (dotted, ``[]`` = every list item) that is set.

    ``iter_present(spec, "workerGroupSpecs[].priority", "spec")`` yields
    ``("spec.workerGroupSpecs[0].priority", 5)`` for each group where the key is set (not null).
    """
    steps = pattern.split(".")

    def walk(cur: Any, i: int, path: str) -> Iterator[tuple[str, Any]]:
        if i == len(steps):
            yield path, cur
            return
        step = steps[i]
        each = step.endswith("[]")
        key = step[:-2] if each else step
        if not isinstance(cur, dict) or cur.get(key) is None:
            return
        value = cur[key]
        if each:
            for j, item in enumerate(as_list(value)):
                yield from walk(item, i + 1, join(path, key, j))
        else:
            yield from walk(value, i + 1, join(path, key))

    yield from walk(obj, 0, prefix)


# --------------------------------------------------------------------------------------------------
# Versions

# Go's versionMatchRE `^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)*$`: RE2's \s is [\t\n\f\r ], `.` stops at a newline and
# `$` is the end of the text (Python's `$` would also match before a trailing newline).
_GENERIC_VERSION = re.compile(r"[\t\n\f\r ]*v?([0-9]+(?:\.[0-9]+)*)[^\n]*\Z")
_UINT64_MAX = (1 << 64) - 1


@lru_cache(maxsize=512)  # the rules read the same rayVersion and image tags of a document many times
def parse_generic_version(text: str) -> tuple[int, ...] | None:
    """Like k8s ``version.ParseGeneric`` (used by the operator for rayVersion): at least major.minor, no
    zero-prefixed major, every component a uint64; anything after the numbers is ignored."""
    match = _GENERIC_VERSION.match(text)
    if match is None:
        return None
    parts = match.group(1).split(".")
    if len(parts) < 2 or (parts[0].startswith("0") and parts[0] != "0"):
        return None
    nums = tuple(int(p) for p in parts)
    if any(n > _UINT64_MAX for n in nums):
        return None
    return nums + (0,) * max(0, 3 - len(nums))


# --------------------------------------------------------------------------------------------------
# Template placeholders that envsubst, Helm, Jinja, Terraform's templatefile and docs leave in a file, so that a
# finding on such a value can say what it is.

_PLACEHOLDER = re.compile(  # text-block
    r"\$\{[^}]*\}"  # ${VAR} (envsubst, Terraform, shell)
    r"|\$[A-Za-z_][A-Za-z0-9_]*"  # $VAR
    r"|\{\{.*?\}\}"  # {{ .Values.x }} (Helm, Jinja)
    r"|\{%.*?%\}"  # {% if %} (Jinja)
    r"|<[^<>]+>"  # <your-image> (docs)
    r"|\bPLACEHOLDER[A-Za-z0-9_]*"  # PLACEHOLDER_IMAGE (sed-style)
)


def placeholder_pattern() -> str:
    """The placeholder syntax as a regular expression (Python's, which RE2 and so CEL's ``matches`` also read)."""
    return _PLACEHOLDER.pattern


def placeholders(text: str) -> list[str]:
    """The template placeholders in ``text`` (``$REGISTRY``, ``${image}``, ``{{ .Values.tag }}``, ``<ns>``)."""
    return _PLACEHOLDER.findall(text)


def placeholder_note(text: str) -> str:
    """`` ('$X' is an unrendered template placeholder: render the template first)`` or ``""``."""
    found = placeholders(text)
    if not found:
        return ""
    listed = ", ".join(repr(p) for p in dict.fromkeys(found))
    verb = "is an unrendered template placeholder" if len(set(found)) == 1 else "are unrendered template placeholders"
    return f" ({listed} {verb}: render the template first)"
