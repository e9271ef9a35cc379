"""The pack's Analyzer servicer: pulumi-policy's, with ``Analyze`` answering every catalogue policy from one run.

pulumi-policy's ``_PolicyAnalyzerServicer.Analyze`` calls each resource policy in turn, building its arguments
and a reporter for each; with one policy per catalogue rule (about 140) that loop was most of a call (about 40 µs a
policy) although every policy reports from the same catalogue run. :class:`OneRunServicer` keeps everything else
of pulumi-policy's servicer (``GetAnalyzerInfo``, ``Configure``, ``AnalyzeStack``, ``Remediate``, ...) and
overrides ``Analyze`` only: the catalogue's verdicts for a resource are computed once per distinct policy config
and handed to the policies that own them, with each policy's description, enforcement level (from ``Configure``;
``disabled`` skips it, ``remediate`` is reported as ``mandatory``, as pulumi-policy does) and severity, in
pulumi-policy's order (policy by policy). A resource that is not a Ray object gets the empty answer before its
properties are decoded. A pack with resource policies that the verdicts do not cover is served by pulumi-policy's
own ``Analyze``.

:func:`serve` runs pulumi-policy's ``PolicyPack`` (its checks, metadata and gRPC server) with this servicer.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple, Protocol

import pulumi_policy.policy as _policy_module
from google.protobuf import json_format, struct_pb2
from pulumi.runtime import proto
from pulumi_policy import EnforcementLevel, Policy, PolicyPack, ResourceValidationPolicy
from pulumi_policy.deserialize import SPECIAL_SIG_KEY as _SIGNATURE_KEY
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.policy import _PolicyAnalyzerServicer


class Verdicts(Protocol):
    """What the servicer asks once per resource: ``(policy name, message)`` for every violation, in order."""

    #: The resource policies these verdicts answer for (all of them, violated or not).
    policies: frozenset[str]

    def __call__(self, urn: str, manifest: Any, config: Mapping[str, Any] | None) -> list[tuple[str, str]]:
        """``manifest``: the properties as plain dicts and lists (:func:`decode_properties`); ``config``: the
        policy config of the policies asking (``None`` if they have none)."""


class _Reporting(NamedTuple):
    """How one enabled policy reports, as fixed by the last ``Configure``."""

    position: int  # its place in the pack: pulumi-policy reports policy by policy
    report: Callable[[proto.AnalyzeResponse, str], None]


class _PolicyGroups(NamedTuple):
    """The enabled verdict policies, grouped by their policy config (one catalogue run per group)."""

    by_config: list[tuple[Mapping[str, Any] | None, dict[str, _Reporting]]]


class OneRunServicer(_PolicyAnalyzerServicer):
    """pulumi-policy's servicer whose ``Analyze`` runs the catalogue once per resource for every policy."""

    #: Set by :meth:`answering` (pulumi-policy's code instantiates the servicer with its own arguments only).
    verdicts: ClassVar[Verdicts]
    subject_types: ClassVar[tuple[str, ...]]

    @classmethod
    def answering(cls, verdicts: Verdicts, subject_types: tuple[str, ...]) -> type[OneRunServicer]:
        """This servicer for ``verdicts``; only resources whose type starts with one of ``subject_types`` are
        decoded and judged (the verdicts of any other are empty)."""
        return type(cls.__name__, (cls,), {"verdicts": verdicts, "subject_types": subject_types})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        policies: Sequence[Policy] = args[2] if len(args) > 2 else kwargs["policies"]
        self._pack_policies = list(policies)
        verdicts = self.verdicts
        resource_policies = {p.name for p in self._pack_policies if isinstance(p, ResourceValidationPolicy)}
        #: Every resource policy is answered by the verdicts (else pulumi-policy's Analyze serves the pack).
        self.answers_all = resource_policies <= verdicts.policies and all(
            p.has_validation() for p in self._pack_policies if isinstance(p, ResourceValidationPolicy)
        )
        self._groups: _PolicyGroups | None = None
        self._groups_lock = threading.Lock()  # the engine may call Analyze from several threads
        self._runtime_configured = False

    def Configure(self, request: Any, context: Any) -> Any:
        with self._groups_lock:
            response = super().Configure(request, context)  # type: ignore[no-untyped-call]
            self._groups = None  # levels and configs changed
        return response

    def _current_groups(self) -> _PolicyGroups:
        groups = self._groups
        if groups is None:
            with self._groups_lock:  # not while Configure changes the levels
                groups = self._groups = self._groups or self._make_groups()
        return groups

    def _make_groups(self) -> _PolicyGroups:
        groups: dict[str, tuple[Mapping[str, Any] | None, dict[str, _Reporting]]] = {}
        for index, policy in enumerate(self._pack_policies):
            if not isinstance(policy, ResourceValidationPolicy) or policy.name not in self.verdicts.policies:
                continue
            level = self._get_enforcement_level(policy)
            if level == EnforcementLevel.DISABLED:
                continue
            if level == EnforcementLevel.REMEDIATE:
                level = EnforcementLevel.MANDATORY  # as pulumi-policy's Analyze: a violation left after remediation
            config = self._get_policy_config(policy.name)
            key = json.dumps(config or {}, sort_keys=True)
            members = groups.setdefault(key, (config, {}))[1]
            members[policy.name] = _Reporting(index, self._reporter(policy, level))
        return _PolicyGroups(list(groups.values()))

    def _reporter(self, policy: Policy, level: EnforcementLevel) -> Callable[[proto.AnalyzeResponse, str], None]:
        def report(response: proto.AnalyzeResponse, message: str) -> None:
            # pulumi-policy's own reporter builds the diagnostic (description, level, severity, pack name)
            self._create_report_violation(response, policy.name, policy.description, level, policy.severity)(
                message, None
            )

        return report

    def Analyze(self, request: Any, context: Any) -> Any:
        if not self.answers_all:
            return super().Analyze(request, context)  # type: ignore[no-untyped-call]
        if not request.type.startswith(self.subject_types):
            return proto.AnalyzeResponse()  # every policy of the pack returns at once for it: nothing to decode
        if not self._runtime_configured:
            # the settings come from the process environment, which does not change: pulumi-policy sets them
            # again on every call
            self._configure_runtime_settings()  # type: ignore[no-untyped-call]
            self._runtime_configured = True
        groups = self._current_groups()
        response = proto.AnalyzeResponse()
        if not groups.by_config:
            return response
        manifest = decode_properties(request.properties)
        found: list[tuple[int, int, _Reporting, str]] = []
        for config, members in groups.by_config:
            for owner, message in self.verdicts(request.urn, manifest, config):
                reporting = members.get(owner)
                if reporting is not None:
                    found.append((reporting.position, len(found), reporting, message))
        found.sort(key=lambda item: (item[0], item[1]))
        for _, _, reporting, message in found:
            reporting.report(response, message)
        return response


