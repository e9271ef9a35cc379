"""Where the job runs and how it is submitted: cluster selector, submission modes, sidecar submitter,
backoff, Kubernetes token auth (``ValidateRayJobSpec``).

Every spec rule checks ``RayJob.spec`` and, for a RayCronJob, ``spec.jobTemplate`` (the operator runs the same
checks there, RCJ-06). Checks read raw manifest dicts and never raise; anything of an unexpected type is
skipped (the structural rules report wrong types).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay import RAY_CLUSTER_LABEL
from pulumi_kuberay.kuberay.paths import as_dict, as_int, as_list, as_str, is_unknown

from ._cel import Cel
from ._engine import Context, Violation, declare
from ._examples import example_cluster_spec, example_job, selector_job, set_ray_version
from ._fixed import REMOVE, patch
from ._manifest_readers import SUBMISSION_MODES_SINCE, has_cluster_selector, per_job_spec, submission_mode

# ----------------------------------------------------------------------------------------------------
# RJ-25 .. RJ-34: cluster source, submission mode


def _check_suspend_selector(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if spec.get("suspend") is True and has_cluster_selector(spec):
        yield Violation("suspend is not supported with clusterSelector", f"{path}.suspend")


declare(
    id="rayjob-suspend-with-cluster-selector",
    title="suspend with clusterSelector",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-25", "RCJ-06"),
    enforced_by=("operator",),
    rationale="Suspend deletes the job's cluster; a RayJob using an existing cluster cannot be suspended.",
    fix="Remove suspend, or give the job its own rayClusterSpec with shutdownAfterJobFinishes: true.",
    check=per_job_spec(_check_suspend_selector),
    compliant=selector_job(),
    violating=selector_job(suspend=True, shutdownAfterJobFinishes=True),
    violating_path="spec.suspend",
    fixed=patch({"spec.shutdownAfterJobFinishes": REMOVE, "spec.suspend": REMOVE}),
    cel=Cel('!(has(j.suspend) && j.suspend) || !(has(j.clusterSelector) && size(j.clusterSelector) > 0)', over="job", path="suspend"),
)


def _check_cluster_source(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if spec.get("rayClusterSpec") is None and not has_cluster_selector(spec):
        yield Violation(
            "neither rayClusterSpec nor a non-empty clusterSelector is set; the job has no cluster to run on",
            path,
        )


declare(
    id="rayjob-cluster-source-missing",
    title="RayJob without rayClusterSpec or clusterSelector",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-26", "RCJ-06"),
    enforced_by=("operator",),
    rationale="The operator needs either a cluster to create or one to select.",
    fix="Add rayClusterSpec, or clusterSelector: {ray.io/cluster: <existing RayCluster>}.",
    check=per_job_spec(_check_cluster_source),
    compliant=selector_job(),
    violating=example_job(rayClusterSpec=None, shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None),
    violating_path="spec",
    fixed=patch({"spec.clusterSelector": {RAY_CLUSTER_LABEL: "shared-cluster"}}),
    cel=Cel('has(j.rayClusterSpec) || (has(j.clusterSelector) && size(j.clusterSelector) > 0)', over="job", path="rayClusterSpec"),
)


def _check_cluster_spec_ignored(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if has_cluster_selector(spec) and isinstance(spec.get("rayClusterSpec"), dict):
        yield Violation(
            "rayClusterSpec is set together with clusterSelector: the operator accepts the job, runs it on the selected RayCluster and ignores rayClusterSpec (no cluster is created from it)",
            f"{path}.rayClusterSpec",
        )


declare(
    id="rayjob-cluster-spec-ignored",
    title="rayClusterSpec ignored because of clusterSelector",
    severity="high",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rationale="ValidateRayJobSpec accepts both; getOrCreateRayClusterInstance then uses the RayCluster named by clusterSelector and never creates the one described by rayClusterSpec. Nothing rejects it (so not critical), but the cluster the manifest describes never exists.",
    fix="Remove rayClusterSpec to run on the selected cluster, or remove clusterSelector to create this cluster.",
    check=per_job_spec(_check_cluster_spec_ignored),
    compliant=selector_job(),
    violating=selector_job(rayClusterSpec=example_cluster_spec()),
    violating_path="spec.rayClusterSpec",
    fixed=patch({"spec.rayClusterSpec": REMOVE}),
    cel=Cel('!(has(j.clusterSelector) && size(j.clusterSelector) > 0) || !has(j.rayClusterSpec)', over="job", path="rayClusterSpec"),
)


def _check_selector_name(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    selector = spec.get("clusterSelector")
    if has_cluster_selector(spec) and not as_dict(selector).get(RAY_CLUSTER_LABEL):
        yield Violation(
            "clusterSelector has no non-empty 'ray.io/cluster' key (the only key the operator uses)",
            f"{path}.clusterSelector",
        )


declare(
    id="rayjob-cluster-selector-name-empty",
    title="clusterSelector without ray.io/cluster",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-27", "RCJ-06"),
    enforced_by=("operator",),
    rationale="Only the ray.io/cluster value selects the RayCluster; without it the operator rejects the spec.",
    fix="Set clusterSelector: {ray.io/cluster: <RayCluster name>}.",
    check=per_job_spec(_check_selector_name),
    compliant=selector_job(),
    violating=selector_job(clusterSelector={"app": "shared-cluster"}),
    violating_path="spec.clusterSelector",
    fixed=patch({"spec.clusterSelector.app": REMOVE, 'spec.clusterSelector["ray.io/cluster"]': "shared-cluster"}),
    cel=Cel("!(has(j.clusterSelector) && size(j.clusterSelector) > 0) || ('ray.io/cluster' in j.clusterSelector && j.clusterSelector['ray.io/cluster'] != '')", over="job", path="clusterSelector"),
)


def _check_sidecar_selector(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if has_cluster_selector(spec) and submission_mode(spec) == "SidecarMode":
        yield Violation("SidecarMode cannot be used with clusterSelector", f"{path}.submissionMode")


declare(
    id="rayjob-sidecar-with-cluster-selector",
    title="SidecarMode with clusterSelector",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-28", "RCJ-06"),
    enforced_by=("operator",),
    rationale="SidecarMode injects the submitter into the head Pod the job creates; a selected cluster has none.",
    fix="Use K8sJobMode or HTTPMode with clusterSelector.",
    check=per_job_spec(_check_sidecar_selector),
    compliant=selector_job(submissionMode="HTTPMode"),
    violating=selector_job(submissionMode="SidecarMode"),
    violating_path="spec.submissionMode",
    fixed=patch({"spec.submissionMode": "HTTPMode"}),
    cel=Cel("!(has(j.clusterSelector) && size(j.clusterSelector) > 0) || (has(j.submissionMode) && j.submissionMode != '' ? j.submissionMode : 'K8sJobMode') != 'SidecarMode'", over="job", path="submissionMode"),
)


def _check_backoff_incompatible(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    backoff = as_int(spec.get("backoffLimit"))
    if backoff is None or backoff <= 0:
        return
    if has_cluster_selector(spec) and ctx.at_least(1, 6):
        yield Violation(
            f"backoffLimit {backoff} is not allowed with clusterSelector (retries recreate the cluster)",
            f"{path}.backoffLimit",
        )
    if submission_mode(spec) == "InteractiveMode":
        yield Violation(f"backoffLimit {backoff} is not allowed in InteractiveMode", f"{path}.backoffLimit")


declare(
    id="rayjob-backoff-limit-incompatible",
    title="backoffLimit > 0 with clusterSelector or InteractiveMode",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-29", "RJ-30", "RCJ-06"),
    enforced_by=("operator",),
    rationale="RayJob retries delete and recreate the cluster and reset the job id, which neither a selected cluster nor InteractiveMode supports.",
    fix="Set backoffLimit: 0 (or remove it).",
    check=per_job_spec(_check_backoff_incompatible),
    compliant=selector_job(backoffLimit=0),
    violating=selector_job(backoffLimit=2),
    violating_path="spec.backoffLimit",
    fixed=patch({"spec.backoffLimit": 0}),
    cel=Cel("!has(j.backoffLimit) || j.backoffLimit <= 0 || (!(has(j.clusterSelector) && size(j.clusterSelector) > 0) && (has(j.submissionMode) && j.submissionMode != '' ? j.submissionMode : 'K8sJobMode') != 'InteractiveMode')", over="job", path="backoffLimit"),
)


def _check_sidecar_submitter(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if submission_mode(spec) != "SidecarMode":
        return
    for key in ("submitterPodTemplate", "submitterConfig"):
        if spec.get(key) is not None:
            yield Violation(f"SidecarMode does not support {key}", f"{path}.{key}")


declare(
    id="rayjob-sidecar-submitter-fields",
    title="submitterPodTemplate/submitterConfig in SidecarMode",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-31", "RJ-32", "RCJ-06"),
    enforced_by=("operator",),
    rationale="In SidecarMode the submitter is a container of the head Pod; there is no submitter Job to shape.",
    fix="Remove submitterPodTemplate/submitterConfig, or use K8sJobMode.",
    check=per_job_spec(_check_sidecar_submitter),
    compliant=example_job(submissionMode="SidecarMode"),
    violating=example_job(submissionMode="SidecarMode", submitterConfig={"backoffLimit": 3}),
    violating_path="spec.submitterConfig",
    fixed=patch({"spec.submitterConfig": REMOVE}),
    cel=Cel("(has(j.submissionMode) && j.submissionMode != '' ? j.submissionMode : 'K8sJobMode') != 'SidecarMode' || (!has(j.submitterPodTemplate) && !has(j.submitterConfig))", over="job", path="submitterConfig"),
)


def _check_sidecar_restart(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if submission_mode(spec) != "SidecarMode":
        return
    head_spec = as_dict(
        as_dict(as_dict(as_dict(spec.get("rayClusterSpec")).get("headGroupSpec")).get("template")).get("spec")
    )
    policy = as_str(head_spec.get("restartPolicy"))
    if policy is not None and policy not in ("", "Never"):
        yield Violation(
            f"head restartPolicy is {policy!r}; SidecarMode needs Never or unset",
            f"{path}.rayClusterSpec.headGroupSpec.template.spec.restartPolicy",
        )


def _with_head_restart(policy: str) -> dict[str, Any]:
    cluster = example_cluster_spec()
    cluster["headGroupSpec"]["template"]["spec"]["restartPolicy"] = policy
    return cluster


declare(
    id="rayjob-sidecar-head-restart-policy",
    title="SidecarMode with a head restartPolicy other than Never",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-33", "RCJ-06"),
    enforced_by=("operator",),
    rationale="A restarting head would resubmit the job from the sidecar; the operator forces Never and rejects other values.",
    fix="Remove headGroupSpec.template.spec.restartPolicy or set it to Never.",
    check=per_job_spec(_check_sidecar_restart),
    compliant=example_job(submissionMode="SidecarMode", rayClusterSpec=_with_head_restart("Never")),
    violating=example_job(submissionMode="SidecarMode", rayClusterSpec=_with_head_restart("Always")),
    violating_path="spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy",
    fixed=patch({"spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy": "Never"}),
    cel=Cel("(has(j.submissionMode) && j.submissionMode != '' ? j.submissionMode : 'K8sJobMode') != 'SidecarMode' || !has(j.rayClusterSpec) || !has(j.rayClusterSpec.headGroupSpec) || !has(j.rayClusterSpec.headGroupSpec.template) || !has(j.rayClusterSpec.headGroupSpec.template.spec) || !has(j.rayClusterSpec.headGroupSpec.template.spec.restartPolicy) || j.rayClusterSpec.headGroupSpec.template.spec.restartPolicy in ['', 'Never']", over="job", path="rayClusterSpec.headGroupSpec.template.spec.restartPolicy"),
)


def _check_k8s_token_auth(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    auth = as_dict(as_dict(spec.get("rayClusterSpec")).get("authOptions"))
    if auth.get("enableK8sTokenAuth") is True:
        yield Violation(
            "authOptions.enableK8sTokenAuth is not supported for RayJob clusters",
            f"{path}.rayClusterSpec.authOptions.enableK8sTokenAuth",
        )


def _with_auth(auth: dict[str, Any]) -> dict[str, Any]:
    cluster = example_cluster_spec()
    set_ray_version(cluster, "2.55.0")
    cluster["authOptions"] = auth
    return cluster


declare(
    id="rayjob-k8s-token-auth",
    title="Kubernetes token auth in a RayJob cluster",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-34", "RCJ-06"),
    enforced_by=("operator",),
    since="1.6",
    rationale="The submitter cannot present a Kubernetes token; the operator rejects enableK8sTokenAuth in RayJobs.",
    fix="Use authOptions.mode: token without enableK8sTokenAuth.",
    check=per_job_spec(_check_k8s_token_auth),
    compliant=example_job(rayClusterSpec=_with_auth({"mode": "token"})),
    violating=example_job(rayClusterSpec=_with_auth({"mode": "token", "enableK8sTokenAuth": True})),
    violating_path="spec.rayClusterSpec.authOptions.enableK8sTokenAuth",
    fixed=patch({"spec.rayClusterSpec.authOptions.enableK8sTokenAuth": REMOVE}),
    cel=Cel('!has(j.rayClusterSpec) || !has(j.rayClusterSpec.authOptions) || !has(j.rayClusterSpec.authOptions.enableK8sTokenAuth) || !j.rayClusterSpec.authOptions.enableK8sTokenAuth', over="job", path="rayClusterSpec.authOptions.enableK8sTokenAuth"),
)


# ----------------------------------------------------------------------------------------------------
# Not a validation.go branch: an unknown submissionMode is accepted and ignored (high, not critical: nothing
# rejects it; RayJobReconciler has no branch that submits it).


def _check_submission_mode(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    mode = as_str(spec.get("submissionMode"))
    if not mode:
        return
    if mode not in SUBMISSION_MODES_SINCE:  # modes newer than the target: field-value-newer rules (versions)
        close = [m for m in SUBMISSION_MODES_SINCE if m.lower() == mode.lower()]
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        yield Violation(
            f"submissionMode {mode!r} is not one of {', '.join(SUBMISSION_MODES_SINCE)}{hint}; the CRD accepts any string and the operator accepts the job and ignores the mode: the job is never submitted",
            f"{path}.submissionMode",
        )


declare(
    id="rayjob-submission-mode-unknown",
    title="Unknown submissionMode",
    severity="high",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=(),
    rationale="submissionMode has no CRD enum: a misspelt mode is accepted by the API server and by the operator, which ignores it: no controller branch submits the job, so it never runs. Nothing rejects it, so this is high, not critical.",
    fix="Use K8sJobMode (default), HTTPMode, InteractiveMode or SidecarMode, spelt exactly.",
    check=per_job_spec(_check_submission_mode),
    compliant=example_job(submissionMode="HTTPMode"),
    violating=example_job(submissionMode="HttpMode"),
    violating_path="spec.submissionMode",
    fixed=patch({"spec.submissionMode": "HTTPMode"}),
    cel=Cel("!has(j.submissionMode) || j.submissionMode == '' || j.submissionMode in ['K8sJobMode', 'HTTPMode', 'InteractiveMode', 'SidecarMode']", over="job", path="submissionMode"),
)


@per_job_spec
def _check_rayjob_entrypoint_missing(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    """``BuildJobSubmitCommand`` ends the submitter's command with ``-- <entrypoint>``, and ``ray job submit``
    requires one. The operator runs that command in SidecarMode, and in K8sJobMode unless the submitter
    template's container sets its own command (``configureSubmitterContainer``)."""
    entrypoint = spec.get("entrypoint")
    if "entrypoint" in spec and is_unknown(entrypoint):
        return  # not known yet (preview)
    if isinstance(entrypoint, str) and entrypoint.strip():
        return
    mode = submission_mode(spec)
    containers = as_list(as_dict(as_dict(spec.get("submitterPodTemplate")).get("spec")).get("containers"))
    own_command = bool(containers) and bool(as_dict(containers[0]).get("command"))
    if mode == "SidecarMode" or (mode == "K8sJobMode" and not own_command):
        yield Violation(f"the RayJob has no entrypoint, but in {mode} the operator submits one with `ray job submit -- <entrypoint>`: every submission fails, after the cluster has started", f"{path}.entrypoint")


