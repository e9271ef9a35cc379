"""The provider fallback: ``pulumi.com/waitFor`` expressions against the status snapshots, through a model of
the provider's await rule.

pulumi-kubernetes (>= 4.24) evaluates ``jsonpath=`` terms with an RFC 9535 engine: no value means "satisfied
when the query selects something"; ``condition=Type[=Status]`` checks ``status.conditions``; a JSON array
ANDs its terms. Before any of that it applies its generation rule, modelled by :func:`provider_satisfied`:
``JSONPath.Satisfied`` (``provider/pkg/await/condition/jsonpath.go``) is unmet while
``status.observedGeneration < metadata.generation`` and ``checkCondition`` (``condition/kubectl.go``) compares the
condition's own ``observedGeneration`` (else the status's). ``test_model_matches_the_provider_source`` reads those
Go files from the module cache and checks that the model still says what they do.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonpath_rfc9535
import pytest
import yaml
from pulumi_kuberay.kuberay import RAYJOB_TERMINAL_DEPLOYMENT_STATUSES
from pulumi_kuberay.resources import _provider_wait_for as provider_wait_for
from pulumi_kuberay.resources._provider_wait_for import (
    RAYJOB_TERMINAL,
    TIMEOUT_ANNOTATION,
    WAIT_FOR,
    WAIT_FOR_ANNOTATION,
    jsonpath_query,
    timeout_hint,
    wait_annotations,
    wait_for,
    waitfor_terms,
)

PROVIDER_MODULE = "github.com/pulumi/pulumi-kubernetes/provider/v4@v4.0.0-20260115033456-f47bc2d6f199"
FIXTURES = Path(__file__).parent / "fixtures" / "status"


@functools.cache
def _load(path: Path) -> dict[str, Any]:
    data = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    assert isinstance(data, dict)
    return data


def _snapshots(prefix: str) -> dict[str, dict[str, Any]]:
    """Fresh copies of the snapshots whose file names start with ``prefix-``."""
    return {path.stem: copy.deepcopy(_load(path)) for path in sorted(FIXTURES.glob(f"{prefix}-*.yaml"))}


def _int(value: Any) -> int | None:
    """``unstructured.NestedInt64``: only an integer counts (found=false otherwise)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _behind(obj: dict[str, Any], observed: Any) -> bool:
    generation = _int((obj.get("metadata") or {}).get("generation"))
    seen = _int(observed)
    return generation is not None and seen is not None and seen < generation


def _term_satisfied(term: str, obj: dict[str, Any]) -> bool:
    if term.startswith("condition="):  # checkCondition (condition/kubectl.go)
        ctype, _, wanted = term.removeprefix("condition=").partition("=")
        for c in (obj.get("status") or {}).get("conditions") or []:
            if str(c.get("type", "")).lower() != ctype.lower() or not isinstance(c.get("status"), str):
                continue
            observed = c.get("observedGeneration", (obj.get("status") or {}).get("observedGeneration"))
            if _behind(obj, observed):
                return False
            return bool(c["status"].lower() == (wanted or "True").lower())
        return False
    # JSONPath.Satisfied (condition/jsonpath.go): the generation rule first, then the RFC 9535 match.
    if _behind(obj, (obj.get("status") or {}).get("observedGeneration")):
        return False
    query, value = jsonpath_query(term)
    nodes = jsonpath_rfc9535.find(query, obj)
    if not nodes:
        return False
    first = nodes[0].value
    if value is None:
        return True
    assert not isinstance(first, dict | list), f"{term}: the provider errors on a non-primitive match"
    return str(first) == value


def provider_satisfied(annotation_value: str, obj: dict[str, Any]) -> bool:
    """Would the provider's await end at ``obj``? (All terms ANDed: ``condition.NewAll``.)"""
    return all(_term_satisfied(term, obj) for term in waitfor_terms(annotation_value))


satisfied = provider_satisfied


def annotation_for(obj: dict[str, Any]) -> str:
    value = wait_for(obj["kind"], obj.get("spec"), (obj.get("metadata") or {}).get("labels"))
    assert value is not None
    return value


