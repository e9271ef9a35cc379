"""The catalogue's ValidatingAdmissionPolicies in a real kube-apiserver agree with the Python checks.

One control plane for the module, of its own (``tools/local_apiserver.py``: etcd and kube-apiserver from the
``scripts/ensure-kube`` entry, no controllers, no operator: the policies judge nothing else), gets the v1.7.0 CRDs
and the generated policies. Then:

* **agreement** (bindings on Warn, ``failurePolicy: Fail`` so that a CEL evaluation error shows as a warning too):
  every rule example (compliant, violating, fixed), every upstream sample and generated cases (cluster-rule
  examples embedded in the other kinds, rayVersions and Ray image tags at the edges of the operator's version
  parsers, near-valid manifests of the oracle tier's generator) go through a
  server-side dry-run create; the policies that warn must be exactly the covered rules whose Python check fires
  (``rules.check`` at KubeRay 1.7.0, the policies' target). A case the API server refuses before any policy can
  warn (the CRD schema, metadata validation) is counted and listed, never compared silently.
* **enforcement** (the staging bindings: Deny for what the pack blocks there, critical rules; Warn for the rest):
  every covered critical rule's violating example is refused with our message, every other covered rule's warns,
  and every upstream sample is accepted but one the Python check finds a covered critical rule on (KubeRay's vLLM
  TPU sample, an envsubst template: image-reference-invalid), refused by that rule as the pack refuses it.
* **deny-all** (every covered rule bound with Deny, ``failurePolicy: Fail``): each covered rule's violating
  example, the other covered rules the Python check finds on it suppressed, is refused by its own rule with our
  message, unless the API server's own validation refuses it first (counted and listed); every upstream sample is
  accepted once the covered rules the Python check finds on it are suppressed, and as it is is refused by one of them.

Requests run five at a time (``dryRun=All``, ``fieldValidation=Strict`` as kubectl sends them).
"""

from __future__ import annotations

import copy
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml
from pulumi_kuberay import admission, rules

from .conftest import REPO_ROOT, _kube_dir_or_fail

sys.path.insert(0, str(REPO_ROOT / "tools"))
from local_apiserver import LocalApiServer

REFERENCE_VERSION = "1.7.0"
NAMESPACE = "vap"
WORKERS = 5
_POLICY = re.compile(r"ValidatingAdmissionPolicy '(kuberay-[a-z0-9-]+)'")


def _rule_named(text: str) -> str | None:
    """The rule a refusal or warning of one of our policies names (our policies hold several rules each: every
    message starts with its rule id and severity), or None."""
    policy = _POLICY.search(text)
    named = admission.RULE_IN_MESSAGE.search(text, policy.end()) if policy else None
    return named.group(1) if named else None
#: The API server's budget for the warnings of one response (k8s.io/apiserver warning recorder): past it each
#: warning is cut to 256 characters and further ones are dropped.
WARNING_BUDGET = 4096


@dataclass
class Reply:
    code: int
    body: dict[str, Any]
    warnings: list[str]

    @property
    def message(self) -> str:
        return str(self.body.get("message", ""))


def _dry_run(server: LocalApiServer, manifest: dict[str, Any]) -> Reply:
    path = f"/apis/ray.io/v1/namespaces/{NAMESPACE}/{admission.PLURALS[manifest['kind']]}"
    code, body, warnings = server.request("POST", path, manifest, query={"dryRun": "All", "fieldValidation": "Strict"})
    return Reply(code, body, warnings)


def dry_run_all(server: LocalApiServer, manifests: list[dict[str, Any]]) -> list[Reply]:
    with ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(lambda m: _dry_run(server, m), manifests))


def prepared(manifest: dict[str, Any]) -> dict[str, Any]:
    """The object as sent: in the test namespace, nothing else changed."""
    doc = copy.deepcopy(manifest)
    if isinstance(doc.get("metadata"), dict):
        doc["metadata"]["namespace"] = NAMESPACE
    return doc


