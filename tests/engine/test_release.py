"""scripts/release, and each artifact it builds installed from dist/ the way users install it (docs/languages.md):
in fresh directories outside the clone, with no clone on any path (no PYTHONPATH, the repository's venv not on
PATH, the working directories under the temporary directory).

- dist/ holds the wheel, the sdist, the schema, the Registry pages (naming every resource of the schema), the Go
  SDK module, the TypeScript SDK and its tarball, and SHA256SUMS of them all;
- Python: the wheel installs in a fresh venv, whose ``pulumi-resource-kuberay --schema`` prints dist's schema; the
  sdist builds a wheel;
- Go from nothing: main.go, ``go mod init``, ``pulumi package add <the venv's pulumi-resource-kuberay>`` (the SDK
  generated into sdks/kuberay, a go.mod ``replace``, ``kuberay@V`` in Pulumi.yaml's ``packages:``), ``pulumi up``
  (the venv's bin on PATH, as activated) renders the RayCluster and exports its ``dashboardUrl``;
- Go from dist: a module whose go.mod replaces the SDK by dist/sdk/go builds;
- TypeScript from dist: ``npm install`` of the SDK's tarball in an empty npm project lays out the package.

Marked ``engine`` (the SDKs need the engine and the language hosts). About two minutes warm: the wheel's install
from the pip cache and the Go build dominate.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from engine.conftest import REPO_ROOT, Run
from engine.test_package_go import GO_TIMEOUT, SDK_MODULE, go_host  # noqa: F401 (a fixture)

TIMEOUT = 900
PULUMI_SDK = "github.com/pulumi/pulumi/sdk/v3"
K8S_SDK = "github.com/pulumi/pulumi-kubernetes/sdk/v4"

GO_PROGRAM = """package main

import (
\tkuberay "github.com/pulumi-kuberay/pulumi-kuberay/sdk/go/kuberay"
\t"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
\tpulumi.Run(func(ctx *pulumi.Context) error {
\t\trender := &kubernetes.ProviderArgs{RenderYamlToDirectory: pulumi.String("rendered")}
\t\tk8s, err := kubernetes.NewProvider(ctx, "k8s", render)
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\tcluster, err := kuberay.NewRayCluster(ctx, "solo", &kuberay.RayClusterArgs{
\t\t\tNamespace: pulumi.String("ray"),
\t\t\tSpec: &kuberay.RayClusterSpecArgs{
\t\t\t\tRayVersion:    pulumi.String("2.52.0"),
\t\t\t\tImage:         pulumi.String("rayproject/ray:2.52.0"),
\t\t\t\tHeadGroupSpec: &kuberay.HeadGroupSpecArgs{Cpu: pulumi.Int(1), Memory: pulumi.String("4Gi")},
\t\t\t},
\t\t}, pulumi.Providers(k8s))
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\tctx.Export("dashboard", cluster.DashboardUrl)
\t\treturn nil
\t})
}
"""


@dataclass(frozen=True)
class Dist:
    path: Path
    version: str
    base: Path  # the test's temporary directory (dist/ and the fresh directories are in it)


def _clean_env(extra_path: Path | None = None) -> dict[str, str]:
    """os.environ without the clone: no PYTHONPATH or venv, the repository's venv off PATH, a test backend."""
    dropped = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PULUMI_ACCESS_TOKEN", "PULUMI_CONFIG_PASSPHRASE_FILE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    repo_bin = str(REPO_ROOT / ".venv" / "bin")
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != repo_bin]
    if extra_path is not None:
        path.insert(0, str(extra_path))
    env["PATH"] = os.pathsep.join(path)
    env.update(PULUMI_CONFIG_PASSPHRASE="test", PULUMI_SKIP_UPDATE_CHECK="true", NO_COLOR="1", GOTOOLCHAIN="local")
    env["GOFLAGS"] = " ".join(filter(None, (env.get("GOFLAGS", ""), "-trimpath")))
    return env


def run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = TIMEOUT) -> Run:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return Run(args, proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory, pulumi_cli: str, go_host: None) -> Dist:  # noqa: F811
    base = tmp_path_factory.mktemp("release")
    out = base / "dist"
    built = run([str(REPO_ROOT / "scripts" / "release"), "--out", str(out), "--no-build"], REPO_ROOT, dict(os.environ))
    assert built.returncode == 0, built.describe()
    version = json.loads((out / "kuberay-schema.json").read_text())["version"]
    return Dist(out, version, base)


