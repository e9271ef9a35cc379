"""``scripts/dev-up`` in a clone of the project (own state, own ``rendered/``).

Offline, from a lone clone: no reference copy beside it and no route to the official chart repository. One line
says what is not rendered and why, one that the CRD stack is skipped; the Ray objects are rendered all the same.

With the reference chart: the CRD stack (``dev-crds``) is brought up on the first dev-up only, skipped by the
next while nothing it is made from changed (a line says so, its record and its history stay as they were), and
brought up again once its CRD files change.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import yaml

from engine.conftest import ENGINE_ENV, REPO_ROOT, copy_project, reference_operator_chart

#: What dev-up needs besides the program: its scripts, the config tool, the pins the venv check reads.
CLONE_EXTRAS = ("pyproject.toml", "constraints.txt", "tools/dev_config.py")


def _clone(tmp_path: Path) -> Path:
    # The clone shares the repository's .venv: bring it up to date here, so the clone's setup-venv finds it current.
    subprocess.run([str(REPO_ROOT / "scripts" / "setup-venv")], check=True, capture_output=True, timeout=900)
    clone = copy_project(tmp_path / "clone")
    shutil.copytree(REPO_ROOT / "scripts", clone / "scripts")
    for name in CLONE_EXTRAS:
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / name, clone / name)
    return clone


def _dev_up(clone: Path, env: dict[str, str]) -> list[str]:
    """Run the clone's dev-up; returns the lines it says itself (``dev-up: ...``)."""
    run = subprocess.run(
        [str(clone / "scripts" / "dev-up")], cwd=clone, env=env, capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return [line for line in run.stderr.splitlines() if line.startswith("dev-up:")]


def _env(reference: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_BACKEND", "PULUMI_CONFIG_PASSPHRASE"))}
    env["KUBERAY_REFERENCE_DIR"] = str(reference)
    # As for the tier's own pulumi commands (engine.conftest.ENGINE_ENV): dev-up's pulumi ups write only their final
    # checkpoint, which is all its record, its digest and `stack history` read. dev-up sets GOGC itself.
    env.update(ENGINE_ENV)
    return env


def test_dev_up_offline_without_the_reference_copy(tmp_path: Path, pulumi_cli: str) -> None:
    clone = _clone(tmp_path)
    env = _env(tmp_path / "no-reference-copy")
    env["PULUMI_KUBERAY_CHART_REPOSITORY"] = "http://127.0.0.1:9/kuberay-helm/"  # nothing listens: offline
    said = _dev_up(clone, env)
    assert said == [
        f"dev-up: the KubeRay operator is not rendered: its chart is neither in the reference copy "
        f"({tmp_path}/no-reference-copy/kuberay/v1.7.0/helm/kuberay-operator; set KUBERAY_REFERENCE_DIR) nor "
        "reachable at http://127.0.0.1:9/kuberay-helm/ (offline?); the Ray objects are rendered",
        "dev-up: CRD stack dev-crds skipped: the operator is left out",
    ]
    rendered = sorted(p.name for p in (clone / "rendered" / "dev").rglob("*.yaml"))
    assert rendered == ["ray.io_v1-raycluster-ray-dev-dev.yaml", "ray.io_v1-rayjob-ray-dev-hello.yaml"]
    assert not (clone / ".pulumi-state" / "dev-crds.applied").exists()
    assert not (clone / ".pulumi-state" / ".pulumi" / "stacks" / "pulumi-kuberay" / "dev-crds.json").exists()
    for name in ("Pulumi.dev.yaml", "Pulumi.dev-crds.yaml"):
        committed = yaml.safe_load((REPO_ROOT / "stacks" / name).read_text())["config"]
        assert yaml.safe_load((clone / "stacks" / name).read_text())["config"] == committed  # untouched
    assert pulumi_cli  # the engine tier's fixture: skipped (or failed in CI) without a pulumi


def _crd_stack_updates(clone: Path, env: dict[str, str], pulumi_cli: str) -> int:
    history = subprocess.run(
        [pulumi_cli, "stack", "history", "--stack", "dev-crds", "--json", "--non-interactive"],
        cwd=clone,
        env={
            **env,
            "PULUMI_BACKEND_URL": f"file://{clone / '.pulumi-state'}",
            "PULUMI_CONFIG_PASSPHRASE": "dev-only-passphrase",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return len(json.loads(history.stdout))


def test_dev_up_brings_the_crd_stack_up_only_when_its_crds_change(tmp_path: Path, pulumi_cli: str) -> None:
    clone = _clone(tmp_path)
    reference = tmp_path / "reference"
    chart = reference / "kuberay" / "v1.7.0" / "helm" / "kuberay-operator"
    shutil.copytree(reference_operator_chart(), chart)  # a copy whose CRD files this test may change
    env = _env(reference)
    record = clone / ".pulumi-state" / "dev-crds.applied"

    assert _dev_up(clone, env) == ["dev-up: CRD stack dev-crds brought up: no record of a successful up"]
    first = record.read_text()
    assert _crd_stack_updates(clone, env, pulumi_cli) == 1
    crd_dir = clone / "rendered" / "dev" / "0-crd"
    assert len(list(crd_dir.glob("*.yaml"))) == 4
    assert len(list((clone / "rendered" / "dev" / "1-manifest").glob("ray.io_v1-*.yaml"))) == 2

    # Nothing changed: the CRD stack is not run (no new update in its history), the record stays.
    assert _dev_up(clone, env) == [f"dev-up: CRD stack dev-crds skipped: unchanged since its last up ({record})"]
    assert record.read_text() == first
    assert _crd_stack_updates(clone, env, pulumi_cli) == 1

    # A CRD file of the chart changed: brought up again, and recorded anew.
    crd_file = chart / "crds" / "ray.io_rayjobs.yaml"
    crd_file.write_text(crd_file.read_text() + "# changed\n")
    assert _dev_up(clone, env) == [
        "dev-up: CRD stack dev-crds brought up: its CRDs, config, program or state changed since its last up"
    ]
    assert _crd_stack_updates(clone, env, pulumi_cli) == 2
    assert record.read_text() != first
    assert _dev_up(clone, env) == [f"dev-up: CRD stack dev-crds skipped: unchanged since its last up ({record})"]
