"""The ``pulumi.com/waitFor`` annotations the components put on the KubeRay custom resources.

Pure Python (no pulumi import) so the expressions can be tested against status snapshots without a cluster.

Without ``pulumi.com/waitFor`` the Kubernetes provider treats a custom resource as ready as soon as the API
server accepts it. The annotation (pulumi-kubernetes >= 4.18; RFC 9535 JSONPath since 4.24) takes
``condition=Type[=Status]``, ``jsonpath={expr}[=value]`` (no value: wait until the expression selects
something) or a JSON array of those, which are ANDed. An OR therefore has to live inside one JSONPath
filter. Constraints of the provider's parser that the expressions below respect: the expression is the text
up to the *first* ``}`` (so no ``}`` inside), and the annotation is split on ``=`` after protecting ``==``
(so no ``!=``, ``<=``, ``>=`` and no ``=`` in literals).

These annotations are the **fallback**: by default the components wait themselves (``_component_await``, rules in
``_verdict``), because the provider's rule cannot express what KubeRay writes. The provider's
``JSONPath.Satisfied`` (``provider/pkg/await/condition/jsonpath.go``) returns unmet while
``status.observedGeneration < metadata.generation``; its ``checkCondition`` (``condition/kubectl.go``) does the
same with the condition's own ``observedGeneration``; its ``ObjectObserver.Observe`` drops events of an older
generation. Known limits of this fallback, each a consequence of that rule:

* a RayCluster update that changes no status field (image, resources, rayStartParams, pod template) never
  satisfies the wait: ``InconsistentRayClusterStatus`` ignores observedGeneration, so the operator does not write
  it, and ``pulumi up`` times out although the object was updated;
* nothing fails early (a rejected spec, a head that cannot pull its image): the wait runs to its time-out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from ..kuberay import KUEUE_QUEUE_LABEL, RAYJOB_TERMINAL_DEPLOYMENT_STATUSES

__all__ = [
    "RAYCLUSTER_READY",
    "RAYCLUSTER_SUSPENDED",
    "RAYJOB_TERMINAL",
    "RAYSERVICE_READY",
    "RAYSERVICE_SUSPENDED",
    "TIMEOUT_ANNOTATION",
    "WAIT_FOR",
    "WAIT_FOR_ANNOTATION",
    "jsonpath_query",
    "rayjob_done_statuses",
    "timeout_hint",
    "wait_annotations",
    "wait_for",
    "waitfor_terms",
]

# The filters are applied to the root object (``$[?...]`` visits apiVersion, kind, metadata, spec and status) and
# test fields that only status has directly, so they name the status field they mean instead of matching any
# status value that happens to equal a word. What they get right: a RayService update waits for
# UpgradeInProgress and RollbackInProgress to be over and every active Serve app RUNNING (the first status of a
# new generation already has UpgradeInProgress True, calculateConditions); spec.suspend: true waits for
# Suspended; a RayJob also ends at Waiting in InteractiveMode and at Suspended when the user (not Kueue)
# suspended it.
WAIT_FOR_ANNOTATION: Final = "pulumi.com/waitFor"
TIMEOUT_ANNOTATION: Final = "pulumi.com/timeoutSeconds"

#: RayCluster: the head is ready. KubeRay >= 1.2 with the RayClusterStatusConditions gate (default on since
#: 1.3): condition HeadPodReady True. Objects without conditions (older operators, gate off): the deprecated
#: status.state == "ready" (set once all pods were ready, never reset, so it is only trusted when there are
#: no conditions).
RAYCLUSTER_READY: Final = (
    "jsonpath={$[?@.conditions[?@.type=='HeadPodReady' && @.status=='True'] || (!@.conditions && @.state=='ready')]}"
)

#: RayJob: finished, one way or the other (the component then reads the status to tell success from failure).
RAYJOB_TERMINAL: Final = (
    "jsonpath={$[?"
    + " || ".join(f"@.jobDeploymentStatus=='{value}'" for value in RAYJOB_TERMINAL_DEPLOYMENT_STATUSES)
    + "]}"
)

#: RayService: serving this generation. Ready True (numServeEndpoints > 0), no upgrade or rollback in progress
#: (the new cluster took the traffic), no active Serve app still deploying (a serveConfigV2 change is live).
#: Objects without conditions (older operators): the deprecated serviceStatus "Running".
RAYSERVICE_READY: Final = (  # text-block
    "jsonpath={$[?(@.conditions[?@.type=='Ready' && @.status=='True']"
    " && !@.conditions[?(@.type=='UpgradeInProgress' || @.type=='RollbackInProgress') && @.status=='True']"
    " && !@.activeServiceStatus.applicationStatuses[?@.status=='DEPLOYING' || @.status=='NOT_STARTED'"
    " || @.status=='DELETING'])"
    " || (!@.conditions && @.serviceStatus=='Running')]}"
)

#: RayCluster with spec.suspend true: all Pods deleted.
RAYCLUSTER_SUSPENDED: Final = (  # text-block
    "jsonpath={$[?@.conditions[?@.type=='RayClusterSuspended' && @.status=='True']"
    " || (!@.conditions && @.state=='suspended')]}"
)
#: RayService with spec.suspend true (v1.7): Suspended True.
RAYSERVICE_SUSPENDED: Final = "jsonpath={$[?@.conditions[?@.type=='Suspended' && @.status=='True']]}"

#: kind -> waitFor value. RayCronJob has nothing to wait for (its only status field is lastScheduleTime).
WAIT_FOR: Final[Mapping[str, str]] = {
    "RayCluster": RAYCLUSTER_READY,
    "RayJob": RAYJOB_TERMINAL,
    "RayService": RAYSERVICE_READY,
}



def rayjob_done_statuses(spec: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """jobDeploymentStatus values that end a RayJob wait for this spec: the terminal ones, Waiting in
    InteractiveMode (the user submits the job), Suspended when the user suspended it (Kueue resumes its own)."""
    done = list(RAYJOB_TERMINAL_DEPLOYMENT_STATUSES)
    if spec.get("submissionMode") == "InteractiveMode":
        done.append("Waiting")
    if spec.get("suspend") is True and KUEUE_QUEUE_LABEL not in (labels or {}):
        done.append("Suspended")
    return tuple(done)


def wait_for(kind: str, spec: Mapping[str, Any] | None = None, labels: Mapping[str, str] | None = None) -> str | None:
    """The waitFor value for an object of ``kind`` with this rendered ``spec`` (None: nothing to wait for)."""
    spec = spec or {}
    if kind == "RayJob":
        return (
            "jsonpath={$[?"
            + " || ".join(f"@.jobDeploymentStatus=='{value}'" for value in rayjob_done_statuses(spec, labels))
            + "]}"
        )
    if spec.get("suspend") is True and kind == "RayCluster":
        return RAYCLUSTER_SUSPENDED
    if spec.get("suspend") is True and kind == "RayService":
        return RAYSERVICE_SUSPENDED
    return WAIT_FOR.get(kind)


def wait_annotations(
    kind: str,
    *,
    timeout_seconds: int | None = None,
    spec: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The provider await annotations for a CR of ``kind`` ({} for kinds with nothing to wait for)."""
    expression = wait_for(kind, spec, labels)
    if expression is None:
        return {}
    out = {WAIT_FOR_ANNOTATION: expression}
    if timeout_seconds is not None:
        if timeout_seconds <= 0:
            raise ValueError(f"timeout_seconds must be positive, got {timeout_seconds}")
        out[TIMEOUT_ANNOTATION] = str(timeout_seconds)
    return out


