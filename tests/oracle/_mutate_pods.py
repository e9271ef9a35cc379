"""Mutations of the pod templates the operator turns into Pods, a Service and a Job (``_generate`` draws them
for every kind): what users really write there and the API server's Pod, Service and Job validation refuses
(service account names, container and port names and numbers, env var names and sources, volumes and their
mounts, requests over limits, extended resources, probes, template labels, pull policies, the submitter's
restart policy), each next to values it accepts, so both sides of each boundary are judged."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ._generate_base import IMAGE, JsonDict, cluster_of, job_of
from ._generate_base import show as _show

SERVICE_ACCOUNTS = [
    "ray-sa",
    "my-service-account@my-project.iam.gserviceaccount.com",
    "Ray_SA",
    "ray.sa.v1",
    "-ray",
    "ray-" + "a" * 250,
    "a" * 253,
    "default",
]
PORT_NAMES = ["gcs", "dashboard", "Dashboard", "my_port", "a-very-long-port-name", "1234", "client-", "a--b", "metrics", "p" * 15]
PORT_NUMBERS = [0, 1, 8080, 65535, 65536, -1]
PROTOCOLS = ["TCP", "UDP", "SCTP", "tcp", "HTTP"]
ENV_NAMES = ["MY_VAR", "my.var", "MY-VAR", "1BAD", "A=B", "with space", "_X"]
VALUE_FROMS: list[tuple[str, Any]] = [
    ("none", {}),
    ("fieldRef", {"fieldRef": {"fieldPath": "metadata.name"}}),
    ("fieldRef-bad", {"fieldRef": {"fieldPath": "metadata.foo"}}),
    ("secret", {"secretKeyRef": {"name": "creds", "key": "token"}}),
    ("secret-bad-key", {"secretKeyRef": {"name": "creds", "key": "bad/key"}}),
    ("two", {"secretKeyRef": {"name": "creds", "key": "token"}, "configMapKeyRef": {"name": "cm", "key": "k"}}),
    ("resource", {"resourceFieldRef": {"resource": "limits.cpu"}}),
    ("resource-bad", {"resourceFieldRef": {"resource": "limits.gpu"}}),
]
VOLUME_NAMES = ["data", "My_Vol", "ray-logs", "v" * 64]
CONTAINER_NAMES = ["sidecar", "Side_Car", "ray-head", "ray-worker", "s" * 64]
PULL_POLICIES = ["Always", "IfNotPresent", "Never", "always", "Sometimes"]
LABELS: list[tuple[str, str]] = [("app", "ray"), ("app", "bad value!"), ("bad key!", "x"), ("app", "v" * 64), ("example.com/team", "ml")]
RESOURCES: list[tuple[str, JsonDict]] = [
    ("cpu-req>lim", {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
    ("mem-req>lim", {"requests": {"memory": "4Gi"}, "limits": {"memory": "2Gi"}}),
    ("cpu-req<lim", {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}),
    ("gpu-req!=lim", {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}}),
    ("gpu-req-only", {"requests": {"nvidia.com/gpu": "1"}}),
    ("gpu-lim-only", {"limits": {"nvidia.com/gpu": "1"}}),
    ("gpu-half", {"requests": {"nvidia.com/gpu": "0.5"}, "limits": {"nvidia.com/gpu": "0.5"}}),
    ("name-gpu", {"limits": {"gpu": "1"}}),
    ("name-cpus", {"limits": {"cpus": "1"}}),
    ("hugepages", {"requests": {"hugepages-2Mi": "1Gi", "memory": "1Gi"}, "limits": {"hugepages-2Mi": "1Gi", "memory": "1Gi"}}),
]
PROBES: list[tuple[str, JsonDict]] = [
    ("exec", {"exec": {"command": ["true"]}}),
    ("no-handler", {"periodSeconds": 5}),
    ("two-handlers", {"exec": {"command": ["true"]}, "tcpSocket": {"port": 8265}}),
    ("success-2", {"exec": {"command": ["true"]}, "successThreshold": 2}),
    ("http-port-0", {"httpGet": {"path": "/", "port": 0}}),
    ("http-port-name-bad", {"httpGet": {"path": "/", "port": "Dash_Board"}}),
    ("tcp-70000", {"tcpSocket": {"port": 70000}}),
    ("negative-delay", {"exec": {"command": ["true"]}, "initialDelaySeconds": -1}),
]


def _templates(doc: JsonDict) -> list[tuple[str, JsonDict]]:
    """The pod templates of the document a mutation may edit: head, first worker group, the submitter's."""
    out: list[tuple[str, JsonDict]] = []
    cluster = cluster_of(doc)
    if cluster:
        out.append(("head", cluster["headGroupSpec"]["template"]))
        groups = cluster.get("workerGroupSpecs") or []
        if groups and isinstance(groups[0], dict) and isinstance(groups[0].get("template"), dict):
            out.append(("worker", groups[0]["template"]))
    job = job_of(doc)
    if job is not None and isinstance(job.get("submitterPodTemplate"), dict):
        out.append(("submitter", job["submitterPodTemplate"]))
    return out


def _pick(draw: st.DrawFn, doc: JsonDict) -> tuple[str, JsonDict, JsonDict]:
    where, template = draw(st.sampled_from(_templates(doc)))
    spec = template.setdefault("spec", {})
    return where, spec, spec["containers"][0]


