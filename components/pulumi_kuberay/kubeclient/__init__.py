"""A small read-only Kubernetes REST client (standard library and PyYAML, never pulumi): the kubeconfig read as
the Kubernetes provider reads it, and GETs of objects, events and lists.

One client for every reader of a cluster: the components' await and change plan (``resources/``), the preflight's
cluster read (``preflight.SnapshotReader``) and ``kuberay-lint --cluster`` / ``--live`` (``cli/``).
"""

from __future__ import annotations

from ._client import KubeClient, KubeConfigError, KubeError, find_kubeconfig, load_client

__all__ = ["KubeClient", "KubeConfigError", "KubeError", "find_kubeconfig", "load_client"]
