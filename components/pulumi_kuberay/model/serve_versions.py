"""Which ``serveConfigV2`` keys a given Ray release accepts, deprecates or drops: the generated table
(:mod:`._serve_versions`, read from Ray's own ``ray.serve.schema``) asked for one release.

A RayService is judged by the Ray that runs its head: the tag of the head container's image when it is a Ray
image whose tag names a version (``rayproject/ray:2.9.3-py310`` -> 2.9.3), else ``rayClusterConfig.rayVersion``;
with neither (or a value that is no version), by the newest release in the table. A release between two releases
of the table has the schema of the older one (the table lists every release where the schema changed); one older
than the oldest is judged as the oldest, one newer than the newest as the newest.

Example::

    release = serve_release(ray_version="2.9.3")
    judge_key("deployment", "max_concurrent_queries", release).status   # "accepted" (deprecated only in 2.10)
    judge_key("deployment", "max_concurrent_queries", serve_release(ray_version="2.40.0")).status  # "dropped"

Plain Python: never imports pydantic models or pulumi.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from ._serve_versions import DEPRECATED, FORBIDS_EXTRA, KEYS, MOVED, RAY_VERSIONS, REPLACEMENTS

#: Name Ray Serve gives an application that does not set ``name`` (here, not in ``model.serve``, so the rules that
#: read Serve configs need not load the Serve models).
DEFAULT_APP_NAME = "default"

__all__ = [
    "KeyVerdict",
    "ServeRelease",
    "iter_serve_keys",
    "judge_key",
    "known_keys",
    "parse_ray_version",
    "release_of_service",
    "serve_release",
]

Version = tuple[int, int, int]
_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:$|[-+_.]?[A-Za-z0-9][-+_.A-Za-z0-9]*$)")


def parse_ray_version(text: object) -> Version | None:
    """``"2.9"`` -> (2, 9, 0); ``"2.46.0-py311-gpu"`` (an image tag) -> (2, 46, 0); anything else -> None."""
    if not isinstance(text, str):
        return None
    match = _VERSION.match(text.strip())
    if match is None:
        return None
    major, minor, patch = match.group(1), match.group(2), match.group(3)
    return int(major), int(minor), int(patch or 0)


_TABLE: tuple[Version, ...] = tuple(parse_ray_version(v) or (0, 0, 0) for v in RAY_VERSIONS)


@dataclass(frozen=True)
class ServeRelease:
    """The Ray release a config is judged by, and why."""

    index: int
    """Index into the table's releases (the newest release at or below the Ray version)."""
    version: str
    """The Ray version as the document gives it (or the newest in the table)."""
    source: str
    """Where it comes from: ``"the head image tag"``, ``"rayVersion"`` or ``"no Ray version given"``."""

    @property
    def label(self) -> str:
        """``"Ray 2.9.3 (rayVersion)"``, for messages."""
        return f"Ray {self.version} ({self.source})"


def _index(version: Version) -> int:
    index = 0
    for i, release in enumerate(_TABLE):
        if release <= version:
            index = i
    return index


def serve_release(*, ray_version: object = None, image: object = None) -> ServeRelease:
    """The release to judge by: the image tag's version, else ``ray_version``, else the newest."""
    repository = image.split("@", 1)[0].rsplit("/", 1)[-1] if isinstance(image, str) else ""
    if isinstance(image, str) and ":" in repository and "ray" in repository.split(":", 1)[0].lower():
        # only a Ray image's tag names a Ray release; a team's own image tagged 0.0.1 says nothing about Ray
        tag = repository.split(":", 1)[1]
        parsed = parse_ray_version(tag)
        if parsed is not None:
            return ServeRelease(_index(parsed), ".".join(map(str, parsed)), "the head image tag")
    parsed = parse_ray_version(ray_version)
    if parsed is not None:
        return ServeRelease(_index(parsed), str(ray_version).strip(), "rayVersion")
    return ServeRelease(len(_TABLE) - 1, RAY_VERSIONS[-1], "no Ray version given: the newest")


def release_of_service(manifest: Mapping[str, Any]) -> ServeRelease:
    """The release a RayService manifest (a plain dict) is judged by."""
    spec = manifest.get("spec")
    cluster = spec.get("rayClusterConfig") if isinstance(spec, Mapping) else None
    if not isinstance(cluster, Mapping):
        return serve_release()
    image = None
    head = cluster.get("headGroupSpec")
    template = head.get("template") if isinstance(head, Mapping) else None
    pod = template.get("spec") if isinstance(template, Mapping) else None
    containers = pod.get("containers") if isinstance(pod, Mapping) else None
    if isinstance(containers, list) and containers and isinstance(containers[0], Mapping):
        image = containers[0].get("image")
    return serve_release(ray_version=cluster.get("rayVersion"), image=image)


