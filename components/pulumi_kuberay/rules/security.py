"""Workload security on every pod template inside the Ray CRs (head, workers, submitter) and the autoscaler.

Sources: the Kubernetes Pod Security Standards (baseline and restricted, as Pod Security admission checks them) and
peer policy sets (Kyverno, Polaris, Checkov). One finding per pod template and profile lists every gap of every
container; it is critical only where the team says its namespaces enforce that profile (option
``pod_security_profile``), otherwise advice whose weight depends on the environment. Plain Python, no pulumi.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from pulumi_kuberay.kuberay.names import AUTOSCALER_CONTAINER
from pulumi_kuberay.kuberay.paths import (
    PodTemplateRef,
    app_containers,
    as_dict,
    as_list,
    as_str,
    cluster_specs,
    derived,
    get,
    join,
    placeholder_pattern,
    placeholders,
    pod_templates,
    template_containers,
)

from . import _examples as ex
from ._cel import (
    AUTOSCALER_CONTEXT,
    AUTOSCALER_IN_HEAD,
    Cel,
    container_context_baseline,
    container_restricted,
    pod_baseline,
    pod_restricted,
)
from ._engine import KINDS, Context, Severity, Violation, declare
from ._fixed import REMOVE, patch
from ._manifest_readers import image_tag
from ._options import POD_SECURITY_PROFILES, PodSecurityProfile

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
#: Names of a secret: a password or secret anywhere in the name; a token, key or credential as a word of it
#: (HF_TOKEN, OPENAI_API_KEY; not CHUNK_SIZE_TOKENS or MAX_TOKENS, which are counts).
_SECRET_NAME = re.compile(r"PASSWORD|PASSWD|SECRET|(?:^|_)(?:TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)(?:_|$)", re.I)
#: Names that mention a secret but hold a switch or a location, never the secret itself.
_NOT_A_SECRET = re.compile(r"(ENABLE|MODE|PATH|FILE|_DIR|_URL|_NAME)", re.I)
_FLAG_VALUES = {"true", "false", "0", "1", "yes", "no", "on", "off"}
_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


def _secret_value(value: str) -> bool:
    """A value that can be a secret: not a variable reference, a switch, a number, a file location
    (GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/key.json names where the secret is) or a URL without credentials."""
    text = value.strip()
    if not text or text.startswith("$") or text.lower() in _FLAG_VALUES or _NUMBER.fullmatch(text):
        return False
    if text.startswith(("/", "./", "../", "~/")) or placeholders(text):
        return False  # a file location, or a template's placeholder (PLACEHOLDER_HF_TOKEN, <your-token>)
    scheme, sep, rest = text.partition("://")
    return not (sep and scheme.isalpha() and "@" not in rest.split("/", 1)[0])


#: (path, container) of the init and app containers (ephemeral ones are added for debugging, later), kept per check.
_all_containers = app_containers


# --------------------------------------------------------------------------------------------------
# Pod Security Standards (https://kubernetes.io/docs/concepts/security/pod-security-standards/, the checks of
# k8s.io/pod-security-admission policy/check_*.go): one finding per pod template and profile, listing every gap.

#: The profile a team's namespaces enforce (Pod Security admission ``enforce`` label), per environment, when
#: the ``pod_security_profile`` option does not say: Kubernetes enforces nothing on a namespace without the
#: label (EKS, GKE Standard and AKS leave them unlabelled), so no gap is assumed to block Pods; the environment
#: only sets how loud the advice is (see _advice).
DEFAULT_ENFORCED: dict[str | None, PodSecurityProfile] = {None: "privileged", "dev": "privileged", "staging": "privileged",
                                           "prod": "privileged"}  # fmt: skip
_RESTRICTED_VOLUMES = frozenset(
    {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret",
     "image"}
)  # fmt: skip
_SAFE_SYSCTLS = frozenset(
    {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
     "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
     "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
     "net.ipv4.tcp_keepalive_probes"}
)  # fmt: skip
_SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"})


def _pod_containers(manifest: dict[str, Any], template: PodTemplateRef) -> tuple[tuple[str, dict[str, Any]], ...]:
    """(name, container) for every container the Pods of this template run, KubeRay's autoscaler included (found
    once per template for both profiles)."""
    return derived(template, "security.pod_containers", lambda t: tuple(_walk_pod_containers(manifest, t)))


def _walk_pod_containers(manifest: dict[str, Any], template: PodTemplateRef) -> Iterator[tuple[str, dict[str, Any]]]:
    for item in template_containers(template):
        yield str(item.container.get("name") or f"{item.field}[{item.index}]"), item.container
    if template.role == "head":
        for ref in cluster_specs(manifest):
            if template.path.startswith(ref.path("headGroupSpec")) and ref.spec.get("enableInTreeAutoscaling") is True:
                options = as_dict(ref.spec.get("autoscalerOptions"))
                yield AUTOSCALER_CONTAINER, {"securityContext": options.get("securityContext")}


def _baseline_gaps(manifest: dict[str, Any], template: PodTemplateRef) -> list[str]:
    # A key most pods and containers do not set is looked up once, not walked into: this and _restricted_gaps
    # run on every pod template of every document (they were the two costliest rules).
    pod = template.pod_spec
    pod_ctx = as_dict(pod.get("securityContext"))
    gaps = [f"{key}: true" for key in ("hostNetwork", "hostPID", "hostIPC") if pod.get(key) is True]
    volumes = pod.get("volumes")
    if volumes:
        gaps += [
            f"volume {v.get('name')!r} is a hostPath"
            for v in as_list(volumes)
            if isinstance(v, dict) and v.get("hostPath") is not None
        ]
    if pod_ctx:
        unsafe = [str(s.get("name")) for s in as_list(pod_ctx.get("sysctls")) if isinstance(s, dict)
                  and s.get("name") not in _SAFE_SYSCTLS]  # fmt: skip
        if unsafe:
            gaps.append(f"unsafe sysctls {', '.join(unsafe)}")
        gaps += _context_gaps(pod_ctx)
    for name, container in _pod_containers(manifest, template):
        sc = as_dict(container.get("securityContext"))
        mine: list[str] = []
        if sc.get("privileged") is True:
            mine.append("privileged: true")
        caps = sc.get("capabilities")
        if caps:
            added = [str(c) for c in as_list(as_dict(caps).get("add"))]
            extra = [c for c in added if c.upper().removeprefix("CAP_") not in _BASELINE_CAPS]
            if extra:
                mine.append(f"adds capabilities {', '.join(extra)}")
        ports = container.get("ports")
        if ports and any(isinstance(p, dict) and p.get("hostPort") not in (None, 0) for p in as_list(ports)):
            mine.append("binds a hostPort")
        if sc:
            if sc.get("procMount") not in (None, "Default"):
                mine.append(f"procMount {sc.get('procMount')}")
            mine += _context_gaps(sc)
        if mine:
            gaps.append(f"container {name}: {', '.join(mine)}")
    return gaps


def _context_gaps(sc: dict[str, Any]) -> list[str]:
    """Baseline's seccomp / SELinux / AppArmor / hostProcess checks on one securityContext."""
    gaps: list[str] = []
    if as_dict(sc.get("seccompProfile")).get("type") == "Unconfined":
        gaps.append("seccompProfile Unconfined")
    if as_dict(sc.get("appArmorProfile")).get("type") == "Unconfined":
        gaps.append("appArmorProfile Unconfined")
    selinux = as_dict(sc.get("seLinuxOptions"))
    if selinux.get("type", "") not in _SELINUX_TYPES or selinux.get("user") or selinux.get("role"):
        gaps.append("seLinuxOptions beyond container_t")
    if as_dict(sc.get("windowsOptions")).get("hostProcess") is True:
        gaps.append("windowsOptions.hostProcess")
    return gaps


