"""The public API of ``pulumi_kuberay``: every name in ``__all__`` imports, and the lazy map (PEP 562, what runs)
and the ``TYPE_CHECKING`` imports (what mypy and editors see) name the same objects from the same modules."""

from __future__ import annotations

import ast
import importlib
import inspect
import pydoc
import subprocess
import sys
import textwrap
import typing
from pathlib import Path
from typing import Any

import pulumi_kuberay
import pytest
from pydantic import BaseModel

INIT = Path(pulumi_kuberay.__file__)


def _type_checking_imports() -> dict[str, str]:
    """``{exported name: module}`` from the ``if TYPE_CHECKING:`` block of ``pulumi_kuberay/__init__.py``."""
    tree = ast.parse(INIT.read_text())
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module, ast.dump(statement)
                for alias in statement.names:
                    assert alias.asname == alias.name, f"re-export {alias.name} as itself (mypy's explicit export)"
                    out[alias.name] = f"{statement.module}.{alias.name}"
    return out


def test_lazy_map_and_type_checking_imports_are_in_sync() -> None:
    lazy = {name: f"{module}.{name}" for name, module in pulumi_kuberay._LAZY.items()}
    stubs = _type_checking_imports()
    stubs.pop("rules")  # the rules package itself, not a name from a module
    assert stubs == lazy
    assert sorted(pulumi_kuberay.__all__) == sorted([*lazy, "rules"])


@pytest.mark.parametrize("name", pulumi_kuberay.__all__)
def test_every_exported_name_imports(name: str) -> None:
    value = getattr(pulumi_kuberay, name)
    assert value is not None
    if name != "rules":
        assert value is getattr(importlib.import_module(pulumi_kuberay._LAZY[name]), name)


