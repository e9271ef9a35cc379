"""Our phases as Argo CD health statuses: the one mapping the generated ``argocd/<kind>/health.lua`` scripts
(``scripts/gen-argocd-health``) and their tests use. Pure: no I/O, never imports pulumi."""

from __future__ import annotations

from typing import Final, Literal

from pulumi_kuberay.status._common import PHASES, Diagnosis, Phase

ArgoHealth = Literal["Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"]

#: Phase -> Argo CD health status. A finished RayJob is Healthy (Argo CD's own Job check says the same of a
#: completed Job); a failed object is Degraded (Argo CD has no "failed").
ARGOCD_HEALTH: Final[dict[Phase, ArgoHealth]] = {
    "healthy": "Healthy",
    "succeeded": "Healthy",
    "progressing": "Progressing",
    "degraded": "Degraded",
    "failed": "Degraded",
    "suspended": "Suspended",
    "unknown": "Unknown",
}
assert set(ARGOCD_HEALTH) == set(PHASES), "every phase needs an Argo CD health status"


def argocd_health(diagnosis: Diagnosis) -> ArgoHealth:
    """The Argo CD health status of a :func:`~pulumi_kuberay.status.diagnose` result."""
    return ARGOCD_HEALTH[diagnosis.phase]
