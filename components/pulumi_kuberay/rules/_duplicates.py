"""One mistake, one finding: a generic ``schema-*`` finding dropped where a specific rule reports the same mistake
at least as severely (``rules.check`` calls it on each document's findings)."""

from __future__ import annotations

from collections.abc import Mapping

from ._engine import SEVERITY_ORDER, Finding

#: The generic schema rules' ids start so (``schema-unknown-field``...).
SCHEMA_RULE_PREFIX = "schema-"

def drop_schema_duplicates(findings: list[Finding], operator_rule_ids: frozenset[str]) -> list[Finding]:
    """Drop a ``schema-*`` finding when a specific rule reports the same path at least as severely.

    The typed model also enforces some operator invariants (e.g. minReplicas <= maxReplicas); the specific
    rule says more (its id is the policy name, its fix is precise), so the generic schema finding is noise.
    A rule mirroring an operator validation row (``operator_rule_ids``) wins at any severity: it knows the
    operator version (e.g. ``worker-min-exceeds-max`` is high before v1.6, where the operator did not check it).
    Any other less severe finding on the same path never hides a schema error: ``resources: true`` on a Ray
    container is rejected by the API server even though ``resources-missing`` (high) reports the same path.
    Inside ``serveConfigV2`` a serve rule may name the mapping that holds the value (``serve-applications-missing``
    on the config, the model on its ``applications``): the same mistake, so a path above or below counts too.
    """
    if not any(f.rule_id.startswith(SCHEMA_RULE_PREFIX) for f in findings):
        return findings
    worst: dict[str, int] = {}
    operator_paths: set[str] = set()
    for f in findings:
        if not f.rule_id.startswith(SCHEMA_RULE_PREFIX):
            worst[f.path] = max(worst.get(f.path, -1), SEVERITY_ORDER[f.severity])
            if f.rule_id in operator_rule_ids:
                operator_paths.add(f.path)
    return [
        f
        for f in findings
        if not (
            f.rule_id.startswith(SCHEMA_RULE_PREFIX)
            and (
                worst.get(f.path, -1) >= SEVERITY_ORDER[f.severity]
                or f.path in operator_paths
                or _serve_neighbour_as_severe(f, worst)
            )
        )
    ]


_SERVE_CONFIG_PATH = "spec.serveConfigV2"


def _serve_neighbour_as_severe(schema: Finding, worst: Mapping[str, int]) -> bool:
    """A finding at least as severe on a path above or below ``schema``'s, both inside ``serveConfigV2``."""
    path = schema.path
    if not path.startswith(_SERVE_CONFIG_PATH):
        return False
    severity = SEVERITY_ORDER[schema.severity]
    for other, level in worst.items():
        if level < severity or not other.startswith(_SERVE_CONFIG_PATH):
            continue
        if path.startswith((other + ".", other + "[")) or other.startswith((path + ".", path + "[")):
            return True
    return False
