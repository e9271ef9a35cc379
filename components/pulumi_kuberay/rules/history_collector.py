"""The Ray history collector sidecar (``RayClusterHistoryServer`` gate, KubeRay v1.7)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pulumi_kuberay.kuberay.names import HISTORY_COLLECTOR_ENV_VARS
from pulumi_kuberay.kuberay.paths import (
    ClusterSpecRef,
    as_dict,
    as_str,
    cluster_specs,
    containers,
    env_list,
    group_template,
    groups,
    is_unknown,
    join,
)

from ._engine import KINDS, Context, Violation, declare
from ._examples import example, head_of, spec_of
from ._fixed import REMOVE, patch
from ._manifest_readers import HISTORY_COLLECTOR_CONTAINER, env_by_name, is_set, reported_as

# RC-47..RC-60: history server (v1.7, gate RayClusterHistoryServer)

_HISTORY_CONTEXT = {"feature_gates": {"RayClusterHistoryServer": True}}
_COLLECTOR_MANAGED_ENV = HISTORY_COLLECTOR_ENV_VARS


def _history_on(ref: ClusterSpecRef, ctx: Context) -> dict[str, Any] | None:
    """The historyServerOptions the operator validates (the rules are scoped to v1.7 and the gate)."""
    options = ref.spec.get("historyServerOptions")
    return options if isinstance(options, dict) else None


def _history(d: dict[str, Any], env: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec_of(d)["historyServerOptions"] = {
        "collectorOptions": {
            "image": "rayproject/history-collector:v1.7.0",
            "env": env
            if env is not None
            else [
                {"name": "STORAGE_BACKEND", "value": "GCS"},
                {"name": "GCS_BUCKET", "value": "ray-history"},
            ],
        }
    }
    return d


def _check_collector_missing(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        options = _history_on(ref, ctx)
        if options is None:
            continue
        if "collectorOptions" not in options:
            yield Violation(
                f"historyServerOptions.collectorOptions must be set{reported_as(ref)}",
                ref.path("historyServerOptions", "collectorOptions"),
                fix="Add collectorOptions with image and env (STORAGE_BACKEND and the backend's variables).",
            )
            continue
        collector = options["collectorOptions"]
        if isinstance(collector, dict):
            image = collector.get("image")
            if "image" not in collector or image == "":
                yield Violation(
                    f"historyServerOptions.collectorOptions.image must be set{reported_as(ref)}",
                    ref.path("historyServerOptions", "collectorOptions", "image"),
                    fix="Set the history collector image.",
                )


declare(
    id="history-collector-options-missing",
    title="historyServerOptions without collectorOptions or collector image",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-47", "RC-48"),
    enforced_by=("operator",),
    since="1.7",
    gate="RayClusterHistoryServer",
    rationale="The history server needs a collector sidecar; the operator rejects options without collectorOptions/image.",
    fix="Set historyServerOptions.collectorOptions.image (and env).",
    check=_check_collector_missing,
    compliant=example(_history),
    violating=example(lambda d: spec_of(d).update(historyServerOptions={"collectorOptions": {"env": []}})),
    violating_path="spec.historyServerOptions.collectorOptions.image",
    context=_HISTORY_CONTEXT,
    fixed=patch(
        {
            "spec.historyServerOptions.collectorOptions.image": "rayproject/history-collector:v1.7.0",
            "spec.historyServerOptions.collectorOptions.env": [
                {"name": "STORAGE_BACKEND", "value": "GCS"},
                {"name": "GCS_BUCKET", "value": "ray-history"},
            ],
        }
    ),
)


def _collector_env(ref: ClusterSpecRef, options: dict[str, Any]) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    collector_path = ref.path("historyServerOptions", "collectorOptions")
    return collector_path, env_list(as_dict(options.get("collectorOptions")), collector_path)


def _check_collector_managed_env(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        options = _history_on(ref, ctx)
        if options is None:
            continue
        for path, entry in _collector_env(ref, options)[1]:
            if entry["name"] in _COLLECTOR_MANAGED_ENV:
                yield Violation(
                    f"collector env must not contain {entry['name']} (managed by KubeRay){reported_as(ref)}",
                    path,
                    fix=f"Remove env {entry['name']} from collectorOptions.env.",
                )


declare(
    id="history-collector-managed-env",
    title="History collector env sets a variable KubeRay manages",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-49",),
    enforced_by=("operator",),
    since="1.7",
    gate="RayClusterHistoryServer",
    rationale="KubeRay injects POD_IP, FQ_RAY_IP, RAY_CLUSTER_NAME, RAY_CLUSTER_NAMESPACE, RAY_ROLE, OWNER_KIND, OWNER_NAME and EVENTS_PORT into the collector; user values are rejected.",
    fix="Remove those entries from collectorOptions.env.",
    check=_check_collector_managed_env,
    compliant=example(_history),
    violating=example(
        lambda d: _history(
            d,
            [
                {"name": "STORAGE_BACKEND", "value": "GCS"},
                {"name": "GCS_BUCKET", "value": "ray-history"},
                {"name": HISTORY_COLLECTOR_ENV_VARS[4], "value": "head"},
            ],
        )
    ),
    violating_path="spec.historyServerOptions.collectorOptions.env[2]",
    context=_HISTORY_CONTEXT,
    fixed=patch(
        {
            "spec.historyServerOptions.collectorOptions.env": [
                {"name": "STORAGE_BACKEND", "value": "GCS"},
                {"name": "GCS_BUCKET", "value": "ray-history"},
            ],
        }
    ),
)


def _env_present(entry: tuple[str, dict[str, Any]] | None) -> bool:
    """Env entry with a value or a valueFrom (KubeRay's requirement for backend variables)."""
    if entry is None:
        return False
    body = entry[1]
    return is_set(body.get("value")) or body.get("valueFrom") is not None or is_unknown_present(body, "value")


def is_unknown_present(body: Mapping[str, Any], key: str) -> bool:
    """Key present with a not-yet-known value (treated as satisfying a presence requirement)."""
    return key in body and is_unknown(body[key])


_BACKEND_REQUIRED: dict[str, tuple[str, ...]] = {
    "GCS": ("GCS_BUCKET",),
    "S3": ("S3_REGION",),
    "ALIYUNOSS": ("OSS_BUCKET", "OSS_ENDPOINT", "OSS_REGION"),
}


def _check_collector_storage_env(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        options = _history_on(ref, ctx)
        if options is None or not isinstance(options.get("collectorOptions"), dict):
            continue
        collector_path, entries = _collector_env(ref, options)
        if "env" in options["collectorOptions"] and not isinstance(options["collectorOptions"]["env"], list):
            continue  # unknown env list
        env = env_by_name(entries)
        env_path = join(collector_path, "env")
        backend_entry = env.get("STORAGE_BACKEND")
        if backend_entry is not None and is_unknown_present(backend_entry[1], "value"):
            continue
        backend = as_str(backend_entry[1].get("value")) if backend_entry else None
        if not backend:
            yield Violation(
                f"collector env must set STORAGE_BACKEND as a literal value{reported_as(ref)}",
                backend_entry[0] if backend_entry else env_path,
                fix="Add {name: STORAGE_BACKEND, value: GCS|S3|AZUREBLOB|ALIYUNOSS} (not valueFrom).",
            )
            continue
        kind = backend.upper()
        missing: list[str] = []
        if kind in _BACKEND_REQUIRED:
            missing = [name for name in _BACKEND_REQUIRED[kind] if not _env_present(env.get(name))]
        elif kind == "AZUREBLOB":
            mode_entry = env.get("AZURE_STORAGE_AUTH_MODE")
            # strings.ToLower(strings.TrimSpace(...)); the backend itself is only upper-cased (no trim)
            mode = (as_str(mode_entry[1].get("value")) or "").strip().lower() if mode_entry else ""
            has_conn = _env_present(env.get("AZURE_STORAGE_CONNECTION_STRING"))
            has_url = _env_present(env.get("AZURE_STORAGE_ACCOUNT_URL"))
            if mode_entry is not None and is_unknown_present(mode_entry[1], "value"):
                continue
            if mode == "connection_string" and not has_conn:
                missing = ["AZURE_STORAGE_CONNECTION_STRING"]
            elif mode in ("workload_identity", "default") and not has_url:
                missing = ["AZURE_STORAGE_ACCOUNT_URL"]
            elif mode not in ("connection_string", "workload_identity", "default") and not (has_conn or has_url):
                missing = ["AZURE_STORAGE_CONNECTION_STRING or AZURE_STORAGE_ACCOUNT_URL"]
        for name in missing:
            yield Violation(
                f"collector env needs {name} for STORAGE_BACKEND={backend}{reported_as(ref)}",
                env_path,
                fix=f"Add {name} (value or valueFrom) to collectorOptions.env.",
            )


declare(
    id="history-collector-storage-env",
    title="History collector env lacks STORAGE_BACKEND or the backend's variables",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-50", "RC-51", "RC-52", "RC-53", "RC-54", "RC-55", "RC-56", "RC-57", "RC-58"),
    enforced_by=("operator",),
    since="1.7",
    gate="RayClusterHistoryServer",
    rationale="The collector uploads to the storage named by a literal STORAGE_BACKEND and needs that backend's settings (GCS_BUCKET; S3_REGION; Azure connection string/account URL; OSS bucket/endpoint/region).",
    fix="Set STORAGE_BACKEND as a literal value and the variables its backend requires.",
    check=_check_collector_storage_env,
    compliant=example(_history),
    violating=example(lambda d: _history(d, [{"name": "STORAGE_BACKEND", "value": "S3"}])),
    violating_path="spec.historyServerOptions.collectorOptions.env",
    context=_HISTORY_CONTEXT,
    fixed=patch(
        {
            "spec.historyServerOptions.collectorOptions.env": [
                {"name": "STORAGE_BACKEND", "value": "GCS"},
                {"name": "GCS_BUCKET", "value": "ray-history"},
            ],
        }
    ),
)


def _check_collector_container(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if _history_on(ref, ctx) is None:
            continue
        for group in groups(ref):
            tpl = group_template(group)
            if tpl is None:
                continue
            for path, container in containers(tpl):
                if container.get("name") == HISTORY_COLLECTOR_CONTAINER:
                    who = "head Pod" if group.role == "head" else f"worker group {group.name!r}"
                    yield Violation(
                        f"{who} must not define a container named {HISTORY_COLLECTOR_CONTAINER} (KubeRay injects it){reported_as(ref)}",
                        path,
                        fix="Remove the container (configure it via historyServerOptions.collectorOptions) or rename it.",
                    )


declare(
    id="history-collector-container-conflict",
    title="Pod template defines the ray-history-collector container itself",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-59", "RC-60"),
    enforced_by=("operator",),
    since="1.7",
    gate="RayClusterHistoryServer",
    rationale="With the history server on, KubeRay injects the ray-history-collector sidecar and rejects templates that already define it.",
    fix="Remove the container from the templates.",
    check=_check_collector_container,
    compliant=example(_history),
    violating=example(
        lambda d: (
            _history(d),
            head_of(d)["template"]["spec"]["containers"].append(
                {"name": HISTORY_COLLECTOR_CONTAINER, "image": "rayproject/history-collector:v1.7.0"}
            ),
        )
    ),
    violating_path="spec.headGroupSpec.template.spec.containers[1]",
    context=_HISTORY_CONTEXT,
    fixed=patch({"spec.headGroupSpec.template.spec.containers[1]": REMOVE}),
)


# --------------------------------------------------------------------------------------------------
