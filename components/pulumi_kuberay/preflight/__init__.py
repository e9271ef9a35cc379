"""Will it schedule? The target cluster as the preflight reads it, and the verdicts on a Ray object in it.

Plain Python (never imports pulumi): a typed, immutable :class:`ClusterSnapshot` (nodes, node sources, quotas,
LimitRanges, PriorityClasses, Kueue queues, the objects a spec names), :class:`SnapshotReader` that fills it from
the Kubernetes API read-only (one list request per kind, a deadline, cached per process: once per preview or lint
run), and :func:`children` (the objects the operator creates, as the API server receives them) and :class:`DryRuns` (the
cluster's own admission asked about them: server-side dry-run creates), and the pure verdicts the catalogue's
``preflight`` rules (``rules/preflight.py``) turn into findings:
:func:`placement` (can a group's Pod ever be placed), :func:`quota_verdicts` and :func:`kueue_problem`,
:func:`missing_references`. The cluster is read through :mod:`pulumi_kuberay.kubeclient`, the read-only REST client
the components' await and change plan and ``kuberay-lint`` use too.
"""

from __future__ import annotations

from .children import Child, children
from .dry_run import MAX_DRY_RUNS, AdmissionVerdict, DryRuns
from .placement import (
    Placement,
    affinity_matches,
    describe_amounts,
    free_capacity,
    jointly_short,
    node_rejects,
    placement,
    show,
    source_could_add,
    tolerates,
)
from .pods import AUTOSCALER_DEFAULT, ContainerShape, PodShape, pod_shapes
from .quota import QuotaVerdict, charge, kueue_problem, quota_verdicts, totals
from .reader import CLUSTER_KINDS, NAMESPACED_KINDS, Getter, Skipped, SnapshotReader, reader_for
from .references import Missing, Reference, missing_references, references
from .snapshot import (
    ClusterQueue,
    ClusterSnapshot,
    LimitRange,
    LocalQueue,
    Node,
    NodeSource,
    ResourceQuota,
    Taint,
    amounts,
    pod_requests,
)

__all__ = [
    "AUTOSCALER_DEFAULT",
    "CLUSTER_KINDS",
    "MAX_DRY_RUNS",
    "NAMESPACED_KINDS",
    "AdmissionVerdict",
    "Child",
    "ClusterQueue",
    "ClusterSnapshot",
    "ContainerShape",
    "DryRuns",
    "Getter",
    "LimitRange",
    "LocalQueue",
    "Missing",
    "Node",
    "NodeSource",
    "Placement",
    "PodShape",
    "QuotaVerdict",
    "Reference",
    "ResourceQuota",
    "Skipped",
    "SnapshotReader",
    "Taint",
    "affinity_matches",
    "amounts",
    "charge",
    "children",
    "describe_amounts",
    "free_capacity",
    "jointly_short",
    "kueue_problem",
    "missing_references",
    "node_rejects",
    "placement",
    "pod_requests",
    "pod_shapes",
    "quota_verdicts",
    "reader_for",
    "references",
    "show",
    "source_could_add",
    "tolerates",
    "totals",
]
