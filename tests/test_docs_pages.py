"""The docs test (tests/test_docs.py), continued: the lines of the pages beyond the README (pip routes, linting.md,
helm, the policy pack, admission policies, the other languages' routes)."""



from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import yaml
from _docs_blocks import (
    GIT_REQUIREMENT,
    GIT_URL,
    REFUSED_JOB,
    USER_PAGES,
    Block,
    bash,
    blocks_of,
    commands,
    fail_unless,
)
from _wheel import REPO, FreshVenv
from test_docs import _quickstart_manifest


def block_lines(block: Block) -> list[str]:
    """A shell block's command lines; a YAML block's ``run:`` steps (GitHub Actions)."""
    if block.lang != "yaml":
        return commands(block)
    steps = yaml.safe_load(block.text)
    return [re.sub(r"\s{2,}#.*$", "", s["run"]).strip() for s in steps if "run" in s]


#: A release's wheel as the pages name it (``./pulumi_kuberay-0.1.0-py3-none-any.whl``, ``dist/...``).
_WHEEL_FILE = re.compile(r"[\w./-]*(pulumi_kuberay-[\w.]+-py3-none-any\.whl)")


def test_pip_lines(fresh: FreshVenv) -> None:
    """Each ``pip`` block's install lines (and the ones in its comments: the wheel-file route), in the fresh venv as
    a dry run: the Git URL and the release's wheel file replaced by the built wheel, whose file name is the one the
    page gives. A ``python -m venv`` line is the standard one (not run: the fresh venv is one)."""
    for block in blocks_of("pip"):
        for name in _WHEEL_FILE.findall(block.text):
            assert name == fresh.wheel.name, (block.where(), name, fresh.wheel.name)
        lines = [re.sub(r"^#\s*or:\s*", "", raw).split("  ")[0].strip() for raw in block.text.splitlines()]
        for line in filter(None, lines):
            for part in (p.strip() for p in line.split("&&")):
                if part.startswith("python -m venv") or part.startswith(". "):
                    assert re.fullmatch(r"python -m venv \.venv|\. \.venv/bin/activate", part), (block.where(), part)
                    continue
                words = shlex.split(part)
                assert words[:2] == ["pip", "install"], (block.where(), part)
                words = [_WHEEL_FILE.sub(str(fresh.wheel), w).replace(GIT_URL, f"file://{fresh.wheel}") for w in words]
                run = fresh.run(
                    "python",
                    "-m",
                    *words,
                    "--dry-run",
                    "--no-deps",
                    "--ignore-installed",
                    "-q",
                    "--report",
                    "-",
                    check=False,
                )
                assert run.returncode == 0, f"{block.where()}: {part}\n{run.stderr[-3000:]}"
                report = json.loads(run.stdout)
                assert [i["metadata"]["name"] for i in report["install"]] == ["pulumi-kuberay"], part


def _git_workdir(fresh: FreshVenv, name: str) -> Path:
    """A Git repository with the quickstart's RayCluster in manifests/ and deploy/, committed, ``origin/main`` at it."""
    work = fresh.workdir / name
    manifest = yaml.safe_dump(_quickstart_manifest(fresh))
    for folder in ("manifests", "deploy"):
        (work / folder).mkdir(parents=True)
        (work / folder / "cluster.yaml").write_text(manifest)
    git = ("git", "-c", "user.name=docs", "-c", "user.email=docs@example.com")
    for args in (
        ("init", "-q", "-b", "main"),
        ("add", "."),
        ("commit", "-q", "-m", "init"),
        ("update-ref", "refs/remotes/origin/main", "HEAD"),
    ):
        fresh.run(*git, *args, cwd=work)
    return work


def test_lint_page_commands(fresh: FreshVenv) -> None:
    """docs/linting.md's lint lines (and its GitHub Actions steps) from the wheel, in a Git repository of manifests:
    each runs and judges (exit 0 or 1, never 2); the baseline route writes the file it names."""
    work = _git_workdir(fresh, "lint-page")
    for block in blocks_of("lint", tuple(p for p in USER_PAGES if p != "README.md")):
        for line in block_lines(block):
            if line.startswith("pip install"):
                continue  # the full install: the fresh venv is one (test_pip_lines runs the line)
            line = line.replace("${{ github.base_ref }}", "main")
            fail_unless(bash(fresh, line, cwd=work), 0, 1, block=block, line=line)
    assert json.loads((work / ".kuberay-lint-baseline.json").read_text())
    assert json.loads((work / "kuberay.sarif").read_text())["runs"][0]["tool"]["driver"]["name"] == "kuberay-lint"


