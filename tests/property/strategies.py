"""Hypothesis generators for the typed args of pulumi-kuberay (cluster, job, service, serve config, cronjob).

Two tiers:

* ``valid_*``: inputs the operator would accept (they respect KubeRay's runtime rules, e.g. replica bounds,
  TTLs only with ``shutdownAfterJobFinishes``, one cluster source per job), written as the keyword
  arguments a user passes (CRD camelCase names; the Python-only convenience fields ``image``/``cpu``/...);
* ``mutated(valid)`` (``mutations.py``): one valid input with one mistake applied at a random place.

Plus arbitrary JSON-like values (with Pulumi's unknown sentinel and integral floats, as a policy sees them
during preview) and stack configs.
"""

from __future__ import annotations

import contextlib
import copy
import json
import string
from typing import Any

from hypothesis import strategies as st
from pulumi_kuberay.model.pod import SecretRef
from pydantic import BaseModel

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
"""Pulumi's placeholder for a value only known after apply."""

JsonDict = dict[str, Any]
Path = tuple[str | int, ...]

# --------------------------------------------------------------------------------------------------
# Scalars.

_LOWER = string.ascii_lowercase
_ALNUM = string.ascii_lowercase + string.digits


@st.composite
def dns_labels(draw: st.DrawFn, max_size: int = 20) -> str:
    """A DNS-1035 label (``a``, ``cpu-x1``): starts with a letter, ends alphanumeric."""
    first = draw(st.sampled_from(_LOWER))
    if max_size == 1:
        return first
    middle = draw(st.text(alphabet=_ALNUM + "-", max_size=max(0, max_size - 2)))
    last = draw(st.sampled_from(_ALNUM)) if middle or draw(st.booleans()) else ""
    return first + middle + last


RESOURCE_NAMES = dns_labels(max_size=30)  # fits every kind's name limit (RayCronJob: 36)
GROUP_NAMES = dns_labels(max_size=15)
# One Ray release across the groups: a worker on another release than its head never starts (check_version_info),
# which image-ray-version-mismatch blocks; a team's own image (ghcr.io/acme/ray:1) shows no release.
IMAGES = st.sampled_from(
    ["rayproject/ray:2.52.0", "rayproject/ray:2.52.0-gpu", "rayproject/ray-ml:2.52.0", "ghcr.io/acme/ray:1"]
)
# every Serve key the strategies draw is known to each of these (serve-config-key-version: Ray 2.10 added
# max_ongoing_requests)
RAY_VERSIONS = st.sampled_from(["2.52.0", "2.46.0", "2.41.0", "2.10.0"])
CPU = st.one_of(
    st.integers(1, 64),
    st.integers(1, 64_000).map("{}m".format),
    st.sampled_from([0.5, 0.25, 1.5, 2.0, 0.1]),
)
MEMORY = st.one_of(
    st.integers(1, 512).map("{}Gi".format),
    st.integers(256, 4096).map("{}Mi".format),
    st.integers(1 << 28, 1 << 36),
)
_ENV_NAMES = st.sampled_from(["LOG_LEVEL", "HF_HOME", "MY_SETTING", "OMP_NUM_THREADS", "APP_MODE", "X1"])
ENV_VALUES = st.one_of(
    st.text(max_size=20),
    st.builds(SecretRef, dns_labels(max_size=10), dns_labels(max_size=10)),
)
LABEL_VALUES = st.one_of(st.just(""), st.from_regex(r"[a-z0-9]([-a-z0-9_.]{0,8}[a-z0-9])?", fullmatch=True))
TEXT = st.text(alphabet=st.characters(exclude_categories=["Cc", "Cs"]), max_size=30)  # YAML-printable

# --------------------------------------------------------------------------------------------------
# Bad scalars: what a person types by mistake into a YAML stack file at 2 a.m.

HUGE_INTS = st.sampled_from([2**31, 2**63, 10**30, -(2**31) - 1, -(10**20)])
UNICODE_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=40
)
LONG_TEXT = st.integers(64, 400).map("x".__mul__)


