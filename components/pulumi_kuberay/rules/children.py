"""What the API server refuses in the children other than Pods the operator builds from a Ray object: the head
Service (``BuildServiceForHeadPod``: ``ValidateServiceCreate``), the head Ingress (``BuildIngressForHeadService``:
``ValidateIngressCreate``) and a RayJob's submitter Job (``createNewK8sJob``: ``ValidateJob``). The CRDs type the
fields these come from without Kubernetes' own checks, so the Ray object is stored and the child is refused on every
reconcile; docs/kubernetes-validation.md lists the checks. Plain Python, no pulumi.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from itertools import chain
from typing import Any

from pulumi_kuberay.kuberay import INT32_MAX, INT32_MIN
from pulumi_kuberay.kuberay.names import HEAD_DEFAULT_PORTS, INGRESS_CLASS_ANNOTATION, METRICS_PORT, METRICS_PORT_NAME
from pulumi_kuberay.kuberay.paths import as_dict, as_list, is_unknown, join

from . import _examples as ex
from ._engine import KINDS, Context, Violation, declare
from ._fixed import patch
from ._manifest_readers import (
    built_cluster_specs,
    is_dns1123_label,
    is_dns1123_subdomain,
    label_value_error,
    per_job_spec,
    qualified_name_error,
    reported_as,
    submission_mode,
)

Doc = dict[str, Any]

# --------------------------------------------------------------------------------------------------
# ValidateServiceCreate on the head Service: its type (headGroupSpec.serviceType, or the custom headService's), and
# the custom headService's ports, which BuildServiceForHeadPod puts before KubeRay's own (getServicePorts: the head
# container's ports, an unnamed one "<number>-port", or the default ports; "metrics" 8080 unless named)

_SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")
_EXTERNAL_TYPES = ("NodePort", "LoadBalancer")  # apiservice.ExternallyAccessible (or externalIPs)
_PROTOCOLS = ("TCP", "UDP", "SCTP")
_MAX_AFFINITY_TIMEOUT = 86400  # core.MaxClientIPServiceAffinitySeconds
Problem = tuple[str, str]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and not is_unknown(value) else None


def _port(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and INT32_MIN <= value <= INT32_MAX else None


def _kuberay_ports(head: dict[str, Any]) -> dict[tuple[int, str], str] | None:
    """KubeRay's own ports of the head Service, (number, protocol) -> name; None when one is not known."""
    container = as_dict((as_list(as_dict(as_dict(head.get("template")).get("spec")).get("containers")) or [{}])[0])
    named: dict[str, int] = {}
    for port in as_list(container.get("ports")):
        number, name = _port(as_dict(port).get("containerPort")), as_dict(port).get("name")
        if number is None or (name is not None and _text(name) is None):
            return None
        named[name or f"{number}-port"] = number
    named = named or dict(HEAD_DEFAULT_PORTS)
    named.setdefault(METRICS_PORT_NAME, METRICS_PORT)
    return {(number, "TCP"): name for name, number in named.items()}


def _service_port_problems(ports: list[Any], kuberay: dict[tuple[int, str], str]) -> Iterator[Problem]:
    names, numbers = set(kuberay.values()), dict(kuberay)
    for i, item in enumerate(ports):
        port, at = as_dict(item), f"ports[{i}]"
        name, number, protocol = port.get("name"), _port(port.get("port")), _text(port.get("protocol")) or "TCP"
        if name is None:
            yield f"{at}", "a port of the custom headService has no name; KubeRay adds its own ports, and a Service of several ports names each one (validateServicePort)"
        elif _text(name) is not None and not is_dns1123_label(name):
            yield f"{at}.name", f"port name {name!r} is not a DNS-1123 label (lower-case letters, digits and '-') (validateServicePort)"
        elif _text(name) is not None and name in names:
            yield f"{at}.name", f"port name {name!r} is used twice: KubeRay adds the head container's ports (and 'metrics') to the custom headService's under their own names (validateService: Duplicate value)"
        if isinstance(name, str):
            names.add(name)
        if number is not None and not 1 <= number <= 65535:
            yield f"{at}.port", f"port {number} is not a port number (1-65535) (validateServicePort)"
        elif number is not None and (number, protocol) in numbers:
            yield f"{at}.port", f"port {number}/{protocol} is already the Service's port {numbers[(number, protocol)]!r}: KubeRay adds the head container's ports (and 'metrics' 8080) to the custom headService's (validateService: Duplicate value)"
        elif number is not None:
            numbers[(number, protocol)] = str(name)
        if protocol not in _PROTOCOLS:
            yield f"{at}.protocol", f"protocol {protocol!r} is not one of TCP, UDP, SCTP (upper case) (validateServicePort)"


