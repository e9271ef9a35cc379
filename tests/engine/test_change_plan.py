"""The change plan on the real engine: ``pulumi preview`` of a change prints what KubeRay will do with it.

Each stack is brought up first (rendering to a directory: the resource hooks then compare with the last applied
manifest, i.e. the previously rendered file), then changed through its stack config and previewed:

* staging's RayCluster (upgradeStrategy None): an image change prints ``none`` (the running Pods keep the old
  spec) and the change rule's warning; with ``upgradeStrategy: Recreate`` the line says every Pod restarts;
* prod's RayService (NewCluster): a rayClusterConfig change prints ``new-cluster`` with what the second
  cluster needs while both run; a serveConfigV2-only change prints ``serve-update-in-place``.

An unchanged object prints no plan line (no hook runs for it), and ``last_change`` records the plan at ``up``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from engine.conftest import Workspace, copy_project, make_workspace

NEW_IMAGE = "rayproject/ray:2.53.0"


def _workspace(tmp_path: Path, cli: str, stack: str) -> Workspace:
    workspace = make_workspace(copy_project(tmp_path / "project"), cli)
    workspace.init_stack(stack)
    if stack != "dev":
        workspace.pulumi(
            "config", "set", "--stack", stack, "pulumi-kuberay:render_dir", f"rendered/{stack}", check=True
        )
    if stack == "prod":
        # prod's operator (its chart and CRDs) takes most of a preview's time and plays no part in the plan: the
        # copy targets the same operator through kuberay:version / kuberay:featureGates instead.
        workspace.pulumi("config", "rm", "--stack", stack, "pulumi-kuberay:operator", check=True)
        workspace.pulumi("config", "set", "--stack", stack, "kuberay:version", "1.7.0", check=True)
        gates = "RayJobDeletionPolicy=true,RayServiceIncrementalUpgrade=false"
        workspace.pulumi("config", "set", "--stack", stack, "kuberay:featureGates", gates, check=True)
    return workspace


def _plan_lines(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if line.strip().startswith("plan: ")]


def test_staging_cluster_image_change_prints_the_plan(tmp_path: Path, pulumi_cli: str) -> None:
    workspace = _workspace(tmp_path, pulumi_cli, "staging")
    up = workspace.pulumi("up", "--stack", "staging", "--yes", "--skip-preview")
    assert up.returncode == 0, up.describe()
    assert _plan_lines(up.output) == [
        "plan: RayCluster 'shared': create: a new cluster: every Pod is created; the cluster needs: 2.5 CPU, "
        "8.5Gi memory (up to 22.5 CPU, 88.5Gi memory if it scales to maxReplicas)"
    ], up.output

    unchanged = workspace.pulumi("preview", "--stack", "staging")
    assert unchanged.returncode == 0, unchanged.describe()
    assert _plan_lines(unchanged.output) == [], unchanged.output

    image = "pulumi-kuberay:clusters.shared.spec.image"
    workspace.pulumi("config", "set", "--stack", "staging", "--path", image, NEW_IMAGE, check=True)
    preview = workspace.pulumi("preview", "--stack", "staging")
    assert preview.returncode == 0, preview.describe()
    lines = _plan_lines(preview.output)
    assert len(lines) == 1, preview.output
    assert lines[0].startswith(
        "plan: RayCluster 'shared': none: upgradeStrategy None (default): running Pods keep the old spec"
    )
    assert "image of container ray-head" in lines[0] and "(compared with the last applied manifest)" in lines[0]
    # The change rule says so too (medium outside prod).
    assert "change-not-reaching-pods" in preview.output, preview.output

    strategy = "pulumi-kuberay:clusters.shared.spec.upgradeStrategy.type"
    workspace.pulumi("config", "set", "--stack", "staging", "--path", strategy, "Recreate", check=True)
    preview = workspace.pulumi("preview", "--stack", "staging")
    assert preview.returncode == 0, preview.describe()
    lines = _plan_lines(preview.output)
    assert len(lines) == 1 and "plan: RayCluster 'shared': recreate-pods:" in lines[0], preview.output
    assert "every Pod is deleted at once and recreated from the new spec" in lines[0]
    assert "change-not-reaching-pods" not in preview.output

    up = workspace.pulumi("up", "--stack", "staging", "--yes", "--skip-preview")
    assert up.returncode == 0, up.describe()
    outputs = workspace.pulumi("stack", "output", "--stack", "staging", "--json", "--show-secrets")
    assert outputs.returncode == 0, outputs.describe()
    state = json.loads(workspace.pulumi("stack", "export", "--stack", "staging").stdout)
    component = next(
        r
        for r in state["deployment"]["resources"]
        if r["type"] == "kuberay:index:RayCluster" and r["urn"].endswith("::shared")
    )
    last = component["outputs"]["last_change"]
    assert last["action"] == "recreate-pods"
    # Rendering: nothing to wait for (the provider only writes files).
    assert last["result"].startswith("the provider waited") or last["result"] == "not waited for (the wait is off)", (
        last
    )


def _service_line(workspace: Workspace) -> str:
    preview = workspace.pulumi("preview", "--stack", "prod")
    assert preview.returncode == 0, preview.describe()
    lines = _plan_lines(preview.output)
    # The RayCluster and RayJob of prod did not change: no line for them.
    assert len(lines) == 1 and "RayService" in lines[0], preview.output
    return lines[0]


def test_prod_service_changes_print_the_plan(tmp_path: Path, pulumi_cli: str) -> None:
    """One ``up`` of prod, then two previews: a rayClusterConfig change, and (reverted) a serveConfigV2 change."""
    workspace = _workspace(tmp_path, pulumi_cli, "prod")
    up = workspace.pulumi("up", "--stack", "prod", "--yes", "--skip-preview")
    assert up.returncode == 0, up.describe()
    base = "pulumi-kuberay:services.serve.spec"

    image = f"{base}.rayClusterConfig.image"
    # The same Ray release: a new one for the head and the cpu group alone would leave the gpu group's
    # rayproject/ray:2.52.0-gpu behind, which image-ray-version-mismatch rightly blocks (a worker's ray start refuses
    # a head of another release).
    workspace.pulumi("config", "set", "--stack", "prod", "--path", image, "rayproject/ray:2.52.0-py312", check=True)
    line = _service_line(workspace)
    assert line.startswith("plan: RayService 'serve': new-cluster: the cluster spec changed ("), line
    # The second cluster: head 4 CPU/16Gi + the autoscaler sidecar's 500m/512Mi, the cpu group's 1 x 4 CPU/16Gi
    # and the gpu group's 1 x 8 CPU/64Gi/1 GPU at start; 8 cpu and 4 gpu workers at maxReplicas.
    extra = re.search(r"extra while both clusters run: ([^;]*);", line)
    assert extra is not None, line
    assert extra.group(1) == (
        "16.5 CPU, 96.5Gi memory, 1 GPU (up to 68.5 CPU, 400.5Gi memory, 4 GPU if it scales to maxReplicas)"
    ), line
    assert "the old cluster is deleted 60s after traffic has switched" in line

    workspace.pulumi("config", "set", "--stack", "prod", "--path", image, "rayproject/ray:2.52.0", check=True)
    replicas = f"{base}.serveConfigV2.applications[0].deployments[0].autoscaling_config.max_replicas"
    workspace.pulumi("config", "set", "--stack", "prod", "--path", replicas, "8", check=True)
    line = _service_line(workspace)
    assert line.startswith(
        "plan: RayService 'serve': serve-update-in-place: on the running cluster: Serve application(s) 'text' "
        "redeployed; 'images' untouched"
    ), line
