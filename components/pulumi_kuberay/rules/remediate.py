"""Safe automatic fixes by rule id (the policy pack's remediations): a view of each rule's ``remediate=``.

A fix is declared with its rule (``declare(..., remediate=fn)``); only fixes whose result is certain belong
there (e.g. turning ``rayStartParams`` numbers into the strings KubeRay expects). Each returns the new
manifest, or ``None`` when it changed nothing. Plain Python, no pulumi.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ._engine import Remediation


class _Remediations(Mapping[str, Remediation]):
    """``{rule_id: fix}`` for every rule declared with ``remediate=`` (read on use: the catalogue loads lazily)."""

    def _all(self) -> dict[str, Remediation]:
        from . import RULES

        return {rule.id: rule.remediate for rule in RULES.values() if rule.remediate is not None}

    def __getitem__(self, rule_id: str) -> Remediation:
        return self._all()[rule_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


REMEDIATIONS: Mapping[str, Remediation] = _Remediations()
