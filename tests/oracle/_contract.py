"""The contract between the catalogue and the oracle, checked on every case.

    we block (a critical finding, or the typed model refuses the manifest)
        if and only if
    the real system rejects the object: the API server or the operator rejects it (the webhooks too when the
    target says they are on), or the API server prunes a field it does not know (``kubectl create`` refuses it
    with its default strict field validation; through other clients the setting silently has no effect), or
    the API server refuses a child the operator creates from the accepted object (``children``: the head and
    worker Pods, the head Service, the submitter Job; the object is stored but its workload never runs).

    What the operator accepts and ignores (its controller is off behind a feature gate, or its own code never
    acts on a setting under these gates: ``operator.inert``) must not block: we report it at high, with a
    message that says it is ignored. An object ``managedBy`` another controller is skipped by KubeRay on
    purpose: nothing is required. What the operator silently corrects (``corrected``) is never a reason to block.

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

from ._oracle import Verdict, child_errors

KNOWN_DIFFERENCES = Path(__file__).resolve().parent / "known_differences.yaml"
#: How a high finding says the operator accepts and ignores something.
IGNORED_WORDING = re.compile(r"\bignor(e|es|ed)\b|never (acts|reconciles|rolls|submits|creates|runs)", re.IGNORECASE)


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
    #: the operator accepts the object and ignores it (or a setting of it): a high finding must say so
    expected_ignored: bool = False

    @property
    def we_block(self) -> bool:
        return bool(self.critical)

    @property
    def we_say_ignored(self) -> bool:
        """A high finding whose message says the object or a setting is ignored."""
        return any(f.severity == "high" and IGNORED_WORDING.search(f.message) for f in self.findings)

    @property
    def agrees(self) -> bool:
        if self.we_block != self.expected_block:
            return False
        return self.we_say_ignored or not self.expected_ignored

    @property
    def direction(self) -> str:
        """``strict``: we block what KubeRay accepts; ``lax``: we let through what it rejects (or say nothing
        of what it ignores)."""
        return "strict" if self.we_block else "lax"

    def signature(self) -> str:
        """What a known-differences entry's ``match`` regex is matched against."""
        ids = ",".join(sorted({f.rule_id for f in self.critical}))
        kind = self.verdict.get("kind", "")
        version = self.verdict.get("operatorVersion", "")
        return (
            f"{self.direction} | kind={kind} | rules={ids} | oracle={self.reason} | case={self.case.origin}"
            f" | version={version}"
        )

    def describe(self) -> str:
        crit = "; ".join(f"{f.rule_id} at {f.path}: {f.message}" for f in self.critical) or "none"
        text = f"[{self.direction}] {self.case.origin}\n    oracle: {self.reason or 'accepts'}\n    critical: {crit}"
        if self.expected_ignored and not self.we_block:
            high = "; ".join(f"{f.rule_id}: {f.message}" for f in self.findings if f.severity == "high") or "none"
            text += f"\n    high (one must say it is ignored): {high}"
        return text


def expected(verdict: Verdict, *, webhooks: bool) -> tuple[bool, bool, str]:
    """Whether the real system rejects the object, whether the operator accepts and ignores it (or a setting
    of it), and why (empty when it works)."""
    api = verdict["apiServer"]
    if not api["accepted"]:
        return True, False, "apiServer: " + "; ".join(f"{e['field']}: {e['detail']}" for e in api["errors"])
    if api.get("pruned"):
        pruned = ", ".join(api["pruned"])
        return True, False, "apiServer prunes unknown fields (kubectl: strict decoding error): " + pruned
    op = verdict.get("operator") or {}
    hooks = verdict.get("webhooks") or {}
    if webhooks and not hooks.get("accepted", True):
        return True, False, "webhooks: " + "; ".join(hooks.get("errors", []))
    if op.get("ignored"):
        reason = op.get("ignoredReason", "")
        # managedBy hands the object to another controller: KubeRay skipping it is the declared behaviour.
        return False, "managedBy" not in reason, "operator ignores it: " + reason
    if not op.get("accepted", True):
        return True, False, "operator: " + "; ".join(op.get("errors", []))
    refused = child_errors(verdict)
    if refused:
        # Stored, but a Pod, Service or Job the operator creates from it is refused: the workload never runs.
        return True, False, "children: " + "; ".join(f"{e['field']}: {e['detail']} ({e['object']})" for e in refused)
    if op.get("inert"):
        return False, True, "operator ignores: " + "; ".join(f"{i['field']}: {i['why']}" for i in op["inert"])
    return False, False, ""


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
        block, ignored, reason = expected(verdict, webhooks=case.webhooks)
        critical = [f for f in findings if f.severity == "critical"]
        outcome = Outcome(case, verdict, critical, block, reason, findings=findings, expected_ignored=ignored)
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
