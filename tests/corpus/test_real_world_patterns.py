"""Patterns found in real-world Ray manifests (vendor blueprints for EKS/GKE/AKS, Kueue/Volcano/YuniKorn docs,
SDK test fixtures, tutorials, research code: 188 documents from 20 repositories other than KubeRay's own, studied
for issue 23), each rewritten here as a small manifest of our own and named in the test.

Every test states what the real system does with the pattern (the API server, KubeRay v1.7.0, Ray Serve of the
pinned release, Kueue, the kubelet) and holds the catalogue, ``load_stored`` and ``kuberay-convert`` to it: no
critical finding where the real system accepts the document, a critical one where it refuses it or the intent
is lost, every document the API server stores loads and converts.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.convert import convert_documents
from pulumi_kuberay.model.manifest import load_stored
from pulumi_kuberay.rules import check_stack

JsonDict = dict[str, Any]


def _container(name: str, image: str = "rayproject/ray:2.9.3", **extra: Any) -> JsonDict:
    return {"name": name, "image": image, "resources": {"limits": {"cpu": "2", "memory": "8Gi"},
            "requests": {"cpu": "2", "memory": "8Gi"}}, **extra}  # fmt: skip


def _cluster_spec(ray_version: str | None = "2.9.3", image: str = "rayproject/ray:2.9.3") -> JsonDict:
    spec: JsonDict = {
        "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [_container("ray-head", image)]}}},
        "workerGroupSpecs": [
            {"groupName": "gpu", "replicas": 1, "minReplicas": 1, "maxReplicas": 2, "rayStartParams": {},
             "template": {"spec": {"containers": [_container("ray-worker", image)]}}}
        ],
    }  # fmt: skip
    if ray_version is not None:
        spec["rayVersion"] = ray_version
    return spec


def _cluster(name: str = "raycluster", namespace: str | None = "ml", **spec: Any) -> JsonDict:
    meta: JsonDict = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    return {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": meta, "spec": {**_cluster_spec(), **spec}}


def _service(serve: str, *, ray_version: str | None = "2.9.3", image: str = "rayproject/ray:2.9.3") -> JsonDict:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "llm", "namespace": "ml"},
        "spec": {"serveConfigV2": serve, "rayClusterConfig": _cluster_spec(ray_version, image)},
    }


def _job(name: str = "job", **spec: Any) -> JsonDict:
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": name, "namespace": "ml"},
            "spec": {"entrypoint": "python train.py", **spec}}  # fmt: skip


def _by_rule(doc: JsonDict, **target: Any) -> dict[str, list[rules.Finding]]:
    out: dict[str, list[rules.Finding]] = {}
    for finding in rules.check(doc, **target):
        out.setdefault(finding.rule_id, []).append(finding)
    return out


def _criticals(doc: JsonDict, **target: Any) -> list[str]:
    return [f"{f.rule_id}: {f.message}" for f in rules.check(doc, **target) if f.severity == "critical"]


def _converts(doc: JsonDict) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no raw Python warning on the way
        result = convert_documents([(doc, "doc.yaml:1")])
    assert result.errors == [] and result.text, result.errors
    return result.text


# ------------------------------------------------------------------------------------------------------------
# Ray Serve keys judged by the pinned Ray release

OLD_SERVE = """applications:
  - name: llm
    import_path: serve_app:deployment
    route_prefix: /
    deployments:
      - name: VLLMDeployment
        max_concurrent_queries: 100
        autoscaling_config:
          min_replicas: 1
          max_replicas: 4
          target_num_ongoing_requests_per_replica: 10
