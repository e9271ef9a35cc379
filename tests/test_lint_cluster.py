"""``kuberay-lint --cluster`` and ``--live`` against a fake Kubernetes API (plain HTTP on loopback, in this process):
the preflight's findings in the usual outputs and exit codes, the objects the files create are not missing, the
status diagnosis of live objects, the flags that do not go together, and one line when the cluster cannot be read.
(The cluster tier runs the same against the real API server with the read-only ClusterRole.)"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi_kuberay import rules
from pulumi_kuberay.cli import lint

MANIFEST, _ = rules.RULES["preflight-reference-missing"].violating  # a Secret and a ServiceAccount it names
NODES = {"items": [{"metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}]}


def _api(live: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "/api/v1/nodes": NODES,
        "/api/v1/namespaces": {"items": [{"metadata": {"name": "default"}}]},
        "/api/v1/pods": {"items": []},
        "/api/v1/namespaces/default/serviceaccounts": {"items": [{"metadata": {"name": "default", "namespace": "default"}}]},
        "/api/v1/namespaces/default/secrets": {"items": []},
        "/apis/ray.io/v1/namespaces/default/rayclusters": {"items": live},
        **{f"/api/v1/namespaces/default/{k}": {"items": []} for k in ("resourcequotas", "limitranges", "configmaps", "persistentvolumeclaims")},
    }


@pytest.fixture
def kubeconfig(tmp_path: Path) -> Iterator[tuple[Path, list[str]]]:
    failed = {**MANIFEST, "status": {"state": "failed", "reason": "head Pod could not be created"}}
    bodies = _api([failed])
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            body = bodies.get(self.path.split("?", 1)[0])
            payload = json.dumps(body if body is not None else {"kind": "Status", "code": 404}).encode()
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:  # a server-side dry-run create (the preflight's children): accepted as sent
            assert self.path.endswith("?dryRun=All"), self.path
            payload = self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(201)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump({
        "clusters": [{"name": "c", "cluster": {"server": f"http://127.0.0.1:{server.server_address[1]}"}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "c",
    }))
    yield path, seen
    server.shutdown()
    server.server_close()


def _findings(capsys: pytest.CaptureFixture[str]) -> tuple[list[dict[str, Any]], str]:
    out = capsys.readouterr()
    return json.loads(out.out)["findings"], out.err


def test_cluster_reports_what_the_cluster_lacks(
    kubeconfig: tuple[Path, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, seen = kubeconfig
    manifest = tmp_path / "ray.yaml"
    manifest.write_text(yaml.safe_dump(MANIFEST))
    assert lint.main(["--cluster", "--kubeconfig", str(path), str(manifest), "--format", "json", "--no-config"]) == 1
    found, err = _findings(capsys)
    ours = [f for f in found if f["rule_id"].startswith("preflight-")]
    preflight = sorted((f["rule_id"], f["severity"], f["message"].split(":")[0]) for f in ours)
    assert preflight == [
        ("preflight-reference-missing", "critical", "Secret 'hf-token' does not exist in namespace 'default'"),
        ("preflight-reference-missing", "critical", "ServiceAccount 'ray' does not exist in namespace 'default'"),
    ]
    assert err == ""  # every kind read, nothing skipped
    assert len(seen) == 19  # one per kind: 10 cluster-wide, cert-manager and GatewayClasses, 7 in the namespace
    # The files create the Secret and the ServiceAccount: nothing is missing.
    created = [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "hf-token", "namespace": "default"}},
               {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "ray"}}]
    manifest.write_text(yaml.safe_dump_all([*created, MANIFEST]))
    assert lint.main(["--cluster", "--kubeconfig", str(path), str(manifest), "--format", "json", "--no-config"]) == 0
    found, _ = _findings(capsys)
    assert not [f for f in found if f["rule_id"].startswith("preflight-")]


def test_live_lints_the_objects_of_the_cluster_with_their_status(
    kubeconfig: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = kubeconfig
    assert lint.main(["--live", "--kubeconfig", str(path), "--format", "json", "--no-config"]) == 1
    found, err = _findings(capsys)
    assert err == ""
    assert {(f["file"], f["kind"], f["name"]) for f in found} == {("<cluster>", "RayCluster", "raycluster-demo")}
    status = [f for f in found if f["rule_id"] == "live-status"]
    assert len(status) == 1 and status[0]["severity"] == "high" and status[0]["message"].startswith("failed: ")
    assert {"preflight-reference-missing", "live-status"} <= {f["rule_id"] for f in found}
    assert lint.main(["--live", "--kubeconfig", str(path), "--format", "sarif", "--no-config"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    assert "live-status" in {rule["id"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--live", "x.yaml"], "--live reads the Ray objects from the cluster: give no PATH"),
        (["--namespace", "a", "x.yaml"], "--namespace and --all-namespaces go with --live"),
        (["--live", "-n", "a", "-A"], "--namespace and --all-namespaces: give one"),
        (["--kubeconfig", "k", "x.yaml"], "--kubeconfig and --context go with --cluster or --live"),
        (["--live", "--cluster"], "--live and --cluster: give one"),
    ],
)
def test_flags_that_do_not_go_together(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint.main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_cluster_that_cannot_be_read_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config"
    config.write_text(yaml.safe_dump({
        "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}],  # discard: nothing listens
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "c",
    }))
    manifest = tmp_path / "ray.yaml"
    manifest.write_text(yaml.safe_dump(MANIFEST))
    assert lint.main(["--cluster", "--kubeconfig", str(config), str(manifest), "--no-config"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kuberay-lint: preflight skipped: http://127.0.0.1:9 cannot be reached")
    assert lint.main(["--live", "--kubeconfig", str(config), "--no-config"]) == 2
    assert "kuberay-lint: --live: the cluster cannot be read: " in capsys.readouterr().err
