"""The children the operator creates from a Ray object, as the API server will receive them: what the preflight
sends to the target cluster as server-side dry-run creates, so that its own admission (Pod Security, LimitRanger,
ValidatingAdmissionPolicies, webhooks) judges them at preview.

Pure: from a manifest dict to one :class:`Child` per distinct object the operator creates at start: the head Pod
(``buildHeadPod``, ``DefaultHeadPodTemplate``: KubeRay's labels, the metrics port, the ``autoscaler`` sidecar of
in-tree autoscaling, ``BuildAutoscalerContainer``), one Pod per worker group (``DefaultWorkerPodTemplate``: the
``wait-gcs-ready`` init container with the Ray container's image, security context, env and mounts; the replicas
of a group are one shape), the head Service (``BuildServiceForHeadPod``; a RayJob's or RayService's own too,
``BuildHeadServiceForRayJob``, ``BuildHeadServiceForRayService``), the Serve Service of a RayService or of a
RayCluster annotated ``ray.io/enable-serve-service`` (``BuildServeService``), the dashboard Ingress of
``enableIngress`` (``BuildIngressForHeadService``), the headless Service of multi-host workers
(``BuildHeadlessServiceForRayCluster``) and, for a RayJob in K8sJobMode, the submitter Job (``createNewK8sJob``,
``GetSubmitterTemplate``). Names are the operator's: ``generateName`` as
``PodName`` builds it, a generated RayCluster name (``GenerateRayClusterName``) as the cluster's name for a
RayJob, RayService or RayCronJob.

What another preflight rule judges with what the stack creates in view (the Pods' ServiceAccount, PriorityClass,
RuntimeClass: ``preflight-reference-missing``) is left out, so a reference to an object the same stack creates is
never refused here. Not built yet: mTLS and history-collector additions (alpha gates), an OpenShift Route.
"""

# The Pods carry what KubeRay adds for GCS fault tolerance (configureGCSFaultTolerance: env, annotations, the
# RocksDB claim) and token authentication (configureTokenAuth: env, the Secret's key, the projected token volume).

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_kuberay.kuberay import names, paths

__all__ = ["Child", "children"]

#: The five characters ``GenerateRayClusterName`` appends at random (any valid ones: the shape is what counts).
GENERATED_SUFFIX = "xxxxx"
#: Pod spec fields left out of the dry run: references judged by ``preflight-reference-missing``.
_REFERENCES = ("serviceAccountName", "serviceAccount", "priorityClassName", "runtimeClassName")
_METRICS_PORT = {"name": names.METRICS_PORT_NAME, "containerPort": names.METRICS_PORT}
_SUBMITTER_RESOURCES = {"requests": {"cpu": "500m", "memory": "200Mi"}, "limits": {"cpu": "1", "memory": "1Gi"}}


