"""KubeRayOperator under the real engine, rendering to a directory (``tests/engine/operator_program``).

* the chart renders with our typed values: the Deployment carries our gates and watched namespaces;
* the CRDs are emitted by the component (``0-crd/``, labelled with the version), not by Helm;
* a change of version changes the CRDs (v1.6.1 CRDs from the ray-operator Go module -> v1.7.0 chart CRDs),
  going back is refused at preview unless allowed;
* the RayCronJob takes its target from the operator (gate on there, off in the defaults) and depends on it.

The "1.6.1 chart" is the reference 1.7.0 chart copied into a temporary directory with ``version: 1.6.1`` and
the v1.6.1 CRDs (``ray-operator@v1.6.1/config/crd/bases`` from the Go module cache): only the CRDs matter here.
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

from engine.conftest import ENGINE_DIR, Run, Workspace, copy_project, make_workspace

PROGRAM = "operator_program"
LABEL = "pulumi-kuberay.io/kuberay-version"


def reference_chart() -> Path:
    from _reference import require_reference

    return require_reference() / "kuberay" / "v1.7.0" / "helm" / "kuberay-operator"


def crds_161() -> Path:
    """``ray-operator@v1.6.1/config/crd/bases`` from the Go module cache (skip when there is none)."""
    try:
        cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        cache = os.path.expanduser("~/go/pkg/mod")
    path = Path(cache) / "github.com" / "ray-project" / "kuberay" / "ray-operator@v1.6.1" / "config" / "crd" / "bases"
    if not path.is_dir():
        pytest.skip(f"no v1.6.1 CRDs at {path} (go mod download github.com/ray-project/kuberay/ray-operator@v1.6.1)")
    return path


def chart_161(tmp_path: Path) -> Path:
    chart = tmp_path / "kuberay-operator-1.6.1"
    shutil.copytree(reference_chart(), chart, ignore=shutil.ignore_patterns("crds"))
    chart.chmod(0o755)
    for path in chart.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    meta = yaml.safe_load((chart / "Chart.yaml").read_text())
    (chart / "Chart.yaml").write_text(yaml.safe_dump({**meta, "version": "1.6.1"}))
    shutil.copytree(crds_161(), chart / "crds")
    return chart


@pytest.fixture
def program(tmp_path: Path, pulumi_cli: str) -> Workspace:
    root = copy_project(tmp_path / "project")
    target = root / "tests" / "engine" / PROGRAM
    shutil.copytree(ENGINE_DIR / PROGRAM, target, ignore=shutil.ignore_patterns("__pycache__"))
    workspace = make_workspace(root, pulumi_cli, program=target)
    workspace.init_stack("ci")
    workspace.pulumi("config", "set", "--stack", "ci", "op:renderDir", "rendered", check=True)
    return workspace


#: A preview/up that diffs the four CRDs (4 MB of schema): 7-30 s on the idle machine (the pack previews 9 s), minutes
#: on 2 busy cores; the generous bound keeps a loaded CI from failing on time alone (nothing asserts on time).
LONG_TIMEOUT = 1500


def pulumi_long(workspace: Workspace, *args: str) -> Run:
    started = time.monotonic()
    run = workspace.pulumi(*args, timeout=LONG_TIMEOUT)
    print(f"pulumi {' '.join(args)}: {time.monotonic() - started:.0f} s")  # figures for the report, not asserted
    return run


def configure(workspace: Workspace, **values: str) -> None:
    for key, value in values.items():
        workspace.pulumi("config", "set", "--stack", "ci", f"op:{key}", value, check=True)


def rendered(workspace: Workspace) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((workspace.cwd / "rendered").rglob("*.yaml")):
        docs = [d for d in yaml.load_all(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if d]
        out[str(path.relative_to(workspace.cwd / "rendered"))] = docs
    return out


def crds(files: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    return {
        doc["metadata"]["name"]: doc
        for rel, docs in files.items()
        for doc in docs
        if doc.get("kind") == "CustomResourceDefinition"
    }


def raycluster_properties(crd: dict[str, Any]) -> set[str]:
    (v1,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    return set(v1["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"])


def test_operator_renders_chart_with_typed_values_and_its_own_crds(program: Workspace) -> None:
    configure(program, chart=str(reference_chart()))
    up = pulumi_long(program, "up", "--stack", "ci", "--yes", "--skip-preview")
    assert up.returncode == 0, up.describe()
    files = rendered(program)

    # The CRDs: emitted by the component (the provider puts CRDs under 0-crd/), labelled with the version.
    found = crds(files)
    assert set(found) == {"rayclusters.ray.io", "rayjobs.ray.io", "rayservices.ray.io", "raycronjobs.ray.io"}
    assert all(rel.startswith("0-crd/") for rel, docs in files.items() if docs[0]["kind"] == "CustomResourceDefinition")
    assert {crd["metadata"]["labels"][LABEL] for crd in found.values()} == {"1.7.0"}

    # The chart: our values reached the Deployment's flags.
    (deployment,) = [d for docs in files.values() for d in docs if d["kind"] == "Deployment"]
    assert deployment["metadata"]["namespace"] == "kuberay-system"
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "quay.io/kuberay/operator:v1.7.0"
    args = container["args"]
    assert args[args.index("--watch-namespace") + 1] == "ray"
    (gates,) = [a for a in args if a.startswith("--feature-gates=")]
    assert "RayCronJob=true" in gates and "RayClusterMTLS=false" in gates

    # The RayCronJob was accepted because the operator has the gate on (the defaults have it off).
    kinds = {(d["kind"], d["metadata"]["name"]) for docs in files.values() for d in docs}
    assert ("RayCronJob", "hourly") in kinds and ("Namespace", "kuberay-system") in kinds

    outputs = json.loads(program.pulumi("stack", "output", "--stack", "ci", "--json", check=True).stdout)
    assert outputs["version"] == "1.7.0" and outputs["watch_namespaces"] == ["ray"]
    assert outputs["feature_gates"]["RayCronJob"] is True

    # Idempotent: nothing changes on a second run.
    again = pulumi_long(program, "preview", "--stack", "ci", "--expect-no-changes")
    assert again.returncode == 0, again.describe()


def test_version_change_upgrades_the_crds_and_a_downgrade_is_refused(program: Workspace, tmp_path: Path) -> None:
    old_chart = chart_161(tmp_path)
    configure(program, chart=str(old_chart), version="1.6.1")
    up = pulumi_long(program, "up", "--stack", "ci", "--yes", "--skip-preview")
    assert up.returncode == 0, up.describe()
    before = crds(rendered(program))
    assert {c["metadata"]["labels"][LABEL] for c in before.values()} == {"1.6.1"}
    assert "historyServerOptions" not in raycluster_properties(before["rayclusters.ray.io"])

    configure(program, chart=str(reference_chart()), version="1.7.0")
    preview = pulumi_long(program, "preview", "--stack", "ci", "--json")
    assert preview.returncode == 0, preview.describe()
    updated = {step["urn"].rsplit("::", 1)[1] for step in json.loads(preview.stdout)["steps"] if step["op"] == "update"}
    assert {f"kuberay-{n}" for n in before} <= updated, updated
    up = pulumi_long(program, "up", "--stack", "ci", "--yes", "--skip-preview")
    assert up.returncode == 0, up.describe()
    after = crds(rendered(program))
    assert {c["metadata"]["labels"][LABEL] for c in after.values()} == {"1.7.0"}
    assert "historyServerOptions" in raycluster_properties(after["rayclusters.ray.io"])

    configure(program, chart=str(old_chart), version="1.6.1")
    refused = pulumi_long(program, "preview", "--stack", "ci")
    assert refused.returncode != 0
    assert "applied the KubeRay 1.7.0 CRDs; 1.6.1 would downgrade them" in refused.output, refused.describe()
    configure(program, allowCrdDowngrade="true")
    allowed = pulumi_long(program, "preview", "--stack", "ci")
    assert allowed.returncode == 0, allowed.describe()


def test_pack_stack_policy_on_the_operator_in_a_real_preview(program: Workspace) -> None:
    """The operator's image tag drifts from the chart: the component only warns (high), the pack's stack policy
    makes it mandatory with the prod policy config and names it on the operator Deployment."""
    from engine.conftest import policy_args

    configure(program, chart=str(reference_chart()), imageTag="v1.6.1", cronjob="false")
    run = pulumi_long(program, "preview", "--stack", "ci", *policy_args(program.cwd.parents[2], "prod"))
    assert run.returncode != 0, run.describe()
    assert "operator-image-tag-mismatch" in run.output, run.describe()
    assert "[mandatory]" in run.output and "kubernetes:apps/v1:Deployment" in run.output, run.describe()
    advisory = pulumi_long(program, "preview", "--stack", "ci", *policy_args(program.cwd.parents[2], "dev"))
    assert advisory.returncode == 0, advisory.describe()
    assert "operator-image-tag-mismatch" in advisory.output