declare(
    id="rayjob-entrypoint-missing",
    title="RayJob without an entrypoint that the operator must submit",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rationale="In K8sJobMode and SidecarMode the operator submits spec.entrypoint with `ray job submit -- <entrypoint>`, which requires one: without it the RayJob is accepted, its cluster starts, and every submission attempt fails.",
    proof="in K8sJobMode and SidecarMode the submitter runs ray job submit with the entrypoint (GetK8sJobCommand), which fails without one; other modes are not judged",
    fix="Set entrypoint (the command Ray runs, e.g. python train.py); or submit yourself: submissionMode InteractiveMode, or a submitterPodTemplate whose container sets its own command.",
    check=_check_rayjob_entrypoint_missing,
    compliant=example_job(submissionMode="InteractiveMode", entrypoint=None),
    violating=example_job(entrypoint=None),
    violating_path="spec.entrypoint",
    fixed=patch({"spec.submissionMode": "InteractiveMode"}),
    cel=Cel("(has(j.entrypoint) && j.entrypoint.trim() != '') || !((has(j.submissionMode) && j.submissionMode != '' ? j.submissionMode : 'K8sJobMode') == 'SidecarMode' || ((has(j.submissionMode) && j.submissionMode != '' ? j.submissionMode : 'K8sJobMode') == 'K8sJobMode' && !(has(j.submitterPodTemplate) && has(j.submitterPodTemplate.spec) && has(j.submitterPodTemplate.spec.containers) && size(j.submitterPodTemplate.spec.containers) > 0 && has(j.submitterPodTemplate.spec.containers[0].command) && size(j.submitterPodTemplate.spec.containers[0].command) > 0)))", over="job", path="entrypoint"),
)
