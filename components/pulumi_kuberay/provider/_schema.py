"""The Pulumi package schema of the component package, generated from the code (never written by hand).

One place per concept: the spec types come from the pydantic models (their JSON schema in validation mode:
CRD field names, the Python-only conveniences such as ``image``/``cpu``, docstrings as descriptions, ``Literal``
values as enums, fields marked ``json_schema_extra={"secret": True}`` as secrets); the keyword inputs come from
the components' ``__init__`` signatures (and the ``ObjectKeywords`` / ``WorkloadKeywords`` TypedDicts with their
attribute docstrings); the outputs are the ``pulumi.Output[...]`` attributes the component classes declare. A new
field, keyword or output is in the schema without an edit here.

Shapes the JSON schema has and Pulumi's has too: objects, maps (``additionalProperties``), arrays, ``$ref``,
unions (``oneOf``: ``int | str`` quantities, ``ServeConfig | str``), enums (a named type per ``Literal`` field,
``<Type><Field>``). ``int | float`` is ``number``; a value without a type (``Any``) is ``pulumi.json#/Any``.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import inspect
import re
import textwrap
import types
import typing
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from pulumi_kuberay.model import lower_camel_keep_case

JsonDict = dict[str, Any]

#: The package name: the wheel ``pulumi-kuberay`` without Pulumi's ``pulumi-`` prefix, as Pulumi names its own
#: packages (``pulumi-kubernetes`` is package ``kubernetes``); the components' type tokens use it already.
PACKAGE = "kuberay"
WHEEL = "pulumi-kuberay"
ANY = "pulumi.json#/Any"


def package_version() -> str:
    """The wheel's version (``importlib.metadata``), so the package and the wheel never disagree."""
    return importlib.metadata.version(WHEEL)


def type_token(name: str) -> str:
    return f"{PACKAGE}:index:{name}"


def type_ref(name: str) -> str:
    return f"#/types/{type_token(name)}"


def resource_ref(name: str) -> str:
    return f"#/resources/{type_token(name)}"


# --------------------------------------------------------------------------------------------------
# What the package serves.


@dataclass(frozen=True)
class ComponentEntry:
    """One component of the package: its class, the model of its spec, and how its inputs are laid out."""

    kind: str
    component: type
    spec_model: type[BaseModel]
    spec_input: str | None
    """Name of the input holding the spec (``spec``); ``None``: the model's fields are the inputs themselves."""


def components() -> list[ComponentEntry]:
    """The five components (imported on first use: this pulls in pulumi)."""
    from pulumi_kuberay.model.cluster import RayClusterSpec
    from pulumi_kuberay.model.cronjob import RayCronJobSpec
    from pulumi_kuberay.model.job import RayJobSpec
    from pulumi_kuberay.model.service import RayServiceSpec
    from pulumi_kuberay.operator.args import KubeRayOperatorArgs
    from pulumi_kuberay.resources.cluster import RayCluster
    from pulumi_kuberay.resources.cronjob import RayCronJob
    from pulumi_kuberay.resources.job import RayJob
    from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator
    from pulumi_kuberay.resources.service import RayService

    return [
        ComponentEntry("RayCluster", RayCluster, RayClusterSpec, "spec"),
        ComponentEntry("RayJob", RayJob, RayJobSpec, "spec"),
        ComponentEntry("RayService", RayService, RayServiceSpec, "spec"),
        ComponentEntry("RayCronJob", RayCronJob, RayCronJobSpec, "spec"),
        ComponentEntry("KubeRayOperator", KubeRayOperator, KubeRayOperatorArgs, None),
    ]


