"""What a container runs, read from the Pod: env (fieldRef, resourceFieldRef, configMap/Secret refs, envFrom),
``$(VAR)`` expansion in command/args/env, volumes (emptyDir, configMap, secret) materialised in the Pod's dir."""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .kube import Kube

_VAR = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_SUFFIX = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "m": 1e-3}


def expand(text: str, env: Mapping[str, str]) -> str:
    """The kubelet's ``$(VAR)`` expansion: a defined variable is replaced, ``$$`` is ``$``, the rest stays."""

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group(1)
        return env[name] if name in env else m.group(0)

    return _VAR.sub(sub, text)


def quantity(value: str) -> float:
    for suffix, mult in sorted(_SUFFIX.items(), key=lambda kv: -len(kv[0])):
        if value.endswith(suffix):
            return float(value[: -len(suffix)]) * mult
    return float(value)


def field_ref(pod: Mapping[str, Any], path: str) -> str:
    meta, spec, status = pod.get("metadata", {}), pod.get("spec", {}), pod.get("status", {})
    m = re.fullmatch(r"metadata\.(labels|annotations)\['([^']*)'\]", path)
    if m:
        return str(meta.get(m.group(1), {}).get(m.group(2), ""))
    simple = {
        "metadata.name": meta.get("name"),
        "metadata.namespace": meta.get("namespace"),
        "metadata.uid": meta.get("uid"),
        "spec.nodeName": spec.get("nodeName"),
        "spec.serviceAccountName": spec.get("serviceAccountName"),
        "status.podIP": status.get("podIP"),
        "status.hostIP": status.get("hostIP"),
        "status.podIPs": status.get("podIP"),
        "status.hostIPs": status.get("hostIP"),
    }
    if path not in simple:
        raise ValueError(f"fieldRef {path!r} is not supported by pod-runner")
    return str(simple[path] or "")


def resource_ref(container: Mapping[str, Any], ref: Mapping[str, Any], node_alloc: Mapping[str, str]) -> str:
    kind, _, res = str(ref.get("resource", "")).partition(".")
    resources = container.get("resources", {})
    value = resources.get(kind, {}).get(res) or (resources.get("limits", {}).get(res) if kind == "requests" else None)
    value = value or node_alloc.get(res, "0")
    divisor = quantity(str(ref.get("divisor", "1")))
    return str(math.ceil(quantity(str(value)) / divisor))


class Env:
    """Resolves a container's environment against the API (ConfigMaps and Secrets of the Pod's namespace)."""

    def __init__(self, kube: Kube, pod: Mapping[str, Any], node_alloc: Mapping[str, str]) -> None:
        self.kube, self.pod, self.node_alloc = kube, pod, node_alloc
        self.ns = pod["metadata"]["namespace"]

    def _data(self, kind: str, name: str, optional: bool) -> dict[str, str]:
        path = f"/api/v1/namespaces/{self.ns}/{'secrets' if kind == 'secret' else 'configmaps'}/{name}"
        obj = self.kube.get_or_none(path)
        if obj is None:
            if optional:
                return {}
            # as the kubelet says it: the NotFound of its secretManager.GetSecret / configMapManager.GetConfigMap
            raise ValueError(f'{kind.lower()} "{name}" not found')
        data = obj.get("data") or {}
        if kind == "secret":
            return {k: base64.b64decode(v).decode(errors="replace") for k, v in data.items()}
        return dict(data)

    def resolve(self, container: Mapping[str, Any], base: Mapping[str, str]) -> dict[str, str]:
        env = dict(base)
        for src in container.get("envFrom") or []:
            prefix = src.get("prefix", "")
            for kind, key in (("configMap", "configMapRef"), ("secret", "secretRef")):
                if key in src:
                    ref = src[key]
                    for k, v in self._data(kind, ref["name"], bool(ref.get("optional"))).items():
                        env[prefix + k] = v
        for item in container.get("env") or []:
            name = item["name"]
            if "value" in item or "valueFrom" not in item:
                env[name] = expand(str(item.get("value", "")), env)
                continue
            vf = item["valueFrom"]
            if "fieldRef" in vf:
                env[name] = field_ref(self.pod, vf["fieldRef"]["fieldPath"])
            elif "resourceFieldRef" in vf:
                env[name] = resource_ref(container, vf["resourceFieldRef"], self.node_alloc)
            else:
                for kind, key in (("configMap", "configMapKeyRef"), ("secret", "secretKeyRef")):
                    if key in vf:
                        ref = vf[key]
                        data = self._data(kind, ref["name"], bool(ref.get("optional")))
                        if ref["key"] in data:
                            env[name] = data[ref["key"]]
                        elif not ref.get("optional"):
                            # as the kubelet's makeEnvironmentVariables says it
                            what = "Secret" if kind == "secret" else "ConfigMap"
                            raise ValueError(f"couldn't find key {ref['key']} in {what} {self.ns}/{ref['name']}")
        return env

    def _projected(self, projected: Mapping[str, Any], path: Path) -> None:
        """The ServiceAccount token (TokenRequest), ConfigMap/Secret items and downward API of a projected
        volume (the API server's kube-api-access-* volume) as files."""
        for src in projected.get("sources") or []:
            if "serviceAccountToken" in src:
                tok = src["serviceAccountToken"]
                sa = self.pod["spec"].get("serviceAccountName") or "default"
                spec: dict[str, Any] = {"expirationSeconds": int(tok.get("expirationSeconds", 3607))}
                if tok.get("audience"):
                    spec["audiences"] = [tok["audience"]]
                got = self.kube.request(
                    "POST", f"/api/v1/namespaces/{self.ns}/serviceaccounts/{sa}/token", {"spec": spec}
                )
                (path / tok.get("path", "token")).write_text(got["status"]["token"])
            for kind in ("configMap", "secret"):
                if kind in src:
                    ref = src[kind]
                    data = self._data(kind, ref["name"], bool(ref.get("optional")))
                    items = ref.get("items") or [{"key": k, "path": k} for k in data]
                    for item in items:
                        if item["key"] in data:
                            (path / item["path"]).write_text(data[item["key"]])
            for item in (src.get("downwardAPI") or {}).get("items") or []:
                if "fieldRef" in item:
                    (path / item["path"]).write_text(field_ref(self.pod, item["fieldRef"]["fieldPath"]))

    def volumes(self, root: Path) -> dict[str, Path]:
        """Each volume of the Pod this agent can provide -> its directory (created now)."""
        out: dict[str, Path] = {}
        for vol in self.pod["spec"].get("volumes") or []:
            path = root / "volumes" / vol["name"]
            path.mkdir(parents=True, exist_ok=True)
            for kind, key in (("configMap", "configMap"), ("secret", "secret")):
                if key in vol:
                    ref = vol[key]
                    name = ref.get("name") or ref.get("secretName", "")
                    for k, v in self._data(kind, name, bool(ref.get("optional"))).items():
                        (path / k).write_text(v)
            if "projected" in vol:
                self._projected(vol["projected"], path)
            if any(k in vol for k in ("emptyDir", "configMap", "secret", "projected")):
                out[vol["name"]] = path
        return out
