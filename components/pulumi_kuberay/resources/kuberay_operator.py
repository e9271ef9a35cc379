"""The ``KubeRayOperator`` component: the official chart with typed values, and the CRDs managed by us.

Order inside one ``pulumi up``: Namespace -> the four ``ray.io`` CRDs -> the chart (Helm's ``crds/`` skipped) ->
every Ray component given ``operator=`` (it depends on the operator component). The provider creates the CRDs
with a forced server-side apply (field manager ``pulumi-kuberay``, taking over CRDs Helm or kubectl made) and
replaces them whole (PUT) when they change later: see docs/operator.md, "What happens to the CRDs".

The Ray components call :func:`operator_target` and :func:`operator_options`: the first gives the rule target
(version and gates from the operator; a stack config that disagrees is an error naming both), the second adds
the dependency on the operator.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pulumi
import pulumi_kubernetes as k8s
from google.protobuf import struct_pb2
from pulumi.runtime.mocks import MockMonitor
from pulumi.runtime.proto import resource_pb2

from pulumi_kuberay import rules
from pulumi_kuberay.model import ManifestError, Problem
from pulumi_kuberay.operator.args import CHART_NAME, KubeRayOperatorArgs
from pulumi_kuberay.operator.crds import (
    CRD_VERSION_LABEL,
    FIELD_MANAGER,
    chart_version,
    crd_documents,
    crd_downgrade,
    crds_directory,
    load_crds,
)
from pulumi_kuberay.operator.derive import (
    OperatorSetup,
    TargetConflictError,
    merge_target,
    resolve_operator,
    target_for_operator,
)
from pulumi_kuberay.operator.values import CHART_VERSION, KubeRayOperatorValues
from pulumi_kuberay.resources._help import document_constructor
from pulumi_kuberay.resources._shared import (
    CONFIG_NAMESPACE,
    CriticalFindingsError,
    format_finding,
    rule_settings,
    token,
    user_errors,
)
from pulumi_kuberay.rules import Finding
from pulumi_kuberay.rules.target import Target, TargetError, parse_feature_gates

KIND = "KubeRayOperator"
CRD_TYPE = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
#: Pulumi's Kubernetes provider reads these annotations on create: our field manager, and force (take over
#: fields another manager, e.g. Helm's install-once crds/ or a `kubectl create`, owns: the takeover must win).
#: Later updates of a CRD are a PUT in the provider, which ignores them.
SSA_ANNOTATIONS = {"pulumi.com/patchFieldManager": FIELD_MANAGER, "pulumi.com/patchForce": "true"}


class CrdDowngradeError(pulumi.RunError):
    """The CRDs would go back to an older KubeRay version than this stack applied last."""


class KubeRayOperator(pulumi.ComponentResource):
    """The KubeRay operator (official ``kuberay-operator`` chart) and its CRDs, as one component.

    ``args`` is a :class:`~pulumi_kuberay.operator.args.KubeRayOperatorArgs` or a dict in its shape; the keyword
    arguments set the same fields (``version``, ``chart``, ``namespace``, ``crds``, ``feature_gates``,
    ``watch_namespaces``, ``batch_scheduler``, ``resources``, ``leader_election``, ``metrics``, ``replicas``,
    ``values``...). ``values`` are the chart's values, typed
    (:class:`~pulumi_kuberay.operator.values.KubeRayOperatorValues`): a misspelled key fails here with
    its path and a suggestion, before anything is registered.

    Example::

        op = kr.KubeRayOperator("kuberay", version="1.7.0", namespace="kuberay-system",
                                feature_gates={"RayCronJob": True}, watch_namespaces=["ray"],
                                opts=pulumi.ResourceOptions(provider=k8s_provider))
        kr.RayCronJob("nightly", spec, namespace="ray", operator=op)   # checked against op's gates

    CRDs (``crds``): ``"manage"`` (default) applies the CRDs of ``version`` before the chart, so a version bump
    upgrades them (Helm never does); ``"only"`` applies just the CRDs; ``"leave"`` installs the chart without
    them (``installed_crds`` tells the rules which are installed). Going back to older CRDs than this stack applied
    last is refused unless ``allow_crd_downgrade=True``. Where the CRD YAML comes from: docs/operator.md, "What
    happens to the CRDs".

    ``admission_policies=True`` (``"warn"``, ``"audit"``) also installs the catalogue's ValidatingAdmissionPolicies
    and their bindings (:mod:`pulumi_kuberay.admission`), for Ray objects created without Pulumi: docs/operator.md,
    "The rules in the API server".

    Outputs: ``version``, ``feature_gates`` (effective: the version's defaults with the values over them),
    ``watch_namespaces`` (None = every namespace), ``namespace``. The same, as plain values, in ``setup``.
    """

    if TYPE_CHECKING:
        version: pulumi.Output[str]
        feature_gates: pulumi.Output[dict[str, bool]]
        watch_namespaces: pulumi.Output[list[str] | None]
        namespace: pulumi.Output[str]
        setup: OperatorSetup
        values: KubeRayOperatorValues
        args: KubeRayOperatorArgs
        crds: list[k8s.apiextensions.v1.CustomResourceDefinition]
        chart: k8s.helm.v4.Chart | None
        admission_policies: list[pulumi.CustomResource]

    @user_errors
    def __init__(
        self,
        name: str,
        args: KubeRayOperatorArgs | Mapping[str, Any] | None = None,
        opts: pulumi.ResourceOptions | None = None,
        *,
        version: str | None = None,
        chart: str | None = None,
        namespace: str | None = None,
        crds: Literal["manage", "only", "leave"] | None = None,
        crds_dir: str | None = None,
        installed_crds: str | None = None,
        allow_crd_downgrade: bool | None = None,
        retain_crds: bool | None = None,
        values: KubeRayOperatorValues | Mapping[str, Any] | None = None,
        feature_gates: Mapping[str, bool] | None = None,
        watch_namespaces: Sequence[str] | None = None,
        batch_scheduler: str | None = None,
        resources: Mapping[str, Any] | None = None,
        leader_election: bool | None = None,
        metrics: bool | None = None,
        replicas: int | None = None,
        create_namespace: bool = True,
        environment: str | None = None,
        admission_policies: bool | Literal["enforce", "warn", "audit"] = False,
    ) -> None:
        subject = f"KubeRayOperator {name!r}"
        merged = _merge_args(
            args,
            {
                "version": version,
                "chart": chart,
                "namespace": namespace,
                "crds": crds,
                "crdsDir": crds_dir,
                "installedCrds": installed_crds,
                "allowCrdDowngrade": allow_crd_downgrade,
                "retainCrds": retain_crds,
                "values": values.to_dict() if isinstance(values, KubeRayOperatorValues) else values,
                "featureGates": feature_gates,
                "watchNamespaces": list(watch_namespaces) if watch_namespaces is not None else None,
                "batchScheduler": batch_scheduler,
                "resources": resources,
                "leaderElection": leader_election,
                "metrics": metrics,
                "replicas": replicas,
            },
        )
        _check_local_chart(merged.get("chart"), str(merged.get("version") or CHART_VERSION), subject)
        resolved = resolve_operator(merged, subject=subject)
        self.args, self.values, self.setup = resolved.args, resolved.values, resolved.setup
        crd_docs = self._crd_documents(opts, subject) if self.args.crds != "leave" else []
        target = rule_settings(environment=environment)
        findings = check_setup(self.setup, target, subject=subject)
        admission_docs = _admission_documents(admission_policies, target.environment, subject)

        super().__init__(token(KIND), name, None, opts)
        for finding in findings:
            pulumi.log.warn(format_finding(finding), resource=self)
        if crd_docs:
            self._refuse_downgrade(name, subject)

        ns = self.args.namespace
        namespace_res: list[pulumi.Resource] = []
        if create_namespace and self.args.crds != "only":
            namespace_res.append(
                k8s.core.v1.Namespace(
                    f"{name}-namespace", metadata={"name": ns}, opts=pulumi.ResourceOptions(parent=self)
                )
            )
        self.crds = [
            k8s.apiextensions.v1.CustomResourceDefinition(
                f"{name}-{doc['metadata']['name']}",
                api_version="apiextensions.k8s.io/v1",
                kind="CustomResourceDefinition",
                metadata={
                    **doc["metadata"],
                    "annotations": {**(doc["metadata"].get("annotations") or {}), **SSA_ANNOTATIONS},
                },
                spec=doc["spec"],
                opts=pulumi.ResourceOptions(parent=self, retain_on_delete=self.args.retain_crds),
            )
            for doc in crd_docs
        ]
        self.chart = None
        if self.args.crds != "only":
            local = self.args.chart is not None and Path(self.args.chart).is_dir()
            self.chart = k8s.helm.v4.Chart(
                f"{name}-chart",
                chart=self.args.chart if self.args.chart is not None else CHART_NAME,
                version=None if local else self.args.version,
                repository_opts=None if local else k8s.helm.v4.RepositoryOptsArgs(repo=self.args.repository),
                name=self.args.release_name,
                namespace=ns,
                values=self.values.chart_values(),
                skip_crds=True,
                opts=pulumi.ResourceOptions(parent=self, depends_on=[*namespace_res, *self.crds]),
            )
        self.admission_policies = self._admission_resources(name, admission_docs)
        setup = self.setup
        self.version = pulumi.Output.from_input(setup.version)
        self.feature_gates = pulumi.Output.from_input(dict(setup.feature_gates))
        self.watch_namespaces = pulumi.Output.from_input(
            list(setup.watch_namespaces) if setup.watch_namespaces is not None else None
        )
        self.namespace = pulumi.Output.from_input(ns)
        self.register_outputs(
            {
                "version": self.version,
                "feature_gates": self.feature_gates,
                "watch_namespaces": self.watch_namespaces,
                "namespace": self.namespace,
            }
        )

    # ----------------------------------------------------------------------------------------------

    def _admission_resources(self, name: str, docs: list[dict[str, Any]]) -> list[pulumi.CustomResource]:
        """The catalogue's ValidatingAdmissionPolicies and their bindings (after the CRDs they match)."""
        made: list[pulumi.CustomResource] = []
        policies: dict[str, pulumi.CustomResource] = {}
        for doc in docs:
            resource_name = f"{name}-{doc['metadata']['name']}"
            if doc["kind"] == "ValidatingAdmissionPolicy":
                policy = k8s.admissionregistration.v1.ValidatingAdmissionPolicy(
                    resource_name,
                    metadata=doc["metadata"],
                    spec=doc["spec"],
                    opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.crds)),
                )
                policies[doc["metadata"]["name"]] = policy
                made.append(policy)
            else:
                made.append(
                    k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
                        resource_name,
                        metadata=doc["metadata"],
                        spec=doc["spec"],
                        opts=pulumi.ResourceOptions(parent=self, depends_on=[policies[doc["spec"]["policyName"]]]),
                    )
                )
        return made


    def _crd_documents(self, opts: pulumi.ResourceOptions | None, subject: str) -> list[dict[str, Any]]:
        directory = crds_directory(self.args)
        if directory is None and _mocked():
            return []  # unit tests cannot fetch the official chart: no CRDs to register
        try:
            docs = load_crds(directory) if directory is not None else _render_chart_crds(self.args, opts)
        except FileNotFoundError as exc:
            raise ManifestError(
                [Problem("crdsDir", str(exc), "invalid_value", "point crds_dir at a directory of CRD YAML files")],
                subject=subject,
            ) from None
        out = crd_documents(docs, self.setup.version)
        if not out:
            raise ManifestError(
                [Problem("crdsDir", f"no ray.io CRDs found for KubeRay {self.setup.version}", "invalid_value")],
                subject=subject,
            )
        return out

    def _refuse_downgrade(self, name: str, subject: str) -> None:
        previous = previous_crd_version(name)
        if crd_downgrade(previous, self.setup.version) and not self.args.allow_crd_downgrade:
            raise CrdDowngradeError(
                f"{subject}: this stack applied the KubeRay {previous} CRDs; {self.setup.version} would downgrade them, and the API server then prunes the newer fields from every stored Ray object (fix: keep version >= {previous}, or pass allow_crd_downgrade=True once you know no object uses them)"
            )


