"""What the API server's Pod validation refuses in the pod templates the operator turns into Pods (and, in
K8sJobMode, the submitter Job): the CRDs type-check a pod template but do not run ``ValidatePodSpec`` on it, so
the Ray object is stored and every Pod the operator creates from it is refused (the workload never starts).
Each rule mirrors one function of Kubernetes' ``pkg/apis/core/validation`` (``ValidateServiceAccountName``,
``validateContainerPorts``, ``ValidateEnv``, ``ValidateVolumes`` / ``ValidateVolumeMounts``, ``validateProbe``,
``validateContainers``, ``validatePullPolicy``, ``validateRestartPolicy``) or of ``pkg/apis/batch/validation``
(``ValidateJob``'s pod template). The oracle (tests/oracle) builds the children with the operator's own code and
judges them with those functions. Plain Python, no pulumi.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import chain
from typing import Any

from pulumi_kuberay.kuberay.kubernetes import FILE_MODE_MAX, VOLUME_SOURCES
from pulumi_kuberay.kuberay.names import AUTOSCALER_CONTAINER, METRICS_PORT, METRICS_PORT_NAME, WAIT_GCS_READY_CONTAINER
from pulumi_kuberay.kuberay.paths import (
    PodTemplateRef,
    app_containers,
    as_dict,
    as_list,
    is_unknown,
    join,
    placeholders,
    template_containers,
)
from pulumi_kuberay.kuberay.paths import as_str as _judged  # the string to judge (not one known only at apply)
from pulumi_kuberay.kuberay.paths import placeholder_note as _placeholder_note

from . import _examples as ex
from ._engine import KINDS, Context, Violation, declare
from ._fixed import patch
from ._manifest_readers import (
    built_cluster_specs,
    built_pod_templates,
    is_dns1123_label,
    is_dns1123_subdomain,
    port_name_error,
)

Doc = dict[str, Any]

_REFUSED = "the API server refuses every Pod the operator creates from it and the workload never starts"
_SHELL_ONLY = re.compile(r"(?:[a-z0-9.-]|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*)+")


def _not_known(obj: dict[str, Any], key: str) -> bool:
    """``key`` is set to a value Pulumi computes later (absent is known: the default applies)."""
    return obj.get(key) is not None and is_unknown(obj[key])


#: (path, container) of the init and app containers (what the Pod is created with), kept per check.
_app_containers = app_containers


# --------------------------------------------------------------------------------------------------
# ValidateServiceAccountName: a DNS-1123 subdomain


def _check_service_account(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        for key in ("serviceAccountName", "serviceAccount"):
            name = _judged(template.pod_spec.get(key))
            if not name or is_dns1123_subdomain(name):
                continue
            path = f"{template.spec_path}.{key}"
            if placeholders(name) and _SHELL_ONLY.fullmatch(name):
                yield Violation(f"{key} {name!r}{_placeholder_note(name)}; applied as it is, {_REFUSED} (ValidateServiceAccountName)", path, severity="high")
                continue
            yield Violation(f"{key} {name!r} is not a DNS-1123 subdomain (at most 253 lower-case letters, digits, '-' and '.'): {_REFUSED} (ValidateServiceAccountName); a cloud identity such as a GCP service account e-mail belongs in the Kubernetes ServiceAccount's annotations (iam.gke.io/gcp-service-account), not here", path)


def _with_head_spec(**fields: Any) -> Doc:
    return ex.example(lambda d: ex.head_of(d)["template"]["spec"].update(fields))


declare(
    id="pod-service-account-name-invalid",
    title="Pod serviceAccountName the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-09",),
    enforced_by=("run-time",),
    rationale="The CRD stores any string as a pod template's serviceAccountName, but the API server's Pod validation (ValidateServiceAccountName) requires a DNS-1123 subdomain: a GCP or AWS identity ('sa@project.iam.gserviceaccount.com') or upper case there makes every head and worker Pod (and the submitter Job) fail to create, while the Ray object looks accepted.",
    fix="Name the Kubernetes ServiceAccount (e.g. 'ray-sa'); bind the cloud identity to it with its annotation (GKE: iam.gke.io/gcp-service-account, EKS: eks.amazonaws.com/role-arn).",
    check=_check_service_account,
    compliant=_with_head_spec(serviceAccountName="ray-sa"),
    violating=_with_head_spec(serviceAccountName="my-service-account@my-project.iam.gserviceaccount.com"),
    violating_path="spec.headGroupSpec.template.spec.serviceAccountName",
    fixed=patch({"spec.headGroupSpec.template.spec.serviceAccountName": "ray-sa"}),
)


# --------------------------------------------------------------------------------------------------
# validateContainerPorts: IsValidPortName, IsValidPortNum, unique names, the protocols

_PROTOCOLS = ("TCP", "UDP", "SCTP")


def _int32(value: Any) -> int | None:
    """An integer to judge: outside int32 KubeRay cannot decode the object (schema-invalid-value), so it builds nothing."""
    if isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31:
        return value
    return None


def _port_problems(port: dict[str, Any], seen: set[str]) -> Iterator[tuple[str, str]]:
    name = _judged(port.get("name"))
    if name:
        error = port_name_error(name)
        if error:
            yield "name", f"port name {name!r} {error}"
        elif name in seen:
            yield "name", f"port name {name!r} is used twice in the container"
        seen.add(name)
    for key in ("containerPort", "hostPort"):
        number = _int32(port.get(key))
        in_range = number is None or 1 <= number <= 65535
        if not in_range and (key == "containerPort" or number != 0):  # hostPort 0: none
            yield key, f"{key} {number} is not a port number (1-65535)"
    protocol = _judged(port.get("protocol"))
    if protocol is not None and protocol not in _PROTOCOLS:
        yield "protocol", f"protocol {protocol!r} is not one of TCP, UDP, SCTP (upper case)"


def _check_ports(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        for path, container in _app_containers(template):
            seen: set[str] = set()
            for i, port in enumerate(as_list(container.get("ports"))):
                if isinstance(port, dict):
                    for key, problem in _port_problems(port, seen):
                        yield Violation(f"{problem}: {_REFUSED} (validateContainerPorts); the head's ports also name the head Service's ports", f"{path}.ports[{i}].{key}")


def _with_head_port(port: dict[str, Any]) -> Doc:
    return ex.example(lambda d: ex.head_container_of(d).setdefault("ports", []).append(port))


declare(
    id="pod-container-port-invalid",
    title="Container port name, number or protocol the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-10",),
    enforced_by=("run-time",),
    rationale="Pod validation (validateContainerPorts) requires port names that are IANA service names (at most 15 lower-case letters, digits and '-', a letter among them, no '--', no leading or trailing '-'), unique in the container, numbers in 1-65535 and protocol TCP, UDP or SCTP; the CRD checks none of it, so the operator's Pods (and the head Service, named after the head's ports) are refused.",
    fix="Rename the port (e.g. 'metrics', 'client'), keep numbers in 1-65535 and write the protocol in upper case.",
    check=_check_ports,
    compliant=_with_head_port({"name": "metrics", "containerPort": 8080}),
    violating=_with_head_port({"name": "Metrics_Port", "containerPort": 8080}),
    violating_path="spec.headGroupSpec.template.spec.containers[0].ports[3].name",
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].ports[3].name": "metrics"}),
)


# --------------------------------------------------------------------------------------------------
# ValidateEnv: validateEnvVarName (relaxed: printable ASCII but '='), validateEnvVarValueFrom

_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef")
_ENV_FIELD_PATHS = frozenset(
    {"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName"}
    | {"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"}
)
_SUBSCRIPT_PATH = re.compile(r"metadata\.(labels|annotations)\['[^']*'\]")
_RESOURCE_PATHS = frozenset(f"{k}.{r}" for k in ("limits", "requests") for r in ("cpu", "memory", "ephemeral-storage"))
_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")
_NOT_RELAXED_ENV_CHAR = re.compile(r"[^\x20-\x3c\x3e-\x7e]")  # not printable ASCII (32-126), or '=' (61)


@lru_cache(maxsize=1024)  # a pure function of the name; every container repeats the same few
def env_name_error(name: str) -> str | None:
    """Like k8s ``IsRelaxedEnvVarName`` (GA, locked on, from Kubernetes 1.34)."""
    if not name:
        return "is empty"
    if _NOT_RELAXED_ENV_CHAR.search(name):
        return "must be printable ASCII characters other than '='"
    return None


def _source_problem(kind: str, source: dict[str, Any]) -> tuple[str, str] | None:
    if kind == "fieldRef":
        path = _judged(source.get("fieldPath"))
        if path is not None and path not in _ENV_FIELD_PATHS and not _SUBSCRIPT_PATH.fullmatch(path):
            return "fieldRef.fieldPath", f"fieldPath {path!r} is not one the downward API serves to env (metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], spec.nodeName, status.podIP...)"
    elif kind == "resourceFieldRef":
        resource = _judged(source.get("resource"))
        hugepages = resource is not None and resource.startswith(("limits.hugepages-", "requests.hugepages-"))
        if resource is not None and resource not in _RESOURCE_PATHS and not hugepages:
            return "resourceFieldRef.resource", f"resource {resource!r} is not one of limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory, requests.ephemeral-storage"
    elif kind in ("configMapKeyRef", "secretKeyRef"):
        key = _judged(source.get("key"))
        if key is not None and (len(key) > 253 or key in (".", "..") or not _CONFIG_KEY.fullmatch(key)):
            return f"{kind}.key", f"key {key!r} is not a valid config key (letters, digits, '-', '_', '.')"
    return None


def _env_problems(var: dict[str, Any]) -> Iterator[tuple[str, str]]:
    name = _judged(var.get("name"))
    error = env_name_error(name) if name is not None else None
    if error:
        yield "name", f"env var name {name!r} {error}"
    if "valueFrom" not in var or var.get("valueFrom") is None or is_unknown(var.get("valueFrom")):
        return
    value_from = as_dict(var.get("valueFrom"))
    sources = [k for k in _SOURCES if value_from.get(k) is not None]
    if _judged(var.get("value")):
        yield "valueFrom", f"env var {name!r} sets both value and valueFrom"
    if len(sources) != 1:
        yield "valueFrom", f"env var {name!r} valueFrom must name exactly one source of {', '.join(_SOURCES[:4])}, it names {len(sources)}"
        return
    problem = _source_problem(sources[0], as_dict(value_from.get(sources[0])))
    if problem:
        yield f"valueFrom.{problem[0]}", f"env var {name!r}: {problem[1]}"


def _env_from_problems(source: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """ValidateEnvFrom: a prefix that is an env var name, exactly one of configMapRef and secretRef, its name."""
    prefix = _judged(source.get("prefix"))
    error = env_name_error(prefix) if prefix else None
    if error:
        yield "prefix", f"envFrom prefix {prefix!r} {error}"
    refs = [key for key in ("configMapRef", "secretRef") if source.get(key) is not None]
    if len(refs) != 1:
        yield "", f"envFrom must name exactly one of configMapRef and secretRef, it names {len(refs)}"
    for key in refs:
        name = _judged(as_dict(source.get(key)).get("name"))
        if name is not None and not is_dns1123_subdomain(name):
            yield f"{key}.name", f"envFrom {key} name {name!r} is not a DNS-1123 subdomain (a ConfigMap or Secret name)"


def _autoscaler_sidecars(manifest: Doc) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, autoscalerOptions) of each built cluster with enableInTreeAutoscaling: BuildAutoscalerContainer makes
    the head Pod's autoscaler container with its imagePullPolicy, env and envFrom."""
    for ref in built_cluster_specs(manifest):
        options = ref.spec.get("autoscalerOptions")
        if ref.spec.get("enableInTreeAutoscaling") is True and isinstance(options, dict):
            yield join(ref.prefix, "autoscalerOptions"), options