#: Descriptions of the keyword parameters that are not in a TypedDict (so have no attribute docstring).
KEYWORD_DESCRIPTIONS = {
    "wait_for_ready": "Wait in `pulumi up` until the object is ready (default true).",
    "wait_for_completion": "Wait in `pulumi up` until the job finishes (default false).",
    "fail_on_job_failure": "With waitForCompletion: a failed job fails the update (default true).",
    "cluster": "A RayCluster of this program to run the job on (sets clusterSelector and the namespace).",
    "create_namespace": "Create the operator's namespace (default true).",
    "environment": "`dev` / `staging` / `prod` (default: stack config `kuberay:environment`).",
    "admission_policies": "Install the rule catalogue's ValidatingAdmissionPolicies: true (the policy pack's levels: Deny what it blocks, Warn about the rest), `warn`, `audit` (default false).",
}

#: Keyword parameters the component takes in Python that the package does not offer, and why.
PYTHON_ONLY_KEYWORDS = {
    "args": "the spec input",
}


# --------------------------------------------------------------------------------------------------
# Python annotations (keywords and outputs) -> Pulumi type specs.


def _drop_deferred(options: Sequence[Any]) -> list[Any]:
    """The members of an ``Input[T]`` union that are not ``Awaitable[T]`` / ``Output[T]``."""
    import pulumi

    kept = []
    for option in options:
        origin = get_origin(option)
        if origin is Awaitable or origin is pulumi.Output or option is pulumi.Output:
            continue
        if isinstance(option, typing.ForwardRef) and "Output" in option.__forward_arg__:
            continue
        kept.append(option)
    return kept


def python_type_spec(annotation: Any, where: str) -> tuple[JsonDict, bool]:
    """The Pulumi type spec of a Python annotation and whether ``None`` is allowed; raises on a type the
    package cannot express (so no input or output is left untyped)."""
    import pulumi

    origin = get_origin(annotation)
    if origin is pulumi.Output:
        return python_type_spec(get_args(annotation)[0], where)
    if origin in (Union, types.UnionType):
        options = _drop_deferred(get_args(annotation))
        optional = type(None) in options
        options = [o for o in options if o is not type(None)]
        if len(options) == 1:
            spec, inner_optional = python_type_spec(options[0], where)
            return spec, optional or inner_optional
        specs = [python_type_spec(o, where)[0] for o in options]
        if all(s.get("type") == "string" and "enum" not in s for s in specs):
            return {"type": "string"}, optional
        return {"oneOf": specs}, optional
    if annotation is str:
        return {"type": "string"}, False
    if annotation is bool:
        return {"type": "boolean"}, False
    if annotation is int:
        return {"type": "integer"}, False
    if annotation is float:
        return {"type": "number"}, False
    if annotation is Any:
        return {"$ref": ANY}, True
    if origin is Literal:
        return {"type": "string"}, False
    if typing.is_typeddict(annotation):
        # A record output (``last_change``): a map, its keys documented on the Python TypedDict; a named object
        # type would tie every language's SDK to a record that grows with the plan.
        return {"type": "object", "additionalProperties": {"$ref": ANY}}, False
    if origin in (dict, Mapping, typing.Mapping) or annotation is dict:
        args = get_args(annotation)
        value = python_type_spec(args[1], where)[0] if args else {"$ref": ANY}
        return {"type": "object", "additionalProperties": value}, False
    if origin in (list, tuple, Sequence, typing.Sequence):
        args = get_args(annotation)
        return {"type": "array", "items": python_type_spec(args[0], where)[0]}, False
    if inspect.isclass(annotation) and issubclass(annotation, pulumi.Resource):
        return {"$ref": resource_ref(annotation.__name__)}, False
    raise TypeError(f"{where}: the component package cannot express the Python type {annotation!r}")