def _merge_args(args: KubeRayOperatorArgs | Mapping[str, Any] | None, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    base: dict[str, Any] = (
        args.model_dump(by_alias=True, exclude_unset=True)
        if isinstance(args, KubeRayOperatorArgs)
        else dict(args or {})
    )
    return {**base, **{k: v for k, v in kwargs.items() if v is not None}}


def _check_local_chart(chart: Any, version: str, subject: str) -> None:
    if not isinstance(chart, str) or not Path(chart).is_dir():
        return
    found = chart_version(chart)
    if found.lstrip("v") != version.lstrip("v"):
        raise ManifestError(
            [
                Problem(
                    "version",
                    f"version is {version} but the chart at {chart} is {found or 'unversioned'}",
                    "invalid_value",
                    f"set version: {found}, or point chart at the {version} chart",
                )
            ],
            subject=subject,
        )


def _admission_documents(
    admission_policies: bool | str, environment: str | None, subject: str
) -> list[dict[str, Any]]:
    """``admission_policies``: False (none), True or ``"enforce"`` (the pack's levels for ``environment``: Deny what
    it blocks, warn about the rest), ``"warn"`` or ``"audit"``; without an environment, one binding per environment on
    the namespaces labelled ``pulumi-kuberay.io/environment``."""
    if admission_policies is False:
        return []
    from pulumi_kuberay import admission

    modes: dict[Any, admission.Mode] = {True: "enforce", "enforce": "enforce", "warn": "warn", "audit": "audit"}
    mode = modes.get(admission_policies)
    if mode is None:
        raise ManifestError(
            [
                Problem(
                    "admissionPolicies",
                    f"expected true, false, 'enforce', 'warn' or 'audit', got {admission_policies!r}",
                    "invalid_value",
                    "use admission_policies=True (the policy pack's levels), 'warn' or 'audit'",
                )
            ],
            subject=subject,
        )
    return admission.admission_policies(environment, mode=mode)


def _render_chart_crds(args: KubeRayOperatorArgs, opts: pulumi.ResourceOptions | None) -> list[dict[str, Any]]:
    """The CRDs of the official chart at ``args.version``, rendered by the provider (``helm template``: it
    fetches the chart from ``args.repository``), for a remote chart without ``crds_dir``."""
    provider = (opts.provider if opts is not None else None) or _provider_from(opts)
    chart_opts = {
        "chart": CHART_NAME,
        "version": args.version,
        "namespace": args.namespace,
        "release_name": args.release_name,
        "fetch_opts": {"repo": args.repository, "version": args.version},
        "values": {},
    }
    try:
        result = pulumi.runtime.invoke(
            "kubernetes:helm:template",
            {"jsonOpts": json.dumps(chart_opts)},
            pulumi.InvokeOptions(provider=provider),
        )
    except Exception as exc:  # the provider's message says why (no network, unknown version...)
        raise FileNotFoundError(f"helm template of {CHART_NAME} {args.version} failed: {exc}") from None
    return [d for d in (result.value or {}).get("result") or [] if isinstance(d, dict)]


def _provider_from(opts: pulumi.ResourceOptions | None) -> pulumi.ProviderResource | None:
    providers = opts.providers if opts is not None else None
    if isinstance(providers, Mapping):
        found = providers.get("kubernetes")
        return found if isinstance(found, pulumi.ProviderResource) else None
    for candidate in providers or []:
        if isinstance(candidate, pulumi.ProviderResource) and candidate.package == "kubernetes":
            return candidate
    return None


def _mocked() -> bool:
    return isinstance(pulumi.runtime.settings.get_monitor(), MockMonitor)


def previous_crd_version(name: str) -> str | None:
    """The KubeRay version of the CRDs the last deployment of this stack applied for operator ``name``.

    Read from the stack's own last checkpoint (the engine's ``readStackResourceOutputs``, which a
    ``StackReference`` uses too); None on a first deployment, under mocks, or if the backend cannot say.

    The engine answers with the outputs of every resource of the stack, the four CRDs' 1.2 MB of schema
    included; ``pulumi.runtime.invoke`` would turn all of it into Python values (~0.8 s of CPU per program
    run), so the answer is read as the protobuf it arrives in, down to the labels of our CRDs only.
    """
    if _mocked():
        return None  # unit tests: no previous deployment to compare with
    stack = f"{pulumi.get_organization()}/{pulumi.get_project()}/{pulumi.get_stack()}"
    args = struct_pb2.Struct()
    args.update({"stackName": stack})
    request = resource_pb2.ResourceInvokeRequest(tok=READ_STACK_OUTPUTS, args=args, acceptResources=False)
    monitor = pulumi.runtime.settings.get_monitor()
    try:
        response = monitor.Invoke(request) if monitor is not None else None
    except Exception:  # first `up` (no stack yet), or a backend without the builtin: nothing to compare
        return None
    if response is None or response.failures:
        return None
    return crd_version_in_checkpoint(getattr(response, "return"), name)


def crd_version_in_checkpoint(answer: struct_pb2.Struct, name: str) -> str | None:
    """The newest :data:`CRD_VERSION_LABEL` on the CRDs of operator ``name`` in a ``readStackResourceOutputs``
    answer (``{"outputs": {urn: {"type": ..., "outputs": {...}}}}``, as protobuf); None without one."""
    outputs = _field(answer, "outputs")
    versions: list[tuple[tuple[int, ...], str]] = []
    for urn, value in outputs.struct_value.fields.items() if outputs is not None else ():
        state = value.struct_value
        if _string(_field(state, "type")) != CRD_TYPE or f"::{name}-" not in urn:
            continue
        found = _string(_path(state, "outputs", "metadata", "labels", CRD_VERSION_LABEL))
        if found is not None:
            try:
                versions.append((tuple(int(p) for p in found.split(".")), found))
            except ValueError:
                continue
    return max(versions)[1] if versions else None


#: The engine's builtin that returns the last checkpoint's resources of a stack (``GetStackResourceOutputs``).
READ_STACK_OUTPUTS = "pulumi:pulumi:readStackResourceOutputs"
#: The key that marks a secret value in Pulumi's wire format (``{SECRET_SIG: SECRET_VALUE, "value": ...}``).
_SECRET_SIG = "4dabf18193072939515e22adb298388d"


def _field(struct: struct_pb2.Struct, key: str) -> struct_pb2.Value | None:
    """``struct[key]``, a secret unwrapped; None when absent."""
    if key not in struct.fields:
        return None
    value = struct.fields[key]
    inner = value.struct_value.fields if value.HasField("struct_value") else None
    if inner is not None and _SECRET_SIG in inner and "value" in inner:
        return inner["value"]
    return value


def _path(struct: struct_pb2.Struct, *keys: str) -> struct_pb2.Value | None:
    """``struct[k1][k2]...``; None when a key is absent (a value that is no map has no keys)."""
    value: struct_pb2.Value | None = None
    for key in keys:
        value = _field(struct, key)
        if value is None:
            return None
        struct = value.struct_value
    return value


def _string(value: struct_pb2.Value | None) -> str | None:
    return value.string_value if value is not None and value.HasField("string_value") else None


def check_setup(setup: OperatorSetup, target: Target, *, subject: str) -> list[Finding]:
    """The catalogue's operator-setup rules on ``setup``: raise on a critical finding, return the others."""
    findings = rules.check_setup(setup, target.context())
    critical = [f for f in findings if f.severity == "critical"]
    if critical:
        raise CriticalFindingsError(subject, critical)
    return findings


# --------------------------------------------------------------------------------------------------
# For the Ray components: `operator=` (one small call each).


def operator_target(
    operator: KubeRayOperator | None,
    kuberay_version: str | None = None,
    feature_gates: Mapping[str, bool] | None = None,
    environment: str | None = None,
) -> Target:
    """The rule target of a Ray component: from ``operator`` when given, else from the stack config/args.

    With an operator, ``kuberay:version`` / ``kuberay:featureGates`` (and the ``kuberay_version`` /
    ``feature_gates`` arguments) may be omitted; if present they must agree with it (ValueError naming both).
    The operator's setup travels, typed, in ``Target.operator`` for the operator-aware rules.
    """
    if operator is None:
        return rule_settings(kuberay_version, feature_gates, environment)
    config = pulumi.Config(CONFIG_NAMESPACE)
    try:
        config_gates = parse_feature_gates(config.get_object("featureGates") or config.get("featureGates"))
    except TargetError as exc:
        raise ValueError(f"stack config kuberay:featureGates: {exc}") from None
    try:
        merge_target(
            operator.setup,
            config_version=kuberay_version or config.get("version"),
            config_gates={**config_gates, **(feature_gates or {})},
        )
    except TargetConflictError as exc:
        raise ValueError(str(exc)) from None
    return target_for_operator(rule_settings(environment=environment), operator.setup)


def operator_options(
    opts: pulumi.ResourceOptions | None, operator: KubeRayOperator | None
) -> pulumi.ResourceOptions | None:
    """``opts`` plus a dependency on ``operator`` (its CRDs and chart exist before the Ray object)."""
    if operator is None:
        return opts
    return pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[operator]))


