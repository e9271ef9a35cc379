"""The public API of ``pulumi_kuberay``: every name in ``__all__`` imports, and the lazy map (PEP 562, what runs)
and the ``TYPE_CHECKING`` imports (what mypy and editors see) name the same objects from the same modules."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pulumi_kuberay
import pytest

INIT = Path(pulumi_kuberay.__file__)


def _type_checking_imports() -> dict[str, str]:
    """``{exported name: module}`` from the ``if TYPE_CHECKING:`` block of ``pulumi_kuberay/__init__.py``."""
    tree = ast.parse(INIT.read_text())
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module, ast.dump(statement)
                for alias in statement.names:
                    assert alias.asname == alias.name, f"re-export {alias.name} as itself (mypy's explicit export)"
                    out[alias.name] = f"{statement.module}.{alias.name}"
    return out


def test_lazy_map_and_type_checking_imports_are_in_sync() -> None:
    lazy = {name: f"{module}.{name}" for name, module in pulumi_kuberay._LAZY.items()}
    stubs = _type_checking_imports()
    stubs.pop("rules")  # the rules package itself, not a name from a module
    assert stubs == lazy
    assert sorted(pulumi_kuberay.__all__) == sorted([*lazy, "rules"])


@pytest.mark.parametrize("name", pulumi_kuberay.__all__)
def test_every_exported_name_imports(name: str) -> None:
    value = getattr(pulumi_kuberay, name)
    assert value is not None
    if name != "rules":
        assert value is getattr(importlib.import_module(pulumi_kuberay._LAZY[name]), name)


def test_the_core_never_imports_pulumi() -> None:
    """Models, rules and the CLIs load without pulumi (a fresh interpreter: this one has it loaded already)."""
    names = [n for n, module in pulumi_kuberay._LAZY.items() if not module.startswith("pulumi_kuberay.resources")]
    code = (
        "import sys, pulumi_kuberay as kr\n"
        f"for name in {names!r}: getattr(kr, name)\n"
        "import pulumi_kuberay.rules, pulumi_kuberay.cli.lint, pulumi_kuberay.cli.explain\n"
        "kr.rules.check({'apiVersion': 'ray.io/v1', 'kind': 'RayCluster', 'metadata': {'name': 'x'}, 'spec': {}})\n"
        "assert 'pulumi' not in sys.modules, sorted(m for m in sys.modules if m.startswith('pulumi.'))[:5]\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_every_exported_name_is_type_checked(tmp_path: Path) -> None:
    """mypy sees every public name with its real type (an unknown or Any re-export fails under --strict)."""
    api = pytest.importorskip("mypy.api")
    probe = tmp_path / "probe.py"
    lines = ["from __future__ import annotations", "import pulumi_kuberay as kr"]
    lines += [f"reveal_type(kr.{name})" for name in pulumi_kuberay.__all__]
    probe.write_text("\n".join(lines) + "\n")
    # The project's own options (pyproject.toml: strict, the pydantic plugin) and so its cache, which scripts/test's
    # mypy run has just filled: other options would make mypy re-check every imported module (~20 s of CPU) and
    # leave the cache stale for the next run. Errors in the imported modules are then reported too (stricter).
    config = str(Path(__file__).resolve().parent.parent / "pyproject.toml")
    stdout, stderr, _exit_status = api.run(["--config-file", config, str(probe)])
    revealed = [line for line in stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == len(pulumi_kuberay.__all__), stdout + stderr
    untyped = [line for line in revealed if line.endswith('Revealed type is "Any"')]
    assert untyped == []
    assert [line for line in stdout.splitlines() if ": error:" in line] == [], stdout
