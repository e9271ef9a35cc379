"""Every document the API server stores loads (``load_manifest``, ``load_stored``) and converts (``kuberay-convert``):
what only the operator, Ray or the Pods' admission refuses is not a model error but a finding of the rule catalogue,
with its severity. From Python (the components' args) the same spec is refused with a clear error.

Each case is a mistake the CRD's schema (types, enums, required fields, CEL rules) does not make.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.convert import convert_documents
from pulumi_kuberay.model.manifest import load_manifest, load_stored, manifest_class
from pulumi_kuberay.rules._examples import (
    base_cluster,
    example_cronjob,
    example_job,
    example_service,
    selector_job,
    worker_of,
)
from pydantic import ValidationError


def _cluster(**worker: Any) -> dict[str, Any]:
    doc = base_cluster()
    worker_of(doc).update(worker)
    return doc


def _toleration() -> dict[str, Any]:
    doc = base_cluster()
    worker_of(doc)["template"]["spec"]["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exist"}]
    return doc


def _selector(**spec: Any) -> dict[str, Any]:
    doc = selector_job()
    doc["spec"].update(spec)
    return doc


def _cron(**spec: Any) -> dict[str, Any]:
    doc = example_cronjob()
    doc["spec"].update(spec)
    return doc


def _cron_without_cluster() -> dict[str, Any]:
    doc = example_cronjob()
    template = doc["spec"]["jobTemplate"]
    for key in ("rayClusterSpec", "shutdownAfterJobFinishes", "ttlSecondsAfterFinished"):
        template.pop(key, None)
    return doc


def _job_without_cluster() -> dict[str, Any]:
    return example_job(rayClusterSpec=None, shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None)


_WORKER = "spec.workerGroupSpecs[0]"

#: (document, the rule that reports it, its path, refused from Python)
CASES: dict[str, tuple[Callable[[], dict[str, Any]], str, str, bool]] = {
    "min-exceeds-max": (lambda: _cluster(minReplicas=4, maxReplicas=2, replicas=2), "worker-min-exceeds-max", f"{_WORKER}.minReplicas", True),
    "negative-min": (lambda: _cluster(minReplicas=-1), "worker-replicas-negative", f"{_WORKER}.minReplicas", True),
    "toleration-operator": (_toleration, "pod-spec-value-invalid", f"{_WORKER}.template.spec.tolerations[0].operator", True),
    "runtime-env-list": (lambda: _selector(runtimeEnvYAML="- pip\n"), "rayjob-runtime-env-yaml-invalid", "spec.runtimeEnvYAML", True),
    "entrypoint-resources": (lambda: _selector(entrypointResources="[1]"), "schema-invalid-value", "spec.entrypointResources", True),
    "selector-without-name": (lambda: _selector(clusterSelector={"app": "x"}), "rayjob-cluster-selector-name-empty", "spec.clusterSelector", True),
    "no-cluster-source": (_job_without_cluster, "rayjob-cluster-source-missing", "spec", False),  # cluster= may give it
    "cron-schedule": (lambda: _cron(schedule="0 0 2 * * *"), "raycronjob-schedule-invalid", "spec.schedule", True),
    "cron-time-zone": (lambda: _cron(timeZone="Mars/Olympus"), "raycronjob-timezone-invalid", "spec.timeZone", True),
    "cron-no-cluster": (_cron_without_cluster, "rayjob-cluster-source-missing", "spec.jobTemplate", True),
}


def _without_nulls(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: _without_nulls(v) if isinstance(v, dict) else v for k, v in doc.items() if v is not None}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_document_the_api_server_stores_loads_converts_and_is_reported(case: str) -> None:
    build, rule, path, python_refuses = CASES[case]
    doc = _without_nulls(build())
    assert load_manifest(copy.deepcopy(doc)).to_manifest() == doc
    assert load_stored(doc).stored == doc
    gates = {"RayCronJob": True} if doc["kind"] == "RayCronJob" else None  # the operator acts on RayCronJobs
    found = [(f.rule_id, f.path) for f in rules.check(copy.deepcopy(doc), feature_gates=gates) if f.severity == "critical"]
    assert (rule, path) in found
    result = convert_documents([(doc, "stored.yaml:1")])
    assert result.errors == []
    assert f"critical [{rule}]" in result.text
    cls = manifest_class(doc["kind"])
    assert cls is not None
    spec_model = cls.model_fields["spec"].annotation
    assert isinstance(spec_model, type)
    if python_refuses:
        with pytest.raises(ValidationError):
            spec_model.model_validate(doc["spec"])
    else:
        spec_model.model_validate(doc["spec"])


_REFUSED_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exist"}


def _with_tolerations(doc: dict[str, Any], *cluster_keys: str, submitter: tuple[str, ...] | None) -> dict[str, Any]:
    """``doc`` with a refused toleration in the head and worker templates of the cluster spec at ``cluster_keys``,
    and in a submitter template at ``submitter``."""
    cluster = doc
    for key in cluster_keys:
        cluster = cluster[key]
    cluster["headGroupSpec"]["template"]["spec"]["tolerations"] = [dict(_REFUSED_TOLERATION)]
    cluster["workerGroupSpecs"][0]["template"]["spec"]["tolerations"] = [dict(_REFUSED_TOLERATION)]
    if submitter is not None:
        parent = doc
        for key in submitter:
            parent = parent[key]
        template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "submitter", "image": "rayproject/ray:2.52.0"}]}}
        template["spec"]["tolerations"] = [dict(_REFUSED_TOLERATION)]
        parent["submitterPodTemplate"] = template
    return doc


@pytest.mark.parametrize(
    ("doc", "cluster", "submitter"),
    [
        (_with_tolerations(base_cluster(), "spec", submitter=None), "spec", None),
        (_with_tolerations(example_job(), "spec", "rayClusterSpec", submitter=("spec",)), "spec.rayClusterSpec", "spec"),
        (_with_tolerations(example_service(), "spec", "rayClusterConfig", submitter=None), "spec.rayClusterConfig", None),
        (
            _with_tolerations(example_cronjob(), "spec", "jobTemplate", "rayClusterSpec", submitter=("spec", "jobTemplate")),
            "spec.jobTemplate.rayClusterSpec",
            "spec.jobTemplate",
        ),
    ],
    ids=["RayCluster", "RayJob", "RayService", "RayCronJob"],
)
def test_a_refused_toleration_is_recorded_in_every_pod_template(
    doc: dict[str, Any], cluster: str, submitter: str | None
) -> None:
    """``pod_refusals`` walks only the fields whose type may hold a toleration: it still finds one in each template."""
    expected = [
        f"{cluster}.headGroupSpec.template.spec.tolerations[0].operator",
        f"{cluster}.workerGroupSpecs[0].template.spec.tolerations[0].operator",
    ]
    if submitter is not None:
        expected.append(f"{submitter}.submitterPodTemplate.spec.tolerations[0].operator")
    assert sorted(p.path for p in load_stored(doc).pod_refusals) == sorted(expected)


def test_the_count_of_recorded_refusals_grows_only_with_a_refused_toleration() -> None:
    """``refusals_recorded``: the schema rules walk a loaded model for a toleration's refusal only when loading it
    counted one (most manifests: none, no walk)."""
    from pulumi_kuberay.model import refusals_recorded

    before = refusals_recorded()
    load_manifest(_cluster(template={"spec": {"containers": [{"name": "ray-worker", "image": "rayproject/ray"}]}}))
    assert refusals_recorded() == before
    load_manifest(_toleration())
    assert refusals_recorded() == before + 1
    from pulumi_kuberay.rules import schema

    loaded = schema._load(_toleration())  # the schema rules' load: the refusal walked for and found
    assert [p.path for p in loaded.problems] == ["spec.workerGroupSpecs[0].template.spec.tolerations[0].operator"]
    assert schema._load(_cluster()).problems == ()
