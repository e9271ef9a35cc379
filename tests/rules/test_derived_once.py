"""What several rules read from one document (the built pod templates, the Serve applications and deployments, each
cluster's Ray offers) is derived once per ``rules.check`` and shared; what is parsed from one string (a quantity, a
container's requests and limits, a label, an image's Ray release) is kept by that string in a bounded cache. Neither
may serve one document's facts to another, nor a dict's facts after it changed."""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay import paths
from pulumi_kuberay.kuberay import quantity as kube_quantity
from pulumi_kuberay.kuberay.paths import cluster_specs, document_views
from pulumi_kuberay.rules import Target, _manifest_readers, _ray_resources, _serve_config
from pulumi_kuberay.rules._examples import example, example_service, worker_container_of


def _rule_module(name: str) -> Any:
    """A rule module, imported by the catalogue (imported here first, its rules would be declared out of the
    catalogue's order, and the pack's policies listed in another order in this process than in the pack's)."""
    rules.rules_of("document")
    return importlib.import_module(f"pulumi_kuberay.rules.{name}")


def _ids(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f.rule_id, f.path) for f in rules.check(doc)]


def _with_worker_resources(resources: dict[str, Any]) -> dict[str, Any]:
    return example(lambda d: worker_container_of(d).update(resources=resources))


