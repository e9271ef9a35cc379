"""The in-tree autoscaler: v1/v2, suspend, restart policy, idle timeouts, operator-managed env vars."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.names import GEN_AUTOSCALER_START_CMD_ENV
from pulumi_kuberay.kuberay.paths import (
    as_int,
    as_str,
    cluster_specs,
    env_list,
    get,
    group_template,
    groups,
    join,
    worker_groups,
)

from ._cel import Cel, head_env_entries, head_env_value_in
from ._engine import KINDS, Context, Violation, declare
from ._examples import add_env, example, head_container_of, spec_of, with_autoscaling_v2, worker_of
from ._fixed import REMOVE, patch
from ._manifest_readers import AUTOSCALER_V2_ENV, autoscaler_v2_by_version, autoscaling_enabled, head_env, reported_as

# RC-39..RC-45: autoscaler


def _check_v2_env_without_autoscaling(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if autoscaling_enabled(ref) is not False:
            continue
        env = head_env(ref, AUTOSCALER_V2_ENV)
        if env is not None and env[1].get("value") in ("1", "true"):
            yield Violation(
                f"head env {AUTOSCALER_V2_ENV}={env[1]['value']} but enableInTreeAutoscaling is false{reported_as(ref)}",
                env[0],
                fix="Set enableInTreeAutoscaling: true with autoscalerOptions.version: v2, or remove the env var.",
            )


declare(
    id="autoscaler-v2-env-without-autoscaling",
    title="RAY_enable_autoscaler_v2 set while autoscaling is disabled",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-39",),
    enforced_by=("operator",),
    rationale="The env var cannot enable autoscaler v2 when the in-tree autoscaler is off; the operator rejects it.",
    fix="Enable autoscaling (enableInTreeAutoscaling: true, autoscalerOptions.version: v2) or drop the env var.",
    check=_check_v2_env_without_autoscaling,
    compliant=example(with_autoscaling_v2),
    violating=example(lambda d: add_env(head_container_of(d), AUTOSCALER_V2_ENV, "true")),
    violating_path="spec.headGroupSpec.template.spec.containers[0].env[0]",
    fixed=patch(
        {
            "spec.headGroupSpec.template.spec.containers[0].env": REMOVE,
            "spec.enableInTreeAutoscaling": True,
            "spec.autoscalerOptions": {"version": "v2"},
        }
    ),
    cel=Cel(f"(has(c.enableInTreeAutoscaling) && c.enableInTreeAutoscaling) || !({head_env_value_in(AUTOSCALER_V2_ENV, ('1', 'true'))})", over="cluster", path="headGroupSpec.template.spec.containers[0].env"),
)


def _check_suspend_with_autoscaling(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if autoscaling_enabled(ref) is not True:
            continue
        for group in worker_groups(ref):
            if group.spec.get("suspend") is True:
                yield Violation(
                    f"worker group {group.name!r} cannot be suspended with the autoscaler enabled{reported_as(ref)}",
                    join(group.path, "suspend"),
                    fix="Remove workerGroupSpecs[].suspend (it is internal to RayJob DeleteWorkers) or disable autoscaling.",
                )


declare(
    id="worker-suspend-with-autoscaling",
    title="Worker group suspended while autoscaling is enabled",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-40",),
    enforced_by=("operator",),
    rationale="A suspended worker group conflicts with the autoscaler; the operator rejects it.",
    fix="Do not set workerGroupSpecs[].suspend when enableInTreeAutoscaling is true.",
    check=_check_suspend_with_autoscaling,
    compliant=example(with_autoscaling_v2),
    violating=example(lambda d: (with_autoscaling_v2(d), worker_of(d).update(suspend=True))),
    violating_path="spec.workerGroupSpecs[0].suspend",
    fixed=patch({"spec.workerGroupSpecs[0].suspend": REMOVE}),
    cel=Cel('!(has(c.enableInTreeAutoscaling) && c.enableInTreeAutoscaling) || !has(c.workerGroupSpecs) || c.workerGroupSpecs.all(g, !(has(g.suspend) && g.suspend))', over="cluster", path="workerGroupSpecs[].suspend"),
)


def _check_version_and_env(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if autoscaling_enabled(ref) is not True:
            continue
        if get(ref.spec, "autoscalerOptions", "version") is None:
            continue
        env = head_env(ref, AUTOSCALER_V2_ENV)
        if env is not None:
            yield Violation(
                f"both spec.autoscalerOptions.version and head env {AUTOSCALER_V2_ENV} are set{reported_as(ref)}",
                env[0],
                fix=f"Remove env {AUTOSCALER_V2_ENV}; autoscalerOptions.version alone selects the autoscaler.",
            )


declare(
    id="autoscaler-version-and-env-both-set",
    title="autoscalerOptions.version and RAY_enable_autoscaler_v2 both set",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-41",),
    enforced_by=("operator",),
    rationale="The operator accepts only one way to select the autoscaler version.",
    fix="Keep autoscalerOptions.version and remove the head env var.",
    check=_check_version_and_env,
    compliant=example(with_autoscaling_v2),
    violating=example(lambda d: (with_autoscaling_v2(d), add_env(head_container_of(d), AUTOSCALER_V2_ENV, "true"))),
    violating_path="spec.headGroupSpec.template.spec.containers[0].env[0]",
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].env": REMOVE}),
    cel=Cel(f"!(has(c.enableInTreeAutoscaling) && c.enableInTreeAutoscaling) || !(has(c.autoscalerOptions) && has(c.autoscalerOptions.version)) || {head_env_entries(AUTOSCALER_V2_ENV)}.size() == 0", over="cluster", path="headGroupSpec.template.spec.containers[0].env"),
)


def _check_v2_restart_policy(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        # IsAutoscalingV2Enabled: autoscalerOptions.version only (the env var does not trigger this check)
        if autoscaling_enabled(ref) is not True or autoscaler_v2_by_version(ref) is not True:
            continue
        for group in groups(ref):
            tpl = group_template(group)
            if tpl is None:
                continue
            policy = as_str(tpl.pod_spec.get("restartPolicy"))
            if policy and policy != "Never":
                who = "head Pod" if group.role == "head" else f"worker group {group.name!r}"
                yield Violation(
                    f"restartPolicy for {who} is {policy!r}; it must be Never or unset with autoscaler v2{reported_as(ref)}",
                    join(tpl.spec_path, "restartPolicy"),
                    fix="Remove restartPolicy (the operator sets Never) or set it to Never.",
                )


declare(
    id="autoscaler-v2-restart-policy",
    title="restartPolicy other than Never with autoscaler v2",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-42", "RC-43"),
    enforced_by=("operator",),
    rationale="Autoscaler v2 replaces failed Pods itself; the operator rejects head/worker restartPolicy other than Never.",
    fix="Leave restartPolicy unset (or Never) on head and worker templates.",
    check=_check_v2_restart_policy,
    compliant=example(with_autoscaling_v2),
    violating=example(
        lambda d: (with_autoscaling_v2(d), worker_of(d)["template"]["spec"].update(restartPolicy="Always"))
    ),
    violating_path="spec.workerGroupSpecs[0].template.spec.restartPolicy",
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.restartPolicy": REMOVE}),
    cel=Cel("!((has(c.enableInTreeAutoscaling) && c.enableInTreeAutoscaling) && (has(c.autoscalerOptions) && has(c.autoscalerOptions.version) && c.autoscalerOptions.version == 'v2')) || ((!has(c.headGroupSpec) || !has(c.headGroupSpec.template) || !has(c.headGroupSpec.template.spec) || !has(c.headGroupSpec.template.spec.restartPolicy) || c.headGroupSpec.template.spec.restartPolicy in ['', 'Never']) && (!has(c.workerGroupSpecs) || c.workerGroupSpecs.all(g, !has(g.template) || !has(g.template.spec) || !has(g.template.spec.restartPolicy) || g.template.spec.restartPolicy in ['', 'Never'])))", over="cluster", path="template.spec.restartPolicy"),
)


def _check_autoscaler_idle_negative(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        value = as_int(get(ref.spec, "autoscalerOptions", "idleTimeoutSeconds"))
        if value is not None and value < 0:
            yield Violation(
                f"autoscalerOptions.idleTimeoutSeconds ({value}) must be non-negative{reported_as(ref)}",
                ref.path("autoscalerOptions", "idleTimeoutSeconds"),
            )


declare(
    id="autoscaler-idle-timeout-negative",
    title="autoscalerOptions.idleTimeoutSeconds is negative",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-44",),
    enforced_by=("operator",),
    since="1.6",
    rationale="The operator (v1.6+) rejects a negative autoscaler idle timeout.",
    fix="Set autoscalerOptions.idleTimeoutSeconds to 0 or more (default 60).",
    check=_check_autoscaler_idle_negative,
    compliant=example(
        lambda d: (with_autoscaling_v2(d), spec_of(d)["autoscalerOptions"].update(idleTimeoutSeconds=60))
    ),
    violating=example(
        lambda d: (with_autoscaling_v2(d), spec_of(d)["autoscalerOptions"].update(idleTimeoutSeconds=-1))
    ),
    violating_path="spec.autoscalerOptions.idleTimeoutSeconds",
    fixed=patch({"spec.autoscalerOptions.idleTimeoutSeconds": 60}),
    cel=Cel('!has(c.autoscalerOptions) || !has(c.autoscalerOptions.idleTimeoutSeconds) || c.autoscalerOptions.idleTimeoutSeconds >= 0', over="cluster", path="autoscalerOptions.idleTimeoutSeconds"),
)


def _check_autoscaler_managed_env(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        options = ref.spec.get("autoscalerOptions")
        if not isinstance(options, dict):
            continue
        for path, entry in env_list(options, ref.path("autoscalerOptions")):
            if entry["name"] == GEN_AUTOSCALER_START_CMD_ENV:
                yield Violation(
                    f"autoscalerOptions.env must not set KUBERAY_GEN_AUTOSCALER_START_CMD (managed by KubeRay){reported_as(ref)}",
                    path,
                    fix="Remove it; reference $(KUBERAY_GEN_AUTOSCALER_START_CMD) in autoscalerOptions.args instead.",
                )


declare(
    id="autoscaler-managed-env",
    title="autoscalerOptions.env sets KUBERAY_GEN_AUTOSCALER_START_CMD",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-45",),
    enforced_by=("operator",),
    since="1.7",
    rationale="KubeRay generates KUBERAY_GEN_AUTOSCALER_START_CMD for the autoscaler container and rejects a user value.",
    fix="Remove the env entry.",
    check=_check_autoscaler_managed_env,
    compliant=example(
        lambda d: (
            with_autoscaling_v2(d),
            spec_of(d)["autoscalerOptions"].update(env=[{"name": "LOG", "value": "1"}]),
        )
    ),
    violating=example(
        lambda d: (
            with_autoscaling_v2(d),
            spec_of(d)["autoscalerOptions"].update(
                env=[{"name": GEN_AUTOSCALER_START_CMD_ENV, "value": "ray kuberay-autoscaler"}]
            ),
        )
    ),
    violating_path="spec.autoscalerOptions.env[0]",
    fixed=patch({"spec.autoscalerOptions.env[0]": REMOVE}),
    cel=Cel("!has(c.autoscalerOptions) || !has(c.autoscalerOptions.env) || !c.autoscalerOptions.env.exists(e, e.name == 'KUBERAY_GEN_AUTOSCALER_START_CMD')", over="cluster", path="autoscalerOptions.env"),
)


# --------------------------------------------------------------------------------------------------
