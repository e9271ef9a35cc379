"""What Pod validation refuses in a pod template's annotations, which the operator copies to every Pod it creates
(``BuildPod`` takes the template's ObjectMeta): the tolerations annotation (JSON, each toleration valid), the
kubelet's mirror-Pod marker without spec.nodeName, a pod-deletion-cost that is no 32-bit integer
(``ValidatePodSpecificAnnotations``), the deprecated seccomp and AppArmor annotations' values
(``ValidateSeccompPodAnnotations``, ``ValidateAppArmorPodAnnotations``) and their agreement with the
securityContext fields (``validateSeccompAnnotationsAndFields``, ``validateAppArmorAnnotationsAndFieldsMatchOnCreate``,
after the API server's ``applyAppArmorVersionSkew`` copied an annotation to a container without a profile).

A helper of ``pod-spec-value-invalid`` (rules/pod_spec.py): each problem is (path under the template, message).
Plain Python, no pulumi.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterator
from typing import Any

from pulumi_kuberay.kuberay.kubernetes import (
    ANNOTATION_PROFILE_DOCKER_DEFAULT,
    ANNOTATION_PROFILE_LOCALHOST_PREFIX,
    ANNOTATION_PROFILE_RUNTIME_DEFAULT,
    ANNOTATION_PROFILE_UNCONFINED,
    APPARMOR_CONTAINER_ANNOTATION_PREFIX,
    INT32_MAX,
    INT32_MIN,
    MIRROR_POD_ANNOTATION,
    POD_DELETION_COST_ANNOTATION,
    SECCOMP_CONTAINER_ANNOTATION_PREFIX,
    SECCOMP_POD_ANNOTATION,
    TOLERATIONS_ANNOTATION,
)
from pulumi_kuberay.kuberay.names import (
    AUTOSCALER_CONTAINER,
    HISTORY_COLLECTOR_CONTAINER,
    SUBMITTER_CONTAINER,
    WAIT_GCS_READY_CONTAINER,
)
from pulumi_kuberay.kuberay.paths import PodTemplateRef, as_dict, as_list, is_unknown
from pulumi_kuberay.kuberay.paths import as_str as _text  # the string to judge (not one known only at apply)

from ._manifest_readers import annotation_path

Problem = tuple[str, str]
TolerationCheck = Callable[[int, dict[str, Any]], Iterator[Problem]]

#: The containers the operator adds to a Pod: an AppArmor annotation may name them (podSpecHasContainer).
_INJECTED = frozenset(
    {AUTOSCALER_CONTAINER, HISTORY_COLLECTOR_CONTAINER, SUBMITTER_CONTAINER, WAIT_GCS_READY_CONTAINER}
)
#: A Toleration's JSON fields and their types (Go's encoding/json refuses another type, matches a name of another
#: case to the field, and ignores other names).
_TOLERATION_FIELDS: dict[str, type | tuple[type, ...]] = {
    "key": str, "operator": str, "value": str, "effect": str, "tolerationSeconds": int,
}  # fmt: skip
_FIELD_BY_FOLDED = {name.lower(): name for name in _TOLERATION_FIELDS}
_DECIMAL = re.compile(r"-?[0-9]+")
_PROFILE_TYPES = {  # the annotation value each seccompProfile / appArmorProfile type must have
    "Unconfined": (ANNOTATION_PROFILE_UNCONFINED,),
    "RuntimeDefault": (ANNOTATION_PROFILE_RUNTIME_DEFAULT, ANNOTATION_PROFILE_DOCKER_DEFAULT),
}


def _parsed_tolerations(text: str) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """GetTolerationsFromPodAnnotations: each item of the JSON list as the API server decodes it (a field name of
    any case), or what makes it no toleration; index -1: what makes the whole annotation none."""
    try:
        tolerations = json.loads(text)
    except ValueError as error:
        yield -1, f"is not JSON ({error})"
        return
    if tolerations is None:
        return
    if not isinstance(tolerations, list):
        yield -1, "is not a JSON list of tolerations"
        return
    for i, toleration in enumerate(tolerations):
        if toleration is None:
            toleration = {}
        if not isinstance(toleration, dict):
            yield i, f"item {i} is not a toleration object"
            continue
        values = {
            _FIELD_BY_FOLDED[k.lower()]: v
            for k, v in toleration.items()
            if k.lower() in _FIELD_BY_FOLDED and v is not None
        }
        wrong = [k for k, v in values.items() if not isinstance(v, _TOLERATION_FIELDS[k]) or isinstance(v, bool)]
        yield i, (f"item {i}: {', '.join(wrong)} of the wrong JSON type" if wrong else values)


def _toleration_problems(text: str, check: TolerationCheck) -> Iterator[str]:
    """ValidateTolerationsInPodAnnotations: JSON a list of tolerations (GetTolerationsFromPodAnnotations), each
    valid (ValidateTolerations)."""
    for i, toleration in _parsed_tolerations(text):
        if isinstance(toleration, str):
            yield toleration
            continue
        for _, problem in check(i, toleration):
            yield f"item {i}: {problem.removesuffix(' (ValidateTolerations)')}"


def annotation_tolerations(template: PodTemplateRef) -> tuple[str, list[tuple[int, dict[str, Any]]]]:
    """The tolerations annotation's path under the template and its tolerations as the API server decodes them
    (none where it is absent or no JSON list: annotation_problems says why)."""
    annotations = as_dict(as_dict(template.template.get("metadata")).get("annotations"))
    text = _text(annotations.get(TOLERATIONS_ANNOTATION)) if annotations and not is_unknown(annotations) else None
    items = list(_parsed_tolerations(text)) if text else []
    whole = all(isinstance(t, dict) for _, t in items)  # else it does not decode: no toleration of it is read
    return annotation_path(TOLERATIONS_ANNOTATION), [(i, t) for i, t in items if isinstance(t, dict)] if whole else []


def _deletion_cost_error(text: str) -> str | None:
    """GetDeletionCostFromPodAnnotations: no '+', no leading zero, a decimal int32."""
    if not _DECIMAL.fullmatch(text) or (text.startswith("0") and text != "0"):
        return "is not a decimal integer (no sign '+', no leading zeros)"
    if not INT32_MIN <= int(text) <= INT32_MAX:
        return f"is not a 32-bit integer ({INT32_MIN}..{INT32_MAX})"
    return None


def _seccomp_value_error(value: str) -> str | None:
    """ValidateSeccompProfile: runtime/default, docker/default, unconfined, or localhost/ and a relative path
    without '..' (validateLocalDescendingPath)."""
    if value in (ANNOTATION_PROFILE_RUNTIME_DEFAULT, ANNOTATION_PROFILE_DOCKER_DEFAULT, ANNOTATION_PROFILE_UNCONFINED):
        return None
    if value.startswith(ANNOTATION_PROFILE_LOCALHOST_PREFIX):
        local = value.removeprefix(ANNOTATION_PROFILE_LOCALHOST_PREFIX)
        if posixpath.isabs(local) or ".." in local.split("/"):
            return f"names the profile {local!r}, which must be a relative path without '..'"
        return None
    return f"is not {ANNOTATION_PROFILE_RUNTIME_DEFAULT}, {ANNOTATION_PROFILE_UNCONFINED} or {ANNOTATION_PROFILE_LOCALHOST_PREFIX}<profile>"


def _profile_mismatch(kind: str, annotation: str, profile: dict[str, Any]) -> str | None:
    """validateSeccompAnnotationsAndFieldsMatch and its AppArmor twin: the field (suffix) where they disagree."""
    kind_of = profile.get("type")  # a type not known until apply matches neither branch
    if kind_of in _PROFILE_TYPES:
        return None if annotation in _PROFILE_TYPES[kind_of][: 2 if kind == "seccomp" else 1] else "type"
    if kind_of == "Localhost":
        if not annotation.startswith(ANNOTATION_PROFILE_LOCALHOST_PREFIX):
            return "type"
        local = profile.get("localhostProfile")
        if local is not None and is_unknown(local):
            return None
        return None if annotation.removeprefix(ANNOTATION_PROFILE_LOCALHOST_PREFIX) == local else "localhostProfile"
    return None


def _apparmor_field(annotation: str) -> dict[str, Any] | None:
    """ApparmorFieldForAnnotation, kept only when ValidateAppArmorProfileField accepts it (applyAppArmorVersionSkew)."""
    if annotation == ANNOTATION_PROFILE_UNCONFINED:
        return {"type": "Unconfined"}
    if annotation == ANNOTATION_PROFILE_RUNTIME_DEFAULT:
        return {"type": "RuntimeDefault"}
    local = annotation.removeprefix(ANNOTATION_PROFILE_LOCALHOST_PREFIX)
    if annotation.startswith(ANNOTATION_PROFILE_LOCALHOST_PREFIX) and local and local == local.strip():
        return {"type": "Localhost", "localhostProfile": local}
    return None


def _seccomp_problem(
    annotations: dict[str, Any], key: str, context: dict[str, Any], at: str, subject: str
) -> Problem | None:
    """validateSeccompAnnotationsAndFieldsMatch for one seccomp annotation (``key``) and the securityContext it
    must agree with (the Pod's or a container's, at ``at``; ``subject``: its profile as the message names it)."""
    seccomp = _text(annotations.get(key))
    profile = context.get("seccompProfile")
    if seccomp is None or not isinstance(profile, dict):
        return None
    where = _profile_mismatch("seccomp", seccomp, profile)
    if not where:
        return None
    return (
        f"{at}.seccompProfile.{where}",
        f"the annotation {key}: {seccomp} and {subject} disagree (validateSeccompAnnotationsAndFieldsMatch)",
    )


def _match_problems(template: PodTemplateRef, annotations: dict[str, Any]) -> Iterator[Problem]:
    spec = template.pod_spec
    pod = as_dict(spec.get("securityContext"))
    problem = _seccomp_problem(
        annotations, SECCOMP_POD_ANNOTATION, pod, "spec.securityContext", "securityContext.seccompProfile"
    )
    if problem:
        yield problem
    windows = _text(as_dict(spec.get("os")).get("name")) == "windows"  # no AppArmor on Windows (either function)
    for field in ("initContainers", "containers"):
        for i, container in enumerate(as_list(spec.get(field))):
            container = as_dict(container)
            name, context = _text(container.get("name")), as_dict(container.get("securityContext"))
            if name is None:
                continue
            at = f"spec.{field}[{i}].securityContext"
            problem = _seccomp_problem(
                annotations, SECCOMP_CONTAINER_ANNOTATION_PREFIX + name, context, at, "the container's seccompProfile"
            )
            if problem:
                yield problem
            apparmor = _text(annotations.get(APPARMOR_CONTAINER_ANNOTATION_PREFIX + name))
            own = context.get("appArmorProfile")
            profile = own if isinstance(own, dict) else None
            if apparmor is None or windows or (profile is None and _apparmor_field(apparmor) is not None):
                continue  # the API server copies a valid annotation to a container without a profile first
            profile = profile if profile is not None else pod.get("appArmorProfile")
            where = _profile_mismatch("apparmor", apparmor, profile) if isinstance(profile, dict) else None
            if where:
                yield (
                    f"{at}.appArmorProfile.{where}",
                    f"the annotation {APPARMOR_CONTAINER_ANNOTATION_PREFIX}{name}: {apparmor!r} and the container's appArmorProfile disagree (validateAppArmorAnnotationsAndFieldsMatchOnCreate)",
                )


def annotation_problems(template: PodTemplateRef, toleration_check: TolerationCheck) -> Iterator[Problem]:
    """The problems of the template's annotations; (path under the template, message)."""
    annotations = as_dict(as_dict(template.template.get("metadata")).get("annotations"))
    if not annotations or is_unknown(annotations):
        return
    spec = template.pod_spec
    names: set[Any] | None = None
    for key, value in annotations.items():
        text = _text(value)
        if text is None or not isinstance(key, str):
            continue
        at = annotation_path(key)
        if key == TOLERATIONS_ANNOTATION and text:
            for problem in _toleration_problems(text, toleration_check):
                yield at, f"the tolerations annotation {problem} (ValidateTolerationsInPodAnnotations)"
        elif key == MIRROR_POD_ANNOTATION and spec.get("nodeName") in (None, ""):
            yield (
                at,
                f"{key} marks a kubelet's mirror Pod and needs spec.nodeName: drop the annotation (ValidatePodSpecificAnnotations)",
            )
        elif key == POD_DELETION_COST_ANNOTATION and (error := _deletion_cost_error(text)):
            yield at, f"{key} {text!r} {error} (ValidatePodSpecificAnnotations)"
        elif key == SECCOMP_POD_ANNOTATION or key.startswith(SECCOMP_CONTAINER_ANNOTATION_PREFIX):
            error = _seccomp_value_error(text)
            if error:
                yield (
                    at,
                    f"seccomp annotation {key}: {text!r} {error} (ValidateSeccompProfile); prefer securityContext.seccompProfile",
                )
        elif key.startswith(APPARMOR_CONTAINER_ANNOTATION_PREFIX):
            if names is None:
                names = {
                    c.get("name")
                    for f in ("initContainers", "containers", "ephemeralContainers")
                    for c in map(as_dict, as_list(spec.get(f)))
                }
            container = key.removeprefix(APPARMOR_CONTAINER_ANNOTATION_PREFIX)
            if (
                container not in names
                and container not in _INJECTED
                and not any(n is not None and is_unknown(n) for n in names)
            ):
                yield at, f"AppArmor annotation {key} names no container of the Pod (ValidateAppArmorPodAnnotations)"
            if text not in (
                "",
                ANNOTATION_PROFILE_RUNTIME_DEFAULT,
                ANNOTATION_PROFILE_UNCONFINED,
            ) and not text.startswith(ANNOTATION_PROFILE_LOCALHOST_PREFIX):
                yield (
                    at,
                    f"AppArmor annotation {key}: {text!r} is not {ANNOTATION_PROFILE_RUNTIME_DEFAULT}, {ANNOTATION_PROFILE_UNCONFINED} or {ANNOTATION_PROFILE_LOCALHOST_PREFIX}<profile> (ValidateAppArmorProfileFormat); prefer securityContext.appArmorProfile",
                )
    if any(
        isinstance(k, str) and ("seccomp" in k or k.startswith(APPARMOR_CONTAINER_ANNOTATION_PREFIX))
        for k in annotations
    ):
        yield from _match_problems(template, annotations)
