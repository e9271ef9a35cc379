"""One mistake, one finding, the whole truth at once: the same problem and did-you-mean for a Serve config given as a
dict, a typed model or YAML; every mistake of a model in one error; each message naming who refuses (or ignores)
the value; manifests the API server stores are taken; the typed Toleration refuses what the API server refuses."""

from __future__ import annotations

import copy
from typing import Any

import pulumi_kuberay as kr
import pytest
import yaml
from pulumi_kuberay import rules
from pulumi_kuberay.convert import convert_documents
from pulumi_kuberay.model import ManifestError
from pulumi_kuberay.model._k8s_checks import pod_refusals
from pulumi_kuberay.model.manifest import load_manifest, load_stored
from pulumi_kuberay.rules.target import TargetError, target_from_stack_config
from pydantic import ValidationError

_HEAD = kr.HeadGroupSpec(image="rayproject/ray:2.52.0", cpu=2, memory="8Gi")
_TWO_ON_CHAT = {
    "applications": [
        {"name": "a", "import_path": "m:a", "route_prefix": "/chat"},
        {"name": "b", "import_path": "m:b", "route_prefix": "/chat"},
    ]
}


def _service_problems(serve_config: Any) -> list[tuple[str, str, str | None]]:
    with pytest.raises(ValidationError) as info:
        kr.RayServiceSpec(ray_cluster_config=kr.RayClusterSpec(head_group_spec=_HEAD), serve_config_v2=serve_config)
    problems = info.value.problems  # type: ignore[attr-defined]
    return [(p.path, p.message, p.fix) for p in problems]


def test_a_dict_serve_config_with_two_applications_on_one_route_is_one_problem() -> None:
    """Not also the false ``serve_config_v2: expected a string, got dict`` (the dict is read as a Serve config)."""
    ((path, message, _fix),) = _service_problems(_TWO_ON_CHAT)
    assert path == "serve_config_v2.applications[1].route_prefix"
    assert message == "route_prefix '/chat' is already used by applications[0] ('a')"
    fixed = copy.deepcopy(_TWO_ON_CHAT)
    fixed["applications"][1]["route_prefix"] = "/b"
    kr.RayServiceSpec(ray_cluster_config=kr.RayClusterSpec(head_group_spec=_HEAD), serve_config_v2=fixed)


def test_a_serve_key_typo_gets_the_same_problem_as_a_dict_a_model_and_yaml() -> None:
    typo = {"applications": [{"name": "a", "import_path": "m:a", "route_prefx": "/chat"}]}
    ((dict_path, dict_message, dict_fix),) = _service_problems(typo)
    ((yaml_path, yaml_message, yaml_fix),) = _service_problems(yaml.safe_dump(typo))
    with pytest.raises(ValidationError) as info:
        kr.ServeApplication(name="a", import_path="m:a", route_prefx="/chat")  # type: ignore[call-arg]
    (typed,) = info.value.problems  # type: ignore[attr-defined]
    assert dict_path == "serve_config_v2.applications[0].route_prefx"
    assert yaml_path == dict_path  # the keyword's name, however the config is given
    assert dict_message == yaml_message == typed.message == "unknown field 'route_prefx' (Ray Serve would silently ignore it)"
    assert dict_fix == yaml_fix == typed.fix == "did you mean 'route_prefix'?"


def test_a_logging_config_typo_says_ray_serve_refuses_the_config() -> None:
    logging: Any = {"log_levl": "INFO"}
    with pytest.raises(ValidationError) as info:
        kr.ServeConfig(applications=[kr.ServeApplication(import_path="m:a")], logging_config=logging)
    (problem,) = info.value.problems  # type: ignore[attr-defined]
    assert problem.message == "unknown field 'log_levl' (Ray Serve refuses the whole config: its logging_config forbids unknown keys)"
    assert problem.fix == "did you mean 'log_level'?"


