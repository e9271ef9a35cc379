"""The component package: ``RayCluster``, ``RayJob``, ``RayService``, ``RayCronJob`` and ``KubeRayOperator`` for
every Pulumi language (YAML, TypeScript, Go, C#, ...), served by a Python component provider.

The provider constructs the same Python components a Python program uses (one implementation): the same
validation, rule catalogue, warnings and outputs. The package schema is generated from the models and the
components (:mod:`._schema`); ``pulumi package get-schema <repo>/provider`` prints it. See
docs/component-package.md.

``main()`` is the provider's entry point (``provider/__main__.py`` of the repository, which its
``PulumiPlugin.yaml`` runs with the repository's virtualenv); ``python -m pulumi_kuberay.provider --schema``
prints the schema without an engine.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str] | None = None) -> None:
    """Serve the provider to the engine (``argv``: the engine's arguments), or print the schema (``--schema``)."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--schema"]:
        from pulumi_kuberay.provider._schema import package_schema

        json.dump(package_schema(), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    from pulumi_kuberay.provider._provider import KubeRayProvider, serve

    serve(KubeRayProvider(), args)


__all__ = ["main"]
