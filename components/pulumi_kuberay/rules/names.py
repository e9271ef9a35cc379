"""Object names: ``ValidateRayClusterMetadata``, ``ValidateRayJobMetadata``, ``ValidateRayServiceMetadata`` (the
admission webhooks repeat them). A RayCronJob's name limit is part of ``ValidateRayCronJobSpec``
(``cronjob_spec.py``, with the names of its child RayJobs).

Every spec rule checks ``RayJob.spec`` and, for a RayCronJob, ``spec.jobTemplate`` (the operator runs the same
checks there, RCJ-06). Checks read raw manifest dicts and never raise; anything of an unexpected type is
skipped (the structural rules report wrong types).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ._cel import Cel
from ._engine import CheckFn, Context, Enforcer, Violation, declare
from ._examples import example, example_job, example_service
from ._fixed import patch
from ._manifest_readers import (
    MAX_RAYCLUSTER_NAME,
    MAX_RAYJOB_NAME_LENGTH,
    MAX_RAYSERVICE_NAME_LENGTH,
    effective_name,
    is_dns1035,
)

_WEBHOOK: dict[str, Enforcer] = {
    "RayCluster": "RayCluster webhook",
    "RayJob": "RayJob webhook",
    "RayService": "RayService webhook",
}
_DNS1035_CEL = "size(object.metadata.name) <= 63 && object.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')"
_DNS1035_LABEL = "DNS-1035 label (lower-case letters, digits and '-', starting with a letter and ending with a letter or digit)"


def _name_rule(
    *,
    id: str,
    title: str,
    kind: str,
    rows: tuple[str, ...],
    rationale: str,
    fix: str,
    check: CheckFn,
    named: Callable[[str], dict[str, Any]],
    good: str,
    bad: str,
    cel: str,
    since: str | None = None,
) -> None:
    """A critical rule on ``kind``'s metadata.name, which the operator and the kind's webhook refuse: its examples
    are ``named(good)`` and ``named(bad)``, its fix renames to ``good``; ``cel`` is the test of a name that is set."""
    declare(
        id=id,
        title=title,
        severity="critical",
        category="correctness",
        kinds=(kind,),
        rows=rows,
        enforced_by=("operator", _WEBHOOK[kind]),
        since=since,
        rationale=rationale,
        fix=fix,
        check=check,
        compliant=named(good),
        violating=named(bad),
        violating_path="metadata.name",
        fixed=patch({"metadata.name": good}),
        cel=Cel(f"!has(object.metadata.name) || ({cel})", path="metadata.name"),
    )


def _kind_name(kind: str, manifest: dict[str, Any]) -> tuple[str, str] | None:
    """The name Validate<kind>Metadata checks (generateName counts, with its suffix) and its path; that kind only."""
    return effective_name(manifest) if manifest.get("kind") == kind else None


def _too_long(kind: str, limit: int, derived: str, *, says_generate_name: bool) -> CheckFn:
    """A name of ``kind`` over ``limit`` characters (the operator derives ``derived`` from it)."""

    def check(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
        found = _kind_name(kind, manifest)
        if found is None:
            return
        name, path = found
        if len(name) > limit:
            spelt = says_generate_name and path != "metadata.name"
            what = "generateName plus its 5-character random suffix" if spelt else "name"
            yield Violation(
                f"{kind} {what} is {len(name)} characters; the operator allows at most {limit} (it derives {derived} from it)",
                path,
            )

    return check


def _not_dns1035(kind: str) -> CheckFn:
    def check(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
        found = _kind_name(kind, manifest)
        if found is not None and not is_dns1035(found[0]):
            yield Violation(f"{kind} name {found[0]!r} is not a {_DNS1035_LABEL}", found[1])

    return check


# ----------------------------------------------------------------------------------------------------
# RJ-01, RJ-02 (and WH-03): metadata

_name_rule(
    id="rayjob-name-too-long",
    title="RayJob name longer than 47 characters",
    kind="RayJob",
    rows=("RJ-01", "WH-03"),
    since="1.4",
    rationale="ValidateRayJobMetadata rejects RayJob names over 47 characters (also the admission webhook): the RayJob goes to ValidationFailed and nothing is created.",
    fix="Shorten metadata.name (or generateName) to at most 47 characters.",
    check=_too_long(
        "RayJob", MAX_RAYJOB_NAME_LENGTH, "the RayCluster, submitter Job and Service names", says_generate_name=True
    ),
    named=example_job,
    good="rayjob-sample",
    bad="rayjob-" + "x" * 41,
    cel="size(object.metadata.name) <= 47",
)
_name_rule(
    id="rayjob-name-not-dns1035",
    title="RayJob name is not a DNS-1035 label",
    kind="RayJob",
    rows=("RJ-02", "WH-03"),
    rationale="ValidateRayJobMetadata requires a DNS-1035 label (it becomes Service and Pod name prefixes); names with dots, upper case or a leading digit are rejected.",
    fix="Use lower-case letters, digits and '-', starting with a letter (e.g. 'train-resnet').",
    check=_not_dns1035("RayJob"),
    named=example_job,
    good="train-resnet",
    bad="train.resnet",
    cel=_DNS1035_CEL,
)


# ----------------------------------------------------------------------------------------------------
# RS-01, RS-02 (and WH-04): metadata

_name_rule(
    id="rayservice-name-too-long",
    title="RayService name longer than 47 characters",
    kind="RayService",
    rows=("RS-01", "WH-04"),
    since="1.4",
    rationale="ValidateRayServiceMetadata (and the webhook) reject names over 47 characters; the RayService reports Ready=False/ValidationFailed and never creates a cluster.",
    fix="Shorten metadata.name to at most 47 characters.",
    check=_too_long("RayService", MAX_RAYSERVICE_NAME_LENGTH, "cluster and Service names", says_generate_name=False),
    named=example_service,
    good="text-summarizer",
    bad="text-summarizer-" + "x" * 32,
    cel="size(object.metadata.name) <= 47",
)
_name_rule(
    id="rayservice-name-not-dns1035",
    title="RayService name is not a DNS-1035 label",
    kind="RayService",
    rows=("RS-02", "WH-04"),
    rationale="The name prefixes Services and Pods, so the operator requires a DNS-1035 label.",
    fix="Use lower-case letters, digits and '-', starting with a letter.",
    check=_not_dns1035("RayService"),
    named=example_service,
    good="text-summarizer",
    bad="Text_Summarizer",
    cel=_DNS1035_CEL,
)


# --------------------------------------------------------------------------------------------------
# RC-01, RC-02: RayCluster metadata.name


def _check_cluster_name(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    found = effective_name(doc)
    if found is None:
        return
    name, path = found
    if len(name) > MAX_RAYCLUSTER_NAME and ctx.at_least(1, 4):
        yield Violation(
            f"RayCluster name {name!r} has {len(name)} characters; KubeRay allows at most {MAX_RAYCLUSTER_NAME}",
            path,
        )
    elif not is_dns1035(name):
        yield Violation(f"RayCluster name {name!r} is not a valid {_DNS1035_LABEL}", path)


def _named_cluster(name: str) -> dict[str, Any]:
    return example(lambda d: d["metadata"].update(name=name))


_name_rule(
    id="cluster-name-invalid",
    title="RayCluster name too long or not a DNS-1035 label",
    kind="RayCluster",
    rows=("RC-01", "RC-02", "WH-01"),
    rationale="The operator refuses to reconcile a RayCluster whose name is longer than 53 characters or not a DNS-1035 label (Pod and Service names are derived from it); only an InvalidRayClusterMetadata event shows it.",
    fix="Use a lower-case name of at most 53 characters that starts with a letter, e.g. 'raycluster-demo'.",
    check=_check_cluster_name,
    named=_named_cluster,
    good="raycluster-demo",
    bad="RayCluster_Demo",
    cel=f"size(object.metadata.name) <= 53 && {_DNS1035_CEL}",
)
