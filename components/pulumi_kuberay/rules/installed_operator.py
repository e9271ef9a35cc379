"""Rules about the operator that runs the Ray objects (reference 0.1 and the kuberay-operator chart).

The operator setup (version, gates, watched namespaces, batch scheduler, replicas, limits, image, CRD version)
reaches a check in ``ctx.options["operator"]`` (``pulumi_kuberay.operator_setup.OperatorSetup.to_options()``): set
by ``RayCluster(..., operator=op)`` and friends, by the pack's ``kuberay-operator`` stack policy (from the
operator Deployment of the stack) and by ``kuberay-lint --operator-values``. Without it these rules are silent.

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
from collections.abc import Iterator, Mapping
from typing import Any

from ._engine import KINDS, Context, Violation, declare, parse_kuberay_version, registered
from ._examples import example_job
from ._paths import as_dict, as_str, is_unknown, pod_templates

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
GANG_LABEL = "ray.io/gang-scheduling-enabled"


def operator_of(ctx: Context) -> Mapping[str, Any] | None:
    """The operator setup carried by the target (None: the object's operator is not known)."""
    setup = ctx.options.get("operator")
    return setup if isinstance(setup, Mapping) else None


def _source(setup: Mapping[str, Any]) -> str:
    return str(setup.get("source") or "the operator")


# --------------------------------------------------------------------------------------------------
# Per Ray object.


def _check_unwatched(doc: JsonDict, ctx: Context) -> Iterator[Violation]:
    setup = operator_of(ctx)
    watched = setup.get("watchNamespaces") if setup is not None else None
    namespace = as_str(as_dict(doc.get("metadata")).get("namespace"))
    if setup is None or not isinstance(watched, list) or namespace is None:
        return  # every namespace watched, or the namespace is the provider's default (not known here)
    if namespace not in watched:
        yield Violation(
            f"{doc.get('kind')} in namespace {namespace!r}, but {_source(setup)} watches only "
            f"{', '.join(map(repr, watched))}: the object is accepted and never reconciled",
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
    setup = operator_of(ctx)
    if setup is None:
        return
    running = str(setup.get("batchScheduler") or "")
    for path, scheduler in _named_schedulers(doc):
        if scheduler is None and not running:
            yield Violation(
                f"gang scheduling is requested but {_source(setup)} runs no batch scheduler integration: no "
                "PodGroup is created and the pods are scheduled one by one",
                path,
            )
        elif scheduler is not None and scheduler != running:
            now = f"runs {running!r}" if running else "runs none"
            yield Violation(
                f"the object is meant for the {scheduler} batch scheduler but {_source(setup)} {now}: no "
                f"{scheduler} PodGroup/queue is set up for it",
                path,
            )


def _setup(**changes: Any) -> JsonDict:
    setup: JsonDict = {
        "version": "1.7.0",
        "namespace": "kuberay-system",
        "featureGates": {},
        "watchNamespaces": None,
        "batchScheduler": "",
        "replicas": 2,
        "leaderElection": True,
        "resourceLimits": {"cpu": "1", "memory": "1Gi"},
        "image": "quay.io/kuberay/operator:v1.7.0",
        "crdVersion": "1.7.0",
        "source": "KubeRayOperator 'kuberay'",
    }
    setup.update(changes)
    return setup


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
    rationale="An operator installed with watchNamespace (or singleNamespaceInstall) only sees those "
    "namespaces: an object elsewhere is accepted by the API server and then ignored forever, with no event and "
    "no status.",
    fix="Create the object in a watched namespace, or add its namespace to the operator's watch_namespaces "
    "(chart value watchNamespace).",
    check=_check_unwatched,
    compliant=_in_namespace(example_job(), "ray"),
    violating=_in_namespace(example_job(), "team-a"),
    violating_path="metadata.namespace",
    context={"options": {"operator": _setup(watchNamespaces=["ray"])}},
)

declare(
    id="operator-batch-scheduler-disabled",
    title="Batch scheduler named by a Ray object but not enabled on the operator",
    severity="high",
    category="correctness",
    kinds=KINDS,
    rationale="KubeRay creates the PodGroup / queue objects of volcano, yunikorn, kai-scheduler or "
    "scheduler-plugins only when the operator runs with that --batch-scheduler; otherwise the queue label or "
    "schedulerName is ignored (no gang scheduling) or the pods wait for a PodGroup that never comes.",
    fix="Enable the scheduler on the operator (batch_scheduler=..., chart value batchScheduler.name) or drop "
    "the scheduler labels / schedulerName from the object.",
    check=_check_scheduler,
    compliant=_labelled(example_job(), "volcano.sh/queue-name", "batch"),
    violating=_labelled(example_job(), "yunikorn.apache.org/queue", "root.batch"),
    violating_path="metadata.labels['yunikorn.apache.org/queue']",
    context={"options": {"operator": _setup(batchScheduler="volcano")}},
)


# --------------------------------------------------------------------------------------------------
# The operator itself.


def _ha(setup: Mapping[str, Any], ctx: Context) -> Iterator[Violation]:
    replicas = setup.get("replicas")
    leader = setup.get("leaderElection", True)
    if isinstance(replicas, int) and replicas > 1 and leader is False:
        yield Violation(
            f"{replicas} replicas with leader election off: every replica reconciles the same objects and their "
            "updates race",
            "leaderElectionEnabled",
            severity="critical",
        )
        return
    if ctx.environment != "prod":
        return
    if isinstance(replicas, int) and replicas < 2:
        yield Violation(
            f"{replicas} operator replica in prod: while it restarts or is rescheduled no Ray object is reconciled "
            "(no scaling, no recovery of failed pods)",
            "replicas",
        )
    if leader is False:
        yield Violation(
            "leader election is off in prod: a second replica (or an overlapping rollout) would reconcile alongside "
            "the first",
            "leaderElectionEnabled",
        )


def _limits(setup: Mapping[str, Any], ctx: Context) -> Iterator[Violation]:
    limits = as_dict(setup.get("resourceLimits"))
    missing = [r for r in ("cpu", "memory") if is_unknown(limits.get(r))]
    if missing:
        yield Violation(
            f"the operator container has no {' or '.join(missing)} limit: a reconcile storm over many Ray pods can "
            "take the node's memory (the chart's default is 512Mi)",
            "resources.limits",
        )


def _image_tag(setup: Mapping[str, Any], ctx: Context) -> Iterator[Violation]:
    image = str(setup.get("image") or "")
    _, sep, tag = image.rpartition(":")
    version = str(setup.get("version") or "")
    if not sep or "/" in tag or not version:
        return
    if tag.lstrip("v") != version.lstrip("v"):
        yield Violation(
            f"operator image {image} but chart {version}: the chart renders RBAC, flags and CRDs for {version}, the "
            f"binary is {tag}",
            "image.tag",
        )


declare(
    id="operator-not-highly-available",
    scope="setup",
    title="Operator without a standby in prod, or replicas without leader election",
    severity="high",
    category="reliability",
    rationale="One operator replica means no reconciliation while it restarts; several replicas need leader "
    "election, otherwise they all reconcile and overwrite each other.",
    fix="In prod run replicas: 2 with leaderElectionEnabled: true (the chart's default for leader election).",
    check=_ha,
    compliant=_setup(),
    violating=_setup(replicas=1, leaderElection=False),
    violating_path="replicas",
    context={"environment": "prod"},
)

declare(
    id="operator-resource-limits-missing",
    scope="setup",
    title="Operator container without cpu/memory limits",
    severity="medium",
    category="reliability",
    rationale="The operator's memory grows with the number of Ray pods it manages; without limits it "
    "competes with everything else on its node.",
    fix="Set resources.limits.cpu and .memory (about 500 MB per 500 Ray pods).",
    check=_limits,
    compliant=_setup(),
    violating=_setup(resourceLimits={}),
    violating_path="resources.limits",
)

declare(
    id="operator-image-tag-mismatch",
    scope="setup",
    title="Operator image tag differs from the chart version",
    severity="high",
    category="correctness",
    rationale="The chart's RBAC rules, flags and the CRDs applied with it belong to its version; another "
    "operator binary may need permissions or fields they do not give.",
    fix="Leave image.tag at the chart's default (v<version>) and change version instead.",
    check=_image_tag,
    compliant=_setup(),
    violating=_setup(image="quay.io/kuberay/operator:v1.6.1"),
    violating_path="image.tag",
)


# --------------------------------------------------------------------------------------------------
# Installed CRDs older than the objects' fields.

CRD_AGE_RULE_ID = "operator-crds-older-than-fields"
#: The catalogue's field/version table rule, run again at the CRD version (one table, one place).
FIELD_RULE_ID = "field-newer-than-target"


def _check_crd_age(doc: JsonDict, ctx: Context) -> Iterator[Violation]:
    setup = operator_of(ctx)
    crd = setup.get("crdVersion") if setup is not None else None
    if setup is None or not isinstance(crd, str):
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
            f"the installed CRDs are KubeRay {crd} (the operator is {setup.get('version')}): {violation.message}",
            violation.path,
        )


declare(
    id=CRD_AGE_RULE_ID,
    title="Installed CRDs older than the fields a Ray object uses",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="With crds: leave the CRDs are whatever is installed (installed_crds), possibly older than the "
    "operator: the API server prunes the fields those CRDs do not know, silently, before the operator sees "
    "the object.",
    fix="Upgrade the CRDs (crds: manage on the operator, or apply the CRDs of the operator's version) or remove "
    "the field.",
    check=_check_crd_age,
    compliant=example_job(),
    violating=example_job(preRunningDeadlineSeconds=600),
    violating_path="spec.preRunningDeadlineSeconds",
    context={"options": {"operator": _setup(crdVersion="1.5.0")}},
)


__all__ = ["CRD_AGE_RULE_ID", "operator_of"]
