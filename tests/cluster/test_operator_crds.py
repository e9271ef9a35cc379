"""KubeRayOperator's CRDs in a real API server: a fresh install, the takeover and upgrade of older CRDs someone
else installed, a refused downgrade, and what ``pulumi destroy`` leaves behind.

The program is ``tests/engine/operator_program`` with ``crds: only``: nothing on the API server used here runs
controllers, so the chart's Deployment would never become ready; the CRDs are the point. That API server is a
further kube-apiserver on the control plane's etcd under a fresh ``--etcd-prefix`` per test (fixture
``crd_apiserver``), starting with no CRDs: changing the CRDs of the main API server would put other schemas
under the running v1.6.1 operator and under the other tests.

Everything asserted is read back from the API server (``kubectl get crd -o json --show-managed-fields``, a
server-side dry-run), not from Pulumi's state. The wall time of each pulumi command is printed, never asserted.

What the real API server showed: the first apply of a CRD (a fresh install, or taking over CRDs someone else
created) is a server-side apply by our field manager (``Apply`` in managedFields, forced); a later change of a
CRD already in the stack (version bump, allowed downgrade) is not: the Kubernetes provider replaces a CRD with a
PUT (pulumi-kubernetes ``updateResource``, its CRD case), recorded as an ``Update`` by our field manager, and
whatever another tool added to the CRD object is gone afterwards.

The field that tells the versions apart: RayCluster ``spec.tlsOptions`` (TLS between Ray nodes, new in the
v1.7.0 CRDs; the v1.6.1 schema has no such property, so a strict request with it fails there).
"""

from __future__ import annotations

import json
import random
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from engine.conftest import ENGINE_DIR, Run
from engine.test_operator_engine import chart_161, crds_161, reference_chart
from pulumi_kuberay.operator.crds import CRD_VERSION_LABEL, FIELD_MANAGER

from .conftest import ClusterStack, ExtraApiServer, LocalCluster, extra_apiserver, not_returned

CRD_NAMES = ("rayclusters.ray.io", "rayjobs.ray.io", "rayservices.ray.io", "raycronjobs.ray.io")
#: A property of the RayCluster spec that only the v1.7.0 CRDs have (see the module docstring).
NEW_FIELD = "tlsOptions"
RAY_NAMESPACE = "ray"
#: An annotation another tool puts on a CRD, under its own field manager.
OTHER_ANNOTATION = "example.com/audited"
OTHER_MANAGER = "another-tool"
#: An up/preview that sends the four CRDs (about 4 MB of schema): 20-45 s here, minutes on 2 busy cores.
LONG_TIMEOUT = 1500


@pytest.fixture
def crd_apiserver(local_cluster: LocalCluster, tmp_path: Path) -> Iterator[ExtraApiServer]:
    work = tmp_path / "crd-apiserver"
    work.mkdir()
    with extra_apiserver(local_cluster, work, f"/operator-crds-{random.randrange(16**8):08x}") as server:
        assert ray_crds(server) == {}, "a fresh etcd prefix should hold no ray.io CRDs"
        server.kubectl("create", "namespace", RAY_NAMESPACE)
        yield server


@pytest.fixture
def operator_program(tmp_path: Path) -> Path:
    """The engine tier's operator program, its virtualenv at ``.venv`` (make_stack links it there)."""
    program = tmp_path / "operator_program"
    shutil.copytree(ENGINE_DIR / "operator_program", program, ignore=shutil.ignore_patterns("__pycache__"))
    meta = yaml.safe_load((program / "Pulumi.yaml").read_text())
    meta["runtime"]["options"]["virtualenv"] = ".venv"
    (program / "Pulumi.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
    return program


def crds_only_config(server: ExtraApiServer, chart: Path, version: str, **extra: str) -> dict[str, str]:
    return {
        "op:kubeconfig": str(server.kubeconfig),
        "op:chart": str(chart),
        "op:version": version,
        "op:crds": "only",
        "op:cronjob": "false",
        "kuberay:version": version,
        **{f"op:{key}": value for key, value in extra.items()},
    }


def timed(what: str, command: Callable[[], Run]) -> Run:
    started = time.monotonic()
    run = command()
    print(f"[operator crds] {what}: {time.monotonic() - started:.1f} s (exit {run.returncode})")  # not asserted
    return run


def ray_crds(server: ExtraApiServer) -> dict[str, dict[str, Any]]:
    """The ray.io CRDs in ``server`` by name, with their managedFields."""
    listing = server.get_json("crd", "--show-managed-fields")
    return {c["metadata"]["name"]: c for c in listing["items"] if c["spec"]["group"] == "ray.io"}


def established(crd: dict[str, Any]) -> bool:
    conditions = (crd.get("status") or {}).get("conditions") or []  # null right after a create
    return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)


