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
    "ManifestError": "pulumi_kuberay.model",
    "Problem": "pulumi_kuberay.model",
    "SpecError": "pulumi_kuberay.model",
    "Deferred": "pulumi_kuberay.model",
    "In": "pulumi_kuberay.model",
    "load_manifest": "pulumi_kuberay.model.manifest",
    "KubeManifest": "pulumi_kuberay.model",
    "ObjectMeta": "pulumi_kuberay.model",
    "ManagedFieldsEntry": "pulumi_kuberay.model.manifest",
    "OwnerReference": "pulumi_kuberay.model.manifest",
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
    # Kubernetes types used in the specs: every one (the converter names them; tests/test_exports.py)
    "AWSElasticBlockStoreVolumeSource": "pulumi_kuberay.model",
    "Affinity": "pulumi_kuberay.model",
    "AppArmorProfile": "pulumi_kuberay.model",
    "AzureDiskVolumeSource": "pulumi_kuberay.model",
    "AzureFileVolumeSource": "pulumi_kuberay.model",
    "CSIVolumeSource": "pulumi_kuberay.model",
    "Capabilities": "pulumi_kuberay.model",
    "CephFSVolumeSource": "pulumi_kuberay.model",
    "CinderVolumeSource": "pulumi_kuberay.model",
    "ClientIPConfig": "pulumi_kuberay.model",
    "ClusterTrustBundleProjection": "pulumi_kuberay.model",
    "Condition": "pulumi_kuberay.model",
    "ConfigMapEnvSource": "pulumi_kuberay.model",
    "ConfigMapKeySelector": "pulumi_kuberay.model",
    "ConfigMapProjection": "pulumi_kuberay.model",
    "ConfigMapVolumeSource": "pulumi_kuberay.model",
    "Container": "pulumi_kuberay.model",
    "ContainerPort": "pulumi_kuberay.model",
    "ContainerResizePolicy": "pulumi_kuberay.model",
    "ContainerRestartRule": "pulumi_kuberay.model",
    "ContainerRestartRuleOnExitCodes": "pulumi_kuberay.model",
    "DownwardAPIProjection": "pulumi_kuberay.model",
    "DownwardAPIVolumeFile": "pulumi_kuberay.model",
    "DownwardAPIVolumeSource": "pulumi_kuberay.model",
    "EmbeddedObjectMeta": "pulumi_kuberay.model",
    "EmptyDirVolumeSource": "pulumi_kuberay.model",
    "EnvFromSource": "pulumi_kuberay.model",
    "EnvVar": "pulumi_kuberay.model",
    "EnvVarSource": "pulumi_kuberay.model",
    "EphemeralContainer": "pulumi_kuberay.model",
    "EphemeralVolumeSource": "pulumi_kuberay.model",
    "ExecAction": "pulumi_kuberay.model",
    "FCVolumeSource": "pulumi_kuberay.model",
    "FileKeySelector": "pulumi_kuberay.model",
    "FlexVolumeSource": "pulumi_kuberay.model",
    "FlockerVolumeSource": "pulumi_kuberay.model",
    "GCEPersistentDiskVolumeSource": "pulumi_kuberay.model",
    "GRPCAction": "pulumi_kuberay.model",
    "GitRepoVolumeSource": "pulumi_kuberay.model",
    "GlusterfsVolumeSource": "pulumi_kuberay.model",
    "HTTPGetAction": "pulumi_kuberay.model",
    "HTTPHeader": "pulumi_kuberay.model",
    "HostAlias": "pulumi_kuberay.model",
    "HostPathVolumeSource": "pulumi_kuberay.model",
    "IPBlock": "pulumi_kuberay.model",
    "ISCSIVolumeSource": "pulumi_kuberay.model",
    "ImageVolumeSource": "pulumi_kuberay.model",
    "IngressTLS": "pulumi_kuberay.model",
    "KeyToPath": "pulumi_kuberay.model",
    "LabelSelector": "pulumi_kuberay.model",
    "LabelSelectorRequirement": "pulumi_kuberay.model",
    "Lifecycle": "pulumi_kuberay.model",
    "LifecycleHandler": "pulumi_kuberay.model",
    "LoadBalancerIngress": "pulumi_kuberay.model",
    "LoadBalancerStatus": "pulumi_kuberay.model",
    "LocalObjectReference": "pulumi_kuberay.model",
    "NFSVolumeSource": "pulumi_kuberay.model",
    "NetworkPolicyEgressRule": "pulumi_kuberay.model",
    "NetworkPolicyIngressRule": "pulumi_kuberay.model",
    "NetworkPolicyPeer": "pulumi_kuberay.model",
    "NetworkPolicyPort": "pulumi_kuberay.model",
    "NodeAffinity": "pulumi_kuberay.model",
    "NodeSelector": "pulumi_kuberay.model",
    "NodeSelectorRequirement": "pulumi_kuberay.model",
    "NodeSelectorTerm": "pulumi_kuberay.model",
    "ObjectFieldSelector": "pulumi_kuberay.model",
    "PersistentVolumeClaimSpec": "pulumi_kuberay.model",
    "PersistentVolumeClaimTemplate": "pulumi_kuberay.model",
    "PersistentVolumeClaimVolumeSource": "pulumi_kuberay.model",
    "PhotonPersistentDiskVolumeSource": "pulumi_kuberay.model",
    "PodAffinity": "pulumi_kuberay.model",
    "PodAffinityTerm": "pulumi_kuberay.model",
    "PodAntiAffinity": "pulumi_kuberay.model",
    "PodCertificateProjection": "pulumi_kuberay.model",
    "PodDNSConfig": "pulumi_kuberay.model",
    "PodDNSConfigOption": "pulumi_kuberay.model",
    "PodOS": "pulumi_kuberay.model",
    "PodReadinessGate": "pulumi_kuberay.model",
    "PodResourceClaim": "pulumi_kuberay.model",
    "PodSchedulingGate": "pulumi_kuberay.model",
    "PodSchedulingGroup": "pulumi_kuberay.model",
    "PodSecurityContext": "pulumi_kuberay.model",
    "PodSpec": "pulumi_kuberay.model",
    "PodTemplateSpec": "pulumi_kuberay.model",
    "PortStatus": "pulumi_kuberay.model",
    "PortworxVolumeSource": "pulumi_kuberay.model",
    "PreferredSchedulingTerm": "pulumi_kuberay.model",
    "Probe": "pulumi_kuberay.model",
    "ProjectedVolumeSource": "pulumi_kuberay.model",
    "QuobyteVolumeSource": "pulumi_kuberay.model",
    "RBDVolumeSource": "pulumi_kuberay.model",
    "ResourceClaim": "pulumi_kuberay.model",
    "ResourceFieldSelector": "pulumi_kuberay.model",
    "ResourceRequirements": "pulumi_kuberay.model",
    "SELinuxOptions": "pulumi_kuberay.model",
    "ScaleIOVolumeSource": "pulumi_kuberay.model",
    "SeccompProfile": "pulumi_kuberay.model",
    "SecretEnvSource": "pulumi_kuberay.model",
    "SecretKeySelector": "pulumi_kuberay.model",
    "SecretProjection": "pulumi_kuberay.model",
    "SecretVolumeSource": "pulumi_kuberay.model",
    "SecurityContext": "pulumi_kuberay.model",
    "Service": "pulumi_kuberay.model",
    "ServiceAccountTokenProjection": "pulumi_kuberay.model",
    "ServicePort": "pulumi_kuberay.model",
    "ServiceSpec": "pulumi_kuberay.model",
    "ServiceStatus": "pulumi_kuberay.model",
    "SessionAffinityConfig": "pulumi_kuberay.model",
    "SleepAction": "pulumi_kuberay.model",
    "StorageOSVolumeSource": "pulumi_kuberay.model",
    "Sysctl": "pulumi_kuberay.model",
    "TCPSocketAction": "pulumi_kuberay.model",
    "Toleration": "pulumi_kuberay.model",
    "TopologySpreadConstraint": "pulumi_kuberay.model",
    "TypedLocalObjectReference": "pulumi_kuberay.model",
    "TypedObjectReference": "pulumi_kuberay.model",
    "Volume": "pulumi_kuberay.model",
    "VolumeDevice": "pulumi_kuberay.model",
    "VolumeMount": "pulumi_kuberay.model",
    "VolumeProjection": "pulumi_kuberay.model",
    "VolumeResourceRequirements": "pulumi_kuberay.model",
    "VsphereVirtualDiskVolumeSource": "pulumi_kuberay.model",
    "WeightedPodAffinityTerm": "pulumi_kuberay.model",
    "WindowsSecurityContextOptions": "pulumi_kuberay.model",
    # status
    "diagnose": "pulumi_kuberay.status",
    "Diagnosis": "pulumi_kuberay.status",
    # Pulumi shell (imports pulumi on first use)
    "RayCluster": "pulumi_kuberay.resources.cluster",
    "RayJob": "pulumi_kuberay.resources.job",
    "RayJobFailedError": "pulumi_kuberay.resources.job",
    "watch_with": "pulumi_kuberay.resources",
    "RayService": "pulumi_kuberay.resources.service",
    "RayCronJob": "pulumi_kuberay.resources.cronjob",
    "KubeRayOperator": "pulumi_kuberay.resources.kuberay_operator",
    # what KubeRayOperator takes (plain Python)
    "KubeRayOperatorArgs": "pulumi_kuberay.operator",
    "KubeRayOperatorValues": "pulumi_kuberay.operator",
    "FeatureGates": "pulumi_kuberay.operator.args",
    "BatchSchedulerValues": "pulumi_kuberay.operator.values",
    "ConfigurationValues": "pulumi_kuberay.operator.values",
    "FeatureGateValue": "pulumi_kuberay.operator.values",
    "ImageValues": "pulumi_kuberay.operator.values",
    "KubeClientValues": "pulumi_kuberay.operator.values",
    "LoggingValues": "pulumi_kuberay.operator.values",
    "MetricsValues": "pulumi_kuberay.operator.values",
    "ProbeValues": "pulumi_kuberay.operator.values",
    "ServiceAccountValues": "pulumi_kuberay.operator.values",
    "ServiceValues": "pulumi_kuberay.operator.values",
    "ServiceMonitorValues": "pulumi_kuberay.operator.values",
    # a finding of the rule catalogue (CriticalFindingsError.findings, rules.check)
    "Finding": "pulumi_kuberay.rules",
    "CriticalFindingsError": "pulumi_kuberay.resources",
    "KUEUE_QUEUE_LABEL": "pulumi_kuberay.kuberay",
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