def _restricted_gaps(manifest: dict[str, Any], template: PodTemplateRef) -> list[str]:
    pod = template.pod_spec
    pod_ctx = as_dict(pod.get("securityContext"))
    gaps: list[str] = []
    volumes = pod.get("volumes")
    if volumes:
        gaps += [
            f"volume {v.get('name')!r} of type {next((k for k in v if k != 'name'), '?')}"
            for v in as_list(volumes)
            if isinstance(v, dict) and v.get("hostPath") is None and not (set(v) - {"name"}) <= _RESTRICTED_VOLUMES
        ]
    if pod_ctx.get("runAsUser") == 0:
        gaps.append("pod runAsUser: 0")
    pod_non_root = pod_ctx.get("runAsNonRoot")
    pod_user = pod_ctx.get("runAsUser")
    pod_seccomp = as_dict(pod_ctx.get("seccompProfile")).get("type")
    unset: str | None = None  # the gaps of a container without a securityContext (most), listed once
    for name, container in _pod_containers(manifest, template):
        sc = as_dict(container.get("securityContext"))
        if not sc and unset is not None:
            gaps.append(f"container {name}: {unset}")
            continue
        mine: list[str] = []
        if sc.get("allowPrivilegeEscalation") is not False:
            mine.append("allowPrivilegeEscalation is not false")
        non_root = sc.get("runAsNonRoot", pod_non_root)
        user = sc.get("runAsUser", pod_user)
        if user == 0:
            mine.append("runAsUser: 0")
        elif non_root is not True:
            mine.append("runAsNonRoot is not true")
        seccomp = as_dict(sc.get("seccompProfile")).get("type") or pod_seccomp
        if seccomp not in ("RuntimeDefault", "Localhost"):
            mine.append("seccompProfile is not RuntimeDefault or Localhost")
        caps = as_dict(sc.get("capabilities"))
        if "ALL" not in {str(c).upper() for c in as_list(caps.get("drop"))}:
            mine.append("capabilities.drop lacks ALL")
        added = [str(c) for c in as_list(caps.get("add")) if str(c).upper().removeprefix("CAP_") != "NET_BIND_SERVICE"]
        if added:
            mine.append(f"adds {', '.join(added)} (only NET_BIND_SERVICE is allowed)")
        listed = ", ".join(mine)  # (never empty without a securityContext: allowPrivilegeEscalation is not false)
        if not sc:
            unset = listed
        if mine:
            gaps.append(f"container {name}: {listed}")
    return gaps


