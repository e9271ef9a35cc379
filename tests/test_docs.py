"""README.md and the user docs as a new user meets them: every command and program a user would copy runs from the
built wheel in a fresh venv outside the clone (the session's ``fresh``, tests/_wheel.py), or is marked as needing a
cluster (or the clone) and says so; every flag, type, exit code and version they name is checked.

A code block is found by the marker on the line before it, ``<!-- docs-test:KIND -->`` (or the quickstart's
``<!-- own-project:FILE -->``); :data:`KINDS` says what each kind's test does with it. A shell or Python block
without a marker fails :func:`test_every_block_a_user_copies_is_marked`. The Git URL of the install lines is
replaced by this clone (``git+file://``) or the built wheel (``file://``): the repository on GitHub is not reachable
from a test.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from _docs_blocks import (
    CLONE_URL,
    GIT_REQUIREMENT,
    GIT_URL,
    KINDS,
    REFUSED_JOB,
    STATUS_FIXTURES,
    USER_PAGES,
    Block,
    bash,
    blocks_of,
    code_blocks,
    commands,
    fail_unless,
)
from _wheel import OWN_PROGRAM, REPO, TIMEOUT, FreshVenv, engine_project, readme_block


def test_every_block_a_user_copies_is_marked() -> None:
    """A shell or Python block of a user page has a marker of a known kind; so has every block of the README."""
    unmarked, unknown = [], []
    for page in USER_PAGES:
        for block in code_blocks(page):
            if block.marker is None and (page == "README.md" or block.lang in ("bash", "sh", "console", "python")):
                unmarked.append(block.where())
            elif block.kind is not None and block.kind not in KINDS:
                unknown.append(f"{block.where()}: {block.kind}")
    assert not unmarked, f"blocks without a <!-- docs-test:KIND --> marker: {unmarked}"
    assert not unknown, unknown


def test_cluster_blocks_say_they_need_a_cluster() -> None:
    """A block marked ``cluster`` says so to the reader: in the block, or in the paragraph just before it."""
    for block in blocks_of("cluster"):
        lines = (REPO / block.page).read_text(encoding="utf-8").splitlines()[: block.line - 2]
        paragraph = " ".join(lines[-3:])
        assert "needs a cluster" in block.text + paragraph, f"{block.where()}: say that it needs a cluster"


def test_clone_commands_are_what_ci_and_the_engine_tier_run() -> None:
    """The README's two commands of a fresh clone: CI (.ci/run) runs ``scripts/test``; the engine tier runs
    ``scripts/dev-up`` (tests/engine/test_up_dev.py)."""
    (block,) = blocks_of("clone", ("README.md",))
    assert commands(block) == ["scripts/dev-up", "scripts/test"], commands(block)
    assert all((REPO / c).is_file() and (REPO / c).stat().st_mode & 0o111 for c in commands(block))
    assert re.search(r"^scripts/test\b", (REPO / ".ci/run").read_text(), re.MULTILINE)
    assert "scripts/dev-up" in (REPO / "tests/engine/test_up_dev.py").read_text()


def test_readme_links_to_the_repository_resolve() -> None:
    """Each link of the README into the repository (``.../blob/main/PATH``) names a file of this clone."""
    targets = re.findall(
        r"https://github\.com/pulumi-kuberay/pulumi-kuberay/blob/main/([^)#\s]+)", (REPO / "README.md").read_text()
    )
    missing = [t for t in targets if not (REPO / t).is_file()]
    assert targets and not missing, missing


# ------------------------------------------------------------------------------------------ compatibility


def _compatibility() -> dict[str, list[str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Compatibility") :].split("\n## ", 1)[0]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines() if line.startswith("| ")]
    return {row[0]: row[1:] for row in rows[1:]}


def test_compatibility_table_is_what_the_tests_run() -> None:
    """Every version of the README's table, against the files the test runs take them from."""
    table = _compatibility()
    pins = dict(line.split("==", 1) for line in (REPO / "constraints.txt").read_text().splitlines() if "==" in line)
    # the newest lane's (tests/engine/test_newest.py): PyPI's pins and `# go: NAME==V` for the builds
    newest = dict(
        line.removeprefix("# go: ").split("==", 1)
        for line in (REPO / "constraints-newest.txt").read_text().splitlines()
        if "==" in line and (line.startswith("# go: ") or not line.startswith("#"))
    )
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    requires = {re.split(r"[<>=]", r, maxsplit=1)[0]: r for r in project["dependencies"]}
    requires.update({re.split(r"[<>=]", r, maxsplit=1)[0]: r for r in project["optional-dependencies"]["policy"]})
    for row, package in (
        ("Pulumi Python SDK (`pulumi`)", "pulumi"),
        ("`pulumi-kubernetes`", "pulumi-kubernetes"),
        ("`pulumi-policy` (policy pack)", "pulumi-policy"),
    ):
        low, high, where = table[row]
        assert [low, high] == [pins[package], newest[package]], (row, pins[package], newest[package])
        assert f"`{requires[package].removeprefix(package)}`" in where, (row, requires[package])
    assert requires["pulumi"].removeprefix("pulumi").startswith(f">={pins['pulumi']}")
    # scripts/ensure-pulumi builds the pin, and with --newest constraints-newest.txt's `# go:` lines
    assert table["Pulumi CLI"][:2] == [pins["pulumi"], newest["pulumi-cli"]]
    assert f"provider binary {newest['pulumi-resource-kubernetes']}" in table["`pulumi-kubernetes`"][2]
    ensure = (REPO / "scripts/ensure-pulumi").read_text()
    assert "PULUMI_V=${PULUMI_KUBERAY_PULUMI_VERSION:-$(pin \"$CLI_PIN\")}" in ensure
    assert "PIN_PREFIX=''; CLI_PIN=pulumi; K8S_PIN=pulumi-kubernetes" in ensure
    assert "PIN_PREFIX='# go: '; CLI_PIN=pulumi-cli; K8S_PIN=pulumi-resource-kubernetes" in ensure

    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert table["Python"][:2] == [project["requires-python"].removeprefix(">="), python], table["Python"]

    ray_releases = [
        line.strip()
        for line in (REPO / "tests/serve_schema/ray-versions.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    realray = re.findall(r'RAY_(?:MAIN|OLD) = "([\d.]+)"', (REPO / "tests/realray/conftest.py").read_text())
    low, high, where = table["Ray (`rayVersion`, images)"]
    assert low.startswith(ray_releases[0] + " ") and high.startswith(ray_releases[-1] + " "), (low, high)
    assert f"{len(ray_releases)} releases from {ray_releases[0]} to {ray_releases[-1]}" in where, where
    assert f"real Ray {' and '.join(sorted(realray))}" in where, (where, realray)

    shells = re.search(r"^VERSIONS = \(([^)]*)\)", (REPO / "tests/test_three_shells.py").read_text(), re.MULTILINE)
    assert shells
    catalogue = re.findall(r'"([\d.]+)"', shells.group(1))
    oracle = re.search(r"PULUMI_KUBERAY_ORACLE_VERSIONS:-([^}]*)\}", (REPO / ".ci/run").read_text())
    assert oracle
    # CI builds the oracles of .ci/run's line and judges the older versions from their recordings
    live = sorted(v.lstrip("v") for v in oracle.group(1).split())
    recorded = sorted(
        p.name.removesuffix(".json.gz").lstrip("v") for p in (REPO / "tests/oracle/recorded").glob("v*.json.gz")
    )
    oracles = sorted({*live, *recorded}, key=lambda v: tuple(map(int, v.split("."))))
    upgrade = re.search(
        r'^UPGRADE_FROM = "([\d.]+)"', (REPO / "tests/cluster/test_operator_upgrade.py").read_text(), re.M
    )
    local = re.search(r"default ([\d.]+), the version we target", (REPO / "scripts/local-cluster").read_text())
    assert upgrade and local
    low, high, where = table["KubeRay operator"]
    assert low.startswith(catalogue[0] + " ") and high == catalogue[-1] == local.group(1), (low, high, catalogue)
    assert f"verdicts at {', '.join(catalogue[:-1])} and {catalogue[-1]}" in where, where
    assert f"validation code at {', '.join(oracles[:-1])} and {oracles[-1]}" in where, (where, oracles)
    if recorded:
        assert f"({' and '.join(recorded)} from recorded verdicts)" in where, (where, recorded)
    assert f"real operator at {upgrade.group(1)} and {local.group(1)}" in where, where

    kube = re.search(r"KUBE_V=\$\{PULUMI_KUBERAY_KUBE_VERSION:-([\d.]+)\}", (REPO / "scripts/ensure-kube").read_text())
    assert kube and table["Kubernetes"][:2] == [kube.group(1), kube.group(1)], table["Kubernetes"]
    # the oracle's Kubernetes minor per operator minor, as CONTRIBUTING.md ("The oracle") states it
    contributing = (REPO / "CONTRIBUTING.md").read_text()
    assert "(v1.36 for KubeRay v1.7, v1.35 for v1.6, v1.34 for v1.5;" in contributing
    assert "as the API server of 1.34, 1.35 and 1.36 validates them" in table["Kubernetes"][2]


# ------------------------------------------------------------------------------------------ install routes


def _pip_lines(block: Block) -> list[str]:
    lines = commands(block)
    assert lines and all(line.startswith(("pip ", "python3 -m venv", "venv/bin/pip ")) for line in lines), lines
    return lines


def test_install_lines_name_the_routes_that_work() -> None:
    """No page tells a user to ``pip install pulumi-kuberay`` from an index: the package is not on PyPI."""
    for page in USER_PAGES:
        for block in code_blocks(page):
            for line in block.text.splitlines():
                if re.search(r"pip install\b", line):
                    assert GIT_URL in line or ".whl" in line or "pydantic" in line, f"{block.where()}: {line}"
    lint = [shlex.split(line) for line in _pip_lines(blocks_of("lint-install")[0])]
    listed = [
        line.strip()
        for line in (REPO / "lint-only-requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lint[0][2:] == listed and lint[1][2:] == ["--no-deps", GIT_REQUIREMENT], lint
    for other in blocks_of("lint-install")[1:]:  # docs/linting.md's: the README's two lines, then a lint
        assert [shlex.split(line) for line in commands(other)[: len(lint)]] == lint, other.where()


def test_install_lines_resolve(fresh: FreshVenv) -> None:
    """The README's install lines with the Git URL of this clone: pip clones it and builds the package (a dry run,
    no dependencies: the venv keeps the built wheel)."""
    lines = [*_pip_lines(blocks_of("install")[0]), *_pip_lines(readme_block_of("venv"))]
    # the quickstart's line is the first with its venv's pip: pip checks it once
    for line in dict.fromkeys(re.sub(r"^venv/bin/pip ", "pip ", line) for line in lines):
        if line.startswith("python3 -m venv"):
            continue
        words = shlex.split(line)
        words = [w.replace(GIT_URL, CLONE_URL) for w in words]
        words[0] = "pip"
        run = fresh.run(
            "python", "-m", *words, "--dry-run", "--no-deps", "--ignore-installed", "-q", "--report", "-", check=False
        )
        assert run.returncode == 0, f"{line}\n{run.stderr[-3000:]}"
        report = json.loads(run.stdout)
        assert [item["metadata"]["name"] for item in report["install"]] == ["pulumi-kuberay"], line


def readme_block_of(marker: str) -> Block:
    return next(b for b in code_blocks("README.md") if b.marker == f"own-project:{marker}")


def test_wheel_route(fresh: FreshVenv) -> None:
    """``pip wheel`` from the Git URL makes the file the next line installs (this clone's version)."""
    first, second = commands(blocks_of("wheel")[0])
    run = bash(fresh, first.replace(GIT_URL, CLONE_URL))
    fail_unless(run, block=blocks_of("wheel")[0], line=first)
    named = Path(fresh.workdir / shlex.split(second)[-1])
    assert named.is_file(), sorted(p.name for p in (fresh.workdir / "dist").iterdir())
    assert named.name == fresh.wheel.name
    run = fresh.run("python", "-m", "pip", "install", "--dry-run", "--no-deps", "-q", str(named), check=False)
    assert run.returncode == 0, run.stderr


def test_lint_only_route_and_github_actions(fresh: FreshVenv, tmp_path: Path) -> None:
    """The lint-only install lines and the GitHub Actions job's steps, in a venv of their own (the pinned versions
    through PIP_CONSTRAINT): no pulumi installed, and the job fails on a manifest KubeRay refuses, passes on the
    quickstart's RayCluster."""
    venv = tmp_path / "lint-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=TIMEOUT)
    lint_only = FreshVenv(fresh.wheel, venv, tmp_path)
    workflow = yaml.safe_load(blocks_of("github-actions")[0].text)
    steps = [s["run"] for job in workflow["jobs"].values() for s in job["steps"] if "run" in s]
    python = next(s["with"]["python-version"] for job in workflow["jobs"].values() for s in job["steps"] if "with" in s)
    assert python == _compatibility()["Python"][1]
    install = commands(blocks_of("lint-install")[0])
    assert steps[: len(install)] == install, (steps, install)  # the same lines as the README's lint-only install
    env_line = f"export PIP_CONSTRAINT={REPO / 'constraints.txt'} PIP_NO_COMPILE=1 PIP_QUIET=1; "
    for step in steps[: len(install)]:
        run = bash(lint_only, env_line + step.replace(GIT_URL, f"file://{fresh.wheel}"))
        fail_unless(run, block=blocks_of("github-actions")[0], line=step)
    names = {d["name"].lower() for d in json.loads(lint_only.run("pip", "list", "--format", "json").stdout)}
    assert "pulumi-kuberay" in names and not {"pulumi", "pulumi-kubernetes", "grpcio"} & names, names
    lint = steps[len(install) :]
    assert len(lint) == 1 and lint[0].startswith("kuberay-lint deploy/"), lint
    deploy = tmp_path / "deploy"
    deploy.mkdir()
    (deploy / "job.yaml").write_text(REFUSED_JOB)
    failing = bash(lint_only, lint[0])
    assert failing.returncode == 1 and "rayjob-suspend-with-cluster-selector" in failing.stdout, failing.stdout
    (deploy / "job.yaml").unlink()
    (deploy / "cluster.yaml").write_text(yaml.safe_dump(_quickstart_manifest(fresh)))
    passing = bash(lint_only, lint[0])
    assert passing.returncode == 0, passing.stdout + passing.stderr
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "cluster.yaml").write_text((deploy / "cluster.yaml").read_text())
    for other in blocks_of("lint-install")[1:]:  # what the other pages run after the two lines, in that venv
        for line in commands(other)[len(install) :]:
            fail_unless(bash(lint_only, line), block=other, line=line)


# ------------------------------------------------------------------------------------------ programs


#: Runs a program under Pulumi mocks in the fresh venv (tests/_pulumi_mocks.py is copied beside it) and prints the
#: Ray kinds it registered, their manifests, the warnings and the error as JSON.
HARNESS = """
import json, runpy, sys
from _pulumi_mocks import install
import pulumi

program, config = sys.argv[1], json.loads(sys.argv[2])
env = install(config, project="docs", stack="docs")
error = None


@pulumi.runtime.test
def run():
    runpy.run_path(program, run_name="__main__")


try:
    run()
except Exception as exc:
    error = f"{type(exc).__name__}: {exc}"
ray = [r for r in env.created() if r.typ.startswith("kubernetes:ray.io/v1:")]
print(json.dumps({"kinds": sorted(r.typ.rsplit(":", 1)[1] for r in ray), "manifests": [r.inputs for r in ray],
                  "warnings": env.log.warnings, "error": error}, default=str))
"""


def run_under_mocks(fresh: FreshVenv, name: str, program: str, config: dict[str, str]) -> dict[str, object]:
    folder = fresh.workdir / "mocks"
    if not folder.exists():
        folder.mkdir()
        (folder / "_pulumi_mocks.py").write_text((REPO / "tests" / "_pulumi_mocks.py").read_text())
        (folder / "harness.py").write_text(HARNESS)
    (folder / f"{name}.py").write_text(program)
    run = fresh.run("python", str(folder / "harness.py"), str(folder / f"{name}.py"), json.dumps(config), cwd=folder)
    result: dict[str, object] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def _quickstart_manifest(fresh: FreshVenv) -> dict[str, object]:
    result = run_under_mocks(fresh, "quickstart", OWN_PROGRAM, {})
    assert result["error"] is None and result["kinds"] == ["RayCluster"], result
    manifests = result["manifests"]
    assert isinstance(manifests, list)
    return {"apiVersion": "ray.io/v1", **manifests[0]}


#: The Ray kinds each README example registers, in order.
EXAMPLE_KINDS = (["RayCluster", "RayJob"], ["RayJob"], ["RayService"], ["RayCronJob"])


def test_examples_run_from_the_wheel(fresh: FreshVenv) -> None:
    """Each README example (one per kind) and the quickstart program, under mocks from the installed package: the
    kinds it declares, no error and no warning (no finding at any severity)."""
    examples = blocks_of("example", ("README.md",))
    assert len(examples) == len(EXAMPLE_KINDS)
    for index, (block, kinds) in enumerate(zip(examples, EXAMPLE_KINDS, strict=True)):
        config = {"docs:hfToken": "token"}
        result = run_under_mocks(fresh, f"example{index}", block.text, config)
        assert result["error"] is None, f"{block.where()}: {result['error']}"
        assert result["kinds"] == kinds, (block.where(), result["kinds"])
        assert result["warnings"] == [], (block.where(), result["warnings"])
    assert {k for kinds in EXAMPLE_KINDS for k in kinds} == {"RayCluster", "RayJob", "RayService", "RayCronJob"}
    assert _quickstart_manifest(fresh)["kind"] == "RayCluster"


def test_docs_programs(fresh: FreshVenv) -> None:
    for index, block in enumerate(blocks_of("program")):
        result = run_under_mocks(fresh, f"program{index}", block.text, {})
        assert result["error"] is None, f"{block.where()}: {result['error']}"
        assert result["kinds"] and result["warnings"] == [], (block.where(), result)


def test_quickstart_mistake_message(fresh: FreshVenv) -> None:
    """The README's mistake (``min_replicas=4`` with ``maxReplicas`` 2) gives the message it shows."""
    shown = blocks_of("error", ("README.md",))[0].text.strip()
    assert "min_replicas=0" in OWN_PROGRAM
    result = run_under_mocks(
        fresh, "mistake", OWN_PROGRAM.replace("min_replicas=0", "min_replicas=4"), {"docs:maxReplicas": "2"}
    )
    assert isinstance(result["error"], str) and shown in result["error"], result["error"]


def test_python_blocks(fresh: FreshVenv) -> None:
    """Python blocks of the docs pages (the diagnose() API): run in the fresh venv beside a status snapshot."""
    for block in blocks_of("python"):
        folder = fresh.workdir / "python-blocks"
        folder.mkdir(exist_ok=True)
        for fixture in ("raycluster-ready.yaml", "rayjob-failed-app.yaml"):
            (folder / fixture).write_text((STATUS_FIXTURES / fixture).read_text())
        (folder / "block.py").write_text(block.text)
        fail_unless(fresh.run("python", "block.py", cwd=folder, check=False), block=block, line="python block.py")


# ------------------------------------------------------------------------------------------ command lines


def test_lint_commands(fresh: FreshVenv) -> None:
    """The README's lint lines on a folder: the quickstart's RayCluster passes (exit 0: its prod finding is medium),
    a RayJob KubeRay refuses fails (exit 1); empty input and a bad flag exit 2, as the README says."""
    work = fresh.workdir / "lint"
    deploy = work / "deploy"
    deploy.mkdir(parents=True)
    (deploy / "cluster.yaml").write_text(yaml.safe_dump(_quickstart_manifest(fresh)))
    block = blocks_of("lint", ("README.md",))[0]
    for line in commands(block):
        run = bash(fresh, line, cwd=work)
        fail_unless(run, 0, block=block, line=line)
    assert json.loads((work / "kuberay.sarif").read_text())["runs"][0]["tool"]["driver"]["name"] == "kuberay-lint"
    (deploy / "job.yaml").write_text(REFUSED_JOB)
    assert bash(fresh, commands(block)[0], cwd=work).returncode == 1
    empty = work / "empty"
    empty.mkdir()
    assert bash(fresh, "kuberay-lint empty/", cwd=work).returncode == 2
    assert bash(fresh, "kuberay-lint deploy/ --no-such-flag", cwd=work).returncode == 2
    assert bash(fresh, "kuberay-lint no-such.yaml", cwd=work).returncode == 2


def test_tool_commands(fresh: FreshVenv) -> None:
    work = fresh.workdir / "tools"
    work.mkdir()
    (work / "ray-cluster.yaml").write_text(_convert_input())
    block = blocks_of("tools", ("README.md",))[0]
    for line in commands(block):
        fail_unless(bash(fresh, line, cwd=work), block=block, line=line)
    assert "import pulumi_kuberay as kr" in (work / "infra.py").read_text()
    assert (work / "kuberay-policies" / "PulumiPolicy.yaml").is_file()


def test_explain_exit_codes(fresh: FreshVenv) -> None:
    """``kuberay-explain`` exits 0 when everything is healthy or succeeded, 1 otherwise, 2 on unreadable input."""
    ready, provisioning = STATUS_FIXTURES / "raycluster-ready.yaml", STATUS_FIXTURES / "raycluster-provisioning.yaml"
    assert fresh.run("kuberay-explain", str(ready), check=False).returncode == 0
    assert fresh.run("kuberay-explain", str(ready), str(provisioning), check=False).returncode == 1
    assert fresh.run("kuberay-explain", str(fresh.workdir / "no-such.yaml"), check=False).returncode == 2
    readme = (REPO / "README.md").read_text()
    assert (
        "`kuberay-explain` exits 0 when every object is healthy or succeeded, 1 otherwise, 2 on unreadable input"
        in readme
    )


def test_explain_commands(fresh: FreshVenv) -> None:
    work = fresh.workdir / "explain"
    work.mkdir()
    (work / "snapshot.yaml").write_text((STATUS_FIXTURES / "rayjob-failed-app.yaml").read_text())
    (work / "other.json").write_text(
        json.dumps(yaml.safe_load((STATUS_FIXTURES / "raycluster-ready.yaml").read_text()))
    )
    for block in blocks_of("explain"):
        for line in commands(block):
            run = bash(fresh, line if not line.endswith(" -") else f"{line} < snapshot.yaml", cwd=work)
            fail_unless(run, 0, 1, block=block, line=line)
            assert run.stdout.strip(), line
            if "--format json" in line:  # "a JSON array, one entry per object, with the evidence and the file:line"
                entries = json.loads(run.stdout)
                assert isinstance(entries, list) and entries, run.stdout
                assert all(e["evidence"] and re.fullmatch(r"snapshot\.yaml:\d+", e["source"]) for e in entries)


def _convert_input() -> str:
    before = next(b for b in code_blocks("docs/convert.md") if b.lang == "yaml")
    return before.text


def test_convert_commands(fresh: FreshVenv) -> None:
    """docs/convert.md's commands from the wheel, and its before/after pair as the installed converter makes it."""
    work = fresh.workdir / "convert"
    (work / "manifests").mkdir(parents=True)
    (work / "ray-cluster.yaml").write_text(_convert_input())
    (work / "ray-cluster.autoscaler.yaml").write_text(_convert_input())
    (work / "manifests" / "cluster.yaml").write_text(_convert_input())
    for values in ("values.yaml", "base.yaml", "prod.yaml"):
        (work / values).write_text("{}\n")
    for block in blocks_of("convert"):
        for line in commands(block):
            fail_unless(bash(fresh, line, cwd=work), block=block, line=line)
    # the page shows the output with ruff installed (`ruff format`ted): ruff alone, from this venv, on PATH
    (work / "ruff-only").mkdir()
    (work / "ruff-only" / "ruff").symlink_to(Path(sys.executable).parent / "ruff")
    after = blocks_of("convert-output")[0]
    line = f'PATH="$PATH:{work / "ruff-only"}" kuberay-convert ray-cluster.yaml'
    out = fail_unless(bash(fresh, line, cwd=work), block=after, line=line)
    assert out[out.index("import pulumi_kuberay") :] == after.text


# ------------------------------------------------------------------------------------------ names the docs use


def _mentions(pattern: str) -> list[tuple[str, str]]:
    """``(page, match)`` for every match in the user pages and the CLI's pages."""
    pages = USER_PAGES
    return [(page, m) for page in pages for m in re.findall(pattern, (REPO / page).read_text(encoding="utf-8"))]


def test_every_flag_the_docs_name_is_in_the_help(fresh: FreshVenv) -> None:
    """``kuberay-lint --flag`` (and the other tools'): each flag named on a line or in a code span after the tool's
    name is one its ``--help`` lists."""
    helps: dict[str, str] = {}
    missing = []
    for page, command in _mentions(r"(kuberay-(?:lint|explain|convert|policy-pack)(?=[\s`]|$)[^`\n|]*)"):
        tool = command.split()[0]
        if tool not in helps:
            helps[tool] = fresh.run(tool, "--help").stdout
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", command):
            if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", helps[tool]):
                missing.append(f"{page}: {tool} {flag}")
    assert helps and not missing, sorted(set(missing))


def test_every_type_the_docs_name_is_importable(fresh: FreshVenv) -> None:
    """``kr.Name`` and ``pulumi_kuberay.Name`` in the docs: exported by the installed package."""
    names = sorted({m for _, m in _mentions(r"(?<![\w.])(?:kr|pulumi_kuberay)\.([A-Za-z_]\w*)")})
    program = "import json, sys, pulumi_kuberay\nprint(json.dumps([n for n in sys.argv[1:] if not hasattr(pulumi_kuberay, n)]))"
    absent = json.loads(fresh.run("python", "-c", program, *names).stdout)
    modules = {
        "policy",
        "cli",
        "model",
        "rules",
        "resources",
        "status",
        "plan",
        "preflight",
        "admission",
        "convert",
        "provider",
    }
    assert names and [n for n in absent if n not in modules] == [], absent


# ------------------------------------------------------------------------------------------ the engine


def _quickstart_commands() -> list[list[str]]:
    """The quickstart's pulumi commands, in order (``a && b`` split, comments and exports dropped)."""
    out = []
    for raw in readme_block("commands").splitlines():
        line = raw.split("#", 1)[0].strip()
        for part in filter(None, (p.strip() for p in line.split("&&"))):
            words = part.split()
            if words[0] == "pulumi":
                out.append(words[1:])
    return out


@pytest.mark.engine
def test_quickstart_creates_updates_and_destroys(fresh: FreshVenv, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's quickstart, from the wheel alone: its Pulumi.yaml (the venv beside it), its program and its
    commands in order: up, a change of the image and of max_replicas (preview and up print the plan line from the
    installed change-plan tables), destroy; then its mistake, which fails the preview with the message shown."""
    pulumi_yaml = readme_block("Pulumi.yaml")
    assert "virtualenv: venv" in pulumi_yaml
    assert "python3 -m venv venv" in readme_block("venv")
    workspace = engine_project(fresh, monkeypatch, "own-project", OWN_PROGRAM, pulumi_yaml=pulumi_yaml)
    (workspace.cwd / "venv").symlink_to(fresh.root)  # `python3 -m venv venv` in the project directory

    def plan_lines(output: str) -> list[str]:
        return [line.strip() for line in output.splitlines() if line.strip().startswith("plan: ")]

    commands = _quickstart_commands()
    assert [c[0] for c in commands] == [
        "login",
        "stack",
        "config",
        "up",
        "config",
        "config",
        "preview",
        "up",
        "destroy",
    ]
    outputs: list[tuple[list[str], str]] = []
    for command in commands:
        if command == ["login", "--local"]:
            continue  # the test's backend is a folder of its own (PULUMI_BACKEND_URL)
        extra = ["--yes", "--skip-preview"] if command[0] in ("up", "destroy") else []
        run = workspace.pulumi(*command, *extra)
        assert run.returncode == 0, run.describe()
        assert "Traceback" not in run.output, run.describe()
        outputs.append((command, run.output))
        if command[0] == "up" and len([c for c, _ in outputs if c[0] == "up"]) == 2:
            rendered = next((workspace.cwd / "rendered" / "1-manifest").glob("ray.io_v1-raycluster-*.yaml")).read_text()
            assert "rayproject/ray:2.52.0-py312" in rendered and "maxReplicas: 12" in rendered
    first_up, preview, second_up = (out for c, out in outputs if c[0] in ("up", "preview"))
    assert [line.split(":")[2].strip() for line in plan_lines(first_up)] == ["create"], first_up
    assert "No such file or directory" not in preview and "gotypes" not in preview
    # the README's change keeps the image's Ray at spec.rayVersion: a reader following it meets no warning of ours
    assert "image-ray-version-mismatch" not in preview and "probes-need-ray-2-53" not in preview, preview
    lines = plan_lines(preview)
    assert len(lines) == 1 and lines[0].startswith("plan: RayCluster 'shared': "), preview
    assert "image of container ray-head" in lines[0], lines[0]
    assert len(plan_lines(second_up)) == 1, second_up

    (workspace.cwd / "__main__.py").write_text(OWN_PROGRAM.replace("min_replicas=0", "min_replicas=4"))
    workspace.pulumi("config", "set", "maxReplicas", "2", "--stack", "dev", check=True)
    mistake = workspace.pulumi("preview", "--stack", "dev")
    assert mistake.returncode != 0, mistake.describe()
    shown = blocks_of("error", ("README.md",))[0].text.strip().splitlines()
    assert all(line.strip() in mistake.output for line in shown), mistake.describe()


# ------------------------------------------------------------------------------------------ the CLI's pages
