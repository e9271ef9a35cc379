"""``pulumi package add`` from a Git repository (docs/languages.md, "From a Git repository"), on the real CLI.

The CLI takes ``https://``, ``git://`` or ``host/owner/repo/path`` as a Git repository (sdk ``workspace``'s
``parsePluginSpecFromURL``) and nothing else: a ``file://`` URL of a local bare repository, the offline stand-in
for a Git host, is not a Git URL to it (``plugin.IsLocalPluginPath`` takes what that parser refuses for a path), so
it looks for a directory named ``file:///...`` and clones nothing; an ``https://`` URL is taken as a Git repository
(the CLI asks the host for its refs, here a loopback port where nothing listens, so it cannot reach it). The clone
itself needs a Git host over HTTPS, out of reach on this project's machines (no network but the package
registries): not run here.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from engine.conftest import REPO_ROOT, Workspace, make_workspace


@pytest.fixture
def program(tmp_path: Path, pulumi_cli: str) -> Workspace:
    """An empty YAML project: the URL is parsed before any language host is asked."""
    root = tmp_path / "my-ray"
    root.mkdir()
    (root / "Pulumi.yaml").write_text("name: my-ray\nruntime: yaml\n")
    return make_workspace(root, pulumi_cli)


def bare_repository(where: Path) -> Path:
    """A bare Git repository holding provider/ (one commit, tag v0.1.0): ``<where>/kuberay.git``."""
    work = where / "work"
    shutil.copytree(REPO_ROOT / "provider", work / "provider", ignore=shutil.ignore_patterns("__pycache__"))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "provider"], ["tag", "v0.1.0"]):
        subprocess.run([*git, *args], cwd=work, check=True, capture_output=True)
    bare = where / "kuberay.git"
    subprocess.run([*git, "clone", "-q", "--bare", str(work), str(bare)], check=True, capture_output=True)
    return bare


def test_a_file_url_of_a_local_repository_is_taken_for_a_path(tmp_path: Path, program: Workspace) -> None:
    bare = bare_repository(tmp_path)
    url = f"file://{bare}/provider"
    run = program.pulumi("package", "add", url)
    assert run.returncode != 0, run.describe()
    assert f"stat {url}: no such file or directory" in run.output, run.describe()
    assert not (program.cwd / "sdks").exists()


def test_an_https_url_is_taken_as_a_git_repository(program: Workspace) -> None:
    with socket.socket() as probe:  # a loopback port where nothing listens once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    run = program.pulumi("package", "add", f"https://127.0.0.1:{port}/pulumi-kuberay/kuberay.git/provider")
    assert run.returncode != 0, run.describe()
    assert "unknown URL scheme" not in run.output, run.describe()
    assert f"127.0.0.1:{port}" in run.output and "connection refused" in run.output, run.describe()
