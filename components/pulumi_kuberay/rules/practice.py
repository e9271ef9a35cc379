"""Ray best-practice rules (documented by Ray and KubeRay, enforced nowhere else).

Sources: the Ray and KubeRay production guides, and what peer policy sets (Polaris, Kyverno, Checkov) check.
The operator accepts all of these; they cost an outage, a confusing failure or money later, so they are high
(outage, security, cost) or medium (best practice).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from pulumi_kuberay.kuberay import CLIENT_PORT, DASHBOARD_PORT, SERVE_PORT
from pulumi_kuberay.kuberay.api import RAY_VERSION_THRESHOLDS, format_version
from pulumi_kuberay.kuberay.paths import (
    ClusterSpecRef,
    as_dict,
    as_list,
    as_str,
    cluster_specs,
    get,
    group_template,
    groups,
    head_group,
    head_ray_container,
    join,
    parse_generic_version,
    pod_templates,
    ray_container,
    worker_groups,
)
from pulumi_kuberay.kuberay.paths import annotations as doc_annotations
from pulumi_kuberay.kuberay.quantity import amount as quantity_amount
from pulumi_kuberay.kuberay.resources import is_gpu_resource_key

from . import _examples as ex
from ._cel import (
    HEAD_CONTAINERS,
    HEAD_PORTS,
    Cel,
    first_container_guard,
    generic_version_below,
    group_containers,
    ray_version_at_least,
)
from ._engine import KINDS, Context, Violation, declare
from ._fixed import REMOVE, patch
from ._manifest_readers import FT_ENABLED_ANNOTATION, image_tag, ray_version_of
from ._ray_resources import RAY_MIN_MEMORY

_VERSION_IN_TAG = re.compile(r"^(\d+\.\d+\.\d+)")
#: The quantities memory_bytes reads: unsigned, a decimal or binary suffix or none (no exponent, n or u), as the
#: CEL twin of head-memory-too-small matches them.
_PLAIN_QUANTITY = re.compile(r"^[0-9.]+([KMGTPE]i|[kMGTPEm])?$")


# Why a finding is not at its rule's severity (each rule names its own in ``also``).
_VERSION_UNKNOWN = "medium: the image's Ray version is not known"
_SAME_PODS = "low: no release at which KubeRay builds or validates a cluster differently lies between them, so the operator builds the same Pods"
_NEVER_JOINS = "critical: a worker of another Ray or Python never joins the head"
_ABOVE_MINIMUM = "medium: above Ray's 2G minimum, below the 8G it recommends in production"
_CLUSTER_ONLY = "medium for a RayCluster: high is for a RayService, which drops traffic"

def memory_bytes(value: Any) -> float | None:
    """A Kubernetes memory quantity in bytes (``"8Gi"`` -> 8589934592), or None when it cannot be read."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return None
    if _PLAIN_QUANTITY.match(value.strip()) is None:
        return None
    amount = quantity_amount(value)
    return None if amount is None else float(amount)


#: Ray images that clients pin by digest as their default, with the Ray release each holds, as the client names it
#: beside the digest (codeflare-sdk's common/utils/constants.py: CUDA_RUNTIME_IMAGE, CUDA_PY311_RUNTIME_IMAGE and
#: CUDA_PY312_RUNTIME_IMAGE of releases 0.30 to 0.40). A digest names its content for good, so the release is as
#: visible in the manifest as a tag would make it.
_KNOWN_RAY_DIGESTS: dict[str, tuple[str, str]] = {
    "quay.io/modh/ray@sha256:6d076aeb38ab3c34a6a2ef0f58dc667089aa15826fa08a73273c629333e12f1e": ("2.47.1", "3.11"),
    "quay.io/modh/ray@sha256:fb6f207de63e442c67bb48955cf0584f3704281faf17b90419cfa274fdec63c5": ("2.47.1", "3.12"),
    "quay.io/modh/ray@sha256:595b3acd10244e33fca1ed5469dccb08df66f470df55ae196f80e56edf35ad5a": ("2.52.1", "3.11"),
    "quay.io/modh/ray@sha256:6b135421b6e756593a58b4df6664f82fc4b55237ca81475f2867518f15fe6d84": ("2.52.1", "3.12"),
    "quay.io/modh/ray@sha256:42fbc5d898cb9c7d202ee89308ef328838d42985ec384f2476d8f3356acd01cb": ("2.54.1", "3.12"),
    "quay.io/modh/ray@sha256:8183007c9b46b359bdc75ea74346f10d642e585bb4f22fa3aa02524b3c966fa0": ("2.58.0", "3.12"),
}
#: The Python of a Ray image whose tag shows it: rayproject/ray:2.58.0-py312-gpu, quay.io/modh/ray:2.52.1-py311-cu121.
_PYTHON_IN_TAG = re.compile(r"^\d+\.\d+\.\d+.*?-py(\d)(\d+)(?:-|$)")


