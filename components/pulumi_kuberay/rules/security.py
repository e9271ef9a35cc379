"""Workload security on every pod template inside the Ray CRs (head, workers, submitter) and the autoscaler.

Sources: the Kubernetes Pod Security Standards (restricted) and peer policy sets (Kyverno, Polaris, Checkov). Hardening
rules are medium by default and high in production: samples and dev clusters rarely set them, while a
production cluster should. Plain Python, no pulumi.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from . import _examples as ex
from ._engine import KINDS, Context, Severity, Violation, declare
from ._kuberay import image_tag
from ._paths import PodTemplateRef, as_dict, as_list, as_str, cluster_specs, get, join, pod_templates

#: Capabilities the Pod Security Standards "baseline" profile allows to be added.
_BASELINE_CAPS = {
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
}
_SECRET_NAME = re.compile(r"(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL)", re.I)
#: Names that mention a secret but hold a switch or a location, never the secret itself.
_NOT_A_SECRET = re.compile(r"(ENABLE|MODE|PATH|FILE|_DIR|_URL|_NAME)", re.I)
_FLAG_VALUES = {"true", "false", "0", "1", "yes", "no", "on", "off"}


def _hardening(ctx: Context) -> Severity:
    return "high" if ctx.environment == "prod" else "medium"


def _all_containers(template: PodTemplateRef) -> Iterator[tuple[str, dict[str, Any]]]:
    for key in ("initContainers", "containers"):
        for i, container in enumerate(as_list(template.pod_spec.get(key))):
            if isinstance(container, dict):
                yield join(template.spec_path, key, i), container


def _security_contexts(manifest: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(container path, container securityContext, pod securityContext) for every container, autoscaler included."""
    for template in pod_templates(manifest):
        pod_ctx = as_dict(template.pod_spec.get("securityContext"))
        for path, container in _all_containers(template):
            yield path, as_dict(container.get("securityContext")), pod_ctx
    for ref in cluster_specs(manifest):
        if ref.spec.get("enableInTreeAutoscaling") is True:
            head_pod = as_dict(get(ref.spec, "headGroupSpec", "template", "spec", "securityContext"))
            options = as_dict(ref.spec.get("autoscalerOptions"))
            yield ref.path("autoscalerOptions"), as_dict(options.get("securityContext")), head_pod


