"""Service validation (``ValidateServiceCreate``: ``validateService`` and the functions it calls, as a v1.36 API
server runs them) over the Services the operator builds from a Ray object: the head Service
(``BuildServiceForHeadPod``: a custom ``headService`` as it is, its type defaulted from ``serviceType``, KubeRay's
ports appended) and a RayService's Serve Service (``BuildServeService``: ``serveService`` as it is, its ports merged
with the head's serving ports). The rules of children.py read these; each problem is (the field's path under the
object the user wrote, what the API server refuses). Never raise; values not known yet are not judged.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay import INT32_MAX, INT32_MIN
from pulumi_kuberay.kuberay.kubernetes import (
    LOAD_BALANCER_SOURCE_RANGES_ANNOTATION,
    SERVICE_IP_FAMILIES,
    SERVICE_IP_FAMILY_POLICIES,
    SERVICE_TRAFFIC_DISTRIBUTIONS,
    TOPOLOGY_AWARE_HINTS_ANNOTATION,
    TOPOLOGY_MODE_ANNOTATION,
)
from pulumi_kuberay.kuberay.names import HEAD_DEFAULT_PORTS, METRICS_PORT, METRICS_PORT_NAME
from pulumi_kuberay.kuberay.paths import as_dict, as_list, is_unknown

from ._manifest_readers import (
    is_dns1123_label,
    is_dns1123_subdomain,
    label_value_error,
    port_name_error,
    qualified_name_error,
)

Problem = tuple[str, str]

SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")
_CLUSTER_IP, _NODE_PORT, _LOAD_BALANCER, _EXTERNAL_NAME = SERVICE_TYPES
_EXTERNAL_TYPES = (_NODE_PORT, _LOAD_BALANCER)  # apiservice.ExternallyAccessible (or externalIPs)
_PROTOCOLS = ("TCP", "UDP", "SCTP")
_MAX_AFFINITY_TIMEOUT = 86400  # core.MaxClientIPServiceAffinitySeconds
_NONE = "None"  # core.ClusterIPNone: a headless Service
_SLOPPY_IPV4 = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")


def text(value: Any) -> str | None:
    return value if isinstance(value, str) and not is_unknown(value) else None


def port(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and INT32_MIN <= value <= INT32_MAX else None


def _strings(value: Any) -> list[str] | None:
    """A list of known strings ([] when absent); None when it or an item is not known (or not a string)."""
    if value is None:
        return []
    if not isinstance(value, list) or is_unknown(value) or not all(text(item) is not None for item in value):
        return None
    return list(value)


# --------------------------------------------------------------------------------------------------
# IP addresses and CIDRs: IsValidIPForLegacyField and IsValidCIDRForLegacyField with StrictIPCIDRValidation (beta,
# on by default in v1.36: no leading 0s, no IPv4-mapped IPv6 address, no bits beyond the prefix), ValidateEndpointIP


def ip_error(value: str) -> str | None:
    """Why the API server takes ``value`` for no IP address, or None. ParseIPSloppy knows no zone ('%eth0')."""
    try:
        address = ipaddress.ip_address(value) if "%" not in value else None
    except ValueError:
        address = None
    if address is None:
        sloppy = _SLOPPY_IPV4.fullmatch(value) and all(int(octet) < 256 for octet in value.split("."))
        return "must not have leading 0s" if sloppy else "is not an IP address"
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return f"must not be an IPv4-mapped IPv6 address (write {address.ipv4_mapped})"
    return None


def endpoint_ip_error(value: str) -> str | None:
    """ValidateEndpointIP of an IP address: not unspecified, loopback, link-local or link-local multicast."""
    address = ipaddress.ip_address(value)
    packed = address.packed
    if address.is_unspecified:
        return "may not be unspecified"
    if address.is_loopback:
        return "may not be in the loopback range (127.0.0.0/8, ::1/128)"
    if address.is_link_local:
        return "may not be in the link-local range (169.254.0.0/16, fe80::/10)"
    multicast = packed[:3] == b"\xe0\x00\x00" if address.version == 4 else packed[0] == 0xFF and packed[1] & 0x0F == 2
    return "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)" if multicast else None


def cidr_error(value: str) -> str | None:
    """Why the API server takes ``value`` for no CIDR (``10.0.0.0/8``), or None."""
    address, slash, bits = value.partition("/")
    if not slash or not bits.isascii() or not bits.isdigit():
        return "is not a CIDR (an address, '/' and a prefix length, e.g. 10.0.0.0/8)"
    error = ip_error(address)
    if error is not None:
        return error if error != "is not an IP address" else "is not a CIDR (an address, '/' and a prefix length)"
    if len(bits) > 1 and bits.startswith("0"):
        return "must not have leading 0s in its prefix length"
    try:
        network = ipaddress.ip_network(f"{address}/{int(bits)}", strict=False)
    except ValueError:
        return "has a prefix length longer than its address"
    if network.network_address != ipaddress.ip_address(address):
        return f"must not have bits set beyond the prefix length (write {network})"
    return None


# --------------------------------------------------------------------------------------------------
# The ports of a Service


def head_service_ports(head: dict[str, Any]) -> dict[tuple[int, str], str] | None:
    """KubeRay's own ports of the head Service (getServicePorts: the head container's ports, an unnamed one
    '<number>-port', else the default ports; 'metrics' 8080 unless named), (number, protocol) -> name; None when
    one is not known."""
    named = head_container_ports(head)
    if named is None:
        return None
    named = named or dict(HEAD_DEFAULT_PORTS)
    named.setdefault(METRICS_PORT_NAME, METRICS_PORT)
    return {(number, "TCP"): name for name, number in named.items()}


def head_container_ports(head: dict[str, Any]) -> dict[str, int] | None:
    """The head container's ports by name (getPortsFromCluster), None when one is not known."""
    container = as_dict((as_list(as_dict(as_dict(head.get("template")).get("spec")).get("containers")) or [{}])[0])
    named: dict[str, int] = {}
    for item in as_list(container.get("ports")):
        number, name = port(as_dict(item).get("containerPort")), as_dict(item).get("name")
        if number is None or (name is not None and text(name) is None):
            return None
        named[name or f"{number}-port"] = number
    return named


