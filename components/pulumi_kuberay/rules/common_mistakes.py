"""Names and references real manifests get wrong before any KubeRay logic runs: a ``metadata.namespace`` the
API server refuses, an image that is no image reference (an unrendered template placeholder, spaces, upper
case), a ``rayVersion`` that is no version, and deprecated fields KubeRay ignores. Plain Python, no pulumi.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from pulumi_kuberay.kuberay.api import LEGACY_API_VERSION
from pulumi_kuberay.kuberay.paths import (
    as_dict,
    as_str,
    cluster_specs,
    is_unknown,
    placeholder_pattern,
    placeholders,
    pod_templates,
    template_containers,
)
from pulumi_kuberay.kuberay.paths import placeholder_note as _placeholder_note

from . import _examples as ex
from ._cel import Cel
from ._engine import KINDS, Context, Violation, declare
from ._fixed import REMOVE, patch

# --------------------------------------------------------------------------------------------------
# metadata.namespace (the API server's ValidateObjectMetaAccessor: ValidateNamespaceName, a DNS-1123 label)

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def _check_namespace(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    meta = manifest.get("metadata")
    namespace = meta.get("namespace") if isinstance(meta, dict) else None
    if namespace is None or is_unknown(namespace) or not isinstance(namespace, str):
        return  # absent: the request's namespace; another type: a schema finding
    if namespace == "":
        return  # the API server treats an empty namespace as unset (the request's namespace)
    if len(namespace) > 63 or not _DNS1123_LABEL.fullmatch(namespace):
        yield Violation(
            f"namespace {namespace!r} is not a DNS-1123 label (at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit); the API server rejects the object{_placeholder_note(namespace)}",
            "metadata.namespace",
        )


def _with_namespace(namespace: str) -> dict[str, Any]:
    doc = ex.base_cluster()
    doc["metadata"]["namespace"] = namespace
    return doc


declare(
    id="metadata-namespace-invalid",
    title="metadata.namespace the API server rejects",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="The API server validates metadata.namespace of every namespaced object as a DNS-1123 label (ValidateNamespaceName): documentation placeholders such as '<your-namespace>' or an upper-case name make the create fail.",
    proof="the API server refuses the create (ValidateNamespaceName); always certain: the namespace is the manifest's own text (one known only at apply is not judged)",
    fix="Use the namespace's real name: lower-case letters, digits and '-', at most 63 characters.",
    check=_check_namespace,
    compliant=_with_namespace("ray-system"),
    violating=_with_namespace("<your-namespace>"),
    violating_path="metadata.namespace",
    fixed=patch({"metadata.namespace": "ray-system"}),
)


# --------------------------------------------------------------------------------------------------
# Image references (the grammar of github.com/distribution/reference, which the kubelet applies: InvalidImageName)

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?"
_REFERENCE = re.compile(  # text-block
    rf"(?:{_DOMAIN}/)?{_COMPONENT}(?:/{_COMPONENT})*"  # name
    r"(?::[\w][\w.-]{0,127})?"  # tag
    r"(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?",  # digest
    re.ASCII,  # Go's \w: the grammar is Go regexp's (RE2), as CEL's matches() is
)


@lru_cache(maxsize=1024)  # a pure function of the image: every group, document and rule asks for the same few
def image_reference_error(image: str) -> str | None:
    """Why ``image`` is not a valid image reference (None if it is)."""
    if not image.strip():
        return "is empty"
    if _REFERENCE.fullmatch(image):
        return None  # (a valid reference holds no white space: no part of the pattern matches it)
    if placeholders(image):
        return "is not a valid image reference: it holds a template placeholder"
    if any(c.isspace() for c in image):
        return "contains white space"
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    repository = name[: len(name) - len(last)] + last.split(":", 1)[0]
    path = repository.split("/", 1)[1] if "/" in repository and _looks_like_domain(repository) else repository
    if path != path.lower():
        return "has upper case in the repository (only the registry host may have it)"
    return "is not a valid image reference ([registry/]repository[:tag][@digest])"


def _looks_like_domain(repository: str) -> bool:
    first = repository.split("/", 1)[0]
    return "." in first or ":" in first or first == "localhost"


_SHELL_VAR = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*")
#: A reference whose only flaw is shell-style variables: valid once envsubst has replaced them.
_ENV_ONLY = re.compile(r"(?:[a-z0-9._:/@-]|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*)+")


def _images(manifest: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    for template in pod_templates(manifest):
        for item in template_containers(template):
            if item.field != "ephemeralContainers" and "image" in item.container:
                yield f"{item.path}.image", item.container["image"]
    for ref in cluster_specs(manifest):
        options = as_dict(ref.spec.get("autoscalerOptions"))
        if "image" in options:
            yield ref.path("autoscalerOptions.image"), options["image"]


def _check_images(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for path, image in _images(manifest):
        if not isinstance(image, str) or is_unknown(image):
            continue
        error = image_reference_error(image)
        if error is None:
            continue
        if _ENV_ONLY.fullmatch(image) and _SHELL_VAR.search(image):
            # A file written for envsubst (KubeRay's own vLLM TPU sample is one): a template, not a mistake.
            yield Violation(
                f"image {image!r} is an unrendered template{_placeholder_note(image)}; applied as it is, the kubelet refuses it (InvalidImageName)",
                path,
                severity="high",
            )
            continue
        yield Violation(
            f"image {image!r} {error}{_placeholder_note(image)}; the kubelet refuses to pull it (InvalidImageName) and the Pod never starts",
            path,
        )


def _with_image(image: str) -> dict[str, Any]:
    doc = ex.base_cluster()
    doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = image
    return doc


declare(
    id="image-reference-invalid",
    title="Container image that is not a valid image reference",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="The API server stores any string as an image, but the kubelet parses it as a reference ([registry/]repository[:tag][@digest], lower-case repository) and fails the container with InvalidImageName: placeholders ('<your-image>', '{{ .Values.image }}'), spaces or upper case in the repository leave every Pod of the group pending. A reference made only of shell variables ('$REGISTRY/ray:$TAG', '${IMAGE}') is a file written for envsubst: high, not critical.",
    proof="the kubelet cannot parse the reference and fails every container of the group (InvalidImageName); a reference made only of shell variables is a template, not a mistake: high",
    fix="Render the template (envsubst, helm template) or write the image: e.g. 'rayproject/ray:2.52.0'.",
    check=_check_images,
    compliant=_with_image("registry.internal:5000/ml/ray:2.52.0-py311"),
    violating=_with_image("<your-image>"),
    violating_path="spec.headGroupSpec.template.spec.containers[0].image",
    fixed=patch(
        {
            "spec.headGroupSpec.template.spec.containers[0].image": "registry.internal:5000/ml/ray:2.52.0-py311",
        }
    ),
    # The same grammar in RE2 (an empty or blank image never matches it; an envsubst template is a finding too).
    cel=Cel(
        f"!has(k.image) || k.image.matches({json.dumps('^(?:' + _REFERENCE.pattern + ')$')})",
        over="container",
        path="image",
        also=(Cel(f"!has(c.autoscalerOptions) || !has(c.autoscalerOptions.image) || c.autoscalerOptions.image.matches({json.dumps('^(?:' + _REFERENCE.pattern + ')$')})", over="cluster", path="autoscalerOptions.image"),),
    ),
)


# --------------------------------------------------------------------------------------------------
# Registries of the reserved example domains (RFC 2606, RFC 6761): a blueprint's stand-in left in the manifest

#: A registry host (port aside) in a domain reserved for examples or tests: example.com/.net/.org and their
#: subdomains, the top-level domains .example, .invalid and .test. Public DNS never resolves them.
_RESERVED_HOST = re.compile(r"(^|[.])example[.](com|net|org)$|[.](example|invalid|test)$")


def reserved_registry(image: str) -> str | None:
    """The registry host of ``image`` when it lies in a reserved example domain (``registry.example.com``)."""
    first, slash, _ = image.partition("/")
    if not slash or not ("." in first or ":" in first):
        return None
    return first if _RESERVED_HOST.search(first.lower().split(":", 1)[0]) else None


def _check_reserved_registries(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for template in pod_templates(manifest):
        for item in template_containers(template):
            image = item.container.get("image")
            if item.field == "ephemeralContainers" or not isinstance(image, str) or is_unknown(image):
                continue
            host = reserved_registry(image)
            if host is not None:
                yield Violation(
                    f"image {image!r} names the registry {host}, a domain reserved for examples that public DNS never resolves: unless the cluster's container runtime mirrors it to a real registry, the pull fails (ErrImagePull) and the Pod never starts",
                    f"{item.path}.image",
                )


declare(
    id="image-registry-reserved",
    title="Image from a reserved example domain",
    severity="high",
    category="correctness",
    kinds=KINDS,
    rationale="Blueprints and docs write registry.example.com (or a host under .example, .invalid, .test) for the reader's own registry. Left as it is, no node can resolve it and every Pod of the group stays in ErrImagePull. High, not critical: a container runtime's registry mirror configuration can map any host name to a real registry.",
    fix="Write your registry's host in the image (e.g. 123456789012.dkr.ecr.us-west-2.amazonaws.com/ray:2.52.0).",
    check=_check_reserved_registries,
    compliant=_with_image("registry.internal:5000/ml/ray:2.52.0-py311"),
    violating=_with_image("registry.example.com/ml/ray:2.52.0-py311"),
    violating_path="spec.headGroupSpec.template.spec.containers[0].image",
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].image": "registry.internal:5000/ml/ray:2.52.0-py311"}),
    cel=Cel(
        f"!has(k.image) || [k.image.split('/')].all(parts, size(parts) < 2 || !(parts[0].contains('.') || parts[0].contains(':')) || !parts[0].lowerAscii().split(':')[0].matches({json.dumps(_RESERVED_HOST.pattern)}))",
        over="container",
        path="image",
        message="the image's registry is a domain reserved for examples (example.com, .example, .invalid, .test)",
    ),
)


# --------------------------------------------------------------------------------------------------
# Placeholders left in values the API server accepts (a node selector, a CSI volume's attributes)

#: A value written in upper case with underscores (BUCKET_NAME, YOUR_NODE_POOL, PLACEHOLDER_ZONE): how blueprints mark
#: what the reader must replace. A valid label value, so nothing refuses it; no node or bucket is named that way.
_CAPS_PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$")


def _placeholder_values(template_spec: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(path, value, what) of each node-selector value and CSI volume attribute that is a placeholder."""
    for key, value in as_dict(template_spec.get("nodeSelector")).items():
        if isinstance(value, str) and _CAPS_PLACEHOLDER.match(value):
            yield f"nodeSelector[{json.dumps(key)}]", value, "the node selector never matches a node: the Pods stay Pending"
    for i, volume in enumerate(template_spec.get("volumes") or []):
        attributes = as_dict(as_dict(as_dict(volume).get("csi")).get("volumeAttributes"))
        for key, value in attributes.items():
            if isinstance(value, str) and (_CAPS_PLACEHOLDER.match(value) or placeholders(value)):
                yield f"volumes[{i}].csi.volumeAttributes[{json.dumps(key)}]", value, "the CSI driver mounts nothing by that name: the Pods stay in ContainerCreating"


