"""Server-side dry-run against the **v1.7.0** CRDs: what our stacks render and what our catalogue passes is
accepted with nothing pruned; what our catalogue rejects for a schema reason is rejected too.

The CRDs live in a second kube-apiserver (fixture ``reference_apiserver``) that shares the control plane's
etcd under its own ``--etcd-prefix``. Swapping the CRDs of the main API server instead would put v1.7.0 schemas
under the running v1.6.1 operator (and under any test running beside this one) for the duration; a second API
server isolates the step, costs one process (~15 s to start) and needs no controller, since a dry-run
request is answered by the API server alone (schema validation, defaulting, pruning, CEL rules).

Requests go straight to the REST API (``dryRun=All``), ``fieldValidation=Strict`` so an unknown field is an
error rather than silently pruned; pruning is checked anyway by comparing the returned object with the sent
one (every sent field must come back with the same value; defaults may be added).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine.conftest import REPO_VENV
from pulumi_kuberay import rules
from pulumi_kuberay.rules import SCHEMA_RULE_PREFIX

from .conftest import TESTS_DIR, ExtraApiServer, LocalCluster, extra_apiserver, not_returned

REFERENCE_VERSION = "1.7.0"
NAMESPACE = "dry-run"
STACKS = ("dev", "staging", "prod", "local")
PLURALS = {"RayCluster": "rayclusters", "RayJob": "rayjobs", "RayService": "rayservices", "RayCronJob": "raycronjobs"}


@pytest.fixture(scope="module")
def reference_apiserver(
    local_cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ExtraApiServer]:
    from _reference import require_reference

    crds = require_reference() / "kuberay" / f"v{REFERENCE_VERSION}" / "crds"
    work = tmp_path_factory.mktemp("reference-apiserver")
    with extra_apiserver(local_cluster, work, f"/kuberay-v{REFERENCE_VERSION}-reference") as server:
        server.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(crds))
        server.kubectl("wait", "--for=condition=Established", "--timeout=120s", "-f", str(crds))
        server.kubectl("create", "namespace", NAMESPACE, check=False)
        # A CRD is served a moment after Established; the first dry-run would 404 otherwise.
        time.sleep(2)
        yield server


def prepared(manifest: dict[str, Any]) -> dict[str, Any]:
    """The object as sent: in the dry-run namespace; nothing else changed."""
    return {**manifest, "metadata": {**manifest.get("metadata", {}), "namespace": NAMESPACE}}


def rendered_stack_manifests() -> list[tuple[str, dict[str, Any]]]:
    proc = subprocess.run(
        [str(REPO_VENV / "bin" / "python"), str(Path(__file__).with_name("_render_stacks.py")), *STACKS],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=TESTS_DIR.parent,
        env={**os.environ, "PYTHONPATH": str(TESTS_DIR)},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    by_stack: dict[str, list[dict[str, Any]]] = json.loads(proc.stdout)
    return [(f"{stack}: {m['kind']} {m['metadata']['name']}", m) for stack, docs in by_stack.items() for m in docs]


def schema_findings(manifest: dict[str, Any]) -> list[rules.Finding]:
    return [
        f
        for f in rules.check(manifest, kuberay_version=REFERENCE_VERSION)
        if f.rule_id.startswith(SCHEMA_RULE_PREFIX) and f.severity == "critical"
    ]


def critical(manifest: dict[str, Any]) -> list[rules.Finding]:
    return [f for f in rules.check(manifest, kuberay_version=REFERENCE_VERSION) if f.severity == "critical"]


def test_every_rendered_stack_manifest_is_accepted_and_nothing_is_pruned(reference_apiserver: ExtraApiServer) -> None:
    manifests = rendered_stack_manifests()
    assert {label.split(":")[0] for label, _ in manifests} == set(STACKS)
    problems: list[str] = []
    for label, manifest in manifests:
        sent = prepared(manifest)
        code, got = reference_apiserver.dry_run_create(sent)
        if code != 201:
            problems.append(f"{label}: HTTP {code}: {got.get('message', got)}")
            continue
        problems += [f"{label}: {p}" for p in not_returned(sent, got)]
    print(f"dry-run of {len(manifests)} rendered stack manifests against the v{REFERENCE_VERSION} CRDs")
    assert problems == [], "\n".join(problems)


def test_samples_the_catalogue_passes_are_accepted_and_those_it_rejects_for_schema_are_rejected(
    reference_apiserver: ExtraApiServer,
) -> None:
    from _reference import sample_documents

    accepted = rejected = 0
    problems: list[str] = []
    for name, index, doc in sample_documents():
        if doc.get("kind") not in PLURALS:
            continue
        label = f"{name}#{index} {doc['kind']} {doc.get('metadata', {}).get('name')}"
        sent = prepared(doc)
        code, got = reference_apiserver.dry_run_create(sent)
        if schema_findings(doc):
            rejected += 1
            if code == 201:
                problems.append(
                    f"{label}: our catalogue rejects it for a schema reason "
                    f"({[f.rule_id for f in schema_findings(doc)]}) but the API server accepted it"
                )
        elif not critical(doc):
            accepted += 1
            if code != 201:
                problems.append(
                    f"{label}: our catalogue passes it but the API server says HTTP {code}: {got.get('message', got)}"
                )
            else:
                problems += [f"{label}: {p}" for p in not_returned(sent, got)]
    print(f"samples: {accepted} passed by the catalogue and checked accepted, {rejected} rejected for schema")
    assert accepted > 0
    assert problems == [], "\n".join(problems)


def test_objects_the_catalogue_rejects_for_a_schema_reason_are_rejected(reference_apiserver: ExtraApiServer) -> None:
    cases = [rule for rule in rules.RULES.values() if rule.id.startswith(SCHEMA_RULE_PREFIX)]
    assert len(cases) >= 4
    problems: list[str] = []
    for rule in cases:
        doc = rule.violating
        assert rule.id in {f.rule_id for f in schema_findings(doc)}, rule.id
        code, got = reference_apiserver.dry_run_create(prepared(doc))
        if code == 201:
            problems.append(f"{rule.id}: the violating example was accepted: {not_returned(prepared(doc), got)}")
        else:
            sys.stderr.write(f"{rule.id}: rejected with HTTP {code}: {got.get('message', '')[:300]}\n")
        # And its compliant example is accepted, so a rejection is about the violation.
        ok_code, ok_got = reference_apiserver.dry_run_create(prepared(rule.compliant))
        if ok_code != 201:
            problems.append(f"{rule.id}: the compliant example was rejected: {ok_got.get('message', ok_got)}")
    assert problems == [], "\n".join(problems)
