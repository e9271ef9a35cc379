"""Errors of the typed model: :class:`SpecError` (raised by validators, located at a field),
:class:`Problem` and :class:`ManifestError` (every problem of a document with its CRD field path), and the
turning of pydantic's locations into CRD field paths (``spec.workerGroupSpecs[1].minReplicas``).
"""

from __future__ import annotations

import re
import types
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError

from ..kuberay import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from ._quantity import QUANTITY_PATTERN, is_quantity_key, quantity_fix
from .suggest import did_you_mean

M = TypeVar("M", bound=BaseModel)


class SpecError(ValueError):
    """A semantic problem found by a model validator, located at ``field`` relative to the model raising it.

    Raise it from ``model_validator``/``field_validator`` code: the error formatter appends ``field`` to the
    pydantic location so the final path names the exact offending key, and shows ``fix``.
    """

    def __init__(self, message: str, *, field: str | None = None, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.fix = fix

    def __str__(self) -> str:
        return self.message if self.fix is None else f"{self.message}; fix: {self.fix}"


class KubeRayDeprecationWarning(DeprecationWarning):
    """A deprecated KubeRay field is used (it still loads, but KubeRay ignores it or will remove it)."""


# Shown by default (Python hides DeprecationWarning outside __main__, and a Pulumi program is library code to
# Python); only our own category is affected and users can still filter it.
warnings.filterwarnings("default", category=KubeRayDeprecationWarning)


ProblemKind = Literal["unknown_field", "wrong_type", "missing", "invalid_value"]


@dataclass(frozen=True)
class Problem:
    """One reason a document does not fit the model: where (CRD field path), what, and how to fix it."""

    path: str
    message: str
    kind: ProblemKind
    fix: str | None = None

    def __str__(self) -> str:
        text = f"{self.path}: {self.message}" if self.path else self.message
        return text if self.fix is None else f"{text} (fix: {self.fix})"


class ManifestError(ValueError):
    """A manifest (or typed args) that the CRD schema or the operator would reject.

    ``problems`` lists every problem found, each with its CRD field path (e.g.
    ``spec.workerGroupSpecs[1].minReplicas``); ``paths`` is the list of those paths.
    """

    def __init__(self, problems: Sequence[Problem], *, subject: str = "manifest") -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        self.subject = subject
        lines = [f"{subject} is invalid ({len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}):"]
        lines += [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines))

    @property
    def paths(self) -> list[str]:
        return [p.path for p in self.problems]


class ModelValidationError(ValidationError):
    """A model built from keywords (``WorkerGroupSpec(min_replicas="x")``) with bad values: still a pydantic
    :class:`~pydantic.ValidationError` (``errors()`` unchanged), printed as :class:`ManifestError` is, one line
    per problem with its field path and fix, and without pydantic's documentation URL."""

    #: The model whose field paths the problems name (set by :func:`with_suggestions`).
    model: type[BaseModel] | None = None

    def __str__(self) -> str:
        problems = self.problems
        count = len(problems)
        lines = [f"{self.title} is invalid ({count} problem{'s' if count != 1 else ''}):"]
        return "\n".join(lines + [f"  - {p}" for p in problems])

    @property
    def problems(self) -> list[Problem]:
        """Every problem, located by its field path as the keywords (and the dicts in them) spelt it."""
        model: type[BaseModel] | None = getattr(self, "model", None)
        return problems_from_validation_error(self, model, as_written=True)


def with_suggestions(
    exc: ValidationError, model: type[BaseModel], more: Sequence[ErrorDetails] = ()
) -> ValidationError:
    """``exc`` as a :class:`ModelValidationError`, with "did you mean ...?" added to unknown keyword errors
    (pydantic only says "Extra inputs are not permitted"); the error types and locations stay, so tools reading
    ``errors()`` are unaffected. ``more``: the errors found once ``exc``'s were out of the way
    (:func:`later_errors`)."""
    details: list[InitErrorDetails] = []
    for err in [*exc.errors(include_url=False), *more]:
        loc = tuple(err["loc"])
        if err["type"] == "extra_forbidden" and loc:
            _, parent = humanize_loc(model, loc[:-1])
            key = str(loc[-1])
            if isinstance(parent, type) and issubclass(parent, BaseModel):
                names = [n for n, i in parent.model_fields.items()]
                aliases = [i.alias for i in parent.model_fields.values() if i.alias]
                pool = aliases if key != key.lower() else names
                hint = did_you_mean(key, pool) or f"known fields: {', '.join(names)}"
                details.append(
                    InitErrorDetails(
                        type=PydanticCustomError(
                            "extra_forbidden", "unknown field '{field}': {hint}", {"field": key, "hint": hint}
                        ),
                        loc=loc,
                        input=err.get("input"),
                    )
                )
                continue
        detail = InitErrorDetails(type=err["type"], loc=loc, input=err.get("input"))
        if "ctx" in err:
            detail["ctx"] = err["ctx"]
        details.append(detail)
    try:
        rebuilt = ModelValidationError.from_exception_data(exc.title, details)
    except Exception:  # an error type that cannot be rebuilt: keep pydantic's own error
        return exc
    rebuilt.model = model  # the model whose field paths the problems name
    return rebuilt