def wrong_values(current: Any, *, allow_none: bool = True) -> st.SearchStrategy[Any]:
    """Values of a different type than ``current`` (or out-of-range ones of the same type).

    ``allow_none=False`` leaves out an explicit ``None``: the model keeps an explicitly set ``None`` and
    renders it as ``null`` (known issue, see ``regressions/test_found_bugs.py``).
    """
    options: list[st.SearchStrategy[Any]] = [
        st.booleans(),
        st.integers(-5, 5),
        HUGE_INTS,
        st.floats(allow_nan=True, allow_infinity=True),
        UNICODE_TEXT,
        LONG_TEXT,
        st.lists(st.integers(), max_size=2),
        st.dictionaries(st.sampled_from(["a", "name", "x-y"]), st.integers(), max_size=2),
    ]
    if allow_none:
        options.append(st.none())
    if isinstance(current, bool):
        options.append(st.sampled_from(["true", "false", "yes", 1, 0]))
    elif isinstance(current, int):
        options += [st.just(str(current)), st.just(-abs(current) - 1), st.just(float(current) + 0.5)]
    elif isinstance(current, float):
        options += [st.just(str(current)), st.just(-abs(current) - 1)]
    elif isinstance(current, str):
        options += [st.just(current.upper() + "!"), st.just("")]
        if current.isdigit():
            options.append(st.just(int(current)))
        with contextlib.suppress(ValueError):
            options.append(st.just(json.loads(current)))
    return st.one_of(options)


# --------------------------------------------------------------------------------------------------
# Valid cluster spec (RayClusterSpec keyword arguments).

_GPU_RESOURCES = st.sampled_from(["nvidia.com/gpu", "amd.com/gpu"])
_PULL_POLICIES = st.sampled_from(["Always", "IfNotPresent", "Never"])
_ENV_MAPS = st.dictionaries(_ENV_NAMES, ENV_VALUES, max_size=3)
_NODE_SELECTORS = st.dictionaries(st.sampled_from(["pool", "zone", "acme.io/tier"]), dns_labels(max_size=8),
                                  max_size=2)
_AUTOSCALER_VERSIONS = st.sampled_from([None, "v1", "v2"])
_UPSCALING_MODES = st.sampled_from(["Default", "Aggressive", "Conservative"])
_HEAD_START_PARAMS = st.fixed_dictionaries(
    {}, optional={"num-cpus": st.sampled_from([0, "0", 1]), "dashboard-host": st.just("0.0.0.0"),
                  "block": st.sampled_from([True, "true"])})
_SERVICE_TYPES = st.sampled_from(["ClusterIP", "NodePort", "LoadBalancer"])
_GROUP_NAME_LISTS = st.lists(GROUP_NAMES, max_size=3, unique=True)
_WORKER_NUM_CPUS = st.sampled_from([1, "2", 4.0])
_GROUP_LABELS = st.dictionaries(st.sampled_from(["tier", "acme.io/pool"]), LABEL_VALUES, max_size=2)
_REDIS_ADDRESSES = st.sampled_from(["redis:6379", "redis://redis.default.svc:6379"])


