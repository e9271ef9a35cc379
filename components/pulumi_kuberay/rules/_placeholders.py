"""Template placeholders that envsubst, Helm, Jinja, Terraform's templatefile and docs leave in a file, so that a
finding on such a value can say what it is. Shared by the rule modules; plain Python."""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(
    r"\$\{[^}]*\}"  # ${VAR} (envsubst, Terraform, shell)
    r"|\$[A-Za-z_][A-Za-z0-9_]*"  # $VAR
    r"|\{\{.*?\}\}"  # {{ .Values.x }} (Helm, Jinja)
    r"|\{%.*?%\}"  # {% if %} (Jinja)
    r"|<[^<>]+>"  # <your-image> (docs)
    r"|\bPLACEHOLDER[A-Za-z0-9_]*"  # PLACEHOLDER_IMAGE (sed-style)
)


def placeholders(text: str) -> list[str]:
    """The template placeholders in ``text`` (``$REGISTRY``, ``${image}``, ``{{ .Values.tag }}``, ``<ns>``)."""
    return _PLACEHOLDER.findall(text)


def placeholder_note(text: str) -> str:
    """`` ('$X' is an unrendered template placeholder: render the file first, e.g. with envsubst)`` or ``""``."""
    found = placeholders(text)
    if not found:
        return ""
    listed = ", ".join(repr(p) for p in dict.fromkeys(found))
    verb = "is an unrendered template placeholder" if len(set(found)) == 1 else "are unrendered template placeholders"
    return f" ({listed} {verb}: render the file first, e.g. with envsubst)"
