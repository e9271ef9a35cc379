"""A program's user errors on the real engine (``tests/engine/user_errors``): a component given a bad spec fails
``pulumi preview`` with the field path and the fix, and without a Python traceback or pydantic's URL."""

from __future__ import annotations

import shutil

import pytest

from engine.conftest import ENGINE_DIR, Workspace, copy_project, make_workspace

CASES: dict[str, list[str]] = {
    "bad-value": [
        "RayCluster 'bad' is invalid (1 problem):",
        "spec.workerGroupSpecs[0].maxReplicas: expected an integer, got str 'many'",
        "(fix: write the number without quotes)",
    ],
    "serve-typo": [
        "route_prefx: unknown field 'route_prefx' (Ray Serve would silently ignore it)",
        "(fix: did you mean 'route_prefix'?)",
    ],
    "job-no-cluster": [
        "RayJob 'orphan': spec sets neither rayClusterSpec nor clusterSelector; pass cluster=<a RayCluster component>",
    ],
}


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory, pulumi_cli: str) -> Workspace:
    # Same depth as in the repository, so the program's `virtualenv: ../../../.venv` reaches the .venv symlink.
    root = copy_project(tmp_path_factory.mktemp("user_errors"))
    directory = root / "tests" / "engine" / "user_errors"
    shutil.copytree(ENGINE_DIR / "user_errors", directory, ignore=shutil.ignore_patterns("__pycache__", "rendered"))
    return make_workspace(root, pulumi_cli, program=directory)


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_spec_fails_preview_with_path_and_fix_and_no_traceback(program: Workspace, case: str) -> None:
    program.init_stack(case)
    program.pulumi("config", "set", "--stack", case, "case", case, check=True)
    run = program.pulumi("preview", "--stack", case)
    assert run.returncode != 0, run.describe()
    for text in CASES[case]:
        assert text in run.output, f"{text!r} not in the output\n{run.describe()}"
    assert "Traceback" not in run.output, run.describe()
    assert "errors.pydantic.dev" not in run.output, run.describe()
    assert not (program.cwd / "rendered").exists()
