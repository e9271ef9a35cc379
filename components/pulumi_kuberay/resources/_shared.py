"""The pieces the KubeRay components are built from: the status-keeping custom resource, naming, metadata,
rule settings, the catalogue run and readers of rendered specs. The order of work that puts them together is
:class:`pulumi_kuberay.resources._component.RayComponent` (validate and render with ``coerce_spec`` /
``render_manifest``, ``check_manifest`` raising on critical findings before the custom resource is registered,
the other findings as warnings on the component, then one :class:`RayCustomResource` parented to it).

Naming: the Kubernetes object is named after the component (``metadata.name = name``) unless an explicit
``object_name`` is given. There is no random suffix, because KubeRay derives Service and Pod names from the
name and limits its length; a replacement therefore deletes the old object first (``delete_before_replace``).
"""

from __future__ import annotations

import contextvars
import functools
import importlib.metadata
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import pulumi
from pydantic import BaseModel

from pulumi_kuberay.kuberay import HEAD_DEFAULT_PORTS
from pulumi_kuberay.kuberay.api import API_VERSION as API_VERSION
from pulumi_kuberay.model import ManifestError, validate_as
from pulumi_kuberay.resources import _provider_wait_for
from pulumi_kuberay.rules import SUPPRESS_PREFIX, Finding
from pulumi_kuberay.rules.target import STACK_CONFIG_KEYS, Target, TargetError, target_from_stack_config

#: Package part of the components' type tokens (``kuberay:index:RayCluster``); part of every child URN.
TOKEN_PACKAGE = "kuberay"
#: Stack config namespace of the rule settings (``kuberay:version``, ``kuberay:environment``,
#: ``kuberay:featureGates``, ...): the policy pack reads the same keys through ``pulumi_kuberay.rules.target``.
CONFIG_NAMESPACE = "kuberay"

# The await annotations, and their values per kind, live in ``_provider_wait_for`` (pure; tested against status
# snapshots).
WAIT_FOR_ANNOTATION = _provider_wait_for.WAIT_FOR_ANNOTATION
TIMEOUT_ANNOTATION = _provider_wait_for.TIMEOUT_ANNOTATION

CLUSTER_DOMAIN = "cluster.local"
#: KubeRay's default ports (``DefaultDashboardPort``, ``DefaultClientPort``, ... in its ``utils`` constants), used when
#: the head container declares no port of that name.
DEFAULT_PORTS: dict[str, int] = dict(HEAD_DEFAULT_PORTS)

JsonDict = dict[str, Any]
SpecT = TypeVar("SpecT", bound=BaseModel)
P = ParamSpec("P")
R = TypeVar("R")


def token(kind: str) -> str:
    """The component type token for ``kind``, e.g. ``kuberay:index:RayCluster``."""
    return f"{TOKEN_PACKAGE}:index:{kind}"


# --------------------------------------------------------------------------------------------------
# The custom resource that keeps ``status``.


@functools.cache  # importlib.metadata scans site-packages: 2.5 ms a call, once per component otherwise
def _kubernetes_plugin_version() -> str | None:
    try:
        return importlib.metadata.version("pulumi-kubernetes")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a declared dependency
        return None


