"""The ``RayService`` component: one ``kubernetes:ray.io/v1:RayService`` serving Ray Serve applications."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Unpack

import pulumi

from pulumi_kuberay.kuberay import head_service_name
from pulumi_kuberay.kuberay.names import SERVE_SERVICE_SUFFIX
from pulumi_kuberay.model import parse_yaml
from pulumi_kuberay.model.serve import DEFAULT_APP_NAME
from pulumi_kuberay.model.service import RayServiceSpec
from pulumi_kuberay.resources._change_plan import ChangeRecord
from pulumi_kuberay.resources._component import Built, CommonArgs, ObjectKeywords, RayComponent, WorkloadKeywords
from pulumi_kuberay.resources._help import document_constructor
from pulumi_kuberay.resources._outputs import derived
from pulumi_kuberay.resources._shared import (
    JsonDict,
    head_port,
    namespace_of,
    service_host,
)

KIND = "RayService"
#: Ray Serve's name for an application declared without one.


def serve_service_name(service_name: str, spec: Mapping[str, Any]) -> str:
    """``spec.serveService.metadata.name`` if set, else KubeRay's ``<rayservice>-serve-svc``."""
    custom = ((spec.get("serveService") or {}).get("metadata") or {}).get("name")
    return str(custom) if custom else f"{service_name}{SERVE_SERVICE_SUFFIX}"


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