def _container_env(path: str, container: dict[str, Any]) -> Iterator[Violation]:
    for i, var in enumerate(as_list(container.get("env"))):
        if isinstance(var, dict):
            name = var.get("name")
            if var.get("valueFrom") is None and not (isinstance(name, str) and env_name_error(name)):
                continue  # a plain value with a valid (or unjudged) name: what _env_problems finds nothing in
            for key, problem in _env_problems(var):
                yield Violation(f"{problem}: {_REFUSED} (ValidateEnv)", f"{path}.env[{i}].{key}")
    for i, source in enumerate(as_list(container.get("envFrom"))):
        if isinstance(source, dict) and not is_unknown(source):
            for key, problem in _env_from_problems(source):
                yield Violation(f"{problem}: {_REFUSED} (ValidateEnvFrom)", f"{path}.envFrom[{i}]" + (f".{key}" if key else ""))


def _check_env(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        for path, container in _app_containers(template):
            yield from _container_env(path, container)
    for path, options in _autoscaler_sidecars(manifest):
        yield from _container_env(path, options)


def _with_head_env(var: dict[str, Any]) -> Doc:
    return ex.example(lambda d: ex.head_container_of(d).setdefault("env", []).append(var))


declare(
    id="pod-env-var-invalid",
    title="Container env var name or source the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-11",),
    enforced_by=("run-time",),
    rationale="Pod validation (ValidateEnv, ValidateEnvFrom) refuses an env var name or envFrom prefix with '=' or non-printable characters, an envFrom naming no ConfigMap or Secret or both, or a name that is no DNS-1123 subdomain, a valueFrom with no source or two, valueFrom next to a value, a fieldRef path the downward API does not serve, a resourceFieldRef other than cpu, memory, ephemeral-storage or hugepages, and config keys outside letters, digits, '-', '_', '.'. The CRD checks none of it.",
    fix="Name the variable without '=' and give valueFrom exactly one source (fieldRef, resourceFieldRef, configMapKeyRef or secretKeyRef) with a supported path or key, and no value beside it.",
    check=_check_env,
    compliant=_with_head_env({"name": "MY_POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}),
    violating=_with_head_env({"name": "MY_POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.foo"}}}),
    violating_path="spec.headGroupSpec.template.spec.containers[0].env[0].valueFrom.fieldRef.fieldPath",
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].env[0].valueFrom.fieldRef.fieldPath": "metadata.name"}),
)


