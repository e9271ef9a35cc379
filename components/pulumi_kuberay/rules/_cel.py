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
