"""The newcomer's path on the real engine: ``kuberay-convert ray-cluster.autoscaler.yaml > __main__.py`` in a
fresh project, ``pulumi preview`` accepts it, and ``pulumi up`` (rendering to a directory, no cluster)
writes the same RayCluster as the sample (deliberate differences: ``_convert_roundtrip``).

Marked ``engine``; skipped (or failed, where CI requires the engine) as the engine tier is, through
``tests/engine/conftest.py``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _convert_roundtrip import expected_manifest, registered_manifest
from _reference import REPO_ROOT, samples_dir
from engine.conftest import _skip_reason, make_workspace

# The engine tier's rule: skipped with a message without `pulumi`, a failure where CI requires the engine.
_SKIP = _skip_reason()
pytestmark = [pytest.mark.engine, pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")]

SAMPLE = "ray-cluster.autoscaler.yaml"
PULUMI_YAML = """name: converted
runtime:
  name: python
  options:
    toolchain: pip
    virtualenv: .venv
"""


def test_a_converted_sample_previews_and_renders_the_same_raycluster(tmp_path: Path) -> None:
    pulumi_cli = shutil.which("pulumi")
    if pulumi_cli is None:  # not skipped, so CI requires the engine
        pytest.fail("the engine is required (PULUMI_KUBERAY_REQUIRE_ENGINE=1) but no `pulumi` on PATH", pytrace=False)
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
    workspace = make_workspace(tmp_path, pulumi_cli, program=project)
    workspace.init_stack("dev")
    workspace.pulumi("config", "set", "--stack", "dev", "kubernetes:renderYamlToDirectory", "rendered", check=True)
    preview = workspace.pulumi("preview", "--stack", "dev")
    assert preview.returncode == 0, preview.describe()
    assert "kuberay:index:RayCluster" in preview.output
    up = workspace.pulumi("up", "--stack", "dev", "--yes", "--skip-preview")
    assert up.returncode == 0, up.describe()
    rendered = [d for p in sorted((project / "rendered").rglob("*.yaml")) for d in yaml.safe_load_all(p.read_text())]
    clusters = [d for d in rendered if d and d.get("kind") == "RayCluster"]
    original = next(d for d in yaml.safe_load_all(sample.read_text()) if d and d.get("kind") == "RayCluster")
    assert len(clusters) == 1
    assert registered_manifest(clusters[0]) == expected_manifest(original)
