"""The recordings of the older operator versions (tests/oracle/_recorded.py) are there and current.

CI builds only the default judge's oracle and judges ``RECORDED`` versions from ``tests/oracle/recorded``. Where
an older oracle is built (a cached build, ``KUBERAY_ORACLE_ENTRIES``), every one of its answers in this tier is
held against the recording (``_recorded.observe``); here the base manifests are judged both ways. Where it is
not (CI), that check is skipped with a line naming the script that regenerates the recordings.
"""

from __future__ import annotations

import os

import pytest

from . import _recorded
from ._generate_base import base
from ._oracle import Oracle, find_oracles, recorded_oracle


def test_every_recorded_version_has_its_recording() -> None:
    for version in _recorded.RECORDED:
        data = _recorded.load(version)
        assert data is not None, f"no {_recorded.path(version)}: run {_recorded.REGENERATE}"
        assert data["version"] == version
        assert data["regenerate"] == _recorded.REGENERATE
        assert len(data["answers"]) > 1000, (version, len(data["answers"]))  # the whole tier, not a part of it


def test_a_request_not_recorded_names_the_script() -> None:
    version = _recorded.recorded_versions()[0] if _recorded.recorded_versions() else "v0.0.0"
    with pytest.raises(_recorded.NotRecorded, match=_recorded.REGENERATE):
        _recorded.answer(version, "0" * 24, "a judge request")


def test_generated_pod_names_are_made_stable() -> None:
    answer = {
        "children": [
            {"object": "Pod/demo-head-x7k2q (created by RayCluster/demo)", "errors": [{"detail": "demo-head-x7k2q"}]}
        ]
    }
    assert _recorded.canonical(answer) == {
        "children": [
            {"object": "Pod/demo-head-***** (created by RayCluster/demo)", "errors": [{"detail": "demo-head-*****"}]}
        ]
    }


@pytest.mark.parametrize("version", _recorded.RECORDED)
def test_the_recording_is_the_live_oracles(version: str) -> None:
    if os.environ.get(_recorded.RECORD_TO):
        pytest.skip(f"{_recorded.REGENERATE} is recording {version}")
    live = [o for o in find_oracles() if o.operator_version == version and not o.recorded]
    if not live:
        pytest.skip(
            f"{version} is judged from {_recorded.path(version).name}, not checked against a live oracle here (not "
            f"built; CI builds only the default judge): {_recorded.REGENERATE} builds it and records it again"
        )
    recorded = recorded_oracle(version)
    assert recorded is not None, f"no recording of {version}: run {_recorded.REGENERATE}"
    oracle: Oracle = live[0]
    docs = [base(kind) for kind in ("RayCluster", "RayJob", "RayService")]
    gates = oracle.gates("default")
    assert recorded.default_gates == oracle.default_gates
    live_verdicts = [_recorded.comparable(_recorded.canonical(v)) for v in oracle.judge(docs, gates)]
    assert live_verdicts == [_recorded.comparable(_recorded.canonical(v)) for v in recorded.judge(docs, gates)]