def _apply(server: LocalApiServer, docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        server.create(doc)


def _delete_bindings(server: LocalApiServer) -> None:
    bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
    server.delete_collection(bindings, "app.kubernetes.io/managed-by=pulumi-kuberay")


def _wait_until_active(server: LocalApiServer, expect: str) -> None:
    """Policies and bindings reach the admission plugin through informers, each in its own time: wait until every
    covered rule's violating example is judged by its own rule (``expect``: ``warn``, or ``deny`` for the critical
    rules as staging binds them); examples the CRD schema refuses first are left out."""
    covered = admission.covered_rules()
    examples = [prepared(rule.violating) for rule in covered]
    deadline = time.monotonic() + 120
    while True:
        waiting = []
        for rule, reply in zip(covered, dry_run_all(server, examples), strict=True):
            if reply.code != 201 and "ValidatingAdmissionPolicy" not in reply.message:
                continue  # refused before any policy
            denied = reply.code != 201 and "ValidatingAdmissionPolicy" in reply.message
            if expect == "deny" and rule.severity == "critical":
                ok = denied
            else:
                ok = denied or any(_rule_named(w) == rule.id for w in reply.warnings)
            if not ok:
                waiting.append(rule.id)
        if not waiting:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"the admission policies of {waiting} did not {expect} within 120 s")
        time.sleep(1)


@pytest.fixture(scope="module")
def vap_apiserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalApiServer]:
    from _reference import require_reference

    crds = require_reference() / "kuberay" / f"v{REFERENCE_VERSION}" / "crds"
    started = time.monotonic()
    with LocalApiServer(_kube_dir_or_fail() / "bin", tmp_path_factory.mktemp("vap-apiserver")) as server:
        server.install_crds([yaml.safe_load(path.read_text()) for path in sorted(crds.glob("*.yaml"))])
        server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        sys.stderr.write(f"\n[admission policies] kube-apiserver with the v{REFERENCE_VERSION} CRDs up in {time.monotonic() - started:.0f} s\n")
        yield server


# ---- the cases ----------------------------------------------------------------------------------------------


