"""The bytes the operator hashes: a spec as the API server stores it, decoded into KubeRay's Go types and
written back by Go's ``encoding/json``.

KubeRay's ``GenerateJsonHash`` is ``base32hex(sha1(json.Marshal(spec)))`` over the typed Go struct, so two
specs hash alike exactly when their Go JSON is alike: ``"1000m"`` and ``"1"`` are one CPU quantity, an absent
``numOfHosts`` is the CRD default ``1``, ``env: []`` and no ``env`` are both omitted (``omitempty``), but
``suspend: false`` and no ``suspend`` differ (a ``*bool``). This module reproduces that from a type table
generated from the operator's Go types and CRD (``gotypes/<version>.json``, by ``scripts/gen-plan-types``):
per struct, its fields in Go order with their JSON name, Go type, tag options (``o`` omitempty, ``z``
omitzero), ``p`` when the API server prunes the field (not in the CRD schema) and the CRD default if any.

Steps, as the real objects take them: API server (prune unknown fields, apply CRD defaults to present objects,
drop ``null`` of fields that are not nullable) -> Go ``json.Unmarshal`` (unknown keys ignored, ``null`` is the
zero value) -> ``json.Marshal`` (fields in Go order, ``omitempty``/``omitzero``, map keys sorted, HTML-safe
string escapes, custom marshalers for Quantity, IntOrString and Time).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any, Final

from pulumi_kuberay.kuberay import quantity as _quantity

#: Type tables shipped with the package, by operator minor version.
TABLES: Final = {(1, 6): "v1.6.json", (1, 7): "v1.7.json"}


class GoDecodeError(ValueError):
    """A value the API server would not store for this field (it is not of the field's Go type)."""


@dataclass(frozen=True)
class Field:
    name: str
    ref: str
    omitempty: bool
    omitzero: bool
    pruned: bool
    default: Any = None
    has_default: bool = False


@dataclass(frozen=True)
class TypeTable:
    version: str
    root: str
    structs: Mapping[str, tuple[Field, ...]]
    customs: frozenset[str]


@cache
def table(minor: tuple[int, int]) -> TypeTable:
    """The type table of operator ``minor`` (``(1, 7)``); KeyError for a minor we have no table of."""
    text = resources.files("pulumi_kuberay.plan").joinpath("gotypes").joinpath(TABLES[minor]).read_text()
    raw = json.loads(text)
    structs: dict[str, tuple[Field, ...]] = {}
    customs: set[str] = set()
    for key, entry in raw["types"].items():
        if "custom" in entry:
            customs.add(key)
            continue
        fields = []
        for item in entry["fields"]:
            name, ref, flags = item[0], item[1], item[2]
            has_default = len(item) > 3
            fields.append(
                Field(
                    name, ref, "o" in flags, "z" in flags, "p" in flags, item[3] if has_default else None, has_default
                )
            )
        structs[key] = tuple(fields)
    return TypeTable(str(raw["version"]), str(raw["root"]), structs, frozenset(customs))


# --------------------------------------------------------------------------------------------------
# Decoded Go values: str/int/bool/float; None = nil pointer/slice/map (or zero Time); Ptr = non-nil pointer;
# list/dict = slice/map; Struct = a struct (only its non-zero fields); Quantity; IntOrString.


@dataclass(frozen=True)
class Ptr:
    value: Any


@dataclass(frozen=True)
class IntOrString:
    is_string: bool
    value: int | str


class Struct(dict[str, Any]):
    """A decoded Go struct: field name -> decoded value, zero-valued fields left out."""


def _is_go_int(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())


def decode(  # noqa: C901, PLR0912  (one branch per Go kind, as encoding/json has)
    types: TypeTable, ref: str, value: Any, path: str = "spec", *, api_server: bool = True
) -> Any:
    """``value`` (JSON) decoded into the Go type ``ref``, after the API server pruned and defaulted it
    (``api_server=False``: as Go alone reads it); raises :class:`GoDecodeError` where Go's ``json.Unmarshal``
    would fail."""
    if ref.startswith("*"):
        return None if value is None else Ptr(decode(types, ref[1:], value, path, api_server=api_server))
    if value is None:
        return _zero(ref)
    if ref.startswith("[]"):
        if not isinstance(value, list):
            raise GoDecodeError(f"{path}: expected a list, got {type(value).__name__}")
        return [decode(types, ref[2:], item, f"{path}[{i}]", api_server=api_server) for i, item in enumerate(value)]
    if ref.startswith("map"):
        if not isinstance(value, Mapping):
            raise GoDecodeError(f"{path}: expected an object, got {type(value).__name__}")
        return {str(k): decode(types, ref[3:], v, f"{path}.{k}", api_server=api_server) for k, v in value.items()}
    if ref == "string":
        if not isinstance(value, str):
            raise GoDecodeError(f"{path}: expected a string, got {type(value).__name__} {value!r}")
        return value
    if ref in ("int", "uint"):
        # An integral float is an integer on the wire (Pulumi's property values are floats; JSON writes 1000).
        if not _is_go_int(value):
            raise GoDecodeError(f"{path}: expected an integer, got {value!r}")
        return int(value)
    if ref == "bool":
        if not isinstance(value, bool):
            raise GoDecodeError(f"{path}: expected a boolean, got {value!r}")
        return value
    if ref == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise GoDecodeError(f"{path}: expected a number, got {value!r}")
        return float(value)
    if ref == "bytes":
        if not isinstance(value, str):
            raise GoDecodeError(f"{path}: expected base64 text, got {value!r}")
        return value
    if ref in types.customs:
        return _decode_custom(ref, value, path)
    fields = types.structs.get(ref)
    if fields is None:
        raise GoDecodeError(f"{path}: no Go type {ref!r} in the type table {types.version}")
    if not isinstance(value, Mapping):
        raise GoDecodeError(f"{path}: expected an object, got {type(value).__name__}")
    out = Struct()
    for item in fields:
        if item.pruned and api_server:
            continue
        raw = value.get(item.name)
        if raw is None and item.has_default and api_server:
            raw = item.default  # API server: a missing (or non-nullable null) field takes its CRD default
        if raw is None:
            continue
        decoded = decode(types, item.ref, raw, f"{path}.{item.name}", api_server=api_server)
        if not _is_zero_value(types, item.ref, decoded):
            out[item.name] = decoded
    return out


def _zero(ref: str) -> Any:
    if ref in ("string", "bytes"):
        return ""
    if ref in ("int", "uint"):
        return 0
    if ref == "bool":
        return False
    if ref == "float":
        return 0.0
    if ref.startswith(("*", "[]", "map")):
        return None
    return _ZERO_CUSTOM.get(ref.rsplit(".", 1)[-1], Struct())


_ZERO_QUANTITY: Final = _quantity.Quantity(Fraction(0), "DecimalSI")
_ZERO_CUSTOM: Final[dict[str, Any]] = {"Quantity": _ZERO_QUANTITY, "IntOrString": IntOrString(False, 0), "Time": None}


def _decode_custom(ref: str, value: Any, path: str) -> Any:
    name = ref.rsplit(".", 1)[-1]
    if name == "Quantity":
        try:
            if isinstance(value, str):
                return _quantity.parse(value.strip())
            if isinstance(value, int | float) and not isinstance(value, bool):
                return _quantity.parse(_quantity.format_json_number(value))
        except _quantity.QuantityError as exc:
            raise GoDecodeError(f"{path}: {exc}") from None
        raise GoDecodeError(f"{path}: a quantity must be a string or a number, got {value!r}")
    if name == "IntOrString":
        if isinstance(value, str):
            return IntOrString(True, value)
        if _is_go_int(value):
            return IntOrString(False, int(value))
        raise GoDecodeError(f"{path}: expected an integer or a string, got {value!r}")
    if name == "Time":
        if not isinstance(value, str):
            raise GoDecodeError(f"{path}: expected an RFC 3339 time, got {value!r}")
        return value
    return value  # FieldsV1 and the like: opaque JSON (pruned by every KubeRay CRD)


def _is_zero_value(types: TypeTable, ref: str, value: Any) -> bool:
    """``reflect.Value.IsZero`` of a decoded value (a zero struct field is not stored in its Struct)."""
    if value is None:
        return True
    if isinstance(value, Ptr):
        return False
    if isinstance(value, list | dict) and not isinstance(value, Struct):
        return False  # a non-nil slice or map, even empty
    if isinstance(value, Struct):
        return not value
    if isinstance(value, _quantity.Quantity):
        return value == _ZERO_QUANTITY
    if isinstance(value, IntOrString):
        return value == IntOrString(False, 0)
    return bool(value == _zero(ref))


# --------------------------------------------------------------------------------------------------
# json.Marshal


def _string(text: str) -> str:
    """Go's ``appendString`` with HTML escaping (``json.Marshal``'s default)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or ch in "<>&" or ch in ("\u2028", "\u2029"):
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _empty(value: Any) -> bool:
    """``isEmptyValue`` of omitempty: false, 0, "", nil, and empty slices/maps (structs never)."""
    if value is None:
        return True
    if isinstance(value, Struct | Ptr | _quantity.Quantity | IntOrString):
        return False
    if isinstance(value, bool):
        return value is False
    if isinstance(value, int | float | str | list | dict):
        return not value
    return False


def encode(types: TypeTable, ref: str, value: Any) -> str:
    """``json.Marshal`` of the decoded ``value`` of Go type ``ref``."""
    if ref.startswith("*"):
        return "null" if value is None else encode(types, ref[1:], value.value if isinstance(value, Ptr) else value)
    if ref.startswith("[]"):
        return "null" if value is None else "[" + ",".join(encode(types, ref[2:], v) for v in value) + "]"
    if ref.startswith("map"):
        if value is None:
            return "null"
        items = sorted(value.items())
        return "{" + ",".join(f"{_string(k)}:{encode(types, ref[3:], v)}" for k, v in items) + "}"
    if ref in ("string", "bytes"):
        return _string(value)
    if ref in ("int", "uint"):
        return str(int(value))
    if ref == "bool":
        return "true" if value else "false"
    if ref == "float":
        return _quantity.format_json_number(float(value))
    if ref in types.customs:
        return _encode_custom(ref, value)
    parts = []
    for item in types.structs[ref]:
        field_value = value.get(item.name, _zero(item.ref)) if isinstance(value, Struct) else _zero(item.ref)
        if item.omitempty and _empty(field_value):
            continue
        if item.omitzero and _is_zero_value(types, item.ref, field_value):
            continue
        parts.append(f"{_string(item.name)}:{encode(types, item.ref, field_value)}")
    return "{" + ",".join(parts) + "}"


def _encode_custom(ref: str, value: Any) -> str:
    name = ref.rsplit(".", 1)[-1]
    if name == "Quantity":
        return _string(value.marshal())
    if name == "IntOrString":
        return _string(value.value) if value.is_string else str(value.value)
    if name == "Time":
        return "null" if value is None else _string(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def go_json(types: TypeTable, spec: Mapping[str, Any], ref: str | None = None, *, api_server: bool = True) -> str:
    """The operator's ``json.Marshal`` of ``spec`` read into Go type ``ref`` (default: the table's root)."""
    root = ref or types.root
    return encode(types, root, decode(types, root, spec, api_server=api_server))


def json_hash(text: str) -> str:
    """``GenerateJsonHash``: base32hex (with padding) of the SHA-1 of the JSON bytes."""
    return base64.b32hexencode(hashlib.sha1(text.encode("utf-8")).digest()).decode("ascii")


__all__ = ["GoDecodeError", "TypeTable", "decode", "encode", "go_json", "json_hash", "table"]
