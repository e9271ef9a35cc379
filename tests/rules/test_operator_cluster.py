"""Operator rules for RayClusterSpec (``ValidateRayClusterSpec``, ``OWN_MODULES``), version, gate, schema rules.

Each rule is tested through the public ``check`` with its own compliant/violating examples (data on the rule),
inside every parent kind that embeds a RayClusterSpec, against mutated upstream samples, and for false
positives over every upstream sample document.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _reference import sample_documents
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules._engine import Rule

OWN_MODULES = (
    "schema",
    "versions",
    "auth_tls",
    "autoscaler",
    "gcs_fault_tolerance",
    "groups",
    "history_collector",
    "cluster_upgrade_strategy",
    "network_policy",
    "names",
)
#: Every operator feature gate on (the samples of gated features need them).
ALL_GATES: dict[str, bool] = {gate: True for gate in rules.DEFAULT_FEATURE_GATES}


def _module(rule: Rule) -> str:
    return rule.module.split(".")[0]


def _own(rule: Rule) -> bool:
    """A rule of these modules about a RayClusterSpec (names.py holds every kind's name rules: the RayCluster's)."""
    return _module(rule) in OWN_MODULES and (rule.module != "names" or "RayCluster" in rule.kinds)


OWN_RULES: list[Rule] = sorted((r for r in rules.RULES.values() if _own(r)), key=lambda r: r.id)
OWN_IDS = {r.id for r in OWN_RULES}
CLUSTER_RULES = [r for r in OWN_RULES if _module(r) not in ("schema", "versions")]


def _check(manifest: Any, context: dict[str, Any] | None = None, **overrides: Any) -> list[rules.Finding]:
    kwargs: dict[str, Any] = dict(context or {})
    kwargs.update(overrides)
    return rules.check(manifest, **kwargs)


def _of(findings: list[rules.Finding], rule_id: str) -> list[rules.Finding]:
    return [f for f in findings if f.rule_id == rule_id]


@pytest.mark.parametrize("rule", OWN_RULES, ids=lambda r: r.id)
def test_rule_metadata(rule: Rule) -> None:
    if _module(rule) == "cluster":
        assert rule.severity == "critical"
        # RC- rows; WH-01: the RayCluster webhook runs ValidateRayClusterMetadata too
        assert rule.operator_rules and all(r.startswith(("RC-", "WH-01")) for r in rule.operator_rules)


def test_every_rc_row_is_mapped_or_documented() -> None:
    mapped = {row for r in OWN_RULES for row in r.operator_rules if row.startswith("RC-")}
    not_rules = {"RC-11", "RC-86"}  # RC-11: unreachable through CRD defaults; RC-86: status (diagnose)
    assert mapped | not_rules == {f"RC-{i:02d}" for i in range(1, 87)}
    assert not mapped & not_rules


# --------------------------------------------------------------------------------------------------
# Every embedded RayClusterSpec is checked, with the parent's annotations


def _embed(cluster: dict[str, Any], kind: str) -> dict[str, Any]:
    spec = copy.deepcopy(cluster["spec"])
    meta = copy.deepcopy(cluster["metadata"])
    meta["name"] = "parent-demo"
    body: dict[str, Any]
    if kind == "RayJob":
        body = {"entrypoint": "python job.py", "shutdownAfterJobFinishes": True, "rayClusterSpec": spec}
    elif kind == "RayService":
        body = {"rayClusterConfig": spec}
    else:
        body = {
            "schedule": "*/5 * * * *",
            "jobTemplate": {
                "entrypoint": "python job.py",
                "shutdownAfterJobFinishes": True,
                "rayClusterSpec": spec,
            },
        }
    return {"apiVersion": "ray.io/v1", "kind": kind, "metadata": meta, "spec": body}


_PREFIX = {
    "RayJob": "spec.rayClusterSpec",
    "RayService": "spec.rayClusterConfig",
    "RayCronJob": "spec.jobTemplate.rayClusterSpec",
}
_EMBEDDABLE = [r for r in CLUSTER_RULES if r.violating.get("kind") == "RayCluster" and r.id != "cluster-name-invalid"]


@pytest.mark.parametrize("kind", ["RayJob", "RayService", "RayCronJob"])
@pytest.mark.parametrize("rule", _EMBEDDABLE, ids=lambda r: r.id)
def test_rule_applies_to_embedded_cluster_spec(rule: Rule, kind: str) -> None:
    context = dict(rule.context)
    context["feature_gates"] = {**context.get("feature_gates", {}), "RayCronJob": True}
    expected = rule.violating_path
    assert expected is not None  # every rule names it (test_catalogue)
    if expected.startswith("spec."):
        expected = _PREFIX[kind] + expected[len("spec") :]
    assert _of(_check(_embed(rule.compliant, kind), context), rule.id) == []
    found = _of(_check(_embed(rule.violating, kind), context), rule.id)
    if kind == "RayCronJob" and expected.startswith("metadata"):
        # ValidateRayCronJobSpec / constructRayJob: the RayCronJob's metadata never reaches its RayJobs.
        assert found == []
        return
    assert expected in [f.path for f in found]
    marker = {"RayJob": "RayJob spec", "RayService": "RayService spec", "RayCronJob": "RayJob template"}[kind]
    assert all(marker in f.message for f in found) or expected.startswith("metadata")


def test_upgrade_strategy_allowed_on_standalone_cluster_only() -> None:
    rule = rules.get_rule("cluster-upgrade-strategy-in-child")
    standalone = copy.deepcopy(rule.violating)
    cluster = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "c"},
        "spec": standalone["spec"]["rayClusterSpec"],
    }
    assert _of(rules.check(cluster), rule.id) == []
    cluster["metadata"]["labels"] = {"ray.io/originated-from-crd": "RayService"}
    assert [f.path for f in _of(rules.check(cluster), rule.id)] == ["spec.upgradeStrategy"]
    service = _embed(cluster, "RayService")
    assert [f.path for f in _of(rules.check(service), rule.id)] == ["spec.rayClusterConfig.upgradeStrategy"]


# --------------------------------------------------------------------------------------------------
# Version and gate awareness


def test_rules_added_in_newer_operators_do_not_apply_to_older_targets() -> None:
    priority = rules.get_rule("worker-priority-unsupported")
    assert _of(rules.check(priority.violating, kuberay_version="1.6"), priority.id) == []
    newer = _of(rules.check(priority.violating, kuberay_version="1.6"), "field-newer-than-target")
    assert [f.path for f in newer] == ["spec.workerGroupSpecs[0].priority"]
    assert all(f.severity == "critical" and "1.7" in f.message for f in newer)

    idle = rules.get_rule("worker-idle-timeout-requires-autoscaler-v2")
    assert _of(rules.check(idle.violating, kuberay_version="1.5.0"), idle.id) == []
    assert _of(rules.check(idle.violating, kuberay_version="1.6.0"), idle.id)


def test_min_exceeds_max_is_high_before_operator_validated_it() -> None:
    rule = rules.get_rule("worker-min-exceeds-max")
    assert [f.severity for f in _of(rules.check(rule.violating, kuberay_version="1.5"), rule.id)] == ["high"]
    assert [f.severity for f in _of(rules.check(rule.violating), rule.id)] == ["critical"]


@pytest.mark.parametrize(
    ("field", "value", "gate"),
    [
        ("networkPolicy", {"mode": "DenyAll"}, "RayClusterNetworkPolicy"),
        ("tlsOptions", {"enabled": False}, "RayClusterMTLS"),
        ("historyServerOptions", {"collectorOptions": {"image": "c:1"}}, "RayClusterHistoryServer"),
        ("gcsFaultToleranceOptions", {"backend": "rocksdb"}, "GCSFaultToleranceEmbeddedStorage"),
    ],
)
def test_gated_fields(cluster_sample: dict[str, Any], field: str, value: Any, gate: str) -> None:
    cluster_sample["spec"][field] = value
    off = _of(rules.check(cluster_sample), "feature-gate-disabled")
    assert len(off) == 1 and off[0].severity == "critical" and gate in off[0].message
    assert _of(rules.check(cluster_sample, feature_gates={gate: True}), "feature-gate-disabled") == []
    old = rules.check(cluster_sample, kuberay_version="1.6.0", feature_gates={gate: True})
    newer = _of(old, "field-newer-than-target")
    assert newer and all(f.path.startswith(f"spec.{field}") for f in newer)


def test_worker_suspend_needs_deletion_policy_gate(cluster_sample: dict[str, Any]) -> None:
    cluster_sample["spec"]["workerGroupSpecs"][0]["suspend"] = True
    assert _of(rules.check(cluster_sample), "feature-gate-disabled") == []  # beta, on by default
    off = _of(rules.check(cluster_sample, feature_gates={"RayJobDeletionPolicy": False}), "feature-gate-disabled")
    assert [f.path for f in off] == ["spec.workerGroupSpecs[0].suspend"]


def test_raycronjob_needs_its_gate(sample_named: Callable[[str, str], dict[str, Any]]) -> None:
    for name, _i, doc in sample_documents("RayCronJob"):
        off = _of(rules.check(doc), "feature-gate-disabled")
        assert [f.path for f in off] == ["kind"], name
        assert _of(rules.check(doc, feature_gates={"RayCronJob": True}), "feature-gate-disabled") == []
        assert [
            f.path
            for f in _of(
                rules.check(doc, kuberay_version="1.5", feature_gates={"RayCronJob": True}),
                "field-newer-than-target",
            )
        ] == ["kind"]


def test_incremental_upgrade_gate() -> None:
    service = _embed(rules.get_rule("worker-min-exceeds-max").compliant, "RayService")
    service["spec"]["upgradeStrategy"] = {"type": "NewClusterWithIncrementalUpgrade"}
    assert _of(rules.check(service), "feature-gate-disabled") == []
    off = rules.check(service, feature_gates={"RayServiceIncrementalUpgrade": False})
    assert [f.path for f in _of(off, "feature-gate-disabled")] == ["spec.upgradeStrategy.type"]
    assert [f.path for f in _of(rules.check(service, kuberay_version="1.4"), "field-newer-than-target")] == [
        "spec.upgradeStrategy.type"
    ]


# --------------------------------------------------------------------------------------------------
# Mutations of a real upstream sample

HEAD = ["spec", "headGroupSpec"]
HEAD_C = [*HEAD, "template", "spec", "containers", 0]
WORKER = ["spec", "workerGroupSpecs", 0]
WORKER_C = [*WORKER, "template", "spec", "containers", 0]


def _at(doc: dict[str, Any], path: list[Any]) -> Any:
    cur: Any = doc
    for key in path:
        cur = cur[key]
    return cur


def _env(doc: dict[str, Any], container: list[Any], name: str, value: str) -> None:
    _at(doc, container).setdefault("env", []).append({"name": name, "value": value})


MUTATIONS: list[tuple[str, Callable[[dict[str, Any]], Any], str, str, dict[str, Any]]] = [
    ("long-name", lambda d: d["metadata"].update(name="r" * 54), "cluster-name-invalid", "metadata.name", {}),
    (
        "upper-name",
        lambda d: d["metadata"].update(name="RayCluster"),
        "cluster-name-invalid",
        "metadata.name",
        {},
    ),
    (
        "min>max",
        lambda d: _at(d, WORKER).update(minReplicas=6),
        "worker-min-exceeds-max",
        "spec.workerGroupSpecs[0].minReplicas",
        {},
    ),
    (
        "float-min>max",
        lambda d: _at(d, WORKER).update(minReplicas=6.0, maxReplicas=5.0),
        "worker-min-exceeds-max",
        "spec.workerGroupSpecs[0].minReplicas",
        {},
    ),
    (
        "negative-max",
        lambda d: _at(d, WORKER).update(minReplicas=0, maxReplicas=-1),
        "worker-replicas-negative",
        "spec.workerGroupSpecs[0].maxReplicas",
        {},
    ),
    (
        "no-head-container",
        lambda d: _at(d, [*HEAD, "template", "spec"]).update(containers=[]),
        "pod-template-no-containers",
        "spec.headGroupSpec.template.spec.containers",
        {},
    ),
    (
        "head-num-cpus+resources",
        lambda d: _at(d, HEAD).update(rayStartParams={"num-cpus": "0"}, resources={"cpu": "0"}),
        "group-resources-conflict",
        "spec.headGroupSpec.resources",
        {},
    ),
    (
        "labels-param",
        lambda d: _at(d, HEAD)["rayStartParams"].update(labels="a=b"),
        "ray-start-params-labels",
        "spec.headGroupSpec.rayStartParams.labels",
        {},
    ),
    (
        "label-value",
        lambda d: _at(d, WORKER).update(labels={"zone": "-bad-"}),
        "group-labels-invalid",
        'spec.workerGroupSpecs[0].labels["zone"]',
        {},
    ),
    (
        "idle-no-v2",
        lambda d: _at(d, WORKER).update(idleTimeoutSeconds=60),
        "worker-idle-timeout-requires-autoscaler-v2",
        "spec.workerGroupSpecs[0].idleTimeoutSeconds",
        {},
    ),
    (
        "redis-env",
        lambda d: _env(d, HEAD_C, "RAY_REDIS_ADDRESS", "redis:6379"),
        "gcs-ft-implicit-redis-address",
        "spec.headGroupSpec.template.spec.containers[0].env[0]",
        {},
    ),
    (
        "redis-username",
        lambda d: _at(d, HEAD)["rayStartParams"].update({"redis-username": "u"}),
        "redis-username-outside-options",
        "spec.headGroupSpec.rayStartParams.redis-username",
        {},
    ),
    (
        "v2-env-no-autoscaling",
        lambda d: _env(d, HEAD_C, "RAY_enable_autoscaler_v2", "1"),
        "autoscaler-v2-env-without-autoscaling",
        "spec.headGroupSpec.template.spec.containers[0].env[0]",
        {},
    ),
    (
        "auth-no-version",
        lambda d: (d["spec"].pop("rayVersion"), d["spec"].update(authOptions={"mode": "token"})),
        "auth-token-ray-version",
        "spec.rayVersion",
        {},
    ),
    (
        "auth-bad-version",
        lambda d: d["spec"].update(rayVersion="latest", authOptions={"mode": "token"}),
        "auth-token-ray-version",
        "spec.rayVersion",
        {},
    ),
    (
        "k8s-auth-secret",
        lambda d: d["spec"].update(
            rayVersion="2.55.0", authOptions={"mode": "token", "enableK8sTokenAuth": True, "secretName": "s"}
        ),
        "auth-k8s-token-conflict",
        "spec.authOptions.secretName",
        {},
    ),
    (
        "k8s-auth-old-ray",
        lambda d: d["spec"].update(authOptions={"mode": "token", "enableK8sTokenAuth": True}),
        "auth-token-ray-version",
        "spec.rayVersion",
        {},
    ),
    (
        "rocksdb-claim+size",
        lambda d: d["spec"].update(
            gcsFaultToleranceOptions={"backend": "rocksdb", "storage": {"claimName": "pvc", "size": "1Gi"}}
        ),
        "gcs-ft-rocksdb-conflicts",
        "spec.gcsFaultToleranceOptions.storage.claimName",
        {"feature_gates": {"GCSFaultToleranceEmbeddedStorage": True}},
    ),
    (
        "rocksdb-volume",
        lambda d: (
            d["spec"].update(gcsFaultToleranceOptions={"backend": "rocksdb"}),
            _at(d, [*HEAD, "template", "spec"]).update(volumes=[{"name": "gcs-storage"}]),
        ),
        "gcs-ft-rocksdb-managed-fields",
        "spec.headGroupSpec.template.spec.volumes[0]",
        {"feature_gates": {"GCSFaultToleranceEmbeddedStorage": True}},
    ),
    (
        "netpol-egress-ingress-rules",
        lambda d: d["spec"].update(networkPolicy={"mode": "DenyAllEgress", "worker": {"ingressRules": [{}]}}),
        "network-policy-rules-mode-mismatch",
        "spec.networkPolicy.worker.ingressRules",
        {"feature_gates": {"RayClusterNetworkPolicy": True}},
    ),
    (
        "tls-mount-name",
        lambda d: (
            d["spec"].update(tlsOptions={"enabled": True}),
            _at(d, WORKER_C).update(volumeMounts=[{"name": "ray-tls", "mountPath": "/x"}]),
        ),
        "tls-reserved-mounts",
        "spec.workerGroupSpecs[0].template.spec.containers[0].volumeMounts[0]",
        {"feature_gates": {"RayClusterMTLS": True}},
    ),
    (
        "tls-autoscaler-env",
        lambda d: d["spec"].update(
            tlsOptions={"enabled": True},
            autoscalerOptions={"env": [{"name": "RAY_TLS_CA_CERT", "value": "/x"}]},
        ),
        "tls-managed-env",
        "spec.autoscalerOptions.env[0]",
        {"feature_gates": {"RayClusterMTLS": True}},
    ),
    (
        "collector-azure",
        lambda d: d["spec"].update(
            historyServerOptions={
                "collectorOptions": {
                    "image": "c:1",
                    "env": [
                        {"name": "STORAGE_BACKEND", "value": "azureblob"},
                        {"name": "AZURE_STORAGE_AUTH_MODE", "value": "workload_identity"},
                    ],
                }
            }
        ),
        "history-collector-storage-env",
        "spec.historyServerOptions.collectorOptions.env",
        {"feature_gates": {"RayClusterHistoryServer": True}},
    ),
    (
        "collector-backend-from-secret",
        lambda d: d["spec"].update(
            historyServerOptions={
                "collectorOptions": {
                    "image": "c:1",
                    "env": [{"name": "STORAGE_BACKEND", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}],
                }
            }
        ),
        "history-collector-storage-env",
        "spec.historyServerOptions.collectorOptions.env[0]",
        {"feature_gates": {"RayClusterHistoryServer": True}},
    ),
    (
        "v1.5-target-labels",
        lambda d: _at(d, WORKER).update(labels={"zone": "a"}),
        "field-newer-than-target",
        "spec.workerGroupSpecs[0].labels",
        {"kuberay_version": "1.4.0"},
    ),
]


@pytest.mark.parametrize(
    ("mutate", "rule_id", "path", "context"), [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS]
)
def test_mutated_upstream_sample_is_caught(
    cluster_sample: dict[str, Any],
    mutate: Callable[[dict[str, Any]], Any],
    rule_id: str,
    path: str,
    context: dict[str, Any],
) -> None:
    assert [f for f in _check(cluster_sample, context) if f.severity == "critical"] == []
    mutate(cluster_sample)
    found = _of(_check(cluster_sample, context), rule_id)
    assert path in [f.path for f in found], found


# --------------------------------------------------------------------------------------------------
# Unknown (computed) values never crash a check nor produce a finding the known manifest does not have


def _leaf_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaf_paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaf_paths(item, (*path, i))


_UNKNOWN_SAMPLES = [
    ("ray-cluster.sample.yaml", "RayCluster"),
    ("ray-cluster.autoscaler-v2.yaml", "RayCluster"),
    ("ray-cluster.embedded-gcs-ft.yaml", "RayCluster"),
    ("ray-cluster.auth.yaml", "RayCluster"),
    ("ray-job.sample.yaml", "RayJob"),
    ("ray-service.high-availability.yaml", "RayService"),
    ("ray-cronjob.sample.yaml", "RayCronJob"),
]


@pytest.mark.parametrize("unknown", [None, UNKNOWN_SENTINEL], ids=["none", "sentinel"])
@pytest.mark.parametrize(("file_name", "kind"), _UNKNOWN_SAMPLES)
def test_unknown_values_yield_no_new_findings(
    sample_named: Callable[[str, str], dict[str, Any]], file_name: str, kind: str, unknown: Any
) -> None:
    base = sample_named(file_name, kind)
    baseline = {(f.rule_id, f.path) for f in rules.check(base, feature_gates=ALL_GATES) if f.rule_id in OWN_IDS}
    for path in _leaf_paths(base["spec"], ("spec",)):
        if unknown is None and isinstance(path[-1], int):
            continue  # a real null, not unknown: a null list item is rejected (tests/rules/test_v17_causes.py)
        doc = copy.deepcopy(base)
        parent = _at(doc, list(path[:-1]))
        parent[path[-1]] = unknown
        findings = rules.check(doc, feature_gates=ALL_GATES)
        assert _of(findings, rules.INTERNAL_ERROR_RULE_ID) == [], path
        new = {(f.rule_id, f.path) for f in findings if f.rule_id in OWN_IDS} - baseline
        if unknown is None:
            # a null property is what the API server makes of it: dropped (PruneNonNullableNullsWithoutDefaults),
            # so at most the findings of the manifest without the key (a required one: schema-missing-field)
            del parent[path[-1]]
            new -= {(f.rule_id, f.path) for f in rules.check(doc, feature_gates=ALL_GATES)}
        assert new == set(), (path, new)


# --------------------------------------------------------------------------------------------------
# False positives: every upstream sample of the four kinds, all gates on
