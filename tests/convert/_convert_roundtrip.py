"""Round trips for the converter tests: run generated code under Pulumi mocks, compare registered manifests.

Deliberate differences between an input manifest and what the generated program registers, each applied to
the *expected* side by :func:`expected_manifest` (and listed in the README):

1. ``apiVersion`` is ``ray.io/v1`` (the components declare v1; ``v1alpha1`` is the same schema, deprecated);
2. ``metadata.generateName`` becomes a fixed ``metadata.name`` (a Pulumi resource needs a stable name);
3. metadata the API server sets (uid, resourceVersion, ...) and ``status`` are left out;
4. explicit ``null`` values are left out (the API server prunes nulls of these non-nullable fields);
5. a standalone RayCluster with ``enableInTreeAutoscaling`` has no ``workerGroupSpecs[].replicas`` (the
   RayCluster component never sends them: the autoscaler owns them);
6. ``serveConfigV2`` is compared as parsed YAML (a typed ``ServeConfig`` renders the same config formatted
   by PyYAML);
7. the components add the Pulumi await annotations (``pulumi.com/waitFor``/``timeoutSeconds``) to RayCluster
   and RayService; they are removed from the registered side before comparing;
8. the spec is what the typed model renders for the manifest's spec given from Python
   (``expected_rendering``); ``test_convert_samples`` checks separately that this is the manifest itself,
   apart from the model's own defaults listed in ``MODEL_DEFAULTS`` there (none today).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pulumi
from _pulumi_mocks import MockEnv, install
from pulumi_kuberay import rules
from pulumi_kuberay.convert._objects import LAST_APPLIED, SERVER_SET
from pulumi_kuberay.convert._shortcuts import expected_rendering, semantic, strip_nulls
from pulumi_kuberay.model.manifest import load_manifest
from pulumi_kuberay.resources._component import FORCE_APPLY_ANNOTATION
from pulumi_kuberay.resources._provider_wait_for import TIMEOUT_ANNOTATION, WAIT_FOR_ANNOTATION

RAY = "kubernetes:ray.io/v1:"
COMPONENT_PREFIX = "kuberay:index:"


def expected_manifest(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest the generated program must register for ``doc`` (deliberate differences applied)."""
    out = strip_nulls(load_manifest(doc).to_manifest())
    out["apiVersion"] = "ray.io/v1"
    out.pop("status", None)
    meta = dict(out.get("metadata") or {})
    if not meta.get("name"):
        meta["name"] = str(meta.get("generateName") or "ray").rstrip("-")
    meta = {k: v for k, v in meta.items() if k in ("name", "namespace", "labels", "annotations") and v}
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k != LAST_APPLIED}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    out["metadata"] = meta
    out["spec"] = expected_rendering(type(load_manifest(doc).spec), out["spec"])
    spec = out["spec"]
    if out["kind"] == "RayCluster" and spec.get("enableInTreeAutoscaling"):
        for group in spec.get("workerGroupSpecs") or []:
            group.pop("replicas", None)
    assert not set(SERVER_SET) & set(meta)
    return semantic(rules.normalise(out))  # type: ignore[no-any-return]


def registered_manifest(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """A registered custom resource's inputs, comparable with :func:`expected_manifest` (the annotations the
    component adds for the provider are not the user's: its wait, and the forced server-side apply of a RayService)."""
    out = copy.deepcopy(dict(inputs))
    out.pop("status", None)
    meta = out["metadata"]
    ours = (WAIT_FOR_ANNOTATION, TIMEOUT_ANNOTATION, FORCE_APPLY_ANNOTATION)
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k not in ours}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    return semantic(rules.normalise(out))  # type: ignore[no-any-return]


def run_module(text: str, config: Mapping[str, Any] | None = None) -> tuple[MockEnv, list[pulumi.Output[Any]]]:
    """Execute generated module text under fresh mocks; returns the mocks and the URNs to wait for."""
    env = install(config, stack="convert")
    namespace: dict[str, Any] = {"__name__": "converted"}
    exec(compile(text, "<converted>", "exec"), namespace)
    components = [v for v in namespace.values() if isinstance(v, pulumi.ComponentResource)]
    urns = [c.urn for c in components] + [c.resource.urn for c in components]  # type: ignore[attr-defined]
    return env, urns


def registered(env: MockEnv) -> dict[tuple[str, str], dict[str, Any]]:
    """(kind, metadata.name) -> the registered manifest of every Ray custom resource."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for resource in env.created():
        if resource.typ.startswith(RAY):
            manifest = registered_manifest(resource.inputs)
            key = (manifest["kind"], manifest["metadata"]["name"])
            assert key not in out, f"{key} registered twice"
            out[key] = manifest
    return out
