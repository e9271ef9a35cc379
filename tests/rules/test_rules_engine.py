"""The public entry point ``pulumi_kuberay.rules.check``: arguments, robustness, suppressions, ordering."""

from __future__ import annotations

import copy
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from _reference import sample_documents
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL, parse_path
from pulumi_kuberay.rules import _engine
from pulumi_kuberay.rules._engine import CheckFn, Rule, Violation
from pulumi_kuberay.rules._examples import example

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
)
SUPPRESS = rules.SUPPRESS_PREFIX


def _ids(findings: list[rules.Finding]) -> list[str]:
    return [f.rule_id for f in findings]


def _min_gt_max() -> dict[str, Any]:
    return example(lambda d: d["spec"]["workerGroupSpecs"][0].update(minReplicas=4, maxReplicas=2, replicas=2))


def _test_rule(rule_id: str, check: CheckFn) -> Rule:
    """A throw-away rule of every kind around ``check`` (the tests register it with monkeypatch)."""
    return Rule(
        id=rule_id,
        title="t",
        severity="low",
        category="hygiene",
        rationale="r",
        fix="f",
        kinds=_engine.KINDS,
        check=check,
        compliant={},
        violating={},
    )


# --------------------------------------------------------------------------------------------------
# Public API


def test_public_names() -> None:
    for name in ("check", "RULES", "get_rule", "Finding", "Severity", "Context", "Target", "declare"):
        assert hasattr(rules, name), name
    assert set(OWN_MODULES) <= {rule.module.split(".")[0] for rule in rules.RULES.values()}
    assert rules.get_rule("worker-min-exceeds-max").operator_rules == ("RC-14",)
    assert "worker-min-exceeds-max" in rules.RULES and len(rules.RULES) == len(list(rules.RULES))
    with pytest.raises(KeyError, match="no-such-rule"):
        rules.get_rule("no-such-rule")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.7.0", (1, 7, 0)),
        ("1.6", (1, 6, 0)),
        ("v1.6", (1, 6, 0)),
        ("v1.5.2", (1, 5, 2)),
        ((1, 4), (1, 4, 0)),
    ],
)
def test_version_parsing(text: Any, expected: tuple[int, int, int]) -> None:
    assert rules.parse_kuberay_version(text) == expected
    assert rules.make_context(kuberay_version=text).kuberay_version == expected


@pytest.mark.parametrize("bad", ["", "1", "latest", "1.x", "1.6.0.1", None, 1.6])
def test_bad_version_is_a_caller_error(bad: Any) -> None:
    with pytest.raises(ValueError, match="KubeRay version"):
        rules.check(_min_gt_max(), kuberay_version=bad)


