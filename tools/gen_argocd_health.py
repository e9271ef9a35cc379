"""Writes components/pulumi_kuberay/argocd/<Kind>/health.lua (Argo CD resource health checks) from the tables of
pulumi_kuberay.status: every phase a table gives and the phase -> Argo CD status mapping (status.argocd) are read
from there, the walk over them is the Lua below, one function per kind mirroring status/<kind>.py. Also writes
Argo CD's own test layout (testdata/*.yaml, health_test.yaml) from tests/fixtures/status/.

usage: scripts/gen-argocd-health [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pulumi_kuberay.kuberay import KINDS
from pulumi_kuberay.status import ARGOCD_HEALTH, HEAD_STUCK_REASONS, Phase, StatusRule, diagnose
from pulumi_kuberay.status.cluster import CLUSTER_LEGACY_STATE, CLUSTER_NO_STATUS, CLUSTER_RC86
from pulumi_kuberay.status.cronjob import CRON_RULES
from pulumi_kuberay.status.job import (
    JOB_COMPLETE_NOT_SUCCESS,
    JOB_DEPLOYMENT,
    JOB_FAILED,
    JOB_FAILED_OTHER,
    JOB_NO_STATUS,
    JOB_RJ40,
    JOB_RUNNING,
)
from pulumi_kuberay.status.service import (
    APP_STATUS,
    SERVICE_LEGACY_STATUS,
    SERVICE_NO_STATUS,
    SERVICE_READY_FALSE,
)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "components" / "pulumi_kuberay" / "argocd"
FIXTURES = ROOT / "tests" / "fixtures" / "status"


def _lua_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _argo(phase: Phase) -> str:
    return _lua_str(ARGOCD_HEALTH[phase])


def _rules(name: str, rules: Mapping[str, StatusRule]) -> str:
    rows = "".join(f"  [{_lua_str(key)}] = {_argo(rule.phase)},\n" for key, rule in sorted(rules.items()))
    return f"local {name} = {{\n{rows}}}\n"


def _set(name: str, items: frozenset[str] | set[str]) -> str:
    rows = "".join(f"  [{_lua_str(key)}] = true,\n" for key in sorted(items))
    return f"local {name} = {{\n{rows}}}\n"


def _phases() -> str:
    rows = "".join(f"  {phase} = {_lua_str(argo)},\n" for phase, argo in ARGOCD_HEALTH.items())
    return f"local ARGO = {{\n{rows}}}\n"


_PRELUDE = """\
local function get(v, ...)
  for _, key in ipairs({...}) do
    if type(v) ~= "table" then return nil end
    v = v[key]
  end
  return v
end
local function text(v) if type(v) == "string" then return v end return "" end
local function int(v)
  if type(v) == "number" and v == math.floor(v) then return v end
  return nil
end
local function empty(v)
  return v == nil or v == false or v == "" or v == 0 or (type(v) == "table" and next(v) == nil)
end
local function conditions(base)
  local out = {}
  local raw = get(base, "conditions")
  if type(raw) == "table" then
    for _, c in ipairs(raw) do
      if type(c) == "table" and type(c.type) == "string" then out[c.type] = c end
    end
  end
  return out
end
local function cond(conds, ctype)
  local c = conds[ctype]
  if c == nil then return "", "", "" end
  return text(c.status), text(c.reason), text(c.message)
end
local function has(t) return next(t) ~= nil end
"""

_OVERLAY = """\
local function verdict(kind)
  local status = obj.status
  if status ~= nil and type(status) ~= "table" then
    return ARGO.unknown, "status is not an object"
  end
  local health, message = diagnose(status)
  if text(get(obj, "metadata", "deletionTimestamp")) ~= "" then
    return ARGO.progressing, "being deleted; before that: " .. message
  end
  local generation, observed = int(get(obj, "metadata", "generation")), int(get(obj, "status", "observedGeneration"))
  if generation ~= nil and observed ~= nil and observed < generation and kind ~= "RayCluster" then
    message = message .. " (status is from generation " .. observed .. ", the object is at " .. generation .. ")"
    if health == ARGO.healthy then health = ARGO.progressing end
  end
  return health, message