def _known_digest(image: str) -> tuple[str, str] | None:
    """The Ray release and Python of a digest-pinned image that a client ships as its default."""
    if "@" not in image or image_tag(image) is not None:
        return None
    name, digest = image.split("@", 1)
    return _KNOWN_RAY_DIGESTS.get(f"{name.removeprefix('docker.io/')}@{digest}")


def _digest_note(image: str) -> str:
    """How a digest shows its Ray release: the client that pins it names the release beside it."""
    return " (a digest codeflare-sdk pins as its default image, naming its Ray release beside it)" if _known_digest(image) else ""


@lru_cache(maxsize=512)  # the same few images in every group, read by several rules
def _python_of_image(image: str) -> str | None:
    """The Python (``3.11``) a Ray image's tag or known digest shows, None when it shows none."""
    known = _known_digest(image)
    if known is not None:
        return known[1]
    tag = image_tag(image)
    match = _PYTHON_IN_TAG.match(tag) if tag and _ray_version_of_image(image) else None
    return f"{match.group(1)}.{match.group(2)}" if match else None


#: Repositories whose tags are Ray releases, wherever they are mirrored: Ray's own (rayproject/ray:2.52.0-py311-gpu,
#: ray-ml, ray-llm), Anyscale's, and the Open Data Hub / CodeFlare builds (quay.io/modh/ray:2.52.1-py311-cu121). Any
#: other image's tag is its owner's numbering (registry:5000/ray:0.0.9 may hold Ray 2.55): it shows no Ray release.
_RAY_TAGGED_REPOSITORY = re.compile(r"(?:^|/)(?:rayproject|anyscale|project-codeflare|modh)/ray(?:-ml|-llm)?$")


def _repository(image: str) -> str:
    """The image reference without its digest and tag (``registry:5000/team/ray``)."""
    name = image.split("@", 1)[0]
    return name.rsplit(":", 1)[0] if ":" in name.rsplit("/", 1)[-1] else name


def _ray_tagged(image: str) -> bool:
    """The image's tag names the Ray release inside it (``_RAY_TAGGED_REPOSITORY``)."""
    return _RAY_TAGGED_REPOSITORY.search(_repository(image).lower()) is not None


@lru_cache(maxsize=512)
def _ray_version_of_image(image: str) -> str | None:
    # Only a Ray image's tag names a Ray release (rayproject/ray:2.9.3-py310): a team's own image tagged 0.0.1-gpu, or
    # named ray and tagged with its build number, says nothing about the Ray inside it. A known digest
    # (_KNOWN_RAY_DIGESTS) names its release as well as a tag.
    if (known := _known_digest(image)) is not None:
        return known[0]
    if not _ray_tagged(image):
        return None
    tag = image_tag(image)
    match = _VERSION_IN_TAG.match(tag) if tag else None
    return match.group(1) if match else None


# ------------------------------------------------------------------------------------------------ checks

#: supportsUnifiedHealthCheck (KubeRay >= 1.6.0): from this rayVersion on, initLivenessAndReadinessProbe builds HTTP
#: probes on the dashboard agent's /api/healthz, which Ray answers only from this release on (404 before).
_UNIFIED_HEALTH_RAY = (2, 53, 0)


def _http_probes(ref: ClusterSpecRef, ctx: Context) -> str | None:
    """The rayVersion text when the target operator builds HTTP /api/healthz probes for this cluster, else None."""
    if not ctx.at_least(1, 6):
        return None
    version = ray_version_of(ref)
    if version is None or version[1] is None or version[1] < _UNIFIED_HEALTH_RAY:
        return None
    return version[0]


def _probes_injected(container: dict[str, Any]) -> bool:
    """initLivenessAndReadinessProbe keeps a probe the user sets; either one left unset is built on /api/healthz."""
    return container.get("livenessProbe") is None or container.get("readinessProbe") is None


def _probe_failure(ref: ClusterSpecRef, ctx: Context, container: dict[str, Any], image_version: str) -> bool:
    parsed = parse_generic_version(image_version)
    return (
        _http_probes(ref, ctx) is not None
        and _probes_injected(container)
        and parsed is not None
        and parsed < _UNIFIED_HEALTH_RAY
    )


