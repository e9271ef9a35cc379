"""The ``RayCluster`` component: one ``kubernetes:ray.io/v1:RayCluster``, checked before it is registered."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pulumi

from pulumi_kuberay.model.cluster import RayClusterSpec
from pulumi_kuberay.resources._shared import (
    JsonDict,
    RayCustomResource,
    check_manifest,
    child_options,
    coerce_spec,
    diagnosis_summary,
    head_port,
    namespace_of,
    object_metadata,
    render_manifest,
    render_spec,
    rule_settings,
    service_host,
    token,
    warn_findings,
    with_annotations,
)
from pulumi_kuberay.resources._wait import wait_annotations

KIND = "RayCluster"


def head_service_name(cluster_name: str, spec: Mapping[str, Any]) -> str:
    """``headGroupSpec.headService.metadata.name`` if set, else KubeRay's ``<cluster>-head-svc``."""
    head = spec.get("headGroupSpec") or {}
    custom = ((head.get("headService") or {}).get("metadata") or {}).get("name")
    return str(custom) if custom else f"{cluster_name}-head-svc"


def drop_autoscaled_replicas(spec: JsonDict) -> tuple[JsonDict, list[str]]:
    """With in-tree autoscaling, remove ``workerGroupSpecs[*].replicas`` (the autoscaler owns them).

    Returns the spec to send (a copy when something was dropped) and the groups whose replicas were dropped.
    """
    if not spec.get("enableInTreeAutoscaling"):
        return spec, []
    out = copy.deepcopy(spec)
    dropped: list[str] = []
    for group in out.get("workerGroupSpecs") or []:
        if isinstance(group, dict) and "replicas" in group:
            del group["replicas"]
            dropped.append(str(group.get("groupName", "?")))
    return (out, dropped) if dropped else (spec, [])