def test_a_model_lists_every_mistake_in_one_error() -> None:
    """A wrong type stops pydantic before the model validators; the first of those stops the rest: all three here."""
    with pytest.raises(ValidationError) as info:
        kr.WorkerGroupSpec(group_name="w", memory="8 GiB", min_replicas=4, max_replicas=2, gpu="one")  # type: ignore[arg-type]
    problems = info.value.problems  # type: ignore[attr-defined]
    assert [(p.path, p.message) for p in problems] == [
        ("gpu", "expected an integer, got str 'one'"),
        ("min_replicas", "minReplicas (4) > maxReplicas (2) in worker group 'w'"),
        ("memory", "memory '8 GiB' is not a Kubernetes quantity"),
    ]
    assert str(info.value).startswith("WorkerGroupSpec is invalid (3 problems):")


def test_a_model_with_one_mistake_still_says_one() -> None:
    with pytest.raises(ValidationError) as info:
        kr.WorkerGroupSpec(group_name="w", min_replicas=4, max_replicas=2)
    assert str(info.value).startswith("WorkerGroupSpec is invalid (1 problem):")


def test_a_validator_error_names_the_field_as_the_python_keywords_spelt_it() -> None:
    """A keyword or a snake_case dict: the Python name; a camelCase dict (as copied from YAML): the CRD name."""
    head = kr.HeadGroupSpec(image="rayproject/ray:2.52.0")
    spelt: list[Any] = [
        {"group_name": "w", "min_replicas": 4, "max_replicas": 2},
        {"groupName": "w", "minReplicas": 4, "maxReplicas": 2},
    ]
    paths = []
    for group in spelt:
        with pytest.raises(ValidationError) as info:
            kr.RayClusterSpec(head_group_spec=head, worker_group_specs=[group])
        paths += [p.path for p in info.value.problems]  # type: ignore[attr-defined]
    assert paths == ["worker_group_specs[0].min_replicas", "worker_group_specs[0].minReplicas"]
    toleration: Any = {"key": "k", "effect": "NoSchedule", "toleration_seconds": 30}
    with pytest.raises(ValidationError) as info:
        kr.PodSpec(containers=[], tolerations=[toleration])
    assert [p.path for p in info.value.problems] == ["tolerations[0].toleration_seconds"]  # type: ignore[attr-defined]


def test_load_manifest_keeps_the_crd_path_of_a_validator_error() -> None:
    doc = _cluster_manifest()
    doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"memory": "8 GiB"}}
    with pytest.raises(ManifestError) as info:
        load_manifest(doc)
    assert info.value.paths == ["spec.workerGroupSpecs[0].template.spec.containers[0].resources.limits.memory"]


def test_what_only_the_operator_refuses_loads_and_the_rule_reports_it() -> None:
    """minReplicas > maxReplicas: the CRD has no bound, the API server stores it, ValidateRayClusterSpec refuses it.
    load_manifest, load_stored and convert take it; the rule reports it (critical); from Python it is refused."""
    doc = _cluster_manifest()
    doc["spec"]["workerGroupSpecs"][0]["minReplicas"] = 4
    assert load_manifest(doc).to_manifest() == doc
    assert load_stored(doc).stored == doc
    found = [(f.rule_id, f.severity, f.path) for f in rules.check(doc) if f.severity == "critical"]
    assert found == [("worker-min-exceeds-max", "critical", "spec.workerGroupSpecs[0].minReplicas")]
    result = convert_documents([(doc, "cluster.yaml:1")])
    assert result.errors == []
    assert "min_replicas=4" in result.text and "critical [worker-min-exceeds-max]" in result.text
    assert "the typed model refuses it too, so the program stops until it is fixed" in " ".join(
        line.lstrip("# ") for line in result.text.splitlines()
    )
    with pytest.raises(ValidationError, match=r"minReplicas \(4\) > maxReplicas \(1\) in worker group 'gpu'"):
        kr.RayClusterSpec.model_validate(doc["spec"])


