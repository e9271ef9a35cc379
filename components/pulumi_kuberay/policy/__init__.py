"""The CrossGuard policy pack, shipped inside the package.

The pack's code is :mod:`pulumi_kuberay.policy._pack` (one policy per catalogue rule); a pack *directory* is only
the three files the Pulumi engine looks for, and this module writes them. Two ways to run it, both needing only
``pip install 'pulumi-kuberay[policy]'`` in the Python environment that is first on ``PATH`` (the engine starts the
pack with the ``python`` it finds there, as for any Python policy pack without a ``virtualenv`` option)::

    # the pack directory inside the installed package
    pulumi preview --policy-pack "$(python -m pulumi_kuberay.policy --path)"

    # or a pack directory of your own (PulumiPolicy.yaml, __main__.py, requirements.txt pinned to this version),
    # e.g. to commit next to your stacks or to `pulumi policy publish`
    kuberay-policy-pack ./kuberay-policies
    pulumi preview --policy-pack ./kuberay-policies --policy-pack-config policy.prod.json

``kuberay-policy-pack DIR --virtualenv venv`` adds Pulumi's ``toolchain: pip`` / ``virtualenv: venv`` options, so
``pulumi install`` inside DIR makes that venv from requirements.txt (the layout ``pulumi policy new`` creates).

Importing this module does not import pulumi-policy; :func:`pulumi_kuberay.policy._pack.run` does.
"""

from __future__ import annotations

from ._layout import PACK_DIR, PACK_NAME, pack_files, pack_path, write_pack

__all__ = ["PACK_DIR", "PACK_NAME", "pack_files", "pack_path", "write_pack"]
