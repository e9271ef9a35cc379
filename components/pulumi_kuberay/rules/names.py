"""RayJob name (``ValidateRayJobMetadata``; the admission webhook repeats it).

Every spec rule checks ``RayJob.spec`` and, for a RayCronJob, ``spec.jobTemplate`` (the operator runs the same
checks there, RCJ-06). Checks read raw manifest dicts and never raise; anything of an unexpected type is
skipped (the structural rules report wrong types).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._cel import Cel
from ._engine import Context, Violation, declare
from ._examples import example_job
from ._fixed import patch
from ._manifest_readers import (
    MAX_RAYJOB_NAME_LENGTH,
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