# Snapshots at which the provider's wait (with the fallback annotation for the snapshot's spec) ends; every
# other snapshot of the kind keeps it waiting.
RAYJOB_TERMINAL_SNAPSHOTS = {
    "rayjob-complete",
    "rayjob-complete-stopped",
    "rayjob-complete-grace-period",
    "rayjob-failed-app",
    "rayjob-failed-submission",
    "rayjob-failed-deadline-cluster-never-up",
    "rayjob-failed-deadline-running",
    "rayjob-failed-deadline-spec-edited",
    "rayjob-failed-prerunning-deadline",
    "rayjob-failed-grace-period",
    "rayjob-failed-submitter-finished",
    "rayjob-failed-status-check-timeout",
    "rayjob-failed-retries-exhausted",
    "rayjob-validation-failed",
    "rayjob-validation-failed-waiting",
    "rayjob-suspended",  # spec.suspend true by the user (no Kueue queue label): nothing will run
    "rayjob-waiting-interactive",  # InteractiveMode: the user submits the job
    "rayjob-real-failed-deadline-no-dashboard",
    "rayjob-real-validation-failed",
}
RAYCLUSTER_HEAD_READY_SNAPSHOTS = {
    "raycluster-ready",
    "raycluster-real-autoscaling-ready",
    "raycluster-updated-replicas",
    "raycluster-workers-provisioning",
    "raycluster-replica-failure",  # workers cannot be created, but the head is up
    "raycluster-legacy-ready",
    # spec.suspend true: the wait is for Suspended
    "raycluster-suspended",
    "raycluster-legacy-suspended",
    "raycluster-rc86-both-suspend-conditions",
    # NOT raycluster-stale-generation: the provider's generation rule never lets it end (see below)
}
RAYSERVICE_READY_SNAPSHOTS = {
    "rayservice-ready",
    "rayservice-ready-app-unhealthy",
    "rayservice-legacy-running",
    "rayservice-suspended",  # spec.suspend true: the wait is for Suspended
}
EXPECTED = {
    "RayJob": ("rayjob", RAYJOB_TERMINAL_SNAPSHOTS),
    "RayCluster": ("raycluster", RAYCLUSTER_HEAD_READY_SNAPSHOTS),
    "RayService": ("rayservice", RAYSERVICE_READY_SNAPSHOTS),
}


def test_every_waited_kind_is_checked() -> None:
    assert set(WAIT_FOR) == set(EXPECTED)
    assert wait_annotations("RayCronJob") == {}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_expected_snapshots_exist(kind: str) -> None:
    prefix, expected = EXPECTED[kind]
    assert expected <= set(_snapshots(prefix)), expected - set(_snapshots(prefix))


@pytest.mark.parametrize(
    ("kind", "name"),
    [(kind, name) for kind, (prefix, _) in sorted(EXPECTED.items()) for name in _snapshots(prefix)],
)
def test_wait_ends_exactly_at_the_expected_snapshots(kind: str, name: str) -> None:
    prefix, expected = EXPECTED[kind]
    obj = _snapshots(prefix)[name]
    assert obj["kind"] == kind
    assert provider_satisfied(annotation_for(obj), obj) is (name in expected)


def test_rayjob_terminal_means_finished_in_the_diagnosis() -> None:
    """Where the wait ends, diagnose() has a verdict (the component turns failed into a pulumi up error)."""
    from pulumi_kuberay.status import diagnose

    for name, obj in _snapshots("rayjob").items():
        if provider_satisfied(annotation_for(obj), obj):
            assert diagnose(obj).phase in ("succeeded", "failed", "suspended", "progressing"), name
            if obj["status"]["jobDeploymentStatus"] in RAYJOB_TERMINAL_DEPLOYMENT_STATUSES:
                assert diagnose(obj).phase in ("succeeded", "failed"), name