def _service_problems(head: dict[str, Any]) -> Iterator[Problem]:
    service_spec = as_dict(as_dict(head.get("headService")).get("spec"))
    kind = _text(service_spec.get("type")) or _text(head.get("serviceType"))
    for value, at in ((head.get("serviceType"), "serviceType"), (service_spec.get("type"), "headService.spec.type")):
        if _text(value) and value not in _SERVICE_TYPES:
            yield at, f"Service type {value!r} is not one of {', '.join(_SERVICE_TYPES)} (case matters) (validateService)"
    if not service_spec:
        return  # no custom headService spec (most heads): nothing below has anything to judge
    affinity = _text(service_spec.get("sessionAffinity"))
    if affinity and affinity not in ("None", "ClientIP"):
        yield "headService.spec.sessionAffinity", f"sessionAffinity {affinity!r} is not None or ClientIP (validateService)"
    config = service_spec.get("sessionAffinityConfig")
    timeout = _port(as_dict(as_dict(config).get("clientIP")).get("timeoutSeconds"))
    defaulted = service_spec.get("sessionAffinity") is None  # the API server defaults it to None
    if isinstance(config, dict) and (affinity == "None" or defaulted):
        yield "headService.spec.sessionAffinityConfig", "sessionAffinityConfig is only for sessionAffinity ClientIP (validateService)"
    elif affinity == "ClientIP" and timeout is not None and not 0 < timeout <= _MAX_AFFINITY_TIMEOUT:
        yield "headService.spec.sessionAffinityConfig.clientIP.timeoutSeconds", f"timeoutSeconds {timeout} is not in 1..{_MAX_AFFINITY_TIMEOUT} (validateAffinityTimeout)"
    internal = _text(service_spec.get("internalTrafficPolicy"))
    if internal and internal not in ("Cluster", "Local"):
        yield "headService.spec.internalTrafficPolicy", f"internalTrafficPolicy {internal!r} is not Cluster or Local (validateServiceInternalTrafficFieldsValue)"
    policy = _text(service_spec.get("externalTrafficPolicy"))
    external = kind in _EXTERNAL_TYPES or bool(as_list(service_spec.get("externalIPs")))
    if policy and policy not in ("Cluster", "Local"):
        yield "headService.spec.externalTrafficPolicy", f"externalTrafficPolicy {policy!r} is not Cluster or Local (validateServiceExternalTrafficPolicy)"
    elif policy and not external:
        yield "headService.spec.externalTrafficPolicy", f"externalTrafficPolicy is only for a NodePort or LoadBalancer Service, this one is {kind or 'ClusterIP'} (validateServiceExternalTrafficPolicy)"
    load_balancer_class = _text(service_spec.get("loadBalancerClass"))
    if load_balancer_class is not None and (kind != "LoadBalancer" or qualified_name_error(load_balancer_class)):
        yield "headService.spec.loadBalancerClass", f"loadBalancerClass {load_balancer_class!r} goes only on a LoadBalancer Service, as a qualified name (validateLoadBalancerClassField)"
    for i, port in enumerate(as_list(service_spec.get("ports")) if kind in (None, "ClusterIP") else ()):
        if _port(as_dict(port).get("nodePort")):
            yield f"headService.spec.ports[{i}].nodePort", f"nodePort is not for a {kind or 'ClusterIP'} Service (validateService)"
    ports = service_spec.get("ports")
    kuberay = _kuberay_ports(head)
    if kuberay is not None and isinstance(ports, list) and not is_unknown(ports):
        for suffix, problem in _service_port_problems(ports, kuberay):
            yield f"headService.spec.{suffix}", problem


def _metadata_problems(labels: Any, annotations: Any) -> Iterator[Problem]:
    """ValidateObjectMeta of the head Service: label keys and values, annotation keys."""
    for kind, values in (("labels", labels), ("annotations", annotations)):
        for key, value in as_dict(values).items():
            if not isinstance(key, str) or is_unknown(key):
                continue
            error = qualified_name_error(key)
            if error is None and kind == "labels" and _text(value) is not None:
                error = label_value_error(value)
            if error:
                yield f'{kind}["{key}"]', f"head Service {kind[:-1]} {key!r}: {error} (ValidateObjectMeta)"


def _check_service(doc: Doc, ctx: Context) -> Iterator[Violation]:
    for ref in built_cluster_specs(doc):
        head = as_dict(ref.spec.get("headGroupSpec"))
        head_path = join(ref.prefix, "headGroupSpec")
        meta = as_dict(as_dict(head.get("headService")).get("metadata"))
        custom = _metadata_problems(meta.get("labels"), meta.get("annotations"))
        extra = _metadata_problems(None, ref.spec.get("headServiceAnnotations"))
        problems = chain(
            ((f"{head_path}.{at}", p) for at, p in _service_problems(head)),
            ((f"{head_path}.headService.metadata.{at}", p) for at, p in custom),
            ((join(ref.prefix, "headServiceAnnotations") + at[len("annotations") :], p) for at, p in extra),
        )
        for path, problem in problems:
            yield Violation(f"{problem}: the API server refuses the head Service and workers never find the head{reported_as(ref)}", path)


