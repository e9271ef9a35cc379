"""Parsing the YAML strings that live inside Ray manifests (``serveConfigV2``, ``runtimeEnvYAML``).

One parser for the model, the rules and the components: libyaml when it is installed (about ten times
faster than pure-Python PyYAML), and a small cache because the model and several rules read the same
string while checking one manifest. Results are shared: callers must not mutate them (use
:func:`parse_yaml_copy` when they need to).
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

import yaml

YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: What a malformed YAML string raises (libyaml and pure Python raise the same classes).
YAMLError = yaml.YAMLError


@lru_cache(maxsize=256)
def parse_yaml(text: str) -> Any:
    """``yaml.safe_load(text)``, cached; raises :data:`YAMLError` on malformed input. Do not mutate the result."""
    return yaml.load(text, Loader=YAML_LOADER)


def parse_yaml_copy(text: str) -> Any:
    """Like :func:`parse_yaml` but returns a private copy the caller may change."""
    return copy.deepcopy(parse_yaml(text))


def first_document(text: str) -> Any:
    """The first YAML document of ``text`` (None when there is none), as go-yaml's ``Unmarshal`` reads it: later
    documents are not even parsed. Raises :data:`YAMLError` when the first one is malformed. A fresh value."""
    loader = YAML_LOADER(text)
    try:
        return loader.get_data() if loader.check_data() else None  # type: ignore[no-untyped-call]
    finally:
        loader.dispose()


def _json_representable(value: Any) -> bool:
    """Go's ``encoding/json`` refuses NaN and infinities (``json: unsupported value: NaN``)."""
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    if isinstance(value, dict):
        return all(_json_representable(v) for v in value.values())
    if isinstance(value, list):
        return all(_json_representable(v) for v in value)
    return True


@lru_cache(maxsize=256)  # several rules and the model ask about the same string while checking one manifest
def runtime_env_error(text: str) -> str | None:
    """Why KubeRay's ``UnmarshalRuntimeEnvYAML`` (``sigs.k8s.io/yaml.Unmarshal`` into a map: the *first* YAML
    document, turned into JSON, then decoded) fails on ``text``, or None when it loads. An empty document loads
    (an empty runtime env); a list or a scalar does not; neither does ``.nan`` or ``.inf`` (not JSON)."""
    try:
        first = first_document(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return f"is not valid YAML{where}: {getattr(err, 'problem', err)}"
    if first is not None and not isinstance(first, dict):
        return f"must be a YAML mapping (pip, env_vars, working_dir, ...), got a {type(first).__name__}"
    if not _json_representable(first):
        return "holds .nan or .inf, which JSON cannot carry: the operator cannot turn it into the runtime env JSON"
    return None