def head_port_problems(ports: list[Any], kuberay: dict[tuple[int, str], str]) -> Iterator[Problem]:
    """The names and numbers of a custom headService's ports beside KubeRay's, which BuildServiceForHeadPod appends
    (validateService: unique names and port/protocol; validateServicePort: names required with several ports)."""
    names, numbers = set(kuberay.values()), dict(kuberay)
    for i, item in enumerate(ports):
        entry, at = as_dict(item), f"ports[{i}]"
        name, number, protocol = entry.get("name"), port(entry.get("port")), text(entry.get("protocol")) or "TCP"
        if name is None:
            yield (
                f"{at}",
                "a port of the custom headService has no name; KubeRay adds its own ports, and a Service of several ports names each one (validateServicePort)",
            )
        elif text(name) is not None and not is_dns1123_label(name):
            yield (
                f"{at}.name",
                f"port name {name!r} is not a DNS-1123 label (lower-case letters, digits and '-') (validateServicePort)",
            )
        elif text(name) is not None and name in names:
            yield (
                f"{at}.name",
                f"port name {name!r} is used twice: KubeRay adds the head container's ports (and 'metrics') to the custom headService's under their own names (validateService: Duplicate value)",
            )
        if isinstance(name, str):
            names.add(name)
        if number is not None and 1 <= number <= 65535 and (number, protocol) in numbers:
            yield (
                f"{at}.port",
                f"port {number}/{protocol} is already the Service's port {numbers[(number, protocol)]!r}: KubeRay adds the head container's ports (and 'metrics' 8080) to the custom headService's (validateService: Duplicate value)",
            )
        elif number is not None:
            numbers[(number, protocol)] = str(name)


