"""Convenience pod fields for the common case, rendered into a Ray group's pod template.

A Ray group's pod is a full Kubernetes ``PodTemplateSpec`` whose ``spec.containers[0]`` is the Ray container.
Most clusters only need an image, CPU/memory/GPU sizes, a few environment variables and scheduling hints, so
:class:`PodShortcuts` offers exactly those as plain fields::

    WorkerGroupSpec(group_name="gpu", image="rayproject/ray:2.52.0-gpu", cpu=8, memory="64Gi", gpu=1,
                    env={"HF_TOKEN": SecretRef("hf", "token")}, node_selector={"pool": "gpu"},
                    min_replicas=0, max_replicas=4)

Rendering rules (see :meth:`PodShortcuts.render_template`):

- ``cpu``/``memory``/``gpu`` set requests **and** limits to the same value (KubeRay derives ``num-cpus``,
  ``memory`` and ``num-gpus`` from the limits; Ray wants requests = limits).
- ``env`` values are literal strings or :class:`SecretRef` (rendered as ``valueFrom.secretKeyRef``: secret
  values never go into the custom resource).
- With a full ``template`` as well, the shortcuts fill the Ray container; a shortcut that contradicts a value
  the template already has is a :class:`SpecError` naming both fields.
- The shortcut fields are Python-only (``Field(exclude=True)``): they never appear in a rendered manifest, and
  a *manifest* (validated with :data:`WIRE_CONTEXT`, as ``load_manifest`` does) that contains them is
  rejected as having unknown fields, as the API server would prune them.

This module also holds the small "Python vs. wire" switch shared by the model: :data:`WIRE_CONTEXT` and
:data:`ScalarStringMap` (maps of strings that accept numbers/booleans from Python only).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, cast

from pydantic import BeforeValidator, Field, ValidationInfo, field_validator
from pydantic_core import PydanticKnownError

from ..kuberay.names import SHARED_MEMORY_PATH, SHARED_MEMORY_VOLUME
from ..kuberay.resources import NVIDIA_GPU
from ._base import JsonDict, KubeModel, render_scalar, wire_noop
from ._deferred import In, Obj, known
from ._errors import SpecError
from ._k8s import (
    Affinity,
    Container,
    EnvFromSource,
    PodTemplateSpec,
    SecurityContext,
    Toleration,
    Volume,
    VolumeMount,
)
from ._quantity import QUANTITY_PATTERN, quantity_amount, quantity_fix

# --------------------------------------------------------------------------------------------------
# Python input vs. wire documents.

WIRE_CONTEXT: dict[str, Any] = {"pulumi_kuberay.wire": True}
#: A manifest as the API server stores it (``load_stored``): what only Ray Serve reads (serveConfigV2) is kept
#: even where Ray would refuse it, and the problems are recorded instead of raised.
LENIENT_CONTEXT: dict[str, Any] = {**WIRE_CONTEXT, "pulumi_kuberay.lenient": True}
"""Pydantic validation context marking the input as a wire document (a manifest as the API server sees it).

