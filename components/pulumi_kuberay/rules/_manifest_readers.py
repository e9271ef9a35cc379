"""Readers that mirror KubeRay's own helpers (``IsGCSFaultToleranceEnabled``, ``IsAutoscalingV2Enabled``,
``validation.IsDNS1035Label``, Go's ``time.ParseDuration``...), shared by the rule modules.

Like :mod:`..kuberay.paths`, these read untrusted manifest dicts and never raise; values Pulumi has not computed yet
(None / the unknown sentinel) read as "not known". Rule modules import this, the engine and the path helpers,
never each other.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any

from pulumi_kuberay.kuberay import FT_ENABLED_ANNOTATION as FT_ENABLED_ANNOTATION
from pulumi_kuberay.kuberay import gosyntax as _gosyntax
from pulumi_kuberay.kuberay.kubernetes import (
    DNS_LABEL_MAX_LENGTH,
    DNS_SUBDOMAIN_MAX_LENGTH,
    GENERATE_NAME_SUFFIX_LENGTH,
)
from pulumi_kuberay.kuberay.names import (
    AUTOSCALER_V2_ENV as AUTOSCALER_V2_ENV,
)
from pulumi_kuberay.kuberay.names import (
    EXTERNAL_STORAGE_NS_ANNOTATION as EXTERNAL_STORAGE_NS_ANNOTATION,
)
from pulumi_kuberay.kuberay.names import (
    HISTORY_COLLECTOR_CONTAINER as HISTORY_COLLECTOR_CONTAINER,
)
from pulumi_kuberay.kuberay.names import (
    INITIALIZING_TIMEOUT_ANNOTATION as INITIALIZING_TIMEOUT_ANNOTATION,
)
from pulumi_kuberay.kuberay.names import KUBERAY_CONTROLLER, NAME_LIMITS
from pulumi_kuberay.kuberay.names import (
    ORIGINATED_FROM_CRD_LABEL as ORIGINATED_FROM_CRD_LABEL,
)
from pulumi_kuberay.kuberay.names import TLS_ENV_VARS as TLS_ENV_VARS
from pulumi_kuberay.kuberay.names import TLS_MOUNT_PATH as TLS_MOUNT_PATH
from pulumi_kuberay.kuberay.names import TLS_VOLUME as TLS_VOLUME
from pulumi_kuberay.kuberay.paths import (
    ClusterSpecRef,
    PodTemplateRef,
    as_dict,
    as_list,
    as_str,
    cluster_specs,
    document_view,
    env_var,
    get,
    group_template,
    groups,
    head_ray_container,
    is_unknown,
    parse_generic_version,
    pod_templates,
)
from pulumi_kuberay.model import is_dns1035_label

from ._engine import Context, Violation

# --------------------------------------------------------------------------------------------------
# RayClusterSpec constants

MAX_RAYCLUSTER_NAME = NAME_LIMITS["RayCluster"]

_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\Z")


# --------------------------------------------------------------------------------------------------
# RayClusterSpec predicates (each mirrors a KubeRay helper)


def annotation_path(key: str) -> str:
    return f'metadata.annotations["{key}"]'


def is_dns1035(name: str) -> bool:
    """Like k8s ``IsDNS1035Label`` (what the operator requires of RayCluster, RayJob and RayService names)."""
    return is_dns1035_label(name)


def is_dns1123_subdomain(name: str) -> bool:
    """Like k8s ``IsDNS1123Subdomain`` (what the API server requires of every object name)."""
    return len(name) <= DNS_SUBDOMAIN_MAX_LENGTH and bool(_DNS1123_SUBDOMAIN.match(name))


def is_dns1123_label(name: str) -> bool:
    return len(name) <= DNS_LABEL_MAX_LENGTH and bool(_DNS1123_LABEL.match(name))


@lru_cache(maxsize=1024)  # labels, annotations and resource names repeat across templates and rules
def qualified_name_error(key: str) -> str | None:
    """Like k8s ``IsQualifiedName``: optional DNS-1123 subdomain prefix + '/' + name of at most 63 chars."""
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > DNS_SUBDOMAIN_MAX_LENGTH or not _DNS1123_SUBDOMAIN.match(prefix):
            return "prefix part must be a lowercase DNS-1123 subdomain"
    else:
        return "a qualified name may contain at most one '/'"
    if not name:
        return "name part must be non-empty"
    if len(name) > DNS_LABEL_MAX_LENGTH:
        return "name part must be no more than 63 characters"
    if not _QUALIFIED_NAME_PART.match(name):
        return "name part must consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric"
    return None


@lru_cache(maxsize=1024)
def label_value_error(value: str) -> str | None:
    if len(value) > DNS_LABEL_MAX_LENGTH:
        return "must be no more than 63 characters"
    if not _LABEL_VALUE.match(value):
        return "must be empty or alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric"
    return None


_PORT_NAME = re.compile(r"[-a-z0-9]+")
_LETTER = re.compile(r"[a-z]")


@lru_cache(maxsize=1024)  # a pure function of the name; manifests repeat the same few port names
def port_name_error(name: str) -> str | None:
    """Like k8s ``IsValidPortName`` (an IANA service name): a container port's name, a probe's or a Service's
    targetPort by name."""
    if len(name) > 15:
        return "must be no more than 15 characters"
    if not _PORT_NAME.fullmatch(name):
        return "must contain only lower-case letters, digits and '-'"
    if "--" in name:
        return "must not contain consecutive hyphens"
    if not _LETTER.search(name):
        return "must contain at least one letter"
    if name.startswith("-") or name.endswith("-"):
        return "must not begin or end with a hyphen"
    return None


def is_set(value: Any) -> bool:
    """Go's ``!= ""`` / ``!= nil`` on a known value (unknown values count as not set: never judged)."""
    if is_unknown(value):
        return False
    return bool(value != "" and value != [] and value != {})


