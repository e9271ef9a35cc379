"""``pulumi_kuberay.rules.check`` never raises, whatever JSON-like value it is given, and reports bad shapes.

A CrossGuard policy sees numbers as floats and not-yet-computed values as Pulumi's unknown sentinel (or
``None``) anywhere in the document during preview; ``kuberay-lint`` sees whatever is in a file. No rule may
crash (a crash is reported as an ``internal-error`` finding, which is a bug too), and a document whose shape
the CRD rejects must produce a finding at (or around) the malformed field.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import pytest
from _reference import require_reference, sample_documents
from hypothesis import given
from hypothesis import strategies as st
from pulumi_kuberay import rules
from pulumi_kuberay.model._errors import ManifestError
from pulumi_kuberay.model.manifest import load_manifest
from pulumi_kuberay.rules._engine import KINDS

from .conftest import budget
from .strategies import UNKNOWN, format_path, get_at, json_like, leaf_paths, unknownified, wrong_values

ALL_GATES = {gate: True for gate in rules.DEFAULT_FEATURE_GATES}


@cache
def seeds() -> tuple[dict[str, Any], ...]:
    """Realistic Ray manifests: the upstream samples and every rule's compliant and violating example."""
    docs: list[dict[str, Any]] = []
    if require_reference():
        docs += [doc for _, _, doc in sample_documents() if doc.get("kind") in KINDS]
    for rule in rules.rules_of("document"):
        docs += [rule.compliant, rule.violating]
    return tuple(d for d in docs if isinstance(d, dict) and d.get("kind") in KINDS)


SEEDS = st.integers(0, 10**6).map(lambda i: copy.deepcopy(seeds()[i % len(seeds())]))


def run_check(doc: Any, **kwargs: Any) -> list[rules.Finding]:
    findings = rules.check(doc, **kwargs)
    crashed = [f.message for f in findings if f.rule_id == rules.INTERNAL_ERROR_RULE_ID]
    assert crashed == [], crashed
    return findings


@budget(400)
@given(value=json_like)
def test_check_never_raises_on_arbitrary_json(value: Any) -> None:
    assert isinstance(run_check(value), list)


@budget(300)
@given(kind=st.sampled_from(KINDS), api=st.sampled_from(["ray.io/v1", "ray.io/v1alpha1", UNKNOWN]),
       body=json_like, spec=json_like, gates=st.booleans())
def test_check_never_raises_on_ray_shaped_junk(kind: str, api: str, body: Any, spec: Any, gates: bool) -> None:
    doc: dict[str, Any] = {"apiVersion": api, "kind": kind, "metadata": body, "spec": spec}
    run_check(doc, feature_gates=ALL_GATES if gates else None)
    if isinstance(body, dict):
        run_check({**body, "apiVersion": api, "kind": kind}, feature_gates=ALL_GATES if gates else None)


@budget(200)
@given(doc=SEEDS.flatmap(unknownified), gates=st.booleans(), env=st.sampled_from([None, "dev", "prod"]))
def test_check_never_raises_on_preview_values(doc: dict[str, Any], gates: bool, env: str | None) -> None:
    """Real manifests with unknown sentinels, ``None``, integral floats and junk spliced in anywhere."""
    run_check(doc, feature_gates=ALL_GATES if gates else None, environment=env)


def _contains_unknown(value: Any) -> bool:
    if value is None or value == UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(_contains_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_unknown(v) for v in value)
    return False


@cache
def loadable_seeds() -> tuple[dict[str, Any], ...]:
    out = []
    for doc in seeds():
        try:
            load_manifest(doc)
        except ManifestError:
            continue
        out.append(doc)
    return tuple(out)


@st.composite
def malformed(draw: st.DrawFn) -> tuple[dict[str, Any], str, str]:
    """A seed the model loads, with one value replaced by a value of the wrong type/range."""
    seed = loadable_seeds()
    doc = copy.deepcopy(seed[draw(st.integers(0, len(seed) - 1))])
    paths = [p for p in leaf_paths(doc.get("spec")) if p]
    path = ("spec", *draw(st.sampled_from(paths)))
    parent = get_at(doc, path[:-1])
    parent[path[-1]] = draw(wrong_values(parent[path[-1]], allow_none=False))
    return doc, format_path(path), format_path(path[:-1])


@budget(300)
@given(case=malformed())
def test_malformed_shape_is_reported_as_a_finding(case: tuple[dict[str, Any], str, str]) -> None:
    doc, where, parent = case
    if _contains_unknown(doc):
        return  # unknown values are never judged
    try:
        load_manifest(rules.normalise(doc))  # integral floats are ints to the rules (policies see floats)
    except ManifestError as exc:
        findings = run_check(doc, feature_gates=ALL_GATES)
        near = [f for f in findings if f.path.startswith(parent) or (f.path and where.startswith(f.path))]
        assert near, (
            f"load_manifest rejects {where} ({'; '.join(str(p) for p in exc.problems)}) "
            f"but no finding is reported there: {[(f.rule_id, f.path) for f in findings]}"
        )


@pytest.mark.parametrize("value", [None, 0, 1.0, "x", [], {}, {"kind": None}, {"kind": "RayJob"},
                                   {"kind": "RayJob", "apiVersion": UNKNOWN},
                                   {"kind": "RayJob", "apiVersion": "ray.io/v1", "spec": UNKNOWN},
                                   {"kind": "RayJob", "apiVersion": "ray.io/v1", "metadata": UNKNOWN}])
def test_check_edge_values(value: Any) -> None:
    run_check(value)
