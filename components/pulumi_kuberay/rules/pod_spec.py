"""What the API server's Pod validation refuses in a pod template's own fields (not its containers' ports, env,
volumes, probes, names or resources: pod_validation.py, pod_resources.py): tolerations, node and pod affinity,
topology spread, the DNS, preemption and termination-message policies, names of the node, PriorityClass and
RuntimeClass, ephemeral containers. The CRDs type these fields but enumerate none of their values, so the Ray
object is stored and every Pod the operator creates from the template is refused. Each check mirrors one of
Kubernetes' ``pkg/apis/core/validation`` (``ValidatePodCreate``, ``ValidatePodSpec``, ``ValidateTolerations``,
``ValidateNodeSelectorRequirement``, ``validateTopologySpreadConstraints``...); docs/kubernetes-validation.md
lists them. Plain Python, no pulumi.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from itertools import chain
from typing import Any

from pulumi_kuberay.kuberay import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from pulumi_kuberay.kuberay.kubernetes import (
    DNS_SEARCH_LIST_MAX_CHARS,
    DNS_SEARCHES_MAX,
    IPC_SYSCTL_PATTERN,
    NET_SYSCTL_PATTERN,
    POD_VALIDATION_GATES,
    SELINUX_CHANGE_POLICIES,
    SUPPLEMENTAL_GROUPS_POLICIES,
    SYSCTL_NAME_MAX_LENGTH,
    SYSCTL_NAME_PATTERN,
)
from pulumi_kuberay.kuberay.paths import PodTemplateRef, as_dict, as_list, is_unknown, template_containers
from pulumi_kuberay.kuberay.paths import as_str as _text  # the string to judge (not one known only at apply)
from pulumi_kuberay.kuberay.resources import NVIDIA_GPU

from . import _examples as ex
from ._engine import KINDS, Context, Violation, declare
from ._fixed import patch
from ._manifest_readers import (
    built_pod_templates,
    is_dns1123_label,
    is_dns1123_subdomain,
    label_value_error,
    qualified_name_error,
)
from ._pod_annotations import annotation_problems, annotation_tolerations
from ._pod_selectors import pod_selector_problems
from ._pod_spec_fields import autoscaler_mount_problems, spec_field_problems

Doc = dict[str, Any]
Problem = tuple[str, str]  # (path suffix under the pod spec, what is wrong, with the Kubernetes function)

_REFUSED = "the API server refuses every Pod the operator creates from it and the workload never starts"
_ENUMS: dict[str, tuple[str, ...]] = {
    "dnsPolicy": ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"),  # validateDNSPolicy
    "preemptionPolicy": ("PreemptLowerPriority", "Never"),  # ValidatePreemptionPolicy
}
_NAMES = ("nodeName", "priorityClassName", "runtimeClassName")  # DNS-1123 subdomains
#: The fields _value_problems reads.
_VALUE_FIELDS = frozenset({"ephemeralContainers", *_ENUMS, *_NAMES, "hostname", "subdomain", "os"})
_TERMINATION_MESSAGE = ("File", "FallbackToLogsOnError")  # validateContainerCommon
_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")  # validateTaintEffect
_TOLERATION_OPERATORS = ("Equal", "Exists")
#: Only where the API server runs the TaintTolerationComparisonOperators gate (alpha, off by default at 1.36:
#: allowTaintTolerationComparisonOperators), else refused like any other operator: pod-field-needs-feature-gate
#: says so (high); what the API server refuses with the gate on too (no key, a value that is no int64) stays here.
_TOLERATION_COMPARISONS = ("Lt", "Gt")
#: The gates of POD_VALIDATION_GATES, in its order: Gt and Lt, MountOption, hostNetwork beside hostUsers false.
_COMPARISONS_GATE, _SELINUX_GATE, _USERNS_GATE = POD_VALIDATION_GATES
#: A decimal integer as content.IsDecimalInteger takes it (no '+', no leading zero, no '-0').
_DECIMAL_INTEGER = re.compile(r"0|-?[1-9][0-9]*")
_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
_MAX_NAMESERVERS = 3  # MaxDNSNameservers
_SLOPPY_IPV4 = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")
_PROFILE_TYPES = ("RuntimeDefault", "Unconfined", "Localhost")
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_SYSCTL_NAME = re.compile(SYSCTL_NAME_PATTERN)
_IPC_SYSCTL, _NET_SYSCTL = re.compile(IPC_SYSCTL_PATTERN), re.compile(NET_SYSCTL_PATTERN)
_SLASH_DOT = str.maketrans("./", "/.")
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _later(value: Any) -> bool:
    """A value Pulumi computes at apply (absent is not: is_unknown also says True for None)."""
    return value is not None and is_unknown(value)


def _int(value: Any, *, wide: bool = False) -> int | None:
    """An integer to judge: outside the field's format (int32, or int64 when ``wide``) it is a schema finding."""
    low, high = (INT64_MIN, INT64_MAX) if wide else (INT32_MIN, INT32_MAX)
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    return None


