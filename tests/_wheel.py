"""The built wheel in a fresh virtual environment outside the repository: one per test session (the ``fresh``
fixture of ``tests/conftest.py``), shared by tests/test_wheel.py and tests/test_docs.py.

Slow (a wheel build and a venv install from the pip cache, about a minute).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from engine.conftest import Workspace

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 900


@dataclass(frozen=True)
class FreshVenv:
    wheel: Path
    root: Path  # the venv
    workdir: Path  # an empty working directory outside the repository

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    def env(self) -> dict[str, str]:
        # PYTHONDONTWRITEBYTECODE dropped too: the venvs are installed --no-compile, so the first run of a module
        # compiles it once into the venv (compiling all of site-packages at install took most of its CPU)
        dropped = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in dropped}
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"  # as `source venv/bin/activate` does
        env["VIRTUAL_ENV"] = str(self.root)
        return env

    def run(self, *args: str, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            list(args), cwd=cwd or self.workdir, env=self.env(), capture_output=True, text=True, timeout=TIMEOUT
        )
        if check and proc.returncode != 0:
            pytest.fail(f"$ {' '.join(args)}\n(exit {proc.returncode})\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return proc


def build_fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> FreshVenv:
    """The wheel built from the tracked files, installed with ``[policy]`` and the pinned versions."""
    base = tmp_path_factory.mktemp("wheel")
    dist, build = base / "dist", base / "build-src"
    # build from a clean copy of the tracked files (no stale build/ or egg-info in the work tree)
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    for name in filter(None, files):
        source = REPO / name
        target = build / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        elif source.is_file():
            shutil.copy2(source, target)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(build)],
        check=True,
        timeout=TIMEOUT,
        capture_output=True,
    )
    wheel = next(dist.glob("pulumi_kuberay-*.whl"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=TIMEOUT)
    # --no-compile: the modules the tests import are compiled when first imported (FreshVenv.env), not all of
    # site-packages (pulumi_kubernetes alone is thousands of modules): ~8 s less CPU
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-compile",
            "-c",
            str(REPO / "constraints.txt"),
            f"{wheel}[policy]",
        ],
        check=True,
        timeout=TIMEOUT,
        capture_output=True,
    )
    workdir = base / "work"
    workdir.mkdir()
    return FreshVenv(wheel, venv, workdir)


def engine_project(
    fresh: FreshVenv, monkeypatch: pytest.MonkeyPatch, name: str, program: str, *, pulumi_yaml: str | None = None
) -> Workspace:
    """A Pulumi project of its own in the fresh venv's working directory, run by the real engine (file backend)."""
    pulumi = shutil.which("pulumi")
    if pulumi is None:
        if (
            os.environ.get("PULUMI_KUBERAY_REQUIRE_ENGINE") == "1"
            and os.environ.get("PULUMI_KUBERAY_ENGINE") != "skipped"
        ):
            pytest.fail("no `pulumi` on PATH although the engine tier is required", pytrace=False)
        pytest.skip('no `pulumi` on PATH (run `eval "$(scripts/ensure-pulumi --print-env)"` or scripts/test)')
    project = fresh.workdir / name
    project.mkdir()
    (project / "Pulumi.yaml").write_text(
        pulumi_yaml
        or f"name: {name}\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: {fresh.root}\n"
    )
    (project / "__main__.py").write_text(program)
    state = fresh.workdir / f"{name}-state"
    state.mkdir()
    # the engine starts the program and the pack with the `python` first on PATH: the fresh venv's, as after
    # `activate`
    for key, value in fresh.env().items():
        monkeypatch.setenv(key, value)
    for key in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE"):  # bytecode: see FreshVenv.env
        monkeypatch.delenv(key, raising=False)
    return Workspace(cwd=project, state=state, cli=pulumi)


def readme_block(marker: str) -> str:
    """The code block after ``<!-- own-project:MARKER -->`` in the README (its quickstart)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- own-project:{re.escape(marker)} -->\n```\w*\n(.*?)```", text, re.DOTALL)
    assert found, f"README.md has no code block marked own-project:{marker}"
    return found.group(1)


#: The README's quickstart program: the tests run what a reader copies.
OWN_PROGRAM = readme_block("__main__.py")
