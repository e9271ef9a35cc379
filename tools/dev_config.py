"""``scripts/dev-up``'s two helpers: the stack configs without the reference copy, and the CRD stack's record.

``config``: the dev stacks' config with the operator's chart from its repository (``official``) or without the
operator (``none``, offline). Written beside the state, passed to ``pulumi up --config-file``; the committed
``stacks/Pulumi.dev.yaml`` / ``stacks/Pulumi.dev-crds.yaml`` are never changed.

``crds-digest``: what the CRD stack (``dev-crds``) was last brought up from, as one line: a digest of its inputs
(the stack file, the CRD YAML it reads, the program files that shape the CRD objects, the backend) and one of the
stack's checkpoint afterwards (``none`` where the backend is not a directory). dev-up records the line after a
successful ``pulumi up --stack dev-crds`` and skips that stack while the line is unchanged: the four CRDs' 1.2 MB
of schema are then read, checked and diffed only when they change, not on every dev-up.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any, Literal

import yaml

OperatorSource = Literal["official", "none"]
OPERATOR_KEY = "pulumi-kuberay:operator"
PROJECT_DIR = Path(__file__).resolve().parent.parent
#: The program files that shape the CRD objects (labels, annotations, options) and the pins of the provider
#: that renders them: a change re-applies the CRD stack.
CRD_PROGRAM_FILES = (
    "__main__.py",
    "settings.py",
    "constraints.txt",
    "components/pulumi_kuberay/operator/crds.py",
    "components/pulumi_kuberay/resources/kuberay_operator.py",
)


def dev_config(stack: dict[str, Any], operator: OperatorSource, repository: str | None = None) -> dict[str, Any]:
    """A copy of the stack file's content: the operator entry without its local chart (from ``repository``, by
    default the official one), or without the operator."""
    config = dict(stack.get("config") or {})
    entry = config.get(OPERATOR_KEY)
    if isinstance(entry, dict) and operator == "official":
        config[OPERATOR_KEY] = {k: v for k, v in entry.items() if k not in ("chart", "crdsDir")}
        if repository:
            config[OPERATOR_KEY]["repository"] = repository
    elif operator == "none":
        config.pop(OPERATOR_KEY, None)
    return {**stack, "config": config}


def _project_path(value: str, project: Path) -> Path:
    """As ``settings._project_path``: environment variables expanded, relative to the project directory."""
    return project / os.path.expandvars(value)


def crd_sources(stack: dict[str, Any], project: Path) -> list[Path]:
    """The CRD YAML files the stack's operator entry reads (``crdsDir``, else the local chart's ``crds/``),
    sorted; none for a chart from a repository (its version and repository, in the stack file, name them)."""
    entry = (stack.get("config") or {}).get(OPERATOR_KEY)
    if not isinstance(entry, dict):
        return []
    if isinstance(entry.get("crdsDir"), str):
        directory = _project_path(entry["crdsDir"], project)
    elif isinstance(entry.get("chart"), str):
        directory = _project_path(entry["chart"], project) / "crds"
    else:
        return []
    return sorted(directory.glob("*.yaml")) if directory.is_dir() else []


def crds_digest(config_file: Path, checkpoint: Path | None, backend: str, project: Path = PROJECT_DIR) -> str:
    """``<inputs> <checkpoint>``: sha256 of what the CRD stack is brought up from, and of its checkpoint file
    (``missing`` if absent, ``none`` without one to read)."""
    text = config_file.read_text()
    inputs = hashlib.sha256()
    parts: list[tuple[str, bytes]] = [
        ("config", text.encode()),
        ("backend", backend.encode()),
        ("reference", os.environ.get("KUBERAY_REFERENCE_DIR", "").encode()),
    ]
    parts += [(name, (project / name).read_bytes()) for name in CRD_PROGRAM_FILES if (project / name).is_file()]
    parts += [(str(path), path.read_bytes()) for path in crd_sources(yaml.safe_load(text) or {}, project)]
    for name, content in parts:
        # Length-prefixed: no two different part lists hash the same.
        inputs.update(f"{name}\0{len(content)}\0".encode())
        inputs.update(content)
    if checkpoint is None:
        state = "none"
    elif checkpoint.is_file():
        state = hashlib.sha256(checkpoint.read_bytes()).hexdigest()
    else:
        state = "missing"
    return f"{inputs.hexdigest()} {state}"


USAGE = "usage: dev_config.py config official|none SOURCE TARGET [REPOSITORY] | crds-digest CONFIG CHECKPOINT BACKEND"


def main(argv: list[str]) -> int:
    command, *args = argv or [""]
    if command == "crds-digest" and len(args) == 3:
        config_file, checkpoint, backend = args
        print(crds_digest(Path(config_file), Path(checkpoint) if checkpoint else None, backend))
        return 0
    if command != "config" or len(args) not in (3, 4):
        print(USAGE, file=sys.stderr)
        return 2
    operator, source, target, *repository = args
    if operator not in ("official", "none"):
        print(f"dev_config: operator must be official or none, got {operator!r}", file=sys.stderr)
        return 2
    stack = yaml.safe_load(Path(source).read_text())
    header = f"# generated by scripts/dev-up from {source} (operator: {operator}); edit that file instead\n"
    source_of_operator: OperatorSource = "official" if operator == "official" else "none"
    body = yaml.safe_dump(dev_config(stack, source_of_operator, *repository[:1]), sort_keys=False)
    Path(target).write_text(header + body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