@pytest.fixture(scope="module")
def venv(dist: Dist) -> Path:
    """A fresh venv with the released wheel (its dependencies at the pinned versions, from the pip cache)."""
    root = dist.base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=TIMEOUT)
    wheel = next(dist.path.glob("pulumi_kuberay-*.whl"))
    install = run(
        [str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile", "-c",
         str(REPO_ROOT / "constraints.txt"), str(wheel)],
        dist.base, _clean_env(),
    )
    assert install.returncode == 0, install.describe()
    return root


def test_dist_holds_every_artifact_with_its_checksum(dist: Dist) -> None:
    names = sorted(p.relative_to(dist.path).as_posix() for p in dist.path.rglob("*") if p.is_file())
    v = dist.version
    for expected in (f"pulumi_kuberay-{v}-py3-none-any.whl", f"pulumi_kuberay-{v}.tar.gz", "kuberay-schema.json",
                     "registry/_index.md", "registry/installation-configuration.md", "sdk/go/go.mod",
                     "sdk/go/kuberay/rayCluster.go", "sdk/nodejs/package.json", f"kuberay-nodejs-{v}.tgz"):
        assert expected in names, names
    sums = dict(line.split("  ", 1)[::-1] for line in (dist.path / "SHA256SUMS").read_text().splitlines())
    assert sorted(sums) == [n for n in names if n != "SHA256SUMS"]


def test_registry_pages_come_from_the_schema(dist: Dist) -> None:
    schema = json.loads((dist.path / "kuberay-schema.json").read_text())
    index = (dist.path / "registry" / "_index.md").read_text()
    install = (dist.path / "registry" / "installation-configuration.md").read_text()
    for page in (index, install):
        front = yaml.safe_load(page.split("---\n")[1])
        assert front["layout"] == "package" and front["title"].startswith("KubeRay"), front
    for token in schema["resources"]:
        assert f"`{token}`" in index, token
    assert f"pip install pulumi-kuberay=={dist.version}" in install
    assert schema["language"]["go"]["importBasePath"] in install
    assert schema["language"]["nodejs"]["packageName"] in install


