"""Typed Pulumi components, a rule catalogue and command-line tools for KubeRay (``ray.io/v1``).

Nothing heavy is imported up front (PEP 562 lazy exports): the models, the rule catalogue and the
``kuberay-lint`` / ``kuberay-explain`` commands never load pulumi; the components load it on first use.

Example::

    import pulumi_kuberay as kr

    cluster = kr.RayCluster("shared", kr.RayClusterSpec(
        ray_version="2.52.0",
        image="rayproject/ray:2.52.0",
        enable_in_tree_autoscaling=True,
        head_group_spec=kr.HeadGroupSpec(cpu=2, memory="8Gi"),
        worker_group_specs=[kr.WorkerGroupSpec(group_name="cpu", cpu=4, memory="16Gi",
                                               min_replicas=0, max_replicas=10)],
    ))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    # pure model (no pulumi)
    "ManifestError": "pulumi_kuberay.model._base",
    "Problem": "pulumi_kuberay.model._base",
    "load_manifest": "pulumi_kuberay.model.manifest",
    "RayClusterManifest": "pulumi_kuberay.model.manifest",
    "RayJobManifest": "pulumi_kuberay.model.manifest",
    "RayServiceManifest": "pulumi_kuberay.model.manifest",
    "RayCronJobManifest": "pulumi_kuberay.model.manifest",
    "RayClusterSpec": "pulumi_kuberay.model.cluster",
    "HeadGroupSpec": "pulumi_kuberay.model.cluster",
    "WorkerGroupSpec": "pulumi_kuberay.model.cluster",
    "AutoscalerOptions": "pulumi_kuberay.model.cluster",
    "GcsFaultToleranceOptions": "pulumi_kuberay.model.cluster",
    "SecretRef": "pulumi_kuberay.model.pod",
    "RayJobSpec": "pulumi_kuberay.model.job",
    "RayServiceSpec": "pulumi_kuberay.model.service",
    "RayCronJobSpec": "pulumi_kuberay.model.cronjob",
    "ServeConfig": "pulumi_kuberay.model.serve",
    "ServeApplication": "pulumi_kuberay.model.serve",
    "ServeDeployment": "pulumi_kuberay.model.serve",
    "diagnose": "pulumi_kuberay.status",
    "Diagnosis": "pulumi_kuberay.status",
    # Pulumi shell (imports pulumi on first use)
    "RayCluster": "pulumi_kuberay.resources.cluster",
    "RayJob": "pulumi_kuberay.resources.job",
    "RayService": "pulumi_kuberay.resources.service",
    "RayCronJob": "pulumi_kuberay.resources.cronjob",
    "CriticalFindingsError": "pulumi_kuberay.resources._shared",
    "RayJobFailedError": "pulumi_kuberay.resources.job",
}

__all__ = sorted([*_LAZY, "rules"])


def __getattr__(name: str) -> Any:
    if name == "rules":
        return importlib.import_module("pulumi_kuberay.rules")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pulumi_kuberay' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from pulumi_kuberay import rules as rules
    from pulumi_kuberay.model._base import ManifestError as ManifestError
    from pulumi_kuberay.model._base import Problem as Problem
    from pulumi_kuberay.model.cluster import AutoscalerOptions as AutoscalerOptions
    from pulumi_kuberay.model.cluster import GcsFaultToleranceOptions as GcsFaultToleranceOptions
    from pulumi_kuberay.model.cluster import HeadGroupSpec as HeadGroupSpec
    from pulumi_kuberay.model.cluster import RayClusterSpec as RayClusterSpec
    from pulumi_kuberay.model.cluster import WorkerGroupSpec as WorkerGroupSpec
    from pulumi_kuberay.model.cronjob import RayCronJobSpec as RayCronJobSpec
    from pulumi_kuberay.model.job import RayJobSpec as RayJobSpec
    from pulumi_kuberay.model.manifest import RayClusterManifest as RayClusterManifest
    from pulumi_kuberay.model.manifest import RayCronJobManifest as RayCronJobManifest
    from pulumi_kuberay.model.manifest import RayJobManifest as RayJobManifest
    from pulumi_kuberay.model.manifest import RayServiceManifest as RayServiceManifest
    from pulumi_kuberay.model.manifest import load_manifest as load_manifest
    from pulumi_kuberay.model.pod import SecretRef as SecretRef
    from pulumi_kuberay.model.serve import ServeApplication as ServeApplication
    from pulumi_kuberay.model.serve import ServeConfig as ServeConfig
    from pulumi_kuberay.model.serve import ServeDeployment as ServeDeployment
    from pulumi_kuberay.model.service import RayServiceSpec as RayServiceSpec
    from pulumi_kuberay.resources._shared import CriticalFindingsError as CriticalFindingsError
    from pulumi_kuberay.resources.cluster import RayCluster as RayCluster
    from pulumi_kuberay.resources.cronjob import RayCronJob as RayCronJob
    from pulumi_kuberay.resources.job import RayJob as RayJob
    from pulumi_kuberay.resources.job import RayJobFailedError as RayJobFailedError
    from pulumi_kuberay.resources.service import RayService as RayService
    from pulumi_kuberay.status import Diagnosis as Diagnosis
    from pulumi_kuberay.status import diagnose as diagnose