# --------------------------------------------------------------------------------------------------
# ValidateVolumes (names: DNS-1123 labels, unique) and ValidateVolumeMounts (a known volume, unique paths)


def _check_volumes(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        names: set[str] = set()
        for i, volume in enumerate(as_list(template.pod_spec.get("volumes"))):
            name = _judged(as_dict(volume).get("name"))
            if name is None:
                continue
            path = f"{template.spec_path}.volumes[{i}].name"
            if not is_dns1123_label(name):
                yield Violation(f"volume name {name!r} is not a DNS-1123 label (at most 63 lower-case letters, digits and '-'): {_REFUSED} (ValidateVolumes)", path)
            elif name in names:
                yield Violation(f"volume name {name!r} is used twice: {_REFUSED} (ValidateVolumes)", path)
            names.add(name)
            yield from _source_problems(f"{template.spec_path}.volumes[{i}]", as_dict(volume))
        if _not_known(template.pod_spec, "volumes"):
            continue
        for cpath, container in _app_containers(template):
            yield from _mount_problems(cpath, container, names)


def _mode_problems(path: str, source: dict[str, Any], key: str) -> Iterator[Violation]:
    mode = _int32(source.get(key))
    if mode is not None and not 0 <= mode <= FILE_MODE_MAX:
        yield Violation(f"{key} {mode} is not a file mode in 0..0777 (511 in decimal; YAML reads 0644 as octal, JSON has no octal: write 420 there): {_REFUSED} (validateKeyToPath, validate*VolumeSource)", f"{path}.{key}")


def _projection_problems(path: str, source: dict[str, Any]) -> Iterator[Violation]:
    for i, item in enumerate(as_list(source.get("items"))):
        yield from _mode_problems(f"{path}.items[{i}]", as_dict(item), "mode")


_SOURCE_KEYS = frozenset(VOLUME_SOURCES)


def _source_problems(path: str, volume: dict[str, Any]) -> Iterator[Violation]:
    """validateVolumeSource: exactly one source; the file modes of secret, configMap, downwardAPI and projected."""
    # The source keys the volume has, in VOLUME_SOURCES' order (a volume has one or two keys: ~30 are not walked)
    named = _SOURCE_KEYS.intersection(volume)
    ordered = [key for key in VOLUME_SOURCES if key in named] if len(named) > 1 else named
    sources = [key for key in ordered if volume[key] is not None]
    if not sources:
        yield Violation(f"volume names no source (emptyDir, configMap, secret, persistentVolumeClaim...): {_REFUSED} (validateVolumeSource: must specify a volume type)", path)
    elif len(sources) > 1:
        yield Violation(f"volume has {len(sources)} sources ({', '.join(sources)}), a volume has exactly one: {_REFUSED} (validateVolumeSource)", f"{path}.{sources[1]}")
    for kind in ("secret", "configMap", "downwardAPI", "projected"):
        source = as_dict(volume.get(kind))
        if not source:
            continue  # (a volume has one source: three of the four are absent)
        yield from _mode_problems(f"{path}.{kind}", source, "defaultMode")
        yield from _projection_problems(f"{path}.{kind}", source)
        for j, projection in enumerate(as_list(source.get("sources")) if kind == "projected" else ()):
            for inner in ("secret", "configMap", "downwardAPI"):
                yield from _projection_problems(f"{path}.projected.sources[{j}].{inner}", as_dict(as_dict(projection).get(inner)))


def _mount_problems(cpath: str, container: dict[str, Any], names: set[str]) -> Iterator[Violation]:
    paths: set[str] = set()
    for i, mount in enumerate(as_list(container.get("volumeMounts"))):
        name = _judged(as_dict(mount).get("name"))
        if name is not None and name not in names:
            yield Violation(f"volumeMount {name!r} names no volume of the pod template (volumes: {', '.join(sorted(names)) or 'none'}): {_REFUSED} (ValidateVolumeMounts)", f"{cpath}.volumeMounts[{i}].name")
        mount_path = _judged(as_dict(mount).get("mountPath"))
        if mount_path and mount_path in paths:
            yield Violation(f"mountPath {mount_path!r} is mounted twice in the container: {_REFUSED} (ValidateVolumeMounts)", f"{cpath}.volumeMounts[{i}].mountPath")
        if mount_path:
            paths.add(mount_path)
        propagation = _judged(as_dict(mount).get("mountPropagation"))
        privileged = as_dict(container.get("securityContext")).get("privileged") is True
        if propagation and (propagation not in _PROPAGATIONS or (propagation == "Bidirectional" and not privileged)):
            yield Violation(f"mountPropagation {propagation!r} is not None or HostToContainer, or Bidirectional in a privileged container: {_REFUSED} (validateMountPropagation)", f"{cpath}.volumeMounts[{i}].mountPropagation")
        for key in ("subPath", "subPathExpr"):
            sub = _judged(as_dict(mount).get(key))
            if sub and (sub.startswith("/") or ".." in sub.split("/")):
                yield Violation(f"{key} {sub!r} must be a relative path inside the volume, without '..': {_REFUSED} (validateLocalDescendingPath)", f"{cpath}.volumeMounts[{i}].{key}")


def _with_mount(volume: str, mount: str) -> Doc:
    def edit(doc: Doc) -> None:
        ex.head_of(doc)["template"]["spec"]["volumes"] = [{"name": volume, "emptyDir": {}}]
        ex.head_container_of(doc)["volumeMounts"] = [{"name": mount, "mountPath": "/data"}]

    return ex.example(edit)


declare(
    id="pod-volume-invalid",
    title="Volume name or volumeMount the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-12",),
    enforced_by=("run-time",),
    rationale="Pod validation requires volume names that are DNS-1123 labels, unique in the Pod (ValidateVolumes), exactly one source per volume and file modes in 0..0777 (validateVolumeSource, validateKeyToPath), subPath relative without '..', and every volumeMount to name one of them at a path mounted once per container (ValidateVolumeMounts); a mount of a volume declared in another group's template, or a typo, makes every Pod of the group fail to create.",
    fix="Declare the volume in the same pod template's spec.volumes, with a lower-case name, and mount each path once.",
    check=_check_volumes,
    compliant=_with_mount("data", "data"),
    violating=_with_mount("data", "dataset"),
    violating_path="spec.headGroupSpec.template.spec.containers[0].volumeMounts[0].name",
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].volumeMounts[0].name": "data"}),
)


