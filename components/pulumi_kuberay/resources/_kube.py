"""The read-only Kubernetes REST client of the await and the change plan: ``pulumi_kuberay.preflight``'s (stdlib and
PyYAML only, shared with the preflight's cluster read and ``kuberay-lint --cluster``)."""

from __future__ import annotations

from pulumi_kuberay.preflight import KubeClient, KubeConfigError, KubeError, find_kubeconfig, load_client

__all__ = ["KubeClient", "KubeConfigError", "KubeError", "find_kubeconfig", "load_client"]
