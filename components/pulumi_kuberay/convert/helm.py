"""Values of the KubeRay ``ray-cluster`` Helm chart (v1.7.0) -> the RayCluster manifest the chart renders.

:func:`render_values` reproduces ``templates/raycluster-cluster.yaml`` of the chart: user values coalesced over
the chart's defaults as Helm does (maps merged, lists replaced, ``null`` deletes a default), then every
template line with Go-template semantics (``with``/``if`` skip empty values; ``{{ . }}`` prints numbers the
way Go's ``%v`` prints the float64 Helm reads them as, so ``1000000`` renders ``1e+06``; ``quote`` makes a
string; ``toYaml`` copies the structure). The result is checked against ``helm template`` in the tests.

Keys the chart does not read (a misspelling, or a key an older chart version read, e.g. ``worker.miniReplicas``
before 0.7) and keys it declares but never renders (``serviceAccount``) are what Helm does with them: ignored.
:func:`ignored_keys` names all of them at once (with the chart version that last read it, where one did) so the
converter warns and goes on. Anything the chart would turn into broken YAML is an error naming the key.
:func:`merge_values` layers several values files and ``--set`` / ``--set-string`` / ``--set-json`` in Helm's
order of precedence, with Helm's types (a ``--set`` number is an integer, a values-file number a float64).

Example::

    manifest = render_values({"worker": {"replicas": 2}}, release_name="raycluster", namespace="ml")
    manifest["metadata"]["name"]   # 'raycluster-kuberay'
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_kuberay.kuberay import API_VERSION, INT32_MAX
from pulumi_kuberay.kuberay.api import LATEST_VERSION_TEXT
from pulumi_kuberay.kuberay.kubernetes import HELM_CHART_LABEL, INSTANCE_LABEL, MANAGED_BY_LABEL
from pulumi_kuberay.model import coalesce
from pulumi_kuberay.model.suggest import did_you_mean

from ._gotemplate import GoInt, HelmValuesError, _default, go_float, plain, quote, scalar, text, to_yaml, truthy
from ._helm_set import merge_values

CHART_NAME = "ray-cluster"
CHART_VERSION = LATEST_VERSION_TEXT

_LOG_VOLUME: list[dict[str, Any]] = [{"name": "log-volume", "emptyDir": {}}]
_LOG_MOUNT: list[dict[str, Any]] = [{"mountPath": "/tmp/ray", "name": "log-volume"}]


def _group_defaults(resources: dict[str, Any]) -> dict[str, Any]:
    return {
        "labels": {},
        "serviceAccountName": "",
        "restartPolicy": "",
        "runtimeClassName": "",
        "containerEnv": [],
        "envFrom": [],
        "resources": resources,
        "resourceClaims": [],
        "annotations": {},
        "nodeSelector": {},
        "tolerations": [],
        "affinity": {},
        "podSecurityContext": {},
        "securityContext": {},
        "volumes": copy.deepcopy(_LOG_VOLUME),
        "volumeMounts": copy.deepcopy(_LOG_MOUNT),
        "sidecarContainers": [],
        "command": [],
        "args": [],
        "topologySpreadConstraints": [],
        "rayStartParams": {},
    }


def _amounts(cpu: Any, memory: str) -> dict[str, Any]:
    return {"limits": {"cpu": cpu, "memory": memory}, "requests": {"cpu": cpu, "memory": memory}}


def chart_defaults() -> dict[str, Any]:
    """The chart's ``values.yaml`` (v1.7.0) as data; a test compares it with the chart's own file."""
    head = _group_defaults(_amounts("1", "5Gi"))
    head.update({"initContainers": [], "headService": {}})
    worker = _group_defaults(_amounts("1", "1Gi"))
    worker.update({"groupName": "workergroup", "replicas": 1, "minReplicas": 1, "maxReplicas": 5, "initContainers": []})
    small = _group_defaults(_amounts(1, "1Gi"))
    small.update({"disabled": True, "replicas": 0, "minReplicas": 0, "maxReplicas": 5})
    return {
        "image": {"repository": "rayproject/ray", "tag": "2.52.0", "pullPolicy": "IfNotPresent"},
        "nameOverride": "kuberay",
        "fullnameOverride": "",
        "imagePullSecrets": [],
        "gcsFaultTolerance": {"enabled": False},
        "common": {"containerEnv": []},
        "head": head,
        "worker": worker,
        "additionalWorkerGroups": {"smallGroup": small},
        "service": {"type": "ClusterIP"},
    }


_POD_KEYS = frozenset(
    {
        "labels", "annotations", "initContainers", "image", "command", "args", "containerEnv", "envFrom",
        "volumeMounts", "ports", "resources", "lifecycle", "securityContext", "sidecarContainers", "volumes",
        "dnsConfig", "nodeSelector", "affinity", "tolerations", "priorityClassName", "priority",
        "topologySpreadConstraints", "restartPolicy", "runtimeClassName", "serviceAccountName",
        "podSecurityContext", "resourceClaims", "rayStartParams", "initArgs",
    }
)  # fmt: skip
_REPLICA_KEYS = frozenset({"disabled", "replicas", "minReplicas", "maxReplicas", "numOfHosts"})
KNOWN: dict[str, Any] = {
    "image": {"repository", "tag", "pullPolicy"},
    "nameOverride": None,
    "fullnameOverride": None,
    "imagePullSecrets": None,
    "annotations": None,
    "gcsFaultTolerance": {"enabled", "redisAddress", "externalStorageNamespace", "redisPassword", "redisUsername"},
    "common": {"containerEnv"},
    "head": _POD_KEYS | {"rayVersion", "enableInTreeAutoscaling", "autoscalerOptions", "headService"},
    "worker": _POD_KEYS | _REPLICA_KEYS | {"groupName"},
    "additionalWorkerGroups": "groups",
    "service": {"type"},
}
"""Every values key the chart's templates read (``None``: any value; a set: the keys of a mapping)."""
_IMAGE_KEYS = {"repository", "tag", "pullPolicy"}
_NEVER_RENDERED = {"serviceAccount": "the chart declares a service-account helper but no template uses it"}
#: Values keys an older ray-cluster chart read and 1.7.0 does not, with the last chart version that read them
#: (from the templates of every chart release 0.3.0-1.4.2: ``.Values.*`` and ``$values.*`` references).
LEGACY_KEYS: dict[str, str] = {
    "worker.miniReplicas": "0.6.1",
    "worker.maxiReplicas": "0.6.1",
    "worker.initContainerImage": "0.5.0",
    "worker.initContainerSecurityContext": "0.5.0",
    "additionalWorkerGroups.*.miniReplicas": "0.6.1",
    "additionalWorkerGroups.*.maxiReplicas": "0.6.1",
    "additionalWorkerGroups.*.initContainerImage": "0.5.0",
    "additionalWorkerGroups.*.initContainerSecurityContext": "0.5.0",
}


