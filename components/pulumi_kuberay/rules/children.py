"""What the API server refuses in the children other than Pods the operator builds from a Ray object: the head
Service (``BuildServiceForHeadPod``: ``ValidateServiceCreate``), a RayService's Serve Service (``BuildServeService``),
the head Ingress (``BuildIngressForHeadService``: ``ValidateIngressCreate``) and a RayJob's submitter Job
(``createNewK8sJob``: ``ValidateJob``). The CRDs type the fields these come from without Kubernetes' own checks, so
the Ray object is stored and the child is refused on every reconcile; docs/kubernetes-validation.md lists the checks,
rules/_services.py holds the Services' (validateService). Plain Python, no pulumi.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from itertools import chain
from typing import Any

from pulumi_kuberay.kuberay.names import (
    INGRESS_CLASS_ANNOTATION,
    ORIGINATED_FROM_CR_NAME_LABEL,
    ORIGINATED_FROM_CRD_LABEL,
    SERVE_LABEL,
)
from pulumi_kuberay.kuberay.paths import ClusterSpecRef, as_dict, as_list, is_unknown, join

from . import _examples as ex
from ._engine import KINDS, Context, Violation, declare
from ._fixed import patch
from ._manifest_readers import (
    INCREMENTAL,
    built_cluster_specs,
    is_dns1123_subdomain,
    per_job_spec,
    reported_as,
    service_cluster,
    service_spec,
    submission_mode,
    upgrade_type,
)
from ._services import (
    SERVICE_TYPES,
    Problem,
    annotation_problems,
    head_port_problems,
    head_service_ports,
    metadata_problems,
    name_problem,
    node_port_problems,
    port_problems,
    serve_port_problems,
    spec_problems,
)
from ._services import text as _text

Doc = dict[str, Any]

# --------------------------------------------------------------------------------------------------
# ValidateServiceCreate on the head Service: its type (headGroupSpec.serviceType, or the custom headService's), the
# custom headService's spec and metadata as they are (rules/_services.py), and its ports beside KubeRay's, which
# BuildServiceForHeadPod appends (getServicePorts: the head container's ports, an unnamed one "<number>-port", or the
# default ports; "metrics" 8080 unless named); the annotations: headService.metadata's, headServiceAnnotations' over
# them


def _service_problems(head: dict[str, Any]) -> Iterator[Problem]:
    custom = as_dict(head.get("headService")).get("spec")
    service_spec = as_dict(custom)
    kind = _text(service_spec.get("type")) or _text(head.get("serviceType"))
    service_type = head.get("serviceType")
    if _text(service_type) and service_type not in SERVICE_TYPES:
        yield "serviceType", f"Service type {service_type!r} is not one of {', '.join(SERVICE_TYPES)} (case matters) (validateService)"
    elif kind == "ExternalName" and not isinstance(custom, dict):
        yield "serviceType", "serviceType ExternalName makes a head Service that needs spec.externalName, which only a custom headService gives; an ExternalName Service selects no Pods, so workers cannot reach the head through it (validateService)"
    for at, problem in spec_problems(service_spec, kind) if isinstance(custom, dict) else ():
        yield f"headService.spec.{at}", problem
    ports = service_spec.get("ports")
    if not ports or not isinstance(ports, list) or is_unknown(ports):
        return
    for i, item in enumerate(ports):
        for at, problem in port_problems(item, kind):
            yield f"headService.spec.ports[{i}].{at}", problem
    kuberay = head_service_ports(head)
    kuberay_problems = head_port_problems(ports, kuberay) if kuberay is not None else ()
    for at, problem in chain(kuberay_problems, node_port_problems(list(enumerate(ports)))):
        yield f"headService.spec.{at}", problem


def _annotation_problems(ref: ClusterSpecRef, head: dict[str, Any]) -> Iterator[Problem]:
    """The head Service's annotations as validateService reads them: headServiceAnnotations over the custom
    headService's (reconcileHeadService, BuildServiceForHeadPod), each reported where it was written."""
    custom = as_dict(head.get("headService"))
    given = as_dict(as_dict(custom.get("metadata")).get("annotations"))
    extra = as_dict(ref.spec.get("headServiceAnnotations"))
    if not given and not extra:
        return
    service_spec = as_dict(custom.get("spec"))
    kind = _text(service_spec.get("type")) or _text(head.get("serviceType"))
    for key, problem in annotation_problems({**given, **extra}, service_spec, kind):
        at = join(ref.prefix, "headServiceAnnotations") if key in extra else join(ref.prefix, "headGroupSpec.headService.metadata.annotations")
        yield f'{at}["{key}"]', problem


