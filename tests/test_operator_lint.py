"""``kuberay-lint --operator-values FILE`` (or a chart values file among the inputs): the objects are judged
against that operator, and its setup is checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi_kuberay.cli.lint import main
from pulumi_kuberay.rules._examples import example_cronjob, example_job


def write(path: Path, *docs: object) -> Path:
    path.write_text(yaml.safe_dump_all(docs))
    return path


@pytest.fixture
def manifests(tmp_path: Path) -> Path:
    job = example_job("elsewhere")
    job["metadata"]["namespace"] = "team-a"
    cron = example_cronjob("hourly")
    cron["metadata"]["namespace"] = "ray"
    return write(tmp_path / "ray.yaml", job, cron)


VALUES = {
    "watchNamespace": ["ray"],
    "featureGates": [{"name": "RayCronJob", "enabled": True}],
    "replicas": 2,
}


def json_findings(out: str) -> list[dict[str, Any]]:
    findings: list[dict[str, Any]] = json.loads(out)["findings"]
    return findings


def rule_ids(out: str) -> list[str]:
    return sorted(f["rule_id"] for f in json_findings(out))


def test_operator_values_flag(manifests: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    values = write(tmp_path / "operator-values.yaml", VALUES)
    code = main([str(manifests), "--operator-values", str(values), "--fail-on", "critical", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 1
    assert rule_ids(out).count("operator-namespace-unwatched") == 1
    assert "feature-gate-disabled" not in out  # the operator runs the RayCronJob gate
    assert "watches only 'ray'" in out


def test_without_operator_values_the_defaults_rule(manifests: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the default gates: RayCronJob off, so the RayCronJob is accepted and ignored (high, not critical)
    assert main([str(manifests), "--fail-on", "high"]) == 1
    out = capsys.readouterr().out
    assert "feature-gate-disabled" in out and "operator-namespace-unwatched" not in out
    assert main([str(manifests), "--fail-on", "critical"]) == 0


def test_values_file_among_the_inputs_is_used(
    manifests: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    manifests.rename(folder / "ray.yaml")
    write(folder / "values.yaml", {**VALUES, "replicas": 1})
    main([str(folder), "--environment", "prod", "--fail-on", "critical", "--format", "json"])
    out = capsys.readouterr().out
    assert "operator-namespace-unwatched" in rule_ids(out) and "feature-gate-disabled" not in rule_ids(out)
    (ha,) = [f for f in json_findings(out) if f["rule_id"] == "operator-not-highly-available"]
    assert (Path(ha["file"]).name, ha["line"], ha["severity"], ha["kind"], ha["name"]) == (
        "values.yaml", 1, "high", "KubeRayOperator", "values"
    )
    assert ha["path"] == "replicas"


def test_flags_disagreeing_with_the_values_name_both(
    manifests: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = write(tmp_path / "operator-values.yaml", VALUES)
    assert main([str(manifests), "--operator-values", str(values), "--feature-gates", "RayCronJob=false"]) == 2
    err = capsys.readouterr().err
    assert "--feature-gates.RayCronJob is false" in err and "RayCronJob=true" in err


def test_misspelled_operator_value_is_exit_2(
    manifests: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = write(tmp_path / "operator-values.yaml", {"watchNamespaces": ["ray"]})
    assert main([str(manifests), "--operator-values", str(values)]) == 2
    assert "did you mean 'watchNamespace'?" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------------
# A rendered chart among the inputs: the operator Deployment is the operator (as the policy pack reads it).


def _rendered(tmp_path: Path, *deployments: dict[str, Any]) -> Path:
    """A render directory as the Kubernetes provider writes it: a RayJob in team-a and the given Deployments."""
    root = tmp_path / "rendered"
    (root / "1-manifest").mkdir(parents=True)
    job = example_job("elsewhere")
    job["metadata"]["namespace"] = "team-a"
    write(root / "1-manifest" / "ray.io_v1-rayjob-team-a-elsewhere.yaml", job)
    for index, manifest in enumerate(deployments):
        write(root / "1-manifest" / f"apps_v1-deployment-{index}.yaml", manifest)
    return root


def test_a_rendered_operator_deployment_judges_the_objects_and_its_own_setup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_operator_pack import deployment

    root = _rendered(tmp_path, deployment("--watch-namespace", "ray", replicas=1))
    code = main([str(root), "--environment", "prod", "--fail-on", "critical", "--format", "json"])
    findings = json_findings(capsys.readouterr().out)
    where = {(f["rule_id"], Path(f["file"]).name) for f in findings}
    assert code == 1
    assert ("operator-namespace-unwatched", "ray.io_v1-rayjob-team-a-elsewhere.yaml") in where
    setup = [f for f in findings if f["rule_id"] == "operator-not-highly-available"]
    assert [(Path(f["file"]).name, f["line"]) for f in setup] == [("apps_v1-deployment-0.yaml", 1)]


def test_a_rendered_operator_that_watches_the_namespace_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_operator_pack import deployment

    root = _rendered(tmp_path, deployment("--watch-namespace", "team-a", replicas=2))
    assert main([str(root), "--fail-on", "critical", "--format", "json"]) == 0
    assert "operator-namespace-unwatched" not in rule_ids(capsys.readouterr().out)


def test_several_rendered_operators_judge_nothing_against_either(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_operator_pack import deployment

    root = _rendered(tmp_path, deployment("--watch-namespace", "ray"), deployment("--watch-namespace", "other"))
    main([str(root), "--format", "json"])
    ids = rule_ids(capsys.readouterr().out)
    assert "operator-namespace-unwatched" not in ids and "operator-not-highly-available" not in ids


def test_crd_version_label_reads_only_our_label_of_a_crd() -> None:
    from pulumi_kuberay.operator.crds import CRD_VERSION_LABEL, crd_version_label

    crd = {"kind": "CustomResourceDefinition", "metadata": {"labels": {CRD_VERSION_LABEL: "1.6.1"}}}
    assert crd_version_label(crd) == "1.6.1"
    assert crd_version_label({"metadata": crd["metadata"]}) == "1.6.1"  # the pack's props: the type says CRD
    assert crd_version_label({**crd, "kind": "ConfigMap"}) is None
    assert crd_version_label({"kind": "CustomResourceDefinition", "metadata": {}}) is None
    assert crd_version_label("not a manifest") is None
