"""scripts/: one shared shell library (scripts/lib/common.sh), sourced by every ensure-*/setup-* script.

The helpers (log, die, the Go build environment, mkwrapper, locks...) live there once; a script that defines its
own copy again is how they forked before (mkwrapper had diverged between ensure-pulumi and ensure-kube).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
LIBRARY = SCRIPTS / "lib" / "common.sh"
#: The scripts that build or set something up, and so log, die and lock: each sources the library.
USERS = sorted(
    p
    for p in SCRIPTS.iterdir()
    if p.is_file() and (p.name.startswith(("ensure-", "setup-", "check-")) or p.name == "local-cluster")
)
SOURCE_LINE = re.compile(r'^\. "?(\$HERE/lib|scripts/lib)/common\.sh"?$', re.MULTILINE)
DEFINITION = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(\)\s*\{", re.MULTILINE)


def library_functions() -> set[str]:
    return set(DEFINITION.findall(LIBRARY.read_text()))


def test_the_library_defines_the_shared_helpers() -> None:
    assert {"log", "die", "loud", "mkwrapper", "lock", "find_go", "go_env", "norm_version", "dir_sum"} <= (
        library_functions()
    )


def test_the_users_are_found() -> None:
    names = {p.name for p in USERS}
    assert {"ensure-pulumi", "ensure-kube", "ensure-oracle", "ensure-helm", "ensure-langhosts", "setup-venv"} <= names


@pytest.mark.parametrize("script", USERS, ids=lambda p: p.name)
def test_every_script_sources_the_library(script: Path) -> None:
    text = script.read_text()
    match = SOURCE_LINE.search(text)
    assert match is not None, f"{script.name} does not source scripts/lib/common.sh"
    name = re.search(r"^SCRIPT=(\S+)$", text[: match.start()], re.MULTILINE)
    assert name is not None and name.group(1) == script.name, f"{script.name}: SCRIPT=<its name> before the source line"


@pytest.mark.parametrize("script", sorted(p for p in SCRIPTS.iterdir() if p.is_file()), ids=lambda p: p.name)
def test_no_script_redefines_a_library_function(script: Path) -> None:
    text = script.read_text()
    # Python here-documents (the wrapper go.mod generators) are not shell.
    shell = re.sub(r"<<'PY'\n.*?\nPY\n", "", text, flags=re.DOTALL)
    again = sorted(set(DEFINITION.findall(shell)) & library_functions())
    assert again == [], f"{script.name} defines {again} again: use scripts/lib/common.sh's"


CHECKS = (
    'set -euo pipefail; SCRIPT=t; . "$0"',
    "norm_version v1.7.0",
    "norm_version 1.7.0 v",
    "older_than v1.6.2 1.7.0 && echo older",
    "older_than 1.7.0 1.7.0 || echo same",
    "version_ge 3.260.1 3.259.0 && echo ge",
    "version_ge 3.9.0 3.259.0 || echo lt",
)


def test_norm_version_and_ordering() -> None:
    """The version helpers as the scripts use them: ensure-kube wants 1.7.0, ensure-oracle v1.7.0."""
    out = subprocess.run(
        [
            "bash",
            "-c",
            "; ".join(CHECKS),
            str(LIBRARY),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["1.7.0", "v1.7.0", "older", "same", "ge", "lt"]
    bad = subprocess.run(
        ["bash", "-c", 'set -euo pipefail; SCRIPT=t; . "$0"; norm_version 1.7', str(LIBRARY)],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1
    assert "[t " in bad.stderr and "invalid operator version '1.7'" in bad.stderr


def test_dir_sum_is_stable(tmp_path: Path) -> None:
    """dir_sum names cache entries (ray-operator-vV-ref-<sha16>): its value for a given folder never changes."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "go.mod").write_text("module x\n")
    (tmp_path / "b.go").write_text("package x\n")
    (tmp_path / "skip~").write_text("editor backup\n")
    out = subprocess.run(
        ["bash", "-c", 'set -euo pipefail; SCRIPT=t; . "$0"; dir_sum "$1"', str(LIBRARY), str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    # sha256 of the sha256sum lines of ./a/go.mod and ./b.go (sorted paths), first 16 hex digits
    assert out.stdout.strip() == "47853d35fe076166"


def test_shellcheck_warnings() -> None:
    if shutil.which("shellcheck") is None:
        why = "shellcheck is not installed (apt-get install shellcheck; .ci/run installs it)"
        if os.environ.get("PULUMI_KUBERAY_REQUIRE_SHELLCHECK") == "1":
            pytest.fail(why)
        pytest.skip(why)
    files = [str(p) for p in (*USERS, LIBRARY, SCRIPTS / "test")]
    run = subprocess.run(
        ["shellcheck", "-x", "-S", "warning", *files], cwd=SCRIPTS.parent, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout


#: Stand-ins for the registries' clients (check-newest asks `.venv/bin/python -m pip index versions NAME` and
#: `go list -m ...`): the versions they "serve".
FAKE_PIP = """#!/bin/sh
case "$5" in pulumi) echo "pulumi (3.280.0)" ;; pulumi-kubernetes) echo "pulumi-kubernetes (4.34.2)" ;;
  pulumi-policy) echo "pulumi-policy (1.21.0)" ;; esac
"""
FAKE_GO = """#!/bin/sh
case "$*" in *-versions*) echo "github.com/pulumi/pulumi/pkg/v3 v3.276.0 v3.277.0" ;;
  *provider/v4@latest*) echo "v4.0.0-20260115033456-f47bc2d6f199" ;; esac
"""


@pytest.mark.parametrize(("pins", "code", "lines"), [
    ("pulumi==3.272.0\npulumi-kubernetes==4.34.2\npulumi-policy==1.21.0\n", 1,
     ["pulumi (PyPI): tested 3.272.0; NEWER: 3.280.0", "pulumi-kubernetes (PyPI): tested 4.34.2; current"]),
    ("pulumi==3.280.0\npulumi-kubernetes==4.34.2\npulumi-policy==1.21.0\n", 0,
     ["pulumi (PyPI): tested 3.280.0; current", "pulumi CLI (github.com/pulumi/pulumi/pkg/v3): tested 3.277.0; current",
      "Kubernetes provider (provider/v4): tested 4.25.0 = v4.0.0-20260115033456-f47bc2d6f199; current"]),
])
def test_check_newest_says_what_is_newer(tmp_path: Path, pins: str, code: int, lines: list[str]) -> None:
    """scripts/check-newest on a copy of scripts/ beside a constraints-newest.txt, with stand-in clients."""
    shutil.copytree(SCRIPTS, tmp_path / "scripts")
    (tmp_path / "constraints-newest.txt").write_text(
        pins + "# go: pulumi-cli==3.277.0\n# go: pulumi-resource-kubernetes==4.25.0\n")
    for path, text in ((tmp_path / ".venv" / "bin" / "python", FAKE_PIP), (tmp_path / "bin" / "go", FAKE_GO)):
        path.parent.mkdir(parents=True)
        path.write_text(text)
        path.chmod(0o755)
    run = subprocess.run(
        [str(tmp_path / "scripts" / "check-newest")], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"},
    )
    assert run.returncode == code, run.stdout + run.stderr
    assert set(lines) <= set(run.stdout.splitlines()), run.stdout
