"""The typed RayService spec (``model/service.py``): serveConfigV2 handling, upgrade strategy,
deprecations.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
import yaml
from _reference import sample_documents
from pulumi_kuberay.model._errors import ManifestError
from pulumi_kuberay.model.cluster import HeadGroupSpec, RayClusterSpec, WorkerGroupSpec
from pulumi_kuberay.model.manifest import ObjectMeta, load_manifest
from pulumi_kuberay.model.serve import HTTPOptions, ServeApplication, ServeConfig
from pulumi_kuberay.model.service import (
    ClusterUpgradeOptions,
    KubeRayDeprecationWarning,
    RayServiceManifest,
    RayServiceSpec,
    ServiceUpgradeStrategy,
)
from pydantic import ValidationError

SERVE_TEXT = """\
applications:
  - name: fruit_app
    import_path: fruit.deployment_graph   # a comment that must survive
    route_prefix: /fruit
"""


def _cluster(serve_port: int | None = None) -> RayClusterSpec:
    ports = None if serve_port is None else {"serve": serve_port}
    return RayClusterSpec(
        image="rayproject/ray:2.52.0",
        head_group_spec=HeadGroupSpec(
            template=_template("ray-head", ports) if ports else None,
            cpu=None if ports else 1,
            memory=None if ports else "2Gi",
        ),
    )


def _template(name: str, ports: dict[str, int]) -> Any:
    from pulumi_kuberay.model._k8s import PodTemplateSpec

    return PodTemplateSpec.model_validate(
        {
            "spec": {
                "containers": [
                    {
                        "name": name,
                        "image": "rayproject/ray:2.52.0",
                        "ports": [{"name": k, "containerPort": v} for k, v in ports.items()],
                    }
                ]
            }
        }
    )


def _doc(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "rayClusterConfig": {
            "headGroupSpec": {
                "rayStartParams": {},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-head",
                                "image": "rayproject/ray:2.52.0",
                                "ports": [{"name": "serve", "containerPort": 8000}],
                            }
                        ]
                    }
                },
            }
        }
    }
    base.update(spec)
    return {"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": {"name": "svc"}, "spec": base}


def _problems(**spec: Any) -> list[tuple[str, str]]:
    with pytest.raises(ManifestError) as info:
        load_manifest(_doc(**spec))
    return [(p.path, p.message) for p in info.value.problems]


def _serve_problems(**spec: Any) -> list[tuple[str, str]]:
    """What Ray Serve would say of a manifest's serveConfigV2: the API server stores the string unread, so
    load_manifest takes the document and records Serve's verdict."""
    loaded = load_manifest(_doc(**spec))
    assert isinstance(loaded.spec, RayServiceSpec)
    return [(p.path, p.message) for p in loaded.spec.serve_problems]


def test_serve_config_object_renders_as_yaml_string() -> None:
    config = ServeConfig(applications=[ServeApplication(name="a", import_path="m:app", route_prefix="/a")])
    spec = RayServiceSpec(ray_cluster_config=_cluster(), serve_config_v2=config)
    rendered = spec.to_dict()["serveConfigV2"]
    assert rendered == "applications:\n- name: a\n  import_path: m:app\n  route_prefix: /a\n"
    assert spec.serve_config is config


def test_serve_config_dict_from_python_is_typed() -> None:
    data: Any = {"applications": [{"name": "a", "import_path": "m:app"}]}
    spec = RayServiceSpec(ray_cluster_config=_cluster(), serve_config_v2=data)
    assert isinstance(spec.serve_config_v2, ServeConfig)
    assert spec.to_dict()["serveConfigV2"] == "applications:\n- name: a\n  import_path: m:app\n"


def test_serve_config_string_is_kept_byte_for_byte_and_parsed() -> None:
    spec = RayServiceSpec(ray_cluster_config=_cluster(), serve_config_v2=SERVE_TEXT)
    assert spec.to_dict()["serveConfigV2"] == SERVE_TEXT
    assert spec.serve_config is not None and spec.serve_config.routes() == {"fruit_app": "/fruit"}