@lru_cache(maxsize=512)  # a pure function of the image, as _ray_version_of_image
def _hidden_version(image: str) -> bool:
    """A Ray image whose reference does not show its Ray release: a digest only, or a tag that is not a version
    (nightly and latest are the newest Ray, which answers /api/healthz)."""
    name = _repository(image).rsplit("/", 1)[-1]
    if "ray" not in name.lower():
        return False  # a team's own image: its tag never names the Ray inside, so there is nothing to read
    tag = image_tag(image)
    if tag is None:
        return "@" in image
    if not _ray_tagged(image):
        return True  # a Ray image of a team's own registry: its tag is the team's numbering, not a Ray release
    return not (tag.startswith(("nightly", "latest")) or _VERSION_IN_TAG.match(tag))


def _readiness(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(manifest):
        ray_version = _http_probes(ref, ctx)
        if ray_version is None:
            continue
        for group in groups(ref):
            found = ray_container(group_template(group))
            if found is None or not _probes_injected(found[1]):
                continue
            path, container = found
            image = as_str(container.get("image"))
            if not image or "$" in image or "{" in image:
                continue
            version = _ray_version_of_image(image)
            if version is not None and _probe_failure(ref, ctx, container, version):
                yield Violation(
                    f"image {image!r} carries Ray {version}{_digest_note(image)} but {ref.path('rayVersion')} is {ray_version!r}: for rayVersion >= 2.53.0 KubeRay builds the liveness and readiness probes as HTTP GET /api/healthz on the dashboard agent, which Ray before 2.53 answers with 404, so the Pod never turns Ready and is restarted forever",
                    join(path, "image"),
                    fix=f"use an image of Ray >= 2.53 (tagged {ray_version}), or set rayVersion to {version!r}",
                )
            elif version is None and _hidden_version(image):
                yield Violation(
                    f"image {image!r} does not show its Ray version, and for rayVersion {ray_version!r} KubeRay builds HTTP probes on /api/healthz that only Ray >= 2.53 answers: if the image holds an older Ray, the Pod never turns Ready",
                    join(path, "image"),
                    fix="tag the image with its Ray version (repo:2.53.0@sha256:... keeps the digest), or set rayVersion to the image's Ray version",
                    severity="medium",
                    severity_why=_VERSION_UNKNOWN,
                )


def _image_version(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(manifest):
        ray_version = as_str(ref.spec.get("rayVersion"))
        seen: dict[str, str] = {}
        pythons: dict[str, str] = {}
        for group in groups(ref):
            found = ray_container(group_template(group))
            image = as_str(found[1].get("image")) if found is not None else None
            if found is None or not image or "$" in image:
                continue
            path = f"{found[0]}.image"
            version = _ray_version_of_image(image)
            if version is None:
                continue
            if (python := _python_of_image(image)) is not None:
                pythons.setdefault(python, path)
            if _probe_failure(ref, ctx, found[1], version):
                seen.setdefault(version, path)
                continue  # probes-need-ray-2-53 reports it, critical
            if ray_version and not ray_version.startswith(version) and not version.startswith(ray_version):
                crossed = _thresholds_between(ray_version, version)
                if crossed is None or crossed:
                    yield Violation(
                        f"image {image!r} carries Ray {version} but {ref.path('rayVersion')} is {ray_version!r}; KubeRay picks features (auth, probes, job submission, priority) by rayVersion{_crossed_note(crossed)}",
                        path,
                        fix=f"use an image tagged {ray_version} or set rayVersion to {version!r}",
                    )
                else:
                    yield Violation(
                        f"image {image!r} carries Ray {version} but {ref.path('rayVersion')} is {ray_version!r}; keep them equal so the next upgrade does not cross a KubeRay threshold unseen",
                        path,
                        fix=f"use an image tagged {ray_version} or set rayVersion to {version!r}",
                        severity="low",
                        severity_why=_SAME_PODS,
                    )
            seen.setdefault(version, path)
        yield from _versions_across_groups(seen, pythons)


def _thresholds_between(ray_version: str, image_version: str) -> list[str] | None:
    """The KubeRay thresholds (``RAY_VERSION_THRESHOLDS``) between rayVersion and the image's Ray; None when either
    is not a version."""
    a, b = parse_generic_version(ray_version), parse_generic_version(image_version)
    if a is None or b is None:
        return None
    return [format_version(t) for t in RAY_VERSION_THRESHOLDS if (a < t) != (b < t)]


def _crossed_note(crossed: list[str] | None) -> str:
    return f", and KubeRay treats Ray {', '.join(crossed)} and later differently" if crossed else ""


def _versions_across_groups(releases: dict[str, str], pythons: dict[str, str]) -> Iterator[Violation]:
    """Ray's `ray start` on a worker calls check_version_info, which raises "Version mismatch" when the node's Ray
    release or Python differs from the head's: the worker container exits and is restarted forever."""
    for what, seen in (("Ray versions", releases), ("Python versions", pythons)):
        if len(seen) > 1:
            shown = ", ".join(f"{v} at {p}" for v, p in seen.items())
            yield Violation(
                f"Ray containers of one cluster run different {what} ({shown}): a worker's `ray start` refuses to join a head of another Ray release or Python (check_version_info: Version mismatch), so its container exits and is restarted forever",
                list(seen.values())[-1],
                fix="use one Ray image (one Ray release, one Python) for the head and every worker group",
                severity="critical",
                severity_why=_NEVER_JOINS,
            )


def _requests_equal_limits(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for template in pod_templates(manifest):
        if template.role == "submitter":
            continue
        found = ray_container(template)
        if found is None:
            continue
        path, container = found
        resources = as_dict(container.get("resources"))
        limits, requests = as_dict(resources.get("limits")), as_dict(resources.get("requests"))
        if not (limits or requests):
            continue
        for name in sorted(set(limits) | set(requests)):
            if not (name == "memory" or is_gpu_resource_key(name)):
                continue
            if name in limits and name in requests and limits[name] != requests[name]:
                yield Violation(
                    f"Ray container requests {name} {requests[name]!r} but its limit is {limits[name]!r}; KubeRay tells Ray the limit, so the scheduler may place more work than the node holds",
                    join(path, "resources", "requests", name),
                    fix=f"set resources.requests.{name} equal to resources.limits.{name}",
                )
            elif name in requests and name not in limits:
                yield Violation(
                    f"Ray container requests {name} but sets no {name} limit; KubeRay derives Ray's {'memory' if name == 'memory' else 'num-gpus'} from limits only",
                    join(path, "resources", "limits"),
                    fix=f"set resources.limits.{name} equal to the request",
                )


_HEAD_MEMORY_MIN = 2 * 10**9
_HEAD_MEMORY_PROD = 8 * 10**9


def _head_memory(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(manifest):
        found = head_ray_container(ref)
        if found is None:
            continue
        path, container = found
        limit = get(container, "resources", "limits", "memory")
        size = memory_bytes(limit)
        if size is None or 0 < size < RAY_MIN_MEMORY:
            continue  # below RAY_MIN_MEMORY ray-container-memory-unusable reports it, critical
        # Ray's own guidance (its KubeRay config docs and the ray-cluster chart): "never allocate less than 2G
        # memory for the Ray head", and no less than 8G for a Ray pod in production. 2G is decimal: Ray's docs and
        # samples use exactly `2G`, which must pass.
        floor = _HEAD_MEMORY_PROD if ctx.environment == "prod" else _HEAD_MEMORY_MIN
        if size < floor:
            below_min = size < _HEAD_MEMORY_MIN
            if below_min:
                message = f"head memory limit {limit!r} is below 2G, the least Ray supports for a head: the GCS, dashboard and drivers share it and the head is OOM-killed under load"
            else:
                message = f"head memory limit {limit!r} is below 8G, what Ray recommends for a Ray pod in production: the GCS, dashboard and drivers share it"
            yield Violation(
                message,
                join(path, "resources", "limits", "memory"),
                fix="give the head at least 2G (8G in production)",
                severity="high" if below_min else "medium",
                severity_why=_ABOVE_MINIMUM,
            )


def _head_num_cpus(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if ctx.environment != "prod":
        return
    for ref in cluster_specs(manifest):
        head = head_group(ref)
        if head is None or not worker_groups(ref):
            continue
        value = get(head.spec, "rayStartParams", "num-cpus")
        if value != "0":
            yield Violation(
                "the head accepts Ray tasks and actors in production (rayStartParams.num-cpus is not \"0\"); work on the head competes with the GCS and can take the whole cluster down",
                join(head.path, "rayStartParams", "num-cpus"),
            )


def _gcs_ft(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if ctx.environment != "prod":
        return
    kind = manifest.get("kind")
    if kind not in ("RayService", "RayCluster"):
        return
    legacy = str(doc_annotations(manifest).get(FT_ENABLED_ANNOTATION, "")).lower() == "true"
    for ref in cluster_specs(manifest):
        if ref.spec.get("gcsFaultToleranceOptions") is None and not legacy:
            yield Violation(
                f"a production {kind} runs without GCS fault tolerance: a head restart loses every actor, job and Serve application",
                ref.path("gcsFaultToleranceOptions"),
                severity="high" if kind == "RayService" else "medium",
                severity_why=_CLUSTER_ONLY,
            )


_EXPOSED_TYPES = ("LoadBalancer", "NodePort")


def _exposure(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(manifest):
        head = head_group(ref)
        if head is None:
            continue
        token = get(ref.spec, "authOptions", "mode") == "token"
        if token:
            continue
        service_type = as_str(head.spec.get("serviceType"))
        custom_type = as_str(get(head.spec, "headService", "spec", "type"))
        if service_type in _EXPOSED_TYPES:
            where, what = join(head.path, "serviceType"), f"serviceType {service_type}"
        elif custom_type in _EXPOSED_TYPES:
            where, what = join(head.path, "headService", "spec", "type"), f"headService type {custom_type}"
        elif head.spec.get("enableIngress") is True:
            where, what = join(head.path, "enableIngress"), "enableIngress"
        else:
            continue
        yield Violation(
            f"the head's dashboard, client and job API are exposed outside the cluster ({what}) without Ray token authentication: anyone who reaches it can run code on the cluster",
            where,
        )


_WELL_KNOWN_PORTS = {DASHBOARD_PORT: "dashboard", SERVE_PORT: "serve", CLIENT_PORT: "client"}


def _port_names(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(manifest):
        found = head_ray_container(ref)
        if found is None:
            continue
        path, container = found
        for i, port in enumerate(as_list(container.get("ports"))):
            number = get(port, "containerPort")
            name = as_str(get(port, "name"))
            expected = _WELL_KNOWN_PORTS.get(number) if isinstance(number, int) else None
            if expected is None or name is None:
                continue
            if expected == "serve" and name.startswith("serve"):
                continue
            if name != expected:
                yield Violation(
                    f"port {number} is named {name!r}; KubeRay finds the {expected} port by the name {expected!r} (dashboard URL, serve Service, probes) and falls back to defaults otherwise",
                    join(path, "ports", i, "name"),
                    fix=f"name it {expected!r}",
                )


def _registry_of(image: str) -> str:
    first, _, rest = image.partition("/")
    if not rest or ("." not in first and ":" not in first and first != "localhost"):
        return "docker.io/" + (image if rest else f"library/{image}")
    return image


def _registries(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    allowed = ctx.options.allowed_registries
    if not allowed:
        return
    prefixes = [str(a).rstrip("/") + "/" for a in allowed]
    images: list[tuple[str, str]] = []
    for template in pod_templates(manifest):
        for key in ("containers", "initContainers"):
            for i, container in enumerate(as_list(template.pod_spec.get(key))):
                image = as_str(get(container, "image"))
                if image:
                    images.append((join(template.spec_path, key, i, "image"), image))
    for ref in cluster_specs(manifest):
        image = as_str(get(ref.spec, "autoscalerOptions", "image"))
        if image:
            images.append((ref.path("autoscalerOptions", "image"), image))
    for path, image in images:
        if "$" in image:
            continue
        full = _registry_of(image)
        if not any(full.startswith(p) or image.startswith(p) for p in prefixes):
            yield Violation(
                f"image {image!r} comes from a registry outside the allowed list ({', '.join(allowed)})",
                path,
            )


#: probes-need-ray-2-53 in CEL, over each group (the cluster's rayVersion through variables.clusters).
_PROBES_CEL = "!@RV_AT_LEAST@ || !has(g.template) || !has(g.template.spec) || !has(g.template.spec.containers) || size(g.template.spec.containers) == 0 || [g.template.spec.containers[0]].all(k, (has(k.livenessProbe) && has(k.readinessProbe)) || !has(k.image) || k.image == '' || k.image.contains('$') || k.image.contains('{') || [k.image.split('@')[0]].all(name, [name.substring(name.lastIndexOf('/') + 1)].all(last, !last.split(':')[0].lowerAscii().contains('ray') || (last.contains(':') ? (name.lastIndexOf(':') > name.lastIndexOf('/') ? name.substring(0, name.lastIndexOf(':')) : name).lowerAscii().matches(@RAY_TAGGED@) && [last.substring(last.indexOf(':') + 1)].all(tag, [tag.find('^\\\\p{Nd}+\\\\.\\\\p{Nd}+\\\\.\\\\p{Nd}+')].all(v, v != '' ? !(@BELOW_V@) : (tag.startsWith('nightly') || tag.startsWith('latest')))) : !k.image.contains('@')))))"
#: image-ray-version-mismatch in CEL, over each cluster spec; per group [the Ray release of the image's tag or '',
#: 'y' when the operator builds the probes].
_MISMATCH_CEL = f"[variables.groups.filter(g, {first_container_guard('g.template')} && has(g.template.spec.containers[0].image) && g.template.spec.containers[0].image != '' && !g.template.spec.containers[0].image.contains('$')).map(g, g.template.spec.containers[0]).map(k, [[k.image.split('@')[0]].map(name, (name.lastIndexOf(':') > name.lastIndexOf('/') ? name.substring(0, name.lastIndexOf(':')) : name).lowerAscii().matches(@RAY_TAGGED@) ? name.substring(name.lastIndexOf('/') + 1) : '').map(last, !last.split(':')[0].lowerAscii().contains('ray') || !last.contains(':') ? '' : last.substring(last.indexOf(':') + 1).find('^\\\\p{{Nd}}+\\\\.\\\\p{{Nd}}+\\\\.\\\\p{{Nd}}+'))[0], !has(k.livenessProbe) || !has(k.readinessProbe) ? 'y' : 'n'])].all(pairs, !pairs.exists(q, q[0] != '' && !(q[0] != '' && @HTTP@ && q[1] == 'y' && @BELOW_Q@) && has(c.rayVersion) && c.rayVersion != '' && !c.rayVersion.startsWith(q[0]) && !q[0].startsWith(c.rayVersion)) && !pairs.exists(a, a[0] != '' && pairs.exists(b, b[0] != '' && a[0] != b[0])))"

# ------------------------------------------------------------------------------------------------ examples

_CLUSTER = ex.ray_cluster()
_HEAD_C: list[str | int] = ["spec", "headGroupSpec", "template", "spec", "containers", 0]
_WORKER_C: list[str | int] = ["spec", "workerGroupSpecs", 0, "template", "spec", "containers", 0]

declare(
    id="image-ray-version-mismatch",
    title="Ray images match spec.rayVersion and each other",
    severity="high",
    category="correctness",
    kinds=KINDS,
    rationale="KubeRay enables features by rayVersion while the image decides what actually runs (high when rayVersion and the images' Ray lie on two sides of a release at which KubeRay builds or validates a cluster differently: 2.6.0, 2.52.0, 2.53.0, 2.55.0, 2.56.0; low when no such release lies between them); Ray refuses to connect nodes of different Ray or Python versions: critical when the Ray containers' images show different Ray releases or Pythons across groups (a worker's `ray start` raises Version mismatch in check_version_info and its container is restarted forever).",
    fix="Use one Ray image version for head and workers and set rayVersion to it.",
    check=_image_version,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_WORKER_C, "image"], "rayproject/ray:2.41.0"),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].image",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.containers[0].image": "rayproject/ray:2.52.0"}),
    cel=Cel(
        _MISMATCH_CEL.replace("@RAY_TAGGED@", json.dumps(_RAY_TAGGED_REPOSITORY.pattern))
        .replace("@HTTP@", ray_version_at_least(_UNIFIED_HEALTH_RAY))
        .replace("@BELOW_Q@", generic_version_below("q[0]", _UNIFIED_HEALTH_RAY)),
        over="cluster",
        path="rayVersion",
        message="the Ray images' tags show a Ray release other than rayVersion, or different releases across groups",
    ),
    also=(_SAME_PODS, _NEVER_JOINS,),
)
declare(
    id="probes-need-ray-2-53",
    title="The image's Ray answers the probes KubeRay builds for rayVersion",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    since="1.6",  # supportsUnifiedHealthCheck came with KubeRay v1.6.0
    rationale="For rayVersion >= 2.53.0 KubeRay (1.6 and later) builds the Ray container's liveness and readiness probes as HTTP GET /api/healthz on the dashboard agent (supportsUnifiedHealthCheck, initLivenessAndReadinessProbe); Ray before 2.53 answers 404 there, so the Pods never turn Ready and are restarted forever (a runtime failure, not a rejection: the operator and the API server accept the object). Critical when the image tag shows Ray < 2.53 (only the tags of repositories known to be tagged by Ray release show it: rayproject/ray, ray-ml, ray-llm, anyscale/ray, quay.io/modh/ray, project-codeflare/ray; a team's own image named ray is tagged by its own numbering), or the image is a digest that a client pins as its default and names the release of (codeflare-sdk's quay.io/modh/ray images); medium when a Ray image is pinned by another digest, a tag without a version or a team's own numbering, which hides the Ray release these probes need. Probes the user sets on the Ray container are kept by the operator: with both set, no finding.",
    proof="rayVersion >= 2.53 makes KubeRay build HTTP /api/healthz probes and the image shows Ray < 2.53: a tag of a repository tagged by Ray release (rayproject/ray, anyscale/ray, quay.io/modh/ray...) or a digest a client names; any other image hides its release: medium",
    fix="Use a Ray >= 2.53 image for rayVersion >= 2.53 (or set rayVersion to the image's Ray); tag a digest-pinned image with its Ray version.",
    check=_readiness,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, ["spec", "rayVersion"], "2.53.0"),
    violating_path="spec.headGroupSpec.template.spec.containers[0].image",
    fixed=patch({"spec.rayVersion": "2.52.0"}),
    # _readiness: the Ray container of each group (probes left to the operator) of a cluster whose rayVersion is
    # >= 2.53.0 runs a Ray image whose tag shows Ray >= 2.53 (or nightly, latest, or a team's own image).
    cel=Cel(
        _PROBES_CEL.replace("@RAY_TAGGED@", json.dumps(_RAY_TAGGED_REPOSITORY.pattern))
        .replace("@RV_AT_LEAST@", ray_version_at_least(_UNIFIED_HEALTH_RAY))
        .replace("@BELOW_V@", generic_version_below("v", _UNIFIED_HEALTH_RAY)),
        over="group",
        path="template.spec.containers[0].image",
        message="rayVersion >= 2.53.0 makes KubeRay build HTTP /api/healthz probes, but the Ray image's tag shows an older Ray or hides its release",
    ),
    also=(_VERSION_UNKNOWN,),
)
declare(
    id="requests-not-equal-limits",
    title="Memory and GPU requests equal limits on Ray containers",
    severity="medium",
    category="reliability",
    kinds=KINDS,
    rationale="KubeRay passes limits to Ray; a lower request lets Kubernetes overcommit the node Ray thinks it owns.",
    fix="Set requests equal to limits for memory and GPUs (the convenience fields cpu/memory/gpu do this).",
    check=_requests_equal_limits,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_WORKER_C, "resources", "requests", "memory"], "4Gi"),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.memory",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.memory": "16Gi"}),
    cel=Cel(
        f"{group_containers('g')}.all(k, !has(k.resources) || !has(k.resources.requests) || k.resources.requests.all(n, !(n == 'memory' || n.lowerAscii().endsWith('gpu')) || (has(k.resources.limits) && n in k.resources.limits && k.resources.limits[n] == k.resources.requests[n])))",
        over="group",
        path="template.spec.containers[0].resources.requests",
        message="the Ray container requests memory or GPUs without a limit written equal to the request",
    ),
)
declare(
    id="head-memory-too-small",
    title="The head has enough memory (2G, 8G in production)",
    severity="high",
    category="reliability",
    kinds=KINDS,
    rationale="The GCS, dashboard and drivers run on the head; an undersized head is OOM-killed and takes the cluster down. Thresholds are Ray's own: never less than 2G for the head (high), 8G for a Ray pod in production (medium); Ray's docs use 2G, which passes.",
    fix="Raise the head container's memory limit.",
    check=_head_memory,
    compliant=_CLUSTER,
    violating=ex.edit(
        ex.edit(_CLUSTER, [*_HEAD_C, "resources", "limits", "memory"], "1Gi"),
        [*_HEAD_C, "resources", "requests", "memory"],
        "1Gi",
    ),
    violating_path="spec.headGroupSpec.template.spec.containers[0].resources.limits.memory",
    fixed=patch(
        {
            "spec.headGroupSpec.template.spec.containers[0].resources.limits.memory": "8Gi",
            "spec.headGroupSpec.template.spec.containers[0].resources.requests.memory": "8Gi",
        }
    ),
    # The 2G floor (high) in CEL with Kubernetes' quantity library; quantities memory_bytes cannot read (a sign, an
    # exponent, n or u) are skipped as the Python check skips them. Production's 8G advice (medium) needs the
    # environment, which a policy does not see.
    cel=Cel(
        f"{HEAD_CONTAINERS}.all(h, !has(h.resources) || !has(h.resources.limits) || !('memory' in h.resources.limits) || [string(h.resources.limits['memory'])].all(m, !m.matches('^[0-9.]+([KMGTPE]i|[kMGTPEm])?$') || !isQuantity(m) || quantity(m).compareTo(quantity('2G')) >= 0))",
        over="cluster",
        path="headGroupSpec.template.spec.containers[0].resources.limits.memory",
        message="the head's memory limit is below 2G, the least Ray supports for a head",
    ),
    also=(_ABOVE_MINIMUM,),
)
declare(
    id="head-runs-workloads-in-prod",
    title='In production the head does not run tasks (num-cpus "0")',
    severity="medium",
    category="reliability",
    kinds=KINDS,
    rationale="Ray recommends keeping work off the head of production clusters so the GCS stays responsive.",
    fix='Set headGroupSpec.rayStartParams.num-cpus: "0".',
    check=_head_num_cpus,
    compliant=_CLUSTER,
    violating=ex.remove(_CLUSTER, ["spec", "headGroupSpec", "rayStartParams"]),
    violating_path="spec.headGroupSpec.rayStartParams.num-cpus",
    context={"environment": "prod"},
    fixed=patch({"spec.headGroupSpec.rayStartParams": {"num-cpus": "0"}}),
)
declare(
    id="gcs-ft-missing-in-prod",
    title="Production services and clusters enable GCS fault tolerance",
    severity="high",
    category="reliability",
    kinds=("RayCluster", "RayService"),
    rationale="Without GCS fault tolerance a head Pod restart loses cluster state; a RayService drops traffic.",
    fix="Set gcsFaultToleranceOptions (Redis address and a password from a Secret, or the rocksdb backend).",
    check=_gcs_ft,
    compliant=ex.ray_service(),
    violating=ex.remove(ex.ray_service(), ["spec", "rayClusterConfig", "gcsFaultToleranceOptions"]),
    violating_path="spec.rayClusterConfig.gcsFaultToleranceOptions",
    context={"environment": "prod"},
    fixed=patch(
        {
            "spec.rayClusterConfig.gcsFaultToleranceOptions": {
                "redisAddress": "redis:6379",
                "redisPassword": {"valueFrom": {"secretKeyRef": {"name": "redis", "key": "password"}}},
            },
        }
    ),
    also=(_CLUSTER_ONLY,),
)
declare(
    id="dashboard-exposed-without-auth",
    title="No public dashboard or client endpoint without Ray token auth",
    severity="high",
    category="security",
    kinds=KINDS,
    rationale="The Ray dashboard and job API run arbitrary code; exposing them without auth hands out the cluster.",
    fix="Keep serviceType ClusterIP and enableIngress off, or set authOptions.mode: token (Ray >= 2.52).",
    check=_exposure,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, ["spec", "headGroupSpec", "serviceType"], "LoadBalancer"),
    violating_path="spec.headGroupSpec.serviceType",
    fixed=patch({"spec.headGroupSpec.serviceType": REMOVE}),
    cel=Cel("(has(c.authOptions) && has(c.authOptions.mode) && c.authOptions.mode == 'token') || !has(c.headGroupSpec) || !((has(c.headGroupSpec.serviceType) && c.headGroupSpec.serviceType in ['LoadBalancer', 'NodePort']) || (has(c.headGroupSpec.headService) && has(c.headGroupSpec.headService.spec) && has(c.headGroupSpec.headService.spec.type) && c.headGroupSpec.headService.spec.type in ['LoadBalancer', 'NodePort']) || (has(c.headGroupSpec.enableIngress) && c.headGroupSpec.enableIngress))", over="cluster", path="headGroupSpec.serviceType"),
)
declare(
    id="port-misnamed",
    title="Well-known Ray ports carry the names KubeRay looks up",
    severity="medium",
    category="correctness",
    kinds=KINDS,
    rationale="KubeRay finds the dashboard and serve ports by name (dashboard, serve); a renamed port is ignored.",
    fix="Name port 8265 'dashboard', 8000 'serve' and 10001 'client'.",
    check=_port_names,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_HEAD_C, "ports", 1, "name"], "dash"),
    violating_path="spec.headGroupSpec.template.spec.containers[0].ports[1].name",
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].ports[1].name": "dashboard"}),
    cel=Cel(f"{HEAD_PORTS}.all(p, !has(p.containerPort) || !has(p.name) || !(p.containerPort in {{8265: 'dashboard', 8000: 'serve', 10001: 'client'}}) || p.name == {{8265: 'dashboard', 8000: 'serve', 10001: 'client'}}[p.containerPort] || ({{8265: 'dashboard', 8000: 'serve', 10001: 'client'}}[p.containerPort] == 'serve' && p.name.startsWith('serve')))", over="cluster", path="headGroupSpec.template.spec.containers[0].ports[].name"),
)
declare(
    id="image-registry-not-allowed",
    title="Images come from the allowed registries",
    severity="medium",
    category="security",
    kinds=KINDS,
    rationale="Organisations pin where code may come from; the option allowed_registries lists the prefixes.",
    fix="Mirror the image into an allowed registry, or extend the allowed_registries option.",
    check=_registries,
    compliant=_CLUSTER,
    violating=ex.edit(_CLUSTER, [*_WORKER_C, "image"], "ghcr.io/someone/ray:2.52.0"),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].image",
    context={"options": {"allowed_registries": ["docker.io/rayproject"]}},
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.containers[0].image": "rayproject/ray:2.52.0"}),
)

__all__ = ["image_tag", "memory_bytes"]