def test_helm_commands(fresh: FreshVenv) -> None:
    """The Helm line on a chart of one RayCluster template, with the values file it names: when ``helm`` is found
    ($KUBERAY_LINT_HELM, else PATH; else the page's claim that a missing helm is exit 2 with a way to get it)."""
    work = fresh.workdir / "helm"
    chart = work / "charts" / "ray-cluster"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: ray-cluster\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("image: rayproject/ray:2.52.0\n")
    cluster = _quickstart_manifest(fresh)
    (chart / "templates" / "raycluster-cluster.yaml").write_text(yaml.safe_dump(cluster))
    (work / "values-prod.yaml").write_text("image: rayproject/ray:2.52.0\n")
    # found as kuberay-lint finds it: $KUBERAY_LINT_HELM (what .ci/run exports), else PATH
    helm = fresh.env().get("KUBERAY_LINT_HELM") or shutil.which("helm", path=fresh.env()["PATH"])
    for block in blocks_of("helm"):
        for line in commands(block):
            run = bash(fresh, line, cwd=work)
            if helm:
                fail_unless(run, 0, 1, block=block, line=line)
                assert "raycluster-cluster.yaml" in run.stdout or run.returncode == 0, run.stdout
            else:
                assert run.returncode == 2 and "helm" in run.stderr, (block.where(), run.stderr)


def test_pack_commands(fresh: FreshVenv) -> None:
    """docs/policy-pack.md from the wheel: ``kuberay-policy-pack`` writes the folder each ``pulumi preview
    --policy-pack`` names, ``python -m pulumi_kuberay.policy --path`` prints the installed pack, ``--policy-configs``
    writes the ``policy.prod.json`` the page passes, and requirements.txt names the wheel file installed from."""
    work = fresh.workdir / "pack"
    work.mkdir()
    fresh.run("kuberay-policy-pack", "configs", "--policy-configs", cwd=work)
    for env in ("dev", "staging", "prod"):
        assert json.loads((work / "configs" / f"policy.{env}.json").read_text()), env
    page = (REPO / "docs/policy-pack.md").read_text()
    assert (
        "`kuberay-policy-pack --version` prints the installed version; with no argument\nit prints its one line of usage and exits 2"
        in page
    )
    bare = fresh.run("kuberay-policy-pack", cwd=work, check=False)
    assert bare.returncode == 2 and len(bare.stderr.strip().splitlines()) == 1, bare.stderr
    version = fresh.run("python", "-c", "import importlib.metadata as m; print(m.version('pulumi-kuberay'))").stdout
    assert version.strip() in fresh.run("kuberay-policy-pack", "--version", cwd=work).stdout
    for block in blocks_of("pack"):
        for line in commands(block):
            line = re.sub(r"\s{2,}#.*$", "", line)
            if line.startswith("(cd ") and line.endswith("pulumi install)"):
                continue  # the engine's: it installs requirements.txt, checked below
            if line.startswith("pulumi "):
                words = fresh.run("bash", "-c", f"printf '%s\\n' {line[len('pulumi ') :]}", cwd=work).stdout.split("\n")
                pack = Path(work, words[words.index("--policy-pack") + 1])
                assert (pack / "PulumiPolicy.yaml").is_file(), (block.where(), pack)
                continue
            fail_unless(bash(fresh, line, cwd=work), block=block, line=line)
    requirements = (work / "kuberay-policies" / "requirements.txt").read_text()
    assert f"pulumi-kuberay[policy] @ file://{fresh.wheel}" in requirements, requirements
    assert "virtualenv: venv" in (work / "kuberay-policies" / "PulumiPolicy.yaml").read_text()


def test_admission_commands(fresh: FreshVenv) -> None:
    """docs/admission.md's lines: the kuberay-lint part (before ``| kubectl apply``) prints the policies and their
    bindings, in the mode the line asks for."""
    for block in blocks_of("admission"):
        for line in commands(block):
            lint = line.split("|", 1)[0].strip()
            out = fail_unless(bash(fresh, lint), block=block, line=lint)
            kinds = {d["kind"] for d in yaml.safe_load_all(out) if d}
            assert kinds == {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}, (line, kinds)
            if "| kubectl apply -f -" not in line:
                assert "--admission-mode warn" in lint and "Warn" in out and "Deny" not in out, line


