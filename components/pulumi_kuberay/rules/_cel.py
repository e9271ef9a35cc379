"""A rule's check written in CEL, for the API server: ``declare(..., cel=Cel(...))`` beside the Python check.

:mod:`pulumi_kuberay.admission` turns every rule that declares one into a ValidatingAdmissionPolicy (one policy per
rule, bindings per environment), so teams creating Ray objects with kubectl, Argo CD or an SDK meet the same rule
in the API server, with no server of ours. The Python check stays the reference: the cluster tier
(``tests/cluster/test_admission_policies.py``) holds the two to the same verdict on every rule example and upstream
sample.

An expression is true when the subject complies. ``over`` names the subject, each bound to a CEL variable:

- ``object``: the whole document (``object``);
- ``cluster``: each embedded RayClusterSpec, ``c`` (RayCluster ``spec``, RayJob ``spec.rayClusterSpec``, RayService
  ``spec.rayClusterConfig``, RayCronJob ``spec.jobTemplate.rayClusterSpec``);
- ``group``: the head group and each worker group, ``g``; ``worker``: each worker group, ``g``;
- ``job``: each RayJobSpec, ``j`` (RayJob ``spec``, RayCronJob ``spec.jobTemplate``);
- ``template``: each pod template (head, workers, submitter), ``t``;
- ``container``: each init and app container of each pod template, ``k``.

The object has passed the CRD schema when a validating policy runs (types are right) but any field may be absent:
guard with ``has()``. ``path`` is where the rule reports, relative to the subject (shown in the message);
``message`` defaults to the rule's title; ``also`` holds further checks of the same rule (each its own validation).
Plain Python: never imports pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Over = Literal["object", "cluster", "group", "worker", "job", "template", "container"]
OVERS: tuple[Over, ...] = get_args(Over)


@dataclass(frozen=True)
class Cel:
    """The rule's check in CEL (true = compliant) over one kind of subject; see the module docstring."""

    expression: str
    over: Over = "object"
    path: str = ""
    message: str | None = None
    also: tuple[Cel, ...] = ()

    def __post_init__(self) -> None:
        if self.over not in OVERS:
            raise ValueError(f"Cel over must be one of {', '.join(OVERS)}, got {self.over!r}")

    def parts(self) -> tuple[Cel, ...]:
        """This check and the further ones, each a validation of the rule's policy."""
        return (self, *(part for extra in self.also for part in extra.parts()))



#: k8s ``version.ParseGeneric`` (how the operator reads rayVersion; ``kuberay.paths.parse_generic_version``): white
#: space, an optional v, at least major.minor, anything after the numbers but a newline.
_GENERIC_VERSION = "'^[\\\\t\\\\n\\\\f\\\\r ]*v?[0-9]+(\\\\.[0-9]+)+[^\\\\n]*$'"
#: Masterminds semver v3 ``NewVersion`` without a pre-release (``kuberay.gosyntax.semver_parse``): v, major, an
#: optional minor and patch, build metadata.
_SEMVER_RELEASE = "'^v?[0-9]+(\\\\.[0-9]+)?(\\\\.[0-9]+)?(\\\\+[0-9A-Za-z-]+(\\\\.[0-9A-Za-z-]+)*)?$'"
_NUMBERS = "'[0-9]+(\\\\.[0-9]+)*'"
_UINT64_MAX = "'18446744073709551615'"


def _numbers_at_least(parts: str, minimum: tuple[int, int, int], *, plain_major: bool) -> str:
    """CEL over the list of digit strings ``parts``: every one a uint64 (and, ``plain_major``, the first not
    zero-prefixed) and (major, minor, patch), missing ones 0, at least ``minimum``. Numbers past 18 significant
    digits are compared as 10**18 (above any minimum); leading zeros are dropped (``find``)."""
    significant = "x.find('[1-9][0-9]*')"
    fits = f"size({significant}) < 20 || (size({significant}) == 20 && {significant} <= {_UINT64_MAX})"
    value = f"size({significant}) > 18 ? 1000000000000000000 : ({significant} == '' ? 0 : int({significant}))"
    a, b, c = minimum
    minor, patch = "(size(n) > 1 ? n[1] : 0)", "(size(n) > 2 ? n[2] : 0)"
    at_least = f"n[0] > {a} || (n[0] == {a} && ({minor} > {b} || ({minor} == {b} && {patch} >= {c})))"
    major = "!(p[0].startsWith('0') && p[0] != '0') && " if plain_major else ""
    return f"[{parts}].all(p, {major}p.all(x, {fits}) && [p.map(x, {value})].all(n, {at_least}))"


def generic_version_at_least(text: str, minimum: tuple[int, int, int]) -> str:
    """CEL, true when the string ``text`` (a CEL expression) parses as ParseGeneric does (no zero-prefixed major,
    every number a uint64) and is at least ``minimum``."""
    numbers = _numbers_at_least(f"{text}.find({_NUMBERS}).split('.')", minimum, plain_major=True)
    return f"({text}.matches({_GENERIC_VERSION}) && {numbers})"


def semver_release_at_least(text: str, minimum: tuple[int, int, int]) -> str:
    """CEL, true when the string ``text`` parses as Masterminds semver's NewVersion does, is no pre-release and is
    at least ``minimum`` (a Masterminds constraint ``>= minimum``, which no pre-release satisfies)."""
    numbers = _numbers_at_least(f"{text}.find({_NUMBERS}).split('.')", minimum, plain_major=False)
    return f"({text}.matches({_SEMVER_RELEASE}) && {numbers})"
