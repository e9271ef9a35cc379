"""What the API server's Pod validation refuses in the newer fields of a pod template and its containers: the OS
and Windows options, host users and hostnameOverride, pod-level resources and resource claims, container restart
rules, resize policies, sleep hooks, HTTP header names, downward API divisors, fileKeyRef env, volume mounts and
devices, procMount, hugepages. A helper of ``pod-spec-value-invalid`` (pod_spec.py): each problem is (path suffix
under the pod spec, what is wrong, with the Kubernetes function). Only fields a default v1.36 API server keeps are
judged (a gate off by default drops its field before validation: ``dropDisabledFields``). Most templates have none
of these fields: each check returns at once when its field is absent. Plain Python, no pulumi.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from pulumi_kuberay.kuberay.kubernetes import (
    BYTE_DIVISORS,
    CONTAINER_RESTART_EXIT_CODES_MAX,
    CONTAINER_RESTART_RULE_ACTIONS,
    CONTAINER_RESTART_RULE_OPERATORS,
    CONTAINER_RESTART_RULES_MAX,
    CPU_DIVISORS,
    GMSA_CREDENTIAL_SPEC_MAX,
    HOSTNAME_OVERRIDE_MAX,
    POD_LEVEL_RESOURCES,
    PROC_MOUNT_TYPES,
    RECURSIVE_READ_ONLY,
    RESIZE_POLICIES,
    RESIZE_RESOURCES,
    RUN_AS_USER_NAME_DOMAIN_MAX,
    RUN_AS_USER_NAME_USER_MAX,
    STANDARD_CONTAINER_RESOURCES,
    WINDOWS_FORBIDDEN_CONTAINER_CONTEXT,
    WINDOWS_FORBIDDEN_POD_CONTEXT,
)
from pulumi_kuberay.kuberay.names import RAY_LOGS_VOLUME, ROCKSDB_VOLUME, SHARED_MEMORY_VOLUME, TLS_VOLUME, TOKEN_VOLUME
from pulumi_kuberay.kuberay.paths import as_dict, as_list, is_unknown, join
from pulumi_kuberay.kuberay.paths import as_str as _text  # the string to judge (not one known only at apply)
from pulumi_kuberay.kuberay.quantity import QuantityError, amount, parse

from ._manifest_readers import built_cluster_specs, is_dns1123_label, is_dns1123_subdomain, qualified_name_error

Doc = dict[str, Any]
Problem = tuple[str, str]  # (path suffix under the pod spec, what is wrong, with the Kubernetes function)

_GRACE_DEFAULT = 30  # the API server defaults terminationGracePeriodSeconds before validation (SetDefaults_PodSpec)
_HTTP_HEADER_NAME = re.compile(r"[-A-Za-z0-9]+")  # IsHTTPHeaderName
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NETBIOS = re.compile(r'[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}')
_DNS_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_WINDOWS_DOMAIN = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")
_USER_CHARS = re.compile(r'["/\\:;|=,+*?<>@\[\]]')
_DOTS_SPACES = re.compile(r"[. ]+")
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_HOOKS = ("postStart", "preStop")
_HANDLER_KEYS = (*_PROBES, "lifecycle")
_VOLUME_SOURCES_FOR_BLOCK = ("persistentVolumeClaim", "ephemeral")  # isMatchedDevice
_CONTAINER_LISTS = ("initContainers", "containers")
_RESTART_CONTAINER = RESIZE_POLICIES[1]  # the resize policy that restarts the container
_KUBERAY_VOLUMES = frozenset({RAY_LOGS_VOLUME, SHARED_MEMORY_VOLUME, TLS_VOLUME, TOKEN_VOLUME, ROCKSDB_VOLUME})


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


Containers = tuple[tuple[str, Doc, bool], ...]  # (suffix, container, is an init container)


def _containers(spec: Doc) -> Containers:
    """The init and app containers, walked once per template."""
    return tuple(
        (f"{field}[{i}]", container, field == "initContainers")
        for field in _CONTAINER_LISTS
        for i, container in enumerate(as_list(spec.get(field)))
        if isinstance(container, dict)
    )


def _sidecar(container: Doc) -> bool:
    return container.get("restartPolicy") == "Always"


# --------------------------------------------------------------------------------------------------------- the Pod
def _os_problems(spec: Doc, context: Doc, containers: Containers) -> Iterator[Problem]:
    """validateLinux, validateWindows (and validatePodResources' Windows refusal)."""
    os_name = _text(as_dict(spec.get("os")).get("name"))
    if os_name == "linux":
        if context.get("windowsOptions") is not None:
            yield "securityContext.windowsOptions", "windowsOptions cannot be set for a Pod with os.name linux (validateLinux)"
        for at, container, _ in containers:
            if as_dict(container.get("securityContext")).get("windowsOptions") is not None:
                yield f"{at}.securityContext.windowsOptions", "windowsOptions cannot be set for a Pod with os.name linux (validateLinux)"
    if os_name == "windows":
        yield from _windows_problems(spec, context, containers)


def _windows_problems(spec: Doc, context: Doc, containers: Containers) -> Iterator[Problem]:
    why = "cannot be set for a Pod with os.name windows (validateWindows; Ray publishes no Windows image: drop spec.os or set it to linux)"
    for key in WINDOWS_FORBIDDEN_POD_CONTEXT:
        if context.get(key) is not None:
            yield f"securityContext.{key}", f"securityContext.{key} {why}"
    for key in ("sysctls", "supplementalGroups"):
        if as_list(context.get(key)):
            yield f"securityContext.{key}", f"securityContext.{key} {why}"
    for key in ("hostPID", "hostIPC"):
        if spec.get(key) is True:
            yield key, f"{key} {why}"
    for key in ("hostUsers", "shareProcessNamespace", "resources"):
        if spec.get(key) is not None:
            yield key, f"{key} {why}"
    for at, container, _ in containers:
        container_context = as_dict(container.get("securityContext"))
        for key in WINDOWS_FORBIDDEN_CONTAINER_CONTEXT:
            if container_context.get(key) is not None:
                yield f"{at}.securityContext.{key}", f"securityContext.{key} {why}"


def _run_as_user_name_error(name: str) -> str | None:
    """validateWindowsSecurityContextOptions' runAsUserName: [DOMAIN\\]USER."""
    if not name:
        return "cannot be empty"
    if _CONTROL.search(name):
        return "cannot contain control characters"
    parts = name.split("\\")
    if len(parts) > 2:
        return "cannot contain more than one backslash"
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    if len(domain) >= RUN_AS_USER_NAME_DOMAIN_MAX:
        return f"its domain must be under {RUN_AS_USER_NAME_DOMAIN_MAX} characters"
    if len(parts) == 2 and not (_NETBIOS.fullmatch(domain) or _WINDOWS_DOMAIN.fullmatch(domain)):
        return "its domain is neither a NetBIOS nor a DNS name"
    if not user:
        return "its user cannot be empty"
    if len(user) > RUN_AS_USER_NAME_USER_MAX:
        return f"its user must be at most {RUN_AS_USER_NAME_USER_MAX} characters"
    if _DOTS_SPACES.fullmatch(user):
        return "its user cannot be only periods or spaces"
    if _USER_CHARS.search(user):
        return 'its user cannot contain any of "/\\:;|=,+*?<>@[]'
    return None


def _windows_options_problems(at: str, options: Any) -> Iterator[Problem]:
    """validateWindowsSecurityContextOptions (the Pod's and each container's windowsOptions)."""
    if not isinstance(options, dict):
        return
    at = f"{at}.windowsOptions"
    name = _text(options.get("gmsaCredentialSpecName"))
    if name is not None and not is_dns1123_subdomain(name):
        yield f"{at}.gmsaCredentialSpecName", f"gmsaCredentialSpecName {name!r} is not a DNS-1123 subdomain (a GMSACredentialSpec name) (validateWindowsSecurityContextOptions)"
    spec = _text(options.get("gmsaCredentialSpec"))
    if spec is not None and not 0 < len(spec) <= GMSA_CREDENTIAL_SPEC_MAX:
        yield f"{at}.gmsaCredentialSpec", f"gmsaCredentialSpec must be a non-empty string under {GMSA_CREDENTIAL_SPEC_MAX // 1024} KiB (validateWindowsSecurityContextOptions)"
    user = _text(options.get("runAsUserName"))
    error = _run_as_user_name_error(user) if user is not None else None
    if error:
        yield f"{at}.runAsUserName", f"runAsUserName {user!r}: {error} (validateWindowsSecurityContextOptions)"


def _host_process(options: Any) -> bool | None:
    value = as_dict(options).get("hostProcess")
    return value if isinstance(value, bool) else None


def _host_process_problems(spec: Doc, context: Doc, containers: Containers) -> Iterator[Problem]:
    """validateWindowsHostProcessPod, on the template's own containers (the ones KubeRay adds only add refusals)."""
    pod = _host_process(context.get("windowsOptions"))
    count = host = 0
    for at, container, _ in containers:
        count += 1
        own = _host_process(as_dict(container.get("securityContext")).get("windowsOptions"))
        if pod is not None and own is not None and pod != own:
            yield f"{at}.securityContext.windowsOptions.hostProcess", f"hostProcess {own} differs from the Pod's {pod}: both must be identical when both are set (validateWindowsHostProcessPod)"
        host += own is True or (own is None and pod is True)
    if not host:
        return
    if host != count:
        yield "securityContext.windowsOptions.hostProcess", "if any container is a hostProcess container, every container must be one (set hostProcess on the Pod's securityContext.windowsOptions) (validateWindowsHostProcessPod)"
    if spec.get("hostNetwork") is not True:
        yield "hostNetwork", "a Pod with hostProcess containers needs hostNetwork true (validateWindowsHostProcessPod)"


def _host_users_problems(spec: Doc, containers: Containers) -> Iterator[Problem]:
    """validateHostUsers: hostUsers false (a user namespace) forbids the host's PID and IPC namespaces and
    volumeDevices; hostNetwork too unless the API server runs the UserNamespacesHostNetworkSupport gate (alpha, off
    by default at 1.36): pod-field-needs-feature-gate says so, high, for only the cluster knows."""
    if spec.get("hostUsers") is not False:
        return
    for key in ("hostPID", "hostIPC"):
        if spec.get(key) is True:
            yield key, f"{key} cannot be true when hostUsers is false (validateHostUsers)"
    for at, container, _ in containers:
        if as_list(container.get("volumeDevices")):
            yield f"{at}.volumeDevices", "volumeDevices cannot be used when hostUsers is false (validateHostUsers)"


def _hostname_problems(spec: Doc) -> Iterator[Problem]:
    """validatePodHostName (HostnameOverride is on by default at 1.36)."""
    name = spec.get("hostnameOverride")
    if name is None or _text(name) is None:
        return
    if spec.get("setHostnameAsFQDN") is True:
        yield "hostnameOverride", "hostnameOverride cannot be set with setHostnameAsFQDN true (validatePodHostName)"
    if spec.get("hostNetwork") is True:
        yield "hostnameOverride", "hostnameOverride cannot be set with hostNetwork true (validatePodHostName)"
    if len(name) > HOSTNAME_OVERRIDE_MAX or not is_dns1123_subdomain(name):
        yield "hostnameOverride", f"hostnameOverride {name!r} is not a DNS-1123 subdomain of at most {HOSTNAME_OVERRIDE_MAX} characters (validatePodHostName)"


# ---------------------------------------------------------------------------------------- resources and claims
_HUGEPAGES = "hugepages-"  # the prefix of a hugepages resource (hugepages-<size>)


def _is_hugepages(name: str) -> bool:
    return name.startswith(_HUGEPAGES)


def _hugepage_problem(at: str, name: str, value: Any) -> Iterator[Problem]:
    """validateResourceQuantityHugePageValue: a whole number of pages (Quantity.Value() rounds up)."""
    try:
        page = parse(name.removeprefix("hugepages-")).value
    except QuantityError:
        return
    number = amount(value)
    if page <= 0 or page.denominator != 1 or number is None or math.ceil(number) % page == 0:
        return
    yield at, f"{name} {value!r} is not a whole number of {name.removeprefix('hugepages-')} pages (validateResourceQuantityHugePageValue)"


def _amounts(resources: Doc, key: str) -> dict[str, Fraction]:
    values = as_dict(resources.get(key))
    found: dict[str, Fraction] = {}
    for name, value in values.items():
        number = amount(value) if isinstance(name, str) and not is_unknown(value) else None
        if number is not None:
            found[name] = number
    return found


def _pod_resources_problems(spec: Doc, containers: Containers) -> Iterator[Problem]:
    """validatePodResources, validatePodResourceName, validatePodResourceConsistency (PodLevelResources is on by
    default at 1.36). The sums are of the template's own containers' requests (KubeRay's sidecars only add)."""
    resources = spec.get("resources")
    if not isinstance(resources, dict) or _text(as_dict(spec.get("os")).get("name")) == "windows":
        return  # a Windows Pod's resources: validateWindows' refusal (_os_problems)
    if resources.get("claims") is not None:
        yield "resources.claims", "claims cannot be set in the Pod's own resources, only in a container's (validatePodResources)"
    for key in ("limits", "requests"):
        for name in as_dict(resources.get(key)):
            if isinstance(name, str) and name not in POD_LEVEL_RESOURCES and not _is_hugepages(name):
                yield f"resources.{key}[{name}]", f"resource {name!r} cannot be set in the Pod's own resources: only cpu, memory and hugepages-<size> (validatePodResourceName)"
    limits, requests = _amounts(resources, "limits"), _amounts(resources, "requests")
    for name, request in requests.items():
        if name in limits and request > limits[name]:
            yield f"resources.requests[{name}]", f"the Pod's {name} request is above its limit (validateResourceRequirements)"
    totals: dict[str, Fraction] = {}
    for at, container, init in containers:
        own = as_dict(container.get("resources"))
        if not init:
            for name, value in _amounts(own, "requests").items():
                totals[name] = totals.get(name, Fraction(0)) + value
            for name, value in _amounts(own, "limits").items():
                if name in limits and value > limits[name]:
                    yield f"{at}.resources.limits[{name}]", f"the container's {name} limit is above the Pod's own limit (validatePodResourceConsistency)"
    for name, total in totals.items():
        if name in requests and total > requests[name]:
            yield f"resources.requests[{name}]", f"the Pod's {name} request is below the sum of its containers' requests (validatePodResourceConsistency)"


def _resource_name_problem(name: str) -> str | None:
    """validateContainerResourceName: a standard resource, hugepages-<size>, or a domain-qualified name."""
    if "/" not in name:
        if name in STANDARD_CONTAINER_RESOURCES or _is_hugepages(name):
            return None
        return f"resource name {name!r} is not a standard container resource (cpu, memory, ephemeral-storage, hugepages-<size>) nor a domain-qualified one"
    error = qualified_name_error(name)
    return f"resource name {name!r}: {error}" if error else None


def _overhead_problems(spec: Doc) -> Iterator[Problem]:
    """validateOverhead: the overhead as a container's limits (names, amounts not negative). The RuntimeClass
    admission sets it from the RuntimeClass and refuses one that differs: a template has no reason to set it."""
    overhead = spec.get("overhead")
    if not isinstance(overhead, dict) or is_unknown(overhead):
        return
    for name, value in overhead.items():
        problem = _resource_name_problem(name) if isinstance(name, str) else None
        number = amount(value) if not is_unknown(value) else None
        if problem:
            yield f"overhead[{name}]", f"overhead {problem} (validateOverhead)"
        elif number is not None and number < 0:
            yield f"overhead[{name}]", f"overhead {name} {value!r} is negative (validateOverhead)"


def _claim_problems(spec: Doc, containers: Containers) -> Iterator[Problem]:
    """validatePodResourceClaim, and validateResourceClaimNames on each container (DynamicResourceAllocation is
    GA at 1.36)."""
    names: set[str] = set()
    claims = spec.get("resourceClaims")
    complete = not is_unknown(claims) or claims is None  # every claim's name is known: a missing one is an error
    for i, claim in enumerate(as_list(claims)):
        claim, at = as_dict(claim), f"resourceClaims[{i}]"
        name = _text(claim.get("name"))
        complete = complete and (name is not None or claim.get("name") is None)
        if name is not None:
            if name in names:
                yield f"{at}.name", f"resource claim {name!r} is listed twice (validatePodResourceClaim)"
            elif not is_dns1123_label(name):
                yield f"{at}.name", f"resource claim name {name!r} is not a DNS-1123 label (validatePodResourceClaim)"
            names.add(name)
        chosen = [k for k in ("resourceClaimName", "resourceClaimTemplateName") if claim.get(k) is not None]
        if len(chosen) != 1 and not is_unknown(claim):
            yield at, "a resource claim names exactly one of resourceClaimName and resourceClaimTemplateName (validatePodResourceClaim)"
        for key in chosen:
            value = _text(claim.get(key))
            if value is not None and not is_dns1123_subdomain(value):
                yield f"{at}.{key}", f"{key} {value!r} is not a DNS-1123 subdomain (an object name) (validatePodResourceClaim)"
    for at, container, _ in containers:
        seen: set[str] = set()
        for j, claim in enumerate(as_list(as_dict(container.get("resources")).get("claims"))):
            name, request = _text(as_dict(claim).get("name")), _text(as_dict(claim).get("request")) or ""
            if name is None:
                continue
            key = f"{name}/{request}" if request else name
            if name in seen or key in seen:
                yield f"{at}.resources.claims[{j}]", f"resources.claims names {key!r} twice (validateResourceClaimNames)"
            elif name not in names and complete:
                yield f"{at}.resources.claims[{j}].name", f"resources.claims {name!r} names no entry of the Pod's spec.resourceClaims (validateResourceClaimNames)"
            if request and not is_dns1123_label(request):
                yield f"{at}.resources.claims[{j}].request", f"claim request {request!r} is not a DNS-1123 label (validateResourceClaimNames)"
            seen.add(key)


# ------------------------------------------------------------------------------------------------- the containers
def _restart_problems(at: str, container: Doc) -> Iterator[Problem]:
    """validateContainerRestartPolicy: ContainerRestartRules is on by default at 1.36, so a container (init or
    not) may set restartPolicy Always, OnFailure or Never and restartPolicyRules."""
    policy, rules = container.get("restartPolicy"), container.get("restartPolicyRules")
    if policy is None and not as_list(rules):
        return
    if policy is None:
        yield f"{at}.restartPolicy", "restartPolicyRules need a container restartPolicy (validateContainerRestartPolicy)"
    elif _text(policy) is not None and policy not in ("Always", "OnFailure", "Never"):
        yield f"{at}.restartPolicy", f"container restartPolicy {policy!r} is not Always, OnFailure or Never (case matters) (validateContainerRestartPolicy)"
    rules = as_list(rules)
    if len(rules) > CONTAINER_RESTART_RULES_MAX:
        yield f"{at}.restartPolicyRules", f"{len(rules)} restartPolicyRules, at most {CONTAINER_RESTART_RULES_MAX} (validateContainerRestartPolicy)"
    for k, rule in enumerate(rules):
        rule, rat = as_dict(rule), f"{at}.restartPolicyRules[{k}]"
        action = _text(rule.get("action"))
        if action is not None and action not in CONTAINER_RESTART_RULE_ACTIONS:
            yield f"{rat}.action", f"restart rule action {action!r} is not {' or '.join(CONTAINER_RESTART_RULE_ACTIONS)} (validateContainerRestartPolicy)"
        codes = rule.get("exitCodes")
        if codes is None:
            yield f"{rat}.exitCodes", "a restart rule needs exitCodes (validateContainerRestartPolicy)"
            continue
        operator = _text(as_dict(codes).get("operator"))
        if operator is not None and operator not in CONTAINER_RESTART_RULE_OPERATORS:
            yield f"{rat}.exitCodes.operator", f"exitCodes operator {operator!r} is not In or NotIn (validateContainerRestartPolicy)"
        if len(as_list(as_dict(codes).get("values"))) > CONTAINER_RESTART_EXIT_CODES_MAX:
            yield f"{rat}.exitCodes.values", f"more than {CONTAINER_RESTART_EXIT_CODES_MAX} exit codes (validateContainerRestartPolicy)"


def _resize_problems(at: str, container: Doc, init: bool, pod_policy: str | None) -> Iterator[Problem]:
    """validateResizePolicy; validateInitContainers: RestartContainer only on a sidecar (InPlacePodVerticalScaling
    is GA: resizePolicy itself is allowed on init containers)."""
    seen: set[str] = set()
    for k, item in enumerate(as_list(container.get("resizePolicy"))):
        item, rat = as_dict(item), f"{at}.resizePolicy[{k}]"
        name, policy = _text(item.get("resourceName")), _text(item.get("restartPolicy"))
        if name is not None and name in seen:
            yield f"{rat}.resourceName", f"resizePolicy names {name} twice (validateResizePolicy)"
        elif name is not None and name not in RESIZE_RESOURCES:
            yield f"{rat}.resourceName", f"resizePolicy resourceName {name!r} is not cpu or memory (validateResizePolicy)"
        seen.add(name or "")
        if policy is not None and policy not in RESIZE_POLICIES:
            yield f"{rat}.restartPolicy", f"resizePolicy restartPolicy {policy!r} is not NotRequired or RestartContainer (validateResizePolicy)"
        elif policy == _RESTART_CONTAINER and pod_policy == "Never":
            yield f"{rat}.restartPolicy", "resizePolicy must be NotRequired when the Pod's restartPolicy is Never (validateResizePolicy)"
        elif policy == _RESTART_CONTAINER and init and not _sidecar(container):
            yield f"{rat}.restartPolicy", "resizePolicy RestartContainer is only allowed on a sidecar (an init container with restartPolicy Always) (validateInitContainers)"


def _handlers(container: Doc) -> Iterator[tuple[str, Doc]]:
    for key in _PROBES:
        probe = container.get(key)
        if isinstance(probe, dict):
            yield key, probe
    lifecycle = as_dict(container.get("lifecycle"))
    for key in _HOOKS:
        hook = lifecycle.get(key)
        if isinstance(hook, dict):
            yield f"lifecycle.{key}", hook


def _handler_problems(at: str, container: Doc, grace: int | None) -> Iterator[Problem]:
    """validateHTTPGetAction's header names; validateSleepAction (PodLifecycleSleepActionAllowZero is GA: 0 is
    allowed). Not run on an init container that is no sidecar: its probes and hooks are refused whole."""
    for key, handler in _handlers(container):
        for k, header in enumerate(as_list(as_dict(handler.get("httpGet")).get("httpHeaders"))):
            name = _text(as_dict(header).get("name"))
            if name is not None and not _HTTP_HEADER_NAME.fullmatch(name):
                yield f"{at}.{key}.httpGet.httpHeaders[{k}].name", f"HTTP header name {name!r} is not a header name (letters, digits and '-') (validateHTTPGetAction)"
        seconds = _int(as_dict(handler.get("sleep")).get("seconds"))
        if seconds is not None and grace is not None and not 0 <= seconds <= grace:
            yield f"{at}.{key}.sleep.seconds", f"sleep {seconds}s must be in 0..terminationGracePeriodSeconds ({grace}) (validateSleepAction)"


def _divisor_problem(at: str, resource: str, divisor: Any) -> Iterator[Problem]:
    """validateContainerResourceDivisor: the divisor's canonical string in the allowed set of the resource."""
    text = str(divisor) if isinstance(divisor, int) and not isinstance(divisor, bool) else _text(divisor)
    if text is None:
        return
    try:
        quantity = parse(text.strip())
    except QuantityError:
        return  # a schema finding
    if quantity.is_zero:
        return  # unset
    allowed = CPU_DIVISORS if resource.endswith(".cpu") else BYTE_DIVISORS
    if not resource.endswith((".cpu", ".memory", ".ephemeral-storage")) and ".hugepages-" not in resource:
        return
    if quantity.marshal() not in allowed:
        yield at, f"divisor {text!r} of {resource} is not one of {', '.join(allowed)} (validateContainerResourceDivisor)"


def _env_problems(at: str, container: Doc, volumes: dict[str, Doc] | None) -> Iterator[Problem]:
    """validateContainerResourceDivisor, validateFileKeySelector, validateFileKeyRefVolumes (EnvFiles is on by
    default at 1.36)."""
    for j, var in enumerate(as_list(container.get("env"))):
        source = as_dict(as_dict(var).get("valueFrom"))
        if not source:
            continue
        vat = f"{at}.env[{j}].valueFrom"
        field = as_dict(source.get("resourceFieldRef"))
        resource = _text(field.get("resource"))
        if resource is not None and field.get("divisor") is not None:
            yield from _divisor_problem(f"{vat}.resourceFieldRef.divisor", resource, field.get("divisor"))
        ref = source.get("fileKeyRef")
        if isinstance(ref, dict):
            yield from _file_key_problems(f"{vat}.fileKeyRef", ref, volumes)


def _file_key_problems(at: str, ref: Doc, volumes: dict[str, Doc] | None) -> Iterator[Problem]:
    key, volume, path = (_text(ref.get(k)) for k in ("key", "volumeName", "path"))
    if key is not None and (not key or "=" in key or not key.isprintable() or not key.isascii()):
        yield f"{at}.key", f"fileKeyRef key {key!r} is not an environment variable name (printable, no '=') (validateFileKeySelector)"
    if path is not None and (not path or ".." in path.split("/")):
        yield f"{at}.path", f"fileKeyRef path {path!r} is empty or has '..' (validateFileKeySelector)"
    if volume is None:
        return
    if not volume or not is_dns1123_label(volume):
        yield f"{at}.volumeName", f"fileKeyRef volumeName {volume!r} is not a DNS-1123 label (validateFileKeySelector)"
    elif volumes is None or volume in _KUBERAY_VOLUMES:
        return  # not known until apply; or a volume KubeRay adds (shared-mem and ray-logs are emptyDirs)
    elif volume not in volumes:
        yield f"{at}.volumeName", f"fileKeyRef volumeName {volume!r} names no volume of the Pod (validateFileKeyRefVolumes)"
    elif volumes[volume].get("emptyDir") is None:
        yield f"{at}.volumeName", f"fileKeyRef volume {volume!r} must be an emptyDir (validateFileKeyRefVolumes)"


def _mount_problems(at: str, container: Doc, volumes: dict[str, Doc] | None) -> Iterator[Problem]:
    """ValidateVolumeMounts (subPathExpr with subPath, a block device mounted), validateMountRecursiveReadOnly,
    ValidateVolumeDevices."""
    devices = [as_dict(d) for d in as_list(container.get("volumeDevices"))]
    device_names = {_text(d.get("name")) for d in devices}
    device_paths = {_text(d.get("devicePath")) for d in devices}
    mount_names: set[str | None] = set()
    mount_paths: set[str | None] = set()
    for k, mount in enumerate(as_list(container.get("volumeMounts"))):
        mount, mat = as_dict(mount), f"{at}.volumeMounts[{k}]"
        mount_names.add(_text(mount.get("name")))
        mount_paths.add(_text(mount.get("mountPath")))
        if _text(mount.get("subPath")) and _text(mount.get("subPathExpr")):
            yield f"{mat}.subPathExpr", "subPathExpr and subPath are mutually exclusive (ValidateVolumeMounts)"
        if devices and mount.get("name") in device_names:
            yield f"{mat}.name", f"volume {mount.get('name')!r} is both mounted and a volumeDevice of the container (ValidateVolumeMounts)"
        elif devices and _text(mount.get("mountPath")) in device_paths:
            yield f"{mat}.mountPath", f"mountPath {mount.get('mountPath')!r} is a devicePath of the container too (ValidateVolumeMounts)"
        rro = _text(mount.get("recursiveReadOnly"))
        if rro is None or rro == "Disabled":
            continue
        if rro not in RECURSIVE_READ_ONLY:
            yield f"{mat}.recursiveReadOnly", f"recursiveReadOnly {rro!r} is not Disabled, IfPossible or Enabled (validateMountRecursiveReadOnly)"
        elif mount.get("readOnly") is not True:
            yield f"{mat}.recursiveReadOnly", f"recursiveReadOnly {rro} needs readOnly true (validateMountRecursiveReadOnly)"
        elif mount.get("mountPropagation") not in (None, "None"):
            yield f"{mat}.recursiveReadOnly", f"recursiveReadOnly {rro} needs mountPropagation None (validateMountRecursiveReadOnly)"
    yield from _device_problems(at, devices, volumes, mount_names, mount_paths)


def _device_problems(
    at: str,
    devices: list[Doc],
    volumes: dict[str, Doc] | None,
    mount_names: set[str | None],
    mount_paths: set[str | None],
) -> Iterator[Problem]:
    names: set[str] = set()
    paths: set[str] = set()
    for k, device in enumerate(devices):
        dat, name, path = f"{at}.volumeDevices[{k}]", _text(device.get("name")), _text(device.get("devicePath"))
        if name is not None and volumes is not None and name not in _KUBERAY_VOLUMES:
            volume = volumes.get(name)
            if name in names:
                yield f"{dat}.name", f"volumeDevices names {name!r} twice (ValidateVolumeDevices)"
            elif volume is None:
                yield f"{dat}.name", f"volumeDevice {name!r} names no volume of the Pod (ValidateVolumeDevices)"
            elif not any(volume.get(s) is not None for s in _VOLUME_SOURCES_FOR_BLOCK):
                yield f"{dat}.name", f"volumeDevice {name!r} must be a persistentVolumeClaim or ephemeral volume (block mode) (ValidateVolumeDevices)"
            elif name in mount_names:
                yield f"{dat}.name", f"volume {name!r} is both a volumeDevice and mounted (ValidateVolumeDevices)"
            names.add(name)
        if path is not None:
            if not path or ".." in path.split("/"):
                yield f"{dat}.devicePath", f"devicePath {path!r} is empty or has '..' (ValidateVolumeDevices)"
            elif path in paths or path in mount_paths:
                yield f"{dat}.devicePath", f"devicePath {path!r} is used twice in the container (ValidateVolumeDevices)"
            paths.add(path)


def _security_problems(at: str, container: Doc, host_users: bool) -> Iterator[Problem]:
    """ValidateSecurityContext's procMount (ProcMountType is GA at 1.36), windowsOptions syntax; hugepages."""
    context = as_dict(container.get("securityContext"))
    proc = _text(context["procMount"]) if "procMount" in context else None  # (most containers: none to read)
    if proc is not None and proc not in PROC_MOUNT_TYPES:
        yield f"{at}.securityContext.procMount", f"procMount {proc!r} is not Default or Unmasked (ValidateProcMountType)"
    elif proc == "Unmasked" and host_users:
        yield f"{at}.securityContext.procMount", "procMount Unmasked needs the Pod's hostUsers false (ValidateSecurityContext)"
    if "windowsOptions" in context:
        yield from _windows_options_problems(f"{at}.securityContext", context["windowsOptions"])
    resources = as_dict(container.get("resources"))
    for key in ("limits", "requests") if resources else ():
        for name, value in as_dict(resources.get(key)).items():
            # (_is_hugepages without its call: every resource of every container is asked)
            if isinstance(name, str) and name.startswith(_HUGEPAGES) and not is_unknown(value):
                yield from _hugepage_problem(f"{at}.resources.{key}[{name}]", name, value)


def _pod_volumes(spec: Doc) -> dict[str, Doc] | None:
    """The template's volumes by name, or None when one is not known until apply (nothing is then "not found")."""
    listed = spec.get("volumes")
    if listed is not None and is_unknown(listed):
        return None
    volumes: dict[str, Doc] = {}
    for volume in as_list(listed):
        name = as_dict(volume).get("name")
        if is_unknown(volume) or (name is not None and _text(name) is None):
            return None
        if name is not None:
            volumes[name] = as_dict(volume)
    return volumes


def _container_problems(spec: Doc, containers: Containers) -> Iterator[Problem]:
    volumes = _pod_volumes(spec)
    grace_value = spec.get("terminationGracePeriodSeconds", _GRACE_DEFAULT)
    grace = _int(grace_value)
    pod_policy = _text(spec.get("restartPolicy"))
    host_users = spec.get("hostUsers") is not False
    for at, container, init in containers:
        if "restartPolicy" in container or "restartPolicyRules" in container:
            yield from _restart_problems(at, container)
        if "resizePolicy" in container:
            yield from _resize_problems(at, container, init, pod_policy)
        if (not init or _sidecar(container)) and any(key in container for key in _HANDLER_KEYS):
            yield from _handler_problems(at, container, grace)
        if "env" in container:
            yield from _env_problems(at, container, volumes)
        if "volumeMounts" in container or "volumeDevices" in container:
            yield from _mount_problems(at, container, volumes)
        if "securityContext" in container or "resources" in container:
            yield from _security_problems(at, container, host_users)


def spec_field_problems(spec: Doc) -> Iterator[Problem]:
    """The problems of one pod spec's newer fields (the caller prefixes the template's spec path). Each check runs
    only where its field is present: most templates have none of them."""
    context = as_dict(spec.get("securityContext"))
    containers = _containers(spec)
    if "os" in spec:
        yield from _os_problems(spec, context, containers)
    in_containers = (as_dict(c.get("securityContext")).get("windowsOptions") is not None for _, c, _ in containers)
    if context.get("windowsOptions") is not None or any(in_containers):
        yield from _windows_options_problems("securityContext", context.get("windowsOptions"))
        yield from _host_process_problems(spec, context, containers)
    if spec.get("hostUsers") is False:
        yield from _host_users_problems(spec, containers)
    if "hostnameOverride" in spec:
        yield from _hostname_problems(spec)
    if "resources" in spec:
        yield from _pod_resources_problems(spec, containers)
    if "overhead" in spec:
        yield from _overhead_problems(spec)
    if "resourceClaims" in spec or any("claims" in as_dict(c.get("resources")) for _, c, _ in containers):
        yield from _claim_problems(spec, containers)
    yield from _container_problems(spec, containers)


def autoscaler_mount_problems(manifest: Doc) -> Iterator[tuple[str, str]]:
    """(path, problem) of autoscalerOptions.volumeMounts naming no volume of the head Pod: BuildAutoscalerContainer
    appends them to the head's autoscaler sidecar (ValidateVolumeMounts: the name must be a volume of the Pod); the
    head's volumes are its template's plus the ones KubeRay adds (ray-logs, shared memory, TLS, token, GCS storage)."""
    for ref in built_cluster_specs(manifest):
        options = ref.spec.get("autoscalerOptions")
        if ref.spec.get("enableInTreeAutoscaling") is not True or not isinstance(options, dict):
            continue
        head_spec = as_dict(as_dict(as_dict(ref.spec.get("headGroupSpec")).get("template")).get("spec"))
        volumes = head_spec.get("volumes")
        if volumes is not None and is_unknown(volumes):
            continue
        names = {as_dict(v).get("name") for v in as_list(volumes)}
        if any(name is not None and _text(name) is None for name in names):
            continue  # a volume's name not known until apply
        names |= _KUBERAY_VOLUMES
        for k, mount in enumerate(as_list(options.get("volumeMounts"))):
            name = _text(as_dict(mount).get("name"))
            if name and name not in names:
                yield join(ref.prefix, f"autoscalerOptions.volumeMounts[{k}].name"), f"autoscalerOptions.volumeMounts names {name!r}, no volume of the head Pod (add it to headGroupSpec.template.spec.volumes) (ValidateVolumeMounts)"
