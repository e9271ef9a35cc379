"""The change plan in the components: what KubeRay will do with each change, shown at preview, followed at up.

Where the old state comes from (docs/changes.md in short):

* The trigger is a Pulumi **resource hook** on the component's custom resource (``before_create`` and
  ``before_update``, registered with ``on_dry_run=True``: pulumi >= 3.18x runs them at preview too). The engine
  calls it exactly when it is about to create or update the object, with the last applied inputs
  (``old_inputs``, from the stack's state) and the new ones; nothing runs for an unchanged object. No delete
  hook: the engine refuses ``pulumi destroy`` of a resource with delete hooks unless the program runs.
* When the component can read the cluster its provider talks to (the same kubeconfig the wait uses,
  :func:`~pulumi_kuberay.resources._component_await.cluster_access`), the hook reads what the operator itself compares
  with: the live object, a RayCluster's head Pods (hash and version annotations), a RayService's active and
  pending RayClusters. The live view wins over the state (it also sees edits made outside Pulumi, Pods made
  before an earlier change under ``upgradeStrategy: None``, clusters of an older operator version). A server that
  could not be reached is not asked again for a minute (:data:`UNREACHABLE_MEMO_SECONDS`).
* Otherwise (render mode, or a cluster that cannot be read at preview, e.g. CI without credentials) the plan
  compares with the last applied manifest: in render mode that is exactly the previously rendered file. A
  RayJob's replacement is a create for the engine (no old inputs): the plan then reads the live RayJob, or
  the previously rendered file when the program said where it renders (:func:`renders_to`).

The hook logs the plan line on the component (info), the plan rules' findings (warnings; a critical one fails
the step), and hands the plan to the component's wait (``_component_await``) and its ``last_change`` output.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypedDict, TypeVar

import pulumi
import yaml

from pulumi_kuberay import kubeclient

if TYPE_CHECKING:
    from pulumi_kuberay.plan import Change, Live, Operator

# The plan package (the operator's hash and decisions, ~60 ms of import) is loaded when a hook first runs, not
# with the components: a program under mocks or a render to a directory may never need it.

_P = TypeVar("_P")
#: How long the plan waits for the API server at preview (a cluster out of reach must not stall a preview).
READ_TIMEOUT_SECONDS: Final = 5.0
#: Providers that render to a directory, as the program told us: provider -> directory.
_RENDERED: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def renders_to(provider: _P, directory: str) -> _P:
    """Tell the components that an explicit ``kubernetes.Provider`` renders YAML to ``directory``
    (``render_yaml_to_directory``), so that a replaced RayJob's plan compares with its previously rendered file.
    Returns ``provider``. Example::

        provider = renders_to(Provider("k8s", render_yaml_to_directory="rendered/dev"), "rendered/dev")
    """
    _RENDERED[provider] = directory
    return provider


def render_dir_of(opts: pulumi.ResourceOptions | None) -> str | None:
    """The directory the component's provider renders to, when known (explicit provider registered with
    :func:`renders_to`, or stack config ``kubernetes:renderYamlToDirectory`` for the default provider)."""
    from pulumi_kuberay.resources._component_await import _explicit_kubernetes_provider

    explicit, provider = _explicit_kubernetes_provider(opts)
    if explicit:
        return _RENDERED.get(provider) if provider is not None else None
    return pulumi.Config("kubernetes").get("renderYamlToDirectory")


def rendered_path(directory: str, manifest: Mapping[str, Any]) -> Path:
    """Where pulumi-kubernetes renders ``manifest``: ``<dir>/1-manifest/<group>_<version>-<kind>-<ns>-<name>.yaml``."""
    meta = manifest.get("metadata") if isinstance(manifest.get("metadata"), Mapping) else {}
    api = str(manifest.get("apiVersion") or "").replace("/", "_")
    namespace = str((meta or {}).get("namespace") or "default")
    name = str((meta or {}).get("name") or "")
    return Path(directory) / "1-manifest" / f"{api}-{str(manifest.get('kind') or '').lower()}-{namespace}-{name}.yaml"


class ChangeRecord(TypedDict, total=False):
    """What the last ``pulumi up`` did to the object (the ``last_change`` output)."""

    action: str
    """The plan's action: ``create``, ``none``, ``recreate-pods``, ``update-in-place``, ``serve-update-in-place``,
    ``new-cluster``, ``incremental``, ``rerun-job``, ``next-runs-only``, ``suspend``, ``resume`` or ``unknown``."""
    why: str
    """Why, in one line."""
    changed: list[str]
    """The changed fields the operator reads, in words."""
    notes: list[str]
    """Further facts (what did not reach the Pods, when the old cluster goes, ...)."""
    extra: dict[str, Any]
    """new-cluster / incremental: what the second cluster needed while both ran (``start`` and ``most``)."""
    steps: list[str]
    """incremental: how traffic moved."""
    operatorVersion: str
    """The operator version the plan modelled (``v1.7.0``)."""
    comparedWith: str
    """Where the old state came from (the live object, or the last applied manifest)."""
    result: str
    """How the wait ended (``head pod ready (waited 12.3s)``), or why there was none."""


# --------------------------------------------------------------------------------------------------
# The live view


#: How long a server that could not be reached is not asked again by these reads (a preview of many components
#: against a cluster out of reach pays one time-out, not one per component and read).
UNREACHABLE_MEMO_SECONDS: Final = 60.0
#: Servers these reads could not reach in this program run: server -> (when, the error).
_UNREACHABLE: dict[str, tuple[float, str]] = {}


@dataclasses.dataclass
class _PlanClient(kubeclient.KubeClient):
    """A client whose reads fail at once, with the first error, while its server is remembered as out of reach."""

    def get(self, path: str) -> tuple[dict[str, Any] | None, datetime]:
        seen = _UNREACHABLE.get(self.server)
        if seen is not None and (ago := time.monotonic() - seen[0]) < UNREACHABLE_MEMO_SECONDS:
            raise kubeclient.KubeError(f"{seen[1]} (not asked again: out of reach {ago:.0f}s ago)")
        try:
            return super().get(path)
        except kubeclient.KubeError as exc:
            if exc.status == 0:  # not reached at all (refused, a time-out, DNS): an HTTP error is an answer
                _UNREACHABLE[self.server] = (time.monotonic(), str(exc))
            raise


def live_client(access: tuple[tuple[str, Any], str | None]) -> kubeclient.KubeClient:
    """A client of the cluster ``access`` names (:func:`~pulumi_kuberay.resources._component_await.cluster_access`),
    with the change plan's read time-out; a server it could not reach is not asked again for
    :data:`UNREACHABLE_MEMO_SECONDS` (the later reads fail at once with the first error)."""
    (text, base), context = access
    loaded = kubeclient.load_client(text, base, context)
    client = _PlanClient(**{f.name: getattr(loaded, f.name) for f in dataclasses.fields(loaded)})
    client.timeout = READ_TIMEOUT_SECONDS
    return client


def read_live(client: kubeclient.KubeClient, kind: str, namespace: str, name: str) -> Live:
    """What the operator compares a change of ``kind`` ``namespace/name`` with (``Live(obj=None)``: no such
    object yet). Raises ``KubeError`` when the API server cannot be read."""
    from pulumi_kuberay.plan import Live

    obj, _ = client.get_object(kind, namespace, name)
    if obj is None:
        return Live(obj=None)
    if kind == "RayCluster":
        return Live(obj=obj, head_pods=tuple(client.head_pods(namespace, name)))
    if kind == "RayService":
        clusters: dict[str, Mapping[str, Any]] = {}
        status = obj.get("status") if isinstance(obj.get("status"), Mapping) else {}
        for side in ("activeServiceStatus", "pendingServiceStatus"):
            cluster = (status or {}).get(side, {}).get("rayClusterName") if isinstance(status, Mapping) else None
            if isinstance(cluster, str) and cluster:
                found, _ = client.get_object("RayCluster", namespace, cluster)
                if found is not None:
                    clusters[cluster] = found
        return Live(obj=obj, clusters=clusters)
    return Live(obj=obj)


async def _plain(value: Any) -> Any:
    """A hook's inputs as the manifest they stand for: the secret Outputs it wraps them in replaced by their
    values, and integral numbers as integers (Pulumi's property values are floats)."""
    if isinstance(value, pulumi.Output):
        return await _plain(await value.future())
    if isinstance(value, Mapping):
        # Walked without a coroutine per value (a manifest has hundreds) until an Output turns up.
        try:
            return {str(k): _plain_now(v) for k, v in value.items()}
        except _OutputFound:
            return {str(k): await _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        try:
            return [_plain_now(v) for v in value]
        except _OutputFound:
            return [await _plain(v) for v in value]
    return _plain_now(value)


class _OutputFound(Exception):
    """An Output inside the value: :func:`_plain` awaits that part."""


def _plain_now(value: Any) -> Any:
    """:func:`_plain` of a value without Outputs (raises ``_OutputFound`` on one)."""
    if isinstance(value, pulumi.Output):
        raise _OutputFound
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _plain_now(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_now(v) for v in value]
    return value


# --------------------------------------------------------------------------------------------------
# The hook


@dataclasses.dataclass
class Planner:
    """One component's side of the hook: how to plan its object, and where the plan goes."""

    component: pulumi.Resource
    kind: str
    #: The component's resolved settings, once known: (manifest, Operator, secrets, findings callback).
    settings: Callable[[], Awaitable[PlanSettings]]
    access: tuple[tuple[str, Any], str | None] | None
    render_dir: str | None
    #: The plan of this program run's step (None: the engine had nothing to do, so no hook ran).
    change: Change | None = None
    #: The live view the plan was made with (the wait compares the RayService's active cluster with it).
    before: Live | None = None
    #: How the object is waited for (``component``, ``provider``, ``none``) and how the wait ended.
    wait_mode: str = ""
    result: str = ""

    async def on_step(self, args: pulumi.ResourceHookArgs, step: str) -> None:
        settings = await self.settings()
        new = await _plain(args.new_inputs) if args.new_inputs else settings.manifest
        old = await _plain(args.old_inputs) if step == "update" and args.old_inputs else None
        if not isinstance(new, Mapping):
            return
        live, unread = await self._live(new)
        if old is None and live is None and step == "create" and self.render_dir and self.kind == "RayJob":
            old = _read_rendered(self.render_dir, new)
        from pulumi_kuberay.plan import plan_change

        change = plan_change(old, new, settings.operator, live, mode="replace")
        if unread:
            change = dataclasses.replace(change, notes=(*change.notes, unread))
        self.before = live
        line = settings.redact(change.line())
        pulumi.log.info(line, resource=self.component)
        self.change = change
        settings.judge(change, old, new)

    async def _live(self, new: Mapping[str, Any]) -> tuple[Live | None, str]:
        if self.access is None:
            return None, ""
        meta = new.get("metadata") if isinstance(new.get("metadata"), Mapping) else {}
        name, namespace = str((meta or {}).get("name") or ""), str((meta or {}).get("namespace") or "default")
        try:
            client = live_client(self.access)
            return await asyncio.to_thread(read_live, client, self.kind, namespace, name), ""
        except (kubeclient.KubeError, kubeclient.KubeConfigError) as exc:
            return None, f"the cluster could not be read ({exc}), so the plan compares with the last applied manifest"


@dataclasses.dataclass(frozen=True)
class PlanSettings:
    manifest: Mapping[str, Any] | None
    operator: Operator
    redact: Callable[[str], str]
    #: Run the plan rules: warnings are logged, a critical finding raises (fails the step).
    judge: Callable[[Change, Mapping[str, Any] | None, Mapping[str, Any]], None]


def _read_rendered(directory: str, manifest: Mapping[str, Any]) -> dict[str, Any] | None:
    path = rendered_path(directory, manifest)
    try:
        docs = [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    except (OSError, yaml.YAMLError):
        return None
    return docs[0] if docs else None


#: Planners by the URN their custom resource will have, and those whose component URN is not known yet.
_PLANNERS: dict[str, Planner] = {}
_PENDING: list[tuple[Planner, str, str]] = []
_HOOKS: dict[str, pulumi.ResourceHook] = {}
#: The binding of both hooks, shared by every custom resource.
_BINDING: pulumi.ResourceHookBinding | None = None


def _child_urn(component_urn: str, child_type: str, name: str) -> str:
    prefix, _, _ = component_urn.rpartition("::")
    return f"{prefix}${child_type}::{name}"


async def _find(args: pulumi.ResourceHookArgs) -> Planner | None:
    """The planner of the custom resource the hook runs for (its component's URN is known by then: the child
    is registered under it)."""
    while args.urn not in _PLANNERS and _PENDING:
        planner, child_type, name = _PENDING.pop()
        urn = await planner.component.urn.future()
        if urn:
            _PLANNERS[_child_urn(urn, child_type, name)] = planner
    return _PLANNERS.get(args.urn)


def _hook(step: str) -> pulumi.ResourceHook:
    """The program-wide hook for ``step`` (one registration per program run, whatever the number of objects)."""
    if step not in _HOOKS:

        async def run(args: pulumi.ResourceHookArgs) -> None:
            planner = await _find(args)
            if planner is not None:
                await planner.on_step(args, step)

        _HOOKS[step] = pulumi.ResourceHook(
            f"pulumi-kuberay-plan-{step}", run, pulumi.ResourceHookOptions(on_dry_run=True)
        )
    return _HOOKS[step]


def hooks_supported() -> bool:
    """Resource hooks need the engine's callback server: not under unit-test mocks."""
    from pulumi_kuberay.resources._component_await import _mocked

    return not _mocked()


def attach(planner: Planner, child_type: str, name: str) -> pulumi.ResourceHookBinding | None:
    """Register ``planner`` for the custom resource ``name`` of ``child_type`` under its component; the hooks to
    bind to it (None when hooks cannot run here)."""
    if not hooks_supported():
        return None
    _PENDING.append((planner, child_type, name))
    global _BINDING
    if _BINDING is None:
        # One binding for every custom resource (Pulumi copies bindings when it merges options, never changes one).
        _BINDING = pulumi.ResourceHookBinding(before_create=[_hook("create")], before_update=[_hook("update")])
    return _BINDING


# --------------------------------------------------------------------------------------------------
# The wait, as the plan says (called by ``_component_await`` at up)

POLL_SECONDS: Final = 2.0
_NO_WAIT: Final = {
    "provider": "the provider waited (pulumi.com/waitFor): the plan was not followed",
    "none": "not waited for (the wait is off)",
}


def _status_of(obj: Mapping[str, Any] | None) -> Any:
    return obj.get("status") if isinstance(obj, Mapping) else None


async def without_wait(  # noqa: PLR0917
    planner: Planner,
    fetch: Callable[[str, str, str], tuple[dict[str, Any] | None, list[dict[str, Any]], Any]],
    kind: str,
    namespace: str,
    name: str,
    provider_status: dict[str, Any] | None,
) -> dict[str, Any] | None:
    """The plan says ``none``: read the object once, say that nothing reached it, and end."""
    change = planner.change
    assert change is not None
    what = "nothing reached the Pods" if kind in ("RayCluster", "RayService") else "the operator takes no action"
    message = f"{what}: {change.why}"
    planner.result = message
    pulumi.log.info(message, resource=planner.component)
    try:
        obj, _events, _now = await asyncio.to_thread(fetch, kind, namespace, name)
    except kubeclient.KubeError:
        return provider_status
    status = _status_of(obj)
    return status if isinstance(status, dict) else provider_status


def _ready(pod: Mapping[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(isinstance(c, Mapping) and c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


async def follow_through(  # noqa: PLR0917
    planner: Planner,
    plan: Any,
    kind: str,
    namespace: str,
    name: str,
    obj: dict[str, Any] | None,
    *,
    deadline: float,
    on_progress: Callable[[str], None],
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> tuple[dict[str, Any] | None, str | None]:
    """Once the status says done, what the plan's action still needs: ``recreate-pods``, a ready head Pod made
    from the new spec (its ``ray.io/upgrade-strategy-recreate-hash`` is the new hash); ``new-cluster`` /
    ``incremental``, another active cluster than before the update and none pending. Returns the last object
    read and None, or the reason it is still waiting at the deadline."""
    change = planner.change
    if change is None or plan.kubeconfig is None:
        return obj, None
    if change.action == "recreate-pods":
        from pulumi_kuberay.plan import hashing

        new_hash = str(change.facts.get("new_hash") or "")

        def settled(client: kubeclient.KubeClient) -> tuple[dict[str, Any] | None, bool]:
            pods = client.head_pods(namespace, name)
            fresh = [
                p
                for p in pods
                if ((p.get("metadata") or {}).get("annotations") or {}).get(hashing.RECREATE_HASH_ANNOTATION)
                == new_hash
                and not (p.get("metadata") or {}).get("deletionTimestamp")
            ]
            return client.get_object(kind, namespace, name)[0], any(_ready(p) for p in fresh)

        waiting = f"the head Pod recreated from the new spec (hash {new_hash}) is not ready"
    elif change.action in ("new-cluster", "incremental"):
        before_obj = planner.before.obj if planner.before is not None else None
        old_active = ((_status_of(before_obj) or {}).get("activeServiceStatus") or {}).get("rayClusterName")
        if not old_active:
            return obj, None

        def settled(client: kubeclient.KubeClient) -> tuple[dict[str, Any] | None, bool]:
            current, _ = client.get_object(kind, namespace, name)
            status = _status_of(current) or {}
            active = (status.get("activeServiceStatus") or {}).get("rayClusterName")
            pending = (status.get("pendingServiceStatus") or {}).get("rayClusterName")
            return current, bool(active) and active != old_active and not pending

        waiting = f"traffic has not switched from cluster {old_active} yet"
    else:
        return obj, None
    (text, base), context = plan.kubeconfig, plan.context
    client = kubeclient.load_client(text, base, context)
    while True:
        try:
            current, ok = await asyncio.to_thread(settled, client)
        except kubeclient.KubeError as exc:
            if exc.permanent:
                raise
            current, ok = obj, False
        obj = current if current is not None else obj
        if ok:
            return obj, None
        if monotonic() >= deadline:
            return obj, waiting
        on_progress(waiting)
        await sleep(POLL_SECONDS)


def record(planner: Planner) -> ChangeRecord | None:
    """The ``last_change`` output: this run's plan and how its wait ended (None at preview)."""
    if pulumi.runtime.is_dry_run():
        return None
    change = planner.change
    result = planner.result or _NO_WAIT.get(planner.wait_mode, "")
    if change is None:
        return ChangeRecord(
            action="none",
            why="the object was not changed by this update",
            changed=[],
            notes=[],
            result=result or "nothing to wait for",
        )
    out = ChangeRecord(action=change.action, why=change.why, changed=list(change.changed), notes=list(change.notes))
    if change.extra is not None:
        out["extra"] = change.extra.to_dict()
    if change.steps:
        out["steps"] = list(change.steps)
    if change.version:
        out["operatorVersion"] = change.version
    if change.source:
        out["comparedWith"] = change.source
    out["result"] = result or ("not waited for" if change.wait == "nothing" else "")
    return out


__all__ = [
    "ChangeRecord",
    "PlanSettings",
    "Planner",
    "attach",
    "follow_through",
    "live_client",
    "read_live",
    "record",
    "render_dir_of",
    "rendered_path",
    "renders_to",
    "without_wait",
]
