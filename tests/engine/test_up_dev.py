"""The README's main command on the real engine: the dev stacks render manifests to one directory.

``dev-crds`` (``crds: only``) renders the operator's four CRDs to ``rendered/dev/0-crd/``; ``dev`` (``crds:
leave``) the operator chart and the Ray objects to ``rendered/dev/1-manifest/`` (scripts/dev-up brings both up,
the CRD stack only when it changed: ``test_dev_up_lone_clone.py``). In a fresh project copy (own state): the
rendered RayCluster/RayJob YAML passes the CRD conformance check (:func:`conformance.openapi.validate` against
``crd_schema(kind)``) and ``kuberay-lint --fail-on critical``; a second ``up`` changes nothing
(``--expect-no-changes``); ``destroy`` removes each stack's own rendered files and never the other's.
A dev stack made before the CRD stack existed (its CRDs in its own state) hands them over without losing them.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import yaml

from engine.conftest import REPO_VENV, Workspace, copy_project, make_workspace, policy_args

RENDER_DIR = Path("rendered") / "dev"
EXPECTED_FILES = {
    "1-manifest/ray.io_v1-raycluster-ray-dev-dev.yaml": ("RayCluster", "dev"),
    "1-manifest/ray.io_v1-rayjob-ray-dev-hello.yaml": ("RayJob", "hello"),
}
CRD_TYPE = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"


#: What the dev stacks' pulumi-kuberay:operator renders besides: the four CRDs (emitted by dev-crds' component,
#: labelled with the version) and the chart's operator Deployment (dev's, with the namespaces it watches).
CRD_FILES = {
    f"0-crd/apiextensions.k8s.io_v1-customresourcedefinition-default-{plural}.ray.io.yaml"
    for plural in ("rayclusters", "rayjobs", "rayservices", "raycronjobs")
}
OPERATOR_DEPLOYMENT = "1-manifest/apps_v1-deployment-kuberay-system-kuberay-operator.yaml"


def _rendered(render_dir: Path) -> dict[str, Path]:
    return {str(p.relative_to(render_dir)): p for p in sorted(render_dir.rglob("*.yaml"))}


def _texts(render_dir: Path, names: set[str]) -> dict[str, str]:
    files = _rendered(render_dir)
    return {rel: files[rel].read_text() for rel in names if rel in files}


def _resource_types(workspace: Workspace, stack: str) -> list[str]:
    export = workspace.pulumi("stack", "export", "--stack", stack, check=True)
    resources: list[dict[str, Any]] = json.loads(export.stdout)["deployment"].get("resources") or []
    return [r["type"] for r in resources]


def _up(workspace: Workspace, stack: str, *extra: str) -> None:
    up = workspace.pulumi("up", "--stack", stack, "--yes", *extra, *policy_args(workspace.cwd, "dev"))
    assert up.returncode == 0, up.describe()


def test_up_renders_conformant_manifests_is_idempotent_and_destroys(tmp_path: Path, pulumi_cli: str) -> None:
    from _reference import crd_schema, require_reference
    from conformance.openapi import validate

    require_reference()
    workspace = make_workspace(copy_project(tmp_path / "project"), pulumi_cli)
    workspace.init_stack("dev-crds")
    workspace.init_stack("dev")
    render_dir = workspace.cwd / RENDER_DIR

    # 1. The CRD stack renders the four CRDs and nothing else.
    _up(workspace, "dev-crds", "--skip-preview")
    assert set(_rendered(render_dir)) == CRD_FILES, sorted(_rendered(render_dir))
    crds = _texts(render_dir, CRD_FILES)
    for rel, text in crds.items():
        assert yaml.safe_load(text)["metadata"]["labels"]["pulumi-kuberay.io/kuberay-version"] == "1.7.0", rel
    assert _resource_types(workspace, "dev-crds").count(CRD_TYPE) == 4

    # 2. dev renders exactly the declared custom resources, each valid against its CRD, and the operator chart,
    #    beside the CRDs and without touching them (none in its state).
    _up(workspace, "dev", "--skip-preview")
    files = _rendered(render_dir)
    ray_files = {rel for rel in files if "/ray.io_v1-" in rel}
    assert ray_files == set(EXPECTED_FILES), sorted(files)
    assert CRD_FILES | {OPERATOR_DEPLOYMENT} <= set(files), sorted(files)
    assert _texts(render_dir, CRD_FILES) == crds
    assert CRD_TYPE not in _resource_types(workspace, "dev")
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

    # 3. The linter, at the threshold the components enforce themselves (the CRDs and the chart beside).
    lint = subprocess.run(
        [str(REPO_VENV / "bin" / "kuberay-lint"), "--fail-on", "critical", "--environment", "dev", str(render_dir)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr

    # 4. A second up of each is a no-op: the engine fails it if anything would change.
    before = {rel: path.read_text() for rel, path in files.items()}
    for stack in ("dev-crds", "dev"):
        _up(workspace, stack, "--expect-no-changes", "--json")
    preview = workspace.pulumi(
        "preview", "--stack", "dev", "--json", "--expect-no-changes", *policy_args(workspace.cwd, "dev")
    )
    assert preview.returncode == 0, preview.describe()
    summary = json.loads(preview.stdout)["changeSummary"]
    assert set(summary) == {"same"}, summary
    assert {rel: path.read_text() for rel, path in _rendered(render_dir).items()} == before

    # 5. destroy of dev removes every manifest it rendered and none of the CRD stack's...
    destroy = workspace.pulumi("destroy", "--stack", "dev", "--yes", "--skip-preview")
    assert destroy.returncode == 0, destroy.describe()
    assert _texts(render_dir, set(_rendered(render_dir))) == crds
    assert _resource_types(workspace, "dev") == []
    # ... and the CRD stack's destroy keeps the CRDs (retain_crds, the default), since deleting a CRD deletes
    # every object of its kind.
    destroy = workspace.pulumi("destroy", "--stack", "dev-crds", "--yes", "--skip-preview")
    assert destroy.returncode == 0, destroy.describe()
    assert _texts(render_dir, set(_rendered(render_dir))) == crds
    assert _resource_types(workspace, "dev-crds") == []


def test_a_dev_stack_from_before_the_crd_stack_hands_its_crds_over(tmp_path: Path, pulumi_cli: str) -> None:
    """Before the CRD stack, dev applied the CRDs itself (``crds: manage``, kept on delete). scripts/dev-up brings
    the CRD stack up first (the same objects, the same files), then dev with ``crds: leave`` drops them from its
    state without deleting them: the rendered CRDs are there all along, owned by the CRD stack at the end."""
    from _reference import require_reference

    require_reference()
    workspace = make_workspace(copy_project(tmp_path / "project"), pulumi_cli)
    render_dir = workspace.cwd / RENDER_DIR
    stack_file = workspace.cwd / "stacks" / "Pulumi.dev.yaml"
    current = stack_file.read_text()
    before_crd_stack = yaml.safe_load(current)
    operator = before_crd_stack["config"]["pulumi-kuberay:operator"]
    assert (operator.pop("crds"), operator.pop("installedCrds")) == ("leave", "1.7.0")
    stack_file.write_text(yaml.safe_dump(before_crd_stack, sort_keys=False))
    workspace.init_stack("dev")
    _up(workspace, "dev", "--skip-preview")
    assert _resource_types(workspace, "dev").count(CRD_TYPE) == 4
    crds = _texts(render_dir, CRD_FILES)
    assert set(crds) == CRD_FILES

    # dev-up's order: the CRD stack first, then dev as committed.
    stack_file.write_text(current)
    workspace.init_stack("dev-crds")
    _up(workspace, "dev-crds", "--skip-preview")
    assert _texts(render_dir, CRD_FILES) == crds
    _up(workspace, "dev", "--skip-preview")
    assert _texts(render_dir, CRD_FILES) == crds
    assert CRD_TYPE not in _resource_types(workspace, "dev")
    assert _resource_types(workspace, "dev-crds").count(CRD_TYPE) == 4
    _up(workspace, "dev", "--expect-no-changes")
