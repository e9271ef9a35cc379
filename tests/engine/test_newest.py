"""The newest lane: a few engine tests at the newest Pulumi a user can install (constraints-newest.txt), beside the
tier's pinned versions (constraints.txt).

- the newest CLI the Go module proxy serves (scripts/ensure-pulumi --newest) with its YAML host
  (scripts/ensure-langhosts --newest), and ``.venv-newest`` with PyPI's newest ``pulumi``, ``pulumi-kubernetes`` and
  ``pulumi-policy`` (scripts/setup-venv --newest); scripts/test passes them as ``PULUMI_KUBERAY_NEWEST_BIN``,
  ``PULUMI_KUBERAY_NEWEST_HOME`` and ``PULUMI_KUBERAY_NEWEST_PYTHON``;
- the Kubernetes provider binary is the newest the proxy serves, 4.25.0, older than PyPI's SDK: the SDK asks the
  engine for its own version, which no plugin directory here has, so the binary is on PATH, where the engine takes
  a provider of any version and says so (``warning: using pulumi-resource-kubernetes from $PATH``);
- what runs: the project's Python program (the dev stack) previewed with the policy pack and rendered; the
  non-compliant program blocked by the pack (pulumi-policy's enforcement levels); the component package from YAML
  and the same program in Python, rendered byte for byte alike (the YAML host and the component provider on the
  newest engine). The rest of the tier runs at the pinned versions only (the CI budget).

Scheduled in the ``engine-2`` unit (tests/_live_scheduling.py), which ends before the cluster units.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.conftest import ENGINE_DIR, REPO_ROOT, Workspace, copy_project, make_workspace, policy_args
from engine.test_package_yaml import package_root, ray_objects, run_example
from engine.test_policy_enforcement import assert_prod_levels
from engine.test_up_dev import EXPECTED_FILES, RENDER_DIR

pytestmark = [pytest.mark.newest]

NEWEST_FILE = REPO_ROOT / "constraints-newest.txt"
#: Printed by the engine when it runs a provider found on PATH instead of the plugin version the SDK asked for.
AMBIENT_WARNING = "using pulumi-resource-kubernetes from $PATH"


def newest_pins() -> dict[str, str]:
    """constraints-newest.txt: the PyPI pins (``pulumi``, ...) and the Go builds (``go: pulumi-cli``, ...)."""
    pins: dict[str, str] = {}
    for line in NEWEST_FILE.read_text().splitlines():
        match = re.match(r"^(# go: )?([A-Za-z0-9_.-]+)==([^\s#;]+)", line)
        if match:
            pins[("go: " if match[1] else "") + match[2]] = match[3]
    return pins


@dataclass(frozen=True)
class Lane:
    cli: str
    home: Path
    python: Path
    provider: Path  # the Kubernetes provider binary in the lane's PULUMI_HOME

    @property
    def venv(self) -> Path:
        return self.python.parent.parent

    def env(self) -> dict[str, str]:
        """Over the test process's environment (the pinned engine's): the lane's CLI and provider first on PATH,
        its PULUMI_HOME, and ambient plugins allowed (the pinned engine's environment turns them off)."""
        path = os.pathsep.join((str(Path(self.cli).parent), str(self.provider.parent), os.environ.get("PATH", "")))
        return {"PATH": path, "PULUMI_HOME": str(self.home), "PULUMI_IGNORE_AMBIENT_PLUGINS": "false"}

    def workspace(self, root: Path, program: Path | None = None) -> Workspace:
        return make_workspace(root, self.cli, program=program, extra_env=self.env())


@pytest.fixture(scope="module")
def lane() -> Lane:
    names = ("PULUMI_KUBERAY_NEWEST_BIN", "PULUMI_KUBERAY_NEWEST_HOME", "PULUMI_KUBERAY_NEWEST_PYTHON")
    values = [os.environ.get(name, "") for name in names]
    if not all(values):
        message = (
            "the newest lane is not set up: scripts/test builds it when tests/engine/test_newest.py is selected "
            f"(scripts/ensure-langhosts --newest, scripts/setup-venv --newest; needs {', '.join(names)})"
        )
        required = os.environ.get("PULUMI_KUBERAY_REQUIRE_ENGINE") == "1"
        if required and os.environ.get("PULUMI_KUBERAY_NEWEST") != "skipped":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    bin_dir, home, python = (Path(v) for v in values)
    k8s = newest_pins()["go: pulumi-resource-kubernetes"]
    provider = home / "plugins" / f"resource-kubernetes-v{k8s}" / "pulumi-resource-kubernetes"
    assert provider.is_file(), f"{provider} is missing (scripts/ensure-pulumi --newest installs it)"
    return Lane(cli=str(bin_dir / "pulumi"), home=home, python=python, provider=provider)


def test_the_lane_runs_the_versions_of_constraints_newest(lane: Lane) -> None:
    pins = newest_pins()
    version = subprocess.run(
        [lane.cli, "version"], env={**os.environ, **lane.env()}, capture_output=True, text=True, check=True
    )
    assert version.stdout.strip() == "v" + pins["go: pulumi-cli"]
    script = "import importlib.metadata as m, sys; print(*(m.version(n) for n in sys.argv[1:]))"
    names = ["pulumi", "pulumi-kubernetes", "pulumi-policy"]
    installed = subprocess.run([str(lane.python), "-c", script, *names], capture_output=True, text=True, check=True)
    assert dict(zip(names, installed.stdout.split(), strict=True)) == {name: pins[name] for name in names}
    # the package under test is this checkout (editable), not a copy
    where = subprocess.run(
        [str(lane.python), "-c", "import pulumi_kuberay; print(pulumi_kuberay.__file__)"],
        capture_output=True, text=True, check=True,
    )
    assert Path(where.stdout.strip()) == REPO_ROOT / "components" / "pulumi_kuberay" / "__init__.py"


def test_python_program_previews_with_the_pack_and_renders(tmp_path: Path, lane: Lane) -> None:
    from _reference import crd_schema, require_reference
    from conformance.openapi import validate

    require_reference()
    workspace = lane.workspace(copy_project(tmp_path / "project", lane.venv))
    workspace.init_stack("dev")
    pack = policy_args(workspace.cwd, "dev")
    preview = workspace.pulumi("preview", "--stack", "dev", *pack)
    assert preview.returncode == 0, preview.describe()
    assert "kuberay-policies" in preview.output, preview.describe()  # the pack ran
    assert AMBIENT_WARNING in preview.output, preview.describe()  # the 4.25.0 binary, named
    up = workspace.pulumi("up", "--stack", "dev", "--yes", "--skip-preview", *pack)
    assert up.returncode == 0, up.describe()
    render_dir = workspace.cwd / RENDER_DIR
    ray_files = {str(p.relative_to(render_dir)) for p in render_dir.rglob("*.yaml") if "/ray.io_v1-" in str(p)}
    assert ray_files == set(EXPECTED_FILES)
    for rel, (kind, name) in EXPECTED_FILES.items():
        doc = yaml.safe_load((render_dir / rel).read_text())
        assert (doc["apiVersion"], doc["kind"], doc["metadata"]["name"]) == ("ray.io/v1", kind, name)
        assert doc["metadata"]["namespace"] == "ray-dev"
        assert validate(doc, crd_schema(kind)) == [], rel


def test_the_pack_blocks_the_mandatory_violations(tmp_path: Path, lane: Lane) -> None:
    root = copy_project(tmp_path / "noncompliant", lane.venv)
    program = root / "tests" / "engine" / "noncompliant"  # its `virtualenv: ../../../.venv` reaches the symlink
    shutil.copytree(ENGINE_DIR / "noncompliant", program, ignore=shutil.ignore_patterns("__pycache__"))
    workspace = lane.workspace(root, program)
    workspace.init_stack("ci")
    run = workspace.pulumi("preview", "--stack", "ci", *policy_args(root, "prod"))
    assert_prod_levels(run)
    # Unlike 3.259, CLI 3.277 interrupts the program once a mandatory policy fails, and Pulumi's own launcher
    # (pulumi-language-python-exec) prints the KeyboardInterrupt's traceback: no frame of it is this project's code.
    frames = re.findall(r'File "([^"]+)"', run.output)
    assert all(frame.endswith("pulumi-language-python-exec") for frame in frames), run.describe()


def test_yaml_example_renders_what_python_renders(tmp_path: Path, lane: Lane) -> None:
    if not any(lane.home.glob("plugins/language-yaml-v*/pulumi-language-yaml")):
        pytest.fail(f"no YAML language host in {lane.home}: scripts/ensure-langhosts --newest installs it")
    root = package_root(tmp_path / "package", lane.venv)
    runs: dict[str, Any] = {}
    for language in ("yaml", "python"):
        program = root / "examples" / language
        preview, up = run_example(lane.workspace(root, program), "ci")
        assert preview.returncode == 0, preview.describe()
        assert up is not None and up.returncode == 0, up.describe()
        runs[language] = ray_objects(program / "rendered")
    assert sorted(runs["yaml"]) == sorted(runs["python"]) and len(runs["yaml"]) == 2, sorted(runs["yaml"])
    for name, body in runs["python"].items():
        assert runs["yaml"][name] == body, f"{name}:\n--- python\n{body.decode()}\n--- yaml\n{runs['yaml'][name]!r}"
    job = next(yaml.safe_load(b) for b in runs["yaml"].values() if b"kind: RayJob" in b)
    assert job["metadata"]["namespace"] == "ray"
    assert job["spec"]["clusterSelector"] == {"ray.io/cluster": "shared"}
