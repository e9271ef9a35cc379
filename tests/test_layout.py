"""The layout, held: small modules, and CONTRIBUTING.md's account of the tree true.

- No hand-written Python file over 700 lines (components/, tools/, tests/, scripts/, bench/, policies/, the program);
  the generated ``model/_k8s.py`` excepted. Split a file that grows past it by concept.
- CONTRIBUTING.md's "Layout" names every package and top-level module of ``pulumi_kuberay``, every rule module (the
  catalogue's), every scope of the engine, every entry of ``tools/`` and every top-level directory of the repository.
- "Adding a rule" shows exactly what ``scripts/new-rule --dry-run`` prints (the files a new rule touches), and
  "Adding a status reading" names files that exist, with the generator its fixtures feed.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pulumi_kuberay.rules import _catalogue, _engine

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "components" / "pulumi_kuberay"
CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text()
MAX_LINES = 700
#: Generated, one class per Kubernetes type (tools/gen_k8s_models.py): the only file allowed past the limit.
GENERATED = {"components/pulumi_kuberay/model/_k8s.py"}


def _section(title: str) -> str:
    """The text of one ``## title`` section of CONTRIBUTING.md (up to the next ``## ``)."""
    start = CONTRIBUTING.index(f"\n## {title}\n")
    end = CONTRIBUTING.find("\n## ", start + 1)
    return CONTRIBUTING[start : end if end != -1 else None]


LAYOUT = _section("Layout")


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if (ROOT / line).is_file()]


def _hand_written_python() -> Iterator[str]:
    for name in _tracked():
        top = name.split("/", 1)[0]
        if name in GENERATED or top.startswith("."):
            continue
        path = ROOT / name
        if name.endswith(".py"):
            yield name
        elif top == "scripts" and "python" in path.read_text(errors="replace").split("\n", 1)[0]:
            yield name  # a Python script without the suffix (a shebang naming python)


def test_no_hand_written_python_file_over_700_lines() -> None:
    files = list(_hand_written_python())
    assert len(files) > 300  # the walk found the tree (tests, tools and scripts included)
    assert any(f.startswith("tests/") for f in files) and any(f.startswith("tools/") for f in files)
    long = {f: n for f in files if (n := len((ROOT / f).read_text(errors="replace").splitlines())) > MAX_LINES}
    assert long == {}, f"over {MAX_LINES} lines (split by concept; CONTRIBUTING.md): {long}"


def test_the_generated_exception_is_still_generated() -> None:
    for name in GENERATED:
        head = (ROOT / name).read_text().split("\n", 5)
        assert any("generated" in line.lower() for line in head), f"{name} no longer says it is generated"


def _packages_and_modules() -> list[str]:
    """Every package (``rules/``) and top-level module (``admission.py``) of pulumi_kuberay, as the layout spells it."""
    out = []
    for entry in sorted(PACKAGE.iterdir()):
        if entry.is_dir() and (entry / "__init__.py").exists():
            out.append(f"{entry.name}/")
        elif entry.suffix == ".py":
            out.append(entry.name)
    return out


def test_layout_names_every_package_and_top_level_module() -> None:
    names = _packages_and_modules()
    assert {"rules/", "model/", "kubeclient/", "provider/", "admission.py", "__init__.py"} <= set(names)
    missing = [name for name in names if not re.search(rf"(?<![\w/]){re.escape(name)}", LAYOUT)]
    assert missing == [], f"CONTRIBUTING.md's Layout does not name these parts of components/pulumi_kuberay: {missing}"


def test_layout_names_every_rule_module() -> None:
    modules = [m for m in _catalogue.rule_modules() if m not in ("target", "remediate")]
    assert "." not in "".join(modules), f"one axis: the rule modules are one flat list, by concern: {modules}"
    missing = [m for m in modules if not re.search(rf"(?<![\w/.]){re.escape(m)}(\.py)?\b", LAYOUT)]
    assert missing == [], f"CONTRIBUTING.md's Layout does not name these rule modules: {missing}"