# --------------------------------------------------------------------------------------------------
# validateProbe / validateHandler: one handler, successThreshold 1 for liveness and startup, ports

_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_HOOK_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")  # a LifecycleHandler's
_PROPAGATIONS = ("None", "HostToContainer", "Bidirectional")


def _probe_problems(kind: str, probe: dict[str, Any]) -> Iterator[tuple[str, str]]:
    handlers = [h for h in _HANDLERS if probe.get(h) is not None]
    if len(handlers) != 1:
        yield "", f"{kind} must set exactly one handler of exec, httpGet, tcpSocket, grpc; it sets {len(handlers)}"
    if kind == "readinessProbe" and probe.get("terminationGracePeriodSeconds") is not None:
        yield ".terminationGracePeriodSeconds", "readinessProbe takes no terminationGracePeriodSeconds"
    threshold = _int32(probe.get("successThreshold"))
    if kind != "readinessProbe" and threshold is not None and threshold not in (0, 1):
        yield ".successThreshold", f"{kind} successThreshold {threshold} must be 1"
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold", "terminationGracePeriodSeconds"):
        value = _int32(probe.get(key))
        if value is not None and value < 0:
            yield f".{key}", f"{kind} {key} {value} must not be negative"
    for handler in ("httpGet", "tcpSocket", "grpc"):
        port = as_dict(probe.get(handler)).get("port")
        if isinstance(port, bool) or is_unknown(port):
            continue
        if isinstance(port, int) and _int32(port) is not None and not 1 <= port <= 65535:
            yield f".{handler}.port", f"{kind} {handler} port {port} is not a port number (1-65535)"
        elif isinstance(port, str) and handler != "grpc" and port_name_error(port) and not port.isdigit():
            yield f".{handler}.port", f"{kind} {handler} port {port!r} is neither a number nor a valid port name"