def test_rayjob_terminal_ignores_lookalike_values() -> None:
    """Only jobDeploymentStatus counts, not a jobId, message or reason that happens to read 'Failed'."""
    obj = _snapshots("rayjob")["rayjob-running"]
    obj["status"].update(jobId="Complete", message="Failed", reason="ValidationFailed")
    obj["spec"]["deletionStrategy"] = {
        "deletionRules": [{"policy": "DeleteCluster", "condition": {"jobDeploymentStatus": "Failed"}}]
    }
    assert not satisfied(RAYJOB_TERMINAL, obj)


def test_waits_hold_before_any_status() -> None:
    for kind, (prefix, _) in EXPECTED.items():
        obj = _snapshots(prefix)[f"{prefix}-no-status"]
        assert not satisfied(WAIT_FOR[kind], obj), kind


ALL_EXPRESSIONS = {
    **WAIT_FOR,
    "RayCluster suspended": provider_wait_for.RAYCLUSTER_SUSPENDED,
    "RayService suspended": provider_wait_for.RAYSERVICE_SUSPENDED,
    "RayJob interactive+suspended": wait_for("RayJob", {"submissionMode": "InteractiveMode", "suspend": True}),
}


@pytest.mark.parametrize("kind", sorted(ALL_EXPRESSIONS))
def test_expressions_survive_the_provider_parser(kind: str) -> None:
    """The provider keeps the text up to the first '}' and splits on '=' after protecting '=='."""
    expression = ALL_EXPRESSIONS[kind]
    assert expression is not None
    query, value = jsonpath_query(expression)
    assert value is None
    assert "}" not in query and "{" not in query
    for operator in ("!=", "<=", ">="):
        assert operator not in expression
    jsonpath_rfc9535.compile(query)  # valid RFC 9535
    assert expression.startswith("jsonpath={") and expression.endswith("}")


def test_jsonpath_query_mirrors_the_provider() -> None:
    assert jsonpath_query("jsonpath={.status.state}=ready") == ("$.status.state", "ready")
    assert jsonpath_query("jsonpath={.status[?@=='a']}") == ("$.status[?@=='a']", None)
    with pytest.raises(ValueError, match="should be wrapped in brackets"):
        jsonpath_query("jsonpath={.a[?@!='b']}")  # "!=" is split on "=": what is left is not a {...} path
    with pytest.raises(ValueError, match="should be wrapped in brackets"):
        jsonpath_query("jsonpath=.status.state")
    with pytest.raises(ValueError, match="not a jsonpath= term"):
        jsonpath_query("condition=Ready")


def test_annotations() -> None:
    assert wait_annotations("RayJob") == {WAIT_FOR_ANNOTATION: RAYJOB_TERMINAL}
    assert wait_annotations("RayService", timeout_seconds=1200) == {
        WAIT_FOR_ANNOTATION: provider_wait_for.RAYSERVICE_READY,
        TIMEOUT_ANNOTATION: "1200",
    }
    with pytest.raises(ValueError, match="timeout_seconds must be positive, got 0"):
        wait_annotations("RayCluster", timeout_seconds=0)
    assert waitfor_terms(json.dumps(["condition=Ready", "jsonpath={.a}"])) == [
        "condition=Ready",
        "jsonpath={.a}",
    ]
    assert waitfor_terms("condition=Ready") == ["condition=Ready"]


def test_and_of_terms() -> None:
    obj = _snapshots("rayservice")["rayservice-ready"]
    both = json.dumps(["condition=Ready", "jsonpath={.status.numServeEndpoints}=3"])
    assert satisfied(both, obj)
    assert not satisfied(json.dumps(["condition=Ready", "condition=UpgradeInProgress"]), obj)


def test_timeout_hint_points_to_kuberay_explain() -> None:
    hint = timeout_hint("RayJob", "train", "ml")
    assert "kubectl get rayjob -n ml train -o json | kuberay-explain -" in hint


def test_wait_module_is_pure() -> None:
    source = Path(provider_wait_for.__file__).read_text()
    assert "import pulumi" not in source and "from pulumi" not in source


# --------------------------------------------------------------------------------------------------
# The provider's generation rule, and what it means for each operation (the fallback's known limits).


