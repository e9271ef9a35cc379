"""The base of the typed model: :class:`KubeModel` (the pydantic base class) and rendering helpers.

Every model of the package derives from :class:`KubeModel`: camelCase aliases on the wire, snake_case
attributes in Python, unknown keys rejected (a real API server prunes them silently), no type coercion
(``"3"`` is not an integer to the API server either). Rendering emits only what was set.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, ClassVar, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, model_validator
from pydantic.alias_generators import to_camel
from pydantic_core import SchemaValidator

from ..kuberay import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from ._deferred import is_deferred
from ._errors import (
    SpecError,
    later_errors,
    with_suggestions,
)
from ._field_docs import FIELD_DOCS

JsonDict = dict[str, Any]

# The ranges of the CRDs' ``format: int32`` / ``format: int64`` integers. The API server stores any integer there
# (kube-openapi's typeValidator checks no range), but KubeRay decodes the object into its Go types and fails
# ("cannot unmarshal number ... of type int32"): the object is never reconciled.
Int32 = Annotated[int, Field(ge=INT32_MIN, le=INT32_MAX)]
Int64 = Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]

_Validator = TypeVar("_Validator", bound=Callable[..., Any])
_Model = TypeVar("_Model", bound=BaseModel)

#: The attribute :func:`wire_noop` sets on a validator function.
_WIRE_NOOP = "__pulumi_kuberay_wire_noop__"


def wire_noop(function: _Validator) -> _Validator:
    """Mark a validator that changes nothing and raises nothing on a manifest (a validation under the wire
    context, ``model.pod.WIRE_CONTEXT``), so :func:`validate_wire` leaves it out of the validator it builds.
    Put it under the pydantic decorator (``@model_validator(...)`` then ``@wire_noop``)."""
    setattr(function, _WIRE_NOOP, True)
    return function


def holds_deferred(value: Any) -> bool:
    """True if ``value`` is deferred or holds a deferred value or a pending model anywhere inside."""
    kind = type(value)  # exact types first (a spec is mostly these): the ABC checks below are the slow path
    if kind is dict:
        return any(holds_deferred(v) for v in value.values())
    if kind is list:
        return any(holds_deferred(v) for v in value)
    if kind is str or kind is int or kind is bool or value is None:
        return False
    if isinstance(value, KubeModel):
        return value.pending_input() is not None
    if isinstance(value, Mapping):
        return any(holds_deferred(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(holds_deferred(v) for v in value)
    return is_deferred(value)


def _schema_description(schema: JsonDict, cls: type[Any]) -> None:
    """The JSON schema's description of a model is its own docstring, not the field list help() shows."""
    plain = _PLAIN_DOCS.get(cls, cls.__dict__.get("__doc__"))
    if plain:
        schema["description"] = inspect.cleandoc(plain)
    else:
        schema.pop("description", None)


#: Each model class's own docstring, before :func:`_doc_with_fields` added its fields (the JSON schema's description).
_PLAIN_DOCS: dict[type[Any], str | None] = {}


def _doc_with_fields(cls: type[BaseModel], plain: str | None) -> str:
    lines = [inspect.cleandoc(plain), ""] if plain else []
    fields = cls.__pydantic_fields__
    if not fields:
        return "\n".join(lines).rstrip()
    lines.append("Fields (Python keyword, then the CRD's name where it differs):")
    lines.append("")
    generator = cls.model_config.get("alias_generator")
    for name, info in fields.items():
        wire = info.alias or (generator(name) if callable(generator) else None) or name
        head = f"    {name}" + ("" if wire == name or info.exclude else f" ({wire})")  # (excluded: Python-only)
        lines.append(head)
        description = info.description or "(no description)"
        lines.extend(f"        {line}".rstrip() for line in inspect.cleandoc(description).splitlines())
    return "\n".join(lines)


class _KeywordSignature:
    """A model class's ``__signature__``: keyword-only parameters named as Python calls them (the field names),
    with their types and defaults (pydantic's would name the camelCase aliases, as ``validate_by_alias`` is on)."""

    def __get__(self, instance: object, owner: type[Any] | None = None) -> inspect.Signature:
        if instance is not None or owner is None:
            raise AttributeError("__signature__")  # an instance's signature is its __call__'s
        fields = owner.__pydantic_fields__
        parameters = [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if info.is_required() else info.get_default(call_default_factory=False),
                annotation=info.annotation if info.annotation is not None else inspect.Parameter.empty,
            )
            for name, info in fields.items()
        ]
        parameters.sort(key=lambda p: p.default is not inspect.Parameter.empty)  # (a stable sort: required first)
        return inspect.Signature(parameters, return_annotation=None)


