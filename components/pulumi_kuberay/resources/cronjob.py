"""The ``RayCronJob`` component: one ``kubernetes:ray.io/v1:RayCronJob`` (operator gate ``RayCronJob``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Unpack

import pulumi

from pulumi_kuberay.model.cronjob import RayCronJobSpec
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.resources._change_plan import ChangeRecord
from pulumi_kuberay.resources._component import Built, CommonArgs, ObjectKeywords, RayComponent
from pulumi_kuberay.resources._help import document_constructor
from pulumi_kuberay.resources._outputs import derived
from pulumi_kuberay.resources._shared import JsonDict, coerce_spec, namespace_of, render_spec
from pulumi_kuberay.resources.job import (
    after_cluster,
    cluster_of_selector,
    job_spec_on_cluster,
    unhardened_submitter_note,
)

KIND = "RayCronJob"


def _template_key(raw: Mapping[str, Any]) -> str:
    return "jobTemplate" if "jobTemplate" in raw or "job_template" not in raw else "job_template"


def job_template(args: Any) -> Any:
    """The RayJob spec of a RayCronJob spec (typed or a dict in either spelling), when known now; else None."""
    if isinstance(args, RayCronJobSpec):
        return getattr(args, "job_template", None)  # a spec holding Inputs may not have it yet
    return args.get(_template_key(args)) if isinstance(args, Mapping) else None


class RayCronJob(RayComponent[RayCronJobSpec]):
    """A KubeRay ``RayCronJob`` (``ray.io/v1``, KubeRay >= 1.6): a RayJob from ``jobTemplate`` on a schedule.

    **The operator's feature gate ``RayCronJob`` must be on** (alpha, off by default: operator flag
    ``--feature-gates=RayCronJob=true``, Helm value ``featureGates``). With the gate off the object is accepted
    but never reconciled: no job ever runs. Tell the rule
    catalogue how the operator runs (``feature_gates={"RayCronJob": True}``, or stack config
    ``kuberay:featureGates``): with the gate off it says so at high (the operator accepts and ignores the
    object: nothing rejects it), and reports what would fail once the gate is on at high too.

    ``args`` is a :class:`~pulumi_kuberay.RayCronJobSpec` or a dict in its shape (``schedule``, optional
    ``timeZone``, ``jobTemplate`` holding a RayJob spec, ``suspend``). It is checked like the other components
    (critical findings raise, the others warn). The operator owns the child RayJobs (named
    ``<cronjob>-<scheduled minute>``), so Pulumi never re-creates a finished run. Spec changes apply in place
    and affect future runs only. There is no readiness wait: a RayCronJob has no ready state.

    Outputs: ``cronjob_name``, ``namespace``, ``last_schedule_time``, ``status``, ``diagnosis`` (one-line
    summary of :func:`pulumi_kuberay.diagnose`).

    A ``jobTemplate`` whose ``clusterSelector`` names a :class:`~pulumi_kuberay.RayCluster` component declared
    earlier in the same program (same object name, same namespace) is treated as a RayJob's ``cluster=`` that
    component: the namespace defaults to the cluster's, the template's default submitter Pod is hardened with the
    cluster's head image, and the RayCronJob is created after the cluster component (and its wait). One naming a
    cluster the program does not declare keeps KubeRay's default submitter Pod, with a warning.

    Inputs, ``local_queue`` and ``manifest_output``: as for :class:`~pulumi_kuberay.RayCluster`.
    """

    if TYPE_CHECKING:  # pulumi resolves class annotations on every instance: about 1.4 ms each
        cronjob_name: pulumi.Output[str]
        last_schedule_time: pulumi.Output[str | None]
        diagnosis: pulumi.Output[str | None]
        last_change: pulumi.Output[ChangeRecord | None]

    KIND = KIND
    SPEC_MODEL = RayCronJobSpec

    def __init__(
        self,
        name: str,
        args: pulumi.Input[RayCronJobSpec] | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        **keywords: Unpack[ObjectKeywords],
    ) -> None:
        # The RayJob component's rule for a raw clusterSelector, on the template (resources.job).
        self._cluster = cluster_of_selector(job_template(args), keywords.get("namespace"))
        common = CommonArgs.of(KIND, keywords, ObjectKeywords)
        cluster_manifest = self._cluster._manifest_for_dependents if self._cluster is not None else None
        self._setup(name, args, opts, common, extra={"cluster_manifest": cluster_manifest})

    def _prepare_spec(self, args: Any, common: CommonArgs, extra: Any, subject: str) -> RayCronJobSpec:
        cluster_manifest = (extra or {}).get("cluster_manifest")
        if not cluster_manifest:
            return super()._prepare_spec(args, common, extra, subject)
        raw = render_spec(args) if isinstance(args, RayCronJobSpec) else dict(args)
        key = _template_key(raw)
        template = job_spec_on_cluster(job_template(args), cluster_manifest, common, f"{subject} jobTemplate")
        spec: RayCronJobSpec = coerce_spec(RayCronJobSpec, {**raw, key: render_spec(template)}, subject=subject)
        return spec

    def _finish_spec(
        self, spec_dict: JsonDict, built: Built[RayCronJobSpec], subject: str, ref: tuple[str, str]
    ) -> JsonDict:
        template = spec_dict.get("jobTemplate")
        typed: Any = getattr(built.spec, "job_template", None)
        if isinstance(template, Mapping) and isinstance(typed, RayJobSpec):
            note = unhardened_submitter_note(template, typed, self._cluster, f"{subject} jobTemplate")
            if note is not None:
                built.notes.append(note)
        return spec_dict

    def _resource_options(self, extra: Any) -> dict[str, Any]:
        return {**super()._resource_options(extra), "depends_on": after_cluster(self._cluster)}

    def _declare_outputs(
        self, built: pulumi.Output[Built[RayCronJobSpec]], k8s_name: pulumi.Output[str]
    ) -> JsonDict:
        cr = self.resource
        self.cronjob_name = pulumi.Output.all(cr.metadata, k8s_name).apply(
            lambda pair: str((pair[0] or {}).get("name") or pair[1])
        )
        self.namespace = derived(cr.metadata, namespace_of)
        self.status = cr.status
        self.diagnosis = self._diagnosis(built, cr.status)
        self.last_schedule_time = derived(cr.status, lambda s: (s or {}).get("lastScheduleTime"))
        self.last_change = self._last_change(cr.status)
        return {
            "cronjob_name": self.cronjob_name,
            "namespace": self.namespace,
            "last_schedule_time": self.last_schedule_time,
            "status": self.status,
            "diagnosis": self.diagnosis,
            "last_change": self.last_change,
        }


document_constructor(
    RayCronJob,
    summary="Declare a KubeRay RayCronJob: a RayJob run on a schedule (the operator's RayCronJob feature gate must be on); validated and checked against the rule catalogue first.",
    parameters={
        "args": "The schedule and job: a :class:`~pulumi_kuberay.RayCronJobSpec` or a dict in its shape (``schedule``, ``jobTemplate``: a RayJob spec).",
    },
    keywords=(ObjectKeywords,),
    example="""
        import pulumi_kuberay as kr

        nightly = kr.RayCronJob(
            "nightly",
            kr.RayCronJobSpec(
                schedule="0 2 * * *",
                job_template=kr.RayJobSpec(
                    entrypoint="python etl.py",
                    shutdown_after_job_finishes=True,
                    ray_cluster_spec=kr.RayClusterSpec(
                        image="rayproject/ray:2.52.0", head_group_spec=kr.HeadGroupSpec(cpu=2, memory="8Gi")
                    ),
                ),
            ),
            feature_gates={"RayCronJob": True},
        )
    """,
)
