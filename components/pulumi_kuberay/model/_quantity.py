"""Kubernetes quantities (``500m``, ``16Gi``): the one spelling of their syntax, for the model's fields and errors."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import StringConstraints

from pulumi_kuberay.kuberay.quantity import QUANTITY_PATTERN as QUANTITY_PATTERN
from pulumi_kuberay.kuberay.quantity import amount as quantity_amount
from pulumi_kuberay.kuberay.resources import is_gpu_resource_key

#: Kubernetes ``x-kubernetes-int-or-string`` value (``2``, ``"500m"``, ``"http"``).
Quantity = int | str

#: A resource quantity: an integer, or a string in Kubernetes quantity syntax (``"500m"``, ``"16Gi"``).
ResourceQuantity = int | Annotated[str, StringConstraints(pattern=QUANTITY_PATTERN)]


#: A size written with a byte unit (``8GB``, ``512 MiB``): Kubernetes has no ``B``.
_BYTE_UNIT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGTPE])(i?)B\s*$", re.IGNORECASE)
_BINARY_POWER = {"K": 10, "M": 20, "G": 30, "T": 40, "P": 50, "E": 60}
_DECIMAL_POWER = {"K": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

#: Amounts counted in units, not bytes: CPU in cores (or millicores), accelerators and extended resources whole.
_COUNTED = ("cpu",)


def quantity_fix(value: Any, field: str) -> str:
    """The fix for a bad amount, by what ``field`` (its last key: ``cpu``, ``memory``, ``nvidia.com/gpu``...)
    counts: CPU in cores or millicores; accelerators and other extended resources in whole units; sizes in bytes
    with a binary suffix (``8GB`` -> ``8Gi``; ``8G`` is also valid but means 8*10^9 bytes)."""
    if field in _COUNTED:
        return 'write e.g. "500m" (half a core) or 2'
    if "/" in field or is_gpu_resource_key(field):
        return "write a whole number of units, e.g. 1"
    match = _BYTE_UNIT.match(value) if isinstance(value, str) else None
    if match:
        number, unit = match.group(1), match.group(2).upper()
        binary, decimal = _BINARY_POWER[unit], _DECIMAL_POWER[unit]
        return f'write "{number}{unit}i" ({number} x 2^{binary} bytes; "{number}{unit}" means {number} x 10^{decimal})'
    return 'write a size, e.g. "512Mi" or "16Gi"'


def is_quantity_key(field: str) -> bool:
    """A key that names a resource amount in ``resources.limits``/``requests`` or our shortcuts."""
    return field in ("cpu", "memory", "ephemeral-storage", "storage", "gpu", "shm_size", "object_store_memory") or (
        field.startswith("hugepages-") or "/" in field
    )


__all__ = ["QUANTITY_PATTERN", "Quantity", "ResourceQuantity", "is_quantity_key", "quantity_amount", "quantity_fix"]
