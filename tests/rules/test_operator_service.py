"""RayService operator rules (``ValidateRayServiceSpec``, ``ValidateClusterUpgradeOptions``; rule modules ``MODULES``)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from _reference import upstream_sample
from _rule_checks import ALL_GATES, public_paths
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules import _examples, _manifest_readers
from pulumi_kuberay.rules._engine import Rule

MODULES = ("service_spec", "incremental_upgrade", "names")
OWN_RULES = sorted(
    (r for r in rules.RULES.values() if r.module in MODULES and "RayService" in r.kinds),
    key=lambda r: r.id,
)

_OPTIONS = "spec.upgradeStrategy.clusterUpgradeOptions"




def test_every_rs_row_is_mapped() -> None:
    mapped = {row for r in OWN_RULES for row in r.operator_rules if row.startswith("RS-")}
    assert mapped == {f"RS-{i:02d}" for i in range(1, 18)} - {"RS-07"}  # RS-07: RC rules on the embedded spec


@pytest.mark.parametrize("rule", OWN_RULES, ids=lambda r: r.id)
def test_rule_metadata(rule: Rule) -> None:
    assert rule.severity == "critical" and rule.operator_rules


# --------------------------------------------------------------------------------------------------
# Branches


@pytest.mark.parametrize(
    ("value", "bad"),
    [
        ("30m", False),
        ("1h30m", False),
        ("1.5h", False),
        ("600", False),
        ("+600", False),
        ("0", True),  # Go duration 0
        ("0s", True),
        ("-5m", True),
        ("-10", True),
        ("30 minutes", True),
        ("5M", True),
        ("m", True),
        (".s", True),
    ],
)
def test_initializing_timeout_formats(value: str, bad: bool) -> None:
    service = _examples.example_service()
    service["metadata"]["annotations"] = {"ray.io/initializing-timeout": value}
    assert bool(public_paths("rayservice-initializing-timeout-invalid", service)) is bad


def test_go_duration_parser() -> None:
    parse = _manifest_readers.parse_go_duration
    assert parse("1h30m") == 5400
    assert parse("250ms") == pytest.approx(0.25)
    assert parse("1.5h") == 5400
    assert parse("-2s") == -2
    assert parse("") is None and parse("10") is None and parse("1d") is None


def _incremental(**options: Any) -> dict[str, Any]:
    rule = rules.get_rule("rayservice-incremental-percent-invalid")
    service: dict[str, Any] = copy.deepcopy(rule.compliant)
    service["spec"]["upgradeStrategy"]["clusterUpgradeOptions"].update(options)
    for key, value in list(options.items()):
        if value is None:
            del service["spec"]["upgradeStrategy"]["clusterUpgradeOptions"][key]
    return service


def test_incremental_percent_branches() -> None:
    rule_id = "rayservice-incremental-percent-invalid"
    assert public_paths(rule_id, _incremental(maxSurgePercent=101)) == [f"{_OPTIONS}.maxSurgePercent"]
    assert public_paths(rule_id, _incremental(stepSizePercent=None)) == [f"{_OPTIONS}.stepSizePercent"]
    assert public_paths(rule_id, _incremental(stepSizePercent=-1)) == [f"{_OPTIONS}.stepSizePercent"]
    # maxSurgePercent defaults to 100 in the CRD
    assert public_paths(rule_id, _incremental(maxSurgePercent=None, stepSizePercent=100)) == []
    # step > surge is only rejected since v1.7
    assert public_paths(rule_id, _incremental(stepSizePercent=50, maxSurgePercent=20), kuberay_version="1.6.0") == []


def test_incremental_checks_need_the_gate() -> None:
    off = {"feature_gates": {"RayServiceIncrementalUpgrade": False}}
    for rule_id in ("rayservice-incremental-requires-autoscaling", "rayservice-incremental-options-missing"):
        violating = rules.get_rule(rule_id).violating
        assert public_paths(rule_id, violating, **off) == []  # ignored by the operator: feature-gate-disabled says so
        assert "spec.upgradeStrategy.type" in public_paths("feature-gate-disabled", violating, **off)


def test_upgrade_type_empty_string_is_invalid() -> None:
    service = _examples.example_service(upgradeStrategy={"type": ""})
    assert public_paths("rayservice-upgrade-type-invalid", service) == ["spec.upgradeStrategy.type"]


_ODD: list[Any] = [None, "", "x", 0, -1, True, [], {}, {"a": None}, UNKNOWN_SENTINEL]


@pytest.mark.parametrize("field", ["upgradeStrategy", "rayClusterConfig", "rayClusterDeletionDelaySeconds"])
def test_odd_shapes_never_raise(field: str) -> None:
    ctx = rules.make_context(feature_gates=ALL_GATES)
    for value in _ODD:
        docs = [
            _examples.example_service(**{field: value}),
            _examples.example_service(
                upgradeStrategy={"type": "NewClusterWithIncrementalUpgrade", "clusterUpgradeOptions": value}
            ),
            {"kind": "RayService", "spec": value, "metadata": value},
        ]
        for doc in docs:
            for rule in OWN_RULES:
                list(rule.run(copy.deepcopy(doc), ctx))


def test_unknown_values_are_not_judged() -> None:
    service = _examples.example_service(upgradeStrategy={"type": UNKNOWN_SENTINEL})
    service["metadata"] = {
        "name": UNKNOWN_SENTINEL,
        "annotations": {"ray.io/initializing-timeout": UNKNOWN_SENTINEL},
    }
    assert not {f.rule_id for f in rules.check(service)} & {r.id for r in OWN_RULES}


# --------------------------------------------------------------------------------------------------
# Mutations of real upstream samples


def _opts(d: dict[str, Any]) -> dict[str, Any]:
    return d["spec"]["upgradeStrategy"]["clusterUpgradeOptions"]  # type: ignore[no-any-return]


MUTATIONS: list[tuple[str, str, Callable[[dict[str, Any]], Any], str]] = [
    (
        "ray-service.sample.yaml",
        "rayservice-upgrade-type-invalid",
        lambda d: d["spec"].update(upgradeStrategy={"type": "Recreate"}),
        "spec.upgradeStrategy.type",
    ),
    (
        "ray-service.sample.yaml",
        "rayservice-name-too-long",
        lambda d: d["metadata"].update(name="rayservice-sample-" + "y" * 30),
        "metadata.name",
    ),
    (
        "ray-service.sample.yaml",
        "rayservice-initializing-timeout-invalid",
        lambda d: d["metadata"].update(annotations={"ray.io/initializing-timeout": "0"}),
        'metadata.annotations["ray.io/initializing-timeout"]',
    ),
    (
        "ray-service.sample.yaml",
        "rayservice-head-service-name-set",
        lambda d: d["spec"]["rayClusterConfig"]["headGroupSpec"].update(headService={"metadata": {"name": "h"}}),
        "spec.rayClusterConfig.headGroupSpec.headService.metadata.name",
    ),
    (
        "ray-service.incremental-upgrade.yaml",
        "rayservice-incremental-percent-invalid",
        lambda d: _opts(d).update(stepSizePercent=50),
        f"{_OPTIONS}.stepSizePercent",
    ),
    (
        "ray-service.incremental-upgrade.yaml",
        "rayservice-incremental-interval-invalid",
        lambda d: _opts(d).pop("intervalSeconds"),
        f"{_OPTIONS}.intervalSeconds",
    ),
    (
        "ray-service.incremental-upgrade.yaml",
        "rayservice-incremental-gateway-class-missing",
        lambda d: _opts(d).update(gatewayClassName=""),
        f"{_OPTIONS}.gatewayClassName",
    ),
    (
        "ray-service.incremental-upgrade.yaml",
        "rayservice-incremental-requires-autoscaling",
        lambda d: d["spec"]["rayClusterConfig"].pop("enableInTreeAutoscaling"),
        "spec.rayClusterConfig.enableInTreeAutoscaling",
    ),
    (
        "ray-service.incremental-upgrade.yaml",
        "rayservice-incremental-options-missing",
        lambda d: d["spec"]["upgradeStrategy"].pop("clusterUpgradeOptions"),
        _OPTIONS,
    ),
]


@pytest.mark.parametrize(
    ("sample", "rule_id", "mutate", "path"), MUTATIONS, ids=lambda x: x if isinstance(x, str) else ""
)
def test_mutated_upstream_sample_is_caught(
    sample: str, rule_id: str, mutate: Callable[[dict[str, Any]], Any], path: str
) -> None:
    doc = upstream_sample(sample, "RayService")
    assert public_paths(rule_id, doc, feature_gates=ALL_GATES) == []
    mutate(doc)
    assert path in public_paths(rule_id, doc, feature_gates=ALL_GATES)