def _privileged(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for path, sc, _ in _security_contexts(manifest):
        if sc.get("privileged") is True:
            yield Violation(
                "container runs privileged: it has full access to the node",
                join(path, "securityContext", "privileged"),
            )


def _escalation(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for path, sc, _ in _security_contexts(manifest):
        if sc.get("allowPrivilegeEscalation") is not False:
            yield Violation(
                "allowPrivilegeEscalation is not false: a process can gain more privileges than its parent",
                join(path, "securityContext", "allowPrivilegeEscalation"),
                severity=_hardening(ctx),
            )


def _non_root(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for path, sc, pod in _security_contexts(manifest):
        non_root = sc.get("runAsNonRoot", pod.get("runAsNonRoot"))
        user = sc.get("runAsUser", pod.get("runAsUser"))
        if non_root is True or (isinstance(user, int) and not isinstance(user, bool) and user > 0):
            continue
        yield Violation(
            "container may run as root (neither runAsNonRoot: true nor a non-zero runAsUser); Ray images run as uid 1000",
            join(path, "securityContext", "runAsNonRoot"),
            severity=_hardening(ctx),
        )


def _capabilities(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for path, sc, _ in _security_contexts(manifest):
        caps = as_dict(sc.get("capabilities"))
        added = [c for c in as_list(caps.get("add")) if isinstance(c, str)]
        extra = [c for c in added if c.upper().removeprefix("CAP_") not in _BASELINE_CAPS]
        if extra:
            yield Violation(
                f"container adds capabilities beyond the baseline profile: {', '.join(extra)}",
                join(path, "securityContext", "capabilities", "add"),
                severity="high",
            )
        dropped = {str(c).upper() for c in as_list(caps.get("drop"))}
        if "ALL" not in dropped:
            yield Violation(
                "container keeps the default Linux capabilities (capabilities.drop does not contain ALL)",
                join(path, "securityContext", "capabilities", "drop"),
                severity=_hardening(ctx),
            )


def _host_access(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for template in pod_templates(manifest):
        for key in ("hostNetwork", "hostPID", "hostIPC"):
            if template.pod_spec.get(key) is True:
                yield Violation(f"pod shares the node's namespaces ({key}: true)", join(template.spec_path, key))
        for i, volume in enumerate(as_list(template.pod_spec.get("volumes"))):
            if isinstance(volume, dict) and volume.get("hostPath") is not None:
                yield Violation(
                    f"volume {volume.get('name')!r} mounts a path of the node (hostPath)",
                    join(template.spec_path, "volumes", i, "hostPath"),
                )
        for path, container in _all_containers(template):
            for j, port in enumerate(as_list(container.get("ports"))):
                if isinstance(port, dict) and port.get("hostPort") not in (None, 0):
                    yield Violation("container binds a port of the node (hostPort)", join(path, "ports", j, "hostPort"))


def _image_pinned(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for template in pod_templates(manifest):
        for path, container in _all_containers(template):
            image = as_str(container.get("image"))
            if image is None or "$" in image or "@sha256:" in image:
                continue
            tag = image_tag(image)
            if tag is None or tag in ("latest", "nightly") or tag.startswith("nightly"):
                yield Violation(
                    f"image {image!r} is not pinned to a version (tag {tag or 'missing'}): every Pod restart may run different code",
                    join(path, "image"),
                )


def _resources(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for template in pod_templates(manifest):
        if template.role == "submitter":
            continue
        first = get(template.pod_spec, "containers", 0)
        if not isinstance(first, dict):
            continue
        path = join(template.spec_path, "containers", 0)
        resources = as_dict(first.get("resources"))
        limits, requests = as_dict(resources.get("limits")), as_dict(resources.get("requests"))
        missing = []
        if "memory" not in limits:
            missing.append("limits.memory")
        if "cpu" not in limits and "cpu" not in requests:
            missing.append("cpu (request or limit)")
        if missing:
            yield Violation(
                f"Ray container sets no {' and no '.join(missing)}: Ray then sizes itself from the whole node and Pods are evicted or starve their neighbours",
                join(path, "resources"),
            )


def _secret_literals(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for template in pod_templates(manifest):
        for path, container in _all_containers(template):
            for i, entry in enumerate(as_list(container.get("env"))):
                if not isinstance(entry, dict):
                    continue
                name, value = entry.get("name"), entry.get("value")
                if isinstance(name, str) and _SECRET_NAME.search(name) and isinstance(value, str) and value:
                    if value.startswith("$") or value.lower() in _FLAG_VALUES or _NOT_A_SECRET.search(name):
                        continue  # a variable reference, a switch or a location: not a secret value
                    yield Violation(
                        f"env {name} holds a literal value: secrets in the CR are readable by anyone who can read the CR",
                        join(path, "env", i, "value"),
                    )
    for ref in cluster_specs(manifest):
        for key in ("redisPassword", "redisUsername"):
            value = get(ref.spec, "gcsFaultToleranceOptions", key, "value")
            if key == "redisPassword" and isinstance(value, str) and value:
                yield Violation(
                    "the Redis password is written into the CR in plain text",
                    ref.path("gcsFaultToleranceOptions", key, "value"),
                    fix="use redisPassword.valueFrom.secretKeyRef (SecretRef in the Python API)",
                )


_CLUSTER = ex.ray_cluster()
_WORKER_C: list[str | int] = ["spec", "workerGroupSpecs", 0, "template", "spec", "containers", 0]
_WORKER_POD: list[str | int] = ["spec", "workerGroupSpecs", 0, "template", "spec"]


declare(
    id="container-privileged",
    title="No privileged Ray containers",
    severity="high",
    category="security",
    kinds=KINDS,
    rationale="A privileged container is root on the node: one compromised Ray task owns the machine.",
    fix="Remove securityContext.privileged (use specific capabilities or device plugins for GPUs).",
    check=_privileged,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_WORKER_C, "securityContext", "privileged"], True),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].securityContext.privileged",
)
declare(
    id="privilege-escalation-allowed",
    title="allowPrivilegeEscalation is false",
    severity="medium",
    category="security",
    kinds=KINDS,
    rationale="Blocks setuid binaries from raising privileges inside the container (PSS restricted).",
    fix="Set securityContext.allowPrivilegeEscalation: false on every container (and autoscalerOptions).",
    check=_escalation,
    compliant=_CLUSTER,
    violating=ex.remove(_CLUSTER, [*_WORKER_C, "securityContext", "allowPrivilegeEscalation"]),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].securityContext.allowPrivilegeEscalation",
)
declare(
    id="run-as-root",
    title="Containers run as a non-root user",
    severity="medium",
    category="security",
    kinds=KINDS,
    rationale="Ray images run as uid 1000; running as root turns a container escape into node compromise (PSS restricted).",
    fix="Set securityContext.runAsNonRoot: true (pod or container).",
    check=_non_root,
    compliant=_CLUSTER,
    violating=ex.remove(_CLUSTER, [*_WORKER_C, "securityContext", "runAsNonRoot"]),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].securityContext.runAsNonRoot",
)
declare(
    id="capabilities-not-dropped",
    title="Containers drop ALL capabilities and add none beyond baseline",
    severity="medium",
    category="security",
    kinds=KINDS,
    rationale="Linux capabilities such as SYS_ADMIN or SYS_PTRACE widen what a compromised task can do (PSS baseline/restricted).",
    fix="Set securityContext.capabilities.drop: [ALL] and add only what is required.",
    check=_capabilities,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_WORKER_C, "securityContext", "capabilities"], {"add": ["SYS_ADMIN"]}),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].securityContext.capabilities.add",
)
declare(
    id="host-access",
    title="No host namespaces, hostPath volumes or host ports",
    severity="high",
    category="security",
    kinds=KINDS,
    rationale="Host namespaces and paths break the isolation between the Ray Pod and the node (PSS baseline).",
    fix="Remove hostNetwork/hostPID/hostIPC, hostPath volumes and hostPort; use Services and PVCs instead.",
    check=_host_access,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_WORKER_POD, "hostNetwork"], True),
    violating_path="spec.workerGroupSpecs[0].template.spec.hostNetwork",
)
declare(
    id="image-tag-not-pinned",
    title="Images are pinned to a version tag or digest",
    severity="high",
    category="reliability",
    kinds=KINDS,
    rationale="latest / nightly / untagged images change under a running cluster; head and workers can end up on different Ray versions.",
    fix="Use an explicit version tag (rayproject/ray:2.52.0) or a digest.",
    check=_image_pinned,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_WORKER_C, "image"], "rayproject/ray:latest"),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].image",
)
declare(
    id="resources-missing",
    title="Ray containers set CPU and memory",
    severity="high",
    category="reliability",
    kinds=KINDS,
    rationale="Without limits KubeRay cannot tell Ray its size; Ray assumes the whole node and the Pod is evicted or OOM-killed.",
    fix="Set resources.limits.cpu and resources.limits.memory (requests equal) on the Ray container.",
    check=_resources,
    compliant=_CLUSTER,
    violating=ex.remove(_CLUSTER, [*_WORKER_C, "resources"]),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].resources",
)
declare(
    id="secret-in-plain-env",
    title="Secrets are referenced, not written into the CR",
    severity="high",
    category="security",
    kinds=KINDS,
    rationale="Anything in the CR is readable by everyone who can read RayClusters, and lands in Pulumi state and Git.",
    fix="Use env valueFrom.secretKeyRef (SecretRef in the Python API) instead of value.",
    check=_secret_literals,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_WORKER_C, "env"], [{"name": "HF_TOKEN", "value": "hf_abcdef"}]),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].env[0].value",
)
