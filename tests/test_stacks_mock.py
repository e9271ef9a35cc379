# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""The program (``__main__.py``) run under mocks for every stack file: resources, manifests, rule findings.

The config is what the Pulumi CLI would hand the program: ``Pulumi.yaml`` defaults overlaid with
``stacks/Pulumi.<stack>.yaml`` (strings as is, structured values as JSON text). Every test is
``@pulumi.runtime.test`` and RETURNS an Output (else its assertions never run).
"""

from __future__ import annotations

import asyncio
import json
import runpy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from _pulumi_mocks import MockEnv, after_settling, install
from _reference import crd_schema
from conformance.openapi import validate
from pulumi_kuberay import rules
from pulumi_kuberay.operator.crds import CRD_VERSION_LABEL
from pulumi_kuberay.resources._provider_wait_for import RAYCLUSTER_READY, RAYSERVICE_READY, WAIT_FOR_ANNOTATION
from pulumi_kuberay.rules.target import target_from_stack_config

REPO = Path(__file__).resolve().parent.parent
PROGRAM = REPO / "__main__.py"
PROJECT = "pulumi-kuberay"
STACKS = ("dev", "staging", "prod")
RAY = "kubernetes:ray.io/v1:"
CRD = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
#: What pulumi-kuberay:operator declares: the component, its namespace and the chart (a provider-side component,
#: so its children are not registered from the program).
OPERATOR = {
    ("kuberay:index:KubeRayOperator", "kuberay"),
    ("kubernetes:core/v1:Namespace", "kuberay-namespace"),
    ("kubernetes:helm.sh/v4:Chart", "kuberay-chart"),
}
#: dev-crds takes the chart from the reference copy, so its component (``crds: only``) applies that chart's four
#: CRDs; dev leaves them to it (``crds: leave``); prod's chart comes from the official repository, whose CRDs
#: mocks cannot fetch (the engine tier renders them).
CRDS = {(CRD, f"kuberay-{plural}.ray.io") for plural in ("rayclusters", "rayjobs", "rayservices", "raycronjobs")}

EXPECTED: dict[str, set[tuple[str, str]]] = {
    "dev": {
        ("pulumi:providers:kubernetes", "k8s"),
        ("kuberay:index:RayCluster", "dev"),
        (RAY + "RayCluster", "dev"),
        ("kuberay:index:RayJob", "hello"),
        (RAY + "RayJob", "hello"),
    }
    | OPERATOR,
    "staging": {
        ("pulumi:providers:kubernetes", "k8s"),
        ("kuberay:index:RayCluster", "shared"),
        (RAY + "RayCluster", "shared"),
    },
    "prod": {
        ("pulumi:providers:kubernetes", "k8s"),
        ("kuberay:index:RayCluster", "shared"),
        (RAY + "RayCluster", "shared"),
        ("kuberay:index:RayService", "serve"),
        (RAY + "RayService", "serve"),
        ("kuberay:index:RayJob", "nightly-batch"),
        (RAY + "RayJob", "nightly-batch"),
    }
    | OPERATOR,
}


def _as_config_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def stack_config(stack: str) -> dict[str, str]:
    """Pulumi.yaml defaults overlaid with the stack file, as the CLI passes them to the program."""
    project = yaml.safe_load((REPO / "Pulumi.yaml").read_text())
    assert project["name"] == PROJECT and project["stackConfigDir"] == "stacks"
    config: dict[str, str] = {}
    for key, declaration in (project.get("config") or {}).items():
        full = key if ":" in key else f"{PROJECT}:{key}"
        default = declaration.get("default") if isinstance(declaration, dict) else declaration
        if default is not None:
            config[full] = _as_config_value(default)
    stack_file = yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text())
    for key, value in (stack_file.get("config") or {}).items():
        full = key if ":" in key else f"{PROJECT}:{key}"
        config[full] = _as_config_value(value)
    return config


def run_program(config: dict[str, str]) -> tuple[MockEnv, list[pulumi.Output[Any]]]:
    """Run __main__.py under fresh mocks; returns the mocks and the URNs to wait for."""
    env = install(config, stack="mock")
    namespace = runpy.run_path(str(PROGRAM), run_name="__main__")
    components = [c for by_name in namespace["COMPONENTS"].values() for c in by_name.values()]
    urns = [c.urn for c in components] + [c.resource.urn for c in components]
    return env, urns


@pytest.fixture(autouse=True)
def _clean_config() -> Iterator[None]:
    yield
    pulumi.runtime.set_all_config({})


def ray_inputs(env: MockEnv, kind: str, name: str) -> dict[str, Any]:
    matches = [r.inputs for r in env.ray(kind) if r.name == name]
    assert len(matches) == 1, f"expected one {kind} {name!r}"
    return matches[0]


# --------------------------------------------------------------------------------------------------
# Every stack.


@pytest.mark.parametrize("stack", STACKS)
@pulumi.runtime.test
def test_stack_declares_its_resources_on_one_explicit_provider(stack: str) -> pulumi.Output[Any]:
    env, urns = run_program(stack_config(stack))

    def check(*_: Any) -> None:
        created = {(r.typ, r.name) for r in env.created()}
        assert created == EXPECTED[stack]
        provider = env.created("pulumi:providers:kubernetes")[0]
        provider_ref = env.request("pulumi:providers:kubernetes", "k8s")
        for resource in env.created():
            if resource.typ.startswith(RAY):
                assert resource.provider is not None and resource.provider.startswith("urn:")
                assert "pulumi:providers:kubernetes::k8s" in resource.provider
        if stack == "dev":
            assert provider.inputs.get("renderYamlToDirectory") == "rendered/dev"
        else:
            assert "renderYamlToDirectory" not in provider.inputs
            assert provider.inputs.get("context") == stack
        assert provider_ref is not None

    return after_settling(check, *urns)


@pulumi.runtime.test
def test_dev_crds_declares_the_four_crds_only_rendered_beside_dev() -> pulumi.Output[Any]:
    """The dev stack's CRDs are a stack of their own (scripts/dev-up brings it up when they change): the
    operator with ``crds: only`` and no Ray object, rendering where dev renders; dev says which CRDs it has."""
    config = stack_config("dev-crds")
    dev_operator = json.loads(stack_config("dev")["pulumi-kuberay:operator"])
    crds_operator = json.loads(config["pulumi-kuberay:operator"])
    assert (dev_operator["crds"], dev_operator["installedCrds"]) == ("leave", crds_operator["version"])
    assert (crds_operator["crds"], crds_operator["chart"]) == ("only", dev_operator["chart"])
    env, urns = run_program(config)
    assert urns == []  # no Ray component to wait for: wait for the CRDs' registrations instead

    async def settled() -> None:
        for _ in range(6000):  # the mock monitor is called from the SDK's executor threads: yield real time
            if len(env.created(CRD)) >= len(CRDS):
                break
            await asyncio.sleep(0.01)
        created = {(r.typ, r.name) for r in env.created()}
        assert created == {("pulumi:providers:kubernetes", "k8s"), ("kuberay:index:KubeRayOperator", "kuberay")} | CRDS
        labels = {c.inputs["metadata"]["labels"][CRD_VERSION_LABEL] for c in env.created(CRD)}
        assert labels == {crds_operator["version"]}
        provider = env.created("pulumi:providers:kubernetes")[0]
        assert provider.inputs.get("renderYamlToDirectory") == stack_config("dev")["pulumi-kuberay:render_dir"]

    return pulumi.Output.from_input(asyncio.ensure_future(settled()))


@pytest.mark.parametrize("stack", STACKS)
@pulumi.runtime.test
def test_stack_manifests_have_no_critical_finding_and_prod_no_high(stack: str) -> pulumi.Output[Any]:
    config = stack_config(stack)
    target = target_from_stack_config(config)
    env, urns = run_program(config)

    def check(*_: Any) -> None:
        manifests = [r.inputs for r in env.created() if r.typ.startswith(RAY)]
        assert manifests
        for manifest in manifests:
            findings = rules.check(
                manifest,
                kuberay_version=target.kuberay_version,
                feature_gates=target.feature_gates,
                environment=target.environment,
                options=target.options,
            )
            worst = {"critical"} if stack != "prod" else {"critical", "high"}
            bad = [f for f in findings if f.severity in worst]
            assert not bad, f"{manifest['kind']} {manifest['metadata']['name']}: {bad}"
            assert manifest["metadata"]["namespace"] == f"ray-{stack}"

    return after_settling(check, *urns)


@pytest.mark.parametrize("stack", STACKS)
@pulumi.runtime.test
def test_stack_manifests_carry_no_secret_values(stack: str) -> pulumi.Output[Any]:
    env, urns = run_program(stack_config(stack))

    def check(*_: Any) -> None:
        for resource in env.created():
            if not resource.typ.startswith(RAY):
                continue
            text = json.dumps(resource.inputs)
            assert '"redisPassword": {"value"' not in text and "secure:" not in text
            for container_env in _all_env(resource.inputs):
                name = str(container_env.get("name", "")).upper()
                if "PASSWORD" in name or "TOKEN" in name or "SECRET" in name:
                    assert "value" not in container_env and "valueFrom" in container_env

    return after_settling(check, *urns)


def _all_env(obj: Any) -> Iterator[dict[str, Any]]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key == "env" and isinstance(value, list):
                yield from (v for v in value if isinstance(v, dict))
            else:
                yield from _all_env(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _all_env(value)


@pytest.mark.parametrize("stack", STACKS)
@pulumi.runtime.test
def test_stack_manifests_satisfy_the_crd_schema(stack: str) -> pulumi.Output[Any]:
    env, urns = run_program(stack_config(stack))

    def check(*_: Any) -> None:
        for resource in env.created():
            if resource.typ.startswith(RAY):
                manifest = rules.normalise(resource.inputs)  # the mock hands numbers back as floats
                kind = manifest["kind"]
                errors = validate(manifest, crd_schema(kind))
                assert errors == [], f"{kind} {resource.name}: {errors}"

    return after_settling(check, *urns)


def test_pulumi_yaml_declares_the_project_keys_settings_reads() -> None:
    from settings import known_keys  # the repository root is on pytest's pythonpath (pyproject.toml)

    project = yaml.safe_load((REPO / "Pulumi.yaml").read_text())
    declared = {f"{PROJECT}:{key}" for key in project["config"] if ":" not in key}
    assert declared == {key for key in known_keys() if key.startswith(f"{PROJECT}:")}
    for key, declaration in project["config"].items():
        if ":" not in key:  # typed, and optional ones have a default (the CLI requires undefaulted keys)
            assert declaration["type"] in ("string", "object") and "default" in declaration, key
    assert project["runtime"] == {"name": "python", "options": {"toolchain": "pip", "virtualenv": ".venv"}}


# --------------------------------------------------------------------------------------------------
# The shape of each stack.


@pulumi.runtime.test
def test_dev_small_cluster_and_self_contained_job() -> pulumi.Output[Any]:
    env, urns = run_program(stack_config("dev"))

    def check(*_: Any) -> None:
        cluster = ray_inputs(env, "RayCluster", "dev")
        assert cluster["metadata"]["annotations"][WAIT_FOR_ANNOTATION] == RAYCLUSTER_READY
        groups = cluster["spec"]["workerGroupSpecs"]
        assert [(g["groupName"], g["replicas"], g["minReplicas"], g["maxReplicas"]) for g in groups] == [
            ("cpu", 1, 1, 1)
        ]
        assert not cluster["spec"].get("enableInTreeAutoscaling")
        head = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
        assert head["resources"]["limits"] == {"cpu": 1, "memory": "4Gi"}
        job = ray_inputs(env, "RayJob", "hello")
        assert job["spec"]["shutdownAfterJobFinishes"] is True
        assert "rayClusterSpec" in job["spec"] and "clusterSelector" not in job["spec"]
        request = env.request(RAY + "RayJob", "hello")
        assert list(request.replaceOnChanges) == ["spec"] and request.deleteBeforeReplace

    return after_settling(check, *urns)


@pulumi.runtime.test
def test_staging_cpu_workers_autoscale_and_replicas_are_left_to_the_autoscaler() -> pulumi.Output[Any]:
    env, urns = run_program(stack_config("staging"))

    def check(*_: Any) -> None:
        spec = ray_inputs(env, "RayCluster", "shared")["spec"]
        assert spec["enableInTreeAutoscaling"] is True
        assert spec["autoscalerOptions"]["version"] == "v2"
        (group,) = spec["workerGroupSpecs"]
        assert "replicas" not in group
        assert (group["minReplicas"], group["maxReplicas"]) == (0, 5)

    return after_settling(check, *urns)


@pulumi.runtime.test
def test_prod_cluster_cpu_and_gpu_groups_bounds_and_gcs_ft_secret() -> pulumi.Output[Any]:
    env, urns = run_program(stack_config("prod"))

    def check(*_: Any) -> None:
        spec = ray_inputs(env, "RayCluster", "shared")["spec"]
        assert spec["enableInTreeAutoscaling"] is True
        groups = {g["groupName"]: g for g in spec["workerGroupSpecs"]}
        assert set(groups) == {"cpu", "gpu"}
        assert (groups["cpu"]["minReplicas"], groups["cpu"]["maxReplicas"]) == (1, 10)
        assert (groups["gpu"]["minReplicas"], groups["gpu"]["maxReplicas"]) == (0, 4)
        assert all("replicas" not in g for g in groups.values())
        gpu = groups["gpu"]["template"]["spec"]["containers"][0]
        assert gpu["resources"]["limits"]["nvidia.com/gpu"] == 1
        assert gpu["resources"]["requests"]["nvidia.com/gpu"] == 1
        assert gpu["image"] == "rayproject/ray:2.52.0-gpu"
        ft = spec["gcsFaultToleranceOptions"]
        assert ft["redisPassword"] == {
            "valueFrom": {"secretKeyRef": {"name": "ray-redis", "key": "password"}}
        }
        assert spec["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"

    return after_settling(check, *urns)


@pulumi.runtime.test
def test_prod_service_two_routes_new_cluster_upgrades() -> pulumi.Output[Any]:
    env, urns = run_program(stack_config("prod"))

    def check(*_: Any) -> None:
        service = ray_inputs(env, "RayService", "serve")
        assert service["metadata"]["annotations"][WAIT_FOR_ANNOTATION] == RAYSERVICE_READY
        assert service["metadata"]["annotations"]["pulumi.com/timeoutSeconds"] == "1800"
        assert service["spec"]["upgradeStrategy"] == {"type": "NewCluster"}
        apps = yaml.safe_load(service["spec"]["serveConfigV2"])["applications"]
        prefixes = [a["route_prefix"] for a in apps]
        assert len(apps) == 2 and len(set(prefixes)) == 2 and all(p.startswith("/") for p in prefixes)
        assert service["spec"]["rayClusterConfig"]["gcsFaultToleranceOptions"]["redisPassword"]["valueFrom"]

    return after_settling(check, *urns)


@pulumi.runtime.test
def test_prod_batch_job_selects_the_shared_cluster_and_waits_for_it() -> pulumi.Output[Any]:
    env, urns = run_program(stack_config("prod"))

    def check(*_: Any) -> None:
        job = ray_inputs(env, "RayJob", "nightly-batch")
        assert job["spec"]["clusterSelector"] == {"ray.io/cluster": "shared"}
        assert "rayClusterSpec" not in job["spec"]
        assert job["metadata"]["namespace"] == "ray-prod"
        cluster_cr = env.request(RAY + "RayCluster", "shared")
        job_request = env.request(RAY + "RayJob", "nightly-batch")
        deps = set(job_request.dependencies)
        cluster_urns = {u for u in env.monitor.resources if u.endswith("::shared")}
        assert deps & cluster_urns, (deps, cluster_urns)
        assert cluster_cr.parent != job_request.parent

    return after_settling(check, *urns)


# --------------------------------------------------------------------------------------------------
# Bad config fails with a message naming the key.


def _run_expecting_config_error(config: dict[str, str]) -> str:
    @pulumi.runtime.test
    def program() -> pulumi.Output[Any]:
        _, urns = run_program(config)
        return pulumi.Output.all(*urns)

    with pytest.raises(pulumi.RunError) as raised:
        program()
    return str(raised.value)


def test_typo_in_a_config_key_is_named_with_a_suggestion() -> None:
    config = stack_config("dev")
    config[f"{PROJECT}:namspace"] = config.pop(f"{PROJECT}:namespace")
    message = _run_expecting_config_error(config)
    assert "pulumi-kuberay:namspace: unknown config key (did you mean 'pulumi-kuberay:namespace'?)" in message


def test_wrong_type_inside_an_object_names_the_key_and_path() -> None:
    config = stack_config("dev")
    clusters = json.loads(config[f"{PROJECT}:clusters"])
    clusters["dev"]["spec"]["workerGroupSpecs"][0]["minReplicas"] = "1"
    config[f"{PROJECT}:clusters"] = json.dumps(clusters)
    message = _run_expecting_config_error(config)
    assert "pulumi-kuberay:clusters: dev.spec.workerGroupSpecs[0].minReplicas" in message
    assert "expected an integer" in message


def test_unknown_field_in_a_spec_and_bad_rule_target_are_named() -> None:
    config = stack_config("staging")
    clusters = json.loads(config[f"{PROJECT}:clusters"])
    clusters["shared"]["spec"]["enableInTreeAutoscalling"] = True
    config[f"{PROJECT}:clusters"] = json.dumps(clusters)
    config["kuberay:environment"] = "production"
    message = _run_expecting_config_error(config)
    assert "pulumi-kuberay:clusters: shared.spec.enableInTreeAutoscalling: unknown field" in message
    assert "enableInTreeAutoscaling" in message
    assert "kuberay:environment: environment must be one of dev, staging, prod" in message


def test_job_selecting_an_undeclared_cluster_is_named() -> None:
    config = stack_config("prod")
    jobs = json.loads(config[f"{PROJECT}:jobs"])
    jobs["nightly-batch"]["cluster"] = "shraed"
    config[f"{PROJECT}:jobs"] = json.dumps(jobs)
    message = _run_expecting_config_error(config)
    assert "pulumi-kuberay:jobs" in message and "no cluster 'shraed' in clusters (shared)" in message
    assert "(fix: did you mean 'shared'?)" in message


def test_job_cluster_far_from_every_entry_lists_the_entries() -> None:
    config = stack_config("prod")
    jobs = json.loads(config[f"{PROJECT}:jobs"])
    jobs["nightly-batch"]["cluster"] = "zzz"
    config[f"{PROJECT}:jobs"] = json.dumps(jobs)
    message = _run_expecting_config_error(config)
    assert "no cluster 'zzz' in clusters (shared) (fix: name one of the clusters entries (shared))" in message
    assert "did you mean" not in message