def _with_head_service(spec: dict[str, Any]) -> Doc:
    return ex.example(lambda d: ex.head_of(d).update(headService={"spec": spec}))


declare(
    id="head-service-invalid",
    title="Head Service type or custom headService the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-22",),
    enforced_by=("run-time",),
    rationale="BuildServiceForHeadPod gives the head Service headGroupSpec.serviceType (or the custom headService's own type) and adds KubeRay's ports (the head container's, 'metrics' 8080) to a custom headService's; the CRD takes any string and any port list there, but Service validation (ValidateServiceCreate) accepts only the types ClusterIP, NodePort, LoadBalancer and ExternalName, wants every port of a several-port Service named (a DNS-1123 label) and each name and port number once, externalTrafficPolicy only on a NodePort or LoadBalancer Service, sessionAffinityConfig only with ClientIP (timeoutSeconds up to a day), internalTrafficPolicy Cluster or Local, and label and annotation keys (headService.metadata, headServiceAnnotations) that are qualified names: the cluster is left without its head Service, workers cannot join, jobs and Serve never start.",
    proof="the API server's Service validation (ValidateServiceCreate) refuses the head Service the operator builds, on every reconcile; ports the head container does not name known are not judged",
    fix="Spell the type as Kubernetes does (ClusterIP, NodePort, LoadBalancer); in a custom headService name every port, and leave out the ports KubeRay adds from the head container (dashboard, client, gcs-server, serve, metrics).",
    check=_check_service,
    compliant=_with_head_service({"type": "LoadBalancer", "ports": [{"name": "app", "port": 12345}]}),
    violating=_with_head_service({"type": "LoadBalancer", "ports": [{"name": "dashboard", "port": 8265}]}),
    violating_path="spec.headGroupSpec.headService.spec.ports[0].name",
    fixed=patch({"spec.headGroupSpec.headService.spec.ports[0]": {"name": "app", "port": 12345}}),
)


# --------------------------------------------------------------------------------------------------
# ValidateIngressCreate: the head Ingress (headGroupSpec.enableIngress), its class from the object's
# kubernetes.io/ingress.class annotation and ingressOptions' host, path and tls as they are

_BAD_PATH_PARTS = ("//", "/./", "/../", "%2f", "%2F")  # invalidPathSequences
_BAD_PATH_ENDS = ("/..", "/.")  # invalidPathSuffixes
_WILDCARD_HOST = re.compile(r"\*\.")


def _host_error(host: str, *, rule: bool) -> str | None:
    """Like validateIngressRules' (``rule``: no IP address) and validateIngressTLS' host checks
    (IsWildcardDNS1123Subdomain where the host has a '*', else IsDNS1123Subdomain)."""
    try:
        ipaddress.ip_address(host)
        if rule:
            return "must be a DNS name, not an IP address"
    except ValueError:
        pass
    name = host[2:] if _WILDCARD_HOST.match(host) else host
    if not name or not is_dns1123_subdomain(name) or "*" in name:
        return "must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.'), with '*.' only as its first part"
    return None


def _path_error(path: str, path_type: str) -> str | None:
    if path_type == "ImplementationSpecific":
        return "must be an absolute path (start with '/')" if path and not path.startswith("/") else None
    if not path.startswith("/"):
        return "must be an absolute path (start with '/')"
    bad = [p for p in _BAD_PATH_PARTS if p in path] + [s for s in _BAD_PATH_ENDS if path.endswith(s)]
    return f"must not contain or end with {bad[0]!r}" if bad else None


def _ingress_problems(doc: Doc, head: dict[str, Any], annotations: dict[str, Any]) -> Iterator[tuple[str, str]]:
    ingress_class = _text(annotations.get(INGRESS_CLASS_ANNOTATION))
    if ingress_class is not None and not is_dns1123_subdomain(ingress_class):
        yield "", f"the {INGRESS_CLASS_ANNOTATION} annotation {ingress_class!r} becomes the Ingress's ingressClassName, which must be a DNS-1123 subdomain"
    options = as_dict(head.get("ingressOptions"))
    host = _text(options.get("host"))
    error = _host_error(host, rule=True) if host else None
    if error:
        yield "ingressOptions.host", f"ingressOptions.host {host!r} {error}"
    path, path_type = _text(options.get("path")), _text(options.get("pathType")) or "Prefix"
    error = _path_error(path, path_type) if path is not None else None
    if error:
        yield "ingressOptions.path", f"ingressOptions.path {path!r} (pathType {path_type}) {error}"
    for i, tls in enumerate(as_list(options.get("tls"))):
        for j, tls_host in enumerate(as_list(as_dict(tls).get("hosts"))):
            error = _host_error(tls_host, rule=False) if _text(tls_host) else None
            if error:
                yield f"ingressOptions.tls[{i}].hosts[{j}]", f"TLS host {tls_host!r} {error}"
        secret = _text(as_dict(tls).get("secretName"))
        if secret and not is_dns1123_subdomain(secret):
            yield f"ingressOptions.tls[{i}].secretName", f"TLS secretName {secret!r} is not a Secret name (a DNS-1123 subdomain)"