def test_layout_names_every_scope() -> None:
    missing = [scope for scope in _engine.SCOPES if f'scope="{scope}"' not in LAYOUT and scope != "document"]
    assert missing == [], f"CONTRIBUTING.md's Layout does not name these scopes of the engine: {missing}"
    words = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}
    assert f"{words[len(_engine.SCOPES)]} scopes" in LAYOUT


def test_layout_names_every_tool_and_top_level_directory() -> None:
    tracked = _tracked()
    tops = sorted({name.split("/", 1)[0] + "/" for name in tracked if "/" in name and not name.startswith(".")})
    assert {"components/", "tests/", "tools/", "provider/"} <= set(tops)
    tools = sorted({name.split("/", 2)[1] for name in tracked if name.startswith("tools/")})
    missing = [t for t in tops if not re.search(rf"(?m)^{re.escape(t)}", LAYOUT)]
    missing += [f"tools/{t}" for t in tools if not re.search(rf"(?<![\w/-]){re.escape(t)}", LAYOUT)]
    assert missing == [], f"CONTRIBUTING.md's Layout does not name: {missing}"


def _dry_run(*argv: str) -> str:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import new_rule
    finally:
        sys.path.remove(str(ROOT / "tools"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert new_rule.main(["--dry-run", *argv]) == 0
    return out.getvalue()


def test_adding_a_rule_touches_what_contributing_says() -> None:
    before = {p: p.read_text() for p in (PACKAGE / "rules").glob("*.py")}
    printed = _dry_run("groups", "worker-example-flag")
    assert {p: p.read_text() for p in (PACKAGE / "rules").glob("*.py")} == before  # a dry run writes nothing
    assert printed.startswith("by hand     components/pulumi_kuberay/rules/groups.py ")
    assert f"$ scripts/new-rule --dry-run groups worker-example-flag\n{printed}```" in _section("Adding a rule")
    files = [line[12:54].strip() for line in printed.splitlines()]
    assert len(files) == 8 and all((ROOT / f).is_file() for f in files), files


@pytest.mark.parametrize("scope", ["document", "stack", "setup", "change"])
def test_every_scope_touches_the_same_files(scope: str) -> None:
    """The list does not depend on the scope: only a new module's first line says ``created``."""
    assert _dry_run("groups", "x-y", "--scope", scope) == _dry_run("groups", "x-y")
    assert "rules/new_concern.py" in _dry_run("new_concern", "x-y").splitlines()[0]


def test_adding_a_status_reading_names_files_that_exist() -> None:
    text = _section("Adding a status reading")
    paths = re.findall(r"`((?:components/pulumi_kuberay/|tests/|scripts/)[\w/<>.-]+)`", text)
    assert len(paths) >= 5, paths
    for path in paths:
        if "<kind>" in path:
            assert len(list(ROOT.glob(path.replace("<kind>", "*")))) >= 4, path  # one per kind
        else:
            assert (ROOT / path.rstrip("/")).exists(), path
    # a status fixture or table feeds the Argo CD health checks: the section says to regenerate them
    assert "scripts/gen-argocd-health" in text and "components/pulumi_kuberay/argocd/" in text


def test_one_kubernetes_client_for_the_cli_the_preflight_and_the_change_plan() -> None:
    """``kubeclient`` is a package of its own, a leaf (nothing of pulumi_kuberay), and the three readers of a cluster
    import it by its public names."""
    readers = ("cli/_lint_cluster.py", "preflight/reader.py", "resources/_change_plan.py")
    importing = re.compile(r"^from pulumi_kuberay(\.kubeclient import| import .*\bkubeclient\b)", re.M)
    assert [r for r in readers if not importing.search((PACKAGE / r).read_text())] == []
    own = "".join(p.read_text() for p in (PACKAGE / "kubeclient").glob("*.py"))
    assert "class KubeClient" in own and not re.search(r"^(from|import) pulumi\b(?!_)", own, re.M)
    client = re.compile(r"^class KubeClient\b", re.M)
    others = [p for p in PACKAGE.rglob("*.py") if "kubeclient" not in p.parts and client.search(p.read_text())]
    assert others == []
