"""Authentication (``authOptions``, v1.6) and mutual TLS (``RayClusterMTLS`` gate, v1.7)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from typing import Any

from pulumi_kuberay.kuberay.names import USE_TLS_ENV
from pulumi_kuberay.kuberay.paths import (
    ClusterSpecRef,
    as_str,
    cluster_specs,
    env_list,
    get,
    group_template,
    groups,
    is_unknown,
    ray_container,
    volume_mounts,
)

from ._cel import Cel, ray_version_at_least
from ._engine import KINDS, Context, Violation, declare
from ._examples import add_env, example, head_container_of, set_ray_version, spec_of, worker_container_of
from ._fixed import REMOVE, patch
from ._manifest_readers import TLS_ENV_VARS, TLS_MOUNT_PATH, TLS_VOLUME, is_set, ray_version_of, reported_as

# RC-61..RC-66: auth (v1.6)

_AUTH_MIN_RAY = (2, 52, 0)
_K8S_AUTH_MIN_RAY = (2, 55, 0)


def _check_auth_version(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        auth = ref.spec.get("authOptions")
        if not isinstance(auth, dict) or auth.get("mode") != "token":
            continue
        version = ray_version_of(ref)
        if version is None:
            continue
        text, parsed = version
        path = ref.path("rayVersion")
        if not text:
            yield Violation(
                f"authOptions.mode is 'token' but rayVersion is not set; Ray >= 2.52.0 is required{reported_as(ref)}",
                path,
                fix="Set rayVersion to the image's Ray version (>= 2.52.0).",
            )
        elif parsed is None:
            yield Violation(
                f"authOptions.mode is 'token' but rayVersion {text!r} is not a valid version{reported_as(ref)}",
                path,
                fix="Set rayVersion to the image's Ray version, e.g. '2.52.0'.",
            )
        elif parsed < _AUTH_MIN_RAY:
            yield Violation(
                f"authOptions.mode is 'token' but the minimum Ray version is 2.52.0, got {text}{reported_as(ref)}",
                path,
                fix="Upgrade Ray (image and rayVersion) to >= 2.52.0 or remove authOptions.",
            )
        elif auth.get("enableK8sTokenAuth") is True and parsed < _K8S_AUTH_MIN_RAY:
            yield Violation(
                f"authOptions.enableK8sTokenAuth needs Ray >= 2.55.0, got {text}{reported_as(ref)}",
                path,
                fix="Upgrade Ray (image and rayVersion) to >= 2.55.0 or disable enableK8sTokenAuth.",
            )


declare(
    id="auth-token-ray-version",
    title="Token auth without a Ray version that supports it",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-61", "RC-62", "RC-63", "RC-64"),
    enforced_by=("operator",),
    since="1.5.1",  # authOptions and this check came with v1.5.1 (v1.5.0 has neither)
    rationale="Token authentication needs rayVersion >= 2.52.0 (Kubernetes token auth >= 2.55.0); the operator rejects a missing, invalid or older rayVersion.",
    fix="Set rayVersion (matching the image) to a version that supports the chosen auth.",
    check=_check_auth_version,
    compliant=example(lambda d: spec_of(d).update(authOptions={"mode": "token"})),
    violating=example(lambda d: spec_of(d).update(authOptions={"mode": "token"}, rayVersion="2.46.0")),
    violating_path="spec.rayVersion",
    fixed=patch({"spec.rayVersion": "2.52.0"}),
    cel=Cel(
        f"!has(c.authOptions) || !has(c.authOptions.mode) || c.authOptions.mode != 'token' || ({ray_version_at_least(_AUTH_MIN_RAY)} && !(has(c.authOptions.enableK8sTokenAuth) && c.authOptions.enableK8sTokenAuth && !{ray_version_at_least(_K8S_AUTH_MIN_RAY)}))",
        over="cluster",
        path="rayVersion",
        message="authOptions.mode is 'token' but rayVersion is missing, not a version, or older than 2.52.0 (2.55.0 with enableK8sTokenAuth)",
    ),
)


def _check_k8s_token_auth(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        auth = ref.spec.get("authOptions")
        if not isinstance(auth, dict) or auth.get("enableK8sTokenAuth") is not True:
            continue
        mode = auth.get("mode")
        if "mode" in auth and is_unknown(mode):
            continue
        if mode == "token":
            if is_set(auth.get("secretName")):
                yield Violation(
                    f"authOptions.enableK8sTokenAuth and authOptions.secretName are both set{reported_as(ref)}",
                    ref.path("authOptions", "secretName"),
                    fix="Remove secretName (Kubernetes token auth needs no shared token) or disable enableK8sTokenAuth.",
                )
        else:
            yield Violation(
                f"authOptions.enableK8sTokenAuth requires authOptions.mode 'token' (got {mode!r}){reported_as(ref)}",
                ref.path("authOptions", "mode"),
                fix="Set authOptions.mode: token.",
            )


declare(
    id="auth-k8s-token-conflict",
    title="Kubernetes token auth misconfigured",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-65", "RC-66"),
    enforced_by=("operator",),
    since="1.6",
    rationale="enableK8sTokenAuth requires mode 'token' and excludes secretName; the operator rejects other combinations.",
    fix="Use authOptions {mode: token, enableK8sTokenAuth: true} without secretName.",
    check=_check_k8s_token_auth,
    compliant=example(
        lambda d: set_ray_version(spec_of(d), "2.55.0").update(authOptions={"mode": "token", "enableK8sTokenAuth": True})
    ),
    violating=example(
        lambda d: set_ray_version(spec_of(d), "2.55.0").update(authOptions={"enableK8sTokenAuth": True})
    ),
    violating_path="spec.authOptions.mode",
    fixed=patch({"spec.authOptions.mode": "token"}),
    cel=Cel("!has(c.authOptions) || !has(c.authOptions.enableK8sTokenAuth) || !c.authOptions.enableK8sTokenAuth || (has(c.authOptions.mode) && c.authOptions.mode == 'token' && (!has(c.authOptions.secretName) || c.authOptions.secretName == ''))", over="cluster", path="authOptions"),
)


# --------------------------------------------------------------------------------------------------
# RC-77..RC-85: TLS (v1.7, gate RayClusterMTLS, tlsOptions.enabled)

_TLS_CONTEXT = {"feature_gates": {"RayClusterMTLS": True}}


def _tls_on(ref: ClusterSpecRef, ctx: Context) -> bool:
    return get(ref.spec, "tlsOptions", "enabled") is True


def _tls_targets(ref: ClusterSpecRef) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """(who, path, container-like object) for the head, each worker and the autoscaler options."""
    for group in groups(ref):
        found = ray_container(group_template(group))
        if found is not None:
            who = "head Pod" if group.role == "head" else f"worker group {group.name!r}"
            yield who, found[0], found[1]
    options = ref.spec.get("autoscalerOptions")
    if isinstance(options, dict):
        yield "autoscalerOptions", ref.path("autoscalerOptions"), options


def _check_tls_env(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if not _tls_on(ref, ctx):
            continue
        for who, path, container in _tls_targets(ref):
            for epath, entry in env_list(container, path):
                if entry["name"] in TLS_ENV_VARS:
                    yield Violation(
                        f"cannot set TLS env var {entry['name']} in {who} when TLS is enabled (managed by KubeRay){reported_as(ref)}",
                        epath,
                        fix=f"Remove env {entry['name']}; KubeRay wires TLS from tlsOptions.",
                    )


def _tls(d: dict[str, Any]) -> dict[str, Any]:
    spec_of(d)["tlsOptions"] = {"enabled": True}
    return d


declare(
    id="tls-managed-env",
    title="TLS env var set by hand while tlsOptions is enabled",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-77", "RC-80", "RC-83"),
    enforced_by=("operator",),
    since="1.7",
    gate="RayClusterMTLS",
    rationale="With tlsOptions.enabled KubeRay injects RAY_USE_TLS and the RAY_TLS_* paths into head, workers and the autoscaler; user values are rejected.",
    fix="Remove RAY_USE_TLS / RAY_TLS_SERVER_CERT / RAY_TLS_SERVER_KEY / RAY_TLS_CA_CERT from the containers.",
    check=_check_tls_env,
    compliant=example(_tls),
    violating=example(lambda d: (_tls(d), add_env(worker_container_of(d), USE_TLS_ENV, "1"))),
    violating_path="spec.workerGroupSpecs[0].template.spec.containers[0].env[0]",
    context=_TLS_CONTEXT,
    fixed=patch({"spec.workerGroupSpecs[0].template.spec.containers[0].env": REMOVE}),
)


def _check_tls_mounts(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for ref in cluster_specs(doc):
        if not _tls_on(ref, ctx):
            continue
        for who, path, container in _tls_targets(ref):
            for mpath, mount in volume_mounts(container, path):
                if mount.get("name") == TLS_VOLUME:
                    yield Violation(
                        f"{who} volumeMount name {TLS_VOLUME!r} is reserved when TLS is enabled{reported_as(ref)}",
                        mpath,
                        fix="Rename the mount or remove it.",
                    )
                elif (mount_path := as_str(mount.get("mountPath"))) == TLS_MOUNT_PATH:
                    yield Violation(
                        f"{who} mountPath {TLS_MOUNT_PATH} is reserved when TLS is enabled{reported_as(ref)}",
                        mpath,
                        fix="Mount at another path; KubeRay mounts the certificates at /etc/ray/tls.",
                    )
                elif mount_path and posixpath.normpath(mount_path) == TLS_MOUNT_PATH:
                    # validateNoConflictingTLSVolumeMount compares the string exactly: accepted, but it is the
                    # directory KubeRay mounts the certificates on, so one mount hides the other in the Pod.
                    yield Violation(
                        f"{who} mountPath {mount_path!r} is KubeRay's TLS certificate directory {TLS_MOUNT_PATH} written differently: the operator accepts it (it compares the path exactly), but one of the two mounts hides the other in the Pod{reported_as(ref)}",
                        mpath,
                        fix="Mount at another path; KubeRay mounts the certificates at /etc/ray/tls.",
                        severity="high",
                    )


declare(
    id="tls-reserved-mounts",
    title="Volume mount uses the TLS name or path KubeRay reserves",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rows=("RC-78", "RC-79", "RC-81", "RC-82", "RC-84", "RC-85"),
    enforced_by=("operator",),
    since="1.7",
    gate="RayClusterMTLS",
    rationale="With tlsOptions.enabled KubeRay mounts the certificates as 'ray-tls' at /etc/ray/tls on head, workers and the autoscaler; conflicting mounts are rejected.",
    fix="Remove or rename mounts named ray-tls or at /etc/ray/tls.",
    check=_check_tls_mounts,
    compliant=example(_tls),
    violating=example(
        lambda d: (
            _tls(d),
            head_container_of(d).update(volumeMounts=[{"name": "certs", "mountPath": TLS_MOUNT_PATH}]),
        )
    ),
    violating_path="spec.headGroupSpec.template.spec.containers[0].volumeMounts[0]",
    context=_TLS_CONTEXT,
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].volumeMounts": REMOVE}),
)
