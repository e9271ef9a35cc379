"""The component provider: ``Construct`` builds the same Python components a Python program builds.

A YAML, TypeScript, Go or C# program declares ``kuberay:index:RayCluster`` (etc.); the engine asks this
provider to construct it, and the provider calls :class:`~pulumi_kuberay.RayCluster` with the spec and the
keywords, so validation, the rule catalogue, warnings, secrets, waiting and the outputs are the Python
component's own. A critical finding or an invalid spec is reported as an input error naming the field (the
engine shows ``kuberay:index:RayCluster resource 'x' has a problem: ...``), with our message unchanged.

Resource references (``cluster:`` of a RayJob, ``operator:`` of the Ray kinds) name a component this provider
built earlier in the same run: the engine runs one provider process per program, and every construct goes to it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import json
import sys
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio
import pulumi
from pulumi.errors import InputPropertiesError, InputPropertyErrorDetails
from pulumi.provider.provider import ConstructResult, Provider
from pulumi.provider.server import ProviderServicer
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
from pulumi.runtime.proto import provider_pb2_grpc

from pulumi_kuberay.model import ManifestError, lower_camel_keep_case
from pulumi_kuberay.provider._inputs import Decoder
from pulumi_kuberay.provider._schema import (
    ComponentEntry,
    components,
    declared_outputs,
    keyword_inputs,
    package_schema,
    package_version,
    type_token,
)
from pulumi_kuberay.resources import CriticalFindingsError

JsonDict = dict[str, Any]


class KubeRayProvider(Provider):
    """Serves the package schema and constructs the five components."""

    def __init__(self) -> None:
        schema = package_schema()
        super().__init__(package_version(), json.dumps(schema))
        self.package = schema
        self.entries = {type_token(e.kind): e for e in components()}
        #: Components built in this process, by URN, for resource references in later constructs.
        self.built: dict[str, pulumi.Resource] = {}

    # ---- inputs ------------------------------------------------------------------------------------

    def input_properties(self, token: str) -> Mapping[str, JsonDict]:
        props: Mapping[str, JsonDict] = self.package["resources"][token]["inputProperties"]
        return props

    def decoder(self) -> Decoder:
        return Decoder(self.package["types"], self.built.get)

    # ---- construct ---------------------------------------------------------------------------------

    def construct(
        self,
        name: str,
        resource_type: str,
        inputs: pulumi.Inputs,
        options: pulumi.ResourceOptions | None = None,
    ) -> ConstructResult:
        entry = self.entries.get(resource_type)
        if entry is None:
            raise ValueError(f"unknown resource type {resource_type!r}; this package has {', '.join(self.entries)}")
        try:
            component = build_component(entry, name, dict(inputs), options)
        except InputPropertiesError:
            raise
        except Exception as exc:
            raise input_error(entry, exc) or exc from None
        call = _CALL.get(None)
        if call is not None:
            call.component = component
        state = {lower_camel_keep_case(key): getattr(component, key, None) for key in declared_outputs(entry.component)}
        return ConstructResult(component.urn, state)


def build_component(
    entry: ComponentEntry, name: str, inputs: dict[str, Any], opts: pulumi.ResourceOptions | None
) -> Any:
    """Call the Python component as a Python program would: the spec positionally, the keywords by name."""
    names = {lower_camel_keep_case(key): key for key in keyword_inputs(entry.component)}
    if entry.spec_input is None:  # KubeRayOperator: its args model's fields are the inputs
        keywords = {names[k]: v for k, v in inputs.items() if k in names and k not in _model_aliases(entry)}
        args = {k: v for k, v in inputs.items() if k in _model_aliases(entry)}
        return entry.component(name, args, opts, **keywords)
    spec = inputs.pop(entry.spec_input, None)
    unknown = sorted(set(inputs) - set(names))
    if unknown:
        known = ", ".join(sorted(names))
        raise InputPropertiesError(
            f"{entry.kind} {name!r}: unknown input(s) {', '.join(unknown)}",
            [{"property_path": k, "reason": f"not an input of {entry.kind} (known: spec, {known})"} for k in unknown],
        )
    keywords = {names[k]: v for k, v in inputs.items() if v is not None}
    return entry.component(name, spec, opts, **keywords)


def input_error(entry: ComponentEntry, exc: BaseException) -> InputPropertiesError | None:
    """Our error behind ``exc`` (a component's, raised at once or, with inputs that were outputs, while the engine
    serialized the outputs), as the input error the engine reports without a Python traceback: the message as a
    Python program shows it, each problem or finding on the field path in the program's names. ``None``: not
    ours (an internal error keeps its traceback)."""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ManifestError):
            return InputPropertiesError(str(error), [_detail(entry, p.path, _problem_text(p)) for p in error.problems])
        if isinstance(error, CriticalFindingsError):
            return InputPropertiesError(str(error), [_detail(entry, f.path, _finding_text(f)) for f in error.findings])
        if isinstance(error, (ValueError, TypeError, pulumi.RunError)) and _raised_by_components(error):
            return InputPropertiesError(str(error), [])
        error = error.__cause__ or error.__context__
    return None


def _detail(entry: ComponentEntry, path: str, reason: str) -> InputPropertyErrorDetails:
    return {"property_path": _input_path(entry, path), "reason": reason}


def _raised_by_components(error: BaseException) -> bool:
    """The innermost frame of ``error`` is in pulumi_kuberay's own code (a component's message, not a bug of the
    provider's decoding or of the SDK)."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return False
    last = frames[-1].filename.replace("\\", "/")
    return "/pulumi_kuberay/" in last and "/pulumi_kuberay/provider/" not in last


