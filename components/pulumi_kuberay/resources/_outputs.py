"""Outputs without an asyncio task each: a value already known, and a plain function of another Output.

``pulumi.Output(...)`` and ``Output.apply`` each start a task (a coroutine, its context, a handle, closures) that
stays alive until the program's event loop runs it. A component has about ten outputs; with a thousand
components those tasks and their objects were a third of our extra per-cluster cost and, more, of the objects
Python's cyclic garbage collector walks again and again while the program declares resources (the collector was
most of the program's time at N=1000, both for us and for a raw CustomResource: bench/README.md).

Both helpers build the Output from an ``asyncio.Future`` resolved by a done-callback instead, through the
internals Pulumi's own ``Output`` uses for the same thing (``Output._from_data``, ``_OutputData`` and the
runtime's set of outputs the program waits for, ``SETTINGS.outputs``, all in pulumi 3.259). Where a pulumi
release lacks them, they fall back to the public API (``Output(...)``/``apply``), so behaviour never depends on
the shortcut: the tests run both paths.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable, Coroutine, Generator
from inspect import isawaitable
from typing import Any, Generic, TypeVar

import pulumi
from pulumi import output as _pulumi_output

T = TypeVar("T")
U = TypeVar("U")

_OUTPUT_DATA: Any = getattr(_pulumi_output, "_OutputData", None)
_FROM_DATA: Any = getattr(pulumi.Output, "_from_data", None)
_SETTINGS: Any = getattr(_pulumi_output, "SETTINGS", None)


def _fast_path() -> bool:
    return _OUTPUT_DATA is not None and _FROM_DATA is not None and _SETTINGS is not None and not _FORCE_PUBLIC_API


#: Tests set this to run the public-API path (what a pulumi without the internals gets).
_FORCE_PUBLIC_API = False


def known_output(
    value: T,
    *,
    known: bool = True,
    secret: bool = False,
    resources: set[pulumi.Resource] | None = None,
    plain: bool = False,
) -> pulumi.Output[T]:
    """An Output of a value already computed (with its known/secret flags and dependencies), without a task.
    ``plain``: the value was built from plain values only, so it holds no Pulumi unknown and is not walked for one
    (Pulumi walks every dict and list of an Output's value: a whole manifest per component)."""
    if not _fast_path():
        return pulumi.Output(resources or set(), ready(value), ready(known), ready(secret))
    future: asyncio.Future[Any] = asyncio.get_event_loop().create_future()
    data = _OUTPUT_DATA(resources=resources or set(), value=None if plain else value, is_known=known, is_secret=secret)
    if plain:
        data.value = value
    future.set_result(data)
    return _output_of(future)


def derived(source: pulumi.Output[T], func: Callable[..., U], *args: Any) -> pulumi.Output[U]:
    """``source.apply(lambda value: func(value, *args))`` for a ``func`` that returns a plain value (not an
    Output or awaitable), without a task: the same resources, known and secret flags; ``func`` is not called
    while the value is unknown. ``args`` rather than a closure: a closure is three objects more per output, kept
    until the loop runs."""
    data = getattr(source, "_data", None)
    if not _fast_path() or not isinstance(data, asyncio.Future):
        return source.apply(func) if not args else _apply(source, func, args)
    result = _Derived(func, args, loop=data.get_loop())
    # The result future is its own callback (no partial or closure), in one shared (empty) context rather than a
    # copy per callback: fewer objects alive per output until the loop runs (the callback reads no context variable).
    data.add_done_callback(result, context=_CALLBACK_CONTEXT)
    return _output_of(result)


def _apply(source: pulumi.Output[T], func: Callable[..., U], args: tuple[Any, ...]) -> pulumi.Output[U]:
    return source.apply(lambda value: func(value, *args))


def _output_of(future: asyncio.Future[Any]) -> pulumi.Output[Any]:
    """``Output._from_data(future)``, tracked as Pulumi tracks it (the program waits for it and reports its error)
    but without a closure and a context copy per Output: one untracking callback per program run, shared. A
    future already settled with a value is not tracked at all (Pulumi would add it and drop it on the loop's next
    turn: nothing can observe the difference)."""
    outputs, lock = _SETTINGS.outputs, _SETTINGS.lock
    if not isinstance(outputs, set):  # pragma: no cover - a pulumi whose settings moved
        out: pulumi.Output[Any] = _FROM_DATA(future)
        return out
    out = object.__new__(pulumi.Output)
    out._data = future
    if future.done() and not future.cancelled() and future.exception() is None:
        return out
    with lock:
        outputs.add(future)
    future.add_done_callback(_untracker(outputs, lock), context=_CALLBACK_CONTEXT)
    return out


_CALLBACK_CONTEXT = contextvars.Context()
#: The untracking callback of the current program run's set of outputs (one object, not one per Output).
_UNTRACKER: tuple[set[Any], Callable[[asyncio.Future[Any]], None]] | None = None


def _untracker(outputs: set[Any], lock: Any) -> Callable[[asyncio.Future[Any]], None]:
    # A one-entry cache, replaced when a new program run (a new set) starts.
    global _UNTRACKER
    if _UNTRACKER is None or _UNTRACKER[0] is not outputs:
        _UNTRACKER = (outputs, functools.partial(_untrack, outputs, lock))
    return _UNTRACKER[1]


def _untrack(outputs: set[Any], lock: Any, future: asyncio.Future[Any]) -> None:
    """What ``Output._track``'s callback does: a failed or cancelled Output stays for the program to report."""
    if future.cancelled() or future.exception() is not None:
        return
    with lock:
        outputs.discard(future)


class _Derived(asyncio.Future[Any]):
    """The future of a ``derived`` Output, settled from its source's (an ``_OutputData`` future) as
    ``Output.apply``'s task would settle it; ``func`` gets the value, then ``args``."""

    __slots__ = ("_args", "_func")

    def __init__(self, func: Callable[..., Any], args: tuple[Any, ...], *, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop=loop)
        self._func, self._args = func, args

    def __call__(self, done: asyncio.Future[Any]) -> None:
        func, args = self._func, self._args
        del self._func, self._args  # run once; what they hold is not kept with the value
        if done.cancelled():
            self.cancel()
            return
        error = done.exception()
        if error is not None:
            self.set_exception(error)
            return
        got = done.result()
        if not got.is_known:
            self.set_result(_OUTPUT_DATA(resources=got.resources, value=None, is_known=False, is_secret=got.is_secret))
            return
        try:
            value = func(got.value, *args)
            if isinstance(value, pulumi.Output) or isawaitable(value):
                raise TypeError(f"derived(): {func!r} returned {type(value).__name__}; use Output.apply for that")
        except Exception as exc:  # handed to the Output, as apply's task would
            self.set_exception(exc)
            return
        self.set_result(_OUTPUT_DATA(resources=got.resources, value=value, is_known=True, is_secret=got.is_secret))


class OnAwait(Generic[T]):
    """An awaitable whose coroutine is created when it is awaited, not before: the parts of a hand-made
    ``pulumi.Output``. ``Output`` awaits its parts one after the other, so when the value fails (or the program
    ends first) the later parts are never awaited; built as coroutines up front, each would be "never awaited"
    (a RuntimeWarning per part)."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[], Coroutine[Any, Any, T]]) -> None:
        self._make = make

    def __await__(self) -> Generator[Any, None, T]:
        return self._make().__await__()


def ready(value: T) -> OnAwait[T]:
    """An awaitable of a value already there."""

    async def now() -> T:
        return value

    return OnAwait(now)


__all__ = ["OnAwait", "derived", "known_output", "ready"]
