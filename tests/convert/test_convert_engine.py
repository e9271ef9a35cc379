"""The newcomer's path on the real engine: ``kuberay-convert ray-cluster.autoscaler.yaml > __main__.py`` in a
fresh project, ``pulumi preview`` accepts it, and ``pulumi up`` (rendering to a directory, no cluster)
writes the same objects as the input (deliberate differences: ``_convert_roundtrip``); also for a RayService,
a RayJob and Helm values.

Marked ``engine``; skipped (or failed, where CI requires the engine) as the engine tier is, through
``tests/engine/conftest.py``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from _convert_roundtrip import expected_manifest, registered_manifest
from _reference import REPO_ROOT, require_reference
from engine.conftest import _skip_reason, make_workspace
from pulumi_kuberay.convert import is_ray
from pulumi_kuberay.convert.helm import render_values, replace_helm_labels

# The engine tier's rule: skipped with a message without `pulumi`, a failure where CI requires the engine.
_SKIP = _skip_reason()
pytestmark = [pytest.mark.engine, pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")]

PULUMI_YAML = """name: converted
runtime:
  name: python
  options:
    toolchain: pip
    virtualenv: .venv
"""


#: (input under the reference folder, extra kuberay-convert arguments): a cluster with a ConfigMap beside it,
#: a RayService (typed ServeConfig) and a RayJob, and the ray-cluster chart's CI values.
INPUTS = [
    ("kuberay/v1.7.0/samples/ray-cluster.autoscaler.yaml", ()),
    ("kuberay/v1.7.0/samples/ray-service.sample.yaml", ()),
    ("kuberay/v1.7.0/samples/ray-job.sample.yaml", ()),
    ("kuberay/v1.7.0/helm/ray-cluster/ci/ci-values.yaml", ("--from", "helm-values", "--namespace", "ml")),
]


@pytest.mark.parametrize(("source", "extra"), INPUTS, ids=[Path(s).name for s, _ in INPUTS])
def test_converted_input_previews_and_renders_the_same_objects(
    tmp_path: Path, source: str, extra: tuple[str, ...]
) -> None:
    pulumi_cli = shutil.which("pulumi")
    if pulumi_cli is None:  # not skipped, so CI requires the engine
        pytest.fail("the engine is required (PULUMI_KUBERAY_REQUIRE_ENGINE=1) but no `pulumi` on PATH", pytrace=False)
    path = require_reference() / source
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text(PULUMI_YAML)
    (project / ".venv").symlink_to(REPO_ROOT / ".venv", target_is_directory=True)
    convert = subprocess.run(
        [str(Path(sys.executable).with_name("kuberay-convert")), str(path), *extra, "-o", str(project / "__main__.py")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert convert.returncode == 0, convert.stderr
    if extra:
        from_values = render_values(yaml.safe_load(path.read_text()) or {}, namespace="ml")
        replace_helm_labels(from_values)  # the deliberate difference: Helm's own labels are false under Pulumi
        originals: list[Any] = [from_values]
    else:
        originals = [d for d in yaml.safe_load_all(path.read_text()) if is_ray(d)]
    workspace = make_workspace(tmp_path, pulumi_cli, program=project)
    workspace.init_stack("dev")
    workspace.pulumi("config", "set", "--stack", "dev", "kubernetes:renderYamlToDirectory", "rendered", check=True)
    preview = workspace.pulumi("preview", "--stack", "dev")
    assert preview.returncode == 0, preview.describe()
    assert all(f"kuberay:index:{doc['kind']}" in preview.output for doc in originals)
    up = workspace.pulumi("up", "--stack", "dev", "--yes", "--skip-preview")
    assert up.returncode == 0, up.describe()
    rendered = [d for p in sorted((project / "rendered").rglob("*.yaml")) for d in yaml.safe_load_all(p.read_text())]
    got = {(d["kind"], d["metadata"]["name"]): registered_manifest(d) for d in rendered if is_ray(d)}
    want = {(d["kind"], expected_manifest(d)["metadata"]["name"]): expected_manifest(d) for d in originals}
    assert got == want
