"""The component package from Pulumi YAML, on the real engine (examples/yaml, with examples/python beside it).

- ``pulumi package get-schema provider`` prints the schema the package generates (tests/test_package_schema.py
  holds that schema against the models);
- the YAML example previews with the policy pack and ``pulumi up`` renders it to a directory; its Ray objects
  equal, byte for byte, those the same program in Python (examples/python) renders;
- the example with a mistake (``minReplicas`` 3 > ``maxReplicas`` 2) fails ``pulumi preview`` with the message
  and field path a Python program gets;
- a secret input (a secret config value, and the Redis password literal the schema marks secret) is a secret in
  the state: its plain text appears in no state file and in no CLI output.

Needs the engine (scripts/ensure-pulumi) and the YAML language host (scripts/ensure-langhosts), installed in the
engine's PULUMI_HOME; without the host the tests skip, naming the script (CI requires it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.conftest import REPO_ROOT, REPO_VENV, Workspace, copy_project, make_workspace, policy_args

RAY_KINDS = ("RayCluster", "RayJob", "RayService", "RayCronJob")
SECRET = "redis-pass-0f1e2d"
PLAIN_MARKED_SECRET = "literal-redis-pw-9a8b"


def _yaml_host_installed() -> bool:
    home = Path(os.environ.get("PULUMI_HOME") or Path.home() / ".pulumi")
    return any(home.glob("plugins/language-yaml-v*/pulumi-language-yaml")) or shutil.which(
        "pulumi-language-yaml"
    ) is not None


@pytest.fixture(scope="module")
def yaml_host() -> None:
    if _yaml_host_installed():
        return
    message = (
        "the Pulumi YAML language host is not installed in PULUMI_HOME: run "
        '`eval "$(scripts/ensure-langhosts --print-env)"` (scripts/test does)'
    )
    required = os.environ.get("PULUMI_KUBERAY_REQUIRE_ENGINE") == "1"
    if required and os.environ.get("PULUMI_KUBERAY_LANGHOSTS") != "skipped":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def package_root(root: Path, venv: Path = REPO_VENV) -> Path:
    """A project copy with examples/ and provider/ beside it (the examples refer to ../../provider, and the
    provider's PulumiPlugin.yaml to ../.venv, a symlink to ``venv``: the repository's, or the newest lane's)."""
    copy_project(root, venv)
    for name in ("examples", "provider"):
        ignore = shutil.ignore_patterns("__pycache__", "rendered", "node_modules", "sdks", "Pulumi.*.yaml")
        shutil.copytree(REPO_ROOT / name, root / name, ignore=ignore)
    return root


def ray_objects(render_dir: Path) -> dict[str, bytes]:
    """The rendered Ray objects: file name -> bytes."""
    out: dict[str, bytes] = {}
    for path in sorted(render_dir.rglob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        if isinstance(doc, dict) and doc.get("kind") in RAY_KINDS:
            out[path.name] = path.read_bytes()
    return out


def stack_state(workspace: Workspace, stack: str) -> str:
    export = workspace.pulumi("stack", "export", "--stack", stack, check=True)
    return export.stdout


def run_example(workspace: Workspace, stack: str, *, policy: bool = True) -> tuple[Any, Any]:
    workspace.init_stack(stack)
    workspace.pulumi("config", "set", "--stack", stack, "renderDir", "rendered", check=True)
    extra = policy_args(workspace.state.parent, "dev") if policy else []
    preview = workspace.pulumi("preview", "--stack", stack, *extra)
    if preview.returncode != 0:
        return preview, None
    up = workspace.pulumi("up", "--stack", stack, "--yes", "--skip-preview", *extra)
    return preview, up


@pytest.fixture(scope="module")
def examples(
    tmp_path_factory: pytest.TempPathFactory, pulumi_cli: str, yaml_host: None
) -> dict[str, Any]:
    """examples/yaml and examples/python, each previewed (with the policy pack) and deployed to a directory."""
    root = package_root(tmp_path_factory.mktemp("package"))
    runs: dict[str, Any] = {"root": root}
    for language in ("yaml", "python"):
        program = root / "examples" / language
        workspace = make_workspace(root, pulumi_cli, program=program)
        preview, up = run_example(workspace, "ci")
        runs[language] = {"workspace": workspace, "preview": preview, "up": up, "dir": program}
    return runs


def test_get_schema_prints_the_generated_schema(tmp_path: Path, pulumi_cli: str) -> None:
    """Through the provider's executable (the wheel's ``pulumi-resource-kuberay``): the same code PulumiPlugin.yaml
    runs, without Pulumi's dependency installation for a Python plugin directory (which would run ``python -m
    venv`` and ``pip install --upgrade pip setuptools wheel`` on the repository's venv)."""
    from pulumi_kuberay.provider._schema import package_schema

    executable = REPO_ROOT / ".venv" / "bin" / "pulumi-resource-kuberay"
    assert executable.exists(), f"{executable} is missing: run scripts/setup-venv"
    workspace = make_workspace(tmp_path, pulumi_cli)
    run = workspace.pulumi("package", "get-schema", str(executable))
    assert run.returncode == 0, run.describe()
    printed = json.loads(run.stdout)
    assert printed.pop("config", {}) == {}  # the CLI's normal form adds an empty `config`
    assert printed["name"] == "kuberay" and printed["version"] == package_schema()["version"]
    assert printed == json.loads(json.dumps(package_schema()))


def test_yaml_example_previews_and_renders_what_python_renders(examples: dict[str, Any]) -> None:
    yaml_run, python_run = examples["yaml"], examples["python"]
    assert yaml_run["preview"].returncode == 0, yaml_run["preview"].describe()
    assert yaml_run["up"] is not None and yaml_run["up"].returncode == 0, yaml_run["up"].describe()
    assert python_run["up"] is not None and python_run["up"].returncode == 0, python_run["up"].describe()
    for kind in ("kuberay:index:RayCluster", "kuberay:index:RayJob", "kubernetes:ray.io/v1:RayCluster"):
        assert kind in yaml_run["preview"].output, yaml_run["preview"].describe()
    from_yaml = ray_objects(yaml_run["dir"] / "rendered")
    from_python = ray_objects(python_run["dir"] / "rendered")
    assert sorted(from_yaml) == sorted(from_python)
    assert len(from_yaml) == 2, sorted(from_yaml)
    for name, body in from_python.items():
        assert from_yaml[name] == body, f"{name}:\n--- python\n{body.decode()}\n--- yaml\n{from_yaml[name].decode()}"
    # Wired through outputs: the RayJob runs on the RayCluster, in the Namespace's namespace.
    job = next(yaml.safe_load(b) for b in from_yaml.values() if b"kind: RayJob" in b)
    assert job["metadata"]["namespace"] == "ray"
    assert job["spec"]["clusterSelector"] == {"ray.io/cluster": "shared"}
    outputs = yaml_run["workspace"].pulumi("stack", "output", "--stack", "ci", "--json", check=True)
    assert json.loads(outputs.stdout)["dashboard"] == "http://shared-head-svc.ray.svc.cluster.local:8265"


def _variant(root: Path, name: str, edit: Any) -> Path:
    """A copy of examples/yaml beside it, with ``edit`` applied to its Pulumi.yaml document."""
    program = root / "examples" / name
    shutil.copytree(root / "examples" / "yaml", program, ignore=shutil.ignore_patterns("rendered", "Pulumi.*.yaml"))
    doc = yaml.safe_load((program / "Pulumi.yaml").read_text())
    doc["name"] = f"kuberay-{name}"
    edit(doc)
    (program / "Pulumi.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return program


def test_yaml_program_with_a_mistake_fails_preview_with_our_message_and_path(
    examples: dict[str, Any], pulumi_cli: str
) -> None:
    root = examples["root"]

    def min_over_max(doc: dict[str, Any]) -> None:
        doc["resources"]["shared"]["properties"]["spec"]["workerGroupSpecs"][0]["minReplicas"] = 3

    program = _variant(root, "yaml-broken", min_over_max)
    workspace = make_workspace(root, pulumi_cli, program=program)
    preview, _ = run_example(workspace, "ci")
    assert preview.returncode != 0, preview.describe()
    out = preview.output
    assert "minReplicas (3) > maxReplicas (2) in worker group 'cpu'" in out, preview.describe()
    assert "spec.workerGroupSpecs[0].minReplicas" in out, preview.describe()
    assert "lower minReplicas to at most 2 or raise maxReplicas to at least 3" in out, preview.describe()
    assert "kuberay:index:RayCluster resource 'shared' has a problem: RayCluster 'shared' is invalid" in out
    assert "Traceback" not in out and 'File "' not in out, preview.describe()  # our message, not a stack


def test_critical_finding_fails_preview_and_lower_severities_are_warnings(
    examples: dict[str, Any], pulumi_cli: str
) -> None:
    root = examples["root"]

    def critical_and_warning(doc: dict[str, Any]) -> None:
        doc["resources"]["batch"]["properties"]["spec"]["activeDeadlineSeconds"] = 0  # critical (catalogue)
        doc["resources"]["shared"]["properties"]["spec"]["enableInTreeAutoscaling"] = True  # a component warning

    program = _variant(root, "yaml-critical", critical_and_warning)
    workspace = make_workspace(root, pulumi_cli, program=program)
    preview, _ = run_example(workspace, "ci", policy=False)
    assert preview.returncode != 0, preview.describe()
    out = preview.output
    assert "RayJob 'batch': 1 critical finding:" in out, preview.describe()
    assert "[rayjob-active-deadline-not-positive] critical at spec.activeDeadlineSeconds" in out, preview.describe()
    assert "property spec.activeDeadlineSeconds" in out, preview.describe()
    assert 'File "' not in out, preview.describe()
    warning = "enableInTreeAutoscaling is on, so the replicas of worker group(s) cpu are not sent"
    assert re.search(r"warning: .*" + re.escape(warning), out), preview.describe()


def test_secret_inputs_stay_secret_in_state(examples: dict[str, Any], pulumi_cli: str) -> None:
    root = examples["root"]

    def with_redis(doc: dict[str, Any]) -> None:
        doc["config"]["redisPassword"] = {"type": "string", "secret": True}
        spec = doc["resources"]["shared"]["properties"]["spec"]
        spec["gcsFaultToleranceOptions"] = {
            "redisAddress": "redis:6379",
            "redisPassword": {"value": "${redisPassword}"},
            "redisUsername": {"value": PLAIN_MARKED_SECRET},  # plain in the program; the schema marks it secret
        }

    program = _variant(root, "yaml-secret", with_redis)
    workspace = make_workspace(root, pulumi_cli, program=program)
    workspace.init_stack("ci")
    workspace.pulumi("config", "set", "--stack", "ci", "--secret", "redisPassword", SECRET, check=True)
    workspace.pulumi("config", "set", "--stack", "ci", "renderDir", "rendered", check=True)
    up = workspace.pulumi("up", "--stack", "ci", "--yes")
    assert up.returncode == 0, up.describe()
    # The secret stays in its field: the cluster's names and URLs are not secret, nor the RayJob of cluster=
    # (its selector and submitter image come from the cluster), whose rendered file holds no secret value.
    outputs = json.loads(workspace.pulumi("stack", "output", "--stack", "ci", "--json", check=True).stdout)
    assert outputs["dashboard"] == "http://shared-head-svc.ray.svc.cluster.local:8265", outputs
    assert outputs["clientAddress"] == "ray://shared-head-svc.ray.svc.cluster.local:10001", outputs
    assert "kubernetes:ray.io/v1:RayJob (batch):" not in up.output, up.describe()  # no diagnostic of its own
    assert "rendered YAML will contain a secret value in plaintext" in up.output, up.describe()  # the cluster's
    for value in (SECRET, PLAIN_MARKED_SECRET):
        assert value not in up.output
        state = stack_state(workspace, "ci")
        assert value not in state, f"{value} is in the state in plain text"
    revealed = workspace.pulumi("stack", "export", "--stack", "ci", "--show-secrets", check=True).stdout
    assert SECRET in revealed and PLAIN_MARKED_SECRET in revealed  # there, encrypted
    for file in workspace.state.rglob("*.json"):
        text = file.read_text(errors="replace")
        assert SECRET not in text and PLAIN_MARKED_SECRET not in text, file


def test_operator_reference_gives_the_ray_objects_their_rule_target(examples: dict[str, Any], pulumi_cli: str) -> None:
    """``operator: ${op}`` (a resource reference) reaches the RayCronJob as the KubeRayOperator component the same
    provider built: its feature gates decide the catalogue's verdict, as ``operator=op`` does in Python."""
    from engine.conftest import reference_operator_chart

    root = examples["root"]
    chart = str(reference_operator_chart())

    def with_operator(doc: dict[str, Any], *, reference: bool) -> None:
        resources = doc["resources"]
        resources["op"] = {
            "type": "kuberay:KubeRayOperator",
            "properties": {"chart": chart, "crds": "leave", "installedCrds": "1.7.0",
                           "featureGates": {"RayCronJob": True}, "watchNamespaces": ["ray"]},
            "options": {"providers": ["${k8s}"]},
        }
        resources["nightly"] = {
            "type": "kuberay:RayCronJob",
            "properties": {
                "namespace": "ray",
                "spec": {"schedule": "0 3 * * *",
                         "jobTemplate": {"entrypoint": "python x.py", "clusterSelector": {"ray.io/cluster": "shared"}}},
                **({"operator": "${op}"} if reference else {}),
            },
            "options": {"providers": ["${k8s}"]},
        }
        doc["outputs"] = {"gates": "${op.featureGates}", "cron": "${nightly.cronjobName}"}

    with_ref = _variant(root, "yaml-operator", lambda doc: with_operator(doc, reference=True))
    workspace = make_workspace(root, pulumi_cli, program=with_ref)
    preview, up = run_example(workspace, "ci", policy=False)
    assert preview.returncode == 0, preview.describe()
    assert up is not None and up.returncode == 0, up.describe()
    outputs = json.loads(workspace.pulumi("stack", "output", "--stack", "ci", "--json", check=True).stdout)
    assert outputs["cron"] == "nightly" and outputs["gates"]["RayCronJob"] is True

    # Without the operator the defaults rule: the gate is off, so KubeRay accepts the RayCronJob and ignores it,
    # which the catalogue says at high (a warning; nothing rejects it).
    without = _variant(root, "yaml-no-operator", lambda doc: with_operator(doc, reference=False))
    preview, _ = run_example(make_workspace(root, pulumi_cli, program=without), "ci", policy=False)
    assert preview.returncode == 0, preview.describe()
    assert "[feature-gate-disabled] high at kind: a RayCronJob needs the operator feature gate RayCronJob" in (
        preview.output
    ), preview.describe()
