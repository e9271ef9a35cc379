"""Helm's value semantics, shared by the two charts we read: the kuberay-operator chart (the operator component,
``kuberay-lint --operator-values``) and the ray-cluster chart (``kuberay-convert`` of Helm values)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


def coalesce(*, defaults: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """Helm's coalescing of user ``values`` over a chart's ``defaults``: maps merge recursively, anything else
    replaces, ``null`` deletes the default. Neither input is changed (the result shares nothing with them).

    >>> coalesce(defaults={"image": {"tag": "a", "pullPolicy": "IfNotPresent"}}, values={"image": {"tag": "b"}})
    {'image': {'tag': 'b', 'pullPolicy': 'IfNotPresent'}}
    """
    out = copy.deepcopy(dict(defaults))
    for key, value in values.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = coalesce(defaults=out[key], values=value)
        else:
            out[key] = copy.deepcopy(value)
    return out


__all__ = ["coalesce"]
