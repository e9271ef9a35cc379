"""KubeRay's state machines, as far as this package reads them: the terminal states.

A leaf: plain Python, imports nothing of this package (tests/test_public_seams.py).
"""

from __future__ import annotations

from typing import Final

#: RayJob jobDeploymentStatus values after which nothing more happens: Complete and Failed
#: (IsJobDeploymentTerminal; a Failed RayJob that will be retried is written as Retrying, never as Failed)
#: and ValidationFailed (no transition out of it in v1.7.0). jobStatus is deliberately not used: a terminal
#: jobStatus while jobDeploymentStatus is still Running only means the submitter has not exited yet.
RAYJOB_TERMINAL_DEPLOYMENT_STATUSES: Final = ("Complete", "Failed", "ValidationFailed")

__all__ = ["RAYJOB_TERMINAL_DEPLOYMENT_STATUSES"]
