"""Hold the generated Serve key table (``model/_serve_versions.py``) against Ray's own schemas, release by release.

Each release of ``tests/serve_schema/ray-versions.txt`` has a venv built by ``scripts/setup-serve-venvs`` (found
through ``PULUMI_KUBERAY_SERVE_VENVS``, default ``~/.cache/pulumi-kuberay/serve``). For each release present:

* the keys its ``ray.serve.schema`` / ``ray.serve.config`` models have, which of them it calls deprecated, and
  which sections refuse unknown keys are exactly the table's column for that release;
* what the release really does with a key (``probe_serve_keys.py`` parses a minimal config as the dashboard does):
  an unknown key is dropped, or refused where the table says the section forbids extras; the renamed and removed
  keys real manifests carry (``max_concurrent_queries``, ``target_num_ongoing_requests_per_replica``, ...) are
  kept where the table says the release has them and dropped elsewhere.

Without a venv the release is skipped; with ``PULUMI_KUBERAY_REQUIRE_SERVE_VERSIONS=1`` (set by .ci/run) a missing
venv fails instead. Cost: about 5 s per release (importing Ray); the venvs take about 2 min cold with uv.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pulumi_kuberay.model._serve_versions import DEPRECATED, FORBIDS_EXTRA, KEYS, RAY_VERSIONS

HERE = Path(__file__).resolve().parent
PROBE = HERE / "probe_serve_keys.py"
VERSIONS_FILE = HERE / "ray-versions.txt"
REQUIRE = os.environ.get("PULUMI_KUBERAY_REQUIRE_SERVE_VERSIONS") == "1"

#: Keys real manifests carry that some releases dropped, with a value every release that has them accepts.
KNOWN_VALUES: dict[tuple[str, str], Any] = {
    ("deployment", "max_concurrent_queries"): 5,
    ("deployment", "max_ongoing_requests"): 5,
    ("autoscaling_config", "target_num_ongoing_requests_per_replica"): 2,
    ("autoscaling_config", "target_ongoing_requests"): 2,
    ("ray_actor_options", "object_store_memory"): 1000000,
    ("grpc_options", "request_timeout_s"): 5,
}
SECTIONS = sorted(KEYS)


def _venvs() -> Path:
    default = Path.home() / ".cache" / "pulumi-kuberay" / "serve"
    return Path(os.environ.get("PULUMI_KUBERAY_SERVE_VENVS") or default)


def _listed() -> list[str]:
    lines = VERSIONS_FILE.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _probes() -> list[dict[str, Any]]:
    probes = [{"section": s, "key": "no_such_key_in_any_release", "value": 1} for s in SECTIONS]
    probes += [{"section": s, "key": k, "value": v} for (s, k), v in KNOWN_VALUES.items()]
    return probes


@pytest.fixture(scope="module")
def probe_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve") / "probes.json"
    path.write_text(json.dumps(_probes()), encoding="utf-8")
    return path


def test_the_table_lists_the_releases_of_ray_versions_txt() -> None:
    assert list(RAY_VERSIONS) == _listed(), "ray-versions.txt changed: run tools/gen_serve_versions.py"


@pytest.mark.parametrize("index", range(len(RAY_VERSIONS)), ids=list(RAY_VERSIONS))
def test_table_matches_ray_release(index: int, probe_file: Path) -> None:
    version = RAY_VERSIONS[index]
    python = _venvs() / f"ray-{version}" / "bin" / "python"
    if not python.exists():
        message = f"no venv for Ray {version} under {_venvs()}: run scripts/setup-serve-venvs"
        if REQUIRE:
            pytest.fail(message)
        pytest.skip(message)
    out = subprocess.run([str(python), str(PROBE), str(probe_file)], check=True, capture_output=True, text=True)
    result = json.loads(out.stdout)
    dump = result["dump"]
    assert dump["ray_version"] == version
    for section in SECTIONS:
        info = dump["sections"].get(section)
        has = {f["alias"] or name for name, f in info["fields"].items()} if info else set()
        expected = {key for key, (first, last) in KEYS[section].items() if first <= index <= last}
        assert has == expected, f"Ray {version} {section}: schema has {sorted(has ^ expected)} unlike the table"
        deprecated = {key for key, since in DEPRECATED.get(section, {}).items() if since <= index and key in has}
        fields = info["fields"] if info else {}
        described = {f["alias"] or name for name, f in fields.items() if "deprecated" in f["description"].lower()}
        # the table may leave out a key whose description wrongly says deprecated (fixed in a later release)
        assert deprecated <= described, f"Ray {version} {section}: {sorted(deprecated - described)} not deprecated"
        if info is not None:
            assert (info["extra"] == "forbid") == (index in FORBIDS_EXTRA[section]), f"Ray {version} {section} extras"
    for probe, seen in zip(_probes(), result["probes"], strict=True):
        section, key = probe["section"], probe["key"]
        span = KEYS[section].get(key)
        if span is not None and span[0] <= index <= span[1]:
            expected_seen = "accepted"
        else:
            expected_seen = "rejected" if index in FORBIDS_EXTRA[section] else "dropped"
        assert seen == expected_seen, f"Ray {version}: {section}.{key} is {seen}, the table says {expected_seen}"
