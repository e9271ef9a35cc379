"""The ``RayJob`` component: one ``kubernetes:ray.io/v1:RayJob``, replaced on any spec change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Unpack

import pulumi

from pulumi_kuberay.kuberay import RAY_CLUSTER_LABEL as CLUSTER_LABEL
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.model.suggest import did_you_mean
from pulumi_kuberay.resources import _program
from pulumi_kuberay.resources._change_plan import ChangeRecord
from pulumi_kuberay.resources._component import Built, CommonArgs, ObjectKeywords, RayComponent, WorkloadKeywords
from pulumi_kuberay.resources._help import document_constructor
from pulumi_kuberay.resources._outputs import derived
from pulumi_kuberay.resources._shared import (
    JsonDict,
    coerce_spec,
    diagnosis_summary,
    head_container,
    namespace_of,
    render_spec,
)
from pulumi_kuberay.resources._verdict import job_failed
from pulumi_kuberay.resources.cluster import RayCluster

KIND = "RayJob"
#: jobDeploymentStatus values that mean the job failed for good (ValidationFailed has no way out in v1.7.0;
#: a Failed job that will be retried is written as Retrying, never as Failed).
FAILED_DEPLOYMENT_STATUSES = ("Failed", "ValidationFailed")


class RayJobFailedError(pulumi.RunError):
    """The RayJob reached a final failed state (``jobDeploymentStatus`` Failed or ValidationFailed)."""


def with_cluster_selector(spec: Mapping[str, Any], cluster_name: str, subject: str) -> JsonDict:
    """``spec`` selecting the RayCluster ``cluster_name`` (``clusterSelector: {ray.io/cluster: <name>}``)."""
    if spec.get("rayClusterSpec") is not None or spec.get("ray_cluster_spec") is not None:
        raise ValueError(f"{subject}: give either cluster= (an existing RayCluster) or spec.rayClusterSpec")
    key = (
        "clusterSelector"
        if "clusterSelector" in spec or "cluster_selector" not in spec
        else "cluster_selector"
    )
    selector = dict(spec.get(key) or {})
    current = selector.get(CLUSTER_LABEL)
    if current not in (None, cluster_name):
        raise ValueError(
            f"{subject}: spec.clusterSelector[{CLUSTER_LABEL!r}] is {current!r} but cluster= is {cluster_name!r}; drop the selector, cluster= sets it"
        )
    selector[CLUSTER_LABEL] = cluster_name
    return {**spec, key: selector}


def selected_cluster(args: Any) -> str | None:
    """The RayCluster name a spec's ``clusterSelector`` gives (``ray.io/cluster``), when the spec is known now and
    creates no cluster of its own; else None."""
    if isinstance(args, RayJobSpec):
        selector: Any = None if args.ray_cluster_spec is not None else args.cluster_selector
    elif isinstance(args, Mapping) and args.get("rayClusterSpec") is None and args.get("ray_cluster_spec") is None:
        selector = args.get("clusterSelector", args.get("cluster_selector"))
    else:
        return None
    name = selector.get(CLUSTER_LABEL) if isinstance(selector, Mapping) else None
    return name if isinstance(name, str) and name else None


def cluster_of_selector(args: Any, namespace: Any) -> RayCluster | None:
    """The RayCluster component of this program that a RayJob spec's ``clusterSelector`` names (same object name,
    same namespace, declared before now), or None.

    Such a selector is ``cluster=`` that component: the same hardened submitter (its head image), the same checks,
    and the custom resource created once the cluster is ready (:func:`job_spec_on_cluster`, :func:`after_cluster`).
    The RayJob component calls it on its spec, the RayCronJob component on its ``jobTemplate``."""
    selected = selected_cluster(args)
    if selected is None or not (namespace is None or isinstance(namespace, str)):
        return None
    return _program.find_cluster(namespace, selected)


def job_spec_on_cluster(args: Any, cluster_manifest: Mapping[str, Any], common: CommonArgs, subject: str) -> RayJobSpec:
    """The typed RayJob spec ``args`` running on the RayCluster of ``cluster_manifest`` (a RayCluster component's
    manifest for dependents): its ``clusterSelector`` set, the namespace defaulted to the cluster's (a different one
    is an error) and KubeRay's default submitter Pod hardened with the cluster's head image."""
    cluster_meta = cluster_manifest.get("metadata") or {}
    cluster_namespace = cluster_meta.get("namespace")
    if common.namespace is None:
        common.namespace = cluster_namespace
    elif cluster_namespace not in (None, UNKNOWN_SENTINEL) and common.namespace not in (
        cluster_namespace,
        UNKNOWN_SENTINEL,
    ):
        raise ValueError(
            f"{subject}: namespace {common.namespace!r} differs from the cluster's {cluster_namespace!r}; a clusterSelector only selects clusters in the job's own namespace"
        )
    raw = render_spec(args) if isinstance(args, RayJobSpec) else dict(args)
    spec = coerce_spec(RayJobSpec, with_cluster_selector(raw, str(cluster_meta["name"]), subject), subject=subject)
    if isinstance(args, RayJobSpec) and not args.harden_submitter:
        return spec  # the Python-only opt-out does not survive rendering
    image = head_container(cluster_manifest.get("spec")).get("image")
    return spec.with_default_submitter(image if isinstance(image, str) else None)


def unhardened_submitter_note(
    spec_dict: Mapping[str, Any], spec: RayJobSpec | None, cluster: RayCluster | None, subject: str
) -> str | None:
    """The warning for a K8sJobMode RayJob spec whose ``clusterSelector`` names a cluster this program does not
    declare (its head image is unknown, so KubeRay's default submitter Pod stays unhardened), else None."""
    selected = selected_cluster(spec_dict)
    if (
        cluster is None
        and selected is not None
        and spec is not None
        and spec.harden_submitter
        and spec_dict.get("submissionMode") in (None, "K8sJobMode")
        and spec_dict.get("submitterPodTemplate") is None
    ):
        return f"{subject}: the submitter Pod is KubeRay's default, not hardened: the head image of RayCluster {selected!r} (clusterSelector) is not known here, as no RayCluster component of this program declared before it has that name and namespace; pass cluster=<that RayCluster component> (a RayJob), or set submitter_pod_template, or harden_submitter=False to keep KubeRay's default without this warning"
    return None


def after_cluster(cluster: RayCluster | None) -> list[pulumi.Input[pulumi.Resource]]:
    """``depends_on`` of a custom resource running on ``cluster``: the component, and after its own wait (its
    awaited status)."""
    if cluster is None:
        return []
    return [cluster, cluster.status.apply(lambda _status: cluster.resource)]  # --- wait


def _dashboard_url(status: Mapping[str, Any] | None) -> str | None:
    url = (status or {}).get("dashboardURL")
    if not url:
        return None
    return str(url) if "://" in str(url) else f"http://{url}"


class RayJob(RayComponent[RayJobSpec]):
    """A KubeRay ``RayJob`` (``ray.io/v1``): a Ray job on an inline cluster or on an existing ``RayCluster``.

    ``args`` is a :class:`~pulumi_kuberay.RayJobSpec` or a dict in its shape. Either it carries an inline
    ``rayClusterSpec`` (the operator creates a cluster for the job), or ``cluster=`` names a
    :class:`~pulumi_kuberay.RayCluster` component (``spec.clusterSelector`` names it, the namespace defaults to its
    own and the RayJob is created once it is ready); a ``clusterSelector`` naming a RayCluster component declared
    earlier in the program counts as ``cluster=`` it. The manifest is checked against the rule catalogue at
    construction, as for :class:`~pulumi_kuberay.RayCluster` (critical findings raise before anything is
    registered, the others warn).

    Any change under ``spec`` replaces the RayJob (the operator never re-submits a started job), which runs the job
    again. By default nothing waits for the job; ``wait_for_completion=True`` waits for a terminal
    ``jobDeploymentStatus`` for at most ``timeout_seconds`` (default 600) and, with ``fail_on_job_failure`` (the
    default), fails ``pulumi up`` on a failed job until the spec changes. A ``DeleteSelf`` deletion rule makes the
    next ``pulumi up`` after a refresh re-create the RayJob and run the job again. All of it, and the safe
    patterns: docs/components.md, "A RayJob under Pulumi".

    Outputs: ``job_id``, ``cluster_name``, ``dashboard_url``, ``job_status``, ``job_deployment_status``,
    ``diagnosis`` (one-line summary from :func:`pulumi_kuberay.diagnose`), ``namespace``, ``status``
    (docs/components.md, "Each component's outputs").

    Inputs, ``local_queue`` and ``manifest_output``: as for :class:`~pulumi_kuberay.RayCluster`. A K8sJobMode job
    gets KubeRay's default submitter Pod hardened (the head image), unless ``submitter_pod_template`` is given
    (or ``harden_submitter=False``: KubeRay's own default, as a manifest has it).
    """

    if TYPE_CHECKING:  # pulumi resolves class annotations on every instance: about 1.4 ms each
        job_id: pulumi.Output[str | None]
        cluster_name: pulumi.Output[str | None]
        dashboard_url: pulumi.Output[str | None]
        job_status: pulumi.Output[str | None]
        job_deployment_status: pulumi.Output[str | None]
        diagnosis: pulumi.Output[str | None]
        status: pulumi.Output[JsonDict | None]
        last_change: pulumi.Output[ChangeRecord | None]

    KIND = KIND
    SPEC_MODEL = RayJobSpec

    def __init__(
        self,
        name: str,
        args: pulumi.Input[RayJobSpec] | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        cluster: RayCluster | None = None,
        wait_for_completion: pulumi.Input[bool] = False,
        fail_on_job_failure: bool = True,
        **keywords: Unpack[WorkloadKeywords],
    ) -> None:
        namespace = keywords.get("namespace")
        self._selector_note: str | None = None
        if cluster is None:
            cluster = cluster_of_selector(args, namespace)
            selected = selected_cluster(args)
            if cluster is None and selected is not None and (namespace is None or isinstance(namespace, str)):
                self._selector_note = _selector_note(namespace, selected)
        self._cluster = cluster
        self._fail_on_job_failure = fail_on_job_failure
        common = CommonArgs.of(KIND, keywords, WorkloadKeywords, wait=wait_for_completion)
        cluster_manifest = cluster._manifest_for_dependents if cluster is not None else None
        self._setup(name, args, opts, common, extra={"cluster_manifest": cluster_manifest})

    def _prepare_spec(self, args: Any, common: CommonArgs, extra: Any, subject: str) -> RayJobSpec:
        cluster_manifest = (extra or {}).get("cluster_manifest")
        if not cluster_manifest:
            spec: RayJobSpec = coerce_spec(RayJobSpec, args, subject=subject)
            if spec.missing_cluster_source():
                raise ValueError(
                    f"{subject}: spec sets neither rayClusterSpec nor clusterSelector; pass cluster=<a RayCluster component>, or set ray_cluster_spec (a cluster for this job), or cluster_selector={{'ray.io/cluster': '<existing RayCluster name>'}}"
                )
            return spec
        return job_spec_on_cluster(args, cluster_manifest, common, subject)

    def _finish_spec(
        self, spec_dict: JsonDict, built: Built[RayJobSpec], subject: str, ref: tuple[str, str]
    ) -> JsonDict:
        if self._selector_note is not None and self._cluster is None:
            built.notes.append(f"{subject}: {self._selector_note}")
        note = unhardened_submitter_note(spec_dict, built.spec, self._cluster, subject)
        if note is not None:
            built.notes.append(note)
        return spec_dict

    def _resource_options(self, extra: Any) -> dict[str, Any]:
        depends_on = after_cluster(self._cluster)
        return {"replace_on_changes": ["spec"], "delete_before_replace": True, "depends_on": depends_on}

    def _declare_outputs(self, built: pulumi.Output[Built[RayJobSpec]], k8s_name: pulumi.Output[str]) -> JsonDict:
        cr = self.resource
        fail_on_job_failure = self._fail_on_job_failure
        subject = derived(k8s_name, lambda n: f"RayJob {n!r}")

        def checked(values: list[Any]) -> JsonDict | None:
            b, status, who = values
            if fail_on_job_failure and status and job_failed({**(b.manifest or {}), "status": status}):  # --- wait
                raise RayJobFailedError(failure_message(who, b.manifest or {}, status))
            return status  # type: ignore[no-any-return]

        awaited = self._awaited_status(built, fail_on_failure=False)  # --- wait: checked() raises the failure
        self.status = pulumi.Output.all(built, awaited, subject).apply(checked)
        spec_job_id = self._from_built(built, lambda b: ((b.manifest or {}).get("spec") or {}).get("jobId"))
        self.job_id = pulumi.Output.all(self.status, spec_job_id).apply(
            lambda pair: (pair[0] or {}).get("jobId") or pair[1]
        )
        cluster = self._cluster
        if cluster is not None:
            self.cluster_name = pulumi.Output.all(self.status, cluster.cluster_name).apply(
                lambda pair: (pair[0] or {}).get("rayClusterName") or pair[1]
            )
            self.dashboard_url = pulumi.Output.all(self.status, cluster.dashboard_url).apply(
                lambda pair: _dashboard_url(pair[0]) or pair[1]
            )
        else:
            self.cluster_name = derived(self.status, lambda s: (s or {}).get("rayClusterName"))
            self.dashboard_url = derived(self.status, _dashboard_url)
        self.job_status = derived(self.status, lambda s: (s or {}).get("jobStatus"))
        self.job_deployment_status = derived(self.status, lambda s: (s or {}).get("jobDeploymentStatus"))
        self.namespace = derived(cr.metadata, namespace_of)
        self.diagnosis = self._diagnosis(built, self.status)
        self.last_change = self._last_change(self.status)
        return {
            "job_id": self.job_id,
            "cluster_name": self.cluster_name,
            "dashboard_url": self.dashboard_url,
            "job_status": self.job_status,
            "job_deployment_status": self.job_deployment_status,
            "diagnosis": self.diagnosis,
            "namespace": self.namespace,
            "status": self.status,
            "last_change": self.last_change,
        }


def failure_message(subject: str, manifest: JsonDict, status: JsonDict) -> str:
    """The ``pulumi up`` error for a RayJob that failed: status, reason, message, diagnosis, next command."""
    meta = manifest.get("metadata") or {}
    ns = meta.get("namespace") or "default"
    lines = [
        f"{subject} failed: jobDeploymentStatus={status.get('jobDeploymentStatus')}, jobStatus={status.get('jobStatus') or '-'}, reason={status.get('reason') or '-'}",
    ]
    if status.get("message"):
        lines.append(f"  message: {status['message']}")
    lines.append(f"  diagnosis: {diagnosis_summary(manifest, status)}")
    lines.append(f"  details: kubectl get rayjob -n {ns} {meta.get('name')} -o json | kuberay-explain -")
    return "\n".join(lines)


def _selector_note(namespace: str | None, selected: str) -> str | None:
    """What to tell of a ``clusterSelector`` naming no RayCluster component of this program when one is close: the
    program's cluster of a near name (a typo), or of that name in another namespace; ``None`` otherwise (a
    cluster made outside the program is a valid target)."""
    where = f"namespace {namespace!r}" if namespace is not None else "the default namespace"
    guess = did_you_mean(selected, _program.cluster_names(namespace))
    if guess is not None:
        return (
            f"spec.clusterSelector[{CLUSTER_LABEL!r}] is {selected!r}, but no RayCluster component of this program declared before this RayJob in {where} has that name: {guess} (fix: correct the name, or pass cluster=<that RayCluster component>; the operator waits for a RayCluster of that exact name)"
        )
    elsewhere = [ns for ns in _program.cluster_namespaces(selected) if ns != namespace]
    if elsewhere:
        found = ", ".join(repr(ns) if ns is not None else "the default namespace" for ns in elsewhere)
        return (
            f"spec.clusterSelector[{CLUSTER_LABEL!r}] names RayCluster {selected!r}, which this program declares in {found}, not in {where} (fix: give the RayJob that namespace, or pass cluster=<that RayCluster component>; a clusterSelector only selects clusters in the RayJob's own namespace)"
        )
    return None


document_constructor(
    RayJob,
    summary="Declare a KubeRay RayJob: a Ray job on its own cluster (``rayClusterSpec``) or on a RayCluster component (``cluster=``); validated and checked against the rule catalogue first.",
    parameters={
        "args": "The job: a :class:`~pulumi_kuberay.RayJobSpec` or a dict in its shape (CRD camelCase or snake_case names; ``pulumi.Input`` values allowed).",
        "cluster": "A :class:`~pulumi_kuberay.RayCluster` component to run the job on (``clusterSelector``); the job then depends on it.",
        "wait_for_completion": "Wait at ``pulumi up`` until the job ends (default false; at most ``timeout_seconds``).",
        "fail_on_job_failure": "Fail ``pulumi up`` when the component sees the job failed (default true).",
    },
    keywords=(ObjectKeywords, WorkloadKeywords),
    example="""
        import pulumi_kuberay as kr

        job = kr.RayJob(
            "train",
            kr.RayJobSpec(
                entrypoint="python train.py",
                shutdown_after_job_finishes=True,
                ttl_seconds_after_finished=600,
                ray_cluster_spec=kr.RayClusterSpec(
                    image="rayproject/ray:2.52.0", head_group_spec=kr.HeadGroupSpec(cpu=2, memory="8Gi")
                ),
            ),
            wait_for_completion=True,
        )
    """,
)