def _known(values: Any) -> list[Any] | None:
    """A list to count, or None when it (or an item) is not known until apply."""
    if values is not None and is_unknown(values):
        return None
    items = as_list(values)
    return None if any(is_unknown(v) for v in items) else items


def _toleration_problems(i: int, toleration: dict[str, Any]) -> Iterator[Problem]:
    at = f"tolerations[{i}]"
    key, operator = _text(toleration.get("key")), _text(toleration.get("operator"))
    value, effect = _text(toleration.get("value")), _text(toleration.get("effect"))
    if any(toleration.get(k) is not None and _text(toleration.get(k)) is None for k in ("key", "operator", "value", "effect")):
        return  # not known until apply (a wrong type is a schema finding)
    if operator is not None and operator not in ("", *_TOLERATION_OPERATORS, *_TOLERATION_COMPARISONS):
        yield f"{at}.operator", f"toleration operator {operator!r} is not Equal or Exists (case matters) (ValidateTolerations)"
    elif not key and operator != "Exists":
        yield f"{at}.operator", "a toleration without a key must have operator Exists (ValidateTolerations)"
    elif operator == "Exists" and value:
        yield f"{at}.value", f"a toleration with operator Exists takes no value, it has {value!r} (ValidateTolerations)"
    elif operator in _TOLERATION_COMPARISONS and not _is_int64(value or ""):
        yield f"{at}.value", f"toleration operator {operator} compares integers and its value {value or ''!r} is no decimal 64-bit integer: refused where the {_COMPARISONS_GATE} gate is on, and Gt and Lt are refused where it is off (ValidateTolerations)"
    key_error = qualified_name_error(key) if key else None
    if key_error:
        yield f"{at}.key", f"toleration key {key!r}: {key_error} (ValidateTolerations)"
    value_error = label_value_error(value) if value and operator in (None, "", "Equal") else None
    if value_error:
        yield f"{at}.value", f"toleration value {value!r}: {value_error} (ValidateTolerations)"
    if effect and effect not in _EFFECTS:
        yield f"{at}.effect", f"toleration effect {effect!r} is not NoSchedule, PreferNoSchedule or NoExecute (validateTaintEffect)"
    elif toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
        yield f"{at}.effect", "tolerationSeconds is only allowed with effect NoExecute (ValidateTolerations)"


def _is_int64(text: str) -> bool:
    """content.IsDecimalInteger and strconv.ParseInt(text, 10, 64): what a Gt or Lt toleration's value must be."""
    return _DECIMAL_INTEGER.fullmatch(text) is not None and INT64_MIN <= int(text) <= INT64_MAX


def _requirement_problems(at: str, requirement: dict[str, Any], *, values_are_labels: bool) -> Iterator[Problem]:
    """``values_are_labels``: a required term's values must be label values (ValidatePreferredSchedulingTerms always
    allows any value in a preferred term: it can match where the cluster has one node)."""
    operator = _text(requirement.get("operator"))
    values = _known(requirement.get("values"))
    if operator is None or values is None:
        return
    if operator not in _SELECTOR_OPERATORS:
        yield f"{at}.operator", f"node selector operator {operator!r} is not one of {', '.join(_SELECTOR_OPERATORS)} (ValidateNodeSelectorRequirement)"
    elif operator in ("In", "NotIn") and not values:
        yield f"{at}.values", f"operator {operator} needs values (ValidateNodeSelectorRequirement)"
    elif operator in ("Exists", "DoesNotExist") and values:
        yield f"{at}.values", f"operator {operator} takes no values (ValidateNodeSelectorRequirement)"
    elif operator in ("Gt", "Lt") and len(values) != 1:
        yield f"{at}.values", f"operator {operator} takes exactly one value (ValidateNodeSelectorRequirement)"
    key = _text(requirement.get("key"))
    key_error = qualified_name_error(key) if key is not None else None
    if key_error:
        yield f"{at}.key", f"node selector key {key!r}: {key_error} (ValidateNodeSelectorRequirement)"
    for i, value in enumerate(values if values_are_labels else ()):
        value_error = label_value_error(value) if isinstance(value, str) else None
        if value_error:
            yield f"{at}.values[{i}]", f"node selector value {value!r}: {value_error} (ValidateNodeSelectorRequirement)"


def _weight_problem(at: str, term: dict[str, Any], function: str) -> Iterator[Problem]:
    weight = _int(term.get("weight"))
    if weight is not None and not 1 <= weight <= 100:
        yield f"{at}.weight", f"weight {weight} is not in 1..100 ({function})"


