"""The generated Kubernetes models (``model/_k8s.py``): sample round trips, strictness, field spellings."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from _reference import REPO_ROOT, require_reference, sample_documents
from pulumi_kuberay.model import _k8s
from pulumi_kuberay.model._errors import ManifestError, validate_as
from pulumi_kuberay.model._k8s import Container, PodSpec, PodTemplateSpec, Service
from pulumi_kuberay.model.pod import WIRE_CONTEXT
from pydantic import ValidationError

REQUIRED_NAMES = [
    "PodTemplateSpec",
    "PodSpec",
    "Container",
    "EmbeddedObjectMeta",
    "Service",
    "ResourceRequirements",
    "EnvVar",
    "EnvVarSource",
    "EnvFromSource",
    "VolumeMount",
    "SecurityContext",
    "PodSecurityContext",
    "IngressTLS",
    "NetworkPolicyIngressRule",
    "NetworkPolicyEgressRule",
    "Toleration",
    "Volume",
    "ContainerPort",
    "Probe",
    "Affinity",
    "LocalObjectReference",
    "ServiceSpec",
    "ServicePort",
]


def _cluster_specs(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    spec = doc.get("spec") or {}
    kind = doc.get("kind")
    if kind == "RayCluster":
        yield "spec", spec
    elif kind == "RayJob" and "rayClusterSpec" in spec:
        yield "spec.rayClusterSpec", spec["rayClusterSpec"]
    elif kind == "RayService" and "rayClusterConfig" in spec:
        yield "spec.rayClusterConfig", spec["rayClusterConfig"]
    elif kind == "RayCronJob" and "rayClusterSpec" in spec.get("jobTemplate", {}):
        yield "spec.jobTemplate.rayClusterSpec", spec["jobTemplate"]["rayClusterSpec"]


def pod_templates(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, pod template) for every pod template of a Ray document."""
    for prefix, cluster in _cluster_specs(doc):
        head = cluster.get("headGroupSpec") or {}
        if "template" in head:
            yield f"{prefix}.headGroupSpec.template", head["template"]
        for i, group in enumerate(cluster.get("workerGroupSpecs") or []):
            if "template" in group:
                yield f"{prefix}.workerGroupSpecs[{i}].template", group["template"]
    spec = doc.get("spec") or {}
    job = spec.get("jobTemplate", spec) if doc.get("kind") == "RayCronJob" else spec
    if doc.get("kind") in ("RayJob", "RayCronJob") and "submitterPodTemplate" in job:
        yield "spec.submitterPodTemplate", job["submitterPodTemplate"]


