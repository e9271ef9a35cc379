"""RayJob operator rules: every error branch of KubeRay's ValidateRayJobMetadata/ValidateRayJobSpec.

Reference: ``kuberay-v1.7.0.md`` section 8.2 (RJ-01 .. RJ-39). RJ-35 (the embedded RayClusterSpec) is checked
by the RayCluster rules on every embedded spec; RJ-40 is a status rule diagnosed elsewhere. The operator runs
the spec checks on ``RayJob.spec`` and, for a RayCronJob, on ``spec.jobTemplate`` (RCJ-06), so every spec rule
here checks both. The operator stops at the first failing check; we report every failing check at once.

All checks read raw manifest dicts and never raise: anything of an unexpected type is skipped (the structural
rules report wrong types).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import yaml

from pulumi_kuberay.model._yaml import parse_yaml
from pulumi_kuberay.rules._engine import Category, Context, Rule, Severity, Violation, register
from pulumi_kuberay.rules._paths import as_dict, as_int, as_list, as_str

JobCheck = Callable[[dict[str, Any], str, Context], Iterable[Violation]]

MAX_RAYJOB_NAME_LENGTH = 47
#: Length of the random suffix the API server appends to ``metadata.generateName``.
_GENERATED_SUFFIX_LENGTH = 5
_DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DELETION_ORDER = ("DeleteWorkers", "DeleteCluster", "DeleteSelf")
_CLUSTER_DELETING_POLICIES = ("DeleteCluster", "DeleteWorkers")
#: Submission modes the v1.7.0 controller knows, with the KubeRay version that introduced each.
SUBMISSION_MODES_SINCE: dict[str, tuple[int, int, int]] = {
    "K8sJobMode": (1, 1, 0),
    "HTTPMode": (1, 1, 0),
    "InteractiveMode": (1, 3, 0),
    "SidecarMode": (1, 5, 0),
}


# ----------------------------------------------------------------------------------------------------
# Small readers over untrusted dicts


def _str(value: Any) -> str:
    """The string ("" when unset, not a string, or not known until apply)."""
    return as_str(value) or ""


def job_specs(manifest: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """(RayJobSpec dict, its path) for a RayJob (``spec``) or a RayCronJob (``spec.jobTemplate``)."""
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        return
    kind = manifest.get("kind")
    if kind == "RayJob":
        yield spec, "spec"
    elif kind == "RayCronJob":
        template = spec.get("jobTemplate")
        if isinstance(template, dict):
            yield template, "spec.jobTemplate"


def _per_job_spec(check: JobCheck) -> Callable[[dict[str, Any], Context], Iterator[Violation]]:
    def run(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
        for spec, path in job_specs(manifest):
            yield from check(spec, path, ctx)

    run.__name__ = check.__name__
    run.__doc__ = check.__doc__
    return run


def _has_cluster_selector(spec: dict[str, Any]) -> bool:
    selector = spec.get("clusterSelector")
    return isinstance(selector, dict) and len(selector) > 0


def _autoscaling_enabled(spec: dict[str, Any]) -> bool:
    return as_dict(spec.get("rayClusterSpec")).get("enableInTreeAutoscaling") is True


def _deletion_strategy(spec: dict[str, Any]) -> dict[str, Any] | None:
    strategy = spec.get("deletionStrategy")
    return strategy if isinstance(strategy, dict) else None


def _deletion_rules(spec: dict[str, Any]) -> list[Any]:
    return as_list(as_dict(spec.get("deletionStrategy")).get("deletionRules"))


def _legacy_configured(strategy: dict[str, Any]) -> bool:
    return strategy.get("onSuccess") is not None or strategy.get("onFailure") is not None


def _legacy_policy(strategy: dict[str, Any], key: str) -> str | None:
    return as_str(as_dict(strategy.get(key)).get("policy"))


def _submission_mode(spec: dict[str, Any]) -> str:
    return _str(spec.get("submissionMode")) or "K8sJobMode"


def _operator_rules(rj: str, extra: tuple[str, ...]) -> tuple[str, ...]:
    ids = tuple(x.strip() for x in rj.split(",") if x.strip())
    # RCJ-06: the operator runs the same RayJob spec checks on a RayCronJob's jobTemplate.
    return (*ids, *extra, "RCJ-06") if ids else extra


def _job_rule(
    *,
    id: str,
    title: str,
    rj: str,
    check: JobCheck,
    compliant: dict[str, Any],
    violating: dict[str, Any],
    rationale: str,
    fix: str,
    severity: Severity = "critical",
    category: Category = "correctness",
    extra_rules: tuple[str, ...] = (),
    context: dict[str, Any] | None = None,
) -> Rule:
    """A rule over every RayJobSpec (RayJob spec and RayCronJob jobTemplate, hence RCJ-06 as well)."""
    return register(
        Rule(
            id=id,
            title=title,
            severity=severity,
            category=category,
            rationale=rationale,
            fix=fix,
            kinds=("RayJob", "RayCronJob"),
            check=_per_job_spec(check),
            compliant=compliant,
            violating=violating,
            operator_rules=_operator_rules(rj, extra_rules),
            context=context or {},
        )
    )


# ----------------------------------------------------------------------------------------------------
# Example manifests (data): a small valid RayJob, and helpers deriving variants from it.


def _container(name: str, *, ports: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": name,
        "image": "rayproject/ray:2.52.0",
        "resources": {"limits": {"cpu": "1", "memory": "2Gi"}, "requests": {"cpu": "1", "memory": "2Gi"}},
    }
    if ports is not None:
        container["ports"] = ports
    return container


def example_cluster_spec(*, autoscaling: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "rayVersion": "2.52.0",
        "headGroupSpec": {
            "rayStartParams": {},
            "template": {
                "spec": {
                    "containers": [
                        _container(
                            "ray-head",
                            ports=[
                                {"containerPort": 6379, "name": "gcs-server"},
                                {"containerPort": 8265, "name": "dashboard"},
                                {"containerPort": 10001, "name": "client"},
                            ],
                        )
                    ]
                }
            },
        },
        "workerGroupSpecs": [
            {
                "groupName": "small-group",
                "replicas": 1,
                "minReplicas": 1,
                "maxReplicas": 5,
                "rayStartParams": {},
                "template": {"spec": {"containers": [_container("ray-worker")]}},
            }
        ],
    }
    if autoscaling:
        spec["enableInTreeAutoscaling"] = True
    return spec


def example_job(name: str = "rayjob-sample", **spec_fields: Any) -> dict[str, Any]:
    """A valid RayJob with an embedded cluster; ``spec_fields`` override its spec (None removes a key)."""
    spec: dict[str, Any] = {
        "entrypoint": "python /home/ray/samples/sample_code.py",
        "shutdownAfterJobFinishes": True,
        "ttlSecondsAfterFinished": 60,
        "activeDeadlineSeconds": 3600,
        "rayClusterSpec": example_cluster_spec(),
    }
    for key, value in spec_fields.items():
        if value is None:
            spec.pop(key, None)
        else:
            spec[key] = value
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": name}, "spec": spec}


def _selector_job(**spec_fields: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "rayClusterSpec": None,
        "shutdownAfterJobFinishes": None,
        "ttlSecondsAfterFinished": None,
        "clusterSelector": {"ray.io/cluster": "shared-cluster"},
    }
    fields.update(spec_fields)
    return example_job(**fields)


def _rules(*rules: tuple[str, str, int]) -> dict[str, Any]:
    """deletionStrategy with rules given as (policy, jobStatus, ttlSeconds)."""
    return {
        "deletionRules": [
            {"policy": policy, "condition": {"jobStatus": status, "ttlSeconds": ttl}}
            for policy, status, ttl in rules
        ]
    }


_LEGACY_OK = {"onSuccess": {"policy": "DeleteCluster"}, "onFailure": {"policy": "DeleteCluster"}}


# ----------------------------------------------------------------------------------------------------
# RJ-01, RJ-02 (and WH-03): metadata


def _effective_name(manifest: dict[str, Any]) -> tuple[str, str] | None:
    """(name the object will have, path to blame); generateName gets a 5-character random suffix."""
    metadata = as_dict(manifest.get("metadata"))
    name = as_str(metadata.get("name"))
    if name:
        return name, "metadata.name"
    prefix = as_str(metadata.get("generateName"))
    if prefix:
        return prefix + "x" * _GENERATED_SUFFIX_LENGTH, "metadata.generateName"
    return None


def _check_name_length(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if manifest.get("kind") != "RayJob" or not ctx.at_least(1, 4):
        return
    found = _effective_name(manifest)
    if found is None:
        return
    name, path = found
    if len(name) > MAX_RAYJOB_NAME_LENGTH:
        what = "name" if path == "metadata.name" else "generateName plus its 5-character random suffix"
        yield Violation(
            f"RayJob {what} is {len(name)} characters; the operator allows at most {MAX_RAYJOB_NAME_LENGTH} "
            f"(it derives the RayCluster, submitter Job and Service names from it)",
            path,
        )


def _check_name_dns1035(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    if manifest.get("kind") != "RayJob":
        return
    found = _effective_name(manifest)
    if found is None:
        return
    name, path = found
    if not _DNS1035_LABEL.match(name) or len(name) > 63:
        yield Violation(
            f"RayJob name {name!r} is not a DNS-1035 label (lower-case letters, digits and '-', starting "
            "with a "
            "letter and ending with a letter or digit)",
            path,
        )


register(
    Rule(
        id="rayjob-name-too-long",
        title="RayJob name longer than 47 characters",
        severity="critical",
        category="correctness",
        rationale="ValidateRayJobMetadata rejects RayJob names over 47 characters (also the admission "
        "webhook): "
        "the RayJob goes to ValidationFailed and nothing is created.",
        fix="Shorten metadata.name (or generateName) to at most 47 characters.",
        kinds=("RayJob",),
        check=_check_name_length,
        compliant=example_job("rayjob-sample"),
        violating=example_job("rayjob-" + "x" * 41),
        operator_rules=("RJ-01", "WH-03"),
    )
)

register(
    Rule(
        id="rayjob-name-not-dns1035",
        title="RayJob name is not a DNS-1035 label",
        severity="critical",
        category="correctness",
        rationale="ValidateRayJobMetadata requires a DNS-1035 label (it becomes Service and Pod name "
        "prefixes); "
        "names with dots, upper case or a leading digit are rejected.",
        fix="Use lower-case letters, digits and '-', starting with a letter (e.g. 'train-resnet').",
        kinds=("RayJob",),
        check=_check_name_dns1035,
        compliant=example_job("train-resnet"),
        violating=example_job("train.resnet"),
        operator_rules=("RJ-02", "WH-03"),
    )
)


# ----------------------------------------------------------------------------------------------------
# RJ-03 .. RJ-05: suspend and TTL


def _check_suspend_requires_shutdown(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if spec.get("suspend") is True and spec.get("shutdownAfterJobFinishes") is not True:
        yield Violation(
            "suspend is true but shutdownAfterJobFinishes is not: the operator refuses to suspend such a "
            "RayJob",
            f"{path}.suspend",
        )


_job_rule(
    id="rayjob-suspend-requires-shutdown",
    title="Suspended RayJob without shutdownAfterJobFinishes",
    rj="RJ-03",
    check=_check_suspend_requires_shutdown,
    compliant=example_job(suspend=True),
    violating=example_job(suspend=True, shutdownAfterJobFinishes=False, ttlSecondsAfterFinished=None),
    rationale="Suspending deletes the RayCluster; KubeRay only allows it for jobs that own a disposable "
    "cluster.",
    fix="Set shutdownAfterJobFinishes: true, or do not set suspend.",
)


def _check_ttl_negative(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    ttl = as_int(spec.get("ttlSecondsAfterFinished"))
    if ttl is not None and ttl < 0:
        yield Violation(
            f"ttlSecondsAfterFinished is {ttl}; it must be >= 0", f"{path}.ttlSecondsAfterFinished"
        )


_job_rule(
    id="rayjob-ttl-negative",
    title="Negative ttlSecondsAfterFinished",
    rj="RJ-04",
    check=_check_ttl_negative,
    compliant=example_job(ttlSecondsAfterFinished=0),
    violating=example_job(ttlSecondsAfterFinished=-1),
    rationale="The operator rejects a negative TTL (ValidationFailed).",
    fix="Use 0 (delete right away) or a positive number of seconds.",
)


def _check_ttl_requires_shutdown(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    ttl = as_int(spec.get("ttlSecondsAfterFinished"))
    if ttl is not None and ttl > 0 and spec.get("shutdownAfterJobFinishes") is not True:
        yield Violation(
            f"ttlSecondsAfterFinished is {ttl} but shutdownAfterJobFinishes is not true; the operator "
            "rejects a TTL "
            "without shutdown",
            f"{path}.ttlSecondsAfterFinished",
        )


_job_rule(
    id="rayjob-ttl-requires-shutdown",
    title="ttlSecondsAfterFinished without shutdownAfterJobFinishes",
    rj="RJ-05",
    check=_check_ttl_requires_shutdown,
    compliant=example_job(shutdownAfterJobFinishes=True, ttlSecondsAfterFinished=30),
    violating=example_job(shutdownAfterJobFinishes=False, ttlSecondsAfterFinished=30),
    rationale="The TTL only delays the cluster deletion that shutdownAfterJobFinishes triggers; alone it is "
    "an "
    "error (validateDeletionConfiguration).",
    fix="Set shutdownAfterJobFinishes: true, or remove ttlSecondsAfterFinished (use deletionRules TTLs "
    "instead).",
)


# ----------------------------------------------------------------------------------------------------
# RJ-06 .. RJ-24: deletionStrategy


def _check_deletion_gate(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if _deletion_strategy(spec) is not None and not ctx.gate("RayJobDeletionPolicy"):
        yield Violation(
            "deletionStrategy is set but the operator feature gate RayJobDeletionPolicy is off",
            f"{path}.deletionStrategy",
            fix="Enable the RayJobDeletionPolicy gate on the operator (default on since v1.6), or remove "
            "deletionStrategy and use shutdownAfterJobFinishes.",
        )


_job_rule(
    id="rayjob-deletion-strategy-gate-disabled",
    title="deletionStrategy while the RayJobDeletionPolicy gate is off",
    rj="RJ-06",
    check=_check_deletion_gate,
    compliant=example_job(shutdownAfterJobFinishes=True),
    violating=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy=_rules(("DeleteCluster", "SUCCEEDED", 0)),
    ),
    rationale="With the gate off the operator rejects any deletionStrategy.",
    fix="Enable RayJobDeletionPolicy on the operator or remove deletionStrategy.",
    context={"feature_gates": {"RayJobDeletionPolicy": False}},
)


def _check_rules_with_shutdown(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if _deletion_rules(spec) and spec.get("shutdownAfterJobFinishes") is True:
        yield Violation(
            "shutdownAfterJobFinishes: true and deletionStrategy.deletionRules are mutually exclusive",
            f"{path}.shutdownAfterJobFinishes",
        )


_job_rule(
    id="rayjob-deletion-rules-with-shutdown",
    title="deletionRules together with shutdownAfterJobFinishes",
    rj="RJ-07",
    check=_check_rules_with_shutdown,
    compliant=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy=_rules(("DeleteCluster", "SUCCEEDED", 60)),
    ),
    violating=example_job(
        ttlSecondsAfterFinished=None, deletionStrategy=_rules(("DeleteCluster", "SUCCEEDED", 60))
    ),
    rationale="deletionRules replace shutdownAfterJobFinishes; the operator rejects both together.",
    fix="Remove shutdownAfterJobFinishes (and ttlSecondsAfterFinished) and express the cleanup as "
    "deletionRules.",
)


def _check_mixed_strategy(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    strategy = _deletion_strategy(spec)
    if strategy is not None and _deletion_rules(spec) and _legacy_configured(strategy):
        yield Violation(
            "deletionStrategy mixes the legacy onSuccess/onFailure fields with deletionRules",
            f"{path}.deletionStrategy",
        )


_job_rule(
    id="rayjob-deletion-strategy-mixed",
    title="Legacy onSuccess/onFailure mixed with deletionRules",
    rj="RJ-08",
    extra_rules=("CEL-04",),
    check=_check_mixed_strategy,
    compliant=example_job(
        shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None, deletionStrategy=_LEGACY_OK
    ),
    violating=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy={**_LEGACY_OK, **_rules(("DeleteCluster", "SUCCEEDED", 0))},
    ),
    rationale="The CRD (CEL) and the operator reject deletionStrategy with both styles.",
    fix="Keep only deletionRules (the legacy onSuccess/onFailure fields are deprecated).",
)


def _check_empty_strategy(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    strategy = _deletion_strategy(spec)
    if strategy is not None and not _deletion_rules(spec) and not _legacy_configured(strategy):
        yield Violation(
            "deletionStrategy has neither deletionRules nor both onSuccess and onFailure",
            f"{path}.deletionStrategy",
        )


_job_rule(
    id="rayjob-deletion-strategy-empty",
    title="Empty deletionStrategy",
    rj="RJ-09",
    extra_rules=("CEL-05",),
    check=_check_empty_strategy,
    compliant=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy=_rules(("DeleteCluster", "SUCCEEDED", 0)),
    ),
    violating=example_job(shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None, deletionStrategy={}),
    rationale="An empty deletionStrategy is rejected (CEL and validateDeletionConfiguration).",
    fix="Add deletionRules (at least one), or remove deletionStrategy.",
)


def _check_legacy_incomplete(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    strategy = _deletion_strategy(spec)
    if strategy is None or _deletion_rules(spec) or not _legacy_configured(strategy):
        return
    for key in ("onSuccess", "onFailure"):
        if strategy.get(key) is None:
            yield Violation(
                f"legacy deletionStrategy sets only one of onSuccess/onFailure; {key} is missing",
                f"{path}.deletionStrategy.{key}",
            )
        elif as_dict(strategy.get(key)).get("policy") is None:
            yield Violation(
                f"deletionStrategy.{key}.policy is unset", f"{path}.deletionStrategy.{key}.policy"
            )


_job_rule(
    id="rayjob-legacy-deletion-incomplete",
    title="Legacy deletionStrategy without both onSuccess.policy and onFailure.policy",
    rj="RJ-10, RJ-11, RJ-12",
    check=_check_legacy_incomplete,
    compliant=example_job(
        shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None, deletionStrategy=_LEGACY_OK
    ),
    violating=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy={"onSuccess": {"policy": "DeleteCluster"}},
    ),
    rationale="The legacy style needs both policies; the operator rejects a partial one.",
    fix="Migrate to deletionRules, or set both onSuccess.policy and onFailure.policy.",
)


def _check_policy_with_selector(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if not _has_cluster_selector(spec):
        return
    strategy = _deletion_strategy(spec) or {}
    rules = _deletion_rules(spec)
    if not rules:
        for key in ("onSuccess", "onFailure"):
            policy = _legacy_policy(strategy, key)
            if policy in _CLUSTER_DELETING_POLICIES:
                yield Violation(
                    f"deletionStrategy.{key}.policy {policy} is not supported with clusterSelector (the job "
                    "does not "
                    "own the cluster)",
                    f"{path}.deletionStrategy.{key}.policy",
                )
    for index, rule in enumerate(rules):
        policy = as_dict(rule).get("policy")
        if policy in _CLUSTER_DELETING_POLICIES:
            yield Violation(
                f"deletionRules[{index}].policy {policy} is not supported with clusterSelector (the job "
                "does not own "
                "the cluster)",
                f"{path}.deletionStrategy.deletionRules[{index}].policy",
            )


_job_rule(
    id="rayjob-deletion-policy-with-cluster-selector",
    title="DeleteCluster/DeleteWorkers with clusterSelector",
    rj="RJ-13, RJ-14, RJ-20",
    check=_check_policy_with_selector,
    compliant=_selector_job(deletionStrategy=_rules(("DeleteSelf", "SUCCEEDED", 300))),
    violating=_selector_job(deletionStrategy=_rules(("DeleteCluster", "SUCCEEDED", 300))),
    rationale="A RayJob that selects an existing RayCluster must not delete it or its workers; the operator "
    "rejects the spec.",
    fix="Use DeleteSelf or DeleteNone with clusterSelector, or give the job its own rayClusterSpec.",
)


def _check_delete_workers_autoscaling(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if not _autoscaling_enabled(spec):
        return
    strategy = _deletion_strategy(spec) or {}
    rules = _deletion_rules(spec)
    if not rules:
        for key in ("onSuccess", "onFailure"):
            if _legacy_policy(strategy, key) == "DeleteWorkers":
                yield Violation(
                    f"deletionStrategy.{key}.policy DeleteWorkers is not supported with "
                    "enableInTreeAutoscaling",
                    f"{path}.deletionStrategy.{key}.policy",
                )
    for index, rule in enumerate(rules):
        if as_dict(rule).get("policy") == "DeleteWorkers":
            yield Violation(
                f"deletionRules[{index}].policy DeleteWorkers is not supported with enableInTreeAutoscaling",
                f"{path}.deletionStrategy.deletionRules[{index}].policy",
            )


_job_rule(
    id="rayjob-delete-workers-with-autoscaling",
    title="DeleteWorkers with autoscaling",
    rj="RJ-15, RJ-21",
    check=_check_delete_workers_autoscaling,
    compliant=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        rayClusterSpec=example_cluster_spec(autoscaling=True),
        deletionStrategy=_rules(("DeleteCluster", "SUCCEEDED", 60)),
    ),
    violating=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        rayClusterSpec=example_cluster_spec(autoscaling=True),
        deletionStrategy=_rules(("DeleteWorkers", "SUCCEEDED", 60)),
    ),
    rationale="DeleteWorkers suspends worker groups, which KubeRay forbids while the autoscaler owns them.",
    fix="Use DeleteCluster, or disable enableInTreeAutoscaling.",
)


def _check_shutdown_delete_none(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    strategy = _deletion_strategy(spec)
    if strategy is None or _deletion_rules(spec) or spec.get("shutdownAfterJobFinishes") is not True:
        return
    for key in ("onSuccess", "onFailure"):
        if _legacy_policy(strategy, key) == "DeleteNone":
            yield Violation(
                f"shutdownAfterJobFinishes: true conflicts with deletionStrategy.{key}.policy DeleteNone",
                f"{path}.deletionStrategy.{key}.policy",
            )


_job_rule(
    id="rayjob-shutdown-with-delete-none",
    title="shutdownAfterJobFinishes with a DeleteNone legacy policy",
    rj="RJ-16",
    check=_check_shutdown_delete_none,
    compliant=example_job(ttlSecondsAfterFinished=None, deletionStrategy=_LEGACY_OK),
    violating=example_job(
        ttlSecondsAfterFinished=None,
        deletionStrategy={"onSuccess": {"policy": "DeleteCluster"}, "onFailure": {"policy": "DeleteNone"}},
    ),
    rationale="Shutdown asks for deletion while DeleteNone asks to keep everything; the operator rejects it.",
    fix="Drop shutdownAfterJobFinishes or use a deleting policy (better: migrate to deletionRules).",
)


def _condition_value(rule: dict[str, Any]) -> tuple[str, str] | None:
    """('jobStatus'|'jobDeploymentStatus', value) of a well-formed rule condition, else None."""
    condition = as_dict(rule.get("condition"))
    job_status = condition.get("jobStatus")
    deployment_status = condition.get("jobDeploymentStatus")
    if job_status and deployment_status:
        return None
    if job_status:
        return "jobStatus", str(job_status)
    if deployment_status:
        return "jobDeploymentStatus", str(deployment_status)
    return None


def _check_condition(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    for index, rule in enumerate(_deletion_rules(spec)):
        if not isinstance(rule, dict):
            continue
        condition = as_dict(rule.get("condition"))
        where = f"{path}.deletionStrategy.deletionRules[{index}].condition"
        if condition.get("jobStatus") and condition.get("jobDeploymentStatus"):
            yield Violation(
                f"deletionRules[{index}].condition sets both jobStatus and jobDeploymentStatus; set exactly "
                "one",
                where,
            )
        elif not condition.get("jobStatus") and not condition.get("jobDeploymentStatus"):
            yield Violation(
                f"deletionRules[{index}].condition sets neither jobStatus nor jobDeploymentStatus; set "
                "exactly one",
                where,
            )


_job_rule(
    id="rayjob-deletion-condition-invalid",
    title="deletionRules condition without exactly one of jobStatus/jobDeploymentStatus",
    rj="RJ-17, RJ-18",
    extra_rules=("CEL-06", "CEL-07"),
    check=_check_condition,
    compliant=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy={
            "deletionRules": [
                {"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED"}},
                {"policy": "DeleteCluster", "condition": {"jobDeploymentStatus": "Failed"}},
            ]
        },
    ),
    violating=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy={
            "deletionRules": [
                {"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED"}},
                {
                    "policy": "DeleteCluster",
                    "condition": {"jobStatus": "FAILED", "jobDeploymentStatus": "Failed"},
                },
            ]
        },
    ),
    rationale="Each deletion rule matches either the Ray job status or the RayJob deployment status, never "
    "both "
    "or none (CEL and validateDeletionCondition).",
    fix="Keep exactly one of condition.jobStatus (SUCCEEDED|FAILED) or condition.jobDeploymentStatus "
    "(Failed).",
)


def _check_rule_ttl_negative(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    for index, rule in enumerate(_deletion_rules(spec)):
        ttl = as_int(as_dict(as_dict(rule).get("condition")).get("ttlSeconds"))
        if ttl is not None and ttl < 0:
            yield Violation(
                f"deletionRules[{index}].condition.ttlSeconds is {ttl}; it must be >= 0",
                f"{path}.deletionStrategy.deletionRules[{index}].condition.ttlSeconds",
            )


_job_rule(
    id="rayjob-deletion-rule-ttl-negative",
    title="Negative deletion rule ttlSeconds",
    rj="RJ-19",
    check=_check_rule_ttl_negative,
    compliant=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy=_rules(("DeleteCluster", "FAILED", 0)),
    ),
    violating=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy=_rules(("DeleteCluster", "FAILED", -5)),
    ),
    rationale="A negative TTL is rejected (CRD minimum 0 and validateDeletionCondition).",
    fix="Use 0 or a positive number of seconds.",
)


def _valid_rules(spec: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any], tuple[str, str], str]]:
    """Rules that pass the per-rule checks, as the operator groups them: (index, rule, condition, policy)."""
    selector = _has_cluster_selector(spec)
    autoscaling = _autoscaling_enabled(spec)
    for index, rule in enumerate(_deletion_rules(spec)):
        if not isinstance(rule, dict):
            continue
        condition = _condition_value(rule)
        policy = rule.get("policy")
        ttl = as_int(as_dict(rule.get("condition")).get("ttlSeconds"))
        if condition is None or not isinstance(policy, str) or (ttl is not None and ttl < 0):
            continue
        if (selector and policy in _CLUSTER_DELETING_POLICIES) or (autoscaling and policy == "DeleteWorkers"):
            continue
        yield index, rule, condition, policy


def _check_duplicate_rules(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    seen: dict[tuple[str, str, str], int] = {}
    for index, _rule, (field, value), policy in _valid_rules(spec):
        key = (field, value, policy)
        if key in seen:
            yield Violation(
                f"deletionRules[{index}] repeats deletionRules[{seen[key]}] ({field} {value}, policy "
                f"{policy})",
                f"{path}.deletionStrategy.deletionRules[{index}]",
            )
        else:
            seen[key] = index


_job_rule(
    id="rayjob-deletion-rule-duplicate",
    title="Duplicate (condition, policy) deletion rules",
    rj="RJ-22, RJ-23",
    check=_check_duplicate_rules,
    compliant=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy=_rules(("DeleteCluster", "SUCCEEDED", 0), ("DeleteCluster", "FAILED", 600)),
    ),
    violating=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy=_rules(("DeleteCluster", "SUCCEEDED", 0), ("DeleteCluster", "SUCCEEDED", 600)),
    ),
    rationale="Each (condition value, policy) pair may appear once; duplicates are rejected.",
    fix="Remove the duplicate rule or change its condition/policy.",
)


def _check_ttl_order(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    grouped: dict[tuple[str, str], dict[str, tuple[int, int]]] = {}
    for index, rule, condition, policy in _valid_rules(spec):
        ttl = as_int(as_dict(rule.get("condition")).get("ttlSeconds")) or 0
        grouped.setdefault(condition, {}).setdefault(policy, (index, ttl))
    for (field, value), by_policy in grouped.items():
        previous: tuple[str, int] | None = None
        for policy in _DELETION_ORDER:
            if policy not in by_policy:
                continue
            index, ttl = by_policy[policy]
            if previous is not None and ttl < previous[1]:
                yield Violation(
                    f"for {field} {value}: {policy} TTL ({ttl}) must be >= {previous[0]} TTL ({previous[1]}) "
                    "(workers, then cluster, then the RayJob itself)",
                    f"{path}.deletionStrategy.deletionRules[{index}].condition.ttlSeconds",
                )
            previous = (policy, ttl)


_job_rule(
    id="rayjob-deletion-ttl-order",
    title="Deletion rule TTLs out of order",
    rj="RJ-24",
    check=_check_ttl_order,
    compliant=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy=_rules(("DeleteWorkers", "SUCCEEDED", 30), ("DeleteCluster", "SUCCEEDED", 60)),
    ),
    violating=example_job(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy=_rules(("DeleteWorkers", "SUCCEEDED", 90), ("DeleteCluster", "SUCCEEDED", 60)),
    ),
    rationale="For one condition, TTLs must satisfy DeleteWorkers <= DeleteCluster <= DeleteSelf; otherwise "
    "the "
    "operator rejects the spec (validateTTLConsistency).",
    fix="Order the ttlSeconds so that less destructive policies run first.",
)


# ----------------------------------------------------------------------------------------------------
# RJ-25 .. RJ-34: cluster source, submission mode


def _check_suspend_selector(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if spec.get("suspend") is True and _has_cluster_selector(spec):
        yield Violation("suspend is not supported with clusterSelector", f"{path}.suspend")


_job_rule(
    id="rayjob-suspend-with-cluster-selector",
    title="suspend with clusterSelector",
    rj="RJ-25",
    check=_check_suspend_selector,
    compliant=_selector_job(),
    violating=_selector_job(suspend=True, shutdownAfterJobFinishes=True),
    rationale="Suspend deletes the job's cluster; a RayJob using an existing cluster cannot be suspended.",
    fix="Remove suspend, or give the job its own rayClusterSpec with shutdownAfterJobFinishes: true.",
)


def _check_cluster_source(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if spec.get("rayClusterSpec") is None and not _has_cluster_selector(spec):
        yield Violation(
            "neither rayClusterSpec nor a non-empty clusterSelector is set; the job has no cluster to run on",
            path,
        )


_job_rule(
    id="rayjob-cluster-source-missing",
    title="RayJob without rayClusterSpec or clusterSelector",
    rj="RJ-26",
    check=_check_cluster_source,
    compliant=_selector_job(),
    violating=example_job(rayClusterSpec=None, shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None),
    rationale="The operator needs either a cluster to create or one to select.",
    fix="Add rayClusterSpec, or clusterSelector: {ray.io/cluster: <existing RayCluster>}.",
)


def _check_selector_name(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    selector = spec.get("clusterSelector")
    if _has_cluster_selector(spec) and not as_dict(selector).get("ray.io/cluster"):
        yield Violation(
            "clusterSelector has no non-empty 'ray.io/cluster' key (the only key the operator uses)",
            f"{path}.clusterSelector",
        )


_job_rule(
    id="rayjob-cluster-selector-name-empty",
    title="clusterSelector without ray.io/cluster",
    rj="RJ-27",
    check=_check_selector_name,
    compliant=_selector_job(),
    violating=_selector_job(clusterSelector={"app": "shared-cluster"}),
    rationale="Only the ray.io/cluster value selects the RayCluster; without it the operator rejects the "
    "spec.",
    fix="Set clusterSelector: {ray.io/cluster: <RayCluster name>}.",
)


def _check_sidecar_selector(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if _has_cluster_selector(spec) and _submission_mode(spec) == "SidecarMode":
        yield Violation("SidecarMode cannot be used with clusterSelector", f"{path}.submissionMode")


_job_rule(
    id="rayjob-sidecar-with-cluster-selector",
    title="SidecarMode with clusterSelector",
    rj="RJ-28",
    check=_check_sidecar_selector,
    compliant=_selector_job(submissionMode="HTTPMode"),
    violating=_selector_job(submissionMode="SidecarMode"),
    rationale="SidecarMode injects the submitter into the head Pod the job creates; a selected cluster has "
    "none.",
    fix="Use K8sJobMode or HTTPMode with clusterSelector.",
)


def _check_backoff_incompatible(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    backoff = as_int(spec.get("backoffLimit"))
    if backoff is None or backoff <= 0:
        return
    if _has_cluster_selector(spec) and ctx.at_least(1, 6):
        yield Violation(
            f"backoffLimit {backoff} is not allowed with clusterSelector (retries recreate the cluster)",
            f"{path}.backoffLimit",
        )
    if _submission_mode(spec) == "InteractiveMode":
        yield Violation(f"backoffLimit {backoff} is not allowed in InteractiveMode", f"{path}.backoffLimit")


_job_rule(
    id="rayjob-backoff-limit-incompatible",
    title="backoffLimit > 0 with clusterSelector or InteractiveMode",
    rj="RJ-29, RJ-30",
    check=_check_backoff_incompatible,
    compliant=_selector_job(backoffLimit=0),
    violating=_selector_job(backoffLimit=2),
    rationale="RayJob retries delete and recreate the cluster and reset the job id, which neither a selected "
    "cluster nor InteractiveMode supports.",
    fix="Set backoffLimit: 0 (or remove it).",
)


def _check_sidecar_submitter(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if _submission_mode(spec) != "SidecarMode":
        return
    for key in ("submitterPodTemplate", "submitterConfig"):
        if spec.get(key) is not None:
            yield Violation(f"SidecarMode does not support {key}", f"{path}.{key}")


_job_rule(
    id="rayjob-sidecar-submitter-fields",
    title="submitterPodTemplate/submitterConfig in SidecarMode",
    rj="RJ-31, RJ-32",
    check=_check_sidecar_submitter,
    compliant=example_job(submissionMode="SidecarMode"),
    violating=example_job(submissionMode="SidecarMode", submitterConfig={"backoffLimit": 3}),
    rationale="In SidecarMode the submitter is a container of the head Pod; there is no submitter Job to "
    "shape.",
    fix="Remove submitterPodTemplate/submitterConfig, or use K8sJobMode.",
)


def _check_sidecar_restart(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    if _submission_mode(spec) != "SidecarMode":
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


_job_rule(
    id="rayjob-sidecar-head-restart-policy",
    title="SidecarMode with a head restartPolicy other than Never",
    rj="RJ-33",
    check=_check_sidecar_restart,
    compliant=example_job(submissionMode="SidecarMode", rayClusterSpec=_with_head_restart("Never")),
    violating=example_job(submissionMode="SidecarMode", rayClusterSpec=_with_head_restart("Always")),
    rationale="A restarting head would resubmit the job from the sidecar; the operator forces Never and "
    "rejects "
    "other values.",
    fix="Remove headGroupSpec.template.spec.restartPolicy or set it to Never.",
)


def _check_k8s_token_auth(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    auth = as_dict(as_dict(spec.get("rayClusterSpec")).get("authOptions"))
    if auth.get("enableK8sTokenAuth") is True and ctx.at_least(1, 6):
        yield Violation(
            "authOptions.enableK8sTokenAuth is not supported for RayJob clusters",
            f"{path}.rayClusterSpec.authOptions.enableK8sTokenAuth",
        )


def _with_auth(auth: dict[str, Any]) -> dict[str, Any]:
    cluster = example_cluster_spec()
    cluster["rayVersion"] = "2.55.0"
    cluster["authOptions"] = auth
    return cluster


_job_rule(
    id="rayjob-k8s-token-auth",
    title="Kubernetes token auth in a RayJob cluster",
    rj="RJ-34",
    check=_check_k8s_token_auth,
    compliant=example_job(rayClusterSpec=_with_auth({"mode": "token"})),
    violating=example_job(rayClusterSpec=_with_auth({"mode": "token", "enableK8sTokenAuth": True})),
    rationale="The submitter cannot present a Kubernetes token; the operator rejects enableK8sTokenAuth in "
    "RayJobs.",
    fix="Use authOptions.mode: token without enableK8sTokenAuth.",
)


# ----------------------------------------------------------------------------------------------------
# RJ-36 .. RJ-39: runtime env, deadlines, retries


def _check_runtime_env(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    text = as_str(spec.get("runtimeEnvYAML"))
    if text is None or not text.strip():
        return
    try:
        parsed = parse_yaml(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        yield Violation(
            f"runtimeEnvYAML is not valid YAML{where}: {getattr(err, 'problem', err)}",
            f"{path}.runtimeEnvYAML",
        )
        return
    if parsed is not None and not isinstance(parsed, dict):
        yield Violation(
            "runtimeEnvYAML must be a YAML mapping (pip, env_vars, working_dir, ...), got a "
            f"{type(parsed).__name__}",
            f"{path}.runtimeEnvYAML",
        )


_job_rule(
    id="rayjob-runtime-env-yaml-invalid",
    title="runtimeEnvYAML is not a YAML mapping",
    rj="RJ-36",
    check=_check_runtime_env,
    compliant=example_job(
        runtimeEnvYAML="pip:\n  - requests==2.26.0\nenv_vars:\n  counter_name: test_counter\n"
    ),
    violating=example_job(runtimeEnvYAML="- requests==2.26.0\n- pendulum==2.1.2\n"),
    rationale="The operator unmarshals runtimeEnvYAML into a map before submitting; anything else fails "
    "validation.",
    fix="Write runtimeEnvYAML as a mapping, e.g. 'pip: [requests]' and 'env_vars: {...}'.",
)


def _check_active_deadline(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    deadline = as_int(spec.get("activeDeadlineSeconds"))
    if deadline is not None and deadline <= 0:
        yield Violation(
            f"activeDeadlineSeconds is {deadline}; it must be > 0", f"{path}.activeDeadlineSeconds"
        )


_job_rule(
    id="rayjob-active-deadline-not-positive",
    title="activeDeadlineSeconds <= 0",
    rj="RJ-37",
    check=_check_active_deadline,
    compliant=example_job(activeDeadlineSeconds=3600),
    violating=example_job(activeDeadlineSeconds=0),
    rationale="The operator rejects a non-positive deadline.",
    fix="Use a positive number of seconds, or remove activeDeadlineSeconds.",
)


def _check_pre_running_deadline(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    deadline = as_int(spec.get("preRunningDeadlineSeconds"))
    if deadline is not None and deadline <= 0 and ctx.at_least(1, 6):
        yield Violation(
            f"preRunningDeadlineSeconds is {deadline}; it must be > 0", f"{path}.preRunningDeadlineSeconds"
        )


_job_rule(
    id="rayjob-pre-running-deadline-not-positive",
    title="preRunningDeadlineSeconds <= 0",
    rj="RJ-38",
    check=_check_pre_running_deadline,
    compliant=example_job(preRunningDeadlineSeconds=600),
    violating=example_job(preRunningDeadlineSeconds=0),
    rationale="The CRD (minimum 1) and the operator reject a non-positive pre-running deadline.",
    fix="Use a positive number of seconds, or remove preRunningDeadlineSeconds.",
)


def _check_backoff_negative(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    backoff = as_int(spec.get("backoffLimit"))
    if backoff is not None and backoff < 0:
        yield Violation(f"backoffLimit is {backoff}; it must be >= 0", f"{path}.backoffLimit")


_job_rule(
    id="rayjob-backoff-limit-negative",
    title="Negative backoffLimit",
    rj="RJ-39",
    check=_check_backoff_negative,
    compliant=example_job(backoffLimit=1),
    violating=example_job(backoffLimit=-1),
    rationale="The operator rejects a negative RayJob backoffLimit.",
    fix="Use 0 (no retry) or a positive number of retries.",
)


# ----------------------------------------------------------------------------------------------------
# Not a validation.go branch, but the operator silently never submits: unknown submissionMode


def _check_submission_mode(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    mode = as_str(spec.get("submissionMode"))
    if not mode:
        return
    if mode not in SUBMISSION_MODES_SINCE:  # modes newer than the target: field-value-newer rules (versions)
        close = [m for m in SUBMISSION_MODES_SINCE if m.lower() == mode.lower()]
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        yield Violation(
            f"submissionMode {mode!r} is not one of {', '.join(SUBMISSION_MODES_SINCE)}{hint}; the CRD "
            "accepts any string and the operator never submits the job",
            f"{path}.submissionMode",
        )


_job_rule(
    id="rayjob-submission-mode-unknown",
    title="Unknown submissionMode",
    rj="",
    check=_check_submission_mode,
    compliant=example_job(submissionMode="HTTPMode"),
    violating=example_job(submissionMode="HttpMode"),
    rationale="submissionMode has no CRD enum: a misspelt mode is accepted by the API server, but no "
    "controller "
    "branch submits the job, so it never runs (reference 3.1, inferred).",
    fix="Use K8sJobMode (default), HTTPMode, InteractiveMode or SidecarMode, spelt exactly.",
    severity="critical",
)
