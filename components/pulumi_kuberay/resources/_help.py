"""What ``help()`` and ``inspect.signature()`` show of a component's constructor: every keyword it takes (the
ones behind ``**keywords: Unpack[...]`` spelt out), what each means, and a short example. Without it ``help()``
falls back to ``pulumi.ComponentResource.__init__``'s text (``:param str t: The type of this resource``).
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ForwardRef

from pydantic import BaseModel

#: The constructor parameters every component shares.
COMMON_PARAMETERS = {
    "name": "The Pulumi resource name (unique in the program; also the object's name unless ``object_name`` is given).",
    "opts": "``pulumi.ResourceOptions`` of the component (``provider``/``providers`` reach the custom resource through the parent).",
}


def attribute_docs(*classes: type) -> dict[str, str]:
    """The docstring under each annotated attribute of ``classes`` (a TypedDict keeps none at run time)."""
    docs: dict[str, str] = {}
    for cls in classes:
        docs.update(_class_attribute_docs(cls.__module__, cls.__qualname__))
    return docs


@functools.cache
def _class_attribute_docs(module: str, name: str) -> dict[str, str]:
    """The attribute docstrings of the top-level class ``name`` of ``module``: only its lines are parsed (finding
    a class with ``inspect.getsource`` parses the whole module, tens of ms at import)."""
    lines = Path(inspect.getfile(sys.modules[module])).read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(f"class {name}(") or line.startswith(f"class {name}:"))
    last = next((i for i in range(first + 1, len(lines)) if lines[i][:1] not in ("", " ", "#")), len(lines))
    (node,) = ast.parse("\n".join(lines[first:last])).body
    assert isinstance(node, ast.ClassDef)
    docs: dict[str, str] = {}
    for field, after in zip(node.body, node.body[1:], strict=False):
        doc = after.value.value if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) else None
        if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) and isinstance(doc, str):
            docs[field.target.id] = inspect.cleandoc(doc)
    return docs


def _shown(annotation: Any) -> Any:
    """A TypedDict's annotation as its source spells it (``pulumi.Input[str] | None``, not a ``ForwardRef``)."""
    return annotation.__forward_arg__ if isinstance(annotation, ForwardRef) else annotation


def _field_docs(model: type[BaseModel] | None) -> dict[str, str]:
    if model is None:
        return {}
    return {name: info.description for name, info in model.model_fields.items() if info.description}


def document_constructor(
    cls: type,
    *,
    summary: str,
    parameters: Mapping[str, str],
    example: str,
    keywords: tuple[type, ...] = (),
    fields_of: type[BaseModel] | None = None,
) -> None:
    """Give ``cls.__init__`` a signature with ``keywords``' keys as keyword-only parameters (the TypedDicts its
    ``**keywords`` unpacks, the last the one it names) and a docstring: ``summary``, each parameter with its meaning
    (``parameters``, else the keyword's attribute docstring, else the field of ``fields_of`` of that name), then
    ``example``. A parameter left without a meaning is an error: help() must explain every one."""
    init: Callable[..., Any] = cls.__init__  # type: ignore[misc]
    signature = inspect.signature(init)
    params = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    if keywords:
        annotations = keywords[-1].__annotations__
        params += [
            inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=_shown(annotations[key]))
            for key in annotations
        ]
    meanings = {**_field_docs(fields_of), **attribute_docs(*keywords), **COMMON_PARAMETERS, **parameters}
    lines = [*textwrap.wrap(" ".join(summary.split()), width=110), "", "Parameters:"]
    for param in params[1:]:  # (self)
        meaning = meanings.get(param.name)
        if meaning is None:
            raise AssertionError(f"{cls.__name__}: parameter {param.name!r} has no description")
        text = " ".join(meaning.split())
        lines += textwrap.wrap(f"{param.name}: {text}", width=110, initial_indent="    ", subsequent_indent="        ")
    lines += ["", "Example::", "", textwrap.indent(inspect.cleandoc(example), "    ")]
    init.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    init.__doc__ = "\n".join(lines)
