"""Object names: ``ValidateRayClusterMetadata``, ``ValidateRayJobMetadata``, ``ValidateRayServiceMetadata`` (the
admission webhooks repeat them). A RayCronJob's name limit is part of ``ValidateRayCronJobSpec``
(``cronjob_spec.py``, with the names of its child RayJobs).

Every spec rule checks ``RayJob.spec`` and, for a RayCronJob, ``spec.jobTemplate`` (the operator runs the same
checks there, RCJ-06). Checks read raw manifest dicts and never raise; anything of an unexpected type is
skipped (the structural rules report wrong types).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._cel import Cel
from ._engine import Context, Violation, declare
from ._examples import example, example_job, example_service
from ._fixed import patch
from ._manifest_readers import (
    MAX_RAYCLUSTER_NAME,
    MAX_RAYJOB_NAME_LENGTH,
    MAX_RAYSERVICE_NAME_LENGTH,
    effective_name,
    is_dns1035,
)

# ----------------------------------------------------------------------------------------------------
# RJ-01, RJ-02 (and WH-03): metadata


def _rayjob_name(manifest: dict[str, Any]) -> tuple[str, str] | None:
    """The name ValidateRayJobMetadata checks (generateName counts, with its suffix) and its path; RayJobs only."""
    return effective_name(manifest) if manifest.get("kind") == "RayJob" else None


def _check_name_length(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    found = _rayjob_name(manifest)
    if found is None:
        return
    name, path = found
    if len(name) > MAX_RAYJOB_NAME_LENGTH:
        what = "name" if path == "metadata.name" else "generateName plus its 5-character random suffix"
        yield Violation(
            f"RayJob {what} is {len(name)} characters; the operator allows at most {MAX_RAYJOB_NAME_LENGTH} (it derives the RayCluster, submitter Job and Service names from it)",
            path,
        )


def _check_name_dns1035(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    found = _rayjob_name(manifest)
    if found is None:
        return
    name, path = found
    if not is_dns1035(name):
        yield Violation(
            f"RayJob name {name!r} is not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter and ending with a letter or digit)",
            path,
        )


declare(
    id="rayjob-name-too-long",
    title="RayJob name longer than 47 characters",
    severity="critical",
    category="correctness",
    kinds=("RayJob",),
    rows=("RJ-01", "WH-03"),
    enforced_by=("operator", "RayJob webhook"),
    since="1.4",
    rationale="ValidateRayJobMetadata rejects RayJob names over 47 characters (also the admission webhook): the RayJob goes to ValidationFailed and nothing is created.",
    fix="Shorten metadata.name (or generateName) to at most 47 characters.",
    check=_check_name_length,
    compliant=example_job("rayjob-sample"),
    violating=example_job("rayjob-" + "x" * 41),
    violating_path="metadata.name",
    fixed=patch({"metadata.name": "rayjob-sample"}),
    cel=Cel('!has(object.metadata.name) || (size(object.metadata.name) <= 47)', path="metadata.name"),
)

declare(
    id="rayjob-name-not-dns1035",
    title="RayJob name is not a DNS-1035 label",
    severity="critical",
    category="correctness",
    kinds=("RayJob",),
    rows=("RJ-02", "WH-03"),
    enforced_by=("operator", "RayJob webhook"),
    rationale="ValidateRayJobMetadata requires a DNS-1035 label (it becomes Service and Pod name prefixes); names with dots, upper case or a leading digit are rejected.",
    fix="Use lower-case letters, digits and '-', starting with a letter (e.g. 'train-resnet').",
    check=_check_name_dns1035,
    compliant=example_job("train-resnet"),
    violating=example_job("train.resnet"),
    violating_path="metadata.name",
    fixed=patch({"metadata.name": "train-resnet"}),
    cel=Cel("!has(object.metadata.name) || (size(object.metadata.name) <= 63 && object.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$'))", path="metadata.name"),
)


# ----------------------------------------------------------------------------------------------------
# RS-01, RS-02 (and WH-04): metadata


def _check_rayservice_name_length(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    found = effective_name(manifest) if manifest.get("kind") == "RayService" else None
    if found is None:
        return
    name, path = found
    if len(name) > MAX_RAYSERVICE_NAME_LENGTH:
        yield Violation(
            f"RayService name is {len(name)} characters; the operator allows at most {MAX_RAYSERVICE_NAME_LENGTH} (it derives cluster and Service names from it)",
            path,
        )


def _check_rayservice_name_dns1035(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    found = effective_name(manifest) if manifest.get("kind") == "RayService" else None
    if found is None:
        return
    name, path = found
    if not is_dns1035(name):
        yield Violation(
            f"RayService name {name!r} is not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter and ending with a letter or digit)",
            path,
        )


declare(
    id="rayservice-name-too-long",
    title="RayService name longer than 47 characters",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-01", "WH-04"),
    enforced_by=("operator", "RayService webhook"),
    since="1.4",
    rationale="ValidateRayServiceMetadata (and the webhook) reject names over 47 characters; the RayService reports Ready=False/ValidationFailed and never creates a cluster.",
    fix="Shorten metadata.name to at most 47 characters.",
    check=_check_rayservice_name_length,
    compliant=example_service("text-summarizer"),
    violating=example_service("text-summarizer-" + "x" * 32),
    violating_path="metadata.name",
    fixed=patch({"metadata.name": "text-summarizer"}),
    cel=Cel('!has(object.metadata.name) || (size(object.metadata.name) <= 47)', path="metadata.name"),
)

declare(
    id="rayservice-name-not-dns1035",
    title="RayService name is not a DNS-1035 label",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rows=("RS-02", "WH-04"),
    enforced_by=("operator", "RayService webhook"),
    rationale="The name prefixes Services and Pods, so the operator requires a DNS-1035 label.",
    fix="Use lower-case letters, digits and '-', starting with a letter.",
    check=_check_rayservice_name_dns1035,
    compliant=example_service("text-summarizer"),
    violating=example_service("Text_Summarizer"),
    violating_path="metadata.name",
    fixed=patch({"metadata.name": "text-summarizer"}),
    cel=Cel("!has(object.metadata.name) || (size(object.metadata.name) <= 63 && object.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$'))", path="metadata.name"),
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
        yield Violation(
            f"RayCluster name {name!r} is not a valid DNS-1035 label (lower-case letters, digits and '-', starting with a letter and ending with a letter or digit)",
            path,
        )


declare(
    id="cluster-name-invalid",
    title="RayCluster name too long or not a DNS-1035 label",
    severity="critical",
    category="correctness",
    kinds=("RayCluster",),
    rows=("RC-01", "RC-02", "WH-01"),
    enforced_by=("operator", "RayCluster webhook"),
    rationale="The operator refuses to reconcile a RayCluster whose name is longer than 53 characters or not a DNS-1035 label (Pod and Service names are derived from it); only an InvalidRayClusterMetadata event shows it.",
    fix="Use a lower-case name of at most 53 characters that starts with a letter, e.g. 'raycluster-demo'.",
    check=_check_cluster_name,
    compliant=example(),
    violating=example(lambda d: d["metadata"].update(name="RayCluster_Demo")),
    violating_path="metadata.name",
    fixed=patch({"metadata.name": "raycluster-demo"}),
    cel=Cel("!has(object.metadata.name) || (size(object.metadata.name) <= 53 && size(object.metadata.name) <= 63 && object.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$'))", path="metadata.name"),
)
