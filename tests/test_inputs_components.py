# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""``pulumi.Input`` values in the components, under mocks: known values, unknown values at preview, secrets,
dependencies, critical findings and bad argument types, for every kind.

Every test is ``@pulumi.runtime.test`` and RETURNS an Output (assertions inside run only then); tests that
expect the program to fail wrap such a function in ``pytest.raises``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pulumi
import pytest
from _pulumi_mocks import MockEnv, after_settling, install
from google.protobuf import json_format
from pulumi_kuberay.model.cluster import HeadGroupSpec, RayClusterSpec, WorkerGroupSpec
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.model.pod import SecretRef
from pulumi_kuberay.resources._shared import CriticalFindingsError
from pulumi_kuberay.resources.cluster import RayCluster
from pulumi_kuberay.resources.cronjob import RayCronJob
from pulumi_kuberay.resources.job import RayJob
from pulumi_kuberay.resources.service import RayService
from pulumi_kuberay.rules import UNKNOWN_SENTINEL
from pulumi_kubernetes.core.v1 import ConfigMap, Namespace, Secret

RAY = "kubernetes:ray.io/v1:"
IMAGE = "rayproject/ray:2.52.0"
#: The secret marker of the engine's wire format (``rpc._special_sig_key``: ``_special_secret_sig``).
SECRET_SIG = "4dabf18193072939515e22adb298388d"
SECRET_VALUE = "s3cr3t-value-never-in-plain-text"


@pytest.fixture(autouse=True)
def _clean_config() -> Iterator[None]:
    yield
    pulumi.runtime.set_all_config({})


async def _value(value: Any) -> Any:
    return value


def unknown() -> pulumi.Output[Any]:
    """An Output whose value is not known (as at preview for a resource not created yet)."""
    return pulumi.Output(set(), _value(None), _value(False))


def known(value: Any) -> pulumi.Output[Any]:
    return pulumi.Output.from_input(value)


def cluster_dict(image: Any = IMAGE, **group: Any) -> dict[str, Any]:
    return {
        "rayVersion": "2.52.0",
        "image": image,
        "headGroupSpec": {"cpu": 1, "memory": "4Gi"},
        "workerGroupSpecs": [
            {"groupName": "cpu", "cpu": 1, "memory": "4Gi", "replicas": 1, "minReplicas": 1, "maxReplicas": 2,
             **group}
        ],
    }


def job_dict(image: Any = IMAGE) -> dict[str, Any]:
    return {
        "entrypoint": "python -c 'import ray; ray.init()'",
        "shutdownAfterJobFinishes": True,
        "ttlSecondsAfterFinished": 60,
        "rayClusterSpec": cluster_dict(image),
    }


def service_dict(image: Any = IMAGE) -> dict[str, Any]:
    return {
        "upgradeStrategy": {"type": "NewCluster"},
        "serveConfigV2": {"applications": [{"name": "a", "route_prefix": "/a", "import_path": "a.main:app"}]},
        "rayClusterConfig": cluster_dict(image),
    }


def cron_dict(image: Any = IMAGE) -> dict[str, Any]:
    return {"schedule": "0 3 * * *", "jobTemplate": job_dict(image)}


#: kind -> (component class, spec builder, extra keyword arguments)
KINDS: dict[str, tuple[Any, Callable[..., dict[str, Any]], dict[str, Any]]] = {
    "RayCluster": (RayCluster, cluster_dict, {}),
    "RayJob": (RayJob, job_dict, {}),
    "RayService": (RayService, service_dict, {}),
    "RayCronJob": (RayCronJob, cron_dict, {"feature_gates": {"RayCronJob": True}}),
}


def urns(*components: Any) -> list[pulumi.Output[Any]]:
    return [c.urn for c in components] + [c.resource.urn for c in components]


def wire(env: MockEnv, kind: str, name: str) -> dict[str, Any]:
    """The custom resource's properties exactly as sent to the engine (secrets still wrapped)."""
    request = env.request(RAY + kind, name)
    return json_format.MessageToDict(request.object)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------------------------------
# Known values: the same manifest as with plain values, and the custom resource depends on their resources.


