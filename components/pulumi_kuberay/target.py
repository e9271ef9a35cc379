"""Re-export of :mod:`pulumi_kuberay.rules.target`: the Target lives with the rules; import it from there."""

from pulumi_kuberay.rules import target as _target
from pulumi_kuberay.rules.target import *  # noqa: F403

__all__ = _target.__all__