def _plain(resources: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-ready copy of one of kuberay/names.py's read-only resource blocks."""
    return {k: dict(v) for k, v in resources.items()}


#: The labels KubeRay gives every Pod it creates, beside the cluster, node type and group (``labelPod``).
_POD_LABELS = {
    "ray.io/is-ray-node": "yes",
    "app.kubernetes.io/name": "kuberay",
    "app.kubernetes.io/created-by": "kuberay-operator",
}
_NOT_OVERRIDABLE = frozenset({"ray.io/node-type", "ray.io/group", names.RAY_CLUSTER_LABEL})


@dataclass(frozen=True)
class Child:
    """One object the operator would create: its API collection, the body to POST and where it comes from."""

    #: ``Pod``, ``Service`` or ``Job``
    kind: str
    #: the API collection in the namespace: ``/api/v1/namespaces/<ns>/pods``
    collection: str
    body: Mapping[str, Any]
    #: the CR field path it is built from (a group's template, the head Service, the submitter template)
    path: str
    #: what it is, for messages: ``the head Pod``, ``the Pods of worker group 'gpu'``
    label: str

    @property
    def key(self) -> str:
        """The child's shape: identical children (the same template in two objects) are asked once."""
        text = json.dumps([self.collection, self.body], sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]


def _integral(value: Any) -> Any:
    """``value`` with integral floats as ints (a preview gives numbers as floats; the API server's int32 fields
    refuse ``8265.0``, the operator sends ``8265``)."""
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _collection(namespace: str, kind: str) -> str:
    if kind == "Job":
        return f"/apis/batch/v1/namespaces/{namespace}/jobs"
    if kind == "Ingress":
        return f"/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses"
    return f"/api/v1/namespaces/{namespace}/{kind.lower()}s"


def _cluster_name(manifest: Mapping[str, Any]) -> str:
    name = str(paths.metadata(manifest).get("name") or "")
    return name if manifest.get("kind") == "RayCluster" else f"{name}-{GENERATED_SUFFIX}"


def _pod_name(prefix: str, node_type: str) -> str:
    """``PodName(prefix, nodeType, true)``: the prefix cut to 50 characters, lower case, ``-<type>-``."""
    return f"{prefix[:50]}-{node_type}-".lower()


def _check_label(value: str) -> str:
    """``CheckLabel``: the last 63 characters, not starting with punctuation."""
    value = value[-63:]
    return value.lstrip("-_.") or value


def _labels(template: Mapping[str, Any], cluster: str, node_type: str, group: str, extra: Any) -> dict[str, str]:
    merged = {**paths.as_dict(paths.get(template, "metadata", "labels")), **paths.as_dict(extra)}
    labels = {
        **_POD_LABELS,
        names.RAY_CLUSTER_LABEL: cluster,
        "ray.io/node-type": node_type,
        "ray.io/group": group,
        "ray.io/identifier": _check_label(f"{cluster}-{node_type}"),
    }
    labels.update({str(k): str(v) for k, v in merged.items() if k not in _NOT_OVERRIDABLE})
    return labels


def _pod_spec(template: Mapping[str, Any]) -> dict[str, Any]:
    spec = copy.deepcopy(paths.as_dict(template.get("spec")))
    for key in _REFERENCES:
        spec.pop(key, None)
    return spec


def _with_metrics_port(container: dict[str, Any]) -> None:
    ports = [p for p in paths.as_list(container.get("ports")) if isinstance(p, dict)]
    if not any(p.get("name") == "metrics" for p in ports):
        container["ports"] = [*paths.as_list(container.get("ports")), dict(_METRICS_PORT)]


def _autoscaler(spec: Mapping[str, Any], image: Any) -> dict[str, Any]:
    """``BuildAutoscalerContainer`` with ``mergeAutoscalerOverrides`` of ``autoscalerOptions``."""
    options = paths.as_dict(spec.get("autoscalerOptions"))
    container: dict[str, Any] = {
        "name": names.AUTOSCALER_CONTAINER,
        "image": options.get("image") or image,
        "imagePullPolicy": options.get("imagePullPolicy") or "IfNotPresent",
        "command": ["/bin/bash", "-lc", "--"],
        "args": ["ray kuberay-autoscaler"],
    }
    given = options.get("resources")
    container["resources"] = (
        copy.deepcopy(given) if isinstance(given, dict) else _plain(names.AUTOSCALER_DEFAULT_RESOURCES)
    )
    for key in ("env", "envFrom", "volumeMounts", "securityContext"):
        if options.get(key):
            container[key] = copy.deepcopy(options[key])
    return container


def _wait_gcs_ready(ray: Mapping[str, Any]) -> dict[str, Any]:
    """The init container ``DefaultWorkerPodTemplate`` adds to each worker Pod."""
    container: dict[str, Any] = {
        "name": names.WAIT_GCS_READY_CONTAINER,
        "image": ray.get("image"),
        "command": ["/bin/bash", "-lc", "--"],
        "args": ["ray health-check"],
        "resources": _plain(names.WAIT_GCS_READY_RESOURCES),
    }
    for key in ("imagePullPolicy", "securityContext", "env", "volumeMounts"):
        if ray.get(key):
            container[key] = copy.deepcopy(ray[key])
    return container


def _has_env(container: Mapping[str, Any], name: str) -> bool:
    return any(isinstance(e, dict) and e.get("name") == name for e in paths.as_list(container.get("env")))


def _add_env(container: dict[str, Any], name: str, **value: Any) -> None:
    """``EnvVarExists`` or append: the operator never overrides what the template sets."""
    if not _has_env(container, name):
        container["env"] = [*paths.as_list(container.get("env")), {"name": name, **value}]


def _add_mount(container: dict[str, Any], mount: dict[str, Any]) -> None:
    mounts = paths.as_list(container.get("volumeMounts"))
    if not any(isinstance(m, dict) and m.get("name") == mount["name"] for m in mounts):
        container["volumeMounts"] = [*mounts, mount]


def _add_volume(spec: dict[str, Any], volume: dict[str, Any]) -> None:
    volumes = paths.as_list(spec.get("volumes"))
    if not any(isinstance(v, dict) and v.get("name") == volume["name"] for v in volumes):
        spec["volumes"] = [*volumes, volume]


def _token_auth(container: dict[str, Any], cluster: str, auth: Mapping[str, Any]) -> None:
    """``SetContainerTokenAuthEnvVars``: ``RAY_AUTH_MODE``; the Kubernetes-token mode's flag and token mount, or the
    token from its Secret (``authOptions.secretName``, else the one the operator creates, named after the cluster)."""
    _add_env(container, names.AUTH_MODE_ENV, value="token")
    if auth.get("enableK8sTokenAuth") is True:
        _add_env(container, names.K8S_TOKEN_AUTH_ENV, value="true")
        _add_mount(container, {"name": names.TOKEN_VOLUME, "mountPath": names.TOKEN_MOUNT_PATH, "readOnly": True})
    else:
        secret = paths.as_str(auth.get("secretName")) or _check_name(cluster)
        _add_env(
            container,
            names.AUTH_TOKEN_ENV,
            valueFrom={"secretKeyRef": {"name": secret, "key": names.AUTH_TOKEN_SECRET_KEY}},
        )


def _gcs_fault_tolerance(
    ref: paths.ClusterSpecRef, role: str, spec: dict[str, Any], ray: dict[str, Any], cluster: str
) -> dict[str, str]:
    """``configureGCSFaultTolerance`` on one Pod template: the annotations it gives the Pod (the head says whether
    fault tolerance is on), and in place the env (the workers' reconnect timeout; the head's Redis address,
    credentials and storage namespace, or the RocksDB backend's env, volume and mount)."""
    flag = ref.annotations.get(names.FT_ENABLED_ANNOTATION)
    options = ref.spec.get("gcsFaultToleranceOptions")
    enabled = (isinstance(flag, str) and flag.lower() == "true") or options is not None
    annotations = {names.FT_ENABLED_ANNOTATION: "true" if enabled else "false"} if role == "head" else {}
    if not enabled:
        return annotations
    if role != "head":
        _add_env(ray, names.GCS_RECONNECT_TIMEOUT_ENV, value="600")
        return annotations
    options = paths.as_dict(options) if options is not None else None
    if options is not None and options.get("backend") == "rocksdb":  # configureEmbeddedFT
        storage = paths.as_dict(options.get("storage"))
        _add_env(ray, names.ROCKSDB_ENV_VARS[0], value="rocksdb")
        _add_env(ray, names.ROCKSDB_ENV_VARS[1], value=names.ROCKSDB_MOUNT_PATH)
        mount = {
            "name": names.ROCKSDB_VOLUME,
            "mountPath": names.ROCKSDB_MOUNT_PATH,
            **({"subPath": storage["subPath"]} if storage.get("subPath") else {}),
        }
        ray["volumeMounts"] = [*paths.as_list(ray.get("volumeMounts")), mount]
        claim = paths.as_str(storage.get("claimName")) or f"{cluster}{names.GCS_PVC_SUFFIX}"
        spec["volumes"] = [
            *paths.as_list(spec.get("volumes")),
            {"name": names.ROCKSDB_VOLUME, "persistentVolumeClaim": {"claimName": claim}},
        ]
        return annotations
    # configureRedisFT: the namespace is the cluster's UID unless named (a UID's shape stands in: unknown before apply)
    namespace = ref.annotations.get(names.EXTERNAL_STORAGE_NS_ANNOTATION) or "00000000-0000-0000-0000-000000000000"
    namespace = (
        str(paths.get(options, "externalStorageNamespace") or namespace) if options is not None else str(namespace)
    )
    annotations[names.EXTERNAL_STORAGE_NS_ANNOTATION] = namespace
    _add_env(ray, names.EXTERNAL_STORAGE_NS_ENV, value=namespace)
    if options is not None:
        ray["env"] = [
            *paths.as_list(ray.get("env")),
            {"name": names.REDIS_ADDRESS_ENV, "value": options.get("redisAddress")},
        ]
        for key, env in (("redisUsername", "REDIS_USERNAME"), ("redisPassword", "REDIS_PASSWORD")):
            given = paths.as_dict(options.get(key))
            if key in options:
                ray["env"] = [
                    *ray["env"],
                    {"name": env, **{k: copy.deepcopy(v) for k, v in given.items() if k in ("value", "valueFrom")}},
                ]
    else:
        password = paths.as_dict(paths.get(ref.spec, "headGroupSpec", "rayStartParams")).get("redis-password")
        if password is not None:
            _add_env(ray, "REDIS_PASSWORD", value=password)
    return annotations


def _group_pod(ref: paths.ClusterSpecRef, group: paths.GroupRef, cluster: str, namespace: str) -> Child | None:
    template = paths.group_template(group)
    if template is None:
        return None
    spec = _pod_spec(template.template)
    containers = [c for c in paths.as_list(spec.get("containers")) if isinstance(c, dict)]
    if not containers:
        return None
    ray = containers[0]
    _with_metrics_port(ray)
    auth = paths.as_dict(ref.spec.get("authOptions"))
    token = auth.get("mode") == "token"  # IsAuthEnabled
    if group.role == "head":
        generate = _pod_name(cluster, "head")
        labels = _labels(template.template, cluster, "head", "headgroup", group.spec.get("labels"))
        if ref.spec.get("enableInTreeAutoscaling") is True:
            autoscaler = _autoscaler(ref.spec, ray.get("image"))
            if token:  # set before autoscalerOptions' own env and mounts are merged in
                made: dict[str, Any] = {}
                _token_auth(made, cluster, auth)
                for key in ("env", "volumeMounts"):
                    if made.get(key):
                        autoscaler[key] = [*made[key], *paths.as_list(autoscaler.get(key))]
            containers.append(autoscaler)
        label = "the head Pod"
    else:
        generate = _pod_name(f"{cluster}-{group.name}", "worker")
        labels = _labels(template.template, cluster, "worker", group.name, group.spec.get("labels"))
        spec["initContainers"] = [*paths.as_list(spec.get("initContainers")), _wait_gcs_ready(ray)]
        label = f"the Pods of worker group {group.name!r}"
    annotations = _gcs_fault_tolerance(ref, group.role, spec, ray, cluster)
    if token:  # configureTokenAuth: the Ray container, the wait-gcs-ready init container, the token volume
        _token_auth(ray, cluster, auth)
        for init in paths.as_list(spec.get("initContainers")):
            if isinstance(init, dict) and init.get("name") == names.WAIT_GCS_READY_CONTAINER:
                _token_auth(init, cluster, auth)
        if auth.get("enableK8sTokenAuth") is True:
            _add_volume(
                spec,
                {"name": names.TOKEN_VOLUME, "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
            )
    spec["containers"] = containers
    metadata = copy.deepcopy(paths.as_dict(template.template.get("metadata")))
    metadata.pop("name", None)
    metadata.update(generateName=generate, namespace=namespace, labels=labels)
    if annotations:
        metadata["annotations"] = {**paths.as_dict(metadata.get("annotations")), **annotations}
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}
    return Child("Pod", _collection(namespace, "Pod"), body, template.path, label)


def _service_ports(ref: paths.ClusterSpecRef) -> dict[str, Any] | None:
    """``getServicePorts``: the head Ray container's ports by name (an unnamed one ``<port>-port``), KubeRay's
    defaults when there are none, ``metrics`` added; None without a head template."""
    head = paths.head_group(ref)
    template = paths.group_template(head) if head is not None else None
    if template is None:
        return None
    ray = paths.ray_container(template)
    found: dict[str, Any] = {}
    for port in paths.as_list((ray[1] if ray else {}).get("ports")):
        if isinstance(port, dict):
            found[str(port.get("name") or f"{port.get('containerPort')}-port")] = port.get("containerPort")
    if not found:
        found = dict(names.HEAD_DEFAULT_PORTS)
    found.setdefault("metrics", _METRICS_PORT["containerPort"])
    return found


def _head_service(ref: paths.ClusterSpecRef, cluster: str, namespace: str) -> Child | None:
    """``BuildServiceForHeadPod``: the head Ray container's ports (``getServicePorts``: an unnamed one named
    ``<port>-port``, KubeRay's defaults when there are none, ``metrics`` added), KubeRay's head labels as selector
    and labels, ``serviceType``, headless when ClusterIP; a custom ``headService`` with these ports appended to
    its own (the same name twice is refused by the API server, as the operator's is)."""
    head = paths.head_group(ref)
    found = _service_ports(ref)
    if head is None or found is None:
        return None
    ports = [{"name": name, "port": port, "appProtocol": "tcp"} for name, port in sorted(found.items())]
    selector = {
        names.RAY_CLUSTER_LABEL: cluster,
        "ray.io/node-type": "head",
        "ray.io/identifier": _check_label(f"{cluster}-head"),
        "app.kubernetes.io/name": "kuberay",
        "app.kubernetes.io/created-by": "kuberay-operator",
    }
    service_type = paths.as_str(head.spec.get("serviceType"))
    custom = paths.as_dict(head.spec.get("headService"))
    if custom:
        body = copy.deepcopy(custom)
        spec = paths.as_dict(body.get("spec"))
        spec["selector"] = dict(selector)
        spec["ports"] = [*paths.as_list(spec.get("ports")), *ports]
        if not spec.get("type") and service_type:
            spec["type"] = service_type
        metadata = paths.as_dict(body.get("metadata"))
        metadata["labels"] = {**paths.as_dict(metadata.get("labels")), **selector}
    else:
        spec = {"selector": dict(selector), "ports": ports}
        if service_type:
            spec["type"] = service_type
        if service_type in (None, "", "ClusterIP"):
            spec.update(clusterIP="None", publishNotReadyAddresses=True)
        metadata = {"labels": dict(selector)}
    metadata["name"] = names.head_service_name(cluster, ref.spec)
    metadata["namespace"] = namespace
    body = {"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": spec}
    path = head.path + (".headService" if custom else "")
    return Child("Service", _collection(namespace, "Service"), body, path, "the head Service")


def _owner_head_service(
    manifest: Mapping[str, Any], ref: paths.ClusterSpecRef, cluster: str, namespace: str
) -> Child | None:
    """``BuildHeadServiceForRayService`` / ``BuildHeadServiceForRayJob``: the cluster's head Service
    (``BuildServiceForHeadPod``) named ``<rayservice>-head-svc`` / ``<rayjob>-head-svc``, its labels replaced by the
    owner's (the selector stays the cluster's)."""
    built = _head_service(ref, cluster, namespace)
    if built is None:
        return None
    kind = "RayService" if manifest.get("kind") == "RayService" else "RayJob"
    name = str(paths.metadata(manifest).get("name"))
    name = f"{name}-{GENERATED_SUFFIX}" if manifest.get("kind") == "RayCronJob" else name  # the RayJob it creates
    body = copy.deepcopy(dict(built.body))
    body["metadata"] = {
        **paths.as_dict(body.get("metadata")),
        "name": f"{name}{names.HEAD_SERVICE_SUFFIX}",
        "labels": {
            names.ORIGINATED_FROM_CR_NAME_LABEL: name,
            names.ORIGINATED_FROM_CRD_LABEL: kind,
            "ray.io/node-type": "head",
            "ray.io/identifier": _check_label(f"{name}-head"),
        },
    }
    return Child("Service", built.collection, body, built.path, f"the {kind}'s head Service")


def _serving_port(name: str) -> bool:
    """``isServingPort``: ``serve`` or ``serve-<protocol>`` (``serve-grpc``)."""
    return name == "serve" or name.startswith("serve-")


def _serve_service(
    manifest: Mapping[str, Any], ref: paths.ClusterSpecRef, cluster: str, namespace: str
) -> Child | None:
    """``BuildServeService``: a RayService's Serve Service (``<rayservice>-serve-svc``, or its ``serveService``
    completed), or a RayCluster's when annotated ``ray.io/enable-serve-service: "true"`` (``<cluster>-serve-svc``):
    the head's serving ports, selecting the cluster's Pods (a RayService's: those labelled ``ray.io/serve: "true"``).
    Under an incremental upgrade (gate ``RayServiceIncrementalUpgrade``, on by default) it is named after the
    cluster and ``serveService`` is not used (``IsIncrementalUpgradeEnabled``)."""
    kind = str(manifest.get("kind"))
    meta = paths.metadata(manifest)
    spec = paths.as_dict(manifest.get("spec"))
    is_service = kind == "RayService"
    enabled = paths.as_dict(meta.get("annotations")).get(names.ENABLE_SERVE_SERVICE_ANNOTATION) == "true"
    if not (is_service or (kind == "RayCluster" and enabled)):
        return None
    incremental = is_service and paths.get(spec, "upgradeStrategy", "type") == "NewClusterWithIncrementalUpgrade"
    found = _service_ports(ref)
    head = paths.head_group(ref)
    if found is None or head is None:
        return None
    name = str(meta.get("name")) if is_service and not incremental else cluster
    ports = [{"name": port, "port": number} for port, number in sorted(found.items()) if _serving_port(port)]
    labels = {
        names.ORIGINATED_FROM_CR_NAME_LABEL: name,
        names.ORIGINATED_FROM_CRD_LABEL: kind,
        names.SERVE_LABEL: f"{name}-serve",
    }
    selector = {names.RAY_CLUSTER_LABEL: cluster, **({names.SERVE_LABEL: "true"} if is_service else {})}
    service_type = paths.as_str(head.spec.get("serviceType"))
    custom = paths.as_dict(spec.get("serveService")) if is_service and not incremental else {}
    if custom:
        body = copy.deepcopy(custom)
        service_spec = paths.as_dict(body.get("spec"))
        service_spec["selector"] = selector
        if ports:  # the user's port of the same name wins (its appProtocol: kubernetes.io/h2c for gRPC)
            given = {p.get("name"): p for p in paths.as_list(service_spec.get("ports")) if isinstance(p, dict)}
            service_spec["ports"] = [given.get(p["name"], p) for p in ports]
        if not service_spec.get("type") and service_type:
            service_spec["type"] = service_type
        metadata = paths.as_dict(body.get("metadata"))
        metadata["labels"] = {**paths.as_dict(metadata.get("labels")), **labels}
        metadata["name"] = metadata.get("name") or f"{name}{names.SERVE_SERVICE_SUFFIX}"
        metadata["namespace"] = namespace
        body.update(apiVersion="v1", kind="Service", metadata=metadata, spec=service_spec)
        path = "spec.serveService"
    elif ports:
        service_spec = {"selector": selector, "ports": ports, **({"type": service_type} if service_type else {})}
        metadata = {"name": f"{name}{names.SERVE_SERVICE_SUFFIX}", "namespace": namespace, "labels": labels}
        body = {"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": service_spec}
        path = head.path
    else:
        return None  # the operator builds none (it logs that the head declares no port named serve)
    return Child("Service", _collection(namespace, "Service"), body, path, "the Serve Service")


def _check_name(value: str) -> str:
    """``CheckName``: the last 50 characters, a leading digit or punctuation replaced by ``r``."""
    value = value[-50:]
    return f"r{value[1:]}" if value and (value[0].isdigit() or value[0] in "-._") else value


def _ingress(manifest: Mapping[str, Any], ref: paths.ClusterSpecRef, cluster: str, namespace: str) -> Child | None:
    """``BuildIngressForHeadService`` of a cluster with ``enableIngress`` (not on OpenShift, where a Route is made):
    the dashboard through the head Service, ``ingressOptions`` (path ``/``, ``Prefix`` by default, host, TLS), the
    cluster's annotations (a RayJob's or RayService's cluster has its owner's) but the ingress class, which becomes
    ``ingressClassName``. The annotations the operator adds to a cluster it creates (hashes) are left out."""
    head = paths.head_group(ref)
    found = _service_ports(ref)
    if head is None or found is None or head.spec.get("enableIngress") is not True:
        return None
    given = {} if manifest.get("kind") == "RayCronJob" else paths.as_dict(paths.metadata(manifest).get("annotations"))
    annotations = {str(k): str(v) for k, v in given.items() if k != names.INGRESS_CLASS_ANNOTATION}
    options = paths.as_dict(head.spec.get("ingressOptions"))
    path = options.get("path") if isinstance(options.get("path"), str) else "/"
    backend = {
        "service": {
            "name": names.head_service_name(cluster, ref.spec),
            "port": {"number": found.get("dashboard", names.DASHBOARD_PORT)},
        }
    }
    rule: dict[str, Any] = {
        "http": {"paths": [{"path": path, "pathType": options.get("pathType") or "Prefix", "backend": backend}]}
    }
    if options.get("host"):
        rule["host"] = options["host"]
    labels = {
        names.RAY_CLUSTER_LABEL: cluster,
        "ray.io/identifier": _check_label(f"{cluster}-head"),
        "app.kubernetes.io/name": "kuberay",
        "app.kubernetes.io/created-by": "kuberay-operator",
    }
    metadata: dict[str, Any] = {
        "name": _check_name(f"{cluster}-head-ingress"),
        "namespace": namespace,
        "labels": labels,
    }
    if annotations:
        metadata["annotations"] = annotations
    ingress_spec: dict[str, Any] = {"rules": [rule]}
    if paths.as_list(options.get("tls")):
        ingress_spec["tls"] = copy.deepcopy(options["tls"])
    ingress_class = given.get(names.INGRESS_CLASS_ANNOTATION)
    if ingress_class is not None:
        ingress_spec["ingressClassName"] = str(ingress_class)
    body = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": metadata, "spec": ingress_spec}
    return Child(
        "Ingress", _collection(namespace, "Ingress"), body, f"{head.path}.enableIngress", "the dashboard Ingress"
    )


def _headless_service(ref: paths.ClusterSpecRef, cluster: str, namespace: str) -> Child | None:
    """``BuildHeadlessServiceForRayCluster``, made when a worker group has ``numOfHosts`` > 1: the peers of a
    multi-host replica find each other through it (ClusterIP None, not-ready addresses published)."""
    multi = [g for g in paths.worker_groups(ref) if (paths.as_int(g.spec.get("numOfHosts")) or 1) > 1]
    if not multi:
        return None
    body = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": f"{cluster}{names.HEADLESS_SERVICE_SUFFIX}",
            "namespace": namespace,
            "labels": {names.HEADLESS_WORKER_SERVICE_LABEL: cluster},
        },
        "spec": {
            "clusterIP": "None",
            "selector": {names.RAY_CLUSTER_LABEL: cluster, "ray.io/node-type": "worker"},
            "type": "ClusterIP",
            "publishNotReadyAddresses": True,
        },
    }
    return Child(
        "Service",
        _collection(namespace, "Service"),
        body,
        f"{multi[0].path}.numOfHosts",
        "the headless Service of the multi-host workers",
    )


