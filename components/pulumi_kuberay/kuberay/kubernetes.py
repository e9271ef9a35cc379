"""The Kubernetes facts KubeRay's objects meet: the Pod Security Standards profiles, least to most restrictive.

A leaf: plain Python, imports nothing of this package (tests/test_public_seams.py). Cheap to import, so the
``kuberay-lint`` front may spell its ``--pod-security-profile`` choices from here.
"""

from __future__ import annotations

from typing import Literal, get_args

PodSecurityProfile = Literal["privileged", "baseline", "restricted"]
POD_SECURITY_PROFILES: tuple[PodSecurityProfile, ...] = get_args(PodSecurityProfile)

__all__ = ["POD_SECURITY_PROFILES", "PodSecurityProfile"]
