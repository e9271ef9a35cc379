"""The ``RayCluster`` component: one ``kubernetes:ray.io/v1:RayCluster``, checked before it is registered."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Unpack

import pulumi

from pulumi_kuberay.kubeclient import KubeConfigError, KubeError
from pulumi_kuberay.kuberay import head_service_name
from pulumi_kuberay.kuberay.replicas import drop_autoscaled_replicas, replicas_from_live
from pulumi_kuberay.model.cluster import RayClusterSpec
from pulumi_kuberay.resources import _change_plan, _program
from pulumi_kuberay.resources._change_plan import ChangeRecord
from pulumi_kuberay.resources._component import Built, CommonArgs, ObjectKeywords, RayComponent, WorkloadKeywords
from pulumi_kuberay.resources._component_await import _mocked, cluster_access
from pulumi_kuberay.resources._help import document_constructor
from pulumi_kuberay.resources._outputs import derived, known_output
from pulumi_kuberay.resources._shared import (
    JsonDict,
    head_port,
    namespace_of,
    service_host,
)

KIND = "RayCluster"
#: Why no live RayCluster is read when the program renders to a directory or runs under unit-test mocks.
_NO_CLUSTER = "no cluster behind the provider (rendering, or mocks)"


def _name_or(metadata: Mapping[str, Any] | None, default: str) -> str:
    return str((metadata or {}).get("name") or default)


def _service_url(namespace: str, scheme: str, service: str, port: int) -> str:
    return f"{scheme}://{service_host(service, namespace)}:{port}"


class RayCluster(RayComponent[RayClusterSpec]):
    """A KubeRay ``RayCluster`` (``ray.io/v1``), validated and checked against the rule catalogue at preview.

    ``args`` is a :class:`~pulumi_kuberay.RayClusterSpec` or a dict in its shape (convenience fields such as
    ``image``/``cpu``/``memory``/``gpu`` included). Constructing the component validates it, renders the manifest
    and runs the rule catalogue: a critical finding raises
    :class:`~pulumi_kuberay.resources._shared.CriticalFindingsError` before anything is registered; lower
    severities become warnings. Silence a rule on this resource with the annotation
    ``suppress.pulumi-kuberay.io/<rule-id>: "<reason>"``. The target (KubeRay version, feature gates,
    environment) comes from the arguments, else from the ``kuberay:`` stack config.

    The object is named ``name`` (or ``object_name``) without a random suffix (KubeRay derives the head Service
    and Pod names from it), so a replacement deletes the old cluster first. By default ``pulumi up`` waits until
    the head Pod is ready, for at most ``timeout_seconds`` (default 600), and fails early, with
    :func:`pulumi_kuberay.diagnose`'s line, on a rejected spec or a stuck head Pod (``wait_for_ready=False``: no
    wait; what it waits for: docs/troubleshooting.md). With autoscaling on, worker ``replicas`` belong to the
    autoscaler (docs/components.md, "Inputs, secrets and what the conveniences render").

    Outputs: ``cluster_name``, ``namespace``, ``head_service_name``, ``dashboard_url``, ``client_address``,
    ``status``, ``diagnosis`` (docs/components.md, "Each component's outputs").

    Inputs: the spec and every keyword may hold ``pulumi.Input`` values (at preview, values not known yet are not
    judged); the custom resource depends on the resources behind them. ``local_queue`` sets Kueue's
    ``kueue.x-k8s.io/queue-name`` label. ``manifest_output`` is the rendered manifest; ``manifest`` and ``spec``
    are set when every input was known at construction.
    """

    if TYPE_CHECKING:  # pulumi resolves class annotations on every instance: about 1.4 ms each
        cluster_name: pulumi.Output[str]
        head_service_name: pulumi.Output[str]
        dashboard_url: pulumi.Output[str]
        client_address: pulumi.Output[str]
        diagnosis: pulumi.Output[str | None]
        last_change: pulumi.Output[ChangeRecord | None]

    KIND = KIND
    SPEC_MODEL = RayClusterSpec

    def __init__(
        self,
        name: str,
        args: pulumi.Input[RayClusterSpec] | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        wait_for_ready: pulumi.Input[bool] = True,
        **keywords: Unpack[WorkloadKeywords],
    ) -> None:
        common = CommonArgs.of(KIND, keywords, WorkloadKeywords, wait=wait_for_ready)
        object_name, namespace = common.object_name or name, common.namespace
        self._setup(name, args, opts, common)
        if isinstance(object_name, str) and (namespace is None or isinstance(namespace, str)):
            _program.add_cluster(self, namespace, object_name)  # a RayJob's clusterSelector may name it

    def _finish_spec(
        self, spec_dict: JsonDict, built: Built[RayClusterSpec], subject: str, ref: tuple[str, str]
    ) -> JsonDict:
        if not spec_dict.get("enableInTreeAutoscaling"):
            return spec_dict
        live = self._live_spec(*ref)
        if not isinstance(live, str):
            # The live counts, forced: an update never conflicts with the autoscaler nor undoes its scaling.
            spec_dict, changed = replicas_from_live(spec_dict, live)
            built.force_apply = True
            if changed:
                source = "the live object's (the autoscaler's)" if live is not None else "minReplicas (a new cluster)"
                built.notes.append(
                    f"{subject}: enableInTreeAutoscaling is on, so the replicas sent for worker group(s) {'; '.join(changed)} are {source}: the autoscaler owns them"
                )
            return spec_dict
        spec_dict, dropped = drop_autoscaled_replicas(spec_dict)
        if dropped:
            # Rendering, or unit-test mocks: no cluster is updated, so there is no conflict to foretell.
            why = "" if live == _NO_CLUSTER else f" ({live}: once the autoscaler has scaled a group, an update of this RayCluster conflicts with it on spec.workerGroupSpecs)"
            built.notes.append(
                f"{subject}: enableInTreeAutoscaling is on, so the replicas of worker group(s) {', '.join(dropped)} are not sent: the autoscaler owns them and each group starts at minReplicas{why}"
            )
        return spec_dict

    def _live_spec(self, namespace: str, name: str) -> Mapping[str, Any] | str | None:
        """The spec of the live RayCluster ``namespace/name`` (None: there is none yet), or why it cannot be read."""
        opts = getattr(self, "_await_opts", None)
        if _change_plan.render_dir_of(opts) is not None or _mocked():
            return _NO_CLUSTER
        access = cluster_access(opts)
        if access is None:
            return "the component cannot find its cluster's kubeconfig (an explicit provider: give it to kr.watch_with)"
        try:
            obj, _ = _change_plan.live_client(access).get_object(KIND, namespace, name)
        except (KubeError, KubeConfigError) as exc:
            return f"the live RayCluster could not be read ({exc})"
        if obj is None:
            return None
        spec = obj.get("spec")
        return spec if isinstance(spec, Mapping) else {}

    def _declare_outputs(
        self, built: pulumi.Output[Built[RayClusterSpec]], k8s_name: pulumi.Output[str]
    ) -> JsonDict:
        # Small values are computed from ``built`` once: Output.all deep-walks dict values, a Built is opaque.
        cr = self.resource

        def names(b: Built[RayClusterSpec]) -> tuple[str, int, int]:
            spec = (b.manifest or {}).get("spec") or {}
            name = str(((b.manifest or {}).get("metadata") or {}).get("name") or "")
            return head_service_name(name, spec), head_port(spec, "dashboard"), head_port(spec, "client")

        self.namespace = derived(cr.metadata, namespace_of)
        now = self._built_now
        if now is not None:
            # Known at construction: ``built`` and ``k8s_name`` are known, not secret, without dependencies, so
            # each output is the same Output from the custom resource's metadata alone (Output.all of a known
            # value and an Output costs three tasks more per output, and the memory of each until the end), and
            # derived without a task of its own (``_outputs``).
            service, dashboard, client = names(now)
            known_name = str(((now.manifest or {}).get("metadata") or {}).get("name") or "")
            # Module functions and their arguments, not closures: three objects fewer per output.
            self.cluster_name = derived(cr.metadata, _name_or, known_name)
            self.head_service_name = known_output(service)
            self.dashboard_url = derived(self.namespace, _service_url, "http", service, dashboard)
            self.client_address = derived(self.namespace, _service_url, "ray", service, client)
        else:
            head = self._from_built(built, names)
            self.cluster_name = pulumi.Output.all(cr.metadata, k8s_name).apply(
                lambda pair: str((pair[0] or {}).get("name") or pair[1])
            )
            self.head_service_name = head.apply(lambda h: h[0])
            self.dashboard_url = pulumi.Output.all(head, self.namespace).apply(
                lambda v: f"http://{service_host(v[0][0], v[1])}:{v[0][1]}"
            )
            self.client_address = pulumi.Output.all(head, self.namespace).apply(
                lambda v: f"ray://{service_host(v[0][0], v[1])}:{v[0][2]}"
            )
        self.status = self._awaited_status(built)  # --- wait (owned by _component_await)
        self.diagnosis = self._diagnosis(built, self.status)
        self.last_change = self._last_change(self.status)
        return {
            "cluster_name": self.cluster_name,
            "namespace": self.namespace,
            "head_service_name": self.head_service_name,
            "dashboard_url": self.dashboard_url,
            "client_address": self.client_address,
            "status": self.status,
            "diagnosis": self.diagnosis,
            "last_change": self.last_change,
        }


document_constructor(
    RayCluster,
    summary="Declare a KubeRay RayCluster: ``args`` is validated, rendered and checked against the rule catalogue (a critical finding raises before anything is registered), then the custom resource is registered.",
    parameters={
        "args": "The cluster: a :class:`~pulumi_kuberay.RayClusterSpec` or a dict in its shape (CRD camelCase or snake_case names; ``pulumi.Input`` values allowed).",
        "wait_for_ready": "Wait at ``pulumi up`` until the head Pod is ready (default true; at most ``timeout_seconds``).",
    },
    keywords=(ObjectKeywords, WorkloadKeywords),
    example="""
        import pulumi_kuberay as kr

        cluster = kr.RayCluster(
            "ray",
            kr.RayClusterSpec(
                image="rayproject/ray:2.52.0",
                head_group_spec=kr.HeadGroupSpec(cpu=2, memory="8Gi"),
                worker_group_specs=[
                    kr.WorkerGroupSpec(group_name="cpu", cpu=4, memory="16Gi", min_replicas=0, max_replicas=4),
                ],
            ),
            namespace="ray",
        )
    """,
)