def test_serve_config_string_is_validated_with_paths() -> None:
    bad = "applications:\n  - name: a\n    import_path: m:a\n  - name: b\n    import_path: m:b\n"
    assert _serve_problems(serveConfigV2=bad) == [
        (
            "spec.serveConfigV2.applications[1].route_prefix",
            "route_prefix '/' is already used by applications[0] ('a') "
            "(an application without route_prefix gets '/'; only one application may rely on that)",
        )
    ]
    assert _serve_problems(serveConfigV2="applications: [")[0][0] == "spec.serveConfigV2"


def test_several_serve_problems_are_all_named() -> None:
    text = "applications:\n- import_path: ab\n  route_prefix: x\n"
    assert [path for path, _ in _serve_problems(serveConfigV2=text)] == [
        "spec.serveConfigV2.applications[0].import_path",
        "spec.serveConfigV2.applications[0].route_prefix",
    ]
    with pytest.raises(ValidationError) as info:  # from Python: one error names them all
        RayServiceSpec(ray_cluster_config=_cluster(), serve_config_v2=text)
    assert "(and 1 more: serveConfigV2.applications[0].route_prefix: route_prefix 'x' must start with '/'" in str(info.value)


def test_serve_config_must_be_a_string_in_a_manifest() -> None:
    assert _problems(serveConfigV2={"applications": []}) == [
        ("spec.serveConfigV2", "serveConfigV2 must be a YAML string in a manifest, got dict")
    ]


def test_serve_port_must_match_the_serve_container_port() -> None:
    config = ServeConfig(
        applications=[ServeApplication(import_path="m:app")], http_options=HTTPOptions(port=9000)
    )
    with pytest.raises(ValidationError, match=r"container port 'serve' \(8000\) != Serve's HTTP port \(9000"):
        RayServiceSpec(ray_cluster_config=_cluster(serve_port=8000), serve_config_v2=config)
    RayServiceSpec(ray_cluster_config=_cluster(serve_port=9000), serve_config_v2=config)


def test_serve_port_mismatch_on_a_worker_is_located() -> None:
    doc = _doc(serveConfigV2="applications:\n- import_path: m:a\nhttp_options:\n  port: 8000\n")
    doc["spec"]["rayClusterConfig"]["workerGroupSpecs"] = [
        {
            "groupName": "w",
            "rayStartParams": {},
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "ray-worker",
                            "image": "rayproject/ray:2.52.0",
                            "ports": [
                                {"name": "metrics", "containerPort": 8080},
                                {"name": "serve", "containerPort": 9000},
                            ],
                        }
                    ]
                }
            },
        }
    ]
    loaded = load_manifest(doc)  # the API server stores it: only Ray Serve's traffic misses the port
    assert isinstance(loaded.spec, RayServiceSpec)
    assert [p.path for p in loaded.spec.serve_problems] == [
        "spec.rayClusterConfig.workerGroupSpecs[0].template.spec.containers[0].ports[1].containerPort"
    ]


def test_generated_head_ports_use_8000() -> None:
    config = ServeConfig(
        applications=[ServeApplication(import_path="m:app")], http_options=HTTPOptions(port=9000)
    )
    with pytest.raises(ValidationError, match=r"containerPort 9000 or serveConfigV2 http_options\.port 8000"):
        RayServiceSpec(ray_cluster_config=_cluster(), serve_config_v2=config)


def test_upgrade_strategy() -> None:
    strategy = ServiceUpgradeStrategy(
        type="NewClusterWithIncrementalUpgrade",
        cluster_upgrade_options=ClusterUpgradeOptions(
            gateway_class_name="istio", step_size_percent=10, interval_seconds=30, max_surge_percent=10
        ),
    )
    doc = RayServiceSpec(ray_cluster_config=_cluster(), upgrade_strategy=strategy).to_dict()
    assert doc["upgradeStrategy"] == {
        "type": "NewClusterWithIncrementalUpgrade",
        "clusterUpgradeOptions": {
            "gatewayClassName": "istio",
            "stepSizePercent": 10,
            "intervalSeconds": 30,
            "maxSurgePercent": 10,
        },
    }
    assert ServiceUpgradeStrategy(type="None").to_dict() == {"type": "None"}


def test_upgrade_strategy_errors() -> None:
    assert _problems(upgradeStrategy={"type": "Recreate"})[0][0] == "spec.upgradeStrategy.type"
    assert _problems(upgradeStrategy={"clusterUpgradeOptions": {"stepSizePercent": 10}}) == [
        ("spec.upgradeStrategy.clusterUpgradeOptions.gatewayClassName", "required field is missing"),
        ("spec.upgradeStrategy.clusterUpgradeOptions.intervalSeconds", "required field is missing"),
    ]


