"""The change reference (docs/changes.md), rendered from the change table itself (``plan._cases``): for every
field changed x upgrade strategy x gate or setting, the action KubeRay takes, the operator version the row is
checked at, and what the local control plane shows where kwok can show it. ``scripts/gen-change-docs`` writes
it; a test keeps it current.
"""

from __future__ import annotations

from pulumi_kuberay.plan import plan_change
from pulumi_kuberay.plan._cases import CASES, Case

KINDS = ("RayCluster", "RayService", "RayJob", "RayCronJob")  # the order of docs/changes.md

INTRO = """\
# What KubeRay does with each change

Generated from the change table (`pulumi_kuberay.plan._cases`) by `scripts/gen-change-docs`; do not edit.

At `pulumi preview` every component prints the plan for its object: the action below, why (the column "the plan
says"), the changed fields the operator reads, what a created cluster needs (`create`, `resume`) and for
`new-cluster` / `incremental` what the second cluster needs while both run. At
`pulumi up` the wait follows the plan (new Pods, the traffic switch, the rerun) and the `last_change` output
records it. The plan is made against the live object when the cluster can be read (the head Pods' and the
active cluster's hash annotations, the operator version that wrote them), else against the last applied
manifest.

The change rules judge the plan (`change-not-reaching-pods`, `rayservice-cluster-change-ignored`,
`rayservice-replicas-change-ignored`, `rollout-gpu-budget-exceeded`: scope `change` in [rules.md](rules.md)):
warnings on the component, a critical finding fails the step; `kuberay-lint --diff` reports the same findings.
They are silenced as every rule, on the new manifest and with a reason
(`suppress.pulumi-kuberay.io/<rule-id>: "why"`); an empty reason, which used to silence a change rule, is ignored.
"""
_HELD_AND_ACTIONS = """
Every row is held three ways:

- the plan itself (`tests/test_plan.py`);
- the operator's own decision functions of the row's version, compiled into the oracle
  (`shouldRecreatePodsForUpgrade`, `shouldUpdateCluster`, `shouldPrepareNewCluster`,
  `checkIfNeedSubmitServeApplications`, `GenerateHashWithoutReplicasAndWorkersToDelete`;
  `tests/oracle/test_plan_differential.py`);
- where the last column says what it shows, the real operator on the local control plane
  (`tests/cluster/test_change_plan.py`; kwok Pods never run Ray, so a RayService never serves there: its
  `new-cluster` row is shown with real Ray in `tests/realray/test_rayservice.py`, a NewCluster upgrade through
  `pulumi up` under load, with the traffic switch and the old cluster's removal).

Actions: `none` (nothing reaches the running Pods), `recreate-pods` (every Pod deleted and recreated),
`update-in-place` (the running cluster changes without a restart: Pods added or removed, a worker group added,
the autoscaler's min/maxReplicas bounds), `serve-update-in-place` (only the Serve applications
are redeployed), `new-cluster` (a second cluster, traffic switches when it serves, the old one is deleted),
`incremental` (as new-cluster, traffic moved in steps), `rerun-job` (the job runs again from the start),
`next-runs-only` (later runs take the new spec), `suspend` / `resume`.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _version(case: Case) -> str:
    return "v" + ".".join(str(part) for part in case.version)


def _setting(case: Case) -> str:
    parts = [] if case.setting in ("", "-") else [case.setting]
    # A gate the setting already names (``RayCronJob on``) is not said twice.
    parts += [f"gate {gate}={'on' if on else 'off'}" for gate, on in sorted(case.gates.items()) if gate not in case.setting]
    if case.mode == "apply":
        parts.append("edited in place (kubectl apply, GitOps)")
    return "; ".join(parts) or "-"


def render() -> str:
    """docs/changes.md: one table per kind, a row per case."""
    out = [INTRO + _HELD_AND_ACTIONS]
    for kind in KINDS:
        rows = [c for c in CASES if c.kind == kind]
        if not rows:
            continue
        out.append(f"\n## {kind}\n")
        out.append(
            "| change | upgrade strategy | gate / setting | action | the plan says | checked at | local control plane | row |"
        )
        out.append("|---|---|---|---|---|---|---|---|")
        for case in rows:
            cells = [
                case.change,
                case.strategy,
                _setting(case),
                f"`{case.expected}`",
                plan_change(case.old(), case.new(), case.operator(), case.live(), mode=case.mode).why,
                _version(case),
                case.kwok or "-",
                f"`{case.id}`",
            ]
            out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(out) + "\n"
