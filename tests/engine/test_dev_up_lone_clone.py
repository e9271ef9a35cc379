"""``scripts/dev-up`` from a lone clone, offline: no reference copy beside it and no route to the official chart
repository. One line says what is not rendered and why; the Ray objects are rendered all the same."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import yaml

from engine.conftest import REPO_ROOT, copy_project

#: What dev-up needs besides the program: its scripts, the config tool, the pins the venv check reads.
CLONE_EXTRAS = ("pyproject.toml", "constraints.txt", "tools/dev_config.py")


def test_dev_up_offline_without_the_reference_copy(tmp_path: Path, pulumi_cli: str) -> None:
    # The clone shares the repository's .venv: bring it up to date here, so the clone's setup-venv finds it current.
    subprocess.run([str(REPO_ROOT / "scripts" / "setup-venv")], check=True, capture_output=True, timeout=900)
    clone = copy_project(tmp_path / "clone")
    shutil.copytree(REPO_ROOT / "scripts", clone / "scripts")
    for name in CLONE_EXTRAS:
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / name, clone / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_BACKEND", "PULUMI_CONFIG_PASSPHRASE"))}
    env["KUBERAY_REFERENCE_DIR"] = str(tmp_path / "no-reference-copy")
    env["PULUMI_KUBERAY_CHART_REPOSITORY"] = "http://127.0.0.1:9/kuberay-helm/"  # nothing listens: offline
    run = subprocess.run(
        [str(clone / "scripts" / "dev-up")], cwd=clone, env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    said = [line for line in run.stderr.splitlines() if line.startswith("dev-up:")]
    assert said == [
        f"dev-up: the KubeRay operator is not rendered: its chart is neither in the reference copy "
        f"({tmp_path}/no-reference-copy/kuberay/v1.7.0/helm/kuberay-operator; set KUBERAY_REFERENCE_DIR) nor "
        "reachable at http://127.0.0.1:9/kuberay-helm/ (offline?); the Ray objects are rendered"
    ]
    rendered = sorted(p.name for p in (clone / "rendered" / "dev").rglob("*.yaml"))
    assert rendered == ["ray.io_v1-raycluster-ray-dev-dev.yaml", "ray.io_v1-rayjob-ray-dev-hello.yaml"]
    committed = yaml.safe_load((REPO_ROOT / "stacks" / "Pulumi.dev.yaml").read_text())["config"]
    assert yaml.safe_load((clone / "stacks" / "Pulumi.dev.yaml").read_text())["config"] == committed  # untouched
    assert pulumi_cli  # the engine tier's fixture: skipped (or failed in CI) without a pulumi