class RayCustomResource(pulumi.CustomResource):
    """A ``kubernetes:ray.io/v1:<Kind>`` resource whose live ``status`` is an output.

    ``pulumi_kubernetes.apiextensions.CustomResource`` only resolves the keys it sent as inputs, so the
    provider's ``status`` is dropped (pulumi-kubernetes#1836). This class registers the same type token with
    ``status: None`` among its props (a None input is not sent), which makes the SDK resolve ``status`` from
    the provider's outputs. Attributes use the wire names: ``apiVersion``, ``kind``, ``metadata``, ``spec``,
    ``status`` (the SDK resolves each prop under its own key; renaming them would also rename nested keys).
    """

    if TYPE_CHECKING:  # pulumi resolves class annotations on every instance: about 1.4 ms each
        apiVersion: pulumi.Output[str]
        kind: pulumi.Output[str]
        metadata: pulumi.Output[JsonDict]
        spec: pulumi.Output[JsonDict]
        status: pulumi.Output[JsonDict | None]

    def __init__(
        self, resource_name: str, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions | None = None
    ) -> None:
        api_version = str(manifest["apiVersion"])
        kind = str(manifest["kind"])
        props: dict[str, Any] = {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": manifest.get("metadata"),
            "spec": manifest.get("spec"),
            "status": None,
        }
        # The version pins the Kubernetes plugin the engine loads when no explicit provider is given, as the
        # generated CustomResource does.
        version = pulumi.ResourceOptions(version=_kubernetes_plugin_version())
        super().__init__(
            f"kubernetes:{api_version}:{kind}",
            resource_name,
            props,
            pulumi.ResourceOptions.merge(opts, version),
        )


# --------------------------------------------------------------------------------------------------
# Args, metadata and manifests.


def coerce_spec(model: type[SpecT], args: SpecT | Mapping[str, Any], *, subject: str) -> SpecT:
    """``args`` as ``model``: an instance is taken as is; a mapping is validated (ManifestError on failure,
    with CRD field paths under ``spec.``)."""
    if isinstance(args, model):
        return args
    if isinstance(args, BaseModel) or not isinstance(args, Mapping):
        raise TypeError(f"{subject}: expected {model.__name__} or a dict, got {type(args).__name__}")
    return validate_as(model, dict(args), prefix="spec", subject=subject)


def render_spec(spec: BaseModel) -> JsonDict:
    """The spec as the CRD expects it (CRD field names, only what was set)."""
    to_dict = getattr(spec, "to_dict", None)  # every model derives from KubeModel, which has it
    rendered = to_dict() if callable(to_dict) else spec.model_dump(by_alias=True, exclude_unset=True)
    if not isinstance(rendered, dict):  # pragma: no cover - defensive
        raise TypeError(f"{type(spec).__name__}.to_dict() returned {type(rendered).__name__}, not a dict")
    return rendered


def object_metadata(
    name: str,
    *,
    namespace: str | None = None,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
) -> JsonDict:
    """``metadata`` of the custom resource: fixed name, optional namespace, labels, annotations (copied)."""
    meta: JsonDict = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = {str(k): str(v) for k, v in labels.items()}
    if annotations:
        meta["annotations"] = {str(k): str(v) for k, v in annotations.items()}
    return meta


def render_manifest(kind: str, metadata: JsonDict, spec: JsonDict) -> JsonDict:
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def with_annotations(metadata: JsonDict, extra: Mapping[str, str]) -> JsonDict:
    """A copy of ``metadata`` with ``extra`` annotations added (the user's own values win on a clash)."""
    if not extra:
        return metadata
    merged = {**extra, **(metadata.get("annotations") or {})}
    return {**metadata, "annotations": merged}


# --------------------------------------------------------------------------------------------------
# Rule settings (target KubeRay version, operator feature gates, environment) and running the catalogue.


class StackConfigValueError(pulumi.RunError, ValueError):
    """A ``kuberay:*`` stack config value the rules cannot use. A RunError: the language host prints only the
    message (anything else gets a traceback of asyncio frames); a ValueError, as before."""


#: The ``kuberay:*`` stack config keys the rule settings are read from (see ``pulumi_kuberay.rules.target``).
CONFIG_KEYS = STACK_CONFIG_KEYS