def _affinity_problems(affinity: dict[str, Any]) -> Iterator[Problem]:
    if not affinity:
        return  # (most templates: an absent block is not walked)
    node, at = as_dict(affinity.get("nodeAffinity")), "affinity.nodeAffinity"
    selector_terms = as_list(as_dict(node.get(_REQUIRED)).get("nodeSelectorTerms"))
    if as_dict(node.get(_REQUIRED)).get("nodeSelectorTerms") == []:
        yield f"{at}.{_REQUIRED}.nodeSelectorTerms", "required node affinity needs at least one nodeSelectorTerm (ValidateNodeSelector)"
    terms = [(f"{at}.{_REQUIRED}.nodeSelectorTerms[{i}]", as_dict(t), True) for i, t in enumerate(selector_terms)]
    for i, preferred in enumerate(as_list(node.get(_PREFERRED))):
        yield from _weight_problem(f"{at}.{_PREFERRED}[{i}]", as_dict(preferred), "ValidatePreferredSchedulingTerms")
        terms.append((f"{at}.{_PREFERRED}[{i}].preference", as_dict(as_dict(preferred).get("preference")), False))
    for term_at, term, labels in terms:
        for j, requirement in enumerate(as_list(term.get("matchExpressions"))):
            at_j = f"{term_at}.matchExpressions[{j}]"
            yield from _requirement_problems(at_j, as_dict(requirement), values_are_labels=labels)
    for kind in ("podAffinity", "podAntiAffinity"):
        pod, at = as_dict(affinity.get(kind)), f"affinity.{kind}"
        pod_terms = [(f"{at}.{_REQUIRED}[{i}]", as_dict(t)) for i, t in enumerate(as_list(pod.get(_REQUIRED)))]
        for i, weighted in enumerate(as_list(pod.get(_PREFERRED))):
            weighted_at = f"{at}.{_PREFERRED}[{i}]"
            yield from _weight_problem(weighted_at, as_dict(weighted), "validateWeightedPodAffinityTerms")
            pod_terms.append((f"{weighted_at}.podAffinityTerm", as_dict(as_dict(weighted).get("podAffinityTerm"))))
        for term_at, term in pod_terms:
            if term.get("topologyKey") == "":
                yield f"{term_at}.topologyKey", "a pod affinity term needs a topologyKey (validatePodAffinityTerm)"
            for j, namespace in enumerate(as_list(term.get("namespaces"))):
                if _text(namespace) is not None and not is_dns1123_label(namespace):
                    yield f"{term_at}.namespaces[{j}]", f"namespace {namespace!r} is not a namespace name (a DNS-1123 label) (validatePodAffinityTerm)"


def _spread_problems(spec: dict[str, Any]) -> Iterator[Problem]:
    for i, constraint in enumerate(as_list(spec.get("topologySpreadConstraints"))):
        at, constraint = f"topologySpreadConstraints[{i}]", as_dict(constraint)
        skew, when = _int(constraint.get("maxSkew")), _text(constraint.get("whenUnsatisfiable"))
        if skew is not None and skew <= 0:
            yield f"{at}.maxSkew", f"maxSkew {skew} must be greater than zero (validateTopologySpreadConstraints)"
        if constraint.get("topologyKey") == "":
            yield f"{at}.topologyKey", "topologyKey is empty (ValidateTopologyKey)"
        domains = _int(constraint.get("minDomains"))
        if domains is not None and (domains <= 0 or when not in (None, "DoNotSchedule")):
            yield f"{at}.minDomains", f"minDomains {domains} must be positive, with whenUnsatisfiable DoNotSchedule (validateMinDomains)"
        for key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = _text(constraint.get(key))
            if policy is not None and policy not in ("Honor", "Ignore"):
                yield f"{at}.{key}", f"{key} {policy!r} is not Honor or Ignore (validateNodeInclusionPolicy)"
        if when is not None and when not in _WHEN_UNSATISFIABLE:
            yield f"{at}.whenUnsatisfiable", f"whenUnsatisfiable {when!r} is not DoNotSchedule or ScheduleAnyway (ValidateWhenUnsatisfiable)"


def _node_selector_problems(selector: Any) -> Iterator[Problem]:
    if not isinstance(selector, dict) or is_unknown(selector):
        return
    for key, value in selector.items():
        key_error = qualified_name_error(key) if isinstance(key, str) and not is_unknown(key) else None
        value_error = label_value_error(value) if _text(value) is not None else None
        if key_error or value_error:
            yield f'nodeSelector["{key}"]', f"nodeSelector {key!r}: {key_error or f'value {value!r}: {value_error}'} (ValidatePodSpec: ValidateLabels)"


