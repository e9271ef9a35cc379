"""pulumi_kuberay.model.suggest: the one did-you-mean helper (prefix matches difflib misses, then difflib)."""

from __future__ import annotations

import difflib

import pulumi_kuberay as kr
import pytest
from pulumi_kuberay.model.suggest import closest, did_you_mean
from pydantic import ValidationError


def test_prefix_match_difflib_misses() -> None:
    assert difflib.get_close_matches("production", ["dev", "staging", "prod"]) == []
    assert closest("production", ["dev", "staging", "prod"]) == "prod"
    assert closest("stag", ["dev", "staging", "prod"]) == "staging"


def test_typos_by_difflib() -> None:
    assert closest("shraed", ["shared", "batch"]) == "shared"
    assert closest("route_prefx", ["route_prefix", "import_path", "name"]) == "route_prefix"


def test_case_and_nothing_close() -> None:
    assert closest("MinReplicas", ["minReplicas", "maxReplicas"]) == "minReplicas"
    assert closest("zzz", ["shared", "batch"]) is None
    assert closest("", ["shared"]) is None
    assert closest("shared", ["shared"]) is None


def test_ambiguous_prefix_falls_back_to_difflib() -> None:
    # 'min' starts two candidates: no prefix guess; difflib finds neither close enough
    assert closest("min", ["minReplicas", "minAvailable"]) is None
    # a prefix shorter than three characters is not taken as a slip (only difflib's ratio decides then)
    assert closest("pr", ["production"]) is None


def test_did_you_mean_text() -> None:
    assert did_you_mean("production", ["dev", "prod"]) == "did you mean 'prod'?"
    assert did_you_mean("zzz", ["dev", "prod"]) is None


def test_unknown_keyword_of_a_model_uses_it() -> None:
    with pytest.raises(ValidationError) as info:
        kr.WorkerGroupSpec(group_name="w", min_replica=1)  # type: ignore[call-arg]
    # errors() keeps pydantic's type and location, with the suggestion in the message
    (error,) = info.value.errors()
    assert (error["type"], error["loc"]) == ("extra_forbidden", ("min_replica",))
    assert error["msg"] == "unknown field 'min_replica': did you mean 'min_replicas'?"
    assert "min_replica: unknown field 'min_replica'" in str(info.value)
    assert "(fix: did you mean 'min_replicas'?)" in str(info.value)

