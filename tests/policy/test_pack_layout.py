"""The pack directory: the one in the package, the repository's policies/ and what kuberay-policy-pack writes are
the same three files around the installed package (no second copy of the pack's code)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from pulumi_kuberay.policy import PACK_DIR, pack_files, pack_path
from pulumi_kuberay.policy.__main__ import main
from pulumi_kuberay.policy._layout import installed_requirement, requirement_from

REPO = Path(__file__).resolve().parents[2]


def test_repository_policies_dir_is_the_generated_pack_with_the_dev_venv() -> None:
    # the repository's pack runs in the dev venv, which has this package (editable): the name at its version is
    # satisfied there, and no path of one machine is committed (a pack elsewhere names where the package came from)
    expected = pack_files(virtualenv="../.venv", requirement=f"pulumi-kuberay[policy]=={version('pulumi-kuberay')}")
    actual = {p.name: p.read_text() for p in (REPO / "policies").iterdir() if p.is_file()}
    assert actual == expected, "policies/ is stale: run `kuberay-policy-pack policies --virtualenv ../.venv --force` and keep the requirement pulumi-kuberay[policy]==VERSION"


def test_packaged_pack_dir_has_no_virtualenv_and_imports_the_package() -> None:
    assert {p.name for p in PACK_DIR.iterdir() if p.is_file()} == {"PulumiPolicy.yaml", "__main__.py"}
    assert {p.name: p.read_text() for p in PACK_DIR.iterdir() if p.is_file()} == pack_files(requirements=False)
    project = yaml.safe_load((PACK_DIR / "PulumiPolicy.yaml").read_text())
    assert project["runtime"] == {"name": "python"}
    assert project["name"] == "kuberay-policies"
    assert "from pulumi_kuberay.policy import run" in (PACK_DIR / "__main__.py").read_text()


def test_written_pack_pins_the_installed_versions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "pack"), "--virtualenv", "venv"]) == 0
    requirements = (tmp_path / "pack" / "requirements.txt").read_text().splitlines()
    assert installed_requirement() in requirements  # where this package came from (test_wheel: a wheel file)
    assert f"pulumi-policy=={version('pulumi-policy')}" in requirements
    project = yaml.safe_load((tmp_path / "pack" / "PulumiPolicy.yaml").read_text())
    assert project["runtime"]["options"] == {"toolchain": "pip", "virtualenv": "venv"}
    assert project["version"] == version("pulumi-kuberay")
    # a second run with other options would change files: refused without --force, nothing half-written
    assert main([str(tmp_path / "pack")]) == 2
    assert "--force" in capsys.readouterr().err
    assert "virtualenv: venv" in (tmp_path / "pack" / "PulumiPolicy.yaml").read_text()
    assert main([str(tmp_path / "pack"), "--force"]) == 0
    assert "virtualenv" not in (tmp_path / "pack" / "PulumiPolicy.yaml").read_text()


def test_module_prints_the_packaged_pack_path() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pulumi_kuberay.policy", "--path"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == pack_path() == str(PACK_DIR)
    assert (Path(out.stdout.strip()) / "PulumiPolicy.yaml").is_file()


def test_dir_and_path_are_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["somewhere", "--path"])
    assert exc.value.code == 2
    assert "either DIR" in capsys.readouterr().err


def test_no_argument_is_one_line_of_usage_and_version_prints(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("usage: kuberay-policy-pack DIR"), err
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"kuberay-policy-pack {version('pulumi-kuberay')}\n"


def test_policy_configs_are_the_repository_ones(tmp_path: Path) -> None:
    assert main([str(tmp_path), "--policy-configs"]) == 0
    for environment in ("dev", "staging", "prod"):
        written = (tmp_path / f"policy.{environment}.json").read_text()
        assert written == (REPO / "stacks" / f"policy.{environment}.json").read_text()


def test_pack_wording_names_the_stack_config_key() -> None:
    from pulumi_kuberay import rules
    from pulumi_kuberay.policy import _pack

    rule = rules.get_rule("feature-gate-disabled")
    findings = _pack._FindingsCache().findings("urn:x", rule.violating, _pack.target_for({}))
    fixes = [f.fix for f in findings if f.rule_id == rule.id]
    assert fixes and all("kuberay:featureGates {" in fix and "feature_gates=" not in fix for fix in fixes)


@pytest.mark.parametrize(
    ("direct_url", "expected"),
    [
        (None, "pulumi-kuberay[policy]==0.1.0"),  # from an index: the name at its version
        (
            '{"url": "file:///tmp/dist/pulumi_kuberay-0.1.0-py3-none-any.whl", "archive_info": {}}',
            "pulumi-kuberay[policy] @ file:///tmp/dist/pulumi_kuberay-0.1.0-py3-none-any.whl",
        ),
        (
            '{"url": "https://github.com/pulumi-kuberay/pulumi-kuberay", "vcs_info": {"vcs": "git", "requested_revision": "main", "commit_id": "0123abc"}}',
            "pulumi-kuberay[policy] @ git+https://github.com/pulumi-kuberay/pulumi-kuberay@0123abc",
        ),
        ('{"url": "file:///home/me/pulumi-kuberay", "dir_info": {"editable": true}}', "pulumi-kuberay[policy] @ file:///home/me/pulumi-kuberay"),
        (
            '{"url": "https://example.com/repo.git", "vcs_info": {"vcs": "git", "commit_id": "c0ffee"}, "subdirectory": "py"}',
            "pulumi-kuberay[policy] @ git+https://example.com/repo.git@c0ffee#subdirectory=py",
        ),
        ("not json", "pulumi-kuberay[policy]==0.1.0"),
    ],
)
def test_pack_requirement_is_where_the_package_was_installed_from(direct_url: str | None, expected: str) -> None:
    """PEP 610: the requirement kuberay-policy-pack writes installs what the user installed (no index has the
    package), a git URL at the installed commit."""
    assert requirement_from(direct_url, "0.1.0") == expected