@pytest.mark.parametrize("kind", list(KINDS))
@pulumi.runtime.test
def test_known_outputs_render_what_plain_values_render_and_carry_dependencies(kind: str) -> pulumi.Output[Any]:
    env = install()
    component, spec, extra = KINDS[kind]
    namespace = Namespace("ns", metadata={"name": "ml"})
    plain = component("plain", spec(), namespace="ml", labels={"team": "a"}, **extra)
    wired = component(
        "wired",
        spec(known(IMAGE)),
        namespace=namespace.metadata.apply(lambda m: m["name"]),
        labels={"team": known("a")},
        **extra,
    )
    assert plain.manifest is not None and wired.manifest is None  # known at construction or not

    def check(*_: Any) -> None:
        by_name = {r.name: r.inputs for r in env.ray(kind)}
        assert by_name["wired"]["spec"] == by_name["plain"]["spec"]
        assert by_name["wired"]["metadata"] == {**by_name["plain"]["metadata"], "name": "wired"}
        deps = set(env.request(RAY + kind, "wired").dependencies)
        assert any(d.endswith("kubernetes:core/v1:Namespace::ns") for d in deps), deps

    return after_settling(check, *urns(plain, wired), wired.manifest_output)


@pulumi.runtime.test
def test_typed_models_accept_outputs_in_their_fields() -> pulumi.Output[Any]:
    env = install()
    secret = Secret("hf", metadata={"name": "hf-token"}, string_data={"token": "x"})
    config = ConfigMap("env", metadata={"name": "ray-env"}, data={"A": "b"})
    spec = RayClusterSpec(
        ray_version="2.52.0",
        image=known(IMAGE),
        head_group_spec=HeadGroupSpec(cpu=1, memory="4Gi", service_account=known("ray-sa")),
        worker_group_specs=[
            WorkerGroupSpec(
                group_name="cpu", cpu=1, memory="4Gi", replicas=1, min_replicas=1, max_replicas=2,
                env={"HF_TOKEN": SecretRef(secret.metadata.apply(lambda m: m["name"]), "token")},
                env_from=[{"configMapRef": {"name": config.metadata.apply(lambda m: m["name"])}}],
            )
        ],
    )
    assert spec.pending_input() is not None
    cluster = RayCluster("typed", spec, namespace="ml")

    def check(*_: Any) -> None:
        spec_in = env.ray("RayCluster")[0].inputs["spec"]
        head = spec_in["headGroupSpec"]["template"]["spec"]
        assert head["serviceAccountName"] == "ray-sa" and head["containers"][0]["image"] == IMAGE
        worker = spec_in["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
        secret_ref = {"secretKeyRef": {"name": "hf-token", "key": "token"}}
        assert worker["env"] == [{"name": "HF_TOKEN", "valueFrom": secret_ref}]
        assert worker["envFrom"] == [{"configMapRef": {"name": "ray-env"}}]
        deps = set(env.request(RAY + "RayCluster", "typed").dependencies)
        assert {d.rsplit("::", 1)[1] for d in deps} >= {"hf", "env"}

    return after_settling(check, *urns(cluster))


@pulumi.runtime.test
def test_job_on_a_cluster_built_from_outputs() -> pulumi.Output[Any]:
    env = install()
    namespace = Namespace("ns", metadata={"name": "ml"})
    cluster = RayCluster("shared", cluster_dict(known(IMAGE)), namespace=namespace.metadata.apply(lambda m: m["name"]))
    job = RayJob("batch", RayJobSpec(entrypoint=known("python batch.py")), cluster=cluster)

    def check(*_: Any) -> None:
        job_in = env.ray("RayJob")[0].inputs
        assert job_in["metadata"]["namespace"] == "ml"  # the cluster's namespace
        assert job_in["spec"]["clusterSelector"] == {"ray.io/cluster": "shared"}
        assert job_in["spec"]["submitterPodTemplate"]["spec"]["containers"][0]["image"] == IMAGE
        deps = set(env.request(RAY + "RayJob", "batch").dependencies)
        assert any(d.endswith("::shared") for d in deps)

    return after_settling(check, *urns(cluster, job))


# --------------------------------------------------------------------------------------------------
# Unknown values at preview: registered, the unknown value sent as computed, everything known judged.


@pytest.mark.parametrize("kind", list(KINDS))
@pulumi.runtime.test
def test_unknown_values_at_preview_register_and_known_parts_are_judged(kind: str) -> pulumi.Output[Any]:
    env = install(preview=True)
    component, spec, extra = KINDS[kind]
    doc = spec(unknown())
    # A known mistake next to the unknown image: an unpinned worker image (high, warned).
    groups = _cluster_part(doc)["workerGroupSpecs"]
    groups[0]["image"] = "rayproject/ray:latest"
    comp = component("wired", doc, namespace=unknown(), **extra)

    def check(*_: Any) -> None:
        sent = wire(env, kind, "wired")
        assert sent["metadata"]["namespace"] == UNKNOWN_SENTINEL
        head = _cluster_part(sent["spec"])["headGroupSpec"]["template"]["spec"]["containers"][0]
        assert head["image"] == UNKNOWN_SENTINEL
        assert head["securityContext"]["runAsNonRoot"] is True  # the rest of the spec is there, rendered
        warned = [w for w in env.log.warnings if w.startswith("[image-tag-not-pinned]")]
        assert warned and "rayproject/ray:latest" in warned[0]
        assert not [w for w in env.log.warnings if UNKNOWN_SENTINEL in w]  # unknowns are never judged

    return after_settling(check, *urns(comp))


def _cluster_part(spec: dict[str, Any]) -> dict[str, Any]:
    for path in (("rayClusterSpec",), ("rayClusterConfig",), ("jobTemplate", "rayClusterSpec")):
        part: Any = spec
        for key in path:
            part = part.get(key) if isinstance(part, dict) else None
        if isinstance(part, dict):
            return part
    return spec


def _expect_failure(program: Callable[[], pulumi.Output[Any]]) -> BaseException:
    decorated = pulumi.runtime.test(program)
    with pytest.raises(Exception) as raised:  # noqa: PT011 - every caller then asserts on the exception's text
        decorated()
    return raised.value


@pytest.mark.parametrize("kind", list(KINDS))
def test_critical_finding_with_outputs_stops_before_the_custom_resource_with_the_same_message(kind: str) -> None:
    component, spec, extra = KINDS[kind]
    long_name = "x" * 60  # over every kind's name limit
    env = install()
    with pytest.raises(CriticalFindingsError) as plain:
        component(long_name, spec(), **extra)
    env = install()

    def program() -> pulumi.Output[Any]:
        comp = component("wired", spec(known(IMAGE)), object_name=known(long_name), **extra)
        return after_settling(lambda *_: None, *urns(comp))

    error = _expect_failure(program)
    assert isinstance(error, CriticalFindingsError), error
    assert str(error) == str(plain.value)
    assert env.ray(kind) == []  # the custom resource was never created
    assert not [r for r in env.monitor.requests if r.type == RAY + kind]


# --------------------------------------------------------------------------------------------------
# Secrets stay secret.


def _plain_occurrences(value: Any, needle: str, inside_secret: bool = False) -> int:
    """How often ``needle`` appears in ``value`` outside a secret-wrapped object."""
    if isinstance(value, dict):
        wrapped = inside_secret or SECRET_SIG in value
        return sum(_plain_occurrences(v, needle, wrapped) for v in value.values())
    if isinstance(value, list):
        return sum(_plain_occurrences(v, needle, inside_secret) for v in value)
    return int(isinstance(value, str) and needle in value and not inside_secret)


@pulumi.runtime.test
def test_a_secret_output_is_sent_as_a_secret_and_never_appears_in_warnings() -> pulumi.Output[Any]:
    env = install()
    cluster = RayCluster("secretive", cluster_dict(env={"API_TOKEN": pulumi.Output.secret(SECRET_VALUE)}))

    def check(*_: Any, secret_flag: bool = False) -> None:
        sent = wire(env, "RayCluster", "secretive")
        assert SECRET_VALUE in json.dumps(sent)  # sent, but only wrapped as a secret
        assert _plain_occurrences(sent, SECRET_VALUE) == 0
        warnings = env.log.warnings
        assert any(w.startswith("[secret-in-plain-env]") for w in warnings)  # the rule still judged it
        assert not [w for w in warnings if SECRET_VALUE in w]

    secret_outputs = pulumi.Output.all(cluster.dashboard_url).apply(lambda _: None)
    return after_settling(check, *urns(cluster), secret_outputs)


@pulumi.runtime.test
def test_outputs_derived_from_a_secret_are_secret() -> pulumi.Output[Any]:
    install()
    cluster = RayCluster("secretive", cluster_dict(pulumi.Output.secret(IMAGE)))

    async def secret_flag() -> bool:
        return await cluster.manifest_output.is_secret()

    flag: pulumi.Output[bool] = pulumi.Output.from_input(secret_flag())
    return flag.apply(lambda value: _assert(value is True))


@pulumi.runtime.test
def test_a_secret_elsewhere_in_the_spec_leaves_names_urls_and_the_jobs_selector_plain() -> pulumi.Output[Any]:
    install()
    cluster = RayCluster("secretive", cluster_dict(env={"API_TOKEN": pulumi.Output.secret(SECRET_VALUE)}))
    job = RayJob("batch", {"entrypoint": "python -c 'import ray'"}, cluster=cluster)
    outputs = (cluster.cluster_name, cluster.dashboard_url, cluster.client_address, cluster.head_service_name)

    async def flags() -> list[bool]:
        flags = [await o.is_secret() for o in outputs]
        flags.append(await job.resource.spec.is_secret())
        flags.append(await cluster.manifest_output.is_secret())  # the whole manifest holds the secret: secret
        return flags

    flag: pulumi.Output[list[bool]] = pulumi.Output.from_input(flags())
    return flag.apply(lambda value: _assert(value == [False, False, False, False, False, True]))


@pulumi.runtime.test
def test_a_secret_head_image_makes_the_jobs_spec_secret() -> pulumi.Output[Any]:
    install()
    cluster = RayCluster("secretive", cluster_dict(pulumi.Output.secret(IMAGE)))
    job = RayJob("batch", {"entrypoint": "python -c 'import ray'"}, cluster=cluster)

    async def flags() -> list[bool]:
        return [await cluster.cluster_name.is_secret(), await job.resource.spec.is_secret()]

    flag: pulumi.Output[list[bool]] = pulumi.Output.from_input(flags())
    return flag.apply(lambda value: _assert(value == [False, True]))


def test_a_secret_in_an_error_message_is_redacted() -> None:
    install()

    def program() -> pulumi.Output[Any]:
        doc = cluster_dict()
        doc["workerGroupSpecs"][0]["memory"] = pulumi.Output.secret("sixteen-" + SECRET_VALUE)
        comp = RayCluster("leaky", doc)
        return after_settling(lambda *_: None, *urns(comp))

    error = _expect_failure(program)
    assert "memory" in str(error) and SECRET_VALUE not in str(error), str(error)


def _assert(condition: bool) -> None:
    assert condition


# --------------------------------------------------------------------------------------------------
# Wrong argument types say which argument and what it expects.


@pulumi.runtime.test
def test_wrong_argument_types_name_the_argument_and_the_expected_type() -> pulumi.Output[Any]:
    install()
    with pytest.raises(TypeError, match=r"RayCluster 'c': namespace: expected a string, got int 5"):
        RayCluster("c", cluster_dict(), namespace=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"labels\['team'\]: expected a string, got int 1"):
        RayCluster("c", cluster_dict(), labels={"team": 1})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="pass cluster=<a RayCluster component>"):
        RayJob("j", RayJobSpec(entrypoint="python x.py"))
    return pulumi.Output.from_input(None)