_FITS = {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}}
_OVER = {"requests": {"cpu": "2", "memory": "2Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}}
_REQUESTS_PATH = "spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests"


def _gpu_service() -> dict[str, Any]:
    text = "applications:\n  - name: app\n    import_path: m:app\n    deployments:\n      - name: D\n        ray_actor_options:\n          num_gpus: 1\n"
    return example_service(serveConfigV2=text)


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """Replace ``module.name`` by a wrapper counting its calls (the count is the list's length)."""
    calls: list[int] = []
    original: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any) -> Any:
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


# --------------------------------------------------------------------------------------------------
# Once per check


@pytest.mark.parametrize(
    ("module", "builder", "doc"),
    [
        # a dozen Pod validation rules read them (built_pod_templates holds its builder: its walk is counted)
        (_manifest_readers, "_walk_built_pod_templates", example()),
        (_serve_config, "_serve_apps", _gpu_service()),  # the Serve app and feasibility rules
        (_serve_config, "_serve_deployments", _gpu_service()),
        (_ray_resources, "_own_cluster_offers", _gpu_service()),  # serve-replica-infeasible and serve-cluster-no-cpu
    ],
)
def test_a_derived_fact_is_built_once_per_check(
    monkeypatch: pytest.MonkeyPatch, module: Any, builder: str, doc: dict[str, Any]
) -> None:
    calls = _counting(monkeypatch, module, builder)
    rules.check(doc)
    assert len(calls) == 1
    rules.check(doc)  # the next check derives it again: nothing is kept between checks
    assert len(calls) == 2


def test_the_readers_share_one_value_during_a_check_and_none_outside() -> None:
    doc = _gpu_service()
    with document_views(doc):
        [ref] = cluster_specs(doc)
        assert _manifest_readers.built_pod_templates(doc) is _manifest_readers.built_pod_templates(doc)
        assert _serve_config.serve_apps(doc) is _serve_config.serve_apps(doc)
        assert _serve_config.serve_deployments(doc) is _serve_config.serve_deployments(doc)
        offers = _ray_resources.cluster_offers(ref, ref.annotations)
        assert offers is _ray_resources.cluster_offers(ref, ref.annotations)
    # outside a check (or on another dict than the one checked) each call builds afresh, equal
    first, second = _manifest_readers.built_pod_templates(doc), _manifest_readers.built_pod_templates(doc)
    assert first == second and first is not second
    other = copy.deepcopy(doc)
    with document_views(doc):
        assert _serve_config.serve_apps(other) is not _serve_config.serve_apps(other)


def test_the_refs_keep_their_views_during_a_check_only() -> None:
    """A cluster spec's groups, a group's template and a template's containers are kept on the ref while ``check``
    runs (``part_view``); outside a check every call reads the dicts again, so a change between two reads shows."""
    doc = example()
    with document_views(doc):
        [ref] = cluster_specs(doc)
        assert paths.groups(ref) is paths.groups(ref)
        template = paths.group_template(paths.groups(ref)[1])
        assert template is not None and paths.app_containers(template) is paths.app_containers(template)
        assert paths.head_ray_container(ref) is paths.head_ray_container(ref)
        kept = ref
    assert kept.views == {} and template.views == {}  # forgotten when the check ends: nothing kept between checks
    [ref] = cluster_specs(doc)
    template = paths.group_template(paths.groups(ref)[1])
    assert template is not None
    first = paths.app_containers(template)
    assert [path for path, _ in first] == ["spec.workerGroupSpecs[0].template.spec.containers[0]"]
    template.pod_spec["initContainers"] = [{"name": "init", "image": "busybox"}]
    assert [path for path, _ in paths.app_containers(template)] == [
        "spec.workerGroupSpecs[0].template.spec.initContainers[0]",
        "spec.workerGroupSpecs[0].template.spec.containers[0]",
    ]
    doc["spec"]["workerGroupSpecs"].append(copy.deepcopy(doc["spec"]["workerGroupSpecs"][0]))
    assert len(paths.worker_groups(ref)) == 2


def test_only_a_spec_with_a_null_is_copied_without_its_nulls(monkeypatch: pytest.MonkeyPatch) -> None:
    """check's walk of the manifest tells the schema rules it holds no null (most do): the spec is validated as it
    is; one with a null is still validated as the API server keeps it (the null dropped)."""
    schema = _rule_module("schema")
    calls = _counting(monkeypatch, schema, "_without_nulls")
    rules.check(example())
    assert calls == []
    with_null = example(lambda d: d["spec"].update(enableInTreeAutoscaling=None))
    assert not any(f.rule_id.startswith("schema-") for f in rules.check(with_null))
    assert calls
    missing = example(lambda d: d["spec"]["workerGroupSpecs"][0].update(groupName=None))
    found = [(f.rule_id, f.path) for f in rules.check(missing)]
    assert ("schema-missing-field", "spec.workerGroupSpecs[0].groupName") in found


def test_offers_with_other_annotations_than_the_specs_own_are_not_shared() -> None:
    doc = _gpu_service()
    with document_views(doc):
        [ref] = cluster_specs(doc)
        own = _ray_resources.cluster_offers(ref, ref.annotations)
        overwritten = _ray_resources.cluster_offers(ref, {"ray.io/overwrite-container-cmd": "true"})
    assert own is not None and len(own) == 2
    assert overwritten is None  # the user's own `ray start`: nothing can be known, not the cached offers


# --------------------------------------------------------------------------------------------------
# Never another document's facts, nor a changed dict's old ones


def test_documents_checked_in_a_row_each_get_their_own_findings() -> None:
    fits, over = _with_worker_resources(_FITS), _with_worker_resources(_OVER)
    service, gpu_service = example_service(), _gpu_service()
    alone = {id(doc): _ids(copy.deepcopy(doc)) for doc in (fits, over, service, gpu_service)}
    for doc in (fits, over, fits, service, gpu_service, service, over, gpu_service):
        assert _ids(doc) == alone[id(doc)]
    assert ("pod-resources-invalid", _REQUESTS_PATH) in alone[id(over)]
    assert not any(rule == "pod-resources-invalid" for rule, _ in alone[id(fits)])
    assert any(rule == "serve-replica-infeasible" for rule, _ in alone[id(gpu_service)])
    assert not any(rule == "serve-replica-infeasible" for rule, _ in alone[id(service)])


def test_a_dict_changed_in_place_between_checks_is_judged_as_it_is_now() -> None:
    doc = _with_worker_resources(copy.deepcopy(_FITS))
    assert ("pod-resources-invalid", _REQUESTS_PATH) not in _ids(doc)
    worker_container_of(doc)["resources"]["requests"]["cpu"] = "3"  # the same dicts, now over the limit (2)
    assert ("pod-resources-invalid", _REQUESTS_PATH) in _ids(doc)
    worker_container_of(doc)["resources"]["requests"]["cpu"] = "1"
    assert ("pod-resources-invalid", _REQUESTS_PATH) not in _ids(doc)

    service = example_service()
    assert "serve-replica-infeasible" not in {rule for rule, _ in _ids(service)}
    service["spec"]["serveConfigV2"] = _gpu_service()["spec"]["serveConfigV2"]
    assert "serve-replica-infeasible" in {rule for rule, _ in _ids(service)}
    worker = service["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    worker["resources"]["limits"]["nvidia.com/gpu"] = "1"  # now a group offers the GPU
    worker["resources"]["requests"]["nvidia.com/gpu"] = "1"
    assert "serve-replica-infeasible" not in {rule for rule, _ in _ids(service)}


@pytest.mark.parametrize("amount", [True, 1.0, 1, "1"])
def test_requests_and_limits_that_compare_equal_are_judged_by_their_own_type(amount: Any) -> None:
    """``True == 1 == 1.0``: the content-keyed judgement of a container's resources must not answer one with
    another's findings (a bool is no quantity; 1.0 and 1 are)."""
    _rule_module("pod_resources")._resource_problems_of.cache_clear()
    resources = {"limits": {"nvidia.com/gpu": amount}}
    fresh = _ids(_with_worker_resources(resources))
    for other in (True, 1.0, 1, "1"):
        _ids(_with_worker_resources({"limits": {"nvidia.com/gpu": other}}))
    assert _ids(_with_worker_resources(resources)) == fresh


def test_the_string_caches_are_bounded() -> None:
    """The policy pack runs for a whole preview: what it keeps by string has a ceiling."""
    practice, pod_resources = _rule_module("practice"), _rule_module("pod_resources")
    for cache in (
        kube_quantity.parse,
        kube_quantity._text_amount,
        _manifest_readers.qualified_name_error,
        _manifest_readers.label_value_error,
        practice._ray_version_of_image,
        practice._python_of_image,
        practice._hidden_version,
        _rule_module("common_mistakes").image_reference_error,
        _manifest_readers.port_name_error,
        pod_resources._resource_problems_of,
    ):
        maxsize = cache.cache_info().maxsize
        assert maxsize is not None and maxsize <= 4096


# --------------------------------------------------------------------------------------------------
# One Context per target's settings


def _gated_rule_fires(target: Target) -> bool:
    rule = rules.RULES["tls-managed-env"]  # gate RayClusterMTLS
    return any(f.rule_id == rule.id for f in rules.check(copy.deepcopy(rule.violating), target))


def test_equal_targets_share_one_context_and_unequal_ones_do_not() -> None:
    """The policy pack makes an equal Target for every resource (``override(audience="pack")``): one Context and one
    rule selection serve them all, and a target of other settings gets its own."""
    on = Target.of(feature_gates={"RayClusterMTLS": True})
    first, second = on.override(audience="pack"), on.override(audience="pack")
    assert first is not second
    assert rules._checking_of(first) is rules._checking_of(second)
    off = Target.of(feature_gates={"RayClusterMTLS": False}).override(audience="pack")
    assert rules._checking_of(off) is not rules._checking_of(first)
    assert rules._checking_of(off).context.gate("RayClusterMTLS") is False
    assert _gated_rule_fires(first) and _gated_rule_fires(second)
    assert not _gated_rule_fires(off)
    assert _gated_rule_fires(on.override(audience="pack"))


def test_a_targets_gates_changed_in_place_are_read_as_they_are_now() -> None:
    gates = {"RayClusterMTLS": True}
    target = Target("1.7.0", gates)
    twin = Target("1.7.0", {"RayClusterMTLS": True})
    assert _gated_rule_fires(target) and _gated_rule_fires(twin)
    gates["RayClusterMTLS"] = False  # the owner's mapping, changed after the Target was made
    assert not _gated_rule_fires(target)
    assert _gated_rule_fires(twin)