def test_bad_gates_or_environment_are_caller_errors() -> None:
    with pytest.raises(ValueError, match="feature gate"):
        rules.check(_min_gt_max(), feature_gates={"RayClusterMTLS": "yes"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="environment"):
        rules.check(_min_gt_max(), environment="production")


def test_feature_gates_overlay_the_defaults() -> None:
    ctx = rules.make_context(feature_gates={"RayClusterMTLS": True})
    assert ctx.gate("RayClusterMTLS") and ctx.gate("RayJobDeletionPolicy") and not ctx.gate("RayCronJob")
    assert rules.make_context().feature_gates == rules.DEFAULT_FEATURE_GATES == rules.default_feature_gates()


# --------------------------------------------------------------------------------------------------
# Never raises on a manifest


@pytest.mark.parametrize(
    "document",
    [
        None,
        3,
        "RayCluster",
        [],
        {},
        {"kind": "ConfigMap", "apiVersion": "v1", "data": {"a": "b"}},
        {"kind": "RayCluster", "apiVersion": "v1"},
        {"kind": "RayCluster", "apiVersion": "example.com/v1"},
        {"kind": ["RayCluster"]},
    ],
)
def test_non_ray_documents_give_no_findings(document: Any) -> None:
    assert rules.check(document) == []


@pytest.mark.parametrize(
    "document",
    [
        {"apiVersion": "ray.io/v1", "kind": "RayCluster"},
        {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": "x", "spec": []},
        {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "j"}, "spec": "oops"},
        {"apiVersion": "ray.io/v1alpha1", "kind": "RayService", "metadata": {}, "spec": 7},
        {"apiVersion": "ray.io/v1", "kind": "RayCronJob", "metadata": {"name": "c"}, "spec": None},
    ],
)
def test_malformed_ray_documents_give_findings_not_exceptions(document: dict[str, Any]) -> None:
    findings = rules.check(document, feature_gates={"RayCronJob": True})
    assert rules.INTERNAL_ERROR_RULE_ID not in _ids(findings)
    if document.get("spec") is not None:  # None = not known yet during preview
        assert "manifest-malformed" in _ids(findings)


def test_a_crashing_rule_becomes_an_internal_error_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(doc: dict[str, Any], ctx: rules.Context) -> list[Violation]:
        raise RuntimeError("kaboom")

    crashing = _test_rule("test-crashing-rule", boom)
    monkeypatch.setitem(_engine._REGISTRY, crashing.id, crashing)
    findings = rules.check(_min_gt_max())
    internal = [f for f in findings if f.rule_id == rules.INTERNAL_ERROR_RULE_ID]
    assert len(internal) == 1 and "test-crashing-rule" in internal[0].message and "kaboom" in internal[0].message
    assert "worker-min-exceeds-max" in _ids(findings)  # the other rules still ran


def test_what_a_rule_found_before_crashing_is_not_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    def found_then_boom(doc: dict[str, Any], ctx: rules.Context) -> Any:
        yield Violation("first", "spec")
        yield Violation("second", "spec.headGroupSpec")
        raise RuntimeError("kaboom")

    crashing = _test_rule("test-half-crashing-rule", found_then_boom)
    monkeypatch.setitem(_engine._REGISTRY, crashing.id, crashing)
    findings = rules.check(_min_gt_max())
    assert "test-half-crashing-rule" not in _ids(findings)
    internal = [f for f in findings if f.rule_id == rules.INTERNAL_ERROR_RULE_ID]
    assert [("test-half-crashing-rule" in f.message, "kaboom" in f.message) for f in internal] == [(True, True)]
    assert "worker-min-exceeds-max" in _ids(findings)  # the findings of the rules before and after it stay


def test_check_from_several_threads_gives_each_document_its_own_findings() -> None:
    """The per-document views (cluster specs, pod templates, the model load) belong to the thread running
    ``check``: the policy pack may judge resources on several threads at once."""
    cases = [(rule.violating, rules.Target.of(**rule.context)) for rule in rules.rules_of("document")]
    expected = [rules.check(doc, target) for doc, target in cases]
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible, inside the rules
    try:
        with ThreadPoolExecutor(max_workers=6) as pool:
            for _ in range(3):
                assert list(pool.map(lambda case: rules.check(*case), cases)) == expected
    finally:
        sys.setswitchinterval(previous)


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, width=16),
    st.sampled_from(["", "v2", "token", "rocksdb", "true", "1", "Recreate", "DenyAllEgress", UNKNOWN_SENTINEL]),
)
_keys = st.sampled_from(
    [
        "headGroupSpec",
        "workerGroupSpecs",
        "template",
        "spec",
        "containers",
        "env",
        "name",
        "value",
        "rayStartParams",
        "minReplicas",
        "maxReplicas",
        "idleTimeoutSeconds",
        "priority",
        "suspend",
        "enableInTreeAutoscaling",
        "autoscalerOptions",
        "version",
        "gcsFaultToleranceOptions",
        "backend",
        "storage",
        "authOptions",
        "mode",
        "networkPolicy",
        "workerGroups",
        "tlsOptions",
        "enabled",
        "historyServerOptions",
        "collectorOptions",
        "labels",
        "resources",
        "groupName",
        "rayVersion",
        "volumeMounts",
        "volumes",
        "restartPolicy",
        "rayClusterSpec",
        "rayClusterConfig",
        "jobTemplate",
        "upgradeStrategy",
        "type",
    ]
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_keys, inner, max_size=5)),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(_engine.KINDS), spec=_json, meta=_json)
def test_check_never_raises_on_arbitrary_ray_documents(kind: str, spec: Any, meta: Any) -> None:
    doc = {"apiVersion": "ray.io/v1", "kind": kind, "metadata": meta, "spec": spec}
    findings = rules.check(doc, feature_gates={g: True for g in rules.DEFAULT_FEATURE_GATES})
    own = {r.id for r in rules.RULES.values() if r.module.split(".")[0] in OWN_MODULES}
    crashed = [
        f.message
        for f in findings
        if f.rule_id == rules.INTERNAL_ERROR_RULE_ID and any(repr(rule_id) in f.message for rule_id in own)
    ]
    assert crashed == []