def spec_properties(crd: dict[str, Any]) -> set[str]:
    (v1,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    return set(v1["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"])


def owned_by_us(crd: dict[str, Any], operation: str) -> dict[str, Any]:
    """The fields our field manager owns through ``operation`` (``Apply``: server-side apply; ``Update``: a
    PUT or patch), its ``fieldsV1``; {} when none."""
    entries = [
        m
        for m in crd["metadata"].get("managedFields", [])
        if m["manager"] == FIELD_MANAGER and m["operation"] == operation
    ]
    assert len(entries) <= 1, entries
    return entries[0]["fieldsV1"] if entries else {}


def wait_established(server: ExtraApiServer, what: str) -> dict[str, dict[str, Any]]:
    def four_established() -> dict[str, dict[str, Any]] | None:
        found = ray_crds(server)
        return found if set(found) == set(CRD_NAMES) and all(map(established, found.values())) else None

    return server.wait_for(four_established, 60, f"{what}: established")


def uids(crds: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {name: crd["metadata"]["uid"] for name, crd in crds.items()}


def managers(crd: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(manager, operation, the spec fields it owns) per managedFields entry: for failure messages."""
    return [
        (m["manager"], m["operation"], sorted(m.get("fieldsV1", {}).get("f:spec", {})))
        for m in crd["metadata"].get("managedFields", [])
    ]


def assert_crds_at(
    server: ExtraApiServer, version: str, *, new_field: bool, operation: str
) -> dict[str, dict[str, Any]]:
    """The four CRDs exist, are established, carry ``version`` and the schema of that version, and our field
    manager owns the schema and the label through ``operation`` (see the module docstring)."""
    found = wait_established(server, f"the four ray.io CRDs at {version}")
    assert {name: c["metadata"]["labels"].get(CRD_VERSION_LABEL) for name, c in found.items()} == dict.fromkeys(
        CRD_NAMES, version
    )
    assert (NEW_FIELD in spec_properties(found["rayclusters.ray.io"])) is new_field
    for name, crd in found.items():
        ours = owned_by_us(crd, operation)
        # Our manager owns the schema (spec.versions) and the version label.
        assert "f:versions" in ours.get("f:spec", {}), (name, managers(crd))
        assert f"f:{CRD_VERSION_LABEL}" in ours.get("f:metadata", {}).get("f:labels", {}), name
    return found


def raycluster(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": name, "namespace": RAY_NAMESPACE},
        "spec": {
            "rayVersion": "2.52.0",
            "headGroupSpec": {
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.52.0"}]}}
            },
            **spec,
        },
    }


def raycluster_with_new_field() -> dict[str, Any]:
    return raycluster("tls", **{NEW_FIELD: {"enabled": True}})


def assert_new_field_unknown(server: ExtraApiServer) -> None:
    """The served RayCluster schema has no NEW_FIELD: a strict request using it is refused, naming it."""
    code, answer = server.dry_run_create(raycluster_with_new_field())
    assert code == 400 and f'unknown field "spec.{NEW_FIELD}"' in answer.get("message", ""), (code, answer)


def test_fresh_install_then_a_version_bump_then_destroy_keeps_the_crds(
    crd_apiserver: ExtraApiServer,
    make_stack: Callable[..., ClusterStack],
    operator_program: Path,
    tmp_path: Path,
) -> None:
    stack = make_stack(
        crds_only_config(crd_apiserver, chart_161(tmp_path), "1.6.1"), namespace=RAY_NAMESPACE, program=operator_program
    )
    up = timed("pulumi up, fresh install of the v1.6.1 CRDs", lambda: stack.up(timeout=LONG_TIMEOUT))
    assert up.returncode == 0, up.describe()
    assert_crds_at(crd_apiserver, "1.6.1", new_field=False, operation="Apply")
    # The schema the API server serves is v1.6.1's: the 1.7.0 field is an unknown field.
    assert_new_field_unknown(crd_apiserver)

    again = timed(
        "pulumi preview --expect-no-changes, same CRDs",
        lambda: stack.pulumi("preview", "--expect-no-changes", timeout=LONG_TIMEOUT),
    )
    assert again.returncode == 0, again.describe()

    # Another tool annotates a CRD (under its own field manager) before the version bump.
    crd_apiserver.kubectl(
        "annotate", "crd", "rayclusters.ray.io", f"{OTHER_ANNOTATION}=yes", f"--field-manager={OTHER_MANAGER}"
    )
    installed = uids(ray_crds(crd_apiserver))
    stack.set_config(crds_only_config(crd_apiserver, reference_chart(), "1.7.0"))
    bump = timed("pulumi up, version bump 1.6.1 -> 1.7.0 in the same stack", lambda: stack.up(timeout=LONG_TIMEOUT))
    assert bump.returncode == 0, bump.describe()
    # An update of a CRD already in the stack is not a server-side apply: the provider replaces the CRD with a
    # PUT (pulumi-kubernetes `updateResource`, its CRD case), recorded as an Update by our field manager.
    upgraded = assert_crds_at(crd_apiserver, "1.7.0", new_field=True, operation="Update")
    assert uids(upgraded) == installed  # updated in place: a delete would have taken every Ray object with it
    # ... so what the other tool added is gone (a server-side apply would have kept it).
    other = upgraded["rayclusters.ray.io"]
    assert OTHER_ANNOTATION not in other["metadata"].get("annotations", {}), managers(other)
    code, answer = crd_apiserver.dry_run_create(raycluster_with_new_field())
    assert code == 201, (code, answer.get("message", answer))

    # destroy keeps the CRDs (retain_crds=True by default): deleting a CRD deletes every object of its kind.
    destroyed = timed("pulumi destroy (CRDs retained)", lambda: stack.destroy(timeout=LONG_TIMEOUT))
    assert destroyed.returncode == 0, destroyed.describe()
    after = ray_crds(crd_apiserver)
    assert uids(after) == installed
    assert all(c["metadata"].get("deletionTimestamp") is None for c in after.values())
    assert {c["metadata"]["labels"][CRD_VERSION_LABEL] for c in after.values()} == {"1.7.0"}
    assert stack.outputs() == {}


def test_takeover_and_upgrade_of_older_crds_then_a_downgrade_is_refused(
    crd_apiserver: ExtraApiServer,
    make_stack: Callable[..., ClusterStack],
    operator_program: Path,
    tmp_path: Path,
) -> None:
    # Someone else installed the v1.6.1 CRDs as Helm's install-once crds/ does (a plain create, no apply).
    crd_apiserver.kubectl("create", "-f", str(crds_161()))
    before = wait_established(crd_apiserver, "the v1.6.1 CRDs created by kubectl")
    assert [owned_by_us(c, op) for c in before.values() for op in ("Apply", "Update")] == [{}] * 8
    assert all(CRD_VERSION_LABEL not in c["metadata"].get("labels", {}) for c in before.values())
    assert NEW_FIELD not in spec_properties(before["rayclusters.ray.io"])
    # ... and a Ray object is stored under them (nothing reconciles it here; it must survive the upgrade).
    stored = raycluster("stored", enableInTreeAutoscaling=True)
    crd_apiserver.kubectl("create", "-f", "-", input=json.dumps(stored))
    stored_uid = crd_apiserver.get_json("raycluster", "stored", "-n", RAY_NAMESPACE)["metadata"]["uid"]

    old_chart = chart_161(tmp_path)
    stack = make_stack(
        crds_only_config(crd_apiserver, reference_chart(), "1.7.0"), namespace=RAY_NAMESPACE, program=operator_program
    )
    up = timed("pulumi up, take over the v1.6.1 CRDs and upgrade to v1.7.0", lambda: stack.up(timeout=LONG_TIMEOUT))
    assert up.returncode == 0, up.describe()
    upgraded = assert_crds_at(crd_apiserver, "1.7.0", new_field=True, operation="Apply")
    # The same objects, updated in place (a delete and create would have deleted every Ray object with them).
    assert uids(upgraded) == uids(before)
    for name, crd in upgraded.items():
        others = [m for m in crd["metadata"]["managedFields"] if m["manager"] != FIELD_MANAGER]
        # The previous manager lost the schema to the forced apply (it may keep fields with equal values).
        assert all("f:versions" not in m.get("fieldsV1", {}).get("f:spec", {}) for m in others), (name, others)

    kept = crd_apiserver.get_json("raycluster", "stored", "-n", RAY_NAMESPACE)
    assert kept["metadata"]["uid"] == stored_uid and not_returned(stored, kept) == []

    # A Ray object using the new field is accepted by the upgraded schema, nothing pruned.
    sent = raycluster_with_new_field()
    code, got = crd_apiserver.dry_run_create(sent)
    assert code == 201, (code, got.get("message", got))
    assert not_returned(sent, got) == []
    crd_apiserver.kubectl("create", "-f", "-", input=json.dumps(sent))

    # Going back to 1.6.1: refused at preview and at up, before anything is sent.
    versions = {n: c["metadata"]["resourceVersion"] for n, c in upgraded.items()}
    stack.set_config(crds_only_config(crd_apiserver, old_chart, "1.6.1"))
    refusal = "this stack applied the KubeRay 1.7.0 CRDs; 1.6.1 would downgrade them"
    preview = timed("pulumi preview, downgrade to 1.6.1 (refused)", lambda: stack.pulumi("preview"))
    assert preview.returncode != 0 and refusal in preview.output, preview.describe()
    refused = timed("pulumi up, downgrade to 1.6.1 (refused)", lambda: stack.up(timeout=LONG_TIMEOUT))
    assert refused.returncode != 0 and refusal in refused.output, refused.describe()
    unchanged = ray_crds(crd_apiserver)
    assert {n: c["metadata"]["resourceVersion"] for n, c in unchanged.items()} == versions
    assert_crds_at(crd_apiserver, "1.7.0", new_field=True, operation="Apply")

    # Asked for explicitly, the downgrade goes through; the new field is gone from the served schema, and from
    # the stored object that used it (pruned as it is read: what the refusal's message warns about).
    stack.set_config(crds_only_config(crd_apiserver, old_chart, "1.6.1", allowCrdDowngrade="true"))
    allowed = timed("pulumi up, downgrade to 1.6.1 with allowCrdDowngrade", lambda: stack.up(timeout=LONG_TIMEOUT))
    assert allowed.returncode == 0, allowed.describe()
    assert_crds_at(crd_apiserver, "1.6.1", new_field=False, operation="Update")
    assert_new_field_unknown(crd_apiserver)
    pruned = crd_apiserver.get_json("raycluster", sent["metadata"]["name"], "-n", RAY_NAMESPACE)
    without_new_field = {k: v for k, v in sent["spec"].items() if k != NEW_FIELD}
    assert NEW_FIELD not in pruned["spec"] and not_returned(without_new_field, pruned["spec"]) == [], pruned["spec"]
    # Nothing for make_stack's teardown to destroy: with crds "only" the stack holds the four CRDs alone, retained
    # on delete (retain_crds), on an API server and etcd prefix thrown away with the fixture. That `pulumi destroy`
    # (~20 s of the module's wall time, loading the CRDs' state) would change nothing. The destroy itself is
    # tested by the test above.
    stack.destroyed = True
