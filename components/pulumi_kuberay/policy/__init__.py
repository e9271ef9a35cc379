"""The CrossGuard policy pack, shipped inside the package.

The pack's code is ``policy/_pack.py`` (one policy per catalogue rule); a pack *directory* is only
the three files the Pulumi engine looks for, and this module writes them. Two ways to run it, both needing only
the package with its ``policy`` extra (docs/policy-pack.md: from the git repository or a release's wheel, it is
not on PyPI) in the Python environment that is first on ``PATH`` (the engine starts the
pack with the ``python`` it finds there, as for any Python policy pack without a ``virtualenv`` option)::

    # the pack directory inside the installed package
    pulumi preview --policy-pack "$(python -m pulumi_kuberay.policy --path)"

    # or a pack directory of your own (PulumiPolicy.yaml, __main__.py, requirements.txt pinned to this version),
    # e.g. to commit next to your stacks or to `pulumi policy publish`
    kuberay-policy-pack ./kuberay-policies
    pulumi preview --policy-pack ./kuberay-policies --policy-pack-config policy.prod.json

``kuberay-policy-pack DIR --virtualenv venv`` adds Pulumi's ``toolchain: pip`` / ``virtualenv: venv`` options, so
``pulumi install`` inside DIR makes that venv from requirements.txt (the layout ``pulumi policy new`` creates).

Importing this module does not import pulumi-policy; :func:`run` does.
"""

from __future__ import annotations

from typing import Any

from ._layout import PACK_DIR, PACK_NAME, pack_files, pack_path, write_pack


def run() -> None:
    """Run the pack: what a pack directory's ``__main__.py`` calls (imports pulumi-policy, this module does not)."""
    from ._pack import run as run_pack

    run_pack()


def policy_config(environment: str) -> dict[str, Any]:
    """The policy config file for ``environment`` (written to stacks/policy.<env>.json by scripts/gen-policy-config)."""
    from ._pack import policy_config as config

    return config(environment)


__all__ = ["PACK_DIR", "PACK_NAME", "pack_files", "pack_path", "policy_config", "run", "write_pack"]