def _embedded(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A RayCluster's spec in a RayJob, a RayService and a RayCronJob (the policies find cluster specs per kind)."""
    if doc.get("kind") != "RayCluster" or not isinstance(doc.get("spec"), dict):
        return []
    spec = copy.deepcopy(doc["spec"])
    name = "embedded"
    job = {"entrypoint": "python main.py", "shutdownAfterJobFinishes": True, "rayClusterSpec": spec}
    return [
        ("RayJob", {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": name}, "spec": job}),
        (
            "RayService",
            {
                "apiVersion": "ray.io/v1",
                "kind": "RayService",
                "metadata": {"name": name},
                "spec": {"serveConfigV2": "applications:\n- name: app\n  import_path: app:app\n  route_prefix: /\n", "rayClusterConfig": spec},
            },
        ),
        (
            "RayCronJob",
            {
                "apiVersion": "ray.io/v1",
                "kind": "RayCronJob",
                "metadata": {"name": name},
                "spec": {"schedule": "0 * * * *", "jobTemplate": copy.deepcopy(job)},
            },
        ),
    ]


def rule_example_cases() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for rule in rules.rules_of("document"):
        examples = [("compliant", rule.compliant), ("violating", rule.violating)]
        fixed = rule.fixed_example()
        if isinstance(fixed, dict):
            examples.append(("fixed", fixed))
        for which, doc in examples:
            if isinstance(doc, dict) and doc.get("kind") in admission.PLURALS:
                cases.append((f"rule {rule.id} {which}", doc))
    return cases


def sample_cases() -> list[tuple[str, dict[str, Any]]]:
    from _reference import sample_documents

    return [
        (f"sample {name}#{index}", doc)
        for name, index, doc in sample_documents()
        if doc.get("kind") in admission.PLURALS and str(doc.get("apiVersion", "")).startswith("ray.io/")
    ]


#: Names the API server's metadata validation accepts (DNS-1123 subdomains) but KubeRay may not: dots, a leading
#: digit, and lengths around each kind's limit.
NAMES = ["ray.cluster", "1cluster", "a" * 36, "a" * 37, "a" * 47, "a" * 48, "a" * 53, "a" * 54, "a" * 63]


#: rayVersion texts at the edges of k8s version.ParseGeneric (how the operator and the Python checks read it).
RAY_VERSIONS = [
    "2.52",
    "v2.52.0",
    " 2.52.0",
    "\t\n2.55.0",
    "2.52.0-rc1",
    "2.52.0 beta",
    "2.51.9",
    "2.052.0",
    "02.52.0",
    "0.52.0",
    "2.52.0\n",
    "2.54.9.1",
    "2.55.0.0",
    "2.55.99",
    "2.56",
    "v2.56.0-rc1",
    "3",
    "3.0",
    "18446744073709551615.0",
    "18446744073709551616.0",
    "000000000000000000000002.55",
    "99999999999999999999.1",
    "2.99999999999999999999",
    "latest",
    "2.x",
    "v",
    "",
]

#: ... and of Masterminds semver's NewVersion (how the operator reads it for the submitter's --metadata-json).
SEMVERS = [
    "2.6.0",
    "v2.6.0",
    "2.6",
    "3",
    "v3",
    "2.5.9",
    "2.6.0-rc1",
    "2.6.0+build.7",
    "2.6.0-01",
    "02.6.0",
    "2.06",
    "2.6.0.0",
    " 2.6.0",
    "2.6.0 ",
    "18446744073709551615",
    "18446744073709551616",
    "2",
    "latest",
]

#: Ray images whose tags show, hide or misstate the Ray release (probes-need-ray-2-53).
_DIGEST = "@sha256:" + "a" * 64
RAY_IMAGES = [
    "rayproject/ray:2.52.0",
    "rayproject/ray:2.53.0-py311",
    "rayproject/ray:2.9.3" + _DIGEST,
    "rayproject/ray" + _DIGEST,
    "rayproject/ray:nightly-gpu",
    "rayproject/ray:latest",
    "rayproject/ray",
    "rayproject/ray:gpu",
    "team/app:2.41.0",
    "localhost:5000/ray:2.41.0",
    "registry.example.com:5000/ml/Ray-custom:2.41.0",
    "rayproject/ray:02.41.0",
    "rayproject/ray:2.41",
    "rayproject/ray-ml:2.9.3-py310",
    "rayproject/ray:\u0662.\u0665\u0663.0",
    "rayproject/ray:${TAG}",
    "rayproject/ray:99999999999999999999.0.0",
    "rayproject/ray:3.0.0",
]


def _named(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return {**doc, "metadata": {**doc.get("metadata", {}), "name": name}}


def generated_cases() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for rule_id in ("cluster-name-invalid", "rayjob-name-too-long", "rayservice-name-too-long", "raycronjob-name-too-long"):
        compliant = rules.RULES[rule_id].compliant
        cases += [(f"{compliant['kind']} named {name!r}", _named(compliant, name)) for name in NAMES]
    auth = rules.RULES["auth-token-ray-version"].compliant
    for k8s_auth in (False, True):
        for version in RAY_VERSIONS:
            doc = copy.deepcopy(auth)
            doc["spec"]["rayVersion"] = version
            doc["spec"]["authOptions"]["enableK8sTokenAuth"] = k8s_auth
            cases.append((f"token auth (k8s {k8s_auth}) with rayVersion {version!r}", doc))
    priority = rules.RULES["worker-priority-unsupported"].compliant
    for version in RAY_VERSIONS:
        doc = copy.deepcopy(priority)
        doc["spec"]["rayVersion"] = version
        cases.append((f"worker priority with rayVersion {version!r}", doc))
    probes = rules.RULES["probes-need-ray-2-53"].compliant
    for image in RAY_IMAGES:
        exec_probe = {"exec": {"command": ["true"]}}
        for ray_version, probe in (("2.53.0", None), ("v2.60", None), ("2.52.9", None), ("2.53.0", exec_probe)):
            doc = copy.deepcopy(probes)
            doc["spec"]["rayVersion"] = ray_version
            for group in [doc["spec"]["headGroupSpec"], *doc["spec"]["workerGroupSpecs"]]:
                ray = group["template"]["spec"]["containers"][0]
                ray["image"] = image
                if probe is not None:
                    ray["livenessProbe"] = ray["readinessProbe"] = probe
            cases.append((f"image {image!r}, rayVersion {ray_version!r}{', probes set' if probe else ''}", doc))
    mismatch = rules.RULES["image-ray-version-mismatch"].compliant
    for image in RAY_IMAGES:
        for ray_version in ("2.52.0", "2.52", "2.41.0", "2.53.0", "3.0.0", ""):
            doc = copy.deepcopy(mismatch)
            doc["spec"]["rayVersion"] = ray_version
            doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["image"] = image
            cases.append((f"worker image {image!r} in a cluster of rayVersion {ray_version!r}", doc))
    metadata = rules.RULES["rayjob-metadata-requires-ray-2-6"].compliant
    for version in SEMVERS:
        doc = copy.deepcopy(metadata)
        doc["spec"]["rayClusterSpec"]["rayVersion"] = version
        cases.append((f"RayJob metadata with rayVersion {version!r}", doc))
    for rule in admission.covered_rules():
        for which, doc in (("violating", rule.violating), ("compliant", rule.compliant)):
            cases += [(f"rule {rule.id} {which} in a {kind}", d) for kind, d in _embedded(doc)]
    return cases + _near_valid_manifests(120)


def _near_valid_manifests(count: int) -> list[tuple[str, dict[str, Any]]]:
    """The oracle tier's near-valid manifests (a base of each kind with 1-3 mutations), drawn reproducibly."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from oracle._generate import mutated_manifests

    drawn: list[tuple[str, dict[str, Any]]] = []

    @settings(
        max_examples=count // 20,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(mutated_manifests(), min_size=20, max_size=20))
    def draw(batch: list[tuple[str, Any]]) -> None:
        drawn.extend((f"generated {tag}", doc) for tag, doc in batch if isinstance(doc, dict))

    draw()
    return drawn


# ---- the comparison -----------------------------------------------------------------------------------------


def expected_ids(doc: dict[str, Any], covered: set[str]) -> set[str]:
    return {f.rule_id for f in rules.check(doc, kuberay_version=REFERENCE_VERSION) if f.rule_id in covered}


@dataclass
class Tally:
    cases: int = 0
    agreements: int = 0
    refused_before_policies: list[str] = field(default_factory=list)
    warnings_cut: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    fired: Counter[str] = field(default_factory=Counter)

    def line(self, what: str) -> str:
        return (
            f"[admission policies] {what}: {self.cases} cases, {self.agreements} agree, {len(self.disagreements)} "
            f"disagree, {len(self.refused_before_policies)} refused by the CRD schema or metadata validation before "
            f"any policy, {len(self.warnings_cut)} with warnings cut by the API server's 4 KB budget"
        )


def compare(server: LocalApiServer, cases: list[tuple[str, dict[str, Any]]], tally: Tally) -> None:
    covered = {rule.id for rule in admission.covered_rules()}
    sent = [prepared(doc) for _, doc in cases]
    replies = dry_run_all(server, sent)
    for (label, _), doc, reply in zip(cases, sent, replies, strict=True):
        tally.cases += 1
        want = expected_ids(doc, covered)
        if reply.code != 201:
            tally.refused_before_policies.append(f"{label}: HTTP {reply.code}: {reply.message[:240]}")
            continue
        ours = [w for w in reply.warnings if _POLICY.search(w)]
        got = {rule_id for w in ours if (rule_id := _rule_named(w)) is not None}
        errors = [w for w in ours if not re.search(r"': [a-z0-9-]+ \((low|medium|high|critical)\): ", w)]
        tally.fired.update(got)
        if got == want and not errors:
            tally.agreements += 1
        elif got < want and sum(len(w) for w in reply.warnings) >= WARNING_BUDGET - 512:
            tally.warnings_cut.append(f"{label}: Python {sorted(want)}, API server kept {sorted(got)}")
        else:
            tally.disagreements.append(
                f"{label}: Python only {sorted(want - got)}, API server only {sorted(got - want)}"
                + (f"; evaluation errors: {errors}" if errors else "")
            )


def _ours(reply: Reply) -> str | None:
    """The rule whose policy refused the request with our message, or None."""
    rule_id = _rule_named(reply.message)
    if reply.code == 201 or rule_id is None:
        return None
    rule = rules.RULES.get(rule_id)
    return rule_id if rule is not None and f"{rule_id} ({rule.severity}): " in reply.message else None


def test_the_api_server_warns_about_exactly_what_the_python_checks_find(vap_apiserver: LocalApiServer) -> None:
    _apply(vap_apiserver, admission.admission_policies("dev", mode="warn", failure_policy="Fail"))
    _wait_until_active(vap_apiserver, "warn")
    tallies: dict[str, Tally] = {}
    for what, cases in (
        ("rule examples", rule_example_cases()),
        ("upstream samples", sample_cases()),
        ("generated", generated_cases()),
    ):
        started = time.monotonic()
        tally = tallies[what] = Tally()
        compare(vap_apiserver, cases, tally)
        sys.stderr.write(f"{tally.line(what)} ({time.monotonic() - started:.1f} s)\n")
        for line in tally.refused_before_policies:
            sys.stderr.write(f"  refused before the policies: {line}\n")
        for line in tally.warnings_cut:
            sys.stderr.write(f"  warnings cut: {line}\n")
    fired = sum((t.fired for t in tallies.values()), Counter[str]())
    never = sorted(rule.id for rule in admission.covered_rules() if not fired[rule.id])
    sys.stderr.write(f"[admission policies] covered rules that warned on no case: {never}\n")
    disagreements = [d for t in tallies.values() for d in t.disagreements]
    assert disagreements == [], "\n".join(disagreements)
    assert tallies["upstream samples"].cases > 80 and tallies["rule examples"].cases > 300
    assert not never, f"covered rules no case exercised: {never}"


def test_staging_policies_refuse_the_critical_violations_and_accept_every_sample(vap_apiserver: LocalApiServer) -> None:
    _delete_bindings(vap_apiserver)
    _apply(vap_apiserver, admission.admission_policies("staging"))
    _wait_until_active(vap_apiserver, "deny")
    covered = admission.covered_rules()
    covered_ids = {rule.id for rule in covered}
    replies = dry_run_all(vap_apiserver, [prepared(rule.violating) for rule in covered])
    problems: list[str] = []
    refused = 0
    before: list[str] = []
    for rule, reply in zip(covered, replies, strict=True):
        if reply.code != 201 and "ValidatingAdmissionPolicy" not in reply.message:
            before.append(f"{rule.id}: HTTP {reply.code}: {reply.message[:240]}")  # the CRD schema or metadata
            continue
        fired = expected_ids(prepared(rule.violating), covered_ids)
        critical = {rid for rid in fired if rules.RULES[rid].severity == "critical"}
        if critical:
            # The API server reports the first denying policy only: one of the critical rules that fire.
            name = _rule_named(reply.message)
            if reply.code == 201:
                problems.append(f"{rule.id}: the violating example was accepted")
            elif name not in critical or f"{name} (critical): " not in reply.message:
                problems.append(f"{rule.id}: refused without our message: HTTP {reply.code}: {reply.message[:300]}")
            else:
                refused += 1
        elif reply.code != 201 or not any(f"{rule.id} ({rule.severity}): " in w for w in reply.warnings):
            problems.append(f"{rule.id}: expected a warning, got HTTP {reply.code} {reply.message[:200]} {reply.warnings}")
    samples = sample_cases()
    sample_replies = dry_run_all(vap_apiserver, [prepared(doc) for _, doc in samples])
    samples_refused = 0
    for (label, doc), reply in zip(samples, sample_replies, strict=True):
        # A sample on which the Python check finds a critical covered rule is refused, as the pack refuses it.
        critical = {rid for rid in expected_ids(prepared(doc), covered_ids) if rules.RULES[rid].severity == "critical"}
        if reply.code != 201 and "ValidatingAdmissionPolicy" in reply.message:
            if _ours(reply) not in critical:
                problems.append(f"{label}: refused by a policy: HTTP {reply.code}: {reply.message[:300]}")
            samples_refused += 1
        elif reply.code != 201:
            before.append(f"{label}: HTTP {reply.code}: {reply.message[:240]}")  # the CRD schema refuses it
        elif critical:
            problems.append(f"{label}: Python finds {sorted(critical)}, accepted")
    sys.stderr.write(
        f"[admission policies] staging: {len(covered)} violating examples, {refused} refused by Deny with our message, "
        f"{len(before)} refused before any policy, {len(samples)} upstream samples sent, {samples_refused} refused by a "
        f"critical rule the Python check finds on them\n"
    )
    for line in before:
        sys.stderr.write(f"  refused before the policies: {line}\n")
    assert problems == [], "\n".join(problems)


def _suppressing(doc: dict[str, Any], rule_ids: set[str]) -> dict[str, Any]:
    """``doc`` with the suppression annotation (and a reason) of each of ``rule_ids``."""
    out = copy.deepcopy(doc)
    if rule_ids and isinstance(out.get("metadata"), dict):
        annotations = out["metadata"].setdefault("annotations", {})
        annotations.update({f"{rules.SUPPRESS_PREFIX}{rid}": "the deny-all phase isolates one rule" for rid in sorted(rule_ids)})
    return out


def test_deny_all_refuses_every_covered_violation_with_its_rule_and_no_sample_beyond_the_python_checks(
    vap_apiserver: LocalApiServer,
) -> None:
    """Every covered rule bound with Deny (a policy config making each mandatory), ``failurePolicy: Fail`` (an
    evaluation error refuses, and shows). The API server names the first denying policy only, so each violating
    example is sent with the other covered rules the Python check finds on it suppressed: it must be refused by its
    own rule's policy with our message. Each upstream sample, with the covered rules the Python check finds on it
    suppressed, must be accepted; sent as it is, one the Python check finds nothing on is accepted and any other
    is refused by one of the rules the Python check finds."""
    covered = admission.covered_rules()
    covered_ids = {rule.id for rule in covered}
    _delete_bindings(vap_apiserver)
    mandatory = dict.fromkeys(covered_ids, "mandatory")
    docs = admission.admission_policies("prod", levels=mandatory, failure_policy="Fail")
    assert all(d["spec"]["validationActions"] == ["Deny", "Audit"] for d in docs if d["kind"] == "ValidatingAdmissionPolicyBinding")
    _apply(vap_apiserver, docs)
    problems: list[str] = []
    examples: list[dict[str, Any]] = []
    for rule in covered:
        doc = prepared(rule.violating)
        isolated = _suppressing(doc, expected_ids(doc, covered_ids) - {rule.id})
        if expected_ids(isolated, covered_ids) != {rule.id}:
            problems.append(f"{rule.id}: its violating example, others suppressed, fires {sorted(expected_ids(isolated, covered_ids))}")
        examples.append(isolated)
    deadline = time.monotonic() + 120
    while True:  # bindings reach the admission plugin through informers, each in its own time
        replies = dry_run_all(vap_apiserver, examples)
        if all(r.code != 201 for r in replies) or time.monotonic() > deadline:
            break
        time.sleep(1)
    refused: list[str] = []
    before: list[str] = []
    for rule, reply in zip(covered, replies, strict=True):
        if reply.code != 201 and "ValidatingAdmissionPolicy" not in reply.message:
            before.append(f"{rule.id}: HTTP {reply.code}: {reply.message[:240]}")  # the API server's own validation
        elif _ours(reply) == rule.id:
            refused.append(rule.id)
        else:
            problems.append(f"{rule.id}: not refused by its own rule: HTTP {reply.code}: {reply.message[:300]}")
    samples = sample_cases()
    sent = [prepared(doc) for _, doc in samples]
    found = [expected_ids(doc, covered_ids) for doc in sent]
    as_is = dry_run_all(vap_apiserver, sent)
    suppressed = dry_run_all(vap_apiserver, [_suppressing(doc, ids) for doc, ids in zip(sent, found, strict=True)])
    accepted = samples_before = refused_samples = 0
    for (label, _), ids, reply, quiet in zip(samples, found, as_is, suppressed, strict=True):
        if reply.code != 201 and "ValidatingAdmissionPolicy" not in reply.message:
            samples_before += 1
            sys.stderr.write(f"  sample refused before the policies: {label}: HTTP {reply.code}: {reply.message[:240]}\n")
            continue
        if quiet.code != 201:
            problems.append(f"{label}: refused with {sorted(ids)} suppressed: HTTP {quiet.code}: {quiet.message[:300]}")
        if not ids and reply.code == 201:
            accepted += 1
        elif ids and _ours(reply) in ids:
            refused_samples += 1
        else:
            problems.append(f"{label}: Python finds {sorted(ids)}, the API server answers HTTP {reply.code}: {reply.message[:300]}")
    sys.stderr.write(
        f"[admission policies] deny-all: {len(covered)} covered rules, {len(refused)} violating examples refused by their "
        f"own rule with our message, {len(before)} refused first by the API server's own validation; "
        f"{len(samples)} upstream samples: {len(samples) - samples_before} accepted with the rules the Python check finds "
        f"suppressed ({accepted} as they are, {refused_samples} refused as they are by a rule the Python check finds), "
        f"{samples_before} refused before any policy\n"
    )
    for line in before:
        sys.stderr.write(f"  refused first by the API server: {line}\n")
    assert problems == [], "\n".join(problems)
    assert len(refused) + len(before) == len(covered)
