"""The built wheel in a fresh virtual environment, away from the repository: the pack, the docs and the CLIs work
from ``pip install 'pulumi-kuberay[policy]'`` alone; with the real engine the installed pack runs under
``pulumi preview`` (marked ``engine``).

Slow (a wheel build and a venv install from the pip cache, about a minute); one venv for the module.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from engine.conftest import Workspace

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 900


@dataclass(frozen=True)
class FreshVenv:
    wheel: Path
    root: Path  # the venv
    workdir: Path  # an empty working directory outside the repository

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    def env(self) -> dict[str, str]:
        # PYTHONDONTWRITEBYTECODE dropped too: the venvs are installed --no-compile, so the first run of a module
        # compiles it once into the venv (compiling all of site-packages at install took most of its CPU)
        dropped = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in dropped}
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"  # as `source venv/bin/activate` does
        env["VIRTUAL_ENV"] = str(self.root)
        return env

    def run(self, *args: str, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            list(args), cwd=cwd or self.workdir, env=self.env(), capture_output=True, text=True, timeout=TIMEOUT
        )
        if check and proc.returncode != 0:
            pytest.fail(f"$ {' '.join(args)}\n(exit {proc.returncode})\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return proc


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> FreshVenv:
    base = tmp_path_factory.mktemp("wheel")
    dist, build = base / "dist", base / "build-src"
    # build from a clean copy of the tracked files (no stale build/ or egg-info in the work tree)
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    for name in filter(None, files):
        source = REPO / name
        target = build / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        elif source.is_file():
            shutil.copy2(source, target)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(build)],
        check=True,
        timeout=TIMEOUT,
        capture_output=True,
    )
    wheel = next(dist.glob("pulumi_kuberay-*.whl"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=TIMEOUT)
    # --no-compile: the modules the tests import are compiled when first imported (FreshVenv.env), not all of
    # site-packages (pulumi_kubernetes alone is thousands of modules): ~8 s less CPU
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-compile",
            "-c",
            str(REPO / "constraints.txt"),
            f"{wheel}[policy]",
        ],
        check=True,
        timeout=TIMEOUT,
        capture_output=True,
    )
    workdir = base / "work"
    workdir.mkdir()
    return FreshVenv(wheel, venv, workdir)


def test_wheel_ships_the_pack_docs_and_urls(fresh: FreshVenv) -> None:
    with zipfile.ZipFile(fresh.wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
        entry_points = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert {
        "pulumi_kuberay/policy/pack/PulumiPolicy.yaml",
        "pulumi_kuberay/policy/pack/__main__.py",
        "pulumi_kuberay/policy/_pack.py",
        "pulumi_kuberay/docs/rules.md",
        "pulumi_kuberay/docs/operator-rules.md",
        "pulumi_kuberay/docs/troubleshooting.md",
        "pulumi_kuberay/docs/linting.md",
        "pulumi_kuberay/docs/policy-pack.md",
        "pulumi_kuberay/docs/admission.md",
        "pulumi_kuberay/py.typed",
    } <= names
    urls = dict(
        line.removeprefix("Project-URL: ").split(", ", 1)
        for line in metadata.splitlines()
        if line.startswith("Project-URL: ")
    )
    assert {"Homepage", "Documentation", "Rule reference", "Repository", "Issues"} <= set(urls)
    assert all(url.startswith("https://") for url in urls.values())
    # the README is the package index page: its links must not be relative (nothing to resolve them against)
    description = metadata.split("\n\n", 1)[1]
    relative = [t for t in re.findall(r"\]\(([^)\s]+)\)", description) if not re.match(r"^(https?:|#)", t)]
    assert not relative, relative
    for script in ("kuberay-lint", "kuberay-explain", "kuberay-policy-pack", "pulumi-resource-kuberay"):
        assert f"{script} = " in entry_points


def test_component_provider_from_the_installed_package(fresh: FreshVenv) -> None:
    """The component package's provider (docs/component-package.md) runs from the wheel alone."""
    schema = json.loads(fresh.run("pulumi-resource-kuberay", "--schema").stdout)
    version = fresh.run("python", "-c", "import importlib.metadata as m; print(m.version('pulumi-kuberay'))").stdout
    assert schema["name"] == "kuberay" and schema["version"] == version.strip()
    assert {"kuberay:index:RayCluster", "kuberay:index:KubeRayOperator"} <= set(schema["resources"])


