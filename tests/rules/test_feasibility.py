"""Ray feasibility (rules/feasibility.py) and the Ray resources each group advertises (rules/_ray_resources.py,
KubeRay's generateRayStartCommand, addWellKnownAcceleratorResources, updateRayStartParamsResources)."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL, cluster_specs
from pulumi_kuberay.rules._examples import example_cronjob, example_job, example_service
from pulumi_kuberay.rules._ray_resources import cluster_offers

SERVE_RULES = ("serve-replica-infeasible", "serve-cluster-no-cpu")


def _found(doc: dict[str, Any], *ids: str, **gates: bool) -> list[tuple[str, str, str, str]]:
    ids = ids or (*SERVE_RULES, "rayjob-entrypoint-infeasible")
    return [
        (f.rule_id, f.severity, f.path, f.message)
        for f in rules.check(doc, feature_gates=gates or None)
        if f.rule_id in ids
    ]


def _service(*deployment_lines: str, apps: str | None = None) -> dict[str, Any]:
    text = apps or (
        "applications:\n  - name: app\n    import_path: m:app\n    deployments:\n      - name: D\n"
        + "".join(f"        {line}\n" for line in deployment_lines)
    )
    return example_service(serveConfigV2=text)


def _cluster(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc["spec"]
    found: dict[str, Any] = (
        spec.get("rayClusterConfig") or spec.get("rayClusterSpec") or spec["jobTemplate"]["rayClusterSpec"]
    )
    return found


def _head(doc: dict[str, Any]) -> dict[str, Any]:
    head: dict[str, Any] = _cluster(doc)["headGroupSpec"]
    return head


def _worker(doc: dict[str, Any]) -> dict[str, Any]:
    worker: dict[str, Any] = _cluster(doc)["workerGroupSpecs"][0]
    return worker


def _ray(group: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = group["template"]["spec"]["containers"][0]
    return container


def _limits(group: dict[str, Any], limits: dict[str, Any], requests: dict[str, Any] | None = None) -> None:
    _ray(group)["resources"] = {"limits": limits, "requests": requests if requests is not None else dict(limits)}


def _offers(doc: dict[str, Any]) -> list[tuple[str, dict[str, float | None]]]:
    [ref] = cluster_specs(doc)
    offers = cluster_offers(ref, ref.annotations)
    assert offers is not None
    return [(o.group.name, o.amounts) for o in offers]


ACTOR = "serveConfigV2.applications[0].deployments[0].ray_actor_options"


# --------------------------------------------------------------------------------------------------
# What each group advertises (KubeRay's derivation)


def test_cpu_is_the_limit_rounded_up_else_the_request_else_unknown() -> None:
    doc = _service()
    _limits(_head(doc), {"cpu": "500m", "memory": "1Gi"})  # Quantity.Value(): 500m -> 1
    _limits(_worker(doc), {"memory": "3Gi"}, {"cpu": "1500m", "memory": "3Gi"})  # no CPU limit: the request, 2
    assert _offers(doc) == [
        ("Head", {"CPU": 1.0, "GPU": 0.0, "memory": 1073741824.0}),
        ("small-group", {"CPU": 2.0, "GPU": 0.0, "memory": 3221225472.0}),
    ]
    _limits(_worker(doc), {}, {"memory": "3Gi"})  # no CPU anywhere, memory only requested: Ray counts the node's
    assert _offers(doc)[1] == ("small-group", {"CPU": None, "GPU": 0.0, "memory": None})


def test_accelerators_from_the_limits() -> None:
    doc = _service()
    _limits(_worker(doc), {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": 2})
    assert _offers(doc)[1][1] == {"CPU": 8.0, "GPU": 2.0, "memory": 34359738368.0}
    _limits(_worker(doc), {"cpu": "8", "amd.com/gpu": "1"})
    assert _offers(doc)[1][1]["GPU"] == 1.0
    _limits(_worker(doc), {"cpu": "8", "nvidia.com/mig-1g.5gb": "3"})  # IsGPUResourceKey: MIG slices
    assert _offers(doc)[1][1]["GPU"] == 3.0
    _limits(_worker(doc), {"cpu": "8", "google.com/tpu": "4"})
    assert _offers(doc)[1][1] == {"CPU": 8.0, "GPU": 0.0, "memory": None, "TPU": 4.0}
    _limits(_worker(doc), {"cpu": "8", "aws.amazon.com/neuroncore": "2"})
    assert _offers(doc)[1][1] == {"CPU": 8.0, "GPU": 0.0, "memory": None, "neuron_cores": 2.0}


def test_ray_start_params_and_group_resources_win_over_the_limits() -> None:
    doc = _service()
    _limits(_worker(doc), {"cpu": "8", "google.com/tpu": "4", "nvidia.com/gpu": 1})
    _worker(doc)["rayStartParams"] = {"num-cpus": "2", "num-gpus": "0", "resources": '\'{"TPU": 8, "disk": 1}\''}
    assert _offers(doc)[1][1] == {"CPU": 2.0, "GPU": 0.0, "memory": None, "TPU": 8.0, "disk": 1.0}
    _worker(doc)["rayStartParams"] = {}
    _worker(doc)["resources"] = {"CPU": "3", "memory": "1Gi", "nvidia.com/gpu": "2", "fast_disk": "1"}
    # the group's map replaces num-cpus/memory/num-gpus/resources; the TPU limit is still added to resources
    assert _offers(doc)[1][1] == {"CPU": 3.0, "GPU": 2.0, "memory": 1073741824.0, "fast_disk": 1.0, "TPU": 4.0}


def test_a_worker_group_at_max_replicas_zero_offers_nothing() -> None:
    doc = _service()
    _worker(doc).update(replicas=0, minReplicas=0, maxReplicas=0)
    assert [name for name, _ in _offers(doc)] == ["Head"]


# --------------------------------------------------------------------------------------------------
# serve-replica-infeasible


def test_a_gpu_replica_on_a_cluster_without_gpus() -> None:
    doc = _service("ray_actor_options:", "  num_gpus: 1")
    assert _found(doc) == [
        (
            "serve-replica-infeasible",
            "critical",
            f"spec.{ACTOR}",
            "Serve deployment 'D' of application 'app' needs CPU 1, GPU 1 per replica, which no group can ever host (groups that can have nodes: head, 'small-group'; the largest offers: CPU 1 (head), GPU 0); its replicas stay pending and the RayService never turns ready",
        )
    ]
    _limits(_worker(doc), {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": 1})
    assert _found(doc) == []
    _worker(doc).update(replicas=0, minReplicas=0, maxReplicas=0)  # the GPU group can never have a node
    assert [path for _, _, path, _ in _found(doc)] == [f"spec.{ACTOR}"]


def test_fractional_cpus_and_memory_in_bytes() -> None:
    _head_at_zero = {"num-cpus": "0"}
    doc = _service("ray_actor_options:", "  num_cpus: 0.5", "  memory: 2147483648")  # 2Gi: the worker's limit
    _head(doc)["rayStartParams"] = _head_at_zero
    assert _found(doc) == []
    doc = _service("ray_actor_options:", "  num_cpus: 0.5", "  memory: 3221225472")  # 3Gi: more than any limit
    [(_, _, _, message)] = _found(doc)
    assert "needs CPU 0.5, memory 3Gi per replica" in message
    assert "the largest offers: CPU 0.5" not in message and "memory 2Gi (head)" in message
    doc = _service("ray_actor_options:", "  num_cpus: 2")  # 1 CPU per group
    [(_, _, _, message)] = _found(doc)
    assert "the largest offers: CPU 1 (head)" in message


def test_memory_not_known_is_never_judged() -> None:
    doc = _service("ray_actor_options:", "  memory: 107374182400")  # 100Gi
    _limits(_worker(doc), {"cpu": "2"})  # no memory limit: Ray counts the node's memory
    assert _found(doc) == []


def test_custom_resources_must_be_declared_by_a_group() -> None:
    doc = _service("ray_actor_options:", "  resources:", "    fast_disk: 1")
    [(rule, severity, path, message)] = _found(doc)
    assert (rule, severity, path) == ("serve-replica-infeasible", "critical", f"spec.{ACTOR}")
    assert "needs CPU 1, fast_disk 1 per replica" in message and "fast_disk 0" in message
    _worker(doc)["rayStartParams"] = {"resources": '"{\\"fast_disk\\": 2}"'}  # not JSON after trimming: unknown
    assert _found(doc) == []
    _worker(doc)["rayStartParams"] = {"resources": '{"fast_disk": 2}'}
    assert _found(doc) == []


def test_accelerator_type_needs_a_group_that_declares_it_or_may_detect_it() -> None:
    doc = _service("ray_actor_options:", "  accelerator_type: A100")
    [(_, _, _, message)] = _found(doc)
    assert "accelerator_type:A100 0.001" in message
    _limits(_worker(doc), {"cpu": "4", "nvidia.com/gpu": 1})  # Ray sets accelerator_type:<the GPU's model> itself
    assert _found(doc) == []
    _limits(_worker(doc), {"cpu": "4"})
    _worker(doc)["resources"] = {"accelerator_type:A100": "1"}
    assert _found(doc) == []


def test_gpus_granted_outside_the_limits_are_not_known() -> None:
    doc = _service("ray_actor_options:", "  num_gpus: 0.5")
    _worker(doc)["template"]["metadata"] = {"annotations": {"gpu-fraction": "0.5"}}  # KAI GPU sharing
    assert _found(doc) == []


def test_placement_group_bundles_each_need_one_node() -> None:
    doc = _service(
        "ray_actor_options:", "  num_cpus: 1", "placement_group_bundles:", "  - CPU: 1", "  - CPU: 1", "    GPU: 1"
    )
    assert [(rule, path) for rule, _, path, _ in _found(doc)] == [
        ("serve-replica-infeasible", "spec.serveConfigV2.applications[0].deployments[0].placement_group_bundles[1]")
    ]


@pytest.mark.parametrize(
    "lines",
    [
        ("num_replicas: 0", "ray_actor_options:", "  num_gpus: 1"),  # no replica to host
        ("num_replicas: 1",),  # the code's options: not known here
    ],
)
def test_what_is_not_judged(lines: tuple[str, ...]) -> None:
    assert _found(_service(*lines)) == []


def test_unknown_values_and_user_started_ray_are_not_judged() -> None:
    doc = _service("ray_actor_options:", "  num_gpus: 1")
    _limits(_worker(doc), {"cpu": "4", "nvidia.com/gpu": UNKNOWN_SENTINEL})
    assert _found(doc) == []
    doc = _service("ray_actor_options:", "  num_gpus: 1")
    doc["metadata"]["annotations"] = {"ray.io/overwrite-container-cmd": "true"}
    assert _found(doc) == []


# --------------------------------------------------------------------------------------------------
# serve-cluster-no-cpu


def test_a_zero_cpu_head_and_no_worker_group_never_runs_a_default_replica() -> None:
    doc = _service("num_replicas: 2")
    _head(doc)["rayStartParams"] = {"num-cpus": "0"}
    _cluster(doc)["workerGroupSpecs"] = []
    assert _found(doc) == [
        (
            "serve-cluster-no-cpu",
            "high",
            "spec.serveConfigV2.applications[0]",
            "application 'app': no group of the cluster ever offers a CPU (groups that can have nodes: head, each at 0 CPU), and a Serve replica reserves 1 CPU unless its code sets num_cpus: 0; its replicas would stay pending (not certain: the config gives 'D' no ray_actor_options, so Ray Serve keeps the options of the application's code, which the spec does not show)",
        )
    ]
    doc = _service("ray_actor_options:", "  num_cpus: 0")  # the config says 0 CPU: it fits the head
    _head(doc)["rayStartParams"] = {"num-cpus": "0"}
    _cluster(doc)["workerGroupSpecs"] = []
    assert _found(doc) == []


def _head_only(*deployment_lines: str, apps: str | None = None) -> dict[str, Any]:
    """A head-only RayService whose head offers no CPU (num-cpus "0"), and no worker group at all."""
    doc = _service(*deployment_lines, apps=apps)
    _head(doc)["rayStartParams"] = {"num-cpus": "0"}
    del _cluster(doc)["workerGroupSpecs"]
    return doc


@pytest.mark.parametrize(
    ("lines", "need"),
    [
        (("num_replicas: 2", "ray_actor_options:", "  num_cpus: 1"), "CPU 1"),
        (("ray_actor_options:", "  memory: 1073741824"), "CPU 1, memory 1Gi"),  # num_cpus defaults to 1
        (("ray_actor_options:", "  num_cpus: 0", "  num_gpus: 1"), "GPU 1"),
        (("ray_actor_options:", "  num_cpus: 0", "  resources: {tpu_slice: 1}"), "tpu_slice 1"),
    ],
)
def test_a_head_only_service_whose_config_fixes_the_replicas_resources_is_critical(
    lines: tuple[str, ...], need: str
) -> None:
    # The config's ray_actor_options replace the code's whole (override_deployment_info): the spec proves it.
    found = _found(_head_only(*lines))
    assert [(rule, severity, path) for rule, severity, path, _ in found] == [
        ("serve-replica-infeasible", "critical", "spec.serveConfigV2.applications[0].deployments[0].ray_actor_options")
    ]
    assert found[0][3].startswith(
        f"Serve deployment 'D' of application 'app' needs {need} per replica, which no group can ever host (groups that can have nodes: head;"
    )


def test_a_head_only_service_whose_code_decides_the_replicas_resources_stays_high() -> None:
    # Not listed, or listed without ray_actor_options: Ray Serve keeps the code's options (override_deployment_info),
    # which may set num_cpus: 0. The spec does not prove the failure: high, the message says why.
    unlisted = _head_only(apps="applications:\n  - name: app\n    import_path: m:app\n")
    listed = _head_only("num_replicas: 2", "user_config: {a: 1}")
    for doc, why in (
        (unlisted, "the config lists none of its deployments"),
        (listed, "the config gives 'D' no ray_actor_options"),
    ):
        ((rule, severity, path, message),) = _found(doc)
        assert (rule, severity, path) == ("serve-cluster-no-cpu", "high", "spec.serveConfigV2.applications[0]")
        assert message.endswith(
            f"(not certain: {why}, so Ray Serve keeps the options of the application's code, which the spec does not show)"
        )


# --------------------------------------------------------------------------------------------------
# rayjob-entrypoint-infeasible


def test_the_entrypoint_of_a_rayjob() -> None:
    job = example_job(entrypointNumCpus=2)
    assert _found(job) == [
        (
            "rayjob-entrypoint-infeasible",
            "critical",
            "spec.entrypointNumCpus",
            "the entrypoint needs CPU 2, which no group of the job's cluster can ever host (groups that can have nodes: head, 'small-group'; the largest offers: CPU 1 (head)); the job stays pending and never runs",
        )
    ]
    job = example_job(entrypointNumCpus=0.5, entrypointResources='{"license": 1}')
    [(_, _, path, message)] = _found(job)
    assert path == "spec.entrypointResources" and "needs CPU 0.5, license 1" in message
    _worker(job)["rayStartParams"] = {"resources": '{"license": 1}'}
    assert _found(job) == []


def test_the_entrypoint_of_a_raycronjob_template() -> None:
    cron = example_cronjob(jobTemplate={**example_job()["spec"], "entrypointNumGpus": 1})
    assert [(r, s, p) for r, s, p, _ in _found(cron, RayCronJob=True)] == [
        ("rayjob-entrypoint-infeasible", "critical", "spec.jobTemplate.entrypointNumGpus")
    ]


def test_a_job_on_a_selected_cluster_is_not_judged() -> None:
    job = example_job(entrypointNumGpus=1, rayClusterSpec=None, clusterSelector={"ray.io/cluster": "c"})
    job["spec"].pop("shutdownAfterJobFinishes", None)
    job["spec"].pop("ttlSecondsAfterFinished", None)
    assert _found(job) == []


# --------------------------------------------------------------------------------------------------
# tpu-hosts-topology-mismatch


def _tpu(topology: str, per_host: str, hosts: int | None) -> dict[str, Any]:
    doc = example_job()
    limits = {"cpu": "8", "memory": "32Gi", "google.com/tpu": per_host}
    _limits(_worker(doc), limits)
    _worker(doc)["template"]["spec"]["nodeSelector"] = {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
        "cloud.google.com/gke-tpu-topology": topology,
    }
    if hosts is not None:
        _worker(doc)["numOfHosts"] = hosts
    return doc


@pytest.mark.parametrize(
    ("topology", "per_host", "hosts", "expected"),
    [
        ("4x4", "4", 4, None),  # v6e-16: 16 chips, 4 per host
        ("16x16", "4", 64, None),
        ("2x4", "8", 1, None),  # one host of 8 chips
        ("2x2x1", "4", None, None),  # single host: numOfHosts defaults to 1
        ("2x2", "4", 0, None),  # numOfHosts 0 is read as 1
        ("4x4", "4", None, "so one slice takes 4 hosts, but numOfHosts is 1"),
        ("2x2x2", "4", 4, "so one slice takes 2 hosts, but numOfHosts is 4"),
        ("2x3", "4", 1, "so one slice takes 1.5 hosts, not a whole number, but numOfHosts is 1"),
    ],
)
def test_num_of_hosts_against_the_tpu_topology(
    topology: str, per_host: str, hosts: int | None, expected: str | None
) -> None:
    found = _found(_tpu(topology, per_host, hosts), "tpu-hosts-topology-mismatch")
    if expected is None:
        assert found == []
        return
    [(rule, severity, path, message)] = found
    assert (rule, severity, path) == (
        "tpu-hosts-topology-mismatch",
        "critical",
        "spec.rayClusterSpec.workerGroupSpecs[0].numOfHosts",
    )
    assert f"the TPU topology {topology} has" in message and expected in message


def test_a_group_without_a_topology_selector_is_not_judged() -> None:
    doc = _tpu("4x4", "4", 1)
    del _worker(doc)["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-tpu-topology"]
    assert _found(doc, "tpu-hosts-topology-mismatch") == []


# --------------------------------------------------------------------------------------------------
# The critical contract: what Ray detects on the node itself makes an infeasible request at most high


def _neuron_service(*env: dict[str, Any], device: str = "aws.amazon.com/neuron") -> dict[str, Any]:
    """An Inferentia blueprint: the worker is granted Neuron devices, the deployment asks for neuron_cores."""
    doc = _service("ray_actor_options:", "  num_cpus: 1", "  resources:", "    neuron_cores: 2")
    _limits(_worker(doc), {"cpu": "8", "memory": "32Gi", device: "1"})
    if env:
        _ray(_worker(doc))["env"] = list(env)
    return doc


def test_neuron_devices_make_neuron_cores_uncertain_high_not_critical() -> None:
    [(rule_id, severity, path, message)] = _found(_neuron_service())
    assert (rule_id, severity, path) == ("serve-replica-infeasible", "high", f"spec.{ACTOR}")
    assert "(high, not certain: group 'small-group' may offer it" in message
    assert "granted aws.amazon.com/neuron, which Ray's accelerator managers may detect and advertise" in message


def test_neuroncore_is_what_kuberay_passes_so_its_amount_is_certain() -> None:
    """aws.amazon.com/neuroncore is in customAcceleratorToRayResourceMap: KubeRay passes neuron_cores 1, which Ray
    takes over what it detects; 2 per replica then never fits."""
    [(rule_id, severity, _, message)] = _found(_neuron_service(device="aws.amazon.com/neuroncore"))
    assert (rule_id, severity) == ("serve-replica-infeasible", "critical")
    assert "not certain" not in message


def test_ray_override_resources_in_env_is_high_naming_it() -> None:
    doc = _service("ray_actor_options:", "  num_cpus: 1", "  resources:", "    special: 1")
    _ray(_worker(doc))["env"] = [{"name": "RAY_OVERRIDE_RESOURCES", "value": '{"special": 4}'}]
    [(rule_id, severity, _, message)] = _found(doc)
    assert (rule_id, severity) == ("serve-replica-infeasible", "high")
    assert "RAY_OVERRIDE_RESOURCES in the Ray container's env overrides the node's resources" in message
    other = _service("ray_actor_options:", "  num_cpus: 1", "  resources:", "    other: 1")
    _ray(_worker(other))["env"] = [{"name": "RAY_OVERRIDE_RESOURCES", "value": '{"special": 4}'}]
    assert [f[1] for f in _found(other)] == ["critical"]  # the override names another resource: still certain


def test_gpu_nodes_tolerated_without_a_gpu_request_is_high() -> None:
    doc = _service("ray_actor_options:", "  num_cpus: 1", "  num_gpus: 1")
    _worker(doc)["template"]["spec"]["tolerations"] = [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    [(rule_id, severity, _, message)] = _found(doc)
    assert (rule_id, severity) == ("serve-replica-infeasible", "high")
    assert "the Pod tolerates nvidia.com/gpu without requesting a GPU" in message
    plain = _service("ray_actor_options:", "  num_cpus: 1", "  num_gpus: 1")
    assert [f[1] for f in _found(plain)] == ["critical"]


def test_entrypoint_on_neuron_devices_is_high() -> None:
    doc = example_job(entrypointResources='{"neuron_cores": 1}')
    _limits(_worker(doc), {"cpu": "8", "memory": "32Gi", "aws.amazon.com/neuron": "1"})
    [(rule_id, severity, _, _)] = _found(doc, "rayjob-entrypoint-infeasible")
    assert (rule_id, severity) == ("rayjob-entrypoint-infeasible", "high")
