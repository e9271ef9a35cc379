"""What a rule's severity means in each environment: the one mapping of the policy pack and the admission policies.

``dev`` only advises; ``staging`` blocks critical rules; ``prod`` blocks high and critical ones. The CrossGuard pack
reads it as enforcement levels (``policy._pack.enforcement_for``, the policy config files
``stacks/policy.<env>.json``), the ValidatingAdmissionPolicies of :mod:`pulumi_kuberay.admission` as binding actions
(mandatory: Deny, advisory: Warn). Plain Python: never imports pulumi.
"""

from __future__ import annotations

from typing import Literal

from ._engine import SEVERITY_ORDER

Level = Literal["advisory", "mandatory"]

#: The least severity each environment blocks (None: it blocks nothing).
MANDATORY_FROM: dict[str, str | None] = {"dev": None, "staging": "critical", "prod": "high"}


def enforcement_level(severity: str, environment: str) -> Level:
    """``"mandatory"`` when ``environment`` blocks a finding of ``severity``, else ``"advisory"``."""
    least = MANDATORY_FROM[environment]
    if least is not None and SEVERITY_ORDER[severity] >= SEVERITY_ORDER[least]:
        return "mandatory"
    return "advisory"