def services(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for prefix, cluster in _cluster_specs(doc):
        head = cluster.get("headGroupSpec") or {}
        if "headService" in head:
            yield f"{prefix}.headGroupSpec.headService", head["headService"]
    spec = doc.get("spec") or {}
    if doc.get("kind") == "RayService" and "serveService" in spec:
        yield "spec.serveService", spec["serveService"]


def _all_templates() -> list[tuple[str, dict[str, Any]]]:
    require_reference()
    out: list[tuple[str, dict[str, Any]]] = []
    for name, index, doc in sample_documents():
        if str(doc.get("apiVersion", "")).startswith("ray.io/"):
            out += [(f"{name}#{index} {path}", t) for path, t in pod_templates(doc)]
    return out


def test_public_names_exist() -> None:
    missing = [n for n in REQUIRED_NAMES if not hasattr(_k8s, n)]
    assert missing == []
    assert set(REQUIRED_NAMES) <= set(_k8s.__all__)


def test_every_sample_pod_template_round_trips() -> None:
    templates = _all_templates()
    assert len(templates) > 100
    failures: list[str] = []
    for where, template in templates:
        try:
            # validated as a manifest is (wire context): explicit nulls in a sample are kept, not dropped
            rendered = PodTemplateSpec.model_validate(template, context=WIRE_CONTEXT).to_dict()
        except ValidationError as exc:
            failures.append(f"{where}: {exc}")
            continue
        if rendered != template:
            failures.append(f"{where}: rendered differently")
    assert failures == []


def test_every_sample_service_round_trips() -> None:
    require_reference()
    found = 0
    for name, index, doc in sample_documents():
        for path, svc in services(doc):
            found += 1
            assert Service.model_validate(svc).to_dict() == svc, f"{name}#{index} {path}"
    assert found > 0


def test_int_or_string_quantities_accept_both_spellings() -> None:
    container = Container.model_validate(
        {"name": "ray", "resources": {"limits": {"cpu": 2, "memory": "4Gi"}, "requests": {"cpu": "500m"}}}
    )
    assert container.to_dict()["resources"] == {
        "limits": {"cpu": 2, "memory": "4Gi"},
        "requests": {"cpu": "500m"},
    }
    probe = {"name": "ray", "livenessProbe": {"httpGet": {"port": "dashboard", "path": "/"}}}
    assert Container.model_validate(probe).to_dict() == probe


def test_float_quantity_is_rejected_like_the_api_server_does() -> None:
    # x-kubernetes-int-or-string admits integers and strings only: `cpu: 0.5` must be written "500m" / "0.5".
    with pytest.raises(ValidationError):
        Container.model_validate({"name": "ray", "resources": {"limits": {"cpu": 0.5}}})


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        ({"name": "ray", "imagePullPolicyy": "Always"}, "imagePullPolicyy"),
        ({"name": "ray", "resource": {"limits": {"cpu": 1}}}, "resource"),
        ({"name": "ray", "ports": [{"containerPort": 6379, "nam": "gcs"}]}, "ports[0].nam"),
    ],
)
def test_typo_in_container_is_rejected_with_its_path(doc: dict[str, Any], path: str) -> None:
    with pytest.raises(ManifestError) as info:
        validate_as(Container, doc)
    assert info.value.paths == [path]
    assert info.value.problems[0].kind == "unknown_field"


def test_typo_deep_in_pod_template_has_full_path() -> None:
    template = {"spec": {"containers": [{"name": "a"}, {"name": "b", "imagePullPolicyy": "Always"}]}}
    with pytest.raises(ManifestError) as info:
        validate_as(PodTemplateSpec, template, prefix="spec.headGroupSpec.template")
    assert info.value.paths == ["spec.headGroupSpec.template.spec.containers[1].imagePullPolicyy"]
    assert "imagePullPolicy" in str(info.value)


def test_wrong_types_are_rejected() -> None:
    with pytest.raises(ManifestError) as info:
        validate_as(Container, {"name": "ray", "ports": [{"containerPort": "6379"}], "tty": "true"})
    assert sorted(info.value.paths) == ["ports[0].containerPort", "tty"]


def test_required_fields_are_required() -> None:
    with pytest.raises(ManifestError) as info:
        validate_as(PodSpec, {"containers": [{"image": "rayproject/ray"}]})
    assert info.value.paths == ["containers[0].name"]
    assert info.value.problems[0].kind == "missing"


def test_acronym_fields_keep_their_crd_spelling() -> None:
    doc = {"containers": [{"name": "ray"}], "hostIPC": True, "hostPID": False, "setHostnameAsFQDN": True}
    spec = PodSpec.model_validate(doc)
    assert spec.host_ipc is True
    assert spec.set_hostname_as_fqdn is True
    assert spec.to_dict() == doc
    by_name = PodSpec(containers=[Container(name="ray")], host_ipc=True)
    assert by_name.to_dict() == {"containers": [{"name": "ray"}], "hostIPC": True}