def test_other_fields_render_under_crd_names() -> None:
    doc = RayServiceSpec(
        ray_cluster_config=_cluster(),
        ray_cluster_deletion_delay_seconds=30,
        exclude_head_pod_from_serve_svc=True,
        suspend=False,
        managed_by="ray.io/kuberay-operator",
    ).to_dict()
    assert {k: doc[k] for k in doc if k != "rayClusterConfig"} == {
        "rayClusterDeletionDelaySeconds": 30,
        "excludeHeadPodFromServeSvc": True,
        "suspend": False,
        "managedBy": "ray.io/kuberay-operator",
    }
    assert _problems(rayClusterDeletionDelaySeconds=-1) == [
        ("spec.rayClusterDeletionDelaySeconds", "Input should be greater than or equal to 0")
    ]


def test_serve_service() -> None:
    doc = _doc(
        serveService={"metadata": {"name": "my-serve"}, "spec": {"ports": [{"name": "serve", "port": 8000}]}}
    )
    assert load_manifest(doc).to_manifest() == doc


def test_deprecated_thresholds_warn_but_load() -> None:
    doc = _doc(serviceUnhealthySecondThreshold=900, deploymentUnhealthySecondThreshold=300)
    with pytest.warns(KubeRayDeprecationWarning) as record:
        manifest = load_manifest(doc)
    assert manifest.to_manifest() == doc
    assert [str(w.message) for w in record] == [
        "RayService spec.serviceUnhealthySecondThreshold is deprecated and ignored by KubeRay (unused since "
        "v1.1); "
        "remove it",
        "RayService spec.deploymentUnhealthySecondThreshold is deprecated and ignored by KubeRay (unused "
        "since v1.1); "
        "remove it",
    ]
    assert issubclass(KubeRayDeprecationWarning, DeprecationWarning)
    assert record[0].filename == __file__


def test_no_warning_without_deprecated_fields() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_manifest(_doc())


def test_samples_round_trip_with_identical_serve_strings() -> None:
    for _name, _index, doc in sample_documents("RayService"):
        manifest = load_manifest(copy.deepcopy(doc))
        assert isinstance(manifest, RayServiceManifest)
        assert manifest.to_manifest()["spec"]["serveConfigV2"] == doc["spec"]["serveConfigV2"]
        assert manifest.spec.serve_config is not None
        assert yaml.safe_load(manifest.spec.serve_config.to_yaml()) == yaml.safe_load(
            doc["spec"]["serveConfigV2"]
        )


def test_manifest_built_in_python() -> None:
    manifest = RayServiceManifest(
        metadata=ObjectMeta(name="svc"),
        spec=RayServiceSpec(
            ray_cluster_config=RayClusterSpec(
                image="rayproject/ray:2.52.0",
                head_group_spec=HeadGroupSpec(cpu=1, memory="2Gi"),
                worker_group_specs=[WorkerGroupSpec(group_name="w", cpu=1, memory="2Gi")],
            ),
            serve_config_v2=ServeConfig(
                applications=[
                    ServeApplication(name="a", import_path="m:app", route_prefix="/a"),
                    ServeApplication(name="b", import_path="m:b", route_prefix="/b"),
                ]
            ),
        ),
    )
    doc = manifest.to_manifest()
    assert doc["kind"] == "RayService" and isinstance(doc["spec"]["serveConfigV2"], str)
    assert load_manifest(doc).to_manifest() == doc


def test_head_without_ports_means_serve_port_8000() -> None:
    doc = _doc(serveConfigV2="applications:\n- import_path: m:a\nhttp_options:\n  port: 9000\n")
    del doc["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]
    loaded = load_manifest(doc)
    assert isinstance(loaded.spec, RayServiceSpec)
    (problem,) = loaded.spec.serve_problems
    assert problem.path == "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports"
    assert problem.message == (
        "the head Ray container declares no ports, so KubeRay sends Serve traffic to port 8000, "
        "but Serve listens on 9000 (http_options.port)"
    )
    doc["spec"]["serveConfigV2"] = "applications:\n- import_path: m:a\n"
    load_manifest(doc)