def _id_problems(at: str, context: dict[str, Any], keys: tuple[str, ...]) -> Iterator[Problem]:
    """User and group ids in 0..2147483647 (validatePodSpecSecurityContext, ValidateSecurityContext)."""
    for key in keys:
        if key == "supplementalGroups":
            continue
        value = _int(context.get(key), wide=True)
        if value is not None and not 0 <= value <= INT32_MAX:
            yield f"{at}.{key}", f"{key} {value} is not in 0..{INT32_MAX}, a Linux user or group id (IsValidUserID, IsValidGroupID)"
    for i, group in enumerate(as_list(context.get("supplementalGroups")) if "supplementalGroups" in keys else ()):
        value = _int(group, wide=True)
        if value is not None and not 0 <= value <= INT32_MAX:
            yield f"{at}.supplementalGroups[{i}]", f"supplementalGroups {value} is not in 0..{INT32_MAX}, a Linux group id (IsValidGroupID)"


def _is_ip(text: str) -> bool:
    """Like IsValidIPForLegacyField: an IP address, IPv4 with leading zeros included (ParseIPSloppy)."""
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return _SLOPPY_IPV4.fullmatch(text) is not None


def _dns_problems(spec: dict[str, Any]) -> Iterator[Problem]:
    """validatePodDNSConfig: dnsPolicy None needs nameservers; at most 3, IP addresses; searches; option names."""
    if "dnsConfig" not in spec and "dnsPolicy" not in spec:
        return  # (most templates)
    config = spec.get("dnsConfig")
    nameservers = _known(as_dict(config).get("nameservers"))
    if spec.get("dnsPolicy") == "None" and (config is None or nameservers == []):
        yield "dnsConfig", "dnsPolicy None needs dnsConfig.nameservers (at least one) (validatePodDNSConfig)"
    for i, server in enumerate(nameservers or []):
        if isinstance(server, str) and not _is_ip(server):
            yield f"dnsConfig.nameservers[{i}]", f"nameserver {server!r} is not an IP address (validatePodDNSConfig)"
    if nameservers is not None and len(nameservers) > _MAX_NAMESERVERS:
        yield "dnsConfig.nameservers", f"{len(nameservers)} nameservers, at most {_MAX_NAMESERVERS} (validatePodDNSConfig)"
    for i, option in enumerate(as_list(as_dict(config).get("options"))):
        if isinstance(option, dict) and option.get("name") in (None, ""):
            yield f"dnsConfig.options[{i}].name", "a DNS option needs a name (validatePodDNSConfig)"
    searches = _known(as_dict(config).get("searches")) if config is not None else None
    if searches:
        yield from _search_problems(searches)


def _search_problems(searches: list[Any]) -> Iterator[Problem]:
    """At most 32 domains of 2048 characters in all, each a DNS-1123 subdomain once a trailing '.' is cut, '_'
    allowed and '.' alone too (RelaxedDNSSearchValidation, on by default since 1.32)."""
    if len(searches) > DNS_SEARCHES_MAX:
        yield "dnsConfig.searches", f"{len(searches)} search domains, at most {DNS_SEARCHES_MAX} (validatePodDNSConfig)"
    texts = [s for s in searches if isinstance(s, str)]
    if len(texts) == len(searches) and len(" ".join(texts)) > DNS_SEARCH_LIST_MAX_CHARS:
        yield "dnsConfig.searches", f"the search domains are {len(' '.join(texts))} characters joined by spaces, at most {DNS_SEARCH_LIST_MAX_CHARS} (validatePodDNSConfig)"
    for i, search in enumerate(searches):
        domain = search.removesuffix(".").replace("_", "a") if isinstance(search, str) else None
        if domain is not None and search != "." and not is_dns1123_subdomain(domain):
            yield f"dnsConfig.searches[{i}]", f"search domain {search!r} is not a DNS-1123 subdomain (lower-case letters, digits, '-', '_' and '.') (validatePodDNSConfig)"


def _host_problems(spec: dict[str, Any]) -> Iterator[Problem]:
    """validatePodHostNetworkDeps (a hostPort equals its containerPort with hostNetwork), ValidateHostAliases."""
    for i, container in enumerate(as_list(spec.get("containers")) if spec.get("hostNetwork") is True else ()):
        for j, port in enumerate(as_list(as_dict(container).get("ports"))):
            host, number = _int(as_dict(port).get("hostPort")), _int(as_dict(port).get("containerPort"))
            if host and number is not None and host != number:
                yield f"containers[{i}].ports[{j}].hostPort", f"hostPort {host} must equal containerPort {number} with hostNetwork (validatePodHostNetworkDeps)"
    seen: set[tuple[str, str, int]] = set()  # AccumulateUniqueHostPorts: protocol, hostIP, hostPort over the containers
    host_network = spec.get("hostNetwork") is True
    for i, container in enumerate(as_list(spec.get("containers"))):
        for j, port in enumerate(as_list(as_dict(container).get("ports"))):
            if not isinstance(port, dict) or not (host_network or "hostPort" in port):
                continue  # (most ports: no host port)
            host = _int(port.get("hostPort")) or (_int(port.get("containerPort")) if host_network else None)
            if not host:
                continue
            protocol, address = _text(port.get("protocol", "TCP")), _text(port.get("hostIP", ""))
            if protocol is None or address is None:
                continue
            if (protocol, address, host) in seen:
                yield f"containers[{i}].ports[{j}].hostPort", f"hostPort {host}/{protocol} is taken by another port of the Pod (AccumulateUniqueHostPorts)"
            seen.add((protocol, address, host))
    for i, alias in enumerate(as_list(spec.get("hostAliases"))):
        ip = _text(as_dict(alias).get("ip"))
        if ip is not None and not _is_ip(ip):
            yield f"hostAliases[{i}].ip", f"hostAliases ip {ip!r} is not an IP address (ValidateHostAliases)"
        for j, name in enumerate(as_list(as_dict(alias).get("hostnames"))):
            if _text(name) is not None and not is_dns1123_subdomain(name):
                yield f"hostAliases[{i}].hostnames[{j}]", f"hostname {name!r} is not a DNS-1123 subdomain (ValidateHostAliases)"


