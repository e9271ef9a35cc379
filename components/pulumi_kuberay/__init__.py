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
    # Kubernetes types used in the specs: every one (the converter names them; tests/test_exports.py)
    "AWSElasticBlockStoreVolumeSource": "pulumi_kuberay.model._k8s",
    "Affinity": "pulumi_kuberay.model._k8s",
    "AppArmorProfile": "pulumi_kuberay.model._k8s",
    "AzureDiskVolumeSource": "pulumi_kuberay.model._k8s",
    "AzureFileVolumeSource": "pulumi_kuberay.model._k8s",
    "CSIVolumeSource": "pulumi_kuberay.model._k8s",
    "Capabilities": "pulumi_kuberay.model._k8s",
    "CephFSVolumeSource": "pulumi_kuberay.model._k8s",
    "CinderVolumeSource": "pulumi_kuberay.model._k8s",
    "ClientIPConfig": "pulumi_kuberay.model._k8s",
    "ClusterTrustBundleProjection": "pulumi_kuberay.model._k8s",
    "Condition": "pulumi_kuberay.model._k8s",
    "ConfigMapEnvSource": "pulumi_kuberay.model._k8s",
    "ConfigMapKeySelector": "pulumi_kuberay.model._k8s",
    "ConfigMapProjection": "pulumi_kuberay.model._k8s",
    "ConfigMapVolumeSource": "pulumi_kuberay.model._k8s",
    "Container": "pulumi_kuberay.model._k8s",
    "ContainerPort": "pulumi_kuberay.model._k8s",
    "ContainerResizePolicy": "pulumi_kuberay.model._k8s",
    "ContainerRestartRule": "pulumi_kuberay.model._k8s",
    "ContainerRestartRuleOnExitCodes": "pulumi_kuberay.model._k8s",
    "DownwardAPIProjection": "pulumi_kuberay.model._k8s",
    "DownwardAPIVolumeFile": "pulumi_kuberay.model._k8s",
    "DownwardAPIVolumeSource": "pulumi_kuberay.model._k8s",
    "EmbeddedObjectMeta": "pulumi_kuberay.model._k8s",
    "EmptyDirVolumeSource": "pulumi_kuberay.model._k8s",
    "EnvFromSource": "pulumi_kuberay.model._k8s",
    "EnvVar": "pulumi_kuberay.model._k8s",
    "EnvVarSource": "pulumi_kuberay.model._k8s",
    "EphemeralContainer": "pulumi_kuberay.model._k8s",
    "EphemeralVolumeSource": "pulumi_kuberay.model._k8s",
    "ExecAction": "pulumi_kuberay.model._k8s",
    "FCVolumeSource": "pulumi_kuberay.model._k8s",
    "FileKeySelector": "pulumi_kuberay.model._k8s",
    "FlexVolumeSource": "pulumi_kuberay.model._k8s",
    "FlockerVolumeSource": "pulumi_kuberay.model._k8s",
    "GCEPersistentDiskVolumeSource": "pulumi_kuberay.model._k8s",
    "GRPCAction": "pulumi_kuberay.model._k8s",
    "GitRepoVolumeSource": "pulumi_kuberay.model._k8s",
    "GlusterfsVolumeSource": "pulumi_kuberay.model._k8s",
    "HTTPGetAction": "pulumi_kuberay.model._k8s",
    "HTTPHeader": "pulumi_kuberay.model._k8s",
    "HostAlias": "pulumi_kuberay.model._k8s",
    "HostPathVolumeSource": "pulumi_kuberay.model._k8s",
    "IPBlock": "pulumi_kuberay.model._k8s",
    "ISCSIVolumeSource": "pulumi_kuberay.model._k8s",
    "ImageVolumeSource": "pulumi_kuberay.model._k8s",
    "IngressTLS": "pulumi_kuberay.model._k8s",
    "KeyToPath": "pulumi_kuberay.model._k8s",
    "LabelSelector": "pulumi_kuberay.model._k8s",
    "LabelSelectorRequirement": "pulumi_kuberay.model._k8s",
    "Lifecycle": "pulumi_kuberay.model._k8s",
    "LifecycleHandler": "pulumi_kuberay.model._k8s",
    "LoadBalancerIngress": "pulumi_kuberay.model._k8s",
    "LoadBalancerStatus": "pulumi_kuberay.model._k8s",
    "LocalObjectReference": "pulumi_kuberay.model._k8s",
    "NFSVolumeSource": "pulumi_kuberay.model._k8s",
    "NetworkPolicyEgressRule": "pulumi_kuberay.model._k8s",
    "NetworkPolicyIngressRule": "pulumi_kuberay.model._k8s",
    "NetworkPolicyPeer": "pulumi_kuberay.model._k8s",
    "NetworkPolicyPort": "pulumi_kuberay.model._k8s",
    "NodeAffinity": "pulumi_kuberay.model._k8s",
    "NodeSelector": "pulumi_kuberay.model._k8s",
    "NodeSelectorRequirement": "pulumi_kuberay.model._k8s",
    "NodeSelectorTerm": "pulumi_kuberay.model._k8s",
    "ObjectFieldSelector": "pulumi_kuberay.model._k8s",
    "PersistentVolumeClaimSpec": "pulumi_kuberay.model._k8s",
    "PersistentVolumeClaimTemplate": "pulumi_kuberay.model._k8s",
    "PersistentVolumeClaimVolumeSource": "pulumi_kuberay.model._k8s",
    "PhotonPersistentDiskVolumeSource": "pulumi_kuberay.model._k8s",
    "PodAffinity": "pulumi_kuberay.model._k8s",
    "PodAffinityTerm": "pulumi_kuberay.model._k8s",
    "PodAntiAffinity": "pulumi_kuberay.model._k8s",
    "PodCertificateProjection": "pulumi_kuberay.model._k8s",
    "PodDNSConfig": "pulumi_kuberay.model._k8s",
    "PodDNSConfigOption": "pulumi_kuberay.model._k8s",
    "PodOS": "pulumi_kuberay.model._k8s",
    "PodReadinessGate": "pulumi_kuberay.model._k8s",
    "PodResourceClaim": "pulumi_kuberay.model._k8s",
    "PodSchedulingGate": "pulumi_kuberay.model._k8s",
    "PodSchedulingGroup": "pulumi_kuberay.model._k8s",
    "PodSecurityContext": "pulumi_kuberay.model._k8s",
    "PodSpec": "pulumi_kuberay.model._k8s",
    "PodTemplateSpec": "pulumi_kuberay.model._k8s",
    "PortStatus": "pulumi_kuberay.model._k8s",
    "PortworxVolumeSource": "pulumi_kuberay.model._k8s",
    "PreferredSchedulingTerm": "pulumi_kuberay.model._k8s",
    "Probe": "pulumi_kuberay.model._k8s",
    "ProjectedVolumeSource": "pulumi_kuberay.model._k8s",
    "QuobyteVolumeSource": "pulumi_kuberay.model._k8s",
    "RBDVolumeSource": "pulumi_kuberay.model._k8s",
    "ResourceClaim": "pulumi_kuberay.model._k8s",
    "ResourceFieldSelector": "pulumi_kuberay.model._k8s",
    "ResourceRequirements": "pulumi_kuberay.model._k8s",
    "SELinuxOptions": "pulumi_kuberay.model._k8s",
    "ScaleIOVolumeSource": "pulumi_kuberay.model._k8s",
    "SeccompProfile": "pulumi_kuberay.model._k8s",
    "SecretEnvSource": "pulumi_kuberay.model._k8s",
    "SecretKeySelector": "pulumi_kuberay.model._k8s",
    "SecretProjection": "pulumi_kuberay.model._k8s",
    "SecretVolumeSource": "pulumi_kuberay.model._k8s",
    "SecurityContext": "pulumi_kuberay.model._k8s",
    "Service": "pulumi_kuberay.model._k8s",
    "ServiceAccountTokenProjection": "pulumi_kuberay.model._k8s",
    "ServicePort": "pulumi_kuberay.model._k8s",
    "ServiceSpec": "pulumi_kuberay.model._k8s",
    "ServiceStatus": "pulumi_kuberay.model._k8s",
    "SessionAffinityConfig": "pulumi_kuberay.model._k8s",
    "SleepAction": "pulumi_kuberay.model._k8s",
    "StorageOSVolumeSource": "pulumi_kuberay.model._k8s",
    "Sysctl": "pulumi_kuberay.model._k8s",
    "TCPSocketAction": "pulumi_kuberay.model._k8s",
    "Toleration": "pulumi_kuberay.model._k8s",
    "TopologySpreadConstraint": "pulumi_kuberay.model._k8s",
    "TypedLocalObjectReference": "pulumi_kuberay.model._k8s",
    "TypedObjectReference": "pulumi_kuberay.model._k8s",
    "Volume": "pulumi_kuberay.model._k8s",
    "VolumeDevice": "pulumi_kuberay.model._k8s",
    "VolumeMount": "pulumi_kuberay.model._k8s",
    "VolumeProjection": "pulumi_kuberay.model._k8s",
    "VolumeResourceRequirements": "pulumi_kuberay.model._k8s",
    "VsphereVirtualDiskVolumeSource": "pulumi_kuberay.model._k8s",
    "WeightedPodAffinityTerm": "pulumi_kuberay.model._k8s",
    "WindowsSecurityContextOptions": "pulumi_kuberay.model._k8s",
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
    from pulumi_kuberay.model._deferred import Deferred as Deferred
    from pulumi_kuberay.model._deferred import In as In
    from pulumi_kuberay.model._errors import ManifestError as ManifestError
    from pulumi_kuberay.model._errors import Problem as Problem
    from pulumi_kuberay.model._errors import SpecError as SpecError
    from pulumi_kuberay.model._k8s import Affinity as Affinity
    from pulumi_kuberay.model._k8s import AppArmorProfile as AppArmorProfile
    from pulumi_kuberay.model._k8s import AWSElasticBlockStoreVolumeSource as AWSElasticBlockStoreVolumeSource
    from pulumi_kuberay.model._k8s import AzureDiskVolumeSource as AzureDiskVolumeSource
    from pulumi_kuberay.model._k8s import AzureFileVolumeSource as AzureFileVolumeSource
    from pulumi_kuberay.model._k8s import Capabilities as Capabilities
    from pulumi_kuberay.model._k8s import CephFSVolumeSource as CephFSVolumeSource
    from pulumi_kuberay.model._k8s import CinderVolumeSource as CinderVolumeSource
    from pulumi_kuberay.model._k8s import ClientIPConfig as ClientIPConfig
    from pulumi_kuberay.model._k8s import ClusterTrustBundleProjection as ClusterTrustBundleProjection
    from pulumi_kuberay.model._k8s import Condition as Condition
    from pulumi_kuberay.model._k8s import ConfigMapEnvSource as ConfigMapEnvSource
    from pulumi_kuberay.model._k8s import ConfigMapKeySelector as ConfigMapKeySelector
    from pulumi_kuberay.model._k8s import ConfigMapProjection as ConfigMapProjection
    from pulumi_kuberay.model._k8s import ConfigMapVolumeSource as ConfigMapVolumeSource
    from pulumi_kuberay.model._k8s import Container as Container
    from pulumi_kuberay.model._k8s import ContainerPort as ContainerPort
    from pulumi_kuberay.model._k8s import ContainerResizePolicy as ContainerResizePolicy
    from pulumi_kuberay.model._k8s import ContainerRestartRule as ContainerRestartRule
    from pulumi_kuberay.model._k8s import ContainerRestartRuleOnExitCodes as ContainerRestartRuleOnExitCodes
    from pulumi_kuberay.model._k8s import CSIVolumeSource as CSIVolumeSource
    from pulumi_kuberay.model._k8s import DownwardAPIProjection as DownwardAPIProjection
    from pulumi_kuberay.model._k8s import DownwardAPIVolumeFile as DownwardAPIVolumeFile
    from pulumi_kuberay.model._k8s import DownwardAPIVolumeSource as DownwardAPIVolumeSource
    from pulumi_kuberay.model._k8s import EmbeddedObjectMeta as EmbeddedObjectMeta
    from pulumi_kuberay.model._k8s import EmptyDirVolumeSource as EmptyDirVolumeSource
    from pulumi_kuberay.model._k8s import EnvFromSource as EnvFromSource
    from pulumi_kuberay.model._k8s import EnvVar as EnvVar
    from pulumi_kuberay.model._k8s import EnvVarSource as EnvVarSource
    from pulumi_kuberay.model._k8s import EphemeralContainer as EphemeralContainer
    from pulumi_kuberay.model._k8s import EphemeralVolumeSource as EphemeralVolumeSource
    from pulumi_kuberay.model._k8s import ExecAction as ExecAction
    from pulumi_kuberay.model._k8s import FCVolumeSource as FCVolumeSource
    from pulumi_kuberay.model._k8s import FileKeySelector as FileKeySelector
    from pulumi_kuberay.model._k8s import FlexVolumeSource as FlexVolumeSource
    from pulumi_kuberay.model._k8s import FlockerVolumeSource as FlockerVolumeSource
    from pulumi_kuberay.model._k8s import GCEPersistentDiskVolumeSource as GCEPersistentDiskVolumeSource
    from pulumi_kuberay.model._k8s import GitRepoVolumeSource as GitRepoVolumeSource
    from pulumi_kuberay.model._k8s import GlusterfsVolumeSource as GlusterfsVolumeSource
    from pulumi_kuberay.model._k8s import GRPCAction as GRPCAction
    from pulumi_kuberay.model._k8s import HostAlias as HostAlias
    from pulumi_kuberay.model._k8s import HostPathVolumeSource as HostPathVolumeSource
    from pulumi_kuberay.model._k8s import HTTPGetAction as HTTPGetAction
    from pulumi_kuberay.model._k8s import HTTPHeader as HTTPHeader
    from pulumi_kuberay.model._k8s import ImageVolumeSource as ImageVolumeSource
    from pulumi_kuberay.model._k8s import IngressTLS as IngressTLS
    from pulumi_kuberay.model._k8s import IPBlock as IPBlock
    from pulumi_kuberay.model._k8s import ISCSIVolumeSource as ISCSIVolumeSource
    from pulumi_kuberay.model._k8s import KeyToPath as KeyToPath
    from pulumi_kuberay.model._k8s import LabelSelector as LabelSelector
    from pulumi_kuberay.model._k8s import LabelSelectorRequirement as LabelSelectorRequirement
    from pulumi_kuberay.model._k8s import Lifecycle as Lifecycle
    from pulumi_kuberay.model._k8s import LifecycleHandler as LifecycleHandler
    from pulumi_kuberay.model._k8s import LoadBalancerIngress as LoadBalancerIngress
    from pulumi_kuberay.model._k8s import LoadBalancerStatus as LoadBalancerStatus
    from pulumi_kuberay.model._k8s import LocalObjectReference as LocalObjectReference
    from pulumi_kuberay.model._k8s import NetworkPolicyEgressRule as NetworkPolicyEgressRule
    from pulumi_kuberay.model._k8s import NetworkPolicyIngressRule as NetworkPolicyIngressRule
    from pulumi_kuberay.model._k8s import NetworkPolicyPeer as NetworkPolicyPeer
    from pulumi_kuberay.model._k8s import NetworkPolicyPort as NetworkPolicyPort
    from pulumi_kuberay.model._k8s import NFSVolumeSource as NFSVolumeSource
    from pulumi_kuberay.model._k8s import NodeAffinity as NodeAffinity
    from pulumi_kuberay.model._k8s import NodeSelector as NodeSelector
    from pulumi_kuberay.model._k8s import NodeSelectorRequirement as NodeSelectorRequirement
    from pulumi_kuberay.model._k8s import NodeSelectorTerm as NodeSelectorTerm
    from pulumi_kuberay.model._k8s import ObjectFieldSelector as ObjectFieldSelector
    from pulumi_kuberay.model._k8s import PersistentVolumeClaimSpec as PersistentVolumeClaimSpec
    from pulumi_kuberay.model._k8s import PersistentVolumeClaimTemplate as PersistentVolumeClaimTemplate
    from pulumi_kuberay.model._k8s import PersistentVolumeClaimVolumeSource as PersistentVolumeClaimVolumeSource
    from pulumi_kuberay.model._k8s import PhotonPersistentDiskVolumeSource as PhotonPersistentDiskVolumeSource
    from pulumi_kuberay.model._k8s import PodAffinity as PodAffinity
    from pulumi_kuberay.model._k8s import PodAffinityTerm as PodAffinityTerm
    from pulumi_kuberay.model._k8s import PodAntiAffinity as PodAntiAffinity
    from pulumi_kuberay.model._k8s import PodCertificateProjection as PodCertificateProjection
    from pulumi_kuberay.model._k8s import PodDNSConfig as PodDNSConfig
    from pulumi_kuberay.model._k8s import PodDNSConfigOption as PodDNSConfigOption
    from pulumi_kuberay.model._k8s import PodOS as PodOS
    from pulumi_kuberay.model._k8s import PodReadinessGate as PodReadinessGate
    from pulumi_kuberay.model._k8s import PodResourceClaim as PodResourceClaim
    from pulumi_kuberay.model._k8s import PodSchedulingGate as PodSchedulingGate
    from pulumi_kuberay.model._k8s import PodSchedulingGroup as PodSchedulingGroup
    from pulumi_kuberay.model._k8s import PodSecurityContext as PodSecurityContext
    from pulumi_kuberay.model._k8s import PodSpec as PodSpec
    from pulumi_kuberay.model._k8s import PodTemplateSpec as PodTemplateSpec
    from pulumi_kuberay.model._k8s import PortStatus as PortStatus
    from pulumi_kuberay.model._k8s import PortworxVolumeSource as PortworxVolumeSource
    from pulumi_kuberay.model._k8s import PreferredSchedulingTerm as PreferredSchedulingTerm
    from pulumi_kuberay.model._k8s import Probe as Probe
    from pulumi_kuberay.model._k8s import ProjectedVolumeSource as ProjectedVolumeSource
    from pulumi_kuberay.model._k8s import QuobyteVolumeSource as QuobyteVolumeSource
    from pulumi_kuberay.model._k8s import RBDVolumeSource as RBDVolumeSource
    from pulumi_kuberay.model._k8s import ResourceClaim as ResourceClaim
    from pulumi_kuberay.model._k8s import ResourceFieldSelector as ResourceFieldSelector
    from pulumi_kuberay.model._k8s import ResourceRequirements as ResourceRequirements
    from pulumi_kuberay.model._k8s import ScaleIOVolumeSource as ScaleIOVolumeSource
    from pulumi_kuberay.model._k8s import SeccompProfile as SeccompProfile
    from pulumi_kuberay.model._k8s import SecretEnvSource as SecretEnvSource
    from pulumi_kuberay.model._k8s import SecretKeySelector as SecretKeySelector
    from pulumi_kuberay.model._k8s import SecretProjection as SecretProjection
    from pulumi_kuberay.model._k8s import SecretVolumeSource as SecretVolumeSource
    from pulumi_kuberay.model._k8s import SecurityContext as SecurityContext
    from pulumi_kuberay.model._k8s import SELinuxOptions as SELinuxOptions
    from pulumi_kuberay.model._k8s import Service as Service
    from pulumi_kuberay.model._k8s import ServiceAccountTokenProjection as ServiceAccountTokenProjection
    from pulumi_kuberay.model._k8s import ServicePort as ServicePort
    from pulumi_kuberay.model._k8s import ServiceSpec as ServiceSpec
    from pulumi_kuberay.model._k8s import ServiceStatus as ServiceStatus
    from pulumi_kuberay.model._k8s import SessionAffinityConfig as SessionAffinityConfig
    from pulumi_kuberay.model._k8s import SleepAction as SleepAction
    from pulumi_kuberay.model._k8s import StorageOSVolumeSource as StorageOSVolumeSource
    from pulumi_kuberay.model._k8s import Sysctl as Sysctl
    from pulumi_kuberay.model._k8s import TCPSocketAction as TCPSocketAction
    from pulumi_kuberay.model._k8s import Toleration as Toleration
    from pulumi_kuberay.model._k8s import TopologySpreadConstraint as TopologySpreadConstraint
    from pulumi_kuberay.model._k8s import TypedLocalObjectReference as TypedLocalObjectReference
    from pulumi_kuberay.model._k8s import TypedObjectReference as TypedObjectReference
    from pulumi_kuberay.model._k8s import Volume as Volume
    from pulumi_kuberay.model._k8s import VolumeDevice as VolumeDevice
    from pulumi_kuberay.model._k8s import VolumeMount as VolumeMount
    from pulumi_kuberay.model._k8s import VolumeProjection as VolumeProjection
    from pulumi_kuberay.model._k8s import VolumeResourceRequirements as VolumeResourceRequirements
    from pulumi_kuberay.model._k8s import VsphereVirtualDiskVolumeSource as VsphereVirtualDiskVolumeSource
    from pulumi_kuberay.model._k8s import WeightedPodAffinityTerm as WeightedPodAffinityTerm
    from pulumi_kuberay.model._k8s import WindowsSecurityContextOptions as WindowsSecurityContextOptions
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
