"""A deliberately non-compliant program (``tests/engine/noncompliant``) previewed with the policy pack.

Raw ``CustomResource`` objects (not our components, which refuse critical findings at construction):
a privileged worker container, two Serve applications on one route_prefix, autoscaling without maxReplicas.
With ``stacks/policy.prod.json`` the first two are mandatory (the preview fails, naming them) and the third
advisory; with ``stacks/policy.dev.json`` all three are advisory warnings and the preview passes.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from engine.conftest import ENGINE_DIR, Run, Workspace, copy_project, make_workspace, policy_args

#: "- [mandatory] [severity: high]  pod-security-baseline  (kubernetes:ray.io/v1:RayCluster: unbounded)"
_VIOLATION = re.compile(
    r"- \[(?P<level>mandatory|advisory)\] \[severity: (?P<severity>\w+)\]\s+(?P<rule>[a-z0-9-]+)\s+"
    r"\((?P<type>[^:]+:[^:]+:[^:]+): (?P<name>[^)]+)\)"
)
MANDATORY_IN_PROD = {
    ("pod-security-baseline", "unbounded"),
    ("serve-route-prefix-duplicate", "clash"),
}
ADVISORY_IN_PROD = {("autoscaling-bounds-explicit", "unbounded")}


def _violations(run: Run) -> dict[tuple[str, str], set[str]]:
    """(rule id, resource name) -> enforcement levels reported."""
    found: dict[tuple[str, str], set[str]] = {}
    for match in _VIOLATION.finditer(run.output):
        found.setdefault((match["rule"], match["name"]), set()).add(match["level"])
    return found


def assert_prod_levels(run: Run) -> None:
    """The noncompliant program's preview under the prod pack config failed, with each rule at its prod level."""
    assert run.returncode != 0, run.describe()
    found = _violations(run)
    for key in MANDATORY_IN_PROD:
        assert found.get(key) == {"mandatory"}, f"{key}: {found.get(key)}\n{run.describe()}"
    for key in ADVISORY_IN_PROD:
        assert found.get(key) == {"advisory"}, f"{key}: {found.get(key)}\n{run.describe()}"


@pytest.fixture(scope="module")
def noncompliant(tmp_path_factory: pytest.TempPathFactory, pulumi_cli: str) -> Workspace:
    # Same depth as in the repository, so the program's `virtualenv: ../../../.venv` reaches the .venv symlink.
    root = copy_project(tmp_path_factory.mktemp("noncompliant"))
    program = root / "tests" / "engine" / "noncompliant"
    shutil.copytree(ENGINE_DIR / "noncompliant", program, ignore=shutil.ignore_patterns("__pycache__"))
    workspace = make_workspace(root, pulumi_cli, program=program)
    workspace.init_stack("ci")
    return workspace


def test_prod_policy_config_blocks_the_mandatory_violations(noncompliant: Workspace) -> None:
    run = noncompliant.pulumi("preview", "--stack", "ci", *policy_args(Path(noncompliant.state).parent, "prod"))
    assert_prod_levels(run)
    assert "Traceback" not in run.output
    assert not (noncompliant.cwd / "rendered").exists()


def test_dev_policy_config_only_warns(noncompliant: Workspace) -> None:
    run = noncompliant.pulumi("preview", "--stack", "ci", *policy_args(Path(noncompliant.state).parent, "dev"))
    assert run.returncode == 0, run.describe()
    found = _violations(run)
    for key in MANDATORY_IN_PROD | ADVISORY_IN_PROD:
        assert found.get(key) == {"advisory"}, f"{key}: {found.get(key)}\n{run.describe()}"
    assert not any("mandatory" in levels for levels in found.values()), found


def test_prod_policy_config_fails_a_json_preview_too(noncompliant: Workspace) -> None:
    """``--json`` (what the stack previews use) still enforces the pack, but pulumi 3.259 puts no policy
    results in it: only the exit code and a bare "preview failed" diagnostic tell."""
    run = noncompliant.pulumi(
        "preview", "--stack", "ci", "--json", *policy_args(Path(noncompliant.state).parent, "prod")
    )
    assert run.returncode != 0, run.describe()
    plan = json.loads(run.stdout)
    assert any(d["severity"] == "error" for d in plan.get("diagnostics", [])), plan.get("diagnostics")
