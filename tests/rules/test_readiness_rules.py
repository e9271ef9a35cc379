"""probes-need-ray-2-53: for rayVersion >= 2.53.0 KubeRay >= 1.6 (supportsUnifiedHealthCheck) builds HTTP probes on
/api/healthz, which Ray < 2.53 answers with 404; image-ray-version-mismatch keeps the other mismatches."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.rules._examples import ray_cluster, ray_service

_IDS = ("probes-need-ray-2-53", "image-ray-version-mismatch")
_HEAD = "spec.headGroupSpec.template.spec.containers[0].image"
_WORKER = "spec.workerGroupSpecs[0].template.spec.containers[0].image"


def _found(doc: dict[str, Any], **target: Any) -> list[tuple[str, str, str]]:
    return sorted((f.rule_id, f.severity, f.path) for f in rules.check(doc, **target) if f.rule_id in _IDS)


def _cluster(ray_version: str, image: str | None = None) -> dict[str, Any]:
    doc = copy.deepcopy(ray_cluster())
    doc["spec"]["rayVersion"] = ray_version
    if image is not None:
        for path in (doc["spec"]["headGroupSpec"], doc["spec"]["workerGroupSpecs"][0]):
            path["template"]["spec"]["containers"][0]["image"] = image
    return doc


def test_an_older_ray_tag_under_rayversion_2_53_is_critical_per_group() -> None:
    crit = [("probes-need-ray-2-53", "critical", _HEAD), ("probes-need-ray-2-53", "critical", _WORKER)]
    assert _found(_cluster("2.58.0", "rayproject/ray:2.52.1")) == crit
    assert _found(_cluster("2.58.0", "rayproject/ray:2.47.1-py311")) == crit


@pytest.mark.parametrize("version", ["1.5.0", "1.3.0"])
def test_operators_before_1_6_build_exec_probes_so_only_the_mismatch_is_reported(version: str) -> None:
    high = [("image-ray-version-mismatch", "high", _HEAD), ("image-ray-version-mismatch", "high", _WORKER)]
    assert _found(_cluster("2.58.0", "rayproject/ray:2.52.1"), kuberay_version=version) == high


def test_rayversion_below_2_53_builds_exec_probes() -> None:
    high = [("image-ray-version-mismatch", "high", _HEAD), ("image-ray-version-mismatch", "high", _WORKER)]
    assert _found(_cluster("2.52.0", "rayproject/ray:2.47.1")) == high
    assert _found(_cluster("2.58.0", "rayproject/ray:2.58.0")) == []
    assert _found(_cluster("2.53.0", "rayproject/ray:2.55.1")) == [
        ("image-ray-version-mismatch", "high", _HEAD),
        ("image-ray-version-mismatch", "high", _WORKER),
    ]


@pytest.mark.parametrize("image", ["quay.io/modh/ray@sha256:" + "a" * 64, "rayproject/ray:py311-cu121"])
def test_a_digest_or_a_tag_without_version_hides_the_ray_release(image: str) -> None:
    found = [f for f in rules.check(_cluster("2.58.0", image)) if f.rule_id == "probes-need-ray-2-53"]
    assert [(f.severity, f.path) for f in found] == [("medium", _HEAD), ("medium", _WORKER)]
    assert "does not show its Ray version" in found[0].message and "tag the image" in (found[0].fix or "")


#: codeflare-sdk's default images, pinned by digest (constants.py of 0.30 to 0.40 names the Ray release of each)
_CODEFLARE_PY311_2_52_1 = "quay.io/modh/ray@sha256:595b3acd10244e33fca1ed5469dccb08df66f470df55ae196f80e56edf35ad5a"
_CODEFLARE_PY312_2_58_0 = "quay.io/modh/ray@sha256:8183007c9b46b359bdc75ea74346f10d642e585bb4f22fa3aa02524b3c966fa0"
_CODEFLARE_PY311_2_47_1 = "quay.io/modh/ray@sha256:6d076aeb38ab3c34a6a2ef0f58dc667089aa15826fa08a73273c629333e12f1e"


@pytest.mark.parametrize("image", [_CODEFLARE_PY311_2_52_1, _CODEFLARE_PY311_2_47_1, "docker.io/" + _CODEFLARE_PY311_2_52_1])
def test_a_known_client_digest_shows_its_ray_release(image: str) -> None:
    # codeflare-sdk 0.40.1 on Python 3.11 writes rayVersion 2.58.0 with its Ray 2.52.1 image pinned by digest:
    # KubeRay builds /api/healthz probes, Ray 2.52 answers 404, the Pods never turn Ready.
    found = [f for f in rules.check(_cluster("2.58.0", image)) if f.rule_id == "probes-need-ray-2-53"]
    assert [(f.severity, f.path) for f in found] == [("critical", _HEAD), ("critical", _WORKER)]
    assert "carries Ray 2." in found[0].message and "never turns Ready" in found[0].message
    assert "(a digest codeflare-sdk pins as its default image, naming its Ray release beside it)" in found[0].message


def test_a_known_client_digest_of_a_new_ray_runs() -> None:
    assert _found(_cluster("2.58.0", _CODEFLARE_PY312_2_58_0)) == []
    # the same digest under an older rayVersion: exec probes, only the mismatch of releases
    assert _found(_cluster("2.52.1", _CODEFLARE_PY312_2_58_0)) == [
        ("image-ray-version-mismatch", "high", _HEAD),
        ("image-ray-version-mismatch", "high", _WORKER),
    ]


@pytest.mark.parametrize(
    "image", ["rayproject/ray:nightly", "rayproject/ray:latest", "mycorp/trainer:1.0", "$RAY_IMAGE",
              "rayproject/ray:2.58.0@sha256:" + "a" * 64]
)  # fmt: skip
def test_no_finding_when_the_ray_release_is_newest_unknowable_or_shown(image: str) -> None:
    assert [f for f in _found(_cluster("2.58.0", image)) if f[0] == "probes-need-ray-2-53"] == []


def test_probes_the_user_sets_are_kept_by_the_operator() -> None:
    doc = _cluster("2.58.0", "rayproject/ray:2.52.1")
    head = doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    probe = {"exec": {"command": ["true"]}}
    head["livenessProbe"] = probe
    # only one probe set: the other is still built on /api/healthz
    assert ("probes-need-ray-2-53", "critical", _HEAD) in _found(doc)
    head["readinessProbe"] = probe
    assert _found(doc) == [
        ("image-ray-version-mismatch", "high", _HEAD),
        ("probes-need-ray-2-53", "critical", _WORKER),
    ]


def test_embedded_cluster_of_a_rayservice() -> None:
    doc = copy.deepcopy(ray_service())
    spec = doc["spec"]["rayClusterConfig"]
    spec["rayVersion"] = "2.58.0"
    spec["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = "rayproject/ray:2.52.1"
    found = [f for f in _found(doc) if f[0] == "probes-need-ray-2-53"]
    assert ("probes-need-ray-2-53", "critical", "spec.rayClusterConfig." + _HEAD.removeprefix("spec.")) in found


def _two_releases(head: str, worker: str, ray_version: str = "2.52.0") -> dict[str, Any]:
    doc = _cluster(ray_version, head)
    doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["image"] = worker
    return doc


def test_groups_of_different_ray_releases_are_critical() -> None:
    # kubectl ray create workergroup --image rayproject/ray:2.52.1 on its default cluster (Ray 2.52.0): the worker's
    # `ray start` raises "Version mismatch" (check_version_info) and its container is restarted forever
    found = [f for f in rules.check(_two_releases("rayproject/ray:2.52.0", "rayproject/ray:2.52.1"))
             if f.rule_id == "image-ray-version-mismatch"]  # fmt: skip
    # rayVersion 2.52.0 against the worker's 2.52.1: no KubeRay threshold between them, so that part is low
    assert sorted((f.severity, f.path) for f in found) == [("critical", _WORKER), ("low", _WORKER)]
    critical = next(f for f in found if f.severity == "critical")
    assert "different Ray versions (2.52.0 at" in critical.message and "Version mismatch" in critical.message
    assert critical.fix == "use one Ray image (one Ray release, one Python) for the head and every worker group"


@pytest.mark.parametrize(
    ("head", "worker"),
    [("rayproject/ray:2.52.0-py311", "rayproject/ray:2.52.0-py312-gpu"), (_CODEFLARE_PY312_2_58_0, "quay.io/modh/ray:2.58.0-py311-cu121")],
)
def test_groups_of_different_pythons_are_critical(head: str, worker: str) -> None:
    version = "2.58.0" if "2.58" in worker else "2.52.0"
    found = _found(_two_releases(head, worker, version))
    assert found == [("image-ray-version-mismatch", "critical", _WORKER)]
    message = next(f.message for f in rules.check(_two_releases(head, worker, version)) if f.rule_id == "image-ray-version-mismatch")
    assert "different Python versions (3.1" in message


@pytest.mark.parametrize(("head", "worker"), [("rayproject/ray:2.52.0-py311", "rayproject/ray:2.52.0"),
                                              ("rayproject/ray:2.52.0-py311", "mycorp/ray-worker:1.0-py312")])  # fmt: skip
def test_a_python_the_tag_does_not_show_is_not_judged(head: str, worker: str) -> None:
    assert _found(_two_releases(head, worker)) == []


def test_rayversion_gap_is_high_only_across_a_kuberay_threshold() -> None:
    """KubeRay builds or validates differently by rayVersion only at RAY_VERSION_THRESHOLDS (2.53.0: the HTTP
    probes; 2.52.0: token auth...): a gap that crosses none leaves the operator's Pods the same."""
    def mismatch(ray_version: str, image: str) -> list[tuple[str, str]]:
        found = rules.check(_cluster(ray_version, image))
        return [(f.severity, f.message) for f in found if f.rule_id == "image-ray-version-mismatch"]

    low = mismatch("2.46.0", "rayproject/ray:2.47.1")  # head and worker
    assert [s for s, _ in low] == ["low", "low"]
    assert "(low: no release at which KubeRay builds or validates a cluster differently lies between them" in low[0][1]
    high = mismatch("2.51.0", "rayproject/ray:2.52.1")
    assert [s for s, _ in high] == ["high", "high"]
    assert "KubeRay treats Ray 2.52.0 and later differently" in high[0][1]


