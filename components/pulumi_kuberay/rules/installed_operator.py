"""Rules about the operator that runs the Ray objects (as the kuberay-operator chart installs it).

The operator setup (version, gates, watched namespaces, batch scheduler, replicas, limits, image, CRD version)
reaches a check typed, as ``ctx.operator`` (:class:`~pulumi_kuberay.operator.setup.OperatorSetup`): set by
``RayCluster(..., operator=op)`` and friends, by the pack's ``operator-objects`` stack policy (from the operator
Deployment of the stack) and by ``kuberay-lint --operator-values``. Without it these rules are silent.

Per Ray object (declared in the catalogue):

* ``operator-namespace-unwatched`` (critical): the object's namespace is not watched by the operator.
* ``operator-batch-scheduler-disabled`` (high): the object names a batch scheduler the operator does not run.

About the operator itself (``scope="setup"``, run by :func:`pulumi_kuberay.rules.check_setup`; the component,
the pack and lint report them on the operator):

* ``operator-not-highly-available``: in prod, one replica or leader election off; anywhere, more than one
  replica without leader election (two reconcilers race).
* ``operator-resource-limits-missing``: no cpu/memory limits on the operator container.
* ``operator-image-tag-mismatch``: the image tag is not the chart version (the flags the chart renders are
  for that version).

* ``operator-crds-older-than-fields`` (critical): a field the installed CRDs (``installed_crds`` with
  ``crds: leave``) do not know yet is pruned silently (the catalogue's field table, at the CRD version).

The operator's feature gates need no rule of their own: the target's gates come from the operator, so
``feature-gate-disabled`` (RayCronJob included) judges against what the operator really runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.names import GANG_SCHEDULING_LABEL
from pulumi_kuberay.kuberay.paths import as_dict, as_str, is_unknown, pod_templates
from pulumi_kuberay.operator.setup import OperatorSetup

from ._engine import KINDS, Context, Violation, declare, parse_kuberay_version, registered
from ._examples import example_job
from ._fixed import REMOVE, patch

JsonDict = dict[str, Any]

#: Ray-object labels that hand the object to a batch scheduler integration (``batchscheduler`` packages).
SCHEDULER_LABELS: dict[str, str] = {
    "volcano.sh/queue-name": "volcano",
    "yunikorn.apache.org/queue": "yunikorn",
    "yunikorn.apache.org/app-id": "yunikorn",
    "kai.scheduler/queue": "kai-scheduler",
    "scheduling.x-k8s.io/pod-group": "scheduler-plugins",
}
#: Pod-template ``schedulerName`` values of the integrations (scheduler-plugins names its own scheduler).
SCHEDULER_NAMES: dict[str, str] = {
    "volcano": "volcano",
    "yunikorn": "yunikorn",
    "kai-scheduler": "kai-scheduler",
    "scheduler-plugins-scheduler": "scheduler-plugins",
}
GANG_LABEL = GANG_SCHEDULING_LABEL


def _source(setup: OperatorSetup) -> str:
    return setup.source or "the operator"


# --------------------------------------------------------------------------------------------------
# Per Ray object.


def _check_unwatched(doc: JsonDict, ctx: Context) -> Iterator[Violation]:
    setup = ctx.operator
    watched = setup.watch_namespaces if setup is not None else None
    namespace = as_str(as_dict(doc.get("metadata")).get("namespace"))
    if setup is None or watched is None or namespace is None:
        return  # every namespace watched, or the namespace is the provider's default (not known here)
    if namespace not in watched:
        yield Violation(
            f"{doc.get('kind')} in namespace {namespace!r}, but {_source(setup)} watches only {', '.join(map(repr, watched))}: the object is accepted and never reconciled",
            "metadata.namespace",
        )


def _named_schedulers(doc: JsonDict) -> Iterator[tuple[str, str | None]]:
    """(path, scheduler or None for "some gang scheduler") named by the object."""
    labels = as_dict(as_dict(doc.get("metadata")).get("labels"))
    for key, scheduler in SCHEDULER_LABELS.items():
        if key in labels:
            yield f"metadata.labels[{key!r}]", scheduler
    if str(labels.get(GANG_LABEL, "")).lower() == "true":
        yield f"metadata.labels[{GANG_LABEL!r}]", None
    for template in pod_templates(doc):
        name = as_str(as_dict(template.template.get("spec")).get("schedulerName"))
        if name in SCHEDULER_NAMES:
            yield f"{template.path}.spec.schedulerName", SCHEDULER_NAMES[name]


def _check_scheduler(doc: JsonDict, ctx: Context) -> Iterator[Violation]:
    setup = ctx.operator
    if setup is None:
        return
    running = setup.batch_scheduler
    for path, scheduler in _named_schedulers(doc):
        if scheduler is None and not running:
            yield Violation(
                f"gang scheduling is requested but {_source(setup)} runs no batch scheduler integration: no PodGroup is created and the pods are scheduled one by one",
                path,
            )
        elif scheduler is not None and scheduler != running:
            now = f"runs {running!r}" if running else "runs none"
            yield Violation(
                f"the object is meant for the {scheduler} batch scheduler but {_source(setup)} {now}: no {scheduler} PodGroup/queue is set up for it",
                path,
            )


def _setup(**changes: Any) -> OperatorSetup:
    """The examples' operator: highly available, with limits, at 1.7.0 (``changes`` as OperatorSetup fields)."""
    base = OperatorSetup(
        replicas=2,
        leader_election=True,
        resource_limits={"cpu": "1", "memory": "1Gi"},
        source="KubeRayOperator 'kuberay'",
    )
    return dataclasses.replace(base, **changes)