def _profile_problems(at: str, context: dict[str, Any]) -> Iterator[Problem]:
    """validateSeccompProfileField, ValidateAppArmorProfileField: a known type; localhostProfile with Localhost only."""
    for key, function in (("seccompProfile", "validateSeccompProfileField"), ("appArmorProfile", "ValidateAppArmorProfileField")):
        profile = context.get(key)
        if not isinstance(profile, dict) or _later(profile.get("type")) or _later(profile.get("localhostProfile")):
            continue
        kind, local = profile.get("type"), profile.get("localhostProfile")
        if kind not in _PROFILE_TYPES:
            yield f"{at}.{key}.type", f"{key} type {kind!r} is not RuntimeDefault, Unconfined or Localhost (the annotations' runtime/default is no type) ({function})"
        elif (kind == "Localhost") != (local is not None):
            yield f"{at}.{key}.localhostProfile", f"{key} localhostProfile goes with type Localhost, and only with it ({function})"


def _pod_context_policies(at: str, context: dict[str, Any]) -> Iterator[Problem]:
    """validateSupplementalGroupsPolicy; validateSELinuxChangePolicy: Recursive, or MountOption where the
    SELinuxMount gate is on (off by default at 1.36: pod-field-needs-feature-gate says so); any other value is
    refused either way."""
    groups = _text(context.get("supplementalGroupsPolicy"))
    if groups is not None and groups not in SUPPLEMENTAL_GROUPS_POLICIES:
        yield f"{at}.supplementalGroupsPolicy", f"supplementalGroupsPolicy {groups!r} is not {' or '.join(SUPPLEMENTAL_GROUPS_POLICIES)} (case matters) (validateSupplementalGroupsPolicy)"
    selinux = _text(context.get("seLinuxChangePolicy"))
    if selinux is not None and selinux not in SELINUX_CHANGE_POLICIES:
        recursive, mount = SELINUX_CHANGE_POLICIES
        yield f"{at}.seLinuxChangePolicy", f"seLinuxChangePolicy {selinux!r} is not {recursive} (nor {mount}, where the {_SELINUX_GATE} gate is on) (case matters) (validateSELinuxChangePolicy)"


def _sysctl_namespace(name: str) -> str | None:
    """The host namespace a sysctl lives in (component-helpers' GetNamespace): 'hostNetwork', 'hostIPC' or None."""
    separator = next((c for c in name if c in "./"), ".")
    if separator == "/":  # NormalizeName: net/ipv4/conf/eno2.100/rp_filter is net.ipv4.conf.eno2/100.rp_filter
        name = name.translate(_SLASH_DOT)
    name = name.split("*", 1)[0]
    if _IPC_SYSCTL.fullmatch(name):
        return "hostIPC"
    return "hostNetwork" if _NET_SYSCTL.fullmatch(name) else None


def _host_namespace_problems(spec: dict[str, Any]) -> Iterator[Problem]:
    """validatePodSpecSecurityContext: shareProcessNamespace beside hostPID; validateSysctls: names valid and once,
    none of a namespace the Pod shares with the host (ValidateHostSysctl)."""
    context = as_dict(spec.get("securityContext"))
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        yield "shareProcessNamespace", "shareProcessNamespace and hostPID cannot both be true (validatePodSpecSecurityContext)"
    sysctls = _known(context.get("sysctls")) if context else None
    seen: set[str] = set()
    for i, sysctl in enumerate(sysctls or ()):
        name = as_dict(sysctl).get("name")
        if not isinstance(name, str) or is_unknown(name):
            continue
        if len(name) > SYSCTL_NAME_MAX_LENGTH or not _SYSCTL_NAME.fullmatch(name):
            yield f"securityContext.sysctls[{i}].name", f"sysctl {name!r} is not a sysctl name (lower-case segments joined by '.' or '/', at most {SYSCTL_NAME_MAX_LENGTH} characters) (validateSysctls)"
        elif name in seen:
            yield f"securityContext.sysctls[{i}].name", f"sysctl {name!r} is set twice (validateSysctls)"
        seen.add(name)
        shared = _sysctl_namespace(name)
        if shared is not None and spec.get(shared) is True:
            yield f"securityContext.sysctls[{i}].name", f"sysctl {name!r} is namespaced and the Pod shares that namespace with the node ({shared} true): drop one (ValidateHostSysctl)"


