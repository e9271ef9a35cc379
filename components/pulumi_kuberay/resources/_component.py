"""What the four KubeRay components share: the order of work from arguments to a registered custom resource.

Every component (:class:`RayComponent` subclasses) goes through the same steps; a subclass only says what is
particular to its kind (:meth:`RayComponent._prepare_spec`, :meth:`RayComponent._finish_spec`, its resource
options and its outputs):

1. the arguments (spec, namespace, labels, ...) may hold ``pulumi.Input`` values: when none does, everything
   below runs at once and a bad spec raises before anything is registered (not even the component); else
   the component is registered and the steps run once the values are known (at preview, values not known
   yet are the catalogue's unknown sentinel);
2. validate the spec into the typed model and render the manifest (:meth:`RayComponent._build`);
3. run the rule catalogue: a critical finding raises (:class:`CriticalFindingsError`) *before the custom
   resource is registered*; lower severities become warnings on the component;
4. register one :class:`RayCustomResource` parented to the component, then the outputs;
5. at ``pulumi up`` (never at preview), wait for the object in the component (``_component_await``: poll the
   object and its events until :func:`~pulumi_kuberay.resources._verdict.verdict` says done or failed, then
   fail with :func:`pulumi_kuberay.diagnose`'s line or hand the final status to the outputs). The provider's
   ``pulumi.com/waitFor`` is only the fallback where the component cannot reach the cluster.

Secret Outputs stay secret: every value of the manifest that holds one is sent as a secret, and messages
(errors, warnings) show ``[secret]`` instead.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypedDict, TypeVar

import pulumi
from pydantic import BaseModel

from pulumi_kuberay import rules
from pulumi_kuberay.kuberay import KUEUE_QUEUE_LABEL
from pulumi_kuberay.kuberay.api import API_VERSION
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.model import ManifestError, Problem
from pulumi_kuberay.model.suggest import did_you_mean
from pulumi_kuberay.resources import _change_plan, _inputs, _preflight
from pulumi_kuberay.resources._component_await import (
    DEFAULT_TIMEOUT_SECONDS,
    WaitSpec,
    awaited_status,
    cluster_access,
    plan_await,
)
from pulumi_kuberay.resources._outputs import OnAwait, derived, known_output, ready
from pulumi_kuberay.resources._shared import (
    CriticalFindingsError,
    JsonDict,
    RayCustomResource,
    as_user_error,
    check_manifest,
    child_options,
    coerce_spec,
    diagnosis_summary,
    format_finding,
    head_container,
    object_metadata,
    render_manifest,
    render_spec,
    rule_settings,
    token,
    with_annotations,
)
from pulumi_kuberay.rules import Finding
from pulumi_kuberay.rules.target import Target

if TYPE_CHECKING:
    # Only a program that passes operator= needs the operator component (its chart values models cost ~50 ms of
    # import): it is loaded then (operator_options, operator_target below).
    from pulumi_kuberay.plan import Change
    from pulumi_kuberay.resources.kuberay_operator import KubeRayOperator

SpecT = TypeVar("SpecT", bound=BaseModel)
_T = TypeVar("_T")

#: The label Kueue reads to admit a workload into a LocalQueue (``local_queue=``; rule ``kueue-rayjob-limits``).


class ObjectKeywords(TypedDict, total=False):
    """Keywords of every component (each may be a ``pulumi.Input``)."""

    namespace: pulumi.Input[str] | None
    """Namespace of the object (default: the provider's)."""
    object_name: pulumi.Input[str] | None
    """Kubernetes name of the object (default: the component's name)."""
    labels: pulumi.Input[Mapping[str, pulumi.Input[str]]] | None
    """Labels of the object."""
    annotations: pulumi.Input[Mapping[str, pulumi.Input[str]]] | None
    """Annotations of the object (``suppress.pulumi-kuberay.io/<rule-id>: "<reason>"`` silences a rule)."""
    kuberay_version: pulumi.Input[str] | None
    """KubeRay version the catalogue checks against (default: stack config ``kuberay:version``)."""
    feature_gates: pulumi.Input[Mapping[str, pulumi.Input[bool]]] | None
    """Operator feature gates (default: stack config ``kuberay:featureGates`` over the version's defaults)."""
    environment: pulumi.Input[str] | None
    """``dev`` / ``staging`` / ``prod`` (default: stack config ``kuberay:environment``)."""
    operator: KubeRayOperator | None
    """The :class:`~pulumi_kuberay.resources.kuberay_operator.KubeRayOperator` that runs the object: the rule target
    (version, feature gates, watched namespaces) comes from it, and the object depends on it."""


class WorkloadKeywords(ObjectKeywords, total=False):
    """Keywords of the components that run Pods directly (RayCluster, RayJob, RayService)."""

    local_queue: pulumi.Input[str] | None
    """Kueue LocalQueue to admit the workload into (label ``kueue.x-k8s.io/queue-name``)."""
    timeout_seconds: pulumi.Input[int] | None
    """How long ``pulumi up`` waits for the object (default 600): the component's own wait, or the provider's
    ``pulumi.com/timeoutSeconds`` where the provider waits instead."""


@dataclass
class CommonArgs:
    """The keyword arguments every component takes (resolved: plain values)."""

    object_name: Any = None
    namespace: Any = None
    labels: Any = None
    annotations: Any = None
    local_queue: Any = None
    wait: Any = False
    timeout_seconds: Any = None
    kuberay_version: Any = None
    feature_gates: Any = None
    environment: Any = None
    operator: KubeRayOperator | None = None

    @classmethod
    def of(cls, kind: str, keywords: Mapping[str, Any], allowed: type, *, wait: Any = False) -> CommonArgs:
        """From a component's ``**keywords`` (``allowed``: its TypedDict); an unknown keyword is a TypeError
        with the closest known one."""
        known = sorted(allowed.__annotations__)
        for key in keywords:
            if key not in known:
                hint = did_you_mean(key, known) or f"known: {', '.join(known)}"
                raise TypeError(f"{kind}() got an unexpected keyword argument {key!r} ({hint})")
        return cls(wait=wait, **keywords)


@dataclass
class Built(Generic[SpecT]):
    """What a component made of its resolved arguments."""

    spec: SpecT | None
    manifest: JsonDict | None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Warnings of the component itself (e.g. replicas left to the autoscaler)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """What a kind keeps for its outputs (e.g. the selected cluster's outputs)."""
    wait_spec: WaitSpec | None = None
    """How ``pulumi up`` waits for the object (``_component_await.plan_await``)."""
    target: Target | None = None
    """What the object is checked against (operator version and gates: the change plan's operator too)."""
    force_apply: bool = False
    """Send the object with Pulumi's forced server-side apply, as :attr:`RayComponent.FORCE_APPLY` does for a
    whole kind (a RayCluster whose worker groups' replicas are read from the live object)."""


def _expect(subject: str, name: str, value: Any, types: tuple[type, ...], word: str) -> None:
    if value is None or value == UNKNOWN_SENTINEL:
        return
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        raise TypeError(f"{subject}: {name}: expected {word}, got {type(value).__name__} {value!r}")


def _expect_str_map(subject: str, name: str, value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, Mapping):
        raise TypeError(f"{subject}: {name}: expected a mapping of strings, got {type(value).__name__}")
    for key, item in value.items():
        if not isinstance(key, str) or not isinstance(item, str):
            raise TypeError(
                f"{subject}: {name}[{key!r}]: expected a string, got {type(item).__name__} {item!r} (quote numbers and booleans: label and annotation values are strings)"
            )


#: Read by Pulumi's Kubernetes provider on create and update: force the server-side apply.
FORCE_APPLY_ANNOTATION = "pulumi.com/patchForce"


class RayComponent(pulumi.ComponentResource, Generic[SpecT]):
    """Base of the KubeRay components (see the module docstring for the order of work)."""

    KIND: ClassVar[str]
    SPEC_MODEL: ClassVar[type[BaseModel]]
    #: Pulumi's server-side apply takes its fields back from another field manager on update (the provider's
    #: ``pulumi.com/patchForce`` annotation); for kinds whose spec the operator itself writes incidentally.
    FORCE_APPLY: ClassVar[bool] = False

    if TYPE_CHECKING:  # pulumi resolves class annotations on every instance: about 1.4 ms each
        resource: RayCustomResource
        _spec: SpecT | None
        manifest: JsonDict | None
        manifest_output: pulumi.Output[JsonDict]
        _manifest_for_dependents: pulumi.Output[JsonDict] | JsonDict | None
        status: pulumi.Output[JsonDict | None]
        namespace: pulumi.Output[str]

    @property
    def spec(self) -> SpecT | None:
        """The typed spec: the model you passed, else the spec as sent (``manifest["spec"]``) as a model, validated
        when first read; ``None`` when an argument was a ``pulumi.Input`` not known at construction."""
        if self._spec is None and self.manifest is not None:
            self._spec = coerce_spec(self.SPEC_MODEL, self.manifest["spec"], subject=f"{self.KIND} spec")
        return self._spec

    # ----------------------------------------------------------------------------------------------
    # What a kind may change.

    def _prepare_spec(self, args: Any, common: CommonArgs, extra: Any, subject: str) -> SpecT:
        """The typed spec from the resolved ``args`` (override to adjust args first)."""
        spec: SpecT = coerce_spec(self.SPEC_MODEL, args, subject=subject)
        return spec

    def _finish_spec(self, spec_dict: JsonDict, built: Built[SpecT], subject: str, ref: tuple[str, str]) -> JsonDict:
        """The rendered spec as sent (override to drop or add fields; add notes to ``built.notes``; set
        ``built.force_apply``); ``ref`` is the object's (namespace, name)."""
        return spec_dict

    def _resource_options(self, extra: Any) -> dict[str, Any]:
        """Options of the custom resource beyond the parent (every kind: fixed name, so delete first)."""
        return {"delete_before_replace": True}

    def _declare_outputs(self, built: pulumi.Output[Built[SpecT]], k8s_name: pulumi.Output[str]) -> JsonDict:
        """Set the kind's output attributes; return them for ``register_outputs``."""
        raise NotImplementedError

    # ----------------------------------------------------------------------------------------------
    # The shared flow.

    def _setup(
        self,
        name: str,
        args: Any,
        opts: pulumi.ResourceOptions | None,
        common: CommonArgs,
        extra: Any = None,
    ) -> None:
        self._await_opts = opts  # --- wait: plan_await needs to know the provider (see _component_await)
        # The operator is a resource, not an input: kept aside from the inputs resolved below.
        self._operator = common.operator
        opts = operator_options(opts, common.operator)
        keywords = {f.name: getattr(common, f.name) for f in dataclasses.fields(common) if f.name != "operator"}
        raw = {"args": args, "common": keywords, "extra": extra}
        self._spec = None
        self.manifest = None
        self._built_now: Built[SpecT] | None = None
        # What the change plan reads when its hook runs (``_plan_settings``): the target of a spec known now, else
        # the task that builds it once the inputs are known.
        self._target: Target | None = None
        self._later: asyncio.Future[tuple[Built[SpecT], _inputs.Resolved]] | None = None
        if not _inputs.has_inputs(raw):
            # Everything is known now: a bad spec raises before anything is registered.
            built = self._build(name, args, common, extra, secrets=[])
            # The typed spec is not kept (see ``spec``): with a thousand components, their models were a sixth of
            # the objects alive while the program declares resources, which Python's garbage collector walks.
            self._spec = args if isinstance(args, self.SPEC_MODEL) else None  # type: ignore[assignment]
            built.spec = None
            self.manifest = built.manifest
            self._built_now = built
            self._target = built.target
            self._manifest_for_dependents = dependents_view(built.manifest) if built.manifest is not None else None
            super().__init__(token(self.KIND), name, None, opts)
            self._planner = self._make_planner(opts)
            self._warn(built, [])
            self._register(name, self._props_now(built), known_output(built), extra, common)
            # Only the outputs needed it: the findings, notes and wait plan are not kept once they are declared.
            self._built_now = None
            return

        super().__init__(token(self.KIND), name, None, opts)
        self._register_later(name, raw, extra, common)

    @staticmethod
    def _props_now(built: Built[SpecT]) -> dict[str, Any]:
        manifest = built.manifest or {}
        return {"metadata": manifest.get("metadata"), "spec": manifest.get("spec")}

    def _register_later(self, name: str, raw: dict[str, Any], extra: Any, common: CommonArgs) -> None:
        """Register the custom resource with props computed once the inputs are known."""
        task: asyncio.Future[tuple[Built[SpecT], _inputs.Resolved]] = asyncio.ensure_future(
            self._build_later(name, raw)
        )
        self._later = task
        self._planner = self._make_planner(getattr(self, "_await_opts", None))

        async def built_value() -> Built[SpecT]:
            return (await task)[0]

        async def built_known() -> bool:
            built, resolved = await task
            return resolved.known and built.manifest is not None

        async def built_secret() -> bool:
            return bool((await task)[1].secrets)

        async def deps() -> set[pulumi.Resource]:
            return (await task)[1].resources

        later = OnAwait
        built_output: pulumi.Output[Built[SpecT]] = pulumi.Output(
            later(deps), later(built_value), later(built_known), later(built_secret)
        )

        async def for_dependents() -> JsonDict:
            # Always "known": values not known yet are the unknown sentinel inside it (a RayJob's cluster=).
            manifest = (await task)[0].manifest
            unknown = {"name": UNKNOWN_SENTINEL, "namespace": UNKNOWN_SENTINEL}
            return dependents_view(manifest) if manifest is not None else {"metadata": unknown, "spec": {}}

        async def dependents_secret() -> bool:
            # Secret only when what a dependent reads holds a secret value: a password elsewhere in the spec
            # must not make the RayJob of cluster= (its selector, its submitter image) secret as a whole.
            built, resolved = await task
            view = dependents_view(built.manifest) if built.manifest is not None else {}
            return bool(resolved.secrets) and bool(_inputs.secrets_found(view, resolved.secrets))

        self._manifest_for_dependents = pulumi.Output(
            later(deps), later(for_dependents), ready(True), later(dependents_secret)
        )

        def prop(key: str) -> pulumi.Output[Any]:
            async def value() -> Any:
                built, resolved = await task
                if built.manifest is None:
                    return None
                return _inputs.mark_secrets(built.manifest[key], resolved.secrets)

            async def known() -> bool:
                return (await task)[0].manifest is not None

            async def secret() -> bool:
                # A secret value the rendering changed beyond recognition: keep the whole field secret.
                built, resolved = await task
                if not resolved.secrets or built.manifest is None:
                    return False
                return len(_inputs.secrets_found(built.manifest, resolved.secrets)) < len(resolved.secrets)

            return pulumi.Output(later(deps), later(value), later(known), later(secret))

        self._register(name, {"metadata": prop("metadata"), "spec": prop("spec")}, built_output, extra, common)

    async def _build_later(self, name: str, raw: dict[str, Any]) -> tuple[Built[SpecT], _inputs.Resolved]:
        resolved = await _inputs.resolve(raw)
        value = resolved.value
        common = CommonArgs(**value["common"])
        try:
            built = self._build(name, value["args"], common, value["extra"], secrets=resolved.secrets)
        except ManifestError as exc:
            unknown = [p for p in exc.problems if UNKNOWN_SENTINEL in str(p)]
            if resolved.known or len(unknown) < len(exc.problems):
                raise
            # Preview: only values not known yet stand in the way; the spec is validated at update.
            built = Built(spec=None, manifest=None)
            paths = ", ".join(sorted({p.path for p in unknown}))
            built.notes.append(
                f"{self._subject(name, common)}: not validated at preview, values not known yet at {paths} (validated and checked before the update creates anything)"
            )
        self._warn(built, resolved.secrets)
        return built, resolved

    def _from_built(
        self, built: pulumi.Output[Built[SpecT]], derive: Callable[[Built[SpecT]], _T]
    ) -> pulumi.Output[_T]:
        """``derive`` of the spec built once the inputs are known, secret only if its value holds a secret value.

        ``built`` as a whole is secret when any input is (a Redis password): the names, ports and URLs derived
        from it are not, unless a secret value is in them (the same per-value rule as the custom resource's
        fields, ``_inputs.mark_secrets``)."""
        task = self._later
        if task is None:  # the inputs were plain values: nothing is secret
            return derived(built, derive)

        async def value() -> _T:
            return derive((await task)[0])

        async def known() -> bool:
            built, resolved = await task
            return resolved.known and built.manifest is not None

        async def secret() -> bool:
            built, resolved = await task
            return bool(resolved.secrets) and bool(_inputs.secrets_found(derive(built), resolved.secrets))

        async def deps() -> set[pulumi.Resource]:
            return (await task)[1].resources

        return pulumi.Output(OnAwait(deps), OnAwait(value), OnAwait(known), OnAwait(secret))

    def _subject(self, name: str, common: CommonArgs) -> str:
        k8s_name = common.object_name or name
        return f"{self.KIND} {k8s_name!r}"

    def _build(self, name: str, args: Any, common: CommonArgs, extra: Any, *, secrets: list[Any]) -> Built[SpecT]:
        """Validate, render and check (pure apart from reading the stack config); raises on a bad spec."""
        subject = self._subject(name, common)
        try:
            return self._build_spec(name, args, common, extra, subject=subject, secrets=secrets)
        except (ValueError, TypeError) as exc:
            user = as_user_error(exc)  # the user's error, printed without our frames
            if user is None:
                raise
            raise user from None

    def _build_spec(
        self, name: str, args: Any, common: CommonArgs, extra: Any, *, subject: str, secrets: list[Any]
    ) -> Built[SpecT]:
        try:
            return self._build_checked(name, args, common, extra, subject)
        except CriticalFindingsError as exc:
            if not secrets:
                raise
            raise CriticalFindingsError(subject, [_redacted(f, secrets) for f in exc.findings]) from None
        except ManifestError as exc:
            if not secrets:
                raise
            problems = [
                Problem(p.path, _inputs.redact(p.message, secrets), p.kind, p.fix and _inputs.redact(p.fix, secrets))
                for p in exc.problems
            ]
            raise ManifestError(problems, subject=exc.subject) from None
        except (TypeError, ValueError) as exc:
            if not secrets:
                raise
            raise type(exc)(_inputs.redact(str(exc), secrets)) from None

    def _build_checked(self, name: str, args: Any, common: CommonArgs, extra: Any, subject: str) -> Built[SpecT]:
        k8s_name = common.object_name or name
        _expect(subject, "object_name", common.object_name, (str,), "a string")
        _expect(subject, "namespace", common.namespace, (str,), "a string")
        _expect(subject, "local_queue", common.local_queue, (str,), "a string")
        _expect(subject, "timeout_seconds", common.timeout_seconds, (int,), "an integer")
        _expect_str_map(subject, "labels", common.labels)
        _expect_str_map(subject, "annotations", common.annotations)
        spec = self._prepare_spec(args, common, extra, subject)
        settings = operator_target(
            getattr(self, "_operator", None), common.kuberay_version, common.feature_gates, common.environment
        )
        built: Built[SpecT] = Built(spec=spec, manifest=None)
        ref = (common.namespace or "default", k8s_name)  # as the change plan reads it
        spec_dict = self._finish_spec(render_spec(spec), built, subject, ref)
        labels = dict(common.labels or {})
        if common.local_queue is not None:
            current = labels.get(KUEUE_QUEUE_LABEL)
            if current not in (None, common.local_queue):
                raise ValueError(
                    f"{subject}: labels[{KUEUE_QUEUE_LABEL!r}] is {current!r} but local_queue is {common.local_queue!r}; drop the label, local_queue sets it"
                )
            labels[KUEUE_QUEUE_LABEL] = common.local_queue
        metadata = object_metadata(
            k8s_name, namespace=common.namespace, labels=labels, annotations=common.annotations
        )
        # --- wait (owned by _component_await): the plan decides the annotations (skipAwait, or the provider's waitFor)
        plan = plan_await(
            self.KIND,
            spec_dict,
            labels=labels,
            annotations=common.annotations,
            opts=getattr(self, "_await_opts", None),
            timeout_seconds=common.timeout_seconds,
            enabled=bool(common.wait),
        )
        built.wait_spec = dataclasses.replace(plan, subject=subject)
        metadata = with_annotations(metadata, plan.annotations)
        if self.FORCE_APPLY or built.force_apply:
            metadata = with_annotations(metadata, {FORCE_APPLY_ANNOTATION: "true"})
        built.target = settings
        built.manifest = render_manifest(self.KIND, metadata, spec_dict)
        built.findings = check_manifest(built.manifest, settings, subject=subject)
        # --- preflight (owned by _preflight): the target cluster, when it can be read
        built.findings += _preflight.check(built.manifest, settings, getattr(self, "_await_opts", None), subject)
        return built

    def _diagnosis(self, built: pulumi.Output[Built[SpecT]], status: pulumi.Output[Any]) -> pulumi.Output[str | None]:
        """The one-line :func:`pulumi_kuberay.diagnose` summary of the live status (``built`` stays opaque to
        ``Output.all``, which would otherwise walk the whole manifest)."""
        now = self._built_now
        if now is not None:
            # Known at construction (``built`` is then known, not secret, without dependencies): the same Output
            # from ``status`` alone, without the Output.all's three extra tasks (see RayCluster._declare_outputs).
            return derived(status, _diagnosis_of, now.manifest or {})
        return pulumi.Output.all(built, status).apply(lambda pair: diagnosis_summary(pair[0].manifest or {}, pair[1]))

    def _awaited_status(
        self, built: pulumi.Output[Built[SpecT]], *, fail_on_failure: bool = True
    ) -> pulumi.Output[JsonDict | None]:
        """The live status once ``pulumi up``'s wait for the object is over (``_component_await.awaited_status``);
        the wait follows the change plan of this run (``_change_plan``)."""
        none = WaitSpec("none", {}, DEFAULT_TIMEOUT_SECONDS)
        now = self._built_now
        # Known at construction: the plan itself (the same status Output, two tasks fewer than through ``built``).
        plan = (now.wait_spec or none) if now is not None else self._from_built(built, lambda b: b.wait_spec or none)
        return awaited_status(
            self, self.resource, self.KIND, plan, fail_on_failure=fail_on_failure, follow=self._planner
        )

    def _last_change(self, status: pulumi.Output[Any]) -> pulumi.Output[_change_plan.ChangeRecord | None]:
        """What this ``pulumi up`` did to the object, once its wait is over (``last_change``)."""
        return derived(status, _record_of, self._planner)

    def _make_planner(self, opts: pulumi.ResourceOptions | None) -> _change_plan.Planner:
        # A bound method, not a closure over the built spec: the planner lives as long as the program, and so
        # would everything a closure holds (see ``_plan_settings``).
        return _change_plan.Planner(
            component=self,
            kind=self.KIND,
            settings=self._plan_settings,
            access=cluster_access(opts),
            render_dir=_change_plan.render_dir_of(opts),
        )

    async def _plan_settings(self) -> _change_plan.PlanSettings:
        """What the change plan needs once its hook runs: the manifest as built, the operator, the secrets."""
        if self._later is None:
            manifest, target, secrets = self.manifest, self._target, []
        else:
            built, resolved = await self._later
            manifest, target, secrets = built.manifest, built.target, resolved.secrets
        target = target or Target()
        from pulumi_kuberay.plan import Operator  # with the hook that needs it (see _change_plan)

        operator = Operator(version=target.version, feature_gates=dict(target.feature_gates))

        def redact(text: str) -> str:
            return _inputs.redact(text, secrets)

        def judge(change: Change, old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> None:
            _judge_change(self, change, old, new, target, redact)
            _preflight.judge_plan(self, change, new, target, access=self._planner.access, redact=redact)

        return _change_plan.PlanSettings(manifest, operator, redact, judge)

    def _warn(self, built: Built[SpecT], secrets: list[Any]) -> None:
        for finding in built.findings:
            pulumi.log.warn(_inputs.redact(format_finding(finding), secrets), resource=self)
        for note in built.notes:
            pulumi.log.warn(_inputs.redact(note, secrets), resource=self)

    def _register(
        self,
        name: str,
        props: dict[str, Any],
        built: pulumi.Output[Built[SpecT]],
        extra: Any,
        common: CommonArgs,
    ) -> None:
        manifest = {"apiVersion": API_VERSION, "kind": self.KIND, **props}
        options = self._resource_options(extra)
        # --- change plan (owned by _change_plan): hooks on the custom resource, run at preview and up
        hooks = _change_plan.attach(self._planner, f"kubernetes:ray.io/v1:{self.KIND}", name)
        if hooks is not None:
            options["hooks"] = hooks
        self.resource = RayCustomResource(
            name,
            manifest,
            operator_options(child_options(self, **options), getattr(self, "_operator", None)),
        )
        now = self._built_now
        if now is not None:
            # Known at construction: both are plain values (an apply of ``built`` would be a task each).
            self.manifest_output = known_output(now.manifest or {}, plain=True)  # rendered from plain arguments
            k8s_name = known_output(_object_name(now, name))
        else:
            self.manifest_output = built.apply(lambda b: b.manifest or {})
            k8s_name = self._from_built(built, lambda b: _object_name(b, name))
        self.register_outputs(self._declare_outputs(built, k8s_name))


def dependents_view(manifest: Mapping[str, Any]) -> JsonDict:
    """What another component reads of this object's manifest (a RayJob of ``cluster=``): its name and namespace
    and the head container's name and image, nothing else (no env, no secrets of the spec)."""
    meta = manifest.get("metadata") or {}
    head = head_container(manifest.get("spec"))
    container = {k: head[k] for k in ("name", "image") if k in head}
    return {
        "metadata": {k: meta[k] for k in ("name", "namespace") if k in meta},
        "spec": {"headGroupSpec": {"template": {"spec": {"containers": [container] if container else []}}}},
    }


def operator_options(
    opts: pulumi.ResourceOptions | None, operator: KubeRayOperator | None
) -> pulumi.ResourceOptions | None:
    """``opts`` plus a dependency on ``operator`` (:func:`~pulumi_kuberay.resources.kuberay_operator.operator_options`)."""
    if operator is None:
        return opts
    from pulumi_kuberay.resources import kuberay_operator

    return kuberay_operator.operator_options(opts, operator)


def operator_target(
    operator: KubeRayOperator | None,
    kuberay_version: str | None = None,
    feature_gates: Mapping[str, bool] | None = None,
    environment: str | None = None,
) -> Target:
    """The rule target (:func:`~pulumi_kuberay.resources.kuberay_operator.operator_target`)."""
    if operator is None:
        return rule_settings(kuberay_version, feature_gates, environment)
    from pulumi_kuberay.resources import kuberay_operator

    return kuberay_operator.operator_target(operator, kuberay_version, feature_gates, environment)


def _object_name(built: Built[Any], name: str) -> str:
    return str(((built.manifest or {}).get("metadata") or {}).get("name") or name)


def _diagnosis_of(live: Any, manifest: Mapping[str, Any]) -> str | None:
    return diagnosis_summary(manifest, live)


def _record_of(_status: Any, planner: _change_plan.Planner) -> _change_plan.ChangeRecord | None:
    return _change_plan.record(planner)


def _judge_change(  # noqa: PLR0917
    component: pulumi.Resource,
    change: Change,
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any],
    target: Target,
    redact: Callable[[str], str],
) -> None:
    """The change rules on one change: warnings on the component; a critical finding fails the step."""
    findings = change_findings(change, old, new, target)
    critical = [f for f in findings if f.severity == "critical"]
    for finding in findings:
        if finding.severity != "critical":
            pulumi.log.warn(redact(format_finding(finding)), resource=component)
    if critical:
        raise CriticalFindingsError(change.subject, critical)


def change_findings(
    change: Change, old: Mapping[str, Any] | None, new: Mapping[str, Any], target: Target
) -> list[Finding]:
    """What the change rules report on one planned change in the components' resource hook (``change`` is the plan
    the hook made, with the live objects where it read them)."""
    return rules.check_change(old, new, target.context(), plan=change)


def _redacted(finding: Finding, secrets: list[Any]) -> Finding:
    return dataclasses.replace(
        finding,
        message=_inputs.redact(finding.message, secrets),
        path=_inputs.redact(finding.path, secrets),
        fix=_inputs.redact(finding.fix, secrets),
    )


__all__ = ["Built", "CommonArgs", "ObjectKeywords", "RayComponent", "WorkloadKeywords"]
