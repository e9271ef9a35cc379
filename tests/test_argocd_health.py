"""The generated Argo CD health checks (components/pulumi_kuberay/argocd/<Kind>/health.lua): current, and, run with
gopher-lua (Argo CD's Lua runtime, scripts/ensure-argocd-lua), giving kuberay-explain's verdict on every status
fixture. Without the runner the gopher-lua tests are a loud skip; in CI (PULUMI_KUBERAY_REQUIRE_ARGOCD_LUA=1) a
failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi_kuberay.kuberay import KINDS
from pulumi_kuberay.status import ARGOCD_HEALTH, PHASES, argocd_health, diagnose

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import gen_argocd_health

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "status").glob("*.yaml"))
ARGO_STATUSES = {"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}


def _as_json(path: Path) -> dict[str, Any]:
    """The fixture as kuberay-explain reads it from `kubectl get -o json` (timestamps as strings)."""
    data = json.loads(json.dumps(yaml.safe_load(path.read_text()), default=str))
    assert isinstance(data, dict)
    return data


def _runner() -> str:
    path = os.environ.get("PULUMI_KUBERAY_ARGOCD_LUA", "")
    if path and os.access(path, os.X_OK):
        return path
    why = 'no gopher-lua runner: run `eval "$(scripts/ensure-argocd-lua --print-env)"` (needs Go)'
    if os.environ.get("PULUMI_KUBERAY_REQUIRE_ARGOCD_LUA") == "1":
        pytest.fail(why + " (PULUMI_KUBERAY_REQUIRE_ARGOCD_LUA=1)")
    pytest.skip(why)


def _run_lua(script: Path, obj: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [_runner(), str(script)], input=json.dumps(obj), capture_output=True, text=True, check=False, timeout=60
    )
    result = json.loads(proc.stdout)
    assert isinstance(result, dict)
    return result


@pytest.mark.argocd
def test_generated_files_are_current() -> None:
    _runner()  # health_test.yaml holds the scripts' messages under gopher-lua
    assert gen_argocd_health.main(["--check"]) == 0, (
        "components/pulumi_kuberay/argocd is stale: run scripts/gen-argocd-health"
    )


def test_every_phase_maps_to_an_argo_status() -> None:
    assert set(ARGOCD_HEALTH) == set(PHASES)
    assert set(ARGOCD_HEALTH.values()) <= ARGO_STATUSES
    assert ARGOCD_HEALTH["failed"] == "Degraded"
    assert ARGOCD_HEALTH["succeeded"] == "Healthy"


def test_every_kind_has_fixtures_in_argo_layout() -> None:
    for kind in KINDS:
        tests = yaml.safe_load((gen_argocd_health.OUT / kind / "health_test.yaml").read_text())["tests"]
        assert tests, kind
        for case in tests:
            assert (gen_argocd_health.OUT / kind / case["inputPath"]).is_file()
            assert case["healthStatus"]["status"] in ARGO_STATUSES


@pytest.mark.argocd
@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.stem)
def test_lua_verdict_equals_kuberay_explain(fixture: Path) -> None:
    obj = _as_json(fixture)
    want = argocd_health(diagnose(obj))
    got = _run_lua(gen_argocd_health.OUT / obj["kind"] / "health.lua", obj)
    assert "error" not in got, got
    assert got["status"] == want, f"{fixture.stem}: Lua says {got}, kuberay-explain {diagnose(obj).line()}"
    assert got["message"], fixture.stem


@pytest.mark.argocd
@pytest.mark.parametrize("kind", KINDS)
def test_lua_overlay_and_garbage(kind: str) -> None:
    """Deletion in progress, a stale observedGeneration and a non-object status give the same verdict too."""
    script = gen_argocd_health.OUT / kind / "health.lua"
    cases: list[dict[str, Any]] = [
        {"kind": kind, "metadata": {"name": "x", "deletionTimestamp": "2026-11-30T10:00:00Z"}},
        {"kind": kind, "metadata": {"name": "x", "generation": 3}, "status": {"observedGeneration": 2}},
        {"kind": kind, "metadata": {"name": "x"}, "status": "oops"},
        {"kind": kind, "metadata": {"name": "x"}},
    ]
    for obj in cases:
        got = _run_lua(script, obj)
        assert got.get("status") == argocd_health(diagnose(obj)), (obj, got, diagnose(obj).line())


def _variants(obj: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The fixture suspended, being deleted, and one generation ahead of its status."""
    suspended = json.loads(json.dumps(obj))
    suspended.setdefault("spec", {})["suspend"] = True
    deleting = json.loads(json.dumps(obj))
    deleting.setdefault("metadata", {})["deletionTimestamp"] = "2026-11-30T10:00:00Z"
    ahead = json.loads(json.dumps(obj))
    observed = ahead.get("status", {}).get("observedGeneration") if isinstance(ahead.get("status"), dict) else None
    ahead.setdefault("metadata", {})["generation"] = (observed if isinstance(observed, int) else 1) + 1
    return [("suspend", suspended), ("deleting", deleting), ("generation-ahead", ahead)]


@pytest.mark.argocd
@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.stem)
def test_lua_verdict_equals_kuberay_explain_on_variants(fixture: Path, tmp_path: Path) -> None:
    """Each fixture edited three ways, all run in one gopher-lua process: the same verdict as kuberay-explain."""
    obj = _as_json(fixture)
    variants = _variants(obj)
    paths = []
    for label, variant in variants:
        path = tmp_path / f"{label}.json"
        path.write_text(json.dumps(variant))
        paths.append(str(path))
    script = gen_argocd_health.OUT / obj["kind"] / "health.lua"
    proc = subprocess.run([_runner(), str(script), *paths], capture_output=True, text=True, check=False, timeout=60)
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(results) == len(variants), proc.stderr
    for (label, variant), got in zip(variants, results, strict=True):
        want = argocd_health(diagnose(variant))
        assert got.get("status") == want, f"{fixture.stem} ({label}): Lua says {got}, {diagnose(variant).line()}"
