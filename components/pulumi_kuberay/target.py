"""Re-export of :mod:`pulumi_kuberay.rules.target` (the Target lives with the rules; import it from there)."""

from pulumi_kuberay.rules.target import (
    CONFIG_NAMESPACE,
    ENVIRONMENTS,
    Target,
    TargetError,
    parse_feature_gates,
    parse_version,
    target_from_stack_config,
)

__all__ = [
    "CONFIG_NAMESPACE",
    "ENVIRONMENTS",
    "Target",
    "TargetError",
    "parse_feature_gates",
    "parse_version",
    "target_from_stack_config",
]
