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
    ), namespace=namespace.metadata.name)   # any argument or field may be a pulumi.Input

Every public type lives here (one flat namespace): the specs, their parts, the Kubernetes types they use
(``Toleration``, ``Volume``, ``SecurityContext``, ...), the components, the errors and ``diagnose``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    # pure model (no pulumi): errors and manifests
    "ManifestError": "pulumi_kuberay.model._errors",
    "Problem": "pulumi_kuberay.model._errors",
    "SpecError": "pulumi_kuberay.model._errors",
    "Deferred": "pulumi_kuberay.model._deferred",
    "In": "pulumi_kuberay.model._deferred",
    "load_manifest": "pulumi_kuberay.model.manifest",
    "KubeManifest": "pulumi_kuberay.model._object",
    "ObjectMeta": "pulumi_kuberay.model._object",
    "RayClusterManifest": "pulumi_kuberay.model.manifest",
    "RayJobManifest": "pulumi_kuberay.model.job",
    "RayServiceManifest": "pulumi_kuberay.model.service",
    "RayCronJobManifest": "pulumi_kuberay.model.cronjob",
    # RayCluster spec
    "RayClusterSpec": "pulumi_kuberay.model.cluster",
    "HeadGroupSpec": "pulumi_kuberay.model.cluster",
    "WorkerGroupSpec": "pulumi_kuberay.model.cluster",
    "AutoscalerOptions": "pulumi_kuberay.model.cluster",
    "GcsFaultToleranceOptions": "pulumi_kuberay.model.cluster",
    "GcsStorage": "pulumi_kuberay.model.cluster",
    "RedisCredential": "pulumi_kuberay.model.cluster",
    "AuthOptions": "pulumi_kuberay.model.cluster",
    "IngressOptions": "pulumi_kuberay.model.cluster",
    "ScaleStrategy": "pulumi_kuberay.model.cluster",
    "RayClusterUpgradeStrategy": "pulumi_kuberay.model.cluster",
    "NetworkPolicyOptions": "pulumi_kuberay.model.cluster",
    "NetworkPolicyRules": "pulumi_kuberay.model.cluster",
    "WorkerGroupNetworkPolicyRules": "pulumi_kuberay.model.cluster",
    "TlsOptions": "pulumi_kuberay.model.cluster",
    "HistoryServerOptions": "pulumi_kuberay.model.cluster",
    "CollectorOptions": "pulumi_kuberay.model.cluster",
    "SecretRef": "pulumi_kuberay.model.pod",
    "HARDENED_SECURITY_CONTEXT": "pulumi_kuberay.model.pod",
    # RayJob, RayService, RayCronJob specs and the Serve config
    "RayJobSpec": "pulumi_kuberay.model.job",
    "DeletionStrategy": "pulumi_kuberay.model.job",
    "DeletionRule": "pulumi_kuberay.model.job",
    "DeletionCondition": "pulumi_kuberay.model.job",
    "DeletionPolicy": "pulumi_kuberay.model.job",
    "SubmitterConfig": "pulumi_kuberay.model.job",
    "RayServiceSpec": "pulumi_kuberay.model.service",
    "ServiceUpgradeStrategy": "pulumi_kuberay.model.service",
    "ClusterUpgradeOptions": "pulumi_kuberay.model.service",
    "KubeRayDeprecationWarning": "pulumi_kuberay.model.service",
    "RayCronJobSpec": "pulumi_kuberay.model.cronjob",
    "ServeConfig": "pulumi_kuberay.model.serve",
    "ServeApplication": "pulumi_kuberay.model.serve",
    "ServeDeployment": "pulumi_kuberay.model.serve",
    "AutoscalingConfig": "pulumi_kuberay.model.serve",
    "RayActorOptions": "pulumi_kuberay.model.serve",
    "HTTPOptions": "pulumi_kuberay.model.serve",
    "GrpcOptions": "pulumi_kuberay.model.serve",
    "LoggingConfig": "pulumi_kuberay.model.serve",
    # Kubernetes types used in the specs
    "Affinity": "pulumi_kuberay.model._k8s",
    "Capabilities": "pulumi_kuberay.model._k8s",
    "Container": "pulumi_kuberay.model._k8s",
    "ContainerPort": "pulumi_kuberay.model._k8s",
    "EnvFromSource": "pulumi_kuberay.model._k8s",
    "EnvVar": "pulumi_kuberay.model._k8s",
    "EnvVarSource": "pulumi_kuberay.model._k8s",
    "LocalObjectReference": "pulumi_kuberay.model._k8s",
    "PodSecurityContext": "pulumi_kuberay.model._k8s",
    "PodSpec": "pulumi_kuberay.model._k8s",
    "PodTemplateSpec": "pulumi_kuberay.model._k8s",
    "ResourceRequirements": "pulumi_kuberay.model._k8s",
    "SecurityContext": "pulumi_kuberay.model._k8s",
    "Service": "pulumi_kuberay.model._k8s",
    "Toleration": "pulumi_kuberay.model._k8s",
    "Volume": "pulumi_kuberay.model._k8s",
    "VolumeMount": "pulumi_kuberay.model._k8s",
    # status
    "diagnose": "pulumi_kuberay.status",
    "Diagnosis": "pulumi_kuberay.status",
    # Pulumi shell (imports pulumi on first use)
    "RayCluster": "pulumi_kuberay.resources.cluster",
    "RayJob": "pulumi_kuberay.resources.job",
    "RayJobFailedError": "pulumi_kuberay.resources.job",
    "watch_with": "pulumi_kuberay.resources._component_await",
    "RayService": "pulumi_kuberay.resources.service",
    "RayCronJob": "pulumi_kuberay.resources.cronjob",
    "KubeRayOperator": "pulumi_kuberay.resources.kuberay_operator",
    "CriticalFindingsError": "pulumi_kuberay.resources._shared",
    "KUEUE_QUEUE_LABEL": "pulumi_kuberay.resources._component",
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


