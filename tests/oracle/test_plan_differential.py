"""The change plan against KubeRay's own decision functions, per operator version the oracle is built at.

``kuberay-oracle plan`` runs the controllers' unexported ``shouldRecreatePodsForUpgrade``, ``shouldUpdateCluster``,
``isClusterSpecHashEqual``, ``shouldPrepareNewCluster``, ``isZeroDowntimeUpgradeEnabled``,
``constructRayClusterForRayService``/``modifyRayCluster`` and ``checkIfNeedSubmitServeApplications`` (compiled
into the oracle's build copy of the operator, tools/kuberay-oracle/inject) and ``GenerateHashWithoutReplicas-
AndWorkersToDelete`` on objects that went through the API server's create path. For every row of the change
table (``pulumi_kuberay.plan._cases``, docs/changes.md) of a version the oracle is built at, the plan's action
and its decisions must be the operator's; for every RayClusterSpec of the upstream samples (and quantity
spellings), the plan's hash must be the operator's byte for byte; and the committed Go type table must be the
one the oracle's Go types give.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi_kuberay.plan import hashing, plan_change
from pulumi_kuberay.plan._cases import CASES, Case, cluster_spec

from . import _recorded

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class VersionOracle:
    binary: str
    crd_dir: str
    version: tuple[int, int, int]

    @property
    def label(self) -> str:
        return "v" + ".".join(map(str, self.version))

    @property
    def recorded(self) -> bool:
        return not self.binary

    def plan(self, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        lines = [json.dumps(c) for c in cases]
        keys = [_recorded.key("plan", line) for line in lines]
        if self.recorded:  # an older version CI does not build: its recorded answers (tests/oracle/_recorded.py)
            return [_recorded.answer(self.label, k, "a plan request") for k in keys]
        proc = subprocess.run(
            [self.binary, "plan", "--crd-dir", self.crd_dir],
            input="".join(line + "\n" for line in lines),
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"kuberay-oracle plan failed ({proc.returncode}): {proc.stderr[-2000:]}")
        out = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        assert len(out) == len(cases), proc.stderr[-2000:]
        _recorded.observe(self.label, keys, out, "a plan request")
        return out


def _entries() -> list[str]:
    entries = os.environ.get("KUBERAY_ORACLE_ENTRIES", "")
    if not entries:
        proc = subprocess.run(
            [str(REPO / "scripts" / "ensure-oracle"), "--no-build", "--print-env"],
            capture_output=True,
            text=True,
            check=False,
        )
        for line in proc.stdout.splitlines():
            if line.startswith("export KUBERAY_ORACLE_ENTRIES="):
                entries = shlex.split(line.partition("=")[2])[0]
    return [e for e in entries.split(":") if e]


@cache
def version_oracles() -> tuple[VersionOracle, ...]:
    """Every oracle build the entries name whose binary has the ``plan`` command."""
    found = []
    for entry in _entries():
        env = dict(line.split("=", 1) for line in (Path(entry) / "oracle.env").read_text().splitlines() if "=" in line)
        binary = str(Path(entry) / "bin" / "kuberay-oracle")
        version = tuple(int(p) for p in env["operator_version"].lstrip("v").split("."))
        if version[:2] < (1, 6):
            continue  # built without the plan command (plan_pre_1_6.go): the plan models KubeRay >= 1.6
        found.append(VersionOracle(binary, env["crd_dir"], (version[0], version[1], version[2])))
    # The older versions CI does not build answer from their recordings (a live build of one wins).
    if found and not os.environ.get(_recorded.RECORD_TO):
        live = {o.label for o in found}
        for label in _recorded.recorded_versions():
            version = tuple(int(p) for p in label.lstrip("v").split("."))
            if label not in live and version[:2] >= (1, 6):
                found.append(VersionOracle("", "", (version[0], version[1], version[2])))
    return tuple(found)


@pytest.fixture(scope="module")
def oracles() -> tuple[VersionOracle, ...]:
    found = version_oracles()
    if not found:
        message = "oracle tier skipped: no kuberay-oracle builds (run scripts/ensure-oracle)"
        if (
            os.environ.get("PULUMI_KUBERAY_REQUIRE_ORACLE") == "1"
            and os.environ.get("PULUMI_KUBERAY_ORACLE") != "skipped"
        ):
            pytest.fail(message)
        pytest.skip(message)
    return found


def _oracle_for(oracles: tuple[VersionOracle, ...], case: Case) -> VersionOracle | None:
    for oracle in oracles:
        if oracle.version[:2] == case.version[:2]:
            return oracle
    return None


def _request(case: Case) -> dict[str, Any]:
    request: dict[str, Any] = {
        "id": case.id,
        "kind": case.kind,
        "old": case.old(),
        "new": case.new(),
        "gates": dict(case.gates),
        "zeroDowntimeEnv": case.zero_downtime_env,
    }
    if case.live_version is not None:
        request["headPodVersion" if case.kind == "RayCluster" else "activeVersion"] = case.live_version
    return request


def _bounds(spec: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    groups = [g for g in spec.get("workerGroupSpecs") or [] if isinstance(g, Mapping)]
    return {str(g.get("groupName")): (g.get("minReplicas"), g.get("maxReplicas")) for g in groups}


def operator_action(kind: str, answer: Mapping[str, Any], old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """The action the operator's answers amount to (the mapping docs/changes.md states). A RayCluster with
    in-tree autoscaling whose groups' min/maxReplicas change is updated in place: the autoscaler reads them
    from the RayCluster (Ray's KubeRay node provider), which the operator does not decide."""
    if kind == "RayCluster":
        if new["spec"].get("suspend") is True:
            return "suspend"
        if answer["recreate"]:
            return "recreate-pods"
        before, after = answer["desiredOld"], answer["desiredNew"]
        if any(before.get(group) != count for group, count in after.items()):
            return "update-in-place"
        old_bounds, new_bounds = _bounds(old["spec"]), _bounds(new["spec"])
        moved = any(name in old_bounds and old_bounds[name] != b for name, b in new_bounds.items())
        if moved and new["spec"].get("enableInTreeAutoscaling") is True:
            return "update-in-place"
        return "none"
    if answer["prepareNew"]:
        return "incremental" if answer["incremental"] else "new-cluster"
    if answer["updateActive"]:
        return "update-in-place"
    if answer.get("serveSubmit"):
        return "serve-update-in-place"
    return "none"


DECIDED = [c for c in CASES if c.kind in ("RayCluster", "RayService")]


def test_every_version_of_the_table_has_an_oracle(oracles: tuple[VersionOracle, ...]) -> None:
    built = {o.version[:2] for o in oracles}
    wanted = {c.version[:2] for c in DECIDED}
    # The default build has both minors (scripts/ensure-oracle: v1.6.2 and v1.7.0); say which rows go unjudged.
    assert wanted <= built, f"no oracle for minor(s) {sorted(wanted - built)}: rows of those versions are not judged"


@pytest.mark.parametrize("case", DECIDED, ids=lambda c: c.id)
def test_plan_agrees_with_the_operator(oracles: tuple[VersionOracle, ...], case: Case) -> None:
    oracle = _oracle_for(oracles, case)
    if oracle is None:
        pytest.skip(f"no oracle built at KubeRay {case.version[0]}.{case.version[1]}")
    answer = oracle.plan([_request(case)])[0]
    assert "error" not in answer, answer
    assert answer["kuberayVersion"] == oracle.label
    plan = plan_change(case.old(), case.new(), case.operator(), case.live(), mode=case.mode)
    # Same operator version on both sides (the plan compares ray.io/kuberay-version with it).
    assert plan.version == oracle.label
    assert operator_action(case.kind, answer, case.old(), case.new()) == case.expected, answer
    assert plan.action == case.expected, plan.line()
    if case.kind == "RayCluster":
        assert plan.facts["old_hash"] == answer["hashOld"]
        assert plan.facts["new_hash"] == answer["hashNew"]
        if "recreate" in plan.facts:
            assert plan.facts["recreate"] == answer["recreate"]
    else:
        assert hashing.service_goal_hash(case.old()["spec"]["rayClusterConfig"], case.version) == answer["activeHash"]
        for fact, key in (
            ("zero_downtime", "zeroDowntime"),
            ("incremental", "incremental"),
            ("update_active", "updateActive"),
            ("prepare_new", "prepareNew"),
        ):
            if fact in plan.facts:
                assert plan.facts[fact] == answer[key], (fact, answer)
        if "serveSubmit" in answer and "serve_submit" in plan.facts:
            assert plan.facts["serve_submit"] == answer["serveSubmit"]


# ---- the hash, byte for byte ----------------------------------------------------------------------------------

QUANTITIES = (
    "1",
    "1000m",
    "0.5",
    "1.5",
    "100m",
    "1E3",
    "1e3",
    "+1",
    "1024Mi",
    "1536Mi",
    "1.5Gi",
    "1000",
    "0m",
    "1e-12",
    "2000",
    "0.1Ki",
    "12e6",
    "5e-1",
    ".5",
    "1.",
    "0.0000000001",
    "123456789012345678",
    "9223372036854775807Ki",
    "8Ei",
    "1e21",
    "1073741824",
    "00100m",
    1,
    0.5,
    2.0,
    1e3,
    12345.678,
)


def _sample_specs() -> Iterator[tuple[str, dict[str, Any]]]:
    from _reference import require_reference

    for path in sorted((require_reference() / "kuberay" / "v1.7.0" / "samples").rglob("*.yaml")):
        for index, doc in enumerate(yaml.safe_load_all(path.read_text())):
            if not isinstance(doc, dict) or not str(doc.get("apiVersion", "")).startswith("ray.io/"):
                continue
            spec = doc.get("spec") or {}
            found = {
                "RayCluster": spec,
                "RayJob": spec.get("rayClusterSpec"),
                "RayService": spec.get("rayClusterConfig"),
                "RayCronJob": (spec.get("jobTemplate") or {}).get("rayClusterSpec"),
            }.get(str(doc.get("kind")))
            if isinstance(found, dict):
                yield f"{path.name}#{index}", found
    for value in QUANTITIES:
        spec = cluster_spec()
        spec["headGroupSpec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": value}}
        yield f"quantity {value!r}", spec
    odd = copy.deepcopy(cluster_spec())
    odd["rayVersion"] = '<&>\u2028\t é ☃ "\\'
    odd["headGroupSpec"]["rayStartParams"] = {"b": "1", "a": "2", "é": "x"}
    odd["suspend"] = False
    odd["workerGroupSpecs"][0]["numOfHosts"] = 1
    odd["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 8080}]
    yield "escapes, map order, defaults", odd


def test_hash_is_the_operators_byte_for_byte(oracles: tuple[VersionOracle, ...]) -> None:
    specs = list(_sample_specs())
    assert len(specs) > 80
    for oracle in oracles:
        requests = [
            {
                "id": label,
                "kind": "RayCluster",
                "old": {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "h"}, "spec": spec},
                "new": {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "h"}, "spec": spec},
            }
            for label, spec in specs
        ]
        answers = oracle.plan(requests)
        judged = 0
        for (label, spec), answer in zip(specs, answers, strict=True):
            if "error" in answer:
                continue  # a sample this version's API server does not store (a newer field)
            judged += 1
            assert hashing.raycluster_hash(spec, oracle.version) == answer["hashOld"], f"{oracle.label} {label}"
        assert judged >= len(specs) * 3 // 4, f"{oracle.label}: only {judged} of {len(specs)} specs judged"