def _submitter_job(manifest: Mapping[str, Any], ref: paths.ClusterSpecRef, namespace: str) -> Child | None:
    """``createNewK8sJob`` of a RayJob in K8sJobMode (a RayCronJob's RayJobs too)."""
    cron = manifest.get("kind") == "RayCronJob"
    job_spec = paths.as_dict(paths.get(manifest, "spec", "jobTemplate") if cron else manifest.get("spec"))
    if (paths.as_str(job_spec.get("submissionMode")) or "K8sJobMode") != "K8sJobMode":
        return None
    name = str(paths.metadata(manifest).get("name") or "")
    job_name = f"{name}-{GENERATED_SUFFIX}" if cron else name
    prefix = "spec.jobTemplate" if cron else "spec"
    given = job_spec.get("submitterPodTemplate")
    if isinstance(given, dict):
        template = copy.deepcopy(given)
        template["spec"] = _pod_spec(given)
        path = f"{prefix}.submitterPodTemplate"
    else:
        head = paths.head_group(ref)
        ray = paths.ray_container(paths.group_template(head)) if head is not None else None
        image = (ray[1] if ray else {}).get("image")
        container = {
            "name": names.SUBMITTER_CONTAINER,
            "image": image,
            "resources": copy.deepcopy(_SUBMITTER_RESOURCES),
        }
        template = {"spec": {"containers": [container], "restartPolicy": "Never"}}
        path = prefix
    auth = paths.as_dict(ref.spec.get("authOptions"))
    submitter = paths.as_list(paths.get(template, "spec", "containers"))
    if auth.get("mode") == "token" and submitter and isinstance(submitter[0], dict):  # configureSubmitterContainer
        _token_auth(submitter[0], _cluster_name(manifest), auth)
    created = {
        names.ORIGINATED_FROM_CR_NAME_LABEL: job_name,
        names.ORIGINATED_FROM_CRD_LABEL: "RayJob",
        "app.kubernetes.io/created-by": "kuberay-operator",
    }
    metadata = paths.as_dict(template.setdefault("metadata", {}))
    metadata["labels"] = {**paths.as_dict(metadata.get("labels")), **created}
    template["metadata"] = metadata
    backoff = paths.get(job_spec, "submitterConfig", "backoffLimit")
    body = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": job_name, "namespace": namespace, "labels": dict(created)},
        "spec": {"backoffLimit": backoff if backoff is not None else 2, "template": template},
    }
    return Child("Job", _collection(namespace, "Job"), body, path, "the submitter Job")


