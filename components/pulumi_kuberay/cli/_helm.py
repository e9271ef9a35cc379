"""Helm charts for ``kuberay-lint``: render a chart directory with a real ``helm template``, then lint the output.

The renderer is the ``helm`` (v3) binary: ``--helm-binary PATH``, else ``$KUBERAY_LINT_HELM``, else ``helm`` on
PATH. Without one, linting a chart is an error that says how to get one (no half-rendering of Go templates here).
Each rendered document is attributed to its template (``# Source:`` comment), e.g.
``charts/ray-cluster/templates/raycluster-cluster.yaml``; its line numbers are those of the rendered output,
which do not exist in the template, so findings on charts carry no line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pulumi_kuberay.cli import _io

HELM_ENV = "KUBERAY_LINT_HELM"
RELEASE_NAME = "kuberay-lint"
TIMEOUT_SECONDS = 120
INSTALL_HINT = (
    f"install Helm 3 (https://helm.sh/docs/intro/install/), or build it from the Go module proxy: `go install helm.sh/helm/v3/cmd/helm@latest` (the repository's scripts/ensure-helm does that with a cache), then put it on PATH, set {HELM_ENV} or pass --helm-binary"
)


class HelmError(ValueError):
    """Helm is missing or failed; the message says which chart and how to fix it."""


@dataclass(frozen=True)
class RenderedTemplate:
    """The documents helm rendered from one template file of a chart."""

    template: str  # path of the template file, as the user would open it
    text: str


def is_chart(path: Path) -> bool:
    return path.is_dir() and (path / "Chart.yaml").is_file()


def find_helm(explicit: str | None) -> str:
    """The helm binary to use; HelmError naming every place looked at when there is none."""
    if explicit:
        resolved = shutil.which(explicit) if os.sep not in explicit else explicit
        if not resolved or not os.access(resolved, os.X_OK):
            raise HelmError(f"--helm-binary {explicit}: not an executable file")
        return resolved
    from_env = os.environ.get(HELM_ENV)
    if from_env:
        if not os.access(from_env, os.X_OK):
            raise HelmError(f"${HELM_ENV}={from_env}: not an executable file")
        return from_env
    on_path = shutil.which("helm")
    if on_path:
        return on_path
    raise HelmError(
        f"rendering a Helm chart needs `helm`, and none was found ({HELM_ENV} unset, not on PATH): " + INSTALL_HINT
    )


def render_chart(
    helm: str, chart: Path, values: Sequence[Path] = (), *, namespace: str | None = None
) -> list[RenderedTemplate]:
    """``helm template`` of ``chart`` with ``values`` files, split per template file."""
    for value_file in values:
        if not value_file.is_file():
            raise HelmError(f"{value_file}: Helm values file not found")
    command = [helm, "template", RELEASE_NAME, str(chart)]
    for value_file in values:
        command += ["--values", str(value_file)]
    if namespace:
        command += ["--namespace", namespace]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False)
    except OSError as exc:
        raise HelmError(f"{chart}: cannot run {helm}: {exc.strerror or exc}") from None
    except subprocess.TimeoutExpired:
        raise HelmError(f"{chart}: helm template did not finish in {TIMEOUT_SECONDS}s") from None
    if proc.returncode != 0:
        detail = " ".join(proc.stderr.split())[:800] or f"exit {proc.returncode}"
        raise HelmError(f"{chart}: helm template failed: {detail}")
    if not proc.stdout.strip():
        raise HelmError(f"{chart}: helm template rendered nothing (check the values)")
    return split_rendered(proc.stdout, chart)


def split_rendered(text: str, chart: Path) -> list[RenderedTemplate]:
    """Group ``helm template`` output by its ``# Source: <chart>/<file>`` comments."""
    out: dict[str, list[str]] = {}
    current = str(chart)
    for chunk in text.split("\n---"):
        body = chunk.lstrip("-\n")
        for line in body.splitlines():
            if line.startswith("# Source: "):
                source = line[len("# Source: ") :].strip()
                _, _, inside = source.partition("/")
                current = str(chart / inside) if inside else str(chart)
                break
        out.setdefault(current, []).append(body)
    return [RenderedTemplate(template, "\n---\n".join(parts)) for template, parts in out.items()]


def chart_sources(helm: str, chart: Path, values: Sequence[Path], namespace: str | None) -> list[_io.Source]:
    """The rendered chart as sources named after its templates."""
    sources = []
    for rendered in render_chart(helm, chart, values, namespace=namespace):
        documents = _io.parse_documents(rendered.text, rendered.template, flatten_lists=True, with_path_lines=True)
        sources.append(_io.Source(rendered.template, tuple(documents)))
    return sources
