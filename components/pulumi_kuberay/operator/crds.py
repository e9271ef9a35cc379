"""The KubeRay CRDs the operator component applies: where their YAML is read from, our version label on them,
and the downgrade check. Plain Python (no pulumi).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from pulumi_kuberay.kuberay import RAY_GROUP, parse_kuberay_version
from pulumi_kuberay.model import YAML_LOADER
from pulumi_kuberay.operator.args import KubeRayOperatorArgs

#: Field manager of our server-side applies of the CRDs (``pulumi.com/patchFieldManager``).
FIELD_MANAGER = "pulumi-kuberay"
#: Label on every CRD we apply: the KubeRay version its schema comes from (read back for downgrade checks).
CRD_VERSION_LABEL = "pulumi-kuberay.io/kuberay-version"
CRD_KIND = "CustomResourceDefinition"
#: Where parsed CRD files are kept as JSON (default ``$XDG_CACHE_HOME/pulumi-kuberay/crds``; empty: no cache).
CRD_CACHE_ENV = "PULUMI_KUBERAY_CRD_CACHE"


def crd_version_label(manifest: Any) -> str | None:
    """The KubeRay version our label gives a CRD (``pulumi-kuberay.io/kuberay-version``), read without copying
    the 1 MB schema (``manifest`` may be the policy pack's proxy); None for any other object or without it."""
    if not isinstance(manifest, Mapping) or manifest.get("kind", CRD_KIND) != CRD_KIND:
        return None
    metadata = manifest.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
    label = labels.get(CRD_VERSION_LABEL) if isinstance(labels, Mapping) else None
    return str(label) if label is not None else None


def crds_directory(args: KubeRayOperatorArgs) -> Path | None:
    """Where the CRD YAML for ``args.version`` is read from: ``crds_dir``, else the local chart's ``crds/``;
    None for a remote chart without ``crds_dir`` (the component then asks Helm to render them)."""
    if args.crds_dir is not None:
        return Path(args.crds_dir)
    if args.chart is not None and Path(args.chart).is_dir():
        return Path(args.chart) / "crds"
    return None


def load_crds(directory: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every ``CustomResourceDefinition`` in the ``*.yaml`` files of ``directory`` (sorted by file name).

    The four KubeRay CRDs are about 4 MB of YAML (1.2 MB as JSON): parsed once per file version (path, size,
    mtime) and shared, so callers must not mutate the result (:func:`crd_documents` copies what it changes).
    Parsing them costs ~2 s of CPU, paid by every Pulumi program run (``pulumi up`` runs the program twice,
    preview then update): the parsed documents are kept as JSON by the file's content hash
    (:func:`crd_cache_dir`), which loads in ~30 ms.
    """
    root = Path(directory)
    if not root.is_dir():
        raise FileNotFoundError(f"CRD directory {os.fspath(root)!r} does not exist")
    out: list[dict[str, Any]] = []
    for path in sorted(root.glob("*.yaml")):
        stat = path.stat()
        out.extend(_crds_in_file(str(path), stat.st_size, stat.st_mtime_ns))
    if not out:
        raise FileNotFoundError(f"no CustomResourceDefinition in {os.fspath(root)!r}")
    return out


def crd_cache_dir() -> Path | None:
    """Where :func:`load_crds` keeps parsed CRD files: ``PULUMI_KUBERAY_CRD_CACHE`` (empty: no cache), else
    ``$XDG_CACHE_HOME/pulumi-kuberay/crds`` (``~/.cache/...``)."""
    configured = os.environ.get(CRD_CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pulumi-kuberay" / "crds"


@functools.lru_cache(maxsize=32)
def _crds_in_file(path: str, _size: int, _mtime_ns: int) -> tuple[dict[str, Any], ...]:
    text = Path(path).read_bytes()
    cache = crd_cache_dir()
    # Keyed by content (and the parser's output format below): an edited file never meets a stale entry.
    entry = cache / f"{hashlib.sha256(text).hexdigest()}.v1.json" if cache is not None else None
    if entry is not None:
        try:
            return tuple(json.loads(entry.read_bytes()))
        except (OSError, ValueError):
            pass  # not cached yet, or unreadable: parse the YAML
    docs = yaml.load_all(text, Loader=YAML_LOADER)
    crds = tuple(d for d in docs if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition")
    if entry is not None:
        _write_cache(entry, crds)
    return crds


def _write_cache(entry: Path, crds: tuple[dict[str, Any], ...]) -> None:
    try:
        # JSON keeps every CRD value as YAML parsed it: the schema is strings, numbers, booleans, lists, maps.
        body = json.dumps(list(crds), separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return  # a value JSON cannot hold (a YAML timestamp, NaN): keep parsing the YAML
    if json.loads(body) != list(crds):
        return  # JSON would change it (a non-string key becomes a string): keep parsing the YAML
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        # Written beside and renamed: a concurrent reader sees no entry or the whole file.
        with tempfile.NamedTemporaryFile("w", dir=entry.parent, suffix=".tmp", delete=False) as out:
            out.write(body)
        os.replace(out.name, entry)
    except OSError:
        return  # a read-only home: no cache, the YAML is parsed each time


def crd_documents(docs: Sequence[Mapping[str, Any]], version: str) -> list[dict[str, Any]]:
    """The ``ray.io`` CRDs labelled with the KubeRay version they belong to (other documents dropped)."""
    out: list[dict[str, Any]] = []
    for doc in docs:
        if doc.get("kind") != "CustomResourceDefinition":
            continue
        if (doc.get("spec") or {}).get("group") != RAY_GROUP:
            continue
        meta = dict(doc.get("metadata") or {})
        meta["labels"] = {**(meta.get("labels") or {}), CRD_VERSION_LABEL: version}
        out.append({**doc, "metadata": meta})
    return out


def chart_version(chart_dir: str | os.PathLike[str]) -> str:
    """``version`` of a local chart's ``Chart.yaml``."""
    data = yaml.safe_load((Path(chart_dir) / "Chart.yaml").read_text()) or {}
    return str(data.get("version", ""))


def crd_downgrade(previous: str | None, new: str) -> bool:
    """True when ``new`` is older than the CRD version applied before (``previous``; None = none known)."""
    if not previous:
        return False
    try:
        return parse_kuberay_version(new) < parse_kuberay_version(previous)
    except ValueError:
        return False


__all__ = [
    "CRD_CACHE_ENV",
    "CRD_KIND",
    "CRD_VERSION_LABEL",
    "FIELD_MANAGER",
    "chart_version",
    "crd_cache_dir",
    "crd_documents",
    "crd_downgrade",
    "crd_version_label",
    "crds_directory",
    "load_crds",
]
