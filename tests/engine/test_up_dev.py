"""The README's main command on the real engine: ``pulumi up --stack dev`` renders manifests to a directory.

In a fresh project copy (own state): the rendered RayCluster/RayJob YAML passes the CRD conformance check
(:func:`conformance.openapi.validate` against ``crd_schema(kind)``) and ``kuberay-lint --fail-on critical``;
a second ``up`` changes nothing (``--expect-no-changes``); ``destroy`` removes the rendered files.
One test, because each step depends on the previous one's state.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from engine.conftest import REPO_VENV, copy_project, make_workspace, policy_args

RENDER_DIR = Path("rendered") / "dev"
EXPECTED_FILES = {
    "1-manifest/ray.io_v1-raycluster-ray-dev-dev.yaml": ("RayCluster", "dev"),
    "1-manifest/ray.io_v1-rayjob-ray-dev-hello.yaml": ("RayJob", "hello"),
}


#: What dev's pulumi-kuberay:operator renders besides: the four CRDs (emitted by the component, labelled with
#: the version) and the chart's operator Deployment (with the namespaces we set it to watch).
CRD_FILES = {
    f"0-crd/apiextensions.k8s.io_v1-customresourcedefinition-default-{plural}.ray.io.yaml"
    for plural in ("rayclusters", "rayjobs", "rayservices", "raycronjobs")
}
OPERATOR_DEPLOYMENT = "1-manifest/apps_v1-deployment-kuberay-system-kuberay-operator.yaml"


def _rendered(render_dir: Path) -> dict[str, Path]:
    return {str(p.relative_to(render_dir)): p for p in sorted(render_dir.rglob("*.yaml"))}


def test_up_renders_conformant_manifests_is_idempotent_and_destroys(tmp_path: Path, pulumi_cli: str) -> None:
    from _reference import crd_schema, require_reference
    from conformance.openapi import validate

    require_reference()
    workspace = make_workspace(copy_project(tmp_path / "project"), pulumi_cli)
    workspace.init_stack("dev")
    render_dir = workspace.cwd / RENDER_DIR
    pack = policy_args(workspace.cwd, "dev")

    up = workspace.pulumi("up", "--stack", "dev", "--yes", "--skip-preview", *pack)
    assert up.returncode == 0, up.describe()

    # 1. What was rendered: exactly the declared custom resources, each valid against its CRD.
    files = _rendered(render_dir)
    ray_files = {rel for rel in files if "/ray.io_v1-" in rel}
    assert ray_files == set(EXPECTED_FILES), sorted(files)
    assert CRD_FILES | {OPERATOR_DEPLOYMENT} <= set(files), sorted(files)
    for rel in CRD_FILES:
        crd = yaml.safe_load(files[rel].read_text())
        assert crd["metadata"]["labels"]["pulumi-kuberay.io/kuberay-version"] == "1.7.0", rel
    deployment = yaml.safe_load(files[OPERATOR_DEPLOYMENT].read_text())
    args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--watch-namespace") + 1] == "ray-dev"
    for rel, (kind, name) in EXPECTED_FILES.items():
        docs = [d for d in yaml.safe_load_all(files[rel].read_text()) if d]
        assert len(docs) == 1, rel
        doc = docs[0]
        assert (doc["apiVersion"], doc["kind"], doc["metadata"]["name"]) == ("ray.io/v1", kind, name)
        assert doc["metadata"]["namespace"] == "ray-dev"
        assert validate(doc, crd_schema(kind)) == [], rel

    # 2. The linter, at the threshold the components enforce themselves.
    lint = subprocess.run(
        [str(REPO_VENV / "bin" / "kuberay-lint"), "--fail-on", "critical", "--environment", "dev", str(render_dir)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr

    # 3. A second up is a no-op: the engine fails it if anything would change.
    before = {rel: path.read_text() for rel, path in files.items()}
    again = workspace.pulumi("up", "--stack", "dev", "--yes", "--expect-no-changes", "--json", *pack)
    assert again.returncode == 0, again.describe()
    preview = workspace.pulumi("preview", "--stack", "dev", "--json", "--expect-no-changes", *pack)
    assert preview.returncode == 0, preview.describe()
    summary = json.loads(preview.stdout)["changeSummary"]
    assert set(summary) == {"same"}, summary
    assert {rel: path.read_text() for rel, path in _rendered(render_dir).items()} == before

    # 4. destroy removes every rendered manifest...
    destroy = workspace.pulumi("destroy", "--stack", "dev", "--yes", "--skip-preview")
    assert destroy.returncode == 0, destroy.describe()
    # ... except the CRDs: the operator keeps them on destroy (retain_crds, the default), since deleting a CRD
    # deletes every object of its kind.
    assert set(_rendered(render_dir)) == CRD_FILES, sorted(_rendered(render_dir))
    stack = workspace.pulumi("stack", "export", "--stack", "dev", check=True)
    assert json.loads(stack.stdout)["deployment"].get("resources") in (None, [])
