"""diagnose() never raises: garbage, numbers as floats, fuzzed objects; its result is frozen and serialisable."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml
from _status_fixtures import FIXTURES, NOW, load
from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi_kuberay.status import PHASES, Diagnosis, diagnose

# --- never raises -------------------------------------------------------------------------------------------

GARBAGE: list[Any] = [
    None,
    42,
    "RayJob",
    [],
    [{"kind": "RayJob"}],
    {},
    {"kind": 5},
    {"kind": "Pod", "metadata": {"name": "p"}},
    {"kind": "RayJob", "metadata": "x"},
    {"kind": "RayJob", "status": "broken"},
    {"kind": "RayJob", "status": []},
    {"kind": "RayJob", "status": {"jobDeploymentStatus": 7, "startTime": "yesterday", "failed": "many"}},
    {"kind": "RayJob", "spec": [], "status": {"jobDeploymentStatus": "Waiting"}},
    {"kind": "RayJob", "status": {"jobDeploymentStatus": "Failed", "reason": ["x"], "message": {"a": 1}}},
    {"kind": "RayCluster", "status": {"conditions": "none"}},
    {"kind": "RayCluster", "status": {"conditions": [1, None, {"type": None}, {"type": "HeadPodReady"}]}},
    {"kind": "RayCluster", "status": {"state": ["ready"]}},
    {"kind": "RayService", "status": {"conditions": [{"type": "Ready", "status": "Maybe", "reason": "Odd"}]}},
    {
        "kind": "RayService",
        "status": {"activeServiceStatus": {"applicationStatuses": {"a": "RUNNING", "b": {"x": 1}}}},
    },
    {
        "kind": "RayService",
        "status": {"pendingServiceStatus": [], "activeServiceStatus": {"applicationStatuses": []}},
    },
    {"kind": "RayCronJob", "spec": {"schedule": ["x"]}, "status": {"lastScheduleTime": 3}},
    {"kind": "RayJob", "metadata": {"generation": "2"}, "status": {"observedGeneration": True}},
]


@pytest.mark.parametrize("obj", GARBAGE, ids=range(len(GARBAGE)))
def test_garbage_never_raises(obj: Any) -> None:
    result = diagnose(obj)
    assert isinstance(result, Diagnosis)
    assert result.phase in PHASES
    assert result.summary
    json.dumps(result.to_dict())


def test_garbage_says_why() -> None:
    assert diagnose([]).summary == "not a Kubernetes object (got list)"
    pod = diagnose({"kind": "Pod", "metadata": {"name": "p", "namespace": "d"}})
    assert pod.phase == "unknown" and "not a KubeRay object" in pod.summary and pod.ref == "Pod d/p"
    broken = diagnose({"kind": "RayJob", "status": "broken"})
    assert broken.phase == "unknown" and "status is not an object" in broken.summary


def test_diagnosis_is_frozen_and_serialisable() -> None:
    result = diagnose(load("rayjob-failed-app"))
    with pytest.raises(AttributeError):
        result.phase = "healthy"  # type: ignore[misc]
    data = result.to_dict()
    assert data["phase"] == "failed" and data["ok"] is False
    assert {"path": "status.reason", "value": "AppFailed"} in data["evidence"]
    assert result.line().startswith("RayJob ml/train: failed — job FAILED")


def test_does_not_mutate_input() -> None:
    for path in sorted(FIXTURES.glob("*.yaml")):
        obj = yaml.safe_load(path.read_text())
        before = copy.deepcopy(obj)
        diagnose(obj, now=NOW)
        assert obj == before, path.name


def _floats(value: Any) -> Any:
    """``value`` with every int as a float, as the Pulumi SDK delivers a live ``status`` output."""
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def test_numbers_as_floats_give_the_same_diagnosis() -> None:
    """The component diagnoses the status the SDK hands it, where 1 arrives as 1.0: found by the cluster tier
    (the RayCluster diagnosis lost "workers ready 1/1" there)."""
    for path in sorted(FIXTURES.glob("*.yaml")):
        obj = yaml.safe_load(path.read_text())
        as_ints, as_floats = diagnose(obj, now=NOW), diagnose(_floats(obj), now=NOW)
        assert (as_floats.phase, as_floats.summary) == (as_ints.phase, as_ints.summary), path.name


_KEYS = st.sampled_from(
    [
        "kind",
        "status",
        "spec",
        "metadata",
        "conditions",
        "type",
        "reason",
        "message",
        "jobDeploymentStatus",
        "jobStatus",
        "state",
        "serviceStatus",
        "activeServiceStatus",
        "pendingServiceStatus",
        "applicationStatuses",
        "serveDeploymentStatuses",
        "rayClusterStatus",
        "startTime",
        "endTime",
        "failed",
        "backoffLimit",
        "submissionMode",
        "suspend",
        "generation",
        "observedGeneration",
        "deletionTimestamp",
        "llm",
    ]
)
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.sampled_from(
        [
            "True",
            "False",
            "Unknown",
            "Failed",
            "Running",
            "Waiting",
            "Initializing",
            "RayJob",
            "RayCluster",
            "RayService",
            "RayCronJob",
            "HeadPodReady",
            "Ready",
            "2026-01-01T00:00:00Z",
        ]
    ),
)
_JSONISH = st.recursive(
    _VALUES,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_KEYS, children, max_size=6),
    max_leaves=40,
)


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(["RayJob", "RayCluster", "RayService", "RayCronJob"]),
    body=st.dictionaries(_KEYS, _JSONISH, max_size=6),
)
def test_fuzzed_objects_never_raise(kind: str, body: dict[str, Any]) -> None:
    obj = {**body, "kind": kind}
    result = diagnose(obj, now=NOW)
    assert result.phase in PHASES
    assert "\n" not in result.line()
    json.dumps(result.to_dict())
