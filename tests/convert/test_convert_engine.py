"""The newcomer's path on the real engine: ``kuberay-convert ray-cluster.autoscaler.yaml > __main__.py`` in a
fresh project, ``pulumi preview`` accepts it, and ``pulumi up`` (rendering to a directory, no cluster)
writes the same RayCluster as the sample (deliberate differences: ``_convert_roundtrip``).

Marked ``engine``; skipped with a message when no ``pulumi`` is on PATH (``eval "$(scripts/ensure-pulumi
--print-env)"`` provides one).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _convert_roundtrip import expected_manifest, registered_manifest
from _reference import REPO_ROOT, samples_dir

pytestmark = pytest.mark.engine

SAMPLE = "ray-cluster.autoscaler.yaml"
PULUMI_YAML = """name: converted
runtime:
  name: python
  options:
    toolchain: pip
    virtualenv: .venv
"""


def _pulumi(cwd: Path, state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update(
        PULUMI_BACKEND_URL=f"file://{state}",
        PULUMI_CONFIG_PASSPHRASE="test",
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        NO_COLOR="1",
    )
    env.pop("PULUMI_ACCESS_TOKEN", None)
    return subprocess.run(
        ["pulumi", *args, "--non-interactive", "--color", "never"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def test_a_converted_sample_previews_and_renders_the_same_raycluster(tmp_path: Path) -> None:
    if shutil.which("pulumi") is None:
        pytest.skip('no `pulumi` on PATH: run `eval "$(scripts/ensure-pulumi --print-env)"`')
    sample = samples_dir() / SAMPLE
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text(PULUMI_YAML)
    (project / ".venv").symlink_to(REPO_ROOT / ".venv", target_is_directory=True)
    convert = subprocess.run(
        [str(Path(sys.executable).with_name("kuberay-convert")), str(sample), "-o", str(project / "__main__.py")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert convert.returncode == 0, convert.stderr
    assert "ConfigMap 'ray-example' not converted" in convert.stderr
    state = tmp_path / "state"
    state.mkdir()
    for args in (("stack", "init", "dev"), ("config", "set", "kubernetes:renderYamlToDirectory", "rendered")):
        done = _pulumi(project, state, *args)
        assert done.returncode == 0, done.stdout + done.stderr
    preview = _pulumi(project, state, "preview", "--stack", "dev")
    assert preview.returncode == 0, preview.stdout[-4000:] + preview.stderr[-4000:]
    assert "kuberay:index:RayCluster" in preview.stdout
    up = _pulumi(project, state, "up", "--stack", "dev", "--yes", "--skip-preview")
    assert up.returncode == 0, up.stdout[-4000:] + up.stderr[-4000:]
    rendered = [d for p in sorted((project / "rendered").rglob("*.yaml")) for d in yaml.safe_load_all(p.read_text())]
    clusters = [d for d in rendered if d and d.get("kind") == "RayCluster"]
    original = next(d for d in yaml.safe_load_all(sample.read_text()) if d and d.get("kind") == "RayCluster")
    assert len(clusters) == 1
    assert registered_manifest(clusters[0]) == expected_manifest(original)
