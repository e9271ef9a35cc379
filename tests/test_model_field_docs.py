"""The models' field descriptions come from a generated table (``model/_field_docs.py``), not from pydantic's
``use_attribute_docstrings`` at import: the table must be what the sources say, and every model must carry the
descriptions ``use_attribute_docstrings`` would have given it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from pulumi_kuberay.model._base import KubeModel
from pulumi_kuberay.model._field_docs import FIELD_DOCS
from pulumi_kuberay.model.cluster import HeadGroupSpec, RayClusterSpec
from pydantic import ConfigDict

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))  # the generator is a tool of the repository, not of the package
import gen_field_docs  # noqa: E402

MODELS = gen_field_docs.documented_models()


def test_the_committed_table_is_what_the_sources_say() -> None:
    assert gen_field_docs.OUTPUT.read_text() == gen_field_docs.render(gen_field_docs.table()), (
        "model/_field_docs.py is stale: run scripts/gen-field-docs"
    )


def test_the_table_names_only_existing_models_and_fields() -> None:
    models = {gen_field_docs.model_key(cls): cls for cls in MODELS}
    assert set(FIELD_DOCS) <= set(models)
    for key, docs in FIELD_DOCS.items():
        assert set(docs) <= set(models[key].model_fields), key


@pytest.mark.parametrize("model", MODELS, ids=gen_field_docs.model_key)
def test_every_field_has_the_description_use_attribute_docstrings_gives(model: Any) -> None:
    # pydantic's own extraction from the class's source (no model sets ``Field(description=...)``)
    own = gen_field_docs.source_docs(model)
    assert {name: model.model_fields[name].description for name in own} == own


def test_known_descriptions_reach_the_models_and_their_json_schema() -> None:
    assert RayClusterSpec.model_fields["ray_version"].description == FIELD_DOCS[
        "pulumi_kuberay.model.cluster.RayClusterSpec"
    ]["ray_version"]
    assert RayClusterSpec.model_fields["ray_version"].description
    schema = HeadGroupSpec.model_json_schema(by_alias=True)
    documented = FIELD_DOCS["pulumi_kuberay.model.cluster.HeadGroupSpec"]
    for name, text in documented.items():
        alias = HeadGroupSpec.model_fields[name].alias or name
        assert schema["properties"][alias]["description"] == text


def test_the_models_no_longer_parse_their_sources_at_import() -> None:
    config: ConfigDict = RayClusterSpec.model_config
    assert not config.get("use_attribute_docstrings")


class UserSpec(HeadGroupSpec):
    """A user's subclass (outside the package): its docstrings are read from its source, as before the table."""

    team: str | None = None
    """Team that owns the group."""


class Undocumented(KubeModel):
    model_config = ConfigDict(use_attribute_docstrings=False)

    size: int = 0
    """Not a description: the class turned the option off."""


def test_a_users_subclass_keeps_its_attribute_docstrings_and_the_inherited_ones() -> None:
    assert UserSpec.model_fields["team"].description == "Team that owns the group."
    assert UserSpec.model_fields["cpu"].description == HeadGroupSpec.model_fields["cpu"].description
    assert UserSpec.model_fields["cpu"].description
    assert Undocumented.model_fields["size"].description is None
