"""The generated program as a small expression tree: rendered to Python source, or evaluated to check it.

Every constructor call the converter writes is a :class:`Call` of a real model class, so the converter can
*evaluate* the very expression it is about to print (:func:`evaluate`) and compare what the model renders with
the original manifest before choosing a form. :func:`render` prints the tree (one argument per line once a
call does not fit), :class:`Imports` collects what the module has to import.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from typing import Any

#: Public names of ``pulumi_kuberay`` (``import pulumi_kuberay as kr``; ``kr.RayClusterSpec``).
PACKAGE_ALIAS = "kr"

#: Width the printer aims at; ``ruff format`` (line length 120) may re-flow the result.
WIDTH = 100
#: Longest string literal printed in one piece; longer ones become implicitly concatenated pieces.
STRING_PIECE = 72


@dataclass(frozen=True)
class Lit:
    """A Python literal: str, int, float, bool or None (a dict/list of literals too)."""

    value: Any


@dataclass(frozen=True)
class ListOf:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class DictOf:
    items: tuple[tuple[str, Node], ...]


@dataclass(frozen=True)
class Call:
    """``cls(*args, **kwargs)``; ``kwargs`` keep their order (the manifest's order)."""

    cls: type
    kwargs: tuple[tuple[str, Node], ...] = ()
    args: tuple[Node, ...] = ()
    spelling: str | None = None  # another public name of ``cls`` in its module (``SecretKeySelector``)


Node = Lit | ListOf | DictOf | Call


# --------------------------------------------------------------------------------------------------
# Evaluating.


def evaluate(node: Node) -> Any:
    """Build the Python object the printed expression would build (model instances, dicts, lists)."""
    if isinstance(node, Lit):
        return node.value
    if isinstance(node, ListOf):
        return [evaluate(item) for item in node.items]
    if isinstance(node, DictOf):
        return {key: evaluate(value) for key, value in node.items}
    return node.cls(*(evaluate(a) for a in node.args), **{k: evaluate(v) for k, v in node.kwargs})


# --------------------------------------------------------------------------------------------------
# Imports.


@dataclass
class Imports:
    """The class names the module uses, each a public name of the package (``kr.SecretKeySelector``): the program
    imports only ``pulumi_kuberay`` (every type the converter can name is exported, tests/convert holds it)."""

    spelled: dict[tuple[type, str | None], str] = field(default_factory=dict)

    def name_of(self, cls: type, alias: str | None = None) -> str:
        key = (cls, alias)
        if key not in self.spelled:
            self.spelled[key] = _public_name(cls, alias or cls.__name__)
        return self.spelled[key]

    def lines(self) -> list[str]:
        return [f"import pulumi_kuberay as {PACKAGE_ALIAS}"]


def _public_name(cls: type, name: str) -> str:
    import pulumi_kuberay  # the package's public (lazy) names

    if name not in pulumi_kuberay.__all__ or getattr(pulumi_kuberay, name) is not cls:
        raise ValueError(f"{cls.__module__}.{name} is not exported from pulumi_kuberay: add it to _LAZY and the TYPE_CHECKING imports of pulumi_kuberay/__init__.py")
    return f"{PACKAGE_ALIAS}.{name}"


# --------------------------------------------------------------------------------------------------
# Printing.

_SAFE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def identifier(text: str, taken: set[str] | None = None) -> str:
    """A readable Python identifier for ``text`` (``raycluster-autoscaler`` -> ``raycluster_autoscaler``)."""
    ident = re.sub(r"[^0-9A-Za-z_]+", "_", text).strip("_").lower() or "ray_object"
    if ident[0].isdigit() or keyword.iskeyword(ident) or ident in ("kr", "pulumi"):
        ident = f"ray_{ident}"
    if taken is not None:
        base, n = ident, 2
        while ident in taken:
            ident, n = f"{base}_{n}", n + 1
        taken.add(ident)
    return ident


_BREAKS = (" ", ",", ";", "&")


def _string(value: str, indent: int) -> str:
    """A string literal; long or multi-line strings as implicitly concatenated pieces in parentheses, cut
    after newlines and spaces only (a URL or a token stays whole)."""
    text = repr(value)
    if len(text) + indent <= WIDTH and "\n" not in value.rstrip("\n"):
        return text
    pieces: list[str] = []
    for line in value.splitlines(keepends=True):
        while len(line) > STRING_PIECE:
            cut = max(line.rfind(mark, 0, STRING_PIECE) for mark in _BREAKS)
            if cut <= 0:
                cut = min((i for i in (line.find(mark, STRING_PIECE) for mark in _BREAKS) if i > 0), default=-1)
            if cut <= 0 or cut + 1 >= len(line):
                break
            pieces.append(line[: cut + 1])
            line = line[cut + 1 :]
        pieces.append(line)
    if len(pieces) == 1:
        return text
    pad = " " * (indent + 4)
    return "(\n" + "".join(f"{pad}{piece!r}\n" for piece in pieces) + " " * indent + ")"


def _literal(value: Any, indent: int) -> str:
    if isinstance(value, str):
        return _string(value, indent)
    if isinstance(value, dict):
        return render(DictOf(tuple((str(k), Lit(v)) for k, v in value.items())), None, indent)
    if isinstance(value, list):
        return render(ListOf(tuple(Lit(v) for v in value)), None, indent)
    return repr(value)


def render(node: Node, imports: Imports | None, indent: int = 0) -> str:
    """Python source of ``node``, starting at column ``indent`` (continuation lines are indented)."""
    if isinstance(node, Lit):
        return _literal(node.value, indent)
    if isinstance(node, ListOf):
        parts = [render(item, imports, indent + 4) for item in node.items]
        return _wrap("[", parts, "]", indent)
    if isinstance(node, DictOf):
        parts = [f"{key!r}: {render(value, imports, indent + 4)}" for key, value in node.items]
        return _wrap("{", parts, "}", indent)
    if imports is None:
        raise ValueError("a constructor call needs an Imports")
    head = imports.name_of(node.cls, node.spelling)
    parts = [render(arg, imports, indent + 4) for arg in node.args]
    parts += [f"{key}={render(value, imports, indent + 4)}" for key, value in node.kwargs]
    return _wrap(f"{head}(", parts, ")", indent)


def _wrap(opening: str, parts: list[str], closing: str, indent: int) -> str:
    if not parts:
        return opening + closing
    flat = opening + ", ".join(parts) + closing
    if "\n" not in flat and len(flat) + indent <= WIDTH:
        return flat
    pad = " " * (indent + 4)
    return opening + "\n" + "".join(f"{pad}{part},\n" for part in parts) + " " * indent + closing


def is_plain_key(key: str) -> bool:
    return bool(_SAFE_KEY.match(key))
