"""What KubeRay is, as data: the API group and version, the kinds, the operator versions and feature gates.

A leaf: plain Python, imports nothing of this package (tests/test_public_seams.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

#: An operator version, ``(major, minor, patch)``.
Version = tuple[int, int, int]

#: The API group of the KubeRay custom resources, and their one served version.
RAY_GROUP: Final = "ray.io"
API_VERSION: Final = "ray.io/v1"
#: The version before ``v1`` (served until KubeRay 1.2): a manifest still written for it is read as ``v1``.
LEGACY_API_VERSION: Final = "ray.io/v1alpha1"
#: The API server's path of ``ray.io/v1`` (``<API_PATH>/namespaces/<ns>/<plural>/<name>``).
API_PATH: Final = f"/apis/{API_VERSION}"
#: The kinds of ``ray.io/v1``.
KINDS = ("RayCluster", "RayJob", "RayService", "RayCronJob")
#: Each kind's resource name in the API's paths (the CRDs' ``spec.names.plural``).
PLURALS: Final[Mapping[str, str]] = {
    "RayCluster": "rayclusters",
    "RayJob": "rayjobs",
    "RayService": "rayservices",
    "RayCronJob": "raycronjobs",
}
#: The operator version targeted when none is given, and its text (the chart's version and image tag follow it).
LATEST_VERSION: Version = (1, 7, 0)
LATEST_VERSION_TEXT: Final = ".".join(str(part) for part in LATEST_VERSION)

#: Operator feature gates of KubeRay v1.7.0 and their defaults (upstream ``features.defaultFeatureGates``).
DEFAULT_FEATURE_GATES: dict[str, bool] = {
    "RayClusterStatusConditions": True,
    "RayJobDeletionPolicy": True,
    "RayMultiHostIndexing": True,
    "RayServiceIncrementalUpgrade": True,
    "RayCronJob": False,
    "SidecarSubmitterRestart": False,
    "RayClusterNetworkPolicy": False,
    "GCSFaultToleranceEmbeddedStorage": False,
    "RayClusterMTLS": False,
    "RayClusterHistoryServer": False,
    "KubernetesWAS": False,
}


def default_feature_gates(version: Version = LATEST_VERSION) -> dict[str, bool]:
    """The operator's gate defaults at ``version`` (gates reach beta, and so default on, over releases)."""
    gates = dict(DEFAULT_FEATURE_GATES)
    if version < (1, 7, 0):
        gates["RayServiceIncrementalUpgrade"] = False  # alpha in 1.5-1.6
    if version < (1, 6, 0):
        gates["RayJobDeletionPolicy"] = False  # alpha in 1.3-1.5
        gates["RayMultiHostIndexing"] = False  # alpha in 1.5
    if version < (1, 3, 0):
        gates["RayClusterStatusConditions"] = False  # alpha in 1.2
    return gates


_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?\s*$")


def parse_kuberay_version(version: str | tuple[int, ...]) -> Version:
    """``"1.6.0"``, ``"v1.6"`` or ``(1, 6)`` -> ``(1, 6, 0)``; anything else is a caller bug (ValueError)."""
    if isinstance(version, tuple):
        if 2 <= len(version) <= 3 and all(isinstance(p, int) and not isinstance(p, bool) for p in version):
            major, minor, *rest = version
            return (major, minor, rest[0] if rest else 0)
        raise ValueError(f"invalid KubeRay version {version!r}: expected (major, minor[, patch])")
    if not isinstance(version, str):
        raise ValueError(f"invalid KubeRay version {version!r}: expected a string like '1.7.0'")
    match = _VERSION.match(version)
    if match is None:
        raise ValueError(f"invalid KubeRay version {version!r}: expected 'MAJOR.MINOR[.PATCH]', e.g. '1.7.0'")
    return (int(match.group(1)), int(match.group(2)), int(match.group(3) or 0))


#: The Ray releases at which KubeRay v1.7.0 builds or validates a cluster differently by its ``rayVersion``: the
#: submitter's ``ray job submit`` flags (2.6.0, ``GetK8sJobCommand``), token auth (2.52.0) and Kubernetes token auth
#: (2.55.0, ``ValidateRayClusterSpec``), HTTP health probes (2.53.0, ``supportsUnifiedHealthCheck``), worker group
#: priority (2.56.0, ``validateWorkerGroupPriority``).
RAY_VERSION_THRESHOLDS: tuple[tuple[int, int, int], ...] = ((2, 6, 0), (2, 52, 0), (2, 53, 0), (2, 55, 0), (2, 56, 0))


def format_version(version: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in version)


__all__ = [
    "API_PATH",
    "API_VERSION",
    "DEFAULT_FEATURE_GATES",
    "KINDS",
    "LATEST_VERSION",
    "LATEST_VERSION_TEXT",
    "LEGACY_API_VERSION",
    "PLURALS",
    "RAY_GROUP",
    "RAY_VERSION_THRESHOLDS",
    "Version",
    "default_feature_gates",
    "format_version",
    "parse_kuberay_version",
]
