"""The built wheel in a fresh virtual environment, away from the repository: the pack, the docs and the CLIs work
from ``pip install 'pulumi-kuberay[policy]'`` alone; with the real engine the installed pack runs under
``pulumi preview`` (marked ``engine``).

The wheel and its venv are built once per session (``fresh``, tests/_wheel.py); the README's own commands and
programs are run by tests/test_docs.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from _wheel import OWN_PROGRAM, REPO, TIMEOUT, FreshVenv, engine_project


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
    assert re.search(r"^pod-security-restricted\s+low\s+security\s+.*\(default medium[;)]", listing, re.MULTILINE)
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


@pytest.mark.engine
def test_installed_pack_runs_under_the_real_engine(fresh: FreshVenv, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = engine_project(fresh, monkeypatch, "wheel-check", PROGRAM)
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
    workspace = engine_project(fresh, monkeypatch, "bad-env", OWN_PROGRAM)
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
