"""The component-side await: after the provider created or updated a KubeRay object, watch it until
:func:`~pulumi_kuberay.resources._verdict.verdict` says the wait is over, then fail ``pulumi up`` with the
diagnosis or hand the final status on. Never during preview.

Mechanism, and why: the object carries ``pulumi.com/skipAwait: "true"`` so the provider returns as soon as the
API server accepted the create or update (deletion is still awaited by the provider: skipAwait does not apply
to custom resources there, ``allowsSkipAwaitWithDelete``). The component then polls the object and the events
about it through a small read-only REST client (``_kube``) with the kubeconfig the default provider uses, every
``POLL_SECONDS``, up to ``timeout_seconds``. Polling (not a watch) keeps the client tiny and the load trivial;
the object's own status and events are all the verdict needs. ``CustomResource.get`` was rejected: each read
registers a resource in the stack, and it cannot read events. When the component cannot know the provider's
cluster (an explicit ``kubernetes`` provider in its options or its parents' that the program did not register
with :func:`watch_with`) or no kubeconfig is found, it falls back to the provider's ``pulumi.com/waitFor``
(``_provider_wait_for``), with that mechanism's limits. The environment
variable ``PULUMI_KUBERAY_AWAIT`` = ``component`` | ``provider`` | ``auto`` (default) forces the choice.
"""

from __future__ import annotations

import asyncio
import os
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal, TypeVar

import pulumi

from pulumi_kuberay import kubeclient
from pulumi_kuberay.resources import _change_plan, _provider_wait_for
from pulumi_kuberay.resources._verdict import Verdict, deletes_itself, verdict
from pulumi_kuberay.status import diagnose

__all__ = [
    "AwaitTimeoutError",
    "WaitFailedError",
    "WaitSpec",
    "awaited_status",
    "cluster_access",
    "plan_await",
    "poll_until_over",
    "watch_with",
]

AWAIT_ENV: Final = "PULUMI_KUBERAY_AWAIT"
SKIP_AWAIT_ANNOTATION: Final = "pulumi.com/skipAwait"
DEFAULT_TIMEOUT_SECONDS: Final = 600  # the provider's default
POLL_SECONDS: Final = 2.0  # the operator's DefaultRequeueDuration

Mode = Literal["component", "provider", "none"]
_P = TypeVar("_P")
#: (kind, namespace, name) -> (object or None when gone, events about it, the server's time)
Fetch = Callable[[str, str, str], tuple[dict[str, Any] | None, list[dict[str, Any]], datetime]]


class WaitFailedError(pulumi.RunError):
    """The operator reported a state the object will not leave by itself (message: the diagnosis)."""


class AwaitTimeoutError(pulumi.RunError):
    """The object did not reach its wait condition within the time-out (message: where it is stuck)."""


@dataclass(frozen=True)
class WaitSpec:
    """How one object is waited for: ``mode`` and the annotations that go with it."""

    mode: Mode
    annotations: dict[str, str]
    timeout_seconds: int
    kubeconfig: tuple[str, Any] | None = None  # (text, base dir) for mode "component"
    context: str | None = None
    subject: str = ""  # "RayCluster 'x'" in messages
    deleted_ok: bool = False  # a RayJob whose deletion rules delete it (DeleteSelf) may vanish once it has run


#: Explicit providers whose cluster the program told us (:func:`watch_with`): provider -> (kubeconfig, context).
_WATCHED: weakref.WeakKeyDictionary[Any, tuple[str | None, str | None]] = weakref.WeakKeyDictionary()


def watch_with(provider: _P, *, kubeconfig: str | None = None, context: str | None = None) -> _P:
    """Tell the components which cluster an explicit ``kubernetes.Provider`` talks to, so that they wait
    themselves (``pulumi.com/skipAwait`` plus polling) instead of falling back to the provider's ``waitFor``.
    Give the same ``kubeconfig`` (path or document; None: ``$KUBECONFIG``/``~/.kube/config``) and ``context`` as
    the provider. Returns ``provider``. Example::

        provider = watch_with(Provider("k8s", kubeconfig=path, context=ctx), kubeconfig=path, context=ctx)
    """
    _WATCHED[provider] = (kubeconfig, context)
    return provider


def _explicit_kubernetes_provider(opts: pulumi.ResourceOptions | None) -> tuple[bool, Any]:
    """(whether the component gets a ``kubernetes`` provider other than the default one, directly or from a
    parent; that provider when it is known)."""
    if opts is None:
        return False, None

    def is_kubernetes(provider: Any) -> bool:
        return getattr(provider, "package", None) == "kubernetes"

    if is_kubernetes(opts.provider):
        return True, opts.provider
    providers = opts.providers
    values = providers.values() if isinstance(providers, Mapping) else (providers or [])
    for provider in values:
        if is_kubernetes(provider):
            return True, provider
    parent_providers = getattr(opts.parent, "_providers", None) or {}
    if "kubernetes" in parent_providers:
        return True, parent_providers["kubernetes"]
    return False, None


