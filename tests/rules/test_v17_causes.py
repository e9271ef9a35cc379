"""One test per cause of a disagreement the KubeRay v1.7.0 oracle (``tests/oracle``) found, with the Go function
whose behaviour the catalogue now follows. The promise: critical = the operator or the API server rejects;
what the operator accepts and ignores is high, and says so.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.model.manifest import load_manifest
from pulumi_kuberay.rules._examples import example_cluster_spec, example_cronjob, example_job, example_service

Found = list[tuple[str, str, str]]


def found(doc: dict[str, Any], version: str = "1.7.0", **gates: bool) -> Found:
    """``(rule id, severity, path)`` of the high and critical findings."""
    return [
        (f.rule_id, f.severity, f.path)
        for f in rules.check(doc, kuberay_version=version, feature_gates=gates or None)
        if f.severity in ("high", "critical")
    ]


def critical(doc: dict[str, Any], version: str = "1.7.0", **gates: bool) -> list[str]:
    return [rule for rule, severity, _ in found(doc, version, **gates) if severity == "critical"]


def cluster(**spec: Any) -> dict[str, Any]:
    out = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "c"}}
    out["spec"] = {**example_cluster_spec(), **spec}
    return out


# --------------------------------------------------------------------------------------------------
# Accepted and ignored: high, not critical.


def test_a_raycronjob_with_its_gate_off_is_ignored_and_its_operator_findings_are_not_enforced() -> None:
    # RayCronJob controller not started (main.go: only with the gate); the API server still judges the object.
    cron = example_cronjob("c" * 40)  # 40 > MaxRayCronJobNameLength: ValidateRayCronJobSpec would reject it
    result = found(cron)
    assert ("feature-gate-disabled", "high", "kind") in result
    assert ("raycronjob-name-too-long", "high", "metadata.name") in result
    assert critical(cron) == []
    assert "raycronjob-name-too-long" in critical(cron, RayCronJob=True)
    # what the API server rejects stays critical: the CRD's minLength on timeZone
    assert critical(example_cronjob(timeZone="")) == ["raycronjob-timezone-empty"]


def test_an_unknown_submission_mode_is_accepted_and_ignored() -> None:
    # RayJobReconciler has no branch for it; the CRD has no enum (the oracle: operator.inert)
    job = example_job(submissionMode="HttpMode")
    assert found(job) == [("rayjob-submission-mode-unknown", "high", "spec.submissionMode")]
    assert load_manifest(job).spec.submission_mode == "HttpMode"


def test_a_cluster_spec_beside_a_cluster_selector_is_ignored_not_rejected() -> None:
    # ValidateRayJobSpec allows both; getOrCreateRayClusterInstance uses the selected cluster
    job = example_job(clusterSelector={"ray.io/cluster": "shared"}, shutdownAfterJobFinishes=None)
    job["spec"].pop("ttlSecondsAfterFinished")
    assert found(job) == [("rayjob-cluster-spec-ignored", "high", "spec.rayClusterSpec")]


def test_an_incremental_upgrade_with_its_gate_off_is_ignored() -> None:
    # isZeroDowntimeUpgradeEnabled: without the gate only NewCluster upgrades; ValidateRayServiceSpec accepts it
    service = example_service(upgradeStrategy={"type": "NewClusterWithIncrementalUpgrade"})
    assert ("feature-gate-disabled", "high", "spec.upgradeStrategy.type") in found(
        service, RayServiceIncrementalUpgrade=False
    )
    assert critical(service, RayServiceIncrementalUpgrade=False) == []


def test_a_suspended_raycronjob_does_not_fail_at_run_time_yet() -> None:
    # no RayJob is created while suspended: the run-time failures (OP- rows) come once it is resumed, while
    # ValidateRayCronJobSpec keeps checking the template
    cron = example_cronjob(suspend=True, jobTemplate={**example_cronjob()["spec"]["jobTemplate"], "metadata": {"a": "b"}})
    cron["spec"]["jobTemplate"]["rayClusterSpec"]["rayVersion"] = "nightly"  # the submit command cannot be built
    head = cron["spec"]["jobTemplate"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"] = [{"name": "serve", "containerPort": 8000}]
    suspended = [(r, s) for r, s, _ in found(cron, RayCronJob=True)]
    assert ("head-dashboard-port-missing", "high") in suspended
    assert ("rayjob-metadata-requires-ray-2-6", "high") in suspended
    cron["spec"]["suspend"] = False
    assert {"head-dashboard-port-missing", "rayjob-metadata-requires-ray-2-6"} <= set(critical(cron, RayCronJob=True))


# --------------------------------------------------------------------------------------------------
# Too strict: what v1.7.0 accepts.


def test_an_upgrade_strategy_without_type_panics_only_before_v1_7() -> None:
    # v1.7.0's IsIncrementalUpgradeEnabled checks the type for nil
    service = example_service(upgradeStrategy={})
    assert "rayservice-upgrade-type-missing" not in critical(service, RayServiceIncrementalUpgrade=True)
    assert "rayservice-upgrade-type-missing" in critical(service, "1.6.0", RayServiceIncrementalUpgrade=True)


@pytest.mark.parametrize(("path", "severity"), [("/etc/ray/tls", "critical"), ("/etc/ray/tls/", "high")])
def test_the_tls_mount_path_is_compared_exactly(path: str, severity: str) -> None:
    # validateNoConflictingTLSVolumeMount: m.MountPath == RayTLSCertMountPath
    doc = cluster(tlsOptions={"enabled": True})
    doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["volumeMounts"] = [
        {"name": "certs", "mountPath": path}
    ]
    assert [s for r, s, _ in found(doc, RayClusterMTLS=True) if r == "tls-reserved-mounts"] == [severity]


@pytest.mark.parametrize(("how", "rejected"), [("version", True), ("env", False)])
def test_the_v2_restart_policy_check_reads_the_version_only(how: str, rejected: bool) -> None:
    # ValidateRayClusterSpec: IsAutoscalingV2Enabled checks autoscalerOptions.version == v2, not the env var
    doc = cluster(enableInTreeAutoscaling=True)
    if how == "version":
        doc["spec"]["autoscalerOptions"] = {"version": "v2"}
    else:
        doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["env"] = [
            {"name": "RAY_enable_autoscaler_v2", "value": "true"}
        ]
    doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["restartPolicy"] = "OnFailure"
    assert ("autoscaler-v2-restart-policy" in critical(doc)) is rejected


@pytest.mark.parametrize(("zone", "ok"), [("Local", True), ("UTC", True), ("EST", True), (" UTC", False)])
def test_time_zones_as_time_load_location(zone: str, ok: bool) -> None:
    cron = example_cronjob(timeZone=zone)
    assert (critical(cron, RayCronJob=True) == []) is ok


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("pip: [requests]\n---\n- not read\n", True),  # the first document only (sigs.k8s.io/yaml.Unmarshal)
        ("---\npip: [requests]\n", True),
        ("env_vars: {A: .nan}\n", False),  # YAML to JSON: "json: unsupported value: NaN"
        ("x: -.inf\n", False),
        ("- a\n- b\n", False),
    ],
)
def test_runtime_env_yaml_as_unmarshal_runtime_env_yaml(text: str, ok: bool) -> None:
    job = example_job(runtimeEnvYAML=text)
    assert ("rayjob-runtime-env-yaml-invalid" not in critical(job)) is ok


# --------------------------------------------------------------------------------------------------
# Too lax: what v1.7.0 rejects.


@pytest.mark.parametrize(
    "options",
    [
        {"redisUsername": {}},  # a non-nil pointer in Go, however empty
        {"redisPassword": {}},
        {"storage": {"claimName": "gcs", "storageClassName": ""}},  # *string: "" is set
    ],
)
def test_rocksdb_options_are_set_as_go_sees_them(options: dict[str, Any]) -> None:
    # validateGcsFaultToleranceBackend
    doc = cluster(gcsFaultToleranceOptions={"backend": "rocksdb", **options})
    assert "gcs-ft-rocksdb-conflicts" in critical(doc, GCSFaultToleranceEmbeddedStorage=True)


def test_the_gcs_storage_size_must_be_a_quantity() -> None:
    # the CRD's quantity pattern ("should match")
    doc = cluster(gcsFaultToleranceOptions={"backend": "rocksdb", "storage": {"size": "bad"}})
    assert {"schema-wrong-type", "schema-invalid-value"} & set(critical(doc, GCSFaultToleranceEmbeddedStorage=True))


def _collector(*env: tuple[str, str]) -> dict[str, Any]:
    collector = {"image": "collector:1", "env": [{"name": n, "value": v} for n, v in env]}
    return cluster(historyServerOptions={"collectorOptions": collector})


@pytest.mark.parametrize(
    ("env", "rejected"),
    [
        ((("STORAGE_BACKEND", "S3"), ("STORAGE_BACKEND", "gcs"), ("GCS_BUCKET", "")), True),  # the last one wins
        ((("STORAGE_BACKEND", "GCS"), ("GCS_BUCKET", ""), ("GCS_BUCKET", "b")), False),
        ((("STORAGE_BACKEND", " S3 "),), False),  # upper-cased, not trimmed: no backend matches, no check
        ((("STORAGE_BACKEND", "AzureBlob"), ("AZURE_STORAGE_AUTH_MODE", " Connection_String ")), True),
    ],
)
def test_the_collector_env_as_validate_collector_options(env: tuple[tuple[str, str], ...], rejected: bool) -> None:
    doc = _collector(*env)
    assert ("history-collector-storage-env" in critical(doc, RayClusterHistoryServer=True)) is rejected


@pytest.mark.parametrize("where", ["containers", "ports", "volumes", "env", "workerGroupSpecs"])
def test_a_null_list_item_is_rejected(where: str) -> None:
    # the v1.7.0 CRD: "must be of type object"
    doc = cluster()
    head = doc["spec"]["headGroupSpec"]["template"]["spec"]
    {
        "containers": lambda: head.update(containers=[None]),
        "ports": lambda: head["containers"][0].update(ports=[{"containerPort": 8265, "name": "dashboard"}, None]),
        "volumes": lambda: head.update(volumes=[None]),
        "env": lambda: head["containers"][0].update(env=[None]),
        "workerGroupSpecs": lambda: doc["spec"].update(workerGroupSpecs=[None]),
    }[where]()
    assert "schema-wrong-type" in critical(doc)


def test_a_null_pod_template_spec_leaves_no_container() -> None:
    # the API server drops a null non-nullable property; ValidateRayClusterSpec then finds no container
    doc = cluster()
    doc["spec"]["headGroupSpec"]["template"]["spec"] = None
    assert "pod-template-no-containers" in critical(doc)


def test_a_generated_raycronjob_name_counts_its_suffix() -> None:
    cron = example_cronjob("x")
    del cron["metadata"]["name"]
    cron["metadata"]["generateName"] = "g" * 33  # + 5 random characters = 38 > 36
    assert ("raycronjob-name-too-long", "critical", "metadata.generateName") in found(cron, RayCronJob=True)


def test_with_the_webhooks_on_a_managed_by_object_still_needs_a_valid_name() -> None:
    # the RayJob webhook runs ValidateRayJobMetadata whoever manages the object
    job = example_job("1job", managedBy="kueue.x-k8s.io/multikueue")
    assert "rayjob-name-not-dns1035" in [
        f.rule_id for f in rules.check(job, webhooks=True) if f.severity == "critical"
    ]
    assert "rayjob-name-not-dns1035" not in [f.rule_id for f in rules.check(job) if f.severity == "critical"]


def test_only_the_objects_own_webhook_judges_a_managed_by_object() -> None:
    # the RayJob webhook checks its metadata; the worker group names (WH-02) only the RayCluster webhook, on the
    # RayCluster the operator would create, which it does not for a job managed elsewhere
    job = example_job(managedBy="kueue.x-k8s.io/multikueue")
    groups = job["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    groups.append(copy.deepcopy(groups[0]))
    assert "worker-group-names-unique" not in [
        f.rule_id for f in rules.check(job, webhooks=True) if f.severity == "critical"
    ]


def test_a_raycronjob_whose_jobs_are_managed_elsewhere_has_no_dashboard_to_find() -> None:
    cron = example_cronjob()
    cron["spec"]["jobTemplate"]["managedBy"] = "kueue.x-k8s.io/multikueue"
    head = cron["spec"]["jobTemplate"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"] = [{"name": "http", "containerPort": 8000}]
    assert "head-dashboard-port-missing" not in [r for r, _, _ in found(cron, RayCronJob=True)]


def test_the_ports_of_an_ignored_cluster_spec_do_not_matter() -> None:
    # clusterSelector set: getOrCreateRayClusterInstance uses the selected cluster, this head never exists
    job = example_job(clusterSelector={"ray.io/cluster": "shared"})
    head = job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"] = [{"name": "http", "containerPort": 8000}]
    assert "head-dashboard-port-missing" not in critical(job)


# --------------------------------------------------------------------------------------------------
# Version awareness (the oracles of v1.6.2 and v1.5.2).


def test_auth_options_came_with_v1_5_1_and_its_token_fields_with_v1_6() -> None:
    doc = cluster(authOptions={"mode": "token"}, rayVersion="2.46.0")
    assert "auth-token-ray-version" in critical(doc, "1.5.1")
    assert critical(doc, "1.5.0") == ["field-newer-than-target"]
    with_secret = cluster(authOptions={"mode": "token", "secretName": "s"})
    assert "field-newer-than-target" in critical(with_secret, "1.5.2")
    assert "field-newer-than-target" not in critical(with_secret, "1.6.0")


def test_an_operator_rule_knows_its_version_better_than_the_model() -> None:
    # minReplicas > maxReplicas: the model refuses it, but the operator checks it only from v1.6 (high before)
    doc = cluster()
    doc["spec"]["workerGroupSpecs"][0].update(minReplicas=3, maxReplicas=2, replicas=2)
    assert "worker-min-exceeds-max" in critical(doc, "1.6.0")
    assert critical(copy.deepcopy(doc), "1.5.2") == []
