"""``pulumi up`` of an autoscaling RayCluster against the real operator, the policy pack in the same ``up``.

One test, because each step depends on the previous one's state: ``up`` (with the pack at prod levels) returns
only once the operator reports the head ready; the component's live ``status`` output and its ``diagnosis``
say ready and agree with ``kuberay-explain`` on the live object; the pack reports exactly the rule ids the
components warned about and blocks nothing; ``destroy`` leaves no Ray object, Pod or Service (garbage
collection by kube-controller-manager through the owner references the operator sets).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from pulumi_kuberay import diagnose

from .conftest import ClusterStack, LocalCluster, TransitionRecorder, explain

IMAGE = "rayproject/ray:2.52.0"

AUTOSCALING_CLUSTER: dict[str, Any] = {
    "spec": {
        "rayVersion": "2.52.0",
        "image": IMAGE,
        "enableInTreeAutoscaling": True,
        "autoscalerOptions": {"version": "v2", "idleTimeoutSeconds": 60},
        "headGroupSpec": {"cpu": 1, "memory": "2Gi", "rayStartParams": {"num-cpus": "0"}},
        "workerGroupSpecs": [
            {"groupName": "cpu", "cpu": 1, "memory": "2Gi", "minReplicas": 1, "maxReplicas": 3},
        ],
    },
}

#: A component warning: "[rule-id] high at path: message (fix: ...)" (format_finding).
_COMPONENT_FINDING = re.compile(r"\[(?P<rule>[a-z0-9-]+)\] (?:low|medium|high|critical) at ")
#: A pack finding: "- [advisory] [severity: high]  rule-id  (type: name)".
_PACK_FINDING = re.compile(r"- \[(?P<level>mandatory|advisory)\] \[severity: \w+\]\s+(?P<rule>[a-z0-9-]+)\s")


def resource_outputs(stack: ClusterStack, type_: str) -> list[dict[str, Any]]:
    """The recorded outputs of every resource of ``type_`` in the stack's state."""
    run = stack.pulumi("stack", "export", "--show-secrets")
    assert run.returncode == 0, run.describe()
    resources = json.loads(run.stdout)["deployment"].get("resources") or []
    return [r.get("outputs") or {} for r in resources if r["type"] == type_]


def left_in(cluster: LocalCluster, namespace: str) -> list[str]:
    """Ray objects, Pods and Services still in ``namespace`` (``kind/name``)."""
    objs = cluster.get_json("-n", namespace, "rayclusters,rayjobs,rayservices,pods,services")["items"]
    return [f"{o['kind']}/{o['metadata']['name']}" for o in objs]


def test_autoscaling_cluster_up_waits_for_the_operator_agrees_with_explain_and_destroys_clean(
    make_stack: Any, namespace: str, local_cluster: LocalCluster, transitions: TransitionRecorder
) -> None:
    stack: ClusterStack = make_stack(
        {"kuberay:environment": "staging", "pulumi-kuberay:clusters": {"auto": AUTOSCALING_CLUSTER}},
        namespace=namespace,
    )
    started = time.monotonic()
    up = stack.up(policy="prod")
    took = time.monotonic() - started
    assert up.returncode == 0, up.describe()

    # 1. up returned only after the operator reported the head ready: the live object says so right now.
    live = local_cluster.get_json("-n", namespace, "raycluster", "auto")
    conditions = {c["type"]: c for c in live["status"].get("conditions") or []}
    assert conditions["HeadPodReady"]["status"] == "True", live["status"]
    assert live["metadata"]["annotations"]["pulumi.com/skipAwait"] == "true"  # the component waits itself
    # The autoscaler owns replicas: the component reads the live object (none yet) and sends each group's
    # minReplicas, where the operator starts it (desiredWorkerReplicas = minReplicas = 1), with a forced apply.
    assert live["spec"]["workerGroupSpecs"][0]["replicas"] == 1, live["spec"]["workerGroupSpecs"][0]
    assert live["metadata"]["annotations"]["pulumi.com/patchForce"] == "true"
    assert live["status"]["desiredWorkerReplicas"] == 1 and live["status"]["readyWorkerReplicas"] == 1
    head_ready_seen = [t for t, s in transitions.of("RayCluster", namespace, "auto") if "HeadPodReady=True" in s]
    assert head_ready_seen, transitions.of("RayCluster", namespace, "auto")
    print(
        f"pulumi up of an autoscaling RayCluster: {took:.1f}s; HeadPodReady=True {head_ready_seen[0]:.1f}s "
        "after the object appeared"
    )

    # 2. The component's live outputs: status (the one its own wait ended on; the custom resource is recorded
    # as the provider returned it, which skips its await) and diagnosis.
    (component,) = resource_outputs(stack, "kuberay:index:RayCluster")
    recorded_status = component["status"]
    recorded = {c["type"]: c["status"] for c in recorded_status.get("conditions") or []}
    assert recorded.get("HeadPodReady") == "True", recorded_status
    recorded_diagnosis = diagnose({**live, "status": recorded_status})
    # The component's one-line diagnosis is diagnose()'s summary of the status it recorded (numbers arrive as
    # floats from the SDK: that once dropped the worker counts), and the stack output carries it.
    assert component["diagnosis"] == recorded_diagnosis.summary, (component["diagnosis"], recorded_status)
    assert stack.outputs()["clusters"]["auto"]["diagnosis"] == component["diagnosis"]
    # The wait ends at HeadPodReady (by design: workers may take long to get nodes), so the recorded status
    # is ready, or still provisioning workers with the head ready, as kwok happened to be quick or not.
    assert recorded_diagnosis.phase == "healthy" or (
        recorded_diagnosis.phase == "progressing" and recorded_diagnosis.summary.startswith("head pod ready")
    ), recorded_diagnosis.line()
    print(f"diagnosis output after up: {recorded_diagnosis.phase}: {recorded_diagnosis.summary}")

    # 3. Once the workers are ready too, kuberay-explain on the live object (what a user pipes from kubectl)
    # agrees with diagnose(): healthy.
    def healthy() -> dict[str, Any] | None:
        obj = local_cluster.get_json("-n", namespace, "raycluster", "auto")
        return obj if diagnose(obj).phase == "healthy" else None

    live = local_cluster.wait_for(healthy, 60, "the RayCluster to be healthy")
    live_diagnosis = diagnose(live)
    explained = explain(live)
    assert explained.returncode == 0, explained.stdout + explained.stderr
    (entry,) = json.loads(explained.stdout)
    assert entry["phase"] == "healthy" and entry["summary"] == live_diagnosis.summary

    # 4. The policy pack ran in the same up: it blocked nothing and reported what the components reported.
    assert "Policies:" in up.output or "kuberay-policies" in up.output, up.describe()
    pack = {(m["rule"], m["level"]) for m in _PACK_FINDING.finditer(up.output)}
    assert not {rule for rule, level in pack if level == "mandatory"}, pack
    components = {m["rule"] for m in _COMPONENT_FINDING.finditer(up.output)}
    assert {rule for rule, _ in pack} == components, (pack, components)

    # 5. destroy: no Ray object, Pod or Service is left once the garbage collector has run.
    destroy = stack.destroy()
    assert destroy.returncode == 0, destroy.describe()
    local_cluster.wait_for(
        lambda: not left_in(local_cluster, namespace),
        120,
        f"garbage collection in {namespace} (left: {left_in(local_cluster, namespace)})",
    )
