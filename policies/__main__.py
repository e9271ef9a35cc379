"""Entry point the Pulumi engine runs for this pack: it only assembles the PolicyPack."""

from kuberay_policies import PACK_NAME, build_policies, install_request_memo
from pulumi_policy import EnforcementLevel, PolicyPack

install_request_memo()
PolicyPack(
    name=PACK_NAME,
    policies=build_policies(),
    enforcement_level=EnforcementLevel.ADVISORY,
    description=(
        "KubeRay (ray.io/v1) rules from the pulumi-kuberay catalogue; "
        "levels per environment in stacks/policy.<env>.json"
    ),
)
