"""The contract between the catalogue and the oracle, checked on every case.

    we block (a critical finding, or the typed model refuses the manifest)
        if and only if
    the object will not work as declared: the API server or the operator rejects it (the webhooks too when the
    target says they are on), the API server prunes a field it does not know (``kubectl create`` refuses it
    with its default strict field validation; through other clients the setting silently has no effect), or
    the operator never acts on it: its controller is off behind a feature gate, or its own code ignores a
    setting under these gates (``operator.inert``). An object ``managedBy`` another controller is skipped by
    KubeRay on purpose: we must not block it. What the operator silently corrects (``corrected``) is never a
    reason to block.

Every disagreement is either fixed or listed in ``known_differences.yaml``; :func:`known` matches one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pulumi_kuberay import rules

from ._oracle import Verdict

KNOWN_DIFFERENCES = Path(__file__).resolve().parent / "known_differences.yaml"


@dataclass(frozen=True)
class Case:
    """One input: ``doc`` is a manifest dict (sent as JSON) or YAML text; ``origin`` says where it came from."""

    origin: str
    doc: Any
    gates: str | tuple[tuple[str, bool], ...] = "default"  # "default" | "all" | overrides of the defaults
    webhooks: bool = False


@dataclass
class Outcome:
    case: Case
    verdict: Verdict
    critical: list[rules.Finding]
    expected_block: bool
    reason: str
    known_as: str | None = None
    findings: list[rules.Finding] = field(default_factory=list)

    @property
    def we_block(self) -> bool:
        return bool(self.critical)

    @property
    def agrees(self) -> bool:
        return self.we_block == self.expected_block

    @property
    def direction(self) -> str:
        """``strict``: we block what KubeRay accepts; ``lax``: we let through what it rejects."""
        return "strict" if self.we_block else "lax"

    def signature(self) -> str:
        """What a known-differences entry's ``match`` regex is matched against."""
        ids = ",".join(sorted({f.rule_id for f in self.critical}))
        kind = self.verdict.get("kind", "")
        return f"{self.direction} | kind={kind} | rules={ids} | oracle={self.reason} | case={self.case.origin}"

    def describe(self) -> str:
        crit = "; ".join(f"{f.rule_id} at {f.path}: {f.message}" for f in self.critical) or "none"
        return f"[{self.direction}] {self.case.origin}\n    oracle: {self.reason or 'accepts'}\n    critical: {crit}"


def expected(verdict: Verdict, *, webhooks: bool) -> tuple[bool, str]:
    """Whether the object will not work as declared, and why (empty when it works)."""
    api = verdict["apiServer"]
    if not api["accepted"]:
        return True, "apiServer: " + "; ".join(f"{e['field']}: {e['detail']}" for e in api["errors"])
    if api.get("pruned"):
        return True, "apiServer prunes unknown fields (kubectl: strict decoding error): " + ", ".join(api["pruned"])
    op = verdict.get("operator") or {}
    if op.get("ignored"):
        reason = op.get("ignoredReason", "")
        # managedBy hands the object to another controller: KubeRay skipping it is the declared behaviour.
        return ("managedBy" not in reason), "operator ignores it: " + reason
    if not op.get("accepted", True):
        return True, "operator: " + "; ".join(op.get("errors", []))
    if op.get("inert"):
        return True, "operator ignores: " + "; ".join(f"{i['field']}: {i['why']}" for i in op["inert"])
    hooks = verdict.get("webhooks") or {}
    if webhooks and not hooks.get("accepted", True):
        return True, "webhooks: " + "; ".join(hooks.get("errors", []))
    return False, ""


def _as_manifest(doc: Any) -> Any:
    if isinstance(doc, str):
        try:
            return yaml.safe_load(doc)
        except yaml.YAMLError:
            return None
    return doc


def our_findings(doc: Any, *, kuberay_version: str, gates: Mapping[str, bool], webhooks: bool) -> list[rules.Finding]:
    manifest = _as_manifest(doc)
    known = set(rules.DEFAULT_FEATURE_GATES)
    kwargs: dict[str, Any] = {
        "kuberay_version": kuberay_version,
        "feature_gates": {k: v for k, v in gates.items() if k in known},
    }
    return rules.check(manifest, webhooks=webhooks, **kwargs)


def judge_cases(cases: Sequence[Case], verdicts: Sequence[Verdict], *, kuberay_version: str) -> list[Outcome]:
    out: list[Outcome] = []
    for case, verdict in zip(cases, verdicts, strict=True):
        # The catalogue gets exactly the gates the oracle ran with (the verdict echoes them).
        findings = our_findings(
            case.doc, kuberay_version=kuberay_version, gates=verdict["featureGates"], webhooks=case.webhooks
        )
        block, reason = expected(verdict, webhooks=case.webhooks)
        critical = [f for f in findings if f.severity == "critical"]
        outcome = Outcome(case, verdict, critical, block, reason, findings=findings)
        if not outcome.agrees:
            outcome.known_as = known(outcome)
        out.append(outcome)
    return out


@cache
def known_differences() -> tuple[dict[str, Any], ...]:
    entries = yaml.safe_load(KNOWN_DIFFERENCES.read_text()) or []
    for entry in entries:
        missing = {"id", "direction", "shape", "match", "why"} - set(entry)
        assert not missing, f"known_differences.yaml entry {entry.get('id')!r} lacks {sorted(missing)}"
        re.compile(entry["match"])
    return tuple(entries)


def known(outcome: Outcome) -> str | None:
    signature = outcome.signature()
    for entry in known_differences():
        if entry["direction"] == outcome.direction and re.search(entry["match"], signature, re.DOTALL):
            return str(entry["id"])
    return None


def summary(outcomes: Sequence[Outcome]) -> str:
    bad = [o for o in outcomes if not o.agrees]
    unknown = [o for o in bad if o.known_as is None]
    by_known: dict[str, int] = {}
    for o in bad:
        if o.known_as:
            by_known[o.known_as] = by_known.get(o.known_as, 0) + 1
    lines = [
        f"{len(outcomes)} cases, {len(outcomes) - len(bad)} agree, {len(bad) - len(unknown)} known differences "
        f"{by_known}, {len(unknown)} unexplained disagreements"
    ]
    lines += [o.describe() for o in unknown[:40]]
    return "\n".join(lines)
