"""A model built from bad keywords prints like a manifest error: the field path, what is wrong and the fix, one
line per problem, and never pydantic's documentation URL; ``errors()`` stays pydantic's."""

from __future__ import annotations

import pulumi_kuberay as kr
import pytest
from pulumi_kuberay.model._errors import ModelValidationError, validate_as
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.model.serve import AutoscalingConfig, ServeConfig
from pydantic import ValidationError


def test_bad_value_has_path_and_fix_and_no_url() -> None:
    with pytest.raises(ValidationError) as info:
        kr.WorkerGroupSpec(group_name="w", min_replicas="x")  # type: ignore[arg-type]
    text = str(info.value)
    assert isinstance(info.value, ModelValidationError)
    assert "errors.pydantic.dev" not in text and "For further information" not in text
    assert text == (
        "WorkerGroupSpec is invalid (1 problem):\n"
        "  - min_replicas: expected an integer, got str 'x' (fix: write the number without quotes)"
    )
    assert info.value.errors()[0]["type"] == "int_type"


def test_nested_bad_value_names_the_nested_path() -> None:
    with pytest.raises(ValidationError) as info:
        kr.RayClusterSpec(
            head_group_spec=kr.HeadGroupSpec(image="rayproject/ray:2.41.0"),
            worker_group_specs=[{"groupName": "w", "image": "rayproject/ray:2.41.0", "maxReplicas": "many"}],  # type: ignore[list-item]
        )
    text = str(info.value)
    assert "errors.pydantic.dev" not in text
    # the path as written: the keyword's Python name, then the dict's CRD name
    assert "worker_group_specs[0].maxReplicas: expected an integer, got str 'many'" in text
    assert "(fix: write the number without quotes)" in text


def test_several_problems_one_line_each() -> None:
    with pytest.raises(ValidationError) as info:
        kr.WorkerGroupSpec(group_name="w", min_replicas="x", max_replica=3)  # type: ignore[arg-type, call-arg]
    lines = str(info.value).splitlines()
    assert lines[0] == "WorkerGroupSpec is invalid (2 problems):"
    assert sorted(line.split(":")[0].strip() for line in lines[1:]) == ["- max_replica", "- min_replicas"]
    assert any("did you mean 'max_replicas'?" in line for line in lines[1:])


@pytest.mark.parametrize(
    ("yaml_text", "path", "guess"),
    [
        ("applications:\n- name: a\n  import_path: a:b\n  route_prefx: /a\n", "applications[0].route_prefx",
         "route_prefix"),
        (
            "applications:\n- name: a\n  import_path: a:b\n  deployments:\n  - name: d\n    num_replica: 2\n",
            "applications[0].deployments[0].num_replica",
            "num_replicas",
        ),
        ("applications:\n- name: a\n  import_path: a:b\nhttp_option: {port: 8000}\n", "http_option", "http_options"),
    ],
)
def test_misspelt_serve_key_gets_did_you_mean(yaml_text: str, path: str, guess: str) -> None:
    with pytest.raises(kr.ManifestError) as info:
        ServeConfig.from_yaml(yaml_text)
    (problem,) = info.value.problems
    assert (problem.path, problem.kind, problem.fix) == (path, "unknown_field", f"did you mean {guess!r}?")
    assert "errors.pydantic.dev" not in str(info.value)


@pytest.mark.parametrize(
    ("value", "fix"),
    [
        ("K8sJobMod", "did you mean 'K8sJobMode'?"),
        ("httpmode", "did you mean 'HTTPMode'?"),
        ("zzz", "use one of K8sJobMode, HTTPMode, InteractiveMode, SidecarMode"),
    ],
)
def test_a_value_not_among_the_choices_suggests_the_closest(value: str, fix: str) -> None:
    spec = {"entrypoint": "python x.py", "submissionMode": value, "clusterSelector": {"ray.io/cluster": "c"}}
    with pytest.raises(kr.ManifestError) as info:
        validate_as(RayJobSpec, spec, prefix="spec")
    (problem,) = info.value.problems
    assert problem.path == "spec.submissionMode"
    assert problem.message == f"{value!r} is not one of 'K8sJobMode', 'HTTPMode', 'InteractiveMode', 'SidecarMode'"
    assert problem.fix == fix


def test_a_value_out_of_bounds_says_the_bound() -> None:
    with pytest.raises(ValidationError) as info:
        AutoscalingConfig(max_replicas=0)
    assert str(info.value) == (
        "AutoscalingConfig is invalid (1 problem):\n"
        "  - max_replicas: Input should be greater than or equal to 1 (fix: set a value >= 1)"
    )
