"""``kuberay-lint``: the rule catalogue over YAML/JSON files and Helm charts, as text, JSON or SARIF. Never imports
pulumi.

Usage (every flag, the config file and the exit codes: docs/linting.md)::

    kuberay-lint manifests/ --environment prod             # text, grouped per object; exit 1 on high+
    kuberay-lint manifests/ --format concise                # path:line:col: severity rule-id message
    kuberay-lint charts/ray-cluster --helm-values prod.yaml  # render the chart with helm, then lint
    kuberay-lint . --write-baseline                         # adopt on an existing repo ...
    kuberay-lint . --baseline .kuberay-lint-baseline.json   # ... then fail only on new findings
    kubectl get rayjobs -o yaml | kuberay-lint -
    kuberay-lint --list-rules; kuberay-lint --explain-rule pod-security-restricted
    kuberay-lint --diff old/ new/                           # what KubeRay will do with each changed object
    kuberay-lint --cluster --context prod manifests/         # also: will it schedule there? (the preflight rules)
    kuberay-lint --live --all-namespaces                     # audit the Ray objects already in the cluster

Settings also come from ``.kuberay-lint.yaml`` or ``[tool.kuberay-lint]`` in pyproject.toml
(:mod:`pulumi_kuberay.cli._lint_config`); flags override them. ``--diff`` / ``--diff-git`` print the change plan
of every Ray object that changed (:mod:`pulumi_kuberay.plan`) with the change rules' findings; ``--cluster`` adds
the preflight rules' findings, ``--live`` lints the Ray objects in the cluster.

Exit codes: 0 no (new) finding at or above ``--fail-on``; 1 some; 2 unusable input or settings, one line per
problem on stderr.
"""

from __future__ import annotations

# Only the standard library and the kuberay/ leaf at import: `kuberay-lint --help` and `--version` load no model and
# no rule (held by tests/test_lint_startup.py). Everything else is imported by `main` once it knows there is work to do.
import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pulumi_kuberay.kuberay.kubernetes import POD_SECURITY_PROFILES

if TYPE_CHECKING:
    from pulumi_kuberay.cli._lint_findings import LocatedFinding, RayDoc, lint_documents

__all__ = ["LocatedFinding", "RayDoc", "lint_documents", "main"]