@pulumi.runtime.test
def test_local_queue_sets_the_kueue_label() -> pulumi.Output[Any]:
    env = install()
    job = RayJob("queued", job_dict(), local_queue=known("team-a"))

    def check(*_: Any) -> None:
        labels = env.ray("RayJob")[0].inputs["metadata"]["labels"]
        assert labels == {"kueue.x-k8s.io/queue-name": "team-a"}

    return after_settling(check, *urns(job))


@pulumi.runtime.test
def test_a_queued_job_on_an_existing_cluster_is_refused_like_kueue_014_would() -> pulumi.Output[Any]:
    """Kueue before v0.15 refuses a queued RayJob that selects an existing cluster (kuberay:kueueVersion says
    which Kueue runs; from v0.15 it is accepted and left unmanaged: a low finding, see tests/corpus)."""
    env = install({"kuberay:kueueVersion": "0.14"})
    cluster = RayCluster("shared", cluster_dict())
    with pytest.raises(CriticalFindingsError, match=r"\[kueue-rayjob-limits\] critical at spec.clusterSelector"):
        RayJob("queued", {"entrypoint": "python x.py"}, cluster=cluster, local_queue="team-a")
    assert env.ray("RayJob") == []
    return after_settling(lambda *_: None, *urns(cluster))