def m_service_account(draw: st.DrawFn, doc: JsonDict) -> str:
    where, spec, _ = _pick(draw, doc)
    name = draw(st.sampled_from(SERVICE_ACCOUNTS))
    spec["serviceAccountName"] = name
    return f"{where}.serviceAccountName={_show(name[:40])}"


def m_port(draw: st.DrawFn, doc: JsonDict) -> str:
    where, _, container = _pick(draw, doc)
    port: JsonDict = {"containerPort": draw(st.sampled_from([9000, *PORT_NUMBERS]))}
    if draw(st.booleans()):
        port["name"] = draw(st.sampled_from(PORT_NAMES))
    if draw(st.integers(0, 3)) == 0:
        port["protocol"] = draw(st.sampled_from(PROTOCOLS))
    container.setdefault("ports", []).append(port)
    if draw(st.integers(0, 4)) == 0:
        container["ports"].append(dict(port, containerPort=9001))  # the same name (and protocol) twice
        return f"{where}.ports+={_show(port)} twice"
    return f"{where}.ports+={_show(port)}"


def m_env(draw: st.DrawFn, doc: JsonDict) -> str:
    where, _, container = _pick(draw, doc)
    name = draw(st.sampled_from(ENV_NAMES))
    var: JsonDict = {"name": name}
    tag, source = draw(st.sampled_from([("value", None), *VALUE_FROMS]))
    if source is None:
        var["value"] = "x"
    else:
        var["valueFrom"] = source
        if draw(st.integers(0, 4)) == 0:
            var["value"] = "x"
            tag += "+value"
    container.setdefault("env", []).append(var)
    return f"{where}.env+={_show(name)}:{tag}"


def m_volumes(draw: st.DrawFn, doc: JsonDict) -> str:
    where, spec, container = _pick(draw, doc)
    volume = draw(st.sampled_from(VOLUME_NAMES))
    mount = draw(st.sampled_from([volume, "missing"]))
    choice = draw(st.integers(0, 3))
    if choice != 3:
        spec.setdefault("volumes", []).append({"name": volume, "emptyDir": {}})
    if choice == 2:
        spec["volumes"].append({"name": volume, "emptyDir": {}})  # the same name twice
    container.setdefault("volumeMounts", []).append({"name": mount, "mountPath": "/data"})
    if draw(st.integers(0, 4)) == 0:
        container["volumeMounts"].append({"name": mount, "mountPath": "/data"})  # the same path twice
    return f"{where}.volumes[{choice}]:{_show(volume[:10])} mount:{_show(mount[:10])}"


def m_resources(draw: st.DrawFn, doc: JsonDict) -> str:
    where, _, container = _pick(draw, doc)
    tag, resources = draw(st.sampled_from(RESOURCES))
    container["resources"] = {k: dict(v) for k, v in resources.items()}
    return f"{where}.resources:{tag}"


def m_probe(draw: st.DrawFn, doc: JsonDict) -> str:
    where, _, container = _pick(draw, doc)
    kind = draw(st.sampled_from(["livenessProbe", "readinessProbe", "startupProbe"]))
    tag, probe = draw(st.sampled_from(PROBES))
    container[kind] = dict(probe)
    return f"{where}.{kind}:{tag}"


def m_container(draw: st.DrawFn, doc: JsonDict) -> str:
    where, spec, container = _pick(draw, doc)
    name = draw(st.sampled_from(CONTAINER_NAMES))
    which = draw(st.sampled_from(["containers", "initContainers", "rename"]))
    if which == "rename":
        container["name"] = name
    else:
        extra: JsonDict = {"name": name, "image": IMAGE}
        if which == "initContainers":
            extra["command"] = ["true"]
        spec.setdefault(which, []).append(extra)
    return f"{where}.{which}:{_show(name[:10])}"


def m_labels(draw: st.DrawFn, doc: JsonDict) -> str:
    where, _, _ = _pick(draw, doc)
    template = dict(_templates(doc))[where]
    key, value = draw(st.sampled_from(LABELS))
    template.setdefault("metadata", {}).setdefault("labels", {})[key] = value
    return f"{where}.labels[{_show(key)}]={_show(value[:10])}"


def m_pull_policy(draw: st.DrawFn, doc: JsonDict) -> str:
    where, _, container = _pick(draw, doc)
    policy = draw(st.sampled_from(PULL_POLICIES))
    container["imagePullPolicy"] = policy
    return f"{where}.imagePullPolicy={policy}"


def m_submitter(draw: st.DrawFn, doc: JsonDict) -> str:
    """A RayJob's own submitter template (K8sJobMode builds its Job from it), with or without a restart policy."""
    job = job_of(doc)
    if job is None:
        return "noop"
    template: JsonDict = {"spec": {"containers": [{"name": "submitter", "image": IMAGE}]}}
    policy = draw(st.sampled_from([None, "Never", "OnFailure", "Always"]))
    if policy is not None:
        template["spec"]["restartPolicy"] = policy
    job["submitterPodTemplate"] = template
    return f"submitterPodTemplate.restartPolicy={policy}"


POD_MUTATIONS = [
    m_service_account,
    m_port,
    m_env,
    m_volumes,
    m_resources,
    m_probe,
    m_container,
    m_labels,
    m_pull_policy,
    m_submitter,
]
