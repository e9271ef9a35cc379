# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""The catalogue against KubeRay's own code (the oracle), on the contract of ``_contract``.

Inputs: every upstream sample (the v1.7.0 samples of ``KUBERAY_REFERENCE_DIR`` and the operator module's own
``config/samples``) under the default gates and all gates on; every operator/schema rule's compliant and
violating example; the manifests the stacks and the README example render; hypothesis-generated near-valid
manifests mutated at the rules' boundaries (``PULUMI_KUBERAY_DEEP=1``: ten times as many at the default judge).
Each test runs once per oracle (operator version, see conftest); the catalogue is judged at that oracle's
operator version (``Target.kuberay_version``) with the same gates. Report sections are ``<test>@<version>``.
"""

from __future__ import annotations

import os
import re
import runpy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from _pulumi_mocks import after_settling, install
from _reference import reference_dir
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulumi_kuberay import rules
from pulumi_kuberay.rules._engine import KINDS as RAY_KINDS

from ._contract import Case
from ._generate import mutated_manifests
from ._oracle import Oracle
from ._run import assert_agree, record, run

REPO = Path(__file__).resolve().parents[2]
DEEP = os.environ.get("PULUMI_KUBERAY_DEEP") == "1"
#: Generated cases per oracle: the default judge (the version we target) gets the deep run's 20,000.
GENERATED = 2_000
GENERATED_DEEP = 20_000


def generated_count(oracle: Oracle) -> int:
    return GENERATED_DEEP if DEEP and oracle.default_judge else GENERATED


def _section(name: str, oracle: Oracle) -> str:
    return f"{name}@{oracle.operator_version}"


def _ray_documents(folder: Path, label: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted(folder.rglob("*.yaml")):
        try:
            docs = list(yaml.safe_load_all(path.read_text()))
        except yaml.YAMLError:
            continue
        for i, doc in enumerate(docs):
            if (
                isinstance(doc, dict)
                and doc.get("kind") in RAY_KINDS
                and str(doc.get("apiVersion", "")).startswith("ray.io/")
            ):
                yield f"{label}:{path.relative_to(folder)}#{i}", doc


def sample_cases(oracle: Oracle) -> list[Case]:
    sources: list[tuple[str, dict[str, Any]]] = []
    ref = reference_dir()
    if ref is not None:
        sources += _ray_documents(ref / "kuberay" / "v1.7.0" / "samples", "samples-v1.7.0")
    if oracle.samples_dir and Path(oracle.samples_dir).is_dir():
        sources += _ray_documents(Path(oracle.samples_dir), f"samples-{oracle.operator_version}")
    return [
        Case(f"{origin} gates={gates}", doc, gates=gates) for gates in ("default", "all") for origin, doc in sources
    ]


def test_every_upstream_sample(oracle: Oracle) -> None:
    if oracle.recorded and not oracle.samples_dir and os.environ.get("PULUMI_KUBERAY_REQUIRE_ORACLE") == "1":
        pytest.fail(
            f"the recorded {oracle.operator_version} oracle has no samples of its own: its module source is not in "
            "the Go module cache (scripts/ensure-oracle downloads it)"
        )
    cases = sample_cases(oracle)
    assert len(cases) >= 2 * 100, f"only {len(cases)} sample cases: is KUBERAY_REFERENCE_DIR set?"
    assert_agree(_section("samples", oracle), run(oracle, cases))


def _checked_rules() -> list[rules.Rule]:
    """Rules that stand for an operator, webhook or CRD-schema rule: the oracle must judge their examples."""
    return [r for r in rules.RULES.values() if r.operator_rules or r.id.startswith(rules.SCHEMA_RULE_PREFIX)]


def _example_gates(rule: rules.Rule) -> tuple[tuple[str, bool], ...]:
    return tuple(sorted((rule.context.get("feature_gates") or {}).items()))


def example_cases() -> list[Case]:
    cases = []
    for rule in _checked_rules():
        for which in ("compliant", "violating"):
            doc = getattr(rule, which)
            if isinstance(doc, dict) and doc.get("kind") in RAY_KINDS:
                webhooks = bool(rule.context.get("webhooks"))
                cases.append(Case(f"example:{rule.id}:{which}", doc, gates=_example_gates(rule), webhooks=webhooks))
    return cases


#: Rows (rule ids) whose violating example the oracle's operator version does not reject: they exist only in
#: v1.7 (or later) and stay covered by their examples and unit tests; written into the report.
def test_every_rule_example(oracle: Oracle) -> None:
    cases = example_cases()
    outcomes = run(oracle, cases)
    wrong_examples = []
    newer_only = []
    for outcome in outcomes:
        _, rule_id, which = outcome.case.origin.split(":")
        # compliant must work, violating must not, per the oracle. At an older operator version than the
        # catalogue's newest, a row or an example field may not exist yet: then the catalogue judged at that
        # version must say the same as the oracle (version awareness), and the row is listed as not checkable.
        oracle_says_broken = outcome.expected_block
        if which == "violating" and rules.get_rule(rule_id).severity != "critical" and not oracle_says_broken:
            continue  # a non-blocking rule: KubeRay accepts its violating example by design (the contract agrees)
        if (which == "compliant") == oracle_says_broken:
            if outcome.we_block == oracle_says_broken:
                newer_only.append(rule_id)
            else:
                wrong_examples.append(
                    f"{rule_id}: the oracle {'rejects' if oracle_says_broken else 'accepts'} "
                    f"the {which} example: {outcome.reason}"
                )
    record(_section("examples", oracle), outcomes)
    _write_newer_only(oracle, sorted(set(newer_only)))
    known_wrong = [w for w in wrong_examples if not _known_example(w)]
    assert not known_wrong, "\n".join(known_wrong)
    assert_agree(_section("examples", oracle), outcomes)


def _known_example(message: str) -> bool:
    from ._contract import known_differences

    return any(entry["id"] in message and entry.get("examples") for entry in known_differences())


def _write_newer_only(oracle: Oracle, rule_ids: list[str]) -> None:
    import json

    from ._run import REPORT

    data = json.loads(REPORT.read_text()) if REPORT.exists() else {}
    data["not_checkable_at_" + oracle.operator_version] = rule_ids
    REPORT.write_text(json.dumps(data, indent=2, sort_keys=True))


# --------------------------------------------------------------------------------------------------
# What the stacks and the README example render (the program under Pulumi mocks).


def _stack_config(stack: str) -> dict[str, str]:
    from test_stacks_mock import stack_config

    return stack_config(stack)


@pytest.fixture(autouse=True)
def _clean_config() -> Iterator[None]:
    yield
    pulumi.runtime.set_all_config({})


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
@pulumi.runtime.test
def test_stack_manifests(oracle: Oracle, stack: str) -> pulumi.Output[Any]:
    env = install(_stack_config(stack), stack="mock")
    namespace = runpy.run_path(str(REPO / "__main__.py"), run_name="__main__")
    components = [c for by_name in namespace["COMPONENTS"].values() for c in by_name.values()]

    def check(*_: Any) -> None:
        manifests = [rules.normalise(r.inputs) for r in env.created() if r.typ.startswith("kubernetes:ray.io/v1:")]
        assert manifests
        cases = [Case(f"stack:{stack}:{m['kind']}/{m['metadata']['name']}", m) for m in manifests]
        assert_agree(_section(f"stack-{stack}", oracle), run(oracle, cases))

    return after_settling(check, *[c.urn for c in components], *[c.resource.urn for c in components])


def _readme_example() -> str:
    text = (REPO / "README.md").read_text()
    match = re.search(r"## Example[^\n]*\n.*?```python\n(.*?)```", text, re.DOTALL)
    assert match, "README has no python block in its '## Example...' section"
    return "import pulumi\n" + match.group(1)


@pulumi.runtime.test
def test_readme_example(oracle: Oracle) -> pulumi.Output[Any]:
    code = _readme_example()
    # Config the example requires (e.g. a secret token) gets a placeholder value.
    keys = re.findall(r"Config\(\)\.require(?:_secret)?\(\"([^\"]+)\"\)", code)
    env = install({f"pulumi-kuberay:{key}": "placeholder" for key in keys}, stack="mock")
    namespace: dict[str, Any] = {}
    exec(compile(code, "README.md", "exec"), namespace)

    def check(*_: Any) -> None:
        manifests = [rules.normalise(r.inputs) for r in env.created() if r.typ.startswith("kubernetes:ray.io/v1:")]
        assert {m["kind"] for m in manifests} == {"RayCluster", "RayJob"}
        cases = [Case(f"readme:{m['kind']}/{m['metadata']['name']}", m) for m in manifests]
        assert_agree(_section("readme", oracle), run(oracle, cases))

    components = [namespace["cluster"], namespace["job"]]
    return after_settling(check, *[c.urn for c in components], *[c.resource.urn for c in components])


# --------------------------------------------------------------------------------------------------
# Generated cases.


def generated_cases(count: int) -> list[Case]:
    cases: list[Case] = []

    @settings(
        max_examples=count, database=None, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(mutated_manifests(), st.sampled_from(["default", "default", "all", "all", "none"]), st.booleans())
    def collect(case: tuple[str, Any], gates: str, webhooks: bool) -> None:
        origin, doc = case
        cases.append(Case(f"generated:{origin} gates={gates} webhooks={webhooks}", doc, gates=gates, webhooks=webhooks))

    collect()
    return cases


def test_generated_manifests(oracle: Oracle) -> None:
    count = generated_count(oracle)
    cases = generated_cases(count)
    assert len(cases) >= count * 0.95, len(cases)
    assert_agree(_section("generated", oracle), run(oracle, cases))