#: What becomes of a field a model does not know, said of the one who reads it (a model class may say otherwise
#: in its ``UNKNOWN_FIELD_EFFECT``: Ray Serve reads the Serve config, not the API server).
UNKNOWN_FIELD_EFFECT = "the API server would silently drop it"


def unknown_field_effect(model: Any) -> str:
    """What becomes of an unknown field of ``model`` (the API server prunes it, Ray Serve ignores it...)."""
    effect = getattr(model, "UNKNOWN_FIELD_EFFECT", None) if isinstance(model, type) else None
    return effect if isinstance(effect, str) else UNKNOWN_FIELD_EFFECT


def _keyword_of(model: type[BaseModel], err: ErrorDetails, given: Mapping[str, Any]) -> str | None:
    """The keyword of ``given`` an error is about: the first step of its location, or of the field a model
    validator's :class:`SpecError` names (``minReplicas`` -> ``min_replicas``); None when it names none."""
    loc = err["loc"]
    first: Any = loc[0] if loc else None
    if first is None:
        cause = (err.get("ctx") or {}).get("error")
        field = cause.field if isinstance(cause, SpecError) else None
        first = re.split(r"[.\[]", field, maxsplit=1)[0] if field else None
    if not isinstance(first, str):
        return None
    if first in given:
        return first
    for name, info in model.model_fields.items():
        if first in (name, info.alias) and (name in given or info.alias in given):
            return name if name in given else info.alias
    return None


def later_errors(model: type[BaseModel], given: Mapping[str, Any], exc: ValidationError) -> list[ErrorDetails]:
    """The mistakes ``exc`` hid: pydantic stops a model at its field errors (its model validators never run) and
    at the first model validator that raises. Validating again without the keywords found wrong so far brings out
    the next ones, until the rest is valid or an error names no keyword: so one error lists every mistake."""
    found: list[ErrorDetails] = []
    seen = {(tuple(e["loc"]), e["msg"]) for e in exc.errors(include_url=False)}
    remaining = dict(given)
    removed: set[str] = set()
    latest = exc.errors(include_url=False)
    for _ in range(len(given)):
        keys = {key for err in latest if (key := _keyword_of(model, err, remaining)) is not None}
        if not keys:
            break
        removed |= keys
        for name, info in model.model_fields.items():  # a missing field is named by its alias
            if name in keys or info.alias in keys:
                removed |= {name, info.alias or name}
        remaining = {k: v for k, v in remaining.items() if k not in keys}
        try:
            with warnings.catch_warnings():  # the first validation warned already
                warnings.simplefilter("ignore")
                model.model_validate(remaining)
        except ValidationError as again:
            latest = []
            for err in again.errors(include_url=False):
                said = (tuple(err["loc"]), err["msg"])
                if said in seen or _keyword_of(model, err, given) in removed:
                    continue  # already said, or about a keyword taken out (missing, or a check it now fails)
                seen.add(said)
                latest.append(err)
            found += latest
            if not latest:
                break
        else:
            break
    return found


# --------------------------------------------------------------------------------------------------
# Turning pydantic's locations into CRD field paths.

_SCALAR_TAGS = {"int", "str", "float", "bool", "none", "list", "dict", "literal", "is-instance"}