@st.composite
def _pod_shortcuts(draw: st.DrawFn, *, head: bool, with_image: bool) -> JsonDict:
    out: JsonDict = {}
    if with_image:
        out["image"] = draw(IMAGES)
    out["cpu"] = draw(CPU)
    out["memory"] = draw(MEMORY)
    if not head and draw(st.booleans()):
        out["gpu"] = draw(st.integers(0, 8))
        if draw(st.booleans()):
            out["gpuResource"] = draw(_GPU_RESOURCES)
    if draw(st.booleans()):
        out["imagePullPolicy"] = draw(_PULL_POLICIES)
    if draw(st.booleans()):
        out["env"] = draw(_ENV_MAPS)
    if draw(st.booleans()):
        out["nodeSelector"] = draw(_NODE_SELECTORS)
    if draw(st.booleans()):
        out["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    if draw(st.booleans()):
        out["serviceAccount"] = draw(dns_labels(max_size=12))
    return out


@st.composite
def _template(draw: st.DrawFn, container: str, *, head: bool) -> JsonDict:
    """A hand-written pod template (the non-convenience way)."""
    ray: JsonDict = {"name": container, "image": draw(IMAGES)}
    limits = {"cpu": str(draw(st.integers(1, 16))), "memory": f"{draw(st.integers(1, 64))}Gi"}
    ray["resources"] = {"limits": dict(limits), "requests": dict(limits)}
    if head:
        ray["ports"] = [
            {"containerPort": 6379, "name": "gcs-server"},
            {"containerPort": 8265, "name": "dashboard"},
            {"containerPort": 10001, "name": "client"},
            {"containerPort": 8000, "name": "serve"},
        ]
    return {"spec": {"containers": [ray]}}


@st.composite
# C901, PLR0912, PLR0915: one draw per optional field of a RayClusterSpec
def valid_cluster(draw: st.DrawFn, *, autoscaling: bool | None = None) -> JsonDict:  # noqa: C901, PLR0912, PLR0915
    """RayClusterSpec keyword arguments (CRD names) the operator accepts."""
    cluster_image = draw(st.booleans())
    spec: JsonDict = {}
    if cluster_image:
        spec["image"] = draw(IMAGES)
    if draw(st.booleans()):
        spec["rayVersion"] = draw(RAY_VERSIONS)
    auto = draw(st.booleans()) if autoscaling is None else autoscaling
    version = None
    if auto:
        spec["enableInTreeAutoscaling"] = True
        if draw(st.booleans()):
            opts: JsonDict = {}
            version = draw(_AUTOSCALER_VERSIONS)
            if version is not None:
                opts["version"] = version
            if draw(st.booleans()):
                opts["upscalingMode"] = draw(_UPSCALING_MODES)
            if draw(st.booleans()):
                opts["idleTimeoutSeconds"] = draw(st.integers(0, 3600))
            spec["autoscalerOptions"] = opts
    elif draw(st.booleans()):
        spec["enableInTreeAutoscaling"] = False

    if draw(st.integers(0, 3)) == 0:
        head: JsonDict = {"template": draw(_template("ray-head", head=True))}
    else:
        head = draw(_pod_shortcuts(head=True, with_image=not cluster_image))
    if draw(st.booleans()):
        head["rayStartParams"] = draw(_HEAD_START_PARAMS)
    if draw(st.booleans()):
        head["serviceType"] = draw(_SERVICE_TYPES)
    spec["headGroupSpec"] = head

    groups: list[JsonDict] = []
    for name in draw(_GROUP_NAME_LISTS):
        if draw(st.integers(0, 3)) == 0:
            group: JsonDict = {"template": draw(_template("ray-worker", head=False))}
        else:
            group = draw(_pod_shortcuts(head=False, with_image=not cluster_image))
        group["groupName"] = name
        low = draw(st.integers(0, 10))
        high = draw(st.one_of(st.integers(low, 100), st.just(2147483647)))
        if draw(st.booleans()):
            group["minReplicas"] = low
        else:
            low = 0
        if draw(st.booleans()):
            group["maxReplicas"] = high
        else:
            high = 2147483647
        if draw(st.booleans()):
            group["replicas"] = draw(st.integers(low, min(high, low + 20)))
        if auto and version == "v2" and draw(st.booleans()):
            group["idleTimeoutSeconds"] = draw(st.integers(0, 600))
        if draw(st.booleans()):
            group["rayStartParams"] = {"num-cpus": draw(_WORKER_NUM_CPUS)}
        if draw(st.booleans()):
            group["labels"] = draw(_GROUP_LABELS)
        if not auto and draw(st.integers(0, 5)) == 0:
            group["suspend"] = draw(st.booleans())
        groups.append(group)
    if groups or draw(st.booleans()):  # type: ignore[arg-type]  # `or` makes mypy read the draw as a list
        spec["workerGroupSpecs"] = groups

    if draw(st.integers(0, 3)) == 0:
        spec["gcsFaultToleranceOptions"] = {
            "redisAddress": draw(_REDIS_ADDRESSES),
            "redisPassword": SecretRef("redis", "password") if draw(st.booleans())
            else {"valueFrom": {"secretKeyRef": {"name": "redis", "key": "password"}}},
        }
    if draw(st.booleans()):
        spec["headServiceAnnotations"] = {"acme.io/owner": draw(TEXT)}
    if draw(st.integers(0, 4)) == 0:
        spec["suspend"] = draw(st.booleans())
    return spec


# --------------------------------------------------------------------------------------------------
# Valid serve config (ServeConfig keyword arguments, snake_case as Ray Serve reads it).

_MODULES = st.sampled_from(["fruit", "math_app", "acme.serve", "pkg.sub.mod"])


@st.composite
def _autoscaling(draw: st.DrawFn) -> JsonDict:
    low = draw(st.integers(0, 5))
    high = draw(st.integers(max(low, 1), 50))
    out: JsonDict = {"min_replicas": low, "max_replicas": high}
    if draw(st.booleans()):
        out["initial_replicas"] = draw(st.integers(low, high))
    if draw(st.booleans()):
        out["target_ongoing_requests"] = draw(st.sampled_from([1, 2, 0.5, 10]))
    return out


@st.composite
def _deployment(draw: st.DrawFn, name: str) -> JsonDict:
    out: JsonDict = {"name": name}
    choice = draw(st.integers(0, 2))
    if choice == 1:
        out["num_replicas"] = draw(st.one_of(st.integers(1, 100), st.just("auto")))
    elif choice == 2:
        out["autoscaling_config"] = draw(_autoscaling())
        if draw(st.booleans()):
            out["num_replicas"] = "auto"
    if draw(st.booleans()):
        out["max_ongoing_requests"] = draw(st.integers(1, 1000))
    if draw(st.booleans()):
        out["ray_actor_options"] = {"num_cpus": draw(st.sampled_from([0, 0.5, 1, 2])),
                                    "num_gpus": draw(st.sampled_from([0, 1]))}
    if draw(st.booleans()):
        out["user_config"] = {"threshold": draw(st.integers(0, 10))}
    return out


@st.composite
def valid_serve_config(draw: st.DrawFn) -> JsonDict:
    names = draw(st.lists(dns_labels(max_size=10), min_size=1, max_size=3, unique=True))
    apps: list[JsonDict] = []
    for index, name in enumerate(names):
        attribute = draw(st.sampled_from(["app", "deployment"]))
        app: JsonDict = {"name": name, "import_path": f"{draw(_MODULES)}:{attribute}"}
        if index > 0 or draw(st.booleans()):
            app["route_prefix"] = "/" + name if index > 0 else draw(st.sampled_from(["/", f"/{name}"]))
        if draw(st.booleans()):
            app["runtime_env"] = {"env_vars": {"MODE": draw(TEXT)}}
            if draw(st.booleans()):
                app["runtime_env"]["working_dir"] = "https://github.com/acme/app/archive/abc.zip"
        deployment_names = draw(st.lists(st.sampled_from(["Fruit", "Pear", "Router", "Model"]), max_size=2,
                                         unique=True))
        if deployment_names:
            app["deployments"] = [draw(_deployment(n)) for n in deployment_names]
        apps.append(app)
    out: JsonDict = {"applications": apps}
    if draw(st.booleans()):
        out["proxy_location"] = "EveryNode"
    if draw(st.booleans()):
        out["http_options"] = {"host": "0.0.0.0", "port": 8000}
    if draw(st.booleans()):
        out["logging_config"] = {"log_level": draw(st.sampled_from(["INFO", "DEBUG", 20])),
                                 "encoding": draw(st.sampled_from(["TEXT", "JSON"]))}
    return out


# --------------------------------------------------------------------------------------------------
# Valid job, service and cronjob specs.


def _feasible_group(**ray_start_params: str) -> JsonDict:
    """A worker group that can host every Serve replica and entrypoint the valid strategies draw (4 CPUs, a GPU,
    ``custom`` via ``rayStartParams``): without one, rules/feasibility.py rightly finds them infeasible."""
    limits = {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}
    ray = {"name": "ray-worker", "image": "rayproject/ray:2.52.0", "resources": {"limits": limits, "requests": dict(limits)}}
    group: JsonDict = {"groupName": "zz-feasible", "maxReplicas": 1, "template": {"spec": {"containers": [ray]}}}
    if ray_start_params:
        group["rayStartParams"] = dict(ray_start_params)
    return group


@st.composite
def valid_job(draw: st.DrawFn, *, inline_cluster: bool | None = None) -> JsonDict:
    """RayJobSpec keyword arguments the operator accepts."""
    inline = draw(st.booleans()) if inline_cluster is None else inline_cluster
    spec: JsonDict = {"entrypoint": draw(st.sampled_from(["python /home/ray/job.py", "python -c 'print(1)'"]))}
    if inline:
        cluster = draw(valid_cluster())
        cluster.setdefault("rayVersion", "2.52.0")
        spec["rayClusterSpec"] = cluster
        mode = draw(st.sampled_from([None, "K8sJobMode", "HTTPMode", "InteractiveMode", "SidecarMode"]))
    else:
        spec["clusterSelector"] = {"ray.io/cluster": draw(RESOURCE_NAMES)}
        mode = draw(st.sampled_from([None, "K8sJobMode", "HTTPMode", "InteractiveMode"]))
    if mode is not None:
        spec["submissionMode"] = mode
    autoscaling = inline and bool(spec["rayClusterSpec"].get("enableInTreeAutoscaling"))
    if draw(st.booleans()):
        spec["runtimeEnvYAML"] = draw(st.sampled_from([
            {"pip": ["requests==2.31.0"]},
            "pip: [requests]\nenv_vars:\n  A: b\n",
            {"env_vars": {"counter_name": "test_counter"}},
        ]))
    if draw(st.booleans()):
        spec["entrypointNumCpus"] = draw(st.sampled_from([0, 0.5, 1, 2]))
    if draw(st.booleans()):
        spec["entrypointResources"] = draw(st.sampled_from(['{"custom": 1}', {"custom": 2}]))
    if inline and ("entrypointNumCpus" in spec or "entrypointResources" in spec):
        spec["rayClusterSpec"].setdefault("workerGroupSpecs", []).append(_feasible_group(resources='{"custom": 2}'))
    if inline and draw(st.booleans()):
        spec["metadata"] = {"owner": draw(dns_labels(max_size=8))}
    shutdown = inline and draw(st.booleans())
    deletion = False
    if inline and not shutdown and draw(st.integers(0, 3)) == 0:
        policy = draw(st.sampled_from(
            ["DeleteCluster", "DeleteSelf", "DeleteNone"] + ([] if autoscaling else ["DeleteWorkers"])
        ))
        spec["deletionStrategy"] = {"deletionRules": [
            {"policy": policy, "condition": {"jobStatus": draw(st.sampled_from(["SUCCEEDED", "FAILED"])),
                                             "ttlSeconds": draw(st.integers(0, 600))}}
        ]}
        deletion = True
    if shutdown:
        spec["shutdownAfterJobFinishes"] = True
        if draw(st.booleans()):
            spec["ttlSecondsAfterFinished"] = draw(st.integers(0, 86400))
        if draw(st.integers(0, 3)) == 0:
            spec["suspend"] = True
    if draw(st.booleans()):
        spec["activeDeadlineSeconds"] = draw(st.integers(1, 86400))
    if inline and mode not in ("InteractiveMode",) and draw(st.booleans()):
        spec["backoffLimit"] = draw(st.integers(0, 5))
    if mode in (None, "K8sJobMode") and draw(st.integers(0, 3)) == 0:
        spec["submitterConfig"] = {"backoffLimit": draw(st.integers(0, 5))}
    del deletion
    return spec


@st.composite
def valid_service(draw: st.DrawFn) -> JsonDict:
    """RayServiceSpec keyword arguments the operator accepts."""
    incremental = draw(st.integers(0, 4)) == 0
    cluster = draw(valid_cluster(autoscaling=True if incremental else None))
    spec: JsonDict = {"rayClusterConfig": cluster}
    serve = draw(valid_serve_config())
    form = draw(st.integers(0, 2))
    if form == 1:
        spec["serveConfigV2"] = json.dumps(serve, ensure_ascii=False)  # JSON is YAML (no \ud83d escapes)
    elif form == 2:
        import yaml

        spec["serveConfigV2"] = yaml.safe_dump(serve, sort_keys=False, allow_unicode=True)
    else:
        spec["serveConfigV2"] = serve
    if any("ray_actor_options" in d for app in serve.get("applications", []) for d in app.get("deployments", [])):
        cluster.setdefault("workerGroupSpecs", []).append(_feasible_group())
    if incremental:
        step = draw(st.integers(1, 100))
        spec["upgradeStrategy"] = {
            "type": "NewClusterWithIncrementalUpgrade",
            "clusterUpgradeOptions": {"gatewayClassName": "istio", "stepSizePercent": step,
                                      "intervalSeconds": draw(st.integers(1, 600)),
                                      "maxSurgePercent": draw(st.integers(step, 100))},
        }
    elif draw(st.booleans()):
        spec["upgradeStrategy"] = {"type": draw(st.sampled_from(["NewCluster", "None"]))}
    if draw(st.booleans()):
        spec["rayClusterDeletionDelaySeconds"] = draw(st.integers(0, 3600))
    if draw(st.booleans()):
        spec["excludeHeadPodFromServeSvc"] = draw(st.booleans())
    return spec


_CRON_FIELDS = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))


