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


def merge_maps(base: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """Helm's ``mergeMaps`` of one values file over the files before it (``-f a -f b``): maps merge recursively,
    anything else replaces, and a ``null`` stays (unlike :func:`coalesce`: it deletes a chart default later).

    >>> merge_maps({"image": {"tag": "a"}, "head": {}}, {"image": {"pullPolicy": None}})
    {'image': {'tag': 'a', 'pullPolicy': None}, 'head': {}}
    """
    out = dict(base)
    for key, value in new.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge_maps(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


__all__ = ["coalesce", "merge_maps"]
