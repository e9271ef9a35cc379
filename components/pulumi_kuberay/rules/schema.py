"""Structural rules: the manifest read through the typed model (what the API server would prune or reject).

The model (:func:`pulumi_kuberay.model.manifest.load_manifest`) carries the CRD schema, so neither the lint
command nor the policy pack needs CRD files at run time. Also: malformed Ray documents, suppression hygiene.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from operator import methodcaller
from typing import Any

from pulumi_kuberay.kuberay.api import API_VERSION
from pulumi_kuberay.kuberay.paths import (
    NULL_FREE,
    UNKNOWN_SENTINEL,
    cluster_specs,
    get,
    is_unknown,
    memo,
    parse_path,
    path_touches_unknown,
    placeholder_note,
    pod_templates,
)
from pulumi_kuberay.model import (
    KubeRayDeprecationWarning,
    ManifestError,
    pod_refusals,
    refusals_recorded,
    render_scalar,
)
from pulumi_kuberay.model.manifest import load_manifest
from pulumi_kuberay.model.serve import ray_serve_ignores

from ._engine import KINDS, SUPPRESS_PREFIX, Context, Violation, declare, registered
from ._examples import base_cluster
from ._fixed import REMOVE, patch
from ._manifest_readers import (
    effective_name,
    is_dns1123_subdomain,
    label_value_error,
    qualified_name_error,
)


@dataclass(frozen=True)
class _Problem:
    path: str
    message: str
    kind: str
    fix: str | None


@dataclass
class _Loaded:
    """The model load of one manifest, shared by the four schema rules (``memo``: once per ``check``)."""

    problems: tuple[_Problem, ...] = ()
    error: Exception | None = None  # not a manifest problem: a model bug, reported once as internal-error
    error_reported: bool = False


def _unjudgeable(doc: dict[str, Any], path: str) -> bool:
    """The problem sits on, under or next to a value Pulumi has not computed yet (the sentinel).

    A cross-field problem is reported on the parent object, so an unknown direct child also counts. ``doc``'s spec
    holds no null property (:func:`_without_nulls`); a null *list item* is judged: the API server rejects it
    whatever else is known ("must be of type object").
    """
    if path_touches_unknown(doc, path):
        return True
    cur: Any = doc
    for key in parse_path(path):
        present = (isinstance(cur, dict) and key in cur) or (
            isinstance(cur, list) and isinstance(key, int) and 0 <= key < len(cur)
        )
        if not present:
            return False  # absent: a real missing-field problem
        in_list = isinstance(cur, list)
        cur = get(cur, key)
        if cur is None:
            return not in_list
    children = cur.values() if isinstance(cur, dict) else cur if isinstance(cur, list) else ()
    return any(is_unknown(child) for child in children if not isinstance(cur, list) or child is not None)


def _top_level_shape(doc: dict[str, Any], path: str) -> bool:
    """A missing or non-object spec/metadata: reported once, by ``manifest-malformed``."""
    return path in ("spec", "metadata") and (path not in doc or not isinstance(doc[path], dict))


def _without_nulls(value: Any) -> Any:
    """``value`` as the API server keeps it: every null property or map value dropped, as
    ``PruneNonNullableNullsWithoutDefaults`` does (no field of the KubeRay CRDs' specs is ``nullable``; one with a
    ``default`` is then defaulted, as if absent). A null *list item* stays: the schema rejects it."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value


def _holds_null(value: Any) -> bool:
    """``value`` (a dict or list) holds a null at some depth: only then does :func:`_without_nulls` change it. A walk
    that builds nothing, so a spec without nulls (most) is validated as it is, not copied."""
    for item in value.values() if isinstance(value, dict) else value:
        if item is None:
            return True
        if isinstance(item, (dict, list)) and _holds_null(item):
            return True
    return False


def _not_known(doc: dict[str, Any]) -> bool:
    """What :func:`memo` answers for a view ``check`` did not find (e.g. NULL_FREE of a document that has nulls)."""
    return False


def _null_note(doc: dict[str, Any], path: str) -> str:
    """Why a required field set to null is missing (the message of a missing one otherwise)."""
    cur: Any = doc
    for key in parse_path(path):
        if not isinstance(cur, dict) or key not in cur:
            return ""
        cur = cur[key]
    return " (it is null: the API server drops a null field, as if it were not there)" if cur is None else ""