def test_keyword_fields_get_a_trailing_underscore() -> None:
    rule = _k8s.NetworkPolicyIngressRule.model_validate(
        {"from": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": []}}]}
    )
    assert rule.from_ is not None and rule.from_[0].ip_block is not None
    assert rule.from_[0].ip_block.except_ == []
    assert rule.to_dict() == {"from": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": []}}]}


def test_only_set_fields_are_rendered() -> None:
    assert PodTemplateSpec.model_validate({"spec": {"containers": [{"name": "x"}]}}).to_dict() == {
        "spec": {"containers": [{"name": "x"}]}
    }


def test_import_loads_only_pydantic_and_the_model_package() -> None:
    # What importing the Kubernetes types costs is shown by `python -m bench` (the import row), not by a timed
    # assert; what this holds is stable: the module pulls in pydantic and our own model package, never pulumi,
    # the YAML parser or the rule catalogue (the functional core stays light for lint and the pack).
    code = (
        "import sys; before = set(sys.modules); import pulumi_kuberay.model._k8s; "
        "print('\\n'.join(sorted(set(sys.modules) - before)))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    ours = sorted(m for m in loaded if m.startswith("pulumi_kuberay"))
    assert ours == [
        "pulumi_kuberay",
        "pulumi_kuberay.kuberay",  # the leaf of KubeRay facts: the int32/int64 bounds of the schema
        "pulumi_kuberay.kuberay.api",
        "pulumi_kuberay.kuberay.kubernetes",
        "pulumi_kuberay.kuberay.names",
        "pulumi_kuberay.kuberay.quantity",  # the one quantity parser (model._quantity reads amounts with it)
        "pulumi_kuberay.kuberay.resources",  # IsGPUResourceKey (the fix of a bad GPU amount)
        "pulumi_kuberay.kuberay.states",
        "pulumi_kuberay.model",
        "pulumi_kuberay.model._base",
        "pulumi_kuberay.model._deferred",
        "pulumi_kuberay.model._errors",
        "pulumi_kuberay.model._field_docs",
        "pulumi_kuberay.model._k8s",
        "pulumi_kuberay.model._k8s_checks",  # what the API server refuses beyond the schema (Toleration)
        "pulumi_kuberay.model._quantity",
        "pulumi_kuberay.model.suggest",
    ]
    assert "pydantic" in loaded
    assert [m for m in loaded if m.split(".")[0] in {"pulumi", "pulumi_kubernetes", "yaml", "grpc"}] == []


def test_generated_file_is_up_to_date() -> None:
    require_reference()
    tool = REPO_ROOT / "tools" / "gen_k8s_models.py"
    result = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, "model/_k8s.py is stale: run tools/gen_k8s_models.py"


# --------------------------------------------------------------------------------------------------
# The generator's naming and deduplication (synthetic schemas, no reference material needed).


def _generator_module() -> Any:
    path = REPO_ROOT / "tools" / "gen_k8s_models.py"
    spec = importlib.util.spec_from_file_location("gen_k8s_models", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_k8s_models", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("json_name", "attr"),
    [
        ("hostIPC", "host_ipc"),
        ("podIPs", "pod_ips"),
        ("targetWWNs", "target_wwns"),
        ("setHostnameAsFQDN", "set_hostname_as_fqdn"),
        ("volumeID", "volume_id"),
        ("seLinuxOptions", "se_linux_options"),
        ("from", "from_"),
        ("except", "except_"),
        ("schema", "schema_"),
        ("copy", "copy_"),
        ("json", "json_"),
        ("validate", "validate_"),
        ("fields", "fields_"),
    ],
)
def test_generator_attribute_names(json_name: str, attr: str) -> None:
    assert _generator_module().snake_case(json_name) == attr


def test_generator_dedups_ignoring_descriptions_and_qualifies_clashes() -> None:
    gen_mod = _generator_module()
    leaf = {"type": "object", "properties": {"x": {"type": "string", "description": "one"}}}
    same_leaf = {"type": "object", "properties": {"x": {"type": "string", "description": "two"}}}
    other_leaf = {"type": "object", "properties": {"y": {"type": "integer"}}}
    root = {
        "type": "object",
        "properties": {
            "left": {"type": "object", "properties": {"widget": leaf}},
            "right": {"type": "object", "properties": {"widget": same_leaf, "extra": {"type": "boolean"}}},
            "odd": {"type": "object", "properties": {"widget": other_leaf, "n": {"type": "number"}}},
            "widgets": {"type": "array", "items": other_leaf},
        },
    }
    gen = gen_mod.Generator()
    gen.model_for(root, "Root", from_table=True, parent="", origin="root")
    names = [c.name for c in gen.order]
    assert names == ["Widget", "Left", "Right", "OddWidget", "Odd", "Root"]
    root_cls = gen.by_name["Root"]
    assert [gen_mod.render_type(f.type) for f in root_cls.fields] == [
        "Left",
        "Right",
        "Odd",
        "list[OddWidget]",
    ]
