"""Serve config keys judged by the Ray release the RayService runs (its head image tag, else ``rayVersion``, else
the newest): a key that release deprecates, drops or rejects, from the table generated out of Ray's own
``ray.serve.schema`` (``model/_serve_versions.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pulumi_kuberay.kuberay.paths import memo
from pulumi_kuberay.model.serve_versions import KeyVerdict, judge_key, release_of_service

from ._engine import Context, Severity, Violation, declare
from ._examples import TWO_APPS, serve_service
from ._fixed import patch
from ._serve_config import serve_keys

_SECTION_NAMES = {"config": "top-level", "application": "application"}


_DROPPED = "high, not critical: Ray accepts the config and the applications still deploy"
_NOT_DROPPED_YET = "low: no Ray release drops it yet"


def _what(verdict: KeyVerdict) -> str:
    return f"{_SECTION_NAMES.get(verdict.section, verdict.section)} key {verdict.key!r}"


def _instead(verdict: KeyVerdict) -> str:
    return f"use {verdict.replacement}" if verdict.replacement else "remove it"


def _message(verdict: KeyVerdict) -> tuple[str, str, Severity, str | None]:
    """(message, fix, severity, why the severity) for a verdict that is not plain acceptance."""
    release = verdict.release
    if verdict.status == "deprecated":
        removal = (
            f"; Ray {verdict.removed_in} and later drop it, so the setting stops working on upgrade"
            if verdict.removed_in
            else ""
        )
        return (
            f"{_what(verdict)} is deprecated since Ray {verdict.deprecated_since} (judged by {release.label}): still accepted{removal}",
            f"Replace it: {_instead(verdict)}.",
            "medium" if verdict.removed_in else "low",
            None if verdict.removed_in else _NOT_DROPPED_YET,
        )
    if verdict.removed_in and release.index > 0:
        known = f"Ray {verdict.removed_in} dropped it"
        if verdict.replacement:
            known += f" (renamed: {verdict.replacement})"
    else:
        known = f"it needs Ray >= {verdict.first}"
    # Critical only where Ray refuses the config (no application deploys); a key it drops is a setting without
    # effect: the applications deploy and serve, so it is high (the critical contract: a failure proved).
    if verdict.status == "rejected":
        effect = "its Serve schema refuses the whole config, so no application is deployed"
        severity: Severity = "critical"
        why = None
    else:
        effect = "its Serve schema drops the key without a word, so the setting has no effect"
        severity = "high"
        why = _DROPPED
    return (
        f"{_what(verdict)} is not known to {release.label}: {known}; {effect}",
        f"{_instead(verdict).capitalize()}, or run a Ray release that has it.",
        severity,
        why,
    )


def _judged(manifest: dict[str, Any]) -> tuple[tuple[KeyVerdict, str], ...]:
    """(verdict, path) of every serve config key the release does not plainly accept, in config order."""
    keys = serve_keys(manifest)
    if not keys:
        return ()
    release = release_of_service(manifest)
    out: list[tuple[KeyVerdict, str]] = []
    for section, key, path in keys:
        verdict = judge_key(section, key, release)
        if verdict.status not in ("accepted", "unknown"):  # a key no release knows: serve-config-unknown-key
            out.append((verdict, path))
    return tuple(out)


def _checker(deprecated: bool) -> Callable[[dict[str, Any], Context], Iterator[Violation]]:
    """The keys the release does not take (``deprecated`` False), or the ones it takes as deprecated (True).

    Two rules, so that the policy pack enforces them apart (a policy has one enforcement level); one walk of the
    config judges the keys for both (``memo``: once per ``check``)."""

    def check(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
        for verdict, path in memo(manifest, "serve_versions.judged", _judged):
            if (verdict.status == "deprecated") == deprecated:
                message, fix, severity, why = _message(verdict)
                yield Violation(message, path, fix=fix, severity=severity, severity_why=why)

    return check


_OLD_KEY = "        num_replicas: 1\n        max_concurrent_queries: 8\n"
#: The example config with the key's current name (the compliant examples, and the fix of the violating ones).
_NEW_KEY = TWO_APPS.replace("        num_replicas: 1\n", "        num_replicas: 1\n        max_ongoing_requests: 8\n")


def _pinned(doc: dict[str, Any], version: str) -> dict[str, Any]:
    """The example RayService running Ray ``version`` (rayVersion and every image)."""
    cluster = doc["spec"]["rayClusterConfig"]
    cluster["rayVersion"] = version
    for group in [cluster["headGroupSpec"], *cluster.get("workerGroupSpecs", [])]:
        for container in group["template"]["spec"]["containers"]:
            container["image"] = f"rayproject/ray:{version}"
    return doc


declare(
    id="serve-config-key-version",
    title="Serve config key that the RayService's Ray release drops or refuses",
    severity="critical",
    category="correctness",
    kinds=("RayService",),
    rationale="Which keys Ray Serve accepts depends on the Ray release: max_concurrent_queries and target_num_ongoing_requests_per_replica were renamed in Ray 2.10 and dropped in 2.33, request_router_config came in 2.48. Serve's schemas drop a key they do not know without a word, so a key the running release does not know has no effect: high, as the applications still deploy; critical only where the schema refuses the whole config (logging_config forbids unknown keys), which is certain. The release is the head image's tag, else rayClusterConfig.rayVersion, else the newest; the table is generated from Ray's own ray.serve.schema of every release from 2.9 where it changed.",
    proof="the Ray release the image's tag shows refuses the key (a schema that forbids extra keys); a key the release only ignores has no effect and fails nothing: high",
    fix="Use the key the running Ray release knows (the message names it), or pin the Ray release the config was written for (rayVersion and image tag).",
    check=_checker(deprecated=False),
    compliant=serve_service(_NEW_KEY),
    violating=serve_service(TWO_APPS.replace("        num_replicas: 1\n", _OLD_KEY)),
    violating_path="spec.serveConfigV2.applications[1].deployments[0].max_concurrent_queries",
    fixed=patch(
        {
            "spec.serveConfigV2": _NEW_KEY,
        }
    ),
    also=(_DROPPED,),
)
declare(
    id="serve-config-key-deprecated",
    title="Serve config key that the RayService's Ray release still takes but deprecates",
    severity="medium",
    category="hygiene",
    kinds=("RayService",),
    rationale="A key the running Ray release deprecates still works (max_concurrent_queries on Ray 2.10-2.32), but a later release drops it without a word: medium when a later release already dropped it (the setting stops working on upgrade), low otherwise. Judged like serve-config-key-version.",
    fix="Use the new key the message names.",
    check=_checker(deprecated=True),
    compliant=serve_service(_NEW_KEY),
    violating=_pinned(serve_service(TWO_APPS.replace("        num_replicas: 1\n", _OLD_KEY)), "2.20.0"),
    violating_path="spec.serveConfigV2.applications[1].deployments[0].max_concurrent_queries",
    fixed=patch(
        {
            "spec.serveConfigV2": _NEW_KEY,
            "spec.rayClusterConfig.rayVersion": "2.52.0",
            "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].image": "rayproject/ray:2.52.0",
            "spec.rayClusterConfig.workerGroupSpecs[0].template.spec.containers[0].image": "rayproject/ray:2.52.0",
        }
    ),
    also=(_NOT_DROPPED_YET,),
)
