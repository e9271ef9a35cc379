"""``kuberay-lint --emit-admission-policies``: the catalogue's ValidatingAdmissionPolicies as YAML on stdout."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

TOOL_NAME = "kuberay-lint"


def _levels(path: str) -> dict[str, Any]:
    """A policy pack config file: rule id -> level (or ``{"enforcementLevel": ...}``)."""
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object of policy name -> level")
    return data


def emit(args: argparse.Namespace) -> int:
    """Print the policies and bindings (exit 0), or one line on stderr (exit 2)."""
    from pulumi_kuberay import admission

    levels = None
    if args.policy_config:
        if args.environment is None:
            print(f"{TOOL_NAME}: error: --policy-config needs --environment (the file holds one environment's levels)", file=sys.stderr)
            return 2
        try:
            levels = _levels(args.policy_config)
        except (OSError, ValueError) as exc:
            print(f"{TOOL_NAME}: error: --policy-config: {exc}", file=sys.stderr)
            return 2
    docs = admission.admission_policies(args.environment, mode=args.admission_mode, levels=levels)
    sys.stdout.write(f"# {sum(len(admission.policy_rules(d)) for d in docs)} rules of the pulumi-kuberay catalogue in the API server (KubeRay {admission.TARGET_VERSION}); kuberay-lint and the policy pack run the rest\n")
    sys.stdout.write(admission.to_yaml(docs))
    return 0