@st.composite
def valid_schedules(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(["@hourly", "@daily", "@weekly", "@monthly", "@yearly", "@every 1h30m"]))
    parts: list[str] = []
    for low, high in _CRON_FIELDS:
        kind = draw(st.integers(0, 3))
        if kind == 0:
            parts.append("*")
        elif kind == 1:
            parts.append(str(draw(st.integers(low, high))))
        elif kind == 2:
            a = draw(st.integers(low, high))
            parts.append(f"{a}-{draw(st.integers(a, high))}")
        else:
            parts.append(f"*/{draw(st.integers(1, high))}")
    return " ".join(parts)


@st.composite
def valid_cronjob(draw: st.DrawFn) -> JsonDict:
    spec: JsonDict = {"jobTemplate": draw(valid_job(inline_cluster=True)), "schedule": draw(valid_schedules())}
    if draw(st.booleans()):
        spec["timeZone"] = draw(st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"]))
    if draw(st.booleans()):
        spec["suspend"] = draw(st.booleans())
    return spec


VALID: dict[str, st.SearchStrategy[JsonDict]] = {
    "RayCluster": valid_cluster(),
    "RayJob": valid_job(),
    "RayService": valid_service(),
    "RayCronJob": valid_cronjob(),
}

# --------------------------------------------------------------------------------------------------
# Paths into a document.


def format_path(path: Path) -> str:
    """``("workerGroupSpecs", 1, "minReplicas")`` -> ``workerGroupSpecs[1].minReplicas`` (the model's form)."""
    out = ""
    for seg in path:
        if isinstance(seg, int):
            out += f"[{seg}]"
        elif seg.replace("-", "_").replace(".", "_").isidentifier():
            out += f".{seg}"
        else:
            out += f"[{seg!r}]"
    return out.lstrip(".")


def leaf_paths(value: Any, prefix: Path = ()) -> list[Path]:
    """Every path (node) of a JSON-like value, parents before children; the root excluded."""
    out: list[Path] = []
    if isinstance(value, dict):
        for key, child in value.items():
            out.append((*prefix, key))
            out += leaf_paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out.append((*prefix, index))
            out += leaf_paths(child, (*prefix, index))
    return out


def wire(value: Any) -> Any:
    """``value`` as plain JSON-like data (model instances such as ``SecretRef`` rendered as their dict)."""
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_unset=True)
    if isinstance(value, dict):
        return {k: {"valueFrom": v.value_from()} if isinstance(v, SecretRef) and k.startswith("redis") else wire(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [wire(v) for v in value]
    return value


def get_at(doc: Any, path: Path) -> Any:
    for seg in path:
        doc = doc[seg]
    return doc


# --------------------------------------------------------------------------------------------------
# Arbitrary JSON-like values (what a policy receives during preview).

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.integers(-(2**40), 2**40).map(float),  # integral floats: numbers arrive as floats in policies
    st.text(max_size=20),
    st.just(UNKNOWN),
)

def _json_containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=12), st.sampled_from(
            ["spec", "metadata", "template", "containers", "workerGroupSpecs", "headGroupSpec", "name",
             "rayClusterSpec", "rayClusterConfig", "jobTemplate", "serveConfigV2", "env", "ports"])),
            children, max_size=5),
    )