class KubeModel(BaseModel):
    """Base of every typed KubeRay / Kubernetes object.

    Field names are snake_case in Python and camelCase (the CRD's spelling) on the wire; both spellings are
    accepted on input. ``to_dict()`` renders only the fields that were set, under their CRD names.
    """

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        protected_namespaces=(),
        json_schema_extra=_schema_description,
        regex_engine="python-re",
        # Validators are built on first use, not at import: `import pulumi_kuberay` stays cheap for the
        # commands and for programs that only use a few kinds.
        defer_build=True,
    )

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        # A field's docstring is its description (model_json_schema, the package schema). pydantic's
        # use_attribute_docstrings would find and parse every class's source at import (most of the models'
        # import time): the same docstrings come from a table generated from the sources (tools/gen_field_docs.py),
        # set before the validators and schemas are built (defer_build), so every output is unchanged.
        super().__pydantic_init_subclass__(**kwargs)
        if cls.__module__.startswith("pulumi_kuberay."):
            docs = FIELD_DOCS.get(f"{cls.__module__}.{cls.__qualname__}")
        elif "use_attribute_docstrings" not in cls.model_config:
            docs = _source_docstrings(cls)  # a user's subclass: read from its source, as the option did
        else:
            docs = None  # the subclass chose: pydantic did it (True) or must not (False)
        if docs:
            fields = cls.__pydantic_fields__
            for name, text in docs.items():
                info = fields.get(name)
                if info is not None and info.description is None:
                    info.description = text
        # help() and inspect.signature(): the keywords a call takes (snake_case, pydantic's own signature would
        # give the camelCase aliases, and only once the deferred model is built) and each field's description.
        # (A string made now: pydoc reads the class's own __doc__ entry, which must be a str: ~3 ms for the package.)
        plain = _PLAIN_DOCS[cls] = cls.__dict__.get("__doc__")
        cls.__doc__ = _doc_with_fields(cls, plain)
        cls.__signature__ = _KeywordSignature()  # type: ignore[assignment]

    @classmethod
    def __pydantic_on_complete__(cls) -> None:
        super().__pydantic_on_complete__()
        cls.__signature__ = _KeywordSignature()  # type: ignore[assignment]  # pydantic's, set on completion

    @classmethod
    def model_rebuild(
        cls,
        *,
        force: bool = False,
        raise_errors: bool = True,
        _parent_namespace_depth: int = 2,
        _types_namespace: Any = None,
    ) -> bool | None:
        # a forced rebuild of a complete model sets pydantic's signature again without the completion hook
        rebuilt = super().model_rebuild(
            force=force,
            raise_errors=raise_errors,
            _parent_namespace_depth=_parent_namespace_depth + 1,
            _types_namespace=_types_namespace,
        )
        cls.__signature__ = _KeywordSignature()  # type: ignore[assignment]
        return rebuilt

    #: Ray Serve gives some nulls a meaning (``route_prefix: null`` = no HTTP route): such models keep them.
    _null_is_a_value: ClassVar[bool] = False

    def __init__(self, /, **data: Any) -> None:
        if any(holds_deferred(v) for v in data.values()):
            # A value is not known yet (a pulumi Output): keep the keywords; the component resolves them and
            # validates the whole spec then (errors carry the CRD path). Nothing is validated or rendered now.
            _init_pending(self, data)
            return
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise with_suggestions(exc, type(self), later_errors(type(self), data, exc)) from None

    # Keyword construction only: pydantic validates dicts (and nested models) without calling this __init__,
    # so a validation context (the wire context of manifests) reaches the validators.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    def pending_input(self) -> dict[str, Any] | None:
        """The keywords of a model built with values not known yet (``None`` for a validated model)."""
        private = self.__pydantic_private__ or {}
        pending = private.get("_pending_keywords") if isinstance(private, dict) else None
        return pending if isinstance(pending, dict) else None

    def _require_known(self) -> None:
        if self.pending_input() is not None:
            raise ValueError(
                f"{type(self).__name__} holds values that are not known yet (pulumi Outputs): pass it to a pulumi_kuberay component, which resolves them before validating and rendering"
            )

    @model_validator(mode="after")
    @wire_noop  # while no pending model exists in the process: validate_wire checks that
    def _none_means_unset(self, info: ValidationInfo) -> Self:
        # From Python (or a stack file's empty value) None means "not set": rendering it as null would send a
        # value the API server silently drops. A manifest (wire context) keeps its nulls so it round-trips.
        # Runs on every model of every validation (half of a manifest's validation time): it looks only at the
        # fields that were given, as an unset field holds its (static, never pending) default.
        # Until a pending model exists in this process (_PENDING_MADE), none can be nested here: a manifest then
        # needs nothing from this validator, which was a tenth of the rule catalogue's time on the samples.
        context = info.context
        wire = isinstance(context, Mapping) and bool(context.get("pulumi_kuberay.wire"))
        look_for_pending = _PENDING_MADE[0]
        if wire and not look_for_pending:
            return self
        values = self.__dict__
        given = self.model_fields_set
        unset_nones: list[str] = []
        for name in given:
            value = values.get(name, given)  # (a field given but not stored cannot be None)
            if value is None:
                unset_nones.append(name)
                continue
            if not look_for_pending:
                continue
            for item in value if isinstance(value, list) else (value,):
                if isinstance(item, KubeModel) and item.pending_input() is not None:
                    raise SpecError(
                        f"{type(item).__name__} holds values that are not known yet (pulumi Outputs)",
                        fix="pass the spec to a pulumi_kuberay component, which resolves them first",
                    )
        if not unset_nones or self._null_is_a_value or wire:
            return self
        given.difference_update(unset_nones)
        return self

    def to_dict(self) -> JsonDict:
        """Render this object as the CRD expects it: CRD field names, only what was set."""
        self._require_known()
        return self.model_dump(by_alias=True, exclude_unset=True, mode="python")


