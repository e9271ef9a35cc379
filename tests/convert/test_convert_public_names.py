"""The converter's programs import only ``pulumi_kuberay`` (public names): every type it can name is exported."""

from __future__ import annotations

import re
import typing
from typing import Any

import pulumi_kuberay as kr
import pytest
import yaml
from _reference import samples_dir
from pulumi_kuberay.convert import convert_documents
from pulumi_kuberay.convert._tree import Imports
from pulumi_kuberay.convert._typed import K8S_SPELLINGS
from pulumi_kuberay.model._base import KubeModel
from pulumi_kuberay.model.cluster import RayClusterSpec
from pulumi_kuberay.model.cronjob import RayCronJobSpec
from pulumi_kuberay.model.job import RayJobSpec
from pulumi_kuberay.model.pod import SecretRef
from pulumi_kuberay.model.service import RayServiceSpec
from pydantic import BaseModel


def _models_under(annotation: Any, seen: dict[str, type[BaseModel]]) -> None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation.__name__ not in seen:
            seen[annotation.__name__] = annotation
            for info in annotation.model_fields.values():
                _models_under(info.annotation, seen)
        return
    for arg in typing.get_args(annotation):
        _models_under(arg, seen)


def _direct_models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in typing.get_args(annotation) for model in _direct_models(arg)]


def nameable_types() -> dict[str, type[BaseModel]]:
    """Every class the converter can write a call of, by the name it writes: the models under the four specs,
    the Kubernetes spellings of collapsed types (``SecretKeySelector``) and the shortcut ``SecretRef``."""
    seen: dict[str, type[BaseModel]] = {}
    for root in (RayClusterSpec, RayJobSpec, RayServiceSpec, RayCronJobSpec, SecretRef):
        _models_under(root, seen)
    for (model, field), spelling in K8S_SPELLINGS.items():
        (seen[spelling],) = _direct_models(seen[model].model_fields[field].annotation)
    return seen


def test_every_type_the_converter_can_name_is_exported() -> None:
    names = nameable_types()
    assert len(names) > 150  # the specs reach ~150 models (a broken walk finds a few)
    assert {"SeccompProfile", "SecretKeySelector", "EmbeddedObjectMeta", "ServeDeployment"} <= set(names)
    not_exported = sorted(name for name, cls in names.items() if getattr(kr, name, None) is not cls)
    assert not_exported == []


def test_a_class_that_is_not_exported_is_refused_not_imported_privately() -> None:
    class Private(KubeModel):
        pass

    imports = Imports()
    assert imports.name_of(kr.SecurityContext) == "kr.SecurityContext"
    assert imports.name_of(kr.SeccompProfile, "SeccompProfile") == "kr.SeccompProfile"
    with pytest.raises(ValueError, match=r"Private is not exported from pulumi_kuberay"):
        imports.name_of(Private)
    assert imports.lines() == ["import pulumi_kuberay as kr"]


def test_the_programs_converted_from_the_samples_import_only_the_package() -> None:
    imports: set[str] = set()
    used: set[str] = set()
    for path in sorted(samples_dir().glob("*.yaml")):
        docs = [(doc, f"{path.name}#{i}") for i, doc in enumerate(yaml.safe_load_all(path.read_text())) if doc]
        text = convert_documents(docs, to="python").text
        imports |= {line for line in text.splitlines() if re.match(r"\s*(from|import) ", line)}
        used |= set(re.findall(r"\bkr\.([A-Za-z_]\w*)\(", text))
        assert "pulumi_kuberay.model" not in text, path.name
    assert imports == {"import pulumi_kuberay as kr"}
    assert {"SeccompProfile", "SecretKeySelector", "ConfigMapVolumeSource"} <= used
    assert [name for name in sorted(used) if not hasattr(kr, name)] == []
