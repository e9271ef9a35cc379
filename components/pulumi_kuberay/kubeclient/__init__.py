"""A small read-only Kubernetes REST client (standard library and PyYAML, never pulumi): the kubeconfig read as
the Kubernetes provider reads it, GETs of objects, events and lists, and one write that stores nothing: a
server-side dry-run create (``KubeClient.dry_run_create``, the preflight asking the cluster's admission).

One client for every reader of a cluster: the components' await and change plan (``resources/``), the preflight's
cluster read (``preflight.SnapshotReader``) and ``kuberay-lint --cluster`` / ``--live`` (``cli/``).
"""

from __future__ import annotations

from ._client import KubeClient, KubeConfigError, KubeError, find_kubeconfig, load_client

__all__ = ["KubeClient", "KubeConfigError", "KubeError", "find_kubeconfig", "load_client"]