def _context_problems(at: str, context: dict[str, Any], *, pod: bool) -> Iterator[Problem]:
    if not context:
        return  # (most pods and containers: an absent securityContext is not walked)
    ids = ("runAsUser", "runAsGroup", "fsGroup", "supplementalGroups") if pod else ("runAsUser", "runAsGroup")
    yield from _id_problems(at, context, ids)
    yield from _profile_problems(at, context)
    policy = _text(context.get("fsGroupChangePolicy")) if pod else None
    if policy is not None and policy not in ("OnRootMismatch", "Always"):
        yield f"{at}.fsGroupChangePolicy", f"fsGroupChangePolicy {policy!r} is not OnRootMismatch or Always (validateFSGroupChangePolicy)"
    if pod and ("supplementalGroupsPolicy" in context or "seLinuxChangePolicy" in context):
        yield from _pod_context_policies(at, context)
    added = as_list(as_dict(context.get("capabilities")).get("add"))
    if not pod and context.get("allowPrivilegeEscalation") is False and (context.get("privileged") is True or "CAP_SYS_ADMIN" in added):
        yield f"{at}.allowPrivilegeEscalation", "allowPrivilegeEscalation false cannot go with privileged or capabilities.add CAP_SYS_ADMIN (ValidateSecurityContext)"


def _value_problems(spec: dict[str, Any]) -> Iterator[Problem]:
    """ValidatePodCreate, and ValidatePodSpec's checks of single values (enums, names, os.name)."""
    if _VALUE_FIELDS.isdisjoint(spec):
        return  # (most templates set none of these fields)
    if "ephemeralContainers" in spec and as_list(spec["ephemeralContainers"]):
        yield "ephemeralContainers", "ephemeralContainers cannot be set when a Pod is created (ValidatePodCreate; a template may not have them: ValidatePodTemplateSpec)"
    if "nodeName" in spec and _text(spec["nodeName"]) and as_list(spec.get("schedulingGates")):
        yield "nodeName", "nodeName cannot be set together with schedulingGates (ValidatePodCreate)"
    for key, allowed in _ENUMS.items():
        value = _text(spec[key]) if key in spec else None
        if value and value not in allowed:
            yield key, f"{key} {value!r} is not one of {', '.join(allowed)} (case matters) (ValidatePodSpec)"
    for key in _NAMES:
        name = _text(spec[key]) if key in spec else None
        if name and not is_dns1123_subdomain(name):
            yield key, f"{key} {name!r} is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.') (ValidatePodSpec)"
    for key in ("hostname", "subdomain"):
        name = _text(spec[key]) if key in spec else None
        if name and not is_dns1123_label(name):
            yield key, f"{key} {name!r} is not a DNS-1123 label (at most 63 lower-case letters, digits and '-') (ValidatePodSpec)"
    os_name = _text(as_dict(spec["os"]).get("name")) if "os" in spec else None
    if os_name and os_name not in ("linux", "windows"):
        yield "os.name", f"os.name {os_name!r} is not linux or windows (validateOS)"


def _spec_problems(template: PodTemplateRef) -> Iterator[Problem]:
    # Each check is entered only where its field is present (most templates set a few of these fields): the checks
    # find nothing without it, and this runs on every pod template of every document.
    spec = template.pod_spec
    yield from _value_problems(spec)
    if "nodeSelector" in spec:
        yield from _node_selector_problems(spec["nodeSelector"])
    if "securityContext" in spec:
        yield from _context_problems("securityContext", as_dict(spec["securityContext"]), pod=True)
    if "securityContext" in spec or "shareProcessNamespace" in spec:
        yield from _host_namespace_problems(spec)
    deadline = _int(spec["activeDeadlineSeconds"], wide=True) if "activeDeadlineSeconds" in spec else None
    if deadline is not None and deadline < 1:
        yield "activeDeadlineSeconds", f"activeDeadlineSeconds {deadline} must be at least 1 (ValidatePodSpec)"
    for i, toleration in enumerate(as_list(spec["tolerations"]) if "tolerations" in spec else ()):
        yield from _toleration_problems(i, as_dict(toleration))
    if "affinity" in spec:
        yield from _affinity_problems(as_dict(spec["affinity"]))
    if "topologySpreadConstraints" in spec:
        yield from _spread_problems(spec)
    if "affinity" in spec or "topologySpreadConstraints" in spec:
        yield from pod_selector_problems(template)
    for i, gate in enumerate(as_list(spec["readinessGates"]) if "readinessGates" in spec else ()):
        condition = _text(as_dict(gate).get("conditionType"))
        error = qualified_name_error(condition) if condition is not None else None
        if error:
            yield f"readinessGates[{i}].conditionType", f"readiness gate {condition!r}: {error} (validateReadinessGates)"
    if "dnsConfig" in spec or "dnsPolicy" in spec:
        yield from _dns_problems(spec)
    yield from _host_problems(spec)