end
"""

_CLUSTER = """\
local function diagnose(status)
  if empty(status) then return NO_STATUS, "no status yet: the operator has not reconciled it" end
  local conds = conditions(status)
  local suspend = get(obj, "spec", "suspend") == true
  if not has(conds) then
    local state = text(status.state)
    if state == "" and suspend then return ARGO.suspended, "suspend requested (spec.suspend=true)" end
    if LEGACY_STATE[state] == nil then return ARGO.unknown, "unrecognised status.state " .. state end
    return LEGACY_STATE[state], "state " .. (state ~= "" and state or "empty") .. " (deprecated status.state)"
  end
  local suspending, suspended = cond(conds, "RayClusterSuspending"), cond(conds, "RayClusterSuspended")
  if suspending == "True" and suspended == "True" then
    return RC86, "invalid status: RayClusterSuspending and RayClusterSuspended both True (RC-86)"
  end
  if suspending == "True" then return ARGO.suspended, "suspending (RayClusterSuspending True)" end
  if suspended == "True" then return ARGO.suspended, "suspended (RayClusterSuspended True)" end
  local rf, rf_reason = cond(conds, "ReplicaFailure")
  local head, head_reason = cond(conds, "HeadPodReady")
  local prov, prov_reason = cond(conds, "RayClusterProvisioned")
  if suspend then return ARGO.suspended, "suspend requested (spec.suspend=true)" end
  if rf == "True" then return ARGO.degraded, "ReplicaFailure " .. rf_reason end
  if head ~= "" and head ~= "True" then
    local why = head_reason ~= "" and head_reason or head
    if HEAD_STUCK[head_reason] then return ARGO.degraded, "head pod not ready: " .. why end
    if prov == "True" then return ARGO.degraded, "head pod was ready but is not any more: " .. why end
    return ARGO.progressing, "head pod not ready yet: " .. why
  end
  if prov ~= "" and prov ~= "True" then
    return ARGO.progressing, "waiting for all pods to be ready (" .. (prov_reason ~= "" and prov_reason or prov) .. ")"
  end
  if head == "True" or prov == "True" then return ARGO.healthy, "head pod ready, provisioned" end
  if text(status.state) == "ready" then return ARGO.healthy, "state ready" end
  return ARGO.unknown, "conditions present but none KubeRay v1.7.0 defines"
end
"""

_JOB = """\
local function diagnose(status)
  if empty(status) then return NO_STATUS, "no status yet: the operator has not picked it up" end
  local jds, job_status, reason = text(status.jobDeploymentStatus), text(status.jobStatus), text(status.reason)
  local mode = text(get(obj, "spec", "submissionMode"))
  if mode == "" then mode = "K8sJobMode" end
  local where = "jobDeploymentStatus " .. (jds ~= "" and jds or "New")
  if jds == "Waiting" and mode ~= "InteractiveMode" then
    return RJ40, "invalid status: Waiting with submissionMode " .. mode .. " (RJ-40)"
  end
  if jds == "Initializing" then
    local rconds = conditions(status.rayClusterStatus)
    local rf = cond(rconds, "ReplicaFailure")
    local head, head_reason = cond(rconds, "HeadPodReady")
    if rf == "True" or (head ~= "" and head ~= "True" and HEAD_STUCK[head_reason]) then
      return ARGO.degraded, where .. ": the RayCluster is stuck"
    end
    return DEPLOYMENT["Initializing"], where
  end
  if jds == "Running" then
    if text(status.jobStatusCheckFailureStartTime) ~= "" then
      return ARGO.degraded, where .. ": the Ray dashboard does not answer status checks"
    end
    if RUNNING[job_status] == nil then return ARGO.unknown, where .. ", unrecognised jobStatus " .. job_status end
    return RUNNING[job_status], where .. ", jobStatus " .. (job_status ~= "" and job_status or "not reported")
  end
  if jds == "Failed" then
    return FAILED[reason] or FAILED_OTHER, where .. ", reason " .. (reason ~= "" and reason or "none")
  end
  if jds == "Complete" then
    return COMPLETE_NOT_SUCCESS[job_status] or DEPLOYMENT["Complete"], where .. ", jobStatus " .. job_status
  end
  if DEPLOYMENT[jds] == nil then return ARGO.unknown, "unrecognised " .. where end
  return DEPLOYMENT[jds], where
end
"""

_SERVICE = """\
local function apps(base)
  local bad, busy = {}, {}
  local statuses = get(base, "applicationStatuses")
  if type(statuses) ~= "table" then return bad, busy end
  local names = {}
  for name, app in pairs(statuses) do
    if type(app) == "table" then table.insert(names, name) end
  end
  table.sort(names)
  for _, name in ipairs(names) do
    local s = text(statuses[name].status)
    local health = APP_STATUS[s] or (s ~= "" and "bad" or "busy")
    local line = "app " .. name .. " " .. (s ~= "" and s or "no status")
    if health == "bad" then table.insert(bad, line) elseif health == "busy" then table.insert(busy, line) end
  end
  return bad, busy