def test_installed_package_is_not_the_repository(fresh: FreshVenv) -> None:
    out = fresh.run("python", "-c", "import pulumi_kuberay, pulumi_policy; print(pulumi_kuberay.__file__)").stdout
    assert str(fresh.root) in out and str(REPO) not in out


def test_cli_rule_reference_from_the_installed_package(fresh: FreshVenv) -> None:
    listing = fresh.run("kuberay-lint", "--list-rules").stdout
    # the severity in force with no environment: advice, low (the default, medium, is prod's)
    assert re.search(r"^pod-security-restricted\s+low\s+security\s+.*\(default medium\)$", listing, re.MULTILINE)
    prod = fresh.run("kuberay-lint", "--list-rules", "--environment", "prod").stdout
    assert re.search(r"^pod-security-restricted\s+medium\s+security\s+", prod, re.MULTILINE)
    docs = re.search(r"installed copy: (\S+rules\.md)", listing)
    assert docs and Path(docs.group(1)).is_file() and str(fresh.root) in docs.group(1)
    explained = fresh.run("kuberay-lint", "--explain-rule", "pod-security-baseline").stdout
    assert "Why: " in explained and "Fix: " in explained and "Violating example:" in explained
    assert fresh.run("kuberay-lint", "--version").stdout.startswith("kuberay-lint ")


def test_installed_docs_links_resolve(fresh: FreshVenv) -> None:
    """Every relative link in the shipped docs points at a shipped file, and every #anchor at a heading."""
    docs_dir = Path(
        fresh.run(
            "python", "-c", "from pulumi_kuberay.cli._rule_help import installed_docs; print(installed_docs())"
        ).stdout.strip()
    )
    pages = {p.name: p.read_text(encoding="utf-8") for p in docs_dir.glob("*.md")}
    assert {"rules.md", "operator-rules.md", "troubleshooting.md", "linting.md", "policy-pack.md"} <= set(pages)

    def anchors(text: str) -> set[str]:
        out = set()
        for heading in re.findall(r"^#+\s+(.+)$", text, re.MULTILINE):
            slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            out.add(slug)
        return out

    broken = []
    for name, text in pages.items():
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # absolute URL
            page, _, anchor = target.partition("#")
            linked = pages.get(page or name)
            if linked is None:
                broken.append(f"{name}: {target} (no such shipped page)")
            elif anchor and anchor not in anchors(linked):
                broken.append(f"{name}: {target} (no such heading)")
    assert not broken, broken[:10]


def test_policy_pack_directory_from_the_installed_package(fresh: FreshVenv) -> None:
    path = Path(fresh.run("python", "-m", "pulumi_kuberay.policy", "--path").stdout.strip())
    assert path.is_relative_to(fresh.root) and (path / "PulumiPolicy.yaml").is_file()
    target = fresh.workdir / "my-pack"
    fresh.run("kuberay-policy-pack", str(target))
    requirements = (target / "requirements.txt").read_text()
    # installed from a wheel file: the pack installs that wheel (PEP 610 direct_url.json), not a name no index has
    assert f"pulumi-kuberay[policy] @ {fresh.wheel.resolve().as_uri()}" in requirements.splitlines(), requirements
    assert "virtualenv" not in (target / "PulumiPolicy.yaml").read_text()
    # and pip resolves the file as written, from local files alone (what `pulumi install` runs in the pack)
    resolved = fresh.run(
        "python", "-m", "pip", "install", "--dry-run", "--no-index", "-r", str(target / "requirements.txt"), check=False
    )
    assert resolved.returncode == 0, resolved.stderr[-2000:]
    # the pack's program imports and builds every policy in the fresh venv (no repository on sys.path)
    count = fresh.run(
        "python", "-c", "from pulumi_kuberay.policy._pack import build_policies; print(len(build_policies()))"
    ).stdout
    assert int(count) > 100