def _mocked() -> bool:
    """Running under ``pulumi.runtime.set_mocks`` (unit tests): there is no cluster to watch."""
    from pulumi.runtime import mocks, settings

    try:
        return isinstance(settings.get_monitor(), mocks.MockMonitor)
    except AttributeError:  # pragma: no cover - a pulumi without these internals
        return False


def _cluster_of(opts: pulumi.ResourceOptions | None) -> tuple[bool, tuple[str, Any] | None, str | None]:
    """(whether the component knows which cluster its provider talks to, that cluster's kubeconfig (text, base
    dir) when one is found, its context)."""
    k8s_config = pulumi.Config("kubernetes")
    kubeconfig, context = k8s_config.get("kubeconfig"), k8s_config.get("context")
    explicit, provider = _explicit_kubernetes_provider(opts)
    known = not explicit
    if explicit and provider is not None and provider in _WATCHED:
        (kubeconfig, context), known = _WATCHED[provider], True
    return known, kubeclient.find_kubeconfig(kubeconfig), context


def cluster_access(opts: pulumi.ResourceOptions | None) -> tuple[tuple[str, Any], str | None] | None:
    """The kubeconfig (text, base dir) and context of the cluster the component's provider talks to, when the
    component can know it (default provider, or an explicit one registered with :func:`watch_with`) and is not
    under unit-test mocks; None otherwise (the change plan then compares with the last applied manifest)."""
    known, found, context = _cluster_of(opts)
    if not known or found is None or _mocked():
        return None
    return found, context


def plan_await(
    kind: str,
    spec: Mapping[str, Any],
    *,
    labels: Mapping[str, str] | None,
    opts: pulumi.ResourceOptions | None,
    timeout_seconds: int | None,
    enabled: bool = True,
    annotations: Mapping[str, str] | None = None,
) -> WaitSpec:
    """Decide, at construction (same answer in preview and up), how the object will be waited for.
    ``enabled=False`` (``wait_for_ready=False``): not at all. The user's own ``pulumi.com/waitFor`` or
    ``pulumi.com/skipAwait`` annotation wins: then the provider waits as told and the component does not."""
    if timeout_seconds is not None and timeout_seconds <= 0:
        raise ValueError(f"timeout_seconds must be positive, got {timeout_seconds}")
    timeout = timeout_seconds or DEFAULT_TIMEOUT_SECONDS
    deleted_ok = kind == "RayJob" and deletes_itself(spec)
    if not enabled:
        return WaitSpec("none", {}, timeout)
    if annotations and (_provider_wait_for.WAIT_FOR_ANNOTATION in annotations or SKIP_AWAIT_ANNOTATION in annotations):
        return WaitSpec("provider", {}, timeout)
    choice = (os.environ.get(AWAIT_ENV) or "auto").strip().lower()
    if choice not in ("auto", "component", "provider"):
        raise ValueError(f"{AWAIT_ENV}={choice!r}: expected auto, component or provider")
    known, found, context = _cluster_of(opts)
    use_component = choice == "component" or (choice == "auto" and known and not _mocked())
    if use_component and found is not None:
        return WaitSpec(
            "component",
            {SKIP_AWAIT_ANNOTATION: "true"},
            timeout,
            kubeconfig=found,
            context=context,
            deleted_ok=deleted_ok,
        )
    return WaitSpec(
        "provider",
        _provider_wait_for.wait_annotations(kind, timeout_seconds=timeout_seconds, spec=spec, labels=labels),
        timeout,
    )


def _fetcher(plan: WaitSpec) -> Fetch:
    assert plan.kubeconfig is not None
    client = kubeclient.load_client(plan.kubeconfig[0], plan.kubeconfig[1], plan.context)

    def fetch(kind: str, namespace: str, name: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]], datetime]:
        obj, now = client.get_object(kind, namespace, name)
        events = client.events_about(kind, namespace, name) if obj is not None else []
        return obj, events, now

    return fetch


async def poll_until_over(
    fetch: Fetch,
    kind: str,
    namespace: str,
    name: str,
    *,
    timeout_seconds: float,
    deleted_ok: bool = False,
    on_progress: Callable[[str], None] = lambda _line: None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    monotonic: Callable[[], float] = time.monotonic,
    poll_seconds: float = POLL_SECONDS,
) -> tuple[dict[str, Any] | None, Verdict]:
    """Poll until the verdict is over or the time-out passes; returns the last object and verdict (``waiting``
    on time-out). Transient read errors are retried; permanent ones (401/403/400) raise ``KubeError``."""
    deadline = monotonic() + timeout_seconds
    last_reported = ""
    obj: dict[str, Any] | None = None
    current = Verdict("waiting", "not read yet")
    while True:
        try:
            obj, events, now = await asyncio.to_thread(fetch, kind, namespace, name)
        except kubeclient.KubeError as exc:
            if exc.permanent:
                raise
            current = Verdict("waiting", f"cannot read the object yet ({exc})")
        else:
            current = verdict(obj, events, now=now, deleted_ok=deleted_ok)
            if current.over:
                return obj, current
        if current.reason != last_reported:
            on_progress(current.reason)
            last_reported = current.reason
        remaining = deadline - monotonic()
        if remaining <= 0:
            return obj, current
        await sleep(min(poll_seconds, remaining))