# --------------------------------------------------------------------------------------------------
# Checking keys and coalescing over the defaults.


@dataclass(frozen=True)
class IgnoredKey:
    """A values key the chart does not read (Helm ignores it): where, and what to know about it."""

    key: str
    note: str

    def __str__(self) -> str:
        return f"{self.key} ({self.note})"


def _ignored(key: str, known: set[str] | frozenset[str]) -> IgnoredKey:
    leaf = key.rsplit(".", 1)[-1]
    pattern = re.sub(r"^additionalWorkerGroups\.[^.]+\.", "additionalWorkerGroups.*.", key)
    if pattern in LEGACY_KEYS:
        return IgnoredKey(key, f"read by the ray-cluster chart up to {LEGACY_KEYS[pattern]}, not by {CHART_VERSION}")
    guess = did_you_mean(leaf, sorted(known))
    hint = f"; {guess}" if guess else ""
    return IgnoredKey(key, f"no ray-cluster chart since 0.3.0 reads it{hint}")


def ignored_keys(values: Mapping[str, Any]) -> list[IgnoredKey]:
    """Every key of ``values`` the chart does not read (Helm renders the file and ignores them), in file order.

    Raises :class:`HelmValuesError` where a key it reads has a shape it cannot render (not a mapping)."""
    out: list[IgnoredKey] = []
    for key, value in values.items():
        if key in _NEVER_RENDERED:
            out.append(IgnoredKey(key, f"{_NEVER_RENDERED[key]}, so it has no effect"))
            continue
        if key == "global" and not value:
            continue
        if key not in KNOWN:
            out.append(_ignored(key, set(KNOWN)))
            continue
        allowed = KNOWN[key]
        if allowed is None or value is None:
            continue
        if not isinstance(value, Mapping):
            raise HelmValuesError(key, f"expected a mapping, got {type(value).__name__}")
        if allowed == "groups":
            for name, group in value.items():
                if group is None:
                    continue
                if not isinstance(group, Mapping):
                    raise HelmValuesError(f"{key}.{name}", f"expected a mapping, got {type(group).__name__}")
                out += _group_ignored(f"{key}.{name}", group, _POD_KEYS | _REPLICA_KEYS)
            continue
        out += _group_ignored(key, value, allowed)
    return out