def _in_namespace(doc: JsonDict, namespace: str) -> JsonDict:
    doc["metadata"]["namespace"] = namespace
    return doc


def _labelled(doc: JsonDict, key: str, value: str) -> JsonDict:
    doc["metadata"].setdefault("labels", {})[key] = value
    return doc


declare(
    id="operator-namespace-unwatched",
    title="Ray object in a namespace the operator does not watch",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="An operator installed with watchNamespace (or singleNamespaceInstall) only sees those namespaces: an object elsewhere is accepted by the API server and then ignored forever, with no event and no status.",
    proof="the operator's watched namespaces, as its setup says (given, or read from its Deployment), exclude the object's namespace; not judged where the setup is not known",
    fix="Create the object in a watched namespace, or add its namespace to the operator's watch_namespaces (chart value watchNamespace).",
    check=_check_unwatched,
    compliant=_in_namespace(example_job(), "ray"),
    violating=_in_namespace(example_job(), "team-a"),
    violating_path="metadata.namespace",
    context={"operator": _setup(watch_namespaces=("ray",))},
    fixed=patch({"metadata.namespace": "ray"}),
)

declare(
    id="operator-batch-scheduler-disabled",
    title="Batch scheduler named by a Ray object but not enabled on the operator",
    severity="high",
    category="correctness",
    kinds=KINDS,
    rationale="KubeRay creates the PodGroup / queue objects of volcano, yunikorn, kai-scheduler or scheduler-plugins only when the operator runs with that --batch-scheduler; otherwise the queue label or schedulerName is ignored (no gang scheduling) or the pods wait for a PodGroup that never comes.",
    fix="Enable the scheduler on the operator (batch_scheduler=..., chart value batchScheduler.name) or drop the scheduler labels / schedulerName from the object.",
    check=_check_scheduler,
    compliant=_labelled(example_job(), "volcano.sh/queue-name", "batch"),
    violating=_labelled(example_job(), "yunikorn.apache.org/queue", "root.batch"),
    violating_path="metadata.labels['yunikorn.apache.org/queue']",
    context={"operator": _setup(batch_scheduler="volcano")},
    fixed=patch(
        {
            'metadata.labels["yunikorn.apache.org/queue"]': REMOVE,
            'metadata.labels["volcano.sh/queue-name"]': "batch",
        }
    ),
)


# --------------------------------------------------------------------------------------------------
# The operator itself.


def _ha(setup: OperatorSetup, ctx: Context) -> Iterator[Violation]:
    replicas, leader = setup.replicas, setup.leader_election
    if replicas > 1 and not leader:
        yield Violation(
            f"{replicas} replicas with leader election off: every replica reconciles the same objects and their updates race",
            "leaderElectionEnabled",
            severity="critical",
        )
        return
    if ctx.environment != "prod":
        return
    if replicas < 2:
        yield Violation(
            f"{replicas} operator replica in prod: while it restarts or is rescheduled no Ray object is reconciled (no scaling, no recovery of failed pods)",
            "replicas",
        )
    if not leader:
        yield Violation(
            "leader election is off in prod: a second replica (or an overlapping rollout) would reconcile alongside the first",
            "leaderElectionEnabled",
        )


def _limits(setup: OperatorSetup, ctx: Context) -> Iterator[Violation]:
    limits = setup.resource_limits
    missing = [r for r in ("cpu", "memory") if is_unknown(limits.get(r))]
    if missing:
        yield Violation(
            f"the operator container has no {' or '.join(missing)} limit: a reconcile storm over many Ray pods can take the node's memory (the chart's default is 512Mi)",
            "resources.limits",
        )