def _check_pod_spec_values(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        for suffix, problem in chain(_spec_problems(template), spec_field_problems(template.pod_spec)):
            yield Violation(f"{problem}: {_REFUSED}", f"{template.spec_path}.{suffix}")
        for suffix, problem in annotation_problems(template, _toleration_problems):
            yield Violation(f"{problem}: {_REFUSED}", f"{template.path}.{suffix}")
        for item in template_containers(template):
            if item.field == "ephemeralContainers":
                continue  # refused as a whole (ValidatePodCreate)
            policy = _text(item.container.get("terminationMessagePolicy"))
            if policy and policy not in _TERMINATION_MESSAGE:
                yield Violation(f"terminationMessagePolicy {policy!r} is not File or FallbackToLogsOnError (validateContainerCommon): {_REFUSED}", f"{item.path}.terminationMessagePolicy")
            context = as_dict(item.container.get("securityContext"))
            for suffix, problem in _context_problems("securityContext", context, pod=False):
                yield Violation(f"{problem}: {_REFUSED}", f"{item.path}.{suffix}")
    for path, problem in autoscaler_mount_problems(manifest):
        yield Violation(f"{problem}: the API server refuses the head Pod and the cluster never starts", path)


def _with_worker_toleration(toleration: dict[str, Any]) -> Doc:
    return ex.example(lambda d: ex.worker_of(d)["template"]["spec"].update(tolerations=[toleration]))


declare(
    id="pod-spec-value-invalid",
    title="Pod template toleration, affinity, topology spread or policy the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-20",),
    enforced_by=("run-time",),
    rationale="The CRDs type a pod template's tolerations, affinity, topologySpreadConstraints, dnsPolicy, preemptionPolicy, terminationMessagePolicy and names of the node, PriorityClass and RuntimeClass, but enumerate none of their values; Pod validation (ValidatePodSpec, ValidateTolerations, ValidateNodeSelectorRequirement, validateTopologySpreadConstraints) refuses a toleration operator or effect spelled otherwise ('exists', 'noSchedule'), Exists with a value, In without values, a weight outside 1..100, maxSkew 0, a seccompProfile or appArmorProfile type spelt as the old annotations ('runtime/default'), allowPrivilegeEscalation false beside privileged, a dnsConfig without nameservers under dnsPolicy None, a hostPort other than its containerPort with hostNetwork, a net.* sysctl beside hostNetwork, a label selector operator 'in', a matchLabelKeys key already in the labelSelector, a Gt or Lt toleration whose value is no integer, a seLinuxChangePolicy other than Recursive and MountOption (what only a feature gate of the cluster decides is pod-field-needs-feature-gate, high), the template's annotations the operator copies to the Pod (the tolerations annotation, an invalid or disagreeing deprecated seccomp or AppArmor annotation, a pod-deletion-cost that is no integer), ephemeralContainers on create; and in the newer fields a container restartPolicy or restart rule spelt otherwise, a resizePolicy other than cpu or memory, NotRequired or RestartContainer, a volume both mounted and a volumeDevice, subPath with subPathExpr, recursiveReadOnly without readOnly, a fileKeyRef to a volume that is no emptyDir, pod-level resources other than cpu, memory and hugepages or below the containers' sum, a container claim the Pod does not list, and Linux-only security fields under os.name windows, so every Pod of the group is refused while the Ray object looks accepted.",
    proof="the API server's Pod validation (ValidatePodCreate) refuses these values on every Pod the operator creates from the template; unknown values and wrong types (a schema finding) are not judged",
    fix="Spell the value as Kubernetes does (operator Exists or Equal, effect NoSchedule, PreferNoSchedule or NoExecute; dnsPolicy ClusterFirst...), give In and NotIn values and Exists none, keep weights in 1..100 and maxSkew at least 1, keep a key in matchLabelKeys or the labelSelector but not both, use securityContext fields rather than the deprecated seccomp and AppArmor annotations, and leave ephemeralContainers out of the template; for the newer fields, follow the message (the Kubernetes function it names says what the API server wants).",
    check=_check_pod_spec_values,
    compliant=_with_worker_toleration({"key": NVIDIA_GPU, "operator": "Exists", "effect": "NoSchedule"}),
    violating=_with_worker_toleration({"key": NVIDIA_GPU, "operator": "exists", "effect": "NoSchedule"}),
    violating_path="spec.workerGroupSpecs[0].template.spec.tolerations[0].operator",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.tolerations[0].operator": "Exists"}),
)