@pytest.mark.parametrize(
    ("keywords", "path", "fix"),
    [
        ({"key": "nvidia.com/gpu", "operator": "Exist"}, "operator", "did you mean 'Exists'?"),
        ({"operator": "Exist"}, "operator", "did you mean 'Exists'?"),  # not what it fails once taken out
        ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedul"}, "effect", "did you mean 'NoSchedule'?"),
        ({"operator": "Equal", "value": "x"}, "operator", "set operator='Exists', or give the taint's key"),
        ({"key": "k", "operator": "Exists", "value": "x"}, "value", "remove value, or use operator='Equal'"),
        ({"key": "k", "effect": "NoSchedule", "toleration_seconds": 30}, "toleration_seconds", "set effect='NoExecute', or remove tolerationSeconds"),
    ],
)
def test_toleration_refuses_what_the_api_server_refuses_in_a_pod(keywords: dict[str, Any], path: str, fix: str) -> None:
    with pytest.raises(ValidationError) as info:
        kr.Toleration(**keywords)
    (problem,) = info.value.problems  # type: ignore[attr-defined]
    assert (problem.path, problem.fix) == (path, fix)
    assert problem.message.endswith(": the API server refuses every Pod KubeRay creates from this template")


@pytest.mark.parametrize(
    "keywords",
    [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "dedicated", "operator": "Equal", "value": "ray", "effect": "PreferNoSchedule"},
        {"operator": "Exists"},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "toleration_seconds": 30},
        {"key": "k", "operator": "", "effect": ""},
    ],
)
def test_toleration_takes_what_the_api_server_takes(keywords: dict[str, Any]) -> None:
    assert kr.Toleration(**keywords).to_dict()


def _cluster_manifest(**worker_spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "c"},
        "spec": {
            "headGroupSpec": {
                "rayStartParams": {},
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.52.0"}]}},
            },
            "workerGroupSpecs": [
                {
                    "groupName": "gpu",
                    "maxReplicas": 1,
                    "rayStartParams": {},
                    "template": {"spec": {"containers": [{"name": "ray-worker", "image": "rayproject/ray:2.52.0"}], **worker_spec}},
                }
            ],
        },
    }


def test_a_yaml_toleration_the_api_server_refuses_is_named_with_both_mistakes() -> None:
    doc = _cluster_manifest(tolerations=[{"key": "nvidia.com/gpu", "operator": "Exist", "effect": "NoSchedul"}])
    base = "spec.workerGroupSpecs[0].template.spec.tolerations[0]"
    assert sorted((p.path, p.fix) for p in pod_refusals(load_manifest(doc).spec, "spec")) == [
        (f"{base}.effect", "did you mean 'NoSchedule'?"),
        (f"{base}.operator", "did you mean 'Exists'?"),
    ]
    found = [(f.rule_id, f.severity, f.path) for f in rules.check(doc) if "tolerations" in f.path]
    assert sorted(found) == [
        ("pod-spec-value-invalid", "critical", f"{base}.effect"),
        ("pod-spec-value-invalid", "critical", f"{base}.operator"),
    ]


def test_a_bad_toleration_is_stored_by_the_api_server_so_load_stored_and_convert_take_it() -> None:
    """The CRD's schema does not check a toleration's enums: the object is stored, and every Pod KubeRay creates
    from it is refused. load_manifest and load_stored load and list it; convert converts it with a note."""
    doc = _cluster_manifest(tolerations=[{"key": "nvidia.com/gpu", "operator": "Exist", "effect": "NoSchedul"}, {"operator": "Equal"}])
    base = "spec.workerGroupSpecs[0].template.spec.tolerations"
    stored = load_stored(doc)
    assert stored.stored == doc
    assert [(p.path, p.fix) for p in stored.pod_refusals] == [
        (f"{base}[0].operator", "did you mean 'Exists'?"),
        (f"{base}[0].effect", "did you mean 'NoSchedule'?"),
        (f"{base}[1].operator", "set operator='Exists', or give the taint's key"),
    ]
    assert all(p.message.endswith(": the API server refuses every Pod KubeRay creates from this template") for p in stored.pod_refusals)
    assert len(pod_refusals(load_manifest(doc).spec, "spec")) == 3
    result = convert_documents([(doc, "cluster.yaml:1")])
    assert result.errors == []
    assert 'operator="Exist"' in result.text and 'effect="NoSchedul"' in result.text
    assert f"though it then refuses every Pod made with {base}[0], {base}[1]" in " ".join(
        line.lstrip("# ") for line in result.text.splitlines()
    )
    assert result.text.count("critical [pod-spec-value-invalid]") == 3