def _image_tag(setup: OperatorSetup, ctx: Context) -> Iterator[Violation]:
    image = setup.image
    _, sep, tag = image.rpartition(":")
    version = setup.version
    if not sep or "/" in tag or not version:
        return
    if tag.lstrip("v") != version.lstrip("v"):
        yield Violation(
            f"operator image {image} but chart {version}: the chart renders RBAC, flags and CRDs for {version}, the binary is {tag}",
            "image.tag",
        )


declare(
    id="operator-not-highly-available",
    scope="setup",
    title="Operator without a standby in prod, or replicas without leader election",
    severity="high",
    category="reliability",
    rationale="One operator replica means no reconciliation while it restarts; several replicas need leader election, otherwise they all reconcile and overwrite each other.",
    fix="In prod run replicas: 2 with leaderElectionEnabled: true (the chart's default for leader election).",
    check=_ha,
    compliant=_setup(),
    violating=_setup(replicas=1, leader_election=False),
    violating_path="replicas",
    fixed=_setup(replicas=2, leader_election=True),
    context={"environment": "prod"},
)

declare(
    id="operator-resource-limits-missing",
    scope="setup",
    title="Operator container without cpu/memory limits",
    severity="medium",
    category="reliability",
    rationale="The operator's memory grows with the number of Ray pods it manages; without limits it competes with everything else on its node.",
    fix="Set resources.limits.cpu and .memory (about 500 MB per 500 Ray pods).",
    check=_limits,
    compliant=_setup(),
    violating=_setup(resource_limits={}),
    violating_path="resources.limits",
    fixed=_setup(resource_limits={"cpu": "500m", "memory": "512Mi"}),
)

declare(
    id="operator-image-tag-mismatch",
    scope="setup",
    title="Operator image tag differs from the chart version",
    severity="high",
    category="correctness",
    rationale="The chart's RBAC rules, flags and the CRDs applied with it belong to its version; another operator binary may need permissions or fields they do not give.",
    fix="Leave image.tag at the chart's default (v<version>) and change version instead.",
    check=_image_tag,
    compliant=_setup(),
    violating=_setup(image="quay.io/kuberay/operator:v1.6.1"),
    violating_path="image.tag",
    fixed=_setup(),  # image.tag left at the chart's default
)


# --------------------------------------------------------------------------------------------------
# Installed CRDs older than the objects' fields.

CRD_AGE_RULE_ID = "operator-crds-older-than-fields"
#: The catalogue's field/version table rule, run again at the CRD version (one table, one place).
FIELD_RULE_ID = "field-newer-than-target"


def _check_crd_age(doc: JsonDict, ctx: Context) -> Iterator[Violation]:
    setup = ctx.operator
    crd = setup.crd_version if setup is not None else None
    if setup is None or crd is None:
        return
    try:
        crd_version = parse_kuberay_version(crd)
    except ValueError:
        return
    if crd_version >= ctx.kuberay_version:
        return  # CRDs as new as the operator: field-newer-than-target already judged the fields
    field_rule = next((r for r in registered() if r.id == FIELD_RULE_ID), None)
    if field_rule is None:  # pragma: no cover - versions is part of the catalogue
        return
    for violation in field_rule.check(doc, dataclasses.replace(ctx, kuberay_version=crd_version)):
        yield Violation(
            f"the installed CRDs are KubeRay {crd} (the operator is {setup.version}): {violation.message}",
            violation.path,
        )


declare(
    id=CRD_AGE_RULE_ID,
    title="Installed CRDs older than the fields a Ray object uses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="With crds: leave the CRDs are whatever is installed (installed_crds), possibly older than the operator: the API server prunes the fields those CRDs do not know, silently, before the operator sees the object.",
    proof="the installed CRDs, as read, do not know the field, so the API server prunes it; judged only with crds: leave and the installed CRDs known",
    fix="Upgrade the CRDs (crds: manage on the operator, or apply the CRDs of the operator's version) or remove the field.",
    check=_check_crd_age,
    compliant=example_job(),
    violating=example_job(preRunningDeadlineSeconds=600),
    violating_path="spec.preRunningDeadlineSeconds",
    fixed=patch({"spec.preRunningDeadlineSeconds": REMOVE}),
    context={"operator": _setup(crd_version="1.5.0")},
)


__all__ = ["CRD_AGE_RULE_ID"]