Under this context the Python conveniences are off: maps of strings (``rayStartParams``, group ``resources``)
must already hold strings, and convenience-only fields (``image``, ``cpu``, ...) are unknown fields.
``load_manifest`` validates with it; direct Python construction does not.
"""


def is_wire(info: ValidationInfo) -> bool:
    """True when the current validation runs under :data:`WIRE_CONTEXT` (i.e. on a manifest)."""
    context = info.context
    return isinstance(context, Mapping) and bool(context.get("pulumi_kuberay.wire"))


_LENIENT: ContextVar[bool] = ContextVar("pulumi_kuberay_lenient", default=False)


@contextmanager
def lenient_validation() -> Iterator[None]:
    """Validate as :data:`LENIENT_CONTEXT` does, also where models are built from Python (``kuberay-convert``
    checks that its generated expression rebuilds a stored object that Ray Serve would refuse)."""
    token = _LENIENT.set(True)
    try:
        yield
    finally:
        _LENIENT.reset(token)


def is_lenient(info: ValidationInfo) -> bool:
    """True under :data:`LENIENT_CONTEXT` (``load_stored``: lint and convert) or :func:`lenient_validation`."""
    context = info.context
    return _LENIENT.get() or (isinstance(context, Mapping) and bool(context.get("pulumi_kuberay.lenient")))


def is_stored(info: ValidationInfo) -> bool:
    """True when the object is one the API server stores (a manifest: ``load_manifest``, ``load_stored``) or its
    rebuild (:func:`lenient_validation`): what only the operator, Ray or the Pods' admission refuses (a worker
    group's minReplicas > maxReplicas, a cron schedule, a toleration's operator) is left to the rule catalogue or
    recorded, never raised; the CRD's own schema (types, enums, required fields, CEL rules) still is. From Python
    (the components' args) the same mistakes are refused at once."""
    return is_wire(info) or is_lenient(info)


@wire_noop
def _stringify_scalars(value: Any, info: ValidationInfo) -> Any:
    # From Python, 0 / True / 0.5 mean what a user would type on the `ray start` command line; KubeRay's CRD
    # only accepts strings, so stringify them the way KubeRay reads them. In a manifest the API server would
    # reject a non-string, so there the value is left as is and strict validation reports a wrong type.
    if is_wire(info) or not isinstance(value, Mapping):
        return value
    return {k: render_scalar(v) if isinstance(v, (bool, int, float)) else v for k, v in value.items()}


if TYPE_CHECKING:  # what a Python caller may write (mypy); pydantic sees the CRD's map of strings
    ScalarStringMap = dict[str, In[str | int | float | bool]]
else:
    ScalarStringMap = Annotated[dict[str, str], BeforeValidator(_stringify_scalars)]
"""``map[string]string`` of the CRD that also accepts ``int``/``float``/``bool`` values from Python.

``{"num-cpus": 0, "block": True, "object-store-memory": 1e9}`` is stored and rendered as
``{"num-cpus": "0", "block": "true", "object-store-memory": "1000000000"}``. Manifests must hold strings.
"""


def reject_on_wire(value: Any, info: ValidationInfo) -> Any:
    """Field validator body for convenience-only fields: on a manifest they are unknown fields."""
    if is_wire(info):
        raise PydanticKnownError("extra_forbidden")
    return value


# --------------------------------------------------------------------------------------------------
# Secret references.


class SecretRef(KubeModel):
    """A key of a Kubernetes Secret, used instead of a literal value so the secret never enters the CR.

    Example: ``env={"REDIS_PASSWORD": SecretRef("redis-secret", "password")}`` renders ``{"name":
    "REDIS_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "redis-secret", "key": "password"}}}``.
    """

    name: In[str]
    """Name of the Secret (in the cluster's namespace), e.g. ``"redis-secret"`` (or a Secret's name output)."""
    key: In[str]
    """Key inside the Secret, e.g. ``"password"``."""
    optional: bool | None = None
    """``True`` lets the Pod start when the Secret or key is missing (Kubernetes ``optional``)."""

    def __init__(self, name: In[str] | None = None, key: In[str] | None = None, /, **data: Any) -> None:
        # Positional ``SecretRef("secret", "key")`` for readability; keywords (and dict validation, which
        # pydantic routes through a custom __init__) keep working.
        if name is not None:
            data["name"] = name
        if key is not None:
            data["key"] = key
        super().__init__(**data)

    def secret_key_ref(self) -> JsonDict:
        """The ``secretKeyRef`` object of an ``EnvVarSource``."""
        return self.to_dict()

    def value_from(self) -> JsonDict:
        """The ``valueFrom`` object (an ``EnvVarSource``) referencing this key."""
        return {"secretKeyRef": self.secret_key_ref()}


def secret_ref_to_value_from(value: Any) -> Any:
    """Before-validator helper: turn a :class:`SecretRef` into ``{"valueFrom": {"secretKeyRef": ...}}``."""
    if isinstance(value, SecretRef):
        return {"valueFrom": value.value_from()}
    return value


# --------------------------------------------------------------------------------------------------
# Quantities.

CpuQuantity = int | float | str
"""CPU amount: ``2``, ``0.5`` (rendered ``"500m"``) or a Kubernetes quantity string (``"500m"``)."""


#: The Kubernetes quantity syntax (the CRD's ``pattern`` of ``resources.limits``/``requests``).
_QUANTITY = re.compile(QUANTITY_PATTERN)


def check_quantity(value: Any, field: str) -> Any:
    """A resource amount: a finite number >= 0 or a string in the Kubernetes quantity syntax (``"16Gi"``)."""
    fix = quantity_fix(value, field)
    if isinstance(value, str) and (not _QUANTITY.match(value) or value.startswith("-")):
        raise SpecError(f"{field} {value!r} is not a Kubernetes quantity", field=field, fix=fix)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not 0 <= value < math.inf:
        raise SpecError(f"{field} ({value!r}) must be a finite amount >= 0", field=field, fix=fix)
    return value


def cpu_quantity(value: CpuQuantity) -> int | str:
    """Render a CPU amount as a Kubernetes quantity (floats become millicores: ``0.5`` -> ``"500m"``)."""
    if isinstance(value, bool):
        raise SpecError(f"cpu must be a number or a quantity string, got {value!r}", field="cpu")
    check_quantity(value, "cpu")
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        millis = value * 1000
        if abs(millis - round(millis)) > 1e-6:
            raise SpecError(
                f"cpu ({value}) is finer than a millicore", field="cpu", fix=f'write cpu="{round(millis)}m"'
            )
        return f"{round(millis)}m"
    return value


def _same_quantity(a: Any, b: Any) -> bool:
    return str(a) == str(b)


# --------------------------------------------------------------------------------------------------
# The shortcuts.

_SHORTCUTS = (
    "image",
    "image_pull_policy",
    "cpu",
    "memory",
    "gpu",
    "gpu_resource",
    "env",
    "ports",
    "node_selector",
    "tolerations",
    "service_account",
    "volumes",
    "volume_mounts",
    "env_from",
    "image_pull_secrets",
    "affinity",
    "pod_labels",
    "pod_annotations",
    "sidecar_containers",
    "priority_class_name",
    "security_context",
    "shm_size",
    "object_store_memory",
)

DEFAULT_GPU_RESOURCE = NVIDIA_GPU

#: Ray images run as user ``ray``, uid 1000 (``rayproject/ray``); the security context the conveniences give
#: every Ray container, the autoscaler and the RayJob submitter unless ``security_context`` says otherwise
#: (Pod Security Standards "restricted"). The root filesystem stays writable (``/tmp/ray``, pip installs of
#: runtime environments) and the object store keeps its ``/dev/shm`` volume (KubeRay adds one sized to the
#: memory limit, or ``shm_size``/``object_store_memory`` render it).
RAY_UID = 1000
HARDENED_SECURITY_CONTEXT: dict[str, Any] = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "runAsUser": RAY_UID,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def hardened_security_context() -> dict[str, Any]:
    """A fresh copy of :data:`HARDENED_SECURITY_CONTEXT`."""
    return {
        **HARDENED_SECURITY_CONTEXT,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def quantity_bytes(value: int | str, field: str) -> int:
    """A memory amount in bytes (``"4Gi"`` -> 4294967296, ``"2G"`` -> 2000000000, ``1000`` -> 1000)."""
    fix = 'write bytes (e.g. 4294967296) or a quantity such as "4Gi" or "4G"'
    if isinstance(value, bool):
        raise SpecError(f"{field} must be a number of bytes or a quantity, got {value!r}", field=field, fix=fix)
    if isinstance(value, int):
        if value <= 0:
            raise SpecError(f"{field} ({value}) must be positive", field=field, fix=fix)
        return value
    exact = quantity_amount(value)
    if exact is None:
        raise SpecError(f"{field} {value!r} is not a memory quantity", field=field, fix=fix)
    amount = int(exact)
    if amount <= 0:
        raise SpecError(f"{field} ({value!r}) must be positive", field=field, fix=fix)
    return amount


class PodShortcuts(KubeModel):
    """Convenience fields of a Ray group, rendered into its pod template's Ray container (``containers[0]``).

    Every field is Python-only (never rendered itself); together they produce or complete ``template``::

        HeadGroupSpec(image="rayproject/ray:2.52.0", cpu=2, memory="8Gi")
    """

    RAY_CONTAINER_NAME: ClassVar[str] = "ray"
    """Name given to a generated Ray container (``ray-head`` / ``ray-worker`` in the group classes)."""
    DEFAULT_PORTS: ClassVar[tuple[tuple[str, int], ...]] = ()
    """Ports declared on a Ray container generated from scratch (the head declares the standard ones)."""

    image: In[str] | None = Field(default=None, exclude=True)
    """Ray container image, e.g. ``"rayproject/ray:2.52.0"`` (``RayClusterSpec.image`` is the default)."""
    image_pull_policy: In[Literal["Always", "IfNotPresent", "Never"]] | None = Field(default=None, exclude=True)
    """Ray container ``imagePullPolicy``, e.g. ``"IfNotPresent"``."""
    cpu: In[CpuQuantity] | None = Field(default=None, exclude=True)
    """CPU request = limit of the Ray container: ``4``, ``0.5`` or ``"500m"`` (KubeRay derives num-cpus)."""
    memory: In[int | str] | None = Field(default=None, exclude=True)
    """Memory request = limit of the Ray container, e.g. ``"16Gi"`` (KubeRay derives Ray's ``memory``)."""
    gpu: In[int] | None = Field(default=None, exclude=True, ge=0)
    """Number of GPUs (request = limit of ``gpu_resource``), e.g. ``1``. KubeRay derives ``num-gpus``."""
    gpu_resource: In[str] | None = Field(default=None, exclude=True)
    """Extended resource name for ``gpu``; default ``"nvidia.com/gpu"`` (e.g. ``"amd.com/gpu"``)."""
    env: dict[str, In[str] | SecretRef] | None = Field(default=None, exclude=True)
    """Environment of the Ray container: ``{"LOG_LEVEL": "debug", "TOKEN": SecretRef("hf", "token")}``."""
    ports: dict[str, int] | None = Field(default=None, exclude=True)
    """Extra named container ports of the Ray container, e.g. ``{"serve": 8000}``."""
    node_selector: dict[str, In[str]] | None = Field(default=None, exclude=True)
    """Pod ``nodeSelector``, e.g. ``{"cloud.google.com/gke-accelerator": "nvidia-l4"}``."""
    tolerations: list[Obj[Toleration]] | None = Field(default=None, exclude=True)
    """Pod tolerations, e.g. ``[Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")]``.
    """
    service_account: In[str] | None = Field(default=None, exclude=True)
    """Pod ``serviceAccountName``, e.g. ``"ray-workload"`` (or a ServiceAccount resource's name output)."""
    volumes: list[Obj[Volume]] | None = Field(default=None, exclude=True)
    """Pod volumes, e.g. ``[Volume(name="data", persistent_volume_claim={"claimName": "datasets"})]``."""
    volume_mounts: list[Obj[VolumeMount]] | None = Field(default=None, exclude=True)
    """Mounts of the Ray container, e.g. ``[VolumeMount(name="data", mount_path="/data")]``."""
    env_from: list[Obj[EnvFromSource]] | None = Field(default=None, exclude=True)
    """``envFrom`` of the Ray container, e.g. ``[EnvFromSource(config_map_ref={"name": "ray-env"})]``."""
    image_pull_secrets: list[In[str]] | None = Field(default=None, exclude=True)
    """Names of the pull Secrets of the Pod, e.g. ``["registry-credentials"]``."""
    affinity: Obj[Affinity] | None = Field(default=None, exclude=True)
    """Pod ``affinity``, e.g. ``Affinity(node_affinity=...)``."""
    pod_labels: dict[str, In[str]] | None = Field(default=None, exclude=True)
    """Labels of the Pods (``template.metadata.labels``), e.g. ``{"team": "ml"}``. Not Ray's ``labels``."""
    pod_annotations: dict[str, In[str]] | None = Field(default=None, exclude=True)
    """Annotations of the Pods (``template.metadata.annotations``)."""
    sidecar_containers: list[Obj[Container]] | None = Field(default=None, exclude=True)
    """Containers after the Ray container, e.g. a log shipper (the security rules judge them too)."""
    priority_class_name: In[str] | None = Field(default=None, exclude=True)
    """Pod ``priorityClassName``, e.g. ``"high-priority"``."""
    security_context: Obj[SecurityContext] | None = Field(default=None, exclude=True)
    """Security context of the Ray container; default :data:`HARDENED_SECURITY_CONTEXT` (non-root uid 1000,
    no privilege escalation, all capabilities dropped, seccomp RuntimeDefault). Give your own to replace it
    (``SecurityContext()`` renders an empty one)."""
    shm_size: In[int | str] | None = Field(default=None, exclude=True)
    """Size of the ``/dev/shm`` memory volume of the Ray container, e.g. ``"8Gi"`` (KubeRay's own default is
    the memory limit); the object store lives there."""
    object_store_memory: In[int | str] | None = Field(default=None, exclude=True)
    """Ray object store size, e.g. ``"4Gi"``: ``rayStartParams["object-store-memory"]`` in bytes and, without
    ``shm_size``, the size of the ``/dev/shm`` volume."""

    @field_validator(*_SHORTCUTS, mode="before")
    @classmethod
    def _shortcuts_are_python_only(cls, value: Any, info: ValidationInfo) -> Any:
        return reject_on_wire(value, info)

    def shortcuts_set(self) -> list[str]:
        """Names of the convenience fields that were given."""
        return [name for name in _SHORTCUTS if name in self.model_fields_set]

    def object_store_param(self, params: Mapping[str, Any] | None) -> Any:
        """``ray_start_params`` with ``object-store-memory`` from :attr:`object_store_memory` (in bytes)."""
        if self.object_store_memory is None:
            return None if params is None else dict(params)
        amount = str(quantity_bytes(cast(int | str, self.object_store_memory), "object_store_memory"))
        current = (params or {}).get("object-store-memory")
        if current is not None and current != amount:
            raise SpecError(
                f"object_store_memory ({amount} bytes) conflicts with ray_start_params['object-store-memory'] ({current})",
                field="object_store_memory",
                fix="set the object store size in one place only",
            )
        return {**(params or {}), "object-store-memory": amount}

    # C901, PLR0912, PLR0915: one step per convenience field, in KubeRay's order
    def render_template(  # noqa: C901, PLR0912, PLR0915
        self, template: PodTemplateSpec | None, *, image_default: str | None = None
    ) -> PodTemplateSpec | None:
        """Merge the shortcuts into ``template`` (or build one); ``None`` when there is nothing to render.

        ``image_default`` (the cluster-wide image) fills a Ray container that has no image.
        Raises :class:`SpecError` (field relative to this group) when a shortcut contradicts the template.
        """
        given = self.shortcuts_set()
        if template is None and not given and image_default is None:
            return None
        doc: JsonDict = template.to_dict() if template is not None else {}
        spec: JsonDict = doc.setdefault("spec", {})
        containers: list[JsonDict] = spec.setdefault("containers", [])
        from_scratch = not containers
        if from_scratch:
            containers.append({"name": self.RAY_CONTAINER_NAME})
        ray: JsonDict = containers[0]
        here = "template.spec.containers[0]"

        if from_scratch and template is None and self.DEFAULT_PORTS:
            ray["ports"] = [{"containerPort": port, "name": name} for name, port in self.DEFAULT_PORTS]

        def put(target: JsonDict, key: str, value: Any, field: str, target_path: str) -> None:
            current = target.get(key)
            if current is None:
                target[key] = value
            elif not _same_quantity(current, value):
                raise SpecError(
                    f"{field} ({value!r}) conflicts with {target_path} ({current!r})",
                    field=field,
                    fix=f"set it in one place only: drop {field} or change {target_path}",
                )

        if self.image is not None:
            put(ray, "image", self.image, "image", f"{here}.image")
        elif image_default is not None and ray.get("image") is None:
            ray["image"] = image_default
        if self.image_pull_policy is not None:
            policy = self.image_pull_policy
            put(ray, "imagePullPolicy", policy, "image_pull_policy", f"{here}.imagePullPolicy")

        amounts: dict[str, tuple[str, Any]] = {}
        if self.cpu is not None:
            amounts["cpu"] = ("cpu", cpu_quantity(cast(CpuQuantity, self.cpu)))
        if self.memory is not None:
            amounts["memory"] = ("memory", check_quantity(self.memory, "memory"))
        if self.gpu is not None:
            amounts[known(self.gpu_resource) or DEFAULT_GPU_RESOURCE] = ("gpu", self.gpu)
        elif self.gpu_resource is not None:
            raise SpecError("gpu_resource is set but gpu is not", field="gpu_resource", fix="set gpu=<count>")
        if amounts:
            resources: JsonDict = ray.setdefault("resources", {})
            for side in ("requests", "limits"):
                bucket: JsonDict = resources.setdefault(side, {})
                for resource, (field, amount) in amounts.items():
                    put(bucket, resource, amount, field, f"{here}.resources.{side}[{resource!r}]")

        if self.env:
            env: list[JsonDict] = ray.setdefault("env", [])
            by_name = {e.get("name"): e for e in env}
            for name, value in self.env.items():
                entry: JsonDict = (
                    {"name": name, "valueFrom": value.value_from()}
                    if isinstance(value, SecretRef)
                    else {"name": name, "value": value}
                )
                existing = by_name.get(name)
                if existing is None:
                    env.append(entry)
                    by_name[name] = entry
                elif existing != entry:
                    j = env.index(existing)
                    raise SpecError(
                        f"env[{name!r}] conflicts with {here}.env[{j}] (name {name!r})",
                        field="env",
                        fix=f"set {name} in one place only",
                    )

        if self.ports:
            ports: list[JsonDict] = ray.setdefault("ports", [])
            for name, number in self.ports.items():
                same = [p for p in ports if p.get("name") == name]
                if not same:
                    ports.append({"containerPort": number, "name": name})
                elif same[0].get("containerPort") != number:
                    raise SpecError(
                        f"ports[{name!r}] ({number}) conflicts with {here}.ports[{ports.index(same[0])}] ({same[0].get('containerPort')})",
                        field="ports",
                        fix=f"declare port {name!r} in one place only",
                    )

        if self.node_selector:
            selector: JsonDict = spec.setdefault("nodeSelector", {})
            for key, val in self.node_selector.items():
                put(selector, key, val, "node_selector", f"template.spec.nodeSelector[{key!r}]")

        if self.tolerations:
            tolerations: list[JsonDict] = spec.setdefault("tolerations", [])
            for toleration in self.tolerations:
                rendered = _dump(toleration)
                if rendered not in tolerations:
                    tolerations.append(rendered)

        if self.service_account is not None:
            put(spec, "serviceAccountName", self.service_account, "service_account",
                "template.spec.serviceAccountName")
        if self.priority_class_name is not None:
            put(spec, "priorityClassName", self.priority_class_name, "priority_class_name",
                "template.spec.priorityClassName")
        if self.affinity is not None:
            put(spec, "affinity", _dump(self.affinity), "affinity", "template.spec.affinity")
        for field, key in (("pod_labels", "labels"), ("pod_annotations", "annotations")):
            values = getattr(self, field)
            if values:
                meta: JsonDict = doc.setdefault("metadata", {})
                bucket = meta.setdefault(key, {})
                for name, val in values.items():
                    put(bucket, name, val, field, f"template.metadata.{key}[{name!r}]")
        if self.image_pull_secrets:
            secrets: list[JsonDict] = spec.setdefault("imagePullSecrets", [])
            for secret in self.image_pull_secrets:
                if {"name": secret} not in secrets:
                    secrets.append({"name": secret})

        volumes = [_dump(v) for v in self.volumes or []]
        mounts = [_dump(m) for m in self.volume_mounts or []]
        shm = self.shm_size if self.shm_size is not None else self.object_store_memory
        if shm is not None:
            check_quantity(shm, "shm_size" if self.shm_size is not None else "object_store_memory")
            volumes.append({"emptyDir": {"medium": "Memory", "sizeLimit": shm}, "name": SHARED_MEMORY_VOLUME})
            mounts.append({"mountPath": SHARED_MEMORY_PATH, "name": SHARED_MEMORY_VOLUME})
        _merge_named(spec, "volumes", volumes, "name", "volumes", "template.spec.volumes")
        _merge_named(ray, "volumeMounts", mounts, "mountPath", "volume_mounts", f"{here}.volumeMounts")
        if self.env_from:
            env_from: list[JsonDict] = ray.setdefault("envFrom", [])
            env_from.extend(_dump(e) for e in self.env_from if _dump(e) not in env_from)
        if self.sidecar_containers:
            _merge_named(spec, "containers", [_dump(c) for c in self.sidecar_containers], "name",
                         "sidecar_containers", "template.spec.containers")

        if self.security_context is not None:
            put(ray, "securityContext", _dump(self.security_context), "security_context",
                f"{here}.securityContext")
        elif ray.get("securityContext") is None:
            ray["securityContext"] = hardened_security_context()

        return PodTemplateSpec.model_validate(doc)


def _dump(model: Any) -> JsonDict:
    """A validated model's CRD form (its field type is a model; ``Obj[...]`` only widens it for mypy)."""
    rendered: JsonDict = model.to_dict()
    return rendered


# PLR0917: one merge step: where, what, the items, their identity, and two names for errors
def _merge_named(  # noqa: PLR0917
    target: JsonDict, key: str, items: list[JsonDict], identity: str, field: str, target_path: str
) -> None:
    """Append ``items`` to ``target[key]``; an item whose ``identity`` is already there must be identical."""
    if not items:
        return
    existing: list[JsonDict] = target.setdefault(key, [])
    for item in items:
        same = [i for i, e in enumerate(existing) if e.get(identity) == item.get(identity)]
        if not same:
            existing.append(item)
        elif existing[same[0]] != item:
            raise SpecError(
                f"{field} entry {item.get(identity)!r} conflicts with {target_path}[{same[0]}]",
                field=field,
                fix=f"declare {item.get(identity)!r} in one place only",
            )


__all__ = [
    "DEFAULT_GPU_RESOURCE",
    "HARDENED_SECURITY_CONTEXT",
    "RAY_UID",
    "SHARED_MEMORY_PATH",
    "SHARED_MEMORY_VOLUME",
    "WIRE_CONTEXT",
    "CpuQuantity",
    "PodShortcuts",
    "ScalarStringMap",
    "SecretRef",
    "cpu_quantity",
    "hardened_security_context",
    "is_stored",
    "is_wire",
    "quantity_bytes",
    "reject_on_wire",
    "secret_ref_to_value_from",
]
