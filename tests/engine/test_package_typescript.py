"""The component package from TypeScript, on the real engine (examples/typescript).

The TypeScript SDK is generated here (``pulumi package gen-sdk`` through our Node.js language host, which runs
pkg/v3's TypeScript code generator), the npm dependencies come from the npm registry as package-lock.json pins
them, then:

- the program previews with the policy pack and ``pulumi up`` renders it to a directory; its Ray objects equal,
  byte for byte, those of the same program in Python (examples/python);
- the program with a mistake (``minReplicas`` 3 > ``maxReplicas`` 2) fails ``pulumi preview`` with the message
  and field path a Python program gets.

Needs the engine (scripts/ensure-pulumi), the Node.js language host (scripts/ensure-langhosts), node and npm; without
them the tests skip, naming what is missing (CI requires the host).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine.conftest import REPO_ROOT, make_workspace
from engine.test_package_yaml import package_root, ray_objects, run_example

#: npm install of the example (about 260 packages; 20-40 s with a warm npm cache, more on a cold one).
NPM_TIMEOUT = 900


def _missing() -> str | None:
    home = Path(os.environ.get("PULUMI_HOME") or Path.home() / ".pulumi")
    if not any(home.glob("plugins/language-nodejs-v*/pulumi-language-nodejs")):
        return (
            "the Node.js language host is not installed in PULUMI_HOME: run "
            '`eval "$(scripts/ensure-langhosts --print-env)"` (scripts/test does)'
        )
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            return f"no `{tool}` on PATH (Node.js 20 or later)"
    return None


@pytest.fixture(scope="module")
def nodejs_host() -> None:
    message = _missing()
    if message is None:
        return
    required = os.environ.get("PULUMI_KUBERAY_REQUIRE_ENGINE") == "1"
    if required and os.environ.get("PULUMI_KUBERAY_LANGHOSTS") != "skipped":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="module")
def typescript(
    tmp_path_factory: pytest.TempPathFactory, pulumi_cli: str, nodejs_host: None
) -> dict[str, Any]:
    """examples/typescript with its generated SDK and npm dependencies, previewed and deployed to a directory,
    and examples/python beside it."""
    root = package_root(tmp_path_factory.mktemp("package-ts"))
    program = root / "examples" / "typescript"
    workspace = make_workspace(root, pulumi_cli, program=program)
    executable = REPO_ROOT / ".venv" / "bin" / "pulumi-resource-kuberay"
    gen = workspace.pulumi("package", "gen-sdk", str(executable), "--language", "nodejs", "--local", "--out", "sdks")
    assert gen.returncode == 0, gen.describe()
    assert (program / "sdks" / "nodejs" / "rayCluster.ts").exists(), gen.describe()
    npm = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund"], cwd=program, capture_output=True, text=True,
        timeout=NPM_TIMEOUT, env=workspace.env(),
    )
    assert npm.returncode == 0, npm.stdout + npm.stderr
    assert (program / "sdks" / "nodejs" / "bin" / "index.js").exists(), "the SDK's postinstall (tsc) did not run"
    preview, up = run_example(workspace, "ci")
    python = make_workspace(root, pulumi_cli, program=root / "examples" / "python")
    _, python_up = run_example(python, "ci", policy=False)
    return {"root": root, "program": program, "workspace": workspace, "preview": preview, "up": up,
           "python_up": python_up}


def test_typescript_example_previews_and_renders_what_python_renders(typescript: dict[str, Any]) -> None:
    preview, up = typescript["preview"], typescript["up"]
    assert preview.returncode == 0, preview.describe()
    assert up is not None and up.returncode == 0, up.describe()
    assert typescript["python_up"] is not None and typescript["python_up"].returncode == 0
    for kind in ("kuberay:index:RayCluster", "kuberay:index:RayJob", "kubernetes:ray.io/v1:RayJob"):
        assert kind in preview.output, preview.describe()
    root = typescript["root"]
    from_ts = ray_objects(typescript["program"] / "rendered")
    from_python = ray_objects(root / "examples" / "python" / "rendered")
    assert sorted(from_ts) == sorted(from_python) and len(from_ts) == 2, sorted(from_ts)
    for name, body in from_python.items():
        assert from_ts[name] == body, f"{name}:\n--- python\n{body.decode()}\n--- typescript\n{from_ts[name].decode()}"
    outputs = typescript["workspace"].pulumi("stack", "output", "--stack", "ci", "--json", check=True)
    assert json.loads(outputs.stdout) == {
        "clientAddress": "ray://shared-head-svc.ray.svc.cluster.local:10001",
        "dashboard": "http://shared-head-svc.ray.svc.cluster.local:8265",
        "jobCluster": "shared",
    }


def test_typescript_program_with_a_mistake_fails_preview_with_our_message_and_path(
    typescript: dict[str, Any], pulumi_cli: str
) -> None:
    root, program = typescript["root"], typescript["program"]
    broken = root / "examples" / "typescript-broken"
    broken.mkdir()
    for name in ("Pulumi.yaml", "package.json", "tsconfig.json"):
        shutil.copy2(program / name, broken / name)
    (broken / "node_modules").symlink_to(program / "node_modules", target_is_directory=True)
    source = (program / "index.ts").read_text()
    assert "minReplicas: 1," in source
    (broken / "index.ts").write_text(source.replace("minReplicas: 1,", "minReplicas: 3,"))
    text = (broken / "Pulumi.yaml").read_text().replace("name: kuberay-typescript-example", "name: kuberay-ts-broken")
    (broken / "Pulumi.yaml").write_text(text)
    workspace = make_workspace(root, pulumi_cli, program=broken)
    preview, _ = run_example(workspace, "ci")
    assert preview.returncode != 0, preview.describe()
    out = preview.output
    assert "kuberay:index:RayCluster resource 'shared' has a problem: RayCluster 'shared' is invalid" in out
    assert "minReplicas (3) > maxReplicas (2) in worker group 'cpu'" in out, preview.describe()
    assert "spec.workerGroupSpecs[0].minReplicas" in out, preview.describe()
    assert 'File "' not in out, preview.describe()
