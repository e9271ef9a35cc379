"""``kuberay-convert``: input handling and exit codes (as ``kuberay-lint``), outputs, and the generated code's
quality (ruff and mypy --strict against the package)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from _reference import REPO_ROOT, samples_dir
from pulumi_kuberay.cli.convert import main
from pulumi_kuberay.convert import convert_documents
from pulumi_kuberay.convert._tree import identifier
from test_convert_samples import _documents, _sample_files

#: A hardened container (as the catalogue wants it) keeps the concise form exact whatever secure defaults the
#: model adds to containers that have no securityContext.
HARDENED = {"runAsNonRoot": True, "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
CLUSTER: dict[str, Any] = {
    "apiVersion": "ray.io/v1",
    "kind": "RayCluster",
    "metadata": {"name": "shared", "namespace": "ml"},
    "spec": {
        "headGroupSpec": {"template": {"spec": {"containers": [
            {"name": "ray-head", "image": "rayproject/ray:2.52.0", "securityContext": HARDENED}]}}},
        "workerGroupSpecs": [{"groupName": "cpu", "minReplicas": 0, "maxReplicas": 2, "template": {"spec": {
            "containers": [{"name": "ray-worker", "image": "rayproject/ray:2.52.0", "securityContext": HARDENED,
                            "resources": {"limits": {"cpu": "2", "memory": "8Gi"},
                                          "requests": {"cpu": "2", "memory": "8Gi"}}}]}}}],
    },
}  # fmt: skip
JOB = {
    "apiVersion": "ray.io/v1",
    "kind": "RayJob",
    "metadata": {"name": "nightly", "namespace": "ml"},
    "spec": {"entrypoint": "python -m batch", "clusterSelector": {"ray.io/cluster": "shared"}},
}
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "code"}, "data": {"a": "b"}}


def _write(tmp_path: Path, name: str, *docs: Any) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs))
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_rayjob_selecting_a_converted_cluster_references_the_component(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run([str(_write(tmp_path, "ray.yaml", JOB, CLUSTER, CONFIGMAP))], capsys)
    assert code == 0
    assert "cluster=shared," in out and 'cluster_selector={"ray.io/cluster": "shared"}' in out
    assert out.index("shared = kr.RayCluster(") < out.index("nightly = kr.RayJob(")
    assert 'image="rayproject/ray:2.52.0"' in out and 'cpu="2"' in out and 'memory="8Gi"' in out
    assert "ConfigMap 'code' not converted" in err and "ConfigGroup" in err and "pulumi convert" in err


def test_stdin_lists_and_directories_are_read_like_kuberay_lint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = {"apiVersion": "v1", "kind": "List", "items": [CLUSTER, JOB]}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(yaml.safe_dump(listed).encode())))
    code, from_stdin, _ = _run(["-", "--to", "stack-config"], capsys)
    assert code == 0
    config = yaml.safe_load(from_stdin)["config"]
    assert config["pulumi-kuberay:jobs"]["nightly"]["cluster"] == "shared"
    assert "clusterSelector" not in config["pulumi-kuberay:jobs"]["nightly"]["spec"]
    folder = tmp_path / "manifests"
    folder.mkdir()
    _write(folder, "a.yaml", CLUSTER)
    _write(folder, "b.yml", JOB)
    code, from_dir, _ = _run([str(folder), "--to", "stack-config"], capsys)
    assert code == 0 and yaml.safe_load(from_dir)["config"] == config


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run([str(tmp_path / "missing.yaml")], capsys)[0] == 2
    (tmp_path / "bad.yaml").write_text("a: [unclosed\n")
    assert _run([str(tmp_path / "bad.yaml")], capsys)[0] == 2
    (tmp_path / "empty").mkdir()
    assert _run([str(tmp_path / "empty")], capsys)[0] == 2
    (tmp_path / "blank.yaml").write_text("---\n")
    assert _run([str(tmp_path / "blank.yaml")], capsys)[0] == 2
    code, out, err = _run([str(_write(tmp_path, "cm.yaml", CONFIGMAP))], capsys)
    assert code == 1 and out == "" and "nothing to convert" in err
    broken = {**CLUSTER, "spec": {**CLUSTER["spec"], "workerGroupSpecs": [{"groupName": "cpu", "minReplicas": "1"}]}}
    code, out, err = _run([str(_write(tmp_path, "broken.yaml", broken, CLUSTER))], capsys)
    assert code == 1 and out == ""
    assert "spec.workerGroupSpecs[0].minReplicas" in err and "write the number without quotes" in err


def test_helm_values_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("worker:\n  replicas: 2\n  maxReplicas: 4\n")
    output = tmp_path / "infra.py"
    code, _, err = _run(["--from", "helm-values", str(values), "--release-name", "prod", "-o", str(output)], capsys)
    assert code == 0, err
    text = output.read_text()
    assert 'kr.RayCluster(\n    "prod-kuberay",' in text and "replicas=2" in text and 'namespace="default"' in text
    values.write_text("worker:\n  replica: 2\n  type: worker\nhead:\n  groupName: headgroup\n")
    code, out, err = _run(["--from", "helm-values", str(values)], capsys)
    # Helm renders the file without the keys it does not read: a warning naming all of them, and the conversion
    assert code == 0 and "kr.RayCluster(" in out
    assert err.count("warning:") == 1 and "ignores 3 keys" in err and "did you mean 'replicas'" in err
    assert "worker.type" in err and "head.groupName" in err
    assert "# converted: values key ignored by the ray-cluster chart 1.7.0: worker.replica" in out
    values.write_text("additionalWorkerGroups:\n  gpu:\n    minReplicas: 3\n    maxReplicas: 2\n")
    code, out, err = _run(["--from", "helm-values", str(values)], capsys)
    # the API server stores minReplicas > maxReplicas (only the operator refuses it): converted, the finding says it
    assert code == 0 and "min_replicas=3" in out
    assert "# - critical [worker-min-exceeds-max] worker group 'gpu': minReplicas (3) > maxReplicas (2)" in out


def test_secrets_stay_references_and_findings_become_comments(capsys: pytest.CaptureFixture[str]) -> None:
    cluster = {**CLUSTER, "spec": {**CLUSTER["spec"], "gcsFaultToleranceOptions": {
        "redisAddress": "redis:6379",
        "redisPassword": {"valueFrom": {"secretKeyRef": {"name": "redis", "key": "password"}}},
    }}}  # fmt: skip
    text = convert_documents([(cluster, "c.yaml:1")]).text
    assert 'secret_key_ref=kr.SecretKeySelector(key="password", name="redis")' in text
    assert "ConfigMapKeySelector" not in text and '"password"' in text and "value=" not in text
    assert "# - medium [resources-missing]" in text  # the head container sets no cpu/memory (high in prod)
    assert text.index("# - medium [resources-missing]") < text.index("shared = kr.RayCluster(")


def test_the_generated_code_passes_ruff_and_mypy_strict(tmp_path: Path) -> None:
    samples_dir()
    from _convert_helm_cases import CASES
    from pulumi_kuberay.convert.helm import render_values

    inputs: dict[str, list[tuple[Any, str]]] = {name[:-5]: _documents(name) for name in _sample_files()}
    for name, values in CASES.items():
        inputs[f"helm_{name}"] = [(render_values(values), name)]
    written = 0
    for name, documents in inputs.items():
        result = convert_documents(documents, sources=[name])
        assert result.errors == []
        if result.text:
            (tmp_path / f"{identifier(name)}.py").write_text(result.text)
            written += 1
    assert written >= 89 + len(CASES)
    config = str(REPO_ROOT / "pyproject.toml")
    bin_dir = Path(sys.executable).parent
    ruff = subprocess.run([str(bin_dir / "ruff"), "check", "--config", config, str(tmp_path)],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert ruff.returncode == 0, ruff.stdout
    fmt = subprocess.run([str(bin_dir / "ruff"), "format", "--check", "--config", config, str(tmp_path)],
                         capture_output=True, text=True, check=False)  # fmt: skip
    assert fmt.returncode == 0, fmt.stdout
    # incremental, in the repository's cache (the project's options: scripts/test's mypy run has filled it): the
    # package is read from the cache, the generated files are checked (--no-incremental took ~14 s of CPU)
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", config, "--strict", str(tmp_path)],
        capture_output=True, text=True, check=False, cwd=REPO_ROOT,
    )  # fmt: skip
    assert mypy.returncode == 0, mypy.stdout[-3000:]
    assert "Success: no issues found" in mypy.stdout


def test_two_objects_of_one_name_in_one_namespace_are_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(_write(tmp_path, "a.yaml", CLUSTER)), str(_write(tmp_path, "b.yaml", CLUSTER))]
    code, out, err = _run(files, capsys)
    assert code == 1 and out == "" and "is also declared at" in err and "a.yaml:1" in err
    other = {**CLUSTER, "metadata": {"name": "shared", "namespace": "ml-2"}}
    code, out, _ = _run([str(_write(tmp_path, "c.yaml", CLUSTER, other))], capsys)
    assert code == 0
    assert '"ml-shared",' in out and '"ml-2-shared",' in out and 'object_name="shared"' in out


def test_the_convert_docs_example_is_the_converters_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    section = (REPO_ROOT / "docs" / "convert.md").read_text()
    before = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    after = section.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "ray-cluster.yaml").write_text(before)
    # the file as the README names it: the comments wrap around the path, so a longer one (a pytest-xdist
    # worker's temporary folder) would wrap them elsewhere
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run(["ray-cluster.yaml"], capsys)
    assert code == 0
    assert out[out.index("import pulumi_kuberay") :] == after


def test_live_objects_from_kubectl_get_lose_only_what_the_server_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    live = yaml.safe_load(yaml.safe_dump(CLUSTER))
    live.pop("kind")
    live.pop("apiVersion")  # a typed list from the API leaves them out on the items
    live["metadata"].update(
        uid="0b6f", resourceVersion="42", generation=3, creationTimestamp="2026-12-01T10:00:00Z",
        managedFields=[{"manager": "kubectl", "operation": "Update"}],
        annotations={"kubectl.kubernetes.io/last-applied-configuration": "{}", "team": "ml"},
    )  # fmt: skip
    live["status"] = {"state": "ready"}
    listed = {"apiVersion": "ray.io/v1", "kind": "RayClusterList", "items": [live]}
    code, out, _ = _run([str(_write(tmp_path, "live.yaml", listed))], capsys)
    assert code == 0
    assert "server-set metadata left out: uid, resourceVersion, generation, creationTimestamp, managedFields" in out
    assert "last-applied-configuration left out" in out and "status left out" in out
    assert 'annotations={"team": "ml"}' in out and "0b6f" not in out


def test_long_source_paths_keep_the_generated_lines_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / ("a-rather-long-folder-name-" * 4).rstrip("-") / ("and-another-one-" * 4).rstrip("-")
    deep.mkdir(parents=True)
    code, out, _ = _run([str(_write(deep, "ray-cluster.yaml", CLUSTER))], capsys)
    assert code == 0
    (tmp_path / "infra.py").write_text(out)
    ruff = subprocess.run(
        [str(Path(sys.executable).with_name("ruff")), "check", "--config", str(REPO_ROOT / "pyproject.toml"),
         str(tmp_path / "infra.py")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ruff.returncode == 0, ruff.stdout
