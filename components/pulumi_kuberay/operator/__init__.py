"""The KubeRay operator: what to install of it, what it does once installed, its chart values and its CRDs.

Plain Python (no pulumi; the component is :class:`~pulumi_kuberay.resources.kuberay_operator.KubeRayOperator`):

- :mod:`.setup`: :class:`OperatorSetup`, the installed operator as the rules see it (version, effective feature
  gates, watched namespaces), and the default namespace; plain dataclasses, what ``rules`` imports;
- :mod:`.args`: :class:`KubeRayOperatorArgs`, what to install (chart, version, CRDs, conveniences, values);
- :mod:`.values`: :class:`KubeRayOperatorValues`, the typed values of the kuberay-operator Helm chart;
- :mod:`.derive`: one :class:`OperatorSetup` derived from args, chart values, a rendered Deployment or the stack
  config (:func:`resolve_operator`, :func:`setup_from_values`, :func:`setup_from_deployment`, :func:`merge_target`);
- :mod:`.crds`: the CRDs the operator component applies (directory, version label, downgrade check).

The names below are exported lazily (PEP 562): importing this package loads none of its modules, so ``rules``
may import :mod:`.setup` without pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LAZY: dict[str, str] = {
    "DEFAULT_NAMESPACE": ".setup",
    "OperatorSetup": ".setup",
    "CHART_NAME": ".args",
    "KubeRayOperatorArgs": ".args",
    "CHART_VERSION": ".values",
    "KubeRayOperatorValues": ".values",
    "ResolvedOperator": ".derive",
    "TargetConflictError": ".derive",
    "merge_target": ".derive",
    "resolve_operator": ".derive",
    "setup_from_deployment": ".derive",
    "setup_from_values": ".derive",
    "load_crds": ".crds",
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
    from .args import CHART_NAME as CHART_NAME
    from .args import KubeRayOperatorArgs as KubeRayOperatorArgs
    from .crds import load_crds as load_crds
    from .derive import ResolvedOperator as ResolvedOperator
    from .derive import TargetConflictError as TargetConflictError
    from .derive import merge_target as merge_target
    from .derive import resolve_operator as resolve_operator
    from .derive import setup_from_deployment as setup_from_deployment
    from .derive import setup_from_values as setup_from_values
    from .setup import DEFAULT_NAMESPACE as DEFAULT_NAMESPACE
    from .setup import OperatorSetup as OperatorSetup
    from .values import CHART_VERSION as CHART_VERSION
    from .values import KubeRayOperatorValues as KubeRayOperatorValues
