"""The typed model of the ray.io/v1 custom resources (pure pydantic, never imports pulumi).

The names other packages use are exported here, lazily (PEP 562, like the package root): importing
``pulumi_kuberay.model`` costs nothing, a name loads its module (and pydantic) on first use. The generated
Kubernetes types of ``_k8s.py`` are exported too, every name of its ``__all__``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LAZY: dict[str, str] = {
    # errors (what, where, how to fix)
    "KubeRayDeprecationWarning": "._errors",
    "ManifestError": "._errors",
    "Problem": "._errors",
    "SpecError": "._errors",
    "problems_from_validation_error": "._errors",
    "validate_as": "._errors",
    # the base model and values known later
    "KubeModel": "._base",
    "holds_deferred": "._base",
    "render_scalar": "._base",
    "pod_refusals": "._k8s_checks",
    "refusals_recorded": "._k8s_checks",
    "Deferred": "._deferred",
    "In": "._deferred",
    "is_deferred": "._deferred",
    "KubeManifest": "._object",
    "ObjectMeta": "._object",
    # YAML, Helm values, names
    "YAML_LOADER": "._yaml",
    "YAMLError": "._yaml",
    "parse_yaml": "._yaml",
    "runtime_env_error": "._yaml",
    "coalesce": "._helm_values",
    "merge_maps": "._helm_values",
    "is_dns1035_label": "._names",
    "lower_camel": "._names",
    "lower_camel_keep_case": "._names",
    # quantities (CPU, memory, GPUs)
    "quantity_amount": "._quantity",
}

#: The generated Kubernetes types (``_k8s.__all__``): class names, so capitalised; no other name here is.
_K8S = "._k8s"

__all__ = sorted(_LAZY)  # and every name of _k8s.__all__ (not listed here: that would import pydantic)


if not TYPE_CHECKING:  # mypy reads the imports below instead, so a misspelt name is an error

    def __getattr__(name: str) -> Any:
        module = _LAZY.get(name)
        if module is None and name[:1].isupper():
            k8s = importlib.import_module(_K8S, __name__)
            if name in k8s.__all__:
                module = _K8S
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value
        return value


if TYPE_CHECKING:  # the same names as _LAZY, and the Kubernetes types
    from ._base import KubeModel as KubeModel
    from ._base import holds_deferred as holds_deferred
    from ._base import render_scalar as render_scalar
    from ._deferred import Deferred as Deferred
    from ._deferred import In as In
    from ._deferred import is_deferred as is_deferred
    from ._errors import KubeRayDeprecationWarning as KubeRayDeprecationWarning
    from ._errors import ManifestError as ManifestError
    from ._errors import Problem as Problem
    from ._errors import SpecError as SpecError
    from ._errors import problems_from_validation_error as problems_from_validation_error
    from ._errors import validate_as as validate_as
    from ._helm_values import coalesce as coalesce
    from ._helm_values import merge_maps as merge_maps
    from ._k8s import *  # noqa: F403
    from ._k8s_checks import pod_refusals as pod_refusals
    from ._k8s_checks import refusals_recorded as refusals_recorded
    from ._names import is_dns1035_label as is_dns1035_label
    from ._names import lower_camel as lower_camel
    from ._names import lower_camel_keep_case as lower_camel_keep_case
    from ._object import KubeManifest as KubeManifest
    from ._object import ObjectMeta as ObjectMeta
    from ._quantity import quantity_amount as quantity_amount
    from ._yaml import YAML_LOADER as YAML_LOADER
    from ._yaml import YAMLError as YAMLError
    from ._yaml import parse_yaml as parse_yaml
    from ._yaml import runtime_env_error as runtime_env_error
