"""The pulumi-kuberay program: stack config -> settings -> one Kubernetes provider -> the Ray components.

Everything a stack declares lives in its ``stacks/Pulumi.<stack>.yaml`` (see ``settings.py`` for the keys).
A bad config fails with a message naming the config key; a bad spec fails at preview with the rule id, the
field path and the fix, before anything is sent to a cluster.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pulumi
from pulumi_kubernetes import Provider

# The program directory is on sys.path when Pulumi runs it; make that explicit for runpy-based test runs too.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pulumi_kuberay.resources import renders_to, watch_with
from pulumi_kuberay.resources.cluster import RayCluster
from pulumi_kuberay.resources.cronjob import RayCronJob
from pulumi_kuberay.resources.job import RayJob
from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator
from pulumi_kuberay.resources.service import RayService

from settings import StackConfigError, StackSettings, load_settings, read_config


def build_provider(settings: StackSettings) -> Provider:
    """One explicit provider per stack: render to a directory (no cluster) or a kubeconfig/context."""
    if settings.render_dir:
        # The components' change plan reads a replaced RayJob's previous file there (see docs/changes.md).
        return renders_to(Provider("k8s", render_yaml_to_directory=settings.render_dir), settings.render_dir)
    provider = Provider("k8s", kubeconfig=settings.kubeconfig, context=settings.kube_context)
    # The components wait for their objects themselves, on the same cluster (see docs/troubleshooting.md).
    return watch_with(provider, kubeconfig=settings.kubeconfig, context=settings.kube_context)


def declare(settings: StackSettings, provider: Provider) -> dict[str, Any]:
    """Declare every resource of the stack; returns the Ray components by kind and name (the operator, when the
    stack declares one, is exported as the ``operator`` output)."""
    # The components read the rule target (kuberay:*) from the same stack config that settings validated.
    opts = pulumi.ResourceOptions(provider=provider)
    # With pulumi-kuberay:operator the stack installs the operator and its CRDs first; every Ray object takes
    # its rule target from it and depends on it (kuberay:version is then not needed).
    operator = (
        KubeRayOperator(
            "kuberay",
            settings.operator.args,
            opts,
            create_namespace=settings.operator.create_namespace,
        )
        if settings.operator is not None
        else None
    )
    clusters: dict[str, RayCluster] = {}
    for name, cluster in settings.clusters.items():
        clusters[name] = RayCluster(
            name,
            cluster.spec,
            opts,
            namespace=cluster.namespace or settings.namespace,
            labels=cluster.labels,
            annotations=cluster.annotations,
            wait_for_ready=cluster.wait_for_ready,
            operator=operator,
        )
    services: dict[str, RayService] = {}
    for name, service in settings.services.items():
        services[name] = RayService(
            name,
            service.spec,
            opts,
            namespace=service.namespace or settings.namespace,
            labels=service.labels,
            annotations=service.annotations,
            wait_for_ready=service.wait_for_ready,
            timeout_seconds=service.timeout_seconds,
            operator=operator,
        )
    jobs: dict[str, RayJob] = {}
    for name, job in settings.jobs.items():
        target = clusters[job.cluster] if job.cluster is not None else None
        jobs[name] = RayJob(
            name,
            job.spec,
            opts,
            cluster=target,
            namespace=job.namespace or (None if target is not None else settings.namespace),
            labels=job.labels,
            annotations=job.annotations,
            wait_for_completion=job.wait_for_completion,
            timeout_seconds=job.timeout_seconds,
            operator=operator,
        )
    cronjobs: dict[str, RayCronJob] = {}
    for name, cronjob in settings.cronjobs.items():
        cronjobs[name] = RayCronJob(
            name,
            cronjob.spec,
            opts,
            namespace=cronjob.namespace or settings.namespace,
            labels=cronjob.labels,
            annotations=cronjob.annotations,
            operator=operator,
        )

    pulumi.export(
        "clusters",
        {
            name: {
                "name": c.cluster_name,
                "namespace": c.namespace,
                "dashboard_url": c.dashboard_url,
                "client_address": c.client_address,
                "diagnosis": c.diagnosis,
            }
            for name, c in clusters.items()
        },
    )
    pulumi.export(
        "services",
        {
            name: {"serve_urls": s.serve_urls, "dashboard_url": s.dashboard_url, "diagnosis": s.diagnosis}
            for name, s in services.items()
        },
    )
    pulumi.export(
        "jobs",
        {
            name: {
                "cluster_name": j.cluster_name,
                "job_deployment_status": j.job_deployment_status,
                "diagnosis": j.diagnosis,
            }
            for name, j in jobs.items()
        },
    )
    if cronjobs:
        pulumi.export("cronjobs", {name: c.cronjob_name for name, c in cronjobs.items()})
    if operator is not None:
        pulumi.export(
            "operator",
            {
                "version": operator.version,
                "namespace": operator.namespace,
                "feature_gates": operator.feature_gates,
                "watch_namespaces": operator.watch_namespaces,
            },
        )
    return {"clusters": clusters, "services": services, "jobs": jobs, "cronjobs": cronjobs}


def main() -> dict[str, Any]:
    try:
        settings = load_settings(read_config())
    except StackConfigError as exc:
        raise pulumi.RunError(str(exc)) from None
    return declare(settings, build_provider(settings))


# Pulumi runs this file with runpy (run_name "__main__"); declare unconditionally so no runner variant can
# silently produce an empty stack. The components stay reachable (tests run this file with runpy.run_path).
COMPONENTS = main()
