"""Program of the waits' cluster tests: ``waits:objects`` = ``{name: {kind, spec, timeout_seconds?, wait?,
annotations?, labels?}}``, each declared as its pulumi_kuberay component on an explicit provider registered with
``watch_with`` (as the project's own program does), so the components wait themselves."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kuberay as kr
from pulumi_kubernetes import Provider

settings = pulumi.Config("pulumi-kuberay")
kubeconfig = settings.require("kubeconfig")
namespace = settings.require("namespace")
provider = kr.watch_with(Provider("k8s", kubeconfig=kubeconfig), kubeconfig=kubeconfig)
opts = pulumi.ResourceOptions(provider=provider)

objects: dict[str, dict[str, Any]] = pulumi.Config("waits").require_object("objects")
for name, entry in objects.items():
    common: dict[str, Any] = {
        "namespace": namespace,
        "annotations": entry.get("annotations"),
        "labels": entry.get("labels"),
        "timeout_seconds": entry.get("timeout_seconds"),
    }
    kind = entry["kind"]
    if kind == "RayCluster":
        component: Any = kr.RayCluster(name, entry["spec"], opts, wait_for_ready=entry.get("wait", True), **common)
    elif kind == "RayService":
        component = kr.RayService(name, entry["spec"], opts, wait_for_ready=entry.get("wait", True), **common)
    elif kind == "RayJob":
        component = kr.RayJob(name, entry["spec"], opts, wait_for_completion=entry.get("wait", True), **common)
    else:
        raise ValueError(f"waits:objects.{name}.kind: {kind!r} is not RayCluster, RayService or RayJob")
    pulumi.export(
        name, {"diagnosis": component.diagnosis, "status": component.status, "last_change": component.last_change}
    )