def children(manifest: Mapping[str, Any], namespace: str) -> tuple[Child, ...]:
    """The distinct objects the operator creates at start from ``manifest`` in ``namespace`` (head Pod first);
    none that holds a value known only after preview, none of a cluster the operator does not create (a RayJob's
    ``clusterSelector``, a ``managedBy`` of another controller)."""
    if not paths.as_str(paths.metadata(manifest).get("name")):
        return ()
    out: list[Child] = []
    cluster = _cluster_name(manifest)
    cron = manifest.get("kind") == "RayCronJob"
    job_spec = paths.as_dict(paths.get(manifest, "spec", "jobTemplate") if cron else manifest.get("spec"))
    selected = bool(paths.as_dict(job_spec.get("clusterSelector"))) and manifest.get("kind") in ("RayJob", "RayCronJob")
    for ref in paths.cluster_specs(manifest):
        manager = ref.spec.get("managedBy")
        if selected or (isinstance(manager, str) and manager != names.KUBERAY_CONTROLLER):
            continue
        for group in paths.groups(ref):
            pod = _group_pod(ref, group, cluster, namespace)
            if pod is not None:
                out.append(pod)
        services = [
            _head_service(ref, cluster, namespace),
            _serve_service(manifest, ref, cluster, namespace),
            _ingress(manifest, ref, cluster, namespace),
            _headless_service(ref, cluster, namespace),
        ]
        if manifest.get("kind") != "RayCluster":
            services.insert(1, _owner_head_service(manifest, ref, cluster, namespace))
        out += [child for child in services if child is not None]
        if manifest.get("kind") in ("RayJob", "RayCronJob"):
            job = _submitter_job(manifest, ref, namespace)
            if job is not None:
                out.append(job)
    seen: set[str] = set()
    distinct = []
    for made in out:
        child = Child(made.kind, made.collection, _integral(made.body), made.path, made.label)
        if child.key not in seen and not paths.contains_unknown(child.body):
            seen.add(child.key)
            distinct.append(child)
    return tuple(distinct)