# --------------------------------------------------------------------------------------------------
# Floats and unknowns from Pulumi preview


def test_integral_floats_are_normalised() -> None:
    doc = example(lambda d: d["spec"]["workerGroupSpecs"][0].update(minReplicas=4.0, maxReplicas=2.0, replicas=2.0))
    findings = rules.check(doc)
    assert "worker-min-exceeds-max" in _ids(findings)
    assert "schema-wrong-type" not in _ids(findings)
    fine = example(lambda d: d["spec"]["workerGroupSpecs"][0].update(minReplicas=1.0, maxReplicas=5.0))
    assert [f for f in rules.check(fine) if f.severity == "critical"] == []
    assert rules.normalise({"a": [1.0, 1.5, True, "2.0"]}) == {"a": [1, 1.5, True, "2.0"]}


def test_check_reads_the_manifest_and_never_changes_it() -> None:
    # check hands a plain manifest (no integral float, no tuple, no other Mapping: what YAML and JSON give) to the
    # rules and the model as it is, not a copy: none of them may write to it.
    docs = [doc for _, _, doc in sample_documents() if rules.is_ray_document(doc)]
    for rule in rules.rules_of("document"):
        docs += [copy.deepcopy(rule.compliant), copy.deepcopy(rule.violating)]
    gates = {name: True for name in rules.DEFAULT_FEATURE_GATES}
    targets = [
        rules.Target(),
        rules.Target("1.5.0", environment="dev"),
        rules.Target(feature_gates=gates, environment="prod", webhooks=True, audience="cli"),
    ]
    for doc in docs:
        before = copy.deepcopy(doc)
        for target in targets:
            rules.check(doc, target)
        assert doc == before, doc.get("metadata")


@pytest.mark.parametrize("unknown", [None, UNKNOWN_SENTINEL])
def test_unknown_values_are_not_judged(unknown: Any) -> None:
    doc = _min_gt_max()
    doc["spec"]["workerGroupSpecs"][0]["maxReplicas"] = unknown
    findings = rules.check(doc)
    assert "worker-min-exceeds-max" not in _ids(findings)
    assert "schema-wrong-type" not in _ids(findings) and "schema-missing-field" not in _ids(findings)
    whole = example(lambda d: d["spec"].update(workerGroupSpecs=unknown))
    assert [f for f in rules.check(whole) if f.severity == "critical"] == []


# --------------------------------------------------------------------------------------------------
# Suppressions


def test_suppression_with_reason_silences_the_rule() -> None:
    doc = _min_gt_max()
    doc["metadata"]["annotations"] = {f"{SUPPRESS}worker-min-exceeds-max": "capacity test, accepted by ML infra"}
    findings = rules.check(doc)
    assert "worker-min-exceeds-max" not in _ids(findings)
    assert "suppression-reason-missing" not in _ids(findings)


@pytest.mark.parametrize("reason", ["", "   "])
def test_suppression_without_reason_is_ignored_and_reported(reason: str) -> None:
    doc = _min_gt_max()
    doc["metadata"]["annotations"] = {f"{SUPPRESS}worker-min-exceeds-max": reason}
    findings = rules.check(doc)
    assert "worker-min-exceeds-max" in _ids(findings)
    missing = [f for f in findings if f.rule_id == "suppression-reason-missing"]
    assert [f.severity for f in missing] == ["low"]
    assert parse_path(missing[0].path) == ["metadata", "annotations", f"{SUPPRESS}worker-min-exceeds-max"]