Status = Literal["accepted", "deprecated", "dropped", "rejected", "unknown"]


@dataclass(frozen=True)
class KeyVerdict:
    """What one release does with one key of one section."""

    status: Status
    """``accepted``; ``deprecated`` (accepted, with a newer name); ``dropped`` (the schema does not know it and
    drops it silently: the setting has no effect); ``rejected`` (the schema does not know it and refuses the
    whole config); ``unknown`` (no release in the table knows it: a misspelling, see serve-config-unknown-key)."""
    section: str
    key: str
    release: ServeRelease
    first: str | None = None
    """The first release in the table that has the key."""
    last: str | None = None
    """The last release in the table that has the key (None: the newest still has it)."""
    removed_in: str | None = None
    """The first release in the table without the key (after ``last``)."""
    deprecated_since: str | None = None
    replacement: str | None = None
    """The key (or, for a key that moved, the place) that replaces it."""

    @property
    def removed_later(self) -> bool:
        """The key is gone in a release after the judged one."""
        return self.last is not None


def known_keys(section: str) -> frozenset[str]:
    """Every key some release in the table has in ``section``."""
    return frozenset(KEYS.get(section, {}))


@lru_cache(maxsize=4096)  # a check judges every key of a Serve config, mostly the same few keys of a few releases
def judge_key(section: str, key: str, release: ServeRelease) -> KeyVerdict:
    """What ``release`` does with ``key`` in ``section`` (e.g. ``"deployment"``, ``"autoscaling_config"``)."""
    span = KEYS.get(section, {}).get(key)
    newest = len(RAY_VERSIONS) - 1
    if span is None:
        status: Status = "unknown"
        return KeyVerdict(status, section, key, release)
    first, last = span
    replacement = REPLACEMENTS.get((section, key)) or MOVED.get((section, key))
    common = {
        "first": RAY_VERSIONS[first],
        "last": None if last == newest else RAY_VERSIONS[last],
        "removed_in": None if last == newest else RAY_VERSIONS[last + 1],
        "replacement": replacement,
    }
    if first <= release.index <= last:
        since = DEPRECATED.get(section, {}).get(key)
        if since is not None and since <= release.index:
            return KeyVerdict("deprecated", section, key, release, deprecated_since=RAY_VERSIONS[since], **common)
        return KeyVerdict("accepted", section, key, release, **common)
    forbids = release.index in FORBIDS_EXTRA.get(section, ())
    return KeyVerdict("rejected" if forbids else "dropped", section, key, release, **common)


def iter_serve_keys(config: Mapping[str, Any], base: str = "") -> Iterator[tuple[str, str, str]]:
    """(section, key, path) for every key of a parsed serveConfigV2 mapping, section by section."""

    def keys(obj: Any, section: str, path: str) -> Iterator[tuple[str, str, str]]:
        if isinstance(obj, (dict, Mapping)):  # dict first: no ABC check for the common case
            for key in obj:
                if isinstance(key, str):
                    yield section, key, f"{path}.{key}" if path else key

    def sub(obj: Any, key: str) -> Any:
        return obj.get(key) if isinstance(obj, (dict, Mapping)) else None

    yield from keys(config, "config", base)
    for name in ("http_options", "grpc_options", "logging_config"):
        yield from keys(sub(config, name), name, f"{base}.{name}" if base else name)
    apps = sub(config, "applications")
    for i, app in enumerate(apps if isinstance(apps, list) else []):
        app_path = f"{base}.applications[{i}]" if base else f"applications[{i}]"
        yield from keys(app, "application", app_path)
        yield from keys(sub(app, "logging_config"), "logging_config", f"{app_path}.logging_config")
        deployments = sub(app, "deployments")
        for j, deployment in enumerate(deployments if isinstance(deployments, list) else []):
            dep_path = f"{app_path}.deployments[{j}]"
            yield from keys(deployment, "deployment", dep_path)
            for name in ("autoscaling_config", "ray_actor_options", "logging_config", "request_router_config"):
                yield from keys(sub(deployment, name), name, f"{dep_path}.{name}")