def _check_service(doc: Doc, ctx: Context) -> Iterator[Violation]:
    for ref in built_cluster_specs(doc):
        head = as_dict(ref.spec.get("headGroupSpec"))
        head_path = join(ref.prefix, "headGroupSpec")
        meta = as_dict(as_dict(head.get("headService")).get("metadata"))
        custom = metadata_problems(meta.get("labels"), meta.get("annotations"), "head Service")
        extra = metadata_problems(None, ref.spec.get("headServiceAnnotations"), "head Service")
        problems = chain(
            ((f"{head_path}.{at}", p) for at, p in _service_problems(head)),
            ((f"{head_path}.headService.metadata.{at}", p) for at, p in custom),
            ((join(ref.prefix, "headServiceAnnotations") + at[len("annotations") :], p) for at, p in extra),
            _annotation_problems(ref, head),
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
    rationale="BuildServiceForHeadPod gives the head Service headGroupSpec.serviceType (or the custom headService's own type), copies a custom headService's spec and metadata as they are and adds KubeRay's ports (the head container's, 'metrics' 8080) to its ports; the CRD takes any string and any port list there, but Service validation (ValidateServiceCreate) accepts only the types ClusterIP, NodePort, LoadBalancer and ExternalName (an ExternalName one with a DNS name in externalName), wants every port of a several-port Service named (a DNS-1123 label) and each name and port number once, targetPort a port number or name, appProtocol a qualified name, externalTrafficPolicy only on a NodePort or LoadBalancer Service, healthCheckNodePort only with LoadBalancer and Local, allocateLoadBalancerNodePorts, loadBalancerSourceRanges (or their annotation) and loadBalancerClass only on a LoadBalancer, CIDRs and IP addresses (not loopback, link-local or multicast) where it takes them, clusterIP and clusterIPs alike, ipFamilies IPv4 or IPv6, trafficDistribution PreferClose, PreferSameZone or PreferSameNode, a ClientIP sessionAffinityConfig's timeoutSeconds up to a day, internalTrafficPolicy Cluster or Local, and label and annotation keys (headService.metadata, headServiceAnnotations) that are qualified names: the cluster is left without its head Service, workers cannot join, jobs and Serve never start.",
    proof="the API server's Service validation (ValidateServiceCreate) refuses the head Service the operator builds, on every reconcile; ports the head container does not name known are not judged, nor what depends on the cluster (its Service CIDRs, IP families, node port range)",
    fix="Spell the type as Kubernetes does (ClusterIP, NodePort, LoadBalancer); in a custom headService name every port, and leave out the ports KubeRay adds from the head container (dashboard, client, gcs-server, serve, metrics); keep the LoadBalancer fields (allocateLoadBalancerNodePorts, loadBalancerSourceRanges, healthCheckNodePort) for a LoadBalancer Service and write addresses and CIDRs as Kubernetes reads them (10.0.0.0/8, no leading zeros).",
    check=_check_service,
    compliant=_with_head_service({"type": "LoadBalancer", "ports": [{"name": "app", "port": 12345}]}),
    violating=_with_head_service({"type": "LoadBalancer", "ports": [{"name": "dashboard", "port": 8265}]}),
    violating_path="spec.headGroupSpec.headService.spec.ports[0].name",
    fixed=patch({"spec.headGroupSpec.headService.spec.ports[0]": {"name": "app", "port": 12345}}),
)


# --------------------------------------------------------------------------------------------------
# ValidateServiceCreate on a RayService's Serve Service: spec.serveService as it is (BuildServeService: its selector,
# namespace and the labels KubeRay sets replaced, its type defaulted from the head's serviceType, its ports merged
# with the head's serving ports), unless an incremental upgrade builds one Serve Service per cluster without it

