"""Public seams: no module imports another package's private (``_``) module or name.

A package is a direct subpackage of ``pulumi_kuberay`` (``rules``, ``model``, ``resources``, ``kuberay``...) or a
top-level module of it; the root ``pulumi_kuberay/__init__.py`` is a package of its own, so it too imports from the
subpackages' public names. Inside a package anything goes; across packages only public modules and public names
(each package's ``__init__`` exports what the others use, in its ``__all__``).

Walked: ``components/``, ``policies/``, ``tools/``, ``bench/``, the example program (``__main__.py``,
``settings.py``) and the Python of ``scripts/`` (Python scripts, and the import lines of the Python that shell
scripts run). Import statements, and strings spelling a module path (``_LAZY``'s ``"pulumi_kuberay.model"``), count.

``tests/`` is not walked: a test may import the internals of what it tests (white-box tests).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPONENTS = ROOT / "components"
PACKAGE = "pulumi_kuberay"
_MODULE_PATH = re.compile(r"pulumi_kuberay(\.\w+)+")
_SHELL_IMPORT = re.compile(r"^\s*(from\s+pulumi_kuberay[\w.]*\s+import\s+[\w, ]+|import\s+pulumi_kuberay[\w.]*)\s*$")


def _python_files() -> Iterator[Path]:
    for folder in ("components", "policies", "tools", "bench"):
        yield from sorted((ROOT / folder).rglob("*.py"))
    for name in ("__main__.py", "settings.py"):
        yield ROOT / name


def _script_sources() -> Iterator[tuple[Path, str]]:
    """Each script's Python: a Python script whole, a shell script's ``import`` lines (its heredocs, ``-c``)."""
    for path in sorted((ROOT / "scripts").iterdir()):
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".py" or (text.split("\n", 1)[0].startswith("#!") and "python" in text.split("\n", 1)[0]):
            yield path, text
        else:
            lines = [m.group(1) if (m := _SHELL_IMPORT.match(line)) else "" for line in text.splitlines()]
            yield path, "\n".join(lines)


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _owner(path: Path) -> tuple[list[str], bool, str | None]:
    """The module path of ``path`` (as a list), whether it is a package ``__init__``, and its package."""
    try:
        parts = list(path.relative_to(COMPONENTS).with_suffix("").parts)
    except ValueError:
        return [], False, None  # outside the package: every package is another one
    is_init = parts[-1] == "__init__"
    if is_init:
        parts = parts[:-1]
    return parts, is_init, (parts[1] if len(parts) > 1 else "")


def _violations(path: Path, source: str) -> Iterator[str]:
    parts, is_init, mine = _owner(path)
    where = path.relative_to(ROOT)

    def judge(target: str, names: list[str], line: int) -> Iterator[str]:
        dotted = target.split(".")
        if dotted[0] != PACKAGE:
            return
        theirs = dotted[1] if len(dotted) > 1 else ""
        if mine is not None and theirs == mine:
            return
        private_parts = [p for p in dotted[1:] if _private(p)]
        private_names = [n for n in names if _private(n)]
        if private_parts or private_names:
            what = f"{target}" + (f" import {', '.join(private_names)}" if private_names else "")
            yield f"{where}:{line}: {what}"

    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from judge(alias.name, [], node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = parts if is_init else parts[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            yield from judge(target, [alias.name for alias in node.names], node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _MODULE_PATH.fullmatch(node.value):
            yield from judge(node.value, [], node.lineno)


def test_no_cross_package_private_import() -> None:
    found = [v for path in _python_files() for v in _violations(path, path.read_text())]
    found += [v for path, source in _script_sources() for v in _violations(path, source)]
    assert not found, "imports of another package's private module or name:\n" + "\n".join(found)


@pytest.mark.parametrize("package", ["kuberay"])
def test_leaf_packages_import_nothing_of_the_package_and_no_pydantic(package: str) -> None:
    """``kuberay/`` (what KubeRay is) is a leaf: the standard library only, so every other package may import it."""
    found = []
    for path in sorted((COMPONENTS / PACKAGE / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                modules = [node.module or ""] if not node.level else []
                if node.level > 1:
                    found.append(f"{path.name}: from {'.' * node.level}{node.module or ''}")
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            found += [f"{path.name}: {m}" for m in modules if m.split(".")[0] in (PACKAGE, "pydantic", "pulumi", "yaml")]
    assert not found, f"{package}/ imports: {found}"


def test_the_walk_sees_a_private_import() -> None:
    source = "from pulumi_kuberay.rules._engine import Finding\nfrom pulumi_kuberay.model import _yaml\n"
    found = list(_violations(ROOT / "tools" / "example.py", source))
    assert found == [
        "tools/example.py:1: pulumi_kuberay.rules._engine",
        "tools/example.py:2: pulumi_kuberay.model import _yaml",
    ]
    inside = COMPONENTS / PACKAGE / "rules" / "example.py"
    assert list(_violations(inside, "from ._engine import Finding\nfrom .._k8s import X\n")) == [
        "components/pulumi_kuberay/rules/example.py:2: pulumi_kuberay._k8s"
    ]
