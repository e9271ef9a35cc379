"""A small, strict validator of a document against a CRD ``openAPIV3Schema``, judging as an API server would.

Structural-schema semantics: unknown fields are errors (a real API server prunes them silently, which is
worse), except under ``x-kubernetes-preserve-unknown-fields: true``; a ``null`` is an error unless the schema
says ``nullable`` (the API server would drop it); ``bool`` is not an integer; ``x-kubernetes-int-or-string``
admits integers and strings only (no floats). Also: ``enum``, ``required`` (a required field with a schema
``default`` is filled in by the API server, so it may be absent), ``additionalProperties``, ``items``,
``minimum``/``maximum`` (and exclusive variants), ``minLength``/``maxLength``, ``minItems``/``maxItems``,
``minProperties``/``maxProperties``, ``pattern`` (strings only), ``anyOf``/``allOf``/``oneOf``/``not``,
``x-kubernetes-list-type`` ``set``/``map`` uniqueness. ``metadata`` at the top level is ObjectMeta: only a
mapping with a string ``name`` (or ``generateName``, as ``kubectl create`` accepts) is required.

Nulls: the API server silently prunes a ``null`` in a non-nullable field. That hides mistakes (an explicit
``None`` rendered by a model), so by default it is an error; ``prune_nulls=True`` judges like the server
(upstream samples write e.g. an empty ``metadata:`` key).

``x-kubernetes-validations`` (CEL): the rules found in the KubeRay v1.7.0 CRDs are hand-coded in
:data:`CEL_RULES`. Transition rules (those using ``oldSelf``, e.g. ``self == oldSelf`` for immutability)
only run on update, so a single document cannot violate them: they are skipped. Any other rule is reported
as an error naming the rule, so a CRD bump that adds one fails loudly instead of passing silently.

Not checked: ``format`` (``int32``/``int64`` ranges, ``date-time``, ``byte``), which the API server checks
only for some formats.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

Schema = Mapping[str, Any]
ErrorList = list[str]


def _has(obj: Any, key: str) -> bool:
    return isinstance(obj, Mapping) and key in obj


#: CEL rule text -> predicate on ``self`` (True = valid). Found with ``grep 'rule:'`` over the four CRDs.
CEL_RULES: dict[str, Callable[[Any], bool]] = {
    "self in ['ray.io/kuberay-operator', 'kueue.x-k8s.io/multikueue']": lambda s: (
        s in ("ray.io/kuberay-operator", "kueue.x-k8s.io/multikueue")
    ),
    "!((has(self.onSuccess) || has(self.onFailure)) && has(self.deletionRules))": lambda s: (
        not ((_has(s, "onSuccess") or _has(s, "onFailure")) and _has(s, "deletionRules"))
    ),
    "((has(self.onSuccess) && has(self.onFailure)) || has(self.deletionRules))": lambda s: (
        (_has(s, "onSuccess") and _has(s, "onFailure")) or _has(s, "deletionRules")
    ),
    "!(has(self.jobStatus) && has(self.jobDeploymentStatus))": lambda s: (
        not (_has(s, "jobStatus") and _has(s, "jobDeploymentStatus"))
    ),
    "has(self.jobStatus) || has(self.jobDeploymentStatus)": lambda s: (
        _has(s, "jobStatus") or _has(s, "jobDeploymentStatus")
    ),
}

_TRANSITION = re.compile(r"\boldSelf\b")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _map_entry(path: str, key: str) -> str:
    """Path of a map entry: ``.cpu`` for identifier-like keys, ``['nvidia.com/gpu']`` otherwise."""
    return _join(path, key) if key.isidentifier() else f"{path}[{key!r}]"


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 60 else text[:57] + "..."


def _got(value: Any) -> str:
    return f"{_type_name(value)} {_show(value)}"


def _is_type(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, Mapping)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return True


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``True`` is not ``1`` (but ``1`` is ``1.0``)."""
    ta, tb = _type_name(a), _type_name(b)
    numeric = {"integer", "number"}
    comparable = ta == tb or (ta in numeric and tb in numeric)
    return comparable and bool(a == b)


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def validate(instance: Any, schema: Schema, path: str = "", *, prune_nulls: bool = False) -> ErrorList:
    """Every reason ``instance`` does not satisfy ``schema``, each as ``"<field path>: <message>"``.

    ``path`` prefixes the reported paths; when empty, ``instance`` is a whole object (top-level ObjectMeta).
    ``prune_nulls=True`` accepts a ``null`` anywhere, as the API server does by dropping it.
    """
    errors: ErrorList = []
    _check(_without_nulls(instance) if prune_nulls else instance, schema, path, errors, top=(path == ""))
    return errors


