"""What a Pulumi program in another language sends to ``Construct``, made into what the Python components take.

The engine sends the inputs as a protobuf ``Struct`` in which a secret, a value not known yet (preview) or an
Output (with its dependencies) can sit anywhere. Pulumi's own decoding pushes a nested secret up to the whole
input, so ``spec`` would become one secret and every scalar in it would be redacted from our messages. Here each
one stays where it is, as a ``pulumi.Output`` the components resolve like any Output a Python program passes:
only that value is secret (in the custom resource, in state, and as ``[secret]`` in messages), only that value
is unknown at preview (everything else is judged).

JSON has one number type: the schema says where an integer is meant, and a whole float there becomes an ``int``
(``minReplicas: 1`` from YAML arrives as ``1.0``, and the models are strict). A field the schema marks secret
becomes a secret Output even when the program passed it plainly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import pulumi
from google.protobuf import json_format, struct_pb2
from pulumi.resource import DependencyResource
from pulumi.runtime import rpc

JsonDict = dict[str, Any]
#: Looks a resource reference (URN) up: the component this provider built earlier in the same run, or None.
ResourceLookup = Callable[[str], pulumi.Resource | None]


def _ready(value: Any) -> asyncio.Future[Any]:
    future: asyncio.Future[Any] = asyncio.get_event_loop().create_future()
    future.set_result(value)
    return future


def make_output(value: Any, *, known: bool = True, secret: bool = False, deps: set[str] | None = None) -> Any:
    resources: set[pulumi.Resource] = {DependencyResource(urn) for urn in deps or ()}
    return pulumi.Output(resources, _ready(value), _ready(known), _ready(secret))


class Decoder:
    """Decodes one ``Construct`` request's inputs, guided by the package schema's types."""

    def __init__(self, types: Mapping[str, JsonDict], lookup: ResourceLookup) -> None:
        self.types = types
        self.lookup = lookup
        self.nested_outputs = 0

    # ---- the wire format ---------------------------------------------------------------------------

    def inputs(
        self, inputs: struct_pb2.Struct, dependencies: Mapping[str, set[str]], properties: Mapping[str, JsonDict]
    ) -> dict[str, Any]:
        raw = json_format.MessageToDict(inputs, preserving_proto_field_name=True)
        out: dict[str, Any] = {}
        for key, value in raw.items():
            deps = dependencies.get(key, set())
            self.nested_outputs = 0
            decoded = self.value(value, properties.get(key, {}), deps, secret=False)
            if deps and self.nested_outputs == 0 and not isinstance(decoded, pulumi.Resource):
                decoded = make_output(decoded, deps=deps)  # keep the dependency (a plain value from an output)
            out[key] = decoded
        return out

    def value(self, value: Any, spec: JsonDict, deps: set[str], *, secret: bool) -> Any:
        if value == rpc.UNKNOWN:
            self.nested_outputs += 1
            return make_output(None, known=False, secret=secret, deps=deps)
        if isinstance(value, dict) and rpc._special_sig_key in value:
            return self._special(value, spec, deps)
        typed = self.typed(value, spec, deps)
        if spec.get("secret") and not isinstance(typed, pulumi.Output):
            self.nested_outputs += 1
            return make_output(typed, secret=True, deps=deps)
        return typed

    def _special(self, value: JsonDict, spec: JsonDict, deps: set[str]) -> Any:
        sig = value[rpc._special_sig_key]
        if sig == rpc._special_secret_sig:
            inner = self.value(value.get("value"), spec, deps, secret=True)
            if isinstance(inner, pulumi.Output):
                return pulumi.Output.secret(inner)
            self.nested_outputs += 1
            return make_output(inner, secret=True, deps=deps)
        if sig == rpc._special_output_value_sig:
            own = set(value.get("dependencies") or ())
            known = "value" in value
            inner = self.value(value.get("value"), spec, deps | own, secret=False) if known else None
            self.nested_outputs += 1
            if isinstance(inner, pulumi.Output):
                return pulumi.Output.secret(inner) if value.get("secret") else inner
            return make_output(inner, known=known, secret=bool(value.get("secret")), deps=deps | own)
        if sig == rpc._special_resource_sig:
            urn = str(value.get("urn", ""))
            return self.lookup(urn) or urn
        raise ValueError("the KubeRay components take no assets or archives")

    # ---- the schema's types ------------------------------------------------------------------------

    def typed(self, value: Any, spec: JsonDict, deps: set[str]) -> Any:
        if isinstance(value, float) and value.is_integer() and _allows_int(spec, self.types):
            return int(value)
        ref = spec.get("$ref", "")
        if ref.startswith("#/types/"):
            target = self.types.get(ref[len("#/types/") :], {})
            if isinstance(value, dict) and "properties" in target:
                props = target["properties"]
                return {k: self.value(v, props.get(k, {}), deps, secret=False) for k, v in value.items()}
            return value
        if isinstance(value, list):
            items = spec.get("items") or _union_member(spec, "array") or {}
            return [self.value(v, items, deps, secret=False) for v in value]
        if isinstance(value, dict):
            member = _union_member(spec, "object") or spec
            if "$ref" in member and member is not spec:
                return self.typed(value, member, deps)
            extra = member.get("additionalProperties") or {}
            return {k: self.value(v, extra, deps, secret=False) for k, v in value.items()}
        return value


def _union_member(spec: JsonDict, kind: str) -> JsonDict | None:
    for option in spec.get("oneOf") or []:
        if option.get("type") == kind or (kind == "object" and "$ref" in option):
            return dict(option)
    return None


def _allows_int(spec: JsonDict, types: Mapping[str, JsonDict]) -> bool:
    """An integer is meant here: ``integer``, ``number`` (``int | float``), a union with either, or no type at
    all (``Any``: a Python program would have written ``1``, not ``1.0``)."""
    if spec.get("type") in ("integer", "number"):
        return True
    ref = spec.get("$ref", "")
    if ref == "pulumi.json#/Any" or not spec:
        return True
    if ref.startswith("#/types/"):
        return types.get(ref[len("#/types/") :], {}).get("type") in ("integer", "number")
    return any(_allows_int(option, types) for option in spec.get("oneOf") or [])


__all__ = ["Decoder", "make_output"]