def node_port_problems(ports: list[tuple[int, Any]]) -> Iterator[Problem]:
    """validateService: a nodePort once per protocol among the ports the Service gets ((index, port) of the ports
    the user wrote: KubeRay's own have none)."""
    seen: set[tuple[int, str]] = set()
    for i, item in ports:
        node_port, protocol = port(as_dict(item).get("nodePort")), text(as_dict(item).get("protocol")) or "TCP"
        if node_port and (node_port, protocol) in seen:
            yield (
                f"ports[{i}].nodePort",
                f"nodePort {node_port}/{protocol} is used twice (validateService: Duplicate value)",
            )
        if node_port:
            seen.add((node_port, protocol))


def serving_port(name: str, *, merged: bool) -> bool:
    """isServingPort: 'serve' or 'serve-<protocol>' ('serve-grpc'); before KubeRay 1.6 only 'serve'."""
    return name == "serve" or (merged and name.startswith("serve-"))


def serve_port_problems(
    spec: dict[str, Any], head: dict[str, Any], kind: str | None, *, merged: bool
) -> Iterator[Problem]:
    """The ports of a RayService's Serve Service (BuildServeService). From KubeRay 1.6 (``merged``): the head
    container's serving ports, each replaced by the serveService port of its name (the others dropped), or, when the
    head has none, serveService's ports as they are. Before: the head's 'serve' port, or serveService's first port
    named 'serve' (its name and number only). A Service without ports is refused (but a headless or ExternalName
    one)."""
    user, named = spec.get("ports"), head_container_ports(head)
    if (user is not None and (is_unknown(user) or not isinstance(user, list))) or named is None:
        return
    ports = as_list(user)
    auto = {
        name: number
        for name, number in sorted((named or dict(HEAD_DEFAULT_PORTS)).items())
        if serving_port(name, merged=merged)
    }
    if any(as_dict(item).get("name") is not None and is_unknown(as_dict(item).get("name")) for item in ports):
        return
    if auto:
        yield from _merged_port_problems(ports, auto, kind) if merged else ()
        return
    kept = (
        list(enumerate(ports))
        if merged
        else [(i, p) for i, p in enumerate(ports) if as_dict(p).get("name") == "serve"][:1]
    )
    single = spec.get("clusterIP") or (as_list(spec.get("clusterIPs")) or [None])[0]
    if not kept and kind != _EXTERNAL_NAME and single != _NONE:
        serve = "a port named 'serve' (or 'serve-<protocol>')" if merged else "a port named 'serve'"
        yield (
            "ports",
            f"the Serve Service gets no ports: neither the head container nor serveService.spec.ports has {serve} (validateService: ports Required)",
        )
    names: set[str] = set()
    for i, item in kept:
        if not merged:  # only its name and number reach the Service
            number = port(as_dict(item).get("port"))
            if number is not None and not 1 <= number <= 65535:
                yield f"ports[{i}].port", f"port {number} is not a port number (1-65535) (validateServicePort)"
            continue
        given, name = as_dict(item).get("name"), text(as_dict(item).get("name"))
        if not given and len(kept) > 1:
            yield (
                f"ports[{i}]",
                "a port of serveService has no name; a Service of several ports names each one (validateServicePort)",
            )
        elif name and not is_dns1123_label(name):
            yield (
                f"ports[{i}].name",
                f"port name {name!r} is not a DNS-1123 label (lower-case letters, digits and '-') (validateServicePort)",
            )
        elif name and name in names:
            yield f"ports[{i}].name", f"port name {name!r} is used twice (validateService: Duplicate value)"
        if name:
            names.add(name)
        for suffix, problem in port_problems(item, kind):
            yield f"ports[{i}].{suffix}", problem
    yield from node_port_problems(kept if merged else [])


