"""The Services and the Ingress the operator creates beside the Pods (preflight.children), held to what KubeRay
v1.7.0 builds: BuildHeadServiceForRayService, BuildServeService, BuildIngressForHeadService and
BuildHeadlessServiceForRayCluster (controllers/ray/common/service.go and ingress.go), each sent once as a
server-side dry run; a refusal is critical at the CR field it comes from, with the server's message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_kuberay import preflight, rules
from pulumi_kuberay.kubeclient import KubeError
from pulumi_kuberay.preflight import ClusterSnapshot, SnapshotReader
from pulumi_kuberay.rules._examples import example, example_job, example_service
from test_preflight_dry_run import RULE, FakeAdmission

HEAD_SELECTOR = {
    "ray.io/cluster": "rayservice-sample-xxxxx",
    "ray.io/node-type": "head",
    "ray.io/identifier": "rayservice-sample-xxxxx-head",
    "app.kubernetes.io/name": "kuberay",
    "app.kubernetes.io/created-by": "kuberay-operator",
}


def _services(doc: dict[str, Any]) -> dict[str, preflight.Child]:
    return {c.label: c for c in preflight.children(doc, "ns") if c.kind != "Pod"}


def _head(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc["spec"].get("rayClusterConfig") or doc["spec"]
    head: dict[str, Any] = spec["headGroupSpec"]
    return head


def test_a_rayservice_has_its_own_head_service_and_a_serve_service() -> None:
    found = _services(example_service())
    assert sorted(found) == ["the RayService's head Service", "the Serve Service", "the head Service"]
    own = found["the RayService's head Service"].body
    cluster_head = found["the head Service"].body
    # BuildHeadServiceForRayService: the cluster's head Service, renamed, its labels the RayService's
    assert own["metadata"] == {
        "name": "rayservice-sample-head-svc",
        "namespace": "ns",
        "labels": {
            "ray.io/originated-from-cr-name": "rayservice-sample",
            "ray.io/originated-from-crd": "RayService",
            "ray.io/node-type": "head",
            "ray.io/identifier": "rayservice-sample-head",
        },
    }
    assert own["spec"] == cluster_head["spec"] and own["spec"]["selector"] == HEAD_SELECTOR
    assert cluster_head["metadata"]["name"] == "rayservice-sample-xxxxx-head-svc"
    # BuildServeService(isRayService): the serving ports, the ready proxies of the cluster
    serve = found["the Serve Service"]
    assert (serve.path, serve.collection) == ("spec.rayClusterConfig.headGroupSpec", "/api/v1/namespaces/ns/services")
    assert serve.body == {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "rayservice-sample-serve-svc",
            "namespace": "ns",
            "labels": {
                "ray.io/originated-from-cr-name": "rayservice-sample",
                "ray.io/originated-from-crd": "RayService",
                "ray.io/serve": "rayservice-sample-serve",
            },
        },
        "spec": {
            "selector": {"ray.io/cluster": "rayservice-sample-xxxxx", "ray.io/serve": "true"},
            "ports": [{"name": "serve", "port": 8000}],
        },
    }


def test_a_custom_serve_service_is_completed_as_the_operator_does() -> None:
    doc = example_service()
    head = _head(doc)
    head["serviceType"] = "NodePort"
    head["template"]["spec"]["containers"][0]["ports"] = [
        {"name": "dashboard", "containerPort": 8265},
        {"name": "serve", "containerPort": 8000},
        {"name": "serve-grpc", "containerPort": 9000},
    ]
    doc["spec"]["serveService"] = {
        "metadata": {"name": "shop", "namespace": "elsewhere", "labels": {"team": "a", "ray.io/serve": "mine"}},
        "spec": {
            "selector": {"app": "x"},
            "ports": [{"name": "serve-grpc", "port": 9000, "appProtocol": "kubernetes.io/h2c"}],
        },
    }
    serve = _services(doc)["the Serve Service"]
    assert serve.path == "spec.serveService"
    assert serve.body["metadata"] == {
        "name": "shop",
        "namespace": "ns",  # setNamespaceforUserProvidedService: the RayService's namespace
        "labels": {
            "team": "a",
            "ray.io/serve": "rayservice-sample-serve",  # the operator's labels win
            "ray.io/originated-from-cr-name": "rayservice-sample",
            "ray.io/originated-from-crd": "RayService",
        },
    }
    assert serve.body["spec"] == {
        "selector": {"ray.io/cluster": "rayservice-sample-xxxxx", "ray.io/serve": "true"},
        # the detected serving ports, the user's definition where it names the same port
        "ports": [
            {"name": "serve", "port": 8000},
            {"name": "serve-grpc", "port": 9000, "appProtocol": "kubernetes.io/h2c"},
        ],
        "type": "NodePort",  # setServiceTypeForUserProvidedService: the head's serviceType when it sets none
    }


def test_no_serve_service_without_a_serving_port_and_a_rayclusters_only_when_annotated() -> None:
    doc = example_service()
    _head(doc)["template"]["spec"]["containers"][0]["ports"] = [{"name": "dashboard", "containerPort": 8265}]
    assert "the Serve Service" not in _services(doc)  # BuildServeService refuses to build it (an error, no Service)
    assert "the Serve Service" not in _services(example())
    annotated = example(
        lambda d: d["metadata"].setdefault("annotations", {}).update({"ray.io/enable-serve-service": "true"})
    )
    assert "the Serve Service" not in _services(annotated)  # its head declares no port named serve
    _head(annotated)["template"]["spec"]["containers"][0]["ports"].append({"name": "serve", "containerPort": 8000})
    serve = _services(annotated)["the Serve Service"].body
    assert serve["metadata"] == {
        "name": "raycluster-demo-serve-svc",
        "namespace": "ns",
        "labels": {
            "ray.io/originated-from-cr-name": "raycluster-demo",
            "ray.io/originated-from-crd": "RayCluster",
            "ray.io/serve": "raycluster-demo-serve",
        },
    }
    assert serve["spec"]["selector"] == {"ray.io/cluster": "raycluster-demo"}  # every Pod of the cluster


def test_enable_ingress_makes_the_dashboard_ingress() -> None:
    def ingress(doc: dict[str, Any]) -> None:
        doc["metadata"]["annotations"] = {"kubernetes.io/ingress.class": "nginx", "team": "ml"}
        head = doc["spec"]["headGroupSpec"]
        head["enableIngress"] = True
        head["ingressOptions"] = {
            "host": "ray.example.com",
            "path": "/ray",
            "tls": [{"hosts": ["ray.example.com"], "secretName": "tls"}],
        }

    child = _services(example(ingress))["the dashboard Ingress"]
    assert (child.path, child.collection) == (
        "spec.headGroupSpec.enableIngress",
        "/apis/networking.k8s.io/v1/namespaces/ns/ingresses",
    )
    assert child.body == {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {
            "name": "raycluster-demo-head-ingress",
            "namespace": "ns",
            "labels": {
                "ray.io/cluster": "raycluster-demo",
                "ray.io/identifier": "raycluster-demo-head",
                "app.kubernetes.io/name": "kuberay",
                "app.kubernetes.io/created-by": "kuberay-operator",
            },
            "annotations": {"team": "ml"},  # the ingress class is the spec's ingressClassName instead
        },
        "spec": {
            "rules": [
                {
                    "host": "ray.example.com",
                    "http": {
                        "paths": [
                            {
                                "path": "/ray",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "raycluster-demo-head-svc", "port": {"number": 8265}}},
                            }
                        ]
                    },
                }
            ],
            "tls": [{"hosts": ["ray.example.com"], "secretName": "tls"}],
            "ingressClassName": "nginx",
        },
    }
    assert "the dashboard Ingress" not in _services(example())


def test_multi_host_workers_get_the_headless_service() -> None:
    doc = example(lambda d: d["spec"]["workerGroupSpecs"][0].update(numOfHosts=2))
    child = _services(doc)["the headless Service of the multi-host workers"]
    assert child.path == "spec.workerGroupSpecs[0].numOfHosts"
    assert child.body == {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "raycluster-demo-headless",
            "namespace": "ns",
            "labels": {"ray.io/headless-worker-svc": "raycluster-demo"},
        },
        "spec": {
            "clusterIP": "None",
            "selector": {"ray.io/cluster": "raycluster-demo", "ray.io/node-type": "worker"},
            "type": "ClusterIP",
            "publishNotReadyAddresses": True,
        },
    }


def _refuse_ingresses_and_load_balancers(path: str, body: Mapping[str, Any]) -> Exception | None:
    refused = body["kind"] == "Ingress" or body["spec"].get("type") == "LoadBalancer"
    if not refused:
        return None
    message = f'admission webhook "policy.example.com" denied the request: no {body["kind"]} of that shape here'
    return KubeError(f"POST {path}: HTTP 400 {message}", 400, reason="BadRequest", detail=message)


def _findings(api: FakeAdmission, doc: dict[str, Any]) -> list[rules.Finding]:
    reader = SnapshotReader(api)
    snapshot = reader.snapshot(["ns"])
    assert isinstance(snapshot, ClusterSnapshot)
    judged = reader.judge_children(snapshot, doc, "ns")
    return [f for f in rules.check_preflight(doc, judged, namespace="ns") if f.rule_id == RULE]


def test_a_refused_ingress_or_serve_service_is_critical_at_its_cr_path_once_per_shape() -> None:
    def ingress(doc: dict[str, Any]) -> None:
        doc["spec"]["headGroupSpec"]["enableIngress"] = True

    api = FakeAdmission(_refuse_ingresses_and_load_balancers)
    found = _findings(api, example(ingress))
    assert [(f.severity, f.path) for f in found] == [("critical", "spec.headGroupSpec.enableIngress")]
    assert "refuses the dashboard Ingress" in found[0].message and "no Ingress of that shape here" in found[0].message
    assert [body["kind"] for _, body in api.posted] == ["Pod", "Pod", "Service", "Ingress"]
    # three Services from one field (the cluster's and the RayService's head Services, the Serve Service): the
    # refusal of one is not hidden by the others' acceptance
    service = example_service()
    _head(service)["serviceType"] = "LoadBalancer"
    api = FakeAdmission(_refuse_ingresses_and_load_balancers)
    found = _findings(api, service)
    assert [(f.severity, f.path) for f in found] == [("critical", "spec.rayClusterConfig.headGroupSpec")]
    assert [body["metadata"].get("name") for _, body in api.posted if body["kind"] == "Service"] == [
        "rayservice-sample-xxxxx-head-svc",
        "rayservice-sample-head-svc",
        "rayservice-sample-serve-svc",
    ]


# --------------------------------------------------------------------------------------------------
# What the operator adds to the Pods: GCS fault tolerance (configureGCSFaultTolerance) and token authentication
# (configureTokenAuth, SetContainerTokenAuthEnvVars)


def _pods(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    head, worker = (dict(c.body) for c in preflight.children(doc, "ns") if c.kind == "Pod")
    return head, worker


def _env(container: Mapping[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


def test_gcs_fault_tolerance_with_redis_adds_the_env_and_annotations() -> None:
    def redis(doc: dict[str, Any]) -> None:
        doc["spec"]["gcsFaultToleranceOptions"] = {
            "redisAddress": "redis:6379",
            "externalStorageNamespace": "ray-ft",
            "redisPassword": {"valueFrom": {"secretKeyRef": {"name": "redis", "key": "password"}}},
        }

    head, worker = _pods(example(redis))
    assert head["metadata"]["annotations"] == {
        "ray.io/ft-enabled": "true",
        "ray.io/external-storage-namespace": "ray-ft",
    }
    env = _env(head["spec"]["containers"][0])
    assert {k: env[k] for k in ("RAY_external_storage_namespace", "RAY_REDIS_ADDRESS", "REDIS_PASSWORD")} == {
        "RAY_external_storage_namespace": "ray-ft",
        "RAY_REDIS_ADDRESS": "redis:6379",
        "REDIS_PASSWORD": {"secretKeyRef": {"name": "redis", "key": "password"}},
    }
    assert "REDIS_USERNAME" not in env
    assert _env(worker["spec"]["containers"][0])["RAY_gcs_rpc_server_reconnect_timeout_s"] == "600"
    assert "annotations" not in worker["metadata"]  # only the head says whether fault tolerance is on
    assert "RAY_gcs_rpc_server_reconnect_timeout_s" not in _env(worker["spec"]["initContainers"][-1])  # copied before
    plain_head, _ = _pods(example())
    assert plain_head["metadata"]["annotations"] == {"ray.io/ft-enabled": "false"}


def test_gcs_fault_tolerance_with_rocksdb_mounts_the_operators_claim() -> None:
    def rocksdb(doc: dict[str, Any]) -> None:
        doc["spec"]["gcsFaultToleranceOptions"] = {"backend": "rocksdb", "storage": {"subPath": "gcs"}}

    head, _ = _pods(example(rocksdb))
    ray = head["spec"]["containers"][0]
    assert {k: v for k, v in _env(ray).items() if k.startswith("RAY_gcs_storage")} == {
        "RAY_gcs_storage": "rocksdb",
        "RAY_gcs_storage_path": "/data/gcs",
    }
    assert ray["volumeMounts"][-1] == {"name": "gcs-storage", "mountPath": "/data/gcs", "subPath": "gcs"}
    assert head["spec"]["volumes"][-1] == {
        "name": "gcs-storage",
        "persistentVolumeClaim": {"claimName": "raycluster-demo-gcs-pvc"},
    }
    assert "ray.io/external-storage-namespace" not in head["metadata"]["annotations"]


def test_token_authentication_reaches_every_ray_container_and_the_autoscaler() -> None:
    def token(doc: dict[str, Any]) -> None:
        doc["spec"]["authOptions"] = {"mode": "token"}
        doc["spec"]["enableInTreeAutoscaling"] = True

    head, worker = _pods(example(token))
    secret = {"secretKeyRef": {"name": "raycluster-demo", "key": "auth_token"}}  # the Secret the operator creates
    for container in (
        *head["spec"]["containers"],
        worker["spec"]["containers"][0],
        worker["spec"]["initContainers"][-1],
    ):
        assert {k: v for k, v in _env(container).items() if k.startswith("RAY_AUTH")} == {
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN": secret,
        }
    assert [c["name"] for c in head["spec"]["containers"]] == ["ray-head", "autoscaler"]

    def k8s_token(doc: dict[str, Any]) -> None:
        doc["spec"]["authOptions"] = {"mode": "token", "enableK8sTokenAuth": True}

    head, worker = _pods(example(k8s_token))
    for pod in (head, worker):
        ray = pod["spec"]["containers"][0]
        assert _env(ray)["RAY_ENABLE_K8S_TOKEN_AUTH"] == "true" and "RAY_AUTH_TOKEN" not in _env(ray)
        assert ray["volumeMounts"][-1] == {
            "name": "ray-token",
            "mountPath": "/var/run/secrets/ray.io/serviceaccount",
            "readOnly": True,
        }
        assert pod["spec"]["volumes"][-1] == {
            "name": "ray-token",
            "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]},
        }


def test_an_incremental_upgrade_names_the_serve_service_after_the_cluster() -> None:
    # IsIncrementalUpgradeEnabled (gate RayServiceIncrementalUpgrade, on by default): the cluster's name, no
    # serveService
    doc = example_service()
    doc["spec"]["upgradeStrategy"] = {"type": "NewClusterWithIncrementalUpgrade"}
    doc["spec"]["serveService"] = {"metadata": {"name": "ignored"}}
    serve = _services(doc)["the Serve Service"].body
    assert serve["metadata"] == {
        "name": "rayservice-sample-xxxxx-serve-svc",
        "namespace": "ns",
        "labels": {
            "ray.io/originated-from-cr-name": "rayservice-sample-xxxxx",
            "ray.io/originated-from-crd": "RayService",
            "ray.io/serve": "rayservice-sample-xxxxx-serve",
        },
    }
    assert serve["spec"]["selector"] == {"ray.io/cluster": "rayservice-sample-xxxxx", "ray.io/serve": "true"}


def test_a_rayjob_has_its_own_head_service_and_its_submitter_the_token() -> None:
    job = example_job()
    job["spec"]["rayClusterSpec"]["authOptions"] = {"mode": "token"}
    found = {c.label: c.body for c in preflight.children(job, "ns")}
    own = found["the RayJob's head Service"]
    assert own["metadata"] == {  # BuildHeadServiceForRayJob
        "name": "rayjob-sample-head-svc",
        "namespace": "ns",
        "labels": {
            "ray.io/originated-from-cr-name": "rayjob-sample",
            "ray.io/originated-from-crd": "RayJob",
            "ray.io/node-type": "head",
            "ray.io/identifier": "rayjob-sample-head",
        },
    }
    assert own["spec"] == found["the head Service"]["spec"]
    submitter = found["the submitter Job"]["spec"]["template"]["spec"]["containers"][0]
    assert _env(submitter) == {  # configureSubmitterContainer: the token of the job's cluster
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": {"secretKeyRef": {"name": "rayjob-sample-xxxxx", "key": "auth_token"}},
    }


def test_what_a_flag_or_gate_of_the_api_server_decides_reaches_the_dry_run_as_written() -> None:
    """A privileged container, a Gt toleration, seLinuxChangePolicy MountOption and hostNetwork beside hostUsers false
    (docs/kubernetes-validation.md: decided by the target cluster) go to the dry run as the template has them, so the
    cluster's own flags and gates judge them (tests/cluster/test_preflight_admission.py: privileged refused)."""
    gated = {
        "tolerations": [{"key": "example.com/tier", "operator": "Gt", "value": "3"}],
        "securityContext": {"seLinuxChangePolicy": "MountOption"},
        "hostUsers": False,
        "hostNetwork": True,
    }

    def edit(doc: dict[str, Any]) -> None:
        template = doc["spec"]["workerGroupSpecs"][0]["template"]
        template["spec"].update(gated)
        template["spec"]["containers"][0]["securityContext"] = {"privileged": True}

    (worker,) = [c for c in preflight.children(example(edit), "ns") if c.kind == "Pod" and "worker" in c.label]
    spec = worker.body["spec"]
    assert {key: spec[key] for key in gated} == gated
    ray = next(c for c in spec["containers"] if c["securityContext"] == {"privileged": True})
    assert ray["name"] == "ray-worker"