def _source_docstrings(cls: type[KubeModel]) -> dict[str, str]:
    """The attribute docstrings of ``cls``'s own fields, as pydantic's ``use_attribute_docstrings`` reads them."""
    from pydantic._internal._docs_extraction import extract_docstrings_from_cls

    return extract_docstrings_from_cls(cls)


#: Whether a pending model was ever made in this process (``_none_means_unset`` looks for nested ones only then).
_PENDING_MADE = [False]


def _init_pending(model: KubeModel, data: dict[str, Any]) -> None:
    """Make ``model`` a pending instance: no field set, the raw keywords kept for the component."""
    _PENDING_MADE[0] = True
    private: dict[str, Any] = {}
    for name, attr in (type(model).__private_attributes__ or {}).items():
        default = attr.get_default()
        private[name] = default
    private["_pending_keywords"] = dict(data)
    object.__setattr__(model, "__dict__", {})
    object.__setattr__(model, "__pydantic_fields_set__", set())
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(model, "__pydantic_private__", private)


#: The validator of each model class without its wire no-ops (:func:`validate_wire`), with the core schema it
#: was built from (a model rebuilt since gets a new one).
_WIRE_VALIDATORS: dict[type[BaseModel], tuple[Any, SchemaValidator | None]] = {}

#: The keys of a core schema that hold values, not schemas: left as they are.
_NOT_SCHEMAS = frozenset({"cls", "config", "default", "function", "metadata", "serialization"})


def validate_wire(cls: type[_Model], data: Any, context: Mapping[str, Any]) -> _Model:
    """``cls.model_validate(data, context=context)`` for a manifest (``context`` is a wire context): the same
    model or the same ValidationError, without calling the validators marked :func:`wire_noop`.

    Every check of the rule catalogue validates its manifest (the schema rules); pydantic calling
    ``_none_means_unset`` on each of its ~20-60 models, only to return at once, was a sixth of the validation.
    """
    if _PENDING_MADE[0] or not context.get("pulumi_kuberay.wire"):
        # a pending model may be nested in ``data``: _none_means_unset must look for it
        return cls.model_validate(data, context=context)
    schema = cls.__pydantic_core_schema__
    kept = _WIRE_VALIDATORS.get(cls)
    if kept is None or kept[0] is not schema:
        try:
            kept = _WIRE_VALIDATORS[cls] = _wire_validator(cls)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            # the internals this reads (what pydantic built the class's validator from) changed shape in another
            # pydantic release: pydantic's own validator then, the same result at the old cost
            kept = _WIRE_VALIDATORS[cls] = (schema, None)
    if kept[1] is None:
        return cls.model_validate(data, context=context)
    validated: _Model = kept[1].validate_python(data, context=context)
    return validated


def _wire_validator(cls: type[BaseModel]) -> tuple[Any, SchemaValidator]:
    cls.model_rebuild()  # the validator and schema of a deferred model are built on first use
    # (SchemaValidator, (schema, config, ...)): what pydantic built the class's validator from
    built_from: tuple[Any, ...] = cls.__pydantic_validator__.__reduce__()[1]  # type: ignore[assignment]
    schema, config = built_from[:2]
    # Not the nested models' own (prebuilt) validators: they call the no-ops.
    return schema, SchemaValidator(_without_wire_noops(schema), config, _use_prebuilt=False)


def _without_wire_noops(schema: Any) -> Any:
    """A copy of the core ``schema`` where each function validator marked :func:`wire_noop` is replaced by the
    schema it wraps (which takes over its ``ref``, unless it has one: then the validator is kept)."""
    if isinstance(schema, list):
        return [_without_wire_noops(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if schema.get("type") in ("function-after", "function-before") and getattr(
        schema["function"]["function"], _WIRE_NOOP, False
    ):
        inner = _without_wire_noops(schema["schema"])
        if "ref" not in schema:
            return inner
        if "ref" not in inner:
            return {**inner, "ref": schema["ref"]}
    return {key: value if key in _NOT_SCHEMAS else _without_wire_noops(value) for key, value in schema.items()}


def render_map(values: Mapping[str, Any] | None) -> dict[str, str] | None:
    """Stringify a map of scalars exactly as KubeRay reads them (``True`` -> ``"true"``, ``0`` -> ``"0"``)."""
    if values is None:
        return None
    return {str(k): render_scalar(v) for k, v in values.items()}


def render_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    raise TypeError(f"expected a string, number or boolean, got {type(value).__name__}")


def iter_unique_duplicates(values: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    dups: list[str] = []
    for v in values:
        if v in seen and v not in dups:
            dups.append(v)
        seen.add(v)
    return dups


__all__ = [
    "Field",
    "JsonDict",
    "KubeModel",
    "Self",
    "holds_deferred",
    "render_map",
    "render_scalar",
    "validate_wire",
    "wire_noop",
]