def _check_placeholder_values(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for template in pod_templates(manifest):
        if not isinstance(template.pod_spec.get("volumes", []), list):
            continue
        for path, value, what in _placeholder_values(template.pod_spec):
            if is_unknown(value):
                continue
            yield Violation(
                f"{value!r} looks like a template placeholder left unreplaced{_placeholder_note(value)}: {what}",
                f"{template.spec_path}.{path}",
            )


def _with_node_selector(value: str) -> dict[str, Any]:
    doc = ex.base_cluster()
    doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["nodeSelector"] = {"cloud.google.com/gke-nodepool": value}
    return doc


_CAPS_RE2 = json.dumps(_CAPS_PLACEHOLDER.pattern)
_ANY_PLACEHOLDER_RE2 = json.dumps(f"{_CAPS_PLACEHOLDER.pattern}|{placeholder_pattern()}")

declare(
    id="template-placeholder-left",
    title="Placeholder left in a node selector or volume attribute",
    severity="high",
    category="correctness",
    kinds=KINDS,
    rationale="Blueprints mark what the reader must fill in with upper-case names (BUCKET_NAME, YOUR_NODE_POOL) or template syntax ($BUCKET, {{ .Values.bucket }}). In a node selector value or a CSI volume attribute the API server accepts them: the Pods then wait for a node labelled BUCKET_NAME, or the CSI driver looks for a bucket that does not exist. High: a node or bucket could, in principle, be named so.",
    fix="Replace the placeholder with the real value (render the template, or edit the manifest).",
    check=_check_placeholder_values,
    compliant=_with_node_selector("gpu-pool"),
    violating=_with_node_selector("YOUR_NODE_POOL"),
    violating_path='spec.workerGroupSpecs[0].template.spec.nodeSelector["cloud.google.com/gke-nodepool"]',
    fixed=patch({'spec.workerGroupSpecs[0].template.spec.nodeSelector["cloud.google.com/gke-nodepool"]': "gpu-pool"}),
    cel=Cel(
        f"!has(t.spec) || ((!has(t.spec.nodeSelector) || t.spec.nodeSelector.all(key, !t.spec.nodeSelector[key].matches({_CAPS_RE2}))) && (!has(t.spec.volumes) || t.spec.volumes.all(v, !has(v.csi) || !has(v.csi.volumeAttributes) || v.csi.volumeAttributes.all(a, !v.csi.volumeAttributes[a].matches({_ANY_PLACEHOLDER_RE2})))))",
        over="template",
        path="spec",
        message="a node selector value or CSI volume attribute is a placeholder left unreplaced",
    ),
)


# --------------------------------------------------------------------------------------------------
# rayVersion (KubeRay reads it with k8s version.ParseGeneric when it picks features)

#: Go's \s (ParseGeneric's regexp): ASCII white space only, no \v.
_VERSION = re.compile(r"[\t\n\f\r ]*v?[0-9]+\.[0-9]+(\.[0-9]+)*.*")


def _check_ray_version(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(manifest):
        value = ref.spec.get("rayVersion")
        text = as_str(value)
        if text is None or is_unknown(value) or not text or _VERSION.fullmatch(text):
            continue
        yield Violation(
            f"rayVersion {text!r} is not a version{_placeholder_note(text)}; KubeRay reads it to pick what a Ray release supports (token auth needs >= 2.52, the job submitter's metadata >= 2.6), and an unreadable one turns those features off or makes them fail",
            ref.path("rayVersion"),
        )


def _with_ray_version(version: str) -> dict[str, Any]:
    doc = ex.base_cluster()
    doc["spec"]["rayVersion"] = version
    return doc


declare(
    id="ray-version-invalid",
    title="rayVersion that is not a version",
    severity="medium",
    category="correctness",
    kinds=KINDS,
    rationale="KubeRay parses rayVersion (version.ParseGeneric) to decide what the Ray release supports; 'latest', a template placeholder ('${RAY_VERSION}') or a tag name is not a version, so those checks fail or assume the oldest behaviour. The API server stores any string.",
    fix="Set rayVersion to the Ray release of the image, e.g. '2.52.0'.",
    check=_check_ray_version,
    compliant=_with_ray_version("2.52.0"),
    violating=_with_ray_version("${RAY_VERSION}"),
    violating_path="spec.rayVersion",
    fixed=patch({"spec.rayVersion": "2.52.0"}),
    cel=Cel(f"!has(c.rayVersion) || c.rayVersion == '' || c.rayVersion.matches({json.dumps('^(?:' + _VERSION.pattern + ')$')})", over="cluster", path="rayVersion"),
)


# --------------------------------------------------------------------------------------------------
# Deprecated fields KubeRay v1.7.0 still accepts and ignores

_DEPRECATED_SERVICE_FIELDS = ("serviceUnhealthySecondThreshold", "deploymentUnhealthySecondThreshold")


_IGNORED_FIELD = "low: the field is ignored, nothing breaks"


def _check_deprecated(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if manifest.get("apiVersion") == LEGACY_API_VERSION:
        yield Violation(
            "apiVersion ray.io/v1alpha1 is deprecated: the v1.7.0 CRD still serves it (with a warning) but it receives no new fields and KubeRay 1.9 removes it",
            "apiVersion",
            fix="use apiVersion ray.io/v1",
            severity="medium",
        )
    spec = manifest.get("spec")
    if manifest.get("kind") != "RayService" or not isinstance(spec, dict):
        return
    for name in _DEPRECATED_SERVICE_FIELDS:
        if name in spec:
            yield Violation(
                f"spec.{name} is deprecated and ignored by KubeRay (unused since v1.1)", f"spec.{name}", severity="low", severity_why=_IGNORED_FIELD
            )


declare(
    id="kuberay-field-deprecated",
    title="Deprecated apiVersion or field",
    severity="medium",
    category="hygiene",
    kinds=KINDS,
    rationale="RayService's serviceUnhealthySecondThreshold and deploymentUnhealthySecondThreshold are still in the CRD but unused since KubeRay v1.1: setting them changes nothing (low). ray.io/v1alpha1 is still served by the v1.7.0 CRDs with a deprecation warning and goes away in KubeRay 1.9 (medium).",
    fix="Remove the field.",
    check=_check_deprecated,
    compliant=ex.example_service(),
    violating=ex.example_service(serviceUnhealthySecondThreshold=900),
    violating_path="spec.serviceUnhealthySecondThreshold",
    fixed=patch({"spec.serviceUnhealthySecondThreshold": REMOVE}),
    also=(_IGNORED_FIELD,),
)