if TYPE_CHECKING:  # the same names as _LAZY (tests/test_inputs_api.py keeps them in sync)
    from pulumi_kuberay import rules as rules
    from pulumi_kuberay.model._deferred import Deferred as Deferred
    from pulumi_kuberay.model._deferred import In as In
    from pulumi_kuberay.model._errors import ManifestError as ManifestError
    from pulumi_kuberay.model._errors import Problem as Problem
    from pulumi_kuberay.model._errors import SpecError as SpecError
    from pulumi_kuberay.model._k8s import Affinity as Affinity
    from pulumi_kuberay.model._k8s import Capabilities as Capabilities
    from pulumi_kuberay.model._k8s import Container as Container
    from pulumi_kuberay.model._k8s import ContainerPort as ContainerPort
    from pulumi_kuberay.model._k8s import EnvFromSource as EnvFromSource
    from pulumi_kuberay.model._k8s import EnvVar as EnvVar
    from pulumi_kuberay.model._k8s import EnvVarSource as EnvVarSource
    from pulumi_kuberay.model._k8s import LocalObjectReference as LocalObjectReference
    from pulumi_kuberay.model._k8s import PodSecurityContext as PodSecurityContext
    from pulumi_kuberay.model._k8s import PodSpec as PodSpec
    from pulumi_kuberay.model._k8s import PodTemplateSpec as PodTemplateSpec
    from pulumi_kuberay.model._k8s import ResourceRequirements as ResourceRequirements
    from pulumi_kuberay.model._k8s import SecurityContext as SecurityContext
    from pulumi_kuberay.model._k8s import Service as Service
    from pulumi_kuberay.model._k8s import Toleration as Toleration
    from pulumi_kuberay.model._k8s import Volume as Volume
    from pulumi_kuberay.model._k8s import VolumeMount as VolumeMount
    from pulumi_kuberay.model._object import KubeManifest as KubeManifest
    from pulumi_kuberay.model._object import ObjectMeta as ObjectMeta
    from pulumi_kuberay.model.cluster import AuthOptions as AuthOptions
    from pulumi_kuberay.model.cluster import AutoscalerOptions as AutoscalerOptions
    from pulumi_kuberay.model.cluster import CollectorOptions as CollectorOptions
    from pulumi_kuberay.model.cluster import GcsFaultToleranceOptions as GcsFaultToleranceOptions
    from pulumi_kuberay.model.cluster import GcsStorage as GcsStorage
    from pulumi_kuberay.model.cluster import HeadGroupSpec as HeadGroupSpec
    from pulumi_kuberay.model.cluster import HistoryServerOptions as HistoryServerOptions
    from pulumi_kuberay.model.cluster import IngressOptions as IngressOptions
    from pulumi_kuberay.model.cluster import NetworkPolicyOptions as NetworkPolicyOptions
    from pulumi_kuberay.model.cluster import NetworkPolicyRules as NetworkPolicyRules
    from pulumi_kuberay.model.cluster import RayClusterSpec as RayClusterSpec
    from pulumi_kuberay.model.cluster import RayClusterUpgradeStrategy as RayClusterUpgradeStrategy
    from pulumi_kuberay.model.cluster import RedisCredential as RedisCredential
    from pulumi_kuberay.model.cluster import ScaleStrategy as ScaleStrategy
    from pulumi_kuberay.model.cluster import TlsOptions as TlsOptions
    from pulumi_kuberay.model.cluster import WorkerGroupNetworkPolicyRules as WorkerGroupNetworkPolicyRules
    from pulumi_kuberay.model.cluster import WorkerGroupSpec as WorkerGroupSpec
    from pulumi_kuberay.model.cronjob import RayCronJobManifest as RayCronJobManifest
    from pulumi_kuberay.model.cronjob import RayCronJobSpec as RayCronJobSpec
    from pulumi_kuberay.model.job import DeletionCondition as DeletionCondition
    from pulumi_kuberay.model.job import DeletionPolicy as DeletionPolicy
    from pulumi_kuberay.model.job import DeletionRule as DeletionRule
    from pulumi_kuberay.model.job import DeletionStrategy as DeletionStrategy
    from pulumi_kuberay.model.job import RayJobManifest as RayJobManifest
    from pulumi_kuberay.model.job import RayJobSpec as RayJobSpec
    from pulumi_kuberay.model.job import SubmitterConfig as SubmitterConfig
    from pulumi_kuberay.model.manifest import RayClusterManifest as RayClusterManifest
    from pulumi_kuberay.model.manifest import load_manifest as load_manifest
    from pulumi_kuberay.model.pod import HARDENED_SECURITY_CONTEXT as HARDENED_SECURITY_CONTEXT
    from pulumi_kuberay.model.pod import SecretRef as SecretRef
    from pulumi_kuberay.model.serve import AutoscalingConfig as AutoscalingConfig
    from pulumi_kuberay.model.serve import GrpcOptions as GrpcOptions
    from pulumi_kuberay.model.serve import HTTPOptions as HTTPOptions
    from pulumi_kuberay.model.serve import LoggingConfig as LoggingConfig
    from pulumi_kuberay.model.serve import RayActorOptions as RayActorOptions
    from pulumi_kuberay.model.serve import ServeApplication as ServeApplication
    from pulumi_kuberay.model.serve import ServeConfig as ServeConfig
    from pulumi_kuberay.model.serve import ServeDeployment as ServeDeployment
    from pulumi_kuberay.model.service import ClusterUpgradeOptions as ClusterUpgradeOptions
    from pulumi_kuberay.model.service import KubeRayDeprecationWarning as KubeRayDeprecationWarning
    from pulumi_kuberay.model.service import RayServiceManifest as RayServiceManifest
    from pulumi_kuberay.model.service import RayServiceSpec as RayServiceSpec
    from pulumi_kuberay.model.service import ServiceUpgradeStrategy as ServiceUpgradeStrategy
    from pulumi_kuberay.resources._component import KUEUE_QUEUE_LABEL as KUEUE_QUEUE_LABEL
    from pulumi_kuberay.resources._component_await import watch_with as watch_with
    from pulumi_kuberay.resources._shared import CriticalFindingsError as CriticalFindingsError
    from pulumi_kuberay.resources.cluster import RayCluster as RayCluster
    from pulumi_kuberay.resources.cronjob import RayCronJob as RayCronJob
    from pulumi_kuberay.resources.job import RayJob as RayJob
    from pulumi_kuberay.resources.job import RayJobFailedError as RayJobFailedError
    from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator as KubeRayOperator
    from pulumi_kuberay.resources.service import RayService as RayService
    from pulumi_kuberay.status import Diagnosis as Diagnosis
    from pulumi_kuberay.status import diagnose as diagnose