def _load(doc: dict[str, Any]) -> _Loaded:
    spec = doc.get("spec")
    # metadata is decoded as ObjectMeta (nulls are zero values there): only the spec is pruned
    pruned = doc
    if isinstance(spec, dict) and not memo(doc, NULL_FREE, _not_known) and _holds_null(spec):
        pruned = {**doc, "spec": _without_nulls(spec)}
    recorded = refusals_recorded()
    try:
        with warnings.catch_warnings():  # deprecated fields are findings (kuberay-field-deprecated), never warnings
            warnings.simplefilter("ignore", KubeRayDeprecationWarning)
            manifest = load_manifest(pruned)
    except ManifestError as exc:
        return _Loaded(
            tuple(
                _Problem(
                    str(p.path),
                    str(p.message) + (_null_note(doc, str(p.path)) if p.kind == "missing" else ""),
                    str(p.kind),
                    p.fix,
                )
                for p in exc.problems
                if not _unjudgeable(pruned, str(p.path)) and not _top_level_shape(pruned, str(p.path))
            )
        )
    except Exception as exc:
        return _Loaded(error=exc)
    # (most manifests record no toleration's refusal: their model is not walked for one)
    walk = refusals_recorded() != recorded
    return _Loaded(
        _serve_refusals(pruned, _recorded(manifest.spec, "serve_problems")) + _stored_refusals(pruned, manifest, walk)
    )


def _stored_refusals(doc: dict[str, Any], manifest: Any, walk: bool = True) -> tuple[_Problem, ...]:
    """What the model records of a manifest it loads as the API server stores it, where no rule of the catalogue
    reads it: the API server's refusals of the Pods made from a pod template (a toleration's operator; looked for
    when ``walk``), the submitter's refusal of an ``entrypointResources`` that is not a JSON object."""
    found = list(pod_refusals(manifest.spec, "spec")) if walk else []
    cron = manifest.kind == "RayCronJob"
    job = manifest.spec.job_template if cron else manifest.spec
    prefix = "spec.jobTemplate" if cron else "spec"
    found += [replace(p, path=f"{prefix}.{p.path}") for p in _recorded(job, "stored_problems")]
    return tuple(
        _Problem(str(p.path), str(p.message), str(p.kind), p.fix) for p in found if not _unjudgeable(doc, str(p.path))
    )


#: (model class, name) -> the class has that attribute (a property or a field): bounded by the model classes.
_HAS_RECORD: dict[tuple[type[Any], str], bool] = {}


def _recorded(model: Any, name: str) -> tuple[Any, ...]:
    """``getattr(model, name, ())``, without asking a model whose class has no such attribute: pydantic answers a
    missing one with an exception (~3 us; every check asked twice, for most kinds in vain)."""
    cls = type(model)
    has = _HAS_RECORD.get((cls, name))
    if has is None:
        fields = getattr(cls, "model_fields", {})
        has = _HAS_RECORD[cls, name] = name in fields or any(name in vars(k) for k in cls.__mro__)
    return getattr(model, name, ()) if has else ()


def _serve_refusals(doc: dict[str, Any], problems: tuple[Any, ...]) -> tuple[_Problem, ...]:
    """What Ray Serve refuses in serveConfigV2 (the API server stores the string unread: the model records Serve's
    verdict instead of refusing the object). A key Serve drops without a word is serve-config-unknown-key's."""
    return tuple(
        _Problem(str(p.path), f"Ray Serve refuses this Serve config: {p.message}", "invalid_value", p.fix)
        for p in problems
        if not ray_serve_ignores(p) and not _unjudgeable(doc, str(p.path))
    )


def _problems(doc: dict[str, Any]) -> tuple[_Problem, ...]:
    loaded: _Loaded = memo(doc, "structure.model_load", _load)
    if loaded.error is not None and not loaded.error_reported:
        loaded.error_reported = True
        raise loaded.error
    return loaded.problems