def check_keys(values: Mapping[str, Any]) -> None:
    """Raise :class:`HelmValuesError` for the first key the chart does not read (strict callers)."""
    ignored = ignored_keys(values)
    if ignored:
        first = ignored[0]
        raise HelmValuesError(first.key, f"not a value of the ray-cluster chart {CHART_VERSION} ({first.note})")


def _group_ignored(path: str, group: Mapping[str, Any], allowed: set[str] | frozenset[str]) -> list[IgnoredKey]:
    out: list[IgnoredKey] = []
    for sub, sub_value in group.items():
        if sub not in allowed:
            out.append(_ignored(f"{path}.{sub}", allowed))
        elif sub == "image" and isinstance(sub_value, Mapping) and path != "image":
            out += [_ignored(f"{path}.image.{k}", _IMAGE_KEYS) for k in sub_value if k not in _IMAGE_KEYS]
    return out


# --------------------------------------------------------------------------------------------------
# The template.


def fullname(values: Mapping[str, Any], release_name: str) -> str:
    """``ray-cluster.fullname``."""
    if truthy(values.get("fullnameOverride")):
        return text(values["fullnameOverride"], "fullnameOverride")[:63].removesuffix("-")
    name = text(_default(values.get("nameOverride"), CHART_NAME), "nameOverride")
    if name in release_name:
        return release_name[:63].removesuffix("-")
    return f"{release_name}-{name}"[:63].removesuffix("-")


def chart_labels(release_name: str) -> dict[str, Any]:
    """``ray-cluster.labels`` (the chart sets no appVersion, so no ``app.kubernetes.io/version``)."""
    return {
        HELM_CHART_LABEL: f"{CHART_NAME}-{CHART_VERSION}",
        INSTANCE_LABEL: scalar(release_name, "release name"),
        MANAGED_BY_LABEL: "Helm",
    }


def _merge_labels(base: dict[str, Any], extra: Any, key: str) -> dict[str, Any]:
    if not truthy(extra):
        return base
    if not isinstance(extra, Mapping):
        raise HelmValuesError(key, f"expected a mapping of labels, got {type(extra).__name__}")
    clash = sorted(set(base) & {str(k) for k in extra})
    if clash:
        raise HelmValuesError(f"{key}.{clash[0]}", "duplicates a label the chart sets itself (YAML duplicate key)")
    return {**base, **to_yaml(extra)}