def _action_problems(kind: str, handler: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """validateExecAction (a command), validateHTTPGetAction (the scheme; an empty one defaults to HTTP)."""
    command = as_dict(handler.get("exec")).get("command")
    if isinstance(handler.get("exec"), dict) and (command is None or (not is_unknown(command) and not as_list(command))):
        yield ".exec.command", f"{kind} exec has no command"
    scheme = _judged(as_dict(handler.get("httpGet")).get("scheme"))
    if scheme and scheme not in ("HTTP", "HTTPS"):
        yield ".httpGet.scheme", f"{kind} httpGet scheme {scheme!r} is not HTTP or HTTPS (upper case)"


def _lifecycle_problems(lifecycle: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for hook in ("postStart", "preStop"):
        handler = lifecycle.get(hook)
        if not isinstance(handler, dict) or is_unknown(handler):
            continue
        handlers = [h for h in _HOOK_HANDLERS if handler.get(h) is not None]
        if len(handlers) != 1:
            yield f".{hook}", f"lifecycle {hook} must set exactly one handler of {', '.join(_HOOK_HANDLERS)}; it sets {len(handlers)}"
        yield from ((f".{hook}{suffix}", problem) for suffix, problem in _action_problems(hook, handler))


def _check_probes(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        for item in template_containers(template):
            path, container = item.path, item.container
            if item.field == "ephemeralContainers":
                continue
            sidecar = container.get("restartPolicy") == "Always"
            for kind in ("livenessProbe", "readinessProbe", "startupProbe", "lifecycle"):
                probe = container.get(kind)
                if not isinstance(probe, dict) or is_unknown(probe):
                    continue
                if item.field == "initContainers" and not sidecar and not _not_known(container, "restartPolicy"):
                    yield Violation(f"an init container may have {kind} only as a sidecar (restartPolicy: Always): {_REFUSED} (validateInitContainers)", f"{path}.{kind}")
                    continue
                if kind == "lifecycle":
                    problems = _lifecycle_problems(probe)
                else:
                    problems = chain(_probe_problems(kind, probe), _action_problems(kind, probe))
                for suffix, problem in problems:
                    yield Violation(f"{problem}: {_REFUSED} (validateProbe, validateHandler)", f"{path}.{kind}{suffix}")


def _with_probe(probe: dict[str, Any]) -> Doc:
    return ex.example(lambda d: ex.worker_container_of(d).update(livenessProbe=probe))


declare(
    id="pod-probe-invalid",
    title="Container probe or lifecycle hook the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-13",),
    enforced_by=("run-time",),
    rationale="Pod validation (validateProbe, validateHandler, validateLifecycle) requires exactly one handler per probe (exec, httpGet, tcpSocket or grpc) and per lifecycle hook (exec, httpGet, tcpSocket or sleep), an exec command, an httpGet scheme of HTTP or HTTPS, successThreshold 1 for liveness and startup probes, no negative timings, ports that are numbers in 1-65535 or port names, and probes or hooks on an init container only when it is a sidecar (restartPolicy: Always); KubeRay keeps the probes and hooks the user sets, so the operator's Pods are refused.",
    fix="Give the probe one handler (e.g. exec: {command: [...]}) and successThreshold 1 (liveness, startup), or leave the probes out and let KubeRay build them.",
    check=_check_probes,
    compliant=_with_probe({"exec": {"command": ["true"]}, "successThreshold": 1}),
    violating=_with_probe({"exec": {"command": ["true"]}, "successThreshold": 2}),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].livenessProbe.successThreshold",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.containers[0].livenessProbe.successThreshold": 1}),
)


