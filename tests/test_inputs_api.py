"""The flat namespace: every public type importable from ``pulumi_kuberay``, the lazy map and the
type-checking imports in ``__init__.py`` naming the same objects."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pulumi_kuberay

INIT = Path(pulumi_kuberay.__file__)


def _type_checking_imports() -> dict[str, str]:
    tree = ast.parse(INIT.read_text())
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    for alias in stmt.names:
                        found[alias.asname or alias.name] = (
                            stmt.module if stmt.module != "pulumi_kuberay" else f"pulumi_kuberay.{alias.name}"
                        )
    return found


def test_lazy_map_and_type_checking_imports_agree() -> None:
    lazy = dict(pulumi_kuberay._LAZY)
    stubs = _type_checking_imports()
    assert stubs.pop("rules") == "pulumi_kuberay.rules"
    assert stubs == lazy


def test_every_exported_name_is_the_object_of_its_module() -> None:
    for name, module in pulumi_kuberay._LAZY.items():
        assert getattr(pulumi_kuberay, name) is getattr(importlib.import_module(module), name), name
    assert sorted(pulumi_kuberay.__all__) == sorted([*pulumi_kuberay._LAZY, "rules"])


def test_the_types_a_spec_needs_are_exported() -> None:
    for name in ("Toleration", "SecurityContext", "Volume", "VolumeMount", "EnvFromSource", "Affinity",
                 "Container", "PodTemplateSpec", "SecretRef", "HARDENED_SECURITY_CONTEXT", "KUEUE_QUEUE_LABEL",
                 "RayJobSpec", "RayServiceSpec", "RayCronJobSpec", "ServeConfig", "In"):
        assert name in pulumi_kuberay.__all__, name
