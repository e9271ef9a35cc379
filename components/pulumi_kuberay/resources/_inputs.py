"""``pulumi.Input`` values in component arguments: find them, wait for them, put the plain values back.

The typed model never sees an Output (it stays plain pydantic): a model built with an Output keeps its raw
keywords (:meth:`~pulumi_kuberay.model._base.KubeModel.pending_input`), and a dict argument may hold Outputs
anywhere. :func:`resolve` walks the arguments, waits for every Output (or awaitable) it finds and returns the
arguments with plain values in their place: pending models become dicts of their keywords, so the spec is
validated once, as a whole, with CRD field paths in its errors.

At preview a value that is not known yet becomes the rule catalogue's unknown sentinel (the string the
engine itself uses for computed values): rules do not judge it, everything else is judged, and sent to the
engine in place, the sentinel marks exactly that value as computed. Secret values are remembered so the
component can mark them secret again wherever they end up in the manifest and keep them out of messages.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pulumi
from pulumi.output import Unknown

from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.model import KubeModel, holds_deferred, is_deferred

T = TypeVar("T")

#: What a message shows instead of a secret value.
REDACTED = "[secret]"


def has_inputs(value: Any) -> bool:
    """True if ``value`` holds an Output, an awaitable or a model built with one, anywhere inside."""
    return holds_deferred(value)


def _children(value: Any) -> Iterator[Any]:
    if isinstance(value, KubeModel):
        pending = value.pending_input()
        if pending is not None:
            yield from pending.values()
    elif isinstance(value, Mapping):
        yield from value.values()
    elif isinstance(value, (list, tuple)):
        yield from value


def collect(value: Any) -> list[Any]:
    """Every deferred value inside ``value``, in walk order (the order :func:`substitute` consumes them)."""
    if is_deferred(value):
        return [value]
    found: list[Any] = []
    for child in _children(value):
        found.extend(collect(child))
    return found


def substitute(value: Any, plain: Iterator[Any]) -> Any:
    """``value`` with each deferred value replaced by the next of ``plain``; pending models become dicts of
    their keywords (validated by the caller as part of the whole spec)."""
    if is_deferred(value):
        return next(plain)
    if isinstance(value, KubeModel):
        pending = value.pending_input()
        if pending is None:
            return value
        return {key: substitute(item, plain) for key, item in pending.items()}
    if isinstance(value, Mapping):
        return {key: substitute(item, plain) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [substitute(item, plain) for item in value]
    return value


def _unknowns_to_sentinel(value: Any) -> Any:
    if isinstance(value, Unknown):
        return UNKNOWN_SENTINEL
    if isinstance(value, Mapping):
        return {k: _unknowns_to_sentinel(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_unknowns_to_sentinel(v) for v in value]
    return value


def _scalars(value: Any) -> Iterator[Any]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _scalars(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _scalars(item)
    elif value is not None and value != UNKNOWN_SENTINEL:
        yield value


@dataclass
class Resolved:
    """The arguments with plain values, and what the Outputs carried besides their values."""

    value: Any
    known: bool = True
    secrets: list[Any] = field(default_factory=list)
    resources: set[pulumi.Resource] = field(default_factory=set)


async def resolve(value: Any) -> Resolved:
    """Wait for every deferred value inside ``value`` (unknown ones become the sentinel)."""
    outputs = [pulumi.Output.from_input(item) for item in collect(value)]
    plain: list[Any] = []
    result = Resolved(value=None)
    for output in outputs:
        known = await output.is_known()
        secret = await output.is_secret()
        result.resources |= await output.resources()
        item = await output.future(with_unknowns=True)
        if not known and (item is None or isinstance(item, Unknown)):
            item = UNKNOWN_SENTINEL
        item = _unknowns_to_sentinel(item)
        result.known = result.known and known
        if secret:
            result.secrets.extend(_scalars(item))
        plain.append(item)
    result.value = substitute(value, iter(plain))
    return result


# --------------------------------------------------------------------------------------------------
# Secrets in the rendered manifest and in messages.


def redact(text: str, secrets: list[Any]) -> str:
    """``text`` with every secret value replaced by :data:`REDACTED`."""
    for secret in sorted({str(s) for s in secrets if str(s)}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def _holds_secret(leaf: Any, secrets: list[Any]) -> bool:
    if isinstance(leaf, str):
        return any((isinstance(s, str) and s and s in leaf) or leaf == str(s) for s in secrets)
    return any(type(leaf) is type(s) and leaf == s for s in secrets)


def secrets_found(value: Any, secrets: list[Any]) -> set[int]:
    """The indexes (into ``secrets``) of the secret values some leaf of ``value`` holds."""
    if isinstance(value, Mapping):
        return set().union(*(secrets_found(v, secrets) for v in value.values()))
    if isinstance(value, (list, tuple)):
        return set().union(*(secrets_found(v, secrets) for v in value))
    return {i for i, s in enumerate(secrets) if _holds_secret(value, [s])}


def mark_secrets(value: Any, secrets: list[Any]) -> Any:
    """``value`` with every leaf that holds a secret value wrapped in ``pulumi.Output.secret``."""
    if isinstance(value, Mapping):
        return {k: mark_secrets(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [mark_secrets(v, secrets) for v in value]
    return pulumi.Output.secret(value) if secrets_found(value, secrets) else value