# --------------------------------------------------------------------------------------------------
# validateContainers / validateInitContainers: DNS-1123 label names, unique in the Pod


def _injected(manifest: Doc, template: PodTemplateRef) -> str | None:
    """The container KubeRay adds to the template's Pods: the head's autoscaler sidecar (enableInTreeAutoscaling),
    a worker's wait-gcs-ready init container (DefaultWorkerPodTemplate; with ENABLE_INIT_CONTAINER_INJECTION on)."""
    if template.role == "worker":
        return WAIT_GCS_READY_CONTAINER
    for ref in built_cluster_specs(manifest) if template.role == "head" else ():
        if join(ref.prefix, "headGroupSpec.template") == template.path and ref.spec.get("enableInTreeAutoscaling") is True:
            return AUTOSCALER_CONTAINER
    return None


def _check_container_names(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        seen: set[str] = set()
        injected = _injected(manifest, template)
        for item in template_containers(template):
            name = _judged(item.container.get("name"))
            if name is None:
                continue
            if not is_dns1123_label(name):
                yield Violation(f"container name {name!r} is not a DNS-1123 label (at most 63 lower-case letters, digits and '-'): {_REFUSED} (validateContainers)", f"{item.path}.name")
            elif name in seen:
                yield Violation(f"container name {name!r} is used twice in the pod template (containers and initContainers share the names): {_REFUSED} (validateContainers)", f"{item.path}.name")
            elif name == injected and item.field != "ephemeralContainers":
                yield Violation(f"container name {name!r} is the name of the container KubeRay adds to these Pods, so the Pod has it twice: {_REFUSED} (validateContainers: Duplicate value)", f"{item.path}.name")
            seen.add(name)


declare(
    id="pod-container-name-invalid",
    title="Container name the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-14",),
    enforced_by=("run-time",),
    proof="the API server's Pod validation (ValidatePodCreate) refuses every Pod the operator creates from the template; a worker container named wait-gcs-ready only while the operator injects that init container (ENABLE_INIT_CONTAINER_INJECTION, on by default)",
    rationale="Pod validation (validateContainers, validateInitContainers) requires container names that are DNS-1123 labels, unique across the Pod's containers and init containers, the ones KubeRay adds included (the head's 'autoscaler' sidecar with enableInTreeAutoscaling, a worker's 'wait-gcs-ready' init container); the CRD checks neither.",
    fix="Use lower-case names of letters, digits and '-' (at most 63), one per container of the template.",
    check=_check_container_names,
    compliant=ex.example(lambda d: ex.head_container_of(d).update(name="ray-head")),
    violating=ex.example(lambda d: ex.head_container_of(d).update(name="Ray_Head")),
    violating_path="spec.headGroupSpec.template.spec.containers[0].name",
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].name": "ray-head"}),
)