@pytest.mark.parametrize("image", ["registry:5000/ray:0.0.9", "ghcr.io/acme/ray:1.2.3", "acme/ray-serve:2.41.0"])
def test_a_teams_own_ray_image_tag_is_not_a_ray_release(image: str) -> None:
    """Only repositories known to be tagged by Ray release (rayproject/ray, anyscale/ray, quay.io/modh/ray...) show
    it: a team's image named ray and tagged 0.0.9 may hold Ray 2.55.1. The probe rule says medium (the tag hides
    the release), never critical."""
    found = [(f[0], f[1]) for f in _found(_cluster("2.55.1", image))]
    assert ("probes-need-ray-2-53", "critical") not in found
    assert ("probes-need-ray-2-53", "medium") in found
    assert not [f for f in found if f[0] == "image-ray-version-mismatch"]


RAY_TAGGED = [
    "rayproject/ray:2.52.0",
    "123.dkr.ecr.us-east-1.amazonaws.com/rayproject/ray:2.52.0",
    "quay.io/modh/ray:2.52.1-py311-cu121",
    "anyscale/ray-llm:2.52.0",
]


@pytest.mark.parametrize("image", RAY_TAGGED)
def test_ray_tagged_repositories_still_show_their_release(image: str) -> None:
    found = [(f[0], f[1]) for f in _found(_cluster("2.55.1", image))]
    assert ("probes-need-ray-2-53", "critical") in found