def _merged_port_problems(ports: list[Any], auto: dict[str, int], kind: str | None) -> Iterator[Problem]:
    """The head's serving ports, each replaced by the serveService port of its name (the last of that name)."""
    by_name = {as_dict(item).get("name") or "": i for i, item in enumerate(ports)}
    by_number: dict[tuple[int, str], list[tuple[str, int | None]]] = {}
    kept = sorted(i for name, i in by_name.items() if name in auto)
    yield from node_port_problems([(i, ports[i]) for i in kept])
    for name, number in auto.items():
        i = by_name.get(name)
        item = as_dict(ports[i]) if i is not None else {"port": number}
        if i is not None:
            for suffix, problem in port_problems(item, kind):
                yield f"ports[{i}].{suffix}", problem
        value = port(item.get("port"))
        if value is not None:
            by_number.setdefault((value, text(item.get("protocol")) or "TCP"), []).append((name, i))
    for (value, protocol), users in by_number.items():
        given = [(name, i) for name, i in users if i is not None]
        if len(users) > 1 and given:  # reported once, at the serveService port that made it twice
            name, i = given[-1]
            others = ", ".join(repr(other) for other, _ in users if other != name)
            yield (
                f"ports[{i}].port",
                f"port {value}/{protocol} of {name!r} is also the Serve Service's port {others}: BuildServeService keeps the head's serving ports (a serveService port of the same name replaces one) (validateService: Duplicate value)",
            )


def port_problems(item: Any, kind: str | None) -> Iterator[Problem]:
    """validateServicePort's checks of one port the Service gets as the user wrote it (but its name), and
    validateService's nodePort on a ClusterIP Service."""
    entry = as_dict(item)
    number, protocol = port(entry.get("port")), text(entry.get("protocol")) or "TCP"
    if number is not None and not 1 <= number <= 65535:
        yield "port", f"port {number} is not a port number (1-65535) (validateServicePort)"
    if protocol not in _PROTOCOLS:
        yield "protocol", f"protocol {protocol!r} is not one of TCP, UDP, SCTP (upper case) (validateServicePort)"
    target, target_name = port(entry.get("targetPort")), text(entry.get("targetPort"))
    if target and not 1 <= target <= 65535:  # 0 (or "") is defaulted to the port
        yield "targetPort", f"targetPort {target} is not a port number (1-65535) (ValidatePortNumOrName)"
    elif target_name and port_name_error(target_name):
        hint = ": write the number without quotes" if target_name.isdigit() else f": {port_name_error(target_name)}"
        yield (
            "targetPort",
            f"targetPort {target_name!r} is neither a port number nor a port name{hint} (ValidatePortNumOrName)",
        )
    app_protocol = text(entry.get("appProtocol"))
    error = qualified_name_error(app_protocol) if app_protocol is not None else None
    if error:
        yield (
            "appProtocol",
            f"appProtocol {app_protocol!r} is not a qualified name ('h2c', 'kubernetes.io/ws'): {error} (validateServicePort)",
        )
    if kind in (None, _CLUSTER_IP) and port(entry.get("nodePort")):
        yield "nodePort", f"nodePort is not for a {kind or _CLUSTER_IP} Service (validateService)"


# --------------------------------------------------------------------------------------------------
# The spec of a custom Service (headService.spec, serveService.spec), but its ports: suffixes under that spec


def spec_problems(spec: dict[str, Any], kind: str | None) -> Iterator[Problem]:
    """validateService's checks of the fields the operator copies as they are; ``kind`` the Service's type after
    the operator's default (None: ClusterIP)."""
    if spec.get("type") is not None and text(spec.get("type")) and spec["type"] not in SERVICE_TYPES:
        yield (
            "type",
            f"Service type {spec['type']!r} is not one of {', '.join(SERVICE_TYPES)} (case matters) (validateService)",
        )
    yield from _affinity_problems(spec)
    yield from _policy_problems(spec, kind)
    yield from _load_balancer_problems(spec, kind)
    for i, value in enumerate(_strings(spec.get("externalIPs")) or ()):
        error = ip_error(value) or endpoint_ip_error(value)
        if error:
            yield f"externalIPs[{i}]", f"externalIP {value!r} {error} (validateService, ValidateEndpointIP)"
    if kind == _EXTERNAL_NAME:
        yield from _external_name_problems(spec)
    else:
        yield from _family_problems(spec)
        yield from _cluster_ip_problems(spec, kind)