class _Special(Exception):
    """A value with Pulumi's signature key (a secret, asset or archive): pulumi-policy's decoder handles it."""


def _value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return _struct(value.struct_value)
    if kind == "list_value":
        return [_value(item) for item in value.list_value.values]
    if kind == "string_value":
        return value.string_value
    if kind == "number_value":
        number = value.number_value
        if math.isinf(number) or math.isnan(number):
            raise ValueError(f"Fail to serialize {number} for Value.number_value")  # as json_format.MessageToDict
        # An integral number as the int it stands for, as rules.normalise would make it (equal to pulumi-policy's
        # float): the manifest is then checked as it is, not copied to turn its replicas and ports into ints.
        return int(number) if number.is_integer() else number
    if kind == "bool_value":
        return value.bool_value
    return None  # null_value, or no kind at all (json_format.MessageToDict reads both as null)


def _struct(struct: struct_pb2.Struct) -> dict[str, Any]:
    fields = struct.fields
    if _SIGNATURE_KEY in fields:
        raise _Special
    return {key: _value(fields[key]) for key in fields}


def decode_properties(properties: struct_pb2.Struct) -> dict[str, Any]:
    """A resource's properties as plain dicts and lists, unknown values as pulumi's sentinel strings, in one walk:
    what pulumi-policy's ``deserialize_properties(json_format.MessageToDict(properties))`` gives (equal to it:
    an integral number is an int here, a float there)."""
    try:
        return _struct(properties)
    except _Special:
        return deserialize_properties(json_format.MessageToDict(properties))


def serve(pack: Callable[[], PolicyPack], servicer: type[_PolicyAnalyzerServicer]) -> None:
    """Run ``pack()`` (pulumi-policy's ``PolicyPack``, which serves until the engine stops it) with ``servicer``, a
    subclass of pulumi-policy's servicer, in its place."""
    module: Any = _policy_module  # PolicyPack (and AnalyzeStack) reach the servicer class by this module-level name
    module._PolicyAnalyzerServicer = servicer
    pack()


__all__ = ["OneRunServicer", "Verdicts", "decode_properties", "serve"]
