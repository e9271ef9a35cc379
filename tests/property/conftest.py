"""Hypothesis profiles of the property tier.

``default``: a few hundred to a few thousand examples per property, bounded so the whole tier stays under
about a minute on two cores. ``deep`` (``PULUMI_KUBERAY_DEEP=1``): ten times as many examples per property.
Every test states its budget as a multiple of :data:`SCALE` through :func:`budget`.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings

DEEP = os.environ.get("PULUMI_KUBERAY_DEEP", "") not in ("", "0")
SCALE = 10 if DEEP else 1

_COMMON: dict[str, Any] = {
    "deadline": None,
    "print_blob": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
}
settings.register_profile("default", max_examples=100, **_COMMON)
settings.register_profile("deep", max_examples=1000, **_COMMON)
settings.load_profile("deep" if DEEP else "default")


def budget(normal: int) -> settings:
    """Settings running ``normal`` examples (ten times as many in deep mode)."""
    return settings(max_examples=normal * SCALE)