def bool_field(obj: Mapping[str, Any], key: str) -> bool | None:
    """A bool field: False when absent, None when unknown/not a bool."""
    if key not in obj:
        return False
    value = obj[key]
    return value if isinstance(value, bool) else None


def autoscaling_enabled(ref: ClusterSpecRef) -> bool | None:
    return bool_field(ref.spec, "enableInTreeAutoscaling")


def head_env(ref: ClusterSpecRef, name: str) -> tuple[str, dict[str, Any]] | None:
    found = head_ray_container(ref)
    if found is None:
        return None
    path, container = found
    return env_var(container, name, path)


def autoscaler_v2_by_version(ref: ClusterSpecRef) -> bool | None:
    """KubeRay ``IsAutoscalingV2Enabled``: ``autoscalerOptions.version`` is ``v2`` (the env var does not count)."""
    options = ref.spec.get("autoscalerOptions")
    if options is None:
        return False
    if not isinstance(options, dict):
        return None
    version = options.get("version")
    if version is not None and is_unknown(version):
        return None
    return version == "v2"


def autoscaler_v2_enabled(ref: ClusterSpecRef) -> bool | None:
    """v2 as ``validateWorkerGroupIdleTimeout`` and ``validateWorkerGroupPriority`` see it: ``version: v2``
    (``IsAutoscalingV2Enabled``), else the head env var ``RAY_enable_autoscaler_v2`` set to ``1`` or ``true``."""
    by_version = autoscaler_v2_by_version(ref)
    if by_version is not False:
        return by_version
    env = head_env(ref, AUTOSCALER_V2_ENV)
    if env is None:
        return False
    value = env[1].get("value")
    if value is not None and is_unknown(value):
        return None
    return value in ("1", "true")


def gcs_ft_enabled(ref: ClusterSpecRef) -> bool:
    """KubeRay ``IsGCSFaultToleranceEnabled``: options set, or annotation ``ray.io/ft-enabled`` is true."""
    if ref.spec.get("gcsFaultToleranceOptions") is not None:
        return True
    value = as_str(ref.annotations.get(FT_ENABLED_ANNOTATION))
    return value is not None and value.lower() == "true"


def ft_options(ref: ClusterSpecRef) -> dict[str, Any] | None:
    options = ref.spec.get("gcsFaultToleranceOptions")
    return options if isinstance(options, dict) else None


def rocksdb_backend(ref: ClusterSpecRef) -> bool:
    options = ft_options(ref)
    return options is not None and options.get("backend") == "rocksdb"


def ray_version_of(ref: ClusterSpecRef) -> tuple[str, tuple[int, ...] | None] | None:
    """(rayVersion text, parsed) ; None when unknown. Empty text when absent."""
    value = ref.spec.get("rayVersion")
    if "rayVersion" in ref.spec and is_unknown(value):
        return None
    if value is None:
        return "", None
    if not isinstance(value, str):
        return None
    return value, parse_generic_version(value) if value else None


