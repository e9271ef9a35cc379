"""The ``RayService`` component: one ``kubernetes:ray.io/v1:RayService`` serving Ray Serve applications."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pulumi

from pulumi_kuberay.model._yaml import parse_yaml
from pulumi_kuberay.model.service import RayServiceSpec
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

KIND = "RayService"
#: Ray Serve's name for an application declared without one.
DEFAULT_APP_NAME = "default"


def serve_service_name(service_name: str, spec: Mapping[str, Any]) -> str:
    """``spec.serveService.metadata.name`` if set, else KubeRay's ``<rayservice>-serve-svc``."""
    custom = ((spec.get("serveService") or {}).get("metadata") or {}).get("name")
    return str(custom) if custom else f"{service_name}-serve-svc"


def application_routes(spec: Mapping[str, Any]) -> dict[str, str]:
    """``{application name: route_prefix}`` from the rendered ``serveConfigV2`` YAML.

    An application without ``route_prefix`` is served at Ray Serve's default ``/``; one with
    ``route_prefix: null`` has no HTTP route and is left out.
    """
    text = spec.get("serveConfigV2")
    if not isinstance(text, str) or not text.strip():
        return {}
    config = parse_yaml(text)
    routes: dict[str, str] = {}
    for app in (config or {}).get("applications") or []:
        if not isinstance(app, Mapping):
            continue
        if "route_prefix" in app and app["route_prefix"] is None:
            continue
        routes[str(app.get("name") or DEFAULT_APP_NAME)] = str(app.get("route_prefix") or "/")
    return routes


class RayService(pulumi.ComponentResource):
    """A KubeRay ``RayService`` (``ray.io/v1``): a Ray cluster plus Ray Serve applications.

    ``args`` is a :class:`~pulumi_kuberay.RayServiceSpec` or a dict in its shape (``serveConfigV2`` may be a
    typed :class:`~pulumi_kuberay.ServeConfig` or a dict, rendered to the YAML string KubeRay expects). The
    manifest is checked against the rule catalogue at construction (critical findings raise before anything
    is registered, the others warn), as for :class:`~pulumi_kuberay.RayCluster`.

    Updates are in place: the operator applies replica changes and ``serveConfigV2`` to the running cluster,
    and for other ``rayClusterConfig`` changes it prepares a new cluster and switches traffic over
    (``upgradeStrategy.type: NewCluster``; use it, or ``NewClusterWithIncrementalUpgrade``, in production).
    The object name is fixed, so a replacement (e.g. a namespace change) deletes the old one first.

    Readiness: by default the provider waits for the ``Ready`` condition (serve endpoints available) for at
    most ``timeout_seconds`` (provider default 600; a first deployment pulling large images may need more).
    ``wait_for_ready=False`` turns it off. On a timeout run
    ``kubectl get rayservice <name> -o json | kuberay-explain -`` to see why.

    Outputs: ``service_name``, ``namespace``, ``serve_service_name`` (``<name>-serve-svc`` or
    ``serveService.metadata.name``), ``serve_urls`` (``{application: in-cluster URL}``, e.g.
    ``http://<serve-svc>.<ns>.svc.cluster.local:8000/text``), ``dashboard_url`` (through the stable
    ``<name>-head-svc``), ``status``, ``active_service_status``, ``pending_service_status`` (the cluster being
    prepared during an upgrade), ``conditions`` and ``diagnosis`` (one-line summary of
    :func:`pulumi_kuberay.diagnose`: which cluster serves, which application or deployment is unhealthy).
    """

    if TYPE_CHECKING:  # pulumi resolves class annotations on every instance: about 1.4 ms each
        service_name: pulumi.Output[str]
        namespace: pulumi.Output[str]
        serve_service_name: pulumi.Output[str]
        serve_urls: pulumi.Output[dict[str, str]]
        dashboard_url: pulumi.Output[str]
        status: pulumi.Output[JsonDict | None]
        active_service_status: pulumi.Output[JsonDict | None]
        pending_service_status: pulumi.Output[JsonDict | None]
        conditions: pulumi.Output[list[JsonDict]]
        diagnosis: pulumi.Output[str | None]
        resource: RayCustomResource
        spec: RayServiceSpec
        manifest: JsonDict

    def __init__(
        self,
        name: str,
        args: RayServiceSpec | Mapping[str, Any],
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
        subject = f"RayService {k8s_name!r}"
        self.spec = coerce_spec(RayServiceSpec, args, subject=subject)
        settings = rule_settings(kuberay_version, feature_gates, environment)
        spec_dict = render_spec(self.spec)
        metadata = object_metadata(k8s_name, namespace=namespace, labels=labels, annotations=annotations)
        if wait_for_ready:
            metadata = with_annotations(metadata, wait_annotations(KIND, timeout_seconds=timeout_seconds))
        self.manifest = render_manifest(KIND, metadata, spec_dict)
        findings = check_manifest(self.manifest, settings, subject=subject)

        super().__init__(token(KIND), name, None, opts)
        warn_findings(findings, self)

        self.resource = RayCustomResource(
            name, self.manifest, child_options(self, delete_before_replace=True)
        )
        cr = self.resource
        cluster_spec = spec_dict.get("rayClusterConfig") or {}
        serve_svc = serve_service_name(k8s_name, spec_dict)
        head_svc = f"{k8s_name}-head-svc"
        serve_port = head_port(cluster_spec, "serve")
        dashboard_port = head_port(cluster_spec, "dashboard")
        routes = application_routes(spec_dict)

        def urls(ns: str) -> dict[str, str]:
            return {
                app: f"http://{service_host(serve_svc, ns)}:{serve_port}{route}"
                for app, route in routes.items()
            }

        self.service_name = cr.metadata.apply(lambda m: str((m or {}).get("name") or k8s_name))
        self.namespace = cr.metadata.apply(namespace_of)
        self.serve_service_name = cr.metadata.apply(lambda _m: serve_svc)
        self.serve_urls = self.namespace.apply(urls)
        self.dashboard_url = self.namespace.apply(
            lambda ns: f"http://{service_host(head_svc, ns)}:{dashboard_port}"
        )
        self.status = cr.status
        manifest = self.manifest
        self.diagnosis = cr.status.apply(lambda s: diagnosis_summary(manifest, s))
        self.active_service_status = cr.status.apply(lambda s: (s or {}).get("activeServiceStatus"))
        self.pending_service_status = cr.status.apply(lambda s: (s or {}).get("pendingServiceStatus"))
        self.conditions = cr.status.apply(lambda s: list((s or {}).get("conditions") or []))
        self.register_outputs(
            {
                "service_name": self.service_name,
                "namespace": self.namespace,
                "serve_service_name": self.serve_service_name,
                "serve_urls": self.serve_urls,
                "dashboard_url": self.dashboard_url,
                "status": self.status,
                "active_service_status": self.active_service_status,
                "pending_service_status": self.pending_service_status,
                "conditions": self.conditions,
            }
        )
