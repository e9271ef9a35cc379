"""Runtime env YAML, deadlines and retries (``ValidateRayJobSpec``).

Every spec rule checks ``RayJob.spec`` and, for a RayCronJob, ``spec.jobTemplate`` (the operator runs the same
checks there, RCJ-06). Checks read raw manifest dicts and never raise; anything of an unexpected type is
skipped (the structural rules report wrong types).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.paths import as_int, as_str
from pulumi_kuberay.model import runtime_env_error

from ._cel import Cel
from ._engine import Context, Violation, declare
from ._examples import example_job
from ._fixed import patch
from ._manifest_readers import per_job_spec

# ----------------------------------------------------------------------------------------------------
# RJ-36 .. RJ-39: runtime env, deadlines, retries


def _check_runtime_env(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    text = as_str(spec.get("runtimeEnvYAML"))
    if text is None or not text.strip():
        return
    error = runtime_env_error(text)
    if error is not None:
        yield Violation(f"runtimeEnvYAML {error}", f"{path}.runtimeEnvYAML")


declare(
    id="rayjob-runtime-env-yaml-invalid",
    title="runtimeEnvYAML is not a YAML mapping",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-36", "RCJ-06"),
    enforced_by=("operator",),
    rationale="ValidateRayJobSpec unmarshals runtimeEnvYAML (UnmarshalRuntimeEnvYAML: its first YAML document, through JSON) into a map; a list, a scalar, malformed YAML or a NaN/infinity (not JSON) fails validation.",
    fix="Write runtimeEnvYAML as a mapping, e.g. 'pip: [requests]' and 'env_vars: {...}'.",
    check=per_job_spec(_check_runtime_env),
    compliant=example_job(runtimeEnvYAML="pip:\n  - requests==2.26.0\nenv_vars:\n  counter_name: test_counter\n"),
    violating=example_job(runtimeEnvYAML="- requests==2.26.0\n- pendulum==2.1.2\n"),
    violating_path="spec.runtimeEnvYAML",
    fixed=patch({"spec.runtimeEnvYAML": 'pip:\n  - requests==2.26.0\nenv_vars:\n  counter_name: test_counter\n'}),
)


def _check_active_deadline(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    deadline = as_int(spec.get("activeDeadlineSeconds"))
    if deadline is not None and deadline <= 0:
        yield Violation(f"activeDeadlineSeconds is {deadline}; it must be > 0", f"{path}.activeDeadlineSeconds")


declare(
    id="rayjob-active-deadline-not-positive",
    title="activeDeadlineSeconds <= 0",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-37", "RCJ-06"),
    enforced_by=("operator",),
    rationale="The operator rejects a non-positive deadline.",
    fix="Use a positive number of seconds, or remove activeDeadlineSeconds.",
    check=per_job_spec(_check_active_deadline),
    compliant=example_job(activeDeadlineSeconds=3600),
    violating=example_job(activeDeadlineSeconds=0),
    violating_path="spec.activeDeadlineSeconds",
    fixed=patch({"spec.activeDeadlineSeconds": 3600}),
    cel=Cel('!has(j.activeDeadlineSeconds) || j.activeDeadlineSeconds > 0', over="job", path="activeDeadlineSeconds"),
)


def _check_pre_running_deadline(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    deadline = as_int(spec.get("preRunningDeadlineSeconds"))
    if deadline is not None and deadline <= 0:
        yield Violation(f"preRunningDeadlineSeconds is {deadline}; it must be > 0", f"{path}.preRunningDeadlineSeconds")


declare(
    id="rayjob-pre-running-deadline-not-positive",
    title="preRunningDeadlineSeconds <= 0",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-38", "SCH-minimum", "RCJ-06"),
    enforced_by=("api-server", "operator"),
    since="1.6",
    rationale="The CRD (minimum 1) and the operator reject a non-positive pre-running deadline.",
    fix="Use a positive number of seconds, or remove preRunningDeadlineSeconds.",
    check=per_job_spec(_check_pre_running_deadline),
    compliant=example_job(preRunningDeadlineSeconds=600),
    violating=example_job(preRunningDeadlineSeconds=0),
    violating_path="spec.preRunningDeadlineSeconds",
    fixed=patch({"spec.preRunningDeadlineSeconds": 600}),
)


def _check_backoff_negative(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    backoff = as_int(spec.get("backoffLimit"))
    if backoff is not None and backoff < 0:
        yield Violation(f"backoffLimit is {backoff}; it must be >= 0", f"{path}.backoffLimit")


declare(
    id="rayjob-backoff-limit-negative",
    title="Negative backoffLimit",
    severity="critical",
    category="correctness",
    kinds=("RayJob", "RayCronJob"),
    rows=("RJ-39", "RCJ-06"),
    enforced_by=("operator",),
    rationale="The operator rejects a negative RayJob backoffLimit.",
    fix="Use 0 (no retry) or a positive number of retries.",
    check=per_job_spec(_check_backoff_negative),
    compliant=example_job(backoffLimit=1),
    violating=example_job(backoffLimit=-1),
    violating_path="spec.backoffLimit",
    fixed=patch({"spec.backoffLimit": 1}),
    cel=Cel('!has(j.backoffLimit) || j.backoffLimit >= 0', over="job", path="backoffLimit"),
)