def test_wheel_installs_and_serves_the_released_schema(dist: Dist, venv: Path) -> None:
    work = dist.base / "python-user"
    work.mkdir()
    schema = run([str(venv / "bin" / "pulumi-resource-kuberay"), "--schema"], work, _clean_env(venv / "bin"))
    assert schema.returncode == 0, schema.describe()
    assert json.loads(schema.stdout) == json.loads((dist.path / "kuberay-schema.json").read_text())
    sdist = next(dist.path.glob("pulumi_kuberay-*.tar.gz"))
    with tarfile.open(sdist) as archive:
        assert f"pulumi_kuberay-{dist.version}/pyproject.toml" in archive.getnames()
    wheel = run([str(venv / "bin" / "python"), "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                 str(work / "from-sdist"), str(sdist)], work, _clean_env(venv / "bin"))
    assert wheel.returncode == 0, wheel.describe()
    assert len(list((work / "from-sdist").glob(f"pulumi_kuberay-{dist.version}-*.whl"))) == 1


def test_go_program_from_nothing_with_pulumi_package_add(dist: Dist, venv: Path, pulumi_cli: str) -> None:
    """As a user with the venv activated: the program first (so the `go mod tidy` that `package add` runs after
    linking keeps the requirements), then ``pulumi package add`` of the venv's provider, which Pulumi.yaml names by
    name and version, and the engine finds on PATH."""
    work = dist.base / "go-user"
    work.mkdir()
    env = _clean_env(venv / "bin")
    env.pop("PULUMI_IGNORE_AMBIENT_PLUGINS", None)  # a user's engine finds pulumi-resource-kuberay on PATH
    env["PULUMI_BACKEND_URL"] = f"file://{dist.base / 'state'}"
    (dist.base / "state").mkdir()
    (work / "Pulumi.yaml").write_text("name: kuberay-go-user\nruntime: go\n")
    (work / "main.go").write_text(GO_PROGRAM)
    for args in (["go", "mod", "init", "example.com/kuberay-go-user"],
                 ["go", "get", f"{PULUMI_SDK}@v{_pulumi_version()}", f"{K8S_SDK}@v{_k8s_version()}"]):
        step = run(args, work, env, GO_TIMEOUT)
        assert step.returncode == 0, step.describe()
    provider = venv / "bin" / "pulumi-resource-kuberay"
    add = run([pulumi_cli, "package", "add", str(provider), "--non-interactive"], work, env, GO_TIMEOUT)
    assert add.returncode == 0, add.describe()
    assert "import \"github.com/pulumi-kuberay/pulumi-kuberay/sdk/go/kuberay\"" in add.output, add.describe()
    go_mod = (work / "go.mod").read_text()
    assert f"replace {SDK_MODULE} => ./sdks/kuberay" in go_mod, go_mod
    assert f"\t{SDK_MODULE} v0.0.0\n" in go_mod and f"\t{K8S_SDK} v{_k8s_version()}\n" in go_mod, go_mod
    packages = yaml.safe_load((work / "Pulumi.yaml").read_text())["packages"]
    assert packages == {"kuberay": f"kuberay@{dist.version}"}, packages
    for args in (["stack", "init", "dev"], ["up", "--yes", "--stack", "dev"]):
        step = run([pulumi_cli, *args, "--non-interactive", "--color", "never"], work, env, GO_TIMEOUT)
        assert step.returncode == 0, step.describe()
    rendered = [yaml.safe_load(p.read_text()) for p in (work / "rendered").rglob("*.yaml")]
    assert [d["metadata"]["name"] for d in rendered if d.get("kind") == "RayCluster"] == ["solo"]
    outputs = run([pulumi_cli, "stack", "output", "--json", "--stack", "dev"], work, env)
    assert json.loads(outputs.stdout) == {"dashboard": "http://solo-head-svc.ray.svc.cluster.local:8265"}


def test_released_go_sdk_builds_as_a_replaced_module(dist: Dist) -> None:
    work = dist.base / "go-replace"
    work.mkdir()
    env = _clean_env()
    (work / "main.go").write_text(GO_PROGRAM)
    for args in (["go", "mod", "init", "example.com/kuberay-go-replace"],
                 ["go", "mod", "edit", f"-require={SDK_MODULE}@v0.0.0", f"-replace={SDK_MODULE}={dist.path / 'sdk' / 'go'}"],
                 ["go", "get", f"{PULUMI_SDK}@v{_pulumi_version()}", f"{K8S_SDK}@v{_k8s_version()}"],
                 ["go", "mod", "tidy"], ["go", "build", "-o", "program", "."]):
        step = run(args, work, env, GO_TIMEOUT)
        assert step.returncode == 0, step.describe()
    assert (work / "program").exists()


def test_typescript_sdk_package_installs_with_npm_and_loads(dist: Dist) -> None:
    if shutil.which("npm") is None:
        pytest.skip("no `npm` on PATH")
    work = dist.base / "ts-user"
    work.mkdir()
    (work / "package.json").write_text(json.dumps({"name": "ts-user", "version": "1.0.0", "private": True}))
    tarball = dist.path / f"kuberay-nodejs-{dist.version}.tgz"
    with tarfile.open(tarball) as archive:
        member = archive.extractfile("package/package.json")
        assert member is not None
        package = json.loads(member.read())
        assert "package/index.js" in archive.getnames() and "package/rayCluster.d.ts" in archive.getnames()
    assert package["name"] == "@pulumi-kuberay/kuberay" and package["version"] == dist.version, package
    assert package["pulumi"] == {"resource": True, "name": "kuberay", "version": dist.version}, package["pulumi"]
    npm = run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", str(tarball)], work, _clean_env())
    assert npm.returncode == 0, npm.describe()
    load = run(["node", "-e", "const k = require('@pulumi-kuberay/kuberay'); console.log(typeof k.RayCluster, "
                "typeof k.RayJob, typeof k.RayService)"], work, _clean_env())
    assert load.returncode == 0 and load.stdout.split() == ["function"] * 3, load.describe()


def _pin(name: str) -> str:
    for line in (REPO_ROOT / "constraints.txt").read_text().splitlines():
        if line.startswith(f"{name}=="):
            return line.split("==", 1)[1].split(";")[0].strip()
    raise AssertionError(f"no {name}== in constraints.txt")


def _pulumi_version() -> str:
    return os.environ.get("PULUMI_KUBERAY_PULUMI_VERSION") or _pin("pulumi")


def _k8s_version() -> str:
    return os.environ.get("PULUMI_KUBERAY_K8S_VERSION") or _pin("pulumi-kubernetes")
