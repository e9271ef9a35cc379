"""The samples of tests/rules/test_k8s_validation_table.py (second part; the first: k8s_validation_samples.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pulumi_kuberay.kuberay.kubernetes import (
    LOAD_BALANCER_SOURCE_RANGES_ANNOTATION,
    TOPOLOGY_AWARE_HINTS_ANNOTATION,
    TOPOLOGY_MODE_ANNOTATION,
)

from rules.k8s_validation_samples import (
    _DAY_AND_A_SECOND,
    _GPU,
    _HEAD_PORTS,
    _INGRESS,
    _NO_ACCESS_MODES,
    _VOLUME_SAMPLES,
    _WORKER,
    SAMPLES_FIRST,
    Doc,
    _set,
)

#: Every sample: (function, the check's first words, kind, edit of the baseline of that kind, rule expected).
SAMPLES: list[tuple[str, str, str, Callable[[Doc], Any], str]] = [
    *SAMPLES_FIRST,
    (
        "ValidateVolumes",
        "name required, a DNS-1123 label",
        "RayCluster",
        _set("worker-pod", volumes=[{"name": "Data", "emptyDir": {}}]),
        "pod-volume-invalid",
    ),
    ("validateVolumeSource", "exactly one volume source", "RayCluster", _set("worker-pod", volumes=[{"name": "data"}]), "pod-volume-invalid"),
    (
        "ValidateVolumeMounts",
        "subPath and subPathExpr relative",
        "RayJob",
        lambda d: (
            _set("worker-pod", volumes=[{"name": "data", "emptyDir": {}}])(d),
            _set("worker-container", volumeMounts=[{"name": "data", "mountPath": "/cfg", "subPath": "/ray.yaml"}])(d),
        ),
        "pod-volume-invalid",
    ),
    (
        "validateSecretVolumeSource",
        "defaultMode 0..0777",
        "RayService",
        _set("worker-pod", volumes=[{"name": "certs", "secret": {"secretName": "certs", "defaultMode": 644}}]),
        "pod-volume-invalid",
    ),
    (
        "validateHostPathType",
        "hostPath.type",
        "RayService",
        _set("worker-pod", volumes=[{"name": "dev", "hostPath": {"path": "/dev/shm", "type": "directory"}}]),
        "pod-volume-source-invalid",
    ),
    (
        "ValidatePersistentVolumeClaimSpec",
        "accessModes required",
        "RayJob",
        _set("worker-pod", volumes=[{"name": "s", "ephemeral": {"volumeClaimTemplate": {"spec": _NO_ACCESS_MODES}}}]),
        "pod-volume-source-invalid",
    ),
    (
        "validateKeyToPath",
        "items key and path required",
        "RayCluster",
        _set("worker-pod", volumes=[{"name": "cfg", "configMap": {"name": "cfg", "items": [{"key": "a", "path": "/etc/a"}]}}]),
        "pod-volume-source-invalid",
    ),
    *[
        (function, check, kind, _set("worker-pod", volumes=[{"name": "v", **volume}]), "pod-volume-source-invalid")
        for function, check, kind, volume in _VOLUME_SAMPLES
    ],
    (
        "validateResourceRequirements",
        "limits and requests",
        "RayJob",
        _set("worker-container", resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
        "pod-resources-invalid",
    ),
    (
        "ValidateObjectMeta",
        "labels of a Pod: the group's labels",
        "RayCluster",
        _set("worker-group", labels={"accelerator type": "a100"}),
        "group-labels-invalid",
    ),
    (
        "ValidateObjectMeta",
        "labels and annotations of the head Service",
        "RayService",
        _set("cluster", headServiceAnnotations={"prometheus io/scrape": "true"}),
        "head-service-invalid",
    ),
    (
        "ValidateTemplateObjectMeta",
        "the pod template's labels",
        "RayCluster",
        _set("worker-template", metadata={"labels": {"team": "-ml"}}),
        "pod-template-metadata-invalid",
    ),
    ("validateService", "type ClusterIP, NodePort", "RayCluster", _set("head-group", serviceType="Loadbalancer"), "head-service-invalid"),
    (
        "validateService",
        "port and nodePort unique per protocol: the head container's",
        "RayCluster",
        _set("head-container", ports=_HEAD_PORTS),
        "head-service-port-duplicate",
    ),
    (
        "validateService",
        "port and nodePort unique per protocol: the custom headService's",
        "RayJob",
        _set("head-group", headService={"spec": {"ports": [{"name": "ui", "port": 8265}]}}),
        "head-service-invalid",
    ),
    (
        "validateServicePort",
        "name a DNS-1123 label, required",
        "RayService",
        _set("head-group", headService={"spec": {"ports": [{"port": 12345}]}}),
        "head-service-invalid",
    ),
    (
        "validateAffinityTimeout",
        "timeoutSeconds 1..86400",
        "RayService",
        _set("head-group", headService={"spec": {"sessionAffinity": "ClientIP", "sessionAffinityConfig": _DAY_AND_A_SECOND}}),
        "head-service-invalid",
    ),
    (
        "validateServiceExternalTrafficPolicy",
        "externalTrafficPolicy Cluster or Local",
        "RayCluster",
        _set("head-group", headService={"spec": {"externalTrafficPolicy": "Local"}}),
        "head-service-invalid",
    ),
    (
        "validateService",
        "externalName required for ExternalName",
        "RayCluster",
        _set("head-group", serviceType="ExternalName"),
        "head-service-invalid",
    ),
    (
        "validateService",
        "allocateLoadBalancerNodePorts only with LoadBalancer",
        "RayJob",
        _set("head-group", headService={"spec": {"type": "NodePort", "allocateLoadBalancerNodePorts": False}}),
        "head-service-invalid",
    ),
    (
        "validateService",
        "loadBalancerSourceRanges CIDRs, externalIPs",
        "RayService",
        _set("head-group", headService={"spec": {"type": "LoadBalancer", "loadBalancerSourceRanges": ["10.0.0.1/8"]}}),
        "head-service-invalid",
    ),
    (
        "validateService",
        "the service.beta.kubernetes.io/load-balancer-source-ranges annotation",
        "RayCluster",
        _set("cluster", headServiceAnnotations={LOAD_BALANCER_SOURCE_RANGES_ANNOTATION: "10.0.0.0/8"}),  # a ClusterIP Service
        "head-service-invalid",
    ),
    (
        "validateService",
        "the service.kubernetes.io/topology-mode annotation",
        "RayJob",
        _set(
            "head-group",
            headService={
                "metadata": {
                    "annotations": {TOPOLOGY_MODE_ANNOTATION: "Auto", TOPOLOGY_AWARE_HINTS_ANNOTATION: "auto"}
                }
            },
        ),
        "head-service-invalid",
    ),
    (
        "validateServicePort",
        "targetPort a port number or a port name",
        "RayCluster",
        _set("head-group", headService={"spec": {"ports": [{"name": "app", "port": 9000, "targetPort": "9000"}]}}),
        "head-service-invalid",
    ),
    (
        "validateServiceExternalTrafficPolicy",
        "healthCheckNodePort only for LoadBalancer with Local",
        "RayService",
        _set("head-group", headService={"spec": {"type": "LoadBalancer", "healthCheckNodePort": 30100}}),
        "head-service-invalid",
    ),
    (
        "validateServiceTrafficDistribution",
        "trafficDistribution PreferClose",
        "RayCluster",
        _set("head-group", headService={"spec": {"trafficDistribution": "preferClose"}}),
        "head-service-invalid",
    ),
    (
        "ValidateServiceClusterIPsRelatedFields",
        "clusterIP, clusterIPs, ipFamilies, ipFamilyPolicy consistent",
        "RayJob",
        _set("head-group", headService={"spec": {"clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.11"]}}),
        "head-service-invalid",
    ),
    (
        "ValidateEndpointIP",
        "externalIPs not loopback",
        "RayCluster",
        _set("head-group", headService={"spec": {"externalIPs": ["127.0.0.1"]}}),
        "head-service-invalid",
    ),
    (
        "validateService",
        "type, sessionAffinity, externalTrafficPolicy, metadata of a RayService's serveService",
        "RayService",
        _set("spec", serveService={"spec": {"type": "loadBalancer"}}),
        "serve-service-invalid",
    ),
    (
        "validateServicePort",
        "a RayService serveService's ports",
        "RayService",
        _set("spec", serveService={"spec": {"ports": [{"name": "serve", "port": 8000, "appProtocol": "HTTP/2"}]}}),
        "serve-service-invalid",
    ),
    (
        "validateService",
        "ports required",
        "RayService",
        lambda d: (
            _set("spec", serveService={"spec": {}})(d),
            _set("head-container", ports=[{"name": "dashboard", "containerPort": 8265}])(d),
        ),
        "serve-service-invalid",
    ),
    (
        "batch.validateJobSpec",
        "backoffLimit not negative",
        "RayJob",
        _set("spec", submitterConfig={"backoffLimit": -2}),
        "rayjob-submitter-backoff-limit-negative",
    ),
    (
        "networking.validateIngressRules",
        "host a DNS-1123 subdomain",
        "RayCluster",
        _set("head-group", enableIngress=True, ingressOptions={"host": "10.0.0.1"}),
        "head-ingress-invalid",
    ),
    (
        "networking.validateHTTPIngressPath",
        "path absolute",
        "RayService",
        _set("head-group", enableIngress=True, ingressOptions={"path": "/ray//dash"}),
        "head-ingress-invalid",
    ),
    (
        "networking.validateIngressTLS",
        "tls secretName",
        "RayJob",
        _set("head-group", enableIngress=True, ingressOptions={"tls": [{"hosts": ["ray.example.com"], "secretName": "Ray_TLS"}]}),
        "head-ingress-invalid",
    ),
    (
        "networking.ValidateIngressSpec",
        "ingressClassName",
        "RayCluster",
        lambda d: (_set("head-group", enableIngress=True)(d), _set("metadata", annotations={_INGRESS: "NGINX"})(d)),
        "head-ingress-invalid",
    ),
    # the newer Pod and container fields (rules/_pod_spec_fields.py)
    (
        "validateWindowsHostProcessPod",
        "hostProcess consistent",
        "RayCluster",
        _set("worker-container", securityContext={"windowsOptions": {"hostProcess": True}}),
        "pod-spec-value-invalid",
    ),
    ("validateHostUsers", "hostUsers false forbids", "RayJob", _set("worker-pod", hostUsers=False, hostPID=True), "pod-spec-value-invalid"),
    ("validatePodHostName", "hostnameOverride a DNS-1123", "RayService", _set("head-pod", hostnameOverride="Ray_Head"), "pod-spec-value-invalid"),
    ("validateOverhead", "overhead resources valid", "RayCluster", _set("worker-pod", overhead={"cpu": "-1"}), "pod-spec-value-invalid"),
    (
        "validateLinux",
        "os linux forbids",
        "RayCluster",
        _set("head-pod", os={"name": "linux"}, securityContext={"windowsOptions": {"runAsUserName": "ray"}}),
        "pod-spec-value-invalid",
    ),
    (
        "validateWindows",
        "os windows forbids",
        "RayJob",
        _set("worker-pod", os={"name": "windows"}, securityContext={"runAsUser": 1000}),
        "pod-spec-value-invalid",
    ),
    (
        "validateWindowsSecurityContextOptions",
        "gmsaCredentialSpecName",
        "RayService",
        _set("worker-container", securityContext={"windowsOptions": {"runAsUserName": "a\\b\\c"}}),
        "pod-spec-value-invalid",
    ),
    (
        "validateFileKeyRefVolumes",
        "fileKeyRef env names an emptyDir",
        "RayCluster",
        lambda d: (
            _set("worker-pod", volumes=[{"name": "cfg", "configMap": {"name": "cfg"}}])(d),
            _set(
                "worker-container",
                env=[
                    {"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "cfg", "path": "a.env", "key": "A"}}}
                ],
            )(d),
        ),
        "pod-spec-value-invalid",
    ),
    (
        "validateFileKeySelector",
        "fileKeyRef key, volumeName, path",
        "RayJob",
        _set("worker-container", env=[{"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "Cfg", "path": "a.env", "key": "A"}}}]),
        "pod-spec-value-invalid",
    ),
    (
        "validatePodResources",
        "pod-level resources: only",
        "RayCluster",
        _set("worker-pod", resources={"claims": [{"name": "gpu"}]}),
        "pod-spec-value-invalid",
    ),
    (
        "validatePodResourceName",
        "a pod-level resource name",
        "RayService",
        _set("worker-pod", resources={"limits": {_GPU: "1"}}),
        "pod-spec-value-invalid",
    ),
    (
        "validatePodResourceConsistency",
        "pod-level requests and limits",
        "RayCluster",
        _set(
            "worker-pod",
            resources={"requests": {"cpu": "100m"}},
            containers=[dict(_WORKER, resources={"requests": {"cpu": "1"}})],
        ),
        "pod-spec-value-invalid",
    ),
    (
        "validatePodResourceClaim",
        "name a DNS-1123 label, unique",
        "RayJob",
        _set("worker-pod", resourceClaims=[{"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}]),
        "pod-spec-value-invalid",
    ),
    (
        "validateResourceClaimNames",
        "container resources.claims",
        "RayCluster",
        _set("worker-container", resources={"claims": [{"name": "gpu"}]}),
        "pod-spec-value-invalid",
    ),
    (
        "validateInitContainers",
        "resizePolicy only on sidecars",
        "RayCluster",
        _set(
            "worker-pod",
            initContainers=[
                dict(
                    _WORKER,
                    name="init",
                    resizePolicy=[{"resourceName": "cpu", "restartPolicy": "RestartContainer"}],
                )
            ],
        ),
        "pod-spec-value-invalid",
    ),
    (
        "validateContainerRestartPolicy",
        "restartPolicy and restartPolicyRules",
        "RayService",
        _set("worker-container", restartPolicyRules=[{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]),
        "pod-spec-value-invalid",
    ),
    (
        "validateSleepAction",
        "sleep seconds within",
        "RayCluster",
        _set("worker-container", lifecycle={"preStop": {"sleep": {"seconds": 60}}}),
        "pod-spec-value-invalid",
    ),
    (
        "validateHTTPGetAction",
        "httpHeaders names",
        "RayJob",
        _set("head-container", readinessProbe={"httpGet": {"port": 8265, "httpHeaders": [{"name": "X Token", "value": "1"}]}}),
        "pod-spec-value-invalid",
    ),
    (
        "validateContainerResourceDivisor",
        "divisor 1m/1 for cpu",
        "RayCluster",
        _set(
            "worker-container",
            env=[
                {"name": "CPUS", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "100m"}}}
            ],
        ),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateVolumeMounts",
        "subPathExpr not with subPath",
        "RayService",
        lambda d: (
            _set("worker-pod", volumes=[{"name": "data", "emptyDir": {}}])(d),
            _set(
                "worker-container",
                volumeMounts=[{"name": "data", "mountPath": "/d", "subPath": "a", "subPathExpr": "$(POD)"}],
            )(d),
        ),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateVolumeMounts",
        "a volume mounted as a block device",
        "RayCluster",
        lambda d: (
            _set("worker-pod", volumes=[{"name": "disk", "persistentVolumeClaim": {"claimName": "disk"}}])(d),
            _set(
                "worker-container",
                volumeMounts=[{"name": "disk", "mountPath": "/d"}],
                volumeDevices=[{"name": "disk", "devicePath": "/dev/xvda"}],
            )(d),
        ),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateVolumeMounts",
        "the autoscaler sidecar's mounts",
        "RayCluster",
        _set("cluster", enableInTreeAutoscaling=True, autoscalerOptions={"volumeMounts": [{"name": "cfg", "mountPath": "/cfg"}]}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateVolumeDevices",
        "devicePath required",
        "RayJob",
        lambda d: (
            _set("worker-pod", volumes=[{"name": "scratch", "emptyDir": {}}])(d),
            _set("worker-container", volumeDevices=[{"name": "scratch", "devicePath": "/dev/xvda"}])(d),
        ),
        "pod-spec-value-invalid",
    ),
    (
        "validateMountRecursiveReadOnly",
        "recursiveReadOnly Disabled",
        "RayCluster",
        lambda d: (
            _set("worker-pod", volumes=[{"name": "data", "emptyDir": {}}])(d),
            _set(
                "worker-container",
                volumeMounts=[{"name": "data", "mountPath": "/d", "recursiveReadOnly": "Enabled"}],
            )(d),
        ),
        "pod-spec-value-invalid",
    ),
    (
        "validateResourceQuantityHugePageValue",
        "hugepages amount",
        "RayService",
        _set("worker-container", resources={"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}, "requests": {"hugepages-2Mi": "3Mi"}}),
        "pod-spec-value-invalid",
    ),
    (
        "validateResizePolicy",
        "resizePolicy cpu or memory",
        "RayCluster",
        _set("worker-container", resizePolicy=[{"resourceName": "gpu", "restartPolicy": "NotRequired"}]),
        "pod-spec-value-invalid",
    ),
    (
        "ValidateProcMountType",
        "procMount Default or Unmasked",
        "RayJob",
        _set("head-container", securityContext={"procMount": "unmasked"}),
        "pod-spec-value-invalid",
    ),
    (
        "ValidatePositiveQuantityValue",
        "amount positive",
        "RayCluster",
        _set(
            "worker-pod",
            volumes=[
                {
                    "name": "s",
                    "ephemeral": {
                        "volumeClaimTemplate": {
                            "spec": dict(
                                _NO_ACCESS_MODES,
                                accessModes=["ReadWriteOnce"],
                                resources={"requests": {"storage": "0"}},
                            )
                        }
                    },
                }
            ],
        ),
        "pod-volume-source-invalid",
    ),
]
