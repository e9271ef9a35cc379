"""Values cases for the ray-cluster chart comparisons: together they set every key the chart reads."""

from __future__ import annotations

from typing import Any

SECRET = {"valueFrom": {"secretKeyRef": {"name": "redis-password-secret", "key": "password"}}}


def _pod_keys(prefix: str) -> dict[str, Any]:
    """Every pod/container key of a group (head, worker or an additional group)."""
    return {
        "labels": {"team": "ml", "tier": prefix},
        "annotations": {"example.com/owner": "ml-platform"},
        "initContainers": [{"name": "init", "image": "busybox:1.36", "command": ["sh", "-c", "true"]}],
        "image": {"repository": "rayproject/ray", "tag": "2.52.0-py311", "pullPolicy": "Always"},
        "command": ["/bin/bash", "-lc", "--"],
        "args": ["ulimit -n 65536; echo started"],
        "containerEnv": [{"name": "RAY_GROUP", "value": prefix}],
        "envFrom": [{"configMapRef": {"name": f"{prefix}-env"}}],
        "volumeMounts": [{"mountPath": "/tmp/ray", "name": "log-volume"}, {"mountPath": "/data", "name": "data"}],
        "ports": [{"containerPort": 8080, "name": "metrics"}],
        "resources": {"limits": {"cpu": "2", "memory": "8Gi"}, "requests": {"cpu": "2", "memory": "8Gi"}},
        "lifecycle": {"preStop": {"exec": {"command": ["/bin/sh", "-c", "ray stop"]}}},
        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
        "sidecarContainers": [{"name": "fluentbit", "image": "fluent/fluent-bit:3.0"}],
        "volumes": [{"name": "log-volume", "emptyDir": {}}, {"name": "data", "emptyDir": {"sizeLimit": "10Gi"}}],
        "dnsConfig": {"nameservers": ["8.8.8.8"], "options": [{"name": "ndots", "value": "2"}]},
        "nodeSelector": {"pool": prefix},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]
                }
            }
        },
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "ray", "effect": "NoSchedule"}],
        "priorityClassName": "ray-high",
        "priority": 100,
        "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": {"ray.io/node-type": prefix}}}
        ],
        "restartPolicy": "Always",
        "runtimeClassName": "gvisor",
        "serviceAccountName": "ray-workload",
        "podSecurityContext": {"runAsNonRoot": True, "fsGroup": 100},
        "resourceClaims": [{"name": "gpu", "resourceClaimName": f"{prefix}-gpu"}],
        "rayStartParams": {"metrics-export-port": 8080},
        "initArgs": {"block": True},
    }  # fmt: skip


#: name -> values; each a plausible user file. Together they set every key of ``helm.KNOWN``.
CASES: dict[str, dict[str, Any]] = {
    "defaults": {},
    "image-and-name": {"image": {"repository": "registry.example.com/ray", "tag": "2.52.0", "pullPolicy": "Always"},
                       "nameOverride": "ml"},
    "fullname-annotations-pull-secrets": {"fullnameOverride": "prod-ray-", "annotations": {"team": "ml"},
                                          "imagePullSecrets": [{"name": "regcred"}]},
    "gcs-fault-tolerance": {"gcsFaultTolerance": {
        "enabled": True, "redisAddress": "redis:6379", "externalStorageNamespace": "my-raycluster-storage",
        "redisPassword": SECRET,
        "redisUsername": {"valueFrom": {"secretKeyRef": {"name": "redis-username-secret", "key": "username"}}},
    }},
    "autoscaling": {
        "head": {"rayVersion": "2.52.0", "enableInTreeAutoscaling": True, "autoscalerOptions": {
            "upscalingMode": "Default", "idleTimeoutSeconds": 60, "imagePullPolicy": "IfNotPresent",
            "securityContext": {}, "env": [], "envFrom": [],
            "resources": {"limits": {"cpu": "500m", "memory": "512Mi"}, "requests": {"cpu": "500m", "memory": "512Mi"}},
        }},
        "worker": {"replicas": 1, "minReplicas": 1, "maxReplicas": 10},
    },
    "head-service-and-type": {"service": {"type": "NodePort"},
                              "head": {"headService": {"metadata": {"annotations": {"prometheus.io/scrape": "true"}}}}},
    "start-params-and-init-args": {
        "head": {"rayStartParams": {"num-cpus": 0, "dashboard-host": "0.0.0.0"}, "initArgs": {"block": True}},
        "worker": {"rayStartParams": {"num-cpus": 1.5, "object-store-memory": 100000000},
                   "initArgs": {"metrics-export-port": 8080}},
    },
    "environment": {
        "common": {"containerEnv": [{"name": "RAY_LOG_LEVEL", "value": "info"}]},
        "head": {"containerEnv": [{"name": "RAY_ROLE", "value": "head"}], "envFrom": [{"secretRef": {"name": "env"}}]},
        "worker": {"containerEnv": [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "t"}}}]},
    },
    "head-every-pod-key": {"head": _pod_keys("head")},
    "worker-every-pod-key": {"worker": {**_pod_keys("worker"), "groupName": "cpu", "numOfHosts": 2}},
    "worker-disabled-gpu-group": {
        "worker": {"disabled": True},
        "additionalWorkerGroups": {"gpu": {"replicas": 0, "minReplicas": 0, "maxReplicas": 4,
                                           "rayStartParams": {"num-gpus": 1}}},
    },
    "additional-group-every-key": {
        "additionalWorkerGroups": {"tpu": {**_pod_keys("tpu"), "disabled": False, "replicas": 1, "minReplicas": 1,
                                           "maxReplicas": 2, "numOfHosts": 4}},
    },
    "small-group-enabled-and-another": {
        "additionalWorkerGroups": {"smallGroup": {"disabled": False, "replicas": 1},
                                   "big": {"replicas": 2, "minReplicas": 2, "maxReplicas": 8}},
    },
    "nulls-delete-defaults": {"head": {"volumes": None, "volumeMounts": None},
                              "worker": {"resources": None, "labels": None},
                              "additionalWorkerGroups": {"smallGroup": None}},
    "numbers-as-helm-prints-them": {"worker": {"replicas": 3.0, "minReplicas": 0, "maxReplicas": 100000},
                                    "head": {"priority": 1000, "rayStartParams": {"num-cpus": 0.5}}},
    "release-name-contains-chart-name": {"nameOverride": ""},
    "kuberay-reference-example": {
        "head": {"rayVersion": "2.52.0", "enableInTreeAutoscaling": True,
                 "resources": {"limits": {"cpu": "4", "memory": "16Gi"}, "requests": {"cpu": "4", "memory": "16Gi"}}},
        "worker": {"groupName": "cpu", "replicas": 0, "minReplicas": 0, "maxReplicas": 20,
                   "resources": {"limits": {"cpu": 8, "memory": "32Gi"}, "requests": {"cpu": 8, "memory": "32Gi"}}},
        "additionalWorkerGroups": {"gpu": {"replicas": 0, "minReplicas": 0, "maxReplicas": 4,
                                           "resources": {"limits": {"cpu": 8, "memory": "64Gi", "nvidia.com/gpu": 1},
                                                         "requests": {"cpu": 8, "memory": "64Gi",
                                                                      "nvidia.com/gpu": 1}},
                                           "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                                                            "effect": "NoSchedule"}]}},
    },
}  # fmt: skip

#: Release name per case (default "raycluster"); one exercises the chart's "release contains the name" rule.
RELEASES = {"release-name-contains-chart-name": "my-ray-cluster-release"}