_SERVE_LABELS = (ORIGINATED_FROM_CR_NAME_LABEL, ORIGINATED_FROM_CRD_LABEL, SERVE_LABEL)


def _check_serve_service(doc: Doc, ctx: Context) -> Iterator[Violation]:
    spec = service_spec(doc)
    serve = as_dict(spec.get("serveService")) if spec is not None else {}
    if not serve or (upgrade_type(spec or {}) == INCREMENTAL and ctx.gate("RayServiceIncrementalUpgrade")):
        return
    head = as_dict(service_cluster(spec or {}).get("headGroupSpec"))
    custom = as_dict(serve.get("spec"))
    kind = _text(custom.get("type")) or _text(head.get("serviceType"))
    meta = as_dict(serve.get("metadata"))
    name = name_problem(meta.get("name"))
    problems = chain(
        (("spec." + at, p) for at, p in spec_problems(custom, kind)),
        (("spec." + at, p) for at, p in serve_port_problems(custom, head, kind, merged=ctx.at_least(1, 6))),
        (
            ("metadata." + at, p)
            for at, p in metadata_problems(meta.get("labels"), meta.get("annotations"), "Serve Service", _SERVE_LABELS)
        ),
        ((("metadata.name", name),) if name else ()),
    )
    annotations = annotation_problems(as_dict(meta.get("annotations")), custom, kind)
    problems = chain(problems, ((f'metadata.annotations["{key}"]', p) for key, p in annotations))
    for path, problem in problems:
        yield Violation(f"{problem}: the API server refuses the Serve Service KubeRay builds from spec.serveService (BuildServeService) on every reconcile, so Serve traffic has no Service", f"spec.serveService.{path}")


def _with_serve_service(serve: dict[str, Any]) -> Doc:
    return ex.example_service(serveService=serve)


declare(
    id="serve-service-invalid",
    title="RayService serveService the API server refuses",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("OP-26",),
    enforced_by=("run-time",),
    rationale="BuildServeService makes a RayService's Serve Service from spec.serveService as it is (but its selector, namespace and KubeRay's labels), its type defaulted from headGroupSpec.serviceType and its ports the head container's serving ports ('serve', 'serve-<protocol>'), each replaced by the serveService port of the same name, or serveService's own ports when the head has none; the CRD types these fields without Kubernetes' checks, and Service validation (ValidateServiceCreate) refuses the same values as in a head Service (types, ports, port names, targetPort, appProtocol, the LoadBalancer-only fields, CIDRs and IP addresses, clusterIPs, trafficDistribution, session affinity, traffic policies, label and annotation keys, a name that is no DNS-1123 label) and a Service without ports: the RayService never gets the Service its clients call.",
    proof="the API server's Service validation (ValidateServiceCreate) refuses the Serve Service the operator builds, on every reconcile; with an incremental upgrade (gate RayServiceIncrementalUpgrade) the operator builds one Serve Service per cluster without serveService and nothing is judged; ports the head container does not name known are not judged, nor what depends on the cluster",
    fix="Spell the type as Kubernetes does (ClusterIP, NodePort, LoadBalancer); give the ports the head container's serving names ('serve', 'serve-grpc') with distinct numbers, targetPort a number or a port name and appProtocol a qualified name ('kubernetes.io/h2c'); keep the LoadBalancer fields for a LoadBalancer Service and write addresses and CIDRs as Kubernetes reads them (10.0.0.0/8).",
    check=_check_serve_service,
    compliant=_with_serve_service({"spec": {"type": "LoadBalancer", "loadBalancerSourceRanges": ["10.0.0.0/8"]}}),
    violating=_with_serve_service({"spec": {"type": "LoadBalancer", "loadBalancerSourceRanges": ["10.0.0.1/8"]}}),
    violating_path="spec.serveService.spec.loadBalancerSourceRanges[0]",
    fixed=patch({"spec.serveService.spec.loadBalancerSourceRanges[0]": "10.0.0.0/8"}),
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
