"""The oracle tier: every test under tests/oracle is marked ``oracle`` and runs once per oracle (operator version).

The oracles are scripts/ensure-oracle's builds (``KUBERAY_ORACLE_ENTRIES``, the default judge first: v1.7.0, then
the newest v1.6 patch; the deep run adds v1.5), each with its own CRDs and gate defaults, then the recorded older
versions none of them is (``_recorded.RECORDED``, judged from tests/oracle/recorded: CI builds only v1.7.0); a
test's id names the version (``test_every_upstream_sample[v1.7.0]``). Without any (no ``KUBERAY_ORACLE*`` and no
cached build) the tier is skipped with a message; in CI (``PULUMI_KUBERAY_REQUIRE_ORACLE=1``) that is a failure
instead, unless ``scripts/test`` found no Go to build it (``PULUMI_KUBERAY_ORACLE=skipped``, it then printed a
SKIPPED line).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ._oracle import Oracle, find_oracles

ORACLE_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if ORACLE_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.oracle)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "oracle" in metafunc.fixturenames:
        oracles = find_oracles()
        params: list[Oracle | None] = list(oracles) or [None]
        ids = [o.operator_version for o in oracles] or ["no-oracle"]
        metafunc.parametrize("oracle", params, ids=ids, indirect=True, scope="session")


@pytest.fixture(scope="session")
def oracle(request: pytest.FixtureRequest) -> Oracle:
    found: Oracle | None = request.param
    if found is None:
        message = "oracle tier skipped: no kuberay-oracle (run scripts/ensure-oracle, or set KUBERAY_ORACLE*)"
        required = os.environ.get("PULUMI_KUBERAY_REQUIRE_ORACLE") == "1"
        if required and os.environ.get("PULUMI_KUBERAY_ORACLE") != "skipped":
            pytest.fail(message.replace("skipped", "required in CI but missing"))
        pytest.skip(message)
    return found
