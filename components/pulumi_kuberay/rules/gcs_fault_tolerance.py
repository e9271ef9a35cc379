"""GCS fault tolerance: Redis options and the embedded RocksDB backend (``ValidateRayClusterSpec``,
``validateGcsFaultToleranceOptions``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.names import REDIS_ADDRESS_ENV, ROCKSDB_ENV_VARS, ROCKSDB_MOUNT_PATH, ROCKSDB_VOLUME
from pulumi_kuberay.kuberay.paths import (
    as_dict,
    as_list,
    cluster_specs,
    env_var,
    head_group,
    head_ray_container,
    head_template,
    is_unknown,
    join,
    volume_mounts,
)

from ._cel import HEAD_CONTAINERS, Cel, head_env_entries
from ._engine import KINDS, Context, Violation, declare
from ._examples import add_env, annotate, example, head_container_of, head_of, spec_of
from ._fixed import REMOVE, patch
from ._manifest_readers import (
    EXTERNAL_STORAGE_NS_ANNOTATION,
    FT_ENABLED_ANNOTATION,
    annotation_path,
    ft_options,
    gcs_ft_enabled,
    head_env,
    is_set,
    reported_as,
    rocksdb_backend,
)

# RC-21..RC-26, RC-37: GCS fault tolerance (redis)


def _check_ft_annotation_conflict(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if is_set(ref.annotations.get(FT_ENABLED_ANNOTATION)) and ref.spec.get("gcsFaultToleranceOptions") is not None:
            yield Violation(
                f"annotation {FT_ENABLED_ANNOTATION} and gcsFaultToleranceOptions are both set{reported_as(ref)}",
                annotation_path(FT_ENABLED_ANNOTATION),
                fix=f"Remove the {FT_ENABLED_ANNOTATION} annotation; gcsFaultToleranceOptions alone enables GCS FT.",
            )


def _redis_ft(d: dict[str, Any]) -> dict[str, Any]:
    spec_of(d)["gcsFaultToleranceOptions"] = {
        "redisAddress": "redis:6379",
        "redisPassword": {"valueFrom": {"secretKeyRef": {"name": "redis-password-secret", "key": "password"}}},
    }
    return d


declare(
    id="gcs-ft-annotation-conflict",
    title="Legacy ray.io/ft-enabled annotation together with gcsFaultToleranceOptions",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-21",),
    enforced_by=("operator",),
    rationale="The legacy annotation and the gcsFaultToleranceOptions field cannot be combined; the operator rejects it.",
    fix="Use only gcsFaultToleranceOptions.",
    check=_check_ft_annotation_conflict,
    compliant=example(_redis_ft),
    violating=example(lambda d: (_redis_ft(d), annotate(d, FT_ENABLED_ANNOTATION, "true"))),
    violating_path="metadata.annotations[\"ray.io/ft-enabled\"]",
    fixed=patch({"metadata.annotations": REMOVE}),
    cel=Cel("!(object.kind != 'RayCronJob' && has(object.metadata.annotations) && 'ray.io/ft-enabled' in object.metadata.annotations && object.metadata.annotations['ray.io/ft-enabled'] != '') || !has(c.gcsFaultToleranceOptions)", over="cluster", path="gcsFaultToleranceOptions"),
)


def _check_implicit_redis(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if gcs_ft_enabled(ref):
            continue
        env = head_env(ref, REDIS_ADDRESS_ENV)
        if env is not None:
            yield Violation(
                f"head env RAY_REDIS_ADDRESS implicitly enables GCS fault tolerance, but gcsFaultToleranceOptions is not set{reported_as(ref)}",
                env[0],
                fix="Remove the env var and set gcsFaultToleranceOptions.redisAddress instead.",
            )


declare(
    id="gcs-ft-implicit-redis-address",
    title="RAY_REDIS_ADDRESS env without gcsFaultToleranceOptions",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-22",),
    enforced_by=("operator",),
    rationale="Setting RAY_REDIS_ADDRESS on the head turns on GCS FT behind KubeRay's back; the operator rejects it.",
    fix="Configure GCS FT with gcsFaultToleranceOptions.redisAddress.",
    check=_check_implicit_redis,
    compliant=example(_redis_ft),
    violating=example(lambda d: add_env(head_container_of(d), REDIS_ADDRESS_ENV, "redis:6379")),
    violating_path="spec.headGroupSpec.template.spec.containers[0].env[0]",
    fixed=patch(
        {
            "spec.headGroupSpec.template.spec.containers[0].env": REMOVE,
            "spec.gcsFaultToleranceOptions": {
                "redisAddress": "redis:6379",
                "redisPassword": {"valueFrom": {"secretKeyRef": {"name": "redis-password-secret", "key": "password"}}},
            },
        }
    ),
    cel=Cel(f"(has(c.gcsFaultToleranceOptions) || (object.kind != 'RayCronJob' && has(object.metadata.annotations) && 'ray.io/ft-enabled' in object.metadata.annotations && object.metadata.annotations['ray.io/ft-enabled'].lowerAscii() == 'true')) || {head_env_entries(REDIS_ADDRESS_ENV)}.size() == 0", over="cluster", path="headGroupSpec.template.spec.containers[0].env"),
)


def _check_ft_legacy_settings(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if ref.spec.get("gcsFaultToleranceOptions") is None:
            continue
        head = head_group(ref)
        params = as_dict(head.spec.get("rayStartParams")) if head else {}
        if is_set(params.get("redis-password")) and head is not None:
            yield Violation(
                f"rayStartParams redis-password cannot be set with gcsFaultToleranceOptions{reported_as(ref)}",
                join(head.path, "rayStartParams", "redis-password"),
                fix="Remove it and use gcsFaultToleranceOptions.redisPassword (valueFrom a Secret).",
            )
        for name, field in (("REDIS_PASSWORD", "redisPassword"), (REDIS_ADDRESS_ENV, "redisAddress")):
            env = head_env(ref, name)
            if env is not None:
                yield Violation(
                    f"head env {name} cannot be set with gcsFaultToleranceOptions{reported_as(ref)}",
                    env[0],
                    fix=f"Remove the env var and use gcsFaultToleranceOptions.{field}.",
                )
        if is_set(ref.annotations.get(EXTERNAL_STORAGE_NS_ANNOTATION)):
            yield Violation(
                f"annotation {EXTERNAL_STORAGE_NS_ANNOTATION} cannot be used with gcsFaultToleranceOptions{reported_as(ref)}",
                annotation_path(EXTERNAL_STORAGE_NS_ANNOTATION),
                fix="Remove the annotation and use gcsFaultToleranceOptions.externalStorageNamespace.",
            )


declare(
    id="gcs-ft-legacy-settings-conflict",
    title="Legacy Redis settings together with gcsFaultToleranceOptions",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-23", "RC-24", "RC-25", "RC-26"),
    enforced_by=("operator",),
    rationale="With gcsFaultToleranceOptions the operator manages redis-password, REDIS_PASSWORD, RAY_REDIS_ADDRESS and the external storage namespace; setting them by hand is rejected.",
    fix="Move the values into gcsFaultToleranceOptions (redisPassword, redisAddress, externalStorageNamespace).",
    check=_check_ft_legacy_settings,
    compliant=example(_redis_ft),
    violating=example(
        lambda d: (_redis_ft(d), head_of(d)["rayStartParams"].update({"redis-password": "5241590000000000"}))
    ),
    violating_path="spec.headGroupSpec.rayStartParams.redis-password",
    fixed=patch({"spec.headGroupSpec.rayStartParams.redis-password": REMOVE}),
    cel=Cel(f"!has(c.gcsFaultToleranceOptions) || (!(has(c.headGroupSpec) && has(c.headGroupSpec.rayStartParams) && 'redis-password' in c.headGroupSpec.rayStartParams && c.headGroupSpec.rayStartParams['redis-password'] != '') && {head_env_entries('REDIS_PASSWORD')}.size() == 0 && {head_env_entries(REDIS_ADDRESS_ENV)}.size() == 0 && !(object.kind != 'RayCronJob' && has(object.metadata.annotations) && 'ray.io/external-storage-namespace' in object.metadata.annotations && object.metadata.annotations['ray.io/external-storage-namespace'] != ''))", over="cluster", path="headGroupSpec"),
)


def _check_redis_username(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        head = head_group(ref)
        if head is None:
            continue
        if is_set(as_dict(head.spec.get("rayStartParams")).get("redis-username")):
            yield Violation(
                f"redis username cannot be set in rayStartParams{reported_as(ref)}",
                join(head.path, "rayStartParams", "redis-username"),
            )
        env = head_env(ref, "REDIS_USERNAME")
        if env is not None:
            yield Violation(f"redis username cannot be set as head env REDIS_USERNAME{reported_as(ref)}", env[0])


declare(
    id="redis-username-outside-options",
    title="Redis username set in rayStartParams or env",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-37",),
    enforced_by=("operator",),
    rationale="The operator only accepts the Redis username through gcsFaultToleranceOptions.redisUsername.",
    fix="Remove rayStartParams redis-username / env REDIS_USERNAME and set gcsFaultToleranceOptions.redisUsername.",
    check=_check_redis_username,
    compliant=example(
        lambda d: (_redis_ft(d), spec_of(d)["gcsFaultToleranceOptions"].update(redisUsername={"value": "ray"}))
    ),
    violating=example(lambda d: (_redis_ft(d), add_env(head_container_of(d), "REDIS_USERNAME", "ray"))),
    violating_path="spec.headGroupSpec.template.spec.containers[0].env[0]",
    fixed=patch(
        {
            "spec.headGroupSpec.template.spec.containers[0].env": REMOVE,
            "spec.gcsFaultToleranceOptions.redisUsername": {"value": "ray"},
        }
    ),
    cel=Cel(f"!(has(c.headGroupSpec) && has(c.headGroupSpec.rayStartParams) && 'redis-username' in c.headGroupSpec.rayStartParams && c.headGroupSpec.rayStartParams['redis-username'] != '') && {head_env_entries('REDIS_USERNAME')}.size() == 0", over="cluster", path="headGroupSpec"),
)


# --------------------------------------------------------------------------------------------------
# RC-28..RC-36: GCS fault tolerance (rocksdb backend, v1.7)

_ROCKSDB_CONTEXT = {"feature_gates": {"GCSFaultToleranceEmbeddedStorage": True}}


def _rocksdb(d: dict[str, Any]) -> dict[str, Any]:
    spec_of(d)["gcsFaultToleranceOptions"] = {"backend": "rocksdb", "storage": {"size": "1Gi"}}
    return d


#: Fields validateGcsFaultToleranceBackend tests with ``!= nil`` (Go pointers): any value is "set", an empty object
#: (``redisUsername: {}``) or an empty string (``storageClassName: ""``) too. The others test ``!= ""`` or
#: ``len() > 0``.
_POINTER_FIELDS = ("redisUsername", "redisPassword", "size", "storageClassName")


def _go_set(field: str, value: Any) -> bool:
    if field in _POINTER_FIELDS:
        return value is not None and not is_unknown(value)
    return is_set(value)


def _check_rocksdb_conflicts(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        options = ft_options(ref)
        if options is None or options.get("backend") != "rocksdb":
            continue
        for field in ("redisAddress", "redisUsername", "redisPassword", "externalStorageNamespace"):
            if _go_set(field, options.get(field)):
                yield Violation(
                    f"gcsFaultToleranceOptions.{field} cannot be set with the rocksdb backend{reported_as(ref)}",
                    ref.path("gcsFaultToleranceOptions", field),
                    fix=f"Remove {field} (it only applies to the redis backend).",
                )
        storage = as_dict(options.get("storage"))
        if is_set(storage.get("claimName")):
            extra = [k for k in ("size", "storageClassName", "accessModes") if _go_set(k, storage.get(k))]
            if extra:
                yield Violation(
                    f"gcsFaultToleranceOptions.storage.claimName is mutually exclusive with {', '.join(extra)}{reported_as(ref)}",
                    ref.path("gcsFaultToleranceOptions", "storage", "claimName"),
                    fix="Use an existing PVC (claimName only) or let KubeRay create one (size/storageClassName/accessModes), not both.",
                )


declare(
    id="gcs-ft-rocksdb-conflicts",
    title="Redis settings or conflicting storage with the rocksdb GCS backend",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-28", "RC-29", "RC-30", "RC-31", "RC-32"),
    enforced_by=("operator",),
    since="1.7",
    rationale="The embedded rocksdb backend has no Redis; Redis fields are rejected, and storage.claimName excludes the fields that describe an operator-managed PVC.",
    fix="Remove the Redis fields; use either storage.claimName or size/storageClassName/accessModes.",
    check=_check_rocksdb_conflicts,
    compliant=example(_rocksdb),
    violating=example(
        lambda d: (_rocksdb(d), spec_of(d)["gcsFaultToleranceOptions"].update(redisAddress="redis:6379"))
    ),
    violating_path="spec.gcsFaultToleranceOptions.redisAddress",
    context=_ROCKSDB_CONTEXT,
    fixed=patch({"spec.gcsFaultToleranceOptions.redisAddress": REMOVE}),
    cel=Cel("!(has(c.gcsFaultToleranceOptions) && has(c.gcsFaultToleranceOptions.backend) && c.gcsFaultToleranceOptions.backend == 'rocksdb') || (!(has(c.gcsFaultToleranceOptions.redisAddress) && c.gcsFaultToleranceOptions.redisAddress != '') && !has(c.gcsFaultToleranceOptions.redisUsername) && !has(c.gcsFaultToleranceOptions.redisPassword) && !(has(c.gcsFaultToleranceOptions.externalStorageNamespace) && c.gcsFaultToleranceOptions.externalStorageNamespace != '') && !(has(c.gcsFaultToleranceOptions.storage) && has(c.gcsFaultToleranceOptions.storage.claimName) && c.gcsFaultToleranceOptions.storage.claimName != '' && (has(c.gcsFaultToleranceOptions.storage.size) || has(c.gcsFaultToleranceOptions.storage.storageClassName) || (has(c.gcsFaultToleranceOptions.storage.accessModes) && size(c.gcsFaultToleranceOptions.storage.accessModes) > 0))))", over="cluster", path="gcsFaultToleranceOptions"),
)


def _check_rocksdb_managed(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if not rocksdb_backend(ref):
            continue
        found = head_ray_container(ref)
        if found is not None:
            cpath, container = found
            for name in ROCKSDB_ENV_VARS:
                env = env_var(container, name, cpath)
                if env is not None:
                    yield Violation(
                        f"head env {name} is managed by KubeRay with the rocksdb backend{reported_as(ref)}",
                        env[0],
                        fix=f"Remove env {name}.",
                    )
            for mpath, mount in volume_mounts(container, cpath):
                if mount.get("name") == ROCKSDB_VOLUME or mount.get("mountPath") == ROCKSDB_MOUNT_PATH:
                    yield Violation(
                        f"head volumeMount 'gcs-storage' / '/data/gcs' is managed by KubeRay with the rocksdb backend{reported_as(ref)}",
                        mpath,
                        fix="Remove the mount; KubeRay mounts the GCS storage at /data/gcs.",
                    )
        tpl = head_template(ref)
        if tpl is not None:
            for i, volume in enumerate(as_list(tpl.pod_spec.get("volumes"))):
                if isinstance(volume, dict) and volume.get("name") == ROCKSDB_VOLUME:
                    yield Violation(
                        f"head volume 'gcs-storage' is managed by KubeRay with the rocksdb backend{reported_as(ref)}",
                        join(tpl.spec_path, "volumes", i),
                        fix="Remove the volume (use gcsFaultToleranceOptions.storage to configure it).",
                    )


declare(
    id="gcs-ft-rocksdb-managed-fields",
    title="Head Pod sets env/volume that KubeRay manages for the rocksdb backend",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-33", "RC-34", "RC-35"),
    enforced_by=("operator",),
    since="1.7",
    rationale="With backend rocksdb the operator injects RAY_gcs_storage(_path) and the 'gcs-storage' volume at /data/gcs; user-defined ones are rejected.",
    fix="Remove those env vars, mounts and volumes from the head Pod.",
    check=_check_rocksdb_managed,
    compliant=example(_rocksdb),
    violating=example(lambda d: (_rocksdb(d), add_env(head_container_of(d), ROCKSDB_ENV_VARS[0], "rocksdb"))),
    violating_path="spec.headGroupSpec.template.spec.containers[0].env[0]",
    context=_ROCKSDB_CONTEXT,
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].env": REMOVE}),
    cel=Cel(f"!(has(c.gcsFaultToleranceOptions) && has(c.gcsFaultToleranceOptions.backend) && c.gcsFaultToleranceOptions.backend == 'rocksdb') || (({HEAD_CONTAINERS}.all(h, (!has(h.env) || !h.env.exists(e, e.name in ['RAY_gcs_storage', 'RAY_gcs_storage_path'])) && (!has(h.volumeMounts) || !h.volumeMounts.exists(m, (has(m.name) && m.name == 'gcs-storage') || (has(m.mountPath) && m.mountPath == '/data/gcs'))))) && (!(has(c.headGroupSpec) && has(c.headGroupSpec.template) && has(c.headGroupSpec.template.spec) && has(c.headGroupSpec.template.spec.volumes)) || !c.headGroupSpec.template.spec.volumes.exists(v, has(v.name) && v.name == 'gcs-storage')))", over="cluster", path="headGroupSpec.template.spec"),
)


def _check_storage_needs_rocksdb(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        options = ft_options(ref)
        if options is None or options.get("storage") is None:
            continue
        if "backend" in options and is_unknown(options["backend"]):
            continue
        backend = options.get("backend")
        if backend is None or backend in ("", "redis"):
            yield Violation(
                f"gcsFaultToleranceOptions.storage only applies to the rocksdb backend (backend is {backend or 'redis (default)'}){reported_as(ref)}",
                ref.path("gcsFaultToleranceOptions", "storage"),
                fix="Remove storage, or set backend: rocksdb (needs the GCSFaultToleranceEmbeddedStorage gate).",
            )


declare(
    id="gcs-ft-storage-requires-rocksdb",
    title="gcsFaultToleranceOptions.storage with the redis backend",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-36",),
    enforced_by=("operator",),
    since="1.7",
    rationale="storage configures the embedded rocksdb backend's PVC; with redis (the default) the operator rejects it.",
    fix="Remove storage or use backend: rocksdb.",
    check=_check_storage_needs_rocksdb,
    compliant=example(_redis_ft),
    violating=example(lambda d: (_redis_ft(d), spec_of(d)["gcsFaultToleranceOptions"].update(storage={"size": "1Gi"}))),
    violating_path="spec.gcsFaultToleranceOptions.storage",
    fixed=patch({"spec.gcsFaultToleranceOptions.storage": REMOVE}),
    cel=Cel("!has(c.gcsFaultToleranceOptions) || !has(c.gcsFaultToleranceOptions.storage) || (has(c.gcsFaultToleranceOptions.backend) && !(c.gcsFaultToleranceOptions.backend in ['', 'redis']))", over="cluster", path="gcsFaultToleranceOptions.storage"),
)


# --------------------------------------------------------------------------------------------------