def _strip_annotated(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _union_members(tp: Any) -> list[Any] | None:
    """The members of a union, nested unions flattened (``Annotated[A | B, Discriminator(...)] | None``: A, B,
    None), or None for a type that is no union."""
    origin = get_origin(tp)
    if origin is not Union and origin is not types.UnionType:
        return None
    members: list[Any] = []
    for arg in get_args(tp):
        arg = _strip_annotated(arg)
        members += _union_members(arg) or [arg]
    return members


def _model_field(model: type[BaseModel], key: str) -> tuple[str, Any] | None:
    for name, info in model.model_fields.items():
        if key in (name, info.alias, info.validation_alias):
            return (info.alias or name), info.annotation
    return None


def _tag_matches(tag: str, member: Any) -> bool:
    member = _strip_annotated(member)
    origin = get_origin(member) or member
    if isinstance(member, type) and issubclass(member, BaseModel):
        return tag == member.__name__
    names = {int: "int", str: "str", float: "float", bool: "bool", type(None): "none", list: "list", dict: "dict"}
    if origin in names:
        return tag == names[origin] or tag.startswith(names[origin] + "[")
    if origin is Literal:
        return tag.startswith("literal[")
    return False


def _looks_like_tag(seg: str) -> bool:
    return seg in _SCALAR_TAGS or "[" in seg or seg.startswith(("function-", "lax-", "constrained-", "strict-"))


def _fmt_key(key: str) -> str:
    return f"[{key!r}]" if not key.replace("-", "_").replace(".", "_").isidentifier() else f".{key}"


def humanize_loc(
    root: type[BaseModel] | None, loc: Sequence[int | str], *, as_written: bool = False
) -> tuple[str, Any]:
    """Map a pydantic error location onto a CRD field path; also return the type found at its end.

    ``as_written``: each field as the input spelt it (``min_replicas`` of a keyword), not by its CRD name."""
    parts: list[str] = []
    tp: Any = root
    for seg in loc:
        tp = _strip_annotated(tp)
        members = _union_members(tp)
        if members is not None:
            non_none = [m for m in members if m is not type(None)]
            if isinstance(seg, str) and any(_tag_matches(seg, m) for m in non_none) and len(non_none) > 1:
                tp = next(m for m in non_none if _tag_matches(seg, m))
                continue
            if len(non_none) == 1:
                tp = non_none[0]
            elif isinstance(seg, str) and _looks_like_tag(seg):
                tp = None
                continue
            else:
                models = [m for m in non_none if isinstance(m, type) and issubclass(m, BaseModel)]
                tp = models[0] if len(models) == 1 else None
        tp = _strip_annotated(tp)
        origin = get_origin(tp)
        if isinstance(seg, int):
            parts.append(f"[{seg}]")
            tp = get_args(tp)[0] if origin in (list, tuple, Sequence) and get_args(tp) else None
            continue
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            found = _model_field(tp, seg)
            if found is not None:
                alias, tp = found
                parts.append(f".{seg if as_written else alias}")
                continue
            if _looks_like_tag(seg) or seg == tp.__name__:
                continue
            parts.append(f".{seg}")
            tp = None
            continue
        if origin in (dict, Mapping):
            if seg.startswith("[") and seg.endswith("]"):
                continue  # pydantic's marker for "the key itself"
            parts.append(_fmt_key(seg))
            args = get_args(tp)
            tp = args[1] if len(args) == 2 else None
            continue
        if _looks_like_tag(seg):
            continue
        parts.append(_fmt_key(seg))
        tp = None
    tp = _strip_annotated(tp)
    members = _union_members(tp)
    if members is not None:
        non_none = [m for m in members if m is not type(None)]
        tp = non_none[0] if len(non_none) == 1 else tp
    return "".join(parts).lstrip("."), tp


_TYPE_WORDS = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "string_type": "a string",
    "float_type": "a number",
    "bool_type": "a boolean",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "none_required": "null",
}


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def _field_names(tp: Any) -> list[str]:
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [info.alias or name for name, info in tp.model_fields.items() if not info.exclude]
    return []


def _amount_key(loc: Sequence[int | str]) -> str:
    """The resource key (``cpu``, ``memory``, ``nvidia.com/gpu``) a location ends at, past pydantic's union
    member tags (``('limits', 'cpu', 'int')``), or ``""`` when it names no amount."""
    return next((seg for seg in reversed(loc[-2:]) if isinstance(seg, str) and is_quantity_key(seg)), "")


_BOUNDS = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}


