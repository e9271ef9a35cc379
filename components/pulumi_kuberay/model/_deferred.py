"""Values known later (``pulumi.Output``, awaitables): the model says "a ``T`` or an Output of one" without
importing pulumi, and never validates such a value (the component resolves it first).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, Union

from pydantic import BaseModel

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Deferred(Protocol[T_co]):
    """A value a deployment engine computes later. ``pulumi.Output[T]`` satisfies it structurally, so the
    model can say "a ``T`` or an Output of one" without importing pulumi."""

    def apply(self, func: Any, run_with_unknowns: bool = ...) -> Any: ...

    def future(self, with_unknowns: bool = ...) -> Awaitable[T_co | None]: ...


if TYPE_CHECKING:
    #: ``In[str]``: a ``str``, an awaitable of one or a ``pulumi.Output[str]`` (mypy); plain ``str`` to pydantic.
    In = Union[T, Awaitable[T], Deferred[T]]  # noqa: UP007 - a generic alias needs Union
    #: ``Obj[Volume]``: a ``Volume`` or a dict in its shape (CRD or snake_case names), as pydantic accepts.
    Obj = Union[T, Mapping[str, Any]]  # noqa: UP007 - a generic alias needs Union
else:

    class _InputAlias:
        """At run time ``In[T]`` is ``T``: pydantic validates resolved values only (see :func:`is_deferred`)."""

        def __getitem__(self, item: Any) -> Any:
            return item

    In = _InputAlias()
    Obj = _InputAlias()


def known(value: In[T]) -> T:
    """``value`` typed as resolved: a validated model never holds a deferred value (for mypy only)."""
    return value  # type: ignore[return-value]


def is_deferred(value: Any) -> bool:
    """True for a value that is not known yet: an awaitable, or an object with ``apply`` and ``future``
    (``pulumi.Output``, checked by duck typing so this module never imports pulumi)."""
    if isinstance(value, (str, bytes, int, float, bool, type(None), Mapping, list, tuple, BaseModel)):
        return False
    return inspect.isawaitable(value) or (
        callable(getattr(type(value), "apply", None)) and callable(getattr(type(value), "future", None))
    )