if TYPE_CHECKING:  # the same names as _LAZY (tests/test_exports.py keeps them in sync)
    from pulumi_kuberay import rules as rules
    from pulumi_kuberay.kuberay import KUEUE_QUEUE_LABEL as KUEUE_QUEUE_LABEL
    from pulumi_kuberay.model import Affinity as Affinity
    from pulumi_kuberay.model import AppArmorProfile as AppArmorProfile
    from pulumi_kuberay.model import AWSElasticBlockStoreVolumeSource as AWSElasticBlockStoreVolumeSource
    from pulumi_kuberay.model import AzureDiskVolumeSource as AzureDiskVolumeSource
    from pulumi_kuberay.model import AzureFileVolumeSource as AzureFileVolumeSource
    from pulumi_kuberay.model import Capabilities as Capabilities
    from pulumi_kuberay.model import CephFSVolumeSource as CephFSVolumeSource
    from pulumi_kuberay.model import CinderVolumeSource as CinderVolumeSource
    from pulumi_kuberay.model import ClientIPConfig as ClientIPConfig
    from pulumi_kuberay.model import ClusterTrustBundleProjection as ClusterTrustBundleProjection
    from pulumi_kuberay.model import Condition as Condition
    from pulumi_kuberay.model import ConfigMapEnvSource as ConfigMapEnvSource
    from pulumi_kuberay.model import ConfigMapKeySelector as ConfigMapKeySelector
    from pulumi_kuberay.model import ConfigMapProjection as ConfigMapProjection
    from pulumi_kuberay.model import ConfigMapVolumeSource as ConfigMapVolumeSource
    from pulumi_kuberay.model import Container as Container
    from pulumi_kuberay.model import ContainerPort as ContainerPort
    from pulumi_kuberay.model import ContainerResizePolicy as ContainerResizePolicy
    from pulumi_kuberay.model import ContainerRestartRule as ContainerRestartRule
    from pulumi_kuberay.model import ContainerRestartRuleOnExitCodes as ContainerRestartRuleOnExitCodes
    from pulumi_kuberay.model import CSIVolumeSource as CSIVolumeSource
    from pulumi_kuberay.model import Deferred as Deferred
    from pulumi_kuberay.model import DownwardAPIProjection as DownwardAPIProjection
    from pulumi_kuberay.model import DownwardAPIVolumeFile as DownwardAPIVolumeFile
    from pulumi_kuberay.model import DownwardAPIVolumeSource as DownwardAPIVolumeSource
    from pulumi_kuberay.model import EmbeddedObjectMeta as EmbeddedObjectMeta
    from pulumi_kuberay.model import EmptyDirVolumeSource as EmptyDirVolumeSource
    from pulumi_kuberay.model import EnvFromSource as EnvFromSource
    from pulumi_kuberay.model import EnvVar as EnvVar
    from pulumi_kuberay.model import EnvVarSource as EnvVarSource
    from pulumi_kuberay.model import EphemeralContainer as EphemeralContainer
    from pulumi_kuberay.model import EphemeralVolumeSource as EphemeralVolumeSource
    from pulumi_kuberay.model import ExecAction as ExecAction
    from pulumi_kuberay.model import FCVolumeSource as FCVolumeSource
    from pulumi_kuberay.model import FileKeySelector as FileKeySelector
    from pulumi_kuberay.model import FlexVolumeSource as FlexVolumeSource
    from pulumi_kuberay.model import FlockerVolumeSource as FlockerVolumeSource
    from pulumi_kuberay.model import GCEPersistentDiskVolumeSource as GCEPersistentDiskVolumeSource
    from pulumi_kuberay.model import GitRepoVolumeSource as GitRepoVolumeSource
    from pulumi_kuberay.model import GlusterfsVolumeSource as GlusterfsVolumeSource
    from pulumi_kuberay.model import GRPCAction as GRPCAction
    from pulumi_kuberay.model import HostAlias as HostAlias
    from pulumi_kuberay.model import HostPathVolumeSource as HostPathVolumeSource
    from pulumi_kuberay.model import HTTPGetAction as HTTPGetAction
    from pulumi_kuberay.model import HTTPHeader as HTTPHeader
    from pulumi_kuberay.model import ImageVolumeSource as ImageVolumeSource
    from pulumi_kuberay.model import In as In
    from pulumi_kuberay.model import IngressTLS as IngressTLS
    from pulumi_kuberay.model import IPBlock as IPBlock
    from pulumi_kuberay.model import ISCSIVolumeSource as ISCSIVolumeSource
    from pulumi_kuberay.model import KeyToPath as KeyToPath
    from pulumi_kuberay.model import KubeManifest as KubeManifest
    from pulumi_kuberay.model import LabelSelector as LabelSelector
    from pulumi_kuberay.model import LabelSelectorRequirement as LabelSelectorRequirement
    from pulumi_kuberay.model import Lifecycle as Lifecycle
    from pulumi_kuberay.model import LifecycleHandler as LifecycleHandler
    from pulumi_kuberay.model import LoadBalancerIngress as LoadBalancerIngress
    from pulumi_kuberay.model import LoadBalancerStatus as LoadBalancerStatus
    from pulumi_kuberay.model import LocalObjectReference as LocalObjectReference
    from pulumi_kuberay.model import ManifestError as ManifestError
    from pulumi_kuberay.model import NetworkPolicyEgressRule as NetworkPolicyEgressRule
    from pulumi_kuberay.model import NetworkPolicyIngressRule as NetworkPolicyIngressRule
    from pulumi_kuberay.model import NetworkPolicyPeer as NetworkPolicyPeer
    from pulumi_kuberay.model import NetworkPolicyPort as NetworkPolicyPort
    from pulumi_kuberay.model import NFSVolumeSource as NFSVolumeSource
    from pulumi_kuberay.model import NodeAffinity as NodeAffinity
    from pulumi_kuberay.model import NodeSelector as NodeSelector
    from pulumi_kuberay.model import NodeSelectorRequirement as NodeSelectorRequirement
    from pulumi_kuberay.model import NodeSelectorTerm as NodeSelectorTerm
    from pulumi_kuberay.model import ObjectFieldSelector as ObjectFieldSelector
    from pulumi_kuberay.model import ObjectMeta as ObjectMeta
    from pulumi_kuberay.model import PersistentVolumeClaimSpec as PersistentVolumeClaimSpec
    from pulumi_kuberay.model import PersistentVolumeClaimTemplate as PersistentVolumeClaimTemplate
    from pulumi_kuberay.model import PersistentVolumeClaimVolumeSource as PersistentVolumeClaimVolumeSource
    from pulumi_kuberay.model import PhotonPersistentDiskVolumeSource as PhotonPersistentDiskVolumeSource
    from pulumi_kuberay.model import PodAffinity as PodAffinity
    from pulumi_kuberay.model import PodAffinityTerm as PodAffinityTerm
    from pulumi_kuberay.model import PodAntiAffinity as PodAntiAffinity
    from pulumi_kuberay.model import PodCertificateProjection as PodCertificateProjection
    from pulumi_kuberay.model import PodDNSConfig as PodDNSConfig
    from pulumi_kuberay.model import PodDNSConfigOption as PodDNSConfigOption
    from pulumi_kuberay.model import PodOS as PodOS
    from pulumi_kuberay.model import PodReadinessGate as PodReadinessGate
    from pulumi_kuberay.model import PodResourceClaim as PodResourceClaim
    from pulumi_kuberay.model import PodSchedulingGate as PodSchedulingGate
    from pulumi_kuberay.model import PodSchedulingGroup as PodSchedulingGroup
    from pulumi_kuberay.model import PodSecurityContext as PodSecurityContext
    from pulumi_kuberay.model import PodSpec as PodSpec
    from pulumi_kuberay.model import PodTemplateSpec as PodTemplateSpec
    from pulumi_kuberay.model import PortStatus as PortStatus
    from pulumi_kuberay.model import PortworxVolumeSource as PortworxVolumeSource
    from pulumi_kuberay.model import PreferredSchedulingTerm as PreferredSchedulingTerm
    from pulumi_kuberay.model import Probe as Probe
    from pulumi_kuberay.model import Problem as Problem
    from pulumi_kuberay.model import ProjectedVolumeSource as ProjectedVolumeSource
    from pulumi_kuberay.model import QuobyteVolumeSource as QuobyteVolumeSource
    from pulumi_kuberay.model import RBDVolumeSource as RBDVolumeSource
    from pulumi_kuberay.model import ResourceClaim as ResourceClaim
    from pulumi_kuberay.model import ResourceFieldSelector as ResourceFieldSelector
    from pulumi_kuberay.model import ResourceRequirements as ResourceRequirements
    from pulumi_kuberay.model import ScaleIOVolumeSource as ScaleIOVolumeSource
    from pulumi_kuberay.model import SeccompProfile as SeccompProfile
    from pulumi_kuberay.model import SecretEnvSource as SecretEnvSource
    from pulumi_kuberay.model import SecretKeySelector as SecretKeySelector
    from pulumi_kuberay.model import SecretProjection as SecretProjection
    from pulumi_kuberay.model import SecretVolumeSource as SecretVolumeSource
    from pulumi_kuberay.model import SecurityContext as SecurityContext
    from pulumi_kuberay.model import SELinuxOptions as SELinuxOptions
    from pulumi_kuberay.model import Service as Service
    from pulumi_kuberay.model import ServiceAccountTokenProjection as ServiceAccountTokenProjection
    from pulumi_kuberay.model import ServicePort as ServicePort
    from pulumi_kuberay.model import ServiceSpec as ServiceSpec
    from pulumi_kuberay.model import ServiceStatus as ServiceStatus
    from pulumi_kuberay.model import SessionAffinityConfig as SessionAffinityConfig
    from pulumi_kuberay.model import SleepAction as SleepAction
    from pulumi_kuberay.model import SpecError as SpecError
    from pulumi_kuberay.model import StorageOSVolumeSource as StorageOSVolumeSource
    from pulumi_kuberay.model import Sysctl as Sysctl
    from pulumi_kuberay.model import TCPSocketAction as TCPSocketAction
    from pulumi_kuberay.model import Toleration as Toleration
    from pulumi_kuberay.model import TopologySpreadConstraint as TopologySpreadConstraint
    from pulumi_kuberay.model import TypedLocalObjectReference as TypedLocalObjectReference
    from pulumi_kuberay.model import TypedObjectReference as TypedObjectReference
    from pulumi_kuberay.model import Volume as Volume
    from pulumi_kuberay.model import VolumeDevice as VolumeDevice
    from pulumi_kuberay.model import VolumeMount as VolumeMount
    from pulumi_kuberay.model import VolumeProjection as VolumeProjection
    from pulumi_kuberay.model import VolumeResourceRequirements as VolumeResourceRequirements
    from pulumi_kuberay.model import VsphereVirtualDiskVolumeSource as VsphereVirtualDiskVolumeSource
    from pulumi_kuberay.model import WeightedPodAffinityTerm as WeightedPodAffinityTerm
    from pulumi_kuberay.model import WindowsSecurityContextOptions as WindowsSecurityContextOptions
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
    from pulumi_kuberay.model.manifest import ManagedFieldsEntry as ManagedFieldsEntry
    from pulumi_kuberay.model.manifest import OwnerReference as OwnerReference
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
    from pulumi_kuberay.operator import KubeRayOperatorArgs as KubeRayOperatorArgs
    from pulumi_kuberay.operator import KubeRayOperatorValues as KubeRayOperatorValues
    from pulumi_kuberay.operator.args import FeatureGates as FeatureGates
    from pulumi_kuberay.operator.values import BatchSchedulerValues as BatchSchedulerValues
    from pulumi_kuberay.operator.values import ConfigurationValues as ConfigurationValues
    from pulumi_kuberay.operator.values import FeatureGateValue as FeatureGateValue
    from pulumi_kuberay.operator.values import ImageValues as ImageValues
    from pulumi_kuberay.operator.values import KubeClientValues as KubeClientValues
    from pulumi_kuberay.operator.values import LoggingValues as LoggingValues
    from pulumi_kuberay.operator.values import MetricsValues as MetricsValues
    from pulumi_kuberay.operator.values import ProbeValues as ProbeValues
    from pulumi_kuberay.operator.values import ServiceAccountValues as ServiceAccountValues
    from pulumi_kuberay.operator.values import ServiceMonitorValues as ServiceMonitorValues
    from pulumi_kuberay.operator.values import ServiceValues as ServiceValues
    from pulumi_kuberay.resources import CriticalFindingsError as CriticalFindingsError
    from pulumi_kuberay.resources import watch_with as watch_with
    from pulumi_kuberay.resources.cluster import RayCluster as RayCluster
    from pulumi_kuberay.resources.cronjob import RayCronJob as RayCronJob
    from pulumi_kuberay.resources.job import RayJob as RayJob
    from pulumi_kuberay.resources.job import RayJobFailedError as RayJobFailedError
    from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator as KubeRayOperator
    from pulumi_kuberay.resources.service import RayService as RayService
    from pulumi_kuberay.rules import Finding as Finding
    from pulumi_kuberay.status import Diagnosis as Diagnosis
    from pulumi_kuberay.status import diagnose as diagnose
