"""The read-only ClusterRole of docs/preflight-clusterrole.yaml is enough: a ServiceAccount bound only to it runs
``kuberay-lint --live`` and ``--cluster`` against the local control plane with every kind read; one bound to
nothing gets a clear line, not an error."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import REPO_ROOT, LocalCluster

CLUSTER_ROLE = REPO_ROOT / "docs" / "preflight-clusterrole.yaml"


def _lint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pulumi_kuberay.cli.lint", *args], capture_output=True, text=True, timeout=300
    )


def _kubeconfig(cluster: LocalCluster, token: str, path: Path) -> Path:
    ca = base64.b64encode((cluster.state_dir / "pki" / "ca.crt").read_bytes()).decode()
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "local", "cluster": {"server": cluster.api_url, "certificate-authority-data": ca}}],
        "users": [{"name": "reader", "user": {"token": token}}],
        "contexts": [{"name": "reader", "context": {"cluster": "local", "user": "reader"}}],
        "current-context": "reader",
    }))
    return path


def _gpu_cluster(namespace: str) -> dict[str, Any]:
    def group(gpu: int) -> dict[str, Any]:
        resources = {"cpu": "1", "memory": "2Gi", **({"nvidia.com/gpu": gpu} if gpu else {})}
        container = {"name": "ray", "image": "rayproject/ray:2.52.0",
                     "resources": {"requests": resources, "limits": resources}}
        return {"rayStartParams": {}, "template": {"spec": {"containers": [container]}}}

    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "gpu-too-big", "namespace": namespace},
        "spec": {
            "rayVersion": "2.52.0",
            "headGroupSpec": group(0),
            "workerGroupSpecs": [{"groupName": "gpu", "replicas": 1, "minReplicas": 1, "maxReplicas": 1, **group(64)}],
        },
    }


def test_a_service_account_bound_only_to_the_cluster_role_can_run_live_and_cluster(
    local_cluster: LocalCluster, namespace: str, tmp_path: Path
) -> None:
    local_cluster.kubectl("apply", "-f", str(CLUSTER_ROLE))
    local_cluster.kubectl("-n", namespace, "create", "serviceaccount", "lint-reader")
    local_cluster.kubectl("-n", namespace, "create", "serviceaccount", "nobody")
    binding = f"kuberay-preflight-{namespace}"
    local_cluster.kubectl("create", "clusterrolebinding", binding, "--clusterrole=kuberay-preflight-reader",
                          f"--serviceaccount={namespace}:lint-reader")
    try:
        manifest = _gpu_cluster(namespace)
        manifest_file = tmp_path / "cluster.yaml"
        manifest_file.write_text(yaml.safe_dump(manifest))
        local_cluster.kubectl("apply", "-f", str(manifest_file))
        token = local_cluster.kubectl("-n", namespace, "create", "token", "lint-reader").stdout.strip()
        kubeconfig = _kubeconfig(local_cluster, token, tmp_path / "reader.kubeconfig")

        cluster = _lint("--cluster", "--kubeconfig", str(kubeconfig), str(manifest_file), "--format", "json")
        assert cluster.returncode == 1, cluster.stderr
        assert "preflight" not in cluster.stderr, cluster.stderr  # nothing skipped, nothing unread
        found = json.loads(cluster.stdout)["findings"]
        never = [f for f in found if f["rule_id"] == "preflight-group-never-placed"]
        assert [f["path"] for f in never] == ["spec.workerGroupSpecs[0]"]
        assert "nvidia.com/gpu 64" in never[0]["message"] and "kwok-gpu-0" in never[0]["message"]

        live = _lint("--live", "--kubeconfig", str(kubeconfig), "-n", namespace, "--format", "json")
        assert live.returncode == 1, live.stderr
        assert "preflight" not in live.stderr and "cannot" not in live.stderr, live.stderr
        report = json.loads(live.stdout)
        assert {(f["kind"], f["name"]) for f in report["findings"]} >= {("RayCluster", "gpu-too-big")}
        assert "preflight-group-never-placed" in {f["rule_id"] for f in report["findings"]}
        sarif = _lint("--live", "--kubeconfig", str(kubeconfig), "-A", "--format", "sarif")
        assert sarif.returncode in (0, 1), sarif.stderr
        assert json.loads(sarif.stdout)["runs"][0]["results"]

        # bound to nothing: one clear line each, never a traceback
        nobody = _kubeconfig(local_cluster, local_cluster.kubectl(
            "-n", namespace, "create", "token", "nobody").stdout.strip(), tmp_path / "nobody.kubeconfig")
        refused = _lint("--cluster", "--kubeconfig", str(nobody), str(manifest_file))
        assert refused.returncode in (0, 1) and "Traceback" not in refused.stderr
        assert "preflight skipped:" in refused.stderr and "HTTP 403" in refused.stderr, refused.stderr
        refused_live = _lint("--live", "--kubeconfig", str(nobody), "-n", namespace)
        assert refused_live.returncode == 2 and "Traceback" not in refused_live.stderr
        assert "the cluster cannot be read" in refused_live.stderr or "cannot be listed" in refused_live.stderr
    finally:
        local_cluster.kubectl("delete", "clusterrolebinding", binding, check=False)


@pytest.mark.parametrize("kubeconfig", ["missing"])
def test_no_kubeconfig_is_one_line(tmp_path: Path, kubeconfig: str) -> None:
    manifest = tmp_path / "c.yaml"
    manifest.write_text(yaml.safe_dump(_gpu_cluster("default")))
    run = _lint("--cluster", "--kubeconfig", str(tmp_path / kubeconfig), str(manifest))
    lines = [line for line in run.stderr.splitlines() if "preflight" in line]
    assert lines == [f"kuberay-lint: preflight skipped: --kubeconfig {tmp_path / kubeconfig}: no such file (the cluster checks did not run; everything else was checked)"]
