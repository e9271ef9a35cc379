"""The component package from Go, on the real engine (examples/go).

The Go SDK is generated here (``pulumi package gen-sdk --language go`` through our Go language host, which runs
pkg/v3's Go code generator and writes the SDK's go.mod), examples/go's go.mod replaces the SDK's module by that
directory, then:

- the SDK compiles (``go build`` of the example and of every package of the SDK's module);
- the program previews with the policy pack and ``pulumi up`` renders it to a directory: its RayCluster and RayJob
  equal, byte for byte, those of the same program in Python (examples/python), the RayJob runs on the RayCluster
  (clusterSelector) and the RayService is rendered too;
- the components' outputs (``dashboardUrl``, ``clientAddress``, the RayService's service names and its status
  outputs) are read in Go and exported as stack outputs;
- a critical finding (``activeDeadlineSeconds: 0``) fails ``pulumi preview`` with the message and field path a
  Python program gets.

Needs the engine (scripts/ensure-pulumi), the Go language host (scripts/ensure-langhosts) and a Go toolchain;
without them the tests skip, naming what is missing (CI requires the host).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.conftest import REPO_ROOT, Workspace, make_workspace
from engine.test_package_yaml import package_root, ray_objects, run_example

#: The SDK's module path (the schema's language.go.importBasePath, one directory up).
SDK_MODULE = "github.com/pulumi-kuberay/pulumi-kuberay/sdk/go"
#: go build of the example and the SDK: a few minutes on a cold Go build cache (pulumi-kubernetes' core/v1 and the
#: SDK's types), seconds when warm.
GO_TIMEOUT = 1200


def _missing() -> str | None:
    home = Path(os.environ.get("PULUMI_HOME") or Path.home() / ".pulumi")
    if not any(home.glob("plugins/language-go-v*/pulumi-language-go")):
        return (
            "the Go language host is not installed in PULUMI_HOME: run "
            '`eval "$(scripts/ensure-langhosts --print-env)"` (scripts/test does)'
        )
    if shutil.which("go") is None:
        return "no `go` on PATH (Go 1.24 or later)"
    return None


@pytest.fixture(scope="module")
def go_host() -> None:
    message = _missing()
    if message is None:
        return
    required = os.environ.get("PULUMI_KUBERAY_REQUIRE_ENGINE") == "1"
    if required and os.environ.get("PULUMI_KUBERAY_LANGHOSTS") != "skipped":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


class GoWorkspace(Workspace):
    """A workspace whose pulumi and go commands (and so the Go host's `go build`) use the local Go toolchain only,
    with ``-trimpath``: a package's compiled form then does not depend on the directory it is in, so the copies
    of the example and the SDK in each test's directory share Go's build cache."""

    def env(self) -> dict[str, str]:
        env = super().env()
        env["GOTOOLCHAIN"] = "local"
        env["GOFLAGS"] = " ".join(filter(None, (env.get("GOFLAGS", ""), "-trimpath")))
        return env

    def go(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["go", *args], cwd=cwd or self.cwd, env=self.env(), capture_output=True, text=True, timeout=GO_TIMEOUT
        )


def go_workspace(root: Path, cli: str, program: Path) -> GoWorkspace:
    base = make_workspace(root, cli, program=program)
    return GoWorkspace(cwd=base.cwd, state=base.state, cli=base.cli)


def generate_go_sdk(workspace: Workspace, out: str = "sdks") -> Path:
    """``pulumi package gen-sdk`` of the provider's executable into ``<program>/<out>/go``."""
    executable = REPO_ROOT / ".venv" / "bin" / "pulumi-resource-kuberay"
    gen = workspace.pulumi("package", "gen-sdk", str(executable), "--language", "go", "--out", out)
    assert gen.returncode == 0, gen.describe()
    sdk = workspace.cwd / out / "go"
    assert (sdk / "kuberay" / "rayCluster.go").exists(), gen.describe()
    return sdk


@pytest.fixture(scope="module")
def go_example(tmp_path_factory: pytest.TempPathFactory, pulumi_cli: str, go_host: None) -> dict[str, Any]:
    """examples/go with its generated SDK, built, previewed and deployed to a directory, and examples/python."""
    root = package_root(tmp_path_factory.mktemp("package-go"))
    program = root / "examples" / "go"
    workspace = go_workspace(root, pulumi_cli, program)
    sdk = generate_go_sdk(workspace)
    started = time.monotonic()
    build = workspace.go("build", "./...", f"{SDK_MODULE}/...")
    build_seconds = time.monotonic() - started
    preview, up = run_example(workspace, "ci")
    python = make_workspace(root, pulumi_cli, program=root / "examples" / "python")
    _, python_up = run_example(python, "ci", policy=False)
    return {"root": root, "program": program, "sdk": sdk, "workspace": workspace, "build": build,
            "build_seconds": build_seconds, "preview": preview, "up": up, "python_up": python_up}


def test_go_sdk_is_a_module_and_compiles(go_example: dict[str, Any]) -> None:
    sdk, build = go_example["sdk"], go_example["build"]
    go_mod = (sdk / "go.mod").read_text()
    assert go_mod.startswith(f"module {SDK_MODULE}\n"), go_mod
    assert "github.com/pulumi/pulumi/sdk/v3" in go_mod, go_mod
    plugin = json.loads((sdk / "kuberay" / "pulumi-plugin.json").read_text())
    assert plugin["name"] == "kuberay" and plugin["resource"] is True and plugin["version"], plugin
    assert build.returncode == 0, build.stdout + build.stderr
    print(f"go build of examples/go and the SDK: {go_example['build_seconds']:.1f} s")


def test_go_example_previews_and_renders_what_python_renders(go_example: dict[str, Any]) -> None:
    preview, up = go_example["preview"], go_example["up"]
    assert preview.returncode == 0, preview.describe()
    assert up is not None and up.returncode == 0, up.describe()
    assert go_example["python_up"] is not None and go_example["python_up"].returncode == 0
    for kind in ("kuberay:index:RayCluster", "kuberay:index:RayJob", "kuberay:index:RayService",
                 "kubernetes:ray.io/v1:RayService"):
        assert kind in preview.output, preview.describe()
    from_go = ray_objects(go_example["program"] / "rendered")
    from_python = ray_objects(go_example["root"] / "examples" / "python" / "rendered")
    assert len(from_python) == 2 and set(from_python) < set(from_go), (sorted(from_go), sorted(from_python))
    for name, body in from_python.items():
        assert from_go[name] == body, f"{name}:\n--- python\n{body.decode()}\n--- go\n{from_go[name].decode()}"
    docs = {doc["kind"]: doc for doc in (yaml.safe_load(b) for b in from_go.values())}
    assert sorted(docs) == ["RayCluster", "RayJob", "RayService"], sorted(docs)
    assert docs["RayJob"]["spec"]["clusterSelector"] == {"ray.io/cluster": "shared"}
    assert docs["RayJob"]["metadata"]["namespace"] == "ray"
    service = docs["RayService"]
    assert (service["metadata"]["name"], service["metadata"]["namespace"]) == ("serve", "ray"), service["metadata"]
    assert "route_prefix: /fruit" in service["spec"]["serveConfigV2"], service["spec"]


def test_go_program_reads_the_components_outputs(go_example: dict[str, Any]) -> None:
    outputs = go_example["workspace"].pulumi("stack", "output", "--stack", "ci", "--json", check=True)
    assert json.loads(outputs.stdout) == {
        "clientAddress": "ray://shared-head-svc.ray.svc.cluster.local:10001",
        "dashboard": "http://shared-head-svc.ray.svc.cluster.local:8265",
        "jobCluster": "shared",
        "serveService": "serve-serve-svc",
        "serviceDashboard": "http://serve-head-svc.ray.svc.cluster.local:8265",
        # computed in Go from the outputs (examples/go/main.go)
        "dashboardHost": "shared-head-svc.ray.svc.cluster.local:8265",
        "jobStatus": "not reported",
        "jobDeploymentStatus": "not reported",
        "clusterDiagnosis": "not reported",
    }


def test_go_critical_finding_fails_preview_with_our_message_and_path(
    go_example: dict[str, Any], pulumi_cli: str
) -> None:
    root, program = go_example["root"], go_example["program"]
    broken = root / "examples" / "go-critical"
    shutil.copytree(program, broken, ignore=shutil.ignore_patterns("rendered", "Pulumi.*.yaml", "sdks"))
    (broken / "sdks").symlink_to(program / "sdks", target_is_directory=True)
    source = (broken / "main.go").read_text()
    anchor = "Entrypoint: pulumi.String(\"python -c 'import ray; ray.init()'\"),"
    assert anchor in source
    (broken / "main.go").write_text(source.replace(anchor, anchor + " ActiveDeadlineSeconds: pulumi.Int(0),"))
    text = (broken / "Pulumi.yaml").read_text().replace("name: kuberay-go-example", "name: kuberay-go-critical")
    (broken / "Pulumi.yaml").write_text(text)
    preview, _ = run_example(go_workspace(root, pulumi_cli, broken), "ci", policy=False)
    assert preview.returncode != 0, preview.describe()
    out = preview.output
    # The texts tests/engine/test_package_yaml.py holds for the same finding (the catalogue's, as Python shows it).
    assert "RayJob 'batch': 1 critical finding:" in out, preview.describe()
    assert "[rayjob-active-deadline-not-positive] critical at spec.activeDeadlineSeconds" in out, preview.describe()
    assert "property spec.activeDeadlineSeconds" in out, preview.describe()
    assert 'File "' not in out and "goroutine " not in out, preview.describe()