json_like = st.recursive(JSON_SCALARS, _json_containers, max_leaves=30)


@st.composite
def unknownified(draw: st.DrawFn, doc: JsonDict) -> JsonDict:
    """``doc`` with some values replaced by Pulumi's unknown sentinel, None or integral floats."""
    out = copy.deepcopy(doc)
    paths = leaf_paths(out)
    for path in draw(st.lists(st.sampled_from(paths), max_size=4)) if paths else []:
        try:
            parent = get_at(out, path[:-1])
            current = parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue
        if not isinstance(parent, dict | list):  # an earlier replacement put a scalar (e.g. a string) here
            continue
        replacement = draw(st.sampled_from(["unknown", "none", "float", "junk"]))
        if replacement == "unknown":
            value: Any = UNKNOWN
        elif replacement == "none":
            value = None
        elif replacement == "float" and isinstance(current, int) and not isinstance(current, bool):
            value = float(current)
        else:
            value = draw(json_like)
        parent[path[-1]] = value  # type: ignore[index]  # a list's place is an int, a dict's a str (leaf_paths)
    return out


__all__ = [
    "GROUP_NAMES",
    "RESOURCE_NAMES",
    "UNKNOWN",
    "VALID",
    "dns_labels",
    "format_path",
    "get_at",
    "json_like",
    "leaf_paths",
    "unknownified",
    "valid_cluster",
    "valid_cronjob",
    "valid_job",
    "valid_schedules",
    "valid_serve_config",
    "valid_service",
    "wire",
    "wrong_values",
]