def _without_nulls(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _err(errors: ErrorList, path: str, message: str) -> None:
    errors.append(f"{path}: {message}" if path else message)


def _check(value: Any, schema: Schema, path: str, errors: ErrorList, *, top: bool = False) -> None:
    if value is None:
        if not schema.get("nullable", False):
            _err(errors, path, "null is not allowed here (the API server would drop it)")
        return
    int_or_string = _is_type(value, "integer") or _is_type(value, "string")
    if schema.get("x-kubernetes-int-or-string") and not int_or_string:
        _err(errors, path, f"expected integer or string, got {_got(value)}")
        return
    kind = schema.get("type")
    if kind is not None and not _is_type(value, kind):
        _err(errors, path, f"expected {kind}, got {_got(value)}")
        return
    before = len(errors)
    _check_combinators(value, schema, path, errors)
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(_show(o) for o in schema["enum"])
        _err(errors, path, f"unsupported value {_show(value)}: supported values: {options}")
    if isinstance(value, str):
        _check_string(value, schema, path, errors)
    elif _is_type(value, "number"):
        _check_number(value, schema, path, errors)
    elif isinstance(value, list):
        _check_array(value, schema, path, errors)
    elif isinstance(value, Mapping):
        _check_object(value, schema, path, errors, top=top)
    if len(errors) == before:
        _check_cel(value, schema, path, errors)


def _check_combinators(value: Any, schema: Schema, path: str, errors: ErrorList) -> None:
    for sub in schema.get("allOf", ()):
        _check_partial(value, sub, path, errors)
    if "anyOf" in schema:
        branches = [_partial_errors(value, sub, path) for sub in schema["anyOf"]]
        if not any(not b for b in branches):
            _err(errors, path, "matches none of anyOf: " + " | ".join("; ".join(b) for b in branches))
    if "oneOf" in schema:
        ok = sum(1 for sub in schema["oneOf"] if not _partial_errors(value, sub, path))
        if ok != 1:
            _err(errors, path, f"must match exactly one of oneOf, matches {ok}")
    if "not" in schema and not _partial_errors(value, schema["not"], path):
        _err(errors, path, "must not match the 'not' schema")


def _partial_errors(value: Any, schema: Schema, path: str) -> ErrorList:
    out: ErrorList = []
    _check_partial(value, schema, path, out)
    return out


def _check_partial(value: Any, schema: Schema, path: str, errors: ErrorList) -> None:
    """Value validations of a combinator branch: they constrain but never declare fields (no pruning)."""
    kind = schema.get("type")
    if kind is not None and not _is_type(value, kind):
        _err(errors, path, f"expected {kind}, got {_got(value)}")
        return
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        _err(errors, path, f"unsupported value {_show(value)}")
    if isinstance(value, str):
        _check_string(value, schema, path, errors)
    elif _is_type(value, "number"):
        _check_number(value, schema, path, errors)
    elif isinstance(value, Mapping):
        for name in schema.get("required", ()):
            if name not in value:
                _err(errors, _join(path, name), "required field is missing")
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                _check_partial(value[name], sub, _join(path, name), errors)
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for index, item in enumerate(value):
            _check_partial(item, schema["items"], f"{path}[{index}]", errors)
    _check_combinators(value, schema, path, errors)


def _check_string(value: str, schema: Schema, path: str, errors: ErrorList) -> None:
    if "minLength" in schema and len(value) < schema["minLength"]:
        _err(errors, path, f"{_show(value)} is shorter than minLength {schema['minLength']}")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        _err(errors, path, f"{_show(value)} is longer than maxLength {schema['maxLength']}")
    if "pattern" in schema and not _regex(schema["pattern"]).search(value):
        _err(errors, path, f"{_show(value)} does not match pattern {schema['pattern']!r}")


def _check_number(value: float, schema: Schema, path: str, errors: ErrorList) -> None:
    if "minimum" in schema:
        low = schema["minimum"]
        if value < low or (schema.get("exclusiveMinimum") is True and value == low):
            _err(errors, path, f"{value} is below the minimum {low}")
    if "maximum" in schema:
        high = schema["maximum"]
        if value > high or (schema.get("exclusiveMaximum") is True and value == high):
            _err(errors, path, f"{value} is above the maximum {high}")


def _check_array(value: list[Any], schema: Schema, path: str, errors: ErrorList) -> None:
    if "minItems" in schema and len(value) < schema["minItems"]:
        _err(errors, path, f"has {len(value)} items, fewer than minItems {schema['minItems']}")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        _err(errors, path, f"has {len(value)} items, more than maxItems {schema['maxItems']}")
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            _check(item, items, f"{path}[{index}]", errors)
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "set":
        seen: list[Any] = []
        for index, item in enumerate(value):
            if any(_same(item, s) for s in seen):
                _err(errors, f"{path}[{index}]", f"duplicate value {_show(item)} in a set list")
            seen.append(item)
    elif list_type == "map" and isinstance(items, Mapping):
        keys = schema.get("x-kubernetes-list-map-keys", [])
        props = items.get("properties", {})
        seen_keys: dict[tuple[str, ...], int] = {}
        for index, item in enumerate(value):
            if not isinstance(item, Mapping):
                continue
            key = tuple(repr(item.get(k, props.get(k, {}).get("default"))) for k in keys)
            if key in seen_keys:
                shown = ", ".join(f"{k}={v}" for k, v in zip(keys, key, strict=True))
                _err(errors, f"{path}[{index}]", f"duplicate entry ({shown}), also at [{seen_keys[key]}]")
            else:
                seen_keys[key] = index


def _check_object(
    value: Mapping[str, Any], schema: Schema, path: str, errors: ErrorList, *, top: bool
) -> None:
    props: Mapping[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    preserve = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
    for name in schema.get("required", ()):
        if name not in value and "default" not in props.get(name, {}):
            _err(errors, _join(path, name), "required field is missing")
    if "minProperties" in schema and len(value) < schema["minProperties"]:
        _err(errors, path, f"has {len(value)} fields, fewer than minProperties {schema['minProperties']}")
    if "maxProperties" in schema and len(value) > schema["maxProperties"]:
        _err(errors, path, f"has {len(value)} fields, more than maxProperties {schema['maxProperties']}")
    for key, item in value.items():
        key_text = str(key)
        if not isinstance(key, str):
            _err(errors, _map_entry(path, key_text), f"keys must be strings, got {_got(key)}")
            continue
        if top and key == "metadata":
            _check_object_meta(item, _join(path, key), errors)
        elif key in props:
            _check(item, props[key], _join(path, key), errors)
        elif isinstance(extra, Mapping):
            _check(item, extra, _map_entry(path, key), errors)
        elif extra is True or preserve:
            continue
        else:
            _err(errors, _join(path, key), f"unknown field {key!r} (the API server would drop it)")


def _check_object_meta(value: Any, path: str, errors: ErrorList) -> None:
    if not isinstance(value, Mapping):
        _err(errors, path, f"expected object, got {_got(value)}")
    elif not isinstance(value.get("name"), str) and not isinstance(value.get("generateName"), str):
        got = _got(value.get("name"))
        _err(errors, _join(path, "name"), f"expected a string name (or generateName), got {got}")


def _check_cel(value: Any, schema: Schema, path: str, errors: ErrorList) -> None:
    for rule in schema.get("x-kubernetes-validations", ()):
        text = " ".join(str(rule.get("rule", "")).split())
        if _TRANSITION.search(text):
            continue  # a transition rule: evaluated on update only, never on a single document
        check = CEL_RULES.get(text)
        where = _join(path, rule["fieldPath"].lstrip(".")) if rule.get("fieldPath") else path
        if check is None:
            _err(errors, where, f"cannot evaluate x-kubernetes-validations rule {text!r} (not hand-coded)")
        elif not check(value):
            _err(errors, where, str(rule.get("message") or f"failed rule: {text}"))