def jsonpath_query(expression: str) -> tuple[str, str | None]:
    """Split a ``jsonpath={...}[=value]`` waitFor term the way the provider does: (RFC 9535 query, value).

    The query gets the ``$`` root the provider adds when it is missing. Raises ``ValueError`` on terms the
    provider would reject.
    """
    if not expression.startswith("jsonpath="):
        raise ValueError(f"not a jsonpath= term: {expression!r}")
    raw = expression.removeprefix("jsonpath=")
    placeholder = "\x00"
    parts = raw.replace("==", placeholder).split("=")
    if len(parts) > 2:
        raise ValueError(f"the provider would split {expression!r} into {len(parts)} parts on '='")
    path = parts[0].replace(placeholder, "==")
    value = parts[1].replace(placeholder, "==") if len(parts) == 2 else None
    start, end = path.find("{"), path.find("}")
    if start < 0 or end < start:
        raise ValueError(f"{path!r} should be wrapped in brackets {{ ... }}")
    if path[end + 1 :].strip():
        raise ValueError(f"{path!r} has text after the first '}}' (the provider stops there)")
    query = path[start + 1 : end].strip()
    return (query if query.startswith("$") else "$" + query), value


def waitfor_terms(annotation_value: str) -> list[str]:
    """The terms of a waitFor annotation value (a JSON array of strings, or one string)."""
    try:
        parsed = json.loads(annotation_value)
    except ValueError:
        return [annotation_value]
    if isinstance(parsed, list) and all(isinstance(term, str) for term in parsed):
        return list(parsed)
    return [annotation_value]


def timeout_hint(kind: str, name: str, namespace: str | None = None) -> str:
    """What to run when the provider's wait for this object times out (its error cannot carry a diagnosis)."""
    ns = f" -n {namespace}" if namespace else ""
    return (
        f"the {kind} did not reach its wait condition ({WAIT_FOR.get(kind, 'none')}); to see why, run: kubectl get {kind.lower()}{ns} {name} -o json | kuberay-explain -"
    )
