"""The cluster's own admission asked at preview, on values: the children the operator would create from a Ray
object (preflight.children), their server-side dry runs through a fake client (preflight.DryRuns and
SnapshotReader.judge_children: one request per distinct child, the bound, RBAC's 403 said once, an unreachable or
slow server within the deadline) and the rule preflight-admission-refuses-child (the server's message at the CR
field path the child comes from)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from pulumi_kuberay import preflight, rules
from pulumi_kuberay.kubeclient import KubeError
from pulumi_kuberay.preflight import ClusterSnapshot, SnapshotReader
from pulumi_kuberay.rules._examples import example, example_job

RULE = "preflight-admission-refuses-child"
Answer = Callable[[str, Mapping[str, Any]], Exception | None]


#: The lists the reader gets: one node, namespace ``ns``; every other list empty.
LISTS: dict[str, Any] = {
    "/api/v1/nodes": {"items": [{"metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "8", "pods": "110"}}}]},
    "/api/v1/namespaces": {"items": [{"metadata": {"name": "ns"}}]},
}


class FakeAdmission:
    """A fake API: the reads of :data:`LISTS`, and dry-run creates answered by ``answer(collection, body)``."""

    def __init__(self, answer: Answer, *, delay: float = 0.0) -> None:
        self.answer = answer
        self.delay = delay
        self.timeout = 15.0
        self.posted: list[tuple[str, Mapping[str, Any]]] = []

    def get(self, path: str) -> tuple[dict[str, Any] | None, None]:
        return LISTS.get(path.split("?", 1)[0], {"items": []}), None

    def dry_run_create(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        self.posted.append((path, body))
        if self.delay:
            time.sleep(min(self.delay, self.timeout))
            if self.delay > self.timeout:
                raise KubeError(f"POST {path} (dry run): timed out")
        refusal = self.answer(path, body)
        if refusal is not None:
            raise refusal
        return dict(body)


def _accept(path: str, body: Mapping[str, Any]) -> None:
    return None


def _refuse_workers(path: str, body: Mapping[str, Any]) -> Exception | None:
    if body["kind"] == "Pod" and body["metadata"]["labels"]["ray.io/node-type"] == "worker":
        message = f'pods "{body["metadata"]["generateName"]}abcde" is forbidden: minimum cpu usage per Container is 500m, but request is 200m'
        return KubeError(f"POST {path}: HTTP 403 {message}", 403, reason="Forbidden", detail=message)
    return None


def _judged(api: FakeAdmission, manifest: dict[str, Any], *,
            reader: SnapshotReader | None = None) -> list[rules.Finding]:
    reader = reader or SnapshotReader(api)
    snapshot = reader.snapshot(["ns"])
    assert isinstance(snapshot, ClusterSnapshot)
    judged = reader.judge_children(snapshot, manifest, "ns")
    return [f for f in rules.check_preflight(manifest, judged, namespace="ns") if f.rule_id == RULE]


def test_the_children_are_the_operators_pods_service_and_submitter_job() -> None:
    def hardened(doc: dict[str, Any]) -> None:
        doc["spec"]["enableInTreeAutoscaling"] = True
        worker = doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]
        worker["containers"][0]["securityContext"] = {"runAsNonRoot": True}
        worker["serviceAccountName"] = "ray"

    kids = preflight.children(example(hardened), "ns")
    assert [(c.kind, c.path) for c in kids] == [
        ("Pod", "spec.headGroupSpec.template"),
        ("Pod", "spec.workerGroupSpecs[0].template"),
        ("Service", "spec.headGroupSpec"),
    ]
    head, worker, service = (c.body for c in kids)
    assert head["metadata"]["generateName"] == "raycluster-demo-head-"
    assert worker["metadata"]["generateName"] == "raycluster-demo-workergroup-worker-"
    assert worker["metadata"]["labels"]["ray.io/group"] == "workergroup"
    assert head["metadata"]["labels"]["ray.io/node-type"] == "head"
    assert [c["name"] for c in head["spec"]["containers"]] == ["ray-head", "autoscaler"]
    wait = worker["spec"]["initContainers"][-1]
    assert wait["name"] == "wait-gcs-ready" and wait["resources"]["requests"] == {"cpu": "200m", "memory": "256Mi"}
    assert wait["securityContext"] == {"runAsNonRoot": True}  # copied from the Ray container
    assert "serviceAccountName" not in worker["spec"]  # preflight-reference-missing judges it
    assert service["metadata"]["name"] == "raycluster-demo-head-svc" and service["spec"]["clusterIP"] == "None"
    assert all(c.collection.startswith("/api/v1/namespaces/ns/") for c in kids)

    job = preflight.children(example_job(), "ns")
    assert [(c.kind, c.path) for c in job][-1] == ("Job", "spec")
    assert job[0].body["metadata"]["generateName"] == "rayjob-sample-xxxxx-head-"
    submitter = job[-1].body
    assert submitter["metadata"]["name"] == "rayjob-sample" and submitter["spec"]["backoffLimit"] == 2
    assert submitter["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    assert job[-1].collection == "/apis/batch/v1/namespaces/ns/jobs"
    http = preflight.children(example_job(submissionMode="HTTPMode"), "ns")
    assert "Job" not in {c.kind for c in http}
    assert preflight.children(example_job(clusterSelector={"ray.io/cluster": "shared"}), "ns") == ()


def test_a_refusal_is_critical_at_the_template_it_comes_from_with_the_servers_message() -> None:
    api = FakeAdmission(_refuse_workers)
    found = _judged(api, example())
    assert [(f.severity, f.path) for f in found] == [("critical", "spec.workerGroupSpecs[0].template")]
    assert "minimum cpu usage per Container is 500m, but request is 200m" in found[0].message
    assert "worker group 'workergroup'" in found[0].message
    assert _judged(FakeAdmission(_accept), example()) == []


def test_each_distinct_child_is_asked_once_per_run() -> None:
    api = FakeAdmission(_accept)
    reader = SnapshotReader(api)
    manifest = example(lambda d: d["spec"]["workerGroupSpecs"][0].update(replicas=5, minReplicas=5))
    _judged(api, manifest, reader=reader)
    assert len(api.posted) == 3  # head Pod, one worker Pod for five replicas, head Service
    _judged(api, manifest, reader=reader)
    assert len(api.posted) == 3 and reader.dry_runs.requests == 3  # a second component of the same shape


def test_the_requests_are_bounded_per_run() -> None:
    api = FakeAdmission(_refuse_workers)
    reader = SnapshotReader(api)
    reader.dry_runs.max_requests = 1
    assert _judged(api, example(), reader=reader) == []  # the head was asked; the workers not
    assert len(api.posted) == 1
    assert any("the bound was reached" in note for note in reader.dry_runs.notes)


def test_an_identity_that_may_not_create_is_said_once_and_keeps_the_preflight() -> None:
    message = 'pods is forbidden: User "system:serviceaccount:ci:linter" cannot create resource "pods" in API group "" in the namespace "ns"'

    def rbac(path: str, body: Mapping[str, Any]) -> Exception | None:
        return KubeError(f"POST {path}: HTTP 403 {message}", 403, reason="Forbidden", detail=message) if body["kind"] == "Pod" else None

    api = FakeAdmission(rbac)
    reader = SnapshotReader(api)
    assert _judged(api, example(), reader=reader) == []
    assert _judged(api, example(lambda d: d["metadata"].update(name="other")), reader=reader) == []
    pods = [p for p, _ in api.posted if p.endswith("/pods")]
    assert len(pods) == 1  # not asked again for that collection
    notes = [n for n in reader.dry_runs.notes if "may not create" in n]
    assert notes == ["dry-run pods in ns: HTTP 403, the identity may not create them (bind the create verbs of docs/preflight-clusterrole.yaml)"]
    snapshot = reader.snapshot(["ns"])
    assert isinstance(snapshot, ClusterSnapshot)
    assert reader.judge_children(snapshot, example(), "ns").unread.count(notes[0]) == 1


def test_answers_that_do_not_judge_the_child_are_never_a_refusal() -> None:
    answers = {
        "exceeded quota": KubeError("x", 403, reason="Forbidden", detail='pods "a" is forbidden: exceeded quota: team, requested: cpu=1'),
        "no dry run": KubeError("x", 400, reason="BadRequest", detail='admission webhook "w.example.com" does not support dry run'),
        "exists": KubeError("x", 409, reason="AlreadyExists", detail='services "raycluster-demo-head-svc" already exists'),
        "no namespace": KubeError("x", 404, reason="NotFound", detail='namespaces "ns" not found'),
        "server error": KubeError("x", 500, reason="InternalError", detail='Internal error occurred: failed calling webhook'),
    }
    for what, error in answers.items():
        api = FakeAdmission(lambda path, body, error=error: error)  # type: ignore[misc]
        assert _judged(api, example()) == [], what


def test_an_unreachable_or_slow_server_costs_at_most_the_deadline() -> None:
    down = FakeAdmission(lambda path, body: KubeError(f"POST {path}: connection refused"))
    reader = SnapshotReader(down)
    assert _judged(down, example(), reader=reader) == []
    assert len(down.posted) == 1 and any("cannot be reached" in n for n in reader.dry_runs.notes)  # not asked again

    slow = FakeAdmission(_refuse_workers, delay=5.0)
    reader = SnapshotReader(slow, deadline=0.3)
    started = time.monotonic()
    assert _judged(slow, example(), reader=reader) == []
    assert time.monotonic() - started < 1.5
    assert reader.dry_runs.spent <= 0.3 + 0.2


def test_a_previews_floats_are_sent_as_ints_and_the_verdicts_still_found() -> None:
    def floats(doc: dict[str, Any]) -> None:
        head = doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
        head["ports"] = [{"name": "gcs-server", "containerPort": 6379.0}]
        doc["spec"]["workerGroupSpecs"][0]["replicas"] = 1.0

    api = FakeAdmission(_refuse_workers)
    found = _judged(api, example(floats))
    assert [f.path for f in found] == ["spec.workerGroupSpecs[0].template"]
    head = api.posted[0][1]
    assert head["spec"]["containers"][0]["ports"][0] == {"name": "gcs-server", "containerPort": 6379}
    assert type(head["spec"]["containers"][0]["ports"][0]["containerPort"]) is int


def test_a_namespace_without_its_service_account_yet_is_a_note_not_a_refusal() -> None:
    detail = 'pods "x" is forbidden: error looking up service account ns/default: serviceaccount "default" not found'
    answer = preflight.dry_run.classify(KubeError("x", 403, reason="Forbidden", detail=detail), "/api/v1/namespaces/ns/pods")
    assert answer == "dry-run pods in ns: the namespace's ServiceAccount is not there yet"


def test_the_dry_runs_have_what_the_reads_left_of_the_deadline() -> None:
    api = FakeAdmission(_accept)
    reader = SnapshotReader(api, deadline=1.0)
    reader.snapshot(["ns"])
    reader.reading = 1.0  # the reads took the whole deadline
    snapshot = reader.snapshot(["ns"])
    assert isinstance(snapshot, ClusterSnapshot)
    assert reader.judge_children(snapshot, example(), "ns").admission == {}
    assert api.posted == [] and any("the bound was reached" in n for n in reader.dry_runs.notes)


def test_a_custom_head_service_gets_the_operators_ports_appended() -> None:
    def custom(doc: dict[str, Any]) -> None:
        doc["spec"]["headGroupSpec"]["headService"] = {
            "metadata": {"name": "my-head"},
            "spec": {"type": "NodePort", "ports": [{"name": "dashboard", "port": 8265}]},
        }

    [service] = [c for c in preflight.children(example(custom), "ns") if c.kind == "Service"]
    assert service.path == "spec.headGroupSpec.headService"
    assert service.body["metadata"]["name"] == "my-head" and service.body["spec"]["type"] == "NodePort"
    names = [p["name"] for p in service.body["spec"]["ports"]]
    assert names == ["dashboard", "client", "dashboard", "gcs-server", "metrics"]  # the API server refuses the twin
    assert "clusterIP" not in service.body["spec"]
