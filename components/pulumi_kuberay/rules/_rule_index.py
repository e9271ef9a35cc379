"""The catalogue indexed for ``check``: the document rules of each kind, and which of them run for a target.

``check`` runs on every resource of a preview, every document given to ``kuberay-lint`` and every ``Analyze``
call of the pack, mostly with the same few targets. Asking each of ~140 rules on every call whether it is a
document rule, covers the kind and applies to the target cost as much as the cheaper rules themselves, so the
answer is computed once per (kind, target) and kept: the selection is the tuple of rules to call.

The index follows the registry: it is rebuilt when the registered rules change (tests declare rules and
restore the registry), found by comparing the registry's rules by identity on each call.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _engine
from ._engine import KINDS, Context, Rule


def webhook_rule(rule: Rule, kind: Any) -> bool:
    """The object's own webhook enforces it too (``enforced_by`` names ``<kind> webhook``): on create, whoever
    manages the object."""
    return f"{kind} webhook" in rule.enforced_by


@dataclass(frozen=True)
class CatalogueIndex:
    """The registered rules as ``check`` needs them, derived once per registry state."""

    rules: tuple[Rule, ...]
    #: Document rules by kind, in declaration order.
    by_kind: Mapping[str, tuple[Rule, ...]]
    #: Ids of the rules some part of KubeRay enforces (``enforced_by``; their findings win over schema duplicates).
    operator_rule_ids: frozenset[str]
    #: Ids of the enforced rules that the API server does not enforce (no ``api-server`` in ``enforced_by``):
    #: unenforced while the operator ignores the object.
    operator_only_ids: frozenset[str]
    #: Ids of the rules only a running workload enforces (``enforced_by=("run-time",)``).
    run_time_ids: frozenset[str]
    #: The feature gates some document rule depends on (the other gates do not change a selection).
    gates: tuple[str, ...]
    selections: dict[tuple[Any, ...], tuple[Rule, ...]] = field(default_factory=dict)


def _build(rules: tuple[Rule, ...]) -> CatalogueIndex:
    document = [rule for rule in rules if rule.scope == "document"]
    enforced = [rule for rule in rules if rule.enforced_by]
    return CatalogueIndex(
        rules=rules,
        by_kind={kind: tuple(rule for rule in document if kind in rule.kinds) for kind in KINDS},
        operator_rule_ids=frozenset(rule.id for rule in enforced),
        operator_only_ids=frozenset(rule.id for rule in enforced if "api-server" not in rule.enforced_by),
        run_time_ids=frozenset(rule.id for rule in enforced if set(rule.enforced_by) == {"run-time"}),
        gates=tuple(sorted({rule.gate for rule in document if rule.gate is not None})),
    )


_lock = threading.Lock()
_index: CatalogueIndex | None = None


def catalogue_index() -> CatalogueIndex:
    """The index of the rules registered now (rebuilt when they changed since the last call)."""
    global _index
    rules = _engine.registry_snapshot()
    index = _index
    if index is None or index.rules != rules:  # identity first: a tuple compare of the same rules is cheap
        with _lock:
            index = _index = _build(rules)
    return index


def document_rules(index: CatalogueIndex, kind: str, ctx: Context, *, handed_over: bool) -> tuple[Rule, ...]:
    """The document rules ``check`` calls on a ``kind`` object under ``ctx``, in declaration order.

    ``handed_over``: ``spec.managedBy`` names another controller, so KubeRay's reconciler returns before
    validating (``ManagedByExternalController``) and only the rules its own webhook enforces on create stay.
    """
    key = (
        kind,
        handed_over,
        ctx.kuberay_version,
        ctx.audience == "cli",
        ctx.webhooks,
        tuple(ctx.gate(gate) for gate in index.gates),
    )
    rules = index.selections.get(key)
    if rules is None:
        rules = tuple(
            rule
            for rule in index.by_kind.get(kind, ())
            if rule.applies(ctx)
            and not (handed_over and rule.enforced_by and not (ctx.webhooks and webhook_rule(rule, kind)))
        )
        index.selections[key] = rules
    return rules