end
local function diagnose(status)
  if empty(status) then return NO_STATUS, "no status yet: the operator has not reconciled it" end
  local bad_active, busy_active = apps(status.activeServiceStatus)
  local bad_pending, busy_pending = apps(status.pendingServiceStatus)
  local conds = conditions(status)
  if not has(conds) then
    local legacy = text(status.serviceStatus)
    local health = LEGACY_STATUS[legacy]
    if health == nil and string.sub(legacy, 1, 6) == "Failed" then health = ARGO.degraded end
    if health == nil then return ARGO.unknown, "unrecognised serviceStatus " .. legacy end
    if health == ARGO.healthy and has(bad_active) then health = ARGO.degraded end
    return health, "serviceStatus " .. (legacy ~= "" and legacy or "empty") .. " (deprecated field)"
  end
  local ready, ready_reason = cond(conds, "Ready")
  local upgrading = cond(conds, "UpgradeInProgress")
  local rolling_back = cond(conds, "RollbackInProgress")
  local suspending, suspended = cond(conds, "Suspending"), cond(conds, "Suspended")
  local problems = table.concat(bad_active, "; ")
  if has(bad_pending) then
    problems = problems .. (problems ~= "" and "; " or "") .. "pending " .. table.concat(bad_pending, "; ")
  end
  if ready ~= "True" and READY_FALSE[ready_reason] ~= nil then
    return READY_FALSE[ready_reason], "Ready False, " .. ready_reason
  end
  if suspended == "True" then return READY_FALSE["SuspendComplete"], "suspended" end
  if suspending == "True" then return READY_FALSE["SuspendInProgress"], "suspending" end
  if rolling_back == "True" then
    return (ready == "True" and ARGO.progressing or ARGO.degraded), "rolling back (RollbackInProgress True)"
  end
  if upgrading == "True" then
    if ready ~= "True" or problems ~= "" then return ARGO.degraded, "upgrade stuck: " .. problems end
    return ARGO.progressing, "upgrading (UpgradeInProgress True)"
  end
  if ready == "True" then
    if has(bad_active) then return ARGO.degraded, "serving but " .. table.concat(bad_active, "; ") end
    if has(busy_active) then return ARGO.progressing, "serving while " .. table.concat(busy_active, "; ") end
    return ARGO.healthy, "ready"
  end
  if ready_reason == "ZeroServeEndpoints" then
    return ARGO.degraded, "outage: 0 serve endpoints (Ready False, ZeroServeEndpoints)"
  end
  if ready_reason == "Initializing" or ready == "" or ready == "Unknown" then
    if problems ~= "" then return ARGO.degraded, "initializing but " .. problems end
    return ARGO.progressing, "initializing"
  end
  return ARGO.unknown, "Ready " .. ready .. " with unrecognised reason " .. ready_reason
end
"""

_CRON = """\
local function diagnose(status)
  local last = text(get(status, "lastScheduleTime"))
  if get(obj, "spec", "suspend") == true then return RULES["suspended"], "suspended (spec.suspend=true)" end
  if last ~= "" then return RULES["scheduled"], "last run scheduled at " .. last end
  return RULES["never"], "nothing scheduled yet (no status.lastScheduleTime)"
