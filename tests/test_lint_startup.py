"""``kuberay-lint --help`` / ``--version`` start fast: they import the standard library and our front module only.

Module counts are stable where times are not (bench/ prints the start-up time): each case runs in a fresh
interpreter and lists the modules it added. No model, no rule, no pydantic, no YAML parser, no pulumi.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pulumi_kuberay.cli import _helm, lint
from pulumi_kuberay.rules import _engine

_PROBE = """
import contextlib, io, json, sys
before = set(sys.modules)
from pulumi_kuberay.cli import lint
with contextlib.redirect_stdout(io.StringIO()):
    try:
        code = lint.main([sys.argv[1]])
    except SystemExit as exc:  # argparse's --help
        code = exc.code
print(json.dumps({"code": code, "added": sorted(set(sys.modules) - before)}))
"""

#: Our modules a start-up may load: the package's lazy front, the cli package, the front of lint and the kuberay/
#: leaf (standard library only: the --pod-security-profile choices).
OURS = [
    "pulumi_kuberay",
    "pulumi_kuberay.cli",
    "pulumi_kuberay.cli.lint",
    "pulumi_kuberay.kuberay",
    "pulumi_kuberay.kuberay.api",
    "pulumi_kuberay.kuberay.kubernetes",
    "pulumi_kuberay.kuberay.names",
    "pulumi_kuberay.kuberay.states",
]
#: Generous ceilings on everything added (standard library included; CPython 3.11 today: 35 and 99). A new
#: import that pulls a tree in (pydantic alone is over 100 modules, the catalogue over 200) breaks them.
CEILING = {"--help": 45, "--version": 115}


def _added(flag: str) -> tuple[int, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, flag], capture_output=True, text=True, check=False, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return int(result["code"]), list(result["added"])


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_start_up_imports_only_the_front(flag: str) -> None:
    code, added = _added(flag)
    assert code == 0
    third_party = sorted(m for m in added if m.split(".")[0] not in sys.stdlib_module_names)
    assert third_party == OURS, f"{flag} imported {third_party}"
    assert len(added) <= CEILING[flag], f"{flag} imported {len(added)} modules: {added}"


def test_the_front_s_literals_match_their_sources() -> None:
    """The front spells the choices out (importing the engine would load the rules package): same values."""
    assert tuple(_engine.SEVERITY_ORDER) == lint.SEVERITIES
    assert lint.ENVIRONMENTS == _engine.ENVIRONMENTS
    assert lint.HELM_ENV == _helm.HELM_ENV


def test_lazy_exports_still_resolve() -> None:
    from pulumi_kuberay.cli import _lint_findings

    assert lint.lint_documents is _lint_findings.lint_documents
    assert lint.RayDoc is _lint_findings.RayDoc
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = lint.no_such_name