def _attribute_docstrings(cls: type) -> dict[str, str]:
    """``name: T`` followed by a string literal, in the class body (pydantic's use_attribute_docstrings, for
    a TypedDict)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):
        return {}
    out: dict[str, str] = {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    for node, after in zip(body, [*body[1:], None], strict=True):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            out[node.target.id] = inspect.cleandoc(after.value.value)
    return out


class _InputNames(dict[str, Any]):
    """Names that ``pulumi.Input``'s own forward reference ``'Output[T]'`` needs to evaluate (imports pulumi), and
    the names the components annotate with under ``TYPE_CHECKING`` only."""

    def __missing__(self, key: str) -> Any:
        import pulumi

        if key == "Output":
            return pulumi.Output
        if key == "T":
            return Any
        if key == "KubeRayOperator":  # the components' operator= keyword (imported by _component only to type-check)
            from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator

            return KubeRayOperator
        raise KeyError(key)


_INPUT_NAMES = _InputNames()


@functools.cache
def keyword_inputs(component: type) -> dict[str, tuple[Any, str]]:
    """The keyword parameters of ``component.__init__`` (a ``**keywords: Unpack[TypedDict]`` expanded):
    ``{python name: (annotation, description)}``."""
    init = component.__init__  # type: ignore[misc]
    # The annotations in the order of the parameters (the signature help() shows spells the keywords out).
    hints = typing.get_type_hints(init, localns=_INPUT_NAMES)
    out: dict[str, tuple[Any, str]] = {}
    for param_name, hint in hints.items():
        if param_name in ("self", "name", "opts", "return") or param_name in PYTHON_ONLY_KEYWORDS:
            continue
        if get_origin(hint) is typing.Unpack:
            typed_dict = get_args(hint)[0]
            docs: dict[str, str] = {}
            for base in reversed(typed_dict.__mro__):
                docs.update(_attribute_docstrings(base))
            for key, annotation in typing.get_type_hints(typed_dict, localns=_INPUT_NAMES).items():
                out[key] = (annotation, docs.get(key, ""))
        else:
            out[param_name] = (hint, KEYWORD_DESCRIPTIONS.get(param_name, ""))
    return out


@functools.cache
def declared_outputs(component: type) -> dict[str, str]:
    """``{python name: annotation source}`` of the ``pulumi.Output[...]`` attributes the class and its bases
    declare (in the class body, including ``if TYPE_CHECKING:`` blocks), public names only."""
    out: dict[str, str] = {}
    for cls in reversed(component.__mro__):
        if not cls.__module__.startswith("pulumi_kuberay."):
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
        body = tree.body[0].body if isinstance(tree.body[0], ast.ClassDef) else []
        nodes: list[ast.stmt] = []
        for node in body:
            nodes.extend(node.body if isinstance(node, ast.If) else [node])
        for node in nodes:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                source = ast.unparse(node.annotation)
                if source.startswith(("pulumi.Output[", "Output[")) and not node.target.id.startswith("_"):
                    out[node.target.id] = source
    return out


def output_annotation(component: type, source: str) -> Any:
    """Evaluate an output's annotation in the namespace of the module that declares it."""
    import sys

    for cls in component.__mro__:
        module = sys.modules.get(cls.__module__)
        if module is None:
            continue
        try:
            return eval(source, dict(vars(module)))
        except NameError:
            continue
    raise TypeError(f"{component.__name__}: cannot evaluate the output annotation {source!r}")


# --------------------------------------------------------------------------------------------------
# The models' JSON schema -> Pulumi types.


def _enum_member_name(value: Any, taken: set[str]) -> str:
    words = re.findall(r"[A-Za-z0-9]+", str(value))
    name = "".join(w[:1].upper() + w[1:] for w in words) or "Empty"
    if name[0].isdigit():
        name = "V" + name
    base, n = name, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
    return name


_ROLE = re.compile(r":(class|func|meth|data|mod|attr|exc|obj):`(~?)([^`]+)`")