class RayCluster(pulumi.ComponentResource):
    """A KubeRay ``RayCluster`` (``ray.io/v1``), validated and checked against the rule catalogue at preview.

    ``args`` is a :class:`~pulumi_kuberay.RayClusterSpec` or a dict in its shape (CRD camelCase names or the
    model's snake_case names, convenience fields such as ``image``/``cpu``/``memory``/``gpu`` included).
    Constructing the component validates it, renders the manifest and runs the rule catalogue: a critical
    finding raises :class:`~pulumi_kuberay.resources._shared.CriticalFindingsError` before anything is
    registered (message: rule id, field path, fix); lower severities become warnings. Silence a rule on this
    resource with the annotation ``suppress.pulumi-kuberay.io/<rule-id>: "<reason>"``. The target KubeRay
    version, operator feature gates and environment come from the arguments, else from stack config
    ``kuberay:version`` / ``kuberay:featureGates`` / ``kuberay:environment``.

    Naming: the object is named ``name`` (or ``object_name``), with no random suffix, because KubeRay derives
    the head Service and Pod names from it. A replacement therefore deletes the old cluster first
    (``delete_before_replace``).

    Readiness: by default the provider waits (``pulumi.com/waitFor``) until the head Pod is ready (condition
    ``HeadPodReady``, or ``status.state: ready`` on older operators), for at most ``timeout_seconds``
    (provider default 600), so resources that depend on the cluster start once it is usable.
    ``wait_for_ready=False`` turns the wait off. A provider timeout cannot carry a diagnosis: run
    ``kubectl get raycluster <name> -o json | kuberay-explain -`` to see why.

    Autoscaling: with ``enableInTreeAutoscaling: true`` the Ray autoscaler rewrites
    ``workerGroupSpecs[*].replicas``. The component **omits** ``replicas`` from the custom resource then (a
    value you set is dropped, with a warning), so Pulumi neither diffs nor server-side-applies the field and
    never resets the autoscaler's choice. KubeRay clamps the missing value into
    ``[minReplicas, maxReplicas]``, so each group starts at ``minReplicas``: size the warm pool with
    ``minReplicas``. Omission was chosen over ``ignore_changes`` because an ignored field still travels, with
    its old value, in every update's apply patch, so Pulumi's field manager keeps owning it.

    Outputs: ``cluster_name``, ``namespace``, ``head_service_name`` (``<name>-head-svc`` or
    ``headService.metadata.name``), ``dashboard_url`` (in-cluster
    ``http://<head-svc>.<ns>.svc.cluster.local:8265``), ``client_address`` (``ray://<head-svc>...:10001``),
    ``status`` (the live RayCluster status; ``None`` until the provider reports one, e.g. when rendering to a
    directory), ``diagnosis`` (one-line summary of :func:`pulumi_kuberay.diagnose` over that status). Ports
    come from the head container's ports named ``dashboard``/``client`` when declared.
    ``provider``/``providers`` given in ``opts`` reach the custom resource through the parent.
    """

    if TYPE_CHECKING:  # pulumi resolves class annotations on every instance: about 1.4 ms each
        cluster_name: pulumi.Output[str]
        namespace: pulumi.Output[str]
        head_service_name: pulumi.Output[str]
        dashboard_url: pulumi.Output[str]
        client_address: pulumi.Output[str]
        status: pulumi.Output[JsonDict | None]
        diagnosis: pulumi.Output[str | None]
        resource: RayCustomResource
        spec: RayClusterSpec
        manifest: JsonDict

    def __init__(
        self,
        name: str,
        args: RayClusterSpec | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        namespace: str | None = None,
        object_name: str | None = None,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        wait_for_ready: bool = True,
        timeout_seconds: int | None = None,
        kuberay_version: str | None = None,
        feature_gates: Mapping[str, bool] | None = None,
        environment: str | None = None,
    ) -> None:
        k8s_name = object_name or name
        subject = f"RayCluster {k8s_name!r}"
        self.spec = coerce_spec(RayClusterSpec, args, subject=subject)
        settings = rule_settings(kuberay_version, feature_gates, environment)
        spec_dict, dropped = drop_autoscaled_replicas(render_spec(self.spec))
        metadata = object_metadata(k8s_name, namespace=namespace, labels=labels, annotations=annotations)
        if wait_for_ready:
            metadata = with_annotations(metadata, wait_annotations(KIND, timeout_seconds=timeout_seconds))
        self.manifest = render_manifest(KIND, metadata, spec_dict)
        findings = check_manifest(self.manifest, settings, subject=subject)

        super().__init__(token(KIND), name, None, opts)
        warn_findings(findings, self)
        if dropped:
            pulumi.log.warn(
                f"{subject}: enableInTreeAutoscaling is on, so the replicas of worker group(s) "
                f"{', '.join(dropped)} are not sent: the autoscaler owns them and each group starts at "
                "minReplicas",
                resource=self,
            )

        self.resource = RayCustomResource(
            name, self.manifest, child_options(self, delete_before_replace=True)
        )
        cr = self.resource
        service = head_service_name(k8s_name, spec_dict)
        dashboard_port = head_port(spec_dict, "dashboard")
        client_port = head_port(spec_dict, "client")
        self.cluster_name = cr.metadata.apply(lambda m: str((m or {}).get("name") or k8s_name))
        self.namespace = cr.metadata.apply(namespace_of)
        self.head_service_name = cr.metadata.apply(lambda _m: service)
        self.dashboard_url = self.namespace.apply(
            lambda ns: f"http://{service_host(service, ns)}:{dashboard_port}"
        )
        self.client_address = self.namespace.apply(
            lambda ns: f"ray://{service_host(service, ns)}:{client_port}"
        )
        self.status = cr.status
        manifest = self.manifest
        self.diagnosis = cr.status.apply(lambda s: diagnosis_summary(manifest, s))
        self.register_outputs(
            {
                "cluster_name": self.cluster_name,
                "namespace": self.namespace,
                "head_service_name": self.head_service_name,
                "dashboard_url": self.dashboard_url,
                "client_address": self.client_address,
                "status": self.status,
                "diagnosis": self.diagnosis,
            }
        )