def test_linter_and_explain_run_on_a_folder(fresh: FreshVenv) -> None:
    (fresh.workdir / "m").mkdir(exist_ok=True)
    (fresh.workdir / "m" / "c.yaml").write_text(
        "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: c}\nspec:\n  headGroupSpec:\n    template:\n"
        "      spec:\n        containers: [{name: ray-head, image: 'rayproject/ray:2.52.0'}]\n"
    )
    lint = fresh.run("kuberay-lint", "--format", "json", "m", check=False)
    assert lint.returncode in (0, 1), lint.stderr
    assert json.loads(lint.stdout)["findings"]
    explain = fresh.run("kuberay-explain", "m", check=False)
    assert explain.returncode == 1 and "c" in explain.stdout  # no status yet: not ok


# ------------------------------------------------------------------------------------------ real engine

PROGRAM = '''"""A RayCluster declared as a raw CustomResource, rendered to a folder (no cluster)."""

import pulumi
from pulumi_kubernetes import Provider
from pulumi_kubernetes.apiextensions import CustomResource

provider = Provider("render", render_yaml_to_directory="rendered")
CustomResource(
    "privileged",
    api_version="ray.io/v1",
    kind="RayCluster",
    metadata={"name": "privileged"},
    spec={
        "rayVersion": "2.52.0",
        "headGroupSpec": {
            "rayStartParams": {},
            "template": {"spec": {"containers": [{
                "name": "ray-head",
                "image": "rayproject/ray:2.52.0",
                "securityContext": {"privileged": True},
            }]}},
        },
    },
    opts=pulumi.ResourceOptions(provider=provider),
)
'''


def _engine_project(
    fresh: FreshVenv, monkeypatch: pytest.MonkeyPatch, name: str, program: str, *, pulumi_yaml: str | None = None
) -> Workspace:
    """A Pulumi project of its own in the fresh venv's working directory, run by the real engine (file backend)."""
    pulumi = shutil.which("pulumi")
    if pulumi is None:
        if (
            os.environ.get("PULUMI_KUBERAY_REQUIRE_ENGINE") == "1"
            and os.environ.get("PULUMI_KUBERAY_ENGINE") != "skipped"
        ):
            pytest.fail("no `pulumi` on PATH although the engine tier is required", pytrace=False)
        pytest.skip('no `pulumi` on PATH (run `eval "$(scripts/ensure-pulumi --print-env)"` or scripts/test)')
    project = fresh.workdir / name
    project.mkdir()
    (project / "Pulumi.yaml").write_text(
        pulumi_yaml
        or f"name: {name}\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: {fresh.root}\n"
    )
    (project / "__main__.py").write_text(program)
    state = fresh.workdir / f"{name}-state"
    state.mkdir()
    # the engine starts the program and the pack with the `python` first on PATH: the fresh venv's, as after
    # `activate`
    for key, value in fresh.env().items():
        monkeypatch.setenv(key, value)
    for key in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE"):  # bytecode: see FreshVenv.env
        monkeypatch.delenv(key, raising=False)
    return Workspace(cwd=project, state=state, cli=pulumi)


