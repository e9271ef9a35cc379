"""What KubeRay is, as plain data and readers: a leaf package (no pydantic, no pulumi, nothing of this package).

- :mod:`.api`: the API group and version, the kinds, operator versions and feature gates;
- :mod:`.names`: labels, annotations, ``spec.managedBy``, the head Pod's ports and head Service name, the
  environment variables, containers and volumes KubeRay injects or reads, the longest name of each kind;
- :mod:`.resources`: GPUs and accelerators (``IsGPUResourceKey``, the resources mapped to Ray's);
- :mod:`.quantity`: Kubernetes quantities as Go parses and writes them (the one quantity parser);
- :mod:`.states`: the terminal states of the state machines;
- :mod:`.paths`: the readers of untrusted manifest dicts (typed accessors, unknown values, embedded specs);
- :mod:`.replicas`: the Pods of a worker group as the operator counts them, and the ``replicas`` to send of a
  group the in-tree autoscaler owns (imported as a module, like
  :mod:`.paths`: the ``kuberay-lint`` front loads this package and needs neither);
- :mod:`.kubernetes`: Kubernetes facts (Pod Security profiles, name lengths, the integer formats' bounds);
- :mod:`.volumes`: what Pod validation requires of a pod template's volume sources (the in-tree plugins' fields);
- :mod:`.gosyntax`: Go syntax KubeRay parses (durations, cron, time zones, semver), as Go parses it.

Everything else (models, rules, status, plan, the components, the operator) imports these names from here.
"""

from __future__ import annotations

from .api import (
    API_VERSION,
    DEFAULT_FEATURE_GATES,
    KINDS,
    LATEST_VERSION,
    RAY_GROUP,
    Version,
    default_feature_gates,
    format_version,
    parse_kuberay_version,
)
from .kubernetes import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from .names import (
    CLIENT_PORT,
    DASHBOARD_PORT,
    FT_ENABLED_ANNOTATION,
    GCS_SERVER_PORT,
    HEAD_DEFAULT_PORTS,
    HEAD_SERVICE_SUFFIX,
    KUBERAY_CONTROLLER,
    KUEUE_QUEUE_LABEL,
    MANAGED_BY,
    NUM_WORKER_GROUPS_ANNOTATION,
    RAY_CLUSTER_LABEL,
    SERVE_PORT,
    ManagedBy,
    head_service_name,
)
from .states import RAYJOB_TERMINAL_DEPLOYMENT_STATUSES

__all__ = [
    "API_VERSION",
    "CLIENT_PORT",
    "DASHBOARD_PORT",
    "DEFAULT_FEATURE_GATES",
    "FT_ENABLED_ANNOTATION",
    "GCS_SERVER_PORT",
    "HEAD_DEFAULT_PORTS",
    "HEAD_SERVICE_SUFFIX",
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "KINDS",
    "KUBERAY_CONTROLLER",
    "KUEUE_QUEUE_LABEL",
    "LATEST_VERSION",
    "MANAGED_BY",
    "NUM_WORKER_GROUPS_ANNOTATION",
    "RAYJOB_TERMINAL_DEPLOYMENT_STATUSES",
    "RAY_CLUSTER_LABEL",
    "RAY_GROUP",
    "SERVE_PORT",
    "ManagedBy",
    "Version",
    "default_feature_gates",
    "format_version",
    "head_service_name",
    "parse_kuberay_version",
]
