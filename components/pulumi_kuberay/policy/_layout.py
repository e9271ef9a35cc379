"""The files of a policy pack directory (pure: no pulumi import), and the one shipped in the package."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

#: The pack's name, as the engine shows it (``kuberay-policies@v0.1.0``).
PACK_NAME = "kuberay-policies"
DISTRIBUTION = "pulumi-kuberay"
#: The pack directory inside the installed package (no virtualenv option: the engine uses ``python`` on PATH).
PACK_DIR = Path(__file__).resolve().parent / "pack"

DESCRIPTION = "KubeRay (ray.io/v1) safety and selection rules, generated from the pulumi-kuberay rule catalogue."

#: The whole pack program: everything else lives in the installed package.
MAIN_PY = '''"""Entry point the Pulumi engine runs for this pack: the pack itself is in the installed pulumi-kuberay."""

from pulumi_kuberay.policy import run

run()
'''


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def requirement_from(direct_url: str | None, version: str, extras: str = "[policy]") -> str:
    """The requirement that installs this distribution from where it was installed, read from the PEP 610
    ``direct_url.json`` of the installed distribution (``direct_url``: its text, None when it has none): a wheel or
    folder by its ``file:`` URL, a git checkout at the installed commit, any other URL as it is; from an index
    (no ``direct_url.json``) the name at exactly ``version``."""
    name = f"{DISTRIBUTION}{extras}"
    if not direct_url:
        return f"{name}=={version}"
    try:
        origin = json.loads(direct_url)
        url = str(origin["url"])
    except (ValueError, KeyError, TypeError):
        return f"{name}=={version}"
    vcs = origin.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs"):
        revision = vcs.get("commit_id") or vcs.get("requested_revision")
        url = f"{vcs['vcs']}+{url}{'@' + str(revision) if revision else ''}"
    subdirectory = origin.get("subdirectory")
    return f"{name} @ {url}{'#subdirectory=' + str(subdirectory) if subdirectory else ''}"


def installed_requirement(extras: str = "[policy]") -> str:
    """:func:`requirement_from` of the installed pulumi-kuberay (the name at its version outside an install)."""
    try:
        distribution = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return f"{DISTRIBUTION}{extras}==0.0.0"
    return requirement_from(distribution.read_text("direct_url.json"), distribution.version, extras)


def pack_files(
    *, virtualenv: str | None = None, requirements: bool = True, requirement: str | None = None
) -> dict[str, str]:
    """``{file name: text}`` of a pack directory for the installed pulumi-kuberay.

    ``virtualenv`` adds Pulumi's pip toolchain options (a path relative to the pack directory, made by
    ``pulumi install``); without it the engine starts the pack with the ``python`` first on PATH.
    ``requirements`` adds requirements.txt: the installed pulumi-kuberay from where it was installed
    (:func:`installed_requirement`: the wheel file, the git commit, the folder, or the index at its version) and
    pulumi-policy at its installed version; ``requirement`` replaces the pulumi-kuberay line.
    """
    version = _version(DISTRIBUTION) or "0.0.0"
    lines = [
        f"name: {PACK_NAME}",
        f"description: {DESCRIPTION}",
        f"version: {version}",
        "runtime:",
        "  name: python",
    ]
    if virtualenv:
        lines += ["  options:", "    toolchain: pip", f"    virtualenv: {virtualenv}"]
    files = {"PulumiPolicy.yaml": "\n".join(lines) + "\n", "__main__.py": MAIN_PY}
    if requirements:
        policy_version = _version("pulumi-policy")
        policy_pin = f"pulumi-policy=={policy_version}" if policy_version else "pulumi-policy>=1.21.0,<2"
        files["requirements.txt"] = (
            f"# Written by kuberay-policy-pack: the pack is the installed package, from where it was installed.\n{requirement or installed_requirement()}\n{policy_pin}\n"
        )
    return files


def write_pack(directory: str | Path, *, virtualenv: str | None = None, overwrite: bool = False) -> list[Path]:
    """Write a ready pack directory; refuses to replace files that differ unless ``overwrite``. Returns the paths."""
    target = Path(directory)
    files = pack_files(virtualenv=virtualenv)
    if target.exists() and not target.is_dir():
        raise FileExistsError(f"{target} exists and is not a directory")
    clashes = [name for name, text in files.items() if (target / name).exists() and (target / name).read_text() != text]
    if clashes and not overwrite:
        raise FileExistsError(
            f"{target} already has {', '.join(clashes)} with other content; pass --force to replace them"
        )
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        (target / name).write_text(text)
        written.append(target / name)
    return written


def pack_path() -> str:
    """The pack directory shipped inside the installed package (for ``pulumi preview --policy-pack``)."""
    return str(PACK_DIR)