def test_an_unknown_toleration_operator_is_one_refusal_in_load_stored() -> None:
    """Not also "a toleration without a key must have operator Exists": the operator is said once."""
    stored = load_stored(_cluster_manifest(tolerations=[{"operator": "Exist"}]))
    assert [p.path.rsplit(".", 1)[-1] for p in stored.pod_refusals] == ["operator"]


def test_load_manifest_reports_every_mistake_of_a_document_at_once() -> None:
    """Field errors stop pydantic before the model validators: both here. What the API server stores loads (the
    toleration's refusals are recorded, minReplicas > maxReplicas is the operator's): no problem of the load."""
    doc = _cluster_manifest(tolerations=[{"key": "nvidia.com/gpu", "operator": "Exist", "effect": "NoSchedul"}])
    group = doc["spec"]["workerGroupSpecs"][0]
    group["minReplicas"], group["maxReplicas"] = 4, 2
    group["template"]["spec"]["containers"][0]["resources"] = {"limits": {"memory": "8 GiB", "nvidia.com/gpu": "one"}}
    with pytest.raises(ManifestError) as info:
        load_manifest(doc)
    base = "spec.workerGroupSpecs[0]"
    assert [(p.path, p.fix) for p in info.value.problems] == [
        (f"{base}.template.spec.containers[0].resources.limits.memory", 'write "8Gi" (8 x 2^30 bytes; "8G" means 8 x 10^9)'),
        (f"{base}.template.spec.containers[0].resources.limits['nvidia.com/gpu']", "write a whole number of units, e.g. 1"),
    ]
    assert str(info.value).startswith("RayCluster 'c' is invalid (2 problems):")


def test_load_manifest_does_not_report_what_taking_a_wrong_value_out_would_cause() -> None:
    """Without its bad operator this toleration would have no key and no operator: not a second problem."""
    doc = _cluster_manifest(tolerations=[{"operator": "Exist"}])
    assert [p.path.rsplit(".", 1)[-1] for p in pod_refusals(load_manifest(doc).spec)] == ["operator"]


# ------------------------------------------------------------------------------------------------------------
# Serve keys: one finding each, saying what Ray Serve does; documents the API server stores are taken


_AMOUNTS = {"cpu": "2", "memory": "8Gi"}


def _service_manifest(serve: str, *, ray: str = "2.53.0") -> dict[str, Any]:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "s"},
        "spec": {
            "serveConfigV2": serve,
            "rayClusterConfig": {
                "rayVersion": ray,
                "headGroupSpec": {
                    "rayStartParams": {},
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "ray-head",
                                    "image": f"rayproject/ray:{ray}",
                                    "resources": {"limits": _AMOUNTS, "requests": _AMOUNTS},
                                }
                            ]
                        }
                    },
                },
            },
        },
    }


_IGNORED_KEYS = (
    "http_options:\n"
    "  location: EveryNode\n"
    "applications:\n"
    "  - name: a\n"
    "    import_path: m:a\n"
    "    route_prefix: /a\n"
    "    deployments:\n"
    "      - name: D\n"
    "        autoscaling_config:\n"
    "          min_replicas: 1\n"
    "          max_replicas: 3\n"
    "          max_ongoing_requests: 5\n"
    "          target_num_ongoing_requests_per_replica: 2\n"
)