def _policy_problems(spec: dict[str, Any], kind: str | None) -> Iterator[Problem]:
    """The traffic policies (validateServiceExternalTrafficPolicy, validateServiceInternalTrafficFieldsValue,
    validateServiceTrafficDistribution)."""
    internal = text(spec.get("internalTrafficPolicy"))
    if internal and internal not in ("Cluster", "Local"):
        yield (
            "internalTrafficPolicy",
            f"internalTrafficPolicy {internal!r} is not Cluster or Local (validateServiceInternalTrafficFieldsValue)",
        )
    external_ips = _strings(spec.get("externalIPs"))
    policy = text(spec.get("externalTrafficPolicy"))
    external = kind in _EXTERNAL_TYPES or (kind in (None, _CLUSTER_IP) and bool(external_ips))
    if policy and policy not in ("Cluster", "Local"):
        yield (
            "externalTrafficPolicy",
            f"externalTrafficPolicy {policy!r} is not Cluster or Local (validateServiceExternalTrafficPolicy)",
        )
    elif policy and not external and external_ips is not None:
        yield (
            "externalTrafficPolicy",
            f"externalTrafficPolicy is only for a NodePort or LoadBalancer Service, this one is {kind or _CLUSTER_IP} (validateServiceExternalTrafficPolicy)",
        )
    health = port(spec.get("healthCheckNodePort"))
    if health and not (kind == _LOAD_BALANCER and policy == "Local"):
        yield (
            "healthCheckNodePort",
            f"healthCheckNodePort is only for a LoadBalancer Service with externalTrafficPolicy Local, this one is {kind or _CLUSTER_IP} with {policy or 'Cluster'} (validateServiceExternalTrafficPolicy)",
        )
    elif health and not 1 <= health <= 65535:
        yield (
            "healthCheckNodePort",
            f"healthCheckNodePort {health} is not a port number (1-65535) (validateServiceExternalTrafficPolicy)",
        )
    distribution = text(spec.get("trafficDistribution"))
    if distribution is not None and distribution not in SERVICE_TRAFFIC_DISTRIBUTIONS:
        yield (
            "trafficDistribution",
            f"trafficDistribution {distribution!r} is not one of {', '.join(SERVICE_TRAFFIC_DISTRIBUTIONS)} (validateServiceTrafficDistribution)",
        )


def _load_balancer_problems(spec: dict[str, Any], kind: str | None) -> Iterator[Problem]:
    """The fields only a LoadBalancer Service takes (validateService, validateLoadBalancerClassField)."""
    load_balancer_class = text(spec.get("loadBalancerClass"))
    if load_balancer_class is not None and (kind != _LOAD_BALANCER or qualified_name_error(load_balancer_class)):
        yield (
            "loadBalancerClass",
            f"loadBalancerClass {load_balancer_class!r} goes only on a LoadBalancer Service, as a qualified name (validateLoadBalancerClassField)",
        )
    if isinstance(spec.get("allocateLoadBalancerNodePorts"), bool) and kind != _LOAD_BALANCER:
        yield (
            "allocateLoadBalancerNodePorts",
            f"allocateLoadBalancerNodePorts is only for a LoadBalancer Service, this one is {kind or _CLUSTER_IP} (validateService)",
        )
    ranges = _strings(spec.get("loadBalancerSourceRanges")) or []
    if ranges and kind != _LOAD_BALANCER:
        yield (
            "loadBalancerSourceRanges",
            f"loadBalancerSourceRanges are only for a LoadBalancer Service, this one is {kind or _CLUSTER_IP} (validateService)",
        )
    for i, value in enumerate(ranges):
        error = cidr_error(value.strip())  # the values may be space-padded (the annotation's legacy)
        if error:
            yield f"loadBalancerSourceRanges[{i}]", f"loadBalancerSourceRanges {value!r} {error} (validateService)"