# --------------------------------------------------------------------------------------------------
# validatePullPolicy, validateRestartPolicy (the Pod), ValidateJob (the submitter's pod template)

_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_RESTART_POLICIES = ("Always", "OnFailure", "Never")


def _check_policies(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        policy = _judged(template.pod_spec.get("restartPolicy"))
        path = f"{template.spec_path}.restartPolicy"
        unknown = _not_known(template.pod_spec, "restartPolicy")
        if template.role == "submitter" and policy not in ("Never", "OnFailure") and not unknown:
            shown = repr(policy) if policy else "unset (Kubernetes defaults it to Always)"
            yield Violation(f"the submitter's restartPolicy is {shown}: the API server refuses the submitter Job (ValidateJob: a Job's Pods restart OnFailure or Never) and the job is never submitted", path)
        elif policy and policy not in _RESTART_POLICIES:
            yield Violation(f"restartPolicy {policy!r} is not one of Always, OnFailure, Never: {_REFUSED} (validateRestartPolicy)", path)
        yield from _pull_policies(_app_containers(template))
    yield from _pull_policies(_autoscaler_sidecars(manifest))


def _pull_policies(containers: Iterable[tuple[str, dict[str, Any]]]) -> Iterator[Violation]:
    for cpath, container in containers:
        pull = _judged(container.get("imagePullPolicy"))
        if pull and pull not in _PULL_POLICIES:
            yield Violation(f"imagePullPolicy {pull!r} is not one of Always, IfNotPresent, Never (case matters): {_REFUSED} (validatePullPolicy)", f"{cpath}.imagePullPolicy")


declare(
    id="pod-policy-invalid",
    title="Pull or restart policy the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-15",),
    enforced_by=("run-time",),
    rationale="Pod validation accepts imagePullPolicy Always, IfNotPresent or Never (validatePullPolicy) and restartPolicy Always, OnFailure or Never (validateRestartPolicy), spelled exactly; a RayJob's submitterPodTemplate becomes a Job's pod template, which ValidateJob refuses unless its restartPolicy is OnFailure or Never (unset means Always). The CRD checks none of it.",
    fix="Spell the policy as Kubernetes does ('IfNotPresent', 'Never'), in the pod templates and autoscalerOptions; give a submitterPodTemplate restartPolicy: Never.",
    check=_check_policies,
    compliant=ex.example(lambda d: ex.head_container_of(d).update(imagePullPolicy="IfNotPresent")),
    violating=ex.example(lambda d: ex.head_container_of(d).update(imagePullPolicy="always")),
    violating_path="spec.headGroupSpec.template.spec.containers[0].imagePullPolicy",
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].imagePullPolicy": "IfNotPresent"}),
)


