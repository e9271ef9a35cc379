"""Mutations at the edges of what KubeRay v1.7 added and of the v1.7 CRD schema.

v1.7 validation (``ValidateRayClusterSpec`` and helpers: ``validateGcsFaultToleranceBackend``,
``validateCollectorOptions``, ``validateNetworkPolicy``, ``validateTLSOptions``, ``validateWorkerGroupPriority``;
``ValidateRayCronJobSpec``'s time zone), what the reconcilers do with it at run time (the submitter's
``getMetadataJSONForSubmitCommand``, the runtime env turned into JSON), and the schema's edges (``null`` list
items and objects, a removed required field, an empty string for an integer). At older operator versions the
same mutations hold the catalogue's version awareness: the v1.7 fields are unknown there and pruned.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ._generate_base import IMAGE, JsonDict, Mutation, cluster_of, head, job_of, show, worker


def _head_container(doc: JsonDict) -> JsonDict | None:
    cluster = cluster_of(doc)
    return head(cluster) if cluster is not None else None


# --------------------------------------------------------------------------------------------------
# GCS fault tolerance: the embedded RocksDB backend (v1.7) and the options it forbids.


def m_gcs_backend(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    opts: JsonDict = {}
    backend = draw(st.sampled_from(["rocksdb", "rocksdb", "redis", "RocksDB", None]))
    if backend is not None:
        opts["backend"] = backend
    choices: list[tuple[str, list[Any]]] = [
        ("redisAddress", [None, None, "", "redis:6379"]),
        ("redisUsername", [None, None, {}, {"value": "u"}]),
        ("redisPassword", [None, None, {}, {"value": "p"}]),
        ("externalStorageNamespace", [None, None, "", "ns"]),
    ]
    for key, values in choices:
        value = draw(st.sampled_from(values))
        if value is not None:
            opts[key] = value
    if draw(st.booleans()):
        storage: JsonDict = {}
        for key, values in (
            ("claimName", [None, "", "gcs-pvc"]),
            ("size", [None, "1Gi", "bad"]),
            ("storageClassName", [None, "", "fast"]),
            ("accessModes", [None, [], ["ReadWriteOnce"]]),
        ):
            value = draw(st.sampled_from(values))
            if value is not None:
                storage[key] = value
        opts["storage"] = storage
    cluster["gcsFaultToleranceOptions"] = opts
    tag = f"gcsFaultToleranceOptions={show(opts)}"
    managed = draw(st.sampled_from([None, None, "env-storage", "env-path", "mount-path", "mount-name", "volume"]))
    container = head(cluster)
    if managed == "env-storage":
        container.setdefault("env", []).append({"name": "RAY_gcs_storage", "value": "rocksdb"})
    elif managed == "env-path":
        container.setdefault("env", []).append({"name": "RAY_gcs_storage_path", "value": "/data/gcs"})
    elif managed in ("mount-path", "mount-name"):
        name, path = ("data", "/data/gcs") if managed == "mount-path" else ("gcs-storage", "/data/x")
        container.setdefault("volumeMounts", []).append({"name": name, "mountPath": path})
        cluster["headGroupSpec"]["template"]["spec"]["volumes"] = [{"name": name, "emptyDir": {}}]
    elif managed == "volume":
        cluster["headGroupSpec"]["template"]["spec"]["volumes"] = [{"name": "gcs-storage", "emptyDir": {}}]
    if managed:
        tag += f"+head:{managed}"
    return tag


# --------------------------------------------------------------------------------------------------
# The history server's collector (v1.7, gate RayClusterHistoryServer).

BACKENDS = ["GCS", "gcs", " S3 ", "s3", "S3", "AzureBlob", "AZUREBLOB", "ALIYUNOSS", "other", ""]
BACKEND_ENV: list[tuple[str, str]] = [
    ("GCS_BUCKET", "b"),
    ("GCS_BUCKET", ""),
    ("S3_REGION", "us-east-1"),
    ("AZURE_STORAGE_AUTH_MODE", " Connection_String "),
    ("AZURE_STORAGE_AUTH_MODE", "workload_identity"),
    ("AZURE_STORAGE_AUTH_MODE", "other"),
    ("AZURE_STORAGE_CONNECTION_STRING", "c"),
    ("AZURE_STORAGE_ACCOUNT_URL", "https://a"),
    ("OSS_BUCKET", "b"),
    ("OSS_ENDPOINT", "e"),
    ("OSS_REGION", "r"),
    ("POD_IP", "1.2.3.4"),
    ("RAY_CLUSTER_NAME", "x"),
]


def m_history_server(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    if draw(st.integers(0, 5)) == 0:
        cluster["historyServerOptions"] = draw(st.sampled_from([{}, {"collectorOptions": {}}]))
        return f"historyServerOptions={show(cluster['historyServerOptions'])}"
    collector: JsonDict = {}
    image = draw(st.sampled_from(["collector:1", "collector:1", "", None]))
    if image is not None:
        collector["image"] = image
    env: list[JsonDict] = []
    backend = draw(st.sampled_from([*BACKENDS, None]))
    if backend is not None:
        env.append({"name": "STORAGE_BACKEND", "value": backend})
        if draw(st.integers(0, 4)) == 0:  # a duplicate key: Go keeps the last one (envMap)
            env.append({"name": "STORAGE_BACKEND", "value": draw(st.sampled_from(BACKENDS))})
    for name, value in draw(st.lists(st.sampled_from(BACKEND_ENV), max_size=3)):
        env.append({"name": name, "value": value})
    if draw(st.integers(0, 6)) == 0:
        env.append({"name": "GCS_BUCKET", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}})
    if env:
        collector["env"] = env
    cluster["historyServerOptions"] = {"collectorOptions": collector}
    tag = f"historyServerOptions={show(collector)}"
    if draw(st.integers(0, 5)) == 0:
        cluster["headGroupSpec"]["template"]["spec"]["containers"].append(
            {"name": "ray-history-collector", "image": IMAGE}
        )
        tag += "+head-container:ray-history-collector"
    return tag


# --------------------------------------------------------------------------------------------------
# Network policy (v1.7, gate RayClusterNetworkPolicy).


def m_network_policy(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    policy: JsonDict = {}
    mode = draw(st.sampled_from([None, "DenyAll", "DenyAllIngress", "DenyAllEgress"]))
    if mode:
        policy["mode"] = mode
    rule = draw(st.sampled_from([None, "ingressRules", "egressRules"]))
    where = draw(st.sampled_from(["head", "worker", "workerGroups"]))
    if rule:
        if where == "workerGroups":
            group_name = draw(st.sampled_from(["cpu", "other"]))
            policy["workerGroups"] = [{"groupName": group_name, rule: [{}]}]
        else:
            policy[where] = {rule: [{}]}
    cluster["networkPolicy"] = policy
    tag = f"networkPolicy={show(policy)}"
    group = worker(cluster)
    if group is not None and draw(st.integers(0, 4)) == 0:
        group["groupName"] = "CPU"
        tag += "+groupName=CPU"
    return tag


# --------------------------------------------------------------------------------------------------
# mTLS (v1.7, gate RayClusterMTLS) and the operator-managed env/mounts.

TLS_MOUNTS = [("ray-tls", "/x"), ("x", "/etc/ray/tls"), ("x", "/etc/ray/tls/"), ("x", "/etc/ray")]


def m_tls(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    tls = draw(st.sampled_from([{}, {"enabled": True}, {"enabled": False}]))
    cluster["tlsOptions"] = tls
    tag = f"tlsOptions={show(tls)}"
    where = draw(st.sampled_from([None, "head", "worker", "autoscaler"]))
    what = draw(st.sampled_from(["env", "mount"]))
    if where is None:
        return tag
    if what == "env":
        env = {"name": draw(st.sampled_from(["RAY_USE_TLS", "RAY_TLS_CA_CERT", "RAY_TLS"])), "value": "1"}
        item, key = env, "env"
    else:
        name, path = draw(st.sampled_from(TLS_MOUNTS))
        item, key = {"name": name, "mountPath": path}, "volumeMounts"
    if where == "autoscaler":
        cluster.setdefault("autoscalerOptions", {}).setdefault(key, []).append(item)
    else:
        group = worker(cluster) if where == "worker" else None
        container = group["template"]["spec"]["containers"][0] if group else head(cluster)
        container.setdefault(key, []).append(item)
    return f"{tag}+{where}.{key}={show(item)}"


# --------------------------------------------------------------------------------------------------
# The autoscaler: a KubeRay-managed env var, worker group priority (v1.7, Ray >= 2.56 and autoscaler v2).


def m_autoscaler_env(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    name = draw(st.sampled_from(["KUBERAY_GEN_AUTOSCALER_START_CMD", "OTHER"]))
    cluster["enableInTreeAutoscaling"] = True
    cluster.setdefault("autoscalerOptions", {})["env"] = [{"name": name, "value": "x"}]
    return f"autoscalerOptions.env={name}"


def m_priority(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    group = worker(cluster) if cluster is not None else None
    if cluster is None or group is None:
        return "noop"
    priority = draw(st.sampled_from([1, 0, -1, 5]))
    group["priority"] = priority
    version = draw(st.sampled_from(["2.56.0", "2.55.1", "", "latest", "2.56.0-rc1"]))
    cluster["rayVersion"] = version
    v2 = draw(st.sampled_from([None, "version", "env-1", "env-true", "env-True"]))
    if v2 == "version":
        cluster["enableInTreeAutoscaling"] = True
        cluster["autoscalerOptions"] = {"version": "v2"}
    elif v2:
        value = {"env-1": "1", "env-true": "true", "env-True": "True"}[v2]
        head(cluster).setdefault("env", []).append({"name": "RAY_enable_autoscaler_v2", "value": value})
    return f"priority={priority},rayVersion={show(version)},v2={v2}"


def m_v2_restart_policy(draw: st.DrawFn, doc: JsonDict) -> str:
    """Autoscaler v2 chosen by version or by the head env var only (IsAutoscalingV2Enabled reads the version),
    with a restartPolicy other than Never, and an idle timeout (validateWorkerGroupIdleTimeout reads both)."""
    cluster = cluster_of(doc)
    group = worker(cluster) if cluster is not None else None
    if cluster is None or group is None:
        return "noop"
    cluster["enableInTreeAutoscaling"] = True
    how = draw(st.sampled_from(["version", "env", "version-v1+env"]))
    if how in ("version", "version-v1+env"):
        cluster["autoscalerOptions"] = {"version": "v2" if how == "version" else "v1"}
    if how in ("env", "version-v1+env"):
        head(cluster).setdefault("env", []).append({"name": "RAY_enable_autoscaler_v2", "value": "true"})
    policy = draw(st.sampled_from(["OnFailure", "Always", "Never"]))
    where = draw(st.sampled_from(["head", "worker"]))
    target = cluster["headGroupSpec"] if where == "head" else group
    target["template"]["spec"]["restartPolicy"] = policy
    tag = f"v2-by-{how},restartPolicy-{where}={policy}"
    if draw(st.booleans()):
        group["idleTimeoutSeconds"] = 60
        tag += ",idleTimeoutSeconds=60"
    return tag


# --------------------------------------------------------------------------------------------------
# The v1.7 schema's edges.


def m_schema_edges(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    what = draw(
        st.sampled_from(
            [
                "containers[0]=null",
                "ports[1]=null",
                "volumes[0]=null",
                "env[0]=null",
                "head-template-removed",
                "headGroupSpec-removed",
                "worker-template-removed",
                "replicas=''",
                "minReplicas=''",
                "containerPort=''",
                "resources=null",
                "template.spec=null",
                "workerGroupSpecs[0]=null",
            ]
        )
    )
    group = worker(cluster)
    container = head(cluster)
    if what == "containers[0]=null":
        cluster["headGroupSpec"]["template"]["spec"]["containers"] = [None]
    elif what == "ports[1]=null":
        container["ports"] = [{"containerPort": 8265, "name": "dashboard"}, None]
    elif what == "volumes[0]=null":
        cluster["headGroupSpec"]["template"]["spec"]["volumes"] = [None]
    elif what == "env[0]=null":
        container["env"] = [None]
    elif what == "head-template-removed":
        del cluster["headGroupSpec"]["template"]
    elif what == "headGroupSpec-removed":
        del cluster["headGroupSpec"]
    elif what == "worker-template-removed" and group is not None:
        del group["template"]
    elif what in ("replicas=''", "minReplicas=''") and group is not None:
        group[what.split("=")[0]] = ""
    elif what == "containerPort=''":
        container["ports"] = [{"containerPort": "", "name": "dashboard"}]
    elif what == "resources=null":
        container["resources"] = None
    elif what == "template.spec=null":
        cluster["headGroupSpec"]["template"]["spec"] = None
    elif what == "workerGroupSpecs[0]=null":
        cluster["workerGroupSpecs"] = [None]
    else:
        return "noop"
    return f"schema:{what}"


# --------------------------------------------------------------------------------------------------
# The head's ports (the dashboard the RayJob/RayService controllers reach, Serve's HTTP port).


def m_head_ports(draw: st.DrawFn, doc: JsonDict) -> str:
    container = _head_container(doc)
    if container is None:
        return "noop"
    ports = draw(
        st.sampled_from(
            [
                [{"containerPort": 8265, "name": "dashboard"}],
                [{"containerPort": 8266, "name": "dashboard"}],
                [{"containerPort": 8265, "name": "dash"}],
                [{"containerPort": 8265}],
                [{"containerPort": 8000, "name": "serve"}],
                [{"containerPort": 8001, "name": "serve"}],
                [{"containerPort": 8000, "name": "http"}],
                [{"containerPort": 8000, "name": "serve-http"}],
                [{"containerPort": 8265, "name": "dashboard"}, {"containerPort": 8000, "name": "serve"}],
                [],
            ]
        )
    )
    container["ports"] = ports
    return f"head-ports={show(ports)}"


# --------------------------------------------------------------------------------------------------
# RayJob at run time: the runtime env turned into JSON, the submitter's metadata.

RUNTIME_ENVS = [
    "env_vars: {A: .nan}\n",
    "env_vars: {A: .inf}\n",
    "x: -.inf\n",
    "pip: [requests]\n---\nenv_vars: {A: '1'}\n",
    "---\npip: [requests]\n",
    "pip: [requests]\n---\n",
    "a: 1e400\n",
    "a: 0x10\n",
]


def m_runtime_env_json(draw: st.DrawFn, doc: JsonDict) -> str:
    job = job_of(doc)
    if job is None:
        return "noop"
    value = draw(st.sampled_from(RUNTIME_ENVS))
    job["runtimeEnvYAML"] = value
    return f"runtimeEnvYAML={show(value)}"


def m_submitter_metadata(draw: st.DrawFn, doc: JsonDict) -> str:
    job = job_of(doc)
    if job is None:
        return "noop"
    if draw(st.booleans()):
        job["metadata"] = {"owner": "team"}
    cluster = job.get("rayClusterSpec")
    version = draw(st.sampled_from(["latest", "2.6.0-rc1", "2.5.0", "2.6.0", "v2.52.0", "2.52", "nightly", ""]))
    if isinstance(cluster, dict):
        cluster["rayVersion"] = version
    mode = draw(st.sampled_from(["K8sJobMode", "HTTPMode", "SidecarMode"]))
    job["submissionMode"] = mode
    return f"metadata={'metadata' in job},rayVersion={show(version)},submissionMode={mode}"


# --------------------------------------------------------------------------------------------------
# RayCronJob's time zone (v1.7).

TIME_ZONES = [None, "", "UTC", "Local", "America/New_York", "Mars/Base", "utc", " UTC", "Etc/GMT+5", "EST"]


def m_time_zone(draw: st.DrawFn, doc: JsonDict) -> str:
    if doc["kind"] != "RayCronJob":
        return "noop"
    zone = draw(st.sampled_from(TIME_ZONES))
    if zone is None:
        doc["spec"].pop("timeZone", None)
    else:
        doc["spec"]["timeZone"] = zone
    return f"timeZone={show(zone)}"


CLUSTER_V17_MUTATIONS: list[Mutation] = [
    m_gcs_backend,
    m_gcs_backend,
    m_history_server,
    m_history_server,
    m_network_policy,
    m_tls,
    m_tls,
    m_autoscaler_env,
    m_priority,
    m_v2_restart_policy,
    m_head_ports,
]
COMMON_V17_MUTATIONS: list[Mutation] = [m_schema_edges, m_schema_edges]
JOB_V17_MUTATIONS: list[Mutation] = [m_runtime_env_json, m_submitter_metadata]
CRON_V17_MUTATIONS: list[Mutation] = [m_time_zone, m_time_zone]