def _affinity_problems(spec: dict[str, Any]) -> Iterator[Problem]:
    affinity = text(spec.get("sessionAffinity"))
    if affinity and affinity not in ("None", "ClientIP"):
        yield "sessionAffinity", f"sessionAffinity {affinity!r} is not None or ClientIP (validateService)"
    # A sessionAffinityConfig beside sessionAffinity None (or none: defaulted to None) is refused by no one: the API
    # server's defaulting (SetDefaults_Service) drops it before validateService sees it.
    timeout = port(as_dict(as_dict(spec.get("sessionAffinityConfig")).get("clientIP")).get("timeoutSeconds"))
    if affinity == "ClientIP" and timeout is not None and not 0 < timeout <= _MAX_AFFINITY_TIMEOUT:
        yield (
            "sessionAffinityConfig.clientIP.timeoutSeconds",
            f"timeoutSeconds {timeout} is not in 1..{_MAX_AFFINITY_TIMEOUT} (validateAffinityTimeout)",
        )


def _external_name_problems(spec: dict[str, Any]) -> Iterator[Problem]:
    """validateService of an ExternalName Service: a DNS name (a trailing '.' allowed), no cluster IP or family."""
    name = spec.get("externalName")
    if name is None or text(name) is not None:
        cname = name[:-1] if name and name.endswith(".") else name
        if not cname:
            yield (
                "externalName",
                "an ExternalName Service needs spec.externalName, the DNS name it stands for (validateService)",
            )
        elif not is_dns1123_subdomain(cname):
            yield (
                "externalName",
                f"externalName {name!r} is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.') (validateService)",
            )
    for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
        value = spec.get(key)
        unset = value is None or (value in ("", []) and key != "ipFamilyPolicy")  # a policy of "" is one (a pointer)
        if not unset and not is_unknown(value):
            yield key, f"{key} is not for an ExternalName Service (validateService)"


def _family_problems(spec: dict[str, Any]) -> Iterator[Problem]:
    """ipFamilyPolicy and ipFamilies on their own (ValidateServiceClusterIPsRelatedFields)."""
    policy, families = text(spec.get("ipFamilyPolicy")), _strings(spec.get("ipFamilies"))
    if policy is not None and policy not in SERVICE_IP_FAMILY_POLICIES:
        yield (
            "ipFamilyPolicy",
            f"ipFamilyPolicy {policy!r} is not one of {', '.join(SERVICE_IP_FAMILY_POLICIES)} (ValidateServiceClusterIPsRelatedFields)",
        )
    for i, family in enumerate(families or ()):
        if family not in SERVICE_IP_FAMILIES:
            yield (
                f"ipFamilies[{i}]",
                f"ipFamily {family!r} is not IPv4 or IPv6 (ValidateServiceClusterIPsRelatedFields)",
            )
        elif family in (families or [])[:i]:
            yield f"ipFamilies[{i}]", f"ipFamily {family} is listed twice (ValidateServiceClusterIPsRelatedFields)"


def _cluster_ip_problems(spec: dict[str, Any], kind: str | None) -> Iterator[Problem]:
    """ValidateServiceClusterIPsRelatedFields of a create, after normalizeClusterIPs (clusterIPs from clusterIP);
    and validateService: no headless NodePort or LoadBalancer Service."""
    single, given = spec.get("clusterIP"), _strings(spec.get("clusterIPs"))
    if (single is None and not given) or (single is not None and text(single) is None) or given is None:
        return
    single = single or ""
    at = "clusterIPs" if given else "clusterIP"
    ips = given or ([single] if single else [])
    if single and ips[0] != single:
        yield (
            "clusterIPs",
            f"clusterIPs[0] {ips[0]!r} is not clusterIP {single!r}: the first must be the same (ValidateServiceClusterIPsRelatedFields)",
        )
    elif not single and ips:
        yield (
            "clusterIPs",
            "clusterIPs without clusterIP: set clusterIP to clusterIPs[0] (ValidateServiceClusterIPsRelatedFields)",
        )
    if len(ips) > 2:
        yield (
            "clusterIPs",
            f"{len(ips)} clusterIPs, at most 2 (one IPv4, one IPv6) (ValidateServiceClusterIPsRelatedFields)",
        )
    errors = list(_cluster_ip_errors(ips, at))
    yield from errors
    if errors or not ips:
        return
    headless = ips == [_NONE]
    versions = [] if headless else [ipaddress.ip_address(value).version for value in ips]
    if len(versions) == 2 and versions[0] == versions[1]:
        yield (
            "clusterIPs",
            "two clusterIPs of one IP family: at most one IPv4 and one IPv6 (ValidateServiceClusterIPsRelatedFields)",
        )
    for i, (version, family) in enumerate(zip(versions, _strings(spec.get("ipFamilies")) or (), strict=False)):
        if family in SERVICE_IP_FAMILIES and f"IPv{version}" != family:
            yield (
                (f"{at}[{i}]" if given else at),
                f"cluster IP {ips[i]!r} is not {family} as ipFamilies[{i}] says (ValidateServiceClusterIPsRelatedFields)",
            )
    if headless and kind in _EXTERNAL_TYPES:
        yield at, f"clusterIP None (a headless Service) is not for a {kind} Service (validateService)"


