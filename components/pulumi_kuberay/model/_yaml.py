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

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: What a malformed YAML string raises (libyaml and pure Python raise the same classes).
YAMLError = yaml.YAMLError


@lru_cache(maxsize=256)
def parse_yaml(text: str) -> Any:
    """``yaml.safe_load(text)``, cached; raises :data:`YAMLError` on malformed input. Do not mutate the result."""
    return yaml.load(text, Loader=_LOADER)


def parse_yaml_copy(text: str) -> Any:
    """Like :func:`parse_yaml` but returns a private copy the caller may change."""
    return copy.deepcopy(parse_yaml(text))
