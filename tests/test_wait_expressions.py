"""The ``pulumi.com/waitFor`` expressions against the status snapshots, with an RFC 9535 JSONPath library.

pulumi-kubernetes (>= 4.24) evaluates ``jsonpath=`` terms with an RFC 9535 engine: no value means "satisfied
when the query selects something"; ``condition=Type[=Status]`` checks ``status.conditions``; a JSON array
ANDs its terms. :func:`satisfied` reproduces that, so a wait that could never be satisfied (or that ends too
early) shows up here, without a cluster.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import jsonpath_rfc9535
import pytest
import yaml
from pulumi_kuberay.resources import _wait
from pulumi_kuberay.resources._wait import (
    RAYJOB_TERMINAL,
    TIMEOUT_ANNOTATION,
    WAIT_FOR,
    WAIT_FOR_ANNOTATION,
    jsonpath_query,
    timeout_hint,
    wait_annotations,
    waitfor_terms,
)

FIXTURES = Path(__file__).parent / "fixtures" / "status"


@functools.cache
def _load(path: Path) -> dict[str, Any]:
    data = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    assert isinstance(data, dict)
    return data


def _snapshots(prefix: str) -> dict[str, dict[str, Any]]:
    """Fresh copies of the snapshots whose file names start with ``prefix-``."""
    return {path.stem: copy.deepcopy(_load(path)) for path in sorted(FIXTURES.glob(f"{prefix}-*.yaml"))}


def _term_satisfied(term: str, obj: dict[str, Any]) -> bool:
    if term.startswith("condition="):
        ctype, _, wanted = term.removeprefix("condition=").partition("=")
        conditions = (obj.get("status") or {}).get("conditions") or []
        return any(
            c.get("type") == ctype and c.get("status", "").lower() == (wanted or "True").lower()
            for c in conditions
        )
    query, value = jsonpath_query(term)
    nodes = jsonpath_rfc9535.find(query, obj)
    if not nodes:
        return False
    first = nodes[0].value
    if value is None:
        return True
    assert not isinstance(first, dict | list), f"{term}: the provider errors on a non-primitive match"
    return str(first) == value


def satisfied(annotation_value: str, obj: dict[str, Any]) -> bool:
    return all(_term_satisfied(term, obj) for term in waitfor_terms(annotation_value))


# Snapshots at which each kind's wait must end; every other snapshot of the kind must keep it waiting.
RAYJOB_TERMINAL_SNAPSHOTS = {
    "rayjob-complete",
    "rayjob-complete-stopped",
    "rayjob-complete-grace-period",
    "rayjob-failed-app",
    "rayjob-failed-submission",
    "rayjob-failed-deadline-cluster-never-up",
    "rayjob-failed-deadline-running",
    "rayjob-failed-prerunning-deadline",
    "rayjob-failed-grace-period",
    "rayjob-failed-status-check-timeout",
    "rayjob-failed-retries-exhausted",
    "rayjob-validation-failed",
}
RAYCLUSTER_HEAD_READY_SNAPSHOTS = {
    "raycluster-ready",
    "raycluster-workers-provisioning",
    "raycluster-replica-failure",  # workers cannot be created, but the head is up
    "raycluster-suspending",  # head still up while the pods are being deleted
    "raycluster-stale-generation",
    "raycluster-legacy-ready",
}
RAYSERVICE_READY_SNAPSHOTS = {
    "rayservice-ready",
    "rayservice-ready-app-unhealthy",
    "rayservice-upgrading",
    "rayservice-upgrade-pending-failing",
    "rayservice-incremental-upgrade",
    "rayservice-rollback",
    "rayservice-suspend-requested",
    "rayservice-legacy-running",
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
    assert satisfied(WAIT_FOR[kind], obj) is (name in expected)


def test_rayjob_terminal_means_finished_in_the_diagnosis() -> None:
    """Where the wait ends, diagnose() has a verdict (the component turns failed into a pulumi up error)."""
    from pulumi_kuberay.status import diagnose

    for name, obj in _snapshots("rayjob").items():
        if satisfied(RAYJOB_TERMINAL, obj):
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


@pytest.mark.parametrize("kind", sorted(WAIT_FOR))
def test_expressions_survive_the_provider_parser(kind: str) -> None:
    """The provider keeps the text up to the first '}' and splits on '=' after protecting '=='."""
    expression = WAIT_FOR[kind]
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
    with pytest.raises(ValueError):
        jsonpath_query("jsonpath={.a[?@!='b']}")  # "!=" would be split on "="
    with pytest.raises(ValueError):
        jsonpath_query("jsonpath=.status.state")
    with pytest.raises(ValueError):
        jsonpath_query("condition=Ready")


def test_annotations() -> None:
    assert wait_annotations("RayJob") == {WAIT_FOR_ANNOTATION: RAYJOB_TERMINAL}
    assert wait_annotations("RayService", timeout_seconds=1200) == {
        WAIT_FOR_ANNOTATION: _wait.RAYSERVICE_READY,
        TIMEOUT_ANNOTATION: "1200",
    }
    with pytest.raises(ValueError):
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
    source = Path(_wait.__file__).read_text()
    assert "import pulumi" not in source and "from pulumi" not in source