document_constructor(
    KubeRayOperator,
    summary="Install the KubeRay operator: its CRDs (server-side applied first) and its Helm chart, checked against the rule catalogue; pass it as ``operator=`` to the Ray components so they are checked against this operator and depend on it.",
    parameters={
        "args": "What to install: a :class:`~pulumi_kuberay.KubeRayOperatorArgs` or a dict in its shape; each keyword below sets the field of the same name.",
        "values": "The chart values: a :class:`~pulumi_kuberay.KubeRayOperatorValues` or a dict of the chart's values.",
        "namespace": "Namespace of the operator (the Helm release namespace; default ``kuberay-system``).",
        "create_namespace": "Create the namespace (default true).",
        "environment": "``dev`` / ``staging`` / ``prod`` for the operator's own rules (default: stack config ``kuberay:environment``).",
        "name": "The Pulumi resource name (its child resources are named after it).",
        "admission_policies": "Also install the rules' ValidatingAdmissionPolicies: ``True`` or ``\"enforce\"`` (deny what the pack blocks in the environment, warn about the rest), ``\"warn\"`` or ``\"audit\"``; default false.",
    },
    fields_of=KubeRayOperatorArgs,
    example="""
        import pulumi_kuberay as kr

        operator = kr.KubeRayOperator("kuberay", version="1.7.0", feature_gates={"RayCronJob": True})
        spec = kr.RayClusterSpec(image="rayproject/ray:2.52.0", head_group_spec=kr.HeadGroupSpec(cpu=2, memory="8Gi"))
        cluster = kr.RayCluster("ray", spec, operator=operator)
    """,
)


__all__ = [
    "CrdDowngradeError",
    "KubeRayOperator",
    "check_setup",
    "crd_version_in_checkpoint",
    "operator_options",
    "operator_target",
    "previous_crd_version",
]
