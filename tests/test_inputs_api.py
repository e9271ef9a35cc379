"""The flat namespace carries every type a spec is written with (the lazy map and the type-checking imports
are kept in sync by ``tests/test_exports.py``)."""

from __future__ import annotations

import pulumi_kuberay


def test_the_types_a_spec_needs_are_exported() -> None:
    for name in ("Toleration", "SecurityContext", "Volume", "VolumeMount", "EnvFromSource", "Affinity",
                 "Container", "PodTemplateSpec", "SecretRef", "HARDENED_SECURITY_CONTEXT", "KUEUE_QUEUE_LABEL",
                 "RayJobSpec", "RayServiceSpec", "RayCronJobSpec", "ServeConfig", "In", "DeletionStrategy",
                 "AuthOptions", "NetworkPolicyOptions", "ServiceUpgradeStrategy"):
        assert name in pulumi_kuberay.__all__, name