TOOL_NAME = "kuberay-lint"
DEFAULT_BASELINE = ".kuberay-lint-baseline.json"
#: The one line printed when no argument is given (and the usage of --help and of a bad flag).
USAGE = "kuberay-lint [options] PATH...  (files, folders, Helm charts; '-' reads stdin; --help lists the options)"
FORMATS = ("text", "concise", "github", "json", "sarif")
#: The choices of --fail-on and --environment, as literals (rules._engine.SEVERITY_ORDER and ENVIRONMENTS, which a
#: test holds them to): importing the catalogue's engine to print the help would load the rules package.
SEVERITIES = ("low", "medium", "high", "critical")
ENVIRONMENTS = ("dev", "staging", "prod")
#: The environment variable naming the helm binary (``_helm.HELM_ENV``; a test holds them equal).
HELM_ENV = "KUBERAY_LINT_HELM"
_LAZY = {"LocatedFinding", "RayDoc", "lint_documents"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from pulumi_kuberay.cli import _lint_findings

        return getattr(_lint_findings, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=TOOL_NAME,
        usage=USAGE,
        description="Check KubeRay manifests and Helm charts against the pulumi-kuberay rules (differentially tested against KubeRay's own Go validation code and the API server's CRD validation).",
        epilog=(
            "config: .kuberay-lint.yaml or [tool.kuberay-lint] in pyproject.toml, found from the working directory upwards. exit status: 0 clean, 1 findings at/above --fail-on, 2 unusable input or settings."
        ),
    )
    p.add_argument(
        "paths", nargs="*", metavar="PATH", help="YAML/JSON files, folders or Helm chart folders; '-' reads stdin"
    )
    p.add_argument("--version", action="store_true", help="print the version and exit")
    p.add_argument("--list-rules", action="store_true", help="list every rule (id, severity, category, title)")
    p.add_argument("--explain-rule", metavar="ID", help="print a rule's rationale, fix and examples")
    diff = p.add_argument_group("change plan")
    diff.add_argument(
        "--diff",
        nargs=2,
        metavar=("OLD", "NEW"),
        help="the change plan of every Ray object that differs between two files or folders, with the change rules' findings and the catalogue's findings the change brings in",
    )
    diff.add_argument(
        "--diff-git",
        metavar="REV",
        help="as --diff, the PATHs (default .) of the working tree against git revision REV (e.g. origin/main)",
    )
    diff.add_argument(
        "--change-rules-only",
        action="store_true",
        help="--diff/--diff-git: only the change rules' findings (not the catalogue's findings the change brings in)",
    )
    live = p.add_argument_group("the target cluster (read-only: the ClusterRole of docs/preflight.md)")
    live.add_argument(
        "--cluster",
        action="store_true",
        help="also check the PATHs against the cluster: can each group's Pods be placed, the quota, Kueue, every object they name (the preflight rules)",
    )
    live.add_argument(
        "--live",
        action="store_true",
        help="audit the Ray objects already in the cluster: the catalogue, the preflight and the status diagnosis (no PATH)",
    )
    live.add_argument("--kubeconfig", metavar="FILE", help="the cluster's kubeconfig (default $KUBECONFIG, ~/.kube/config)")
    live.add_argument("--context", metavar="NAME", help="the kubeconfig context (default its current-context)")
    live.add_argument("--namespace", "-n", metavar="NS", help="--live: this namespace (default: default)")
    live.add_argument("--all-namespaces", "-A", action="store_true", help="--live: every namespace")
    live.add_argument(
        "--cluster-timeout", type=float, default=20.0, metavar="SECONDS", help="give up reading the cluster after this"
    )
    out = p.add_argument_group("output")
    out.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text: grouped per object (default); concise: one line per finding, path:line:col: severity rule-id field: message; github: GitHub Actions workflow annotations; json; sarif (code scanning)",
    )
    out.add_argument("--show-fixes", action="store_true", help="text: the fix under each finding")
    out.add_argument(
        "--compact",
        action="store_true",
        help="text: one line per finding, each message's first clause whole (what is wrong, with the values it names) and the explanation after it cut (default: whole messages, wrapped to the terminal's width; not wrapped when not a terminal unless $COLUMNS is set)",
    )
    out.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="auto: only on a terminal")
    out.add_argument(
        "--no-collapse",
        action="store_true",
        help="one finding per container instead of one per rule and object listing the containers",
    )
    out.add_argument(
        "--sarif-root", metavar="DIR", help="SARIF: base directory of relative URIs (default: config dir or .)"
    )
    sel = p.add_argument_group("rules")
    sel.add_argument("--fail-on", choices=SEVERITIES, default=None, help="exit 1 at or above (default high)")
    sel.add_argument("--select", metavar="RULES", help="only these: rule ids, globs (rayjob-*), categories, ALL")
    sel.add_argument("--ignore", metavar="RULES", help="never these (added to the config's ignore)")
    sel.add_argument("--exclude", metavar="GLOB", action="append", default=[], help="skip matching paths")
    sel.add_argument("--no-stack-rules", action="store_true", help="skip rules across documents")
    cfg = p.add_argument_group("settings")
    cfg.add_argument("--config", metavar="FILE", help="use this config file (.kuberay-lint.yaml or pyproject.toml)")
    cfg.add_argument("--no-config", action="store_true", help="ignore config files")
    cfg.add_argument("--kuberay-version", default=None, help="target operator version (default 1.7.0)")
    cfg.add_argument("--feature-gates", default=None, metavar="A=true,B=false", help="operator gates over the defaults")
    cfg.add_argument("--environment", choices=ENVIRONMENTS, default=None)
    cfg.add_argument("--allowed-registries", default=None, metavar="R1,R2", help="image registry prefixes allowed")
    cfg.add_argument("--gpu-budget", type=int, default=None, help="GPUs all given clusters may claim at maxReplicas")
    cfg.add_argument(
        "--pod-security-profile",
        choices=POD_SECURITY_PROFILES,
        default=None,
        help="the Pod Security profile your namespaces enforce: its gaps become critical (default: none enforced)",
    )
    cfg.add_argument("--kueue-version", default=None, help="the Kueue release of the cluster (default: the newest)")
    cfg.add_argument(
        "--operator-values",
        default=None,
        metavar="FILE",
        help="kuberay-operator chart values: judge the objects against that operator (version, gates, watched namespaces) and check its setup; also found among the inputs, as is a rendered operator Deployment",
    )
    cfg.add_argument(
        "--webhooks",
        action="store_true",
        help="the operator runs its validating webhooks (ENABLE_WEBHOOKS=true): what only they refuse is critical",
    )
    base = p.add_argument_group("baseline")
    base.add_argument(
        "--baseline", metavar="FILE", help="hide the findings recorded in FILE; fail only on new ones (never read as an input)"
    )
    base.add_argument(
        "--write-baseline",
        action="store_true",
        help=f"record the current findings (--baseline FILE or {DEFAULT_BASELINE})",
    )
    helm = p.add_argument_group("helm")
    helm.add_argument("--helm-values", metavar="FILE", action="append", default=[], help="values file for the charts")
    helm.add_argument(
        "--helm-binary", metavar="PATH", help=f"helm to render charts with (default ${HELM_ENV}, PATH)"
    )
    helm.add_argument("--helm-namespace", metavar="NS", help="namespace for helm template")
    adm = p.add_argument_group("admission policies (the rules the API server can run itself)")
    adm.add_argument(
        "--emit-admission-policies",
        action="store_true",
        help="print the ValidatingAdmissionPolicies and their bindings as YAML (kubectl apply -f -) and exit: with --environment, bound in every namespace with that environment's actions; without, one binding per environment on the namespaces labelled pulumi-kuberay.io/environment=<env>",
    )
    adm.add_argument(
        "--admission-mode",
        choices=("enforce", "warn", "audit"),
        default="enforce",
        help="enforce: the policy pack's levels (mandatory: Deny, advisory: Warn); warn: only warn; audit: only audit",
    )
    adm.add_argument(
        "--policy-config",
        metavar="FILE",
        help="levels from a policy pack config file (stacks/policy.<env>.json) over the defaults; needs --environment",
    )
    return p


DISTRIBUTION = "pulumi-kuberay"


def package_version() -> str:
    """The installed distribution's version (``0+unknown`` in a source tree without an install)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.version:
        print(f"{TOOL_NAME} {package_version()} (KubeRay 1.7.0 catalogue)")
        return 0
    if args.diff and args.diff_git:
        print(f"{TOOL_NAME}: error: --diff and --diff-git: give one", file=sys.stderr)
        return 2
    if args.emit_admission_policies:
        from pulumi_kuberay.cli import _admission

        return _admission.emit(args)
    if not (args.paths or args.list_rules or args.explain_rule or args.diff or args.diff_git or args.live):
        parser.print_usage(sys.stderr)  # one line: USAGE
        return 2
    from pulumi_kuberay.cli import _lint_run

    try:
        return _lint_run.run_or_explain(args)
    except BrokenPipeError:
        # The reader left (`kuberay-lint . | head`): no traceback; stdout to /dev/null so that the interpreter's
        # own flush at exit does not raise again (the recipe of the signal module's documentation).
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