# ---------------------------------------------------------------------- what a feature gate of the cluster decides
#: (path suffix under the template's spec, the field as set, the gate, what to set instead)
Gated = tuple[str, str, str, str]


def _gated_toleration(at: str, toleration: dict[str, Any]) -> Iterator[Gated]:
    operator = _text(toleration.get("operator"))
    if operator in _TOLERATION_COMPARISONS:
        yield f"{at}.operator", f"toleration operator {operator}", _COMPARISONS_GATE, "use Equal or Exists"


def _gated_fields(spec: dict[str, Any]) -> Iterator[Gated]:
    """The fields Pod validation accepts only where the API server runs a gate off by default at 1.36
    (POD_VALIDATION_GATES): each (path suffix, the field, the gate, what to set instead)."""
    for i, toleration in enumerate(as_list(spec.get("tolerations"))):
        yield from _gated_toleration(f"tolerations[{i}]", as_dict(toleration))
    recursive, mount = SELINUX_CHANGE_POLICIES
    if _text(as_dict(spec.get("securityContext")).get("seLinuxChangePolicy")) == mount:
        yield "securityContext.seLinuxChangePolicy", f"seLinuxChangePolicy {mount}", _SELINUX_GATE, f"use {recursive}"
    if spec.get("hostUsers") is False and spec.get("hostNetwork") is True:
        yield "hostNetwork", "hostNetwork true beside hostUsers false", _USERNS_GATE, "drop hostNetwork or hostUsers false"


def _gated_message(field: str, gate: str, instead: str) -> str:
    return f"{field} needs the {gate} feature gate ({POD_VALIDATION_GATES[gate]}): the API server refuses every Pod the operator creates from this template unless it runs that gate, and the workload never starts; {instead}, or judge it against the cluster (kuberay-lint --cluster, the components' preview), whose dry run decides (preflight-admission-refuses-child)"


def _check_gated_fields(manifest: Doc, ctx: Context) -> Iterator[Violation]:
    for template in built_pod_templates(manifest):
        for suffix, field, gate, instead in _gated_fields(template.pod_spec):
            yield Violation(_gated_message(field, gate, instead), f"{template.spec_path}.{suffix}")
        at, tolerations = annotation_tolerations(template)
        for i, toleration in tolerations:
            for _, field, gate, instead in _gated_toleration("", toleration):
                yield Violation(f"the tolerations annotation item {i}: {_gated_message(field, gate, instead)}", f"{template.path}.{at}")


declare(
    id="pod-field-needs-feature-gate",
    title="Pod template field the API server accepts only with a feature gate off by default",
    severity="high",
    category="correctness",
    kinds=KINDS,
    rows=("OP-27",),
    enforced_by=("run-time",),
    rationale="Pod validation accepts some values only where the API server runs a feature gate that is off by default in Kubernetes 1.36 (GetValidationOptionsFromPodSpecAndMeta): a toleration operator Gt or Lt (TaintTolerationComparisonOperators, alpha; ValidateTolerations, the tolerations annotation too), seLinuxChangePolicy MountOption (SELinuxMount, beta; validateSELinuxChangePolicy) and hostNetwork beside hostUsers false (UserNamespacesHostNetworkSupport, alpha; validateHostUsers). Where the gate is off (the default) the API server refuses every Pod the operator creates from the template while the Ray object looks accepted; a cluster that turns the gate on accepts them, so the spec alone cannot say which: high, not critical.",
    proof="the field as the template sets it and the gate's default at Kubernetes 1.36 (kube_features.go): not certain, because a cluster may run the gate on, so the finding is high; with a cluster (kuberay-lint --cluster or --live, the components' preview) the preflight's server-side dry run of the Pod decides, and a refusal there is preflight-admission-refuses-child, critical, in the server's words",
    fix="Use what every API server accepts (toleration operator Equal or Exists, seLinuxChangePolicy Recursive, hostNetwork or hostUsers false but not both), or, where the target cluster runs the gate, keep the field and check it against that cluster (kuberay-lint --cluster, or the components' preview), or suppress the rule on the object with the reason.",
    check=_check_gated_fields,
    compliant=_with_worker_toleration({"key": "example.com/tier", "operator": "Equal", "value": "3", "effect": "NoSchedule"}),
    violating=_with_worker_toleration({"key": "example.com/tier", "operator": "Gt", "value": "3", "effect": "NoSchedule"}),
    violating_path="spec.workerGroupSpecs[0].template.spec.tolerations[0].operator",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.tolerations[0].operator": "Equal"}),
)