def test_suppression_applies_to_embedded_specs_through_the_parent() -> None:
    job: dict[str, Any] = {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {"name": "job", "annotations": {f"{SUPPRESS}worker-min-exceeds-max": "intended"}},
        "spec": {
            "entrypoint": "python x.py",
            "shutdownAfterJobFinishes": True,
            "rayClusterSpec": copy.deepcopy(_min_gt_max()["spec"]),
        },
    }
    assert "worker-min-exceeds-max" not in _ids(rules.check(job))
    del job["metadata"]["annotations"]
    assert "worker-min-exceeds-max" in _ids(rules.check(job))


# --------------------------------------------------------------------------------------------------
# Ordering and shape


def test_findings_sorted_by_severity_then_path() -> None:
    doc = _min_gt_max()
    doc["metadata"]["name"] = "Bad_Name"
    doc["metadata"]["annotations"] = {f"{SUPPRESS}nope": ""}
    doc["spec"]["workerGroupSpecs"][0]["maxReplicas"] = -1
    findings = rules.check(doc)
    order = [(-_engine.SEVERITY_ORDER[f.severity], f.path) for f in findings]
    assert order == sorted(order)
    assert findings[0].severity == "critical" and findings[-1].severity == "low"
    for finding in findings:
        assert set(finding.to_dict()) == {"rule_id", "severity", "message", "path", "fix"}


def test_schema_duplicates_of_specific_rules_are_dropped() -> None:
    findings = rules.check(_min_gt_max())
    at_min = [f.rule_id for f in findings if f.path == "spec.workerGroupSpecs[0].minReplicas"]
    assert at_min == ["worker-min-exceeds-max"]
    doc = _min_gt_max()
    doc["metadata"]["annotations"] = {f"{SUPPRESS}worker-min-exceeds-max": "intended"}
    assert [f for f in rules.check(doc) if f.path == "spec.workerGroupSpecs[0].minReplicas"] == []


def test_gate_defaults_follow_the_target_version() -> None:
    assert rules.make_context(kuberay_version="1.5").gate("RayJobDeletionPolicy") is False
    assert rules.make_context(kuberay_version="1.6").gate("RayJobDeletionPolicy") is True
    assert rules.make_context(kuberay_version="1.6").gate("RayServiceIncrementalUpgrade") is False
    assert rules.make_context(kuberay_version="1.7").gate("RayServiceIncrementalUpgrade") is True
    ctx = rules.make_context(kuberay_version="1.5", feature_gates={"RayJobDeletionPolicy": True})
    assert ctx.gate("RayJobDeletionPolicy") is True
    suspended = example(lambda d: d["spec"]["workerGroupSpecs"][0].update(suspend=True))
    assert "feature-gate-disabled" in _ids(rules.check(suspended, kuberay_version="1.5"))
    assert "feature-gate-disabled" not in _ids(rules.check(suspended, kuberay_version="1.6"))


# --------------------------------------------------------------------------------------------------
# The one declaration: scope as data, validation of the declaration, rooms that never import each other


def test_since_and_gate_are_applied_by_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_engine, "_REGISTRY", dict(_engine._REGISTRY))

    def always(doc: dict[str, Any], ctx: rules.Context) -> list[Violation]:
        return [Violation("always", "spec")]

    rule = _engine.declare(
        id="test-scoped-rule",
        title="t",
        severity="low",
        category="hygiene",
        kinds=("RayCluster",),
        rationale="r",
        fix="turn on {gate:RayClusterMTLS}",
        check=always,
        compliant={},
        violating={},
        since="1.6",
        gate="RayClusterMTLS",
    )
    assert rule.context == {"feature_gates": {"RayClusterMTLS": True}}  # the examples run with the gate on
    assert rule.applies_to() == "KubeRay >= 1.6, feature gate RayClusterMTLS on"
    doc = _min_gt_max()
    on = {"RayClusterMTLS": True}
    assert "test-scoped-rule" in _ids(rules.check(doc, kuberay_version="1.6", feature_gates=on))
    assert "test-scoped-rule" not in _ids(rules.check(doc, kuberay_version="1.5", feature_gates=on))
    assert "test-scoped-rule" not in _ids(rules.check(doc, kuberay_version="1.7"))  # gate off by default
    fixes = {
        audience: [
            f.fix
            for f in rules.check(doc, rules.Target(feature_gates=on, audience=audience))
            if f.rule_id == "test-scoped-rule"
        ]
        for audience in ("python", "cli", "pack")
    }
    assert fixes == {
        "python": ["turn on feature_gates={'RayClusterMTLS': True}"],
        "cli": ["turn on --feature-gates=RayClusterMTLS=true"],
        "pack": ["turn on kuberay:featureGates {RayClusterMTLS: true}"],
    }


