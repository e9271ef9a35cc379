"""RayCluster waits against the real operator: each ``pulumi up`` ends as it should, well inside its time-out.

Create, an image-only update (the operator does not rewrite the status: ``InconsistentRayClusterStatus``
ignores observedGeneration, so the provider's waitFor would hang here), a replica-bounds update (status
rewritten with the new generation), suspend and resume, in one stack because each step builds on the
previous one. Then an invalid object (an event only: ``ValidateRayClusterMetadata``) and a head whose image
cannot be pulled (kwok runs no kubelet: the head Pod is kept unschedulable so kwok leaves it alone, and the
test writes the status a kubelet writes for an image it cannot pull) must fail fast with the diagnosis.
"""

from __future__ import annotations

import copy
import json
import threading
from typing import Any

from ._waits import PROGRAM, SMALL_CLUSTER, TIMEOUT, conditions, config, timed_up
from .conftest import ClusterStack, LocalCluster


def _objects(spec: dict[str, Any], namespace: str, **extra: Any) -> dict[str, Any]:
    return config({"c": {"kind": "RayCluster", "spec": spec, "timeout_seconds": TIMEOUT, **extra}}, namespace)


def test_create_update_suspend_resume(make_stack: Any, namespace: str, local_cluster: LocalCluster) -> None:
    spec = copy.deepcopy(SMALL_CLUSTER)
    stack: ClusterStack = make_stack(_objects(spec, namespace), namespace=namespace, program=PROGRAM)

    up, took = timed_up(stack, "RayCluster create")
    assert up.returncode == 0, up.describe()
    live = local_cluster.get_json("-n", namespace, "raycluster", "c")
    assert conditions(live)["HeadPodReady"]["status"] == "True", live["status"]
    assert live["metadata"]["annotations"].get("pulumi.com/skipAwait") == "true"  # the component waited
    assert took < TIMEOUT / 2

    spec["image"] = "rayproject/ray:2.52.0-py311"
    stack.set_config(_objects(spec, namespace))
    up, took = timed_up(stack, "RayCluster image-only update")
    assert up.returncode == 0, up.describe()
    assert took < TIMEOUT / 4, "an image-only update must not wait for a status the operator never writes"
    live = local_cluster.get_json("-n", namespace, "raycluster", "c")
    generation, observed = live["metadata"]["generation"], live["status"].get("observedGeneration")
    print(f"[waits] after the image-only update: generation {generation}, observedGeneration {observed}")
    assert observed is not None and observed <= generation

    spec["workerGroupSpecs"][0]["maxReplicas"] = 3
    stack.set_config(_objects(spec, namespace))
    up, took = timed_up(stack, "RayCluster replica-bounds update")
    assert up.returncode == 0, up.describe()
    live = local_cluster.get_json("-n", namespace, "raycluster", "c")
    assert live["status"]["observedGeneration"] == live["metadata"]["generation"]
    assert live["status"]["maxWorkerReplicas"] == 3
    assert took < TIMEOUT / 4

    spec["suspend"] = True
    stack.set_config(_objects(spec, namespace))
    up, took = timed_up(stack, "RayCluster suspend")
    assert up.returncode == 0, up.describe()
    live = local_cluster.get_json("-n", namespace, "raycluster", "c")
    assert conditions(live)["RayClusterSuspended"]["status"] == "True", live["status"]
    assert took < TIMEOUT / 4

    spec["suspend"] = False
    stack.set_config(_objects(spec, namespace))
    up, took = timed_up(stack, "RayCluster resume")
    assert up.returncode == 0, up.describe()
    live = local_cluster.get_json("-n", namespace, "raycluster", "c")
    assert conditions(live)["HeadPodReady"]["status"] == "True", live["status"]
    assert took < TIMEOUT / 2

    up, took = timed_up(stack, "RayCluster no-change up")
    assert up.returncode == 0, up.describe()


