"""``kuberay-lint --diff OLD NEW`` and ``--diff-git REV``: the change plan of every changed Ray object, with the
change rules' findings, in text, JSON and SARIF, with lint's exit codes (issue "for the teams that do not run
``pulumi preview``", item 2)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi_kuberay.cli.lint import main

CLUSTER = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: shared
  namespace: ray
spec:
  rayVersion: "2.52.0"{strategy}
  headGroupSpec:
    template:
      spec:
        containers:
          - name: ray-head
            image: {image}
            resources: {{requests: {{cpu: "2", memory: 8Gi}}, limits: {{cpu: "2", memory: 8Gi}}}}
  workerGroupSpecs:
    - groupName: cpu
      replicas: 2
      minReplicas: 1
      maxReplicas: {max}
      template:
        spec:
          containers:
            - name: ray-worker
              image: {image}
              resources: {{requests: {{cpu: "4", memory: 16Gi}}, limits: {{cpu: "4", memory: 16Gi}}}}
"""

SERVICE = """\
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: serve
  namespace: ray
spec:
  serveConfigV2: |
    applications:
      - name: fruit
        route_prefix: /fruit
        import_path: fruit.deployment_graph
        deployments:
          - name: MangoStand
            num_replicas: {replicas}
  rayClusterConfig:
    rayVersion: "2.52.0"
    headGroupSpec:
      template:
        spec:
          containers:
            - name: ray-head
              image: {image}
              resources: {{requests: {{cpu: "2", memory: 8Gi}}, limits: {{cpu: "2", memory: 8Gi}}}}
    workerGroupSpecs:
      - groupName: cpu
        replicas: 1
        minReplicas: 1
        maxReplicas: 2
        template:
          spec:
            containers:
              - name: ray-worker
                image: {image}
                resources: {{requests: {{cpu: "2", memory: 4Gi}}, limits: {{cpu: "2", memory: 4Gi}}}}
"""

OLD_IMAGE, NEW_IMAGE = "rayproject/ray:2.52.0", "rayproject/ray:2.52.1"
RECREATE = "\n  upgradeStrategy:\n    type: Recreate"


def cluster(image: str = OLD_IMAGE, *, recreate: bool = False, max_replicas: int = 4) -> str:
    return CLUSTER.format(image=image, strategy=RECREATE if recreate else "", max=max_replicas)