def rule_settings(
    kuberay_version: str | None = None,
    feature_gates: Mapping[str, bool] | None = None,
    environment: str | None = None,
) -> Target:
    """What the catalogue checks against: the stack config ``kuberay:version``, ``kuberay:environment``,
    ``kuberay:featureGates`` (over the version's defaults) and the organisation options (``kuberay:gpuBudget``,
    ``kuberay:podSecurityProfile``...: :class:`~pulumi_kuberay.rules._options.OrgOptions`), read exactly as the
    policy pack reads them; explicit arguments take precedence.

    Raises ValueError naming the config key or argument when a value cannot be used.
    """
    config = pulumi.Config(CONFIG_NAMESPACE)
    raw = tuple((f"{CONFIG_NAMESPACE}:{key}", value) for key in CONFIG_KEYS if (value := config.get(key)) is not None)
    gates = None if feature_gates is None else tuple(feature_gates.items())
    try:
        return _target_of(raw, kuberay_version, gates, environment)
    except TypeError:  # an unhashable argument (the checks below reject it with their own message)
        return _target_of.__wrapped__(raw, kuberay_version, gates, environment)


@functools.lru_cache(maxsize=64)
def _target_of(
    raw: tuple[tuple[str, str], ...],
    kuberay_version: str | None,
    feature_gates: tuple[tuple[str, bool], ...] | None,
    environment: str | None,
) -> Target:
    """The Target of these config values and arguments: one shared (frozen) Target for every component that has
    the same, rather than a Target and its options per component, kept while the program runs."""
    try:
        stack = target_from_stack_config(dict(raw))
    except TargetError as exc:
        bad = exc.bad or tuple((key, str(exc)) for key, _ in raw[:1])
        keys = ", ".join(key for key, _ in bad)
        fixes = [f"{why} (fix: pulumi config set {key} <a value named above>)" for key, why in bad]
        if len(fixes) == 1:
            raise StackConfigValueError(f"stack config ({keys}): {fixes[0]}") from None
        listed = "".join(f"\n  - {key}: {fix}" for (key, _), fix in zip(bad, fixes, strict=True))
        raise StackConfigValueError(f"stack config ({keys}): {len(fixes)} values cannot be used:{listed}") from None
    try:
        return stack.override(
            kuberay_version=kuberay_version,
            feature_gates=None if feature_gates is None else dict(feature_gates),
            environment=environment,
        )
    except TargetError as exc:
        raise ValueError(f"kuberay_version/feature_gates/environment argument: {exc}") from None


def format_finding(finding: Finding) -> str:
    """``[rule-id] severity at path: message (fix: ...)``: what, where and how to fix it."""
    where = finding.path or "(resource)"
    return f"[{finding.rule_id}] {finding.severity} at {where}: {finding.message} (fix: {finding.fix})"


class CriticalFindingsError(pulumi.RunError):
    """The rendered manifest has critical findings: the API server or the operator would reject or ignore it,
    or it breaks the workload. Raised while the component is constructed, before anything is registered.
    ``findings`` lists them. (A RunError is reported by the CLI without a Python traceback.)
    """

    def __init__(self, subject: str, findings: Sequence[Finding]) -> None:
        self.subject = subject
        self.findings: tuple[Finding, ...] = tuple(findings)
        count = len(self.findings)
        lines = [f"{subject}: {count} critical finding{'s' if count != 1 else ''}:"]
        lines += [f"  - {format_finding(f)}" for f in self.findings]
        lines.append(
            f"  (to silence a rule on this resource, give a reason in the annotation '{SUPPRESS_PREFIX}<rule-id>')"
        )
        super().__init__("\n".join(lines))


class SpecRunError(pulumi.RunError, ManifestError):
    """A :class:`~pulumi_kuberay.model.ManifestError` raised while a component is constructed: the same problems
    (field path, message, fix), and a ``pulumi.RunError``, which the CLI reports without a Python traceback."""

    def __init__(self, error: ManifestError) -> None:
        ManifestError.__init__(self, error.problems, subject=error.subject)

    @classmethod
    def of(cls, error: ManifestError) -> SpecRunError:
        """``error`` as a :class:`SpecRunError` (itself when it is one)."""
        return error if isinstance(error, SpecRunError) else cls(error)


