"""Kubernetes quantities (``500m``, ``16Gi``): the one spelling of their syntax, for the model's fields and errors."""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

#: Kubernetes ``x-kubernetes-int-or-string`` value (``2``, ``"500m"``, ``"http"``).
Quantity = int | str

#: The Kubernetes resource-quantity syntax the CRDs require for resources, limits and sizes.
QUANTITY_PATTERN = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"

#: A resource quantity: an integer, or a string in Kubernetes quantity syntax (``"500m"``, ``"16Gi"``).
ResourceQuantity = int | Annotated[str, StringConstraints(pattern=QUANTITY_PATTERN)]
