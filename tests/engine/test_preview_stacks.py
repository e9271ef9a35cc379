"""``pulumi preview --json`` of every stack with the policy pack and that environment's policy config.

The plan must hold our components (``kuberay:index:*``) and, as their children, the ``ray.io/v1`` custom
resources the stack config declares. staging and prod have no ``render_dir``; the session ``project`` fixture
sets ``pulumi-kuberay:render_dir`` in the temporary copy so the preview needs no cluster.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.conftest import Workspace, policy_args

#: (type token, resource name) expected in each stack's plan.
EXPECTED: dict[str, set[tuple[str, str]]] = {
    "dev": {
        ("kuberay:index:KubeRayOperator", "kuberay"),
        ("kuberay:index:RayCluster", "dev"),
        ("kubernetes:ray.io/v1:RayCluster", "dev"),
        ("kuberay:index:RayJob", "hello"),
        ("kubernetes:ray.io/v1:RayJob", "hello"),
    },
    "staging": {
        ("kuberay:index:RayCluster", "shared"),
        ("kubernetes:ray.io/v1:RayCluster", "shared"),
    },
    "prod": {
        ("kuberay:index:KubeRayOperator", "kuberay"),
        ("kuberay:index:RayCluster", "shared"),
        ("kubernetes:ray.io/v1:RayCluster", "shared"),
        ("kuberay:index:RayService", "serve"),
        ("kubernetes:ray.io/v1:RayService", "serve"),
        ("kuberay:index:RayJob", "nightly-batch"),
        ("kubernetes:ray.io/v1:RayJob", "nightly-batch"),
    },
}


def _planned(plan: dict[str, Any]) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for step in plan["steps"]:
        urn: str = step["urn"]
        type_chain, name = urn.split("::")[-2:]
        out.add((type_chain.split("$")[-1], name))
    return out


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_preview_with_policy_pack(project: Workspace, stack: str) -> None:
    run = project.pulumi("preview", "--stack", stack, "--json", *policy_args(project.cwd, stack))
    assert run.returncode == 0, run.describe()
    plan = json.loads(run.stdout)
    planned = _planned(plan)

    missing = EXPECTED[stack] - planned
    assert not missing, f"not in the plan: {sorted(missing)}\nplanned: {sorted(planned)}"
    # Nothing Ray-ish beyond what the stack declares, and every step is a create on a fresh stack.
    ray_kinds = {item for item in planned if item[0].startswith(("kuberay:", "kubernetes:ray.io/"))}
    assert ray_kinds == EXPECTED[stack]
    assert {step["op"] for step in plan["steps"]} == {"create"}
    assert ("pulumi:providers:kubernetes", "k8s") in planned
    # The custom resources are children of our components (the URN's type chain names the component).
    for step in plan["steps"]:
        if ":ray.io/v1:" in step["urn"]:
            assert "kuberay:index:Ray" in step["urn"], step["urn"]
    assert plan["changeSummary"] == {"create": len(plan["steps"])}


#: The pack's line in the text output's "Policies:" section: passed without any finding. Every stack renders
#: hardened Ray containers (the components' secure defaults), so not even an advisory finding remains.
PACK_PASSED = "\u2705 kuberay-policies@"


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_policy_pack_runs_on_the_stack(project: Workspace, stack: str) -> None:
    """``--json`` output carries no policy results at all (pulumi 3.259: neither the JSON nor stderr lists
    violations, a mandatory one shows only as "preview failed"), so the pack's verdict is read from the text
    output: the pack was loaded and ran, with no finding at any level."""
    run = project.pulumi("preview", "--stack", stack, *policy_args(project.cwd, stack))
    assert run.returncode == 0, run.describe()
    assert "Loading policy packs...: done" in run.output, run.describe()
    assert PACK_PASSED in run.output, run.describe()
    assert "[mandatory]" not in run.output, run.describe()
    assert "[advisory]" not in run.output, run.describe()
