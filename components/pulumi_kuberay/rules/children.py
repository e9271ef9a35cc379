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
from typing import Any

from pulumi_kuberay.kuberay.paths import as_dict, as_list, cluster_specs, is_unknown, join

from . import _examples as ex
from ._engine import KINDS, Context, Violation, declare
from ._fixed import patch
from ._manifest_readers import is_dns1123_subdomain, per_job_spec, reported_as, submission_mode

Doc = dict[str, Any]

# --------------------------------------------------------------------------------------------------
# validateService: the head Service's type (headGroupSpec.serviceType, or the custom headService's own)

_SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and not is_unknown(value) else None


def _check_service_type(doc: Doc, ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        head = as_dict(ref.spec.get("headGroupSpec"))
        head_path = join(ref.prefix, "headGroupSpec")
        for value, path in (
            (head.get("serviceType"), f"{head_path}.serviceType"),
            (as_dict(as_dict(head.get("headService")).get("spec")).get("type"), f"{head_path}.headService.spec.type"),
        ):
            kind = _text(value)
            if kind and kind not in _SERVICE_TYPES:
                yield Violation(f"Service type {kind!r} is not one of {', '.join(_SERVICE_TYPES)} (case matters): the API server refuses the head Service (ValidateService) and workers never find the head{reported_as(ref)}", path)


declare(
    id="head-service-type-invalid",
    title="Head Service type the API server refuses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("OP-22",),
    enforced_by=("run-time",),
    rationale="BuildServiceForHeadPod gives the head Service headGroupSpec.serviceType (or the custom headService's spec.type); the CRD takes any string there, but Service validation (ValidateService) accepts only ClusterIP, NodePort, LoadBalancer and ExternalName, so a value such as 'loadBalancer' leaves the cluster without its head Service: workers cannot join, jobs and Serve never start.",
    proof="the API server's Service validation (ValidateServiceCreate) refuses the head Service the operator builds with that type, on every reconcile",
    fix="Spell the type as Kubernetes does: ClusterIP, NodePort or LoadBalancer.",
    check=_check_service_type,
    compliant=ex.example(lambda d: ex.head_of(d).update(serviceType="LoadBalancer")),
    violating=ex.example(lambda d: ex.head_of(d).update(serviceType="loadBalancer")),
    violating_path="spec.headGroupSpec.serviceType",
    fixed=patch({"spec.headGroupSpec.serviceType": "LoadBalancer"}),
)


# --------------------------------------------------------------------------------------------------
# ValidateIngressCreate: the head Ingress (headGroupSpec.enableIngress), its class from the object's
# kubernetes.io/ingress.class annotation and ingressOptions' host, path and tls as they are

_INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"  # BuildIngressForHeadService: IngressClassAnnotationKey
_BAD_PATH_PARTS = ("//", "/./", "/../", "%2f", "%2F")  # invalidPathSequences
_BAD_PATH_ENDS = ("/..", "/.")  # invalidPathSuffixes
_WILDCARD_HOST = re.compile(r"\*\.")


def _host_error(host: str) -> str | None:
    """Like validateIngressRules' and validateIngressTLS' host checks (IsWildcardDNS1123Subdomain, IsDNS1123Subdomain)."""
    try:
        ipaddress.ip_address(host)
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
    ingress_class = _text(annotations.get(_INGRESS_CLASS_ANNOTATION))
    if ingress_class and not is_dns1123_subdomain(ingress_class):
        yield "", f"the {_INGRESS_CLASS_ANNOTATION} annotation {ingress_class!r} becomes the Ingress's ingressClassName, which must be a DNS-1123 subdomain"
    options = as_dict(head.get("ingressOptions"))
    host = _text(options.get("host"))
    error = _host_error(host) if host else None
    if error:
        yield "ingressOptions.host", f"ingressOptions.host {host!r} {error}"
    path, path_type = _text(options.get("path")), _text(options.get("pathType")) or "Prefix"
    error = _path_error(path, path_type) if path is not None else None
    if error:
        yield "ingressOptions.path", f"ingressOptions.path {path!r} (pathType {path_type}) {error}"
    for i, tls in enumerate(as_list(options.get("tls"))):
        for j, tls_host in enumerate(as_list(as_dict(tls).get("hosts"))):
            error = _host_error(tls_host) if _text(tls_host) else None
            if error:
                yield f"ingressOptions.tls[{i}].hosts[{j}]", f"TLS host {tls_host!r} {error}"
        secret = _text(as_dict(tls).get("secretName"))
        if secret and not is_dns1123_subdomain(secret):
            yield f"ingressOptions.tls[{i}].secretName", f"TLS secretName {secret!r} is not a Secret name (a DNS-1123 subdomain)"


def _check_ingress(doc: Doc, ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        head = as_dict(ref.spec.get("headGroupSpec"))
        if head.get("enableIngress") is not True:
            continue
        head_path = join(ref.prefix, "headGroupSpec")
        for suffix, problem in _ingress_problems(doc, head, ref.annotations):
            path = f"{head_path}.{suffix}" if suffix else f'metadata.annotations["{_INGRESS_CLASS_ANNOTATION}"]'
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
    proof="the API server's Ingress validation (ValidateIngressCreate) refuses the Ingress the operator builds, on every reconcile",
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