end
"""


def _tables(kind: str) -> str:
    if kind == "RayCluster":
        return (
            _rules("LEGACY_STATE", CLUSTER_LEGACY_STATE)
            + _set("HEAD_STUCK", HEAD_STUCK_REASONS)
            + f"local NO_STATUS = {_argo(CLUSTER_NO_STATUS.phase)}\nlocal RC86 = {_argo(CLUSTER_RC86.phase)}\n"
        )
    if kind == "RayJob":
        return (
            _rules("DEPLOYMENT", JOB_DEPLOYMENT)
            + _rules("RUNNING", JOB_RUNNING)
            + _rules("FAILED", JOB_FAILED)
            + _rules("COMPLETE_NOT_SUCCESS", JOB_COMPLETE_NOT_SUCCESS)
            + _set("HEAD_STUCK", HEAD_STUCK_REASONS)
            + f"local FAILED_OTHER = {_argo(JOB_FAILED_OTHER.phase)}\n"
            + f"local NO_STATUS = {_argo(JOB_NO_STATUS.phase)}\nlocal RJ40 = {_argo(JOB_RJ40.phase)}\n"
        )
    if kind == "RayService":
        app_rows = "".join(f"  [{_lua_str(k)}] = {_lua_str(v)},\n" for k, v in sorted(APP_STATUS.items()))
        return (
            _rules("LEGACY_STATUS", SERVICE_LEGACY_STATUS)
            + _rules("READY_FALSE", SERVICE_READY_FALSE)
            + f"local APP_STATUS = {{\n{app_rows}}}\n"
            + f"local NO_STATUS = {_argo(SERVICE_NO_STATUS.phase)}\n"
        )
    return _rules("RULES", CRON_RULES)


_WALK = {"RayCluster": _CLUSTER, "RayJob": _JOB, "RayService": _SERVICE, "RayCronJob": _CRON}


def render_health(kind: str) -> str:
    return (
        f"-- Argo CD health check for ray.io/{kind} (KubeRay v1.7.0), the verdict of pulumi-kuberay's kuberay-explain.\n-- GENERATED by scripts/gen-argocd-health from pulumi_kuberay.status: do not edit.\n"
        + _phases()
        + _tables(kind)
        + _PRELUDE
        + _WALK[kind]
        + _OVERLAY
        + f"local hs = {{}}\nhs.status, hs.message = verdict({_lua_str(kind)})\nreturn hs\n"
    )


def _fixtures(kind: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(FIXTURES.glob("*.yaml")):
        obj = yaml.safe_load(path.read_text())
        if isinstance(obj, dict) and obj.get("kind") == kind:
            out.append((path.stem, json.loads(json.dumps(obj, default=str))))
    return out


def _lua_results(script: str, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What gopher-lua (tools/argocd-lua, $PULUMI_KUBERAY_ARGOCD_LUA) makes of ``objects`` under ``script``."""
    runner = os.environ.get("PULUMI_KUBERAY_ARGOCD_LUA", "")
    if not runner or not os.access(runner, os.X_OK):
        raise SystemExit(
            "gen-argocd-health: PULUMI_KUBERAY_ARGOCD_LUA does not name the gopher-lua runner: run scripts/gen-argocd-health (it builds one with scripts/ensure-argocd-lua)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        lua = Path(tmp) / "health.lua"
        lua.write_text(script)
        paths = []
        for index, obj in enumerate(objects):
            path = Path(tmp) / f"{index}.json"
            path.write_text(json.dumps(obj))
            paths.append(str(path))
        proc = subprocess.run([runner, str(lua), *paths], capture_output=True, text=True, check=False, timeout=120)
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    if len(results) != len(objects) or any("error" in result for result in results):
        raise SystemExit(f"gen-argocd-health: the health script failed under gopher-lua: {proc.stdout} {proc.stderr}")
    return results


def render_health_test(kind: str, script: str) -> str:
    """Argo CD's health_test.yaml: the status and message the script gives for every testdata file (Argo CD's
    test compares both). The status is also kuberay-explain's (checked here and in tests/test_argocd_health.py)."""
    fixtures = _fixtures(kind)
    results = _lua_results(script, [obj for _, obj in fixtures])
    tests = []
    for (name, obj), result in zip(fixtures, results, strict=True):
        want = ARGOCD_HEALTH[diagnose(obj).phase]
        if result.get("status") != want:
            raise SystemExit(f"gen-argocd-health: {kind} {name}: the Lua says {result}, kuberay-explain {want}")
        tests.append(
            {
                "healthStatus": {"status": result["status"], "message": result.get("message", "")},
                "inputPath": f"testdata/{name}.yaml",
            }
        )
    return "# GENERATED by scripts/gen-argocd-health: do not edit.\n" + yaml.safe_dump(
        {"tests": tests}, sort_keys=False
    )


def outputs() -> dict[Path, str]:
    files: dict[Path, str] = {}
    for kind in KINDS:
        base = OUT / kind
        script = render_health(kind)
        files[base / "health.lua"] = script
        files[base / "health_test.yaml"] = render_health_test(kind, script)
        for name, obj in _fixtures(kind):  # as kuberay-explain reads them from JSON
            files[base / "testdata" / f"{name}.yaml"] = yaml.safe_dump(obj, sort_keys=False)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated file is missing or stale")
    args = parser.parse_args(argv)
    files = outputs()
    stale = [path for path, content in files.items() if not path.exists() or path.read_text() != content]
    extra = [path for path in OUT.rglob("*") if path.is_file() and path not in files]
    if args.check:
        for path in stale + extra:
            print(f"{path.relative_to(ROOT)} is stale or unexpected: run scripts/gen-argocd-health", file=sys.stderr)
        return 1 if stale or extra else 0
    for path in extra:
        path.unlink()
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path])
    print(f"gen-argocd-health: {len(files)} files under {OUT.relative_to(ROOT)}, {len(stale)} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