def awaited_status(  # noqa: C901  (the wait, then the change plan's follow-through)
    component: pulumi.Resource,
    cr: pulumi.CustomResource,
    kind: str,
    plan: WaitSpec | pulumi.Output[WaitSpec],
    *,
    subject: str = "",
    deleted_ok: bool | None = None,
    fail_on_failure: bool = True,
    follow: _change_plan.Planner | None = None,
) -> pulumi.Output[dict[str, Any] | None]:
    """The custom resource's ``status`` once the wait is over (mode "component"), else as the provider returned
    it. Raises (as a ``pulumi up`` error) on a terminal failure when ``fail_on_failure``, and on time-out.
    ``plan`` may be an Output (a component whose arguments are Outputs decides it once they resolve).
    ``follow``: the component's change planner; the wait follows this run's plan (``none``: one read, no wait;
    ``recreate-pods``: until the head Pod carries the new spec's hash; ``new-cluster``: until traffic switched)."""
    if isinstance(plan, pulumi.Output):
        return plan.apply(
            lambda known: awaited_status(
                component,
                cr,
                kind,
                known,
                subject=subject,
                deleted_ok=deleted_ok,
                fail_on_failure=fail_on_failure,
                follow=follow,
            )
        )
    status: pulumi.Output[dict[str, Any] | None] = getattr(cr, "status")  # noqa: B009 - typed on the class
    subject = subject or plan.subject or kind
    deleted_ok = plan.deleted_ok if deleted_ok is None else deleted_ok
    if follow is not None:
        follow.wait_mode = plan.mode
    if plan.mode != "component":
        return status
    metadata: pulumi.Output[dict[str, Any]] = getattr(cr, "metadata")  # noqa: B009

    async def wait(args: list[Any]) -> dict[str, Any] | None:
        meta, provider_status = args
        if pulumi.runtime.is_dry_run() or not isinstance(meta, Mapping):
            return provider_status  # type: ignore[no-any-return]
        name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "default")
        try:
            fetch = _fetcher(plan)
        except kubeclient.KubeConfigError as exc:
            raise WaitFailedError(
                f"{subject}: cannot watch it ({exc}); set {AWAIT_ENV}=provider to let the provider wait instead"
            ) from None
        started = time.monotonic()
        change = follow.change if follow is not None else None
        if follow is not None and change is not None and change.action == "none":
            # --- change plan: nothing reaches the Pods, so there is nothing to wait for: one read, said so.
            known = provider_status if isinstance(provider_status, dict) else None
            return await _change_plan.without_wait(follow, fetch, kind, namespace, name, known)

        def progress(line: str) -> None:
            pulumi.log.info(f"waiting: {line}", resource=component, ephemeral=True)

        try:
            obj, result = await poll_until_over(
                fetch,
                kind,
                namespace,
                name,
                timeout_seconds=plan.timeout_seconds,
                deleted_ok=deleted_ok,
                on_progress=progress,
            )
        except kubeclient.KubeError as exc:
            raise WaitFailedError(
                f"{subject}: cannot read it from the API server ({exc}); check the kubeconfig's permissions or set {AWAIT_ENV}=provider"
            ) from None
        took = time.monotonic() - started
        explain = f"kubectl get {kind.lower()} -n {namespace} {name} -o json | kuberay-explain -"
        if result.state == "failed" and fail_on_failure:
            raise WaitFailedError(f"{subject} failed after {took:.0f}s: {result.reason}\n  details: {explain}")
        if result.state == "waiting":
            raise AwaitTimeoutError(
                f"{subject}: timed out after {plan.timeout_seconds}s (timeout_seconds) waiting for it to be ready: {result.reason}\n  details: {explain}"
            )
        if follow is not None and change is not None and result.state == "done":
            # --- change plan: what the plan's action waits for beyond the status (new Pods, a traffic switch)
            obj, reason = await _change_plan.follow_through(
                follow, plan, kind, namespace, name, obj, deadline=started + plan.timeout_seconds, on_progress=progress
            )
            if reason is not None:
                raise AwaitTimeoutError(
                    f"{subject}: timed out after {plan.timeout_seconds}s (timeout_seconds) waiting for the plan's {change.action}: {reason}\n  details: {explain}"
                )
            took = time.monotonic() - started
        pulumi.log.info(f"{result.reason} (waited {took:.1f}s)", resource=component)
        if follow is not None:
            follow.result = f"{result.reason} (waited {took:.1f}s)"
        if obj is not None and not diagnose(obj).ok and result.state == "done":
            pulumi.log.warn(diagnose(obj).line(), resource=component)
        return (obj or {}).get("status") if obj is not None else provider_status

    return pulumi.Output.all(metadata, status).apply(wait)
