"""The stack settings loader (``settings.load_settings`` at the repo root) rejects every malformed stack config
with a :class:`settings.StackConfigError` whose problems name the config key (and, inside object values, the
entry and field path); a well-formed config loads. No other exception type escapes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .conftest import budget
from .mutations import Mutation, mutated
from .strategies import RESOURCE_NAMES, valid_cluster, valid_job, wire, wrong_values

settings_module = pytest.importorskip("settings", reason="settings.py at the repo root")
load_settings = settings_module.load_settings
StackConfigError = settings_module.StackConfigError

P = "pulumi-kuberay"
K = "kuberay"


@st.composite
def valid_configs(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = {f"{P}:namespace": draw(st.sampled_from(["ray", "ml", ""]))}
    if draw(st.booleans()):
        config[f"{P}:render_dir"] = "out"
    clusters = {draw(RESOURCE_NAMES): {"spec": wire(draw(valid_cluster()))}}
    config[f"{P}:clusters"] = clusters if draw(st.booleans()) else json.dumps(clusters)
    if draw(st.booleans()):
        job = wire(draw(valid_job(inline_cluster=True)))
        config[f"{P}:jobs"] = json.dumps({"job-a": {"spec": job, "wait_for_completion": draw(st.booleans())}})
    if draw(st.booleans()):
        config[f"{K}:version"] = draw(st.sampled_from(["1.7.0", "1.6", "v1.5.1"]))
    if draw(st.booleans()):
        config[f"{K}:environment"] = draw(st.sampled_from(["dev", "staging", "prod"]))
    if draw(st.booleans()):
        config[f"{K}:featureGates"] = json.dumps({"RayCronJob": draw(st.booleans())})
    if draw(st.booleans()):
        config[f"{K}:podSecurityProfile"] = draw(st.sampled_from(["privileged", "baseline", "restricted"]))
    if draw(st.booleans()):
        config[f"{K}:kueueVersion"] = draw(st.sampled_from(["0.14", "v0.15.2", "0.10"]))
    config["kubernetes:context"] = "kind"  # other namespaces are not ours to judge
    return config


def load(config: dict[str, Any]) -> Any:
    try:
        return load_settings(config)
    except StackConfigError as exc:
        assert exc.problems, str(exc)
        for key, message in exc.problems:
            assert key and message, exc.problems
        raise


@budget(40)
@given(config=valid_configs())
def test_valid_config_loads(config: dict[str, Any]) -> None:
    load(config)


_TOP_KEYS = [f"{P}:namespace", f"{P}:render_dir", f"{P}:kubeconfig", f"{P}:kube_context", f"{P}:clusters",
             f"{P}:jobs", f"{P}:services", f"{P}:cronjobs", f"{K}:version", f"{K}:environment",
             f"{K}:featureGates", f"{K}:allowedRegistries", f"{K}:gpuBudget", f"{K}:podSecurityProfile",
             f"{K}:kueueVersion"]
_BAD_TOP: dict[str, st.SearchStrategy[Any]] = {
    f"{P}:namespace": st.one_of(st.integers(), st.lists(st.text(), min_size=1), st.booleans()),
    f"{P}:render_dir": st.one_of(st.integers(), st.dictionaries(st.text(), st.text(), min_size=1)),
    f"{P}:clusters": st.one_of(st.just("{not json"), st.integers(), st.lists(st.integers(), min_size=1),
                               st.just('{"c": 5}'), st.just('{"c": {"spec": {}}}')),
    f"{P}:jobs": st.one_of(st.just("[1, 2"), st.just('{"j": {"spec": {"entrypoint": 3}}}'),
                           st.just('{"j": {"spec": {}, "cluster": "nope"}}')),
    f"{P}:services": st.one_of(st.just('{"s": {"spec": {"rayClusterConfig": 1}}}'), st.just("x")),
    f"{P}:cronjobs": st.one_of(st.just('{"c": {"spec": {"schedule": "61 * * * *"}}}'), st.just("[]")),
    f"{K}:version": st.one_of(st.just("seven"), st.just("1.x"), st.just('{"a": 1}'), st.just("[1,7]")),
    f"{K}:environment": st.one_of(st.just("production"), st.just("PROD"), st.just("3")),
    f"{K}:featureGates": st.one_of(st.just('{"NoSuchGate": true}'), st.just('{"RayCronJob": "maybe"}'),
                                   st.just("RayCronJob"), st.just("[1]")),
    f"{K}:allowedRegistries": st.one_of(st.just('"docker.io"'), st.just("[1, 2]"), st.just('{"a": 1}')),
    f"{K}:gpuBudget": st.one_of(st.just("-1"), st.just('"ten"'), st.just("1.5"), st.just("true")),
    f"{K}:podSecurityProfile": st.one_of(st.just("strict"), st.just("Restricted"), st.just("[1]"), st.just("3")),
    f"{K}:kueueVersion": st.one_of(st.just("latest"), st.just("0.x"), st.just("15"), st.just("[0, 15]")),
}


def _key_named(key: str, problems: list[tuple[str, str]]) -> bool:
    return any(k == key or key in m for k, m in problems)


@budget(60)
@given(base=valid_configs(), data=st.data())
def test_malformed_top_level_value_names_the_key(base: dict[str, Any], data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(sorted(_BAD_TOP)), label="key")
    config = {**base, key: data.draw(_BAD_TOP[key], label="value")}
    with pytest.raises(StackConfigError) as info:
        load(config)
    assert _key_named(key, info.value.problems), (key, info.value.problems)


@budget(40)
@given(base=valid_configs(), key=st.sampled_from(_TOP_KEYS), typo=st.sampled_from(["s", "_x", "X"]))
def test_unknown_key_is_named_with_a_hint(base: dict[str, Any], key: str, typo: str) -> None:
    wrong = key + typo
    with pytest.raises(StackConfigError) as info:
        load({**base, wrong: "1"})
    assert any(k == wrong and "unknown config key" in m for k, m in info.value.problems), info.value.problems


@budget(50)
@given(base=valid_configs(), mutation=mutated("RayCluster"), name=RESOURCE_NAMES, as_json=st.booleans())
def test_malformed_cluster_spec_names_key_entry_and_field(
    base: dict[str, Any], mutation: Mutation, name: str, as_json: bool
) -> None:
    clusters = {name: {"spec": wire(mutation.data)}}
    try:
        value: Any = json.dumps(clusters) if as_json else clusters
    except (TypeError, ValueError):
        return  # not JSON-serialisable (e.g. NaN is, but a set is not): Pulumi could not store it either
    config = {**base, f"{P}:clusters": value}
    try:
        load(config)
    except StackConfigError as exc:
        mine = [m for k, m in exc.problems if k == f"{P}:clusters"]
        assert mine, exc.problems
        assert any(m.startswith(f"{name}.spec") or m.startswith(name) for m in mine), mine


@budget(200)
@given(value=wrong_values({"a": 1}), key=st.sampled_from(["clusters", "jobs", "services", "cronjobs"]))
def test_object_keys_reject_non_objects(value: Any, key: str) -> None:
    try:
        load({f"{P}:{key}": value})
    except StackConfigError as exc:
        assert _key_named(f"{P}:{key}", exc.problems), exc.problems
