"""Generate ``components/pulumi_kuberay/model/_serve_versions.py``: which ``serveConfigV2`` keys each Ray release
accepts, deprecates or no longer knows, read from Ray's own ``ray.serve.schema`` of each release.

The releases are listed in ``tests/serve_schema/ray-versions.txt`` (every release where the schema changed, from
2.9 to the newest the registry serves). ``scripts/setup-serve-venvs`` builds one venv per release; this tool runs
``tools/serve_schema_dump.py`` in each and folds the dumps into one table::

    scripts/setup-serve-venvs                       # once: ~/.cache/pulumi-kuberay/serve/ray-<version>
    .venv/bin/python tools/gen_serve_versions.py    # rewrite the module
    .venv/bin/python tools/gen_serve_versions.py --check   # exit 1 when the module is not what it would write

Run it after adding a Ray release to ray-versions.txt. ``tests/serve_schema/test_serve_versions.py`` holds the
committed table against the same schemas (and against what Ray really does with an unknown key) in CI.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
OUTPUT = REPO_ROOT / "components" / "pulumi_kuberay" / "model" / "_serve_versions.py"
VERSIONS_FILE = REPO_ROOT / "tests" / "serve_schema" / "ray-versions.txt"
DUMP = REPO_ROOT / "tools" / "serve_schema_dump.py"

#: The key that replaces a deprecated one (Ray's descriptions say so in prose, not as data). The generator checks
#: that each replacement is a key of the same section in every release that deprecates the old one.
REPLACEMENTS: dict[tuple[str, str], str] = {
    ("deployment", "max_concurrent_queries"): "max_ongoing_requests",
    ("autoscaling_config", "target_num_ongoing_requests_per_replica"): "target_ongoing_requests",
    ("autoscaling_config", "upscale_smoothing_factor"): "upscaling_factor",
    ("autoscaling_config", "downscale_smoothing_factor"): "downscaling_factor",
}
#: Keys deprecated in favour of a key elsewhere (not in the same section): the replacement, as prose.
MOVED: dict[tuple[str, str], str] = {
    ("deployment", "route_prefix"): "the application's route_prefix",
    ("autoscaling_config", "smoothing_factor"): "upscaling_factor and downscaling_factor",
    ("autoscaling_config", "metrics_interval_s"): "the RAY_SERVE_*_AUTOSCALING_METRIC_PUSH_INTERVAL_S env vars",
}


def read_versions(path: Path = VERSIONS_FILE) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def venv_dir() -> Path:
    default = Path(os.environ.get("HOME", "~")) / ".cache" / "pulumi-kuberay" / "serve"
    return Path(os.environ.get("PULUMI_KUBERAY_SERVE_VENVS") or os.environ.get("PULUMI_KUBERAY_SERVE_CACHE") or default)


def dump_release(version: str, venvs: Path | None = None) -> dict[str, Any]:
    """Run the dump in the venv of ``version``; raises FileNotFoundError when that venv is missing."""
    python = (venvs or venv_dir()) / f"ray-{version}" / "bin" / "python"
    if not python.exists():
        raise FileNotFoundError(f"no venv for Ray {version} at {python.parent.parent} (run scripts/setup-serve-venvs)")
    # Importing Ray takes seconds: the dump is kept beside the venv, keyed by the dump script's content.
    digest = hashlib.sha256(DUMP.read_bytes()).hexdigest()[:16]
    cached = python.parent.parent / f".serve-schema-{digest}.json"
    if cached.exists():
        text = cached.read_text(encoding="utf-8")
    else:
        text = subprocess.run([str(python), str(DUMP)], check=True, capture_output=True, text=True).stdout
        cached.write_text(text, encoding="utf-8")
    dump: dict[str, Any] = json.loads(text)
    if dump["ray_version"] != version:
        raise RuntimeError(f"the venv of Ray {version} holds Ray {dump['ray_version']}")
    return dump


def is_deprecated(description: str) -> bool:
    return "deprecated" in description.lower()


def build_table(versions: list[str], dumps: list[dict[str, Any]]) -> dict[str, Any]:
    """Fold per-release dumps into {section: {"keys": {key: [first, last]}, "deprecated": {key: index},
    "forbids_extra": [index...]}} (indexes into ``versions``)."""
    table: dict[str, Any] = {}
    for index, dump in enumerate(dumps):
        for section, info in dump["sections"].items():
            entry = table.setdefault(section, {"keys": {}, "deprecated": {}, "forbids_extra": []})
            if info["extra"] == "forbid":
                entry["forbids_extra"].append(index)
            for name, field in info["fields"].items():
                key = field["alias"] or name
                span = entry["keys"].setdefault(key, [index, index])
                if span[1] != index - 1 and span[0] != index:
                    raise RuntimeError(f"{section}.{key} comes back in Ray {versions[index]}: not modelled")
                span[1] = index
                if is_deprecated(field["description"]):
                    entry.setdefault("marked", {}).setdefault(key, []).append(index)
    for entry in table.values():
        # Deprecated from the first release that says so, if every later release that has the key says so too: Ray
        # 2.10-2.55 copied max_concurrent_queries' "[DEPRECATED]" description onto max_queued_requests by mistake.
        for key, marked in entry.pop("marked", {}).items():
            last = entry["keys"][key][1]
            if last in marked:
                entry["deprecated"][key] = next(i for i in marked if all(j in marked for j in range(i, last + 1)))
    for (section, old), new in REPLACEMENTS.items():
        entry = table.get(section, {})
        if old not in entry.get("deprecated", {}):
            continue
        first_deprecated = entry["deprecated"][old]
        last = entry["keys"][old][1]
        new_span = entry["keys"].get(new)
        if new_span is None or new_span[0] > first_deprecated or new_span[1] < last:
            raise RuntimeError(f"{section}.{new} (replacing {old}) is not accepted wherever {old} is deprecated")
    return table


def render(versions: list[str], table: dict[str, Any]) -> str:
    lines = [
        '"""Which ``serveConfigV2`` keys each Ray release accepts: GENERATED by tools/gen_serve_versions.py from',
        "Ray's own ``ray.serve.schema`` / ``ray.serve.config`` of each release below; do not edit by hand (the test",
        'tests/serve_schema/test_serve_versions.py holds it against those schemas)."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Final",
        "",
        "#: The releases read, oldest first: every release from 2.9 on where a key appeared, was deprecated or went",
        "#: away, and the newest. A release between two of them has the schema of the older one.",
        "RAY_VERSIONS: Final[tuple[str, ...]] = (",
        *(f"    {v!r}," for v in versions),
        ")",
        "",
        "#: section -> key -> (first, last): indexes into RAY_VERSIONS of the first and the last release whose schema",
        "#: has the key (last == len(RAY_VERSIONS) - 1: the newest still has it).",
        "KEYS: Final[dict[str, dict[str, tuple[int, int]]]] = {",
    ]
    for section in sorted(table):
        lines.append(f"    {section!r}: {{")
        for key, (first, last) in sorted(table[section]["keys"].items()):
            lines.append(f"        {key!r}: ({first}, {last}),")
        lines.append("    },")
    lines += [
        "}",
        "",
        "#: section -> key -> index of the first release whose schema describes the key as deprecated.",
        "DEPRECATED: Final[dict[str, dict[str, int]]] = {",
    ]
    for section in sorted(table):
        deprecated = table[section]["deprecated"]
        if deprecated:
            lines.append(f"    {section!r}: {{")
            lines += [f"        {k!r}: {v}," for k, v in sorted(deprecated.items())]
            lines.append("    },")
    lines += [
        "}",
        "",
        "#: section -> indexes of the releases whose schema rejects a key it does not know (extra='forbid'); the",
        "#: others drop such a key without a word (pydantic's default, which Serve keeps for forward compatibility).",
        "FORBIDS_EXTRA: Final[dict[str, tuple[int, ...]]] = {",
    ]
    for section in sorted(table):
        lines.append(f"    {section!r}: {tuple(table[section]['forbids_extra'])!r},")
    lines += [
        "}",
        "",
        "#: (section, deprecated key) -> the key of the same section that replaces it.",
        "REPLACEMENTS: Final[dict[tuple[str, str], str]] = {",
    ]
    for (section, old), new in sorted(REPLACEMENTS.items()):
        lines.append(f"    ({section!r}, {old!r}): {new!r},")
    lines += ["}", "", "#: (section, deprecated key) -> where its setting moved (another section), as prose.",
              "MOVED: Final[dict[tuple[str, str], str]] = {"]
    for (section, old), where in sorted(MOVED.items()):
        lines.append(f"    ({section!r}, {old!r}): {where!r},")
    lines += ["}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 when the committed module differs")
    args = p.parse_args(argv)
    versions = read_versions()
    dumps = [dump_release(v) for v in versions]
    text = render(versions, build_table(versions, dumps))
    if args.check:
        return 0 if OUTPUT.read_text(encoding="utf-8") == text else 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(REPO_ROOT)} ({len(versions)} Ray releases)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
