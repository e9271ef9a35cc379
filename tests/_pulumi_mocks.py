# mypy: disallow-untyped-decorators=False, disallow-untyped-calls=False
"""Pulumi mocks for the component and stack tests: record every registration, echo inputs, inject a status.

Use the ``mocks`` fixture (import it into the test module) and decorate EVERY test with
``@pulumi.runtime.test`` and RETURN an Output: assertions inside ``.apply`` of an Output that is not returned
never run.

Event loop (pitfall 2): one loop for the whole session, created here once at import; a loop per test breaks
with "Future attached to a different loop" because the root Stack made by the first ``set_mocks`` is reused.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any


def _ensure_session_loop() -> None:
    """Keep the current loop if one is set (another helper may have made the session loop), else set one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:  # Python >= 3.14: no implicit loop
            loop = None
    if loop is None or loop.is_closed():
        asyncio.set_event_loop(asyncio.new_event_loop())


_ensure_session_loop()  # before pulumi creates any Future

import pulumi  # noqa: E402 - after the loop is set
from pulumi.runtime.mocks import MockMonitor, MockResourceArgs  # noqa: E402

RAY_PREFIX = "kubernetes:ray.io/v1:"


class RecordingMocks(pulumi.runtime.Mocks):
    """Echo the inputs as outputs; add ``statuses[(kind, name)]`` as the ``status`` output of that custom
    resource."""

    def __init__(self) -> None:
        self.created: list[MockResourceArgs] = []
        self.statuses: dict[tuple[str, str], dict[str, Any]] = {}

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        self.created.append(args)
        outputs = dict(args.inputs)
        if args.typ.startswith(RAY_PREFIX):
            status = self.statuses.get((args.typ.removeprefix(RAY_PREFIX), args.name))
            if status is not None:
                outputs["status"] = status
        return (f"{args.name}_id" if args.custom else None), outputs

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return {}, None


class RecordingMonitor(MockMonitor):
    """Keeps every RegisterResource request: resource options (ignoreChanges, replaceOnChanges,
    deleteBeforeReplace, dependencies, parent, provider) are only visible there."""

    def __init__(self, mocks: RecordingMocks) -> None:
        super().__init__(mocks)
        self.requests: list[Any] = []

    def RegisterResource(self, request: Any) -> Any:
        self.requests.append(request)
        return super().RegisterResource(request)


class LogCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[tuple[int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.levelno, record.getMessage()))

    @property
    def warnings(self) -> list[str]:
        return [msg for level, msg in self.records if level == logging.WARNING]


class MockEnv:
    """What a test inspects: created resources (inputs), raw register requests, engine log messages."""

    def __init__(self, mocks: RecordingMocks, monitor: RecordingMonitor, log: LogCapture) -> None:
        self.mocks = mocks
        self.monitor = monitor
        self.log = log

    def set_status(self, kind: str, name: str, status: dict[str, Any]) -> None:
        self.mocks.statuses[(kind, name)] = status

    def created(self, typ: str | None = None) -> list[MockResourceArgs]:
        return [r for r in self.mocks.created if typ is None or r.typ == typ]

    def ray(self, kind: str) -> list[MockResourceArgs]:
        return self.created(RAY_PREFIX + kind)

    def request(self, typ: str, name: str) -> Any:
        matches = [r for r in self.monitor.requests if r.type == typ and r.name == name]
        assert matches, (
            f"no registration of {typ} {name!r}; got {[(r.type, r.name) for r in self.monitor.requests]}"
        )
        return matches[-1]

    def urn_of(self, typ: str, name: str) -> str:
        return str(self.request(typ, name).parent)


def install(
    config: Mapping[str, Any] | None = None,
    *,
    project: str = "pulumi-kuberay",
    stack: str = "test",
    preview: bool = False,
) -> MockEnv:
    """Fresh mocks + config for one test. Config keys are full (``kuberay:environment``); objects as JSON
    text."""
    mocks = RecordingMocks()
    monitor = RecordingMonitor(mocks)
    capture = LogCapture()
    logger = logging.getLogger(f"pulumi-mocks-{id(capture)}")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    logger.addHandler(capture)
    pulumi.runtime.set_all_config(dict(config or {}))
    pulumi.runtime.set_mocks(
        mocks, project=project, stack=stack, preview=preview, monitor=monitor, logger=logger
    )
    return MockEnv(mocks, monitor, capture)


def mock_env() -> Iterator[MockEnv]:
    """Body of a ``mocks`` fixture (define it in the test module: ``yield from mock_env()``)."""
    env = install()
    yield env
    pulumi.runtime.set_all_config({})


def after_settling(check: Callable[..., Any], *deps: pulumi.Output[Any]) -> pulumi.Output[Any]:
    """An Output that runs ``check(*values of deps)`` once ``deps`` resolved and pending log tasks ran.

    Warnings attached to a resource are sent asynchronously once the resource's URN is known, so a test that
    looks at them has to let the loop run a little after the registrations.
    """

    async def run() -> Any:
        values = [await dep.future() for dep in deps]
        for _ in range(20):
            await asyncio.sleep(0)
        return check(*values)

    awaitable: Awaitable[Any] = asyncio.ensure_future(run())
    return pulumi.Output.from_input(awaitable)
