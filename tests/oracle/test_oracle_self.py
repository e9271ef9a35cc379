"""The oracle itself, held against what KubeRay's own Go unit tests expect (so a broken oracle that accepts or
rejects everything cannot make the differential tests pass). Each case cites the upstream test function of
the operator module (``controllers/ray/utils/validation_test.go`` unless said otherwise).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.rules._engine import LATEST_VERSION, format_version

from ._generate_base import IMAGE, base
from ._oracle import Oracle, child_errors, find_oracles

JsonDict = dict[str, Any]


def _named(kind: str, name: str) -> JsonDict:
    doc = base(kind)
    doc["metadata"]["name"] = name
    return doc


def _one(oracle: Oracle, doc: Any, gates: str = "default") -> JsonDict:
    (verdict,) = oracle.judge([doc], oracle.gates(gates))
    return verdict


def _operator_errors(verdict: JsonDict) -> str:
    assert verdict["apiServer"]["accepted"], verdict["apiServer"]["errors"]
    return " | ".join(verdict["operator"]["errors"])


def no_cron_before_1_6(oracle: Oracle) -> bool:
    """Before v1.6 there is no RayCronJob CRD: the API server refuses the kind (held here instead)."""
    if oracle.minor >= (1, 6):
        return False
    verdict = _one(oracle, base("RayCronJob"), "all")
    assert verdict["rejected"] and "no CRD serves ray.io/v1 RayCronJob" in verdict["apiServer"]["errors"][0]["detail"]
    return True


def test_every_minor_a_user_runs_is_judged() -> None:
    """The version we target (v1.7.0) is the default judge, and the newest v1.6 patch is judged too (live, or
    from its recording: tests/oracle/_recorded.py)."""
    oracles = find_oracles()
    if not oracles:
        pytest.skip("no oracle built (scripts/ensure-oracle)")
    versions = [o.operator_version for o in oracles]
    assert versions[0] == "v" + format_version(LATEST_VERSION), versions
    assert oracles[0].default_judge and not any(o.default_judge for o in oracles[1:])
    assert any(v.startswith("v1.6.") for v in versions), versions
    assert len(set(versions)) == len(versions), versions


def test_reports_its_operator_version_and_gate_defaults(oracle: Oracle) -> None:
    verdict = _one(oracle, base("RayCluster"))
    assert verdict["operatorVersion"] == oracle.operator_version
    assert oracle.operator_version.startswith("v1.")
    # Every gate the version registers (pkg/features defaultFeatureGates), with the defaults the catalogue
    # assumes at that version; a gate the catalogue knows that the version lacks cannot be on there.
    ours = rules.default_feature_gates(rules.parse_kuberay_version(oracle.kuberay_version))
    theirs = verdict["featureGates"]
    assert {g: v for g, v in theirs.items() if g in ours} == {g: ours[g] for g in theirs if g in ours}
    assert not [g for g in ours if g not in theirs and ours[g]], (ours, theirs)
    assert set(theirs) - set(ours) <= {"AsyncJobInfoQuery"}, set(theirs) - set(ours)  # the 1.6-only one


@pytest.mark.parametrize("kind", ["RayCluster", "RayJob", "RayService"])
def test_the_base_manifests_are_accepted(oracle: Oracle, kind: str) -> None:
    verdict = _one(oracle, base(kind))
    assert verdict["apiServer"]["accepted"] and verdict["operator"]["accepted"], verdict
    assert not verdict["rejected"]
    functions = [c["function"] for c in verdict["operator"]["checks"]]
    assert (
        functions[:2]
        == {
            "RayCluster": ["decode", "ValidateRayClusterMetadata"],
            "RayJob": ["decode", "ValidateRayJobMetadata"],
            "RayService": ["decode", "ValidateRayServiceMetadata"],
        }[kind]
    )
    if kind != "RayCluster":  # the RayCluster the RayJob/RayService creates is judged too
        assert any(
            c["object"].startswith("RayCluster/demo-") and c["function"] == "ValidateRayClusterSpec"
            for c in verdict["operator"]["checks"]
        )


def test_ray_job_name_length_as_in_TestValidateRayJobMetadata(oracle: Oracle) -> None:
    long, ok, digits = oracle.judge(
        [_named("RayJob", "j" * 48), _named("RayJob", "j" * 47), _named("RayJob", "1" * 47)], oracle.gates("default")
    )
    assert "RayJob name should be no more than 47 characters" in _operator_errors(long)
    assert ok["operator"]["accepted"], ok["operator"]["errors"]
    # A name of digits is not a DNS-1035 label; the API server (DNS-1123 subdomain) still takes it.
    assert "RayJob name should be a valid DNS1035 label" in _operator_errors(digits)


@pytest.mark.parametrize(
    ("timeout", "message"),
    [
        ("5m", None),
        ("300", None),
        ("0", "must be a positive"),
        ("-100", "must be a positive"),
        ("-5m", "must be a positive duration"),
        ("invalid", "invalid format"),
    ],
)
def test_initializing_timeout_as_in_TestValidateRayServiceMetadata(
    oracle: Oracle, timeout: str, message: str | None
) -> None:
    doc = base("RayService")
    doc["metadata"]["annotations"] = {"ray.io/initializing-timeout": timeout}
    errors = _operator_errors(_one(oracle, doc))
    if message is None:
        assert errors == ""
    else:
        assert message in errors


def test_cron_schedule_as_in_TestValidateRayCronJobSpec(oracle: Oracle) -> None:
    if no_cron_before_1_6(oracle):
        return
    bad = base("RayCronJob")
    bad["spec"]["schedule"] = "invalid cron"
    good, invalid = oracle.judge([base("RayCronJob"), bad], oracle.gates("all"))
    assert good["operator"]["accepted"], good["operator"]["errors"]
    assert "invalid cron schedule" in _operator_errors(invalid)


def test_cron_job_without_its_gate_is_ignored_not_rejected(oracle: Oracle) -> None:
    if no_cron_before_1_6(oracle):
        return
    verdict = _one(oracle, base("RayCronJob"), "default")
    assert verdict["operator"]["ignored"] and "RayCronJob feature gate" in verdict["operator"]["ignoredReason"]
    assert not verdict["rejected"]


def test_redis_username_as_in_TestValidateRayClusterSpecRedisUsername(oracle: Oracle) -> None:
    doc = base("RayCluster")
    doc["spec"]["headGroupSpec"]["rayStartParams"]["redis-username"] = "user"
    assert "cannot set redis username" in _operator_errors(_one(oracle, doc))


def test_min_over_max_as_in_TestValidateRayClusterSpec_WorkerGroupReplicaValidation(oracle: Oracle) -> None:
    doc = base("RayCluster")
    doc["spec"]["workerGroupSpecs"][0].update(minReplicas=3, maxReplicas=2, replicas=2)
    if oracle.minor < (1, 6):  # the replica checks came with v1.6 (ValidateRayClusterSpec)
        assert _operator_errors(_one(oracle, doc)) == ""
    else:
        assert "has minReplicas 3 greater than maxReplicas 2" in _operator_errors(_one(oracle, doc))


def test_replicas_over_max_are_corrected_not_rejected(oracle: Oracle) -> None:
    # GetWorkerGroupDesiredReplicas clamps replicas into [minReplicas, maxReplicas] (TestGetWorkerGroupDesiredReplicas).
    doc = base("RayCluster")
    doc["spec"]["workerGroupSpecs"][0].update(replicas=9, minReplicas=1, maxReplicas=3)
    verdict = _one(oracle, doc)
    assert not verdict["rejected"]
    assert verdict["corrected"] == [
        {
            "object": "RayCluster/demo",
            "field": "spec.workerGroupSpecs[0].replicas",
            "from": 9,
            "to": 3,
            "by": "GetWorkerGroupDesiredReplicas",
        }
    ]


def test_duplicate_group_names_only_the_webhook_rejects(oracle: Oracle) -> None:
    # pkg/webhooks/v1/raycluster_webhook_test.go: "when groupNames are not unique" / "should return error".
    doc = base("RayCluster")
    doc["spec"]["workerGroupSpecs"].append(copy.deepcopy(doc["spec"]["workerGroupSpecs"][0]))
    verdict = _one(oracle, doc)
    assert not verdict["rejected"]
    assert not verdict["webhooks"]["accepted"]
    assert "worker group names must be unique" in verdict["webhooks"]["errors"][0]


def test_the_webhook_also_judges_the_cluster_a_rayservice_creates(oracle: Oracle) -> None:
    # The RayService webhook does not look at groups, the RayCluster webhook does when the operator creates the
    # cluster (raycluster_webhook_test.go "when groupNames are not unique").
    doc = base("RayService")
    groups = doc["spec"]["rayClusterConfig"]["workerGroupSpecs"]
    groups.append(copy.deepcopy(groups[0]))
    verdict = _one(oracle, doc)
    assert not verdict["rejected"]
    assert verdict["webhooks"]["errors"] and "RayCluster/demo-" in verdict["webhooks"]["errors"][0]
    assert "worker group names must be unique" in verdict["webhooks"]["errors"][0]


def test_api_server_rejects_a_wrong_type_with_its_field_path(oracle: Oracle) -> None:
    doc = base("RayCluster")
    doc["spec"]["workerGroupSpecs"][0]["replicas"] = "two"
    verdict = _one(oracle, doc)
    assert verdict["rejected"] and not verdict["apiServer"]["accepted"]
    # The CEL rules are then skipped; the API server says so in a second error without a field path.
    assert verdict["apiServer"]["errors"][0]["field"] == "spec.workerGroupSpecs[0].replicas"


def test_api_server_prunes_unknown_fields_and_applies_defaults(oracle: Oracle) -> None:
    doc = base("RayJob")
    doc["spec"]["fooBar"] = 1
    verdict = _one(oracle, doc)
    assert verdict["apiServer"]["pruned"] == ["spec.fooBar"]
    stored = verdict["apiServer"]["object"]
    assert "fooBar" not in stored["spec"]
    assert stored["spec"]["submissionMode"] == "K8sJobMode"  # the CRD's default


def test_yaml_that_is_not_json_is_refused(oracle: Oracle) -> None:
    verdict = _one(oracle, "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: a}\nspec: {x: .nan}\n")
    assert verdict["rejected"] and "JSON" in verdict["apiServer"]["errors"][0]["detail"]


def test_many_documents_per_call_keep_their_order(oracle: Oracle) -> None:
    docs = [_named("RayCluster", f"c{i}") for i in range(25)]
    assert [v["name"] for v in oracle.judge(docs, oracle.gates("default"))] == [f"c{i}" for i in range(25)]


# --------------------------------------------------------------------------------------------------
# The children: what the operator builds from an accepted object, judged by the API server's own validation


def _children(verdict: JsonDict) -> list[tuple[str, str, bool]]:
    return [(c["kind"], c["role"], c["accepted"]) for c in verdict["children"]]


@pytest.mark.parametrize("kind", ["RayCluster", "RayJob", "RayService"])
def test_the_children_of_the_base_manifests_are_accepted(oracle: Oracle, kind: str) -> None:
    """buildHeadPod, buildWorkerPod, BuildServiceForHeadPod (and a RayJob's submitter Job) pass ValidatePodCreate,
    ValidateServiceCreate and ValidateJob."""
    verdict = _one(oracle, base(kind))
    expected = [("Pod", "head", True), ("Pod", "worker:cpu", True), ("Service", "head-service", True)]
    if kind == "RayJob":
        expected.append(("Job", "submitter", True))
    assert _children(verdict) == expected
    assert verdict["childrenAccepted"] is True and child_errors(verdict) == []
    functions = {c["kind"]: c["function"] for c in verdict["children"]}
    expected_functions = {"Pod": "ValidatePodCreate", "Service": "ValidateServiceCreate"}
    if kind == "RayJob":
        expected_functions["Job"] = "ValidateJob"
    assert functions == expected_functions


def test_a_cloud_identity_as_service_account_refuses_every_pod_at_its_cr_path(oracle: Oracle) -> None:
    """kubectl-ray's complete sample: the RayCluster is stored (rejected stays false), its Pods are refused by
    ValidateServiceAccountName, each error at the field of the RayCluster it came from."""
    doc = base("RayCluster")
    for group in (doc["spec"]["headGroupSpec"], doc["spec"]["workerGroupSpecs"][0]):
        group["template"]["spec"]["serviceAccountName"] = "my-service-account@my-project.iam.gserviceaccount.com"
    verdict = _one(oracle, doc)
    assert verdict["rejected"] is False and verdict["childrenAccepted"] is False
    assert _children(verdict) == [("Pod", "head", False), ("Pod", "worker:cpu", False), ("Service", "head-service", True)]
    assert [(e["field"], e["childField"], e["type"]) for e in child_errors(verdict)] == [
        ("spec.headGroupSpec.template.spec.serviceAccountName", "spec.serviceAccountName", "FieldValueInvalid"),
        ("spec.workerGroupSpecs[0].template.spec.serviceAccountName", "spec.serviceAccountName", "FieldValueInvalid"),
    ]


def test_errors_of_a_rayservice_cluster_are_at_its_rayclusterconfig(oracle: Oracle) -> None:
    doc = base("RayService")
    head = doc["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"] = [{"name": "dashboard", "containerPort": 8265}, {"name": "Serve_Port", "containerPort": 8000}]
    errors = [(e["field"], e["object"].split("/")[0]) for e in child_errors(_one(oracle, doc))]
    assert ("spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports[1].name", "Pod") in errors
    # the head Service is named after the head's ports (getServicePorts): its error points at them
    assert ("spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports", "Service") in errors


def test_a_submitter_template_without_restart_policy_refuses_the_job(oracle: Oracle) -> None:
    """getSubmitterTemplate keeps the user's template; ValidateJob wants OnFailure or Never (unset: Always)."""
    doc = base("RayJob")
    doc["spec"]["submitterPodTemplate"] = {"spec": {"containers": [{"name": "submitter", "image": IMAGE}]}}
    verdict = _one(oracle, doc)
    assert verdict["rejected"] is False
    assert [(e["field"], e["childField"]) for e in child_errors(verdict)] == [
        ("spec.submitterPodTemplate.spec.restartPolicy", "spec.template.spec.restartPolicy")
    ]
    doc["spec"]["submitterPodTemplate"]["spec"]["restartPolicy"] = "Never"
    assert _one(oracle, doc)["childrenAccepted"] is True


def test_a_rejected_object_has_no_children(oracle: Oracle) -> None:
    doc = base("RayCluster")
    doc["spec"]["workerGroupSpecs"][0]["replicas"] = "two"  # the CRD's schema: the API server refuses it
    verdict = _one(oracle, doc)
    assert verdict["rejected"] is True and verdict["children"] == [] and verdict["childrenAccepted"] is True