def _with(obj: dict[str, Any], generation: int, observed: int | None) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["metadata"]["generation"] = generation
    if observed is None:
        out["status"].pop("observedGeneration", None)
    else:
        out["status"]["observedGeneration"] = observed
    return out


def test_generation_rule_blocks_a_stale_status() -> None:
    ready = _snapshots("raycluster")["raycluster-ready"]
    assert provider_satisfied(provider_wait_for.RAYCLUSTER_READY, _with(ready, 1, 1))
    assert not provider_satisfied(provider_wait_for.RAYCLUSTER_READY, _with(ready, 2, 1))
    no_generation = _with(ready, 2, None)
    assert provider_satisfied(provider_wait_for.RAYCLUSTER_READY, no_generation), "no observedGeneration: no rule"
    assert not provider_satisfied("condition=HeadPodReady", _with(ready, 2, 1))
    assert provider_satisfied("condition=HeadPodReady", _with(ready, 2, 2))


def test_fallback_limit_raycluster_image_only_update_never_ends() -> None:
    """An image-only edit: calculateStatus computes observedGeneration, InconsistentRayClusterStatus ignores it,
    so the operator writes nothing and the status the provider sees stays at the old generation for good."""
    stale = _snapshots("raycluster")["raycluster-stale-generation"]
    assert not provider_satisfied(annotation_for(stale), stale)
    replicas = _snapshots("raycluster")["raycluster-updated-replicas"]  # maxReplicas edit: status rewritten
    assert provider_satisfied(annotation_for(replicas), replicas)


def test_rayservice_update_waits_for_the_new_cluster_and_config() -> None:
    """The first status of a new generation already has UpgradeInProgress True (calculateConditions) or the
    app DEPLOYING (reconcileServe): the fallback keeps waiting; the old RAYSERVICE_READY would have ended."""
    old_expression = (
        "jsonpath={$[?@.conditions[?@.type=='Ready' && @.status=='True']"
        " || (!@.conditions && @.serviceStatus=='Running')]}"
    )
    for name in ("rayservice-upgrading", "rayservice-serve-config-updating", "rayservice-rollback"):
        obj = _snapshots("rayservice")[name]
        assert provider_satisfied(old_expression, obj), name
        assert not provider_satisfied(annotation_for(obj), obj), name


def _go_source(relative: str) -> str:
    try:
        modcache = subprocess.run(
            ["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        modcache = os.environ.get("GOMODCACHE", "")
    path = Path(modcache) / PROVIDER_MODULE / "pkg" / relative
    if not modcache or not path.is_file():
        pytest.skip(f"pulumi-kubernetes provider source not in the Go module cache (GOMODCACHE): {PROVIDER_MODULE}")
    return path.read_text()


def test_model_matches_the_provider_source() -> None:
    """The model above restates JSONPath.Satisfied, checkCondition and ObjectObserver.Observe; fail if the
    provider's code no longer says so."""
    jsonpath_go = " ".join(_go_source("await/condition/jsonpath.go").split())
    assert 'unstructured.NestedInt64(jp.Object().Object, "metadata", "generation")' in jsonpath_go
    assert 'unstructured.NestedInt64(jp.Object().Object, "status", "observedGeneration")' in jsonpath_go
    assert "if ok && observedGeneration < generation { return false, nil }" in jsonpath_go
    kubectl_go = " ".join(_go_source("await/condition/kubectl.go").split())
    assert "if found && observedGeneration < generation {" in kubectl_go
    assert 'unstructured.NestedInt64(condition, "observedGeneration")' in kubectl_go
    observer_go = " ".join(_go_source("await/condition/observer.go").split())
    assert "if obj.GetGeneration() < oo.obj.GetGeneration() { return nil }" in observer_go
    overrides_go = " ".join(_go_source("metadata/overrides.go").split())
    assert "if SkipAwaitLogic(inputs) { return condition.NewImmediate(logger, obj), true, nil }" in overrides_go
    # skipAwait does not skip the deletion wait of a custom resource: only these legacy kinds are allowed to.
    allows = overrides_go[overrides_go.index("func allowsSkipAwaitWithDelete") :]
    assert "ray.io" not in allows[: allows.index("return false")]
