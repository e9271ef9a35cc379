"""The resources KubeRay reads from a Ray container's limits: GPUs and the other accelerators it maps to Ray.

A leaf: plain Python, imports nothing of this package (tests/test_public_seams.py). The model, the rules, the change
plan and the preflight decide "is this a GPU" with :func:`is_gpu_resource_key`, and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

#: NVIDIA's device plugin's resource: the GPU a group asks for when it names none.
NVIDIA_GPU: Final = "nvidia.com/gpu"
#: GKE's TPU resource, and AWS Neuron's cores (``customAcceleratorToRayResourceMap``).
GOOGLE_TPU: Final = "google.com/tpu"
AWS_NEURON_CORE: Final = "aws.amazon.com/neuroncore"
#: ``customAcceleratorToRayResourceMap``: container resource -> Ray resource.
CUSTOM_ACCELERATORS: Final[Mapping[str, str]] = {AWS_NEURON_CORE: "neuron_cores", GOOGLE_TPU: "TPU"}
#: A ResourceQuota's key for the GPUs requested in a namespace.
NVIDIA_GPU_QUOTA: Final = f"requests.{NVIDIA_GPU}"

#: NVIDIA's Multi-Instance GPU slices (``nvidia.com/mig-2g.32gb``).
_MIG: Final = re.compile(r"nvidia\.com/mig-\d+g\.\d+gb$")


def is_gpu_resource_key(key: str) -> bool:
    """``utils.IsGPUResourceKey``: a name ending in ``gpu`` (``nvidia.com/gpu``, ``amd.com/gpu``; case-sensitive,
    as the operator compares) or an NVIDIA MIG slice (``nvidia.com/mig-1g.5gb``)."""
    return key.endswith("gpu") or _MIG.search(key) is not None


__all__ = [
    "AWS_NEURON_CORE",
    "CUSTOM_ACCELERATORS",
    "GOOGLE_TPU",
    "NVIDIA_GPU",
    "NVIDIA_GPU_QUOTA",
    "is_gpu_resource_key",
]
