"""The oracle tier: every test under tests/oracle is marked ``oracle`` and needs the oracle binary.

Without one (no ``KUBERAY_ORACLE`` and no cached ``scripts/ensure-oracle`` build) the tier is skipped with a
message; in CI (``PULUMI_KUBERAY_REQUIRE_ORACLE=1``) that is a failure instead, unless ``scripts/test`` found no
Go to build it (``PULUMI_KUBERAY_ORACLE=skipped``, it then printed a SKIPPED line).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ._oracle import Oracle, find_oracle

ORACLE_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if ORACLE_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.oracle)


@pytest.fixture(scope="session")
def oracle() -> Oracle:
    found = find_oracle()
    if found is None:
        message = "oracle tier skipped: no kuberay-oracle (run scripts/ensure-oracle, or set KUBERAY_ORACLE*)"
        required = os.environ.get("PULUMI_KUBERAY_REQUIRE_ORACLE") == "1"
        if required and os.environ.get("PULUMI_KUBERAY_ORACLE") != "skipped":
            pytest.fail(message.replace("skipped", "required in CI but missing"))
        pytest.skip(message)
    return found