def service(image: str = OLD_IMAGE, *, replicas: int = 1) -> str:
    return SERVICE.format(image=image, replicas=replicas)


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def lint(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    # These tests hold the change rules and the plan: the catalogue's findings a change brings in (the image
    # 2.52.1 against rayVersion 2.52.0 here) are held by tests/test_lint_conventions.py.
    rc = main(["--no-config", "--change-rules-only", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def diff_json(capsys: pytest.CaptureFixture[str], old: Path, new: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    rc, out, err = lint(capsys, "--diff", str(old), str(new), "--format", "json", *extra)
    assert err == ""
    return rc, json.loads(out)


def test_image_change_keeps_the_running_pods(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "old", {"c.yaml": cluster()})
    new = write(tmp_path / "new", {"c.yaml": cluster(NEW_IMAGE)})
    rc, out, err = lint(capsys, "--diff", str(old), str(new))
    assert (rc, err) == (0, "")  # the finding is medium outside prod: under the default --fail-on high
    first = out.splitlines()[0]
    assert first == f"{new / 'c.yaml'}:1: RayCluster ray/shared: none"
    assert "running Pods keep the old spec" in out
    assert "change-not-reaching-pods" in out
    assert out.rstrip().endswith("1 changed Ray object (1 none), 0 unchanged; 1 finding of the change rules")
    # In prod the change rule is high: lint's exit code 1.
    rc, report = diff_json(capsys, old, new, "--environment", "prod")
    assert rc == 1
    (change,) = report["changes"]
    assert (change["kind"], change["name"], change["namespace"], change["action"]) == ("RayCluster", "shared", "ray", "none")
    assert [(f["rule_id"], f["severity"]) for f in change["findings"]] == [("change-not-reaching-pods", "high")]
    assert change["changed"] == ["head: image of container ray-head", "worker group cpu: image of container ray-worker"]
    assert report["summary"] == {"changed": 1, "unchanged": 0}


def test_recreate_recreates_the_pods(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "old", {"c.yaml": cluster(recreate=True)})
    new = write(tmp_path / "new", {"c.yaml": cluster(NEW_IMAGE, recreate=True)})
    rc, report = diff_json(capsys, old, new, "--environment", "prod")
    (change,) = report["changes"]
    assert (rc, change["action"], change["findings"]) == (0, "recreate-pods", [])
    assert "every Pod is deleted at once and recreated" in change["why"]


def test_autoscaler_bound_is_a_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "old", {"c.yaml": cluster()})
    new = write(tmp_path / "new", {"c.yaml": cluster(max_replicas=6)})
    _, report = diff_json(capsys, old, new)
    (change,) = report["changes"]
    assert change["changed"], change  # maxReplicas is read by the autoscaler: the plan names it


def test_rayservice_cluster_change_is_a_new_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "old", {"s.yaml": service()})
    new = write(tmp_path / "new", {"s.yaml": service(NEW_IMAGE)})
    rc, report = diff_json(capsys, old, new)
    (change,) = report["changes"]
    assert (rc, change["kind"], change["action"]) == (0, "RayService", "new-cluster")
    assert change["extra"]["start"] == {"cpu": "4", "memory": "12Gi", "gpu": 0}


def test_serve_config_only_is_an_in_place_serve_update(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "old", {"s.yaml": service()})
    new = write(tmp_path / "new", {"s.yaml": service(replicas=3)})
    rc, out, _ = lint(capsys, "--diff", str(old), str(new))
    assert rc == 0
    assert out.splitlines()[0].endswith("RayService ray/serve: serve-update-in-place")
    assert "changed: serveConfigV2" in out


def test_creates_deletes_and_unchanged_objects(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "old", {"c.yaml": cluster(), "s.yaml": service()})
    new = write(tmp_path / "new", {"s.yaml": service(), "other.yaml": cluster().replace("name: shared", "name: batch")})
    _, report = diff_json(capsys, old, new)
    assert [(c["name"], c["action"]) for c in report["changes"]] == [("batch", "create"), ("shared", "delete")]
    assert report["summary"] == {"changed": 2, "unchanged": 1}
    deleted = report["changes"][1]
    assert deleted["file"] == str(old / "c.yaml")  # a delete is reported on the old file


def test_sarif_has_the_plan_and_the_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "old", {"c.yaml": cluster()})
    new = write(tmp_path / "new", {"c.yaml": cluster(NEW_IMAGE)})
    rc, out, _ = lint(capsys, "--diff", str(old), str(new), "--format", "sarif", "--sarif-root", str(tmp_path))
    assert rc == 0
    run = json.loads(out)["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert set(by_rule) == {"change-plan", "change-not-reaching-pods"}
    for result in run["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "new/c.yaml", "uriBaseId": "%SRCROOT%"}
    plan = by_rule["change-plan"]
    assert plan["level"] == "note"
    assert plan["message"]["text"].startswith("plan: RayCluster 'shared': none: upgradeStrategy None")
    assert by_rule["change-not-reaching-pods"]["level"] == "warning"
    # the change rules are in the catalogue: listed once, with their reference entry, beside the plan's pseudo rule
    assert len(rules) == len(set(rules)) and rules.count("change-plan") == 1
    descriptor = run["tool"]["driver"]["rules"][rules.index("change-not-reaching-pods")]
    assert descriptor["properties"]["scope"] == "change" and descriptor["helpUri"].endswith("#change-not-reaching-pods")


def test_a_change_rule_is_silenced_only_with_a_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As every rule of the catalogue: an empty reason used to silence a change rule, and no longer does."""
    old = write(tmp_path / "old", {"c.yaml": cluster()})
    key = "suppress.pulumi-kuberay.io/change-not-reaching-pods"
    for reason, found in (("", ["change-not-reaching-pods"]), ("we delete the Pods by hand", [])):
        doc = yaml.safe_load(cluster(NEW_IMAGE))
        doc["metadata"]["annotations"] = {key: reason}
        new = write(tmp_path / f"new-{len(reason)}", {"c.yaml": yaml.safe_dump(doc)})
        _, report = diff_json(capsys, old, new)
        assert [f["rule_id"] for f in report["changes"][0]["findings"]] == found, reason


def test_ignore_and_severity_apply_to_change_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "old", {"c.yaml": cluster()})
    new = write(tmp_path / "new", {"c.yaml": cluster(NEW_IMAGE)})
    rc, report = diff_json(capsys, old, new, "--environment", "prod", "--ignore", "change-not-reaching-pods")
    assert (rc, report["changes"][0]["findings"]) == (0, [])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--diff", "missing-old", "{new}"], "--diff: missing-old: no such file or folder"),
        (["--diff", "-", "{new}"], "--diff reads files or folders, not stdin"),
        (["extra.yaml", "--diff", "{new}", "{new}"], "--diff compares its own two paths: drop the other PATH arguments"),
        (["--diff", "{new}", "{new}", "--baseline", "b.json"], "--diff does not take a baseline"),
        (["--diff", "{new}", "{new}", "--diff-git", "HEAD"], "--diff and --diff-git: give one"),
    ],
)
def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    new = write(tmp_path / "new", {"c.yaml": cluster()})
    rc, out, err = lint(capsys, *(a.format(new=new) for a in argv))
    assert rc == 2
    assert out == ""
    assert message in err


def _git(repo: Path, *argv: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false", *argv],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def test_diff_git_against_a_revision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    write(repo / "deploy", {"c.yaml": cluster(), "s.yaml": service()})
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    write(repo / "deploy", {"s.yaml": service(NEW_IMAGE), "new.yaml": cluster().replace("name: shared", "name: added")})
    monkeypatch.chdir(repo / "deploy")
    rc, out, err = lint(capsys, "--diff-git", "HEAD", "--format", "json")
    assert (rc, err) == (0, "")
    report = json.loads(out)
    assert [(c["name"], c["action"]) for c in report["changes"]] == [("added", "create"), ("serve", "new-cluster")]
    assert report["summary"] == {"changed": 2, "unchanged": 1}
    # Text: the old side is named REV:path, relative to the repository's top.
    _git(repo, "rm", "-q", "--cached", "deploy/s.yaml")
    (repo / "deploy" / "s.yaml").unlink()
    rc, out, err = lint(capsys, "--diff-git", "HEAD", ".")
    assert (rc, err) == (0, "")
    assert "HEAD:deploy/s.yaml:1: RayService ray/serve: delete" in out
    # A folder the revision does not have: every object is a create, not an error.
    write(repo / "fresh", {"c.yaml": cluster()})
    monkeypatch.chdir(repo)
    rc, out, err = lint(capsys, "--diff-git", "HEAD", "fresh")
    assert (rc, err) == (0, "")
    assert ": RayCluster ray/shared: create" in out.splitlines()[0]


def test_diff_git_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    write(repo, {"c.yaml": cluster()})
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    monkeypatch.chdir(repo)
    rc, _, err = lint(capsys, "--diff-git", "no-such-rev")
    assert rc == 2
    assert err.startswith("kuberay-lint: git rev-parse --verify --quiet no-such-rev^{commit}")
    outside = write(tmp_path / "outside", {"c.yaml": cluster()})
    rc, _, err = lint(capsys, "--diff-git", "HEAD", str(outside))
    assert rc == 2
    assert f"--diff-git: {outside} is outside the git working tree" in err
