"""Make pulumi-policy decode each resource of a request once, not once per policy.

pulumi-policy (``_PolicyAnalyzerServicer.Analyze`` / ``AnalyzeStack``) turns a resource's protobuf properties
into a dict, deserializes it and wraps it in its unknown-checking proxy *for every policy*, and in ``Analyze``
it decodes the provider's properties in between. Our pack has one policy per catalogue rule (about 150), so a
stack with the four KubeRay CRDs (0.5 MB of protobuf each, about 0.2 s to decode) spent about 110 s of a
``pulumi preview`` decoding the same CRDs again and again (measured: a preview of the four CRDs took 131 s with
the pack against 22 s without it).

The three steps are pure functions of their input, so each gRPC call gets a memo: a message is recognised by
its wrapper object, else its serialized bytes (pulumi-policy hands a new wrapper object for each walk over
``request.resources``), the later steps by the identity of the earlier step's result. The memo lives for one
call and one thread and is emptied when the call returns, so memory is bounded by one request (about 14 MB
per CRD-sized resource).
Every policy of a call then sees the same read-only proxy; our findings cache recognises it by identity.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

#: The servicer methods that decode resources; the memo is emptied when each returns.
_CALLS = ("Analyze", "AnalyzeStack", "Remediate")
_HELPERS = ("json_format", "deserialize_properties", "unknown_checking_proxy")


class _CallMemo(threading.local):
    """Results of the decoding helpers during the current call of this thread."""

    def __init__(self) -> None:
        self.by_key: dict[Any, Any] = {}
        self.keep: list[Any] = []  # the inputs, alive while their id() is a key

    def clear(self) -> None:
        self.by_key.clear()
        self.keep.clear()

    def get(self, key: Any, compute: Callable[[], Any], arg: Any) -> Any:
        try:
            return self.by_key[key]
        except KeyError:
            value = compute()
            self.by_key[key] = value
            self.keep.append(arg)
            return value


_MEMO = _CallMemo()


def _options_key(rest: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    return (rest, tuple(sorted(kwargs.items())))


def _by_bytes(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def decode(message: Any, *rest: Any, **kwargs: Any) -> Any:
        if not hasattr(message, "SerializeToString"):
            return fn(message, *rest, **kwargs)
        options = _options_key(rest, kwargs)
        same = ("message-id", id(message), options)  # the same wrapper again: no need to serialize
        if same in _MEMO.by_key:
            return _MEMO.by_key[same]
        key = ("message", message.SerializeToString(deterministic=True), options)
        value = _MEMO.get(key, lambda: fn(message, *rest, **kwargs), message)
        _MEMO.by_key[same] = value
        return value

    return decode


def _by_identity(fn: Callable[..., Any], step: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def step_once(value: Any, *rest: Any, **kwargs: Any) -> Any:
        key = (step, id(value), _options_key(rest, kwargs))
        return _MEMO.get(key, lambda: fn(value, *rest, **kwargs), value)

    return step_once


def _scoped(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        _MEMO.clear()
        try:
            return method(*args, **kwargs)
        finally:
            _MEMO.clear()

    return call


def install_request_memo() -> bool:
    """Install the per-call memo into pulumi-policy (idempotent). Returns False, changing nothing, if the
    pinned library's internals are not what this expects (then every policy decodes again: slower, same
    verdicts)."""
    import pulumi_policy.policy

    module: Any = pulumi_policy.policy  # its private helpers are replaced below, checked by name first
    if getattr(module, "_kuberay_memo", False):
        return True
    servicer = getattr(module, "_PolicyAnalyzerServicer", None)
    if servicer is None or not all(hasattr(module, n) for n in _HELPERS) or not all(
        hasattr(servicer, m) for m in _CALLS
    ):
        return False

    original = module.json_format

    class _JsonFormat:
        MessageToDict = staticmethod(_by_bytes(original.MessageToDict))

        def __getattr__(self, name: str) -> Any:
            return getattr(original, name)

    module.json_format = _JsonFormat()
    module.deserialize_properties = _by_identity(module.deserialize_properties, "deserialize")
    module.unknown_checking_proxy = _by_identity(module.unknown_checking_proxy, "proxy")
    for name in _CALLS:
        setattr(servicer, name, _scoped(getattr(servicer, name)))
    module._kuberay_memo = True
    return True


__all__ = ["install_request_memo"]