#: The engine tier's sources: the language routes (Go, TypeScript, YAML) and the release.
ENGINE_TESTS = (*sorted((REPO / "tests" / "engine").glob("test_package_*.py")), REPO / "tests/engine/test_release.py")


def test_engine_routes_are_what_the_engine_tier_runs() -> None:
    """An ``engine`` block's ``pulumi``, ``go`` and ``npm`` commands: each subcommand and flag is one the engine
    tier's tests run (as an argument list); its ``cd`` and scripts are this clone's; its pip lines are the Git URL."""
    sources = "\n".join(path.read_text() for path in ENGINE_TESTS)
    missing = []
    for block in blocks_of("engine"):
        for raw in commands(block):
            for part in (p.strip() for p in raw.split("&&")):
                words = shlex.split(part) if not part.endswith("\\") else shlex.split(part[:-1])
                if words[0] == "cd" and not words[1].startswith(("my-", "kuberay-")):
                    assert (REPO / words[1]).is_dir(), (block.where(), part)
                elif words[0] == "eval":
                    assert (REPO / words[1].split()[0].removeprefix("$(")).is_file(), (block.where(), part)
                elif words[0] == "pip":
                    assert GIT_REQUIREMENT in words, (block.where(), part)
                elif words[0] in ("pulumi", "go", "npm"):
                    sub = [w for w in words[1:3] if re.fullmatch(r"[a-z][a-z-]*", w)]
                    if words[0] == "go" and sub[:1] != ["mod"]:
                        sub = sub[:1]
                    pattern = r",\s*".join(f'"{re.escape(w)}"' for w in sub)
                    if not re.search(pattern, sources):
                        missing.append(f"{block.where()}: {part} ({sub})")
                    for flag in re.findall(r"(?<![\w-])(--?[a-z][a-z-]*=?)", re.sub(r"\$\([^)]*\)", "", part)):
                        if not re.search(rf'"{re.escape(flag)}', sources):
                            missing.append(f"{block.where()}: {part} ({flag})")
    assert not missing, missing


def test_lint_page_claims(fresh: FreshVenv) -> None:
    """docs/linting.md's claims on output and exit codes, on a RayJob KubeRay refuses: the JSON keys it lists, the
    concise line's form, the GitHub annotation's form, and exit 2 on empty input (``printf '' | kuberay-lint -``)."""
    page = (REPO / "docs/linting.md").read_text()
    work = fresh.workdir / "lint-claims"
    work.mkdir()
    (work / "job.yaml").write_text(REFUSED_JOB)
    keys = re.search(r"each finding has the keys (.*?) \(and\s+`containers`", page, re.DOTALL)
    summary = re.search(r"the summary (`[^.]*`)\.", page)
    assert keys and summary
    listed = set(re.findall(r"`(\w+)`", keys.group(1)))
    report = json.loads(fresh.run("kuberay-lint", "job.yaml", "--format", "json", cwd=work, check=False).stdout)
    assert report["findings"] and all(set(f) - {"containers"} == listed for f in report["findings"]), listed
    assert set(report["summary"]) >= set(re.findall(r"`(\w+)`", summary.group(1))), report["summary"]
    concise = fresh.run("kuberay-lint", "job.yaml", "--format", "concise", cwd=work, check=False).stdout
    line = r"job\.yaml:\d+:1: (critical|high|medium|low) [a-z0-9-]+ [\w.\[\]-]+: .+"
    assert re.match(line, concise.splitlines()[0]), concise
    assert "`path:line:col: severity rule-id field: message` (the column is 1" in page
    github = fresh.run("kuberay-lint", "job.yaml", "--format", "github", cwd=work, check=False)
    assert github.returncode == 1 and "exit 1 on high/critical" in page
    assert re.match(r"::error file=job\.yaml,line=\d+,col=1,title=critical [a-z0-9-]+::", github.stdout), github.stdout
    assert "`::error file=...,line=...,col=1,title=high rule-id::message`" in page
    assert "empty input (`printf '' | kuberay-lint -`" in page
    assert bash(fresh, "printf '' | kuberay-lint -", cwd=work).returncode == 2