def enforced_profile(ctx: Context) -> PodSecurityProfile:
    """The Pod Security profile the team's namespaces enforce: the ``pod_security_profile`` option, else the
    environment's default (:data:`DEFAULT_ENFORCED`)."""
    return ctx.options.pod_security_profile or DEFAULT_ENFORCED.get(ctx.environment, "privileged")


_ENFORCED = "critical: the namespace enforces this profile"


def _advice(profile: PodSecurityProfile, ctx: Context) -> Severity:
    """How loud a gap is when the namespace does not enforce that profile."""
    if profile == "baseline":
        # Every baseline gap is a known privilege escalation (a privileged container, host namespaces, hostPath,
        # added capabilities): kube-linter, Polaris and kube-score report them as errors in any environment.
        return "high"
    return "medium" if ctx.environment == "prod" else "low"


def _where(template: PodTemplateRef) -> str:
    if template.role == "head":
        return "head pod template"
    if template.role == "worker":
        return f"worker group {template.group_name!r} pod template"
    return "submitter pod template"


def _pss(profile: PodSecurityProfile) -> Callable[[dict[str, Any], Context], Iterator[Violation]]:
    gaps_of = _baseline_gaps if profile == "baseline" else _restricted_gaps

    def check(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
        enforced = enforced_profile(ctx)
        blocked = POD_SECURITY_PROFILES.index(enforced) >= POD_SECURITY_PROFILES.index(profile)
        for template in pod_templates(manifest):
            gaps = gaps_of(manifest, template)
            if not gaps:
                continue
            listed = "; ".join(gaps)
            if blocked:
                yield Violation(
                    f"{_where(template)} does not meet the Pod Security Standard {profile!r} that the namespace enforces ({listed}): Pod Security admission rejects its Pods, so KubeRay cannot create them",
                    template.spec_path,
                    severity="critical",
                    severity_why=_ENFORCED,
                )
            else:
                yield Violation(
                    f"{_where(template)} does not meet the Pod Security Standard {profile!r}: {listed}",
                    template.spec_path,
                    severity=_advice(profile, ctx),
                    severity_why="advice while the namespace does not enforce this profile: low, medium in prod",
                )

    return check


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
                    severity="high" if ctx.environment == "prod" else "medium",
                    severity_why="high in prod, medium elsewhere",
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
                severity="high" if ctx.environment == "prod" else "medium",
                severity_why="high in prod, medium elsewhere",
            )