def test_a_declaration_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_engine, "_REGISTRY", dict(_engine._REGISTRY))
    base: dict[str, Any] = dict(
        title="t",
        severity="low",
        category="hygiene",
        kinds=("RayCluster",),
        rationale="r",
        fix="f",
        check=lambda doc, ctx: [],
        compliant={},
        violating={},
    )
    with pytest.raises(ValueError, match="unknown feature gate 'NoSuchGate'"):
        _engine.declare(id="test-a", gate="NoSuchGate", **base)
    with pytest.raises(ValueError, match="kinds of a document rule must be some of"):
        _engine.declare(id="test-b", **{**base, "kinds": ("Pod",)})
    with pytest.raises(ValueError, match="kinds of a setup rule must be none"):
        _engine.declare(id="test-c", scope="setup", **base)
    with pytest.raises(ValueError, match="compliant must be a tuple of manifest dicts for a stack rule"):
        _engine.declare(id="test-d", scope="stack", **base)
    with pytest.raises(ValueError, match="scope must be one of document, stack, setup"):
        _engine.declare(id="test-e", scope="cluster", **base)  # type: ignore[arg-type]  # the point
    with pytest.raises(ValueError, match=r"context takes .*, not environmnet"):
        _engine.declare(id="test-f", context={"environmnet": "prod"}, **base)
    with pytest.raises(ValueError, match="duplicate rule id 'worker-min-exceeds-max'"):
        _engine.declare(id="worker-min-exceeds-max", **base)


def test_check_takes_a_target_or_keywords_not_both() -> None:
    with pytest.raises(TypeError, match="not both"):
        rules.check(_min_gt_max(), rules.Target(), environment="prod")
    target = rules.Target("1.5.0", environment="prod")
    assert rules.check(_min_gt_max(), target) == rules.check(_min_gt_max(), kuberay_version="1.5.0", environment="prod")


def test_rule_modules_import_only_the_engine_and_the_readers() -> None:
    import ast
    from pathlib import Path

    from pulumi_kuberay.rules import _catalogue

    # and the manifest readers of pulumi_kuberay.kuberay, the operator setup of pulumi_kuberay.operator (absolute
    # imports, not checked here); and the helpers split out of rule modules for the 700-line limit: pod_spec.py's
    # readers of a template's annotations, selectors and newer Pod fields, pod_volume_sources.py's volume plugins;
    # _services: the Service checks of the head and Serve Services
    allowed = {"_engine", "_cel", "_examples", "_fixed", "_options", "_manifest_readers", "_serve_config", "_ray_resources",
               "_pod_annotations", "_pod_selectors", "_pod_spec_fields", "_volume_plugins",
               "_services"}  # fmt: skip
    root = Path(rules.__file__).parent
    for name in _catalogue.load():
        if name in ("target", "remediate"):
            continue  # the public modules that declare nothing: the target and the view of the fixes
        path = root.joinpath(*name.split(".")).with_suffix(".py")
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or "rules" in (node.module or "")):
                target = (node.module or "").rsplit(".", 1)[-1]
                names = {alias.name for alias in node.names}
                assert target in allowed or (not node.module and names <= allowed), (
                    f"{path.relative_to(root)} imports {node.module or names}"
                )