# --------------------------------------------------------------------------------------------------
# validateContainerCommon: every container names an image


def _with_init_container(container: dict[str, Any]) -> Doc:
    return ex.example(lambda d: ex.worker_of(d)["template"]["spec"].update(initContainers=[container]))


def _check_images_present(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        for path, container in _app_containers(template):
            if "image" not in container:
                name = _judged(container.get("name")) or "?"
                yield Violation(f"container {name!r} has no image: {_REFUSED} (validateContainerCommon); KubeRay fills in no image for a container of the template", f"{path}.image")


declare(
    id="pod-container-image-missing",
    title="Container without an image",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-18",),
    enforced_by=("run-time",),
    rationale="Pod validation (validateContainerCommon) requires an image on every container and init container; the CRD does not, and KubeRay copies the template's containers as they are, so the operator's Pods (or the submitter Job) are refused.",
    fix="Give the container an image, e.g. the group's Ray image 'rayproject/ray:2.52.0'.",
    check=_check_images_present,
    compliant=_with_init_container({"name": "init", "image": "busybox:1.36", "command": ["true"]}),
    violating=_with_init_container({"name": "init", "command": ["true"]}),
    violating_path="spec.workerGroupSpecs[0].template.spec.initContainers[0].image",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.initContainers[0].image": "busybox:1.36"}),
)


# --------------------------------------------------------------------------------------------------
# ValidateService on the head Service: BuildServiceForHeadPod names its ports after the head container's
# (getServicePorts: an unnamed port is "<number>-port") and adds "metrics" 8080 unless a port has that name


def _check_head_service_ports(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        containers = as_list(template.pod_spec.get("containers"))
        if template.role != "head" or not containers or not isinstance(containers[0], dict):
            continue
        ports = as_list(containers[0].get("ports"))
        named: dict[str, tuple[int, int]] = {}  # service port name -> (number, index of the container port)
        for i, port in enumerate(ports):
            number = _int32(as_dict(port).get("containerPort"))
            name = as_dict(port).get("name")
            if number is None or (name is not None and (not isinstance(name, str) or is_unknown(name))):
                break  # not known (or not a port at all): no verdict on the Service
            named[name or f"{number}-port"] = (number, i)
        else:
            if not named:
                continue  # getDefaultPorts: five distinct ports
            named.setdefault(METRICS_PORT_NAME, (METRICS_PORT, -1))
            yield from _duplicate_service_ports(named, f"{template.spec_path}.containers[0].ports")


def _duplicate_service_ports(named: dict[str, tuple[int, int]], path: str) -> Iterator[Violation]:
    by_number: dict[int, list[tuple[str, int]]] = {}
    for name, (number, index) in named.items():
        by_number.setdefault(number, []).append((name, index))
    for number, users in by_number.items():
        if len(users) < 2:
            continue
        names = ", ".join(repr(n) + (" (KubeRay's default metrics port)" if i < 0 else "") for n, i in users)
        index = max(i for _, i in users)
        yield Violation(f"the head Service KubeRay builds from the head container's ports (BuildServiceForHeadPod) gets port {number} twice ({names}): the API server refuses the Service (ValidateService: duplicate port) and the cluster never gets its head Service; name the port 'metrics' if it is Ray's metrics port, or use another number", f"{path}[{index}].containerPort")


def _with_head_ports(extra: dict[str, Any]) -> Doc:
    ports = [{"name": "gcs-server", "containerPort": 6379}, {"name": "dashboard", "containerPort": 8265}, extra]
    return ex.example(lambda d: ex.head_container_of(d).update(ports=ports))


declare(
    id="head-service-port-duplicate",
    title="Head container ports that give the head Service one port twice",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-19",),
    enforced_by=("run-time",),
    rationale="BuildServiceForHeadPod names the head Service's ports after the head container's ports (getServicePorts: an unnamed port becomes '<number>-port') and adds 'metrics' on 8080 unless a port is named 'metrics'; Service validation (ValidateService) refuses one port number twice, so a head port on 8080 under another name (or two names for one number) leaves the cluster without its head Service: workers cannot join, jobs and Serve never start.",
    fix="Name Ray's metrics port 'metrics' (containerPort 8080), and give every other head port its own number.",
    check=_check_head_service_ports,
    compliant=_with_head_ports({"name": "metrics", "containerPort": 8080}),
    violating=_with_head_ports({"name": "app", "containerPort": 8080}),
    violating_path="spec.headGroupSpec.template.spec.containers[0].ports[2].containerPort",
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].ports[2].name": "metrics"}),
)
