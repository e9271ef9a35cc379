"""Print, as JSON ``{stack: [manifest, ...]}``, the custom resources every named stack file declares.

The program (``__main__.py``) runs under the Pulumi mocks of the mock tier (``test_stacks_mock``): each
component's ``manifest`` is exactly what it registers (and what the provider sends or renders). Run as a
separate process so the mocks never touch the cluster tier's own process.

usage: python tests/cluster/_render_stacks.py STACK...
"""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path
from typing import Any

TESTS_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS_DIR))

from _pulumi_mocks import install  # noqa: E402
from test_stacks_mock import PROGRAM, stack_config  # noqa: E402


def render(stack: str) -> list[dict[str, Any]]:
    install(stack_config(stack), stack="mock")
    namespace = runpy.run_path(str(PROGRAM), run_name="__main__")
    return [c.manifest for by_name in namespace["COMPONENTS"].values() for c in by_name.values()]


if __name__ == "__main__":
    json.dump({stack: render(stack) for stack in sys.argv[1:]}, sys.stdout)