def markdown(text: str) -> str:
    """A docstring as Markdown, what TypeScript, YAML and Go users read in the schema: Sphinx roles
    (``:class:`~pulumi_kuberay.RayClusterSpec```) become code spans of the name (`` `RayClusterSpec` ``), reST's
    double backticks single ones."""

    def role(match: re.Match[str]) -> str:
        kind, short, target = match.groups()
        name = target.rsplit(".", 1)[-1] if short else target
        return f"`{name}()`" if kind in ("func", "meth") else f"`{name}`"

    return _ROLE.sub(role, inspect.cleandoc(text)).replace("``", "`")


class _Translator:
    """JSON schema (pydantic, validation mode, one ``$defs``) -> Pulumi ``types``."""

    def __init__(self, defs: Mapping[str, JsonDict]) -> None:
        self.defs = defs
        self.types: dict[str, JsonDict] = {}

    def object_type(self, name: str) -> None:
        if type_token(name) in self.types:
            return
        node = self.defs[name]
        if "enum" in node:  # a str Enum class
            self.types[type_token(name)] = self._enum(node["enum"], node.get("description"))
            return
        spec: JsonDict = {"type": "object", "properties": {}}
        self.types[type_token(name)] = spec  # before the walk: recursive types refer to themselves
        if node.get("description"):
            spec["description"] = markdown(node["description"])
        for prop, sub in (node.get("properties") or {}).items():
            spec["properties"][prop] = self.property(sub, name, prop)
        required = [p for p in node.get("required") or [] if p in spec["properties"]]
        if required:
            spec["required"] = required

    def property(self, node: JsonDict, owner: str, prop: str) -> JsonDict:
        out = self.type_spec(node, owner, prop)
        if node.get("description"):
            out["description"] = markdown(node["description"])
        if node.get("secret"):
            out["secret"] = True
        return out

    def _enum(self, values: Sequence[Any], description: str | None) -> JsonDict:
        kinds = {type(v) for v in values}
        if kinds <= {str}:
            kind = "string"
        elif kinds <= {int}:
            kind = "integer"
        elif kinds <= {bool}:
            kind = "boolean"
        else:
            kind = "number"
        taken: set[str] = set()
        enum = {"type": kind, "enum": [{"name": _enum_member_name(v, taken), "value": v} for v in values]}
        if description:
            enum["description"] = markdown(description)
        return enum

    def type_spec(self, node: JsonDict, owner: str, prop: str) -> JsonDict:
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            self.object_type(name)
            return {"$ref": type_ref(name)}
        if "oneOf" in node:  # a discriminated union (serveConfigV2: a Serve config or its YAML string)
            return self.type_spec({"anyOf": node["oneOf"]}, owner, prop)
        if "anyOf" in node:
            options = [o for o in node["anyOf"] if o.get("type") != "null"]
            if len(options) == 1:
                return self.type_spec(options[0], owner, prop)
            if {o.get("type") for o in options} == {"integer", "number"} and all(len(o) == 1 for o in options):
                return {"type": "number"}
            return {"oneOf": [self.type_spec(o, owner, prop) for o in options]}
        if "enum" in node or "const" in node:
            values = node["enum"] if "enum" in node else [node["const"]]
            name = owner + "".join(part[:1].upper() + part[1:] for part in prop.split("_"))
            if type_token(name) not in self.types:
                self.types[type_token(name)] = self._enum(values, f"Values of `{owner}.{prop}`.")
            return {"$ref": type_ref(name)}
        kind = node.get("type")
        if kind in ("string", "integer", "number", "boolean"):
            return {"type": kind}
        if kind == "array":
            return {"type": "array", "items": self.type_spec(node.get("items") or {}, owner, prop)}
        if kind == "object":
            extra = node.get("additionalProperties")
            if isinstance(extra, dict) and extra:
                return {"type": "object", "additionalProperties": self.type_spec(extra, owner, prop)}
            return {"type": "object", "additionalProperties": {"$ref": ANY}}
        if not node or set(node) <= {"default", "description", "title"}:
            return {"$ref": ANY}
        raise TypeError(f"{owner}.{prop}: no Pulumi type for the JSON schema {node!r}")


