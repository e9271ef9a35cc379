"""The Ray venv an image stands for: ``rayproject/ray:2.52.0`` -> ``<venvs>/ray-2.52.0``."""

from __future__ import annotations

import re
from pathlib import Path

# rayproject/ray, ray-ml, ray-llm (any registry prefix); a tag of X.Y.Z with the usual suffixes
_RAY_IMAGE = re.compile(
    r"^(?:[^/]+/)*(?:ray|ray-ml|ray-llm):(?P<version>\d+\.\d+\.\d+)(?P<suffix>(?:-py3\d+|-cpu|-gpu|-cu\d+|-aarch64)*)$"
)


class ImageError(Exception):
    """This agent cannot run the image: the message goes to the container's waiting state."""


def ray_version(image: str) -> str | None:
    m = _RAY_IMAGE.match(image.split("@", 1)[0])
    return m.group("version") if m else None


def venv_for(image: str, venvs: Path) -> Path:
    """The venv whose bin/ is put first on PATH for ``image``; ImageError when there is none."""
    version = ray_version(image)
    if version is None:
        raise ImageError(
            f"image {image!r} is not a Ray image with a release tag (rayproject/ray:X.Y.Z[-pyNN][-cpu|-gpu]): pod-runner runs no container images, only Ray from a venv chosen by the tag"
        )
    venv = venvs / f"ray-{version}"
    if not (venv / "bin" / "ray").exists():
        raise ImageError(
            f"image {image!r}: no venv with ray {version} in {venvs} (scripts/setup-serve-venvs {version})"
        )
    return venv
