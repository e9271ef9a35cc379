"""The marked code blocks of the user docs (README.md, docs/*.md) and how to run their lines: shared by
tests/test_docs.py and tests/test_docs_pages.py."""



from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from _wheel import REPO, FreshVenv

#: The pages a user reads. Of the generated ones, docs/admission.md has commands (its marker is written by its
#: generator, pulumi_kuberay.admission.render_docs); rules.md, changes.md and operator-rules.md have none, but the
#: flags and types they name are checked as the others'.
USER_PAGES = (
    "README.md",
    "docs/components.md",
    "docs/convert.md",
    "docs/operator.md",
    "docs/troubleshooting.md",
    "docs/argocd.md",
    "docs/preflight.md",
    "docs/linting.md",
    "docs/policy-pack.md",
    "docs/component-package.md",
    "docs/languages.md",
    "docs/admission.md",
    "docs/changes.md",
    "docs/rules.md",
    "docs/operator-rules.md",
)
#: What the test of each marker kind does.
KINDS = {
    "install": "pip's dry run of each line, the Git URL pointing at this clone (test_install_lines_resolve)",
    "wheel": "run, the Git URL pointing at this clone; the wheel it names is the one built (test_wheel_route)",
    "lint-install": "run in a venv of its own with the built wheel (test_lint_only_route_and_github_actions)",
    "github-actions": "its run: steps, in that lint-only venv (test_lint_only_route_and_github_actions)",
    "example": "run under Pulumi mocks from the wheel: no finding, no error (test_examples_run_from_the_wheel)",
    "error": "the message the quickstart program gives for that mistake (test_quickstart_mistake_message)",
    "lint": "run from the wheel on a folder of manifests, in a Git repository (test_lint_commands,"
    " test_lint_page_commands); a YAML block's run: steps",
    "pip": "pip's dry run of each line in the fresh venv, the Git URL and a release's wheel file replaced by the"
    " built wheel, whose name the page gives (test_pip_lines)",
    "helm": "needs Helm 3 on PATH: run from the wheel on a chart when it is (test_helm_commands)",
    "pack": "kuberay-policy-pack and `python -m pulumi_kuberay.policy` run from the wheel; each `pulumi preview"
    " --policy-pack DIR` names a pack folder they wrote; `pulumi install` needs the engine (test_pack_commands)",
    "admission": "the kuberay-lint part run from the wheel (YAML of ValidatingAdmissionPolicies); `kubectl apply`"
    " needs a cluster (test_admission_commands)",
    "engine": "needs a clone's language hosts or the engine: each pulumi/go/npm command and flag is one that"
    " tests/engine/test_package_*.py or test_release.py runs (test_engine_routes_are_what_the_engine_tier_runs)",
    "tools": "run from the wheel (test_tool_commands)",
    "convert": "run from the wheel (test_convert_commands)",
    "convert-output": "kuberay-convert's output from the wheel, byte for byte (test_convert_commands)",
    "explain": "run from the wheel on status snapshots (test_explain_commands)",
    "python": "run from the wheel (test_python_blocks)",
    "program": "a Pulumi program, run under mocks from the wheel: no error, no warning (test_docs_programs)",
    "cluster": "needs a cluster, and says so (in the block or the line before): not run here",
    "clone": "needs a clone of this repository: scripts/test is what CI runs (.ci/run), scripts/dev-up is"
    " tests/engine/test_up_dev.py",
}
GIT_URL = "git+https://github.com/pulumi-kuberay/pulumi-kuberay"
GIT_REQUIREMENT = f"pulumi-kuberay @ {GIT_URL}"
#: This clone as pip takes a Git URL (pip 23 wants a host in it: ``git+file:///path`` is refused).
CLONE_URL = f"git+file://localhost{REPO}"
#: The lint-only run: a RayJob KubeRay refuses (critical) and, apart, the quickstart's RayCluster.
REFUSED_JOB = """\
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
STATUS_FIXTURES = REPO / "tests" / "fixtures" / "status"


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # of the opening fence, 1-based
    marker: str | None  # "docs-test:lint", "own-project:__main__.py", or None
    lang: str
    text: str

    @property
    def kind(self) -> str | None:
        return self.marker.split(":", 1)[1] if self.marker and self.marker.startswith("docs-test:") else None

    def where(self) -> str:
        return f"{self.page}:{self.line}"


_MARKER = re.compile(r"^<!-- ((?:docs-test|own-project):[\w.-]+) -->$")


def code_blocks(page: str) -> list[Block]:
    """The fenced code blocks of a page, each with the marker on the line before it (if any)."""
    lines = (REPO / page).read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        fence = re.match(r"^(`{3,})(\w*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(fence.group(1)))
        before = lines[i - 1] if i else ""
        marker = _MARKER.match(before)
        out.append(
            Block(
                page, i + 1, marker.group(1) if marker else None, fence.group(2), "\n".join(lines[i + 1 : end]) + "\n"
            )
        )
        i = end + 1
    return out


def blocks_of(kind: str, pages: tuple[str, ...] = USER_PAGES) -> list[Block]:
    found = [b for page in pages for b in code_blocks(page) if b.kind == kind]
    assert found, f"no block marked docs-test:{kind} in {pages}"
    return found


def commands(block: Block) -> list[str]:
    """The block's command lines: comment lines and trailing comments (after two spaces) dropped."""
    lines = (re.sub(r"\s{2,}#.*$", "", raw).strip() for raw in block.text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def bash(venv: FreshVenv, line: str, *, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """One documented command line, as a user types it, with the venv's bin first on PATH."""
    return venv.run("bash", "-c", line, check=False, cwd=cwd)


def fail_unless(run: subprocess.CompletedProcess[str], *codes: int, block: Block, line: str) -> str:
    if run.returncode not in (codes or (0,)):
        pytest.fail(f"{block.where()}: $ {line}\n(exit {run.returncode})\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    return run.stdout


# ------------------------------------------------------------------------------------------ every block marked


