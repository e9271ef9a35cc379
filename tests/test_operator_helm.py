"""Cross-check with the real Helm: the values the component sends render a Deployment whose flags give back
the same operator setup (gates, watched namespaces, scheduler, leader election, limits).

Needs a ``helm`` binary: ``KUBERAY_LINT_HELM`` (``scripts/ensure-helm --print-env``), else ``helm`` on PATH;
skips naming both where there is none.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from _reference import require_reference
from pulumi_kuberay.operator.derive import is_operator_deployment, resolve_operator, setup_from_deployment


def helm() -> str:
    candidates = [os.environ.get("KUBERAY_LINT_HELM", ""), shutil.which("helm") or ""]
    for path in candidates:
        if path and Path(path).is_file():
            return path
    pytest.skip("no helm binary: set KUBERAY_LINT_HELM (scripts/ensure-helm --print-env) or put helm on PATH")


def render(values: dict[str, Any], tmp_path: Path, namespace: str) -> list[dict[str, Any]]:
    chart = require_reference() / "kuberay" / "v1.7.0" / "helm" / "kuberay-operator"
    values_file = tmp_path / "values.yaml"
    values_file.write_text(yaml.safe_dump(values))
    out = subprocess.run(
        [
            helm(),
            "template",
            "kuberay-operator",
            str(chart),
            "--namespace",
            namespace,
            "--skip-crds",
            "-f",
            str(values_file),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    return [d for d in yaml.safe_load_all(out) if isinstance(d, dict)]


@pytest.mark.parametrize(
    "args",
    [
        {},
        {
            "featureGates": {"RayCronJob": True, "RayClusterMTLS": True},
            "watchNamespaces": ["ray", "batch"],
            "batchScheduler": "yunikorn",
            "leaderElection": False,
            "replicas": 2,
            "resources": {"requests": {"cpu": "200m"}},
        },
        {
            "values": {
                "singleNamespaceInstall": True,
                "featureGates": [{"name": "RayJobDeletionPolicy", "enabled": False}],
            }
        },
        {"values": {"image": {"tag": "v1.6.1"}}},  # the version comes from the chart label, not the image tag
    ],
)
def test_rendered_deployment_carries_the_setup(args: dict[str, Any], tmp_path: Path) -> None:
    resolved = resolve_operator({**args, "namespace": "ops"})
    docs = render(resolved.values.chart_values(), tmp_path, "ops")
    assert not any(d.get("kind") == "CustomResourceDefinition" for d in docs)
    (deployment,) = [d for d in docs if is_operator_deployment(d)]
    rendered = setup_from_deployment(deployment, crd_version=resolved.setup.crd_version)
    expected = resolved.setup
    assert dict(rendered.feature_gates) == dict(expected.feature_gates)
    assert rendered.watch_namespaces == expected.watch_namespaces
    assert (rendered.batch_scheduler, rendered.leader_election, rendered.replicas) == (
        expected.batch_scheduler,
        expected.leader_election,
        expected.replicas,
    )
    assert dict(rendered.resource_limits) == dict(expected.resource_limits)
    assert (rendered.version, rendered.namespace, rendered.image) == (expected.version, "ops", expected.image)
