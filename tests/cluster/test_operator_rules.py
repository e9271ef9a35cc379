"""A suppressed operator rule: preview passes (annotation ``suppress.pulumi-kuberay.io/<rule>``), the real
operator rejects the object, and its reaction is the row of docs/operator-rules.md that the rule maps.

Per case: the ``up`` (with the policy pack at prod levels, which honours the same suppression) succeeds; the
operator records a Warning Event with the reason its validation uses (``validateRayJob`` -> InvalidRayJobSpec,
``ValidateRayClusterSpec`` -> InvalidRayClusterSpec) and the message of the condition in that row; a RayJob
also gets ``jobDeploymentStatus: ValidationFailed``; and our catalogue, run on the live object without the
suppression, reports exactly that rule id as critical.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import pytest
from pulumi_kuberay import rules

from .conftest import REPO_ROOT, ClusterStack, LocalCluster

SMALL_CLUSTER: dict[str, Any] = {
    "rayVersion": "2.52.0",
    "image": "rayproject/ray:2.52.0",
    "headGroupSpec": {"cpu": 1, "memory": "2Gi"},
    "workerGroupSpecs": [
        {"groupName": "cpu", "cpu": 1, "memory": "2Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": 1}
    ],
}


class Case(NamedTuple):
    row: str  # the operator rule's row in docs/operator-rules.md
    rule: str  # our rule id in that row
    kind: str
    name: str
    config: dict[str, Any]
    event_reason: str  # the operator's Event reason
    message: str  # part of the operator's message for that condition


def _suppress(rule: str) -> dict[str, str]:
    return {f"suppress.pulumi-kuberay.io/{rule}": "cluster tier: the operator must reject this"}


CASES = [
    Case(
        row="RJ-05",
        rule="rayjob-ttl-requires-shutdown",
        kind="RayJob",
        name="ttl-no-shutdown",
        config={
            "pulumi-kuberay:jobs": {
                "ttl-no-shutdown": {
                    "annotations": _suppress("rayjob-ttl-requires-shutdown"),
                    "spec": {
                        "entrypoint": "python -c 'print(1)'",
                        "ttlSecondsAfterFinished": 60,
                        "rayClusterSpec": SMALL_CLUSTER,
                    },
                }
            }
        },
        event_reason="InvalidRayJobSpec",
        message="shutdownAfterJobFinishes set to false cannot have TTLSecondsAfterFinished",
    ),
    Case(
        row="RC-06",
        rule="ray-start-params-labels",
        kind="RayCluster",
        name="labels-param",
        config={
            "pulumi-kuberay:clusters": {
                "labels-param": {
                    "annotations": _suppress("ray-start-params-labels"),
                    "wait_for_ready": False,
                    "spec": {
                        **SMALL_CLUSTER,
                        "headGroupSpec": {"cpu": 1, "memory": "2Gi", "rayStartParams": {"labels": "team=ml"}},
                    },
                }
            }
        },
        event_reason="InvalidRayClusterSpec",
        message="rayStartParams['labels'] is not supported",
    ),
]


def docs_row(row: str) -> str:
    """The line of docs/operator-rules.md whose first cell names operator rule ``row``."""
    text = (REPO_ROOT / "docs" / "operator-rules.md").read_text()
    for line in text.splitlines():
        first = line.split("|")[1] if line.startswith("|") else ""
        if re.search(rf"\b{re.escape(row)}\b", first):
            return line
    raise AssertionError(f"no row {row} in docs/operator-rules.md")


@pytest.mark.parametrize("case", CASES, ids=[c.row for c in CASES])
def test_suppressed_rule_passes_preview_and_the_operator_reacts_as_the_row_says(
    case: Case, make_stack: Any, namespace: str, local_cluster: LocalCluster
) -> None:
    assert f"`{case.rule}`" in docs_row(case.row)
    stack: ClusterStack = make_stack({"kuberay:environment": "dev", **case.config}, namespace=namespace)
    up = stack.up(policy="prod")
    assert up.returncode == 0, up.describe()

    def warning_event() -> dict[str, Any] | None:
        events = local_cluster.get_json(
            "-n",
            namespace,
            "events",
            "--field-selector",
            f"involvedObject.kind={case.kind},involvedObject.name={case.name},type=Warning",
        )["items"]
        return next((e for e in events if e["reason"] == case.event_reason), None)

    event = local_cluster.wait_for(warning_event, 90, f"a {case.event_reason} Warning Event on {case.kind}")
    assert case.message in event["message"], event["message"]
    live = local_cluster.get_json("-n", namespace, case.kind.lower(), case.name)
    if case.kind == "RayJob":
        status = live.get("status") or {}
        assert (status.get("jobDeploymentStatus"), status.get("reason")) == ("ValidationFailed", "ValidationFailed")
        assert case.message in status.get("message", ""), status
    else:  # the operator stops before creating anything
        pods = local_cluster.get_json("-n", namespace, "pods", "-l", f"ray.io/cluster={case.name}")["items"]
        assert pods == [], [p["metadata"]["name"] for p in pods]

    # Our catalogue on the live object, suppression removed: exactly the suppressed rule, critical.
    annotations = {
        k: v
        for k, v in live["metadata"].get("annotations", {}).items()
        if not k.startswith("suppress.pulumi-kuberay.io/")
    }
    unsuppressed = {**live, "metadata": {**live["metadata"], "annotations": annotations}}
    critical = {
        f.rule_id
        for f in rules.check(unsuppressed, kuberay_version=local_cluster.operator_version)
        if f.severity == "critical"
    }
    assert critical == {case.rule}, critical
    print(f"{case.row}: the operator's Event {case.event_reason}: {event['message']}")