def test_the_core_never_imports_pulumi() -> None:
    """Models, rules and the CLIs load without pulumi (a fresh interpreter: this one has it loaded already)."""
    names = [n for n, module in pulumi_kuberay._LAZY.items() if not module.startswith("pulumi_kuberay.resources")]
    code = (
        "import sys, pulumi_kuberay as kr\n"
        f"for name in {names!r}: getattr(kr, name)\n"
        "import pulumi_kuberay.rules, pulumi_kuberay.cli.lint, pulumi_kuberay.cli.explain\n"
        "kr.rules.check({'apiVersion': 'ray.io/v1', 'kind': 'RayCluster', 'metadata': {'name': 'x'}, 'spec': {}})\n"
        "assert 'pulumi' not in sys.modules, sorted(m for m in sys.modules if m.startswith('pulumi.'))[:5]\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_every_exported_name_is_type_checked(tmp_path: Path) -> None:
    """mypy sees every public name with its real type (an unknown or Any re-export fails under --strict)."""
    api = pytest.importorskip("mypy.api")
    probe = tmp_path / "probe.py"
    lines = ["from __future__ import annotations", "import pulumi_kuberay as kr"]
    lines += [f"reveal_type(kr.{name})" for name in pulumi_kuberay.__all__]
    probe.write_text("\n".join(lines) + "\n")
    # The project's own options (pyproject.toml: strict, the pydantic plugin) and so its cache, which scripts/test's
    # mypy run has just filled: other options would make mypy re-check every imported module (~20 s of CPU) and
    # leave the cache stale for the next run. Errors in the imported modules are then reported too (stricter).
    config = str(Path(__file__).resolve().parent.parent / "pyproject.toml")
    stdout, stderr, _exit_status = api.run(["--config-file", config, str(probe)])
    revealed = [line for line in stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == len(pulumi_kuberay.__all__), stdout + stderr
    untyped = [line for line in revealed if line.endswith('Revealed type is "Any"')]
    assert untyped == []
    assert [line for line in stdout.splitlines() if ": error:" in line] == [], stdout


# ------------------------------------------------------------------------------------------------------------
# The API explains itself: every type of a public signature importable, help() of the components, descriptions


def _classes_in(annotation: Any, found: set[type]) -> None:
    """The package's classes an annotation names (unions, generics, Unpack[TypedDict] walked into)."""
    if typing.is_typeddict(annotation):
        for value in typing.get_type_hints(annotation, localns=_names_for_hints()).values():
            _classes_in(value, found)
        return
    if isinstance(annotation, type):
        generic = getattr(annotation, "__pydantic_generic_metadata__", None) or {}
        annotation = generic.get("origin") or annotation  # KubeManifest[Any] is KubeManifest
        if annotation.__module__.startswith("pulumi_kuberay"):
            found.add(annotation)
        return
    for arg in typing.get_args(annotation):
        _classes_in(arg, found)


def _names_for_hints() -> dict[str, Any]:
    import pulumi

    return {**vars(pulumi), "pulumi": pulumi, "T": Any, "KubeRayOperator": pulumi_kuberay.KubeRayOperator}


def _public_signature_types() -> dict[type, str]:
    found: dict[type, str] = {}
    for name in pulumi_kuberay.__all__:
        obj = getattr(pulumi_kuberay, name)
        callables: list[Any] = []
        if inspect.isclass(obj):
            callables.append(obj.__init__)
            callables += [getattr(obj, a) for a, m in vars(obj).items() if not a.startswith("_") and inspect.isfunction(m)]
            for field_name, info in getattr(obj, "model_fields", {}).items():
                types: set[type] = set()
                _classes_in(info.annotation, types)
                found.update({t: f"{name}.{field_name}" for t in types})
        elif callable(obj):
            callables.append(obj)
        for function in callables:
            if getattr(function, "__module__", "").startswith("pydantic"):
                continue
            types = set()
            for hint in typing.get_type_hints(function, localns=_names_for_hints()).values():
                _classes_in(hint, types)
            found.update({t: f"{name}.{function.__name__}" for t in types})
    return found


def test_every_type_in_a_public_signature_is_importable_from_the_package() -> None:
    """A type a public class, function or field names (``KubeRayOperator(args: KubeRayOperatorArgs)``) is
    ``pulumi_kuberay.<its name>``."""
    found = _public_signature_types()
    assert len(found) > 100
    missing = {f"{t.__module__}.{t.__qualname__}": where for t, where in found.items() if getattr(pulumi_kuberay, t.__name__, None) is not t}
    missing = {k: v for k, v in missing.items() if not k.startswith("pulumi_kuberay.resources._component.")}  # the keyword TypedDicts: walked into
    assert missing == {}
    assert pulumi_kuberay.KubeRayOperatorArgs in found


COMPONENTS = ["RayCluster", "RayJob", "RayService", "RayCronJob", "KubeRayOperator"]


@pytest.mark.parametrize("name", COMPONENTS)
def test_help_of_a_component_shows_its_own_parameters_their_meaning_and_an_example(name: str) -> None:
    component = getattr(pulumi_kuberay, name)
    text = pydoc.plain(pydoc.render_doc(component))
    assert ":param str t: The type of this resource" not in text  # pulumi.ComponentResource.__init__'s
    assert "**keywords" not in text and "Unpack[" not in text
    parameters = [p for p in inspect.signature(component).parameters.values()]
    assert parameters[0].name == "name" and all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in parameters)
    doc = component.__init__.__doc__
    for parameter in parameters:
        line = next((line for line in doc.splitlines() if line.startswith(f"    {parameter.name}: ")), None)
        assert line is not None and len(line) > len(parameter.name) + 20, f"{name}({parameter.name}=) has no meaning"
    assert "Example::" in doc and f"kr.{name}(" in doc
    assert "namespace" in [p.name for p in parameters]


@pytest.mark.parametrize("name", COMPONENTS)
def test_the_example_of_a_component_runs(name: str) -> None:
    """The example help() shows is a program that constructs the component (under unit-test mocks)."""
    from _pulumi_mocks import mock_env

    doc = getattr(pulumi_kuberay, name).__init__.__doc__
    example = textwrap.dedent(doc.split("Example::", 1)[1])
    for _ in mock_env():
        namespace: dict[str, Any] = {}
        exec(compile(example, f"<help({name}) example>", "exec"), namespace)
        assert any(type(v).__name__ == name for v in namespace.values())


ARGS_CLASSES = [
    "RayClusterSpec",
    "RayJobSpec",
    "RayServiceSpec",
    "RayCronJobSpec",
    "ServeConfig",
    "KubeRayOperatorArgs",
    "KubeRayOperatorValues",
]


@pytest.mark.parametrize("name", ARGS_CLASSES)
def test_help_of_an_args_class_shows_its_fields_their_meaning_and_an_example(name: str) -> None:
    model = getattr(pulumi_kuberay, name)
    text = pydoc.plain(pydoc.render_doc(model))
    assert "Example" in text and "(no description)" not in text
    assert all(f"    {field}" in model.__doc__ for field in model.model_fields)
    assert [p.name for p in inspect.signature(model).parameters.values()] != []


def _public_models() -> list[type[BaseModel]]:
    """Every model reachable from the package's public names, except the generated Kubernetes core types
    (``model._k8s``: Kubernetes' own, documented by Kubernetes; the CRDs ship without descriptions)."""
    seen: dict[type, None] = {}

    def visit(model: type[BaseModel]) -> None:
        if model in seen or model.__module__ == "pulumi_kuberay.model._k8s":
            return
        seen[model] = None
        for info in model.model_fields.values():
            types: set[type] = set()
            _classes_in(info.annotation, types)
            for found in types:
                if issubclass(found, BaseModel):
                    visit(found)

    for name in pulumi_kuberay.__all__:
        obj = getattr(pulumi_kuberay, name)
        if isinstance(obj, type) and issubclass(obj, BaseModel):
            visit(obj)
    return list(seen)


def test_every_field_of_the_public_models_has_a_description() -> None:
    models = _public_models()
    assert pulumi_kuberay.RayServiceSpec in models and pulumi_kuberay.KubeRayOperatorValues in models
    undocumented = [f"{m.__name__}.{f}" for m in models for f, info in m.model_fields.items() if not info.description]
    assert undocumented == []
    assert pulumi_kuberay.RayServiceSpec.model_fields["upgrade_strategy"].description