class ArgumentValueError(pulumi.RunError, ValueError):
    """A component's argument the component refuses (its message says what, where and the fix): a ``ValueError``
    and a ``pulumi.RunError``, which the CLI reports without a Python traceback."""


class ArgumentTypeError(pulumi.RunError, TypeError):
    """A component's argument of the wrong type, reported as :class:`ArgumentValueError` is."""


def as_user_error(exc: Exception) -> Exception | None:
    """The ``pulumi.RunError`` to raise for a user's error ``exc`` raised while a component is built (a
    :class:`~pulumi_kuberay.model.ManifestError`, or a plain ``ValueError``/``TypeError`` of the component's own
    checks), else ``None`` (a pydantic ``ValidationError`` and other subclasses are left as they are)."""
    if isinstance(exc, ManifestError):
        return SpecRunError.of(exc)
    if type(exc) is ValueError:
        return ArgumentValueError(*exc.args)
    if type(exc) is TypeError:
        return ArgumentTypeError(*exc.args)
    return None


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` raising :func:`as_user_error` of the user's errors (a component's constructor: the user's error is
    reported without the component's frames)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except (ValueError, TypeError) as exc:
            user = as_user_error(exc)
            if user is None:
                raise
            raise user from None

    return wrapper


def check_manifest(manifest: JsonDict, target: Target, *, subject: str) -> list[Finding]:
    """Run the rule catalogue; raise :class:`CriticalFindingsError` on any critical finding, else return the
    lower-severity findings (warnings on the component)."""
    from pulumi_kuberay import rules  # the catalogue loads its rule modules on first use

    # In a copy of the program's context: the catalogue sets and resets a context variable per document, and each
    # reset in the program's own context left a new context mapping that every task and callback made after it
    # shares (two objects per component, kept while the program runs).
    findings = contextvars.copy_context().run(rules.check, manifest, target)
    critical = [f for f in findings if f.severity == "critical"]
    if critical:
        raise CriticalFindingsError(subject, critical)
    return list(findings)


# --------------------------------------------------------------------------------------------------
# Reading rendered specs (for outputs such as service names and URLs).


def head_container(cluster_spec: Mapping[str, Any] | None) -> JsonDict:
    """containers[0] of the head template of a rendered RayClusterSpec (``{}`` if absent)."""
    head = (cluster_spec or {}).get("headGroupSpec") or {}
    containers = ((head.get("template") or {}).get("spec") or {}).get("containers") or []
    first = containers[0] if containers else {}
    return first if isinstance(first, dict) else {}


def head_port(cluster_spec: Mapping[str, Any] | None, port_name: str) -> int:
    """The head container's port named ``port_name``, else KubeRay's default for that name."""
    for port in head_container(cluster_spec).get("ports") or []:
        if isinstance(port, Mapping) and port.get("name") == port_name and port.get("containerPort"):
            return int(port["containerPort"])
    return DEFAULT_PORTS[port_name]


def service_host(service: str, namespace: str) -> str:
    return f"{service}.{namespace}.svc.{CLUSTER_DOMAIN}"


def namespace_of(metadata: Mapping[str, Any] | None) -> str:
    """The object's namespace from its metadata output ("default" when the provider's default was used)."""
    return str((metadata or {}).get("namespace") or "default")


def diagnosis_summary(manifest: Mapping[str, Any], status: Mapping[str, Any] | None) -> str | None:
    """The one-line summary of :func:`pulumi_kuberay.diagnose` for the object with this live status; None
    while no status was seen (e.g. when rendering to a directory, where "no status yet" would mislead)."""
    if not status:
        return None
    from pulumi_kuberay.status import diagnose  # pure; loaded only once a status is known

    return str(diagnose({**manifest, "status": dict(status)}).summary)


def child_options(parent: pulumi.Resource, **options: Any) -> pulumi.ResourceOptions:
    """Options of the component's custom resource: parented (providers flow through the parent) + extras."""
    return pulumi.ResourceOptions(parent=parent, **options)