def _schema_check(problem_kind: str) -> Callable[[dict[str, Any], Context], Iterator[Violation]]:
    def run(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
        for p in _problems(doc):
            if p.kind == problem_kind:
                # a value such as '${RAY_HEAD_CPU}' is a template placeholder: say so, it is the fix
                note = placeholder_note(p.message) if p.kind in ("wrong_type", "invalid_value") else ""
                yield Violation(message=p.message + note, path=p.path or "spec", fix=p.fix)

    return run


def _example(**spec_overrides: Any) -> dict[str, Any]:
    doc = base_cluster()
    doc["spec"].update(spec_overrides)
    return doc


_COMPLIANT = _example()


def _with_worker(**changes: Any) -> dict[str, Any]:
    doc = _example()
    doc["spec"]["workerGroupSpecs"][0].update(changes)
    return doc


def _without_group_name() -> dict[str, Any]:
    doc = _example()
    del doc["spec"]["workerGroupSpecs"][0]["groupName"]  # required by the CRD
    return doc


# --------------------------------------------------------------------------------------------------
# The safe automatic fix of schema-wrong-type (the pack's remediation)


def stringify_ray_start_params(manifest: Any) -> dict[str, Any] | None:
    """``rayStartParams: {num-cpus: 0, block: true}`` -> ``{num-cpus: "0", block: "true"}`` in every group."""
    if not isinstance(manifest, dict):
        return None
    fixed = copy.deepcopy(manifest)
    changed = False
    for ref in cluster_specs(fixed):
        spec = ref.spec
        groups = [spec.get("headGroupSpec")]
        workers = spec.get("workerGroupSpecs")
        groups += workers if isinstance(workers, list) else []
        for group in groups:
            params = group.get("rayStartParams") if isinstance(group, dict) else None
            if not isinstance(params, dict):
                continue
            for key, value in params.items():
                if isinstance(value, (bool, int, float)):
                    params[key] = render_scalar(value)
                    changed = True
    return fixed if changed else None


_SCHEMA_RULES = (
    (
        "schema-unknown-field",
        "unknown_field",
        "Field not in the KubeRay CRD schema",
        "The API server prunes unknown fields silently: the setting has no effect (often a typo or a field of a newer KubeRay version).",
        "Remove the field or fix its spelling (check the KubeRay v1.7.0 CRD).",
        _example(enableInTreeAutoscaler=True),
        "spec.enableInTreeAutoscaler",
        patch({"spec.enableInTreeAutoscaler": REMOVE, "spec.enableInTreeAutoscaling": True}),
    ),
    (
        "schema-wrong-type",
        "wrong_type",
        "Field value has the wrong type",
        "The API server rejects an object whose field types do not match the CRD schema.",
        "Use the type the CRD declares (e.g. an integer for minReplicas, strings for rayStartParams values).",
        _with_worker(minReplicas="one"),
        "spec.workerGroupSpecs[0].minReplicas",
        patch({"spec.workerGroupSpecs[0].minReplicas": 1}),
    ),
    (
        "schema-missing-field",
        "missing",
        "Required field missing",
        "The API server rejects an object that lacks a field the CRD schema requires; a null one is missing too (the API server drops a null field that is not nullable, PruneNonNullableNullsWithoutDefaults).",
        "Add the required field.",
        _without_group_name(),
        "spec.workerGroupSpecs[0].groupName",
        patch({"spec.workerGroupSpecs[0].groupName": "workergroup"}),
    ),
    (
        "schema-invalid-value",
        "invalid_value",
        "Field value not allowed by the schema",
        "The API server rejects values outside the CRD's enums and bounds; an integer outside its format (int32, int64) is stored, but KubeRay cannot decode the object into its Go types and never reconciles it. In a pod template, the API server refuses every Pod made from a value its Pod validation refuses (a toleration's operator or effect); in serveConfigV2, a string the API server stores unread, Ray Serve refuses the config: the message says which.",
        "Use one of the values the CRD allows.",
        _example(autoscalerOptions={"upscalingMode": "Fast"}),
        "spec.autoscalerOptions.upscalingMode",
        patch({"spec.autoscalerOptions.upscalingMode": "Default"}),
    ),
)

#: What proves each schema rule's critical finding (docs/rules.md, "Certain because").
_SCHEMA_PROOF = {
    "schema-unknown-field": "the target's CRD does not know the field and the API server prunes it: the setting is lost without an error",
    "schema-wrong-type": "the API server's schema validation refuses the create",
    "schema-missing-field": "the API server's schema validation refuses the create (a null field is missing too)",
    "schema-invalid-value": "the API server refuses a value outside the CRD's enums and bounds; an integer outside its format is stored but KubeRay cannot decode the object",
}

for _rule_id, _kind, _title, _rationale, _fix, _violating, _path, _fixed in _SCHEMA_RULES:
    declare(
        id=_rule_id,
        title=_title,
        severity="critical",
        category="correctness",
        kinds=KINDS,
        rationale=_rationale,
        proof=_SCHEMA_PROOF[_rule_id],
        fix=_fix,
        check=_schema_check(_kind),
        compliant=_COMPLIANT,
        violating=_violating,
        violating_path=_path,
        fixed=_fixed,
        remediate=stringify_ray_start_params if _rule_id == "schema-wrong-type" else None,
    )


# --------------------------------------------------------------------------------------------------
# Malformed Ray documents (the model may be absent: this check never needs it)


def _check_malformed(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    meta = doc.get("metadata")
    if not is_unknown(meta) and not isinstance(meta, dict):
        yield Violation(f"metadata must be an object, got {type(meta).__name__}", "metadata")
    spec = doc.get("spec")
    if spec is None:  # a null spec is dropped by the API server (PruneNonNullableNullsWithoutDefaults): no spec
        shown = f"a {doc.get('kind')} needs a spec" + (" (a null spec is dropped by the API server)" if "spec" in doc else "")
        yield Violation(shown, "spec", fix="Add the spec of the resource.")
    elif not is_unknown(spec) and not isinstance(spec, dict):
        yield Violation(f"spec must be an object, got {type(spec).__name__}", "spec")


declare(
    id="manifest-malformed",
    title="Ray resource document is malformed",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="A Ray resource without an object spec (or with a non-object metadata) is rejected by the API server.",
    proof="the API server refuses an object without an object spec or metadata",
    fix="Give the resource a metadata object and a spec object.",
    check=_check_malformed,
    compliant=_COMPLIANT,
    violating={
        "apiVersion": API_VERSION,
        "kind": "RayCluster",
        "metadata": {"name": "broken"},
        "spec": "oops",
    },
    violating_path="spec",
    fixed=patch({"spec": _COMPLIANT["spec"]}),
)


# --------------------------------------------------------------------------------------------------
# Suppression hygiene


def _suppression_annotations(doc: dict[str, Any]) -> Iterator[tuple[str, str, Any]]:
    annotations = get(doc, "metadata", "annotations")
    if not isinstance(annotations, dict):
        return
    for key, value in annotations.items():
        if isinstance(key, str) and key.startswith(SUPPRESS_PREFIX):
            yield key, key[len(SUPPRESS_PREFIX) :], value


def _check_suppression_reason(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    for key, rule_id, reason in _suppression_annotations(doc):
        if reason == UNKNOWN_SENTINEL:
            continue
        if not isinstance(reason, str) or not reason.strip():
            yield Violation(
                f"suppression of {rule_id!r} has no reason, so it is ignored",
                f'metadata.annotations["{key}"]',
                fix=f'Give the reason as the annotation value, e.g. {key}: "accepted by <team> because ..."',
            )


def _check_suppression_target(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    suppressions = list(_suppression_annotations(doc))
    known = {rule.id for rule in registered()} if suppressions else set()
    for key, rule_id, _reason in suppressions:
        if rule_id not in known:
            yield Violation(
                f"suppression names no known rule ({rule_id!r})",
                f'metadata.annotations["{key}"]',
                fix="Use the rule id exactly as reported in findings (kuberay-lint shows it).",
            )


def _suppressed(annotation_value: str) -> dict[str, Any]:
    doc = _example()
    doc["metadata"]["annotations"] = {f"{SUPPRESS_PREFIX}worker-min-exceeds-max": annotation_value}
    return doc


declare(
    id="suppression-reason-missing",
    title="Rule suppression without a reason",
    severity="low",
    category="hygiene",
    kinds=KINDS,
    rationale="A suppression must say why the rule does not apply; one with an empty reason is ignored.",
    fix="Put the reason in the annotation value.",
    check=_check_suppression_reason,
    compliant=_suppressed("min > max is intended for this capacity test"),
    violating=_suppressed(""),
    violating_path="metadata.annotations[\"suppress.pulumi-kuberay.io/worker-min-exceeds-max\"]",
    fixed=patch(
        {
            'metadata.annotations["suppress.pulumi-kuberay.io/worker-min-exceeds-max"]': "min > max is intended for this capacity test",
        }
    ),
)

declare(
    id="suppression-unknown-rule",
    title="Suppression names an unknown rule",
    severity="low",
    category="hygiene",
    kinds=KINDS,
    rationale="A suppression annotation whose rule id matches no rule silences nothing (usually a typo).",
    fix="Use the exact rule id from the finding.",
    check=_check_suppression_target,
    compliant=_suppressed("intended"),
    violating={
        **_example(),
        "metadata": {
            "name": "raycluster-demo",
            "annotations": {f"{SUPPRESS_PREFIX}worker-min-exeeds-max": "typo in the rule id"},
        },
    },
    violating_path="metadata.annotations[\"suppress.pulumi-kuberay.io/worker-min-exeeds-max\"]",
    fixed=patch(
        {
            'metadata.annotations["suppress.pulumi-kuberay.io/worker-min-exeeds-max"]': REMOVE,
            'metadata.annotations["suppress.pulumi-kuberay.io/worker-min-exceeds-max"]': "intended",
        }
    ),
)


# --------------------------------------------------------------------------------------------------
# What the API server checks beyond the typed model: ObjectMeta syntax (ValidateObjectMetaAccessor) and the
# keys of the CRD's list-maps (ValidateListSetsAndMaps). tests/oracle holds both against the real code.

_ANNOTATIONS_MAX_BYTES = 256 * 1024


def _check_metadata_syntax(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    meta = manifest.get("metadata")
    if not isinstance(meta, dict):
        return
    found = effective_name(manifest)
    if found is not None and not is_dns1123_subdomain(found[0]):
        yield Violation(
            f"name {found[0]!r} is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.'); the API server rejects the object",
            found[1],
        )
    labels = meta.get("labels")
    for key, value in (labels or {}).items() if isinstance(labels, dict) else ():
        if is_unknown(key) or is_unknown(value):
            continue
        error = qualified_name_error(str(key)) or (label_value_error(value) if isinstance(value, str) else None)
        if error is not None:
            yield Violation(
                f"label {key!r}: {value!r}: {error}; the API server rejects the object", f'metadata.labels["{key}"]'
            )
    notes = meta.get("annotations")
    if not isinstance(notes, dict):
        return
    size = 0
    for key, value in notes.items():
        if is_unknown(key):
            continue
        error = qualified_name_error(str(key).lower())
        if error is not None:
            yield Violation(
                f"annotation key {key!r}: {error}; the API server rejects the object", f'metadata.annotations["{key}"]'
            )
        size += len(str(key).encode()) + (len(value.encode()) if isinstance(value, str) else 0)
    if size > _ANNOTATIONS_MAX_BYTES:
        yield Violation(f"annotations take {size} bytes; the API server allows at most 256 KiB", "metadata.annotations")


def _with_metadata(**meta: Any) -> dict[str, Any]:
    doc = _example()
    doc["metadata"].update(meta)
    return doc


declare(
    id="metadata-syntax-invalid",
    title="Label or annotation the API server rejects",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="The API server validates metadata.labels (qualified-name keys, values of at most 63 alphanumerics, '-', '_' or '.') and annotation keys (qualified names; 256 KiB in all) of every object; the create fails.",
    proof="the API server refuses the create (ValidateObjectMeta: label and annotation syntax)",
    fix="Use keys like 'app' or 'example.com/app' and label values like 'v1.2_a' (63 characters at most).",
    check=_check_metadata_syntax,
    compliant=_with_metadata(labels={"example.com/team": "ml"}, annotations={"example.com/note": "any text"}),
    violating=_with_metadata(labels={"team": "-ml"}),
    violating_path="metadata.labels[\"team\"]",
    fixed=patch(
        {
            "metadata.labels.team": REMOVE,
            'metadata.labels["example.com/team"]': "ml",
            "metadata.annotations": {"example.com/note": "any text"},
        }
    ),
)

#: (list field of a pod spec or container, its list-map keys, defaults of keys) from the CRDs' schema.
_POD_LIST_MAPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("containers", ("name",)),
    ("initContainers", ("name",)),
    ("ephemeralContainers", ("name",)),
    ("volumes", ("name",)),
    ("imagePullSecrets", ("name",)),
    ("hostAliases", ("ip",)),
    ("resourceClaims", ("name",)),
    ("schedulingGates", ("name",)),
    ("topologySpreadConstraints", ("topologyKey", "whenUnsatisfiable")),
)
_CONTAINER_LIST_MAPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("env", ("name",)),
    ("ports", ("containerPort", "protocol")),
    ("volumeMounts", ("mountPath",)),
    ("volumeDevices", ("devicePath",)),
)
_KEY_DEFAULTS = {"protocol": "TCP"}  # the CRD defaults ports[].protocol before the list-map check
_KEY_TYPES = (str, int, float, bool)
_ONLY_DICTS = {dict}


def _duplicate_keys(items: Any, keys: tuple[str, ...], path: str) -> Iterator[Violation]:
    if not isinstance(items, list):
        return
    seen: dict[tuple[Any, ...], int] = {}
    # Most list-maps are keyed by one field (env and containers by name, mounts by path): read it without a
    # generator per entry (env lists are long, and walked on every document).
    single = keys[0] if len(keys) == 1 else None
    single_default = _KEY_DEFAULTS.get(single) if single is not None else None
    if set(map(type, items)) == _ONLY_DICTS:
        # Distinct keys (compared as the dict below compares them) repeat none: most lists, decided without a
        # Python step per entry
        try:
            columns = [map(methodcaller("get", k, _KEY_DEFAULTS.get(k)), items) for k in keys]
            found = list(zip(*columns, strict=True))
            if len(set(found)) == len(found):
                return
        except TypeError:
            pass  # an unhashable value (a schema finding): walked below
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        if single is not None:
            value = item.get(single, single_default)
            if not isinstance(value, _KEY_TYPES) or value == UNKNOWN_SENTINEL:
                continue  # as below
            key: tuple[Any, ...] = (value,)
        else:
            key = tuple(item.get(k, _KEY_DEFAULTS.get(k)) for k in keys)
            if any(is_unknown(v) or not isinstance(v, _KEY_TYPES) for v in key):
                continue  # a wrong-typed key is a schema finding; unknown values are never judged
        if key in seen:
            shown = ", ".join(f"{k}={v!r}" for k, v in zip(keys, key, strict=True))
            yield Violation(
                f"{path}[{i}] repeats {shown} of {path}[{seen[key]}]; the CRD keys this list by {'+'.join(keys)}, so the API server rejects the object",
                f"{path}[{i}]",
            )
        else:
            seen[key] = i


def _check_list_map_keys(manifest: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    # A list of one entry cannot repeat a key: only longer lists are walked (and their paths built).
    for template in pod_templates(manifest):
        pod = template.pod_spec
        for field, keys in _POD_LIST_MAPS:
            items = pod.get(field)
            if isinstance(items, list) and len(items) > 1:
                yield from _duplicate_keys(items, keys, f"{template.spec_path}.{field}")
        for field in ("containers", "initContainers", "ephemeralContainers"):
            listed = pod.get(field)
            for i, container in enumerate(listed if isinstance(listed, list) else ()):
                if isinstance(container, dict):
                    for sub, keys in _CONTAINER_LIST_MAPS:
                        items = container.get(sub)
                        if isinstance(items, list) and len(items) > 1:
                            yield from _duplicate_keys(items, keys, f"{template.spec_path}.{field}[{i}].{sub}")


def _with_head_env(*names: str) -> dict[str, Any]:
    doc = _example()
    head = doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["env"] = [{"name": n, "value": str(i)} for i, n in enumerate(names)]
    return doc


declare(
    id="list-map-duplicate-key",
    title="Two list entries with one key (env name, mount path, port...)",
    severity="critical",
    category="correctness",
    kinds=KINDS,
    rationale="The CRDs declare pod template lists as list-maps (x-kubernetes-list-map-keys): env and containers by name, volumeMounts by mountPath, ports by containerPort+protocol... Two entries with the same key are rejected by the API server (Duplicate value), although a plain Pod would take them.",
    proof="the API server refuses two entries with one list-map key (Duplicate value)",
    fix="Keep one entry per key (for env, the value the container should see).",
    check=_check_list_map_keys,
    compliant=_with_head_env("A", "B"),
    violating=_with_head_env("A", "A"),
    violating_path="spec.headGroupSpec.template.spec.containers[0].env[1]",
    fixed=patch({"spec.headGroupSpec.template.spec.containers[0].env[0]": REMOVE}),
)
