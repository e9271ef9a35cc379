"""The Pulumi shell: the components (RayCluster, RayJob, RayService, RayCronJob, KubeRayOperator) and what other
packages use of it, exported lazily (PEP 562): importing ``pulumi_kuberay.resources`` does not import pulumi.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LAZY: dict[str, str] = {
    "CriticalFindingsError": "._shared",
    "format_finding": "._shared",
    "watch_with": "._component_await",
    "renders_to": "._change_plan",
    "use_cluster_snapshot": "._preflight",
}

__all__ = sorted(_LAZY)


if not TYPE_CHECKING:  # mypy reads the imports below instead, so a misspelt name is an error

    def __getattr__(name: str) -> Any:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value
        return value


if TYPE_CHECKING:  # the same names as _LAZY
    from ._change_plan import renders_to as renders_to
    from ._component_await import watch_with as watch_with
    from ._preflight import use_cluster_snapshot as use_cluster_snapshot
    from ._shared import CriticalFindingsError as CriticalFindingsError
    from ._shared import format_finding as format_finding
