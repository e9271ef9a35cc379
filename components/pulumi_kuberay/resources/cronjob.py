"""The ``RayCronJob`` component: one ``kubernetes:ray.io/v1:RayCronJob`` (operator gate ``RayCronJob``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pulumi

from pulumi_kuberay.model.cronjob import RayCronJobSpec
from pulumi_kuberay.resources._shared import (
    JsonDict,
    RayCustomResource,
    check_manifest,
    child_options,
    coerce_spec,
    diagnosis_summary,
    namespace_of,
    object_metadata,
    render_manifest,
    render_spec,
    rule_settings,
    token,
    warn_findings,
)

KIND = "RayCronJob"


class RayCronJob(pulumi.ComponentResource):
    """A KubeRay ``RayCronJob`` (``ray.io/v1``, KubeRay >= 1.6): a RayJob from ``jobTemplate`` on a schedule.

    **The operator's feature gate ``RayCronJob`` must be on** (alpha; off by default and in the Helm chart:
    operator flag ``--feature-gates=RayCronJob=true``, Helm value ``featureGates``). With the gate off the CRD
    still exists and the object is accepted, but it is never reconciled and no job ever runs. Tell the rule
    catalogue how the operator runs (``feature_gates={"RayCronJob": True}``, or stack config
    ``kuberay:featureGates``): with the gate off it reports a critical finding and the component raises
    before registering anything.

    ``args`` is a :class:`~pulumi_kuberay.RayCronJobSpec` or a dict in its shape (``schedule``, optional
    ``timeZone``, ``jobTemplate`` holding a RayJob spec, ``suspend``). It is checked like the other components
    (critical findings raise, the others warn). The operator owns the child RayJobs (named
    ``<cronjob>-<scheduled minute>``), so Pulumi never re-creates a finished run. Spec changes apply in place
    and affect future runs only. There is no readiness wait: a RayCronJob has no ready state.

    Outputs: ``cronjob_name``, ``namespace``, ``last_schedule_time`` (``status.lastScheduleTime``),
    ``status``, ``diagnosis`` (one-line summary of :func:`pulumi_kuberay.diagnose`).
    """

    if TYPE_CHECKING:  # pulumi resolves class annotations on every instance: about 1.4 ms each
        cronjob_name: pulumi.Output[str]
        namespace: pulumi.Output[str]
        last_schedule_time: pulumi.Output[str | None]
        status: pulumi.Output[JsonDict | None]
        diagnosis: pulumi.Output[str | None]
        resource: RayCustomResource
        spec: RayCronJobSpec
        manifest: JsonDict

    def __init__(
        self,
        name: str,
        args: RayCronJobSpec | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        namespace: str | None = None,
        object_name: str | None = None,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        kuberay_version: str | None = None,
        feature_gates: Mapping[str, bool] | None = None,
        environment: str | None = None,
    ) -> None:
        k8s_name = object_name or name
        subject = f"RayCronJob {k8s_name!r}"
        self.spec = coerce_spec(RayCronJobSpec, args, subject=subject)
        settings = rule_settings(kuberay_version, feature_gates, environment)
        metadata = object_metadata(k8s_name, namespace=namespace, labels=labels, annotations=annotations)
        self.manifest = render_manifest(KIND, metadata, render_spec(self.spec))
        findings = check_manifest(self.manifest, settings, subject=subject)

        super().__init__(token(KIND), name, None, opts)
        warn_findings(findings, self)

        self.resource = RayCustomResource(
            name, self.manifest, child_options(self, delete_before_replace=True)
        )
        cr = self.resource
        self.cronjob_name = cr.metadata.apply(lambda m: str((m or {}).get("name") or k8s_name))
        self.namespace = cr.metadata.apply(namespace_of)
        self.status = cr.status
        manifest = self.manifest
        self.diagnosis = cr.status.apply(lambda s: diagnosis_summary(manifest, s))
        self.last_schedule_time = cr.status.apply(lambda s: (s or {}).get("lastScheduleTime"))
        self.register_outputs(
            {
                "cronjob_name": self.cronjob_name,
                "namespace": self.namespace,
                "last_schedule_time": self.last_schedule_time,
                "status": self.status,
                "diagnosis": self.diagnosis,
            }
        )