def _cluster_ip_errors(ips: list[str], at: str) -> Iterator[Problem]:
    """Each cluster IP an IP address, or 'None' alone (a headless Service)."""
    for i, value in enumerate(ips):
        if i == 0 and value == _NONE:
            if len(ips) > 1:
                yield (
                    at,
                    "clusterIPs 'None' (a headless Service) must be the first and only value (ValidateServiceClusterIPsRelatedFields)",
                )
            continue
        error = ip_error(value)
        if error:
            where = f"{at}[{i}]" if at == "clusterIPs" else at
            yield (
                where,
                f"cluster IP {value!r} {error}; 'None' makes a headless Service (ValidateServiceClusterIPsRelatedFields)",
            )


def annotation_problems(annotations: dict[str, Any], spec: dict[str, Any], kind: str | None) -> Iterator[Problem]:
    """validateService of the Service's annotations, (key, problem): the topology annotations equal when both are
    set; the load-balancer-source-ranges annotation (read only without spec.loadBalancerSourceRanges) a
    LoadBalancer Service's, comma-separated CIDRs."""
    mode, hints = annotations.get(TOPOLOGY_MODE_ANNOTATION), annotations.get(TOPOLOGY_AWARE_HINTS_ANNOTATION)
    if text(mode) is not None and text(hints) is not None and mode != hints:
        yield (
            TOPOLOGY_MODE_ANNOTATION,
            f"the {TOPOLOGY_MODE_ANNOTATION} annotation {mode!r} is not the deprecated {TOPOLOGY_AWARE_HINTS_ANNOTATION} annotation's {hints!r}: keep one, or the same value in both (validateService)",
        )
    key = LOAD_BALANCER_SOURCE_RANGES_ANNOTATION
    if key not in annotations or spec.get("loadBalancerSourceRanges"):
        return
    if kind != _LOAD_BALANCER:
        yield (
            key,
            f"the {key} annotation is only for a LoadBalancer Service, this one is {kind or _CLUSTER_IP} (validateService)",
        )
        return
    ranges = text(annotations[key])
    for cidr in ranges.strip().split(",") if ranges and ranges.strip() else ():
        error = cidr_error(cidr.strip())
        if error:
            yield key, f"the {key} annotation's {cidr.strip()!r} {error} (validateService)"
            return


def metadata_problems(labels: Any, annotations: Any, what: str, kept: tuple[str, ...] = ()) -> Iterator[Problem]:
    """ValidateObjectMeta of a Service: label keys and values, annotation keys (``kept``: labels the operator
    sets over the user's)."""
    for part, values in (("labels", labels), ("annotations", annotations)):
        for key, value in as_dict(values).items():
            if not isinstance(key, str) or is_unknown(key):
                continue
            error = qualified_name_error(key)
            if error is None and part == "labels" and key not in kept and text(value) is not None:
                error = label_value_error(value)
            if error:
                yield f'{part}["{key}"]', f"{what} {part[:-1]} {key!r}: {error} (ValidateObjectMeta)"


def name_problem(name: Any) -> str | None:
    """ValidateServiceName as RelaxedServiceNameValidation (beta, on by default in v1.36) has it: a DNS-1123 label."""
    value = text(name)
    if value and not is_dns1123_label(value):
        return f"Service name {value!r} is not a DNS-1123 label (at most 63 lower-case letters, digits and '-') (ValidateServiceCreate)"
    return None