def test_invalid_object_fails_fast(make_stack: Any, namespace: str) -> None:
    """A name the API server accepts and the operator refuses (longer than KubeRay's limit): the operator
    only emits InvalidRayClusterMetadata (the rule that would catch it at preview is suppressed here)."""
    name = "c" + "x" * 58
    objects = {
        name: {
            "kind": "RayCluster",
            "spec": SMALL_CLUSTER,
            "timeout_seconds": TIMEOUT,
            "annotations": {
                "suppress.pulumi-kuberay.io/cluster-name-invalid": "testing the operator's answer",
                # the dry run of the head Service (a name over 63 characters) would stop the preview too
                "suppress.pulumi-kuberay.io/preflight-admission-refuses-child": "testing the operator's answer",
            },
        }
    }
    stack: ClusterStack = make_stack(config(objects, namespace), namespace=namespace, program=PROGRAM)
    up, took = timed_up(stack, "RayCluster invalid (operator rejects it)")
    assert up.returncode != 0, up.describe()
    assert "InvalidRayClusterMetadata" in up.output, up.describe()
    assert took < TIMEOUT / 4, up.describe()


KUBELET_CANNOT_PULL: dict[str, Any] = {
    "status": {
        "conditions": [
            {"type": "PodScheduled", "status": "True"},
            {"type": "Initialized", "status": "True"},
            {
                "type": "Ready",
                "status": "False",
                "reason": "ContainersNotReady",
                "message": "containers with unready status: [ray-head]",
            },
            {"type": "ContainersReady", "status": "False", "reason": "ContainersNotReady"},
        ],
    }
}


def test_head_image_cannot_be_pulled_fails_fast(make_stack: Any, namespace: str, local_cluster: LocalCluster) -> None:
    spec = copy.deepcopy(SMALL_CLUSTER)
    spec["image"] = "registry.invalid/ray:does-not-exist"
    # No node has this label: the scheduler keeps the head Pending and kwok never fakes it ready.
    spec["headGroupSpec"] = {**spec["headGroupSpec"], "nodeSelector": {"waits.pulumi-kuberay.io/never": "true"}}
    # ...which the preflight sees too (no node takes the head): silenced, the test wants the Pod Pending.
    never = {"suppress.pulumi-kuberay.io/preflight-group-never-placed": "the test keeps the head Pending on purpose"}
    stack: ClusterStack = make_stack(_objects(spec, namespace, annotations=never), namespace=namespace, program=PROGRAM)
    result: dict[str, Any] = {}
    runner = threading.Thread(
        target=lambda: result.update(
            zip(("run", "took"), timed_up(stack, "RayCluster head image cannot be pulled"), strict=True)
        )
    )
    runner.start()

    def head_pod() -> dict[str, Any] | None:
        pods = local_cluster.get_json("-n", namespace, "pods", "-l", "ray.io/cluster=c,ray.io/node-type=head")
        return pods["items"][0] if pods["items"] else None

    pod = local_cluster.wait_for(head_pod, 120, "the head Pod")
    container = pod["spec"]["containers"][0]
    patch = copy.deepcopy(KUBELET_CANNOT_PULL)
    patch["status"]["containerStatuses"] = [
        {
            "name": container["name"],
            "image": container["image"],
            "imageID": "",
            "ready": False,
            "restartCount": 0,
            "started": False,
            "state": {
                "waiting": {
                    "reason": "ImagePullBackOff",
                    "message": f'Back-off pulling image "{container["image"]}"',
                }
            },
        }
    ]
    local_cluster.kubectl(
        "-n",
        namespace,
        "patch",
        "pod",
        pod["metadata"]["name"],
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps(patch),
    )
    runner.join(timeout=TIMEOUT + 120)
    run, took = result["run"], result["took"]
    assert run.returncode != 0, run.describe()
    assert "ImagePullBackOff" in run.output, run.describe()
    assert took < TIMEOUT / 2, run.describe()