@pytest.mark.engine
def test_installed_pack_runs_under_the_real_engine(fresh: FreshVenv, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = _engine_project(fresh, monkeypatch, "wheel-check", PROGRAM)
    workspace.init_stack("ci")
    # A stack without any config reaches the program as PULUMI_CONFIG=null with this repository's language host
    # (scripts/engine/pulumi-language-python marshals a nil map), and the SDK's set_all_config(None) fails.
    workspace.pulumi("config", "set", "wheel-check:note", "from-a-wheel", "--stack", "ci", check=True)
    installed = Path(fresh.run("python", "-m", "pulumi_kuberay.policy", "--path").stdout.strip())
    written = fresh.workdir / "written-pack"
    fresh.run("kuberay-policy-pack", str(written))
    for pack in (installed, written):
        output = workspace.pulumi("preview", "--stack", "ci", "--policy-pack", str(pack)).output
        assert "kuberay-policies@v0.1.0" in output, output[-4000:]
        assert re.search(r"\[advisory\] \[severity: \w+\]\s+pod-security-baseline", output), output[-4000:]
        assert "Traceback" not in output


def test_wheel_ships_every_data_file_the_package_reads() -> None:
    """Every tracked non-Python file of the package is package data (the change plan's ``plan/gotypes/*.json`` was
    not, and every update from an installed wheel failed in its hook): listed in pyproject's package-data."""
    import tomllib

    tracked = subprocess.run(
        ["git", "ls-files", "components/pulumi_kuberay"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    data = [
        Path(name).relative_to("components/pulumi_kuberay")
        for name in tracked
        if not name.endswith(".py") and not (REPO / name).is_symlink()
    ]
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "pulumi_kuberay"
    ]
    missing = [str(p) for p in data if not any(p.match(pattern) for pattern in patterns)]
    assert data and not missing, missing


def test_wheel_contains_the_change_plan_tables(fresh: FreshVenv) -> None:
    with zipfile.ZipFile(fresh.wheel) as archive:
        names = set(archive.namelist())
    gotypes = REPO / "components/pulumi_kuberay/plan/gotypes"
    tables = {f"pulumi_kuberay/plan/gotypes/{p.name}" for p in gotypes.glob("*.json")}
    assert tables and tables <= names, sorted(tables - names)


def readme_block(marker: str) -> str:
    """The code block after ``<!-- own-project:MARKER -->`` in the README (its "In your own project" section)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- own-project:{re.escape(marker)} -->\n```\w*\n(.*?)```", text, re.DOTALL)
    assert found, f"README.md has no code block marked own-project:{marker}"
    return found.group(1)


#: The README's own-project program: the test runs what a reader copies.
OWN_PROGRAM = readme_block("__main__.py")


def _readme_commands() -> list[list[str]]:
    """The README's pulumi commands of that section, in order (``a && b`` split, comments and exports dropped)."""
    out = []
    for raw in readme_block("commands").splitlines():
        line = raw.split("#", 1)[0].strip()
        for part in filter(None, (p.strip() for p in line.split("&&"))):
            words = part.split()
            if words[0] == "pulumi":
                out.append(words[1:])
    return out


@pytest.mark.engine
def test_installed_wheel_creates_updates_and_destroys(fresh: FreshVenv, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's "In your own project", from the wheel alone: its Pulumi.yaml (the venv beside it), its program
    and its commands in order: up, a change of the image and of max_replicas (preview and up print the plan line
    from the installed change-plan tables), destroy."""
    pulumi_yaml = readme_block("Pulumi.yaml")
    assert "virtualenv: venv" in pulumi_yaml
    workspace = _engine_project(fresh, monkeypatch, "own-project", OWN_PROGRAM, pulumi_yaml=pulumi_yaml)
    (workspace.cwd / "venv").symlink_to(fresh.root)  # `python -m venv venv` in the project directory

    def plan_lines(output: str) -> list[str]:
        return [line.strip() for line in output.splitlines() if line.strip().startswith("plan: ")]

    commands = _readme_commands()
    assert [c[0] for c in commands] == ["login", "stack", "config", "up", "config", "config", "preview", "up", "destroy"]
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


def test_readme_names_every_console_script() -> None:
    """The README's opening counts and names the command-line tools the wheel installs (it said "two" of five)."""
    import tomllib

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    intro = (REPO / "README.md").read_text(encoding="utf-8").split("\n## ", 1)[0]
    words = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
    assert f"{words[len(scripts)]} command-line tools" in intro, intro
    missing = [name for name in scripts if f"`{name}`" not in intro]
    assert not missing, missing


@pytest.mark.engine
def test_bad_environment_in_stack_config_is_one_message(fresh: FreshVenv, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kuberay:environment production`` in a program of one's own: the key, the value, the allowed values, the
    did-you-mean and the fix, without a Python traceback (it printed ~30 lines of asyncio frames)."""
    workspace = _engine_project(fresh, monkeypatch, "bad-env", OWN_PROGRAM)
    workspace.init_stack("dev")
    workspace.pulumi("config", "set", "kubernetes:renderYamlToDirectory", "rendered", "--stack", "dev", check=True)
    workspace.pulumi("config", "set", "kuberay:environment", "production", "--stack", "dev", check=True)
    preview = workspace.pulumi("preview", "--stack", "dev")
    assert preview.returncode != 0, preview.describe()
    expected = "stack config (kuberay:environment): environment must be one of dev, staging, prod, got 'production'; did you mean 'prod'? (fix: pulumi config set kuberay:environment <a value named above>)"
    assert expected in preview.output, preview.describe()
    assert "Traceback" not in preview.output and 'File "' not in preview.output, preview.describe()


# ------------------------------------------------------------------------------------------ lint only


def _range(requirement: str) -> tuple[str, str]:
    name, spec = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(.*)", requirement.strip()).groups()  # type: ignore[union-attr]
    return name.lower(), spec.replace(" ", "")


def test_lint_only_requirements_are_the_package_ranges_without_pulumi() -> None:
    """lint-only-requirements.txt is pyproject.toml's dependencies minus pulumi and pulumi-kubernetes."""
    import tomllib

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    lines = (REPO / "lint-only-requirements.txt").read_text().splitlines()
    listed = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    expected = {_range(r) for r in declared} - {n for n in map(_range, declared) if n[0].startswith("pulumi")}
    assert {_range(r) for r in listed} == expected
    assert {name for name, _ in expected} == {"pydantic", "pyyaml"}


LINT_SAMPLE = """\
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: batch
spec:
  entrypoint: python batch.py
  suspend: true
  clusterSelector:
    ray.io/cluster: shared
"""


def test_lint_only_install_runs_the_clis_without_pulumi(fresh: FreshVenv, tmp_path: Path) -> None:
    """docs/linting.md's lint-only install (the requirements file, then the wheel with --no-deps) in a fresh venv:
    no pulumi installed, and kuberay-lint lints a manifest with the same findings as the full install."""
    venv = tmp_path / "lint-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=TIMEOUT)
    lint_only = FreshVenv(fresh.wheel, venv, fresh.workdir)
    requirements = str(REPO / "lint-only-requirements.txt")
    constraints = str(REPO / "constraints.txt")
    lint_only.run("python", "-m", "pip", "install", "-q", "--no-compile", "-c", constraints, "-r", requirements)
    lint_only.run("python", "-m", "pip", "install", "-q", "--no-compile", "--no-deps", str(fresh.wheel))
    installed = lint_only.run("python", "-m", "pip", "list", "--format", "json").stdout
    names = {d["name"].lower() for d in json.loads(installed)}
    assert "pulumi-kuberay" in names
    assert not {"pulumi", "pulumi-kubernetes", "grpcio", "protobuf"} & names, names
    manifest = tmp_path / "job.yaml"
    manifest.write_text(LINT_SAMPLE)
    results = []
    for venv_of in (lint_only, fresh):
        lint = venv_of.run("kuberay-lint", "--format", "json", str(manifest), check=False)
        assert lint.returncode == 1, lint.stderr  # a critical finding
        results.append(json.loads(lint.stdout)["findings"])
    found = {(f["rule_id"], f["path"]) for f in results[0]}
    assert ("rayjob-suspend-with-cluster-selector", "spec.suspend") in found, found
    assert results[0] == results[1]
    # nothing of pulumi is imported by a run (it is not even installed: an import would have failed the lint)
    program = (
        "import sys; from pulumi_kuberay.cli.lint import main\n"
        "try: main(['--format', 'json', sys.argv[1]])\nexcept SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pulumi', 'grpc', 'pulumi_kubernetes')),"
        " file=sys.stderr)"
    )
    modules = lint_only.run("python", "-c", program, str(manifest), check=False)
    assert modules.stderr.strip().splitlines()[-1] == "[]", modules.stderr
    assert lint_only.run("kuberay-explain", "--help").returncode == 0
    assert lint_only.run("kuberay-lint", "--version").stdout.startswith("kuberay-lint ")