def _model_defs(models: Sequence[type[BaseModel]]) -> dict[str, JsonDict]:
    _, top = models_json_schema([(m, "validation") for m in models], by_alias=True, ref_template="#/$defs/{model}")
    defs: dict[str, JsonDict] = top.get("$defs", {})
    clashes = [name for name in defs if "__" in name]
    if clashes:
        raise TypeError(f"two models share a class name (pydantic qualified them): {', '.join(clashes)}")
    return defs


# --------------------------------------------------------------------------------------------------
# The package schema.


@functools.cache
def package_schema() -> JsonDict:
    """The whole package schema (a JSON-able dict), built once per process."""
    entries = components()
    translator = _Translator(_model_defs([e.spec_model for e in entries]))
    resources: dict[str, JsonDict] = {}
    for entry in entries:
        inputs: dict[str, JsonDict] = {}
        required: list[str] = []
        if entry.spec_input is not None:
            translator.object_type(entry.spec_model.__name__)
            inputs[entry.spec_input] = {
                "$ref": type_ref(entry.spec_model.__name__),
                "description": f"The {entry.kind} spec (CRD field names; `{entry.spec_model.__name__}`).",
            }
            required.append(entry.spec_input)
        else:
            model_type = translator.defs[entry.spec_model.__name__]
            for prop, sub in (model_type.get("properties") or {}).items():
                inputs[prop] = translator.property(sub, entry.spec_model.__name__, prop)
        for key, (annotation, description) in keyword_inputs(entry.component).items():
            if lower_camel_keep_case(key) in inputs:
                continue  # KubeRayOperator: a keyword that sets the args model's field of the same name
            spec, _ = python_type_spec(annotation, f"{entry.kind}({key}=)")
            if description:
                spec["description"] = markdown(description)
            inputs[lower_camel_keep_case(key)] = spec
        outputs: dict[str, JsonDict] = {}
        required_outputs: list[str] = []
        for key, source in declared_outputs(entry.component).items():
            spec, optional = python_type_spec(output_annotation(entry.component, source), f"{entry.kind}.{key}")
            outputs[lower_camel_keep_case(key)] = spec
            if not optional:
                required_outputs.append(lower_camel_keep_case(key))
        doc = markdown(entry.component.__doc__ or "")
        resource: JsonDict = {"isComponent": True, "description": doc, "inputProperties": inputs}
        if required:
            resource["requiredInputs"] = required
        resource["properties"] = outputs
        if required_outputs:
            resource["required"] = sorted(required_outputs)
        resources[type_token(entry.kind)] = resource
    return {
        "name": PACKAGE,
        "displayName": "KubeRay",
        "version": package_version(),
        "description": "KubeRay RayClusters, RayJobs, RayServices, RayCronJobs and the operator, checked at preview.",
        "keywords": ["kubernetes", "ray", "kuberay", "category/cloud", "kind/component"],
        "homepage": "https://github.com/pulumi-kuberay/pulumi-kuberay",
        "repository": "https://github.com/pulumi-kuberay/pulumi-kuberay",
        "license": "Apache-2.0",
        "resources": resources,
        "types": dict(sorted(translator.types.items())),
        "language": {
            # The Go SDK is a module of its own (scripts/engine/pulumi-language-go writes its go.mod): module
            # github.com/pulumi-kuberay/pulumi-kuberay/sdk/go, the package one directory below.
            "go": {"importBasePath": "github.com/pulumi-kuberay/pulumi-kuberay/sdk/go/kuberay", "respectSchemaVersion": True},
            "nodejs": {"packageName": "@pulumi-kuberay/kuberay", "respectSchemaVersion": True},
            "python": {"packageName": "pulumi_kuberay_sdk", "respectSchemaVersion": True},
        },
    }


__all__ = ["PACKAGE", "ComponentEntry", "components", "declared_outputs", "keyword_inputs", "package_schema"]
