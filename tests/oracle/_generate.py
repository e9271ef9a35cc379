"""Hypothesis strategies: near-valid manifests of the four kinds, mutated at the boundaries of KubeRay's rules.

A case is a small valid manifest plus 1-3 mutations, each named by a tag (``name-len-54``, ``replicas-min>max``,
``schedule:'@every 1h'``...), so a disagreement says what was changed. Mutations aim at the edges of the
operator's validation (``ValidateRayClusterSpec``, ``ValidateRayJobSpec``, ``ValidateRayServiceSpec``,
``ValidateRayCronJobSpec``, the metadata validators) and of the CRD schema (types, enums, list-map keys,
quantities, metadata syntax).
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from ._generate_base import (
    IMAGE,
    KINDS,
    JsonDict,
    Mutation,
    base,
    cluster_of,
    job_of,
)
from ._generate_base import head as _head
from ._generate_base import show as _show
from ._generate_base import worker as _worker
from ._mutate_pods import POD_MUTATIONS
from ._mutate_v17 import CLUSTER_V17_MUTATIONS, COMMON_V17_MUTATIONS, CRON_V17_MUTATIONS, JOB_V17_MUTATIONS
from ._mutate_workloads import m_cron, m_service

# --------------------------------------------------------------------------------------------------
# Mutations: each changes the doc in place and returns its tag.

NAME_LENGTHS = [1, 2, 30, 36, 41, 42, 46, 47, 48, 52, 53, 54, 57, 58, 59, 62, 63, 64, 70, 254]
BAD_NAMES = ["Demo", "1demo", "demo-", "-demo", "de.mo", "de_mo", "de--mo", "demo ", "dé", "demo\n"]


def m_name_length(draw: st.DrawFn, doc: JsonDict) -> str:
    n = draw(st.sampled_from(NAME_LENGTHS))
    doc["metadata"].pop("generateName", None)
    doc["metadata"]["name"] = ("r" + "a1-b" * 80)[: n - 1] + "z" if n > 1 else "r"
    return f"name-len-{n}"


def m_name_syntax(draw: st.DrawFn, doc: JsonDict) -> str:
    name = draw(st.sampled_from(BAD_NAMES))
    doc["metadata"].pop("generateName", None)
    doc["metadata"]["name"] = name
    return f"name:{_show(name)}"


def m_generate_name(draw: st.DrawFn, doc: JsonDict) -> str:
    n = draw(st.sampled_from([3, 30, 41, 42, 47, 48, 53, 58, 60]))
    prefix = ("g" + "x" * 80)[: n - 1] + draw(st.sampled_from(["-", "a"]))
    doc["metadata"].pop("name", None)
    doc["metadata"]["generateName"] = prefix
    return f"generateName-len-{n}{prefix[-1]}"


def m_replicas(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    wg = _worker(cluster) if cluster else None
    if wg is None:
        return "noop"
    values = st.sampled_from([None, -1, 0, 1, 2, 3, 5])
    tags = []
    for key in ("replicas", "minReplicas", "maxReplicas"):
        if draw(st.booleans()):
            v = draw(values)
            if v is None:
                wg.pop(key, None)
            else:
                wg[key] = v
            tags.append(f"{key}={v}")
    return "replicas:" + ",".join(tags)


def m_autoscaling(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    enabled = draw(st.sampled_from([True, False, None]))
    if enabled is None:
        cluster.pop("enableInTreeAutoscaling", None)
    else:
        cluster["enableInTreeAutoscaling"] = enabled
    tag = f"autoscaling={enabled}"
    if draw(st.booleans()):
        opts: JsonDict = {}
        version = draw(st.sampled_from([None, "v1", "v2", "v3"]))
        if version:
            opts["version"] = version
        idle = draw(st.sampled_from([None, -1, 0, 60]))
        if idle is not None:
            opts["idleTimeoutSeconds"] = idle
        cluster["autoscalerOptions"] = opts
        tag += f",autoscalerOptions={_show(opts)}"
    return tag


def m_worker_idle_timeout(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    wg = _worker(cluster) if cluster else None
    if wg is None:
        return "noop"
    v = draw(st.sampled_from([-1, 0, 30]))
    wg["idleTimeoutSeconds"] = v
    return f"worker-idleTimeoutSeconds={v}"


def m_restart_policy(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    policy = draw(st.sampled_from(["Always", "OnFailure", "Never", "Sometimes"]))
    where = draw(st.sampled_from(["head", "worker"]))
    wg = _worker(cluster)
    target = cluster["headGroupSpec"] if where == "head" or wg is None else wg
    target["template"]["spec"]["restartPolicy"] = policy
    return f"restartPolicy-{where}={policy}"


def m_worker_suspend(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    wg = _worker(cluster) if cluster else None
    if wg is None:
        return "noop"
    v = draw(st.booleans())
    wg["suspend"] = v
    return f"worker-suspend={v}"


RAY_START_PARAMS = [
    ("num-cpus", "1"),
    ("labels", "a=b"),
    ("redis-password", "secret"),
    ("redis-username", "user"),
    ("resources", '"{\\"X\\": 1}"'),
    ("dashboard-host", "0.0.0.0"),
]


def m_ray_start_params(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    key, value = draw(st.sampled_from(RAY_START_PARAMS))
    where = draw(st.sampled_from(["head", "worker"]))
    wg = _worker(cluster)
    target = cluster["headGroupSpec"] if where == "head" or wg is None else wg
    target["rayStartParams"][key] = value
    return f"rayStartParams-{where}:{key}"


GROUP_LABELS: list[tuple[str, str]] = [
    ("tier", "gold"),
    ("acme.io/pool", "a"),
    ("bad key", "x"),
    ("tier", "-x"),
    ("tier", "x" * 63),
    ("tier", "x" * 64),
    ("tier", ""),
    ("a/b/c", "x"),
    ("Tier", "Gold_1.x"),
    ("tier", "gold\n"),
]


def m_group_resources_labels(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    wg = _worker(cluster)
    target = cluster["headGroupSpec"] if wg is None or draw(st.booleans()) else wg
    if draw(st.booleans()):
        target["resources"] = draw(st.sampled_from([{"CPU": "1"}, {}, {"GPU": "1", "custom": "2"}]))
        return f"group-resources={_show(target['resources'])}"
    key, value = draw(st.sampled_from(GROUP_LABELS))
    target["labels"] = {key: value}
    return f"group-labels={_show({key: value})}"


HEAD_ENV = [
    ("RAY_REDIS_ADDRESS", "redis:6379"),
    ("REDIS_PASSWORD", "x"),
    ("REDIS_USERNAME", "u"),
    ("RAY_enable_autoscaler_v2", "1"),
    ("RAY_enable_autoscaler_v2", "true"),
    ("RAY_enable_autoscaler_v2", "True"),
    ("RAY_enable_autoscaler_v2", " 1"),
    ("RAY_enable_autoscaler_v2", "0"),
    ("LOG_LEVEL", "debug"),
]


def m_head_env(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    env = _head(cluster).setdefault("env", [])
    name, value = draw(st.sampled_from(HEAD_ENV))
    env.append({"name": name, "value": value})
    tag = f"head-env:{name}={_show(value)}"
    if draw(st.integers(0, 4)) == 0:
        env.append({"name": name, "value": "0"})
        tag += "+duplicate"
    return tag


def m_gcs_ft(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    tags = []
    if draw(st.booleans()):
        opts: JsonDict = {"redisAddress": "redis:6379"}
        if draw(st.booleans()):
            opts["redisPassword"] = {"value": "x"}
        if draw(st.booleans()):
            opts["externalStorageNamespace"] = "ns"
        cluster["gcsFaultToleranceOptions"] = opts
        tags.append("gcsFaultToleranceOptions")
    annotation = draw(
        st.sampled_from(
            [
                None,
                ("ray.io/ft-enabled", "true"),
                ("ray.io/ft-enabled", "false"),
                ("ray.io/external-storage-namespace", "ns"),
            ]
        )
    )
    if annotation:
        doc["metadata"].setdefault("annotations", {})[annotation[0]] = annotation[1]
        tags.append(f"annotation:{annotation[0]}={annotation[1]}")
    return "gcs:" + ",".join(tags)


RAY_VERSIONS = [
    "2.52.0",
    "2.51.9",
    "2.052.0",
    "02.52.0",
    "2.52",
    "v2.52.0",
    " 2.52.0",
    "2.52.0 ",
    "2.99999999999999999999.0",
    "2.55.0",
    "2.54.1",
    "",
    "2.52.0-rc1",
    "3",
    "latest",
    "2.52.0\n",
    "\v2.52.0",
]


def m_auth(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    auth: JsonDict = {}
    mode = draw(st.sampled_from(["token", "disabled", None]))
    if mode:
        auth["mode"] = mode
    if draw(st.booleans()):
        auth["enableK8sTokenAuth"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        auth["secretName"] = "s"
    cluster["authOptions"] = auth
    version = draw(st.sampled_from(RAY_VERSIONS))
    cluster["rayVersion"] = version
    return f"auth={_show(auth)},rayVersion={_show(version)}"


def m_cluster_upgrade_strategy(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    kind = draw(st.sampled_from(["Recreate", "None", "Rolling", None]))
    cluster["upgradeStrategy"] = {"type": kind} if kind else {}
    return f"cluster-upgradeStrategy={kind}"


QUANTITIES: list[Any] = ["1", "500m", "1.5", "-1", "bad value", True, 2, "2Gi", "1e3", " 1", "0.0001m", ""]


def m_container_resources(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    container = _head(cluster)
    section = draw(st.sampled_from(["requests", "limits"]))
    key = draw(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]))
    if draw(st.integers(0, 5)) == 0:
        container["resources"] = draw(st.sampled_from([True, "x", [], {}]))
        return f"head-resources={_show(container['resources'])}"
    value = draw(st.sampled_from(QUANTITIES))
    container["resources"].setdefault(section, {})[key] = value
    return f"head-resources.{section}.{key}={_show(value)}"


def m_containers(draw: st.DrawFn, doc: JsonDict) -> str:
    cluster = cluster_of(doc)
    if cluster is None:
        return "noop"
    what = draw(
        st.sampled_from(
            ["head-empty", "worker-empty", "duplicate-port", "duplicate-mount", "no-image", "duplicate-group"]
        )
    )
    wg = _worker(cluster)
    if what == "head-empty":
        cluster["headGroupSpec"]["template"]["spec"]["containers"] = []
    elif what == "worker-empty" and wg is not None:
        wg["template"]["spec"]["containers"] = []
    elif what == "duplicate-port":
        _head(cluster)["ports"] = [{"containerPort": 8265, "name": "a"}, {"containerPort": 8265, "name": "b"}]
    elif what == "duplicate-mount":
        _head(cluster)["volumeMounts"] = [{"name": "a", "mountPath": "/x"}, {"name": "b", "mountPath": "/x"}]
    elif what == "no-image":
        del _head(cluster)["image"]
    elif what == "duplicate-group" and wg is not None:
        cluster["workerGroupSpecs"].append(copy.deepcopy(wg))
    return f"containers:{what}"


def m_unknown_field(draw: st.DrawFn, doc: JsonDict) -> str:
    where = draw(st.sampled_from(["spec", "metadata", "head"]))
    cluster = cluster_of(doc)
    if where == "spec":
        doc["spec"]["fooBar"] = 1
    elif where == "metadata":
        doc["metadata"]["fooBar"] = 1
    elif cluster is not None:
        cluster["headGroupSpec"]["fooBar"] = 1
    return f"unknown-field:{where}"


METADATA_LABELS: list[tuple[str, str]] = [
    ("app", "demo"),
    ("app", "-demo"),
    ("app", "x" * 64),
    ("bad key", "v"),
    ("acme.io/app", "v"),
    ("app", "a b"),
    ("x" * 64, "v"),
    ("app", "demo\n"),
    ("app\n", "v"),
]


def m_metadata_labels(draw: st.DrawFn, doc: JsonDict) -> str:
    key, value = draw(st.sampled_from(METADATA_LABELS))
    field = draw(st.sampled_from(["labels", "annotations"]))
    doc["metadata"].setdefault(field, {})[key] = value
    return f"metadata.{field}={_show({key: value})}"


#: metadata.namespace as real manifests write it: valid names, documentation and template placeholders, upper case,
#: too long (the API server's ValidateNamespaceName: a DNS-1123 label).
METADATA_NAMESPACES = ["ray", "ml-team-1", "", "<your-namespace>", "$NAMESPACE", "Ray", "ray.system", "-ray",
                       "a" * 63, "a" * 64, "ray_system"]  # fmt: skip


def m_metadata_namespace(draw: st.DrawFn, doc: JsonDict) -> str:
    namespace = draw(st.sampled_from(METADATA_NAMESPACES))
    doc["metadata"]["namespace"] = namespace
    return f"metadata.namespace={namespace!r}"


def m_managed_by(draw: st.DrawFn, doc: JsonDict) -> str:
    value = draw(st.sampled_from(["ray.io/kuberay-operator", "kueue.x-k8s.io/multikueue", "acme.io/other"]))
    if doc["kind"] == "RayCronJob":
        doc["spec"]["jobTemplate"]["managedBy"] = value
    elif doc["kind"] == "RayService":
        doc["spec"]["rayClusterConfig"]["managedBy"] = value
    else:
        doc["spec"]["managedBy"] = value
    return f"managedBy={value}"


def m_yaml_not_json(draw: st.DrawFn, doc: JsonDict) -> str:
    doc["__yaml__"] = draw(st.sampled_from([".nan", ".inf", "-.inf"]))
    return f"yaml:{doc['__yaml__']}"


CLUSTER_MUTATIONS: list[Mutation] = [
    m_replicas,
    m_replicas,
    m_autoscaling,
    m_worker_idle_timeout,
    m_restart_policy,
    m_worker_suspend,
    m_ray_start_params,
    m_group_resources_labels,
    m_head_env,
    m_gcs_ft,
    m_auth,
    m_container_resources,
    m_containers,
]
COMMON_MUTATIONS: list[Mutation] = [
    m_name_length,
    m_name_length,
    m_name_syntax,
    m_generate_name,
    m_unknown_field,
    m_metadata_labels,
    m_metadata_namespace,
    m_managed_by,
    m_yaml_not_json,
]

# --------------------------------------------------------------------------------------------------
# RayJob.

SUBMISSION_MODES = ["K8sJobMode", "HTTPMode", "InteractiveMode", "SidecarMode", "Bad"]
POLICIES = ["DeleteCluster", "DeleteWorkers", "DeleteSelf", "DeleteNone", None]


def m_submission_mode(draw: st.DrawFn, doc: JsonDict) -> str:
    job = job_of(doc)
    if job is None:
        return "noop"
    mode = draw(st.sampled_from(SUBMISSION_MODES))
    job["submissionMode"] = mode
    tag = f"submissionMode={mode}"
    if draw(st.booleans()):
        extra = draw(st.sampled_from(["submitterPodTemplate", "submitterConfig"]))
        job[extra] = (
            {"spec": {"restartPolicy": "Never", "containers": [{"name": "s", "image": IMAGE}]}}
            if extra == "submitterPodTemplate"
            else {"backoffLimit": 1}
        )
        tag += f"+{extra}"
    return tag


def m_suspend_shutdown_ttl(draw: st.DrawFn, doc: JsonDict) -> str:
    job = job_of(doc)
    if job is None:
        return "noop"
    suspend = draw(st.sampled_from([True, False, None]))
    shutdown = draw(st.sampled_from([True, False, None]))
    ttl = draw(st.sampled_from([None, -1, 0, 10]))
    for key, value in (("suspend", suspend), ("shutdownAfterJobFinishes", shutdown), ("ttlSecondsAfterFinished", ttl)):
        if value is None:
            job.pop(key, None)
        else:
            job[key] = value
    return f"suspend={suspend},shutdown={shutdown},ttl={ttl}"


def m_deletion_strategy(draw: st.DrawFn, doc: JsonDict) -> str:
    job = job_of(doc)
    if job is None:
        return "noop"
    if draw(st.booleans()):
        strategy: JsonDict = {}
        for key in ("onSuccess", "onFailure"):
            if draw(st.integers(0, 4)) > 0:
                policy = draw(st.sampled_from(POLICIES))
                strategy[key] = {"policy": policy} if policy else {}
    else:
        rules = []
        for _ in range(draw(st.integers(0, 3))):
            condition: JsonDict = {}
            which = draw(st.sampled_from(["jobStatus", "jobDeploymentStatus", "both", "neither"]))
            if which in ("jobStatus", "both"):
                condition["jobStatus"] = draw(st.sampled_from(["SUCCEEDED", "FAILED"]))
            if which in ("jobDeploymentStatus", "both"):
                condition["jobDeploymentStatus"] = "Failed"
            ttl = draw(st.sampled_from([None, -1, 0, 10, 20]))
            if ttl is not None:
                condition["ttlSeconds"] = ttl
            rules.append({"policy": draw(st.sampled_from(POLICIES[:4])), "condition": condition})
        strategy = {"deletionRules": rules}
    job["deletionStrategy"] = strategy
    if draw(st.booleans()):
        job["shutdownAfterJobFinishes"] = False
        job.pop("ttlSecondsAfterFinished", None)
    return f"deletionStrategy={_show(strategy)},shutdown={job.get('shutdownAfterJobFinishes')}"


def m_cluster_selector(draw: st.DrawFn, doc: JsonDict) -> str:
    job = job_of(doc)
    if job is None:
        return "noop"
    selector = draw(st.sampled_from([{"ray.io/cluster": "shared"}, {"ray.io/cluster": ""}, {"other": "x"}, {}]))
    job["clusterSelector"] = selector
    keep = draw(st.booleans())
    if not keep:
        job.pop("rayClusterSpec", None)
    return f"clusterSelector={_show(selector)},rayClusterSpec={'kept' if keep else 'removed'}"


def m_job_numbers(draw: st.DrawFn, doc: JsonDict) -> str:
    job = job_of(doc)
    if job is None:
        return "noop"
    key = draw(st.sampled_from(["backoffLimit", "activeDeadlineSeconds", "preRunningDeadlineSeconds"]))
    value = draw(st.sampled_from([-1, 0, 1, 2]))
    job[key] = value
    return f"{key}={value}"


RUNTIME_ENVS = ["pip: [requests]\n", "a: [", "- a\n- b\n", "", "env_vars: {A: '1'}\n", "just text"]


def m_runtime_env(draw: st.DrawFn, doc: JsonDict) -> str:
    job = job_of(doc)
    if job is None:
        return "noop"
    value = draw(st.sampled_from(RUNTIME_ENVS))
    job["runtimeEnvYAML"] = value
    return f"runtimeEnvYAML={_show(value)}"


def m_job_no_cluster(draw: st.DrawFn, doc: JsonDict) -> str:
    job = job_of(doc)
    if job is None:
        return "noop"
    job.pop("rayClusterSpec", None)
    return "rayClusterSpec-removed"


JOB_MUTATIONS: list[Mutation] = [
    m_submission_mode,
    m_suspend_shutdown_ttl,
    m_suspend_shutdown_ttl,
    m_deletion_strategy,
    m_deletion_strategy,
    m_cluster_selector,
    m_job_numbers,
    m_runtime_env,
    m_job_no_cluster,
]

def mutations_for(kind: str) -> list[Mutation]:
    out = COMMON_MUTATIONS + COMMON_V17_MUTATIONS + CLUSTER_MUTATIONS + CLUSTER_V17_MUTATIONS + POD_MUTATIONS
    if kind in ("RayJob", "RayCronJob"):
        out = out + JOB_MUTATIONS + JOB_V17_MUTATIONS
    if kind == "RayService":
        out = out + [m_service] * 4
    if kind == "RayCronJob":
        out = out + [m_cron] * 5 + CRON_V17_MUTATIONS
    return out


def render(doc: JsonDict) -> Any:
    """The doc to send: a dict, or YAML text when a mutation asked for a value JSON cannot carry."""
    special = doc.pop("__yaml__", None)
    if special is None:
        return doc
    import yaml

    text = yaml.safe_dump(doc, sort_keys=False)
    if "replicas: 1\n" in text:
        return text.replace("replicas: 1\n", f"replicas: {special}\n", 1)
    return text + f"extra: {special}\n"


@st.composite
def mutated_manifests(draw: st.DrawFn) -> tuple[str, Any]:
    """``(tag, doc)``: a base manifest of a random kind with 1-3 mutations (tag lists them)."""
    kind = draw(st.sampled_from(KINDS))
    doc = base(kind)
    pool = mutations_for(kind)
    tags = []
    for _ in range(draw(st.integers(1, 3))):
        mutation = draw(st.sampled_from(pool))
        try:
            tag = mutation(draw, doc)
        except (AttributeError, KeyError, IndexError, TypeError):
            tag = "noop"  # an earlier mutation removed or retyped what this one edits
        if tag != "noop":
            tags.append(tag)
    return f"{kind}[{'; '.join(tags) or 'base'}]", render(copy.deepcopy(doc))