def _bound_fix(etype: str, ctx: Mapping[str, Any]) -> str | None:
    """The fix of a value out of its field's bounds (``set a value >= 1``), or of a too short or long one."""
    if etype in _BOUNDS:
        bound = ctx.get({"greater_than": "gt", "greater_than_equal": "ge", "less_than": "lt", "less_than_equal": "le"}[etype])
        return f"set a value {_BOUNDS[etype]} {bound}" if bound is not None else None
    if etype in ("too_short", "string_too_short") and ctx.get("min_length") is not None:
        return f"give at least {ctx['min_length']} {'item' if etype == 'too_short' else 'character'}(s)"
    if etype in ("too_long", "string_too_long") and ctx.get("max_length") is not None:
        return f"give at most {ctx['max_length']} {'item' if etype == 'too_long' else 'character'}(s)"
    return None


#: The integer formats of the CRDs (``format: int32``) by their bounds (model._base.Int32, Int64).
_FORMAT_BOUNDS = {INT32_MIN: "int32", INT32_MAX: "int32", INT64_MIN: "int64", INT64_MAX: "int64"}


def _format_range_message(etype: str, err: Mapping[str, Any]) -> str | None:
    """The message of an integer outside its CRD format's range (``format: int32``), else None."""
    ctx = err.get("ctx") or {}
    bound = ctx.get("le", ctx.get("ge")) if etype in ("less_than_equal", "greater_than_equal") else None
    fmt = _FORMAT_BOUNDS.get(bound) if isinstance(bound, int) else None
    if fmt is None:
        return None
    return f"{err.get('input')} is outside the {fmt} range the CRD declares (format: {fmt}); the API server stores it, but KubeRay cannot decode the object (cannot unmarshal number into Go value of type {fmt}), so it is never reconciled"


def _choices(tp: Any, expected: Any) -> list[str]:
    """The allowed values of a ``Literal`` (or enum) field, from its type, else from pydantic's ``expected`` text
    (``"'a', 'b' or 'c'"``)."""
    tp = _strip_annotated(tp)
    members = _union_members(tp) or [tp]
    values = [str(a) for m in members if get_origin(m) is Literal for a in get_args(m)]
    if not values and isinstance(m := members[0], type) and issubclass(m, Enum):
        values = [str(e.value) for e in m]
    if not values and isinstance(expected, str):
        values = re.findall(r"'([^']*)'", expected)
    return values


def _python_names(tp: Any) -> list[str]:
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [name for name, info in tp.model_fields.items() if not info.exclude]
    return []


def _wrong_type_fix(given: Any, expected: list[str], amount_key: str) -> str | None:
    """The fix of a value of the wrong type: quoting, unquoting, or for an amount what its key counts."""
    if isinstance(given, bool) and amount_key:
        return quantity_fix(given, amount_key)  # true is no amount, and "true" no quantity either
    if "a string" in expected and isinstance(given, (int, float, bool)):
        return f'quote the value: "{given}"' if not isinstance(given, bool) else f'write "{str(given).lower()}"'
    if isinstance(given, str) and "an integer" in expected:
        return "write the number without quotes"
    return None


_FIELD_STEP = re.compile(r"([^.\[\]]+)|(\[[^\]]*\])")


def _field_as_written(model: Any, field: str, given: Any) -> str:
    """A validator's field path (CRD names: ``minReplicas``, ``template.spec.containers[0]``) spelt as the input
    spelt it: a keyword or a snake_case dict by its Python name (``min_replicas``), a camelCase dict by the CRD's."""
    steps: list[str] = []
    for name, index in _FIELD_STEP.findall(field):
        if index:
            steps.append(index)
            model = _strip_annotated(model)
            args = get_args(model) if get_origin(model) in (list, tuple, Sequence) else ()
            model = args[0] if args else None
            number = index[1:-1]
            listed = isinstance(given, (list, tuple)) and number.isdigit() and int(number) < len(given)
            given = given[int(number)] if listed else None
            continue
        members = _union_members(_strip_annotated(model)) or [_strip_annotated(model)]
        models = [m for m in members if isinstance(m, type) and issubclass(m, BaseModel)]
        fields = models[0].model_fields if models else {}
        found = next(((n, i) for n, i in fields.items() if name in (n, i.alias)), None)
        if found is None:
            steps.append(f".{name}")
            model, given = None, None
            continue
        python, info = found
        crd = info.alias or python
        spelt_crd = isinstance(given, Mapping) and (crd in given or (python not in given and any(
            i.alias in given and i.alias != n for n, i in fields.items())))
        steps.append(f".{crd if spelt_crd else python}")
        model = info.annotation
        given = given.get(crd, given.get(python)) if isinstance(given, Mapping) else getattr(given, python, None)
    return "".join(steps).lstrip(".")


