"""Regression examples for the bugs the property tier found (shrunk by hypothesis, kept as plain tests).

Fixed bugs must keep passing. Bugs reported but not fixed here (too big for a local fix) are
``xfail(strict=True)``: when someone fixes them, the strict xfail turns red so the marker gets removed.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest
from pulumi_kuberay.model.cluster import HeadGroupSpec, RayClusterSpec, WorkerGroupSpec
from pulumi_kuberay.model.manifest import ObjectMeta, RayClusterManifest
from pydantic import ValidationError

# --------------------------------------------------------------------------------------------------
# Fixed: model/pod.py cpu_quantity / check_quantity (convenience cpu/memory were not checked).


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cpu", ":"),  # rendered into resources.limits.cpu, which the CRD pattern rejects
        ("memory", "1GI!"),
        ("memory", "-1Gi"),
        ("cpu", -2),
        ("memory", -5),
        ("cpu", math.nan),  # was a bare "cannot convert float NaN to integer"
    ],
)
def test_convenience_quantity_is_checked(field: str, value: Any) -> None:
    with pytest.raises(ValidationError) as info:
        RayClusterSpec(image="rayproject/ray:2.52.0", head_group_spec=HeadGroupSpec(**{field: value}))
    assert field in str(info.value)


def test_infinite_cpu_raises_validation_error_not_overflow() -> None:
    # cpu=float("inf") escaped as OverflowError from round(inf) in cpu_quantity.
    with pytest.raises(ValidationError, match="cpu"):
        WorkerGroupSpec(group_name="w", image="rayproject/ray:2.52.0", cpu=math.inf)


def test_valid_quantities_still_render() -> None:
    head = HeadGroupSpec(image="rayproject/ray:2.52.0", cpu=0.5, memory=2**34)
    limits = head.template.spec.containers[0].resources.limits  # type: ignore[union-attr]
    assert limits == {"cpu": "500m", "memory": 2**34}


# --------------------------------------------------------------------------------------------------
# Reported, not fixed here.


def test_explicit_none_is_not_rendered_as_null() -> None:
    # A YAML stack file with `enableInTreeAutoscaling:` (no value) gives None; the model accepts it and renders
    # `enableInTreeAutoscaling: null`, a value the API server silently prunes (the CRD has no nullable here).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = RayClusterSpec(image="rayproject/ray:2.52.0", head_group_spec=HeadGroupSpec(cpu=1),
                              enable_in_tree_autoscaling=None)
    doc = RayClusterManifest(metadata=ObjectMeta(name="c"), spec=spec).to_manifest()
    assert "enableInTreeAutoscaling" not in doc["spec"]


def test_template_quantity_pattern_is_checked() -> None:
    template = {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.52.0",
                                         "resources": {"limits": {"cpu": "two"}}}]}}
    with pytest.raises(ValidationError):
        HeadGroupSpec(template=template)  # type: ignore[arg-type]  # a dict in the model's shape is accepted


# --------------------------------------------------------------------------------------------------
# Fixed: cli/_io.py _yaml_documents (a value not fitting its explicit YAML tag escaped as a traceback).


@pytest.mark.parametrize("text", ["x: !!int abc\n", "x: !!float abc\n", 'x: !!timestamp "abc"\n',
                                  "x: " + "1" * 5000 + "\n"])
def test_lint_bad_tagged_value_exits_2_with_one_line(text: str) -> None:
    from ..test_lint_fuzz import assert_one_clear_line, run_in_process

    code, _, err = run_in_process(text.encode())
    assert code == 2
    assert_one_clear_line(err)


# --------------------------------------------------------------------------------------------------
# Fixed: settings.py load_settings (a bad kuberay:* value was reported under the key "kuberay:*").


@pytest.mark.parametrize(("key", "value"), [("kuberay:environment", "production"), ("kuberay:version", "seven"),
                                            ("kuberay:featureGates", '{"NoSuchGate": true}'),
                                            ("kuberay:gpuBudget", "-1")])
def test_settings_name_the_bad_kuberay_key(key: str, value: str) -> None:
    settings = pytest.importorskip("settings")
    with pytest.raises(settings.StackConfigError) as info:
        settings.load_settings({"kuberay:environment": "dev", "kuberay:version": "1.7.0", key: value})
    assert [k for k, _ in info.value.problems] == [key]