def _start_params(group: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    params, legacy = group.get("rayStartParams"), group.get("initArgs")
    if not (truthy(params) or truthy(legacy)):
        return None
    out: dict[str, Any] = {}
    for source, entries in (("rayStartParams", params), ("initArgs", legacy)):
        if not truthy(entries):
            continue
        if not isinstance(entries, Mapping):
            raise HelmValuesError(f"{key}.{source}", f"expected a mapping, got {type(entries).__name__}")
        for name in sorted(entries, key=str):  # Go ranges over a map in key order
            if str(name) in out:
                raise HelmValuesError(f"{key}.{source}.{name}", "also set in rayStartParams (YAML duplicate key)")
            out[str(name)] = quote(entries[name], f"{key}.{source}.{name}")
    return out


def _list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise HelmValuesError(key, f"expected a list (the chart concatenates it), got {type(value).__name__}")
    return value


# C901, PLR0912: the ray-cluster chart's pod template, one branch per value it reads
def _pod(  # noqa: C901, PLR0912
    values: Mapping[str, Any], group: Mapping[str, Any], key: str, container: str, labels: dict[str, Any],
    *, extra_env: Any, default_resources: dict[str, Any] | None,
) -> dict[str, Any]:  # fmt: skip
    where = f"{key}.image" if truthy(group.get("image")) else "image"
    image = group.get("image") if truthy(group.get("image")) else values.get("image")
    if image is not None and not isinstance(image, Mapping):
        raise HelmValuesError(where, f"expected a mapping (repository, tag, pullPolicy), got {type(image).__name__}")
    image = image or {}
    ray: dict[str, Any] = {
        "name": container,
        "image": scalar(
            f"{text(image.get('repository'), where + '.repository')}:{text(image.get('tag'), where + '.tag')}", where
        ),
        "imagePullPolicy": plain(image.get("pullPolicy"), f"{where}.pullPolicy"),
    }
    for field in ("command", "args"):
        if truthy(group.get(field)):
            ray[field] = to_yaml(group[field])
    env = _list((values.get("common") or {}).get("containerEnv"), "common.containerEnv") + _list(
        extra_env, f"{key}.containerEnv"
    )
    if env:
        ray["env"] = to_yaml(env)
    for field in ("envFrom", "volumeMounts", "ports", "resources", "lifecycle", "securityContext"):
        if truthy(group.get(field)):
            ray[field] = to_yaml(group[field])
        elif field == "resources" and default_resources is not None:
            ray[field] = copy.deepcopy(default_resources)
    spec: dict[str, Any] = {}
    if truthy(group.get("initContainers")):
        spec["initContainers"] = to_yaml(group["initContainers"])
    containers = [ray]
    if truthy(group.get("sidecarContainers")):
        containers += to_yaml(_list(group["sidecarContainers"], f"{key}.sidecarContainers"))
    spec["containers"] = containers
    if truthy(values.get("imagePullSecrets")):
        spec["imagePullSecrets"] = to_yaml(values["imagePullSecrets"])
    for field in ("volumes", "dnsConfig", "nodeSelector", "affinity", "tolerations"):
        if truthy(group.get(field)):
            spec[field] = to_yaml(group[field])
    for field in ("priorityClassName", "priority"):
        if truthy(group.get(field)):
            spec[field] = plain(group[field], f"{key}.{field}")
    if truthy(group.get("topologySpreadConstraints")):
        spec["topologySpreadConstraints"] = to_yaml(group["topologySpreadConstraints"])
    for field in ("restartPolicy", "runtimeClassName", "serviceAccountName"):
        if truthy(group.get(field)):
            spec[field] = plain(group[field], f"{key}.{field}")
    if truthy(group.get("podSecurityContext")):
        spec["securityContext"] = to_yaml(group["podSecurityContext"])
    if truthy(group.get("resourceClaims")):
        spec["resourceClaims"] = to_yaml(group["resourceClaims"])
    metadata: dict[str, Any] = {"labels": _merge_labels(dict(labels), group.get("labels"), f"{key}.labels")}
    if truthy(group.get("annotations")):
        metadata["annotations"] = to_yaml(group["annotations"])
    return {"metadata": metadata, "spec": spec}


def _worker(
    values: Mapping[str, Any], group: Mapping[str, Any], key: str, name: Any, labels: dict[str, Any], *, extra: bool
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "groupName": plain(name, f"{key}.groupName" if not extra else key),
        "replicas": plain(group.get("replicas"), f"{key}.replicas"),
        # `default 0` / `default 2147483647` / `default 1`: the template's literals are Go ints
        "minReplicas": plain(_default(group.get("minReplicas"), GoInt(0)), f"{key}.minReplicas"),
        "maxReplicas": plain(_default(group.get("maxReplicas"), GoInt(INT32_MAX)), f"{key}.maxReplicas"),
        "numOfHosts": plain(_default(group.get("numOfHosts"), GoInt(1)), f"{key}.numOfHosts"),
    }
    params = _start_params(group, key)
    if params is not None:
        out["rayStartParams"] = params
    env = group.get("containerEnv")
    out["template"] = _pod(
        values, group, key, "ray-worker", labels,
        extra_env=_default(env, []) if extra else env,
        default_resources=_amounts("1", "1Gi") if extra else None,
    )  # fmt: skip
    return out


# C901: the chart's raycluster template, in its order
def render_values(  # noqa: C901
    values: Mapping[str, Any], *, release_name: str = "raycluster", namespace: str = "default"
) -> dict[str, Any]:
    """The RayCluster manifest ``helm template <release_name> ray-cluster -n <namespace> -f values`` renders."""
    if not isinstance(values, Mapping):
        raise HelmValuesError("", f"values must be a mapping, got {type(values).__name__}")
    ignored_keys(values)  # shapes the chart cannot render raise; keys it does not read are left alone, as by Helm
    merged = coalesce(defaults=chart_defaults(), values=values)
    labels = chart_labels(release_name)
    metadata: dict[str, Any] = {
        "name": scalar(fullname(merged, release_name), "fullnameOverride"),
        "namespace": scalar(namespace, "namespace"),
        "labels": labels,
    }
    if truthy(merged.get("annotations")):
        metadata["annotations"] = to_yaml(merged["annotations"])
    head: Mapping[str, Any] = merged.get("head") or {}
    spec: dict[str, Any] = {}
    for field in ("rayVersion", "enableInTreeAutoscaling"):
        if truthy(head.get(field)):
            spec[field] = plain(head[field], f"head.{field}")
    if truthy(head.get("autoscalerOptions")):
        spec["autoscalerOptions"] = to_yaml(head["autoscalerOptions"])
    gcs: Mapping[str, Any] = merged.get("gcsFaultTolerance") or {}
    if truthy(gcs.get("enabled")):
        options: dict[str, Any] = {"redisAddress": quote(gcs.get("redisAddress"), "gcsFaultTolerance.redisAddress")}
        if truthy(gcs.get("externalStorageNamespace")):
            key = "gcsFaultTolerance.externalStorageNamespace"
            options["externalStorageNamespace"] = quote(gcs["externalStorageNamespace"], key)
        for field in ("redisPassword", "redisUsername"):
            if truthy(gcs.get(field)):
                options[field] = to_yaml(gcs[field])
        spec["gcsFaultToleranceOptions"] = options
    head_spec: dict[str, Any] = {}
    if truthy(head.get("headService")):
        head_spec["headService"] = to_yaml(head["headService"])
    service_type = (merged.get("service") or {}).get("type")
    if truthy(service_type):
        head_spec["serviceType"] = plain(service_type, "service.type")
    params = _start_params(head, "head")
    if params is not None:
        head_spec["rayStartParams"] = params
    head_spec["template"] = _pod(
        merged, head, "head", "ray-head", labels, extra_env=head.get("containerEnv"), default_resources=None
    )
    spec["headGroupSpec"] = head_spec
    groups: list[dict[str, Any]] = []
    worker: Mapping[str, Any] = merged.get("worker") or {}
    if not truthy(worker.get("disabled")):
        groups.append(_worker(merged, worker, "worker", worker.get("groupName"), labels, extra=False))
    extra: Mapping[str, Any] = merged.get("additionalWorkerGroups") or {}
    for name in sorted(extra, key=str):
        group = extra[name] or {}
        if not truthy(group.get("disabled")):
            groups.append(_worker(merged, group, f"additionalWorkerGroups.{name}", name, labels, extra=True))
    spec["workerGroupSpecs"] = groups or None
    return {"apiVersion": API_VERSION, "kind": "RayCluster", "metadata": metadata, "spec": spec}


_CONTAINER_TO_VALUES = {
    "env": "containerEnv", "envFrom": "envFrom", "volumeMounts": "volumeMounts", "ports": "ports",
    "resources": "resources", "lifecycle": "lifecycle", "securityContext": "securityContext",
    "command": "command", "args": "args", "image": "image", "imagePullPolicy": "image.pullPolicy",
}  # fmt: skip
_POD_TO_VALUES = {"securityContext": "podSecurityContext", "containers": "sidecarContainers"}


def values_key(path: str, values: Mapping[str, Any]) -> str | None:
    """The values key behind the rendered field at ``path`` (``spec.workerGroupSpecs[0].replicas`` ->
    ``worker.replicas``), so a problem found in the RayCluster is reported where the user wrote it."""
    parts = path.replace("[", ".[").split(".")
    merged = coalesce(defaults=chart_defaults(), values=values)
    if parts[:2] == ["spec", "headGroupSpec"]:
        group, rest = "head", parts[2:]
    elif parts[:2] == ["spec", "workerGroupSpecs"] and len(parts) > 2:
        groups = [] if truthy((merged.get("worker") or {}).get("disabled")) else ["worker"]
        extra = merged.get("additionalWorkerGroups") or {}
        groups += [
            f"additionalWorkerGroups.{name}"
            for name in sorted(extra, key=str)
            if not truthy((extra[name] or {}).get("disabled"))
        ]
        index = int(parts[2].strip("[]"))
        if index >= len(groups):
            return None
        group, rest = groups[index], parts[3:]
    elif parts[:2] == ["spec", "gcsFaultToleranceOptions"]:
        return ".".join(["gcsFaultTolerance", *parts[2:3]])
    elif parts[:2] == ["spec", "autoscalerOptions"]:
        return ".".join(["head", *parts[1:]])
    elif parts[:2] in (["spec", "rayVersion"], ["spec", "enableInTreeAutoscaling"]):
        return f"head.{parts[1]}"
    else:
        return None
    if rest[:3] == ["template", "spec", "containers"] and len(rest) > 4 and rest[3] == "[0]":
        return f"{group}.{_CONTAINER_TO_VALUES.get(rest[4], rest[4])}"
    if rest[:2] == ["template", "spec"] and len(rest) > 2:
        return f"{group}.{_POD_TO_VALUES.get(rest[2], rest[2])}"
    if rest[:2] == ["template", "metadata"] and len(rest) > 2:
        return f"{group}.{rest[2]}"
    return f"{group}.{rest[0]}" if rest else group


# --------------------------------------------------------------------------------------------------
# Helm's own labels, which are false once Pulumi manages the object.

HELM_LABELS = (HELM_CHART_LABEL, MANAGED_BY_LABEL)


def replace_helm_labels(manifest: dict[str, Any]) -> list[str]:
    """Drop ``helm.sh/chart`` and make ``app.kubernetes.io/managed-by`` say ``pulumi`` on the object and its pod
    templates; returns one line per change (for a comment beside the converted object)."""
    notes: list[str] = []

    def fix(labels: Any, where: str) -> None:
        if not isinstance(labels, dict):
            return
        chart = labels.pop(HELM_CHART_LABEL, None)
        if chart is not None:
            notes.append(f"{where}: label helm.sh/chart={chart} dropped (Helm's bookkeeping)")
        if labels.get(MANAGED_BY_LABEL) == "Helm":
            labels[MANAGED_BY_LABEL] = "pulumi"
            notes.append(f"{where}: label app.kubernetes.io/managed-by=Helm became pulumi")

    fix(manifest.get("metadata", {}).get("labels"), "metadata.labels")
    spec = manifest.get("spec") or {}
    groups = [("spec.headGroupSpec", spec.get("headGroupSpec"))]
    groups += [(f"spec.workerGroupSpecs[{i}]", g) for i, g in enumerate(spec.get("workerGroupSpecs") or [])]
    for where, group in groups:
        template = group.get("template") if isinstance(group, dict) else None
        metadata = template.get("metadata") if isinstance(template, dict) else None
        if isinstance(metadata, dict):
            fix(metadata.get("labels"), f"{where}.template.metadata.labels")
    return notes


__all__ = [
    "HELM_LABELS",
    "LEGACY_KEYS",
    "GoInt",
    "HelmValuesError",
    "IgnoredKey",
    "chart_defaults",
    "go_float",
    "ignored_keys",
    "merge_values",
    "render_values",
    "replace_helm_labels",
    "values_key",
]