def problems_from_validation_error(
    exc: ValidationError, root: type[BaseModel] | None, *, prefix: str = "", as_written: bool = False
) -> list[Problem]:
    """Convert a pydantic ValidationError into path-located problems, merging union alternatives (``as_written``:
    paths spelt as the input spelt them, see :func:`humanize_loc`)."""
    merged: dict[tuple[str, str], Problem] = {}
    expected: dict[str, list[str]] = {}
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        etype = err["type"]
        path, end_tp = humanize_loc(root, loc, as_written=as_written)
        fix: str | None = None
        kind: ProblemKind
        if etype == "extra_forbidden":
            _, parent_tp = humanize_loc(root, loc[:-1])
            key = str(loc[-1])
            names = _field_names(parent_tp)
            kind = "unknown_field"
            message = f"unknown field {key!r} ({unknown_field_effect(parent_tp)})"
            # a snake_case slip is a Python keyword's (``min_replica``): offer the Python name
            pool = _python_names(parent_tp) if "_" in key and key == key.lower() else names
            fix = did_you_mean(key, pool) or did_you_mean(key, names) or (
                f"remove it; known fields here: {', '.join(names)}" if names else "remove it"
            )
        elif etype == "missing":
            kind = "missing"
            message = "required field is missing"
            fix = "set it"
        elif etype in _TYPE_WORDS:
            kind = "wrong_type"
            expected.setdefault(path, [])
            word = _TYPE_WORDS[etype]
            if word not in expected[path]:
                expected[path].append(word)
            message = f"expected {' or '.join(expected[path])}, got {_describe(err.get('input'))}"
            fix = _wrong_type_fix(err.get("input"), expected[path], _amount_key(loc))
        elif etype in ("literal_error", "enum"):
            kind = "invalid_value"
            choices = _choices(end_tp, (err.get("ctx") or {}).get("expected"))
            given = err.get("input")
            message = f"{given!r} is not one of {', '.join(repr(c) for c in choices)}" if choices else err["msg"]
            guess = did_you_mean(str(given), choices) if isinstance(given, str) else None
            fix = guess or (f"use one of {', '.join(choices)}" if choices else None)
        elif etype == "string_pattern_mismatch" and (err.get("ctx") or {}).get("pattern") == QUANTITY_PATTERN:
            kind = "invalid_value"
            message = f"{err.get('input')!r} is not a Kubernetes quantity"
            key = _amount_key(loc)
            fix = quantity_fix(err.get("input"), key) if key else (
                "write a number or a quantity such as 500m, 2, 1.5, 16Gi"
            )
        else:
            kind = "invalid_value"
            cause = (err.get("ctx") or {}).get("error")
            if isinstance(cause, SpecError):
                if cause.field:
                    field = _field_as_written(end_tp, cause.field, err.get("input")) if as_written else cause.field
                    path = f"{path}.{field}" if path else field
                    path = path.replace(".[", "[")
                message = cause.message
                fix = cause.fix
            else:
                message = _format_range_message(etype, err) or err["msg"].removeprefix("Value error, ")
                fix = _bound_fix(etype, err.get("ctx") or {})
        full = f"{prefix}.{path}".strip(".") if prefix else path
        full = full.replace(".[", "[")
        merged[(full, kind)] = Problem(path=full, message=message, kind=kind, fix=fix)
    # A union member that matched the type but not its constraint explains the problem better than the
    # members whose type did not match ("not a quantity" beats "expected an integer" for cpu: "two").
    constrained = {path for path, kind in merged if kind == "invalid_value"}
    return [p for (path, kind), p in merged.items() if not (kind == "wrong_type" and path in constrained)]


def validate_as(model: type[M], data: Any, *, prefix: str = "", subject: str | None = None) -> M:
    """Validate ``data`` as ``model`` or raise :class:`ManifestError` with CRD field paths."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ManifestError(
            problems_from_validation_error(exc, model, prefix=prefix), subject=subject or model.__name__
        ) from exc