def test_a_serve_key_typo_in_yaml_draws_one_finding_that_names_ray_serve() -> None:
    """Not also a critical schema-invalid-value on the same line: the API server never reads the string."""
    doc = _service_manifest("applications:\n  - name: a\n    import_path: m:a\n    route_prefx: /a\n")
    found = [f for f in rules.check(doc) if f.path.startswith("spec.serveConfigV2.applications[0].route_prefx")]
    assert [(f.rule_id, f.severity) for f in found] == [("serve-config-unknown-key", "high")]
    assert "Ray Serve silently ignores it" in found[0].message and "API server" not in found[0].message
    assert "(did you mean 'route_prefix'?)" in found[0].message  # the model's guess too


def test_serve_keys_ray_accepts_and_ignores_are_at_most_high_and_the_document_loads() -> None:
    """Ray 2.53's ServeDeploySchema parses both configs and drops these keys (checked with its Serve venv): an
    ignored setting, not a Serve application that fails. The API server stores the document unchanged."""
    doc = _service_manifest(_IGNORED_KEYS)
    loaded = load_manifest(doc)  # the API server stores it: so does load_manifest
    assert isinstance(loaded.spec, kr.RayServiceSpec)
    assert sorted(p.path for p in loaded.spec.serve_problems) == [
        "spec.serveConfigV2.applications[0].deployments[0].autoscaling_config.max_ongoing_requests",
        "spec.serveConfigV2.http_options.location",
    ]
    findings = rules.check(doc)
    assert [f.rule_id for f in findings if f.severity == "critical"] == []
    serve = {(f.rule_id, f.severity, f.path.rsplit(".", 1)[-1]) for f in findings if f.path.startswith("spec.serveConfigV2")}
    assert serve == {
        ("serve-config-key-version", "high", "target_num_ongoing_requests_per_replica"),
        ("serve-config-unknown-key", "high", "max_ongoing_requests"),  # the model's did-you-mean: a key meant
        ("serve-config-unknown-key", "medium", "location"),
    }
    result = convert_documents([(doc, "rayservice.yaml:1")])
    code = result.text
    assert result.errors == []
    assert "serveConfigV2 kept as it is, with" in code and "Ray Serve would silently ignore it" in code


def test_a_serve_key_the_release_drops_is_high_one_it_refuses_is_critical() -> None:
    dropped = _service_manifest(_IGNORED_KEYS, ray="2.33.0")
    (finding,) = [f for f in rules.check(dropped) if f.rule_id == "serve-config-key-version"]
    assert finding.severity == "high" and "the setting has no effect (high, not critical: Ray accepts the config and the applications still deploy)" in finding.message


# ------------------------------------------------------------------------------------------------------------
# Stack config


def test_every_bad_stack_config_value_is_explained() -> None:
    with pytest.raises(TargetError) as info:
        target_from_stack_config({"kuberay:environment": "production", "kuberay:featureGates": '{"RayCronjob": true}'})
    assert [key for key, _ in info.value.bad] == ["kuberay:environment", "kuberay:featureGates"]
    environment, gates = (why for _, why in info.value.bad)
    assert "did you mean 'prod'?" in environment
    assert gates.startswith("unknown KubeRay feature gate 'RayCronjob' (did you mean 'RayCronJob'?)")


def test_the_components_name_every_bad_stack_config_value_with_its_fix() -> None:
    from pulumi_kuberay.resources._shared import StackConfigValueError, _target_of

    raw = (("kuberay:environment", "production"), ("kuberay:gpuBudget", "-3"), ("kuberay:version", "1.7.0"))
    with pytest.raises(StackConfigValueError) as info:
        _target_of(raw, None, None, None)
    lines = str(info.value).splitlines()
    assert lines[0] == "stack config (kuberay:environment, kuberay:gpuBudget): 2 values cannot be used:"
    assert lines[1].startswith("  - kuberay:environment: environment must be one of dev, staging, prod, got 'production'")
    assert lines[2].startswith("  - kuberay:gpuBudget: kuberay:gpuBudget must be a non-negative integer")
    assert all(line.endswith("<a value named above>)") for line in lines[1:])
