"""No string literal in the package over 2,000 characters: a text that long cannot be reviewed (the rules' CEL
once held one of 14,854). Long CEL is composed from the named parts of ``rules/_cel.py``; prose is split by
paragraph. Docstrings are held to the same length on their own: what help() and the API reference show stays a
summary, the rest goes to docs/ (the users' pages) or to comments beside the code it explains."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "components" / "pulumi_kuberay"
LIMIT = 2000


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def long_literals(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    """``path:line (length)`` for each string literal over ``LIMIT`` characters, docstrings aside (adjacent
    literals count as one, as Python joins them)."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = _docstrings(tree)
    return [
        f"{path.relative_to(root)}:{node.lineno} ({len(node.value)} characters)"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > LIMIT
        and id(node) not in docstrings
    ]


def long_docstrings(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    """``path:line (length)`` for each module, class or function docstring over ``LIMIT`` characters."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = _docstrings(tree)
    return [
        f"{path.relative_to(root)}:{node.lineno} ({len(node.value)} characters)"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > LIMIT
        and id(node) in docstrings
    ]


def test_no_docstring_is_over_2000_characters() -> None:
    found = [line for path in sorted(PACKAGE.rglob("*.py")) for line in long_docstrings(path)]
    assert found == [], "keep a docstring a summary: move the rest to docs/ or to comments beside the code"


def test_no_string_literal_is_over_2000_characters() -> None:
    found = [line for path in sorted(PACKAGE.rglob("*.py")) if path.name != "_k8s.py" for line in long_literals(path)]
    assert found == [], "compose long CEL from rules/_cel.py's parts, split long prose by paragraph"


def test_the_check_finds_a_long_literal_and_spares_docstrings(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    long_doc = "d" * (LIMIT + 1)
    source.write_text(f'"""{long_doc}"""\nX = ("a"\n     "{"b" * LIMIT}")\nY = "short"\n\n\ndef f() -> None:\n    """{long_doc}"""\n')
    assert long_literals(source, tmp_path) == [f"sample.py:2 ({LIMIT + 1} characters)"]
    assert long_docstrings(source, tmp_path) == [f"sample.py:1 ({LIMIT + 1} characters)", f"sample.py:8 ({LIMIT + 1} characters)"]
