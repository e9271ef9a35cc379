"""Generate ``components/pulumi_kuberay/model/_k8s.py``: typed Kubernetes models from the KubeRay CRDs.

The KubeRay CRDs embed (pruned copies of) Kubernetes core types: pod templates, services, resource
requirements, network policy rules... This tool walks those sub-schemas, deduplicates structurally identical
ones and emits one pydantic class (deriving ``KubeModel``) per distinct structure.

Run by hand after a CRD bump::

    KUBERAY_REFERENCE_DIR=<reference dir> .venv/bin/python tools/gen_k8s_models.py [--check]

The reference dir holds ``kuberay/<version>/crds``; it defaults to ``../shared`` next to the repository.

``--check`` exits 1 (printing nothing else) when the committed file is not what the generator would write.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import keyword
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import yaml
from pydantic import BaseModel
from pydantic.alias_generators import to_camel  # KubeModel's alias generator

REPO_ROOT = Path(__file__).resolve().parent.parent
OUTPUT = REPO_ROOT / "components" / "pulumi_kuberay" / "model" / "_k8s.py"
KUBERAY_VERSION = "v1.7.0"
CRD_FILES = {
    "RayCluster": "ray.io_rayclusters.yaml",
    "RayJob": "ray.io_rayjobs.yaml",
    "RayService": "ray.io_rayservices.yaml",
}

Schema = dict[str, Any]

#: Where the Kubernetes types sit in the CRDs: (kind, dotted path below openAPIV3Schema, class name).
#: ``[]`` means "the items of this array". Order matters: the first root to reach a structure names it.
ROOTS: tuple[tuple[str, str, str], ...] = (
    ("RayCluster", "spec.headGroupSpec.template", "PodTemplateSpec"),
    ("RayCluster", "spec.headGroupSpec.headService", "Service"),
    ("RayCluster", "spec.autoscalerOptions.resources", "ResourceRequirements"),
    ("RayCluster", "spec.autoscalerOptions.securityContext", "SecurityContext"),
    ("RayCluster", "spec.autoscalerOptions.env[]", "EnvVar"),
    ("RayCluster", "spec.autoscalerOptions.envFrom[]", "EnvFromSource"),
    ("RayCluster", "spec.autoscalerOptions.volumeMounts[]", "VolumeMount"),
    ("RayCluster", "spec.gcsFaultToleranceOptions.redisPassword.valueFrom", "EnvVarSource"),
    ("RayCluster", "spec.historyServerOptions.collectorOptions.env[]", "EnvVar"),
    ("RayCluster", "spec.historyServerOptions.collectorOptions.resources", "ResourceRequirements"),
    ("RayCluster", "spec.headGroupSpec.ingressOptions.tls[]", "IngressTLS"),
    ("RayCluster", "spec.networkPolicy.head.ingressRules[]", "NetworkPolicyIngressRule"),
    ("RayCluster", "spec.networkPolicy.head.egressRules[]", "NetworkPolicyEgressRule"),
    ("RayCluster", "spec.workerGroupSpecs[].template", "PodTemplateSpec"),
    ("RayJob", "spec.submitterPodTemplate", "PodTemplateSpec"),
    ("RayJob", "spec.rayClusterSpec.headGroupSpec.template", "PodTemplateSpec"),
    ("RayService", "spec.serveService", "Service"),
    ("RayService", "spec.rayClusterConfig.headGroupSpec.template", "PodTemplateSpec"),
)

#: Kubernetes names of a property's type in a given parent class (``Parent.property``).
NAMES_IN_PARENT: dict[str, str] = {
    "PodTemplateSpec.spec": "PodSpec",
    "Service.spec": "ServiceSpec",
    "Service.status": "ServiceStatus",
    "PodSpec.securityContext": "PodSecurityContext",
    "PodSpec.ephemeralContainers": "EphemeralContainer",
    "PodSpec.schedulingGroup": "PodSchedulingGroup",
    "Container.ports": "ContainerPort",
    "EphemeralContainer.ports": "ContainerPort",
    "ServiceSpec.ports": "ServicePort",
    "LoadBalancerIngress.ports": "PortStatus",
    "NetworkPolicyIngressRule.ports": "NetworkPolicyPort",
    "NetworkPolicyEgressRule.ports": "NetworkPolicyPort",
    "NodeAffinity.requiredDuringSchedulingIgnoredDuringExecution": "NodeSelector",
    "NodeAffinity.preferredDuringSchedulingIgnoredDuringExecution": "PreferredSchedulingTerm",
    "PodAffinity.requiredDuringSchedulingIgnoredDuringExecution": "PodAffinityTerm",
    "PodAffinity.preferredDuringSchedulingIgnoredDuringExecution": "WeightedPodAffinityTerm",
    "PodAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution": "PodAffinityTerm",
    "PodAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution": "WeightedPodAffinityTerm",
    "NodeSelectorTerm.matchExpressions": "NodeSelectorRequirement",
    "NodeSelectorTerm.matchFields": "NodeSelectorRequirement",
    "LabelSelector.matchExpressions": "LabelSelectorRequirement",
    "DownwardAPIVolumeSource.items": "DownwardAPIVolumeFile",
    "DownwardAPIProjection.items": "DownwardAPIVolumeFile",
    "Volume.configMap": "ConfigMapVolumeSource",
    "Volume.secret": "SecretVolumeSource",
    "Volume.downwardAPI": "DownwardAPIVolumeSource",
    "Volume.image": "ImageVolumeSource",
    "VolumeProjection.configMap": "ConfigMapProjection",
    "VolumeProjection.secret": "SecretProjection",
    "VolumeProjection.downwardAPI": "DownwardAPIProjection",
    "PersistentVolumeClaimTemplate.spec": "PersistentVolumeClaimSpec",
    "PersistentVolumeClaimSpec.resources": "VolumeResourceRequirements",
    "PersistentVolumeClaimSpec.selector": "LabelSelector",
    "ServiceStatus.conditions": "Condition",
    "EnvFromSource.configMapRef": "ConfigMapEnvSource",
    "EnvFromSource.secretRef": "SecretEnvSource",
    "Container.resources": "ResourceRequirements",
    "EphemeralContainer.resources": "ResourceRequirements",
    "PodSpec.resources": "ResourceRequirements",
    "Container.securityContext": "SecurityContext",
    "EphemeralContainer.securityContext": "SecurityContext",
}

#: Kubernetes names of a property's type wherever the property appears (after NAMES_IN_PARENT).
NAMES_ANYWHERE: dict[str, str] = {
    "metadata": "EmbeddedObjectMeta",
    "containers": "Container",
    "initContainers": "Container",
    "affinity": "Affinity",
    "nodeAffinity": "NodeAffinity",
    "podAffinity": "PodAffinity",
    "podAntiAffinity": "PodAntiAffinity",
    "nodeSelectorTerms": "NodeSelectorTerm",
    "preference": "NodeSelectorTerm",
    "podAffinityTerm": "PodAffinityTerm",
    "labelSelector": "LabelSelector",
    "namespaceSelector": "LabelSelector",
    "podSelector": "LabelSelector",
    "selector": "LabelSelector",
    "livenessProbe": "Probe",
    "readinessProbe": "Probe",
    "startupProbe": "Probe",
    "lifecycle": "Lifecycle",
    "postStart": "LifecycleHandler",
    "preStop": "LifecycleHandler",
    "exec": "ExecAction",
    "httpGet": "HTTPGetAction",
    "httpHeaders": "HTTPHeader",
    "tcpSocket": "TCPSocketAction",
    "grpc": "GRPCAction",
    "sleep": "SleepAction",
    "resources": "ResourceRequirements",
    "claims": "ResourceClaim",
    "securityContext": "SecurityContext",
    "capabilities": "Capabilities",
    "seLinuxOptions": "SELinuxOptions",
    "seccompProfile": "SeccompProfile",
    "appArmorProfile": "AppArmorProfile",
    "windowsOptions": "WindowsSecurityContextOptions",
    "sysctls": "Sysctl",
    "env": "EnvVar",
    "valueFrom": "EnvVarSource",
    "configMapKeyRef": "ConfigMapKeySelector",
    "secretKeyRef": "SecretKeySelector",
    "fieldRef": "ObjectFieldSelector",
    "resourceFieldRef": "ResourceFieldSelector",
    "fileKeyRef": "FileKeySelector",
    "envFrom": "EnvFromSource",
    "volumeMounts": "VolumeMount",
    "volumeDevices": "VolumeDevice",
    "resizePolicy": "ContainerResizePolicy",
    "restartPolicyRules": "ContainerRestartRule",
    "exitCodes": "ContainerRestartRuleOnExitCodes",
    "tolerations": "Toleration",
    "volumes": "Volume",
    "imagePullSecrets": "LocalObjectReference",
    "secretRef": "LocalObjectReference",
    "nodePublishSecretRef": "LocalObjectReference",
    "hostAliases": "HostAlias",
    "dnsConfig": "PodDNSConfig",
    "options": "PodDNSConfigOption",
    "os": "PodOS",
    "readinessGates": "PodReadinessGate",
    "resourceClaims": "PodResourceClaim",
    "schedulingGates": "PodSchedulingGate",
    "topologySpreadConstraints": "TopologySpreadConstraint",
    "items": "KeyToPath",
    "sources": "VolumeProjection",
    "serviceAccountToken": "ServiceAccountTokenProjection",
    "clusterTrustBundle": "ClusterTrustBundleProjection",
    "podCertificate": "PodCertificateProjection",
    "volumeClaimTemplate": "PersistentVolumeClaimTemplate",
    "dataSource": "TypedLocalObjectReference",
    "dataSourceRef": "TypedObjectReference",
    "awsElasticBlockStore": "AWSElasticBlockStoreVolumeSource",
    "azureDisk": "AzureDiskVolumeSource",
    "azureFile": "AzureFileVolumeSource",
    "cephfs": "CephFSVolumeSource",
    "cinder": "CinderVolumeSource",
    "csi": "CSIVolumeSource",
    "emptyDir": "EmptyDirVolumeSource",
    "ephemeral": "EphemeralVolumeSource",
    "fc": "FCVolumeSource",
    "flexVolume": "FlexVolumeSource",
    "flocker": "FlockerVolumeSource",
    "gcePersistentDisk": "GCEPersistentDiskVolumeSource",
    "gitRepo": "GitRepoVolumeSource",
    "glusterfs": "GlusterfsVolumeSource",
    "hostPath": "HostPathVolumeSource",
    "iscsi": "ISCSIVolumeSource",
    "nfs": "NFSVolumeSource",
    "persistentVolumeClaim": "PersistentVolumeClaimVolumeSource",
    "photonPersistentDisk": "PhotonPersistentDiskVolumeSource",
    "portworxVolume": "PortworxVolumeSource",
    "projected": "ProjectedVolumeSource",
    "quobyte": "QuobyteVolumeSource",
    "rbd": "RBDVolumeSource",
    "scaleIO": "ScaleIOVolumeSource",
    "storageos": "StorageOSVolumeSource",
    "vsphereVolume": "VsphereVirtualDiskVolumeSource",
    "sessionAffinityConfig": "SessionAffinityConfig",
    "clientIP": "ClientIPConfig",
    "loadBalancer": "LoadBalancerStatus",
    "ingress": "LoadBalancerIngress",
    "from": "NetworkPolicyPeer",
    "to": "NetworkPolicyPeer",
    "ipBlock": "IPBlock",
    "tls": "IngressTLS",
}

#: Attribute names pydantic's BaseModel (or KubeModel) already uses get a trailing underscore, like keywords.
_RESERVED = {name for name in dir(BaseModel) if not name.startswith("_")} | {"fields", "to_dict"}

_WORD = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|[A-Z]")


# --------------------------------------------------------------------------------------------------
# Type expressions (rendered only at the end, so a class may still be renamed while walking).


@dataclass
class ClassDef:
    name: str
    named_by_table: bool
    origin: str
    fields: list[FieldDef] = field(default_factory=list)


@dataclass(frozen=True)
class Builtin:
    text: str


@dataclass(frozen=True)
class ListOf:
    item: TypeExpr


@dataclass(frozen=True)
class DictOf:
    value: TypeExpr


@dataclass(frozen=True)
class LiteralOf:
    values: tuple[Any, ...]


@dataclass(frozen=True)
class ClassRef:
    target: ClassDef = field(compare=False)


TypeExpr = Union[Builtin, ListOf, DictOf, LiteralOf, ClassRef]  # noqa: UP007  (a runtime alias)


@dataclass
class FieldDef:
    attr: str
    alias: str
    type: TypeExpr
    required: bool


def render_type(tp: TypeExpr) -> str:
    if isinstance(tp, Builtin):
        return tp.text
    if isinstance(tp, ListOf):
        return f"list[{render_type(tp.item)}]"
    if isinstance(tp, DictOf):
        return f"dict[str, {render_type(tp.value)}]"
    if isinstance(tp, LiteralOf):
        return "Literal[" + ", ".join(json.dumps(v) for v in tp.values) + "]"
    return tp.target.name


# --------------------------------------------------------------------------------------------------
# Naming helpers.


def snake_case(name: str) -> str:
    """``hostIPC`` -> ``host_ipc``, ``podIPs`` -> ``pod_ips``, ``from`` -> ``from_``."""
    words = _WORD.findall(name)
    attr = "_".join(w.lower() for w in words) if words else name
    attr = re.sub(r"\W", "_", attr)
    if keyword.iskeyword(attr) or attr in _RESERVED or attr.startswith("model_"):
        attr += "_"
    return attr


def singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "ases")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def camel_class(prop: str, *, item: bool) -> str:
    base = singular(prop) if item else prop
    return base[:1].upper() + base[1:]


def _strip_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "description":
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {k: _strip_descriptions(v) for k, v in value.items()}
            else:
                out[key] = _strip_descriptions(value)
        return out
    if isinstance(schema, list):
        return [_strip_descriptions(v) for v in schema]
    return schema


def structure_key(schema: Schema) -> str:
    """Hash of a sub-schema ignoring descriptions: equal keys -> one class."""
    text = json.dumps(_strip_descriptions(schema), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


# --------------------------------------------------------------------------------------------------
# The walk.


@dataclass
class Generator:
    by_key: dict[str, ClassDef] = field(default_factory=dict)
    by_name: dict[str, ClassDef] = field(default_factory=dict)
    order: list[ClassDef] = field(default_factory=list)  # post-order: dependencies first
    aliases: dict[str, ClassDef] = field(default_factory=dict)

    def model_for(
        self, schema: Schema, wanted: str, *, from_table: bool, parent: str, origin: str
    ) -> ClassDef:
        key = structure_key(schema)
        existing = self.by_key.get(key)
        if existing is not None:
            if existing.name != wanted and from_table:
                if not existing.named_by_table and wanted not in self.by_name:
                    # A heuristic name loses to the Kubernetes name reached later.
                    del self.by_name[existing.name]
                    existing.name = wanted
                    existing.named_by_table = True
                    self.by_name[wanted] = existing
                else:
                    self.aliases.setdefault(wanted, existing)
            return existing
        name = self._free_name(wanted, parent)
        cls = ClassDef(name=name, named_by_table=from_table and name == wanted, origin=origin)
        self.by_key[key] = cls
        self.by_name[name] = cls
        required = set(schema.get("required", []))
        for prop, sub in schema.get("properties", {}).items():
            tp = self.type_for(sub, parent=cls, prop=prop, origin=f"{name}.{prop}")
            cls.fields.append(FieldDef(attr=snake_case(prop), alias=prop, type=tp, required=prop in required))
        attrs = [f.attr for f in cls.fields]
        if len(set(attrs)) != len(attrs):
            raise SystemExit(f"attribute name clash in {name}: {attrs}")
        self.order.append(cls)
        return cls

    def _free_name(self, wanted: str, parent: str) -> str:
        if wanted not in self.by_name:
            return wanted
        qualified = wanted if wanted.startswith(parent) else parent + wanted
        candidate, n = qualified, 2
        while candidate in self.by_name:
            candidate, n = f"{qualified}{n}", n + 1
        return candidate

    def type_for(
        self, schema: Schema, *, parent: ClassDef, prop: str, origin: str, item: bool = False
    ) -> TypeExpr:
        if schema.get("x-kubernetes-int-or-string"):
            # Resource quantities carry the Kubernetes quantity pattern; ports and the like do not.
            return Builtin("ResourceQuantity" if schema.get("pattern") else "Quantity")
        if "enum" in schema:
            return LiteralOf(tuple(schema["enum"]))
        kind = schema.get("type")
        if kind == "string":
            return Builtin("str")
        if kind == "integer":
            # the format bounds what KubeRay (Go) can decode: the API server stores 2**31 in an int32 field
            return Builtin({"int32": "Int32", "int64": "Int64"}.get(schema.get("format", ""), "int"))
        if kind == "number":
            # Keep an integral wire value an int (strict float would turn 1 into 1.0 and break round trips).
            return Builtin("int | float")
        if kind == "boolean":
            return Builtin("bool")
        if kind == "array":
            item_tp = self.type_for(
                schema.get("items", {}), parent=parent, prop=prop, origin=origin + "[]", item=True
            )
            return ListOf(item_tp)
        if "properties" in schema:
            wanted = NAMES_IN_PARENT.get(f"{parent.name}.{prop}") or NAMES_ANYWHERE.get(prop)
            from_table = wanted is not None
            cls = self.model_for(
                schema,
                wanted or camel_class(prop, item=item),
                from_table=from_table,
                parent=parent.name,
                origin=origin,
            )
            return ClassRef(cls)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return DictOf(self.type_for(extra, parent=parent, prop=prop, origin=origin + "{}", item=True))
        return Builtin("dict[str, Any]") if kind == "object" else Builtin("Any")


# --------------------------------------------------------------------------------------------------
# Input / output.


def reference_dir() -> Path:
    """``KUBERAY_REFERENCE_DIR``, else ``shared`` next to the repository (as the tests find it)."""
    default = Path(__file__).resolve().parent.parent.parent / "shared"
    return Path(os.environ.get("KUBERAY_REFERENCE_DIR", str(default)))


def load_crd(kind: str) -> Schema:
    path = reference_dir() / "kuberay" / KUBERAY_VERSION / "crds" / CRD_FILES[kind]
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    doc = yaml.load(path.read_text(), Loader=loader)
    for version in doc["spec"]["versions"]:
        if version["name"] == "v1":
            return version["schema"]["openAPIV3Schema"]  # type: ignore[no-any-return]
    raise SystemExit(f"{path}: no v1 version")


def locate(schema: Schema, path: str) -> Schema:
    node = schema
    for part in path.split("."):
        is_item = part.endswith("[]")
        node = node["properties"][part.removesuffix("[]")]
        if is_item:
            node = node["items"]
    return node


def generate() -> str:
    gen = Generator()
    crds = {kind: load_crd(kind) for kind in CRD_FILES}
    for kind, path, name in ROOTS:
        schema = locate(crds[kind], path)
        root = ClassDef(name=kind, named_by_table=True, origin=kind)
        before = gen.by_key.get(structure_key(schema))
        cls = gen.model_for(schema, name, from_table=True, parent=root.name, origin=f"{kind} {path}")
        if cls.name != name or (before is not None and before is not cls):
            raise SystemExit(f"root {kind}.{path} became {cls.name}, expected {name}")
    return render(gen)


def _field_line(f: FieldDef) -> str:
    """``attr: T`` with the CRD spelling as alias: an explicit ``Field(alias=...)`` only where ``KubeModel``'s alias
    generator (``to_camel``) would spell it otherwise, since ``Field()`` costs a copy of its FieldInfo per field
    at import."""
    tp = render_type(f.type)
    if to_camel(f.attr) == f.alias:
        return f"    {f.attr}: {tp}" if f.required else f"    {f.attr}: {tp} | None = None"
    # The alias inside Annotated, not as the default (``= Field(alias=...)``): type checkers read a default's
    # ``alias=`` as the keyword's name (dataclass_transform), so only the snake_case name would be refused.
    if f.required:
        return f'    {f.attr}: Annotated[{tp}, Field(alias="{f.alias}")]'
    return f'    {f.attr}: Annotated[{tp} | None, Field(alias="{f.alias}")] = None'


#: Generated classes whose base adds what the API server refuses beyond their schema (``model/_k8s_checks.py``).
CHECKED_BASES = {"Toleration": "TolerationChecks"}


def render(gen: Generator) -> str:
    used = " ".join(render_type(f.type) for cls in gen.order for f in cls.fields)
    used += " Annotated" if any(to_camel(f.attr) != f.alias for cls in gen.order for f in cls.fields) else ""
    typing_names = [name for name in ("Annotated", "Any", "Literal") if re.search(rf"\b{name}\b", used)]
    typing_import = [f"from typing import {', '.join(typing_names)}", ""] if typing_names else []
    bounded_ints = [name for name in ("Int32", "Int64") if re.search(rf"\b{name}\b", used)]
    lines = [
        f"# GENERATED by tools/gen_k8s_models.py from the KubeRay {KUBERAY_VERSION} CRDs -- do not edit by hand.",
        "# Regenerate: KUBERAY_REFERENCE_DIR=<reference dir> python tools/gen_k8s_models.py",
        '"""Kubernetes core types embedded in the KubeRay CRDs (pod templates, services...) as typed models.',
        "",
        "Structurally identical sub-schemas share one class; ``SecretEnvSource``-style aliases name the",
        "Kubernetes types that collapsed into another one. Each field has its exact CRD spelling as alias: the",
        "camelCase alias generator of ``KubeModel`` gives it, ``Annotated[T, Field(alias=...)]`` where it would not",
        "(``hostIP``; in the annotation, not as the default, so type checkers take the snake_case name as the keyword).",
        "",
        "Classes come before their uses and annotations are evaluated as the module runs (no postponed",
        "annotations), so pydantic has nothing to parse: creating these ~120 classes is most of the models' import.",
        '"""',
        "",
        *typing_import,
        "from pydantic import ConfigDict, Field",
        "",
        f"from ._base import {', '.join([*bounded_ints, 'KubeModel'])}",
        f"from ._k8s_checks import {', '.join(sorted(set(CHECKED_BASES.values())))}",
        "from ._quantity import Quantity, ResourceQuantity",
        "",
        "",
        "class _K8sModel(KubeModel):",
        '    """Base of the generated classes: validators are built on first use (keeps the import fast)."""',
        "",
        "    model_config = ConfigDict(defer_build=True, use_attribute_docstrings=False)",
    ]
    for cls in gen.order:
        lines += ["", "", f"class {cls.name}({CHECKED_BASES.get(cls.name, '_K8sModel')}):"]
        lines.append(f'    """Kubernetes ``{cls.name}`` (first found at ``{cls.origin}``)."""')
        if cls.fields:
            lines.append("")
        for f in cls.fields:
            lines.append(_field_line(f))
    aliases = {name: cls for name, cls in sorted(gen.aliases.items()) if name not in gen.by_name}
    if aliases:
        lines += ["", "", "# Kubernetes names of types that are structurally identical to another one here."]
        lines += [f"{name} = {cls.name}" for name, cls in aliases.items()]
    public = sorted([c.name for c in gen.order] + list(aliases))
    lines += ["", "__all__ = ["] + [f'    "{n}",' for n in public] + ["]", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="fail if the output file is out of date")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        return 0 if current == text else 1
    args.output.write_text(text)
    classes = text.count("(_K8sModel):")
    print(f"wrote {args.output} ({classes} classes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