def env_by_name(entries: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Env entries by name, the *last* one winning as in validateCollectorOptions (``envMap[env.Name] = env``)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for path, entry in entries:
        out[entry["name"]] = (path, entry)
    return out


# --------------------------------------------------------------------------------------------------


def reported_as(ref: ClusterSpecRef) -> str:
    """How the operator reports an embedded spec (so users recognise the event/status message)."""
    return {
        "RayJob": " (reported as 'The RayJob spec is invalid')",
        "RayService": " (reported as 'The RayService spec is invalid')",
        "RayCronJob": " (reported as 'invalid RayJob template')",
    }.get(ref.kind, "")


# --------------------------------------------------------------------------------------------------
# RayJobSpec: a RayJob's ``spec`` or a RayCronJob's ``spec.jobTemplate`` (the operator validates both alike)

JobCheck = Callable[[dict[str, Any], str, Context], Iterable[Violation]]


def job_specs(manifest: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """(RayJobSpec dict, its path) for a RayJob (``spec``) or a RayCronJob (``spec.jobTemplate``)."""
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        return
    kind = manifest.get("kind")
    if kind == "RayJob":
        yield spec, "spec"
    elif kind == "RayCronJob":
        template = spec.get("jobTemplate")
        if isinstance(template, dict):
            yield template, "spec.jobTemplate"


def per_job_spec(check: JobCheck) -> Callable[[dict[str, Any], Context], Iterator[Violation]]:
    """A manifest check running ``check(job_spec, path, ctx)`` over every RayJobSpec of the manifest."""

    def run(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
        # The document's one RayJobSpec found first, then ``check``'s own iterator handed out: ~40 job rules run on
        # every RayJob, and two more generator layers each cost more than most of these checks.
        spec = manifest.get("spec")
        if isinstance(spec, dict):
            kind = manifest.get("kind")
            if kind == "RayJob":
                return iter(check(spec, "spec", ctx))
            template = spec.get("jobTemplate") if kind == "RayCronJob" else None
            if isinstance(template, dict):
                return iter(check(template, "spec.jobTemplate", ctx))
        return iter(())

    run.__name__ = check.__name__
    run.__doc__ = check.__doc__
    return run


MAX_RAYJOB_NAME_LENGTH = NAME_LIMITS["RayJob"]
#: Length of the random suffix the API server appends to ``metadata.generateName``.
GENERATED_SUFFIX_LENGTH = GENERATE_NAME_SUFFIX_LENGTH
#: names.SimpleNameGenerator keeps at most this much of ``generateName``.
GENERATE_NAME_MAX_PREFIX = DNS_LABEL_MAX_LENGTH - GENERATE_NAME_SUFFIX_LENGTH


def effective_name(manifest: Mapping[str, Any]) -> tuple[str, str] | None:
    """(the name the object will have, the path to blame): ``metadata.name``, else the API server's
    ``generateName`` (truncated to 58 characters) plus a 5-character random suffix (shown as ``x``)."""
    meta = manifest.get("metadata")
    if not isinstance(meta, (dict, Mapping)):  # dict first: no ABC check for the common case
        return None
    name = meta.get("name")
    if isinstance(name, str) and name and not is_unknown(name):
        return name, "metadata.name"
    prefix = meta.get("generateName")
    if isinstance(prefix, str) and prefix and not is_unknown(prefix):
        return prefix[:GENERATE_NAME_MAX_PREFIX] + "x" * GENERATED_SUFFIX_LENGTH, "metadata.generateName"
    return None
DELETION_ORDER = ("DeleteWorkers", "DeleteCluster", "DeleteSelf")
CLUSTER_DELETING_POLICIES = ("DeleteCluster", "DeleteWorkers")
#: Submission modes the v1.7.0 controller knows, with the KubeRay version that introduced each.
SUBMISSION_MODES_SINCE: dict[str, tuple[int, int, int]] = {
    "K8sJobMode": (1, 1, 0),
    "HTTPMode": (1, 1, 0),
    "InteractiveMode": (1, 3, 0),
    "SidecarMode": (1, 5, 0),
}


def str_or_empty(value: Any) -> str:
    """The string ("" when unset, not a string, or not known until apply)."""
    return as_str(value) or ""


def has_cluster_selector(spec: dict[str, Any]) -> bool:
    selector = spec.get("clusterSelector")
    return isinstance(selector, dict) and len(selector) > 0


def _built_pod_templates(manifest: dict[str, Any]) -> tuple[PodTemplateRef, ...]:
    return tuple(_walk_built_pod_templates(manifest))


#: The pod templates the operator builds objects from: every group's template of each RayCluster it creates
#: and reconciles (buildHeadPod, buildWorkerPod; not a RayJob's rayClusterSpec while clusterSelector picks a
#: cluster, nor a cluster spec whose managedBy hands it to another controller: ManagedByExternalController), and
#: the submitter template in K8sJobMode (getSubmitterTemplate, the submitter Job's pod template).
#: Found once per ``check`` (``document_view``): a dozen Pod validation rules walk them on every document.
built_pod_templates = document_view("kuberay.built_pod_templates", _built_pod_templates)


def _built_cluster_specs(manifest: dict[str, Any]) -> tuple[ClusterSpecRef, ...]:
    if any(has_cluster_selector(spec) for spec, _ in job_specs(manifest)):
        return ()
    return tuple(
        ref
        for ref in cluster_specs(manifest)
        if not isinstance(manager := ref.spec.get("managedBy"), str) or manager == KUBERAY_CONTROLLER
    )


#: The cluster specs the operator creates and reconciles a RayCluster from (not a RayJob's rayClusterSpec while
#: clusterSelector picks a cluster, nor a spec whose managedBy hands it to another controller): the ones whose
#: Pods, Services and Ingress the API server sees. Found once per ``check`` (``document_view``): ~15 rules ask.
built_cluster_specs = document_view("kuberay.built_cluster_specs", _built_cluster_specs)


def _walk_built_pod_templates(manifest: dict[str, Any]) -> Iterator[PodTemplateRef]:
    jobs = list(job_specs(manifest))
    for ref in built_cluster_specs(manifest):
        for group in groups(ref):
            template = group_template(group)
            if template is not None:
                yield template
    if jobs and submission_mode(jobs[0][0]) == "K8sJobMode":
        yield from (t for t in pod_templates(manifest) if t.role == "submitter")


def job_autoscaling_enabled(spec: dict[str, Any]) -> bool:
    return as_dict(spec.get("rayClusterSpec")).get("enableInTreeAutoscaling") is True


def deletion_strategy(spec: dict[str, Any]) -> dict[str, Any] | None:
    strategy = spec.get("deletionStrategy")
    return strategy if isinstance(strategy, dict) else None


def deletion_rules(spec: dict[str, Any]) -> list[Any]:
    return as_list(as_dict(spec.get("deletionStrategy")).get("deletionRules"))


def legacy_deletion_configured(strategy: dict[str, Any]) -> bool:
    return strategy.get("onSuccess") is not None or strategy.get("onFailure") is not None


def legacy_deletion_policy(strategy: dict[str, Any], key: str) -> str | None:
    return as_str(as_dict(strategy.get(key)).get("policy"))


def submission_mode(spec: dict[str, Any]) -> str:
    return str_or_empty(spec.get("submissionMode")) or "K8sJobMode"


# --------------------------------------------------------------------------------------------------
# Go parsers the operator relies on

# The code base's one Go duration parser (time.ParseDuration), cron parser (robfig/cron ParseStandard), time zone
# lookup (time.LoadLocation) and Masterminds semver parser live in pulumi_kuberay.kuberay.gosyntax; rule modules import
# them from here.
parse_go_duration = _gosyntax.parse_go_duration
go_atoi = _gosyntax.go_atoi
cron_error = _gosyntax.cron_error
go_location_exists = _gosyntax.go_location_exists
known_zones = _gosyntax.known_zones
semver_parse = _gosyntax.semver_parse


# --------------------------------------------------------------------------------------------------
# Images


def image_tag(image: str) -> str | None:
    """The tag of an image reference (``repo:tag`` or ``repo:tag@sha256:...``), None without one."""
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last else None


# --------------------------------------------------------------------------------------------------
# RayService

MAX_RAYSERVICE_NAME_LENGTH = NAME_LIMITS["RayService"]
UPGRADE_TYPES = ("NewClusterWithIncrementalUpgrade", "NewCluster", "None")
INCREMENTAL = "NewClusterWithIncrementalUpgrade"


def service_spec(manifest: dict[str, Any]) -> dict[str, Any] | None:
    if manifest.get("kind") != "RayService":
        return None
    spec = manifest.get("spec")
    return spec if isinstance(spec, dict) else None


def upgrade_type(spec: dict[str, Any]) -> Any:
    return get(spec, "upgradeStrategy", "type")


def service_cluster(spec: dict[str, Any]) -> dict[str, Any]:
    return as_dict(spec.get("rayClusterConfig"))


# --------------------------------------------------------------------------------------------------
# Kueue (the kueue_version option)

#: The label Kueue reads to queue a workload (``local_queue=`` on the components).
#: The newest Kueue release (the default of the ``kueue_version`` option).
NEWEST_KUEUE = (0, 19, 2)
#: From this release Kueue's RayJob webhook accepts a clusterSelector-only RayJob and leaves it unmanaged
#: (``validateCreate`` in pkg/controller/jobs/rayjob/rayjob_webhook.go; v0.14 refused it).
SELECTOR_UNMANAGED_SINCE = (0, 15, 0)


def kueue_version(ctx: Context) -> tuple[int, int, int]:
    """The Kueue release the team runs: the ``kueue_version`` option (``"0.14"``, ``"v0.15.2"``), else the newest."""
    return ctx.options.kueue_version or NEWEST_KUEUE


def kueue_label(version: tuple[int, int, int]) -> str:
    return "v" + ".".join(map(str, version))