def test_committed_type_tables_are_the_oracles(oracles: tuple[VersionOracle, ...], tmp_path: Path) -> None:
    from pulumi_kuberay.plan import _gojson

    for oracle in oracles:
        minor = oracle.version[:2]
        if minor not in _gojson.TABLES or oracle.recorded:
            continue  # a recorded version's table is checked where its oracle is built (scripts/gen-plan-types)
        types = subprocess.run([oracle.binary, "plan", "types"], capture_output=True, text=True, check=True).stdout
        dump = tmp_path / f"types-{oracle.label}.json"
        dump.write_text(types)
        out = tmp_path / f"table-{oracle.label}.json"
        subprocess.run(
            [
                sys.executable,
                str(REPO / "tools" / "gen_plan_types.py"),
                "--types",
                str(dump),
                "--crd",
                str(Path(oracle.crd_dir) / "ray.io_rayclusters.yaml"),
                "--out",
                str(out),
            ],
            check=True,
            capture_output=True,
        )
        committed = REPO / "components" / "pulumi_kuberay" / "plan" / "gotypes" / _gojson.TABLES[minor]
        assert json.loads(out.read_text())["types"] == json.loads(committed.read_text())["types"], (
            f"{committed} is not what {oracle.label}'s Go types give: run scripts/gen-plan-types"
        )