def _secret_literals(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for template in pod_templates(manifest):
        for path, container in _all_containers(template):
            for i, entry in enumerate(as_list(container.get("env"))):
                if not isinstance(entry, dict):
                    continue
                name, value = entry.get("name"), entry.get("value")
                if isinstance(name, str) and _SECRET_NAME.search(name) and isinstance(value, str) and value:
                    if not _secret_value(value) or _NOT_A_SECRET.search(name):
                        continue  # a variable reference, a switch, a count or a location: not a secret value
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


declare(
    id="pod-security-baseline",
    title="Pod templates meet the Pod Security Standard 'baseline'",
    severity="high",
    category="security",
    kinds=KINDS,
    rationale="Baseline blocks the known privilege escalations: privileged containers, host namespaces, hostPath volumes and host ports, capabilities beyond the default set, unconfined seccomp/AppArmor, custom SELinux types, unsafe sysctls. One finding per pod template lists every gap of every container (KubeRay's autoscaler sidecar included). Critical where the namespace enforces baseline or restricted (option pod_security_profile: Pod Security admission then rejects the Pods), else high in every environment (kube-linter, Polaris and kube-score report these as errors). The default assumes no enforcement (Kubernetes enforces nothing on an unlabelled namespace). The policy pack enforces this rule at its declared severity (high): a team that enforces the profile sets it mandatory.",
    fix="Remove privileged, host namespaces, hostPath and hostPort; add no capability beyond the default set (use device plugins for GPUs, PVCs for data).",
    check=_pss("baseline"),
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_WORKER_C, "securityContext", "privileged"], True),
    violating_path="spec.workerGroupSpecs[0].template.spec",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.containers[0].securityContext.privileged": REMOVE}),
    cel=Cel(
        pod_baseline(sorted(_SAFE_SYSCTLS), sorted(_BASELINE_CAPS), sorted(_SELINUX_TYPES)),
        over="template", path="spec",
        message="pod template does not meet the Pod Security Standard 'baseline'",
        also=(
            Cel(
                f"{AUTOSCALER_IN_HEAD} || !has(c.autoscalerOptions) || !has({AUTOSCALER_CONTEXT}) || ((!has({AUTOSCALER_CONTEXT}) || ({container_context_baseline(AUTOSCALER_CONTEXT, sorted(_BASELINE_CAPS), sorted(_SELINUX_TYPES))})))",
                over="cluster", path="autoscalerOptions.securityContext",
            ),
        ),
    ),
    also=(_ENFORCED,),
)
declare(
    id="pod-security-restricted",
    title="Pod templates meet the Pod Security Standard 'restricted'",
    severity="medium",
    category="security",
    kinds=KINDS,
    rationale="Restricted is the hardened profile: allowPrivilegeEscalation: false, runAsNonRoot, seccomp RuntimeDefault, capabilities drop ALL, only ephemeral/config volume types. Ray images run as uid 1000 and need none of the rest. One finding per pod template lists every gap; critical where the namespace enforces restricted (option pod_security_profile), else medium in prod and low elsewhere. The policy pack enforces this rule at its declared severity (medium, advisory): a team that enforces restricted sets it mandatory.",
    fix="Set on every container (and autoscalerOptions.securityContext): allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities.drop: [ALL], seccompProfile.type: RuntimeDefault.",
    check=_pss("restricted"),
    compliant=_CLUSTER,
    violating=ex.remove(_CLUSTER, [*_WORKER_C, "securityContext", "runAsNonRoot"]),
    violating_path="spec.workerGroupSpecs[0].template.spec",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.containers[0].securityContext.runAsNonRoot": True}),
    cel=Cel(
        pod_restricted(sorted(_RESTRICTED_VOLUMES)),
        over="template",
        path="spec",
        message="pod template does not meet the Pod Security Standard 'restricted'",
        also=(
            Cel(
                f"{AUTOSCALER_IN_HEAD} || (has(c.autoscalerOptions) && {container_restricted(AUTOSCALER_CONTEXT, 'c.headGroupSpec.template.spec')})",
                over="cluster",
                path="autoscalerOptions.securityContext",
                message="KubeRay's autoscaler container does not meet the Pod Security Standard 'restricted'",
            ),
        ),
    ),
    also=(_ENFORCED,),
)
declare(
    id="image-tag-not-pinned",
    title="Images are pinned to a version tag or digest",
    severity="high",
    category="reliability",
    kinds=KINDS,
    rationale="latest / nightly / untagged images change under a running cluster; head and workers can end up on different Ray versions. High in prod, medium elsewhere (vendor blueprints and tutorials use :latest for demos).",
    fix="Use an explicit version tag (rayproject/ray:2.52.0) or a digest.",
    check=_image_pinned,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_WORKER_C, "image"], "rayproject/ray:latest"),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].image",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.containers[0].image": "rayproject/ray:2.52.0"}),
    cel=Cel(
        # The image's last path segment (name:tag, before any @digest) and its tag, each bound once (one-element lists).
        "!has(k.image) || k.image.contains('$') || k.image.contains('@sha256:') || [k.image.split('@', 2)[0]].all(name, [name.substring(name.lastIndexOf('/') + 1)].all(last, last.contains(':') && [last.split(':', 2)[1]].all(tag, !(tag in ['latest', 'nightly']) && !tag.startsWith('nightly'))))",
        over="container",
        path="image",
        message="image is not pinned to a version (tag latest, nightly or none)",
    ),
)
declare(
    id="resources-missing",
    title="Ray containers set CPU and memory",
    severity="high",
    category="reliability",
    kinds=KINDS,
    rationale="Without limits KubeRay cannot tell Ray its size; Ray assumes the whole node and the Pod is evicted or OOM-killed. High in prod, medium elsewhere.",
    fix="Set resources.limits.cpu and resources.limits.memory (requests equal) on the Ray container.",
    check=_resources,
    compliant=_CLUSTER,
    violating=ex.remove(_CLUSTER, [*_WORKER_C, "resources"]),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].resources",
    fixed=patch(
        {
            "spec.workerGroupSpecs[0].template.spec.containers[0].resources": {
                "limits": {"cpu": "4", "memory": "16Gi"},
                "requests": {"cpu": "4", "memory": "16Gi"},
            },
        }
    ),
    cel=Cel(
        "!has(g.template) || !has(g.template.spec) || !has(g.template.spec.containers) || (size(g.template.spec.containers) == 0 || (has(g.template.spec.containers[0].resources) && has(g.template.spec.containers[0].resources.limits) && 'memory' in g.template.spec.containers[0].resources.limits && ('cpu' in g.template.spec.containers[0].resources.limits || (has(g.template.spec.containers[0].resources.requests) && 'cpu' in g.template.spec.containers[0].resources.requests))))",
        over="group",
        path="template.spec.containers[0].resources",
        message="Ray container sets no memory limit or no CPU",
    ),
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
    fixed=patch(
        {
            "spec.workerGroupSpecs[0].template.spec.containers[0].env[0]": {
                "name": "HF_TOKEN",
                "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}},
            }
        }
    ),
    cel=Cel(
        f"!has(k.env) || k.env.all(e, !(has(e.name) && e.name.matches({json.dumps('(?i)' + _SECRET_NAME.pattern)}) && has(e.value) && [e.value.trim()].all(v, v != '' && !v.startsWith('$') && !(v.lowerAscii() in ['true', 'false', '0', '1', 'yes', 'no', 'on', 'off']) && !v.matches({json.dumps('^(?:' + _NUMBER.pattern + ')$')}) && !v.startsWith('/') && !v.startsWith('./') && !v.startsWith('../') && !v.startsWith('~/') && !v.matches('^[A-Za-z]+://[^/@]*(/.*)?$') && !v.matches({json.dumps(placeholder_pattern())})) && !e.name.matches('(?i)(ENABLE|MODE|PATH|FILE|_DIR|_URL|_NAME)')))",
        over="container", path="env[].value",
        message="a secret is written into the CR as a literal env value",
        also=(
            Cel(
                "!has(c.gcsFaultToleranceOptions) || !has(c.gcsFaultToleranceOptions.redisPassword) || !has(c.gcsFaultToleranceOptions.redisPassword.value) || c.gcsFaultToleranceOptions.redisPassword.value == ''",
                over="cluster", path="gcsFaultToleranceOptions.redisPassword.value",
            ),
        ),
    ),
)