class RayService(RayComponent[RayServiceSpec]):
    """A KubeRay ``RayService`` (``ray.io/v1``): a Ray cluster plus Ray Serve applications.

    ``args`` is a :class:`~pulumi_kuberay.RayServiceSpec` or a dict in its shape (``serveConfigV2`` may be a
    typed :class:`~pulumi_kuberay.ServeConfig` or a dict, rendered to the YAML string KubeRay expects). The
    manifest is checked against the rule catalogue at construction (critical findings raise before anything
    is registered, the others warn), as for :class:`~pulumi_kuberay.RayCluster`.

    Updates are in place: the operator applies replica changes and ``serveConfigV2`` to the running cluster,
    and for other ``rayClusterConfig`` changes it prepares a new cluster and switches traffic over
    (``upgradeStrategy.type: NewCluster``; use it, or ``NewClusterWithIncrementalUpgrade``, in production).
    The object name is fixed, so a replacement (e.g. a namespace change) deletes the old one first.

    Readiness: by default ``pulumi up`` waits, in the component, until ``Ready`` is True on this generation with
    no upgrade or rollback in progress and every active Serve application RUNNING (an update waits until the
    new cluster or config serves), for at most ``timeout_seconds`` (default 600). It fails early, with
    :func:`pulumi_kuberay.diagnose`'s line, on ``ValidationFailed``, ``InitializingTimeout``, a Serve application
    DEPLOY_FAILED or a stuck head Pod.
    ``wait_for_ready=False`` turns it off.

    Outputs: ``service_name``, ``namespace``, ``serve_service_name``, ``serve_urls`` (``{application: in-cluster
    URL}``), ``dashboard_url``, ``status``, ``active_service_status``, ``pending_service_status`` (the cluster being
    prepared during an upgrade), ``conditions`` and ``diagnosis`` (one-line summary of
    :func:`pulumi_kuberay.diagnose`): docs/components.md, "Each component's outputs".

    Inputs, ``local_queue`` and ``manifest_output``: as for :class:`~pulumi_kuberay.RayCluster`.
    """

    if TYPE_CHECKING:  # pulumi resolves class annotations on every instance: about 1.4 ms each
        service_name: pulumi.Output[str]
        serve_service_name: pulumi.Output[str]
        serve_urls: pulumi.Output[dict[str, str]]
        dashboard_url: pulumi.Output[str]
        active_service_status: pulumi.Output[JsonDict | None]
        pending_service_status: pulumi.Output[JsonDict | None]
        conditions: pulumi.Output[list[JsonDict]]
        diagnosis: pulumi.Output[str | None]
        last_change: pulumi.Output[ChangeRecord | None]

    KIND = KIND
    # From v1.6.2 the RayService controller adds its finalizer with an Update of the whole object
    # (RayServiceReconciler.Reconcile, controllerutil.AddFinalizer + r.Update): the Go round trip rewrites
    # quantities ("1" for 1), adds empty structs and so makes the operator the owner of those fields and of the
    # atomic workerGroupSpecs list, and the next `pulumi up` that changes them fails with a server-side apply
    # conflict. The operator never writes the spec again, so taking the fields back is safe.
    FORCE_APPLY = True
    SPEC_MODEL = RayServiceSpec

    def __init__(
        self,
        name: str,
        args: pulumi.Input[RayServiceSpec] | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        wait_for_ready: pulumi.Input[bool] = True,
        **keywords: Unpack[WorkloadKeywords],
    ) -> None:
        common = CommonArgs.of(KIND, keywords, WorkloadKeywords, wait=wait_for_ready)
        self._setup(name, args, opts, common)

    def _declare_outputs(
        self, built: pulumi.Output[Built[RayServiceSpec]], k8s_name: pulumi.Output[str]
    ) -> JsonDict:
        # Small values are computed from ``built`` once: Output.all deep-walks dict values, a Built is opaque.
        cr = self.resource

        def names(b: Built[RayServiceSpec]) -> tuple[str, str, int, int, dict[str, str]]:
            spec = (b.manifest or {}).get("spec") or {}
            name = str(((b.manifest or {}).get("metadata") or {}).get("name") or "")
            cluster = spec.get("rayClusterConfig") or {}
            return (
                serve_service_name(name, spec),
                head_service_name(name),
                head_port(cluster, "serve"),
                head_port(cluster, "dashboard"),
                application_routes(spec),
            )

        found = self._from_built(built, names)
        self.service_name = pulumi.Output.all(cr.metadata, k8s_name).apply(
            lambda pair: str((pair[0] or {}).get("name") or pair[1])
        )
        self.namespace = derived(cr.metadata, namespace_of)
        self.serve_service_name = derived(found, lambda f: f[0])

        def urls(values: list[Any]) -> dict[str, str]:
            (serve_svc, _head, port, _dash, routes), ns = values
            return {app: f"http://{service_host(serve_svc, ns)}:{port}{route}" for app, route in routes.items()}

        self.serve_urls = pulumi.Output.all(found, self.namespace).apply(urls)
        self.dashboard_url = pulumi.Output.all(found, self.namespace).apply(
            lambda v: f"http://{service_host(v[0][1], v[1])}:{v[0][3]}"
        )
        self.status = self._awaited_status(built)  # --- wait (owned by _component_await)
        self.diagnosis = self._diagnosis(built, self.status)
        self.active_service_status = derived(self.status, lambda s: (s or {}).get("activeServiceStatus"))
        self.pending_service_status = derived(self.status, lambda s: (s or {}).get("pendingServiceStatus"))
        self.conditions = derived(self.status, lambda s: list((s or {}).get("conditions") or []))
        self.last_change = self._last_change(self.status)
        return {
            "service_name": self.service_name,
            "namespace": self.namespace,
            "serve_service_name": self.serve_service_name,
            "serve_urls": self.serve_urls,
            "dashboard_url": self.dashboard_url,
            "status": self.status,
            "active_service_status": self.active_service_status,
            "pending_service_status": self.pending_service_status,
            "conditions": self.conditions,
            "last_change": self.last_change,
        }


document_constructor(
    RayService,
    summary="Declare a KubeRay RayService: a Ray cluster and its Ray Serve applications; validated (the Serve config too) and checked against the rule catalogue first.",
    parameters={
        "args": "The service: a :class:`~pulumi_kuberay.RayServiceSpec` or a dict in its shape; ``serve_config_v2`` a :class:`~pulumi_kuberay.ServeConfig`, a dict in its shape or a YAML string.",
        "wait_for_ready": "Wait at ``pulumi up`` until the service is Ready and every application RUNNING (default true; at most ``timeout_seconds``).",
    },
    keywords=(ObjectKeywords, WorkloadKeywords),
    example="""
        import pulumi_kuberay as kr

        service = kr.RayService(
            "llm",
            kr.RayServiceSpec(
                ray_cluster_config=kr.RayClusterSpec(
                    image="rayproject/ray:2.52.0", head_group_spec=kr.HeadGroupSpec(cpu=2, memory="8Gi")
                ),
                serve_config_v2=kr.ServeConfig(
                    applications=[kr.ServeApplication(name="chat", import_path="app.main:app", route_prefix="/chat")]
                ),
            ),
        )
    """,
)
