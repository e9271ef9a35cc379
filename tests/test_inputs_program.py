# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""Programs a user writes: the README example and the wired program of the engine tier
(``tests/engine/wired/__main__.py``) pass ``mypy --strict``, run under mocks, and the README example has no
finding at any severity while still rendering what Ray needs.

Mock tests are ``@pulumi.runtime.test`` and RETURN an Output.
"""

from __future__ import annotations

import re
import runpy
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, after_settling, install
from pulumi_kuberay import rules
from pulumi_kuberay.model.pod import HARDENED_SECURITY_CONTEXT

REPO = Path(__file__).resolve().parent.parent
WIRED = REPO / "tests" / "engine" / "wired" / "__main__.py"
RAY = "kubernetes:ray.io/v1:"
SECRET_CONFIG = {"pulumi-kuberay:hfToken": "hf-test-token", "kuberay-wired:hfToken": "hf-test-token"}


def readme_example() -> str:
    """The first ``python`` block of the README's "Example" section."""
    text = (REPO / "README.md").read_text()
    section = text[text.index("## Example") :]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README: no python block in the Example section"
    return match.group(1)


@pytest.fixture(autouse=True)
def _clean_config() -> Iterator[None]:
    yield
    pulumi.runtime.set_all_config({})


def test_readme_example_and_wired_program_pass_mypy_strict(tmp_path: Path) -> None:
    example = tmp_path / "readme_example.py"
    example.write_text(readme_example())
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(REPO / "pyproject.toml"),
         str(example), str(WIRED)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def _run_readme(config: dict[str, str]) -> tuple[MockEnv, list[pulumi.Output[Any]]]:
    env = install({**SECRET_CONFIG, **config})
    namespace: dict[str, Any] = {}
    exec(compile(readme_example(), "README.md", "exec"), namespace)
    components = [namespace["cluster"], namespace["job"]]
    return env, [c.urn for c in components] + [c.resource.urn for c in components]


@pytest.mark.parametrize("environment", [None, "dev", "staging"])
@pulumi.runtime.test
def test_readme_example_has_no_finding_at_any_severity(environment: str | None) -> pulumi.Output[Any]:
    config = {"kuberay:environment": environment} if environment else {}
    env, urns = _run_readme(config)

    def check(*_: Any) -> None:
        assert env.log.warnings == []
        manifests = [r.inputs for r in env.created() if r.typ.startswith(RAY)]
        assert {m["kind"] for m in manifests} == {"RayCluster", "RayJob"}
        for manifest in manifests:
            assert rules.check(manifest, environment=environment) == [], manifest["kind"]

    return after_settling(check, *urns)


@pulumi.runtime.test
def test_readme_example_still_renders_what_ray_needs() -> pulumi.Output[Any]:
    env, urns = _run_readme({})

    def check(*_: Any) -> None:
        (cluster,) = [r.inputs for r in env.ray("RayCluster")]
        spec = cluster["spec"]
        head = spec["headGroupSpec"]["template"]["spec"]
        cpu, gpu = (g["template"]["spec"] for g in spec["workerGroupSpecs"])
        for pod in (head, cpu, gpu):
            context = pod["containers"][0]["securityContext"]
            assert context == HARDENED_SECURITY_CONTEXT
            assert "readOnlyRootFilesystem" not in context  # /tmp/ray stays writable
        assert spec["autoscalerOptions"]["securityContext"] == HARDENED_SECURITY_CONTEXT
        # The object store: /dev/shm as a memory volume of the size asked for (KubeRay adds one otherwise).
        assert cpu["volumes"] == [{"name": "shared-mem", "emptyDir": {"medium": "Memory", "sizeLimit": "4Gi"}}]
        assert cpu["containers"][0]["volumeMounts"] == [{"name": "shared-mem", "mountPath": "/dev/shm"}]
        assert spec["workerGroupSpecs"][0]["rayStartParams"] == {"object-store-memory": str(4 * 2**30)}
        assert gpu["containers"][0]["env"] == [
            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token"}}}
        ]
        assert cluster["metadata"]["namespace"] == "ray"
        (job,) = [r.inputs for r in env.ray("RayJob")]
        submitter = job["spec"]["submitterPodTemplate"]["spec"]["containers"][0]
        assert submitter["securityContext"] == HARDENED_SECURITY_CONTEXT
        assert submitter["image"] == "rayproject/ray:2.52.0"

    return after_settling(check, *urns)


@pulumi.runtime.test
def test_wired_program_runs_under_mocks_with_every_kind() -> pulumi.Output[Any]:
    env = install(SECRET_CONFIG, project="kuberay-wired")
    namespace = runpy.run_path(str(WIRED), run_name="__main__")
    components = [namespace[n] for n in ("cluster", "job", "service", "cronjob")]

    def check(*_: Any) -> None:
        kinds = {r.typ.removeprefix(RAY): r.inputs for r in env.created() if r.typ.startswith(RAY)}
        assert set(kinds) == {"RayCluster", "RayJob", "RayService", "RayCronJob"}
        for kind, manifest in kinds.items():
            assert manifest["metadata"]["namespace"] == "ray-wired", kind
            deps = set(env.request(RAY + kind, manifest["metadata"]["name"]).dependencies)
            assert any(d.endswith("kubernetes:core/v1:Namespace::ray") for d in deps), (kind, deps)
        worker = kinds["RayCluster"]["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
        assert worker["envFrom"] == [{"configMapRef": {"name": "ray-env"}}]
        assert kinds["RayCluster"]["metadata"]["labels"] == {"team": "ray-wired"}
        assert kinds["RayJob"]["spec"]["clusterSelector"] == {"ray.io/cluster": "shared"}
        assert env.log.warnings == []  # no finding at all, and so no secret in a message

    return after_settling(check, *[c.urn for c in components], *[c.resource.urn for c in components])