def _check_ingress(doc: Doc, ctx: Context) -> Iterator[Violation]:
    for ref in built_cluster_specs(doc):
        head = as_dict(ref.spec.get("headGroupSpec"))
        if head.get("enableIngress") is not True:
            continue
        head_path = join(ref.prefix, "headGroupSpec")
        for suffix, problem in _ingress_problems(doc, head, ref.annotations):
            path = f"{head_path}.{suffix}" if suffix else f'metadata.annotations["{INGRESS_CLASS_ANNOTATION}"]'
            yield Violation(f"{problem}: the API server refuses the head Ingress KubeRay builds (ValidateIngressCreate), on every reconcile{reported_as(ref)}", path)


def _with_ingress(**options: Any) -> Doc:
    return ex.example(lambda d: ex.head_of(d).update(enableIngress=True, ingressOptions=options))


declare(
    id="head-ingress-invalid",
    title="Head Ingress host, path, TLS or class the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-24",),
    enforced_by=("run-time",),
    since="1.7",
    rationale="With headGroupSpec.enableIngress the operator builds the head Ingress (BuildIngressForHeadService) from ingressOptions' host, path and tls as they are and the kubernetes.io/ingress.class annotation as its ingressClassName; the CRD checks none of their syntax, and Ingress validation (ValidateIngressCreate) refuses a host that is an IP address or not a DNS name, a Prefix or Exact path not starting with '/' (or with '//', '/./', '/../'), a TLS Secret name that is not a DNS-1123 subdomain, so the dashboard is never exposed.",
    proof="the API server's Ingress validation (ValidateIngressCreate) refuses the Ingress the operator builds, on every reconcile; on OpenShift the operator builds a Route instead (reconcileRouteOpenShift), which a manifest does not show",
    fix="Give ingressOptions.host a DNS name (e.g. 'ray.example.com'), start the path with '/' (e.g. '/ray'), name an existing TLS Secret in lower case, and spell the ingress class in lower case.",
    check=_check_ingress,
    compliant=_with_ingress(host="ray.example.com", path="/ray"),
    violating=_with_ingress(host="ray.example.com", path="ray"),
    violating_path="spec.headGroupSpec.ingressOptions.path",
    fixed=patch({"spec.headGroupSpec.ingressOptions.path": "/ray"}),
)


# --------------------------------------------------------------------------------------------------
# validateJobSpec: the submitter Job's backoffLimit (submitterConfig.backoffLimit) is not negative


def _check_submitter_backoff(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    limit = as_dict(spec.get("submitterConfig")).get("backoffLimit")
    if submission_mode(spec) != "K8sJobMode" or not isinstance(limit, int) or isinstance(limit, bool) or limit >= 0:
        return
    yield Violation(f"submitterConfig.backoffLimit is {limit}: it becomes the submitter Job's backoffLimit, which must not be negative, so the API server refuses the Job (ValidateJob) and the job is never submitted", f"{path}.submitterConfig.backoffLimit")


declare(
    id="rayjob-submitter-backoff-limit-negative",
    title="Negative submitterConfig.backoffLimit",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("OP-23",),
    enforced_by=("run-time",),
    rationale="In K8sJobMode the operator creates the submitter Job with submitterConfig.backoffLimit as its backoffLimit; the CRD takes any int32 and the operator's validation does not look at it, but Job validation (validateJobSpec) refuses a negative one, so the RayJob's cluster comes up and the job is never submitted.",
    proof="the API server's Job validation (ValidateJob) refuses the submitter Job the operator creates in K8sJobMode; other submission modes create no Job and are not judged",
    fix="Set submitterConfig.backoffLimit to 0 or more (the number of retries of the submitter), or leave it out (KubeRay's default: 2).",
    check=per_job_spec(_check_submitter_backoff),
    compliant=ex.example_job(submitterConfig={"backoffLimit": 0}),
    violating=ex.example_job(submitterConfig={"backoffLimit": -1}),
    violating_path="spec.submitterConfig.backoffLimit",
    fixed=patch({"spec.submitterConfig.backoffLimit": 0}),
)
