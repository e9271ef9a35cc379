"""The one "did you mean ...?" of the package: the closest known name to a mistyped one.

difflib alone misses the commonest slips of a user: a longer or shorter form of the name (``production`` for
``prod``, ``stag`` for ``staging``): its ratio falls under any useful cutoff. So a unique prefix match (either way,
ignoring case) comes first, then difflib's closest match. Plain Python: the model, the rules, the CLIs, the
components and a program's own settings all use it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: difflib's ratio under which a candidate is not offered (difflib's own default).
CUTOFF = 0.6

#: The shortest prefix taken as a slip of a name: shorter ones match too much ("p" would be "prod").
MIN_PREFIX = 3


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate ``word`` most likely meant, or ``None`` when none is close.

    In order: the same name in another case; the one candidate that starts with ``word`` or that ``word`` starts
    with (ignoring case, at least :data:`MIN_PREFIX` characters in common); difflib's closest at :data:`CUTOFF`,
    compared without case. ``word`` itself is never offered.
    """
    pool = [c for c in dict.fromkeys(candidates) if c != word]
    if not word or not pool:
        return None
    lowered = word.lower()
    by_lower: dict[str, str] = {}
    for candidate in pool:
        by_lower.setdefault(candidate.lower(), candidate)
    if lowered in by_lower:
        return by_lower[lowered]
    if len(lowered) >= MIN_PREFIX:
        prefixed = [
            c
            for low, c in by_lower.items()
            if len(low) >= MIN_PREFIX and (low.startswith(lowered) or lowered.startswith(low))
        ]
        if len(prefixed) == 1:
            return prefixed[0]
    close = difflib.get_close_matches(lowered, list(by_lower), n=1, cutoff=CUTOFF)
    return by_lower[close[0]] if close else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """``"did you mean 'prod'?"`` for the candidate :func:`closest` finds, else ``None``."""
    guess = closest(word, candidates)
    return None if guess is None else f"did you mean {guess!r}?"


__all__ = ["CUTOFF", "MIN_PREFIX", "closest", "did_you_mean"]
