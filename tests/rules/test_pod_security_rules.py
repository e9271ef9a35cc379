"""Pod Security baseline gaps are at least high in every environment; restricted-only gaps keep their advice
weight (low, medium in prod); either is critical where the namespace enforces its profile."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.rules._examples import ray_cluster


def _worker_pod(doc: dict[str, Any]) -> dict[str, Any]:
    pod: dict[str, Any] = doc["spec"]["workerGroupSpecs"][0]["template"]["spec"]
    return pod


def _privileged(pod: dict[str, Any]) -> None:
    pod["containers"][0].setdefault("securityContext", {})["privileged"] = True


def _host_path(pod: dict[str, Any]) -> None:
    pod["volumes"] = [{"name": "dev", "hostPath": {"path": "/dev"}}]


def _capability(pod: dict[str, Any]) -> None:
    pod["containers"][0].setdefault("securityContext", {})["capabilities"] = {"add": ["SYS_ADMIN"]}


def _namespace(key: str) -> Callable[[dict[str, Any]], None]:
    def edit(pod: dict[str, Any]) -> None:
        pod[key] = True

    return edit


GAPS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "privileged": (_privileged, "privileged: true"),
    "hostNetwork": (_namespace("hostNetwork"), "hostNetwork: true"),
    "hostPID": (_namespace("hostPID"), "hostPID: true"),
    "hostIPC": (_namespace("hostIPC"), "hostIPC: true"),
    "hostPath": (_host_path, "is a hostPath"),
    "capability": (_capability, "adds capabilities SYS_ADMIN"),
}


def _baseline(doc: dict[str, Any], **target: Any) -> list[rules.Finding]:
    return [f for f in rules.check(doc, **target) if f.rule_id == "pod-security-baseline"]


@pytest.mark.parametrize("environment", [None, "dev", "staging", "prod"])
@pytest.mark.parametrize("gap", sorted(GAPS))
def test_every_baseline_gap_is_high_in_every_environment(gap: str, environment: str | None) -> None:
    doc = copy.deepcopy(ray_cluster())
    edit, words = GAPS[gap]
    edit(_worker_pod(doc))
    found = _baseline(doc, environment=environment)
    assert [(f.severity, f.path) for f in found] == [("high", "spec.workerGroupSpecs[0].template.spec")]
    assert words in found[0].message


def test_a_baseline_gap_is_critical_where_the_namespace_enforces_baseline() -> None:
    doc = copy.deepcopy(ray_cluster())
    _privileged(_worker_pod(doc))
    found = _baseline(doc, options={"pod_security_profile": "baseline"})
    assert [f.severity for f in found] == ["critical"] and "rejects its Pods" in found[0].message


@pytest.mark.parametrize(("environment", "severity"), [(None, "low"), ("dev", "low"), ("prod", "medium")])
def test_restricted_only_gaps_keep_their_weight(environment: str | None, severity: str) -> None:
    doc = copy.deepcopy(ray_cluster())
    del _worker_pod(doc)["containers"][0]["securityContext"]["runAsNonRoot"]
    assert _baseline(doc, environment=environment) == []
    found = [f for f in rules.check(doc, environment=environment) if f.rule_id == "pod-security-restricted"]
    assert [f.severity for f in found] == [severity]


# --------------------------------------------------------------------------------------------------
# secret-in-plain-env: a secret is a value, not a name that contains TOKEN


def _env_findings(name: str, value: str) -> list[str]:
    doc = copy.deepcopy(ray_cluster())
    _worker_pod(doc)["containers"][0]["env"] = [{"name": name, "value": value}]
    return [f.path for f in rules.check(doc) if f.rule_id == "secret-in-plain-env"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HF_TOKEN", "hf_abcdefghijklmnop"),
        ("OPENAI_API_KEY", "sk-abc123"),
        ("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG"),
        ("DB_PASSWORD", "hunter2"),
        ("WANDB_APIKEY", "0123abcd"),
        ("DATABASE_CREDENTIALS", "postgres://user:pw@db:5432/app"),
    ],
)
def test_a_secret_value_under_a_secret_name_is_found(name: str, value: str) -> None:
    assert _env_findings(name, value) == ["spec.workerGroupSpecs[0].template.spec.containers[0].env[0].value"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CHUNK_SIZE_TOKENS", "512"),  # a count, and TOKENS is not a token
        ("MAX_TOKENS", "4096"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "/var/secrets/google/key.json"),  # where the secret is, not the secret
        ("HF_TOKEN", "$(HF_TOKEN_FROM_SECRET)"),
        ("VAULT_TOKEN_URL", "https://vault:8200/v1/auth"),
        ("TOKEN_SERVICE", "https://tokens.internal/api"),  # a URL without credentials
        ("SECRET_REFRESH_SECONDS", "300"),
    ],
)
def test_counts_locations_and_references_are_not_secrets(name: str, value: str) -> None:
    assert _env_findings(name, value) == []


@pytest.mark.parametrize("value", ["PLACEHOLDER_HF_TOKEN", "<your-hf-token>", "{{ .Values.hfToken }}"])
def test_a_placeholder_is_not_a_secret(value: str) -> None:
    """A template's placeholder holds nothing yet (template-placeholder-left and the schema rules speak of those)."""
    assert _env_findings("HF_TOKEN", value) == []