def _model_aliases(entry: ComponentEntry) -> set[str]:
    return {info.alias or key for key, info in entry.spec_model.model_fields.items()}


def _input_path(entry: ComponentEntry, path: str) -> str:
    """A model field path as the program's input path (``workerGroupSpecs[0].minReplicas`` ->
    ``spec.workerGroupSpecs[0].minReplicas``)."""
    path = path.removeprefix("spec.").removeprefix("spec")
    if entry.spec_input is None:
        return path
    return f"{entry.spec_input}.{path}" if path else entry.spec_input


def _problem_text(problem: Any) -> str:
    fix = f" (fix: {problem.fix})" if getattr(problem, "fix", None) else ""
    return f"{problem.message}{fix}"


def _finding_text(finding: Any) -> str:
    from pulumi_kuberay.resources import format_finding

    return str(format_finding(finding))


class _Servicer(ProviderServicer):
    """Pulumi's provider servicer with our decoding of ``Construct`` inputs (:class:`~._inputs.Decoder`), and
    a record of each component built, by URN, for resource references in later constructs."""

    kuberay: KubeRayProvider

    async def _construct(self, request: Any, context: Any) -> Any:
        call = _Call(request)
        token = _CALL.set(call)
        try:
            response = await super()._construct(request, context)
        except Exception as exc:
            entry = self.kuberay.entries.get(request.type)
            found = input_error(entry, exc) if entry is not None else None
            if found is None:
                raise
            raise found from None
        finally:
            _CALL.reset(token)
        if call.component is not None:
            self.kuberay.built[response.urn] = call.component
        return response

    async def _construct_inputs(self, inputs: Any, input_dependencies: Any) -> dict[str, Any]:  # type: ignore[override]
        request = _CALL.get().request
        deps = {k: set(v.urns) for k, v in input_dependencies.items()}
        return self.kuberay.decoder().inputs(inputs, deps, self.kuberay.input_properties(request.type))


@dataclass
class _Call:
    request: Any
    component: pulumi.Resource | None = None


_CALL: contextvars.ContextVar[_Call] = contextvars.ContextVar("pulumi_kuberay_construct")


def serve(provider: KubeRayProvider, args: list[str]) -> None:
    """``pulumi.provider.main`` with our servicer: print the port, serve until the engine hangs up."""
    parser = argparse.ArgumentParser(description="pulumi-kuberay component provider (gRPC server)")
    parser.add_argument("engine", help="Pulumi engine address")
    known, _ = parser.parse_known_args(args)

    async def run() -> None:
        server = grpc.aio.server(options=_GRPC_CHANNEL_OPTIONS)
        servicer = _Servicer(provider, args, engine_address=known.engine)
        servicer.kuberay = provider
        provider_pb2_grpc.add_ResourceProviderServicer_to_server(servicer, server)
        port = server.add_insecure_port(address="127.0.0.1:0")
        await server.start()
        sys.stdout.buffer.write(f"{port}\n".encode())
        sys.stdout.buffer.flush()
        await server.wait_for_termination()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())
