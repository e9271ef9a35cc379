"""The real-engine tier: the Pulumi CLI, our Python language host and the Kubernetes provider, fully offline.

Every test here is marked ``engine``. Without a ``pulumi`` on PATH the tier is skipped with a message; in CI
(``PULUMI_KUBERAY_REQUIRE_ENGINE=1``, set by ``.ci/run``) a missing engine is a failure instead, unless
``scripts/test`` found no way to get one (``PULUMI_KUBERAY_ENGINE=skipped``, it then printed a SKIPPED line).

Each test runs pulumi in a temporary copy of the project (Pulumi.yaml, __main__.py, settings.py, stacks/,
policies/ and a ``.venv`` symlink to the repository's venv, so ``virtualenv: .venv`` resolves), with a local
file backend in that copy, a test passphrase and no update checks: the repository's ``rendered/`` and
``.pulumi-state/`` are never touched and nothing is written to ``PULUMI_HOME`` (no ``pulumi login``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ENGINE_DIR = Path(__file__).resolve().parent
TESTS_DIR = ENGINE_DIR.parent
REPO_ROOT = TESTS_DIR.parent
REPO_VENV = REPO_ROOT / ".venv"
PROJECT_FILES = ("Pulumi.yaml", "__main__.py", "settings.py")
PROJECT_DIRS = ("stacks", "policies")
STACKS = ("dev", "staging", "prod")
#: A bound for one pulumi command that hangs, not for a slow one. Quiet, an ``up`` takes seconds; in CI every tier
#: shares 2 saturated cores, and a no-op ``up --expect-no-changes`` (preview, update, the policy pack's own Python
#: process) of dev-crds was once killed at 300 s while it was still making progress.
COMMAND_TIMEOUT = 900
#: Set for every pulumi command of the tiers (its CPU is what an engine test waits for; nothing asserted changes):
#:
#: * the file backend writes the whole checkpoint (every resource's inputs and outputs: ~10 MB with the four CRDs)
#:   before and after every step of an ``up``, on the step's path (``SnapshotManager.saveSnapshot``), and a backup
#:   copy per update. The tests read only the final checkpoint (stack outputs, history, the next run's state), which
#:   the engine still writes (``PULUMI_SKIP_CHECKPOINTS``): the CLI's CPU in an ``up`` of
#:   tests/engine/operator_program falls from 25 s to 8 s (``pulumi --profiling``);
#: * the CLI and the Kubernetes provider (Go) turn those megabytes into maps many times over: a quarter of the CLI's
#:   CPU in a preview was the garbage collector. ``GOGC=400`` (collect at 5x the live heap, not 2x) capped at 1 GiB
#:   of heap, as scripts/dev-up sets them, takes 20% off the CPU of an up and of a preview. Unless the caller set
#:   its own.
ENGINE_ENV = {"PULUMI_SKIP_CHECKPOINTS": "true", "PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS": "true"}
GO_GC = {"GOGC": "400", "GOMEMLIMIT": "1GiB"}


def _skip_reason() -> str | None:
    """Why the tier cannot run here (None: it can); fails instead where CI requires the engine."""
    if shutil.which("pulumi") is not None:
        return None
    required = os.environ.get("PULUMI_KUBERAY_REQUIRE_ENGINE") == "1"
    state = os.environ.get("PULUMI_KUBERAY_ENGINE", "")
    if required and state != "skipped":
        return None  # the `pulumi_cli` fixture fails loudly
    return (
        "real-engine tier skipped: no `pulumi` on PATH "
        '(run `eval "$(scripts/ensure-pulumi --print-env)"` or scripts/test, which builds it)'
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = _skip_reason()
    for item in items:
        if ENGINE_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.engine)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def pulumi_cli() -> str:
    path = shutil.which("pulumi")
    if path is None:
        pytest.fail(
            "PULUMI_KUBERAY_REQUIRE_ENGINE=1 but no `pulumi` on PATH: scripts/ensure-pulumi should have put it "
            "there (PULUMI_KUBERAY_ENGINE=" + os.environ.get("PULUMI_KUBERAY_ENGINE", "<unset>") + ")",
            pytrace=False,
        )
    if not (REPO_VENV / "bin" / "python").exists():
        pytest.fail(f"{REPO_VENV} is missing: run scripts/setup-venv", pytrace=False)
    return path


@dataclass
class Run:
    args: Sequence[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def describe(self) -> str:
        return f"$ pulumi {' '.join(self.args)}\n(exit {self.returncode})\n{self.output[-6000:]}"


@dataclass
class Workspace:
    """A temporary pulumi project directory with its own file backend."""

    cwd: Path
    state: Path
    cli: str
    #: Set over the test process's environment (the newest lane: its PATH, PULUMI_HOME, ...).
    extra_env: dict[str, str] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.extra_env)
        env.update(
            PULUMI_BACKEND_URL=f"file://{self.state}",
            PULUMI_CONFIG_PASSPHRASE="test",
            PULUMI_SKIP_UPDATE_CHECK="true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
            NO_COLOR="1",
            **ENGINE_ENV,
        )
        for key, value in GO_GC.items():
            env.setdefault(key, value)
        env.pop("PULUMI_ACCESS_TOKEN", None)
        env.pop("PULUMI_CONFIG_PASSPHRASE_FILE", None)
        return env

    def pulumi(self, *args: str, check: bool = False, timeout: float = COMMAND_TIMEOUT) -> Run:
        proc = subprocess.run(
            [self.cli, *args, "--non-interactive", "--color", "never"],
            cwd=self.cwd,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        run = Run(args, proc.returncode, proc.stdout, proc.stderr)
        if check and run.returncode != 0:
            pytest.fail(run.describe(), pytrace=False)
        return run

    def init_stack(self, stack: str) -> None:
        self.pulumi("stack", "init", stack, check=True)


_SALT = re.compile(r"^encryptionsalt:.*\n?", re.MULTILINE)


def _drop_salt(stack_file: Path) -> None:
    """A committed ``encryptionsalt`` belongs to the dev-up passphrase; the copy gets one for ``test``."""
    stack_file.write_text(_SALT.sub("", stack_file.read_text()))


def reference_operator_chart() -> Path:
    """The upstream kuberay-operator chart (v1.7.0) in the reference material (skips without it)."""
    from _reference import require_reference

    return require_reference() / "kuberay" / "v1.7.0" / "helm" / "kuberay-operator"


def copy_project(root: Path, venv: Path = REPO_VENV) -> Path:
    """A copy of the project in ``root`` (``.venv`` symlinked to ``venv``, the repository's unless the newest lane
    gives its own); returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        shutil.copy2(REPO_ROOT / name, root / name)
    for name in PROJECT_DIRS:
        shutil.copytree(REPO_ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for stack_file in (root / "stacks").glob("Pulumi.*.yaml"):
        _drop_salt(stack_file)
    (root / ".venv").symlink_to(venv, target_is_directory=True)
    return root


def make_workspace(
    root: Path, cli: str, program: Path | None = None, extra_env: dict[str, str] | None = None
) -> Workspace:
    state = root / "state"
    state.mkdir(parents=True, exist_ok=True)
    return Workspace(cwd=program or root, state=state, cli=cli, extra_env=dict(extra_env or {}))


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory, pulumi_cli: str) -> Workspace:
    """A project copy with dev, staging and prod initialised; staging and prod render to a directory.

    staging and prod have no ``render_dir`` (they target a real cluster through ``kube_context``); settings.py
    and ``build_provider`` in __main__.py pick a rendering provider whenever ``pulumi-kuberay:render_dir`` is
    set, so the copy sets it (``rendered/<stack>``) and their previews need no cluster. prod installs the
    operator chart from the official repository, out of reach here: the copy points it at the same chart in
    the reference material.
    """
    workspace = make_workspace(copy_project(tmp_path_factory.mktemp("project")), pulumi_cli)
    for stack in STACKS:
        workspace.init_stack(stack)
    for stack in ("staging", "prod"):
        workspace.pulumi(
            "config", "set", "--stack", stack, "pulumi-kuberay:render_dir", f"rendered/{stack}", check=True
        )
    # prod installs the operator chart from the official repository; there is no network here, so the copy
    # takes the same chart from the reference copy (prod's other operator settings are unchanged).
    workspace.pulumi(
        "config", "set", "--stack", "prod", "--path", "pulumi-kuberay:operator.chart", str(reference_operator_chart()),
        check=True,
    )
    return workspace


def policy_args(workspace_root: Path, env: str) -> list[str]:
    return [
        "--policy-pack",
        str(workspace_root / "policies"),
        "--policy-pack-config",
        str(workspace_root / "stacks" / f"policy.{env}.json"),
    ]
