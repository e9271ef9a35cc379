"""The Kubernetes facts KubeRay's objects meet: the Pod Security Standards profiles, least to most restrictive;
the bounds of the OpenAPI integer formats the CRDs use (``int32``, ``int64``), as the API server enforces them.

A leaf: plain Python, imports nothing of this package (tests/test_public_seams.py). Cheap to import, so the
``kuberay-lint`` front may spell its ``--pod-security-profile`` choices from here.
"""

from __future__ import annotations

from typing import Literal, get_args

PodSecurityProfile = Literal["privileged", "baseline", "restricted"]
POD_SECURITY_PROFILES: tuple[PodSecurityProfile, ...] = get_args(PodSecurityProfile)

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

__all__ = ["INT32_MAX", "INT32_MIN", "INT64_MAX", "INT64_MIN", "POD_SECURITY_PROFILES", "PodSecurityProfile"]