"""


@pytest.mark.parametrize("ray_version", ["2.9.0", "2.11.0", "2.24.0", "2.32.0"])
def test_pattern_blueprint_serve_keys_renamed_in_ray_2_10_pinned_to_a_release_that_still_accepts_them(
    ray_version: str,
) -> None:
    """Pattern (EKS inference blueprints): ``max_concurrent_queries`` / ``target_num_ongoing_requests_per_replica``
    with rayVersion 2.9-2.32. Ray 2.9 accepts them; 2.10-2.32 accept them as deprecated; 2.33 drops them. No
    critical; on 2.10+ a medium finding naming the new key and the release that drops it; loads and converts."""
    doc = _service(OLD_SERVE, ray_version=ray_version, image=f"rayproject/ray:{ray_version}")
    found = _by_rule(doc).get("serve-config-key-deprecated", [])
    assert _criticals(doc) == [] and "serve-config-key-version" not in _by_rule(doc)
    if ray_version == "2.9.0":
        assert found == []
    else:
        assert {f.severity for f in found} == {"medium"} and len(found) == 2
        assert any("max_ongoing_requests" in (f.fix or "") for f in found)
        assert all("Ray 2.33.0 and later drop it" in f.message for f in found)
    assert load_stored(doc).serve_problems == ()
    _converts(doc)


def test_pattern_renamed_serve_keys_on_a_ray_release_that_dropped_them_are_high() -> None:
    """Pattern (a blueprint bumped to Ray 2.41 without renaming the keys): Ray 2.41's schema drops both keys
    without a word, so the settings have no effect (held against Ray's own schemas in tests/serve_schema); the
    applications still deploy and serve, so it is high, not critical (nothing fails)."""
    doc = _service(OLD_SERVE, ray_version="2.41.0", image="rayproject/ray:2.41.0")
    found = _by_rule(doc)["serve-config-key-version"]
    assert {f.severity for f in found} == {"high"} and len(found) == 2
    assert _criticals(doc) == []
    assert all("Ray 2.33.0 dropped it" in f.message and "the head image tag" in f.message for f in found)


def test_pattern_serve_release_read_from_the_head_image_tag_when_it_names_one() -> None:
    """Pattern: rayVersion left out, image tag ``2.9.3-py310-gpu``: the tag names the Ray that parses the config."""
    doc = _service(OLD_SERVE, ray_version=None, image="rayproject/ray-ml:2.9.3-py310-gpu")
    assert "serve-config-key-version" not in _by_rule(doc)


def test_pattern_no_ray_version_anywhere_is_judged_by_the_newest_release() -> None:
    """Pattern: a private image tagged ``latest`` and no rayVersion: judged by the newest Ray in the table."""
    doc = _service(OLD_SERVE, ray_version=None, image="registry.example.com/ml/vllm:latest")
    found = _by_rule(doc)["serve-config-key-version"]
    assert found and all(f.severity == "high" and "no Ray version given: the newest" in f.message for f in found)


def test_pattern_serve_key_newer_than_the_pinned_release() -> None:
    """Pattern: ``request_router_config`` (Ray 2.48) in a config pinned to Ray 2.46: dropped, needs Ray >= 2.48."""
    serve = OLD_SERVE.replace(
        "        max_concurrent_queries: 100\n",
        "        request_router_config: {request_router_class: m:Router}\n",
    )
    doc = _service(serve, ray_version="2.46.0", image="rayproject/ray:2.46.0")
    messages = [f.message for f in _by_rule(doc)["serve-config-key-version"] if f.severity == "high"]
    assert any("request_router_config" in m and "needs Ray >= 2.48.0" in m for m in messages)


# ------------------------------------------------------------------------------------------------------------
# What the API server prunes or rejects


def test_pattern_scheduler_name_one_level_too_high_is_pruned_dropped_and_noted() -> None:
    """Pattern (Neuron blueprints): ``schedulerName`` under ``template`` instead of ``template.spec``. The API
    server prunes it (the custom scheduler is never used): a critical lint finding, and convert drops it with a
    comment beside the object."""
    doc = _cluster()
    doc["spec"]["headGroupSpec"]["template"]["schedulerName"] = "my-scheduler"
    assert any(c.startswith("schema-unknown-field") for c in _criticals(doc))
    stored = load_stored(doc)
    assert [p.path for p in stored.dropped] == ["spec.headGroupSpec.template.schedulerName"]
    assert "dropped spec.headGroupSpec.template.schedulerName" in _converts(doc)


def test_pattern_pre_1_31_resource_claim_source_is_pruned_dropped_and_noted() -> None:
    """Pattern (DRA examples written for Kubernetes < 1.31): ``resourceClaims[].source.resourceClaimTemplateName``;
    the v1.7.0 CRD has the 1.31+ shape (name, resourceClaimName, resourceClaimTemplateName) and prunes ``source``."""
    doc = _cluster()
    pod = doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]
    pod["resourceClaims"] = [{"name": "gpu", "source": {"resourceClaimTemplateName": "one-gpu"}}]
    stored = load_stored(doc)
    assert [p.path for p in stored.dropped] == ["spec.workerGroupSpecs[0].template.spec.resourceClaims[0].source"]
    assert "resourceClaims[0].source" in _converts(doc)


def test_pattern_deprecated_rayservice_thresholds_are_a_low_finding_never_a_python_warning() -> None:
    """Pattern (blueprints written for KubeRay <= 1.0): serviceUnhealthySecondThreshold and
    deploymentUnhealthySecondThreshold, unused since v1.1."""
    doc = _service(OLD_SERVE)
    doc["spec"]["serviceUnhealthySecondThreshold"] = 900
    doc["spec"]["deploymentUnhealthySecondThreshold"] = 300
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = _by_rule(doc)["kuberay-field-deprecated"]
    assert [f.severity for f in found] == ["low", "low"]
    assert "kept, but deprecated" in _converts(doc)


def test_pattern_v1alpha1_documents_load_convert_and_are_flagged_as_deprecated() -> None:
    """Pattern (older tutorials, ray-llm's KubeRay docs): ``apiVersion: ray.io/v1alpha1``, still served by the
    v1.7.0 CRDs with a deprecation warning, removed in KubeRay 1.9."""
    doc = _cluster()
    doc["apiVersion"] = "ray.io/v1alpha1"
    assert [f.severity for f in _by_rule(doc)["kuberay-field-deprecated"]] == ["medium"]
    assert "apiVersion ray.io/v1alpha1 became ray.io/v1" in _converts(doc)


@pytest.mark.parametrize(
    ("namespace", "critical"),
    [("ml-team", False), ("<your-namespace>", True), ("$NAMESPACE", True), ("ML", True), ("a" * 64, True)],
)
def test_pattern_namespace_placeholders_are_rejected_by_the_api_server(namespace: str, critical: bool) -> None:
    """Pattern (docs and envsubst templates): ``metadata.namespace: <your-namespace>`` / ``$NAMESPACE``. The
    API server's ValidateNamespaceName (DNS-1123 label) rejects them; the oracle tier holds the same cases."""
    found = _by_rule(_cluster(namespace=namespace)).get("metadata-namespace-invalid", [])
    assert bool(found) == critical
    if critical:
        assert found[0].severity == "critical"
    if namespace.startswith(("<", "$")):
        assert "unrendered template placeholder" in found[0].message and repr(namespace) in found[0].message


@pytest.mark.parametrize(
    ("image", "severity", "named"),
    [
        ("rayproject/ray:2.9.3", None, None),
        ("public.ecr.aws/data-on-eks/ray2.22.0-py310-neuron:latest", None, None),
        ("$REGISTRY/ray:$TAG", "high", "'$REGISTRY', '$TAG'"),
        ("${image}", "high", "'${image}'"),
        ("<your-image>", "critical", "'<your-image>'"),
        ("us-docker.pkg.dev/<PROJECT-ID>/llm/serve:1", "critical", "'<PROJECT-ID>'"),
        ("{{ .Values.image }}", "critical", "'{{ .Values.image }}'"),
        ("PLACEHOLDER_IMAGE", "critical", "'PLACEHOLDER_IMAGE'"),
        ("myregistry/Ray:2.9", "critical", None),
        ("rayproject/ray: 2.9.3", "critical", None),
        ("Registry.Example.com:5000/ray:2.9", None, None),
    ],
)
def test_pattern_unrendered_image_placeholders(image: str, severity: str | None, named: str | None) -> None:
    """Pattern (envsubst/Terraform/Helm templates, docs): the kubelet refuses anything that is not an image
    reference (InvalidImageName). A reference made only of shell variables is a file written for envsubst
    (KubeRay's own vLLM TPU sample is one): high; other placeholders, spaces and upper case are critical."""
    doc = _cluster()
    doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = image
    found = _by_rule(doc).get("image-reference-invalid", [])
    assert [f.severity for f in found] == ([severity] if severity else [])
    if named:
        assert named in found[0].message


def test_pattern_placeholders_in_counts_and_quantities_are_named() -> None:
    """Pattern (HyperPod/verl and Luna templates): ``replicas: $NUM_NODES``, ``cpu: ${RAY_HEAD_CPU}``. The API
    server rejects both types (critical, as before); the finding now says it is an unrendered placeholder."""
    doc = _cluster()
    doc["spec"]["workerGroupSpecs"][0]["replicas"] = "$NUM_NODES"
    doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "${HEAD_CPU}"
    found = _by_rule(doc)
    assert "'$NUM_NODES' is an unrendered template placeholder" in found["schema-wrong-type"][0].message
    assert "'${HEAD_CPU}' is an unrendered template placeholder" in found["schema-invalid-value"][0].message


@pytest.mark.parametrize(("version", "flagged"), [("2.9.3", False), ("2.46", False), ("latest", True),
                                                  ("${RAY_VERSION}", True), ("nightly-py310", True)])  # fmt: skip
def test_pattern_ray_version_that_is_not_a_version(version: str, flagged: bool) -> None:
    """Pattern: ``rayVersion: latest`` or an unrendered ``${RAY_VERSION}``: KubeRay cannot read it (medium)."""
    found = _by_rule(_cluster(rayVersion=version)).get("ray-version-invalid", [])
    assert [f.severity for f in found] == (["medium"] if flagged else [])


# ------------------------------------------------------------------------------------------------------------
# Selectors, Kueue


def test_pattern_cluster_selector_with_one_more_key_naming_a_cluster_that_is_there() -> None:
    """Pattern (Kueue/Volcano docs): ``clusterSelector: {ray.io/cluster: shared, team: ml}``. KubeRay v1.7.0 reads
    only ``ray.io/cluster`` (the RayJob controller's Get by name): the job runs on ``shared``."""
    cluster = _cluster("shared")
    job = _job(clusterSelector={"ray.io/cluster": "shared", "team": "ml"})
    assert check_stack([cluster, job]) == []


def test_pattern_cluster_selector_naming_a_missing_cluster_says_which_key_is_read() -> None:
    cluster = _cluster("shared")
    job = _job(clusterSelector={"ray.io/cluster": "shard", "team": "ml"})
    (found,) = check_stack([cluster, job])
    assert found.finding.rule_id == "rayjob-cluster-selector-unmatched"
    assert "reads only that key" in found.finding.message and "team, are ignored" in found.finding.message


def _queued(**spec: Any) -> JsonDict:
    doc = _job(**spec)
    doc["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "user-queue"}
    return doc


def test_pattern_kueue_queue_label_on_a_job_that_selects_an_existing_cluster() -> None:
    """Pattern (Kueue docs): a queued RayJob with only ``clusterSelector``. Kueue >= v0.15 accepts it and leaves
    it unmanaged (low); v0.14 refused it (critical when the team says it runs v0.14)."""
    doc = _queued(clusterSelector={"ray.io/cluster": "shared"})
    newest = _by_rule(doc)
    assert "kueue-rayjob-limits" not in newest
    assert [f.severity for f in newest["kueue-rayjob-unmanaged"]] == ["low"]
    assert "unmanaged" in newest["kueue-rayjob-unmanaged"][0].message
    old = _by_rule(doc, options={"kueue_version": "0.14"})["kueue-rayjob-limits"]
    assert [f.severity for f in old] == ["critical"] and "Kueue v0.14.0" in old[0].message


def test_pattern_kueue_job_with_its_own_cluster_must_shut_it_down() -> None:
    doc = _queued(rayClusterSpec=_cluster_spec(), shutdownAfterJobFinishes=False)
    assert [f.severity for f in _by_rule(doc)["kueue-rayjob-limits"]] == ["critical"]
    good = _queued(rayClusterSpec=_cluster_spec(), shutdownAfterJobFinishes=True)
    assert "kueue-rayjob-limits" not in _by_rule(good)


# ------------------------------------------------------------------------------------------------------------
# Noise


def test_pattern_blueprint_without_security_context_is_one_restricted_finding_per_pod_template() -> None:
    """Pattern (nearly every blueprint and tutorial): no securityContext at all. One low finding per pod template
    (medium in prod) listing every gap of every container, never critical unless the namespaces enforce it."""
    doc = _cluster()
    found = _by_rule(doc)["pod-security-restricted"]
    assert len(found) == 2 and {f.severity for f in found} == {"low"}
    assert "allowPrivilegeEscalation" in found[0].message and "seccompProfile" in found[0].message
    assert {f.severity for f in _by_rule(doc, environment="prod")["pod-security-restricted"]} == {"medium"}
    enforced = _by_rule(doc, options={"pod_security_profile": "restricted"})["pod-security-restricted"]
    assert {f.severity for f in enforced} == {"critical"} and "rejects its Pods" in enforced[0].message


def test_pattern_neuron_or_efa_blueprint_with_host_paths_and_privileged_is_one_baseline_finding() -> None:
    """Pattern (Trainium/EFA blueprints): a hostPath volume and a privileged container in a worker template."""
    doc = _cluster()
    pod = doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]
    pod["volumes"] = [{"name": "dev", "hostPath": {"path": "/dev"}}]
    pod["containers"][0]["securityContext"] = {"privileged": True}
    found = _by_rule(doc)["pod-security-baseline"]
    assert len(found) == 1 and found[0].severity == "high"
    assert "hostPath" in found[0].message and "privileged" in found[0].message
    for environment in ("dev", "staging", "prod"):
        assert _by_rule(doc, environment=environment)["pod-security-baseline"][0].severity == "high"
    assert _criticals(doc) == []


@pytest.mark.parametrize(("memory", "environment", "severity"), [("2G", None, None), ("2Gi", None, None),
                         ("1Gi", None, "high"), ("4Gi", "prod", "medium"), ("8G", "prod", None)])  # fmt: skip
def test_pattern_head_memory_of_ray_docs(memory: str, environment: str | None, severity: str | None) -> None:
    """Pattern (Ray's own docs and the ray-cluster chart: ``memory: 2G``): not flagged; below 2G high."""
    doc = _cluster()
    resources = doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["resources"]
    resources["limits"]["memory"] = resources["requests"]["memory"] = memory
    found = _by_rule(doc, environment=environment).get("head-memory-too-small", [])
    assert [f.severity for f in found] == ([severity] if severity else [])


# ------------------------------------------------------------------------------------------------------------
# True criticals seen on the corpus (justified by the operator's or the API server's code)


def test_pattern_rayservice_with_a_fixed_head_service_name_is_refused_by_the_operator() -> None:
    """Pattern (EKS Neuron/vLLM blueprints): ``headService.metadata.name`` in a RayService. ValidateRayServiceSpec
    refuses it ("headService.metadata.name should not be set")."""
    doc = _service(OLD_SERVE)
    doc["spec"]["rayClusterConfig"]["headGroupSpec"]["headService"] = {"metadata": {"name": "vllm"}}
    assert any(c.startswith("rayservice-head-service-name-set") for c in _criticals(doc))


def test_pattern_ttl_without_shutdown_is_refused_by_the_operator() -> None:
    """Pattern (Trainium training blueprints): ``ttlSecondsAfterFinished: 60`` without shutdownAfterJobFinishes."""
    doc = _job(rayClusterSpec=_cluster_spec(), ttlSecondsAfterFinished=60)
    assert any(c.startswith("rayjob-ttl-requires-shutdown") for c in _criticals(doc))


def test_pattern_num_replicas_with_autoscaling_config_is_refused_by_ray_serve_but_converts() -> None:
    """Pattern (LLM serving tutorials): ``num_replicas: 2`` next to ``autoscaling_config``. Ray Serve refuses the
    config (critical); the API server stores the RayService, so convert writes it, with a comment."""
    serve = OLD_SERVE.replace("        max_concurrent_queries: 100\n", "        num_replicas: 2\n")
    doc = _service(serve)
    assert any(c.startswith("serve-autoscaling-config-invalid") for c in _criticals(doc))
    assert "serveConfigV2 kept as it is, with" in _converts(doc) and "the component stops at preview" in _converts(doc)


def test_pattern_duplicate_volume_mount_path_is_rejected_by_the_api_server() -> None:
    """Pattern (SDK test fixtures): two volumeMounts with the same mountPath (a list-map key of the CRD)."""
    doc = _cluster()
    container = doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    container["volumeMounts"] = [{"name": "a", "mountPath": "/data"}, {"name": "b", "mountPath": "/data"}]
    pod = doc["spec"]["headGroupSpec"]["template"]["spec"]
    pod["volumes"] = [{"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}}]
    assert any(c.startswith("list-map-duplicate-key") for c in _criticals(doc))


def test_pattern_rayjob_fragment_without_a_cluster_source_converts_and_the_component_says_why() -> None:
    """Pattern (a SKILL/README fragment): a RayJob with only ``suspend: true``. The API server stores it; KubeRay
    refuses it (critical findings); convert writes it so the component stops at preview with the reason."""
    doc = _queued(suspend=True)
    assert any(c.startswith("rayjob-cluster-source-missing") for c in _criticals(doc))
    assert "kr.RayJob(" in _converts(copy.deepcopy(doc))


def test_pattern_kuberay_lint_prints_no_raw_python_warning(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """kuberay-lint on a blueprint with deprecated fields and old Serve keys: findings, never a
    ``KubeRayDeprecationWarning`` line on stderr."""
    import yaml
    from pulumi_kuberay.cli.lint import main

    doc = _service(OLD_SERVE, ray_version="2.11.0", image="rayproject/ray:2.11.0")
    doc["spec"]["serviceUnhealthySecondThreshold"] = 900
    path = tmp_path / "blueprint.yaml"
    path.write_text(yaml.safe_dump(doc))
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        code = main(["--no-config", "--format", "json", str(path)])
    out, err = capsys.readouterr()
    assert "Warning" not in err and err == ""
    assert code == 0 and "kuberay-field-deprecated" in out and "serve-config-key-deprecated" in out


def test_pattern_job_selecting_a_cluster_defined_in_another_file_is_not_judged() -> None:
    """Pattern (Trainium training blueprints): the RayJob's file holds no RayCluster; the cluster it names lives in
    another file or stack. Nothing to judge, so no finding (a RayCluster of that namespace in the set, of another
    name, is still a finding: see above)."""
    assert check_stack([_job(clusterSelector={"ray.io/cluster": "kuberay-trn1"})]) == []


def test_pattern_own_image_tag_is_not_a_ray_version() -> None:
    """Pattern (a team's own image ``dogbooth:0.0.1-gpu`` with rayVersion 2.6.0): the tag says nothing about Ray."""
    doc = _cluster(rayVersion="2.6.0")
    for group in [doc["spec"]["headGroupSpec"], *doc["spec"]["workerGroupSpecs"]]:
        group["template"]["spec"]["containers"][0]["image"] = "public.ecr.aws/acme/dogbooth:0.0.1-gpu"
    assert "image-ray-version-mismatch" not in _by_rule(doc)


def test_pattern_latest_tag_and_missing_limits_are_advice_outside_prod() -> None:
    """Pattern (vendor demo images ``:latest``, tutorials without memory limits): medium, high in prod."""
    doc = _cluster()
    container = doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    container["image"] = "public.ecr.aws/acme/ray-demo:latest"
    del container["resources"]
    found = _by_rule(doc)
    assert found["image-tag-not-pinned"][0].severity == "medium" and found["resources-missing"][0].severity == "medium"
    prod = _by_rule(doc, environment="prod")
    assert prod["image-tag-not-pinned"][0].severity == "high" and prod["resources-missing"][0].severity == "high"