@pulumi.runtime.test
def test_an_unknown_number_at_preview_defers_validation_to_the_update() -> pulumi.Output[Any]:
    env = install(preview=True)
    cluster = RayCluster("later", cluster_dict(replicas=unknown()))

    def check(*_: Any) -> None:
        assert env.request(RAY + "RayCluster", "later")  # registered
        notes = [w for w in env.log.warnings if "not validated at preview" in w]
        assert notes and "workerGroupSpecs[0].replicas" in notes[0], env.log.warnings

    return after_settling(check, *urns(cluster))


@pulumi.runtime.test
def test_a_job_on_a_cluster_with_unknown_values_at_preview_is_registered() -> pulumi.Output[Any]:
    env = install(preview=True)
    cluster = RayCluster("shared", cluster_dict(), namespace="ml", annotations={"example.com/id": unknown()})
    job = RayJob("batch", RayJobSpec(entrypoint="python batch.py"), cluster=cluster)

    def check(*_: Any) -> None:
        sent = wire(env, "RayJob", "batch")
        assert sent["spec"]["clusterSelector"] == {"ray.io/cluster": "shared"}
        assert sent["metadata"]["namespace"] == "ml"
        assert wire(env, "RayCluster", "shared")["metadata"]["annotations"]["example.com/id"] == UNKNOWN_SENTINEL

    return after_settling(check, *urns(cluster, job))
